"""Intervals with honest widths (vitou_ai.eval.stats): fewer than MIN_UNITS independent
units, or a mean whose units are all alike, give NaN bounds and a printed reason, never
a zero-width interval shown as certainty. Before this rule one duplicate pair gave
``ppd_lo == ppd_hi == 1.0`` and ``vitou-ai tournament --deals 4`` printed
``-1.000 [-1.000, -1.000]``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import vitou_ai
from vitou_ai.commands.cli import main
from vitou_ai.eval.stats import (
    MIN_UNITS,
    format_interval,
    interval_note,
    mean_interval,
    ratio_difference_interval,
    ratio_interval,
    wilson_formula,
    wilson_interval,
)

SMALL = dict(profile="vitou_2p", ranks=4, copies=2, hand_size=1)


def _nan(*values: float) -> bool:
    return all(math.isnan(v) for v in values)


def test_every_interval_needs_thirty_units():
    assert MIN_UNITS == 30
    rng = np.random.default_rng(0)
    y = rng.normal(0.2, 1.0, MIN_UNITS)
    x = rng.integers(1, 4, MIN_UNITS).astype(float)
    for n in (1, 2, MIN_UNITS - 1):
        m, lo, hi = ratio_interval(y[:n], x[:n])
        assert m == pytest.approx(y[:n].sum() / x[:n].sum()) and _nan(lo, hi)
        m, lo, hi = mean_interval(y[:n])
        assert m == pytest.approx(y[:n].mean()) and _nan(lo, hi)
        d, lo, hi = ratio_difference_interval(y[:n], x[:n], -y[:n], x[:n])
        assert d == pytest.approx(2 * y[:n].sum() / x[:n].sum()) and _nan(lo, hi)
        assert _nan(*wilson_interval(n // 2, n)) and _nan(*wilson_formula(n // 2, n))
    # at 30 units every one is given, with a width
    for lo, hi in (ratio_interval(y, x)[1:], mean_interval(y)[1:],
                   ratio_difference_interval(y, x, -y, x)[1:], wilson_interval(12, 30),
                   wilson_formula(12, 30)):
        assert lo < hi
    # units without a base (x = 0: a deal without the decision) do not count
    x0 = np.concatenate([x, np.zeros(100)])
    y0 = np.concatenate([y, np.zeros(100)])
    assert not _nan(*ratio_interval(y0, x0)[1:])
    assert _nan(*ratio_interval(y0[1:], x0[1:])[1:])  # 29 units with a base
    with pytest.raises(ValueError, match="min_n"):
        ratio_interval(y, x, min_n=1)  # a ratio's variance needs two units


def test_a_degenerate_sample_is_flagged_not_certain():
    # every pair alike: zero estimated variance, at any n
    for n in (MIN_UNITS, 1000):
        m, lo, hi = ratio_interval(np.full(n, -2.0), np.full(n, 2.0))
        assert m == -1.0 and _nan(lo, hi)
        assert interval_note(n, lo, hi, "pairs") == f"no variation (all {n} pairs alike)"
        assert _nan(*mean_interval(np.full(n, 0.1))[1:])  # rounding is not variation
        assert _nan(*ratio_difference_interval(np.ones(n), np.ones(n), np.zeros(n),
                                               np.ones(n))[1:])
    # a proportion of 0 or n has Wilson's width (about the rule of three's 3/n)
    lo, hi = wilson_interval(0, MIN_UNITS)
    assert lo == 0.0 and hi == pytest.approx(0.1135, abs=1e-4)
    lo, hi = wilson_interval(MIN_UNITS, MIN_UNITS)
    assert hi == 1.0 and lo == pytest.approx(1 - 0.1135, abs=1e-4)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_values_that_are_not_finite_are_refused(bad):
    """NaN or inf among 30 values gave NaN bounds that interval_note called "no variation
    (all 30 units alike)"; now each interval function refuses them in one line."""
    x = np.r_[np.arange(29.0), bad]
    one = np.ones(30)
    msg = r"must be finite, got 1 NaN or inf of 30$"
    with pytest.raises(ValueError, match="^values " + msg):
        mean_interval(x)
    with pytest.raises(ValueError, match="^y " + msg):
        ratio_interval(x, one)
    with pytest.raises(ValueError, match="^x " + msg):
        ratio_interval(one, np.abs(x))
    with pytest.raises(ValueError, match="^y2 " + msg):
        ratio_difference_interval(one, one, x, one)


