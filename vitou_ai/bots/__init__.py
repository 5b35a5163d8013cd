"""Bots: policies playable inside the jitted simulator.

- :mod:`.policy`: the one interface (:class:`PolicyPack`, :func:`choose_action`).
- :mod:`.heuristic`: the parameterised heuristic family (:class:`HeuristicParams`).
- :mod:`.tabular`: tabular policies indexed by information-state key (``.npz``).
- :mod:`.neural`: MLP policies over the information-state tensor (``.npz``).
  The learning baselines save them.
- :mod:`.named`: the named bots ``random``, ``cautious``, ``bluffer``, ``counter``.
"""

from .heuristic import HeuristicParams
from .named import NAMED_BOTS, named_bot, parse_bot
from .neural import NeuralPolicy
from .policy import (
    HeuristicPolicy,
    Policy,
    PolicyPack,
    RandomPolicy,
    choose_action,
    pack_policies,
)
from .tabular import TabularPolicy

__all__ = [
    "HeuristicParams",
    "HeuristicPolicy",
    "NAMED_BOTS",
    "NeuralPolicy",
    "Policy",
    "PolicyPack",
    "RandomPolicy",
    "TabularPolicy",
    "choose_action",
    "named_bot",
    "pack_policies",
    "parse_bot",
]
