"""Shared by the full-width solve experiments (``solve_2p.py``, ``solve_family.py``): the
solve loop over the one solver interface (:func:`vitou_ai.solvers.protocol.make_solver`),
its resumable ``curve.csv`` and the ``summary.json`` writer.

The loop runs ``eval_every`` iterations at a time, evaluates the average policy exactly
(:meth:`~vitou_ai.solvers.protocol.Solver.exact_evaluation`: exploitability and game value,
points per deal), appends the script's curve row and rewrites ``curve.csv`` atomically
after every evaluation, checkpoints after the first evaluation, when ``checkpoint_every``
wall seconds have passed since the last checkpoint, and when it stops (at ``iterations``, at the target
exploitability, or after ``time_limit`` solver seconds). A checkpoint of the full game's
tables is about 450 MB, so one per evaluation cost about a tenth of the run.
"""

from __future__ import annotations

import csv
import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.solvers.flat.cfr import CheckpointError  # noqa: E402
from vitou_ai.solvers.protocol import Solver  # noqa: E402


def lock_out(out: Path, prog: str) -> bool:
    """Take the one-writer lock of the run folder ``out`` (:class:`vitou_ai.io.RunLock`)
    until the process exits; ``False`` after printing, in one line, that another process
    writes it (its PID). A stale lock taken over is said on stderr."""
    import atexit

    from vitou_ai.io import RunLock

    lock = RunLock(out, " ".join([prog, *sys.argv[1:]]))
    try:
        said = lock.acquire()
    except OSError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return False
    atexit.register(lock.release)
    if said:
        print(f"{prog}: {said}", file=sys.stderr)
    return True


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
        return [r for r in curve_rows(out / "curve.csv")
                if int(r["iteration"]) <= solver.iterations_done]
    except ValueError as e:
        print(f"cannot resume: {e}", file=sys.stderr)
        return None


def curve_rows(path: Path) -> list[dict]:
    """The rows of a run's ``curve.csv`` (values as strings).

    Raises:
        ValueError: ``"<path>: not a curve with an iteration column (<why>)"``.
    """
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            int(r["iteration"])
        return rows
    except (OSError, KeyError, TypeError, ValueError, UnicodeDecodeError, csv.Error) as e:
        raise ValueError(f"{path}: not a curve with an iteration column "
                         f"({type(e).__name__}: {e})") from None


def write_curve(path: Path, rows: list[dict]) -> None:
    """``rows`` as CSV, atomically, under the columns of the last row (an earlier,
    resumed row without one of them leaves its cell empty)."""
    keys = list(rows[-1])
    text = ",".join(keys) + "\n" + "".join(
        ",".join(str(r.get(k, "")) for k in keys) + "\n" for r in rows)
    write_atomic(path, text.encode())


def solve(solver: Solver, rows: list[dict], record: Callable[[dict], dict], *, out: Path,
          iterations: int, eval_every: int, target: float, time_limit: float | None,
          checkpoint_every: float = 0.0,
          after_checkpoint: Callable[[], None] | None = None) -> None:
    """Run ``solver`` until ``iterations`` are done, the exploitability is at most
    ``target`` (points per deal) or ``time_limit`` solver seconds have passed.

    After every ``eval_every`` iterations: ``record(evaluation)`` makes the curve row
    (and prints the progress line), which is appended to ``rows`` and written to
    ``out/curve.csv``. The solver is checkpointed to ``out/checkpoint.npz`` after the
    first evaluation, after an evaluation when at least ``checkpoint_every`` wall
    seconds have passed since the last checkpoint (0: after every evaluation) and at
    the end; ``after_checkpoint``
    is called then (e.g. to redraw a plot of the curve). On resume, the curve's rows
    after the checkpoint's iteration are dropped (:func:`resume`).
    """
    last_save = None  # the first evaluation checkpoints: an early Ctrl-C keeps a run
    while True:
        step = min(eval_every, iterations - solver.iterations_done)
        if step <= 0:
            break
        solver.iterate(step)
        ev = solver.exact_evaluation()
        rows.append(record(ev))
        write_curve(out / "curve.csv", rows)
        done = (solver.iterations_done >= iterations or ev["exploitability"] <= target
                or bool(time_limit and solver.solver_seconds() >= time_limit))
        if done or last_save is None or time.perf_counter() - last_save >= checkpoint_every:
            solver.save(out / "checkpoint.npz")
            last_save = time.perf_counter()
            if after_checkpoint is not None:
                after_checkpoint()
        if done:
            break


def write_summary(out: Path, summary: dict) -> None:
    """``out/summary.json`` (atomically), also printed."""
    write_atomic(out / "summary.json", (json.dumps(summary, indent=2) + "\n").encode())
    print(json.dumps(summary, indent=2))
