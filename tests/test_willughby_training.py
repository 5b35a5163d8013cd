"""Willughby's Put (``put_willughby``, docs/RULES_family.md P7) in ``vitou-ai train``: the
defaults (deck, solver chosen by the flat tree's size), the evaluation each for themselves
(one trained seat against the bot, rotated over the seats, 95% intervals), and the bluff
analysis per seat."""

import io
import json

import numpy as np
import pytest

from vitou_ai import VitouParams
from vitou_ai.bots.named import named_bot
from vitou_ai.training import PointsSettings, dispatch
from vitou_ai.training.evaluation import (
    against_bot_each_for_self,
    rotated_lineups,
    short_row,
)

TINY = dict(profile="put_willughby", ranks=3, copies=2, hand_size=2)


def test_the_default_deck_is_the_top_six_ranks_and_said():
    out = io.StringIO()
    s = dispatch.choose_trainer(PointsSettings(profile="put_willughby", solver="es-mccfr"),
                                out=out)
    assert s.ranks == dispatch.WILLUGHBY_RANKS == 6 and s.solver == "es-mccfr"
    assert "top 6 ranks (3 2 A K Q J)" in out.getvalue()
    given = dispatch.choose_trainer(PointsSettings(**TINY, solver="cfr"), out=io.StringIO())
    assert given.ranks == 3  # a deck given stays


def test_the_default_solver_is_dcfr_where_the_flat_tree_fits(monkeypatch):
    out = io.StringIO()
    s = dispatch.choose_trainer(PointsSettings(**TINY), out=out)
    assert s.solver == "dcfr" and "solver dcfr" in out.getvalue()
    monkeypatch.setattr(dispatch, "WILLUGHBY_FLAT_NODES", 1000)  # 3x2x2 has 6,376 nodes
    out = io.StringIO()
    s = dispatch.choose_trainer(PointsSettings(**TINY), out=out)
    assert s.solver == "es-mccfr" and "more than 1,000 nodes" in out.getvalue()
    # a resumed run keeps its own solver: nothing chosen here
    resumed = dispatch.choose_trainer(PointsSettings(profile="put_willughby", resume=True),
                                      out=io.StringIO())
    assert resumed.solver is None and resumed.ranks is None


def test_rotated_lineups_put_the_trained_seat_everywhere_once():
    lu = rotated_lineups("T", "B", 3)
    assert lu == [["T", "B", "B"], ["B", "T", "B"], ["B", "B", "T"]]
    assert [row.count("T") for row in rotated_lineups("T", "B", 4)] == [1, 1, 1, 1]


def test_a_policy_against_itself_scores_exactly_zero_on_rotated_duplicate_deals():
    # cautious plays deterministically: each group's rotations give every seat's return
    # once, and the game is zero-sum (P7.5); without the rotation seat 0's edge would show
    params = VitouParams(**TINY, dealer=-1)
    r = against_bot_each_for_self(named_bot("cautious"), named_bot("cautious"), params,
                                  deals=600, seed=1)
    assert r["groups"] == 200 and r["points_per_deal"] == 0.0
    assert r["win_rate"] == pytest.approx(1 / 3)


def test_the_interval_is_over_groups_of_cards_and_brackets_the_mean():
    params = VitouParams(**TINY, dealer=-1)
    r = against_bot_each_for_self(named_bot("cautious"), named_bot("random"), params,
                                  deals=600, seed=1)
    assert r["ppd_lo"] < r["points_per_deal"] < r["ppd_hi"]
    assert 0.0 < r["ppd_lo"]  # cautious beats random here (+0.29 [+0.18, +0.40])
    # a 95% t interval over 200 units: half-width about 2 standard errors of a group mean
    assert 0.05 < r["ppd_hi"] - r["ppd_lo"] < 0.5


def test_short_row_gives_intervals_only_when_asked():
    row = {"iteration": 5, "random_ppd": 0.25, "random_ppd_lo": 0.125, "random_ppd_hi": 0.375,
           "counter_ppd": 0.1, "counter_ppd_lo": float("nan"), "counter_ppd_hi": float("nan")}
    assert short_row(row) == "it 5, vs random +0.250, vs counter +0.100"
    assert short_row(row, intervals=True) == ("it 5, vs random +0.250 [+0.125, +0.375], "
                                              "vs counter +0.100")


