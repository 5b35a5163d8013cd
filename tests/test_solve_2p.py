"""``experiments/solve_2p.py`` runs both trees through the one solver interface
(:mod:`vitou_ai.solvers.protocol`): at equal iterations the public tree and the
flat tree give the same exploitability and game value, the DCFR discounts reach
the solver, and a resumed run continues the curve."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.helpers import experiment
from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.protocol import make_solver

SMALL = ["--ranks", "3", "--copies", "2", "--hand-size", "2", "--eval-every", "10"]


def _script():
    return experiment("solve_2p.py")


def _curve(folder: Path) -> list[dict]:
    with open(folder / "curve.csv") as f:
        return list(csv.DictReader(f))


def test_public_and_flat_trees_agree_through_the_protocol(tmp_path):
    solve = _script()
    for tree in ("public", "flat"):
        assert solve.main(SMALL + ["--iterations", "20", "--tree", tree, "--beta", "0",
                                   "--gamma", "2", "--out", str(tmp_path / tree)]) == 0
    pub, flat = _curve(tmp_path / "public"), _curve(tmp_path / "flat")
    assert [r["iteration"] for r in pub] == [r["iteration"] for r in flat] == ["10", "20"]
    for a, b in zip(pub, flat, strict=True):
        assert abs(float(a["exploitability"]) - float(b["exploitability"])) < 1e-9
        assert abs(float(a["value_dealer_left"]) - float(b["value_dealer_left"])) < 1e-9
        assert float(a["wall_total"]) >= float(a["seconds"]) >= 0.0
    summary = json.loads((tmp_path / "public" / "summary.json").read_text())
    assert summary["discounts"] == {"alpha": 1.5, "beta": 0.0, "gamma": 2.0}


def test_the_discounts_change_the_iterates(tmp_path):
    solve = _script()
    assert solve.main(SMALL + ["--iterations", "10", "--variant", "cfr", "--out",
                               str(tmp_path / "cfr")]) == 0
    summary = json.loads((tmp_path / "cfr" / "summary.json").read_text())
    assert summary["variant"] == "cfr" and summary["discounts"] == {}
    for name, extra in (("default", []), ("gamma5", ["--gamma", "5"])):
        assert solve.main(SMALL + ["--iterations", "20", "--out", str(tmp_path / name)] + extra) == 0
    a, b = _curve(tmp_path / "default"), _curve(tmp_path / "gamma5")
    assert a[-1]["exploitability"] != b[-1]["exploitability"]


def test_resume_continues_the_curve(tmp_path):
    solve = _script()
    out = str(tmp_path / "run")
    assert solve.main(SMALL + ["--iterations", "10", "--out", out]) == 0
    assert solve.main(SMALL + ["--iterations", "20", "--out", out, "--resume"]) == 0
    whole = str(tmp_path / "whole")
    assert solve.main(SMALL + ["--iterations", "20", "--out", whole]) == 0
    resumed, straight = _curve(Path(out)), _curve(Path(whole))
    assert [r["iteration"] for r in resumed] == ["10", "20"]
    assert float(resumed[-1]["exploitability"]) == pytest.approx(
        float(straight[-1]["exploitability"]), abs=1e-12)


def test_discounts_are_refused_by_a_solver_without_them():
    params = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=2)
    with pytest.raises(ValueError, match="takes no DCFR discounts"):
        make_solver("es-mccfr", params, None, alpha=2.0)
    with pytest.raises(ValueError, match="solver cfr\\+ takes no DCFR discounts"):
        make_solver("cfr+", params, build_tree(params), gamma=3.0)
    s = make_solver("dcfr", params, build_tree(params), gamma=3.0)
    assert s.solver.gamma == 3.0


class _CountingSolver:
    """Just what ``solve_common.solve`` calls; records the iterations it was saved at."""

    def __init__(self, exploitability_at: dict[int, float] | None = None):
        self.iterations_done = 0
        self.saved: list[int] = []
        self.exploitability_at = exploitability_at or {}

    def iterate(self, n):
        self.iterations_done += n

    def exact_evaluation(self):
        return {"exploitability": self.exploitability_at.get(self.iterations_done, 1.0)}

    def solver_seconds(self):
        return 0.0

    def save(self, path):
        self.saved.append(self.iterations_done)

    def load(self, path):
        self.iterations_done = self.saved[-1]


@pytest.mark.parametrize("every, target_at, saved, rows", [
    (0.0, None, [10, 20, 30], 3),      # after every evaluation
    (1e9, None, [10, 30], 3),          # after the first evaluation and at the end
    (1e9, 20, [10, 20], 2),            # the end is the target, reached at 20
    (1e9, 10, [10], 1),
])
def test_checkpoints_are_taken_every_so_many_seconds_and_at_the_end(tmp_path, every, target_at,
                                                                    saved, rows):
    """A full-game checkpoint is 450 MB: one per evaluation cost a tenth of the run's wall
    time, so they are taken every ``checkpoint_every`` seconds, the curve at each
    evaluation; and after the first evaluation (a new user's Ctrl-C at 4 minutes,
    before the first 300 s checkpoint, left nothing to resume)."""
    common = experiment("solve_common.py")
    solver = _CountingSolver({target_at: 1e-6} if target_at else None)
    curve: list[dict] = []
    plotted = []
    common.solve(solver, curve, lambda ev: {"iteration": solver.iterations_done, **ev},
                 out=tmp_path, iterations=30, eval_every=10, target=1e-4, time_limit=None,
                 checkpoint_every=every, after_checkpoint=lambda: plotted.append(1))
    assert solver.saved == saved and len(plotted) == len(saved)
    assert [r["iteration"] for r in _curve(tmp_path)] == [str(10 * (k + 1)) for k in range(rows)]


def test_resume_drops_the_curve_rows_after_the_checkpoint(tmp_path):
    """Evaluations after the last checkpoint are run again on resume, so their rows go."""
    common = experiment("solve_common.py")
    (tmp_path / "checkpoint.npz").write_bytes(b"")  # resume() only asks that it exists
    (tmp_path / "curve.csv").write_text("iteration,exploitability\n10,0.5\n20,0.4\n30,0.3\n")
    solver = _CountingSolver()
    solver.saved = [20]
    rows = common.resume(solver, tmp_path)
    assert [r["iteration"] for r in rows] == ["10", "20"]


def test_a_small_variant_without_out_leaves_the_shipped_results_alone(tmp_path, monkeypatch):
    """Without --out, the docstring's own small example overwrote the full game's shipped
    results/solve_2p_public/ (curve, plot, summary)."""
    solve = _script()
    monkeypatch.setattr(solve, "ROOT", tmp_path)
    assert solve.main(SMALL + ["--iterations", "10"]) == 0
    run = tmp_path / "runs" / "solve_2p-public-vitou_2p-3x2x2-dealer0"
    assert (run / "summary.json").exists() and (run / "checkpoint.npz").exists()
    assert not (tmp_path / "results").exists()
