"""Team best responses for four players on the public tree: pooled and alternating.

In ``vitou`` and ``vitou_cason`` two partners share one return (R8.1), so what a
team can gain against the other team's fixed policy is a two-player question.
Two bounds bracket it:

- **pooled (upper bound)**: the partners act as one player who sees both their
  hands. Its private state is the pair of hands, and its best response is a max,
  per public decision node of either partner and per pair of hands in the two
  ranges, over the actions legal for the acting partner's hand. No pair of
  partners who see only their own hands can do better (any such team strategy
  is one of the pooled player's strategies).
- **alternating (lower bound)**: each partner in turn takes a best response to
  the other's latest policy (OpenSpiel notes, "Team games"), until the team's
  value stops improving; the value reached is that of a team strategy the
  partners can play, so it is what the team can gain at least.

Both are one pass over the public tree (Johanson, Waugh, Bowling & Zinkevich
2011, section 4, with the team's pair of hands as the private state) holding, at
each public node, the team's values as a matrix over (hand of the team's first
seat, hand of its second seat) and the reach probabilities of the other seats'
hands. Terminal values use the exact joint deal probability of four hands
(card removal, :func:`~vitou_ai.solvers.public.tree.joint_deal_probability`),
summed over the opponents' pairs of hands grouped by the ranks they hold
together: ``P = c * prod_s f(h_s) * prod_r g(K_r)`` with ``K_r`` the copies of
rank ``r`` in the four hands, so only the combined counts of each pair matter.

The same pass with one seat responding and its partner fixed is the seat's
best response (NashConv), and with nobody responding the team's expected value;
:func:`team_value` and :func:`seat_best_response` (so the alternating bound and
NashConv) run these on :mod:`vitou_ai.solvers.public.cfr`'s single-seat range
passes instead (both cores, no matrices over pairs; equal in the tests), so only
the pooled response pays for the matrices. A decision's terminal children are
valued together, not entered (:func:`_visit`). Units: points per deal (R8.1),
team ``t``'s return.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._numba import jit
from ...capabilities import require
from .tree import (
    KIND_CHANCE,
    KIND_DEAL,
    KIND_DECISION,
    KIND_TERMINAL,
    PublicTree,
    check_entry_array,
)

MODE_VALUE = 0  # both partners play the given policy
MODE_SEAT = 1  # one partner best-responds (``responder``), the other plays the policy
MODE_POOLED = 2  # the partners best-respond together, seeing both hands


@dataclass(frozen=True)
class TeamBracket:
    """What team ``team`` can gain against the other team's fixed policy, bracketed.

    Attributes:
        team: 0 (seats 0 and 2) or 1 (seats 1 and 3).
        value: the team's expected return under the policy (points per deal).
        alternating: the team's value after alternating partners' best responses
            (a lower bound on the best team response).
        pooled: the value of the pooled best response (an upper bound).
        rounds: partner best responses taken by the alternation.
    """

    team: int
    value: float
    alternating: float
    pooled: float
    rounds: int

    @property
    def gain_lower(self) -> float:
        return self.alternating - self.value

    @property
    def gain_upper(self) -> float:
        return self.pooled - self.value


def _pair_sums(tree: PublicTree) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Combined counts of pairs of hands, and the deal probability's factors.

    Returns:
        key: ``int64[H, H]``, index of the rank counts of hands ``i`` and ``j`` together;
        weight: ``float64[H]``, ``f(h) = 1 / prod_r k_r!`` for each hand;
        cross: ``float64[K, K]``, ``prod_r g(K_r)`` for two pairs' combined counts
            (``g(k) = copies! / (copies - k)!``, 0 beyond the copies);
        scale: ``float64[1]``, ``c = 1 / multinomial(N; h, h, h, h, N - 4h)``.
    """
    from .cfr import joint_factors

    joint = joint_factors(tree)
    H = tree.num_hands
    sums: dict[tuple[int, ...], int] = {}
    key = np.zeros((H, H), np.int64)
    for i in range(H):
        for j in range(H):
            key[i, j] = sums.setdefault(tuple(tree.counts[i] + tree.counts[j]), len(sums))
    vecs = np.array(list(sums), np.int64)
    K = len(vecs)
    cross = np.ones((K, K))
    for r in range(vecs.shape[1]):
        cross *= joint[0][vecs[:, r][:, None] + vecs[:, r][None, :]]
    return key, joint[1, :H].copy(), cross, np.array([joint[2, 0]])


