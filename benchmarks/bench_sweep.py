"""Benchmark: a match-equity sweep (vitou_ai.match_equity.sweep) on the embedded local Ray runtime
against the serial backend, same table, same run.

Each repeat computes the whole table of a small ``vitou_2p`` variant in a fresh result
folder (no resume), serial and Ray alternating so the shared machine's load drifts over
both alike; Ray's time includes starting and stopping its runtime (what a command pays)
and is also given without it. Reported: medians, the speed-up ratio serial / Ray, the
machine's load average before and after, and whether the tables are identical. Writes
``results/bench_sweep.json``.

    python benchmarks/bench_sweep.py [--ranks 4 --copies 2 --hand-size 2 --target 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.match_equity import two_player as M  # noqa: E402
from vitou_ai.match_equity.sweep import Sweep  # noqa: E402
from vitou_ai.rules import RULES_VERSION  # noqa: E402


def one_run(config: M.EquityConfig, backend: str, workers: int, folder: Path
            ) -> tuple[float, float, str]:
    """(wall seconds with runtime start/stop, wall seconds of the table alone, CSV text)."""
    t0 = time.perf_counter()
    with Sweep(folder / "tasks", config.fingerprint(), backend=backend, workers=workers) as s:
        t1 = time.perf_counter()
        M.run_table(config, folder, s)
        t2 = time.perf_counter()
    t3 = time.perf_counter()
    return t3 - t0, t2 - t1, (folder / f"{M.output_stem(config)}.csv").read_text()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--hand-size", type=int, default=2)
    ap.add_argument("--target", type=int, default=5)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_sweep.json"))
    args = ap.parse_args(argv)
    config = M.EquityConfig(ranks=args.ranks, copies=args.copies, hand_size=args.hand_size,
                            target=args.target, tol=args.tol)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench_sweep_") as tmp:
        one_run(config, "serial", 1, Path(tmp) / "warm")  # compile / load numba caches
        walls: dict[str, list[float]] = {"serial": [], "ray": []}
        tables: dict[str, set[str]] = {"serial": set(), "ray": set()}
        inner: list[float] = []
        for r in range(args.repeats):
            for backend in ("serial", "ray"):
                wall, table_only, csv_text = one_run(config, backend, args.workers,
                                                     Path(tmp) / f"{backend}{r}")
                walls[backend].append(wall)
                tables[backend].add(csv_text)
                if backend == "ray":
                    inner.append(table_only)
    med = {k: statistics.median(v) for k, v in walls.items()}
    out = {
        "rules_version": RULES_VERSION, "config": config.as_dict(),
        "states": sum(len(w) for w in M.task_keys(config)),
        "waves": len(M.task_keys(config)), "workers": args.workers,
        "repeats": args.repeats,
        "wall_seconds": {k: [round(x, 2) for x in v] for k, v in walls.items()},
        "median_seconds": {k: round(v, 2) for k, v in med.items()},
        "median_ray_seconds_without_runtime_start": round(statistics.median(inner), 2),
        "speedup_ray_over_serial": round(med["serial"] / med["ray"], 3),
        "speedup_without_runtime_start": round(med["serial"] / statistics.median(inner), 3),
        "identical_tables": len(tables["serial"] | tables["ray"]) == 1,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "command": " ".join(["python", *sys.argv]),
    }
    write_atomic(Path(args.out), (json.dumps(out, indent=2) + "\n").encode())
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
