"""Range-vector passes over a :class:`~vitou_ai.solvers.public_tree.PublicTree` (numba).

One depth-first walk serves vector-form CFR (Johanson et al. 2012, "Efficient
Nash equilibrium approximation through Monte Carlo counterfactual regret
minimization", section 3, vector-form public chance sampling, here without
sampling), best response (Johanson, Waugh, Bowling & Zinkevich 2011, section
4: one pass over the public tree per responding player, a max per hand at each
of its decision nodes) and expected values. At each public node the walk holds,
per seat, the reach probabilities of the hands in that seat's range, and
returns the traverser's counterfactual value for each of its hands:

- terminal: ``cfv(h) = u * sum_{h'} P(h, h') * reach_other(h')``, ``u`` the
  public return (R8.1) and ``P`` the exact joint deal probability (card
  removal; :func:`~vitou_ai.solvers.public_tree.joint_deal_probability`);
- public chance (the dealer draw, R1.4): the edge probability multiplies the
  others' reach on the way down, values add on the way up;
- the deal: ranges go from "not dealt" to every hand; values add up;
- decision of another seat: its policy multiplies its reach, values add;
- decision of the traverser: ``cfv = sum_a sigma(a) cfv_a`` (CFR, values) or
  ``max_a cfv_a`` (best response), per hand over the actions legal for it.

Policies and regrets live in arrays over the tree's entries: entry ``e`` of a
child range created at a decision edge is the (information set, action) pair
(parent node and hand, action into the child).

Update rules at the traverser's decision nodes follow ``cfr_kernels`` (and so
OpenSpiel's alternating updates): regrets ``+= cfv_a - cfv``, cumulative policy
``+= weight * reach_self * sigma``, then the per-pass transform of the variant
(CFR+ floor at 0, DCFR discounts) applied to the entries just updated, which
is the flat solver's end-of-pass transform since every entry is visited once
per pass.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numba import jit, jit_parallel
from .cfr_kernels import RM_TOLERANCE
from .public_tree import KIND_CHANCE, KIND_DEAL, KIND_DECISION, KIND_TERMINAL

POLICY_REGRET = 0  # regret matching on ``regrets`` (the current policy)
POLICY_AVERAGE = 1  # ``cum`` normalised (the average policy)
POLICY_GIVEN = 2  # ``given[e]`` as is

UPDATE_NONE = 0  # expected values
UPDATE_CFR = 1  # regrets and cumulative policy of the traverser
UPDATE_BR = 2  # best response of the traverser

STOP_IGNORE = 0
STOP_RECORD = 1  # at a frontier node: record ranges and reach, return zeros
STOP_READ = 2  # at a frontier node: return the value computed for it

MAX_CHILDREN = 16


@jit
def _utility_sign(num_players, seat):
    return 1.0 if seat % 2 == 0 else -1.0


@jit
def _frontier_index(frontier, node):
    lo = 0
    hi = frontier.shape[0] - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        v = frontier[mid]
        if v == node:
            return mid
        if v < node:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@jit
def _terminal_value(n, tp, u, ent, none_hand, offs, lens, reach, pair_p, counts, joint, out):
    """Counterfactual values of the traverser's hands at a terminal (module docstring)."""
    lt = lens[tp]
    if ent[offs[tp]] == none_hand:  # before the deal: one "hand", nothing dealt
        prod = 1.0
        for s in range(n):
            if s != tp:
                prod *= reach[s, 0]
        out[0] = u * prod
        return
    if n == 2:
        o = 1 - tp
        lo = lens[o]
        oo = offs[o]
        ot = offs[tp]
        for i in range(lt):
            hi = ent[ot + i]
            acc = 0.0
            for j in range(lo):
                acc += pair_p[hi, ent[oo + j]] * reach[o, j]
            out[i] = u * acc
        return
    _terminal_value_n(n, tp, u, ent, offs, lens, reach, counts, joint, out)


