"""Full-width CFR family on a flat game tree: vanilla CFR, CFR+, Discounted CFR and
the predictive PCFR+ and PDCFR+.

All five use alternating updates: in iteration ``t`` each player in turn
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
- ``pcfr+``: Farina, Kroer & Sandholm 2021, "Faster game solving via predictive
  Blackwell approachability: connecting regret matching and mirror descent"
  (AAAI), predictive regret-matching+ in CFR with the prediction ``m^{t+1} = r^t``: cumulative regrets
  ``R^t = [R^{t-1} + r^t]^+`` (regret-matching+), the policy played is regret
  matching on ``[R^t + r^t]^+`` (``r^t`` the last instantaneous regrets, kept in
  the ``prediction`` table), quadratic averaging (weight ``t^2``).
- ``pdcfr+``: Xu, Li, Fu, Fu, Huang & Xing 2024, "Minimizing weighted
  counterfactual regret with optimistic online mirror descent" (IJCAI):
  ``R^t = [R^{t-1} d(t-1) + r^t]^+`` with ``d(t) = t^a / (t^a + 1)``,
  the policy is regret matching on ``[R^t d(t) + r^t]^+``, the average policy
  weights iteration ``t`` by ``t^gamma``; their defaults ``alpha = 2.3``,
  ``gamma = 5`` (the paper's and its code's, github.com/rpSebastian/PDCFRPlus) (``beta`` unused: the regrets are floored at 0). The table holds
  ``R^t d(t)`` (the discount applied right after the pass, as ``dcfr``), the
  average policy is discounted by ``(t / (t+1))^gamma`` after each pass (the same
  weights as the paper's ``((t-1)/t)^gamma`` before it, normalised).
- ``hs-pcfr+``: Zhang, McAleer & Sandholm 2024/2026, "Faster game solving via
  hyperparameter schedules" (arXiv:2404.09097, section 3.2), HS-PCFR+(30): PCFR+ whose
  average policy is discounted by ``(t / (t+1))^gamma_t`` after iteration ``t``, with
  the schedule ``gamma_t = gamma - 5 min(t / H, 1)`` (``gamma = 30``: from 30 down to 25
  over the horizon ``H``). The paper's horizon is the run's planned iteration count;
  here it is :data:`HS_HORIZON` iterations (1,000, the paper's usual stopping point),
  so that a run stopped at a target or resumed keeps one schedule.

On the public tree only (:class:`~vitou_ai.solvers.public.cfr.PublicCFR`):

- ``dcfr-postflop``: DCFR with the schedule of postflop-solver (b-inary, the public-tree
  anchor; its ``DiscountParams``): positive regrets times ``(t-1)^a / ((t-1)^a + 1)``,
  negative ones times ``t^b / (t^b + 1)`` (``b = 0``: a constant 0.5), the average
  policy times ``(s / (s+1))^gamma`` with ``s`` the iterations since the last power of 4,
  and *restarted* (cleared) at iterations 1, 4, 16, 64, ... (0-based), so that the average
  holds only the iterations since the last restart; ``alpha = 1.5``, ``beta = 0``,
  ``gamma = 3``. Departs from postflop-solver in one respect: the average policy's
  increments are weighted by the player's own reach probability, as every variant here
  (postflop-solver adds the policy unweighted).

The prediction is state: checkpoints of the predictive variants save it, so a
resumed run equals an uninterrupted one.
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

VARIANTS = ("cfr", "cfr+", "dcfr", "pcfr+", "pdcfr+", "hs-pcfr+")
#: the variants of the public-tree solver: :data:`VARIANTS` and ``dcfr-postflop``
PUBLIC_VARIANTS = (*VARIANTS, "dcfr-postflop")
#: the variants that play regret matching on regrets plus a prediction
PREDICTIVE = ("pcfr+", "pdcfr+", "hs-pcfr+")
#: HS-PCFR+'s horizon ``H``, iterations (module docstring)
HS_HORIZON = 1000
#: ``(alpha, beta, gamma)`` when not given: DCFR's (Brown & Sandholm 2019, section 3)
#: and PDCFR+'s (Xu et al. 2024); the other variants record DCFR's
DEFAULT_DISCOUNTS = {"dcfr": (1.5, 0.0, 2.0), "pdcfr+": (2.3, 0.0, 5.0),
                     "dcfr-postflop": (1.5, 0.0, 3.0), "hs-pcfr+": (0.0, 0.0, 30.0)}
CHECKPOINT_FORMAT = "vitou_ai-cfr-checkpoint-1"


def check_variant(variant: str, allowed: tuple[str, ...] = VARIANTS) -> None:
    """Raise ``ValueError`` (one line) for a name not in ``allowed`` (default
    :data:`VARIANTS`, the flat tree's; the public tree's are :data:`PUBLIC_VARIANTS`)."""
    if variant not in allowed:
        where = "" if variant not in PUBLIC_VARIANTS else " on this tree (public tree only)"
        raise ValueError(f"unknown CFR variant {variant!r}{where}; expected one of {allowed}")


def lower_power_of_4(n: int) -> int:
    """The largest power of 4 at most ``n`` (0 for ``n = 0``): 1, 4, 16, 64, ..."""
    return 0 if n <= 0 else 1 << ((n.bit_length() - 1) & ~1)


def restarts_average(variant: str, iteration: int) -> bool:
    """Whether the average policy is cleared before iteration ``iteration`` (1-based):
    ``dcfr-postflop`` restarts it at 0-based iterations 1, 4, 16, 64, ... (module
    docstring), i.e. before 1-based iterations 2, 5, 17, 65, ..."""
    t = iteration - 1
    return variant == "dcfr-postflop" and t >= 1 and lower_power_of_4(t) == t


def resolve_discounts(variant: str, alpha: float | None, beta: float | None,
                      gamma: float | None) -> tuple[float, float, float]:
    """``(alpha, beta, gamma)`` with the variant's defaults (:data:`DEFAULT_DISCOUNTS`)
    where ``None``."""
    da, db, dg = DEFAULT_DISCOUNTS.get(variant, DEFAULT_DISCOUNTS["dcfr"])
    return (float(da if alpha is None else alpha), float(db if beta is None else beta),
            float(dg if gamma is None else gamma))


def iteration_schedule(variant: str, iteration: int, alpha: float, beta: float,
                       gamma: float) -> tuple[float, float, float, float, bool]:
    """``(weight, dpos, dneg, davg, clip)`` of iteration ``iteration`` (1-based): the
    averaging weight added with the policy, the factors of positive and negative
    cumulative regrets and of the cumulative policy applied after the pass, and the
    floor at 0 (regret-matching+). Module docstring for each variant's source."""
    it = float(iteration)
    weight, dpos, dneg, davg, clip = 1.0, 1.0, 1.0, 1.0, False
    if variant == "cfr+":
        weight, clip = it, True
    elif variant == "pcfr+":
        weight, clip = it * it, True
    elif variant == "hs-pcfr+":
        g = gamma - 5.0 * min(it / HS_HORIZON, 1.0)
        davg, clip = (it / (it + 1.0)) ** g, True
    elif variant == "dcfr-postflop":
        ta = (it - 1.0) ** alpha
        dpos = ta / (ta + 1.0)
        tb = it ** beta
        dneg = tb / (tb + 1.0)
        # the average's factor for the next iteration (0-based ``iteration``); at a restart
        # it is 1 here and the solver clears the average before that iteration's pass
        s = float(iteration - lower_power_of_4(iteration))
        davg = (s / (s + 1.0)) ** gamma if s > 0 else 1.0
    elif variant in ("dcfr", "pdcfr+"):
        ta = it ** alpha
        dpos = ta / (ta + 1.0)
        davg = (it / (it + 1.0)) ** gamma
        if variant == "dcfr":
            tb = it ** beta
            dneg = tb / (tb + 1.0)
        else:
            dneg, clip = 0.0, True
    return weight, dpos, dneg, davg, clip