@jit
def _pair_values(la, lb, oa, ob, oc, lc, vc, od, ld, vd, ent, key, weight, cross, scale, u, wo,
                 go, nzq, out):
    """A terminal's values for the team's pairs of hands into ``out[:la, :lb]``: return
    ``u`` times the exact deal probability summed over the opponents' pairs of hands
    (ranges ``ent[oc:oc+lc]`` / ``ent[od:od+ld]`` with weights ``vc`` / ``vd``, their
    reach, or any linear combination of reaches), grouped by the ranks the pair holds
    together (module docstring)."""
    for q in range(wo.shape[0]):
        wo[q] = 0.0
    for k in range(lc):
        rc = vc[k]
        if rc == 0.0:
            continue
        hc = ent[oc + k]
        rc *= weight[hc]
        for m in range(ld):
            rd = vd[m]
            if rd != 0.0:
                hd = ent[od + m]
                wo[key[hc, hd]] += rc * rd * weight[hd]
    # the opponents' pair sums they reach, ascending (the same sum as over all K,
    # without its zero terms)
    nq = 0
    for q in range(wo.shape[0]):
        if wo[q] != 0.0:
            nzq[nq] = q
            nq += 1
    for q in range(go.shape[0]):
        go[q] = np.nan  # not computed yet
    for i in range(la):
        ha = ent[oa + i]
        for j in range(lb):
            hb = ent[ob + j]
            t = key[ha, hb]
            if np.isnan(go[t]):
                acc = 0.0
                for x in range(nq):
                    q = nzq[x]
                    acc += cross[t, q] * wo[q]
                go[t] = acc
            out[i, j] = u * scale[0] * weight[ha] * weight[hb] * go[t]


