"""Bluff analysis (vitou_ai.analysis): reach-weighted tables with checkable values."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai import analysis as A
from vitou_ai.rules import VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.solvers.cfr import TabularCFR
from vitou_ai.solvers.evaluate import uniform_policy
from vitou_ai.solvers.tree import build_tree

TINY_2P = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1)


def test_reach_and_chances_are_probabilities():
    tree = build_tree(TINY_2P)
    df = A.infoset_table(tree, uniform_policy(tree))
    assert ((df.p_win >= 0) & (df.p_win + df.p_lose <= 1 + 1e-12)).all()
    # the non-dealer's blind-window decision happens in every deal
    first = df[(df.best_card == "-") & (df.position == 0) & (df.trick == 1)]
    assert first.reach.max() == pytest.approx(1.0)
    # uniform play: raise probability at an infoset is 1 / number of legal actions
    r = df[df.can_raise]
    assert ((r["raise"] > 0) & (r["raise"] <= 0.5)).all()


def test_never_raising_policy_has_no_raises_or_bluffs():
    tree = build_tree(TINY_2P)
    pol = uniform_policy(tree)
    for i in range(tree.num_infosets):
        acts = list(tree.is_actions[i, :tree.is_nact[i]])
        if L.A_RAISE in acts and len(acts) > 1:
            k = acts.index(L.A_RAISE)
            pol[i, k] = 0.0
            pol[i, :len(acts)] /= pol[i, :len(acts)].sum()
    df = A.infoset_table(tree, pol)
    assert A.raise_frequencies(df)["raise"].max() == 0
    assert A.bluff_frequency(df).empty or A.bluff_frequency(df)["raises"].sum() == 0


def test_solved_policy_tables_and_plot(tmp_path):
    tree = build_tree(VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2))
    s = TabularCFR(tree, "dcfr")
    s.iterate(200)
    df = A.infoset_table(tree, s.average_policy())
    b = A.bluff_frequency(df)
    assert ((b.bluff_share >= 0) & (b.bluff_share <= 1)).all()
    rr = A.refusal_rates(df)
    assert ((rr.refuse >= 0) & (rr.refuse <= 1)).all()
    fig = A.plot_summary(df, "test")
    fig.savefig(tmp_path / "x.png")
    assert (tmp_path / "x.png").stat().st_size > 1000


def test_false_gestures_counted_against_the_hand():
    """A policy that always signals 'ten' lies exactly when it holds no T."""
    params = VitouParams(profile="vitou", ranks=2, copies=2, hand_size=1, signals=True)
    tree = build_tree(params)
    pol = uniform_policy(tree)
    for i in range(tree.num_infosets):
        acts = list(tree.is_actions[i, :tree.is_nact[i]])
        if L.A_SIGNAL0 + 1 in acts:
            pol[i, :] = 0.0
            pol[i, acts.index(L.A_SIGNAL0 + 1)] = 1.0
    df = A.infoset_table(tree, pol)
    rate = A.false_gesture_rate(df)
    # the first gesturer holds one card of T T 9 9: no T with probability 1/2
    assert rate.loc[0, "false_share"] == pytest.approx(0.5, abs=1e-9)


def test_policy_from_tabular_round_trip(tmp_path):
    from vitou_ai.bots.tabular import TabularPolicy

    tree = build_tree(TINY_2P)
    s = TabularCFR(tree, "cfr+")
    s.iterate(50)
    pol = s.average_policy()
    probs = np.zeros((tree.num_infosets, L.NUM_ACTIONS), np.float32)
    for i in range(tree.num_infosets):
        for k in range(tree.is_nact[i]):
            probs[i, tree.is_actions[i, k]] = pol[i, k]
    TabularPolicy(tree.is_keys, probs).save(tmp_path / "p.npz")
    back = A.policy_from_tabular(tree, TabularPolicy.load(tmp_path / "p.npz"))
    np.testing.assert_allclose(back, pol, atol=1e-6)


def test_score_sweep_no_raises_one_from_end():
    out = A.score_sweep(TINY_2P, [(0, 0), (11, 3)], iterations=50)
    assert out.loc[1, "raise_rate"] == 0.0  # R4.2d / R9.3
    assert out.loc[0, "raise_rate"] > 0.0
