"""The exact team best response of four-player games: partners who do
not see each other's cards but agree on a joint plan before the deal.

Against the other team's fixed policy, a team whose partners may correlate their plans
(a shared random signal drawn before the deal, as in the team-maxmin equilibrium with
correlation, TMECor: Celli & Gatti, AAAI 2018; Farina, Celli, Gatti & Sandholm, NeurIPS
2018) gets the most from one joint pure plan: the value is linear in the distribution
over joint plans, so a point mass is optimal. This module finds that plan exactly by a
mixed-integer program over the partners' sequence forms (the "integer program" route of
the issue; column generation, Farina et al. ICML 2021, and the team belief DAG, Zhang,
Farina & Sandholm ICML 2023, are the scalable ones):

- one binary ``x`` per sequence (information set, action) of each partner, with the
  sequence-form constraints ``sum_a x(I, a) = x(parent(I))`` (``= 1`` at a first
  decision): a pure plan of each partner (von Stengel 1996);
- each terminal ``z`` contributes ``c_z = chance(z) * opponents(z) * u_team(z)`` times
  ``x_A(sigma_A(z)) * x_B(sigma_B(z))``, the partners' last sequences before ``z``;
  terminals are grouped by that pair, and each pair's product is a continuous
  ``w in [0, 1]`` with ``w <= x_A``, ``w <= x_B`` where the summed coefficient is
  positive and ``w >= x_A + x_B - 1`` where it is negative (exact for binary ``x``);
- maximise ``sum c w`` with HiGHS through :func:`scipy.optimize.milp`.

Its value lies between the two bounds of :func:`vitou_ai.solvers.flat.evaluate.team_bracket`:
at least the alternating partners' best responses (a joint pure plan, found by a local
search) and at most the pooled best response (partners who see both hands). Within a
time limit HiGHS may stop before proving optimality; then :class:`TeamMaxminResult`
holds the best plan found (its value measured again on the tree, a lower bound) and
HiGHS's dual bound (an upper bound), which is still a tighter bracket than the two.

The program grows with the tree: one binary per team sequence and one continuous per
distinct pair of partner sequences reaching a terminal. :func:`program_size` counts
them without solving.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..._numba import jit
from .evaluate import _check_policy, expected_returns, uniform_policy
from .tree import KIND_CHANCE, KIND_TERMINAL, MAX_INFOSET_ACTIONS, GameTree


class TeamMaxminError(ValueError):
    """A tree or policy the team best response cannot take (one line)."""


@dataclass(frozen=True)
class ProgramSize:
    """The integer program's size for one team (:func:`program_size`)."""

    team: int
    binaries: int  # team sequences (x)
    products: int  # distinct pairs of partner sequences with a nonzero coefficient (w)
    rows: int  # sequence-form equalities and product inequalities
    terminals: int  # terminals reached with positive chance and opponents' probability


@dataclass(frozen=True)
class TeamMaxminResult:
    """What team ``team`` gets with its best joint pure plan against the other team,
    given by its policy (:func:`team_maxmin_best_response`) or by its reach probabilities
    (:func:`team_best_response_to_reach`); points per deal for team ``team``.

    Attributes:
        team: 0 (seats 0 and 2) or 1 (seats 1 and 3).
        best: the value of the best joint pure plan found, measured again on the tree
            (:func:`~vitou_ai.solvers.flat.evaluate.expected_returns`, or the sum over
            terminals of chance * the other team's reach * the team's return): a lower
            bound on the exact team best response, equal to it when ``optimal``.
        bound: HiGHS's proven upper bound on it (``>= best``; ``best`` up to the solver's
            tolerances when ``optimal``).
        optimal: HiGHS proved the plan optimal (to ``mip_rel_gap``).
        status: HiGHS's message.
        seconds: wall time of the solve (the program's set-up included).
        size: the program's :class:`ProgramSize`.
        plan: ``float64[num_infosets, 5]``: the policy responded to with the partners'
            rows replaced by the plan (pure; rows the plan never reaches keep a legal
            action); against reach probabilities the other team's rows are uniform
            (placeholders: that team is given by its reach).
        value: the team's expected return under the policy responded to (points per
            deal); ``None`` for a response to reach probabilities (no policy of the team).
    """

    team: int
    best: float
    bound: float
    optimal: bool
    status: str
    seconds: float
    size: ProgramSize
    plan: np.ndarray
    value: float | None = None

    def _value(self) -> float:
        if self.value is None:
            raise TeamMaxminError("a best response to reach probabilities has no policy "
                                  "of the team to gain over (value is None)")
        return self.value

    @property
    def gain(self) -> float:
        """``best - value``: what the team gains (exact when ``optimal``).

        Raises:
            TeamMaxminError: ``value`` is ``None``."""
        return self.best - self._value()

    @property
    def gain_bound(self) -> float:
        """``bound - value``: the most the team can gain (proven).

        Raises:
            TeamMaxminError: ``value`` is ``None``."""
        return self.bound - self._value()


