"""Numba passes over a :class:`~vitou_ai.solvers.flat.tree.GameTree`: reach
probabilities (forward), values and regrets (backward), regret matching,
best responses. Tables are ``float64[num_infosets, MAX_INFOSET_ACTIONS]``;
slots past an infoset's ``is_nact`` are unused (kept at 0).

No ``fastmath``: regrets and utilities are sums where order matters.
"""

from __future__ import annotations

from ..._numba import jit
from .tree import KIND_CHANCE, KIND_TERMINAL

#: Cumulative regrets at most this count as 0 in regret matching. When two actions
#: are worth exactly the same, their regrets are 0 in exact arithmetic but a
#: rounding residual of either sign in floating point (about 1e-19 here), and
#: plain regret matching would jump to a pure policy on that residual; the flat
#: and public-tree solvers sum in different orders, so without this floor they
#: part ways on exact ties. Points per deal times probabilities: genuine
#: regrets this small move the exploitability by less than 1e-13.
RM_TOLERANCE = 1e-14


@jit
def utility_sign(num_players, p):
    """Terminal utilities are team 0's; seat ``p`` gets ``+util`` or ``-util`` (R8.1)."""
    return 1.0 if p % 2 == 0 else -1.0


@jit
def regret_matching(regrets, is_nact, policy):
    """Current policy from cumulative regrets (Zinkevich et al. 2007, eq. 8;
    uniform when no regret exceeds ``RM_TOLERANCE``), written into ``policy``."""
    for i in range(regrets.shape[0]):
        m = is_nact[i]
        s = 0.0
        for a in range(m):
            if regrets[i, a] > RM_TOLERANCE:
                s += regrets[i, a]
        if s > 0.0:
            for a in range(m):
                r = regrets[i, a]
                policy[i, a] = r / s if r > RM_TOLERANCE else 0.0
        else:
            for a in range(m):
                policy[i, a] = 1.0 / m


@jit
def normalize_average(cum, is_nact, out):
    """Average policy from cumulative policy weights (uniform where they are all 0)."""
    for i in range(cum.shape[0]):
        m = is_nact[i]
        s = 0.0
        for a in range(m):
            s += cum[i, a]
        for a in range(m):
            out[i, a] = cum[i, a] / s if s > 0.0 else 1.0 / m


@jit
def forward_reach(kind, player, infoset, first, nchild, prob, policy, p, reach_p, reach_o):
    """Reach probabilities of player ``p`` (``reach_p``) and of everybody else
    including chance (``reach_o``, the counterfactual reach) at every node."""
    reach_p[0] = 1.0
    reach_o[0] = 1.0
    for i in range(kind.shape[0]):
        k = kind[i]
        if k == KIND_TERMINAL:
            continue
        f = first[i]
        m = nchild[i]
        rp = reach_p[i]
        ro = reach_o[i]
        if k == KIND_CHANCE:
            for c in range(m):
                reach_p[f + c] = rp
                reach_o[f + c] = ro * prob[f + c]
        else:
            iset = infoset[i]
            if player[i] == p:
                for c in range(m):
                    reach_p[f + c] = rp * policy[iset, c]
                    reach_o[f + c] = ro
            else:
                for c in range(m):
                    reach_p[f + c] = rp
                    reach_o[f + c] = ro * policy[iset, c]


@jit
def cfr_backward(kind, player, infoset, first, nchild, prob, util, num_players, policy, p,
                 reach_p, reach_o, value, regrets, cum_policy, avg_weight):
    """Values of player ``p`` under ``policy`` (bottom-up), adding p's
    counterfactual regrets and reach-weighted policy (weight ``avg_weight``) at
    each of p's decision nodes (Zinkevich et al. 2007; alternating updates as
    in OpenSpiel's ``CFRSolver``). Returns p's expected value."""
    sign = utility_sign(num_players, p)
    for i in range(kind.shape[0] - 1, -1, -1):
        k = kind[i]
        if k == KIND_TERMINAL:
            value[i] = sign * util[i]
            continue
        f = first[i]
        m = nchild[i]
        v = 0.0
        if k == KIND_CHANCE:
            for c in range(m):
                v += prob[f + c] * value[f + c]
            value[i] = v
            continue
        iset = infoset[i]
        for c in range(m):
            v += policy[iset, c] * value[f + c]
        value[i] = v
        if player[i] == p:
            cf = reach_o[i]
            w = avg_weight * reach_p[i]
            for c in range(m):
                regrets[iset, c] += cf * (value[f + c] - v)
                cum_policy[iset, c] += w * policy[iset, c]
    return value[0]


