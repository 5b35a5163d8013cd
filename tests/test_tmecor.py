"""TMECor by column generation: its value equals the matrix game over every joint pure
plan of both teams (enumerated, solved by an LP written here), its bounds bracket the
value at every iteration, and its oracle (the team best response to a correlated
mixture's reach) equals enumeration of the responding team's plans."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from vitou_ai import VitouParams
from vitou_ai.solvers.flat.evaluate import expected_returns, uniform_policy
from vitou_ai.solvers.flat.team_maxmin import (
    TeamMaxminError,
    team_best_response_to_reach,
    team_maxmin_best_response,
    team_reach,
)
from vitou_ai.solvers.flat.tmecor import TmecorError, plan_policy, solve_tmecor
from vitou_ai.solvers.flat.tree import build_tree

# (profile, ranks, copies, hand, scores): small enough to enumerate both teams' plans
TINY = [("trut", 2, 2, 1, (0, 0)), ("trut", 2, 4, 1, (0, 0)),
        ("truc_catalan", 2, 2, 1, (0, 0)), ("vitou", 3, 2, 1, (20, 20)),
        ("vitou", 3, 3, 1, (20, 19))]


def tree_of(profile, ranks, copies, hand, scores):
    return build_tree(VitouParams(profile=profile, ranks=ranks, copies=copies,
                                  hand_size=hand, dealer=0, scores=scores))


def all_plans(tree, team):
    """Every pure plan of the team: one action slot per information set of its seats."""
    rows = np.nonzero(tree.is_player % 2 == team)[0]
    assert np.prod(tree.is_nact[rows].astype(float)) <= 5000
    return rows, list(itertools.product(*[range(int(tree.is_nact[r])) for r in rows]))


def joint_policy(tree, rows0, acts0, rows1, acts1):
    pol = np.zeros((tree.num_infosets, 5))
    pol[rows0, list(acts0)] = 1.0
    pol[rows1, list(acts1)] = 1.0
    return pol


def brute_force_matrix(tree):
    rows0, p0 = all_plans(tree, 0)
    rows1, p1 = all_plans(tree, 1)
    M = np.array([[expected_returns(tree, joint_policy(tree, rows0, a, rows1, b))[0]
                   for b in p1] for a in p0])
    return M, (rows0, p0), (rows1, p1)


def matrix_value(M):
    """max_x min_j (x M)_j by an LP."""
    k0, k1 = M.shape
    c = np.r_[np.zeros(k0), -1.0]
    res = linprog(c, A_ub=np.c_[-M.T, np.ones(k1)], b_ub=np.zeros(k1),
                  A_eq=np.r_[np.ones(k0), 0.0][None], b_eq=[1.0],
                  bounds=[(0, None)] * k0 + [(None, None)], method="highs")
    assert res.status == 0
    return -res.fun


@pytest.fixture(scope="module")
def brute():
    out = {}
    for v in TINY:
        tree = tree_of(*v)
        M, _, _ = brute_force_matrix(tree)
        out[v] = (tree, matrix_value(M))
    return out


@pytest.mark.parametrize("local_search", [True, False], ids=["search", "plain"])
@pytest.mark.parametrize("variant", TINY, ids=lambda v: f"{v[0]}-{v[1]}{v[2]}{v[3]}-{v[4][0]}")
def test_the_value_is_the_matrix_game_over_every_joint_plan(brute, variant, local_search):
    tree, value = brute[variant]
    res = solve_tmecor(tree, gap=1e-10, local_search=local_search)
    assert res.status in ("gap", "no new plan")
    assert res.value == pytest.approx(value, abs=1e-7)
    assert res.lower - 1e-9 <= value <= res.upper + 1e-9
    assert res.gap <= 1e-7
    # the certifying mixtures are distributions over the plans found
    for w, plans in zip(res.weights, res.team_plans, strict=True):
        assert w.shape == (len(plans),) and w.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("local_search", [True, False], ids=["search", "plain"])
@pytest.mark.parametrize("variant", TINY[1:3], ids=lambda v: v[0])
def test_the_bounds_bracket_the_value_at_every_iteration(brute, variant, local_search):
    tree, value = brute[variant]
    res = solve_tmecor(tree, gap=1e-10, local_search=local_search)
    assert res.iterations > 1
    assert any(h.certified for h in res.history)
    for h in res.history:
        assert h.certified or (h.lower == -np.inf and h.upper == np.inf)
        assert h.lower - 1e-9 <= value <= h.upper + 1e-9
        assert h.lower - 1e-9 <= h.value <= h.upper + 1e-9
        assert h.best_lower >= h.lower - 1e-12 and h.best_upper <= h.upper + 1e-12


def test_a_mixed_equilibrium_closes_its_bracket():
    """vitou 3 ranks x 3, 1-card hands at 0:0: too many plans to enumerate (10^57 for
    team 0); both teams mix, and every iteration's bracket holds the final value."""
    tree = tree_of("vitou", 3, 3, 1, (0, 0))
    res = solve_tmecor(tree, gap=1e-9)
    assert res.status == "gap" and res.gap <= 1e-9
    plain = solve_tmecor(tree, gap=1e-9, local_search=False)
    assert plain.value == pytest.approx(res.value, abs=1e-9)
    assert max(int((w > 1e-9).sum()) for w in res.weights) > 1
    for h in res.history:
        assert h.lower - 1e-9 <= res.value <= h.upper + 1e-9
    # the certifying mixtures against each other, replayed plan pair by plan pair on the
    # tree, are worth a value inside the bracket
    p0, p1 = res.team_plans
    w0, w1 = res.weights
    v = sum(a * b * expected_returns(tree, plan_policy(tree, x, y))[0]
            for x, a in zip(p0, w0, strict=True) if a > 0
            for y, b in zip(p1, w1, strict=True) if b > 0)
    assert res.lower - 1e-9 <= v <= res.upper + 1e-9


