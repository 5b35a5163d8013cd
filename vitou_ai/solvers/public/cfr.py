"""CFR, CFR+, DCFR, PCFR+ and PDCFR+ on the public tree (range vectors), and exact
evaluation.

The same five variants, alternating updates and averaging weights as the flat
solver (:mod:`vitou_ai.solvers.flat.cfr`, whose docstring cites the papers), so
that at equal iterations both give the same average policy up to rounding; the
passes are :mod:`vitou_ai.solvers.public.kernels` (vector-form CFR, Johanson et
al. 2012; public-tree best response, Johanson et al. 2011).

Tables are ``float64[num_entries]`` (or ``float32`` with ``tables="float32"``: half the
tables' memory, :data:`TABLE_DTYPES`), one slot per (information set, action)
pair: entry ``e`` of the range of a child of a decision node is the hand
``tree.entries[e]`` of the acting player at the parent, taking the action
``tree.action[child]``.

Both cores: the top of the tree is walked serially down to a *frontier* of
subtrees, which ``prange`` walks in parallel (they share no table entries);
the top is then walked again upwards from the frontier's values.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import time
from collections.abc import Callable

import numba
import numpy as np

from ...rules.params import VitouParams
from ..checkpoint import RegretTableCheckpoints
from ..flat.cfr import (
    PREDICTIVE,
    PUBLIC_VARIANTS,
    check_variant,
    iteration_schedule,
    resolve_discounts,
    restarts_average,
)
from ..flat.kernels import RM_TOLERANCE
from . import kernels as PK
from .tree import KIND_DECISION, KIND_TERMINAL, PublicTree, build_public_tree, check_entry_array

CHECKPOINT_FORMAT = "vitou_ai-public-cfr-checkpoint-1"

#: the tables' element types :class:`PublicCFR` takes (``tables=``): ``float64``, the
#: default, and ``float32`` (compact: regrets, cumulative policy and prediction stored in
#: single precision, every sum inside a pass still in double precision; postflop-solver
#: stores its tables compressed for the same reason, at about half the memory)
TABLE_DTYPES = ("float64", "float32")


def check_tables(tables: str) -> np.dtype:
    """The element type of ``tables`` (:data:`TABLE_DTYPES`).

    Raises:
        ValueError: another name (one line, listing the choices).
    """
    if tables not in TABLE_DTYPES:
        raise ValueError(f"tables must be one of {', '.join(TABLE_DTYPES)}, got {tables!r}")
    return np.dtype(tables)


def tree_fingerprint(tree: PublicTree) -> str:
    """SHA-256 over the public tree's structure, actions, returns and ranges."""
    h = hashlib.sha256()
    for a in (tree.kind, tree.first, tree.action, tree.util, tree.actor_len, tree.entries,
              tree.hands):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def joint_factors(tree: PublicTree) -> np.ndarray:
    """Factors of the exact joint deal probability for four seats
    (:func:`~vitou_ai.solvers.public.tree.joint_deal_probability` rearranged):
    ``P = joint[2,0] * prod_s joint[1, h_s] * prod_r joint[0, K_r]`` with ``K_r``
    the copies of rank ``r`` over the four hands."""
    p = tree.params
    c, h, n = p.copies, p.hand_size, p.players
    width = max(n * h + 1, tree.num_hands + 1)
    out = np.zeros((3, width))
    for k in range(n * h + 1):
        out[0, k] = math.factorial(c) / math.factorial(c - k) if k <= c else 0.0
    for i in range(tree.num_hands):
        out[1, i] = 1.0 / math.prod(math.factorial(int(k)) for k in tree.counts[i])
    total = p.ranks * c
    out[2, 0] = 1.0 / (math.factorial(total) // (math.factorial(h) ** n
                                                 * math.factorial(total - n * h)))
    return out


#: trees below this many nodes are walked in one thread by default: the parallel
#: frontier's start-up costs more than the walk. Measured per DCFR iteration (2 cores,
#: loaded): vitou_2p 3x2x1 (721 nodes) 18.7 ms over the frontier against 0.039 ms in one
#: thread, 8x4x2 (61,797) 40.4 against 8.9 ms, 4x4x3 (300,861) 44.0 against 60.9 ms;
#: vitou 4x2x2 (12,407) 79.2 against 22.0 ms
SERIAL_NODES = 100_000


