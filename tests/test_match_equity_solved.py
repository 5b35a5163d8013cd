"""``experiments/match_equity_solved.py`` publishes the states of a sweep solved so far:
the same equities as the whole table for the states it has, none
for the others, and a clear refusal when nothing is solved."""

from __future__ import annotations

import csv
import json

from helpers import experiment

from vitou_ai.commands.cli import main as cli

GAME = ["--ranks", "4", "--copies", "2", "--hand-size", "1", "--target", "3",
        "--backend", "serial", "--solver", "flat"]
KNOBS = ["--ranks", "4", "--copies", "2", "--hand-size", "1", "--target", "3",
         "--solver", "flat"]


def _rows(path):
    with open(path) as f:
        return {(int(r["score0"]), int(r["score1"]), int(r["dealer"])): float(r["equity0"])
                for r in csv.DictReader(f)}


def test_solved_states_match_the_whole_table(tmp_path, capsys):
    mod = experiment("match_equity_solved.py")
    assert cli(["match-equity", *GAME, "--out", str(tmp_path)]) == 0
    whole = _rows(tmp_path / "vitou_2p_ranks4_copies2_hand1_target3.csv")
    tasks = tmp_path / "tasks_vitou_2p_ranks4_copies2_hand1_target3"
    (tasks / "0_0.json").unlink()  # the last wave: as if the sweep had stopped before it
    (tasks / "1_1.json").unlink()  # and one state of an earlier wave
    assert mod.main([*KNOBS, "--out", str(tmp_path), "--compare",
                     str(tmp_path / "vitou_2p_ranks4_copies2_hand1_target3.csv")]) == 0
    part = _rows(tmp_path / "vitou_2p_ranks4_copies2_hand1_target3_solved.csv")
    assert part and all(part[k] == whole[k] for k in part)
    assert {(a, b) for a, b, _ in part}.isdisjoint({(0, 0), (1, 1)})
    assert (0, 1, 0) in part and (1, 0, 1) in part  # a mirrored twin
    summary = json.loads((tmp_path / "vitou_2p_ranks4_copies2_hand1_target3_solved.json")
                         .read_text())
    assert summary["states_solved"] == summary["states_in_sweep"] - 2
    assert summary["waves_complete"] == 2  # (2, 2) and (1, 2); the next wave lacks 1:1
    assert summary["largest_abs_difference"] < 1e-11  # the CSV keeps 12 digits
    sym = summary["swap_symmetry"]  # the one diagonal state left, 2:2
    assert sym["pairs"] == 1 and sym["within_bound"] and sym["worst"][:2] == [2, 2]
    assert "seat swap" in capsys.readouterr().out
    with open(tmp_path / "vitou_2p_ranks4_copies2_hand1_target3_solved_states.csv") as f:
        states = list(csv.DictReader(f))
    assert len(states) == 2 * summary["states_solved"]
    assert all(float(r["task_seconds"]) >= 0 and int(r["iterations"]) > 0 for r in states)


def test_nothing_solved_is_refused(tmp_path, capsys):
    mod = experiment("match_equity_solved.py")
    assert mod.main([*KNOBS, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("match_equity_solved: no solved state") and "\n" not in err
    assert not any(tmp_path.iterdir())