@jit
def _terminal_terms(kind, player, infoset, first, nchild, prob, util, policy, team, seq_off,
                    parent_seq, coef, seq_a, seq_b):
    """One pass in node order (children come after their parent, :func:`tree._build`):
    at each terminal the weight ``chance * opponents``, times the team's return, into
    ``coef``, and the partners' last sequences into ``seq_a`` (seat ``team``) and
    ``seq_b`` (seat ``team + 2``), -1 for none yet. Writes each team information set's
    parent sequence into ``parent_seq`` (-2: not reached). Returns -1, or the first
    information set reached after two different sequences of its player (no perfect
    recall: the sequence form does not apply)."""
    n = kind.shape[0]
    w = np.empty(n)
    sa = np.empty(n, np.int64)
    sb = np.empty(n, np.int64)
    w[0] = 1.0
    sa[0] = -1
    sb[0] = -1
    sign = 1.0 if team == 0 else -1.0
    for i in range(n):
        k = kind[i]
        if k == KIND_TERMINAL:
            coef[i] = sign * w[i] * util[i]
            seq_a[i] = sa[i]
            seq_b[i] = sb[i]
            continue
        f = first[i]
        m = nchild[i]
        if f <= i and m > 0:
            return -3 - i  # not in node order: refused by the caller
        if k == KIND_CHANCE:
            for c in range(m):
                w[f + c] = w[i] * prob[f + c]
                sa[f + c] = sa[i]
                sb[f + c] = sb[i]
            continue
        p = player[i]
        iset = infoset[i]
        if p == team or p == team + 2:
            own = sa[i] if p == team else sb[i]
            if parent_seq[iset] == -2:
                parent_seq[iset] = own
            elif parent_seq[iset] != own:
                return iset
            for c in range(m):
                w[f + c] = w[i]
                if p == team:
                    sa[f + c] = seq_off[iset] + c
                    sb[f + c] = sb[i]
                else:
                    sa[f + c] = sa[i]
                    sb[f + c] = seq_off[iset] + c
        else:
            for c in range(m):
                w[f + c] = w[i] * policy[iset, c]
                sa[f + c] = sa[i]
                sb[f + c] = sb[i]
    return -1


def check_team_game(tree: GameTree, what: str,
                    error: type[ValueError] = TeamMaxminError) -> None:
    """Refuse, in one line, a tree that is not a four-player game of two teams of two
    (seats 0, 2 against 1, 3, R0), for the tool ``what`` (named in the message).

    Raises:
        error: not a flat tree, not four players, or sides each for themselves by the
            game's parameters (Willughby's Put, docs/RULES_family.md P7.0).
        NotTwoTeamsError: a per-seat tree (:meth:`GameTree.require_two_teams`).
    """
    if not isinstance(tree, GameTree):
        raise error(f"{what} runs on the flat game tree "
                    f"(vitou_ai.solvers.flat.tree.build_tree), not {type(tree).__name__}")
    tree.require_two_teams(what)
    if tree.num_players != 4:
        raise error(f"{what} needs four players in two teams of two; the tree has "
                    f"{tree.num_players}")
    if getattr(tree.params, "willughby", False):
        raise error(f"{what} needs two teams of two; {tree.params.profile} has sides "
                    "each for themselves (docs/RULES_family.md P7.0)")