class PublicPasses:
    """Range passes over one public tree, with the frontier split for ``prange``.

    Args:
        tree: the public tree.
        frontier_size: about how many subtrees to hand to the threads; 0 walks everything
            in one thread; ``None`` (default): one thread below :data:`SERIAL_NODES`
            nodes, else 64 subtrees per thread.
    """

    def __init__(self, tree: PublicTree, frontier_size: int | None = None):
        self._walk, self._frontier_walks = PK.walk, PK.frontier_walks
        self.tree = t = tree
        n, H1 = t.num_players, t.num_hands + 1
        self.util = t.util
        self.joint = joint_factors(t) if n == 4 else np.zeros((3, 1))
        threads = numba.get_num_threads()
        if frontier_size is None:
            frontier_size = 0 if t.num_nodes < SERIAL_NODES else 64 * threads
        target = frontier_size
        sizes = PK.subtree_sizes(t.kind, t.first, t.nchild)
        self.forced = PK.forced_nodes(t.kind, t.first, t.nchild, t.actor_off, t.actor_len,
                                      t.parent_slot, t.num_hands)
        frontier = self._frontier(sizes, target)
        self.frontier = np.array(sorted(frontier), np.int64)
        F = len(self.frontier)
        depth = int(PK.max_depth(t.kind, t.first, t.nchild)) + 2
        dec = np.nonzero(t.kind == 1)[0]
        if len(dec):
            last = t.first[dec] + t.nchild[dec] - 1
            block = int((t.actor_off[last] + t.actor_len[last] - t.actor_off[t.first[dec]]).max())
        else:
            block = 1
        nchunks = max(1, min(F, 4 * threads))
        # longest subtree first onto the least loaded chunk (LPT)
        loads = [(0, c, []) for c in range(nchunks)]
        heapq.heapify(loads)
        for f in sorted(range(F), key=lambda f: -sizes[self.frontier[f]]):
            load, c, items = heapq.heappop(loads)
            items.append(f)
            heapq.heappush(loads, (load + int(sizes[self.frontier[f]]), c, items))
        chunks = sorted(loads, key=lambda x: x[1])
        self.chunk_start = np.cumsum([0] + [len(c[2]) for c in chunks]).astype(np.int64)
        self.chunk_items = np.array([f for c in chunks for f in c[2]], np.int64)
        self.fr_offs = np.zeros((F, n), np.int64)
        self.fr_lens = np.zeros((F, n), np.int64)
        self.fr_reach = np.zeros((F, n, H1))
        self.fr_val = np.zeros((F, H1))
        C = nchunks + 1  # the last row is the top walk's
        self.s_node = np.zeros((C, depth), np.int64)
        self.s_k = np.zeros((C, depth), np.int64)
        self.s_off = np.zeros((C, depth, n), np.int64)
        self.s_len = np.zeros((C, depth, n), np.int64)
        self.s_rd = np.zeros((C, depth, n), np.int64)
        self.s_vr = np.zeros((C, depth), np.int64)
        self.s_reach = np.zeros((C, depth, n, H1))
        self.s_val = np.zeros((C, depth, H1))
        self.s_aux = np.zeros((C, depth, H1))
        self.s_cnt = np.zeros((C, depth, H1), np.int64)
        self.s_sig = np.zeros((C, depth, block))
        self.s_q = np.zeros((C, depth, block))
        self.visited = np.zeros(nchunks, np.int64)
        self.root_offs = np.zeros(n, np.int64)
        self.root_lens = np.ones(n, np.int64)
        self.root_reach = np.ones((n, H1))
        self.out = np.zeros(H1)
        self.nodes_visited = 0

    def _frontier(self, sizes: np.ndarray, target: int) -> list[int]:
        t = self.tree
        if target <= 1:
            return []
        heap = [(-int(sizes[0]), 0)]
        done: list[int] = []
        while heap and len(heap) + len(done) < target:
            s, node = heapq.heappop(heap)
            if t.kind[node] == KIND_TERMINAL or -s < 64:
                done.append(node)
                continue
            f = int(t.first[node])
            for k in range(int(t.nchild[node])):
                heapq.heappush(heap, (-int(sizes[f + k]), f + k))
        out = done + [node for _, node in heap]
        return [] if out == [0] else out

    def run(self, traverser: int, pol_mode: int, upd_mode: int, regrets: np.ndarray,
            cum: np.ndarray, given: np.ndarray, weight: float = 1.0, dpos: float = 1.0,
            dneg: float = 1.0, davg: float = 1.0, clip: bool = False) -> np.ndarray:
        """One pass for ``traverser``; returns its counterfactual values at the root
        (``float64[1]``: the root has the single range "not dealt")."""
        t = self.tree
        H = t.num_hands
        common = (t.kind, t.player, t.first, t.nchild, t.prob, self.util, t.actor_off,
                  t.actor_len, t.entries, t.parent_slot, self.forced, H, t.pair_prob, t.counts, self.joint,
                  t.num_players, traverser, pol_mode)
        tables = (regrets, cum, given, weight, dpos, dneg, davg, clip)
        top = len(self.s_node) - 1
        scratch = (self.s_node[top], self.s_k[top], self.s_off[top], self.s_len[top],
                   self.s_rd[top], self.s_vr[top], self.s_reach[top], self.s_val[top], self.s_aux[top],
                   self.s_cnt[top], self.s_sig[top], self.s_q[top])
        fr = (self.fr_offs, self.fr_lens, self.fr_reach, self.fr_val)
        root = (0, self.root_offs, self.root_lens, self.root_reach)
        if len(self.frontier) == 0:
            v = self._walk(*common, upd_mode, *tables, *root, self.frontier, PK.STOP_IGNORE, *fr,
                        *scratch, self.out)
            self.nodes_visited += v
            return self.out[:1].copy()
        v = self._walk(*common, PK.UPDATE_NONE, *tables, *root, self.frontier, PK.STOP_RECORD,
                       *fr, *scratch, self.out)
        self._frontier_walks(*common, upd_mode, *tables, self.frontier, self.chunk_start,
                             self.chunk_items, *fr, self.s_node, self.s_k, self.s_off,
                             self.s_len, self.s_rd, self.s_vr, self.s_reach, self.s_val,
                             self.s_aux, self.s_cnt, self.s_sig, self.s_q, self.visited)
        self._walk(*common, upd_mode, *tables, *root, self.frontier, PK.STOP_READ, *fr,
                   *scratch, self.out)
        self.nodes_visited += v + int(self.visited.sum())
        return self.out[:1].copy()


