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
    (["--solvers", "public-dcfr,pcfr"], "unknown solver 'pcfr'"),
    (["--target", "0"], "--target must be > 0"),
    (["--solvers", "public-dcfr@alpha=x"], "is not alpha=A, beta=B or gamma=G"),
    (["--solvers", "public-dcfr@delta=1"], "is not alpha=A, beta=B or gamma=G"),
    (["--solvers", "public-dcfr@beta=inf"], "is not alpha=A, beta=B or gamma=G"),
    (["--solvers", "public-cfr+@alpha=2"], "public-cfr+ takes no DCFR discounts"),
    (["--rungs", "vitou"], "'vitou' is a 4-player game"),
    (["--rungs", "put:x"], "RANKS must be a whole number"),
    (["--rungs", "put:99"], "'put:99': ranks must be in"),
    (["--rungs", "nope:5"], "unknown profile 'nope'"),
    (["--solvers", "dcfr:float32"], "compact tables are for the public-tree solvers only"),
])
def test_bad_input_one_line(tmp_path, capsys, args, words):
    with pytest.raises(SystemExit) as e:
        B.main([*args, "--out", str(tmp_path / "r.json"), "--figure", str(tmp_path / "f.png")])
    err = [s for s in capsys.readouterr().err.splitlines() if s.strip()]
    assert e.value.code == 2 and len(err) == 1 and words in err[0], err
    assert not (tmp_path / "r.json").exists()


def test_solver_spec_discounts_reach_the_solver(tmp_path):
    """``NAME@alpha=A;beta=B;gamma=G`` runs DCFR with those discounts: the curve differs
    from the default's and equals a solver made with them directly."""
    from vitou_ai.rules import VitouParams
    from vitou_ai.solvers.protocol import make_solver
    from vitou_ai.solvers.public.tree import build_public_tree

    assert B.solver_spec("public-dcfr:float32@alpha=2;gamma=3") == (
        "public-dcfr", "float32", {"alpha": 2.0, "gamma": 3.0})
    assert B.solver_spec("public-pcfr+") == ("public-pcfr+", "float64", {})
    spec = "public-dcfr@alpha=1;beta=-1;gamma=3"
    out = tmp_path / "r.json"
    assert B.main(["--rungs", "3,4,1", "--solvers", f"public-dcfr,{spec}", "--target", "1e-9",
                   "--max-iterations", "30", "--out", str(out),
                   "--figure", str(tmp_path / "f.png")]) == 0
    curves = {k: v["curve"] for k, v in json.loads(out.read_text())["rungs"][0]["solvers"].items()}
    params = VitouParams(profile="vitou_2p", ranks=3, copies=4, hand_size=1, dealer=-1)
    direct = make_solver("public-dcfr", params, build_public_tree(params),
                         alpha=1.0, beta=-1.0, gamma=3.0)
    direct.iterate(30)
    assert curves[spec][-1][0] == 30
    assert curves[spec][-1][2] == pytest.approx(direct.exact_evaluation()["exploitability"],
                                                rel=1e-9)
    assert curves[spec][-1][2] != pytest.approx(curves["public-dcfr"][-1][2], rel=1e-6)


def test_flat_solvers_and_a_family_rung(tmp_path, capsys):
    """Flat-tree solvers run beside the public tree's on the same game, with ratios to flat
    dcfr; a family profile's variant is a rung (``PROFILE:RANKS``); flat and public DCFR
    are one algorithm: their curves agree over the first 20 iterations (later, round-off
    grows where a regret crosses zero: on put:3, 1e-9 apart at 70 iterations, 1 % at 160)."""
    out = tmp_path / "r.json"
    assert B.main(["--rungs", "3,4,1", "put:3", "--solvers", "public-dcfr,dcfr,pcfr+",
                   "--target", "1e-3", "--max-iterations", "300", "--out", str(out),
                   "--figure", str(tmp_path / "f.png")]) == 0
    vitou, put = json.loads(out.read_text())["rungs"]
    assert put["params"] == {"profile": "put", "ranks": 3, "dealer": -1}
    assert B.rung_label(B.rung_params(put)) == "put:3"
    for rung in (vitou, put):
        assert rung["flat_nodes"] > rung["public_nodes"] > 0
        s = rung["solvers"]
        flat, public = s["dcfr"]["curve"][:20], s["public-dcfr"]["curve"][:20]
        assert [c[0] for c in flat] == [c[0] for c in public] == list(range(1, 21))
        assert [c[2] for c in flat] == pytest.approx([c[2] for c in public], rel=1e-9)
        assert s["pcfr+"]["ratio_to_dcfr"]["0.001"]["iterations"] == pytest.approx(
            s["pcfr+"]["to_0.001"]["iterations"] / s["dcfr"]["to_0.001"]["iterations"], abs=1e-3)
        assert s["pcfr+"]["table_bytes"] > s["dcfr"]["table_bytes"]  # one more table
    assert "of dcfr" in capsys.readouterr().out


def test_milestones_follow_the_target_and_the_figure_goes_beside_out(tmp_path, capsys):
    """With ``--target 1e-2`` the solvers stop there, so 1e-3 and 1e-4 are not reported
    as "not reached"; the target is. A run with its own ``--out`` and no ``--figure``
    writes the figure beside it (it once overwrote the docs' figure)."""
    out = tmp_path / "r.json"
    assert B.main(["--rungs", "3,4,1", "--solvers", "public-dcfr,public-cfr+",
                   "--target", "1e-2", "--out", str(out)]) == 0
    (rung,) = json.loads(out.read_text())["rungs"]
    assert rung["milestones"] == [0.01]
    for rec in rung["solvers"].values():
        assert rec["to_0.01"] is not None and "to_0.001" not in rec
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "not reached" not in capsys.readouterr().out
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(SystemExit):
        B.main(["--replot", "--out", str(tmp_path / "x.json")])
    err = capsys.readouterr().err.strip()
    assert err.endswith("has no 'rungs': not a record of this benchmark") and "\n" not in err
