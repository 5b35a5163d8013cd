"""Vint, the Russian bidding trick game (``docs/RULES_vint.md``): its own kernel,
rubber scoring, hand histories, OpenSpiel game ``python_vint``, bots and tournaments.

It shares nothing with the Vitou kernel (:mod:`vitou_ai.rules`) but the project's
conventions.
"""

from .game import RULES_VERSION, VintParams, VintRuleError, VintState

__all__ = ["RULES_VERSION", "VintParams", "VintRuleError", "VintState"]
