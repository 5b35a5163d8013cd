"""`vitou-ai train` end to end on tiny variants: every solver runs and writes its run
folder; the policy loads as a bot; --resume continues; bad input is refused."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import numpy as np
import pytest

from vitou_ai.bots.tabular import TabularPolicy
from vitou_ai.commands.cli import main

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
    (["--bots", ","], "--bots: an empty bot name"),
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
                 "--out", str(out), *TINY, "--time", "0.0001"]) == 0  # stops at once
    # "at once": after the first timed batch, whose size depends on the machine's speed
    # (an iteration of this game can take under 0.1 ms)
    (first,) = [x["iteration"] for x in rows(out)]
    assert 1 <= int(first) < 20
    assert main(["train", "--solver", "dcfr", "--out", str(out), "--resume", *TINY]) == 0
    assert [x["iteration"] for x in rows(out)] == [first, "20", "40", "60"]


def test_time_limit_stops_between_evaluations(tmp_path):
    # evaluations 10**11 iterations apart: --time still stops the run, which evaluates
    # and saves where it stopped
    out = tmp_path / "t"
    t = time.perf_counter()
    assert main(["train", "--solver", "cfr+", "--iterations", str(10**12), "--out", str(out),
                 *TINY, "--time", "1"]) == 0
    assert time.perf_counter() - t < 60
    (row,) = rows(out)
    assert 0 < int(row["iteration"]) < 10**11
    assert float(row["seconds"]) >= 1.0
    assert (out / "checkpoint.npz").is_file()


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


# ---- resume, OpenSpiel checkpoints, bot lists, Ctrl-C, progress, the 4-player plot ----

GAME = ["--ranks", "3", "--copies", "1", "--hand-size", "1"]


@pytest.fixture(scope="module")
def dcfr_run(tmp_path_factory):
    """A 60-iteration DCFR run with non-default settings everywhere: folder, first command."""
    out = tmp_path_factory.mktemp("run") / "r"
    first = ["train", "--solver", "dcfr", "--iterations", "60", "--eval-every", "30", "--seed",
             "5", "--early-end", "trick", "--out", str(out), *TINY]
    assert main(first) == 0
    return out, first


def test_resume_takes_the_game_solver_and_evaluation_from_the_run(dcfr_run, tmp_path):
    run_dir, first = dcfr_run
    out = tmp_path / "r"
    import shutil

    shutil.copytree(run_dir, out)
    resume = ["train", "--out", str(out), "--resume", "--iterations", "90", "--no-progress"]
    assert main(resume) == 0
    record = json.loads((out / "run.json").read_text())
    assert record["command"] == "vitou-ai " + " ".join(first)  # the first command, kept
    assert record["seed"] == 5 and record["eval_deals"] == 400
    assert record["settings"]["ranks"] == 3 and record["settings"]["early_end"] == "trick"
    assert [r["command"] for r in record["resumes"]] == ["vitou-ai " + " ".join(resume)]
    assert record["resumes"][0]["from_iteration"] == 60
    assert [x["iteration"] for x in rows(out)] == ["30", "60", "90"]
    straight = tmp_path / "s"
    assert main(["train", "--solver", "dcfr", "--iterations", "90", "--eval-every", "30",
                 "--seed", "5", "--early-end", "trick", "--out", str(straight), *TINY]) == 0
    assert rows(out)[-1]["exploitability"] == rows(straight)[-1]["exploitability"]
    assert rows(out)[-1]["random_ppd"] == rows(straight)[-1]["random_ppd"]  # same seed


def test_resume_reads_a_run_recorded_before_settings_existed(dcfr_run, tmp_path):
    import shutil

    out = tmp_path / "r"
    shutil.copytree(dcfr_run[0], out)
    record = json.loads((out / "run.json").read_text())
    del record["settings"], record["resumes"]
    (out / "run.json").write_text(json.dumps(record))
    assert main(["train", "--out", str(out), "--resume", "--iterations", "90",
                 "--no-progress"]) == 0
    assert json.loads((out / "run.json").read_text())["settings"]["early_end"] == "trick"


@pytest.mark.parametrize("flag", [["--ranks", "4"], ["--profile", "vitou"], ["--seed", "7"],
                                  ["--eval-deals", "200"], ["--solver", "cfr"],
                                  ["--bots", "random"], ["--early-end", "card"],
                                  ["--exact", "no"], ["--signals"]])
def test_resume_refuses_a_flag_that_contradicts_the_run(dcfr_run, capsys, flag):
    out = dcfr_run[0]
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--no-progress", *flag]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag[0] in err and "conflicts with the run's" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize("solver", ["openspiel-cfr", "openspiel-es-mccfr",
                                    "openspiel-os-mccfr"])
def test_openspiel_solvers_continue_exactly_from_a_checkpoint(tmp_path, solver):
    from vitou_ai.rules import VitouParams
    from vitou_ai.solvers.openspiel_solvers import OpenSpielSolver

    params = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1, dealer=-1)
    n = 2 if solver == "openspiel-cfr" else 30
    straight, first = OpenSpielSolver(solver, params, 3), OpenSpielSolver(solver, params, 3)
    straight.iterate(2 * n)
    first.iterate(n)
    first.save(tmp_path / "c.npz")
    resumed = OpenSpielSolver(solver, params, 3)
    resumed.load(tmp_path / "c.npz")
    resumed.iterate(n)
    assert resumed.iteration == 2 * n
    assert resumed.average_policy_table() == straight.average_policy_table()


def test_openspiel_cfr_plus_does_not_continue_from_its_own_text():
    """Why ``openspiel-cfr+`` refuses --resume (open_spiel 2.0.2). Should OpenSpiel fix
    it, this fails: then add the solver to RESUMABLE."""
    import pyspiel

    from vitou_ai.openspiel.game import game_string
    from vitou_ai.rules import VitouParams

    game = pyspiel.load_game(game_string(VitouParams(profile="vitou_2p", ranks=3, copies=1,
                                                     hand_size=1, dealer=-1)))
    straight, half = pyspiel.CFRPlusSolver(game), pyspiel.CFRPlusSolver(game)
    for _ in range(4):
        straight.evaluate_and_update_policy()
    for _ in range(2):
        half.evaluate_and_update_policy()
    resumed = pyspiel.CFRPlusSolver.__new__(pyspiel.CFRPlusSolver)
    resumed.__setstate__(half.__getstate__())
    for _ in range(2):
        resumed.evaluate_and_update_policy()
    a = pyspiel.exploitability(game, straight.average_policy())
    b = pyspiel.exploitability(game, resumed.average_policy())
    assert abs(a - b) > 0.01


def test_openspiel_run_resumes_from_its_folder(tmp_path):
    out = tmp_path / "r"
    assert main(["train", "--solver", "openspiel-es-mccfr", "--iterations", "20",
                 "--eval-every", "20", "--eval-deals", "100", "--bots", "random",
                 "--no-progress", "--out", str(out), *GAME]) == 0
    assert main(["train", "--out", str(out), "--resume", "--iterations", "40",
                 "--no-progress"]) == 0
    assert [x["iteration"] for x in rows(out)] == ["20", "40"]


def test_openspiel_cfr_plus_refuses_resume_before_any_work(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r"
    assert main(["train", "--solver", "openspiel-cfr+", "--iterations", "2", "--eval-every",
                 "2", "--out", str(out), *TINY]) == 0
    assert not (out / "checkpoint.npz").exists()
    import vitou_ai.solvers.flat.tree as tree_module

    def no_work(*a, **k):
        raise AssertionError("built a tree before refusing")

    monkeypatch.setattr(tree_module, "build_tree", no_work)
    capsys.readouterr()
    assert main(["train", "--out", str(out), "--resume", "--iterations", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "openspiel-cfr+" in err and "cannot be resumed" in err


def test_a_damaged_openspiel_checkpoint_is_refused(tmp_path):
    from vitou_ai.rules import VitouParams
    from vitou_ai.solvers.flat.cfr import CheckpointError
    from vitou_ai.solvers.openspiel_solvers import OpenSpielSolver

    params = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1, dealer=-1)
    s = OpenSpielSolver("openspiel-cfr", params)
    s.iterate(2)
    s.save(tmp_path / "c.npz")
    with np.load(tmp_path / "c.npz") as z:
        state, meta = z["state"].copy(), z["meta"]
    state[len(state) // 2] ^= 1
    np.savez(tmp_path / "bad.npz", state=state, meta=meta)
    with pytest.raises(CheckpointError, match="damaged"):
        OpenSpielSolver("openspiel-cfr", params).load(tmp_path / "bad.npz")
    other = VitouParams(profile="vitou_2p", ranks=4, copies=1, hand_size=1, dealer=-1)
    with pytest.raises(CheckpointError, match="game"):
        OpenSpielSolver("openspiel-cfr", other).load(tmp_path / "c.npz")
    t = OpenSpielSolver("openspiel-cfr", params)
    t.load(tmp_path / "c.npz")
    assert t.iteration == 2


def test_bots_take_the_tournaments_space_separated_form_and_the_comma_form(tmp_path):
    base = ["train", "--solver", "cfr", "--iterations", "2", "--eval-every", "2",
            "--eval-deals", "100", "--no-progress", *GAME]
    assert main([*base, "--out", str(tmp_path / "a"), "--bots", "random", "cautious"]) == 0
    assert main([*base, "--out", str(tmp_path / "b"), "--bots", "random,cautious"]) == 0
    for f in ("a", "b"):
        assert json.loads((tmp_path / f / "run.json").read_text())["bots"] == ["random",
                                                                                "cautious"]
        assert "cautious_ppd" in rows(tmp_path / f)[-1]


def test_progress_bar_only_on_a_terminal_and_long_phases_are_announced(tmp_path, capsys):
    """stderr here is not a terminal: no bar, the evaluations printed as lines; the tree
    building and the first iterations get a note."""
    assert main(["train", "--solver", "cfr", "--iterations", "4", "--eval-every", "2",
                 "--eval-deals", "100", "--bots", "random", "--out", str(tmp_path / "r"),
                 *GAME]) == 0
    out, err = capsys.readouterr()
    assert "it/s" not in err and "%|" not in err
    assert "building the game tree" in err and "first evaluation after 2 iterations" in err
    assert out.count("it 2, exploitability") == 1


@pytest.mark.parametrize("delay", [0.5, 3.0])
def test_ctrl_c_in_the_first_seconds_exits_130_with_one_line(tmp_path, delay):
    """SIGINT 0.5 s or 3 s into ``vitou-ai train`` on the default game (importing,
    loading compiled code, building the tree): exit code 130, one line, no traceback,
    no segmentation fault, no empty or partial run folder. The probe says 'ready' once the package
    is imported, right before the command runs (a Ctrl-C during Python's own start-up
    and ``import vitou_ai`` is out of reach)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "r"
    probe = ("import sys, vitou_ai.commands.cli; print('ready', file=sys.stderr, flush=True); "
             "sys.exit(vitou_ai.commands.cli.entry())")
    proc = subprocess.Popen([sys.executable, "-c", probe, "train", "--out", str(out),
                             "--no-progress"], stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=os.environ.copy())
    try:
        assert proc.stderr.readline().strip() == "ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("vitou-ai train: interrupted") and last.count("\n") == 0
    # a fast machine may finish the first evaluation before the Ctrl-C: then its outputs
    # are there, whole; otherwise no (empty) run folder is left behind
    if "nothing was saved yet" in last:
        assert not out.exists(), err
    else:
        assert "outputs are kept" in last, err
        import json

        assert json.loads((out / "run.json").read_text())["iterations"] > 0
        assert (out / "policy.npz").stat().st_size > 0 and (out / "curve.csv").exists()


