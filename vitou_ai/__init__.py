"""vitou_ai: research toolkit for Vitou, the trick-and-bluff card game of Nice.

Importing the package registers the OpenSpiel game ``python_vitou``
(:mod:`vitou_ai.openspiel.game`); OpenSpiel (``open_spiel==2.0.2``) is a
dependency of the project.
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
__all__ = ["Game", "RULES_VERSION", "VitouParams", "__version__"]

from .openspiel import game as _game  # noqa: E402,F401  (registers python_vitou; clear error without OpenSpiel)
from .vint import openspiel_game as _vint_game  # noqa: E402,F401  (registers python_vint)