class PublicCFR(RegretTableCheckpoints):
    """Vector-form CFR / CFR+ / DCFR / PCFR+ / PDCFR+ on a :class:`PublicTree`.

    Args:
        game: a :class:`VitouParams` (its public tree is built) or a built tree.
        variant: one of :data:`~vitou_ai.solvers.flat.cfr.PUBLIC_VARIANTS` (as
            :class:`~vitou_ai.solvers.flat.cfr.TabularCFR`, whose module docstring gives
            each update rule and its paper: PCFR+ Farina, Kroer & Sandholm 2021; PDCFR+
            Xu et al. 2024; and ``dcfr-postflop``, postflop-solver's DCFR schedule with
            the average restarted at powers of 4).
        alpha, beta, gamma: the discount exponents of DCFR and PDCFR+ (default
            :data:`~vitou_ai.solvers.flat.cfr.DEFAULT_DISCOUNTS`).
        frontier_size: see :class:`PublicPasses`.
        tables: the tables' element type, ``"float64"`` (default) or ``"float32"``
            (compact: half the tables' memory; the passes still sum in double precision;
            ``docs/results/regret-minimisers.md`` measures what it costs). Recorded in the
            checkpoints: a run resumes with the type it was saved with.

    Tables: ``regrets`` and ``cum_policy``, ``float64[num_entries]`` (or ``float32``);
    the predictive variants add ``prediction`` (each entry's last instantaneous regret,
    the prediction of the next one), saved in their checkpoints.

    Raises:
        ValueError: unknown variant or table type; a game without a public tree
            (:func:`~vitou_ai.solvers.public.tree.check_public_params`).
    """

    checkpoint_format = CHECKPOINT_FORMAT  # a flat-tree checkpoint is refused by its format

    def __init__(self, game: VitouParams | PublicTree, variant: str = "dcfr",
                 alpha: float | None = None, beta: float | None = None,
                 gamma: float | None = None, frontier_size: int | None = None,
                 tables: str = "float64"):
        check_variant(variant, PUBLIC_VARIANTS)
        dtype = check_tables(tables)
        self.tree = game if isinstance(game, PublicTree) else build_public_tree(game)
        self.variant = variant
        self.alpha, self.beta, self.gamma = resolve_discounts(variant, alpha, beta, gamma)
        self.tables = tables
        E = self.tree.num_entries
        self.regrets = np.zeros(E, dtype)
        self.cum_policy = np.zeros(E, dtype)
        self._empty = np.zeros(0, dtype)
        self.predictive = variant in PREDICTIVE
        self.prediction = np.zeros(E, dtype) if self.predictive else self._empty
        self.passes = PublicPasses(self.tree, frontier_size)
        self.iteration = 0
        self.nodes_touched = 0
        self.seconds = 0.0

    def discounts(self, iteration: int) -> tuple[float, float, float, float, bool]:
        """``(weight, dpos, dneg, davg, clip)`` of iteration ``iteration`` (1-based): the
        averaging weight, the discounts of positive and negative regrets and of the
        cumulative policy, and CFR+'s floor at 0 (the walk's update,
        :mod:`~vitou_ai.solvers.public.kernels`;
        :func:`~vitou_ai.solvers.flat.cfr.iteration_schedule`)."""
        return iteration_schedule(self.variant, iteration, self.alpha, self.beta, self.gamma)

    def iterate(self, n: int = 1, hook: Callable[[int, bool, tuple], None] | None = None,
                skip: tuple[int, ...] = ()) -> None:
        """Run ``n`` iterations (each: one pass per player, alternating).

        ``skip``: players whose pass is not run: their regrets and cumulative policy stay
        as set (a subgame's fixed seat, held to a given policy by setting both to it).

        ``hook(player, after, discounts)``, if given, is called before (``after`` False)
        and after (True) each player's pass, with :meth:`discounts` of the iteration: a
        subgame's gadget (:class:`~vitou_ai.solvers.public.subgame.SubgameSolver`) sets the root
        reaches before a pass and reads the root values after it."""
        start = time.perf_counter()
        ps = self.passes
        mode = PK.POLICY_PREDICTIVE if self.predictive else PK.POLICY_REGRET
        for _ in range(n):
            self.iteration += 1
            disc = self.discounts(self.iteration)
            restart = restarts_average(self.variant, self.iteration)
            for p in range(self.tree.num_players):
                if p in skip:
                    continue
                if restart:
                    self.cum_policy[self._player_entries(p)] = 0.0
                if hook is not None:
                    hook(p, False, disc)
                before = ps.nodes_visited
                ps.run(p, mode, PK.UPDATE_CFR, self.regrets, self.cum_policy,
                       self.prediction, *disc)
                self.nodes_touched += ps.nodes_visited - before
                if hook is not None:
                    hook(p, True, disc)
        self.seconds += time.perf_counter() - start

    def _player_entries(self, p: int) -> np.ndarray:
        """``bool[num_entries]``: the entries of ``p``'s decisions (cached)."""
        cache = self.__dict__.setdefault("_entries_of", {})
        if p not in cache:
            cache[p] = player_entries(self.tree, p)
        return cache[p]

    def average_policy(self) -> np.ndarray:
        """The average policy, ``float64[num_entries]`` (probability of each entry's
        action for its hand; uniform where the cumulative weights are all 0)."""
        return entry_policy(self.tree, self.cum_policy)

    def current_policy(self) -> np.ndarray:
        """The current (regret-matching) policy, ``float64[num_entries]``: the policy the
        next iteration plays (on ``regrets + prediction`` for the predictive variants)."""
        r = self.regrets + self.prediction if self.predictive else self.regrets
        return entry_policy(self.tree, np.where(r > RM_TOLERANCE, r, 0.0))

    # ---- exact evaluation of the average policy without materialising it -----------------
    def expected_returns(self) -> np.ndarray:
        """``float64[players]``: each seat's expected return under the average policy."""
        return _returns(self.passes, PK.POLICY_AVERAGE, self.cum_policy, self._empty)

    def best_response_value(self, player: int) -> float:
        """``player``'s best-response value against the average policy (points per deal)."""
        return float(self.passes.run(player, PK.POLICY_AVERAGE, PK.UPDATE_BR, self._empty,
                                     self.cum_policy, self._empty)[0])

    def nash_conv(self) -> float:
        u = self.expected_returns()
        return float(sum(self.best_response_value(p) - u[p]
                         for p in range(self.tree.num_players)))

    def exploitability(self) -> float:
        return self.nash_conv() / self.tree.num_players

    # ---- checkpoints (save / load: RegretTableCheckpoints) -------------------------------
    def _tree_fingerprint(self) -> str:
        return tree_fingerprint(self.tree)

    def _extra_tables(self) -> dict[str, np.ndarray]:
        return {"prediction": self.prediction} if self.predictive else {}

    def _config(self) -> dict:
        # the table type is recorded and checked: a run resumes with the type it was saved
        # with (a checkpoint from before compact tables reads as float64: ABSENT_MEANS)
        return {**super()._config(), "tables": self.tables}