def test_four_player_curve_without_exact_evaluation_draws_the_tables_growth(tmp_path):
    from vitou_ai.training.evaluation import figure as _figure

    out = tmp_path / "r"
    assert main(["train", "--profile", "vitou", "--solver", "es-mccfr", "--iterations", "300",
                 "--eval-every", "100", "--max-tree-nodes", "100", "--ranks", "3", "--copies",
                 "2", "--hand-size", "1", "--eval-deals", "100", "--bots", "random",
                 "--no-progress", "--out", str(out)]) == 0
    r = [{k: int(v) if k in ("iteration", "infosets") else v for k, v in x.items()}
         for x in rows(out)]
    sizes = [x["infosets"] for x in r]
    assert 0 < sizes[0] <= sizes[1] <= sizes[2]
    assert "nash_conv" not in r[0]
    for x in r:
        x["random_ppd"] = float(x["random_ppd"])
        x["random_ppd_lo"], x["random_ppd_hi"] = float(x["random_ppd_lo"]), float(
            x["random_ppd_hi"])
    fig = _figure(r, ["random"], "t")
    assert len(fig.axes) == 2
    for ax in fig.axes:  # never an empty axis
        assert any(np.isfinite(np.asarray(line.get_ydata(), float)).any() for line in ax.lines)
    assert fig.axes[0].get_ylabel() == "information states in the table"