def _check(tree: GameTree, policy: np.ndarray, team: int) -> None:
    check_team_game(tree, "the team-maxmin best response")
    if isinstance(team, bool) or team not in (0, 1):
        raise TeamMaxminError(f"team must be 0 or 1, not {team!r}")
    try:
        _check_policy(tree, policy)
    except ValueError as e:
        raise TeamMaxminError(str(e)) from None


def _check_reach(tree: GameTree, reach: np.ndarray, team: int) -> None:
    _check(tree, uniform_policy(tree) if isinstance(tree, GameTree) else None, team)
    reach = np.asarray(reach)
    if reach.shape != (tree.num_nodes,):
        raise TeamMaxminError(f"reach shape {reach.shape} != ({tree.num_nodes},): one reach "
                              "probability of the other team per node of the tree")
    if not np.all(np.isfinite(reach)) or reach.min() < -1e-12 or reach.max() > 1 + 1e-9:
        raise TeamMaxminError("reach holds values outside [0, 1]: not a reach probability "
                              "of the other team")


@jit
def _team_reach(kind, player, infoset, first, nchild, policy, team, out):
    out[0] = 1.0
    for i in range(kind.shape[0]):
        f = first[i]
        m = nchild[i]
        if kind[i] == KIND_TERMINAL or m == 0:
            continue
        mine = kind[i] != KIND_CHANCE and (player[i] == team or player[i] == team + 2)
        for c in range(m):
            out[f + c] = out[i] * policy[infoset[i], c] if mine else out[i]
    return out


def team_reach(tree: GameTree, policy: np.ndarray, team: int) -> np.ndarray:
    """Team ``team``'s reach probability of every node under ``policy``: the product of
    the probabilities of the partners' (seats ``team``, ``team + 2``) actions on the path,
    chance and the other team left out (the realization weight of the team's joint
    sequence, von Stengel 1996). Linear in a mixture of the team's joint plans, so the
    reach of a correlated mixture is the weighted sum of its plans' reaches: what
    :func:`team_best_response_to_reach` responds to.

    Args:
        tree: a four-player flat tree.
        policy: ``float64[tree.num_infosets, 5]`` (only the team's rows are read).
        team: 0 (seats 0, 2) or 1 (seats 1, 3).

    Returns:
        ``float64[tree.num_nodes]`` in [0, 1]; 0/1 for a pure plan.

    Raises:
        TeamMaxminError: as :func:`team_maxmin_best_response`.
    """
    _check(tree, policy, team)
    return _team_reach(tree.kind, tree.player, tree.infoset, tree.first, tree.nchild,
                       np.ascontiguousarray(policy, np.float64), team,
                       np.empty(tree.num_nodes))


