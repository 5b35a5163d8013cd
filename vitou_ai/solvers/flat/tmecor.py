"""The team-maxmin equilibrium with correlation (TMECor) of a four-player team game,
with a certified gap, by column generation over the teams' joint pure plans.

Each team's partners agree before the deal on a random joint pure plan (a correlated
mixture, drawn from a shared signal the other team does not see) and then play without
communicating: the ex ante coordination of Celli & Gatti, "Computational results for
extensive-form adversarial team games" (AAAI 2018), and Farina, Celli, Gatti & Sandholm,
"Ex ante coordination and collusion in zero-sum multi-player extensive-form games"
(NeurIPS 2018). The game between the two teams is then a two-player zero-sum game in
the normal form over joint pure plans, whose value is the TMECor value. It has
astronomically many plans, so it is solved by double oracle (McMahan, Gordon & Blum,
ICML 2003), the column generation of Farina et al. 2018 run for both teams:

1. a master LP: the zero-sum matrix game restricted to the plans found so far
   (``M[i, j]`` = team 0's expected return, points per deal, when team 0 plays plan
   ``i`` and team 1 plan ``j``, computed exactly on the tree as the sum over terminals of
   chance * return * both plans' 0/1 reach), solved by HiGHS
   (:func:`scipy.optimize.linprog`) for both mixtures ``x`` (team 0) and ``y``;
2. the oracles: each team's exact best joint plan against the other team's mixture
   (its reach probabilities, linear in the mixture), the integer program of
   :func:`~vitou_ai.solvers.flat.team_maxmin.team_best_response_to_reach`;
3. the bounds: ``x`` guarantees team 0 ``lower = -BR_1(x)`` whatever team 1 does and
   ``y`` holds it to ``upper = BR_0(y)``, so ``lower <= value <= upper`` at every
   iteration (the best of each over the iterations is kept); HiGHS's proven dual bound
   is used for each best response, so the bracket is certified even when an oracle
   stops at its time limit;
4. the oracles' plans join the master; stop when ``upper - lower <= gap``, when neither
   oracle finds a new plan, or at the time or iteration limit, after a last round of
   the oracles (so a run cut short still ends with finite certified bounds).

With ``local_search`` (the default) each iteration first tries the partners' alternating
best responses to the other team's mixture (exact single-seat best responses, the
mixture's reach folded into the terminal values), started from the team's best plan in
the master: a plan that beats the master value by more than half the target gap joins
the master without an integer program, and that iteration certifies no bound
(:attr:`TmecorIteration.certified` false). The integer programs run only when the
local search finds nothing, and in a final certifying round before the time or
iteration limit (:func:`solve_tmecor`), so they certify the end. This departs from plain double
oracle as the column generation of Farina, Celli, Gatti & Sandholm (ICML 2021) does,
where a cheap heuristic best response generates columns and the exact oracle proves
optimality.

Plans are identified by the terminals they reach (plans differing only where they are
never reached are one plan of the reduced normal form). The value is in points per
deal for team 0 (seats 0 and 2); team 1's is its negation (zero-sum between teams).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..._numba import jit
from . import kernels as CK
from .team_maxmin import (
    TeamMaxminError,
    check_team_game,
    team_best_response_to_reach,
    team_reach,
)
from .tree import KIND_CHANCE, KIND_TERMINAL, MAX_INFOSET_ACTIONS, GameTree


class TmecorError(TeamMaxminError):
    """A game or setting the TMECor solver cannot take (one line)."""


@dataclass(frozen=True)
class TmecorIteration:
    """One iteration of :func:`solve_tmecor`, team 0's points per deal.

    Attributes:
        iteration: 1, 2, ...
        value: the master LP's value (the game restricted to the plans so far).
        lower: ``-BR_1(x)``, what this iteration's team-0 mixture guarantees.
        upper: ``BR_0(y)``, what this iteration's team-1 mixture concedes at most.
        best_lower: the largest ``lower`` so far (the bracket reported).
        best_upper: the smallest ``upper`` so far.
        plans: plans in the master at this iteration, ``(team 0, team 1)``.
        seconds: time since the start.
        certified: the integer programs ran (else ``lower`` is ``-inf`` and ``upper``
            ``inf``: the local search's plans joined the master). A program that found
            no plan in the time left gives its bound as infinite.
    """

    iteration: int
    value: float
    lower: float
    upper: float
    best_lower: float
    best_upper: float
    plans: tuple[int, int]
    seconds: float
    certified: bool = True


@dataclass(frozen=True)
class TmecorResult:
    """The outcome of :func:`solve_tmecor`; values in points per deal for team 0
    (seats 0 and 2), team 1's the negation.

    Attributes:
        value: the last master LP's value; equal to the TMECor value within ``gap``.
        lower: the best certified lower bound (a team-0 mixture's value against team 1's
            exact best response).
        upper: the best certified upper bound (team 0's exact best response to a team-1
            mixture).
        iterations: master LPs solved.
        plans: joint pure plans found, ``(team 0, team 1)``.
        seconds: wall time, of which ``oracle_seconds`` in the integer programs,
            ``search_seconds`` in the local search and ``master_seconds`` in the master
            LPs and payoff entries.
        status: why it stopped: ``"gap"`` (``upper - lower <= gap``), ``"no new plan"``
            (both oracles returned plans already in the master: optimal up to the solvers'
            tolerances), ``"time limit"`` or ``"iteration limit"``.
        target_gap: the ``gap`` asked for.
        team_plans: ``(int8[k0, num_infosets], int8[k1, num_infosets])``: each plan's
            action slot at its team's information sets, -1 at the other team's.
        weights: ``(float64[k0], float64[k1])``: team 0's mixture that certifies
            ``lower`` and team 1's that certifies ``upper`` (each sums to 1; the last
            master's for a bound that stayed infinite).
        history: one :class:`TmecorIteration` per iteration.
        note: empty when both bounds are finite; else, in one line, why not (an integer
            program found no plan in the time left).
    """

    value: float
    lower: float
    upper: float
    iterations: int
    plans: tuple[int, int]
    seconds: float
    oracle_seconds: float
    master_seconds: float
    search_seconds: float
    status: str
    target_gap: float
    team_plans: tuple[np.ndarray, np.ndarray] = field(repr=False)
    weights: tuple[np.ndarray, np.ndarray] = field(repr=False)
    history: tuple[TmecorIteration, ...] = field(repr=False)
    note: str = ""

    @property
    def gap(self) -> float:
        """``upper - lower`` (points per deal): how far from the TMECor value either
        bound can be."""
        return self.upper - self.lower

    @property
    def converged(self) -> bool:
        """The gap closed to the target."""
        return self.gap <= self.target_gap


def pure_plan(tree: GameTree, policy: np.ndarray, team: int) -> np.ndarray:
    """Team ``team``'s rows of ``policy`` made pure: its most likely legal action at each
    of its information sets (the first of ties).

    Args:
        policy: ``float64[num_infosets, 5]``.

    Returns:
        ``int8[num_infosets]``: the action slot at the team's information sets, -1 at the
        other team's (the layout of :attr:`TmecorResult.team_plans`).
    """
    masked = np.where(tree.legal_mask(), policy, -np.inf)
    plan = np.argmax(masked, axis=1).astype(np.int8)
    plan[tree.is_player % 2 != team] = -1
    return plan


def plan_policy(tree: GameTree, plan0: np.ndarray, plan1: np.ndarray) -> np.ndarray:
    """The behavioural policy ``float64[num_infosets, 5]`` in which team 0 plays the
    pure plan ``plan0`` and team 1 ``plan1`` (each ``int8[num_infosets]`` as
    :attr:`TmecorResult.team_plans`)."""
    rows = np.arange(tree.num_infosets)
    slot = np.where(tree.is_player % 2 == 0, plan0, plan1).astype(np.int64)
    if (slot < 0).any() or (slot >= tree.is_nact).any():
        raise TmecorError("a plan has no legal action slot at one of its team's "
                          "information sets")
    out = np.zeros((tree.num_infosets, MAX_INFOSET_ACTIONS))
    out[rows, slot] = 1.0
    return out


@jit
def _chance_reach(kind, first, nchild, prob, out):
    out[0] = 1.0
    for i in range(kind.shape[0]):
        if kind[i] == KIND_TERMINAL:
            continue
        f = first[i]
        for c in range(nchild[i]):
            out[f + c] = out[i] * prob[f + c] if kind[i] == KIND_CHANCE else out[i]
    return out


class _Master:
    """The plans of both teams, their terminal reaches and the payoff matrix."""

    def __init__(self, tree: GameTree):
        self.tree = tree
        self.term = np.nonzero(tree.kind == KIND_TERMINAL)[0]
        chance = _chance_reach(tree.kind, tree.first, tree.nchild, tree.prob,
                               np.empty(tree.num_nodes))
        self.cu = chance[self.term] * tree.util[self.term]  # team 0's terms
        self.plans: tuple[list, list] = ([], [])
        self.reach: tuple[list, list] = ([], [])  # terminal indices reached (0/1 reach)
        self.keys: tuple[dict, dict] = ({}, {})
        self.M = np.zeros((0, 0))

    def add(self, team: int, plan: np.ndarray) -> bool:
        """Add a plan (``int8[num_infosets]``); False if its reduced plan is known."""
        pol = plan_policy(self.tree, np.maximum(plan, 0), np.maximum(plan, 0))
        r = team_reach(self.tree, pol, team)[self.term]
        idx = np.nonzero(r > 0.5)[0]
        key = idx.tobytes()
        if key in self.keys[team]:
            return False
        self.keys[team][key] = len(self.plans[team])
        self.plans[team].append(plan.copy())
        self.reach[team].append(idx)
        other = self.reach[1 - team]
        d = np.zeros(self.term.size)
        d[idx] = self.cu[idx]
        line = np.array([d[o].sum() for o in other])
        if team == 0:
            self.M = np.vstack([self.M, line.reshape(1, -1)])
        else:
            self.M = np.hstack([self.M, line.reshape(-1, 1)])
        return True

    def mixture_reach(self, team: int, w: np.ndarray) -> np.ndarray:
        """``float64[num_nodes]``: the reach of team ``team``'s mixture ``w`` (terminals)."""
        out = np.zeros(self.tree.num_nodes)
        r = np.zeros(self.term.size)
        for wi, idx in zip(w, self.reach[team], strict=True):
            if wi > 0:
                r[idx] += wi
        out[self.term] = np.minimum(r, 1.0)
        return out


class _LocalSearch:
    """Alternating best responses of a team's two seats to the other team's reach
    (module docstring), on :func:`kernels.best_response` with the other team's rows set
    to 1 (their reach is in the terminal values instead)."""

    def __init__(self, tree: GameTree):
        self.tree = tree
        n = tree.num_nodes
        self.reach_p, self.reach_o, self.value = np.empty(n), np.empty(n), np.empty(n)
        self.br = np.empty(tree.num_infosets, np.int64)
        self.q = np.zeros((tree.num_infosets, MAX_INFOSET_ACTIONS))

    def run(self, team: int, opp_reach: np.ndarray, start: np.ndarray,
            max_rounds: int = 20) -> tuple[float, np.ndarray]:
        """``(value, plan)``: the team's value (its own points) against ``opp_reach``
        and its plan (``int8[num_infosets]``) after the alternation from ``start``."""
        t = self.tree
        util = t.util * opp_reach
        pol = np.ones((t.num_infosets, MAX_INFOSET_ACTIONS))
        mine = np.nonzero(t.is_player % 2 == team)[0]
        pol[mine] = 0.0
        pol[mine, start[mine]] = 1.0
        value = -np.inf
        for r in range(max_rounds):
            seat = team + 2 * (r % 2)
            v = CK.best_response(t.kind, t.player, t.infoset, t.first, t.nchild, t.prob, util,
                                 4, t.is_player, t.is_nact, t.is_depth, pol, seat,
                                 self.reach_p, self.reach_o, self.value, self.br, self.q)
            rows = np.nonzero(t.is_player == seat)[0]
            pol[rows] = 0.0
            pol[rows, self.br[rows]] = 1.0
            if r >= 1 and v <= value + 1e-12:
                value = max(value, v)
                break
            value = max(value, float(v))
        plan = np.full(t.num_infosets, -1, np.int8)
        plan[mine] = np.argmax(pol[mine], axis=1)
        return float(value), plan


def solve_matrix_game(M: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The value and optimal mixtures of the zero-sum matrix game ``M`` (``float64[k0,
    k1]``, the row player's payoff, maximised), by one LP with HiGHS: the row player's
    ``max v  s.t.  v <= (x M)_j, sum x = 1``; the column player's mixture is its dual
    (the LP duality of zero-sum games, von Neumann's minimax theorem).

    Returns:
        ``(value, x, y)``: ``float64[k0]``, ``float64[k1]``, each summing to 1.

    Raises:
        RuntimeError: HiGHS failed (its message).
    """
    from scipy.optimize import linprog

    k0, k1 = M.shape
    c = np.zeros(k0 + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=np.hstack([-M.T, np.ones((k1, 1))]), b_ub=np.zeros(k1),
                  A_eq=np.concatenate([np.ones(k0), [0.0]])[None, :], b_eq=[1.0],
                  bounds=[(0, None)] * k0 + [(None, None)], method="highs")
    if res.status != 0:
        raise RuntimeError(f"the master LP failed: {res.message}")
    x = np.maximum(res.x[:k0], 0.0)
    y = np.maximum(-res.ineqlin.marginals, 0.0)
    if not y.sum() > 0.5:
        raise RuntimeError("the master LP's duals are not a mixture of the columns")
    return float(-res.fun), x / x.sum(), y / y.sum()


#: Before any integer program has been timed, the share of ``time_limit`` kept for the
#: final certifying round of :func:`solve_tmecor`.
RESERVE_SHARE = 0.25
#: Once one has, the time kept is this many times the longest certifying round so far
#: (both teams' integer programs): a later program, against a mixture of more plans, is
#: larger.
RESERVE_FACTOR = 1.5


def _certify(tree: GameTree, master: _Master, x: np.ndarray, y: np.ndarray,
             seconds: float | None):
    """Both teams' exact best responses to the other team's mixture, ``(br0, br1,
    why)``: ``br0`` against team 1's ``y`` (team 0's upper bound), ``br1`` against team
    0's ``x``; with ``seconds`` the first gets half of them and the second what is then
    left. A program that finds no plan in its time is ``None``, ``why`` saying so in one
    line, when a time was given; without one, its ``RuntimeError`` is raised."""
    start = time.perf_counter()
    out, why = [], ""
    for team, reach in ((0, master.mixture_reach(1, y)), (1, master.mixture_reach(0, x))):
        left = None
        if seconds is not None:
            rest = seconds - (time.perf_counter() - start)
            left = max(rest / 2 if team == 0 else rest, 1e-3)
        try:
            out.append(team_best_response_to_reach(tree, reach, team, left))
        except RuntimeError:
            if seconds is None:
                raise
            out.append(None)
            why = why or (f"team {team}'s integer program found no plan in the "
                          f"{left:.1f} s left of the time limit")
    return out[0], out[1], why


def solve_tmecor(tree: GameTree, gap: float = 1e-3, time_limit: float | None = None,
                 max_iterations: int = 10_000,
                 warm_start: Sequence[np.ndarray] = (),
                 local_search: bool = True) -> TmecorResult:
    """The TMECor value of a four-player team game, with a certified bracket, by double
    oracle over the teams' joint pure plans (module docstring).

    A run cut short by ``time_limit`` or ``max_iterations`` ends with a certifying round:
    the last iteration skips the local search and runs both integer programs, so its
    bounds are finite. With a time limit the column generation stops early enough for
    that round: ``RESERVE_SHARE`` of ``time_limit`` before any integer program has been
    timed, then ``RESERVE_FACTOR`` times the longest certifying round so far; the round
    gets what is left (HiGHS's proven bound is certified even when it stops at its time
    limit). Only when a program finds no plan at all in its time is a bound infinite,
    and :attr:`TmecorResult.note` says why.

    Args:
        tree: a four-player flat tree (:func:`~vitou_ai.solvers.flat.tree.build_tree`)
            of two teams of two (seats 0, 2 against 1, 3).
        gap: stop once ``upper - lower <= gap``, points per deal (``>= 0``).
        time_limit: seconds in all, the certifying round included (the integer programs
            get what is left); ``None``: none.
        max_iterations: master LPs at most (``>= 1``); the last one certifies.
        warm_start: policies ``float64[num_infosets, 5]`` whose rows, made pure
            (:func:`pure_plan`), seed both teams' plans (e.g. a CFR average policy);
            empty: each team's first legal action everywhere.
        local_search: try the partners' alternating best responses before the integer
            programs (module docstring); ``False``: plain double oracle.

    Returns:
        :class:`TmecorResult`, team 0's points per deal.

    Raises:
        TmecorError: not a four-player team game
            (:func:`~vitou_ai.solvers.flat.team_maxmin.check_team_game`; a per-seat tree
            raises its ``NotTwoTeamsError``), no perfect recall, ``gap`` negative or not
            finite, ``time_limit`` not positive, ``max_iterations`` below 1, a warm-start
            policy of another shape.
        RuntimeError: an LP or integer program failed outright, or (with a time limit)
            the first iteration's integer programs both found no plan in their time.

    Examples:
        >>> from vitou_ai import VitouParams
        >>> from vitou_ai.solvers.flat.tree import build_tree
        >>> tree = build_tree(VitouParams(profile="vitou", ranks=2, copies=3, hand_size=1,
        ...                               dealer=0, scores=(20, 20)))
        >>> r = solve_tmecor(tree, gap=1e-9)
        >>> r.status, r.lower <= r.value + 1e-9 and r.value <= r.upper + 1e-9
        ('gap', True)
    """
    start = time.perf_counter()
    check_team_game(tree, "TMECor", TmecorError)
    if not isinstance(gap, int | float) or not np.isfinite(gap) or gap < 0:
        raise TmecorError(f"gap must be a finite number >= 0 (points per deal), not {gap!r}")
    if time_limit is not None and not (time_limit > 0):
        raise TmecorError(f"time_limit must be positive seconds or None, not {time_limit!r}")
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) \
            or max_iterations < 1:
        raise TmecorError(f"max_iterations must be an integer >= 1, not {max_iterations!r}")
    shape = (tree.num_infosets, MAX_INFOSET_ACTIONS)
    seeds = list(warm_start)
    for s in seeds:
        if np.shape(s) != shape:
            raise TmecorError(f"warm-start policy shape {np.shape(s)} != {shape}")
    if not seeds:
        seeds = [tree.legal_mask().astype(np.float64)]
    master = _Master(tree)
    for s in seeds:
        for team in (0, 1):
            master.add(team, pure_plan(tree, np.asarray(s, np.float64), team))
    best_lower, best_upper = -np.inf, np.inf
    wx = wy = None
    history: list[TmecorIteration] = []
    oracle_s = master_s = search_s = 0.0
    longest_round = None  # seconds of the slowest certifying round so far
    search = _LocalSearch(tree)
    status = "iteration limit"
    value = np.nan
    why = ""
    for it in range(1, max_iterations + 1):
        t0 = time.perf_counter()
        value, x, y = solve_matrix_game(master.M)
        t1 = time.perf_counter()
        master_s += t1 - t0
        left = None if time_limit is None else time_limit - (t1 - start)
        reserve = None if time_limit is None else (
            RESERVE_SHARE * time_limit if longest_round is None
            else RESERVE_FACTOR * longest_round)
        out_of_time = left is not None and left <= reserve
        final = it == max_iterations or out_of_time
        if local_search and not final:
            found = False
            own = (master.M @ y, -(x @ master.M))  # each plan's value, its team's points
            reach = (master.mixture_reach(1, y), master.mixture_reach(0, x))
            starts = [np.maximum(master.plans[t][int(np.argmax(own[t]))], 0) for t in (0, 1)]
            for team in (0, 1):
                v, plan = search.run(team, reach[team], starts[team])
                if v > (value if team == 0 else -value) + max(gap / 2, 1e-9):
                    found = master.add(team, plan) or found
            t2 = time.perf_counter()
            search_s += t2 - t1
            if found:
                history.append(TmecorIteration(it, value, -np.inf, np.inf, best_lower,
                                               best_upper, (len(master.plans[0]),
                                                            len(master.plans[1])),
                                               t2 - start, certified=False))
                continue
            t1 = t2
            left = None if time_limit is None else time_limit - (t1 - start)
        br0, br1, why = _certify(tree, master, x, y,
                                 None if left is None else max(left, 0.0))
        t2 = time.perf_counter()
        oracle_s += t2 - t1
        longest_round = max(longest_round or 0.0, t2 - t1)
        if br0 is None and br1 is None and not history:
            raise RuntimeError(f"no bound before the time limit: {why}")
        upper = np.inf if br0 is None else br0.bound
        lower = -np.inf if br1 is None else -br1.bound
        if lower > best_lower:
            best_lower, wx = lower, x
        if upper < best_upper:
            best_upper, wy = upper, y
        history.append(TmecorIteration(it, value, lower, upper, best_lower, best_upper,
                                       (len(master.plans[0]), len(master.plans[1])),
                                       t2 - start))
        if best_upper - best_lower <= gap:
            status = "gap"
            break
        new0 = br0 is not None and master.add(0, pure_plan(tree, br0.plan, 0))
        new1 = br1 is not None and master.add(1, pure_plan(tree, br1.plan, 1))
        master_s += time.perf_counter() - t2
        if not (new0 or new1) and br0 is not None and br1 is not None:
            status = "no new plan"
            break
        if out_of_time or (time_limit is not None
                           and time.perf_counter() - start >= time_limit):
            status = "time limit"
            break
        if final:
            break  # the iteration limit, after its certifying round
    if wx is None:
        wx = x
    if wy is None:
        wy = y
    note = "" if np.isfinite(best_lower) and np.isfinite(best_upper) else (
        why or "no certifying round ran")
    k0, k1 = len(master.plans[0]), len(master.plans[1])
    w0 = np.zeros(k0)
    w0[:len(wx)] = wx
    w1 = np.zeros(k1)
    w1[:len(wy)] = wy
    return TmecorResult(float(value), float(best_lower), float(best_upper), len(history),
                        (k0, k1), time.perf_counter() - start, oracle_s, master_s, search_s,
                        status,
                        float(gap), (np.array(master.plans[0]), np.array(master.plans[1])),
                        (w0, w1), tuple(history), note)


__all__ = ["RESERVE_FACTOR", "RESERVE_SHARE", "TmecorError", "TmecorIteration",
           "TmecorResult", "plan_policy", "pure_plan",
           "solve_matrix_game", "solve_tmecor"]