# ---- policies over entries and exact evaluation --------------------------------------------


def player_entries(tree: PublicTree, player: int) -> np.ndarray:
    """``bool[num_entries]``: the entries of the decisions ``player`` takes (the ranges of
    the children of ``player``'s decision nodes)."""
    t = tree
    dec = np.nonzero((t.kind == KIND_DECISION) & (t.player == player))[0]
    n = t.nchild[dec].astype(np.int64)
    kids = np.repeat(t.first[dec].astype(np.int64), n) + (
        np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n))
    mark = np.zeros(t.num_entries + 1, np.int64)
    np.add.at(mark, t.actor_off[kids].astype(np.int64), 1)
    np.add.at(mark, (t.actor_off[kids] + t.actor_len[kids]).astype(np.int64), -1)
    return np.cumsum(mark[:-1]) > 0


def entry_policy(tree: PublicTree, weights: np.ndarray) -> np.ndarray:
    """Normalise non-negative ``weights`` (``float64[num_entries]``) per information set
    into a policy (uniform over the legal actions where they sum to 0).

    Raises:
        ValueError: ``weights`` of another length, or with a NaN, infinite or negative entry.
    """
    weights = check_entry_array(tree, weights, "weights")
    out = np.zeros(tree.num_entries)
    PK.normalize_entries(tree.kind, tree.player, tree.first, tree.nchild, tree.actor_off,
                         tree.actor_len, tree.entries, tree.num_hands, tree.num_players,
                         weights, out)
    return out


