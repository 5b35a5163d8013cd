"""``experiments/sweep_4p.py`` on a tiny variant: two configurations
trained and evaluated exactly, the rows' knobs as given, a rerun skipping them, bad input
refused in one line before any work."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "experiments"))

import sweep_4p as S  # noqa: E402


def test_two_configs_then_a_rerun_that_skips_them(tmp_path, capsys):
    out, runs = tmp_path / "out", tmp_path / "runs"
    args = ["--variant", "3,2,1", "--time", "1", "--configs", "default",
            "np=prune=off,discount=40", "trick=exact", "--out", str(out), "--runs", str(runs)]
    assert S.main(args) == 0
    with open(out / "3x2x1_1s.csv", newline="") as f:
        rows = {r["config"]: r for r in csv.DictReader(f)}
    assert set(rows) == {"default", "np", "trick=exact"}
    assert (rows["default"]["prune"], rows["default"]["discount"]) == ("on", "20")
    assert (rows["np"]["prune"], rows["np"]["discount"]) == ("off", "40")
    assert rows["trick=exact"]["abstraction"] == "trick=exact"
    for r in rows.values():
        assert int(r["iterations"]) > 0 and float(r["seconds"]) >= 1.0
        assert float(r["nash_conv"]) >= -1e-9 and Path(r["policy"]).exists()
    capsys.readouterr()
    assert S.main(args) == 0
    assert "already in" in capsys.readouterr().out
    # the same name with other knobs or another seed: refused, not skipped
    for other in (["--configs", "np=prune=on"], ["--configs", "np=prune=off,discount=40",
                                                  "--seed", "3"]):
        with pytest.raises(SystemExit) as e:
            S.main(["--variant", "3,2,1", "--time", "1", *other, "--out", str(out),
                    "--runs", str(runs)])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "give it another name" in err


@pytest.mark.parametrize("args, says", [
    (["--variant", "nine"], "--variant 'nine'"),
    (["--configs", "prune=maybe"], "prune must be on or off"),
    (["--configs", "discount=41"], "discount must be an integer 0..40"),
    (["--configs", "count=two"], "count must be an integer"),
    (["--configs", "a=prune=on", "a=prune=off"], "a name given twice"),
    (["--variant", "4,3,2", "--configs", "trick=exact,count=4"], "needs a 65-bit key"),
    (["--time", "0"], "--time must be a positive number"),
    (["--time", "inf"], "--time must be a positive number"),
    (["--seed", "-1"], "--seed must be in"),
    (["--max-infosets", "0"], "--max-infosets must be at least 1"),
    (["--configs", "../x=prune=off"], "a name is letters"),
    (["--configs", "=prune=off"], "a name is letters"),
])
def test_bad_input_is_one_line_before_any_work(tmp_path, capsys, args, says):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as e:
        S.main([*args, "--out", str(out), "--runs", str(tmp_path / "runs")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sweep_4p.py: ") and says in err
    assert not out.exists()
