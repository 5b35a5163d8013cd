"""Tournaments (vitou_ai.eval): the statistics against known answers and SciPy, the
round robin's symmetry, the output files and the `vitou-ai tournament` command."""

from __future__ import annotations

import json
import math
import shlex

import numpy as np
import pandas as pd
import pytest

from vitou_ai.bots import RandomPolicy, TabularPolicy, named_bot
from vitou_ai.bots.named import parse_bot
from vitou_ai.commands.cli import main
from vitou_ai.eval.stats import (
    fit_elo,
    mean_interval,
    ratio_interval,
    wilson_formula,
    wilson_interval,
)
from vitou_ai.eval.tournament import plot, run_tournament, write_outputs
from vitou_ai.rules import VitouParams
from vitou_ai.rules import layout as L


def test_wilson_known_values_and_library_agreement():
    # Wilson (1927) closed form, e.g. Newcombe (1998, Stat. Med. 17:857, table I):
    # 0/10 -> [0, 0.2775]; 5/10 -> [0.2366, 0.7634].
    # (min_n=1: the bare formula; the package withholds intervals below 30 trials)
    assert wilson_formula(0, 10, min_n=1) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson_formula(5, 10, min_n=1) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert all(math.isnan(v) for v in wilson_formula(0, 0, min_n=1))
    for n in (1, 7, 50, 1000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            assert wilson_interval(k, n, min_n=1) == pytest.approx(
                wilson_formula(k, n, min_n=1), abs=1e-9)
            lo, hi = wilson_formula(k, n, 0.99, min_n=1)
            assert lo <= k / n <= hi
    scipy_stats = pytest.importorskip("scipy.stats")
    ci = scipy_stats.binomtest(37, 90).proportion_ci(method="wilson")
    assert wilson_formula(37, 90) == pytest.approx((ci.low, ci.high), abs=1e-12)
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


INTEGER_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                  np.uint64)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_counts_of_every_numpy_integer_width(dtype):
    """``4 n^2`` overflowed int32 (10 of 23171 was 11% off).
    Counts of any NumPy integer width give the numbers of Python ints, here
    checked against SciPy's own Wilson interval."""
    scipy_stats = pytest.importorskip("scipy.stats")
    info = np.iinfo(dtype)
    cases = [(10, 23171), (3, 200), (0, 90), (90, 90), (int(info.max) // 3, int(info.max))]
    for k, n in cases:
        if n > info.max:
            continue
        ci = scipy_stats.binomtest(k, n).proportion_ci(method="wilson")
        want = (0.0 if k == 0 else ci.low, 1.0 if k == n else ci.high)
        for f in (wilson_formula, wilson_interval):
            got = f(dtype(k), dtype(n))
            assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (f.__name__, k, n)
            assert got == f(k, n) and all(type(v) is float for v in got)
    assert wilson_formula(np.int32(10), np.int32(23171)) == pytest.approx(
        wilson_formula(10, 23171), rel=1e-12)
    for bad in (10.0, True, "10", np.float32(10)):
        with pytest.raises(TypeError, match="integer count"):
            wilson_interval(bad, 20)
    with pytest.raises(ValueError, match="successes <= n"):
        wilson_formula(np.uint8(5), np.int64(3))


def test_mean_interval_is_students_t():
    scipy_stats = pytest.importorskip("scipy.stats")
    x = np.array([1, 4, 2, 8, 5, 7], dtype=np.int16)  # an integer array is read as float64
    m, lo, hi = mean_interval(x)
    want = scipy_stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=scipy_stats.sem(x))
    assert math.isnan(lo) and math.isnan(hi)  # 6 values: withheld by default
    m, lo, hi = mean_interval(x, min_n=2)
    assert m == pytest.approx(4.5) and (lo, hi) == pytest.approx(want, rel=1e-12)
    m, lo, hi = mean_interval(np.array([3.0]))
    assert m == 3.0 and math.isnan(lo) and math.isnan(hi)
    with pytest.raises(ValueError):
        mean_interval(np.array([]))


def test_ratio_interval():
    rng = np.random.default_rng(1)
    y = rng.normal(0.3, 2.0, 500)
    r, lo, hi = ratio_interval(y, np.ones(500))  # constant x: the interval of a mean
    half = 1.959964 * y.std(ddof=1) / math.sqrt(500)
    assert r == pytest.approx(y.mean()) and (lo, hi) == pytest.approx((r - half, r + half))
    x = rng.integers(5, 30, 400).astype(float)  # deals per match
    y = 0.4 * x + rng.normal(0, 1, 400) * np.sqrt(x)
    r, lo, hi = ratio_interval(y, x)
    assert r == pytest.approx(y.sum() / x.sum()) and lo < 0.4 < hi
    with pytest.raises(ValueError):
        ratio_interval(np.ones(3), np.zeros(3))


def test_elo_recovers_bradley_terry_strengths():
    true = np.array([-200.0, 0.0, 150.0, 50.0])
    true -= true.mean()
    p = 1.0 / (1.0 + 10 ** ((true[None, :] - true[:, None]) / 400.0))  # P(i beats j)
    wins = 1000.0 * p
    np.fill_diagonal(wins, 0.0)
    assert fit_elo(wins, prior=0.0) == pytest.approx(true, abs=1e-6)
    # MLE score equations (Hunter 2004): each player's wins equal its expected wins
    est = fit_elo(wins, prior=0.0)
    q = 1.0 / (1.0 + 10 ** ((est[None, :] - est[:, None]) / 400.0))
    np.fill_diagonal(q, 0.0)
    assert (q * (wins + wins.T)).sum(1) == pytest.approx(wins.sum(1), rel=1e-8)
    # a perfect record stays finite with the prior, and equal records give equal ratings
    assert np.isfinite(fit_elo(np.array([[0, 10.0], [0, 0]]))).all()
    assert fit_elo(np.array([[0, 5.0], [5.0, 0]])) == pytest.approx([0, 0])
    with pytest.raises(ValueError):
        fit_elo(np.array([[0, 10.0], [0, 0]]), prior=0.0)


def test_round_robin_is_antisymmetric_and_ranks_random_last():
    bots = [RandomPolicy(), named_bot("cautious"), named_bot("counter")]
    res = run_tournament(bots, VitouParams(profile="vitou_2p"), 301, seed=3)
    assert res.games == 302  # duplicate pairs
    df = res.pairs_frame().set_index(["bot", "opponent"])
    assert len(df) == 6
    for (a, b), row in df.iterrows():
        other = df.loc[(b, a)]
        assert (row.wins, row.losses, row.draws) == (other.losses, other.wins, other.draws)
        assert row.wins + row.losses + row.draws == 302
        assert row.points_per_deal == pytest.approx(-other.points_per_deal)
        assert row.win_lo <= row.win_rate <= row.win_hi
        assert row.ppd_lo <= row.points_per_deal <= row.ppd_hi
    assert res.elo is None and res.ranked_by == "points per deal"  # deal mode
    assert [r["rank"] for r in res.ratings] == [1, 2, 3] and res.ratings[-1]["bot"] == "random"
    assert df.loc[("cautious", "random")].ppd_lo > 0  # a clear, seeded effect
    again = run_tournament(bots, VitouParams(profile="vitou_2p"), 301, seed=3)
    assert again.pairs == res.pairs  # same seed, same tournament


def test_outputs_and_match_mode(tmp_path):
    bots = [named_bot("bluffer"), named_bot("counter")]
    res = run_tournament(bots, VitouParams(profile="vitou", target=7, mode="match"), 40, seed=1)
    paths = write_outputs(res, tmp_path / "out")
    pairs = pd.read_csv(paths[0])
    assert list(pairs.bot) == ["bluffer", "counter"]
    assert (pairs.deals >= 40).all()  # a match has at least one deal
    ratings = pd.read_csv(paths[1])
    assert set(ratings.bot) == {"bluffer", "counter"}
    assert (ratings.ranked_by == "Elo").all() and list(ratings["rank"]) == [1, 2]
    assert ratings.elo.is_monotonic_decreasing and abs(res.elo.sum()) < 1e-9
    js = json.loads(paths[2].read_text())
    assert js["rules_version"] and js["mode"] == "match" and js["games_per_pairing"] == 40
    assert js["ranked_by"] == "Elo" and "Bradley-Terry" in js["ranking_method"]
    assert js["bot_specs"][1]["params"]["count"] == 1.0  # the counter bot, reproducible
    assert paths[3].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list((tmp_path / "out").glob(".*.tmp"))  # atomic writes leave nothing behind


def test_cli_tournament(tmp_path, capsys):
    empty = TabularPolicy(np.zeros((0, L.KEY_SIZE), np.int8),
                          np.zeros((0, L.NUM_ACTIONS), np.float32), name="empty")
    empty.save(tmp_path / "empty.npz")  # every infoset unknown: plays the fallback
    out = tmp_path / "t"
    code = main(["tournament", "--bots", "random", "counter", str(tmp_path / "empty.npz") +
                 ":fallback=counter", "--deals", "400", "--profile", "vitou_2p", "--seed", "2",
                 "--out", str(out), "--no-progress", "--allow-fallback"])
    text = capsys.readouterr().out
    assert code == 0
    assert "ranked by points per deal" in text and "empty" in text
    assert "100.00% of" in text.split("played by its fallback")[-1]  # said, not silent
    assert "Elo" not in text.split("ranked by")[1].split("\n")[1]  # no Elo column in deal mode
    pairs = pd.read_csv(out / "pairs.csv").set_index(["bot", "opponent"])
    # the empty table falls back on the counter bot: the same bot, no measurable edge
    row = pairs.loc[("counter", "empty")]
    assert row.ppd_lo < 0 < row.ppd_hi and row.win_lo < 0.5 < row.win_hi
    # the recorded command reproduces the tournament
    command = json.loads((out / "tournament.json").read_text())["command"]
    words = shlex.split(command)
    assert words[:2] == ["vitou-ai", "tournament"]
    words[words.index("--out") + 1] = str(tmp_path / "again")
    assert main([*words[1:], "--no-progress"]) == 0
    capsys.readouterr()
    assert (tmp_path / "again" / "pairs.csv").read_text() == (out / "pairs.csv").read_text()
    for bad in (["--bots", "random", "nobody"], ["--bots", "random"], ["--deals", "0"],
                ["--bots", "random", str(tmp_path / "missing.npz")]):
        assert main(["tournament", *bad, "--out", str(out)]) == 2
        assert "error" in capsys.readouterr().err


def test_deal_mode_ranks_by_points_not_by_deals_won(tmp_path):
    """In deal mode a bot that raises every time wins most deals
    (refusals give it 1 point each) and loses big ones. Elo on win/draw/loss put it
    first; the ranking is by points per deal, with its interval, and every output
    says so."""
    maniac = "heuristic:raise_at=0,reraise_at=0,refuse_below=0,bluff=1"
    bots = [named_bot("counter"), parse_bot(maniac)]
    res = run_tournament(bots, VitouParams(profile="vitou", mode="deal"), 2000, seed=1)
    pairs = res.pairs_frame().set_index("bot")
    assert pairs.loc[maniac, "score"] > 0.5  # it wins more deals than it loses ...
    assert pairs.loc[maniac, "ppd_hi"] < 0  # ... and clearly loses points
    assert res.elo is None and res.ranked_by == "points per deal"
    assert [r["bot"] for r in res.ratings] == ["counter", maniac]
    for r in res.ratings:
        assert r["ppd_lo"] <= r["points_per_deal"] <= r["ppd_hi"] and "elo" not in r
    # two bots: each one's points per deal against all opponents is its pairing's
    assert res.ratings[1]["points_per_deal"] == pytest.approx(pairs.loc[maniac, "points_per_deal"])
    assert (res.ratings[1]["ppd_lo"], res.ratings[1]["ppd_hi"]) == pytest.approx(
        (pairs.loc[maniac, "ppd_lo"], pairs.loc[maniac, "ppd_hi"]))
    paths = write_outputs(res, tmp_path)
    ratings = pd.read_csv(paths[1])
    assert (ratings.ranked_by == "points per deal").all() and "elo" not in ratings.columns
    assert list(ratings.bot) == ["counter", maniac] and list(ratings["rank"]) == [1, 2]
    js = json.loads(paths[2].read_text())
    assert js["ranked_by"] == "points per deal" and "elo_method" not in js
    fig = plot(res)
    assert "ranked by points per deal" in fig.axes[2].get_title()
    assert "points per deal" in fig.axes[2].get_xlabel()


def test_out_naming_an_earlier_tournament_is_refused_unless_forced(tmp_path, capsys):
    out = tmp_path / "t"
    args = ["tournament", "--profile", "vitou_2p", "--bots", "random", "counter", "--deals", "20",
            "--seed", "3", "--out", str(out)]
    assert main(args) == 0
    assert "replacing" not in capsys.readouterr().err
    assert main(args) == 2  # it was overwritten (tests/test_bad_input.py)
    assert "not empty" in capsys.readouterr().err
    assert main([*args, "--force"]) == 0
    assert f"replacing the earlier tournament's outputs in {out}" in capsys.readouterr().err


def test_cli_table_fits_long_names_and_odd_deals_are_noted(tmp_path, capsys):
    """A bot name longer than the 16-character column widens the columns (every row's
    figures line up under the header); an odd --deals is rounded up with a note."""
    long = "counter:bluff=0.25,raise_at=0.7"
    code = main(["tournament", "--bots", "random", long, "--deals", "5", "--profile",
                 "vitou_2p", "--out", str(tmp_path / "t"), "--no-progress"])
    cap = capsys.readouterr()
    assert code == 0
    assert "5 deals per pairing rounded up to 6" in cap.err
    lines = cap.out.splitlines()
    head = next(i for i, s in enumerate(lines) if s.startswith("bot "))
    col = lines[head].index("points/deal") + len("points/deal")
    rows = lines[head + 1:head + 3]
    assert len(rows) == 2 and all(len(r) > col and r[col - 1] != " " for r in rows)
    assert all(r.split()[2] for r in rows)
