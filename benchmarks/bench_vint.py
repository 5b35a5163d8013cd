"""Benchmark: random Vint deals per second (deal, auction and 13 tricks, scored).

The kernel (``vitou_ai.vint.kernel.random_deals``, batched with ``prange``) on
1 and on all threads, against in the same run: the plain-Python reference
engine (tests/reference/vint_engine.py), random play through the OpenSpiel game
``python_vint``, and the Vitou kernel's random deals (a yardstick of how loaded
the shared machine is: its quiet-machine figure is in the README). Every action
is uniformly random among the legal ones. Medians of repeated runs, wall clock;
the one-thread runs also as deals per CPU-second of this process, which other
jobs on the shared machine dilute much less. Writes ``results/bench_vint.json``.

    python benchmarks/bench_vint.py [--deals 400000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reference.vint_engine import RefDeal  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402
from vitou_ai.sim.random_play import random_games  # noqa: E402
from vitou_ai.vint import RULES_VERSION, VintParams  # noqa: E402
from vitou_ai.vint.kernel import random_deals  # noqa: E402


def kernel_rates(params, deals: int, threads: int, repeats: int,
                 cpu: list[float] | None = None) -> list[float]:
    """Wall-clock deals/s; with ``cpu`` given, also appends deals per CPU-second of this
    process (all threads), which the other jobs on a shared machine do not dilute."""
    numba.set_num_threads(threads)
    rates = []
    for i in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        random_deals(params, deals, i)
        rates.append(deals / (time.perf_counter() - t))
        if cpu is not None:
            cpu.append(deals / (time.process_time() - c))
    return rates


def reference_rates(deals: int, repeats: int) -> list[float]:
    rates = []
    for i in range(repeats):
        rng = random.Random(i)
        t = time.perf_counter()
        for _ in range(deals):
            deck = list(range(52))
            rng.shuffle(deck)
            deal = RefDeal(0, [deck[13 * k:13 * k + 13] for k in range(4)])
            while not deal.over():
                deal.apply(rng.choice(deal.legal()))
            deal.score()
        rates.append(deals / (time.perf_counter() - t))
    return rates


def openspiel_rates(deals: int, repeats: int) -> list[float]:
    import pyspiel

    import vitou_ai  # noqa: F401

    game = pyspiel.load_game("python_vint")
    rates = []
    for i in range(repeats):
        rng = random.Random(i)
        t = time.perf_counter()
        for _ in range(deals):
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    s.apply_action(rng.choice(s.chance_outcomes())[0])
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
            s.returns()
        rates.append(deals / (time.perf_counter() - t))
    return rates


LOAD0 = 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=400_000, help="kernel deals per repeat")
    ap.add_argument("--ref-deals", type=int, default=1_000, help="reference deals per repeat")
    ap.add_argument("--os-deals", type=int, default=200, help="python_vint deals per repeat")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_vint.json"))
    args = ap.parse_args()
    global LOAD0
    LOAD0 = os.getloadavg()[0]
    threads = numba.config.NUMBA_NUM_THREADS
    params = VintParams().to_array()
    vitou = VitouParams(profile="vitou").to_array()
    random_deals(params, 1000, 0)  # compile
    random_games(vitou, 1000, seed=0)
    ref = reference_rates(args.ref_deals, args.repeats)
    osr = openspiel_rates(args.os_deals, args.repeats)
    cpu_one: list[float] = []
    one = kernel_rates(params, args.deals, 1, args.repeats, cpu_one)
    allt = kernel_rates(params, args.deals, threads, args.repeats)
    numba.set_num_threads(threads)
    yard, yard_cpu = [], []
    numba.set_num_threads(1)
    for i in range(args.repeats):
        t, c = time.perf_counter(), time.process_time()
        random_games(vitou, args.deals, seed=i)
        yard.append(args.deals / (time.perf_counter() - t))
        yard_cpu.append(args.deals / (time.process_time() - c))
    numba.set_num_threads(threads)
    med = statistics.median
    report = {
        "rules_version": RULES_VERSION,
        "machine": platform.processor() or platform.machine(),
        "threads_available": threads,
        "command": "python benchmarks/bench_vint.py " + " ".join(sys.argv[1:]),
        "kernel_1_thread_deals_per_s": med(one),
        "kernel_1_thread_deals_per_cpu_s": med(cpu_one),
        f"kernel_{threads}_threads_deals_per_s": med(allt),
        "kernel_all_threads_best_deals_per_s": max(allt),
        "reference_deals_per_s": med(ref),
        "python_vint_deals_per_s": med(osr),
        "vitou_kernel_1_thread_same_run_deals_per_s": med(yard),
        "vitou_kernel_1_thread_same_run_deals_per_cpu_s": med(yard_cpu),
        "load_average_1min_before_after": [LOAD0, os.getloadavg()[0]],
        "speedup_vs_reference": med(allt) / med(ref),
        "speedup_vs_python_vint": med(allt) / med(osr),
        "raw": {"kernel_1": one, "kernel_1_cpu": cpu_one, "kernel_all": allt, "reference": ref,
                "python_vint": osr, "vitou_kernel_1": yard, "vitou_kernel_1_cpu": yard_cpu},
    }
    print(f"vint kernel: 1 thread {med(one):,.0f}/s ({med(cpu_one):,.0f} per CPU-second), "
          f"{threads} threads {med(allt):,.0f}/s "
          f"(best {max(allt):,.0f}); reference {med(ref):,.0f}/s (x{report['speedup_vs_reference']:,.0f}); "
          f"python_vint {med(osr):,.1f}/s (x{report['speedup_vs_python_vint']:,.0f}); "
          f"Vitou kernel 1 thread same run {med(yard):,.0f}/s ({med(yard_cpu):,.0f} per "
          f"CPU-second); load {LOAD0:.1f} -> {os.getloadavg()[0]:.1f}")
    write_atomic(Path(args.out), (json.dumps(report, indent=2) + "\n").encode())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