def tree_fingerprint(tree: GameTree) -> str:
    """SHA-256 over the tree's structure and information-state keys."""
    h = hashlib.sha256()
    for a in (tree.kind, tree.first, tree.infoset, tree.util, tree.is_keys, tree.is_nact):
        h.update(np.ascontiguousarray(a).tobytes())
    if tree.util_seats is not None:
        h.update(np.ascontiguousarray(tree.util_seats).tobytes())
    return h.hexdigest()


class TabularCFR(RegretTableCheckpoints):
    """Full-width CFR / CFR+ / DCFR / PCFR+ / PDCFR+ over a :class:`GameTree`.

    Args:
        game: a :class:`VitouParams` (its tree is built) or a built :class:`GameTree`.
        variant: one of :data:`VARIANTS`.
        alpha, beta, gamma: the discount exponents of DCFR and PDCFR+ (default
            :data:`DEFAULT_DISCOUNTS`).

    Tables are ``float64[num_infosets, MAX_INFOSET_ACTIONS]``, row ``i`` for the
    tree's information set ``i`` (``tree.is_keys[i]``), column ``k`` for its
    ``k``-th legal action (``tree.is_actions[i, k]``); the predictive variants add
    ``prediction`` (the last instantaneous regrets), saved in their checkpoints.

    Raises:
        ValueError: unknown variant; a game whose tree cannot be built.
    """

    checkpoint_format = CHECKPOINT_FORMAT

    def __init__(self, game: VitouParams | GameTree, variant: str = "cfr+",
                 alpha: float | None = None, beta: float | None = None,
                 gamma: float | None = None):
        check_variant(variant)
        self.tree = game if isinstance(game, GameTree) else build_tree(game)
        self.variant = variant
        self.alpha, self.beta, self.gamma = resolve_discounts(variant, alpha, beta, gamma)
        t = self.tree
        shape = (t.num_infosets, MAX_INFOSET_ACTIONS)
        self.regrets = np.zeros(shape)
        self.cum_policy = np.zeros(shape)
        self.predictive = variant in PREDICTIVE
        self.prediction = np.zeros(shape if self.predictive else (0, MAX_INFOSET_ACTIONS))
        self._inst = np.zeros(shape if self.predictive else (0, MAX_INFOSET_ACTIONS))
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
            if self.predictive:
                self._predictive_iteration(it)
                continue
            weight = float(it) if self.variant == "cfr+" else 1.0
            for p in range(t.num_players):
                self._pass(p, self.regrets, weight)
                if self.variant == "cfr+":
                    CK.clip_regrets(self.regrets)
                elif self.variant == "dcfr":
                    CK.discount_dcfr(self.regrets, self.cum_policy, t.is_player, t.is_nact, p,
                                     float(it), self.alpha, self.beta, self.gamma)
                CK.regret_matching(self.regrets, t.is_nact, self._policy)
                self.nodes_touched += 2 * t.num_nodes
        self.seconds += time.perf_counter() - start

    def _pass(self, p: int, regrets: np.ndarray, weight: float) -> None:
        """One CFR pass for player ``p``: reach probabilities down the tree, then values
        up it, adding ``p``'s counterfactual regrets into ``regrets`` and its reach-weighted
        policy (times ``weight``) into the average's table."""
        t = self.tree
        CK.forward_reach(t.kind, t.player, t.infoset, t.first, t.nchild, t.prob,
                         self._policy, p, self._reach_p, self._reach_o)
        CK.cfr_backward(t.kind, t.player, t.infoset, t.first, t.nchild, t.prob,
                        t.seat_utility(p),
                        t.num_players, self._policy, p, self._reach_p, self._reach_o,
                        self._value, regrets, self.cum_policy, weight)

    def _predictive_iteration(self, it: int) -> None:
        # the pass adds its instantaneous regrets into the cleared ``_inst`` (summed over
        # the histories of each information set), then predictive_update folds them in
        t = self.tree
        weight, dpos, _, davg, _ = iteration_schedule(self.variant, it, self.alpha, self.beta,
                                                      self.gamma)
        for p in range(t.num_players):
            self._pass(p, self._inst, weight)
            CK.predictive_update(self.regrets, self.prediction, self._inst, self.cum_policy,
                                 t.is_player, t.is_nact, p, dpos, davg)
            self._rematch()
            self.nodes_touched += 2 * t.num_nodes

    def _rematch(self) -> None:
        r = self.regrets + self.prediction if self.predictive else self.regrets
        CK.regret_matching(r, self.tree.is_nact, self._policy)

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

    def _extra_tables(self) -> dict[str, np.ndarray]:
        return {"prediction": self.prediction} if self.predictive else {}

    def _loaded(self) -> None:
        self._rematch()