def test_abstract_resume_keeps_the_runs_settings_and_records_itself(tmp_path):
    """A resumed abstract run evaluates and records with its own settings (they were
    replaced by the defaults, and the resume's command replaced the run's), and no
    iterate is evaluated twice (a chunk longer than the evaluations' spacing did)."""
    import csv

    from vitou_ai.commands.cli import main

    run = tmp_path / "abs"
    first = ["train", "--profile", "vitou", "--ranks", "4", "--copies", "2", "--hand-size",
             "1", "--time", "2", "--evals", "4", "--eval-deals", "100", "--eval-matches", "20",
             "--lbr-deals", "0", "--seed", "7", "--out", str(run), "--no-progress"]
    assert main(first) == 0
    from vitou_ai.training.runfolder import checkpoint_head

    # --time is the run's whole budget; the first run may overshoot its 2 s on a loaded
    # machine (CI's took 5 s), so the resume's budget is counted from what it spent.
    budget = int(float(checkpoint_head(run / "checkpoint.npz")["seconds"])) + 3
    assert main(["train", "--resume", "--out", str(run), "--time", str(budget),
                 "--no-progress"]) == 0
    rec = json.loads((run / "run.json").read_text())
    assert (rec["eval_matches"], rec["lbr_deals"], rec["evals"]) == (20, 0, 4)
    assert rec["command"] == "vitou-ai " + " ".join(first)
    assert rec["resumes"] == [
        f"vitou-ai train --resume --out {run} --time {budget} --no-progress"]
    with open(run / "curve.csv") as f:
        its = [int(r["iteration"]) for r in csv.DictReader(f)]
    assert its == sorted(set(its)) and len(its) >= 2


