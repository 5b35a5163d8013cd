"""`vitou-ai train` end to end on tiny variants: every solver runs and writes its run
folder; the policy loads as a bot; --resume continues; bad input is refused."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from vitou_ai.bots.tabular import TabularPolicy
from vitou_ai.cli import main

TINY = ["--ranks", "3", "--copies", "1", "--hand-size", "1", "--eval-deals", "400",
        "--no-progress", "--bots", "random,cautious"]


def rows(folder):
    with open(folder / "curve.csv") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("solver, iters", [("cfr", 40), ("cfr+", 40), ("dcfr", 40),
                                           ("es-mccfr", 400), ("os-mccfr", 400),
                                           ("openspiel-cfr+", 4), ("openspiel-es-mccfr", 20)])
def test_every_solver_writes_a_run_folder(tmp_path, solver, iters):
    out = tmp_path / solver
    code = main(["train", "--solver", solver, "--iterations", str(iters), "--eval-every",
                 str(iters // 2), "--out", str(out), *TINY])
    assert code == 0
    r = rows(out)
    assert [int(x["iteration"]) for x in r] == [iters // 2, iters]
    assert all(float(x["exploitability"]) >= -1e-12 for x in r)
    for b in ("random", "cautious"):
        assert 0 <= float(r[-1][f"{b}_win"]) <= 1
        assert float(r[-1][f"{b}_win_lo"]) <= float(r[-1][f"{b}_win"]) <= float(
            r[-1][f"{b}_win_hi"])
    record = json.loads((out / "run.json").read_text())
    assert record["rules_version"] and record["solver"] == solver and "numba" in record["versions"]
    assert (out / "curve.png").stat().st_size > 1000
    pol = TabularPolicy.load(out / "policy.npz")
    assert len(pol) > 0


def test_cfr_plus_exploitability_falls_and_beats_random(tmp_path):
    out = tmp_path / "r"
    assert main(["train", "--solver", "cfr+", "--iterations", "300", "--eval-every", "100",
                 "--out", str(out), *TINY]) == 0
    r = rows(out)
    e = [float(x["exploitability"]) for x in r]
    assert e[-1] < e[0] and e[-1] < 0.01
    assert float(r[-1]["random_ppd"]) > 0


def test_resume_continues_the_run(tmp_path):
    out = tmp_path / "r"
    assert main(["train", "--solver", "dcfr", "--iterations", "60", "--eval-every", "30",
                 "--out", str(out), *TINY]) == 0
    assert main(["train", "--solver", "dcfr", "--iterations", "90", "--eval-every", "30",
                 "--out", str(out), "--resume", *TINY]) == 0
    straight = tmp_path / "s"
    assert main(["train", "--solver", "dcfr", "--iterations", "90", "--eval-every", "30",
                 "--out", str(straight), *TINY]) == 0
    a, b = rows(out), rows(straight)
    assert [x["iteration"] for x in a] == ["30", "60", "90"]
    assert a[-1]["exploitability"] == b[-1]["exploitability"]
    np.testing.assert_array_equal(TabularPolicy.load(out / "policy.npz").probs,
                                  TabularPolicy.load(straight / "policy.npz").probs)


def test_four_players_report_nash_conv_and_team_best_response(tmp_path):
    out = tmp_path / "r"
    assert main(["train", "--profile", "vitou", "--solver", "cfr+", "--iterations", "20",
                 "--eval-every", "20", "--out", str(out), "--ranks", "3", "--copies", "2",
                 "--hand-size", "1", "--eval-deals", "200", "--no-progress",
                 "--bots", "random"]) == 0
    r = rows(out)[-1]
    assert float(r["nash_conv"]) >= 0 and float(r["team0_br_gain"]) >= -1e-12


@pytest.mark.parametrize("extra, fragment", [
    (["--ranks", "9"], "ranks must be in"),
    (["--bots", "random,nobody"], "unknown bot"),
    (["--resume"], "no run in"),
    (["--iterations", "0"], "must be >= 1"),
    (["--max-tree-nodes", "10"], "more than 10 nodes"),
])
def test_bad_input_is_refused(tmp_path, capsys, extra, fragment):
    args = ["train", "--out", str(tmp_path / "x"), "--ranks", "3", "--copies", "1",
            "--hand-size", "1", "--no-progress", *extra]
    assert main(args) == 2
    assert fragment in capsys.readouterr().err


def test_full_table_stops_cleanly(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["train", "--solver", "es-mccfr", "--iterations", "2000", "--eval-every", "1000",
                 "--max-infosets", "50", "--out", str(out), *TINY])
    assert code == 2
    assert "raise max_infosets" in capsys.readouterr().err


@pytest.mark.parametrize("extra, fragment", [
    (["--seed", "-2"], "--seed must be in"),
    (["--max-infosets", "0", "--solver", "es-mccfr"], "--max-infosets must be positive"),
    (["--time", "-1"], "--time must be a positive"),
    (["--bots", ","], "--bots needs at least one bot"),
])
def test_more_bad_options(tmp_path, capsys, extra, fragment):
    args = ["train", "--out", str(tmp_path / "x"), *TINY, *extra]
    assert main(args) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "x").exists()  # nothing left behind


def test_existing_run_is_not_overwritten_and_out_must_be_a_folder(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["train", "--solver", "cfr", "--iterations", "4", "--eval-every", "2",
                 "--out", str(out), *TINY]) == 0
    assert main(["train", "--solver", "cfr", "--iterations", "4", "--out", str(out), *TINY]) == 2
    assert "holds a run already" in capsys.readouterr().err
    (tmp_path / "f").write_text("x")
    assert main(["train", "--out", str(tmp_path / "f"), *TINY]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["train", "--resume", *TINY]) == 2
    assert "--resume needs --out" in capsys.readouterr().err


def test_resume_keeps_the_runs_length(tmp_path):
    out = tmp_path / "r"
    assert main(["train", "--solver", "dcfr", "--iterations", "60", "--eval-every", "20",
                 "--out", str(out), *TINY, "--time", "0.0001"]) == 0  # stops after one eval
    assert [x["iteration"] for x in rows(out)] == ["20"]
    assert main(["train", "--solver", "dcfr", "--out", str(out), "--resume", *TINY]) == 0
    assert [x["iteration"] for x in rows(out)] == ["20", "40", "60"]


def test_trained_policy_fits_check(tmp_path, capsys):
    from vitou_ai.bots.tabular import TabularPolicy, check_fits
    from vitou_ai.rules import VitouParams

    out = tmp_path / "r"
    assert main(["train", "--solver", "cfr", "--iterations", "4", "--eval-every", "4",
                 "--out", str(out), *TINY]) == 0
    pol = TabularPolicy.load(out / "policy.npz")
    check_fits(pol, VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1, dealer=-1))
    with pytest.raises(ValueError, match="pass --ranks 3"):
        check_fits(pol, VitouParams(profile="vitou_2p", dealer=-1))
    with pytest.raises(ValueError, match="pass --copies 1"):
        check_fits(pol, VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1,
                                    dealer=-1))
    assert main(["tournament", "--profile", "vitou_2p", "--bots", str(out / "policy.npz"),
                 "random", "--deals", "10", "--out", str(tmp_path / "t")]) == 2
    assert "trained for" in capsys.readouterr().err
    assert main(["tournament", "--profile", "vitou_2p", "--ranks", "3", "--copies", "1",
                 "--hand-size", "1", "--bots", str(out / "policy.npz"), "random", "--deals",
                 "200", "--out", str(tmp_path / "t"), "--no-progress"]) == 0