@jit
def _visit(node, d, kind, player, first, nchild, prob, util, aoff, alen, ent, pslot, none_hand,
           team, mode, responder, given, br, key, weight, cross, scale, offs, lens, reach, V,
           has, bestq, beste, wo, go, nzq, S, merge):
    """Value matrix of ``node`` into ``V[d, :len_a, :len_b]`` (module docstring); seat
    ranges ``offs[d]`` / ``lens[d]``, reach ``reach[d]``. Returns nodes visited."""
    A = team
    B = team + 2
    C = 1 - team
    D = 3 - team
    la = lens[d, A]
    lb = lens[d, B]
    k_ = kind[node]
    visited = 1
    if k_ == KIND_TERMINAL:
        u = util[node] if team == 0 else -util[node]
        if ent[offs[d, A]] == none_hand:
            V[d, 0, 0] = u * reach[d, C, 0] * reach[d, D, 0]
            return visited
        _pair_values(la, lb, offs[d, A], offs[d, B], offs[d, C], lens[d, C], reach[d, C],
                     offs[d, D], lens[d, D], reach[d, D], ent, key, weight, cross, scale, u, wo,
                     go, nzq, V[d])
        return visited
    # one integer type for the node in every recursive call: with ``first`` in 32
    # bits, ``first[node]`` (int32) and ``f + k`` (int64) made two overloads calling
    # each other, which segfaulted once loaded from numba's on-disk cache
    f = np.int64(first[node])
    m_ = nchild[node]
    nd = d + 1
    if k_ == KIND_DEAL:
        for s in range(4):
            offs[nd, s] = 1
            lens[nd, s] = none_hand
            r0 = reach[d, s, 0]
            for i in range(none_hand):
                reach[nd, s, i] = r0
        visited += _visit(f, nd, kind, player, first, nchild, prob, util, aoff, alen, ent, pslot,
                          none_hand, team, mode, responder, given, br, key, weight, cross, scale,
                          offs, lens, reach, V, has, bestq, beste, wo, go, nzq, S, merge)
        acc = 0.0
        for i in range(none_hand):
            for j in range(none_hand):
                acc += V[nd, i, j]
        V[d, 0, 0] = acc
        return visited
    for i in range(la):
        for j in range(lb):
            V[d, i, j] = 0.0
    if k_ == KIND_CHANCE:
        for k in range(m_):
            c = f + k
            for s in range(4):
                offs[nd, s] = offs[d, s]
                lens[nd, s] = lens[d, s]
                for i in range(lens[d, s]):
                    reach[nd, s, i] = reach[d, s, i]
            visited += _visit(c, nd, kind, player, first, nchild, prob, util, aoff, alen, ent,
                              pslot, none_hand, team, mode, responder, given, br, key, weight,
                              cross, scale, offs, lens, reach, V, has, bestq, beste, wo, go, nzq,
                              S, merge)
            for i in range(la):
                for j in range(lb):
                    V[d, i, j] += prob[c] * V[nd, i, j]
        return visited
    p = player[node]
    ours = p == A or p == B
    respond = ours and (mode == MODE_POOLED or (mode == MODE_SEAT and p == responder))
    lp = lens[d, p]
    if respond:
        for i in range(lp):
            has[d, i] = 0
    # terminal children (most nodes) are valued together, not entered: below a partner
    # the opponents' reach is the same in all of them, so one matrix S[d] of the
    # terminal's values per unit return serves them all; below an opponent the
    # children add up, and their sum is one terminal pass with the opponent's reach
    # weighted by its policy times each child's return (values are linear in it)
    merged = merge and ent[offs[d, A]] != none_hand
    s_done = False
    opp_terminals = False
    for k in range(m_):
        c = f + k
        if merged and kind[c] == KIND_TERMINAL:
            visited += 1
            if not ours:
                opp_terminals = True
                continue
            if not s_done:
                _pair_values(la, lb, offs[d, A], offs[d, B], offs[d, C], lens[d, C],
                             reach[d, C], offs[d, D], lens[d, D], reach[d, D], ent, key, weight,
                             cross, scale, 1.0, wo, go, nzq, S[d])
                s_done = True
            u = util[c] if team == 0 else -util[c]
            if p == A:
                for j in range(alen[c]):
                    i = pslot[aoff[c] + j]
                    for y in range(lb):
                        V[nd, j, y] = u * S[d, i, y]
            else:
                for j in range(alen[c]):
                    i = pslot[aoff[c] + j]
                    for x in range(la):
                        V[nd, x, j] = u * S[d, x, i]
        else:
            for s in range(4):
                offs[nd, s] = offs[d, s]
                lens[nd, s] = lens[d, s]
                if s != p:
                    for i in range(lens[d, s]):
                        reach[nd, s, i] = reach[d, s, i]
            offs[nd, p] = aoff[c]
            lens[nd, p] = alen[c]
            for j in range(alen[c]):
                e = aoff[c] + j
                reach[nd, p, j] = reach[d, p, pslot[e]] * (1.0 if respond else given[e])
            visited += _visit(c, nd, kind, player, first, nchild, prob, util, aoff, alen, ent,
                              pslot, none_hand, team, mode, responder, given, br, key, weight,
                              cross, scale, offs, lens, reach, V, has, bestq, beste, wo, go, nzq,
                              S, merge)
        if not respond:
            if not ours:
                # an opponent: its policy is in its reach already
                for x in range(la):
                    for y in range(lb):
                        V[d, x, y] += V[nd, x, y]
                continue
            # a partner playing the policy: the child's values weighted by its action
            for j in range(alen[c]):
                e = aoff[c] + j
                i = pslot[e]
                g = given[e]
                if g == 0.0:
                    continue
                if p == A:
                    for y in range(lb):
                        V[d, i, y] += g * V[nd, j, y]
                else:
                    for x in range(la):
                        V[d, x, i] += g * V[nd, x, j]
        elif mode == MODE_POOLED:
            # the pooled player: a max per pair of hands
            for j in range(alen[c]):
                i = pslot[aoff[c] + j]
                first_here = has[d, i] == 0
                has[d, i] = 1
                if p == A:
                    for y in range(lb):
                        if first_here or V[nd, j, y] > V[d, i, y]:
                            V[d, i, y] = V[nd, j, y]
                else:
                    for x in range(la):
                        if first_here or V[nd, x, j] > V[d, x, i]:
                            V[d, x, i] = V[nd, x, j]
        else:
            # one partner responds for its own hand: its counterfactual value sums the
            # partner's hands weighted by the partner's reach; the first best action wins
            for j in range(alen[c]):
                e = aoff[c] + j
                i = pslot[e]
                val = 0.0
                if p == A:
                    for y in range(lb):
                        val += reach[d, B, y] * V[nd, j, y]
                else:
                    for x in range(la):
                        val += reach[d, A, x] * V[nd, x, j]
                if has[d, i] == 0 or val > bestq[d, i]:
                    has[d, i] = 1
                    bestq[d, i] = val
                    beste[d, i] = e
                    if p == A:
                        for y in range(lb):
                            V[d, i, y] = V[nd, j, y]
                    else:
                        for x in range(la):
                            V[d, x, i] = V[nd, x, j]
    if opp_terminals:
        # the opponent's reach times sum over its terminal actions of policy x return
        z = reach[nd, p]  # free scratch: every child is done
        for i in range(lp):
            z[i] = 0.0
        for k in range(m_):
            c = f + k
            if kind[c] != KIND_TERMINAL:
                continue
            u = util[c] if team == 0 else -util[c]
            for j in range(alen[c]):
                e = aoff[c] + j
                z[pslot[e]] += u * given[e]
        for i in range(lp):
            z[i] *= reach[d, p, i]
        if p == C:
            _pair_values(la, lb, offs[d, A], offs[d, B], offs[d, C], lp, z, offs[d, D],
                         lens[d, D], reach[d, D], ent, key, weight, cross, scale, 1.0, wo, go,
                         nzq, V[nd])
        else:
            _pair_values(la, lb, offs[d, A], offs[d, B], offs[d, C], lens[d, C], reach[d, C],
                         offs[d, D], lp, z, ent, key, weight, cross, scale, 1.0, wo, go, nzq,
                         V[nd])
        for x in range(la):
            for y in range(lb):
                V[d, x, y] += V[nd, x, y]
    if respond and mode == MODE_SEAT:
        last = f + m_ - 1
        for e in range(aoff[f], aoff[last] + alen[last]):
            br[e] = 0.0
        for i in range(lp):
            if has[d, i] == 1:
                br[beste[d, i]] = 1.0
    return visited


