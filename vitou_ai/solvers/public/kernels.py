"""Range-vector passes over a :class:`~vitou_ai.solvers.public.tree.PublicTree` (numba).

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
  removal; :func:`~vitou_ai.solvers.public.tree.joint_deal_probability`);
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
per pass. The predictive variants (``POLICY_PREDICTIVE``: PCFR+, PDCFR+) play
regret matching on ``regrets + given`` and store each entry's instantaneous
regret ``cfv_a - cfv`` into ``given`` as the next iteration's prediction. At a decision where no hand of the actor has two legal actions (the
``forced`` nodes, :func:`forced_nodes`: the play of a last card) every policy is
1 and the regrets stay 0, so the walk skips regret matching and the update
there; the average policy is 1 either way. With two seats, a forced node whose
children are all terminal (``FORCED_LAST``: the deal's last card, about half of
the decisions) is valued by its parent's frame without a frame of its own
(``cfv = u * P * reach`` per hand, the same sums): x1.27 per iteration on the
full game (``benchmarks/bench_public_tree.py``).

One module because :func:`walk` is the one depth-first pass above, a single jitted
function whose CFR, best-response and value modes share its frames, and the other
kernels here (forced nodes, frontier walks, entry normalisation) prepare or split that
pass over the same entry layout.
"""

from __future__ import annotations

import numba
import numpy as np

from ..._numba import jit, jit_parallel
from ..flat.kernels import RM_TOLERANCE
from .tree import KIND_CHANCE, KIND_DEAL, KIND_DECISION, KIND_TERMINAL

POLICY_REGRET = 0  # regret matching on ``regrets`` (the current policy)
POLICY_AVERAGE = 1  # ``cum`` normalised (the average policy)
POLICY_GIVEN = 2  # ``given[e]`` as is
POLICY_PREDICTIVE = 3  # regret matching on ``regrets + given`` (``given``: the prediction,
#                        the last instantaneous regrets, which UPDATE_CFR then overwrites)

UPDATE_NONE = 0  # expected values
UPDATE_CFR = 1  # regrets and cumulative policy of the traverser
UPDATE_BR = 2  # best response of the traverser
UPDATE_BR_POLICY = 3  # the same, and its pure policy into ``regrets`` (1 on the entries
#                       it plays, 0 on the traverser's other entries; first best action)
UPDATE_BR_FIXED = 4  # best response where the traverser's entries with ``regrets[e] >= 0``
#                      are held to that probability (whole information sets: node locking,
#                      :mod:`vitou_ai.solvers.public.lock`); a max over the others

FORCED = 1  # codes of :func:`forced_nodes`
FORCED_LAST = 2

STOP_IGNORE = 0
STOP_RECORD = 1  # at a frontier node: record ranges and reach, return zeros
STOP_READ = 2  # at a frontier node: return the value computed for it



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
def _terminal_value_n(n, tp, u, ent, f_off, f_len, d, f_reach, rd, counts, joint, out, row):
    """Four seats: the sum over the other three ranges of the exact joint deal
    probability, ``P = joint[2,0] * prod_s joint[1, h_s] * prod_r joint[0, K_r]``."""
    others = np.empty(3, np.int64)
    k = 0
    for s in range(n):
        if s != tp:
            others[k] = s
            k += 1
    a, b, c = others[0], others[1], others[2]
    xa, xb, xc = rd[a], rd[b], rd[c]
    offs = f_off[d]
    lens = f_len[d]
    R = counts.shape[1]
    for i in range(lens[tp]):
        hi = ent[offs[tp] + i]
        acc = 0.0
        for ja in range(lens[a]):
            ra = f_reach[xa, a, ja]
            if ra == 0.0:
                continue
            ha = ent[offs[a] + ja]
            for jb in range(lens[b]):
                rb = f_reach[xb, b, jb]
                if rb == 0.0:
                    continue
                hb = ent[offs[b] + jb]
                for jc in range(lens[c]):
                    rc = f_reach[xc, c, jc]
                    if rc == 0.0:
                        continue
                    hc = ent[offs[c] + jc]
                    p = 1.0
                    for r in range(R):
                        p *= joint[0, counts[hi, r] + counts[ha, r] + counts[hb, r]
                                   + counts[hc, r]]
                        if p == 0.0:
                            break
                    if p == 0.0:
                        continue
                    p *= joint[1, hi] * joint[1, ha] * joint[1, hb] * joint[1, hc]
                    acc += p * ra * rb * rc
        out[row, i] = u * acc * joint[2, 0]