class _Program:
    """The integer program of one team (module docstring), built from one tree pass."""

    def __init__(self, tree: GameTree, policy: np.ndarray, team: int,
                 reach: np.ndarray | None = None):
        """``reach`` (``float64[num_nodes]``, the other team's reach probability at each
        node, read at terminals) replaces the other team's rows of ``policy``, which is
        then ignored: the terms are ``chance * util`` times ``reach``."""
        if reach is None:
            _check(tree, policy, team)
        else:
            _check_reach(tree, reach, team)
            policy = np.ones((tree.num_infosets, MAX_INFOSET_ACTIONS))
        self.tree, self.team = tree, team
        mine = (tree.is_player == team) | (tree.is_player == team + 2)
        nact = np.where(mine, tree.is_nact, 0).astype(np.int64)
        self.seq_off = np.where(mine, np.cumsum(nact) - nact, -1).astype(np.int64)
        self.num_seq = int(nact.sum())
        self.mine = np.nonzero(mine)[0]
        n = tree.num_nodes
        parent = np.full(tree.num_infosets, -2, np.int64)
        coef = np.zeros(n)
        sa = np.full(n, -1, np.int64)
        sb = np.full(n, -1, np.int64)
        bad = _terminal_terms(tree.kind, tree.player, tree.infoset, tree.first, tree.nchild,
                              tree.prob, tree.util, np.ascontiguousarray(policy, np.float64),
                              team, self.seq_off, parent, coef, sa, sb)
        if bad <= -3:
            raise TeamMaxminError(f"node {-3 - bad}'s children come before it: the flat tree "
                                  "is not in the builder's node order")
        if bad >= 0:
            raise TeamMaxminError(f"information set {bad} is reached after two different "
                                  "sequences of its player: no perfect recall, so the "
                                  "sequence form does not apply")
        if reach is not None:
            coef *= reach
        self.coef = coef  # the team's terms per node (terminals; 0 elsewhere)
        self.parent = parent
        term = np.nonzero((tree.kind == KIND_TERMINAL) & (coef != 0.0))[0]
        self.terminals = int(term.size)
        a, b, c = sa[term], sb[term], coef[term]
        self.constant = float(c[(a < 0) & (b < 0)].sum())
        # one-sided terms are linear in that partner's x
        self.linear = np.zeros(self.num_seq)
        one = (a >= 0) != (b >= 0)
        np.add.at(self.linear, np.where(a >= 0, a, b)[one], c[one])
        both = (a >= 0) & (b >= 0)
        pair = a[both] * self.num_seq + b[both]
        keys, inv = np.unique(pair, return_inverse=True)
        pc = np.bincount(inv, weights=c[both], minlength=keys.size)
        keep = pc != 0.0
        self.pair_a = (keys // self.num_seq)[keep]
        self.pair_b = (keys % self.num_seq)[keep]
        self.pair_c = pc[keep]

    @property
    def size(self) -> ProgramSize:
        p = self.pair_c.size
        rows = self.mine.size + 2 * int((self.pair_c > 0).sum()) + int((self.pair_c < 0).sum())
        return ProgramSize(self.team, self.num_seq, p, rows, self.terminals)

    def solve(self, time_limit: float | None, mip_rel_gap: float):
        from scipy.optimize import LinearConstraint, milp
        from scipy.sparse import coo_array

        ns, npair = self.num_seq, self.pair_c.size
        # sequence form: sum_a x(I, a) - x(parent(I)) = [parent is the root]
        rows, cols, vals, lo = [], [], [], []
        tree = self.tree
        for r, iset in enumerate(self.mine):
            off, m = int(self.seq_off[iset]), int(tree.is_nact[iset])
            rows += [r] * m
            cols += list(range(off, off + m))
            vals += [1.0] * m
            par = int(self.parent[iset])
            if par >= 0:
                rows.append(r)
                cols.append(par)
                vals.append(-1.0)
            lo.append(1.0 if par < 0 else 0.0)
        eq_n = len(lo)
        r = eq_n
        pos = np.nonzero(self.pair_c > 0)[0]
        neg = np.nonzero(self.pair_c < 0)[0]
        # w - x_a <= 0 and w - x_b <= 0 where the coefficient is positive
        k = pos.size
        rr = np.arange(r, r + 2 * k)
        rows_arr = [np.asarray(rows, np.int64), np.repeat(rr, 2)]
        wcol = ns + np.concatenate([pos, pos])
        xcol = np.concatenate([self.pair_a[pos], self.pair_b[pos]])
        cols_arr = [np.asarray(cols, np.int64), np.stack([wcol, xcol], 1).ravel()]
        vals_arr = [np.asarray(vals), np.tile([1.0, -1.0], 2 * k)]
        r += 2 * k
        # x_a + x_b - w <= 1 where it is negative
        k = neg.size
        rr = np.arange(r, r + k)
        rows_arr.append(np.repeat(rr, 3))
        cols_arr.append(np.stack([self.pair_a[neg], self.pair_b[neg], ns + neg], 1).ravel())
        vals_arr.append(np.tile([1.0, 1.0, -1.0], k))
        r += k
        A = coo_array((np.concatenate(vals_arr),
                       (np.concatenate(rows_arr), np.concatenate(cols_arr))),
                      shape=(r, ns + npair)).tocsr()
        lb = np.concatenate([lo, np.full(r - eq_n, -np.inf)])
        ub = np.concatenate([lo, np.zeros(2 * pos.size), np.ones(neg.size)])
        cost = -np.concatenate([self.linear, self.pair_c])  # milp minimises
        integrality = np.concatenate([np.ones(ns), np.zeros(npair)])
        options = {"disp": False, "mip_rel_gap": mip_rel_gap}
        if time_limit is not None:
            options["time_limit"] = float(time_limit)
        from scipy.optimize import Bounds

        return milp(cost, constraints=LinearConstraint(A, lb, ub), integrality=integrality,
                    bounds=Bounds(0.0, 1.0), options=options)

    def plan(self, policy: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``policy`` with the partners' rows set to the pure plan ``x`` (rows off the
        plan's path, all-zero in ``x``, take their largest ``x`` anyway: action 0)."""
        out = policy.copy()
        for iset in self.mine:
            off, m = int(self.seq_off[iset]), int(self.tree.is_nact[iset])
            out[iset] = 0.0
            out[iset, int(np.argmax(x[off:off + m]))] = 1.0
        return out


def program_size(tree: GameTree, policy: np.ndarray, team: int) -> ProgramSize:
    """The size of :func:`team_maxmin_best_response`'s program, without solving it.

    Raises:
        TeamMaxminError: as :func:`team_maxmin_best_response`.
    """
    return _Program(tree, policy, team).size


def team_maxmin_best_response(tree: GameTree, policy: np.ndarray, team: int,
                              time_limit: float | None = None,
                              mip_rel_gap: float = 1e-9) -> TeamMaxminResult:
    """The exact best response of team ``team`` (partners without shared cards, joint
    plan agreed before the deal) to the other team's part of ``policy``, by a
    mixed-integer program (module docstring).

    Args:
        tree: a four-player flat tree (:func:`~vitou_ai.solvers.flat.tree.build_tree`).
        policy: ``float64[tree.num_infosets, 5]``, every seat's policy (the other team's
            rows are what is responded to).
        team: 0 (seats 0, 2) or 1 (seats 1, 3).
        time_limit: seconds for HiGHS (``None``: until proven optimal).
        mip_rel_gap: HiGHS's relative optimality gap.

    Returns:
        :class:`TeamMaxminResult`, points per deal.

    Raises:
        TeamMaxminError: a tree of another kind or player count, ``team`` not 0 or 1, a
            policy of another shape or not a distribution, no perfect recall.
        RuntimeError: HiGHS found no plan within ``time_limit`` (named, with its status).

    Examples:
        >>> from vitou_ai import VitouParams
        >>> from vitou_ai.solvers.flat.tree import build_tree
        >>> from vitou_ai.solvers.flat.evaluate import team_bracket, uniform_policy
        >>> tree = build_tree(VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1,
        ...                               dealer=0))
        >>> pol = uniform_policy(tree)
        >>> r = team_maxmin_best_response(tree, pol, team=0)
        >>> b = team_bracket(tree, pol, team=0)
        >>> bool(r.optimal and b.alternating - 1e-9 <= r.best <= b.pooled + 1e-9)
        True
    """
    start = time.perf_counter()
    prog = _Program(tree, policy, team)
    res = prog.solve(time_limit, mip_rel_gap)
    if res.x is None:
        raise RuntimeError(f"HiGHS found no joint plan for team {team} "
                           f"(status {res.status}: {res.message})")
    plan = prog.plan(policy, res.x)
    best = float(expected_returns(tree, plan)[team])
    value = float(expected_returns(tree, policy)[team])
    dual = getattr(res, "mip_dual_bound", None)
    bound = prog.constant - float(dual) if dual is not None and np.isfinite(dual) else np.inf
    optimal = res.status == 0
    if optimal:
        bound = max(bound, best)
    return TeamMaxminResult(team, best, bound, optimal, str(res.message),
                            time.perf_counter() - start, prog.size, plan, value)


def team_best_response_to_reach(tree: GameTree, reach: np.ndarray, team: int,
                                time_limit: float | None = None,
                                mip_rel_gap: float = 1e-9) -> TeamMaxminResult:
    """The exact best response of team ``team`` to the other team given by its reach
    probabilities, e.g. a correlated mixture of joint plans (which no behavioural policy
    need represent): the same integer program as :func:`team_maxmin_best_response` with
    each terminal's coefficient ``chance(z) * reach(z) * u_team(z)``. The oracle of the
    TMECor column generation (Farina, Celli, Gatti & Sandholm, NeurIPS 2018, section 4),
    :mod:`vitou_ai.solvers.flat.tmecor`.

    Args:
        tree: a four-player flat tree (:func:`~vitou_ai.solvers.flat.tree.build_tree`).
        reach: ``float64[tree.num_nodes]``, the other team's reach probability at each
            node (:func:`team_reach`, or a convex combination of them); only terminals
            are read.
        team: 0 (seats 0, 2) or 1 (seats 1, 3): the team that responds.
        time_limit: seconds for HiGHS (``None``: until proven optimal).
        mip_rel_gap: HiGHS's relative optimality gap.

    Returns:
        :class:`TeamMaxminResult` (``value`` ``None``), points per deal.

    Raises:
        TeamMaxminError: a tree of another kind or player count, ``team`` not 0 or 1,
            ``reach`` of another shape or outside [0, 1], no perfect recall.
        RuntimeError: HiGHS found no plan within ``time_limit``.

    Examples:
        >>> from vitou_ai import VitouParams
        >>> from vitou_ai.solvers.flat.tree import build_tree
        >>> from vitou_ai.solvers.flat.evaluate import uniform_policy
        >>> tree = build_tree(VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1,
        ...                               dealer=0))
        >>> pol = uniform_policy(tree)
        >>> r = team_best_response_to_reach(tree, team_reach(tree, pol, 0), team=1)
        >>> abs(r.best - team_maxmin_best_response(tree, pol, team=1).best) < 1e-9
        True
    """
    start = time.perf_counter()
    prog = _Program(tree, None, team, reach=np.ascontiguousarray(reach, np.float64))
    if prog.num_seq == 0:  # the team never decides: its one plan is the empty one
        value = float(prog.coef.sum())
        return TeamMaxminResult(team, value, value, True, "no decision of the team",
                                 time.perf_counter() - start, prog.size, uniform_policy(tree))
    res = prog.solve(time_limit, mip_rel_gap)
    if res.x is None:
        raise RuntimeError(f"HiGHS found no joint plan for team {team} "
                           f"(status {res.status}: {res.message})")
    plan = prog.plan(uniform_policy(tree), res.x)
    best = float(prog.coef @ _team_reach(tree.kind, tree.player, tree.infoset, tree.first,
                                         tree.nchild, plan, team, np.empty(tree.num_nodes)))
    dual = getattr(res, "mip_dual_bound", None)
    bound = prog.constant - float(dual) if dual is not None and np.isfinite(dual) else np.inf
    optimal = res.status == 0
    bound = max(bound, best)
    return TeamMaxminResult(team, best, bound, optimal, str(res.message),
                             time.perf_counter() - start, prog.size, plan)


__all__ = ["ProgramSize", "TeamMaxminError", "TeamMaxminResult", "check_team_game",
           "program_size", "team_best_response_to_reach", "team_maxmin_best_response",
           "team_reach"]
