"""vitou_ai: research toolkit for Vitou, the trick-and-bluff card game of Nice.

Importing the package registers the OpenSpiel game ``python_vitou``
(:mod:`vitou_ai.openspiel.game`); OpenSpiel (``open_spiel==2.0.2``) is a
dependency of the project.
"""

from .rules import RULES_VERSION, Game, VitouParams

__version__ = "0.1.0"
__all__ = ["Game", "RULES_VERSION", "VitouParams", "__version__"]

from .openspiel import game as _game  # noqa: E402,F401  (registers python_vitou; clear error without OpenSpiel)
from .vint import openspiel_game as _vint_game  # noqa: E402,F401  (registers python_vint)