@jit
def _entry_seats(kind, player, first, nchild, aoff, alen, num_entries):
    """``int8[num_entries]``: the seat acting at the decision each entry belongs to
    (-1 for the full and "not dealt" ranges)."""
    out = np.full(num_entries, -1, np.int8)
    for node in range(kind.shape[0]):
        if kind[node] != KIND_DECISION:
            continue
        for k in range(nchild[node]):
            c = first[node] + k
            for e in range(aoff[c], aoff[c] + alen[c]):
                out[e] = player[node]
    return out


class TeamPasses:
    """Scratch and pair tables for the team passes over one four-player public tree.

    ``merge_terminals`` (default): a decision's terminal children are valued together
    (:func:`_visit`); ``False`` enters each one, the slower reference the tests and
    ``benchmarks/bench_team_passes.py`` compare with.

    Raises:
        ValueError: a tree of two players (a team is one player there: use
            :func:`vitou_ai.solvers.public.cfr.best_response_value`).
    """

    def __init__(self, tree: PublicTree, merge_terminals: bool = True):
        from .kernels import max_depth

        require("team_bracket", tree.params)
        if tree.num_players != 4:
            raise ValueError(f"team best responses need four players, the tree has "
                             f"{tree.num_players}")
        self.tree = t = tree
        self.merge_terminals = bool(merge_terminals)
        self.key, self.weight, self.cross, self.scale = _pair_sums(t)
        depth = int(max_depth(t.kind, t.first, t.nchild)) + 2
        H1 = t.num_hands + 1
        K = self.cross.shape[0]
        self.offs = np.zeros((depth, 4), np.int64)
        self.lens = np.zeros((depth, 4), np.int64)
        self.reach = np.zeros((depth, 4, H1))
        self.V = np.zeros((depth, H1, H1))
        self.S = np.zeros((depth, H1, H1))
        self.has = np.zeros((depth, H1), np.int64)
        self.bestq = np.zeros((depth, H1))
        self.beste = np.zeros((depth, H1), np.int64)
        self.wo = np.zeros(K)
        self.go = np.zeros(K)
        self.nzq = np.zeros(K, np.int64)
        self.seat_of_entry = _entry_seats(t.kind, t.player, t.first, t.nchild, t.actor_off,
                                          t.actor_len, t.num_entries)
        self.nodes_visited = 0
        self._seat_passes = None

    @property
    def seat_passes(self):
        """The single-seat range passes (:class:`~vitou_ai.solvers.public.cfr.PublicPasses`,
        both cores) for the team's value and one seat's best response: the same values
        as this class's ``MODE_VALUE`` / ``MODE_SEAT`` passes (tests) without the
        matrices over pairs of hands, 10–25 times faster on 2-card trees."""
        if self._seat_passes is None:
            from .cfr import PublicPasses

            self._seat_passes = PublicPasses(self.tree)
        return self._seat_passes

    def run(self, team: int, mode: int, responder: int, policy: np.ndarray
            ) -> tuple[float, np.ndarray]:
        """One pass: (team ``team``'s value, the responder's pure best response as
        ``float64[num_entries]``, 1 on its chosen entries, only in ``MODE_SEAT``)."""
        t = self.tree
        policy = _check(t, policy, team)
        br = np.zeros(t.num_entries)
        self.offs[0] = 0
        self.lens[0] = 1
        self.reach[0, :, 0] = 1.0
        self.nodes_visited += _visit(
            0, 0, t.kind, t.player, t.first, t.nchild, t.prob, t.util, t.actor_off, t.actor_len,
            t.entries, t.parent_slot, t.num_hands, team, mode, responder, policy, br, self.key,
            self.weight, self.cross, self.scale, self.offs, self.lens, self.reach, self.V,
            self.has, self.bestq, self.beste, self.wo, self.go, self.nzq, self.S,
            self.merge_terminals)
        return float(self.V[0, 0, 0]), br