def mixture(tree, team, k, rng):
    rows, plans = all_plans(tree, team)
    pick = rng.choice(len(plans), size=k, replace=False)
    w = rng.dirichlet(np.ones(k))
    return rows, [plans[i] for i in pick], w


@pytest.mark.parametrize("team", [0, 1])
def test_the_oracle_on_a_mixture_is_the_best_plan(team):
    tree = tree_of("trut", 2, 4, 1, (0, 0))
    rng = np.random.default_rng(7 + team)
    orow, oplans, w = mixture(tree, 1 - team, 4, rng)
    rows, plans = all_plans(tree, team)
    reach = np.zeros(tree.num_nodes)
    sign = 1.0 if team == 0 else -1.0
    best = -np.inf
    for a in plans:
        v = 0.0
        for b, wb in zip(oplans, w, strict=True):
            pol = (joint_policy(tree, rows, a, orow, b) if team == 0
                   else joint_policy(tree, orow, b, rows, a))
            v += wb * sign * expected_returns(tree, pol)[0]
        best = max(best, v)
    for b, wb in zip(oplans, w, strict=True):
        pol = np.zeros((tree.num_infosets, 5))
        pol[orow, list(b)] = 1.0
        pol[rows, 0] = 1.0
        reach += wb * team_reach(tree, pol, 1 - team)
    res = team_best_response_to_reach(tree, reach, team)
    assert res.optimal
    assert res.best == pytest.approx(best, abs=1e-9)
    assert res.bound == pytest.approx(best, abs=1e-7)


def test_the_oracle_on_a_policy_s_reach_is_the_policy_best_response():
    tree = tree_of("vitou", 3, 2, 1, (0, 0))
    pol = uniform_policy(tree)
    for team in (0, 1):
        a = team_best_response_to_reach(tree, team_reach(tree, pol, 1 - team), team)
        b = team_maxmin_best_response(tree, pol, team)
        assert a.best == pytest.approx(b.best, abs=1e-9)


def test_limits_and_warm_start(brute):
    tree, value = brute[TINY[1]]
    one = solve_tmecor(tree, gap=0.0, max_iterations=1)
    assert one.status == "iteration limit" and one.iterations == 1
    assert one.lower - 1e-9 <= value <= one.upper + 1e-9
    full = solve_tmecor(tree, gap=1e-10)
    seeds = [plan_policy(tree, x, y) for x, y in zip(*full.team_plans, strict=False)]
    warm = solve_tmecor(tree, gap=1e-10, warm_start=seeds)
    assert warm.value == pytest.approx(value, abs=1e-7)
    assert warm.iterations <= full.iterations


