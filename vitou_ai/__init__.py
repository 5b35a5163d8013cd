"""vitou_ai: research toolkit for Vitou, the trick-and-bluff card game of Nice."""

from .rules import RULES_VERSION, Game, VitouParams

__version__ = "0.1.0"
__all__ = ["Game", "RULES_VERSION", "VitouParams", "__version__"]
