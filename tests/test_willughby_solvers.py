"""Willughby's Put (docs/RULES_family.md P7: three or four players, each for themselves) on
the flat tree: one utility per seat, per-seat CFR and exact NashConv, checked against
OpenSpiel on tiny variants; the two-team code paths refuse the per-seat tree in one line."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import vitou_ai  # noqa: F401  (registers python_vitou)
from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.cfr import TabularCFR
from vitou_ai.solvers.flat.evaluate import (
    expected_returns,
    nash_conv,
    pooled_team_best_response,
    team_best_response,
    uniform_policy,
)
from vitou_ai.solvers.flat.export import from_openspiel_table, to_openspiel_dict
from vitou_ai.solvers.flat.tree import NotTwoTeamsError, build_tree

TINY = {
    "3p": dict(profile="put_willughby", ranks=3, copies=2, hand_size=2),
}


def load(kw):
    return pyspiel.load_game("python_vitou(" + ",".join(f"{k}={v}" for k, v in kw.items())
                             + ")")


@pytest.fixture(scope="module")
def trees():
    return {name: build_tree(VitouParams(**kw)) for name, kw in TINY.items()}


def test_per_seat_utilities_are_zero_sum_and_the_team_utility_is_unset(trees):
    for tree in trees.values():
        term = tree.kind == 2
        assert tree.util_seats.shape == (tree.num_nodes, tree.num_players)
        np.testing.assert_allclose(tree.util_seats[term].sum(1), 0.0, atol=1e-12)
        assert np.abs(tree.util_seats[term]).max() > 0
        assert np.isnan(tree.util).all()


@pytest.mark.parametrize("name", list(TINY))
def test_vanilla_cfr_iterates_equal_openspiel(trees, name):
    tree = trees[name]
    ours = TabularCFR(tree, "cfr")
    theirs = pyspiel.CFRSolver(load(TINY[name]))
    for _ in range(5):
        theirs.evaluate_and_update_policy()
    ours.iterate(5)
    table = theirs.tabular_average_policy().policy_table()
    assert len(table) == tree.num_infosets
    np.testing.assert_allclose(ours.average_policy(), from_openspiel_table(tree, table),
                               atol=1e-9, rtol=0)


@pytest.mark.parametrize("name", list(TINY))
def test_returns_and_nash_conv_equal_pyspiel(trees, name):
    tree = trees[name]
    game = load(TINY[name])
    solver = TabularCFR(tree, "dcfr")
    solver.iterate(5)
    for pol in (uniform_policy(tree), solver.average_policy()):
        tab = pyspiel.TabularPolicy(to_openspiel_dict(tree, pol))  # kept alive
        assert nash_conv(tree, pol) == pytest.approx(pyspiel.nash_conv(game, tab), abs=1e-9)
        ret = pyspiel.expected_returns(game.new_initial_state(), tab, -1, True)
        np.testing.assert_allclose(expected_returns(tree, pol), ret, atol=1e-9)


def test_dcfr_converges_on_the_three_player_tree(trees):
    tree = trees["3p"]
    solver = TabularCFR(tree, "dcfr")
    start = nash_conv(tree, solver.average_policy())
    solver.iterate(200)
    end = nash_conv(tree, solver.average_policy())
    assert start > 1.0 and end < 1e-4, (start, end)


def test_team_tools_refuse_a_per_seat_tree_in_one_line(trees):
    tree = trees["3p"]
    pol = uniform_policy(tree)
    for call in (lambda: team_best_response(tree, pol, 0),
                 lambda: pooled_team_best_response(tree, pol, 0)):
        with pytest.raises(NotTwoTeamsError) as info:
            call()
        assert "\n" not in str(info.value) and "P7.0" in str(info.value)


def test_pack_key_keeps_tokens_of_32_and_more_apart():
    from vitou_ai.rules import layout as L
    from vitou_ai.solvers.infoset_table import pack_key

    a = np.full(L.KEY_SIZE, -1, np.int8)
    a[:4] = (1, 0, 0, 0)
    a[L.K_NTOK] = 3
    b = a.copy()
    a[L.K_TOK:L.K_TOK + 3] = (8, 46, 46)  # put, see, see (P7.4)
    b[L.K_TOK:L.K_TOK + 3] = (8, 47, 46)  # 46 << 5 | 46 == 47 << 5 | 46 in 5 bits
    assert pack_key(a) != pack_key(b)
    c = a.copy()
    c[L.K_NTOK] = L.MAX_TOKENS
    c[L.K_TOK:] = 47
    d = c.copy()
    d[-1] = 46  # the last token, past the 10th word boundary of the 6-bit stream
    assert pack_key(c) != pack_key(d)


def test_vitou_ai_train_runs_es_mccfr_on_put_willughby(tmp_path, capsys):
    # the default of a variant whose flat tree is too large (tests/test_willughby_training.py)
    from vitou_ai.commands.cli import main

    out = tmp_path / "run"
    assert main(["train", "--profile", "put_willughby", "--ranks", "3", "--copies", "2",
                 "--hand-size", "2", "--solver", "es-mccfr", "--iterations", "200",
                 "--eval-deals", "40", "--bots", "random", "--out", str(out),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "es-mccfr;" in text and "nash_conv" in text
    assert (out / "policy.npz").exists()
