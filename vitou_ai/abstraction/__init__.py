"""Information abstraction for the four-player game (``docs/abstraction.md``).

- :mod:`.config`: :class:`AbstractionConfig`, one knob per lossy feature.
- :mod:`.key`: :func:`abstract_key`, the jitted map from a player's
  information state to a 63-bit abstract key, shared by the solver
  (:mod:`vitou_ai.solvers.sampling.mccfr_abstract`), the bot
  (:mod:`vitou_ai.bots.abstract`) and the exact cost measurement
  (:mod:`vitou_ai.solvers.sampling.abstract_tree`).
"""

from .config import AbstractionConfig

__all__ = ["AbstractionConfig"]