@jit
def walk(kind, player, first, nchild, prob, util, aoff, alen, ent, pslot, forced, none_hand, pair_p,
         counts, joint, n, tp, pol_mode, upd_mode, regrets, cum, given, weight, dpos, dneg, davg,
         clip, root, root_offs, root_lens, root_reach, frontier, stop_mode, fr_offs, fr_lens,
         fr_reach, fr_val, f_node, f_k, f_off, f_len, f_rd, f_vr, f_reach, f_val, f_aux, f_cnt,
         f_sig, f_q, out):
    """Walk the subtree of ``root`` depth first for traverser ``tp`` (module docstring).

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
                    else:
                        for i in range(lp):
                            f_aux[d, i] = 0.0
                            f_cnt[d, i] = 0
                        for e in range(E0, E1):
                            if pol_mode == 0:
                                r_ = regrets[e]
                                w = r_ if r_ > RM_TOLERANCE else 0.0
                            elif pol_mode == 3:
                                r_ = regrets[e] + given[e]
                                w = r_ if r_ > RM_TOLERANCE else 0.0
                            elif pol_mode == 1:
                                w = cum[e]
                            else:
                                w = given[e]
                            f_sig[d, e - E0] = w
                            i = pslot[e]
                            f_aux[d, i] += w
                            f_cnt[d, i] += 1
                        if pol_mode != 2:
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
            elif upd_mode >= 2:
                # a hand left with no action had all of them cut as impossible
                # (no deal gives it beside the others' ranges): value 0
                for e in range(E0, E1):
                    i = pslot[e]
                    q = f_q[d, e - E0]
                    if upd_mode == 4 and regrets[e] >= 0.0:
                        # a fixed information set (node locking): its given mix, no max
                        if f_cnt[d, i] == 0:
                            f_aux[d, i] = 0.0
                            f_cnt[d, i] = 1
                        f_aux[d, i] += regrets[e] * q
                    elif f_cnt[d, i] == 0 or q > f_aux[d, i]:
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
                if upd_mode == 1:
                    rs = f_rd[d, tp]
                    for e in range(E0, E1):
                        i = pslot[e]
                        t = e - E0
                        inst = f_q[d, t] - f_aux[d, i]
                        if pol_mode == 3:
                            given[e] = inst  # the next iteration's prediction
                        r_ = regrets[e] + inst
                        if clip and r_ < 0.0:
                            r_ = 0.0
                        if r_ > 0.0:
                            r_ *= dpos
                        else:
                            r_ *= dneg
                        regrets[e] = r_
                        cum[e] = (cum[e] + weight * f_reach[rs, tp, i] * f_sig[d, t]) * davg
            vr = f_vr[d]
            for i in range(lt):
                f_val[vr, i] += f_aux[d, i]
        entering = False


@jit
def forced_nodes(kind, first, nchild, aoff, alen, pslot, num_hands):
    """``int8[num_nodes]``: ``FORCED`` (1) at decision nodes where no hand of the
    actor's range has two legal actions (each hand's one action has probability 1 in
    every policy, its regret stays 0; the walks skip regret matching and the update
    there), ``FORCED_LAST`` (2) where moreover every child is terminal (the last card
    of a deal: valued inline by the parent's frame with two seats), 0 elsewhere."""
    out = np.zeros(kind.shape[0], np.int8)
    seen = np.zeros(num_hands + 1, np.bool_)
    for node in range(kind.shape[0]):
        if kind[node] != KIND_DECISION:
            continue
        f = first[node]
        last = f + nchild[node] - 1
        E0 = aoff[f]
        E1 = aoff[last] + alen[last]
        ok = True
        for e in range(E0, E1):
            if seen[pslot[e]]:
                ok = False
            seen[pslot[e]] = True
        for e in range(E0, E1):
            seen[pslot[e]] = False
        if ok:
            last_card = True
            for k in range(nchild[node]):
                if kind[f + k] != KIND_TERMINAL:
                    last_card = False
            out[node] = FORCED_LAST if last_card else FORCED
    return out


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
def frontier_walks(kind, player, first, nchild, prob, util, aoff, alen, ent, pslot, forced,
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
            v += walk(kind, player, first, nchild, prob, util, aoff, alen, ent, pslot, forced,
                      none_hand, pair_p, counts, joint, n, tp, pol_mode, upd_mode, regrets, cum,
                      given, weight, dpos, dneg, davg, clip, frontier[f], fr_offs[f], fr_lens[f],
                      fr_reach[f], empty, 0, fr_offs, fr_lens, fr_reach, fr_val, s_node[c],
                      s_k[c], s_off[c], s_len[c], s_rd[c], s_vr[c], s_reach[c], s_val[c], s_aux[c],
                      s_cnt[c], s_sig[c], s_q[c], fr_val[f])
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
