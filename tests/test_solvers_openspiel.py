"""Native solvers against OpenSpiel on small variants of each profile:
vanilla CFR iterates equal OpenSpiel's CFRSolver to 1e-9 per action, and native
exploitability / NashConv equal pyspiel's on the same policies to 1e-9. Also the
game value found by CFR against the sequence-form LP (Koller et al. 1996)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import vitou_ai  # noqa: F401  (registers python_vitou)
from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.cfr import TabularCFR
from vitou_ai.solvers.flat.evaluate import (
    expected_returns,
    exploitability,
    nash_conv,
    uniform_policy,
)
from vitou_ai.solvers.flat.export import from_openspiel_table, to_openspiel_dict
from vitou_ai.solvers.flat.sequence_form import game_value
from vitou_ai.solvers.flat.tree import build_tree

VARIANTS = {
    "2p": dict(profile="vitou_2p", ranks=3, copies=1, hand_size=1),
    "2p-11": dict(profile="vitou_2p", ranks=3, copies=1, hand_size=1, scores=(11, 5)),
    "4p": dict(profile="vitou", ranks=2, copies=3, hand_size=1),
    "cason-4p": dict(profile="vitou_cason", ranks=3, copies=2, hand_size=1, scores=(3, 11)),
}


def load(kw):
    args = ",".join(f"{k}={v}" for k, v in kw.items() if k != "scores")
    if "scores" in kw:
        args += f",score0={kw['scores'][0]},score1={kw['scores'][1]}"
    return pyspiel.load_game(f"python_vitou({args})")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_vanilla_cfr_iterates_equal_openspiel(name):
    kw = VARIANTS[name]
    game = load(kw)
    tree = build_tree(VitouParams(**kw))
    ours = TabularCFR(tree, "cfr")
    theirs = pyspiel.CFRSolver(game)
    for _ in range(7):
        theirs.evaluate_and_update_policy()
    ours.iterate(7)
    avg_theirs = theirs.tabular_average_policy()
    table = avg_theirs.policy_table()
    mapped = from_openspiel_table(tree, table)
    assert len(table) == tree.num_infosets
    np.testing.assert_allclose(ours.average_policy(), mapped, atol=1e-9, rtol=0)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_exploitability_and_nash_conv_equal_pyspiel(name):
    kw = VARIANTS[name]
    game = load(kw)
    tree = build_tree(VitouParams(**kw))
    solver = TabularCFR(tree, "cfr+")
    solver.iterate(5)
    for pol in (uniform_policy(tree), solver.average_policy()):
        tab = pyspiel.TabularPolicy(to_openspiel_dict(tree, pol))  # kept alive
        assert nash_conv(tree, pol) == pytest.approx(pyspiel.nash_conv(game, tab), abs=1e-9)
        assert exploitability(tree, pol) == pytest.approx(pyspiel.exploitability(game, tab),
                                                          abs=1e-9)
        ret = pyspiel.expected_returns(game.new_initial_state(), tab, -1, True)
        np.testing.assert_allclose(expected_returns(tree, pol), ret, atol=1e-9)


def test_cfr_game_value_agrees_with_sequence_form_lp():
    tree = build_tree(VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2))
    lp = game_value(tree)
    solver = TabularCFR(tree, "dcfr")
    solver.iterate(1500)
    avg = solver.average_policy()
    assert exploitability(tree, avg) < 1e-4
    assert expected_returns(tree, avg)[0] == pytest.approx(lp, abs=1e-4)