def _passes(tree: PublicTree, passes: TeamPasses | None) -> TeamPasses:
    return passes if passes is not None else TeamPasses(tree)


def _check(tree: PublicTree, policy: np.ndarray, team: int) -> np.ndarray:
    if team not in (0, 1):
        raise ValueError(f"team must be 0 or 1, not {team}")
    return check_entry_array(tree, policy)


def team_value(tree: PublicTree, policy: np.ndarray, team: int,
               passes: TeamPasses | None = None) -> float:
    """Team ``team``'s expected return when all four seats play ``policy``
    (``float64[num_entries]``); points per deal. One single-seat range pass
    (:attr:`TeamPasses.seat_passes`; ``passes.run(team, MODE_VALUE, -1, policy)`` is
    the same value by the team pass)."""
    from . import kernels as PK

    policy = _check(tree, policy, team)
    v0 = float(_passes(tree, passes).seat_passes.run(0, PK.POLICY_GIVEN, PK.UPDATE_NONE,
                                                      np.zeros(0), np.zeros(0), policy)[0])
    return v0 if team == 0 else -v0


def seat_best_response(tree: PublicTree, policy: np.ndarray, seat: int,
                       passes: TeamPasses | None = None) -> tuple[float, np.ndarray]:
    """``seat``'s best response to the three others playing ``policy``, by one
    single-seat range pass (:attr:`TeamPasses.seat_passes`; the team pass
    ``passes.run(seat % 2, MODE_SEAT, seat, policy)`` gives the same).

    Returns:
        (value, policy'): the value (``seat``'s team's return, points per deal) and a
        copy of ``policy`` with ``seat``'s entries replaced by the pure best response
        (first best action on ties).
    """
    from . import kernels as PK

    if seat not in range(4):
        raise ValueError(f"seat must be 0 to 3, not {seat}")
    policy = _check(tree, policy, seat % 2)
    ps = _passes(tree, passes)
    br = np.zeros(tree.num_entries)
    v = float(ps.seat_passes.run(seat, PK.POLICY_GIVEN, PK.UPDATE_BR_POLICY, br, np.zeros(0),
                                 policy)[0])
    out = policy.copy()
    mine = ps.seat_of_entry == seat
    out[mine] = br[mine]
    return v, out


