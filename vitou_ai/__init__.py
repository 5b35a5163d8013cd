"""vitou_ai: research toolkit for Vitou, the trick-and-bluff card game of Nice.

Importing the package registers the OpenSpiel games ``python_vitou``
(:mod:`vitou_ai.openspiel.game`) and ``python_vint``; OpenSpiel
(``open_spiel==2.0.2``) is a dependency of the project.

The public Python API: the entry points a notebook needs, importable from the
package itself (loaded on first use, so ``import vitou_ai`` stays light). Each has
an example in the docs' [Python API](guide/python-api.md) page, which the tests run.

- the game: :class:`Game`, :class:`VitouParams`, :data:`RULES_VERSION`;
- the games x tools matrix: :mod:`vitou_ai.capabilities` (``capabilities``);
- simulate: :func:`simulate` (``vitou_ai.sim.batch.simulate``);
- load a policy or a bot: :func:`load_policy` (``vitou_ai.bots.named.parse_bot``);
- solve: :func:`build_tree`, :func:`build_public_tree`, :func:`make_solver` (its
  ``iterate`` and exact ``exact_evaluation``);
- evaluate: :func:`run_tournament`, :func:`local_best_response`,
  :func:`team_bracket`;
- match equity: :class:`EquityConfig` and :func:`match_equity_table`
  (``vitou_ai.match_equity.two_player.compute_table``).
"""

import sys as _sys


def _quiet_ctrl_c_while_the_command_starts() -> None:
    """Run as the ``vitou-ai`` command (the console script or ``python -m vitou_ai``),
    a Ctrl-C during the imports below (numba, OpenSpiel: about half a second) ends the
    process with one line and exit code 130, as a Ctrl-C later does
    (:func:`vitou_ai.commands.cli.main`), not with a traceback of the imports. Imported
    as a library, nothing changes."""
    import _signal as signal  # the C module: ``signal`` itself imports enum (slow)
    import os

    orig = getattr(_sys, "orig_argv", [])
    as_module = any(a == "-m" and b in ("vitou_ai", "vitou_ai.__main__")
                    for a, b in zip(orig, orig[1:], strict=False)) or "-mvitou_ai" in orig
    as_script = bool(_sys.argv) and os.path.basename(_sys.argv[0]) in ("vitou-ai",
                                                                        "vitou-ai.exe")
    try:
        untouched = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    except ValueError:
        return
    if not (as_module or as_script) or not untouched:
        return
    sub = _sys.argv[1] if len(_sys.argv) > 1 and not _sys.argv[1].startswith("-") else ""

    def quit_quietly(signum, frame):  # noqa: ARG001 - signal handler signature
        os.write(2, f"\nvitou-ai{' ' + sub if sub else ''}: interrupted\n".encode())
        os._exit(130)

    try:
        signal.signal(signal.SIGINT, quit_quietly)
    except ValueError:  # not the main thread
        pass


_quiet_ctrl_c_while_the_command_starts()

from .rules import RULES_VERSION, Game, VitouParams  # noqa: E402

__version__ = "0.1.0"

#: the public API loaded on first use: name -> (module, attribute)
_LAZY = {
    "capabilities": ("vitou_ai.capabilities", None),
    "simulate": ("vitou_ai.sim.batch", "simulate"),
    "load_policy": ("vitou_ai.bots.named", "parse_bot"),
    "build_tree": ("vitou_ai.solvers.flat.tree", "build_tree"),
    "build_public_tree": ("vitou_ai.solvers.public.tree", "build_public_tree"),
    "make_solver": ("vitou_ai.solvers.protocol", "make_solver"),
    "run_tournament": ("vitou_ai.eval.tournament", "run_tournament"),
    "local_best_response": ("vitou_ai.eval.lbr", "local_best_response"),
    "team_bracket": ("vitou_ai.solvers.public.team", "team_bracket"),
    "EquityConfig": ("vitou_ai.match_equity.two_player", "EquityConfig"),
    "match_equity_table": ("vitou_ai.match_equity.two_player", "compute_table"),
}
__all__ = ["Game", "RULES_VERSION", "VitouParams", "__version__", *_LAZY]


def __getattr__(name: str):
    """The public API's entry points, imported on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'vitou_ai' has no attribute {name!r}")
    import importlib

    module, attr = _LAZY[name]
    value = importlib.import_module(module)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

from . import search as _search  # noqa: E402,F401  (registers the `search` bot spec)
from .openspiel import game as _game  # noqa: E402,F401  (registers python_vitou; clear error without OpenSpiel)
from .vint import openspiel_game as _vint_game  # noqa: E402,F401  (registers python_vint)
