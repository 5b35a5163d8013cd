"""Range passes over a depth-limited subgame: leaf values from continuation strategies.

A depth-limited subgame (:func:`~vitou_ai.solvers.public.subgame.build_subgame` with
``tricks``) stops at the first public state of a later trick: its ``KIND_LEAF`` nodes
have no children. Following Brown, Sandholm & Amos (NeurIPS 2018, "Depth-limited
solving for imperfect-information games", section 4), at a leaf the *searcher* (the seat
to act at the subgame's root) plays the blueprint for the rest of the deal and the
*opponent* chooses, per hand, one of ``K`` continuation strategies (the blueprint and
biased versions of it): the leaf is one more decision of the opponent, with ``K``
actions whose payoffs are the continuation values
``W[k, a, b]`` (team 0's expected return, points per deal, seat 0 holding hand ``a``,
seat 1 hand ``b``; :func:`vitou_ai.search.leaves.continuation_values`). The opponent's
choice is solved with the subgame by regret matching with the same discounts.

:class:`LeafPasses` is :class:`~vitou_ai.solvers.public.cfr.PublicPasses` with the leaves
as its frontier: each pass records the ranges and reaches at the leaves (``STOP_RECORD``),
computes the traverser's leaf values from ``W`` (:func:`leaf_values`), and walks again
reading them (``STOP_READ``), updating the traverser's regrets above the leaves. The
leaf values are the ones the subtree below would give (the walk's terminal rule:
``sign × sum_j P(h_i, h_j) reach_o(j) u``) when the continuation is played there: with
``K = 1`` (the blueprint only) a depth-limited pass equals the full subgame's pass with
the blueprint below the leaves (``tests/test_depth_limited.py``).
"""

from __future__ import annotations

import numpy as np

from ..._numba import jit
from . import kernels as PK
from .cfr import PublicPasses
from .tree import KIND_DECISION, KIND_LEAF, PublicTree

#: the opponent's leaf choice in a pass: regret matching on the leaf regrets (the
#: current policy), their average, or a best response (the largest value per hand)
LEAF_CURRENT = 0
LEAF_AVERAGE = 1
LEAF_BEST = 2


