"""``benchmarks/bench_4p_exact.py`` on a tiny variant: the trainer
at two budgets of 1 and 2 solver seconds, evaluated exactly, the CSV's rows
consistent, the budgets done skipped on a rerun, bad input refused in one line."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_4p_exact as B

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_4p_exact.py"


def bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=600)


def test_two_budgets_then_a_rerun_that_skips_them(tmp_path):
    out, runs = tmp_path / "out", tmp_path / "runs"
    args = ("--variants", "3,2,1", "--budgets", "2", "1", "--out", str(out), "--runs", str(runs))
    r = bench(*args)
    assert r.returncode == 0, r.stdout + r.stderr
    with open(out / "3x2x1.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [float(x["budget"]) for x in rows] == [1.0, 2.0]
    for x in rows:
        assert int(x["iterations"]) > 0
        assert float(x["solver_seconds"]) >= float(x["budget"])
        assert float(x["nash_conv"]) >= -1e-9
        assert float(x["exploitability"]) == pytest.approx(float(x["nash_conv"]) / 4)
        for team in (0, 1):
            lo, hi = float(x[f"team{team}_gain_lower"]), float(x[f"team{team}_gain_upper"])
            assert lo <= hi + 1e-9
        assert int(x["eval_peak_rss_mib"]) > 0 and int(x["train_peak_rss_mib"]) > 0
        assert int(x["public_nodes"]) == 596
        assert (ROOT / x["policy"] if not Path(x["policy"]).is_absolute()
                else Path(x["policy"])).exists()
    assert (out / "curves.png").stat().st_size > 0
    [rec] = json.loads((out / "run.json").read_text())
    assert rec["trained"] == ["3,2,1 1 s", "3,2,1 2 s"] and rec["skipped"] == rec["reused"] == []
    assert len(rec["load_before"]) == 3 and rec["evaluated"][0]["exit"] == 0

    again = bench(*args)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "train " not in again.stdout and "evaluate " not in again.stdout
    recs = json.loads((out / "run.json").read_text())
    assert len(recs) == 2 and recs[1]["skipped"] == ["3,2,1 1 s (in the CSV)",
                                                     "3,2,1 2 s (in the CSV)"]
    with open(out / "3x2x1.csv", newline="") as f:
        assert list(csv.DictReader(f)) == rows


@pytest.mark.parametrize("args, says", [
    (["--variants", "9,4,2"], "variant '9,4,2'"),
    (["--variants", "four"], "bad variant 'four'"),
    (["--budgets", "0"], "positive number of seconds"),
    (["--budgets", "60", "-5"], "positive number of seconds"),
    (["--budgets", "soon"], "not a number of seconds"),
    (["--variants", "8,4,3"], "over --max-gib"),
])
def test_bad_input_is_one_line_before_any_work(tmp_path, capsys, args, says):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        B.main([*args, "--out", str(out), "--runs", str(tmp_path / "runs")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bench_4p_exact: ") and says in err
    assert not out.exists() and not (tmp_path / "runs").exists()
