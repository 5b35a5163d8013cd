"""Full-width CFR family on a flat game tree: vanilla CFR, CFR+, Discounted CFR.

All three use alternating updates: in iteration ``t`` each player in turn
updates its regrets against the current policy, and the current policy is
re-derived by regret matching after each player's pass — the scheme of
OpenSpiel's ``CFRSolver`` (``alternating_updates=True``), so that vanilla CFR
here reproduces OpenSpiel's iterates (tests/test_solvers_openspiel.py).

- ``cfr``: Zinkevich, Johanson, Bowling & Piccione 2007, "Regret minimization
  in games with incomplete information", uniform averaging.
- ``cfr+``: Tammelin 2014, "Solving large imperfect information games using
  CFR+": regret-matching+ (regrets floored at 0 after each pass) and linear
  averaging with weight ``t``. Departs from Tammelin's Alg. 1 as OpenSpiel's
  ``CFRPlusSolver`` does: no averaging delay ``d``.
- ``dcfr``: Brown & Sandholm 2019, "Solving imperfect-information games via
  discounted regret minimization", section 3, with ``alpha = 1.5``,
  ``beta = 0``, ``gamma = 2``; the discount of iteration ``t`` is applied to
  each player's tables right after that player's pass.
"""

from __future__ import annotations

import hashlib
import time

import numpy as np

from ...rules.params import VitouParams
from ..checkpoint import (  # noqa: F401  (CheckpointError, unreadable_reason: imported from here)
    CheckpointError,
    RegretTableCheckpoints,
    unreadable_reason,
)
from . import kernels as CK
from .tree import MAX_INFOSET_ACTIONS, GameTree, build_tree

VARIANTS = ("cfr", "cfr+", "dcfr")
CHECKPOINT_FORMAT = "vitou_ai-cfr-checkpoint-1"


def tree_fingerprint(tree: GameTree) -> str:
    """SHA-256 over the tree's structure and information-state keys."""
    h = hashlib.sha256()
    for a in (tree.kind, tree.first, tree.infoset, tree.util, tree.is_keys, tree.is_nact):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


class TabularCFR(RegretTableCheckpoints):
    """Full-width CFR / CFR+ / DCFR over a :class:`GameTree`.

    Args:
        game: a :class:`VitouParams` (its tree is built) or a built :class:`GameTree`.
        variant: ``"cfr"``, ``"cfr+"`` or ``"dcfr"``.
        alpha, beta, gamma: DCFR's discount exponents.

    Tables are ``float64[num_infosets, MAX_INFOSET_ACTIONS]``, row ``i`` for the
    tree's information set ``i`` (``tree.is_keys[i]``), column ``k`` for its
    ``k``-th legal action (``tree.is_actions[i, k]``).

    Raises:
        ValueError: unknown variant; a game whose tree cannot be built.
    """

    checkpoint_format = CHECKPOINT_FORMAT

    def __init__(self, game: VitouParams | GameTree, variant: str = "cfr+",
                 alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):
        if variant not in VARIANTS:
            raise ValueError(f"unknown CFR variant {variant!r}; expected one of {VARIANTS}")
        self.tree = game if isinstance(game, GameTree) else build_tree(game)
        self.variant = variant
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        t = self.tree
        shape = (t.num_infosets, MAX_INFOSET_ACTIONS)
        self.regrets = np.zeros(shape)
        self.cum_policy = np.zeros(shape)
        self._policy = np.zeros(shape)
        CK.regret_matching(self.regrets, t.is_nact, self._policy)
        self._reach_p = np.empty(t.num_nodes)
        self._reach_o = np.empty(t.num_nodes)
        self._value = np.empty(t.num_nodes)
        self.iteration = 0
        self.nodes_touched = 0
        self.seconds = 0.0

    # ---- iterations ------------------------------------------------------------------------
    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (each: one pass per player, alternating)."""
        t = self.tree
        start = time.perf_counter()
        for _ in range(n):
            self.iteration += 1
            it = self.iteration
            weight = float(it) if self.variant == "cfr+" else 1.0
            for p in range(t.num_players):
                CK.forward_reach(t.kind, t.player, t.infoset, t.first, t.nchild, t.prob,
                                 self._policy, p, self._reach_p, self._reach_o)
                CK.cfr_backward(t.kind, t.player, t.infoset, t.first, t.nchild, t.prob, t.util,
                                t.num_players, self._policy, p, self._reach_p, self._reach_o,
                                self._value, self.regrets, self.cum_policy, weight)
                if self.variant == "cfr+":
                    CK.clip_regrets(self.regrets)
                elif self.variant == "dcfr":
                    CK.discount_dcfr(self.regrets, self.cum_policy, t.is_player, t.is_nact, p,
                                     float(it), self.alpha, self.beta, self.gamma)
                CK.regret_matching(self.regrets, t.is_nact, self._policy)
                self.nodes_touched += 2 * t.num_nodes
        self.seconds += time.perf_counter() - start

    def current_policy(self) -> np.ndarray:
        """A copy of the current (regret-matching) policy, ``float64[num_infosets, 5]``."""
        return self._policy.copy()

    def average_policy(self) -> np.ndarray:
        """The average policy (the one that converges to equilibrium), a new array."""
        out = np.zeros_like(self.cum_policy)
        CK.normalize_average(self.cum_policy, self.tree.is_nact, out)
        return out

    # ---- checkpoints (save / load: RegretTableCheckpoints) -------------------------------
    def _tree_fingerprint(self) -> str:
        return tree_fingerprint(self.tree)

    def _loaded(self) -> None:
        CK.regret_matching(self.regrets, self.tree.is_nact, self._policy)