@jit
def _terminal_value_n(n, tp, u, ent, offs, lens, reach, counts, joint, out):
    """Four seats: the sum over the other three ranges of the joint deal probability
    (``joint``: ``float64[copies+1 ...]`` factors, see ``PublicTree.joint_factors``)."""
    others = np.empty(3, np.int64)
    k = 0
    for s in range(n):
        if s != tp:
            others[k] = s
            k += 1
    a, b, c = others[0], others[1], others[2]
    R = counts.shape[1]
    for i in range(lens[tp]):
        hi = ent[offs[tp] + i]
        acc = 0.0
        for ja in range(lens[a]):
            ra = reach[a, ja]
            if ra == 0.0:
                continue
            ha = ent[offs[a] + ja]
            for jb in range(lens[b]):
                rb = reach[b, jb]
                if rb == 0.0:
                    continue
                hb = ent[offs[b] + jb]
                for jc in range(lens[c]):
                    rc = reach[c, jc]
                    if rc == 0.0:
                        continue
                    hc = ent[offs[c] + jc]
                    p = 1.0
                    for r in range(R):
                        kk = counts[hi, r] + counts[ha, r] + counts[hb, r] + counts[hc, r]
                        p *= joint[0, kk]
                        if p == 0.0:
                            break
                    if p == 0.0:
                        continue
                    p *= joint[1, hi] * joint[1, ha] * joint[1, hb] * joint[1, hc]
                    acc += p * ra * rb * rc
        out[i] = u * acc * joint[2, 0]


@jit
def walk(kind, player, first, nchild, prob, util, aoff, alen, ent, none_hand, pair_p, counts,
         joint, n, tp, pol_mode, upd_mode, regrets, cum, given, weight, dpos, dneg, davg, clip,
         root, root_offs, root_lens, root_reach, frontier, stop_mode, fr_offs, fr_lens,
         fr_reach, fr_val, f_node, f_k, f_off, f_len, f_reach, f_val, f_sig, f_q, f_idx, out):
    """Walk the subtree of ``root`` depth first for traverser ``tp`` (module docstring).

    Args:
        root_offs, root_lens: ``int64[n]`` the seats' ranges at ``root`` (slices of ``ent``).
        root_reach: ``float64[n, H+1]`` their reach probabilities.
        frontier: sorted ``int64[F]`` node ids cut off (``stop_mode`` RECORD / READ);
            ``fr_*`` their ranges, reach and values.
        f_*: scratch frames, first axis the depth.
        out: ``float64[H+1]``, the traverser's counterfactual values at ``root``.

    Returns:
        The number of nodes visited.
    """
    d = 0
    f_node[0] = root
    for s in range(n):
        f_off[0, s] = root_offs[s]
        f_len[0, s] = root_lens[s]
        for i in range(root_lens[s]):
            f_reach[0, s, i] = root_reach[s, i]
    visited = 0
    entering = True
    sign = _utility_sign(n, tp)
    while True:
        node = f_node[d]
        if entering:
            visited += 1
            k_ = kind[node]
            lt = f_len[d, tp]
            stop = -1
            if stop_mode != 0 and node != root:
                stop = _frontier_index(frontier, node)
            if stop >= 0:
                if stop_mode == 1:
                    for s in range(n):
                        fr_offs[stop, s] = f_off[d, s]
                        fr_lens[stop, s] = f_len[d, s]
                        for i in range(f_len[d, s]):
                            fr_reach[stop, s, i] = f_reach[d, s, i]
                    for i in range(lt):
                        f_val[d, i] = 0.0
                else:
                    for i in range(lt):
                        f_val[d, i] = fr_val[stop, i]
                entering = False
            elif k_ == KIND_TERMINAL:
                _terminal_value(n, tp, sign * util[node], ent, none_hand, f_off[d], f_len[d],
                                f_reach[d], pair_p, counts, joint, f_val[d])
                entering = False
            else:
                for i in range(lt):
                    f_val[d, i] = 0.0
                f_k[d] = 0
                if k_ == KIND_DECISION:
                    _prepare_decision(node, player[node], first, nchild, aoff, alen, ent,
                                      f_off[d], f_len[d], pol_mode, regrets, cum, given,
                                      f_sig[d], f_idx[d])
                entering = False
                # fall through to "descend or finish"
                d, entering = _descend(kind, player, first, nchild, prob, aoff, alen, ent,
                                       none_hand, n, tp, d, f_node, f_k, f_off, f_len,
                                       f_reach, f_sig, f_idx)
                continue
        # returning into frame d-1 with the value of frame d, or finished at the root
        if d == 0:
            for i in range(f_len[0, tp]):
                out[i] = f_val[0, i]
            return visited
        child_d = d
        d -= 1
        pnode = f_node[d]
        k = f_k[d]
        pk = kind[pnode]
        c = first[pnode] + k
        if pk == KIND_DEAL:
            acc = 0.0
            for i in range(f_len[child_d, tp]):
                acc += f_val[child_d, i]
            f_val[d, 0] += acc
        elif pk == KIND_DECISION and player[pnode] == tp:
            base = aoff[c]
            for i in range(f_len[d, tp]):
                e = f_idx[d, i, k]
                if e >= 0:
                    f_q[d, i, k] = f_val[child_d, e - base]
        else:
            for i in range(f_len[d, tp]):
                f_val[d, i] += f_val[child_d, i]
        f_k[d] = k + 1
        if k + 1 < nchild[pnode]:
            d, entering = _descend(kind, player, first, nchild, prob, aoff, alen, ent,
                                   none_hand, n, tp, d, f_node, f_k, f_off, f_len, f_reach,
                                   f_sig, f_idx)
            continue
        # all children done: finish the node
        if pk == KIND_DECISION and player[pnode] == tp:
            _finish_traverser(pnode, nchild[pnode], f_len[d, tp], upd_mode, regrets, cum,
                              weight, dpos, dneg, davg, clip, f_reach[d, tp], f_val[d],
                              f_sig[d], f_q[d], f_idx[d])
        entering = False


