"""Shared by the full-width solve experiments (``solve_2p.py``, ``solve_family.py``): the
solve loop over the one solver interface (:func:`vitou_ai.solvers.protocol.make_solver`),
its resumable ``curve.csv`` and the ``summary.json`` writer.

The loop runs ``eval_every`` iterations at a time, evaluates the average policy exactly
(:meth:`~vitou_ai.solvers.protocol.Solver.exact_evaluation`: exploitability and game value,
points per deal), appends the script's curve row, checkpoints and rewrites ``curve.csv``
atomically after every evaluation, and stops at ``iterations``, at the target
exploitability, or after ``time_limit`` solver seconds.
"""

from __future__ import annotations

import csv
import json
import resource
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.history import write_atomic  # noqa: E402
from vitou_ai.solvers.cfr import CheckpointError  # noqa: E402
from vitou_ai.solvers.protocol import Solver  # noqa: E402


def peak_rss_mb() -> float:
    """The process's peak resident set size so far, MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def resume(solver: Solver, out: Path) -> list[dict] | None:
    """Load ``solver`` from ``out/checkpoint.npz`` and return the rows of ``out/curve.csv``
    up to the iteration it reached (values as strings); ``[]`` when there is no checkpoint
    (or no curve), ``None`` after printing why the checkpoint was refused (another game
    or solver) or the curve could not be read."""
    if not (out / "checkpoint.npz").exists():
        return []
    try:
        solver.load(out / "checkpoint.npz")
    except CheckpointError as e:
        print(f"cannot resume: {e}", file=sys.stderr)
        return None
    if not (out / "curve.csv").exists():
        return []
    try:
        with open(out / "curve.csv", newline="") as f:
            return [r for r in csv.DictReader(f) if int(r["iteration"]) <= solver.iterations_done]
    except (OSError, KeyError, TypeError, ValueError, UnicodeDecodeError, csv.Error) as e:
        print(f"cannot resume: {out / 'curve.csv'}: not a curve with an iteration column "
              f"({type(e).__name__}: {e})", file=sys.stderr)
        return None


def write_curve(path: Path, rows: list[dict]) -> None:
    """``rows`` as CSV, atomically, under the columns of the last row (an earlier,
    resumed row without one of them leaves its cell empty)."""
    keys = list(rows[-1])
    text = ",".join(keys) + "\n" + "".join(
        ",".join(str(r.get(k, "")) for k in keys) + "\n" for r in rows)
    write_atomic(path, text.encode())


def solve(solver: Solver, rows: list[dict], record: Callable[[dict], dict], *, out: Path,
          iterations: int, eval_every: int, target: float, time_limit: float | None,
          after_eval: Callable[[], None] | None = None) -> None:
    """Run ``solver`` until ``iterations`` are done, the exploitability is at most
    ``target`` (points per deal) or ``time_limit`` solver seconds have passed.

    After every ``eval_every`` iterations: ``record(evaluation)`` makes the curve row
    (and prints the progress line), which is appended to ``rows``; the solver is
    checkpointed to ``out/checkpoint.npz``, ``rows`` written to ``out/curve.csv``, and
    ``after_eval`` called (e.g. to redraw a plot of the curve).
    """
    while True:
        step = min(eval_every, iterations - solver.iterations_done)
        if step <= 0:
            break
        solver.iterate(step)
        ev = solver.exact_evaluation()
        rows.append(record(ev))
        solver.save(out / "checkpoint.npz")
        write_curve(out / "curve.csv", rows)
        if after_eval is not None:
            after_eval()
        if ev["exploitability"] <= target or (time_limit and solver.solver_seconds() >= time_limit):
            break


def write_summary(out: Path, summary: dict) -> None:
    """``out/summary.json`` (atomically), also printed."""
    write_atomic(out / "summary.json", (json.dumps(summary, indent=2) + "\n").encode())
    print(json.dumps(summary, indent=2))
