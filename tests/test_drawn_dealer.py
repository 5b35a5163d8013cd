"""A dealer drawn by chance (``dealer=-1``, R1.4) is never read as a seat.

The score sweep took ``(dealer + 1) % players`` with
``dealer=-1``, i.e. seat 0, whose value averaged over the draw is 0 in two
players, where the README's figure for the dealer's left is -0.19951. Every
place that computes a seat from ``dealer`` either averages over the draw
(:func:`~vitou_ai.solvers.flat.evaluate.value_by_position`, the score sweep, the
experiments) or takes the seat drawn (:func:`~vitou_ai.rules.history.record`), or
refuses (:meth:`~vitou_ai.rules.history.HandHistory.deal_sequence`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import experiment, play_random
from vitou_ai.eval import analysis as A
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules.history import HandHistory, HistoryError, record, replay
from vitou_ai.solvers.flat.evaluate import (
    expected_returns,
    exploitability,
    uniform_policy,
    value_by_position,
)
from vitou_ai.solvers.flat.tree import build_tree

ROOT = Path(__file__).resolve().parents[1]
SMALL_2P = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2)


def _knob_effects():
    """The experiment script as a module (``experiments/`` is not a package)."""
    return experiment("knob_effects.py")


@pytest.mark.parametrize("params", [
    VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1),
    VitouParams(profile="vitou", ranks=2, copies=2, hand_size=1),
    VitouParams(profile="vitou_cason", ranks=2, copies=2, hand_size=1, scores=(3, 0)),
], ids=lambda p: p.profile)
def test_value_by_position_averages_the_fixed_dealer_trees(params):
    """Under the uniform policy a drawn-dealer tree is the fixed-dealer trees side by
    side, so its values by position are their average, seat by seat."""
    drawn = build_tree(params.replace(dealer=-1))
    got = value_by_position(drawn, uniform_policy(drawn))
    want = np.zeros(params.players)
    for d in range(params.players):
        tree = build_tree(params.replace(dealer=d))
        u = expected_returns(tree, uniform_policy(tree))
        want += np.array([u[(d + 1 + k) % params.players] for k in range(params.players)])
        assert value_by_position(tree, uniform_policy(tree)) == pytest.approx(
            [u[(d + 1 + k) % params.players] for k in range(params.players)], abs=1e-15)
    want /= params.players
    assert got == pytest.approx(want, abs=1e-12)
    assert got.sum() == pytest.approx(0.0, abs=1e-12)  # zero-sum, two teams


def test_score_sweep_with_a_drawn_dealer_matches_the_knob_experiment():
    """The sweep (dealer drawn) and experiments/knob_effects.py (dealer seat 0) agree
    on the value of the dealer's left, within what their exploitabilities allow
    (in a two-player zero-sum game an eps-equilibrium's value is within 2 eps of the
    game value)."""
    knob = _knob_effects().solve(SMALL_2P.replace(dealer=0), "dcfr", 200)
    sweep = A.score_sweep(SMALL_2P.replace(dealer=-1), [(0, 0)], iterations=200)
    row = sweep.iloc[0]
    assert abs(knob["value_dealer_left"]) > 0.05  # seat 0 averaged over the draw would be 0
    tol = 2 * (knob["exploitability"] + row["exploitability"]) + 1e-9
    assert row["value_dealer_left"] == pytest.approx(knob["value_dealer_left"], abs=tol)


@pytest.mark.slow
def test_score_sweep_reproduces_the_readme_figure():
    """The README's -0.19951 (vitou_2p, full deck, two-card hands, 2,000 DCFR
    iterations), read from the experiment's results file, from the sweep with the
    dealer drawn as `vitou-ai train` leaves it."""
    summary = json.loads((ROOT / "results" / "knob_effects" / "summary.json").read_text())
    ref = summary["early_end_card"]
    iters = ref["iterations"]
    sweep = A.score_sweep(VitouParams(profile="vitou_2p", hand_size=2, dealer=-1), [(0, 0)],
                          iterations=iters)
    row = sweep.iloc[0]
    tol = 2 * (ref["exploitability"] + row["exploitability"]) + 1e-9
    assert row["value_dealer_left"] == pytest.approx(ref["value_dealer_left"], abs=tol)


def test_drawn_dealer_tree_root_mean_is_not_the_dealers_left():
    """The fault itself: by symmetry seat 0's value over the draw is 0 in two players."""
    tree = build_tree(SMALL_2P.replace(dealer=-1))
    pol = uniform_policy(tree)
    assert expected_returns(tree, pol)[0] == pytest.approx(0.0, abs=1e-12)
    assert abs(value_by_position(tree, pol)[0]) > 1e-3
    assert exploitability(tree, pol) > 0


@pytest.mark.parametrize("profile", ["vitou", "vitou_2p"])
def test_record_takes_the_seat_drawn(profile, tmp_path):
    game = Game(profile=profile, dealer=-1)
    dealers = set()
    for seed in range(60):
        state, actions = play_random(game, seed)
        hh = record(game, actions)
        assert hh.params.dealer == actions[0] - 10  # C_DEALER0 + seat
        dealers.add(hh.params.dealer)
        hh.save(tmp_path / "h.toml")
        again = replay(HandHistory.load(tmp_path / "h.toml"))
        assert again.returns() == state.returns()
        assert again.last_deal() == state.last_deal()
    assert len(dealers) > 1


def test_deal_sequence_refuses_a_drawn_dealer():
    hh = HandHistory(VitouParams(profile="vitou_2p", dealer=-1), ["T 9 A", "K Q J"], [])
    with pytest.raises(HistoryError, match="dealer must be a seat"):
        hh.deal_sequence()
