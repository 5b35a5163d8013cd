"""Real-time search: the ``search`` bot (:mod:`.bot`), which re-solves the public subgame
(:mod:`vitou_ai.solvers.public.subgame`) from each of its decisions to the end of the deal.

Importing this package registers the ``search:BLUEPRINT[,budget=S]...`` bot spec with
:func:`vitou_ai.bots.named.register_bot_kind` (``import vitou_ai`` does), so every
command's bot parser reads it; the bot itself (and the solvers) load on first use.
"""

from ..bots.named import register_bot_kind


def _parse(spec: str):
    from .bot import parse_search_spec

    return parse_search_spec(spec)


def _check_fits(policy, params, allow_fallback: bool = False) -> None:
    from .bot import check_fits

    check_fits(policy, params, allow_fallback=allow_fallback)


register_bot_kind("search", _parse, _check_fits)