@jit
def expected_values(kind, player, infoset, first, nchild, prob, util, policy, value):
    """Team 0's expected return under ``policy`` at every node; returns the root's."""
    for i in range(kind.shape[0] - 1, -1, -1):
        k = kind[i]
        if k == KIND_TERMINAL:
            value[i] = util[i]
            continue
        f = first[i]
        v = 0.0
        if k == KIND_CHANCE:
            for c in range(nchild[i]):
                v += prob[f + c] * value[f + c]
        else:
            iset = infoset[i]
            for c in range(nchild[i]):
                v += policy[iset, c] * value[f + c]
        value[i] = v
    return value[0]


@jit
def best_response(kind, player, infoset, first, nchild, prob, util, num_players, is_player,
                  is_nact, is_depth, policy, p, reach_p, reach_o, value, br_action, q):
    """A best response of player ``p`` to ``policy`` (exact, by backward
    induction over p's information sets, deepest first; perfect recall makes
    every history of an information set equally deep in p's own decisions).

    Writes p's chosen action slot per infoset into ``br_action`` (-1 elsewhere)
    and returns p's best-response value.
    """
    sign = utility_sign(num_players, p)
    forward_reach(kind, player, infoset, first, nchild, prob, policy, p, reach_p, reach_o)
    max_depth = -1
    for j in range(is_player.shape[0]):
        br_action[j] = -1
        if is_player[j] == p and is_depth[j] > max_depth:
            max_depth = is_depth[j]
    for d in range(max_depth, -2, -1):
        if d >= 0:
            for j in range(is_player.shape[0]):
                if is_player[j] == p and is_depth[j] == d:
                    for a in range(is_nact[j]):
                        q[j, a] = 0.0
        for i in range(kind.shape[0] - 1, -1, -1):
            k = kind[i]
            if k == KIND_TERMINAL:
                value[i] = sign * util[i]
                continue
            f = first[i]
            m = nchild[i]
            v = 0.0
            if k == KIND_CHANCE:
                for c in range(m):
                    v += prob[f + c] * value[f + c]
            elif player[i] != p:
                iset = infoset[i]
                for c in range(m):
                    v += policy[iset, c] * value[f + c]
            else:
                iset = infoset[i]
                dd = is_depth[iset]
                if dd > d:
                    v = value[f + br_action[iset]]
                elif dd == d:
                    cf = reach_o[i]
                    for c in range(m):
                        q[iset, c] += cf * value[f + c]
            value[i] = v
        if d >= 0:
            for j in range(is_player.shape[0]):
                if is_player[j] == p and is_depth[j] == d:
                    best = 0
                    for a in range(1, is_nact[j]):
                        if q[j, a] > q[j, best]:
                            best = a
                    br_action[j] = best
    return value[0]


@jit
def discount_dcfr(regrets, cum_policy, is_player, is_nact, p, t, alpha, beta, gamma):
    """Discounted CFR weights for player ``p``'s tables after iteration ``t``
    (Brown & Sandholm 2019, section 3): positive regrets x t^a/(t^a+1),
    negative regrets x t^b/(t^b+1), cumulative policy x (t/(t+1))^g."""
    ta = t**alpha
    pos = ta / (ta + 1.0)
    tb = t**beta
    neg = tb / (tb + 1.0)
    avg = (t / (t + 1.0)) ** gamma
    for i in range(regrets.shape[0]):
        if is_player[i] != p:
            continue
        for a in range(is_nact[i]):
            r = regrets[i, a]
            regrets[i, a] = r * (pos if r > 0.0 else neg)
            cum_policy[i, a] *= avg


@jit
def clip_regrets(regrets):
    """Regret-matching+ (Tammelin 2014): cumulative regrets floored at 0."""
    for i in range(regrets.shape[0]):
        for a in range(regrets.shape[1]):
            if regrets[i, a] < 0.0:
                regrets[i, a] = 0.0


@jit
def predictive_update(regrets, prediction, inst, cum_policy, is_player, is_nact, p, dpos, davg):
    """End of player ``p``'s pass in PCFR+ / PDCFR+ (Farina, Kroer & Sandholm 2021;
    Xu et al. 2024; :mod:`vitou_ai.solvers.flat.cfr`): ``regrets = max(regrets + inst, 0) * dpos``,
    ``prediction = inst`` (the instantaneous regrets of the pass, which are then
    cleared for the next pass) and ``cum_policy *= davg``, on p's information sets."""
    for i in range(regrets.shape[0]):
        if is_player[i] != p:
            continue
        for a in range(is_nact[i]):
            r = regrets[i, a] + inst[i, a]
            regrets[i, a] = r * dpos if r > 0.0 else 0.0
            prediction[i, a] = inst[i, a]
            inst[i, a] = 0.0
            cum_policy[i, a] *= davg
