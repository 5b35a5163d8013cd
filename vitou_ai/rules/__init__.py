"""The Vitou rules kernel (numba) and its checked Python view.

- :mod:`.params`: :class:`VitouParams`, profiles, ``RULES_VERSION``.
- :mod:`.layout`: state array layout, action and chance ids.
- :mod:`.kernel`: transitions (``init_state``, ``legal_actions``,
  ``chance_outcomes``, ``apply_action``, ``returns``, ...).
- :mod:`.observe`: information-state key and public observation.
- :mod:`.game`: :class:`Game` / :class:`State`, checked, with action strings.
"""

from .game import DealResult, Game, IllegalActionError, State, action_to_string, string_to_action
from .params import PROFILES, RANK_LETTERS, RULES_VERSION, VitouParams

__all__ = [
    "DealResult",
    "Game",
    "IllegalActionError",
    "PROFILES",
    "RANK_LETTERS",
    "RULES_VERSION",
    "State",
    "VitouParams",
    "action_to_string",
    "string_to_action",
]