@jit
def _prepare_decision(node, p, first, nchild, aoff, alen, ent, offs, lens, pol_mode, regrets,
                      cum, given, sig, idx):
    """For each hand slot of the actor's range and each child: the entry of the
    (infoset, action) pair or -1 when the action is illegal for that hand, and the
    actor's policy ``sig``."""
    m = nchild[node]
    f = first[node]
    lp = lens[p]
    op = offs[p]
    for k in range(m):
        c = f + k
        j = 0
        cl = alen[c]
        co = aoff[c]
        for i in range(lp):
            if j < cl and ent[co + j] == ent[op + i]:
                idx[i, k] = co + j
                j += 1
            else:
                idx[i, k] = -1
    for i in range(lp):
        s = 0.0
        nleg = 0
        for k in range(m):
            e = idx[i, k]
            if e < 0:
                continue
            nleg += 1
            if pol_mode == 0:
                r = regrets[e]
                if r > RM_TOLERANCE:
                    s += r
            elif pol_mode == 1:
                s += cum[e]
            else:
                s += given[e]
        for k in range(m):
            e = idx[i, k]
            if e < 0:
                sig[i, k] = 0.0
                continue
            if pol_mode == 0:
                r = regrets[e]
                w = r if r > RM_TOLERANCE else 0.0
            elif pol_mode == 1:
                w = cum[e]
            else:
                w = given[e]
            if pol_mode == 2:
                sig[i, k] = w
            elif s > 0.0:
                sig[i, k] = w / s
            else:
                sig[i, k] = 1.0 / nleg


@jit
def _descend(kind, player, first, nchild, prob, aoff, alen, ent, none_hand, n, tp, d, f_node,
             f_k, f_off, f_len, f_reach, f_sig, f_idx):
    """Push child ``f_k[d]`` of frame ``d``; returns (new depth, entering)."""
    node = f_node[d]
    k = f_k[d]
    pk = kind[node]
    c = first[node] + k
    nd = d + 1
    f_node[nd] = c
    for s in range(n):
        f_off[nd, s] = f_off[d, s]
        f_len[nd, s] = f_len[d, s]
    if pk == KIND_DEAL:
        H = none_hand
        for s in range(n):
            f_off[nd, s] = 1
            f_len[nd, s] = H
            r0 = f_reach[d, s, 0]
            for i in range(H):
                f_reach[nd, s, i] = r0
    elif pk == KIND_CHANCE:
        # the chance probability belongs to every seat's counterfactual reach but
        # not to the traverser's own: put it on one other seat (values are linear
        # in each seat's reach)
        other = (tp + 1) % n
        for s in range(n):
            sc = prob[c] if s == other else 1.0
            for i in range(f_len[d, s]):
                f_reach[nd, s, i] = f_reach[d, s, i] * sc
    else:
        p = player[node]
        for s in range(n):
            if s == p:
                continue
            for i in range(f_len[d, s]):
                f_reach[nd, s, i] = f_reach[d, s, i]
        base = aoff[c]
        f_off[nd, p] = base
        f_len[nd, p] = alen[c]
        for i in range(f_len[d, p]):
            e = f_idx[d, i, k]
            if e >= 0:
                f_reach[nd, p, e - base] = f_reach[d, p, i] * f_sig[d, i, k]
    return nd, True


