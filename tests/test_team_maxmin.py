"""The exact team best response: the integer program's joint plan is
the best one, checked against enumerating every pure plan of one partner with the other
partner's best response to each, and it lies between the alternating and pooled bounds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vitou_ai import VitouParams
from vitou_ai.bots.named import parse_bot
from vitou_ai.solvers.flat.evaluate import best_response, team_bracket, uniform_policy
from vitou_ai.solvers.flat.team_maxmin import (
    TeamMaxminError,
    program_size,
    team_maxmin_best_response,
)
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.public.export import flat_bot_policy


@pytest.fixture(scope="module")
def tree():
    return build_tree(VitouParams(profile="vitou", ranks=2, copies=4, hand_size=1, dealer=0))


def brute_force(tree, policy, team):
    """max over the pure plans of the partner with fewer plans of the other partner's
    best response: the exact team best response by enumeration."""
    seats = (team, team + 2)
    plans = {s: np.prod(tree.is_nact[tree.is_player == s].astype(float)) for s in seats}
    enum = min(seats, key=lambda s: plans[s])
    other = team + 2 if enum == team else team
    assert plans[enum] <= 5000, plans
    rows = np.nonzero(tree.is_player == enum)[0]
    best = -np.inf
    for acts in itertools.product(*[range(int(tree.is_nact[r])) for r in rows]):
        pol = policy.copy()
        pol[rows] = 0.0
        pol[rows, list(acts)] = 1.0
        best = max(best, best_response(tree, pol, other)[0])
    return best


@pytest.mark.parametrize("team", [0, 1])
@pytest.mark.parametrize("name", ["uniform", "counter", "bluffer"])
def test_the_joint_plan_is_the_best_one(tree, team, name):
    pol = uniform_policy(tree) if name == "uniform" else flat_bot_policy(tree, parse_bot(name))
    res = team_maxmin_best_response(tree, pol, team)
    assert res.optimal
    assert res.best == pytest.approx(brute_force(tree, pol, team), abs=1e-9)
    assert res.bound == pytest.approx(res.best, abs=1e-7)
    b = team_bracket(tree, pol, team)
    assert b.alternating - 1e-9 <= res.best <= b.pooled + 1e-9
    assert res.value == pytest.approx(b.value, abs=1e-12)
    # the plan is pure in the partners' rows and leaves the other team's rows alone
    mine = (tree.is_player == team) | (tree.is_player == team + 2)
    assert np.all(np.isin(res.plan[mine], (0.0, 1.0)))
    assert np.array_equal(res.plan[~mine], pol[~mine])


def test_it_can_beat_the_alternating_bound():
    """On 3 ranks x 2, 1-card hands, against uniform play, team 1's alternating best
    responses stop at a local optimum (1.0111) below the best joint plan (1.1333)."""
    tree = build_tree(VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=0))
    pol = uniform_policy(tree)
    res = team_maxmin_best_response(tree, pol, 1)
    b = team_bracket(tree, pol, 1)
    assert res.optimal and res.best > b.alternating + 0.1
    assert res.best < b.pooled - 0.05


def test_bad_input_is_refused_in_one_line(tree):
    pol = uniform_policy(tree)
    two = build_tree(VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1, dealer=0))
    cases = [(two, uniform_policy(two), 0, "four players"),
             (tree, pol, 2, "team must be 0 or 1"),
             (tree, pol, True, "team must be 0 or 1"),
             (tree, pol[:, :3], 0, "policy shape"),
             (tree, pol * 2.0, 0, "not a distribution")]
    for t, p, team, words in cases:
        with pytest.raises(TeamMaxminError, match=words) as e:
            team_maxmin_best_response(t, p, team)
        assert "\n" not in str(e.value)
    size = program_size(tree, pol, 0)
    assert size.binaries == int(tree.is_nact[(tree.is_player % 2) == 0].sum())
