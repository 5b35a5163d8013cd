"""Benchmark: random deals per second of the rules kernel vs the reference engine.

Both play full ``vitou`` deals (raises, refusals, R3.2 early ends) with
uniformly random legal actions, in the same run. The kernel runs batched with
``prange`` on 1 and on all threads; the reference is the plain-Python engine
of ``tests/reference``. Medians of repeated runs; the ratio is the headline
(the machine is shared and noisy). Writes ``results/bench_kernel.json``.

    python benchmarks/bench_kernel.py [--deals 1000000] [--repeats 5]
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

from benchmarks.common import python_rates  # noqa: E402
from tests.reference.engine import RefGame  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.sim.random_play import random_games  # noqa: E402


def kernel_rate(params, deals: int, threads: int, repeats: int) -> list[float]:
    numba.set_num_threads(threads)
    rates = []
    for i in range(repeats):
        t = time.perf_counter()
        random_games(params, deals, seed=i)
        rates.append(deals / (time.perf_counter() - t))
    return rates


def reference_rate(profile: str, deals: int, repeats: int) -> list[float]:
    return python_rates(RefGame(profile=profile).new_initial_state, deals, repeats)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=1_000_000, help="kernel deals per repeat")
    ap.add_argument("--ref-deals", type=int, default=3_000, help="reference deals per repeat")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_kernel.json"))
    args = ap.parse_args()
    threads = numba.config.NUMBA_NUM_THREADS
    report = {"rules_version": RULES_VERSION, "machine": platform.processor() or platform.machine(),
              "threads_available": threads, "profiles": {}}
    for profile in ("vitou", "vitou_2p"):
        params = VitouParams(profile=profile).to_array()
        random_games(params, 1000, seed=0)  # compile
        ref = reference_rate(profile, args.ref_deals, args.repeats)
        one = kernel_rate(params, args.deals, 1, args.repeats)
        allt = kernel_rate(params, args.deals, threads, args.repeats)
        row = {
            "reference_deals_per_s": statistics.median(ref),
            "kernel_1_thread_deals_per_s": statistics.median(one),
            f"kernel_{threads}_threads_deals_per_s": statistics.median(allt),
            "kernel_all_threads_best_deals_per_s": max(allt),
            "speedup_vs_reference": statistics.median(allt) / statistics.median(ref),
            "raw": {"reference": ref, "kernel_1": one, "kernel_all": allt},
        }
        report["profiles"][profile] = row
        print(f"{profile:<9} reference {row['reference_deals_per_s']:>10,.0f}/s   kernel 1 thread "
              f"{row['kernel_1_thread_deals_per_s']:>11,.0f}/s   kernel {threads} threads "
              f"{row[f'kernel_{threads}_threads_deals_per_s']:>11,.0f}/s (median; best "
              f"{max(allt):,.0f})   x{row['speedup_vs_reference']:,.0f} vs reference")
    write_atomic(Path(args.out), (json.dumps(report, indent=2) + "\n").encode())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