@pytest.mark.parametrize("variant", TINY[:3], ids=lambda v: f"{v[0]}-{v[2]}")
def test_a_run_cut_short_by_the_iteration_limit_ends_certified(brute, variant):
    """Every iteration before the last is the local search's (no bound) in these games;
    the iteration limit's round certifies all the same."""
    tree, value = brute[variant]
    for k in (1, 2):
        res = solve_tmecor(tree, gap=1e-10, max_iterations=k)
        assert res.status == "iteration limit" and res.iterations == k
        assert res.history[-1].certified and res.note == ""
        assert np.isfinite(res.lower) and np.isfinite(res.upper)
        assert res.lower - 1e-9 <= value <= res.upper + 1e-9


def test_a_run_cut_short_by_the_time_limit_ends_certified(brute, monkeypatch):
    """A clock that moves only while the local search runs (40 s a run, two runs an
    iteration): the first iteration leaves 20 s of 100, under the reserve of 25, so
    the second is the certifying round; without it the run would stop at the limit
    after two rounds of local search and no bound."""
    from vitou_ai.solvers.flat import tmecor

    tree, value = brute[TINY[1]]
    assert tmecor.RESERVE_SHARE * 100.0 > 20.0
    clock = type("Clock", (), {"t": 0.0, "perf_counter": lambda self: self.t})()
    run = tmecor._LocalSearch.run

    def slow_run(self, *a, **k):
        clock.t += 40.0
        return run(self, *a, **k)

    monkeypatch.setattr(tmecor, "time", clock)
    monkeypatch.setattr(tmecor._LocalSearch, "run", slow_run)
    res = solve_tmecor(tree, gap=1e-10, time_limit=100.0)
    assert res.status == "time limit" and res.iterations == 2
    assert [h.certified for h in res.history] == [False, True]
    assert np.isfinite(res.lower) and np.isfinite(res.upper) and res.note == ""
    assert res.lower - 1e-9 <= value <= res.upper + 1e-9
    assert res.seconds <= 100.0


def test_bad_input_is_refused_in_one_line(brute):
    tree, _ = brute[TINY[0]]
    two = build_tree(VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1,
                                 dealer=0))
    sides = dataclasses.replace(tree, params=VitouParams(profile="put_willughby", players=4,
                                                         ranks=2, copies=4, hand_size=2))
    cases = [((two,), {}, "four players"), ((sides,), {}, "two teams of two"),
             (("tree",), {}, "flat game tree"), ((tree,), {"gap": -1.0}, "gap must be"),
             ((tree,), {"gap": float("nan")}, "gap must be"),
             ((tree,), {"time_limit": 0}, "time_limit must be"),
             ((tree,), {"max_iterations": 0}, "max_iterations must be"),
             ((tree,), {"warm_start": [np.zeros((3, 5))]}, "warm-start policy shape")]
    for args, kw, words in cases:
        with pytest.raises(TmecorError, match=words) as e:
            solve_tmecor(*args, **kw)
        assert "\n" not in str(e.value)
    for reach, words in [(np.zeros(3), "reach shape"),
                         (np.full(tree.num_nodes, 2.0), "outside \\[0, 1\\]")]:
        with pytest.raises(TeamMaxminError, match=words):
            team_best_response_to_reach(tree, reach, 0)


def test_the_master_lp_s_mixtures_are_optimal():
    """Both mixtures of random matrix games (the column player's from the LP's duals)
    guarantee the value: min_j (x M)_j = v = max_i (M y)_i."""
    from vitou_ai.solvers.flat.tmecor import solve_matrix_game

    rng = np.random.default_rng(0)
    for _ in range(50):
        M = rng.normal(size=(rng.integers(1, 9), rng.integers(1, 9)))
        v, x, y = solve_matrix_game(M)
        assert (x @ M).min() == pytest.approx(v, abs=1e-9)
        assert (M @ y).max() == pytest.approx(v, abs=1e-9)
