"""Benchmark: the batch simulator with policies, deals/s and matches/s.

In one run, on the ``vitou`` profile:

- the simulator (``vitou_ai.sim.batch.simulate``, ``prange`` over rows) with
  uniformly random policies and with the ``counter`` heuristic bot on every
  seat, in deal mode and in match mode, on all threads and on one;
- the same random play driven step by step through the reference engine
  (``tests/reference/engine.py``, plain Python) and through the OpenSpiel
  game ``python_vitou`` (``pyspiel.load_game``), with Python's ``random``;
- the kernel's own random loop (``random_games``), to show what the policy
  dispatch costs.

Medians of repeated runs; ratios are the headline (the machine is shared and
noisy; the load average is recorded). Writes ``results/bench_sim.json``.

    python benchmarks/bench_sim.py [--deals 1000000] [--matches 50000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyspiel  # noqa: E402

import vitou_ai  # noqa: E402,F401  (registers python_vitou)
from benchmarks.common import python_rates  # noqa: E402
from tests.reference.engine import RefGame  # noqa: E402
from vitou_ai.bots import RandomPolicy, named_bot  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.sim.batch import simulate  # noqa: E402
from vitou_ai.sim.random_play import random_games  # noqa: E402


def sim_rates(params: VitouParams, lineup, n: int, repeats: int, threads: int) -> list[float]:
    numba.set_num_threads(threads)
    simulate(params, lineup, 2000, seed=0)  # compile / load outside the timing
    rates = []
    for i in range(repeats):
        t = time.perf_counter()
        simulate(params, lineup, n, seed=i + 1)
        rates.append(n / (time.perf_counter() - t))
    return rates


def kernel_random_rates(params: VitouParams, n: int, repeats: int, threads: int) -> list[float]:
    numba.set_num_threads(threads)
    a = params.to_array()
    random_games(a, 1000, seed=0)
    rates = []
    for i in range(repeats):
        t = time.perf_counter()
        random_games(a, n, seed=i + 1)
        rates.append(n / (time.perf_counter() - t))
    return rates


def summary(rates: list[float]) -> dict:
    return {"median": statistics.median(rates), "best": max(rates), "raw": rates}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=1_000_000, help="simulator deals per repeat")
    ap.add_argument("--matches", type=int, default=50_000, help="simulator matches per repeat")
    ap.add_argument("--heuristic-deals", type=int, default=200_000)
    ap.add_argument("--ref-deals", type=int, default=2_000, help="reference / OpenSpiel deals")
    ap.add_argument("--ref-matches", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_sim.json"))
    args = ap.parse_args()
    threads = numba.config.NUMBA_NUM_THREADS
    deal = VitouParams(profile="vitou", dealer=-1)
    match = VitouParams(profile="vitou", mode="match", dealer=-1)
    rnd = [RandomPolicy()] * 4
    ctr = [named_bot("counter")] * 4
    r = args.repeats
    load0 = os.getloadavg()
    rows: dict[str, dict] = {}

    def run(name: str, unit: str, rates: list[float]) -> None:
        rows[name] = {"unit": unit, **summary(rates)}
        print(f"{name:<44} {rows[name]['median']:>14,.0f} {unit}/s (median of {len(rates)}; "
              f"best {rows[name]['best']:,.0f})", flush=True)

    run("sim_random_deals_all_threads", "deals", sim_rates(deal, rnd, args.deals, r, threads))
    run("sim_random_deals_1_thread", "deals", sim_rates(deal, rnd, args.deals, r, 1))
    run("kernel_random_games_all_threads", "deals",
        kernel_random_rates(deal, args.deals, r, threads))
    run("sim_counter_deals_all_threads", "deals",
        sim_rates(deal, ctr, args.heuristic_deals, r, threads))
    run("sim_random_matches_all_threads", "matches",
        sim_rates(match, rnd, args.matches, r, threads))
    run("sim_counter_matches_all_threads", "matches",
        sim_rates(match, ctr, args.matches // 5, r, threads))
    numba.set_num_threads(threads)
    ref_deal = RefGame(profile="vitou", dealer=-1)
    ref_match = RefGame(profile="vitou", mode="match", dealer=-1)
    run("reference_random_deals", "deals",
        python_rates(ref_deal.new_initial_state, args.ref_deals, r))
    run("reference_random_matches", "matches",
        python_rates(ref_match.new_initial_state, args.ref_matches, r))
    os_deal = pyspiel.load_game("python_vitou(dealer=-1)")
    os_match = pyspiel.load_game("python_vitou(dealer=-1,mode=match)")
    run("openspiel_python_vitou_random_deals", "deals",
        python_rates(os_deal.new_initial_state, args.ref_deals, r))
    run("openspiel_python_vitou_random_matches", "matches",
        python_rates(os_match.new_initial_state, args.ref_matches, r))

    def ratio(a: str, b: str) -> float:
        return rows[a]["median"] / rows[b]["median"]

    ratios = {
        "sim_random_deals_vs_reference": ratio("sim_random_deals_all_threads",
                                               "reference_random_deals"),
        "sim_random_deals_vs_openspiel": ratio("sim_random_deals_all_threads",
                                               "openspiel_python_vitou_random_deals"),
        "sim_random_matches_vs_reference": ratio("sim_random_matches_all_threads",
                                                 "reference_random_matches"),
        "sim_random_matches_vs_openspiel": ratio("sim_random_matches_all_threads",
                                                 "openspiel_python_vitou_random_matches"),
        "sim_counter_deals_vs_reference_random": ratio("sim_counter_deals_all_threads",
                                                       "reference_random_deals"),
        "sim_random_vs_kernel_random_games": ratio("sim_random_deals_all_threads",
                                                   "kernel_random_games_all_threads"),
        "threads_speedup": ratio("sim_random_deals_all_threads", "sim_random_deals_1_thread"),
    }
    for k, v in ratios.items():
        print(f"{k:<44} x{v:,.2f}")
    report = {
        "rules_version": RULES_VERSION,
        "machine": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "threads_available": threads,
        "load_average_before": load0,
        "load_average_after": os.getloadavg(),
        "profile": "vitou",
        "targets": {"sim_random_deals_per_s": 1_000_000, "ratio_vs_reference": 100},
        "rates": rows,
        "ratios": ratios,
    }
    write_atomic(Path(args.out), (json.dumps(report, indent=2) + "\n").encode())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
