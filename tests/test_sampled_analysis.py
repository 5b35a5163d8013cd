"""Bluff analysis from sampled deals (vitou_ai.eval.sampled_analysis): on a four-player
variant small enough for the exact tree, the sampled rates agree with the exact
reach-weighted ones (vitou_ai.eval.analysis) within their intervals; the counts are the
policy's probabilities (Rao-Blackwellised); bad input is refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai.bots.named import parse_bot
from vitou_ai.bots.tabular import TabularPolicy
from vitou_ai.eval import analysis as A
from vitou_ai.eval import sampled_analysis as S
from vitou_ai.rules import VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.public.export import flat_bot_policy

#: four players, one card each of T T 9 9 A A K K: the flat tree exists (R4.2: the first
#: three to play may raise, the next answers, R4.3)
TINY_4P = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=1, dealer=-1)
DEALS = 6000


def _exact(df, mask, num, den=None):
    d = df[mask & (df.reach > 0)]
    w = d.reach * (1.0 if den is None else d[den])
    return float((d.reach * d[num]).sum() / w.sum())


@pytest.fixture(scope="module")
def tiny():
    bot = parse_bot("bluffer")  # raises light, bluffs, refuses now and then
    tree = build_tree(TINY_4P)
    df = A.infoset_table(tree, flat_bot_policy(tree, bot))
    df["raise_weak"] = df["raise"] * (df["best_card"] == "K")
    return df, S.sample_decisions(TINY_4P, bot, DEALS, seed=3, weak_rank="K")


def test_sampled_rates_agree_with_the_exact_tree(tiny):
    df, sample = tiny
    # the reach of the exact table is the expected number of decisions per deal
    exact_raise = {}
    for pos in range(4):
        m = df.can_raise & (df.position == pos)
        if (df[m].reach > 0).any():
            exact_raise[pos] = _exact(df, m, "raise")
    t = S.rate_table(sample, "raise", ["position"], confidence=0.99)
    assert set(t.index) == set(exact_raise)
    for pos, r in exact_raise.items():
        assert t.loc[pos, "low"] <= r <= t.loc[pos, "high"], (pos, r, t.loc[pos].to_dict())
        reach = float(df[df.can_raise & (df.position == pos)].reach.sum())
        assert t.loc[pos, "per_deal"] == pytest.approx(reach, rel=0.1)
    checks = [("refuse", df.answering, "refuse", None),
              ("bluff", df.can_raise, "raise_weak", "raise")]
    for rate, mask, num, den in checks:
        exact = _exact(df, mask, num, den)
        row = S.rate_table(sample, rate, confidence=0.99).loc["all"]
        assert row["low"] <= exact <= row["high"], (rate, exact, row.to_dict())
        assert 0.0 < exact < 1.0  # the check has teeth: neither rate is trivial
    # by stake: the refusal rates of 3 and 6 (R4.3)
    rr = S.rate_table(sample, "refuse", ["stake"], confidence=0.99)
    for stake, row in rr.iterrows():
        m = df.answering & (df.stake == stake)
        if row["decisions"] >= 50:
            assert row["low"] <= _exact(df, m, "refuse") <= row["high"], stake


def test_counts_are_the_policys_probabilities(tiny):
    """Rao-Blackwellised: a decision adds P(raise), not whether it raised."""
    _, sample = tiny
    f = sample.frame
    classes = f[["raise", "refuse", "play", "gesture", "other"]].sum(axis=1)
    answer = f.answering
    np.testing.assert_allclose(classes, 1.0, atol=1e-9)
    np.testing.assert_allclose(f.loc[answer, "accept"], f.loc[answer, "play"])
    r = f[f.can_raise]
    assert ((r["raise"] > 0) & (r["raise"] < 1)).any()  # fractional counts, not 0 / 1
    t = S.rate_table(sample, "raise")
    assert t.loc["all", "rate"] == pytest.approx(r["raise"].sum() / len(r))
    assert t.loc["all", "decisions"] == len(r)
    drawn = float((r.action == L.A_RAISE).mean())  # the drawn actions agree, noisier
    assert t.loc["all", "low"] - 0.02 <= drawn <= t.loc["all", "high"] + 0.02
    # the random bot: exactly 1 / legal actions at each decision
    rnd = S.sample_decisions(TINY_4P, parse_bot("random"), 50, seed=1).frame
    first = rnd[(rnd.position == 0) & rnd.can_raise]
    np.testing.assert_allclose(first["raise"], 1.0 / 2.0)  # raise or play the one card


def test_signals_partner_gesture_and_false_gestures():
    params = VitouParams(profile="vitou", ranks=2, copies=2, hand_size=1, signals=True,
                         dealer=-1)
    sample = S.sample_decisions(params, parse_bot("bluffer"), 400, seed=0, weak_rank="9")
    f = sample.frame
    g = f[f.gesture_phase]
    assert len(g) == 4 * 400  # one gesture per player per deal (R7.1)
    # partners sit opposite (R0): position 0's partner (position 2) gestures after it
    assert (g[g.position <= 1].partner_gesture == "-").all()
    assert (f[~f.gesture_phase].partner_gesture != "-").all()
    t = S.rate_table(sample, "raise", ["partner_gesture"])
    assert "-" not in t.index and len(t) >= 2
    fg = S.rate_table(sample, "false_gesture", ["position"])
    assert ((fg.rate >= 0) & (fg.rate <= 1)).all()
    ax = S.plot_rates(sample, "raise", ["partner_gesture"])
    assert ax.patches


def test_bad_input_is_refused_in_one_line(tmp_path):
    bot = parse_bot("counter")
    for n in (0, -5, 2.5):
        with pytest.raises(ValueError, match="n_deals") as e:
            S.sample_decisions(TINY_4P, bot, n)
        assert "\n" not in str(e.value)
    two = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1)
    tree = build_tree(two)
    probs = np.full((tree.num_infosets, L.NUM_ACTIONS), 0.2, np.float32)
    TabularPolicy(tree.is_keys, probs, name="two", params=two).save(tmp_path / "p.npz")
    other = TabularPolicy.load(tmp_path / "p.npz")
    with pytest.raises(ValueError) as e:
        S.sample_decisions(TINY_4P, other, 10)
    assert "\n" not in str(e.value)
    sample = S.sample_decisions(TINY_4P, bot, 20)
    for bad in ({"rate": "bluffs"}, {"rate": "raise", "by": ["nope"]}):
        with pytest.raises(ValueError) as e:
            S.rate_table(sample, **bad)
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="weak_rank"):
        S.sample_decisions(TINY_4P, bot, 10, weak_rank="7")
    with pytest.raises(ValueError, match="deal"):
        S.sample_decisions(TINY_4P.replace(mode="match"), bot, 10)


def test_a_group_without_base_has_no_interval(tiny):
    """A group whose denominator is 0 (here: no raises at position 0, so no bluff share)
    reads NaN for its rate and both ends of its interval, not [0, 1]."""
    import dataclasses

    _, sample = tiny
    f = sample.frame.copy()
    f.loc[f.position == 0, "raise"] = 0.0
    t = S.rate_table(dataclasses.replace(sample, frame=f), "bluff", ["position"])
    assert np.isnan(t.loc[0, ["rate", "low", "high"]].astype(float)).all()
    rest = t.drop(index=0)[["rate", "low", "high"]]
    assert len(rest) and rest.notna().all().all()


def test_a_policy_that_mostly_falls_back_is_refused_or_reported():
    """A table missing half its rows was analysed without a word, its fallback's random
    play folded into the rates; now it is refused above FALLBACK_LIMIT, and with
    ``allow_fallback=True`` the share is reported (attribute, frame and rate table)."""
    from vitou_ai.sim.batch import FALLBACK_LIMIT, FallbackError

    tree = build_tree(TINY_4P)
    probs = np.full((tree.num_infosets, L.NUM_ACTIONS), 0.2, np.float32)
    full = TabularPolicy(tree.is_keys, probs, name="full", params=TINY_4P)
    half = TabularPolicy(tree.is_keys[::2], probs[::2], name="half", params=TINY_4P)
    s = S.sample_decisions(TINY_4P, full, 200, seed=1)
    assert s.fallback["fallbacks"] == 0 and s.fallback["share"] == 0.0
    assert not s.frame["fell_back"].any()
    assert (S.rate_table(s, "raise")["fallback_share"] == 0.0).all()
    with pytest.raises(FallbackError, match=r"policy 'half' had no strategy at \d") as e:
        S.sample_decisions(TINY_4P, half, 200, seed=1)
    assert "\n" not in str(e.value) and "allow_fallback=True" in str(e.value)
    s = S.sample_decisions(TINY_4P, half, 200, seed=1, allow_fallback=True)
    share = s.fallback["share"]
    assert share > FALLBACK_LIMIT and s.fallback["decisions"] == len(s.frame)
    assert s.frame["fell_back"].mean() == pytest.approx(share)
    t = S.rate_table(s, "raise")
    d = s.frame[s.frame.can_raise]
    assert d["fell_back"].mean() > 0
    assert t.loc["all", "fallback_share"] == pytest.approx(d["fell_back"].mean())
