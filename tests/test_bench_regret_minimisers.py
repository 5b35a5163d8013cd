"""``benchmarks/bench_regret_minimisers.py`` on a tiny rung: every solver's curve, the
first iterations at or below each target and their ratios to public-dcfr, the JSON and
the figure written; bad input refused in one line before any work."""

from __future__ import annotations

import json

import pytest

from benchmarks import bench_regret_minimisers as B


def test_tiny_rung_writes_curves_ratios_and_figure(tmp_path, capsys):
    out, fig = tmp_path / "r.json", tmp_path / "f.png"
    # 4 copies: the profile's default, absent from the record's knobs (the figure read it)
    assert B.main(["--rungs", "3,4,1", "--target", "1e-3", "--max-iterations", "300",
                   "--out", str(out), "--figure", str(fig)]) == 0
    rec = json.loads(out.read_text())
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (rung,) = rec["rungs"]
    assert rung["params"]["dealer"] == -1 and set(rung["solvers"]) == set(B.SOLVERS)
    base = rung["solvers"]["public-dcfr"]["to_0.001"]
    assert base is not None
    for s in rung["solvers"].values():
        its = [c[0] for c in s["curve"]]
        assert its == sorted(set(its)) and its[0] == 1
        last = s["curve"][-1]
        assert last[2] <= 1e-3 or last[0] == 300  # stopped at the target or the cap
        below = [c for c in s["curve"] if c[2] <= 1e-3]
        to, ratio = s["to_0.001"], s["ratio_to_public_dcfr"]["0.001"]
        if below:
            assert to["iterations"] == below[0][0]
            assert ratio["iterations"] == pytest.approx(to["iterations"] / base["iterations"],
                                                        abs=1e-3)
        else:
            assert to is None and ratio is None
    assert "public-pcfr+" in capsys.readouterr().out
    again = tmp_path / "g.png"
    assert B.main(["--replot", "--out", str(out), "--figure", str(again)]) == 0
    assert again.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, words", [
    (["--rungs", "4,4"], "is not RANKS,COPIES,HAND_SIZE"),
    (["--solvers", "public-dcfr,pcfr+"], "unknown public-tree solver 'pcfr+'"),
    (["--target", "0"], "--target must be > 0"),
])
def test_bad_input_one_line(tmp_path, capsys, args, words):
    with pytest.raises(SystemExit) as e:
        B.main([*args, "--out", str(tmp_path / "r.json"), "--figure", str(tmp_path / "f.png")])
    err = [s for s in capsys.readouterr().err.splitlines() if s.strip()]
    assert e.value.code == 2 and len(err) == 1 and words in err[0], err
    assert not (tmp_path / "r.json").exists()