def leaf_ranges(tree: PublicTree, root_offs: np.ndarray, root_lens: np.ndarray,
                leaves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's range at each leaf, as slices of ``tree.entries`` (the slices the range
    walks hand over at the leaf: the seat's last action's, else its root range).

    Returns:
        ``(offs, lens)``, ``int64[F, players]`` each, in the order of ``leaves``.
    """
    n = tree.num_players
    F = len(leaves)
    offs = np.zeros((F, n), np.int64)
    lens = np.zeros((F, n), np.int64)
    where = {int(x): f for f, x in enumerate(leaves)}
    stack = [(0, tuple(int(x) for x in root_offs), tuple(int(x) for x in root_lens))]
    while stack:
        node, o, ln = stack.pop()
        if node in where:
            offs[where[node]] = o
            lens[where[node]] = ln
            continue
        kd = int(tree.kind[node])
        f0, m = int(tree.first[node]), int(tree.nchild[node])
        for c in range(f0, f0 + m):
            if kd == KIND_DECISION:
                p = int(tree.player[node])
                o2, l2 = list(o), list(ln)
                o2[p] = int(tree.actor_off[c])
                l2[p] = int(tree.actor_len[c])
                stack.append((c, tuple(o2), tuple(l2)))
            else:
                stack.append((c, o, ln))
    return offs, lens


@jit
def leaf_values(tp, searcher, mode, upd, ent, fr_offs, fr_lens, fr_reach, fr_val, pair_p,
                w, w_off, w_r1, nk, mp, mp_off, q_reg, q_cum, q_off, weight, dpos, dneg, davg,
                clip):
    """The traverser ``tp``'s counterfactual values at every leaf into ``fr_val[f, i]`` (its
    range positions at the leaf), from the continuation values and the reaches recorded.

    Args:
        mode: the opponent's leaf choice (``LEAF_CURRENT``, ``LEAF_AVERAGE``, ``LEAF_BEST``).
        upd: ``PK.UPDATE_CFR`` with ``tp`` the opponent: its leaf regrets and average are
            updated (the walk's DCFR rule: add, floor at 0 if ``clip``, discount positive
            by ``dpos`` and negative by ``dneg``; the average discounted by ``davg``, then
            ``weight × own reach × policy`` added).
        w: the leaves' ``W[k, a, b]`` flattened, leaf ``f``'s block at ``w_off[f]``,
            ``w_r1[f]`` columns (seat 1's hands), ``nk`` continuations.
        mp: per leaf ``f`` and seat ``s``, from ``mp_off[f, s]``: the row (seat 0) or
            column (seat 1) of ``W`` of each position of the seat's range at the leaf.
        q_reg, q_cum: the opponent's leaf regrets and cumulative policy, leaf ``f``'s
            block at ``q_off[f]``, ``nk`` per position of the opponent's range.
    """
    o = 1 - searcher
    sign = 1.0 if tp == 0 else -1.0
    F = fr_offs.shape[0]
    q = np.empty(nk)
    vk = np.empty(nk)
    for f in range(F):
        ls = fr_lens[f, searcher]
        lo = fr_lens[f, o]
        os_ = fr_offs[f, searcher]
        oo = fr_offs[f, o]
        wb = w_off[f]
        r1 = w_r1[f]
        qb = q_off[f]
        if tp == searcher:
            for i in range(ls):
                fr_val[f, i] = 0.0
        for j in range(lo):
            # the opponent's leaf policy for its hand at position j
            if mode == 2 and tp == o:
                for k in range(nk):
                    q[k] = 0.0
            else:
                tot = 0.0
                for k in range(nk):
                    x = q_cum[qb + j * nk + k] if mode == 1 else q_reg[qb + j * nk + k]
                    x = x if x > 0.0 else 0.0
                    q[k] = x
                    tot += x
                for k in range(nk):
                    if tot > 0.0:
                        q[k] = q[k] / tot
                    elif mode == 1:  # no average yet: the blueprint's continuation
                        q[k] = 1.0 if k == 0 else 0.0
                    else:
                        q[k] = 1.0 / nk
            hj = ent[oo + j]
            ao = mp[mp_off[f, o] + j]
            if ao < 0:
                if tp == o:
                    fr_val[f, j] = 0.0
                continue
            if tp == searcher:
                rj = fr_reach[f, o, j]
                if rj == 0.0:
                    continue
                for i in range(ls):
                    hi = ent[os_ + i]
                    pp = pair_p[hi, hj]
                    if pp == 0.0:
                        continue
                    a_s = mp[mp_off[f, searcher] + i]
                    if a_s < 0:
                        continue
                    # W's rows are seat 0's hands, its columns seat 1's
                    a0, a1 = (a_s, ao) if searcher == 0 else (ao, a_s)
                    u = 0.0
                    for k in range(nk):
                        u += q[k] * w[wb + _widx(k, a0, a1, r1, w_off, f, nk)]
                    fr_val[f, i] += sign * pp * rj * u
            else:
                for k in range(nk):
                    vk[k] = 0.0
                for i in range(ls):
                    ri = fr_reach[f, searcher, i]
                    if ri == 0.0:
                        continue
                    hi = ent[os_ + i]
                    pp = pair_p[hi, hj]
                    if pp == 0.0:
                        continue
                    a_s = mp[mp_off[f, searcher] + i]
                    if a_s < 0:
                        continue
                    a0, a1 = (a_s, ao) if searcher == 0 else (ao, a_s)
                    for k in range(nk):
                        vk[k] += sign * pp * ri * w[wb + _widx(k, a0, a1, r1, w_off, f, nk)]
                if mode == 2:
                    best = vk[0]
                    for k in range(1, nk):
                        if vk[k] > best:
                            best = vk[k]
                    fr_val[f, j] = best
                    continue
                v = 0.0
                for k in range(nk):
                    v += q[k] * vk[k]
                fr_val[f, j] = v
                if upd == PK.UPDATE_CFR:
                    own = fr_reach[f, o, j]
                    for k in range(nk):
                        e = qb + j * nk + k
                        r = q_reg[e] + vk[k] - v
                        if clip and r < 0.0:
                            r = 0.0
                        q_reg[e] = r * dpos if r > 0.0 else r * dneg
                        q_cum[e] = q_cum[e] * davg + weight * own * q[k]


@jit
def _widx(k, a, b, r1, w_off, f, nk):
    """Offset of ``W[k, a, b]`` in leaf ``f``'s block (``a`` seat 0's row, ``b`` seat 1's
    column); the block is ``nk × R0 × R1`` with ``R0 × R1 = (w_off[f+1] - w_off[f]) / nk``."""
    r0r1 = (w_off[f + 1] - w_off[f]) // nk
    return k * r0r1 + a * r1 + b


class LeafPasses(PublicPasses):
    """:class:`~vitou_ai.solvers.public.cfr.PublicPasses` over a depth-limited subgame: the
    leaves are the frontier, their values computed from continuation values (module
    docstring).

    Args:
        tree: the depth-limited subgame's tree.
        leaves: ``int64[F]``, its ``KIND_LEAF`` nodes (sorted).
        root_offs, root_lens: the seats' root ranges (slices of ``tree.entries``).
        searcher: the seat to act at the root (plays the blueprint below the leaves).
        leaf_hands: per leaf, ``(hands0, hands1)``: the sorted dealt-hand indices of the
            rows and columns of its values.
        leaf_w: per leaf, ``float64[K, len(hands0), len(hands1)]``: team 0's expected
            return below the leaf, the opponent playing continuation ``k``.

    Attributes:
        leaf_mode: the opponent's leaf choice in passes that do not update it
            (:data:`LEAF_AVERAGE` by default: the average of its choices, the first
            continuation, the blueprint, before any; a best-response pass of the opponent
            takes :data:`LEAF_BEST`).

    Raises:
        ValueError: other than two players; a leaf count, or a leaf's ``K`` or shape, that
            does not match; values that are not finite; hand lists not sorted, distinct
            hand indices; a ``KIND_LEAF`` node not in ``leaves``. (A hand of a leaf's
            range missing from its values' hands is one the public cards rule out: it gets
            value 0, as its deal probability with every hand of the other range is 0.)
    """

    def __init__(self, tree: PublicTree, leaves: np.ndarray, root_offs: np.ndarray,
                 root_lens: np.ndarray, searcher: int, leaf_hands, leaf_w):
        super().__init__(tree, frontier_size=0)
        if tree.num_players != 2:
            raise ValueError("depth-limited passes are for two players")
        leaves = np.asarray(leaves, np.int64)
        if not np.array_equal(np.sort(leaves), np.nonzero(tree.kind == KIND_LEAF)[0]):
            raise ValueError("leaves must be exactly the tree's KIND_LEAF nodes")
        F = len(leaves)
        if len(leaf_hands) != F or len(leaf_w) != F:
            raise ValueError(f"{F} leaves but {len(leaf_hands)} hand lists and "
                             f"{len(leaf_w)} value tables")
        self.frontier = np.sort(leaves)
        order = np.argsort(leaves, kind="stable")
        nk = int(np.asarray(leaf_w[0]).shape[0]) if F else 1
        self.nk = nk
        self.searcher = int(searcher)
        n, H1 = 2, tree.num_hands + 1
        self.fr_offs, self.fr_lens = leaf_ranges(tree, root_offs, root_lens, self.frontier)
        self.fr_reach = np.zeros((F, n, H1))
        self.fr_val = np.zeros((F, H1))
        w_blocks, w_off, w_r1 = [], [0], []
        mp, mp_off = [], np.zeros((F, n), np.int64)
        pos = 0
        for f in range(F):
            src = int(order[f])
            h0, h1 = (np.asarray(h, np.int64) for h in leaf_hands[src])
            w = np.asarray(leaf_w[src], np.float64)
            for hs in (h0, h1):
                if hs.ndim != 1 or (np.diff(hs) <= 0).any() or (hs < 0).any() \
                        or (hs >= tree.num_hands).any():
                    raise ValueError(f"leaf {int(self.frontier[f])}: hand lists must be "
                                     f"sorted, distinct hand indices below {tree.num_hands}")
            if not np.isfinite(w).all():
                raise ValueError(f"leaf {int(self.frontier[f])}: continuation values must be "
                                 "finite")
            if w.shape != (nk, len(h0), len(h1)):
                raise ValueError(f"leaf {int(self.frontier[f])}: values of shape {w.shape}, "
                                 f"expected ({nk}, {len(h0)}, {len(h1)})")
            w_blocks.append(w.ravel())
            w_off.append(w_off[-1] + w.size)
            w_r1.append(len(h1))
            for s, hs in enumerate((h0, h1)):
                ent = tree.entries[self.fr_offs[f, s]:self.fr_offs[f, s] + self.fr_lens[f, s]]
                ent = ent.astype(np.int64)
                at = np.searchsorted(hs, ent)
                # a hand the public cards rule out (the tree keeps it: its deal
                # probability with every hand of the other range is 0) gets no value
                at = np.where((at < len(hs)) & (hs[np.minimum(at, len(hs) - 1)] == ent), at, -1)
                mp_off[f, s] = pos
                mp.append(at)
                pos += len(at)
        self.w = np.concatenate(w_blocks) if w_blocks else np.zeros(0)
        self.w_off = np.array(w_off, np.int64)
        self.w_r1 = np.array(w_r1, np.int64)
        self.mp = np.concatenate(mp).astype(np.int64) if mp else np.zeros(0, np.int64)
        self.mp_off = mp_off
        o = 1 - self.searcher
        sizes = self.fr_lens[:, o] * nk
        self.q_off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.q_reg = np.zeros(int(self.q_off[-1]))
        self.q_cum = np.zeros(int(self.q_off[-1]))
        self.leaf_mode = LEAF_AVERAGE

    def run(self, traverser: int, pol_mode: int, upd_mode: int, regrets: np.ndarray,
            cum: np.ndarray, given: np.ndarray, weight: float = 1.0, dpos: float = 1.0,
            dneg: float = 1.0, davg: float = 1.0, clip: bool = False) -> np.ndarray:
        """One pass for ``traverser`` (record, leaf values, read); returns its
        counterfactual values at the root (``self.out``'s first entries)."""
        t = self.tree
        H = t.num_hands
        common = (t.kind, t.player, t.first, t.nchild, t.prob, self.util, t.actor_off,
                  t.actor_len, t.entries, t.parent_slot, self.forced, H, t.pair_prob, t.counts,
                  self.joint, t.num_players, traverser, pol_mode)
        tables = (regrets, cum, given, weight, dpos, dneg, davg, clip)
        top = len(self.s_node) - 1
        scratch = (self.s_node[top], self.s_k[top], self.s_off[top], self.s_len[top],
                   self.s_rd[top], self.s_vr[top], self.s_reach[top], self.s_val[top], self.s_aux[top],
                   self.s_cnt[top], self.s_sig[top], self.s_q[top])
        rec_offs = np.zeros_like(self.fr_offs)
        rec_lens = np.zeros_like(self.fr_lens)
        root = (0, self.root_offs, self.root_lens, self.root_reach)
        v = self._walk(*common, PK.UPDATE_NONE, *tables, *root, self.frontier, PK.STOP_RECORD,
                       rec_offs, rec_lens, self.fr_reach, self.fr_val, *scratch, self.out)
        if upd_mode == PK.UPDATE_CFR:
            mode = LEAF_CURRENT
        elif upd_mode in (PK.UPDATE_BR, PK.UPDATE_BR_POLICY) and traverser != self.searcher:
            mode = LEAF_BEST
        else:
            mode = self.leaf_mode
        leaf_values(traverser, self.searcher, mode, upd_mode, t.entries, self.fr_offs,
                    self.fr_lens, self.fr_reach, self.fr_val, t.pair_prob, self.w, self.w_off,
                    self.w_r1, self.nk, self.mp, self.mp_off, self.q_reg, self.q_cum,
                    self.q_off, weight, dpos, dneg, davg, clip)
        self._walk(*common, upd_mode, *tables, *root, self.frontier, PK.STOP_READ,
                   rec_offs, rec_lens, self.fr_reach, self.fr_val, *scratch, self.out)
        self.nodes_visited += v
        return self.out[:1].copy()