def test_abstract_pruning_is_off_by_default_recorded_and_kept_on_resume(tmp_path, capsys):
    """--pruning: off by default, recorded; a resume keeps the run's
    setting, a run from before the knob (``prune_after`` recorded, no ``pruning``) resumes
    with pruning on, and a contradicting --pruning is refused in one line."""
    from vitou_ai.commands.cli import main
    from vitou_ai.training.runfolder import checkpoint_head

    base = ["train", "--profile", "vitou", "--ranks", "3", "--copies", "2", "--hand-size",
            "1", "--evals", "1", "--eval-deals", "100", "--eval-matches", "0",
            "--lbr-deals", "0", "--no-progress"]
    off, on = tmp_path / "off", tmp_path / "on"
    assert main([*base, "--time", "1", "--out", str(off)]) == 0
    rec = json.loads((off / "run.json").read_text())
    assert rec["pruning"] == "off" and rec["prune_after"] is None
    assert main([*base, "--time", "1", "--pruning", "on", "--out", str(on)]) == 0
    rec = json.loads((on / "run.json").read_text())
    assert rec["pruning"] == "on" and rec["prune_after"] == pytest.approx(0.1)
    capsys.readouterr()
    more = str(int(float(checkpoint_head(off / "checkpoint.npz")["seconds"])) + 2)
    assert main(["train", "--resume", "--out", str(off), "--time", more, "--pruning", "on",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--pruning on contradicts the run's (off" in err
    # a run recorded before the knob pruned: its resume keeps pruning on
    del rec["pruning"]
    (on / "run.json").write_text(json.dumps(rec))
    more = str(int(float(checkpoint_head(on / "checkpoint.npz")["seconds"])) + 2)
    assert main(["train", "--resume", "--out", str(on), "--time", more, "--pruning", "off",
                 "--no-progress"]) == 2
    assert "contradicts the run's (on" in capsys.readouterr().err
    assert main(["train", "--resume", "--out", str(on), "--time", more, "--no-progress"]) == 0
    assert json.loads((on / "run.json").read_text())["pruning"] == "on"
    capsys.readouterr()
    assert main(["train", "--profile", "vitou", "--objective", "match", "--pruning", "off",
                 "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--pruning applies to --objective points only" in err


def test_partnership_put_defaults_to_a_full_game_solver(tmp_path, capsys):
    """Found by a new user: with no --solver, four-player games default to abstract-mccfr,
    which refuses partnership Put; that game defaults to es-mccfr, said in the first line."""
    out = tmp_path / "pp"
    code = main(["train", "--profile", "put_partnership", "--ranks", "2", "--copies", "4",
                 "--hand-size", "2", "--dealer", "0", "--iterations", "20", "--exact", "no",
                 "--eval-deals", "40", "--bots", "random", "--no-progress", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    first = captured.out.splitlines()[0]
    assert "es-mccfr" in first and "abstract-mccfr" in first and "put_partnership" in first
    assert json.loads((out / "run.json").read_text())["solver"] == "es-mccfr"


def test_solver_help_gives_the_four_player_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    # argparse may wrap a line after a name's hyphen ("abstract-" / "mccfr")
    text = " ".join(capsys.readouterr().out.split()).replace("- ", "-")
    assert "four-player profiles default to abstract-mccfr" in text
    assert "put_partnership" in text and "to es-mccfr" in text


def _reject(constant):
    raise ValueError(f"{constant} is not JSON")


def test_run_json_writes_a_withheld_interval_bound_as_null(tmp_path):
    """Below 30 evaluation deals the points-per-deal interval is withheld (NaN); run.json
    wrote it as a bare ``NaN``, which is not JSON; now ``null``, as tournament.json."""
    out = tmp_path / "run"
    code = main(["train", "--solver", "dcfr", "--iterations", "4", "--out", str(out),
                 "--ranks", "3", "--copies", "1", "--hand-size", "1", "--eval-deals", "20",
                 "--no-progress", "--bots", "random"])
    assert code == 0
    record = json.loads((out / "run.json").read_text(), parse_constant=_reject)
    assert record["latest"]["random_ppd_lo"] is None is record["latest"]["random_ppd_hi"]


def test_the_training_guide_python_example_runs(tmp_path, monkeypatch, capsys):
    """The "From Python" section of docs/guide/training.md runs as written: the library
    entry point trains, resumes from run.json and refuses a conflicting setting."""
    import re

    page = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "training.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "training.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("20 ")
    assert printed[1].startswith("--seed 3 conflicts with the run's 0")


def test_the_trainer_is_chosen_once_from_explicit_settings(tmp_path, capsys):
    """``choose_trainer`` maps settings onto the trainer that runs them, as ``vitou-ai
    train`` does: a four-player profile -> the abstract trainer (three-card hands, its
    own options), a solver given -> the points trainer, partnership Put -> es-mccfr (said
    on ``out``), an abstract option with another solver refused in one line; ``train``
    refuses what is not a settings class (an argparse Namespace)."""
    import argparse
    import io

    from vitou_ai.training import (
        AbstractSettings,
        PointsSettings,
        TrainingError,
        choose_trainer,
        train,
    )

    four = choose_trainer(PointsSettings(profile="vitou"), {"threads": 1, "evals": None})
    assert isinstance(four, AbstractSettings)
    assert four.params.hand_size == 3 and four.threads == 1 and four.evals == 6
    assert isinstance(choose_trainer(PointsSettings(profile="vitou", solver="es-mccfr")),
                      PointsSettings)
    told = io.StringIO()
    put = choose_trainer(PointsSettings(profile="put_partnership"), out=told)
    assert put.solver == "es-mccfr" and "does not take put_partnership" in told.getvalue()
    with pytest.raises(TrainingError, match="^--evals applies to --solver abstract-mccfr only"):
        choose_trainer(PointsSettings(), {"evals": 3})
    with pytest.raises(TrainingError, match="no trainer for Namespace"):
        train(argparse.Namespace(profile="vitou_2p"))
    from vitou_ai.training.dispatch import match_trainer

    assert match_trainer(None) == "match" and match_trainer("vitou_cason") == "match4p"
    (tmp_path / "two" / "tasks").mkdir(parents=True)
    assert match_trainer("vitou", resume=True, out=tmp_path / "two") == "match"
    (tmp_path / "four").mkdir()
    (tmp_path / "four" / "state.json").write_text("{}")
    assert match_trainer(None, resume=True, out=tmp_path / "four") == "match4p"


def test_two_player_default_is_public_dcfr(monkeypatch, tmp_path):
    """A new two-player run given no ``--solver`` runs DCFR on the public tree (the
    regret-minimiser benchmark: x0.2 flat DCFR's solver time on the defaults' game); a
    solver given, a resumed run (its own) and the four-player defaults are left alone;
    where the public tree refuses the game, flat DCFR, said in one line with the reason."""
    import io

    from vitou_ai.solvers.public import tree as public_tree
    from vitou_ai.training import PointsSettings, choose_trainer
    from vitou_ai.training.dispatch import TWO_PLAYER_DEFAULT

    told = io.StringIO()
    for profile in (None, "put", "truc_catalan_2p"):
        chosen = choose_trainer(PointsSettings(profile=profile, ranks=4), out=told)
        assert chosen.solver == TWO_PLAYER_DEFAULT == "public-dcfr"
    assert told.getvalue() == ""
    assert choose_trainer(PointsSettings(solver="dcfr"), out=told).solver == "dcfr"
    assert choose_trainer(PointsSettings(resume=True), out=told).solver is None
    assert choose_trainer(PointsSettings(profile="put_partnership"), out=told).solver == (
        "es-mccfr")
    # the library's entry point takes the command's default too
    from vitou_ai.training import train

    train(PointsSettings(ranks=3, copies=1, hand_size=1, iterations=2, eval_deals=100,
                         out=tmp_path / "lib"), out=io.StringIO())
    assert json.loads((tmp_path / "lib" / "run.json").read_text())["solver"] == "public-dcfr"

    def refuse(params):
        raise ValueError("no public tree for this one")

    monkeypatch.setattr(public_tree, "check_public_params", refuse)
    told = io.StringIO()
    assert choose_trainer(PointsSettings(ranks=4), out=told).solver == "dcfr"
    (line,) = told.getvalue().splitlines()
    assert "solver dcfr (the two-player default, public-dcfr, does not take this game: " \
        "no public tree for this one)" in line


@pytest.mark.parametrize("field, value", [("iterations", "x"), ("time", True), ("signals", 1),
                                          ("bots", ("counter", 3)), ("seed", 1.5)])
def test_training_settings_of_the_wrong_type_are_one_line_errors(field, value):
    """``PointsSettings(iterations="x")`` was accepted and ``train()`` then failed with a
    raw ``TypeError``; a field of the wrong type is a ``TrainingError`` at construction."""
    from vitou_ai.rules import VitouParams
    from vitou_ai.training import AbstractSettings, PointsSettings, TrainingError

    with pytest.raises(TrainingError, match=f"PointsSettings.{field}: expected"):
        PointsSettings(**{field: value})
    if field in ("iterations", "time", "seed", "bots"):
        with pytest.raises(TrainingError, match=f"AbstractSettings.{field}: expected"):
            AbstractSettings(params=VitouParams(profile="vitou"), **{field: value})
