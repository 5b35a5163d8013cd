"""Native solvers on flat trees: the merged deal is exact, CFR-family convergence,
best responses, checkpoints (Zinkevich 2007; Tammelin 2014; Brown & Sandholm 2019)."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai.rules import Game, VitouParams
from vitou_ai.solvers.flat.cfr import CheckpointError, TabularCFR
from vitou_ai.solvers.flat.evaluate import (
    best_response,
    expected_returns,
    exploitability,
    nash_conv,
    team_best_response,
    uniform_policy,
)
from vitou_ai.solvers.flat.tree import build_tree, enumerate_deals

SMALL_2P = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2)
TINY_2P = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1)
TINY_4P = VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1)


def brute_force_uniform_value(params: VitouParams) -> float:
    """Seat 0's expected return under uniform play, by recursion over the kernel with
    the deal card by card (no merging), as an independent check of the tree."""
    game = Game(params)

    def value(state) -> float:
        if state.is_terminal():
            return state.returns()[0]
        if state.is_chance_node():
            total = 0.0
            for a, p in state.chance_outcomes():
                child = state.clone()
                child.apply_action(a)
                total += p * value(child)
            return total
        legal = state.legal_actions()
        total = 0.0
        for a in legal:
            child = state.clone()
            child.apply_action(a)
            total += value(child) / len(legal)
        return total

    return value(game.new_initial_state())


@pytest.mark.parametrize("params", [TINY_2P, TINY_4P,
                                    VitouParams(profile="vitou_2p", ranks=3, copies=2,
                                                hand_size=2, scores=(11, 4))],
                         ids=["2p", "4p", "2p-one-from-end"])
def test_merged_deal_tree_is_exact(params):
    tree = build_tree(params)
    v = expected_returns(tree, uniform_policy(tree))[0]
    assert v == pytest.approx(brute_force_uniform_value(params), abs=1e-12)


def test_deal_enumeration_probabilities():
    hands, probs = enumerate_deals(VitouParams(profile="vitou_2p"))
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert len(probs) == len({h.tobytes() for h in hands})
    # P(seat gets T T T) = 4/32 * 3/31 * 2/30, summed over the other hand
    ttt = probs[(hands[:, 0] == 0).all(1)].sum()
    assert ttt == pytest.approx(4 / 32 * 3 / 31 * 2 / 30, rel=1e-12)


@pytest.mark.parametrize("variant, iterations, bound", [("cfr+", 1000, 1e-3), ("dcfr", 500, 1e-3),
                                                        ("cfr", 1000, 2e-2)])
def test_two_player_convergence(variant, iterations, bound):
    tree = build_tree(SMALL_2P)
    solver = TabularCFR(tree, variant)
    solver.iterate(50)
    early = exploitability(tree, solver.average_policy())
    solver.iterate(iterations - 50)
    late = exploitability(tree, solver.average_policy())
    assert late < bound
    assert late < early
    # the uniform policy is far from equilibrium
    assert exploitability(tree, uniform_policy(tree)) > 1.0


def test_best_response_beats_every_sampled_pure_deviation():
    """No pure strategy of player 0 does better than the computed best response."""
    tree = build_tree(TINY_2P)
    solver = TabularCFR(tree, "cfr")
    solver.iterate(30)
    pol = solver.average_policy()
    br_value, br_pol = best_response(tree, pol, 0)
    assert expected_returns(tree, br_pol)[0] == pytest.approx(br_value, abs=1e-12)
    rng = np.random.default_rng(0)
    rows = np.nonzero(tree.is_player == 0)[0]
    for _ in range(300):
        dev = pol.copy()
        dev[rows] = 0.0
        dev[rows, rng.integers(0, tree.is_nact[rows])] = 1.0
        assert expected_returns(tree, dev)[0] <= br_value + 1e-12


def test_four_player_nash_conv_and_team_best_response():
    tree = build_tree(TINY_4P)
    uniform = uniform_policy(tree)
    solver = TabularCFR(tree, "cfr+")
    solver.iterate(1000)
    avg = solver.average_policy()
    nc = nash_conv(tree, avg)
    assert 0 <= nc < 1e-2 < nash_conv(tree, uniform)
    team = team_best_response(tree, avg, 0)
    assert team.gain >= -1e-12 and team.gain < 1e-2
    assert team_best_response(tree, uniform, 0).gain > 0.1


def test_checkpoint_resume_equals_uninterrupted(tmp_path):
    tree = build_tree(SMALL_2P)
    straight = TabularCFR(tree, "dcfr")
    straight.iterate(40)
    first = TabularCFR(tree, "dcfr")
    first.iterate(25)
    first.save(tmp_path / "c.npz")
    resumed = TabularCFR(tree, "dcfr")
    resumed.load(tmp_path / "c.npz")
    resumed.iterate(15)
    assert resumed.iteration == 40
    np.testing.assert_array_equal(resumed.average_policy(), straight.average_policy())
    np.testing.assert_array_equal(resumed.current_policy(), straight.current_policy())


def test_bad_checkpoints_are_refused(tmp_path):
    tree = build_tree(SMALL_2P)
    s = TabularCFR(tree, "cfr+")
    s.iterate(3)
    s.save(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="variant"):
        TabularCFR(tree, "cfr").load(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="params|tree"):
        TabularCFR(build_tree(SMALL_2P.replace(scores=(1, 0))), "cfr+").load(tmp_path / "c.npz")
    damaged = tmp_path / "d.npz"
    damaged.write_bytes((tmp_path / "c.npz").read_bytes()[:200])
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        s.load(damaged)
    with pytest.raises(ValueError, match="unknown CFR variant"):
        TabularCFR(tree, "cfr++")


def test_policies_are_copies():
    s = TabularCFR(build_tree(TINY_2P), "cfr")
    s.iterate(2)
    p = s.current_policy()
    p[:] = 0
    assert s.current_policy().sum() > 0


def test_bad_policy_shape_is_refused():
    tree = build_tree(TINY_2P)
    with pytest.raises(ValueError, match="policy shape"):
        exploitability(tree, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="not a distribution"):
        exploitability(tree, np.zeros((tree.num_infosets, 5)))
