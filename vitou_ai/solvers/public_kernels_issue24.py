"""An experimental range walk of issue 24: the current policy stored per entry.

:func:`walk_issue24` is :func:`~vitou_ai.solvers.public_kernels.walk` (main's, the
default and the reference) with two changes, both exact:

- ``UPDATE_CFR_SIGMA``: ``UPDATE_CFR``, and the traverser's new current policy
  (regret matching on the regrets just updated: the same sums in the same order as
  ``POLICY_REGRET`` at the node's entry) written into ``given``, so that the next
  passes read it with ``POLICY_GIVEN`` (copied without the per-hand sums) instead of
  redoing regret matching at every decision node: the same iterates to the bit;
- ``util`` of any numeric dtype holding the returns exactly
  (:func:`~vitou_ai.solvers.public_cfr.compact_returns`: ``int8`` on ``vitou_2p``),
  converted to ``float64`` where it is read.

``PublicCFR(kernel="issue24")`` runs it (with ``stored_policy=True`` the stored
policy). It was not faster on the full ``vitou_2p`` game on the shared machine
(``docs/results/speed.md``, "Where the time goes"), so it is not the default; it is
kept for the benchmark (``benchmarks/bench_public_tree.py``) and its tests.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numba import jit, jit_parallel
from .cfr_kernels import RM_TOLERANCE
from .public_kernels import FORCED_LAST, _frontier_index, _terminal_value_n
from .public_tree import KIND_CHANCE, KIND_DEAL, KIND_DECISION, KIND_TERMINAL

UPDATE_CFR_SIGMA = 4  # UPDATE_CFR, and the traverser's new current policy (regret matching
#                       on the updated regrets) into ``given`` (read with POLICY_GIVEN)


@jit
def walk_issue24(kind, player, first, nchild, prob, util, aoff, alen, ent, pslot, forced, none_hand, pair_p,
         counts, joint, n, tp, pol_mode, upd_mode, regrets, cum, given, weight, dpos, dneg, davg,
         clip, root, root_offs, root_lens, root_reach, frontier, stop_mode, fr_offs, fr_lens,
         fr_reach, fr_val, f_node, f_k, f_off, f_len, f_rd, f_vr, f_reach, f_val, f_aux, f_cnt,
         f_sig, f_q, out):
    """:func:`~vitou_ai.solvers.public_kernels.walk` with ``UPDATE_CFR_SIGMA`` (module
    docstring), ``POLICY_GIVEN`` copied without per-hand sums, and ``util`` of any
    numeric dtype. The rest is that walk's docstring:

    Walk the subtree of ``root`` depth first for traverser ``tp``.

    Terminal children of a decision node are not entered: their values are one
    matrix-vector product per node (the return is public, so at the traverser's
    node every terminal child's values are its return times the same sum over
    the others' reach; at another seat's node the actor's reach, weighted by
    its policy and the children's returns, goes into one such sum). Work at a
    decision is over its (information set, action) entries, not hands x actions.
    Below another seat's decision or a public chance node the traverser's range
    does not change and values add up, so such frames add straight into their
    parent's row of ``f_val`` (``f_vr[d]``); only the children of the
    traverser's decisions and of the deal get rows of their own. The body is one
    function on purpose: numba reference-counts every array handed to a helper,
    atomically, which cost more than the arithmetic here.

    Args:
        root_offs, root_lens: ``int64[n]`` the seats' ranges at ``root`` (slices of ``ent``).
        root_reach: ``float64[n, H+1]`` their reach probabilities.
        frontier: sorted ``int64[F]`` node ids cut off (``stop_mode`` RECORD / READ);
            ``fr_*`` their ranges, reach and values.
        f_*: scratch frames, first axis the depth; seat ``s``'s reach at depth ``d``
            is ``f_reach[f_rd[d, s], s]`` (only the seat that acted is copied), and
            its values add into ``f_val[f_vr[d]]``;
            ``f_sig`` / ``f_q``: policy and child values per entry of the node.
        out: ``float64[H+1]``, the traverser's counterfactual values at ``root``.

    Returns:
        The number of nodes visited (terminal children included).
    """
    d = 0
    f_node[0] = root
    for s in range(n):
        f_off[0, s] = root_offs[s]
        f_len[0, s] = root_lens[s]
        f_rd[0, s] = 0
        f_vr[0] = 0
        for i in range(root_lens[s]):
            f_reach[0, s, i] = root_reach[s, i]
    rd_tmp = np.empty(n, np.int64)
    nz_h = np.empty(f_reach.shape[2], np.int64)
    nz_r = np.empty(f_reach.shape[2])
    visited = 0
    sign = 1.0 if tp % 2 == 0 else -1.0
    entering = True
    k = 0
    while True:
        node = f_node[d]
        k_ = kind[node]
        if entering:
            visited += 1
            lt = f_len[d, tp]
            if stop_mode != 0 and node != root:
                stop = _frontier_index(frontier, node)
                if stop >= 0:
                    if stop_mode == 1:
                        for s in range(n):
                            fr_offs[stop, s] = f_off[d, s]
                            fr_lens[stop, s] = f_len[d, s]
                            r = f_rd[d, s]
                            for i in range(f_len[d, s]):
                                fr_reach[stop, s, i] = f_reach[r, s, i]
                        if f_vr[d] == d:
                            for i in range(lt):
                                f_val[d, i] = 0.0
                    else:
                        vr = f_vr[d]
                        if vr == d:
                            for i in range(lt):
                                f_val[d, i] = 0.0
                        for i in range(lt):
                            f_val[vr, i] += fr_val[stop, i]
                    entering = False
                    continue
            # terminal values, at a terminal node or for a decision's terminal children
            mv_u = 0.0
            mv_out = -1
            for s in range(n):
                rd_tmp[s] = f_rd[d, s]
            p = -1
            E0 = 0
            if k_ == KIND_TERMINAL:
                mv_u = sign * util[node]
                mv_out = d
            else:
                if f_vr[d] == d:
                    for i in range(lt):
                        f_val[d, i] = 0.0
                if k_ == KIND_DECISION:
                    p = player[node]
                    f = first[node]
                    m = nchild[node]
                    last = f + m - 1
                    E0 = aoff[f]
                    E1 = aoff[last] + alen[last]
                    # the actor's policy on each entry (regret matching, average, given)
                    lp = f_len[d, p]
                    if forced[node]:
                        # one action per hand: probability 1 in every policy
                        for e in range(E0, E1):
                            f_sig[d, e - E0] = 1.0
                    elif pol_mode == 2:
                        # as given (with UPDATE_CFR_SIGMA: regret matching, stored)
                        for e in range(E0, E1):
                            f_sig[d, e - E0] = given[e]
                    else:
                        for i in range(lp):
                            f_aux[d, i] = 0.0
                            f_cnt[d, i] = 0
                        for e in range(E0, E1):
                            if pol_mode == 0:
                                r_ = regrets[e]
                                w = r_ if r_ > RM_TOLERANCE else 0.0
                            else:
                                w = cum[e]
                            f_sig[d, e - E0] = w
                            i = pslot[e]
                            f_aux[d, i] += w
                            f_cnt[d, i] += 1
                        for e in range(E0, E1):
                            i = pslot[e]
                            if f_aux[d, i] > 0.0:
                                f_sig[d, e - E0] = f_sig[d, e - E0] / f_aux[d, i]
                            else:
                                f_sig[d, e - E0] = 1.0 / f_cnt[d, i]
                    nterm = 0
                    for kk in range(m):
                        if kind[f + kk] == KIND_TERMINAL:
                            nterm += 1
                    visited += nterm
                    if nterm > 0:
                        nd = d + 1  # the next frame's rows are free scratch here
                        if p == tp:
                            mv_u = 1.0
                            mv_out = nd
                        else:
                            # the actor's reach times sum_a sigma(a) * return(a)
                            for j in range(lp):
                                f_reach[nd, p, j] = 0.0
                            for kk in range(m):
                                c = f + kk
                                if kind[c] != KIND_TERMINAL:
                                    continue
                                u = util[c]
                                for e in range(aoff[c], aoff[c] + alen[c]):
                                    f_reach[nd, p, pslot[e]] += f_sig[d, e - E0] * u
                            r = f_rd[d, p]
                            nz = False
                            for j in range(lp):
                                z = f_reach[r, p, j] * f_reach[nd, p, j] * sign
                                f_reach[nd, p, j] = z
                                if z != 0.0:
                                    nz = True
                            if nz:
                                rd_tmp[p] = nd
                                mv_u = 1.0
                                mv_out = nd
            if mv_out >= 0:
                ot = f_off[d, tp]
                if ent[ot] == none_hand:  # before the deal: one "hand", nothing dealt
                    prod = 1.0
                    for s in range(n):
                        if s != tp:
                            prod *= f_reach[rd_tmp[s], s, 0]
                    f_val[mv_out, 0] = mv_u * prod
                elif n == 2:
                    # the opponent's hands it reaches with probability 0 add exact
                    # zeros: gather the others first (the same sum, term for term)
                    o = 1 - tp
                    oo = f_off[d, o]
                    ro = rd_tmp[o]
                    nnz = 0
                    for j in range(f_len[d, o]):
                        rj = f_reach[ro, o, j]
                        if rj != 0.0:
                            nz_h[nnz] = ent[oo + j]
                            nz_r[nnz] = rj
                            nnz += 1
                    for i in range(lt):
                        hi = ent[ot + i]
                        acc = 0.0
                        for j in range(nnz):
                            acc += pair_p[hi, nz_h[j]] * nz_r[j]
                        f_val[mv_out, i] = mv_u * acc
                else:
                    _terminal_value_n(n, tp, mv_u, ent, f_off, f_len, d, f_reach, rd_tmp, counts,
                                      joint, f_val, mv_out)
                if k_ == KIND_TERMINAL:
                    vr = f_vr[d]
                    if vr != d:
                        for i in range(lt):
                            f_val[vr, i] += f_val[d, i]
                    entering = False
                    continue
                f = first[node]
                if p == tp:
                    for kk in range(nchild[node]):
                        c = f + kk
                        if kind[c] != KIND_TERMINAL:
                            continue
                        u = sign * util[c]
                        for e in range(aoff[c], aoff[c] + alen[c]):
                            f_q[d, e - E0] = u * f_val[mv_out, pslot[e]]
                else:
                    vr = f_vr[d]
                    for i in range(lt):
                        f_val[vr, i] += f_val[mv_out, i]
            k = 0
        else:
            # frame d is done: hand its values to frame d-1
            if d == 0:
                for i in range(f_len[0, tp]):
                    out[i] = f_val[0, i]
                return visited
            child_d = d
            d -= 1
            node = f_node[d]
            k_ = kind[node]
            k = f_k[d]
            c = first[node] + k
            if k_ == KIND_DEAL:
                acc = 0.0
                for i in range(f_len[child_d, tp]):
                    acc += f_val[child_d, i]
                f_val[f_vr[d], 0] += acc
            elif k_ == KIND_DECISION and player[node] == tp:
                base = aoff[c] - aoff[first[node]]
                for j in range(alen[c]):
                    f_q[d, base + j] = f_val[child_d, j]
            # else: the child added into this frame's row already
            k += 1
        # the next child to enter (a decision's terminal children were valued above)
        f = first[node]
        m = nchild[node]
        if k_ == KIND_DECISION:
            while k < m:
                c = f + k
                if kind[c] == KIND_TERMINAL:
                    k += 1
                    continue
                p = player[node]
                q_ = player[c]
                if forced[c] != FORCED_LAST or n != 2 or stop_mode != 0 or q_ == p:
                    break
                # Two seats, the other seat plays its last card into terminals only (most
                # of a deal's decisions): valued here without a frame of its own, as the
                # frame would value it (the same sums, in another order).
                E0 = aoff[f]
                fc = first[c]
                mc = nchild[c]
                visited += 1 + mc
                nnz = 0
                if q_ == tp:
                    # cfv(h) = u(h's card) * sum_j P(h, j) * reach_p(j) * sigma_p(j), added
                    # into this frame's value row (the traverser's range is the same)
                    rp = f_rd[d, p]
                    for e in range(aoff[c], aoff[c] + alen[c]):
                        rj = f_reach[rp, p, pslot[e]] * f_sig[d, e - E0]
                        if rj != 0.0:
                            nz_h[nnz] = ent[e]
                            nz_r[nnz] = rj
                            nnz += 1
                    vr = f_vr[d]
                    for kk in range(mc):
                        cc = fc + kk
                        u = sign * util[cc]
                        for e in range(aoff[cc], aoff[cc] + alen[cc]):
                            hi = ent[e]
                            acc = 0.0
                            for j in range(nnz):
                                acc += pair_p[hi, nz_h[j]] * nz_r[j]
                            f_val[vr, pslot[e]] += u * acc
                            if upd_mode == 3:
                                regrets[e] = 1.0
                else:
                    # the traverser's entries into c: sum_j P(h, j) * reach_q(j) * u(j's card)
                    rq = f_rd[d, q_]
                    for kk in range(mc):
                        cc = fc + kk
                        u = util[cc]
                        for e in range(aoff[cc], aoff[cc] + alen[cc]):
                            z = f_reach[rq, q_, pslot[e]] * u * sign
                            if z != 0.0:
                                nz_h[nnz] = ent[e]
                                nz_r[nnz] = z
                                nnz += 1
                    base = aoff[c] - E0
                    for i in range(alen[c]):
                        hi = ent[aoff[c] + i]
                        acc = 0.0
                        for j in range(nnz):
                            acc += pair_p[hi, nz_h[j]] * nz_r[j]
                        f_q[d, base + i] = acc
                k += 1
        if k < m:
            f_k[d] = k
            c = f + k
            nd = d + 1
            f_node[nd] = c
            for s in range(n):
                f_off[nd, s] = f_off[d, s]
                f_len[nd, s] = f_len[d, s]
                f_rd[nd, s] = f_rd[d, s]
            own = k_ == KIND_DEAL or (k_ == KIND_DECISION and player[node] == tp)
            f_vr[nd] = nd if own else f_vr[d]
            if k_ == KIND_DEAL:
                for s in range(n):
                    f_off[nd, s] = 1
                    f_len[nd, s] = none_hand
                    f_rd[nd, s] = nd
                    r0 = f_reach[f_rd[d, s], s, 0]
                    for i in range(none_hand):
                        f_reach[nd, s, i] = r0
            elif k_ == KIND_CHANCE:
                # the chance probability belongs to every seat's counterfactual reach
                # but not to the traverser's own: put it on one other seat (values
                # are linear in each seat's reach)
                o = (tp + 1) % n
                r = f_rd[d, o]
                f_rd[nd, o] = nd
                for i in range(f_len[d, o]):
                    f_reach[nd, o, i] = f_reach[r, o, i] * prob[c]
            else:
                p = player[node]
                E0 = aoff[f]
                base = aoff[c]
                f_off[nd, p] = base
                f_len[nd, p] = alen[c]
                f_rd[nd, p] = nd
                r = f_rd[d, p]
                for j in range(alen[c]):
                    e = base + j
                    f_reach[nd, p, j] = f_reach[r, p, pslot[e]] * f_sig[d, e - E0]
            d = nd
            entering = True
            continue
        if k_ == KIND_DECISION and player[node] == tp:
            # the traverser's values from its children's, and the CFR update
            last = f + m - 1
            E0 = aoff[f]
            E1 = aoff[last] + alen[last]
            lt = f_len[d, tp]
            for i in range(lt):
                f_aux[d, i] = 0.0
                f_cnt[d, i] = 0
            if forced[node]:
                # one action per hand: its value; regrets stay 0, the average policy 1
                for e in range(E0, E1):
                    f_aux[d, pslot[e]] = f_q[d, e - E0]
                if upd_mode == 3:  # the pure best response plays each hand's one action
                    for e in range(E0, E1):
                        regrets[e] = 1.0
            elif upd_mode == 2 or upd_mode == 3:
                # a hand left with no action had all of them cut as impossible
                # (no deal gives it beside the others' ranges): value 0
                for e in range(E0, E1):
                    i = pslot[e]
                    q = f_q[d, e - E0]
                    if f_cnt[d, i] == 0 or q > f_aux[d, i]:
                        f_aux[d, i] = q
                        f_cnt[d, i] = e - E0 + 1  # the best entry so far, plus 1
                if upd_mode == 3:
                    for e in range(E0, E1):
                        regrets[e] = 0.0
                    for i in range(lt):
                        if f_cnt[d, i] > 0:
                            regrets[E0 + f_cnt[d, i] - 1] = 1.0
            else:
                for e in range(E0, E1):
                    f_aux[d, pslot[e]] += f_sig[d, e - E0] * f_q[d, e - E0]
                if upd_mode == 1 or upd_mode == 4:
                    rs = f_rd[d, tp]
                    nd = d + 1  # free here: the sums of positive regrets per hand
                    if upd_mode == 4:
                        for i in range(lt):
                            f_val[nd, i] = 0.0
                    for e in range(E0, E1):
                        i = pslot[e]
                        t = e - E0
                        r_ = regrets[e] + (f_q[d, t] - f_aux[d, i])
                        if clip and r_ < 0.0:
                            r_ = 0.0
                        if r_ > 0.0:
                            r_ *= dpos
                        else:
                            r_ *= dneg
                        regrets[e] = r_
                        cum[e] = (cum[e] + weight * f_reach[rs, tp, i] * f_sig[d, t]) * davg
                        if upd_mode == 4:
                            f_val[nd, i] += r_ if r_ > RM_TOLERANCE else 0.0
                            f_cnt[d, i] += 1
                    if upd_mode == 4:
                        # regret matching as at the entry of a node with POLICY_REGRET: the
                        # same sums in the same order, so the same policy to the bit
                        for e in range(E0, E1):
                            i = pslot[e]
                            if f_val[nd, i] > 0.0:
                                r_ = regrets[e]
                                given[e] = (r_ if r_ > RM_TOLERANCE else 0.0) / f_val[nd, i]
                            else:
                                given[e] = 1.0 / f_cnt[d, i]
            vr = f_vr[d]
            for i in range(lt):
                f_val[vr, i] += f_aux[d, i]
        entering = False


@jit_parallel
def frontier_walks_issue24(kind, player, first, nchild, prob, util, aoff, alen, ent, pslot, forced,
                   none_hand, pair_p, counts, joint, n, tp, pol_mode, upd_mode, regrets, cum, given, weight,
                   dpos, dneg, davg, clip, frontier, chunk_start, chunk_items, fr_offs, fr_lens,
                   fr_reach, fr_val, s_node, s_k, s_off, s_len, s_rd, s_vr, s_reach, s_val,
                   s_aux, s_cnt, s_sig, s_q, visited):
    """The subtrees below the frontier, one ``prange`` chunk per scratch row: chunk
    ``c`` walks frontier nodes ``chunk_items[chunk_start[c]:chunk_start[c+1]]``.
    Subtrees share no entries, so the regret and policy writes never collide."""
    nchunks = chunk_start.shape[0] - 1
    empty = np.empty(0, np.int64)
    for c in numba.prange(nchunks):
        v = 0
        for t in range(chunk_start[c], chunk_start[c + 1]):
            f = chunk_items[t]
            v += walk_issue24(kind, player, first, nchild, prob, util, aoff, alen, ent, pslot, forced,
                      none_hand, pair_p, counts, joint, n, tp, pol_mode, upd_mode, regrets, cum,
                      given, weight, dpos, dneg, davg, clip, frontier[f], fr_offs[f], fr_lens[f],
                      fr_reach[f], empty, 0, fr_offs, fr_lens, fr_reach, fr_val, s_node[c],
                      s_k[c], s_off[c], s_len[c], s_rd[c], s_vr[c], s_reach[c], s_val[c], s_aux[c],
                      s_cnt[c], s_sig[c], s_q[c], fr_val[f])
        visited[c] = v


@jit
def regret_matching_entries(kind, first, nchild, aoff, alen, ent, num_hands, regrets, out):
    """Per information set (decision node, hand of the actor): ``out[e] = r+(e) / sum``
    over the hand's legal actions, ``r+ = regrets[e]`` above ``RM_TOLERANCE`` else 0,
    uniform where the sum is 0; the current policy as :func:`walk` computes it with
    ``POLICY_REGRET`` (the same sums in the same order), without a temporary table."""
    acc = np.zeros(num_hands + 1)
    cnt = np.zeros(num_hands + 1, np.int64)
    for node in range(kind.shape[0]):
        if kind[node] != KIND_DECISION:
            continue
        f = first[node]
        last = f + nchild[node] - 1
        E0 = aoff[f]
        E1 = aoff[last] + alen[last]
        for e in range(E0, E1):
            acc[ent[e]] = 0.0
            cnt[ent[e]] = 0
        for e in range(E0, E1):
            r_ = regrets[e]
            acc[ent[e]] += r_ if r_ > RM_TOLERANCE else 0.0
            cnt[ent[e]] += 1
        for e in range(E0, E1):
            h = ent[e]
            if acc[h] > 0.0:
                r_ = regrets[e]
                out[e] = (r_ if r_ > RM_TOLERANCE else 0.0) / acc[h]
            else:
                out[e] = 1.0 / cnt[h]