def _returns(passes: PublicPasses, mode: int, cum: np.ndarray, given: np.ndarray) -> np.ndarray:
    n = passes.tree.num_players
    empty = np.zeros(0)
    v0 = float(passes.run(0, mode, PK.UPDATE_NONE, empty, cum, given)[0])
    return np.array([v0 if s % 2 == 0 else -v0 for s in range(n)])


def expected_returns(tree: PublicTree, policy: np.ndarray,
                     passes: PublicPasses | None = None) -> np.ndarray:
    """``float64[players]``: each seat's expected return (points per deal) under
    ``policy`` (``float64[num_entries]``, e.g. :meth:`PublicCFR.average_policy`)."""
    policy = check_entry_array(tree, policy)
    return _returns(passes or PublicPasses(tree), PK.POLICY_GIVEN, np.zeros(0), policy)


def best_response_value(tree: PublicTree, policy: np.ndarray, player: int,
                        passes: PublicPasses | None = None) -> float:
    """``player``'s best-response value to everybody else playing ``policy``
    (one range pass, Johanson et al. 2011)."""
    policy = check_entry_array(tree, policy)
    ps = passes or PublicPasses(tree)
    e = np.zeros(0)
    return float(ps.run(player, PK.POLICY_GIVEN, PK.UPDATE_BR, e, e, policy)[0])


def nash_conv(tree: PublicTree, policy: np.ndarray, passes: PublicPasses | None = None) -> float:
    """``sum_p (BR_p - u_p)`` (OpenSpiel's definition), points per deal."""
    ps = passes or PublicPasses(tree)
    u = expected_returns(tree, policy, ps)
    return float(sum(best_response_value(tree, policy, p, ps) - u[p]
                     for p in range(tree.num_players)))


def exploitability(tree: PublicTree, policy: np.ndarray,
                   passes: PublicPasses | None = None) -> float:
    """``nash_conv / num_players``; points per deal."""
    return nash_conv(tree, policy, passes) / tree.num_players


