"""Named bots ready to use, and the bot specifications of the command line.

A *bot spec* is a string:

- a name of :data:`NAMED_BOTS`: ``random``, ``cautious``, ``bluffer``, ``counter``;
- a name with heuristic overrides: ``counter:bluff=0.2,raise_at=0.7``
  (fields of :class:`~vitou_ai.bots.heuristic.HeuristicParams`; ``heuristic``
  names the default parameters);
- ``nfsp:PATH``, ``deep_cfr:PATH``, ``ppo:PATH`` or ``neural:PATH``: a network
  saved by :class:`~vitou_ai.bots.neural.NeuralPolicy` (the learning baselines);
- ``search:BLUEPRINT[,budget=SECONDS][,nodes=N][,safe=MODE]...``: real-time search over a blueprint
  (:mod:`vitou_ai.search`; played by :mod:`vitou_ai.eval.search_match`);
- a path to a ``.npz`` tabular policy (:mod:`vitou_ai.bots.tabular`) or
  abstract policy (:mod:`vitou_ai.bots.abstract`, from ``vitou-ai train
  --profile vitou``), optionally ``path.npz:fallback=counter`` to fall back
  on a named heuristic bot at unknown information states (abstract policies
  fall back on ``counter`` unless told otherwise).

On the command line a list of bots is space-separated, one spec per argument
(``--bots random counter``); the older comma form (``--bots random,counter``) is
still read (:func:`split_bot_specs`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from .abstract import AbstractPolicy, is_abstract_file
from .heuristic import HeuristicParams
from .neural import NeuralPolicy
from .policy import HeuristicPolicy, Policy, RandomPolicy
from .tabular import TabularPolicy

#: Heuristic parameters of the named bots (``random`` is uniform random play).
NAMED_BOTS: dict[str, HeuristicParams | None] = {
    "random": None,
    # raises only strong hands, never bluffs, refuses readily, trusts signals
    "cautious": HeuristicParams(
        raise_at=0.8, reraise_at=0.92, refuse_below=0.45, bluff=0.0, lead_high=0.3,
        save_top=1.0, to_partner=1.0, tie_to_void=0.5, count=0.0, signal_rate=1.0,
        honesty=1.0, trust=1.0, go_at=0.6, go_round_at=0.6, blind_raise=0.0,
        abandon_below=0.25, agree_below=0.45,
    ),
    # raises light and often, rarely refuses, lies with half its gestures
    "bluffer": HeuristicParams(
        raise_at=0.55, reraise_at=0.7, refuse_below=0.15, bluff=0.35, lead_high=0.7,
        save_top=0.5, to_partner=1.0, tie_to_void=0.5, count=0.0, signal_rate=1.0,
        honesty=0.5, trust=0.7, go_at=0.35, go_round_at=0.35, blind_raise=0.3,
        abandon_below=0.0, agree_below=0.1,
    ),
    # counts played cards, refuses near the pot odds, bluffs a little
    "counter": HeuristicParams(
        raise_at=0.62, reraise_at=0.78, refuse_below=0.3, bluff=0.08, lead_high=0.5,
        save_top=1.0, to_partner=1.0, tie_to_void=0.8, count=1.0, signal_rate=1.0,
        honesty=1.0, trust=0.8, go_at=0.45, go_round_at=0.5, blind_raise=0.1,
        abandon_below=0.15, agree_below=0.3,
    ),
}


#: Bot-spec prefixes of network files (``nfsp:PATH``); all load a :class:`NeuralPolicy`.
NEURAL_PREFIXES = ("nfsp", "deep_cfr", "ppo", "neural")

#: bot kinds built by a layer above the bots (a search bot runs the solvers), by spec
#: prefix: ``prefix -> (parse(spec) -> Policy, check_fits(policy, params,
#: allow_fallback=False))`` (``allow_fallback``: what the caller was given, for its
#: message; :func:`check_bot_fits`). Their
#: package registers them when imported (:mod:`vitou_ai.search` registers ``search``;
#: ``import vitou_ai`` imports it), so the bots never import upwards.
BOT_KINDS: dict[str, tuple[Callable[[str], Policy], Callable[..., None]]] = {}


def register_bot_kind(prefix: str, parse: Callable[[str], Policy],
                      check_fits: Callable[..., None]) -> None:
    """Make ``prefix:...`` specs parse with ``parse`` and policies of ``kind == prefix``
    checked by ``check_fits`` in :func:`parse_bot` / :func:`check_bot_fits`."""
    BOT_KINDS[prefix] = (parse, check_fits)


def named_bot(name: str) -> Policy:
    """The named bot ``name`` (see :data:`NAMED_BOTS`).

    Raises:
        ValueError: an unknown name.
    """
    if name not in NAMED_BOTS:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(NAMED_BOTS)}")
    hp = NAMED_BOTS[name]
    return RandomPolicy(name) if hp is None else HeuristicPolicy(hp, name)


def parse_bot(spec: str) -> Policy:
    """A policy from a bot spec (module docstring).

    Raises:
        ValueError: an unknown name or parameter, a bad value, a bad tabular file.
        OSError: a tabular file that cannot be read.
        TypeError: ``spec`` not a ``str`` (or a ``Path``).

    Examples:
        >>> from vitou_ai.bots.named import parse_bot
        >>> parse_bot("counter").name
        'counter'
        >>> parse_bot("chess")
        Traceback (most recent call last):
        ...
        ValueError: unknown bot 'chess'...
    """
    if not isinstance(spec, str | Path):
        raise TypeError(f"a bot spec must be a str (a bot name such as 'counter', or a "
                        f"policy file), got {type(spec).__name__}")
    spec = str(spec).strip()
    base, _, opts = spec.partition(":")
    if base in BOT_KINDS:
        return BOT_KINDS[base][0](spec)
    if base in NEURAL_PREFIXES:
        if not opts:
            raise ValueError(f"bot {spec!r}: give the network file, {base}:PATH")
        return NeuralPolicy.load(opts)
    if base.endswith(".npz") or Path(base).suffix == ".npz":
        fallback = None
        abstract = is_abstract_file(base)
        if abstract:
            fallback = NAMED_BOTS["counter"]
        if opts:
            key, _, value = opts.partition("=")
            if key != "fallback" or not value:
                raise ValueError(f"bot {spec!r}: a tabular policy takes only ':fallback=BOT'")
            fb = named_bot(value)
            fallback = fb.params if isinstance(fb, HeuristicPolicy) else None
        if abstract:
            return AbstractPolicy.load(base, fallback=fallback)
        return TabularPolicy.load(base, fallback=fallback)
    if base == "heuristic":
        hp = HeuristicParams()
    elif base in NAMED_BOTS:
        hp = NAMED_BOTS[base]
    else:
        raise ValueError(f"unknown bot {base!r}; known: {', '.join(NAMED_BOTS)}, heuristic, "
                         "a .npz tabular policy, or search:BLUEPRINT")
    if not opts:
        if spec.endswith(":"):
            raise ValueError(f"bot {spec!r}: nothing after ':'; give name=value overrides "
                             f"({base}:bluff=0.2) or leave the ':' out")
        return named_bot(base) if base != "heuristic" else HeuristicPolicy(hp, "heuristic")
    if hp is None:
        raise ValueError(f"bot {spec!r}: 'random' takes no parameters")
    changes = {}
    for item in opts.split(","):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"bot {spec!r}: expected name=value, got {item!r}")
        if key.strip() in changes:  # which one was meant? (search: specs refuse it too)
            raise ValueError(f"bot {spec!r}: the option {key.strip()} is given twice")
        try:
            changes[key.strip()] = float(value)
        except ValueError:
            raise ValueError(f"bot {spec!r}: {key.strip()} must be a number, got {value!r}") from None
    return HeuristicPolicy(hp.replace(**changes), spec)


def check_policies(policies: Sequence[Policy], params, what: str = "policy",
                   search_ok: bool = False, allow_fallback: bool = False) -> None:
    """The checks of the library's entry points (``simulate``, ``run_tournament``,
    ``local_best_response``) on the bots they are given: game parameters, then each bot
    a policy object (not a name) made for this game (:func:`check_bot_fits`, the check
    the commands and the environments make; ``allow_fallback`` as there).

    Raises:
        TypeError: ``params`` is not a :class:`~vitou_ai.rules.VitouParams`; a bot that is
            not a policy object.
        ValueError: a policy trained for another game or variant.
    """
    from ..rules import VitouParams

    if not isinstance(params, VitouParams):
        raise TypeError(f"params must be a VitouParams (vitou_ai.VitouParams(profile=...)), "
                        f"got {type(params).__name__} {params!r}")
    for i, pol in enumerate(policies):
        if getattr(pol, "kind", None) == "search":
            check_bot_fits(pol, params, search_ok, allow_fallback=allow_fallback)
            continue
        if not isinstance(pol, RandomPolicy | HeuristicPolicy | TabularPolicy | NeuralPolicy
                          | AbstractPolicy):
            hint = (f": load it with vitou_ai.load_policy({pol!r})" if isinstance(pol, str)
                    else "")
            raise TypeError(f"{what} {i} is a {type(pol).__name__}, not a RandomPolicy, "
                            "HeuristicPolicy, TabularPolicy, NeuralPolicy or AbstractPolicy"
                            + hint)
        check_bot_fits(pol, params, allow_fallback=allow_fallback)


def check_bot_fits(policy: Policy, params, search_ok: bool = False,
                   allow_fallback: bool = False) -> None:
    """Refuse a policy read from a file (tabular, abstract, neural) that was trained for
    another game or variant than ``params`` (a :class:`~vitou_ai.rules.VitouParams`);
    the named bots play any game. What ``tournament``, ``play``, ``simulate``, ``train``
    and the environments check. A search bot (:mod:`vitou_ai.search`) is refused
    unless ``search_ok`` (the tools that play it: ``tournament`` in deal mode, ``play``,
    :mod:`vitou_ai.eval.search_match`, the environments ``Vitou-v0`` and
    ``SelfPlayEnv``), then its blueprint is checked, its scores and dealer seats as if
    ``allow_fallback`` were false (:func:`vitou_ai.search.bot.check_fits`: the search takes
    its ranges and its gadget's values from the blueprint's strategy, and the gadget's
    replay of the blueprint refuses one made for another score or dealer); a blueprint
    with holes inside its game is the simulator's fallback probe's to measure.

    A tabular or abstract policy must also have a strategy at every score and dealer
    the game reaches (its domain, :mod:`vitou_ai.bots.domain`: a policy trained on
    single deals at 0:0 has none at the other scores of a match), unless
    ``allow_fallback``: it then plays its fallback there (random play, or a heuristic
    bot), and the simulator reports the share of its decisions that did. A tabular
    policy trained with one dealer seat is refused wherever another seat deals, with or
    without ``allow_fallback`` (it would play at random in those deals).

    Raises:
        ValueError: one line naming the policy, what it was trained for and the option;
            a search bot where ``search_ok`` is false.
    """
    kind = getattr(policy, "kind", None)
    if kind in BOT_KINDS:  # a registered kind checks itself (only ``search`` today)
        if not search_ok:
            raise ValueError(f"bot {policy.name!r}: a search bot plays in `vitou-ai "
                             "tournament --deals`, `vitou-ai play` and the environments "
                             "(Vitou-v0) only: it re-solves subgames in Python and cannot "
                             "run inside the jitted simulator")
        BOT_KINDS[kind][1](policy, params, allow_fallback=allow_fallback)
        return
    from .abstract import check_fits as abstract_fits
    from .neural import check_fits as neural_fits
    from .tabular import check_fits as tabular_fits

    if isinstance(policy, TabularPolicy):
        tabular_fits(policy, params, allow_fallback)
    elif isinstance(policy, NeuralPolicy):
        neural_fits(policy, params)
    elif isinstance(policy, AbstractPolicy):
        abstract_fits(policy, params, allow_fallback)



def fallback_label(policy: Policy) -> str | None:
    """What plays where a tabular or abstract ``policy`` has no strategy: ``"random"``
    (uniform random play), the name of a bot of :data:`NAMED_BOTS` whose parameters it
    falls back on, or ``"heuristic"`` (other parameters); for a search bot its blueprint's,
    as ``"the blueprint's random"`` (it plays the blueprint where it does not search, and
    searches over the blueprint's ranges); ``None`` for the kinds that play every state
    (random, heuristic, neural, and a search bot over one of them)."""
    from .policy import can_fall_back

    if getattr(policy, "kind", None) == "search":
        label = fallback_label(policy.blueprint)
        return None if label is None else f"the blueprint's {label}"
    if not can_fall_back(policy):
        return None
    if policy.fallback is None:
        return "random"
    for name, hp in NAMED_BOTS.items():
        if hp is not None and hp == policy.fallback:
            return name
    return "heuristic"


def split_bot_specs(values: Sequence[str]) -> list[str]:
    """The bot specs of a command-line list: one per argument (``random counter``), each
    argument also split at commas (the older ``random,counter``).

    A comma piece ``field=value`` (no ``:``, no ``/``, not a ``.npz`` file) continues the
    heuristic overrides of the spec before it, so ``random,counter:bluff=0.2,raise_at=0.7``
    is two specs. The specs are not checked here (:func:`parse_bot` does that).

    Raises:
        ValueError: no spec at all, or an empty one (``''``, ``random,,``): a bot left
            out by mistake would change the lineup silently.
    """
    specs: list[str] = []
    for value in values:
        for piece in value.split(","):
            piece = piece.strip()
            if not piece:
                raise ValueError(f"--bots: an empty bot name in {value!r}; give bot names "
                                 "separated by spaces or commas, e.g. --bots random counter")
            continues = ("=" in piece and ":" not in piece and "/" not in piece
                         and not piece.endswith(".npz"))
            if continues and specs and ":" in specs[-1]:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    if not specs:
        raise ValueError("--bots: no bot given; e.g. --bots random counter")
    return specs
