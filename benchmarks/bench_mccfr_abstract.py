"""Benchmark: abstract ES-MCCFR iterations per second on one and on two threads.

The full four-player ``vitou`` (3-card hands, 0:0, the default abstraction),
two workers sharing one table; ``numba.set_num_threads`` runs the same
workers on one core or two. Runs alternate 1 and 2 threads so that load from
other users of the machine falls on both; medians; the speed-up (ratio of
medians) is the headline. Also the CPU seconds per wall second of the
two-thread runs (2.0 = both cores busy). Writes ``results/bench_mccfr_abstract.json``.

    python benchmarks/bench_mccfr_abstract.py [--iterations 40000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=40_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_mccfr_abstract.json"))
    args = ap.parse_args()
    params = VitouParams(profile="vitou", dealer=-1)
    solver = AbstractMCCFR(params, seed=0, threads=2, max_infosets=2_000_000)
    solver.warm_up()
    solver.iterate(args.iterations)  # fill the table's hot rows first
    rates: dict[int, list[float]] = {1: [], 2: []}
    cpu_per_wall = []
    for _ in range(args.repeats):
        for threads in (1, 2):
            numba.set_num_threads(threads)
            t, c = time.perf_counter(), time.process_time()
            solver.iterate(args.iterations)
            wall = time.perf_counter() - t
            rates[threads].append(args.iterations / wall)
            if threads == 2:
                cpu_per_wall.append((time.process_time() - c) / wall)
    med = {k: statistics.median(v) for k, v in rates.items()}
    rec = {"rules_version": RULES_VERSION, "benchmark": "abstract ES-MCCFR, vitou 3-card",
           "command": "python benchmarks/bench_mccfr_abstract.py " + " ".join(sys.argv[1:]),
           "iterations_per_run": args.iterations, "repeats": args.repeats,
           "iterations_per_second": {str(k): v for k, v in rates.items()},
           "median_1_thread": med[1], "median_2_threads": med[2],
           "speedup_2_over_1": med[2] / med[1],
           "cpu_seconds_per_wall_second_2_threads": statistics.median(cpu_per_wall),
           "infosets": solver.num_infosets, "machine": platform.platform(),
           "cpus": numba.config.NUMBA_NUM_THREADS}
    write_atomic(Path(args.out), (json.dumps(rec, indent=2) + "\n").encode())
    print(f"1 thread {med[1]:,.0f} it/s, 2 threads {med[2]:,.0f} it/s: x{med[2] / med[1]:.2f}; "
          f"CPU/wall with 2 threads {statistics.median(cpu_per_wall):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