def test_notes_and_formatting():
    assert interval_note(4, math.nan, math.nan, "pairs") == \
        "n too small (4 pairs; at least 30 needed)"
    assert interval_note(40, -0.1, 0.2, "pairs") is None
    assert format_interval(-0.1, 0.2, 40, "pairs") == "[-0.100, +0.200]"
    assert format_interval(0.25, 0.5, 40, "games", ".1%") == "[25.0%, 50.0%]"
    assert format_interval(math.nan, math.nan, 2, "pairs") == \
        "n too small (2 pairs; at least 30 needed)"


def test_one_duplicate_pair_gives_no_interval():
    """The issue's case: ``run_tournament(bots, params, games=1)`` returned
    ``ppd_lo == ppd_hi == 1.0`` from one duplicate pair."""
    params = vitou_ai.VitouParams(**SMALL)
    bots = [vitou_ai.load_policy(b) for b in ("random", "counter")]
    res = vitou_ai.run_tournament(bots, params, games=1, seed=0)
    for row in res.pairs + res.ratings:
        assert row["ppd_n"] == 1 and _nan(row["ppd_lo"], row["ppd_hi"])
        assert math.isfinite(row["points_per_deal"])
    for row in res.pairs:
        assert row["win_n"] <= 2 and _nan(row["win_lo"], row["win_hi"])
    js = res.to_json()
    assert js["interval_min_units"] == 30
    assert js["pairs"][0]["ppd_lo"] is None and js["ratings"][0]["ppd_hi"] is None
    big = vitou_ai.run_tournament(bots, params, games=2 * MIN_UNITS, seed=0)
    for row in big.ratings:
        assert row["ppd_n"] == MIN_UNITS and row["ppd_lo"] < row["points_per_deal"] < row["ppd_hi"]


def test_cli_tournament_says_n_too_small(tmp_path, capsys):
    """``vitou-ai tournament --deals 4`` printed ``-1.000 [-1.000, -1.000]`` when both
    pairs agreed."""
    code = main(["tournament", "--profile", "vitou_2p", "--ranks", "4", "--copies", "2",
                 "--hand-size", "1", "--bots", "random", "counter", "--deals", "4", "--seed",
                 "0", "--out", str(tmp_path / "t"), "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0
    assert text.count("n too small (2 pairs; at least 30 needed)") == 4  # 2 pairs, 2 ranks
    assert "decisive games; at least 30 needed" in text
    assert "nan" not in text.lower().replace("nanosecond", "")
    js = json.loads((tmp_path / "t" / "tournament.json").read_text())
    assert all(r["ppd_lo"] is None and r["ppd_n"] == 2 for r in js["ratings"])
    assert (tmp_path / "t" / "tournament.png").exists()  # the plot takes NaN bounds


def test_cli_simulate_says_n_too_small(capsys):
    code = main(["simulate", "--profile", "vitou_2p", "--ranks", "4", "--copies", "2",
                 "--hand-size", "1", "--bots", "random", "counter", "--deals", "5"])
    text = capsys.readouterr().out
    assert code == 0 and "n too small (5 deals; at least 30 needed)" in text
    assert "± 0.0000" not in text
    code = main(["simulate", "--profile", "vitou_2p", "--ranks", "4", "--copies", "2",
                 "--hand-size", "1", "--bots", "random", "counter", "--deals", "400"])
    text = capsys.readouterr().out
    assert code == 0 and " ± " in text and "n too small" not in text