@jit
def _finish_traverser(node, m, lt, upd_mode, regrets, cum, weight, dpos, dneg, davg, clip,
                      reach_self, val, sig, q, idx):
    for i in range(lt):
        if upd_mode == 2:
            # a hand left with no action had all of them cut as impossible
            # (no deal gives it beside the others' ranges): value 0
            best = 0.0
            found = False
            for k in range(m):
                if idx[i, k] >= 0 and (not found or q[i, k] > best):
                    best = q[i, k]
                    found = True
            val[i] = best
            continue
        v = 0.0
        for k in range(m):
            if idx[i, k] >= 0:
                v += sig[i, k] * q[i, k]
        val[i] = v
        if upd_mode == 1:
            w = weight * reach_self[i]
            for k in range(m):
                e = idx[i, k]
                if e < 0:
                    continue
                r = regrets[e] + (q[i, k] - v)
                if clip and r < 0.0:
                    r = 0.0
                if r > 0.0:
                    r *= dpos
                else:
                    r *= dneg
                regrets[e] = r
                cum[e] = (cum[e] + w * sig[i, k]) * davg


@jit
def subtree_sizes(kind, first, nchild):
    """``int64[num_nodes]``: nodes in each node's subtree (children have larger ids)."""
    n = kind.shape[0]
    size = np.ones(n, np.int64)
    for i in range(n - 1, -1, -1):
        f = first[i]
        for k in range(nchild[i]):
            size[i] += size[f + k]
    return size


@jit
def max_depth(kind, first, nchild):
    """Depth of the deepest node (the root has depth 0)."""
    n = kind.shape[0]
    depth = np.zeros(n, np.int64)
    best = 0
    for i in range(n):
        f = first[i]
        for k in range(nchild[i]):
            depth[f + k] = depth[i] + 1
            if depth[i] + 1 > best:
                best = depth[i] + 1
    return best


@jit_parallel
def frontier_walks(kind, player, first, nchild, prob, util, aoff, alen, ent, none_hand, pair_p,
                   counts, joint, n, tp, pol_mode, upd_mode, regrets, cum, given, weight, dpos,
                   dneg, davg, clip, frontier, chunk_start, chunk_items, fr_offs, fr_lens,
                   fr_reach, fr_val, s_node, s_k, s_off, s_len, s_reach, s_val, s_sig, s_q,
                   s_idx, visited):
    """The subtrees below the frontier, one ``prange`` chunk per scratch row: chunk
    ``c`` walks frontier nodes ``chunk_items[chunk_start[c]:chunk_start[c+1]]``.
    Subtrees share no entries, so the regret and policy writes never collide."""
    nchunks = chunk_start.shape[0] - 1
    empty = np.empty(0, np.int64)
    for c in numba.prange(nchunks):
        v = 0
        for t in range(chunk_start[c], chunk_start[c + 1]):
            f = chunk_items[t]
            v += walk(kind, player, first, nchild, prob, util, aoff, alen, ent, none_hand,
                      pair_p, counts, joint, n, tp, pol_mode, upd_mode, regrets, cum, given,
                      weight, dpos, dneg, davg, clip, frontier[f], fr_offs[f], fr_lens[f],
                      fr_reach[f], empty, 0, fr_offs, fr_lens, fr_reach, fr_val, s_node[c],
                      s_k[c], s_off[c], s_len[c], s_reach[c], s_val[c], s_sig[c], s_q[c],
                      s_idx[c], fr_val[f])
        visited[c] = v


@jit
def normalize_entries(kind, player, first, nchild, aoff, alen, ent, num_hands, n, weights, out):
    """Per information set (decision node, hand of the actor): ``out[e] = weights[e] /
    sum`` over the hand's legal actions, uniform where the sum is 0."""
    acc = np.zeros(num_hands + 1)
    cnt = np.zeros(num_hands + 1, np.int64)
    for node in range(kind.shape[0]):
        if kind[node] != KIND_DECISION:
            continue
        f = first[node]
        m = nchild[node]
        for k in range(m):
            c = f + k
            for j in range(alen[c]):
                e = aoff[c] + j
                acc[ent[e]] = 0.0
                cnt[ent[e]] = 0
        for k in range(m):
            c = f + k
            for j in range(alen[c]):
                e = aoff[c] + j
                acc[ent[e]] += weights[e]
                cnt[ent[e]] += 1
        for k in range(m):
            c = f + k
            for j in range(alen[c]):
                e = aoff[c] + j
                h = ent[e]
                out[e] = weights[e] / acc[h] if acc[h] > 0.0 else 1.0 / cnt[h]
