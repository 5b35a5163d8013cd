"""``experiments/solve_family.py`` drives DCFR through the one solver interface
(:func:`vitou_ai.solvers.protocol.make_solver`) and the solve loop it shares with
``solve_2p.py`` (``experiments/solve_common.py``), on the flat or the public tree: its
curve agrees with TabularCFR / PublicCFR run and evaluated directly, a resumed run
continues the curve, and the rate table's frequencies in each row sum to one."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.helpers import experiment
from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.cfr import TabularCFR
from vitou_ai.solvers.flat.evaluate import expected_returns, exploitability
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.public.cfr import PublicCFR
from vitou_ai.solvers.public.tree import build_public_tree

SMALL = ["--profile", "truc_catalan_2p", "--ranks", "3", "--copies", "2", "--hand-size", "2",
         "--eval-every", "10"]


def _script():
    return experiment("solve_family.py")


def _csv(path: Path) -> list[dict]:
    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("tree_kind", ["flat", "public"])
def test_the_curve_matches_cfr_evaluated_directly(tmp_path, tree_kind):
    solve = _script()
    assert solve.main(SMALL + ["--tree", tree_kind, "--iterations", "20", "--target", "0",
                               "--out", str(tmp_path)]) == 0
    curve = _csv(tmp_path / "curve.csv")
    assert list(curve[0]) == ["iteration", "seconds", "wall_seconds", "exploitability",
                              "value_nondealer"]
    assert [r["iteration"] for r in curve] == ["10", "20"]
    params = VitouParams(profile="truc_catalan_2p", ranks=3, copies=2, hand_size=2, dealer=1)
    if tree_kind == "flat":
        tree = build_tree(params)
        cfr = TabularCFR(tree, "dcfr", **solve.DISCOUNTS)
    else:
        tree = build_public_tree(params)
        cfr = PublicCFR(tree, "dcfr", **solve.DISCOUNTS)
    for row in curve:
        cfr.iterate(10)
        avg = cfr.average_policy()
        if tree_kind == "flat":
            expl, u0 = exploitability(tree, avg), expected_returns(tree, avg)[0]
        else:
            expl, u0 = cfr.exploitability(), cfr.expected_returns()[0]
        assert float(row["exploitability"]) == pytest.approx(expl, abs=1e-12)
        # the non-dealer (seat 0 when seat 1 deals) leads the first trick
        assert float(row["value_nondealer"]) == pytest.approx(u0, abs=1e-12)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["iterations"] == 20 and summary["tree"] == tree_kind
    assert summary["discounts"] == solve.DISCOUNTS
    if tree_kind == "flat":
        assert summary["infosets"] == tree.num_infosets
        table = solve.rate_table(tree, avg, params.rank_labels, params.dealer)
    else:
        assert summary["entries"] == tree.num_entries
        table = solve.public_rate_table(tree, avg, params.rank_labels, params.dealer)
    assert summary["exploitability"] == float(curve[-1]["exploitability"])
    # rates.csv reads back as written: situation names with commas are quoted
    read = _csv(tmp_path / "rates.csv")
    assert table and len(read) == len(table)
    assert any("," in r["situation"] for r in table)
    for r, back in zip(table, read, strict=True):
        assert back["situation"] == r["situation"] and back["best_card"] == str(r["best_card"])
        assert float(back["reach"]) == pytest.approx(r["reach"], abs=5e-5)
    for r in table:
        freqs = [v for k, v in r.items() if k not in ("situation", "best_card", "reach")]
        assert sum(freqs) == pytest.approx(1.0, abs=1e-9)

def test_resume_continues_the_curve(tmp_path):
    solve = _script()
    out, whole = str(tmp_path / "run"), str(tmp_path / "whole")
    assert solve.main(SMALL + ["--iterations", "10", "--target", "0", "--out", out]) == 0
    assert solve.main(SMALL + ["--iterations", "20", "--target", "0", "--out", out,
                               "--resume"]) == 0
    assert solve.main(SMALL + ["--iterations", "20", "--target", "0", "--out", whole]) == 0
    resumed, straight = _csv(Path(out) / "curve.csv"), _csv(Path(whole) / "curve.csv")
    assert [r["iteration"] for r in resumed] == ["10", "20"]
    assert [r["exploitability"] for r in resumed] == [r["exploitability"] for r in straight]


def test_rates_only_reads_the_checkpoint(tmp_path):
    solve = _script()
    out = tmp_path / "run"
    assert solve.main(SMALL + ["--iterations", "10", "--target", "0", "--out", str(out)]) == 0
    first = (out / "rates.csv").read_text()
    curve = (out / "curve.csv").read_text()
    (out / "rates.csv").unlink()
    assert solve.main(SMALL + ["--out", str(out), "--rates-only"]) == 0
    assert (out / "rates.csv").read_text() == first and (out / "curve.csv").read_text() == curve
    assert solve.main(SMALL + ["--out", str(tmp_path / "empty"), "--rates-only"]) == 2