def test_vitou_ai_train_on_defaults_solves_and_reports_intervals(tmp_path, capsys):
    from vitou_ai.commands.cli import main

    out = tmp_path / "run"
    assert main(["train", "--profile", "put_willughby", "--ranks", "3", "--copies", "2",
                 "--iterations", "60", "--eval-deals", "300", "--out", str(out),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "solver dcfr (put_willughby's default" in text
    done = next(line for line in text.splitlines() if line.startswith("done:"))
    latest = json.loads((out / "run.json").read_text())["latest"]
    assert latest["nash_conv"] < 1e-3
    for b in ("random", "cautious", "bluffer", "counter"):
        lo, hi = latest[f"{b}_ppd_lo"], latest[f"{b}_ppd_hi"]
        assert f"vs {b} {latest[f'{b}_ppd']:+.3f} [{lo:+.3f}, {hi:+.3f}]" in done
        assert lo > 0, (b, lo)  # the solved 3x2x2 policy beats every named bot


@pytest.mark.parametrize("flags, refused", [
    (["--profile", "put_willughby", "--early-end", "trick"], "--early-end is not a knob of put_willughby"),
    (["--profile", "vitou_2p", "--signal-seen", "0.3"], "--signal-seen is not a knob of vitou_2p"),
])
def test_a_knob_the_game_ignores_is_refused_before_the_run(tmp_path, capsys, flags, refused):
    from vitou_ai.commands.cli import main

    out = tmp_path / "run"
    assert main(["train", *flags, "--ranks", "3", "--copies", "2", "--hand-size", "2",
                 "--iterations", "1", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and refused in err[0], err
    assert not out.exists() or not any(out.iterdir())


def test_bluff_analysis_reads_each_seats_own_chances():
    from vitou_ai.eval.analysis import infoset_table, refusal_rates
    from vitou_ai.rules import layout as L
    from vitou_ai.sim.batch import simulate
    from vitou_ai.solvers.flat.evaluate import uniform_policy
    from vitou_ai.solvers.flat.tree import build_tree

    params = VitouParams(**TINY)
    tree = build_tree(params)
    df = infoset_table(tree, uniform_policy(tree))
    assert (df["team"] == df["seat"]).all()
    # uniform play is the random bot's: the first decision's chances to be paid and to pay
    # are the shares of deals its seat's return is above / below 0, by simulation
    # (sampling error about 0.003; a put that all fold to wins nothing, P7.5)
    first = df[tree.is_keys[df["infoset"].to_numpy(), L.K_NTOK] == 0]  # no action yet
    assert first["reach"].sum() == pytest.approx(1.0)
    seat = int(first["seat"].iloc[0])
    p_first = float((first["reach"] * first["p_win"]).sum() / first["reach"].sum())
    res = simulate(params, [named_bot("random")] * 3, 20000, seed=3)
    won = float(np.mean(np.asarray(res[f"seat_return{seat}"]) > 0))
    assert p_first == pytest.approx(won, abs=0.015)
    q_first = float((first["reach"] * first["p_lose"]).sum() / first["reach"].sum())
    pays = float(np.mean(np.asarray(res[f"seat_return{seat}"]) < 0))
    assert q_first == pytest.approx(pays, abs=0.015)
    # a fold answers a put (P7.4): the refusal rate is the folds'
    answers = df[df["answering"] & (df["reach"] > 0)]
    assert len(answers) > 0 and np.allclose(answers["refuse"], 0.5)
    assert refusal_rates(df).loc["put", "refuse"] == pytest.approx(0.5)


def test_bluff_analysis_counts_tricks_among_the_seats_still_in():
    from vitou_ai.eval.analysis import infoset_table
    from vitou_ai.rules import layout as L
    from vitou_ai.solvers.flat.evaluate import uniform_policy
    from vitou_ai.solvers.flat.tree import build_tree

    params = VitouParams(profile="put_willughby", ranks=3, copies=4, hand_size=3)
    tree = build_tree(params)
    df = infoset_table(tree, uniform_policy(tree))
    keys = tree.is_keys[df["infoset"].to_numpy()]
    toks = [list(k[L.K_TOK:L.K_TOK + int(k[L.K_NTOK])]) for k in keys]
    def card(x):
        return L.A_PLAY0 <= x < L.A_RAISE or L.A_PLAY_HI0 <= x < L.A_CONCEDE

    # a fold at the first lead, before any card: tricks of two cards from there, so the
    # fifth card is the third trick's (without the fold it would be the second's)
    early = np.array([L.A_FOLD in t and not any(card(x) for x in t[:t.index(L.A_FOLD)])
                      for t in toks])
    cards = np.array([sum(1 for x in t if card(x)) for t in toks])
    third = early & (cards == 4)
    assert third.any() and (df.loc[third, "trick"] == 3).all()
    assert df["trick"].max() <= params.hand_size
