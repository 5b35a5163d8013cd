"""External-sampling MCCFR on an abstract game, for the full four-player ``vitou``.

Information states are the abstract keys of :mod:`vitou_ai.abstraction`; the
game itself is played by the kernel. What the large-game literature adds to
the ES-MCCFR of :mod:`.mccfr` (Lanctot et al. 2009, section 3.1):

- *Linear averaging by discounting* (Brown & Sandholm 2019, "Solving
  imperfect-information games via discounted regret minimization", LCFR;
  as in Pluribus, Brown & Sandholm 2019 Science, supplement "Linear CFR"):
  at the end of each discount interval ``k`` (solver seconds), while
  ``k <= discount_intervals``, regrets and the average policy are multiplied
  by ``k / (k + 1)``, which weights the work of interval ``k`` by ``k``.
- *Regret-based pruning* after a warm-up (Pluribus, supplement Alg. 1): in a
  fraction ``prune_prob`` of traversals, actions of the traverser whose regret
  is below ``prune_threshold`` are not explored (never all of a node's actions,
  and never where no regret is positive: there the policy is uniform).
- *Shared memory, both cores*: ``threads`` workers traverse at once and update
  one table. Insertion is a compare-and-swap on the slot's key
  (:func:`.atomics.cas_u64`), so no information state is ever lost or
  duplicated; regret and average-policy additions race (lock-free "Hogwild"
  updates, Recht, Re, Wright & Niu 2011: with sparse updates, rare lost
  additions do not stop convergence; the shared roots are the only hot rows).
  Runs are reproducible with ``threads = 1``.
- *A memory bound*: the table is allocated once for ``max_infosets``
  information states (at load at most 3/4); when it is full the solver stops
  with :class:`TableFullError` and the last checkpoint is intact.

Two other traversals share this module's table, keys and terminal values
(``AbstractMCCFR(traversal=...)``, :data:`TRAVERSALS`): one per team with both
partners enumerated (:mod:`.mccfr_team`), and one per seat over all of its hands with
the others' play shared by the hands (:mod:`.mccfr_hands`).

Decision nodes with a single legal action are not stored. The average policy
is accumulated at the other players' nodes (simple averaging, as OpenSpiel's
``external_sampling_mccfr``). Units: regrets in points per deal (R8.1), or in match equity with the match objective
(:meth:`AbstractMCCFR.set_match_equity`).

One module because the traversal, its workers, the terminal valuation and the class
that owns their tables share one set of jitted signatures and table layouts: a change
to one is a change to all of them.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numba
import numpy as np

from ..._numba import jit, jit_parallel
from ...abstraction.config import N_CFG, AbstractionConfig
from ...abstraction.key import abstract_key
from ...bots.abstract import lookup_row
from ...capabilities import require
from ...resources import check_memory
from ...rng import UINT64_MAX, check_seed, next_float, row_seed
from ...rules import kernel as K
from ...rules import layout as L
from ...rules.game import max_game_decisions
from ...rules.params import (
    P_DEALER,
    P_PLAYERS,
    P_SCORE0,
    P_SCORE1,
    RULES_VERSION,
    VitouParams,
)
from ...sim.random_play import sample_chance
from ..checkpoint import (
    CheckpointError,
    check_config,
    load_checkpoint,
    params_record,
    save_checkpoint,
)
from ..flat.tree import action_width
from .abstract_table import (  # noqa: F401 - the table's contract, re-exported
    FULL,
    MARK,
    MAX_PROBE,
    N_W,
    REGRET_FLOOR,
    W_FULL,
    W_INSERTED,
    W_TOUCHED,
    close_node,
    explore_mask,
    find_slot,
    mix64,
    slot_of,
    terminal_value,
)
from .mccfr import TableFullError, regret_matching_row, sample_action

FORMAT = "vitou_ai-abstract-mccfr-1"
MAX_DEPTH = 48  # the fewest traversal levels a worker gets (a Vitou deal needs fewer)
MAX_LOAD = 0.75
#: the traversal schemes of :class:`AbstractMCCFR`: ``es`` one external-sampling traversal
#: per seat (the default); ``team`` one per team, both partners enumerated
#: (:mod:`.mccfr_team`); ``hands`` one per seat over all of its hands with the others'
#: samples shared (:mod:`.mccfr_hands`)
TRAVERSALS = ("es", "team", "hands")



@jit
def _advance(cfg, params, state, p, rng, slots, nact, regrets, cum, acts, probs, sig, mout, cnt,
             warm):
    """Sample chance and the other players' actions until ``p`` has a real choice.
    Returns p's slot (``mout[0]`` its number of actions, ``acts`` its legal
    actions), -1 at a terminal state, ``FULL`` when the table is full. A new row is
    warm-started from ``warm`` (:func:`_warm_row`)."""
    while True:
        if K.is_terminal(state):
            return -1
        if K.is_chance(state):
            K.apply_action(params, state, sample_chance(params, state, rng, acts, probs))
            continue
        q = K.current_player(params, state)
        m = K.legal_actions(params, state, acts)
        if m > regrets.shape[1]:  # cannot happen: the width is max_legal_actions(params)
            raise ValueError("more legal actions than the table's width")
        if m == 1:
            K.apply_action(params, state, acts[0])
            continue
        key = abstract_key(cfg, params, state, q, acts, m)
        slot, new = slot_of(slots, np.uint64(key) | MARK)
        if slot < 0:
            return FULL
        cnt[W_TOUCHED] += 1
        if new == 1:
            cnt[W_INSERTED] += 1
            nact[slot] = m
            if warm[2].shape[0] > 0:
                _warm_row(warm, params, state, q, acts, m, slot, regrets, cum)
        if q == p:
            mout[0] = m
            return slot
        regret_matching_row(regrets, slot, m, sig)
        for a in range(m):
            cum[slot, a] += sig[a]
        K.apply_action(params, state, acts[sample_action(sig, m, rng)])


@jit
def _warm_row(warm, params, state, q, acts, m, slot, regrets, cum):
    """Start a new row from another abstract policy (the points policy): ``warm`` is
    ``(cfg int64[N_CFG], slots int32[C], keys uint64[M], probs float32[M, width],
    scale float64[2])``; the row of the state's key under that policy's abstraction
    gets regrets ``scale[0] * p`` (so regret matching plays ``p`` at once) and average
    policy ``scale[1] * p`` (``scale[1]`` visits' worth of prior). Rows the policy does
    not hold start empty, as without a warm start."""
    wcfg, wslots, wkeys, wprobs, scale = warm
    bkey = np.uint64(abstract_key(wcfg, params, state, q, acts, m)) | MARK
    r = lookup_row(wslots, 0, wslots.shape[0], wkeys, 0, bkey)
    if r < 0:
        return
    for a in range(m):
        regrets[slot, a] = scale[0] * wprobs[r, a]
        cum[slot, a] += scale[1] * wprobs[r, a]


@jit
def es_traverse(cfg, params, p, rng, slots, nact, regrets, cum, states, srow, mrow, child, vals,
                sig, acts, explore, probs, ret, mout, cnt, prune, thr, eq, warm):
    """One external-sampling traversal for traverser ``p``; returns p's sampled
    value (points per deal, or match equity with ``eq``: :func:`terminal_value`),
    NaN when the table is full."""
    K.init_state(params, states[0])
    slot = _advance(cfg, params, states[0], p, rng, slots, nact, regrets, cum, acts[0], probs,
                    sig[0], mout, cnt, warm)
    if slot == FULL:
        return np.nan
    if slot < 0:
        return terminal_value(params, states[0], p, ret, eq)
    d = 0
    srow[0] = slot
    mrow[0] = mout[0]
    child[0] = 0
    s = regret_matching_row(regrets, slot, mout[0], sig[0])
    explore_mask(regrets, slot, mout[0], s, prune, thr, explore[0])
    while True:
        r = srow[d]
        m = mrow[d]
        while child[d] < m and not explore[d, child[d]]:
            child[d] += 1
        if child[d] < m:
            K.copy_state(states[d], states[d + 1])
            K.apply_action(params, states[d + 1], acts[d, child[d]])
            nslot = _advance(cfg, params, states[d + 1], p, rng, slots, nact, regrets, cum,
                             acts[d + 1], probs, sig[d + 1], mout, cnt, warm)
            if nslot == FULL:
                return np.nan
            if nslot < 0:
                vals[d, child[d]] = terminal_value(params, states[d + 1], p, ret, eq)
                child[d] += 1
            else:
                if d + 2 >= states.shape[0]:
                    raise ValueError("traversal deeper than the depth buffers")
                d += 1
                srow[d] = nslot
                mrow[d] = mout[0]
                child[d] = 0
                s = regret_matching_row(regrets, nslot, mout[0], sig[d])
                explore_mask(regrets, nslot, mout[0], s, prune, thr, explore[d])
        else:
            v = close_node(regrets, r, m, sig[d], vals[d], explore[d], 1.0)
            if d == 0:
                return v
            d -= 1
            vals[d, child[d]] = v
            child[d] += 1


@jit
def sample_score_state(rng, cdf, states):
    """Row of ``states`` (``int64[S, 3]``: score0, score1, dealer) drawn with the
    cumulative weights ``cdf`` (``float64[S]``, last 1)."""
    x = next_float(rng)
    lo = 0
    hi = cdf.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo


@jit_parallel
def run_workers(cfg, params, iters, rngs, slots, nact, regrets, cum, counters, prune_prob, thr,
                depth, eq, cdf, score_states, warm):
    """``rngs.shape[0]`` workers, each ``iters`` iterations of one traversal per
    player, sharing the table. ``counters[w]``: inserted rows, full flag, nodes.
    ``depth``: levels of the per-worker traversal buffers (:func:`traversal_depth`).
    Positional buffers (``vals``, ``sig``, ``explore``) are ``regrets.shape[1]`` wide;
    ``acts`` takes the kernel's legal-action list (``NUM_ACTIONS`` slots, as
    ``kernel.legal_actions`` asks).

    Match objective (``eq.shape[0] > 0``): before each traversal a worker draws a row
    of ``score_states`` (``int64[S, 3]``: score0, score1, dealer) with the cumulative
    weights ``cdf`` and sets it in its own copy of ``params``; terminals are valued by
    :func:`terminal_value`. Otherwise ``cdf`` and ``score_states`` are unused. ``warm``:
    the warm start of new rows (:func:`_warm_row`; empty keys: none)."""
    players = params[P_PLAYERS]
    width = regrets.shape[1]
    match = eq.shape[0] > 0
    for w in numba.prange(rngs.shape[0]):
        wparams = params.copy()
        states = np.zeros((depth, L.STATE_SIZE), np.int32)
        srow = np.zeros(depth, np.int64)
        mrow = np.zeros(depth, np.int64)
        child = np.zeros(depth, np.int64)
        vals = np.zeros((depth, width))
        sig = np.zeros((depth, width))
        acts = np.zeros((depth, L.NUM_ACTIONS), np.int64)
        explore = np.zeros((depth, width), np.bool_)
        probs = np.zeros(L.MAX_CHANCE_OUTCOMES)
        ret = np.zeros(L.MAX_PLAYERS)
        mout = np.zeros(1, np.int64)
        rng = rngs[w]
        cnt = counters[w]
        for _ in range(iters):
            for p in range(players):
                if match:
                    i = sample_score_state(rng, cdf, score_states)
                    wparams[P_SCORE0] = score_states[i, 0]
                    wparams[P_SCORE1] = score_states[i, 1]
                    wparams[P_DEALER] = score_states[i, 2]
                prune = prune_prob > 0.0 and next_float(rng) < prune_prob
                v = es_traverse(cfg, wparams, p, rng, slots, nact, regrets, cum, states, srow,
                                mrow, child, vals, sig, acts, explore, probs, ret, mout, cnt,
                                prune, thr, eq, warm)
                if np.isnan(v):
                    cnt[W_FULL] = 1
                    break
            if cnt[W_FULL] == 1:
                break


@jit_parallel
def discount(slots, regrets, cum, factor):
    """Multiply the regrets and the average policy of used rows by ``factor`` (LCFR)."""
    for i in numba.prange(slots.shape[0]):
        if slots[i] != 0:
            for a in range(regrets.shape[1]):
                regrets[i, a] *= factor
                cum[i, a] *= factor


@jit
def _reinsert(slots, keys, rows_out):
    for j in range(keys.shape[0]):
        s, _ = slot_of(slots, keys[j])
        rows_out[j] = s


def traversal_depth(params: VitouParams) -> int:
    """Levels of a worker's traversal buffers: the traverser's decisions in one deal are
    at most :func:`~vitou_ai.rules.game.max_deal_decisions` (``max_game_decisions`` in
    deal mode; 42 for ``truc_1912`` at 12 points, whose ladder grows with the target,
    F3.1), plus the root and the child being entered; at least :data:`MAX_DEPTH`."""
    return max(MAX_DEPTH, max_game_decisions(params) + 2)


def _capacity(max_infosets: int) -> int:
    need = int(math.ceil(max_infosets / MAX_LOAD))
    return 1 << max(10, (need - 1).bit_length())


def table_bytes(params: VitouParams, max_infosets: int) -> float:
    """Bytes of :class:`AbstractMCCFR`'s tables for ``max_infosets`` states: the
    :func:`_capacity` slots (``max_infosets / MAX_LOAD`` rounded up to a power of two),
    each a ``uint64`` key, an ``int8`` action count and ``float32`` regrets and average
    policy :func:`.tree.action_width` wide."""
    need = math.ceil(float(max_infosets) / MAX_LOAD)
    slots = 2.0 ** max(10, math.ceil(math.log2(need))) if need > 1 else 1024.0
    return slots * (8 + 1 + 2 * 4 * action_width(params))


class AbstractMCCFR:
    """ES-MCCFR over abstract information states (module docstring).

    Args:
        params: the game (deal mode; the dealer may be drawn, ``dealer=-1``).
        abstraction: the :class:`AbstractionConfig`.
        seed: seed of the workers' random streams, ``0 .. 2**64-1``.
        max_infosets: the memory bound, refused up front when :func:`table_bytes` is
            larger than the memory available; about 60 bytes per information state (tables
            :func:`.tree.action_width` columns wide: 5, or 6 for ``truc_1912``)
            (``max_infosets / 0.75`` slots, rounded up to a power of two).
        threads: workers (each its own random stream; the numba thread pool runs
            them, so ``numba.set_num_threads(1)`` runs the same work on one core).
        prune_after: solver seconds before pruning starts (Pluribus: 200 minutes of 8 days).
        prune_prob: fraction of traversals that prune (Pluribus: 0.95).
        prune_threshold: regret below which an action is pruned (points per deal).
        discount_interval: seconds per discount interval (LCFR); 0 = none.
        discount_intervals: number of intervals discounted.
        traversal: one of :data:`TRAVERSALS`. ``"es"`` (default): an iteration is one
            external-sampling traversal per seat (Lanctot et al. 2009, section 3.1).
            ``"team"``: one traversal per team, both partners' actions enumerated and
            both partners' regrets updated from the one sample (:mod:`.mccfr_team`,
            unbiased by Lanctot et al. 2009's general sampling, section 2.1).
            ``"hands"``: one traversal per seat walking each of its possible hands in
            turn, weighted by its probability given the others' sampled hands, the
            others' play sampled once per public node and shared by the hands
            (:mod:`.mccfr_hands`: the estimator of Johanson et al. 2012's
            opponent-public chance sampling, computed hand by hand, not as a vector).
            ``team`` and ``hands`` train the points objective only (no
            :meth:`set_match_equity`, no :meth:`set_warm_start`). Recorded in the
            checkpoint: a checkpoint of another traversal is refused.

    Raises:
        ValueError: a bad setting (an unknown ``traversal`` among them), or an abstraction whose key does not fit the game; a
            seed out of range (:func:`vitou_ai.rng.check_seed`); tables larger than the
            memory available (:class:`vitou_ai.resources.ResourceError`).
        TypeError: a seed that is not a whole number.
    """

    def __init__(self, params: VitouParams, abstraction: AbstractionConfig | None = None,
                 seed: int = 0, max_infosets: int = 1 << 22, threads: int = 2,
                 prune_after: float = math.inf, prune_prob: float = 0.95,
                 prune_threshold: float = -20.0, discount_interval: float = 0.0,
                 discount_intervals: int = 0, traversal: str = "es"):
        require("abstract", params)
        if traversal not in TRAVERSALS:
            raise ValueError(f"traversal must be one of {', '.join(TRAVERSALS)}, got "
                             f"{traversal!r}")
        if params.mode != "deal":
            raise ValueError("abstract MCCFR trains deal mode (R8.1); got mode='match'")
        self.abstraction = abstraction or AbstractionConfig()
        self.abstraction.check_game(params)
        if max_infosets < 1 or threads < 1:
            raise ValueError("max_infosets and threads must be positive")
        seed = check_seed(seed, "seed", UINT64_MAX)
        check_memory(table_bytes(params, max_infosets), f"max_infosets {max_infosets:,}",
                     "lower it")
        if not 0.0 <= prune_prob <= 1.0:
            raise ValueError(f"prune_prob must be in [0, 1], got {prune_prob}")
        self.params = params
        self.seed = int(seed)
        self.threads = int(threads)
        self.max_infosets = int(max_infosets)
        self.prune_after = float(prune_after)
        self.prune_prob = float(prune_prob)
        self.prune_threshold = float(prune_threshold)
        self.discount_interval = float(discount_interval)
        self.discount_intervals = int(discount_intervals)
        self.traversal = traversal
        self._pa = params.to_array()
        self._cfg = self.abstraction.to_array(params.signals)
        self.width = action_width(params)  # 5; 6 in truc_1912 (F3.3), from the rules
        # a team traversal's walk holds both partners' decisions
        self._depth = traversal_depth(params) * (2 if traversal == "team" else 1)
        cap = _capacity(self.max_infosets)
        self.slots = np.zeros(cap, np.uint64)
        self.nact = np.zeros(cap, np.int8)
        self.regrets = np.zeros((cap, self.width), np.float32)
        self.cum_policy = np.zeros((cap, self.width), np.float32)
        self.rngs = np.array([[row_seed(self.seed, w)] for w in range(self.threads)], np.uint64)
        self.counters = np.zeros((self.threads, N_W), np.int64)
        # points objective: empty; match objective: set_match_equity
        self._eq = np.zeros((0, 0, 0))
        self._cdf = np.ones(1)
        self._score_states = np.zeros((1, 3), np.int64)
        self._warm = (np.zeros(N_CFG, np.int64), np.full(1, -1, np.int32),
                      np.zeros(0, np.uint64), np.zeros((0, self.width), np.float32),
                      np.zeros(2))
        self.warm_policy: str | None = None
        self.iteration = 0
        self.seconds = 0.0
        self.discounts_done = 0

    @property
    def num_infosets(self) -> int:
        return int(self.counters[:, W_INSERTED].sum())

    @property
    def nodes_touched(self) -> int:
        return int(self.counters[:, W_TOUCHED].sum())

    @property
    def capacity(self) -> int:
        """Slots of the table (the bound is ``MAX_LOAD`` of it)."""
        return int(self.slots.shape[0])

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.slots, self.nact, self.regrets, self.cum_policy))

    def set_match_equity(self, eq: np.ndarray, score_states: np.ndarray,
                         weights: np.ndarray) -> None:
        """Train for the match: every traversal draws a score state
        and dealer and values terminals by match-equity differences (:func:`terminal_value`).

        Args:
            eq: ``float64[T+1, T+1, players]``, team 0's match equity (probability, 0 .. 1)
                at ``(score0, score1, dealer)``; rows ``T`` are the ended matches
                (``eq[T, b<T] = 1``, ``eq[a<T, T] = 0``): :func:`equity_array`.
            score_states: ``int64[S, 3]``, the (score0, score1, dealer) rows drawn from,
                every score below ``T`` and dealer a seat.
            weights: ``float64[S]``, non-negative, positive sum: the drawing weights.

        Raises:
            ValueError: shapes or values that do not fit this game (one line).

        The abstraction should keep the scores (``scores=True``); the regrets are then
        in match equity, so ``prune_threshold`` must be in those units too (the CLI
        divides the points threshold by the target). May be called again between
        iterations with a new table (policy -> table -> policy).
        """
        if self.traversal != "es":
            raise ValueError(f"the match objective trains with traversal 'es', not "
                             f"{self.traversal!r}")
        t = self.params.target
        n = self.params.players
        eq = np.ascontiguousarray(eq, np.float64)
        if eq.shape != (t + 1, t + 1, n):
            raise ValueError(f"match-equity array of shape {eq.shape}, expected "
                             f"{(t + 1, t + 1, n)} for target {t} and {n} players")
        if not np.all(np.isfinite(eq)) or eq.min() < 0 or eq.max() > 1:
            raise ValueError("match equities must be probabilities in [0, 1]")
        if not (np.all(eq[t, :t] == 1.0) and np.all(eq[:t, t] == 0.0)):
            raise ValueError("eq[T, b] must be 1 and eq[a, T] 0 (the match is over)")
        ss = np.ascontiguousarray(score_states, np.int64)
        w = np.asarray(weights, np.float64)
        if ss.ndim != 2 or ss.shape[1] != 3 or w.shape != (ss.shape[0],) or ss.shape[0] == 0:
            raise ValueError("score_states must be int64[S, 3] and weights float64[S], S > 0")
        if (ss[:, :2] < 0).any() or (ss[:, :2] >= t).any() or (ss[:, 2] < 0).any() \
                or (ss[:, 2] >= n).any():
            raise ValueError(f"score states must have scores in 0 .. {t - 1} and dealers "
                             f"in 0 .. {n - 1}")
        if (w < 0).any() or not w.sum() > 0:
            raise ValueError("score-state weights must be non-negative with a positive sum")
        cdf = np.cumsum(w) / w.sum()
        cdf[-1] = 1.0
        self._eq, self._score_states, self._cdf = eq, ss, cdf

    def set_warm_start(self, policy, regret_scale: float, prior_visits: float) -> None:
        """Start every row inserted from now on from ``policy``'s probabilities at the
        same state under *its* abstraction (e.g. the points policy, no scores in its key,
        for a match-objective run whose key holds them): regrets ``regret_scale * p``
        (regret matching plays ``p`` until the regrets move it) and ``prior_visits * p``
        added to the average policy. A departure from plain MCCFR, which starts at zero
        regrets (uniform play); it changes where the iterates start, not what they
        converge to (Brown & Sandholm 2016, "Strategy-based warm starting for regret
        minimization in games", AAAI, warm-start regrets from a strategy; they derive the
        regrets and the weight from the strategy's values, here both are fixed knobs).

        Args:
            policy: a :class:`~vitou_ai.bots.abstract.AbstractPolicy` of this game's shape.
            regret_scale: in the regrets' units (points per deal, or match equity).
            prior_visits: weight of ``p`` in the average policy, in visits.

        Raises:
            ValueError: a policy of another game shape or width, or negative scales.
        """
        from ...bots.abstract import AbstractPolicy, check_fits

        if self.traversal != "es":
            raise ValueError(f"a warm start needs traversal 'es', not {self.traversal!r}")
        if not isinstance(policy, AbstractPolicy):
            raise ValueError(f"warm start needs an abstract policy, got {type(policy).__name__}")
        check_fits(policy, self.params)
        if policy.probs.shape[1] != self.width:
            raise ValueError(f"warm-start policy of width {policy.probs.shape[1]}, the solver's "
                             f"is {self.width}")
        if not (regret_scale >= 0 and prior_visits >= 0):
            raise ValueError("warm-start scales must be non-negative")
        self._warm = (policy.cfg_array(self.params), policy.slots, policy.keys,
                      np.ascontiguousarray(policy.probs, np.float32),
                      np.array([regret_scale, prior_visits], np.float64))
        self.warm_policy = policy.path or policy.name

    def warm_up(self) -> None:
        """Compile the traversal (no iteration is run), so the first timed call
        does not count the compilation as solver time."""
        self._run(0, self.rngs.copy(), self.counters.copy(), 0.0)
        discount(self.slots[:0], self.regrets[:0], self.cum_policy[:0], np.float32(1.0))

    def pruning(self) -> bool:
        return self.seconds >= self.prune_after

    def iterate(self, n: int = 1) -> None:
        """About ``n`` iterations (rounded up to a multiple of ``threads``), each one
        traversal per player; discounts at interval ends.

        Raises:
            TableFullError: the table reached its bound (the tables keep what was
                done; the last checkpoint is intact).
        """
        per = max(1, -(-int(n) // self.threads))
        start = time.perf_counter()
        self._run(per, self.rngs, self.counters, self.prune_prob if self.pruning() else 0.0)
        self.seconds += time.perf_counter() - start
        self.iteration += per * self.threads
        self._maybe_discount()
        if self.counters[:, W_FULL].any() or self.num_infosets > MAX_LOAD * self.capacity:
            raise TableFullError(
                f"abstract information-state table full ({self.num_infosets:,} states, bound "
                f"{self.max_infosets:,}): raise --max-infosets or coarsen the abstraction")

    def _run(self, per: int, rngs: np.ndarray, counters: np.ndarray, prune_prob: float) -> None:
        if self.traversal == "es":
            run_workers(self._cfg, self._pa, per, rngs, self.slots, self.nact, self.regrets,
                        self.cum_policy, counters, prune_prob, self.prune_threshold,
                        self._depth, self._eq, self._cdf, self._score_states, self._warm)
            return
        if self.traversal == "team":
            from .mccfr_team import run_team_workers as workers
        else:
            from .mccfr_hands import run_hands_workers as workers
        workers(self._cfg, self._pa, per, rngs, self.slots, self.nact, self.regrets,
                self.cum_policy, counters, prune_prob, self.prune_threshold, self._depth,
                self._eq)

    def _maybe_discount(self) -> None:
        if self.discount_interval <= 0:
            return
        while (self.discounts_done < self.discount_intervals
               and self.seconds >= (self.discounts_done + 1) * self.discount_interval):
            k = self.discounts_done + 1
            discount(self.slots, self.regrets, self.cum_policy, np.float32(k / (k + 1)))
            self.discounts_done = k

    # ---- policies ---------------------------------------------------------------------------
    def used_rows(self) -> np.ndarray:
        return np.flatnonzero(self.slots)

    def average_policy(self):
        """``(keys uint64[M], nact int8[M], probs float32[M, width])``: the average policy at
        every stored information state whose average has mass (the others are left
        to the bot's fallback)."""
        rows = self.used_rows()
        cum = self.cum_policy[rows].astype(np.float64)
        nact = self.nact[rows]
        mask = np.arange(self.width)[None, :] < nact[:, None]
        cum = np.where(mask, cum, 0.0)
        tot = cum.sum(1)
        keep = tot > 0
        probs = (cum[keep] / tot[keep, None]).astype(np.float32)
        return self.slots[rows][keep], nact[keep], probs

    def policy(self, name: str = "abstract"):
        """The average policy as a bot (:class:`vitou_ai.bots.abstract.AbstractPolicy`)."""
        from ...bots.abstract import AbstractPolicy

        keys, nact, probs = self.average_policy()
        return AbstractPolicy(keys, nact, probs, self.abstraction, self.params, name=name)

    # ---- checkpoints ------------------------------------------------------------------------
    def _config(self) -> dict:
        return {"format": FORMAT, "rules_version": RULES_VERSION, "seed": self.seed,
                "threads": self.threads, "abstraction": self.abstraction.describe(),
                "params": params_record(self.params), "traversal": self.traversal}

    def save(self, path: str | Path) -> None:
        """Checkpoint (``.npz``, no pickle, written atomically): used rows and streams."""
        rows = self.used_rows()
        meta = dict(self._config(), iteration=self.iteration, seconds=self.seconds,
                    discounts_done=self.discounts_done, counters=self.counters.tolist(),
                    prune_after=self.prune_after, prune_prob=self.prune_prob,
                    prune_threshold=self.prune_threshold,
                    discount_interval=self.discount_interval,
                    discount_intervals=self.discount_intervals)
        save_checkpoint(path, meta, keys=self.slots[rows], nact=self.nact[rows],
                        regrets=self.regrets[rows], cum_policy=self.cum_policy[rows],
                        rngs=self.rngs)

    def load(self, path: str | Path) -> None:
        """Resume from :meth:`save`'s file for the same game, abstraction, seed, threads and
        traversal (a file from before the traversal was recorded is read as ``"es"``).

        Raises:
            CheckpointError: one line: an unreadable file, another format, rules
                version, game, abstraction, seed, thread count or traversal, or more
                information states than this solver's bound.
        """
        meta, data = load_checkpoint(path, ("keys", "nact", "regrets", "cum_policy", "rngs"))
        check_config(path, meta, self._config(), self.params.players)
        n = data["keys"].shape[0]
        if n > self.max_infosets:
            raise CheckpointError(f"{path}: {n:,} information states exceed max_infosets "
                                  f"{self.max_infosets:,}")
        self.slots[:] = 0
        rows = np.zeros(n, np.int64)
        _reinsert(self.slots, data["keys"].astype(np.uint64), rows)
        if (rows < 0).any():
            raise CheckpointError(f"{path}: the table is too small to reload it")
        self.nact[:] = 0
        self.regrets[:] = 0
        self.cum_policy[:] = 0
        self.nact[rows] = data["nact"]
        self.regrets[rows] = data["regrets"]
        self.cum_policy[rows] = data["cum_policy"]
        self.rngs[:] = data["rngs"]
        self.iteration = int(meta["iteration"])
        self.seconds = float(meta["seconds"])
        self.discounts_done = int(meta["discounts_done"])
        self.counters[:] = np.array(meta["counters"], np.int64)