def pooled_best_response_value(tree: PublicTree, policy: np.ndarray, team: int,
                               passes: TeamPasses | None = None) -> float:
    """The value of team ``team``'s pooled best response (partners who see both hands)
    to the other team playing ``policy``; points per deal."""
    return _passes(tree, passes).run(team, MODE_POOLED, -1, policy)[0]


def alternating_best_response(tree: PublicTree, policy: np.ndarray, team: int,
                              max_rounds: int = 20, tol: float = 1e-12,
                              passes: TeamPasses | None = None) -> tuple[float, int]:
    """Partners ``team`` and ``team + 2`` take best responses in turn, each to the
    other's latest, until the team's value stops improving by more than ``tol``
    (as :func:`vitou_ai.solvers.flat.evaluate.team_best_response` on the flat tree).

    Returns:
        (value, rounds): the team's best value reached and the responses taken.
    """
    ps = _passes(tree, passes)
    value = team_value(tree, policy, team, ps)
    current = policy
    rounds = 0
    seats = (team, team + 2)
    for r in range(max_rounds):
        v, current = seat_best_response(tree, current, seats[r % 2], ps)
        rounds += 1
        improved = v > value + tol
        value = max(value, v)
        if not improved and r >= 1:
            break
    return value, rounds


def team_bracket(tree: PublicTree, policy: np.ndarray, team: int, max_rounds: int = 20,
                 passes: TeamPasses | None = None) -> TeamBracket:
    """Team ``team``'s value under ``policy``, and the alternating (lower) and pooled
    (upper) bounds on its best response to the other team's part of ``policy``.

    Args:
        tree: a four-player public tree (:func:`~vitou_ai.solvers.public.tree.build_public_tree`).
        policy: ``float64[tree.num_entries]``, every seat's policy (e.g.
            :func:`~vitou_ai.solvers.public.cfr.entry_policy`).
        team: 0 (seats 0, 2) or 1 (seats 1, 3).
        max_rounds: rounds of the alternating partners' best responses.
        passes: the tree's team passes, if already made (reused across calls).

    Returns:
        :class:`TeamBracket`, in points per deal.

    Examples:
        >>> import numpy as np
        >>> import vitou_ai
        >>> from vitou_ai.solvers.public.cfr import entry_policy
        >>> params = vitou_ai.VitouParams(profile="vitou_cason", ranks=4, copies=2, hand_size=1,
        ...                               dealer=-1)
        >>> tree = vitou_ai.build_public_tree(params)
        >>> b = vitou_ai.team_bracket(tree, entry_policy(tree, np.zeros(tree.num_entries)), team=0)
        >>> bool(b.value <= b.alternating <= b.pooled + 1e-12)
        True
    """
    ps = _passes(tree, passes)
    value = team_value(tree, policy, team, ps)
    alt, rounds = alternating_best_response(tree, policy, team, max_rounds, passes=ps)
    pooled = pooled_best_response_value(tree, policy, team, ps)
    return TeamBracket(team, value, alt, pooled, rounds)


def nash_conv(tree: PublicTree, policy: np.ndarray, passes: TeamPasses | None = None) -> float:
    """``sum_p (BR_p - u_p)`` over the four seats (OpenSpiel's definition), by the team
    passes; points per deal."""
    ps = _passes(tree, passes)
    u = [team_value(tree, policy, t, ps) for t in (0, 1)]
    return float(sum(seat_best_response(tree, policy, p, ps)[0] - u[p % 2] for p in range(4)))
