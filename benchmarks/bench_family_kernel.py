"""Benchmark: Vitou's random-deal rate on this kernel vs the kernel before the Truc / Put
family was added, measured in the same process; and the family profiles' rates.

The baseline is a git commit of this repository (default: ``main``), exported with ``git
archive`` to a temporary folder as the package ``vitou_ai_base`` (its imports are all
relative; its ``__init__`` is left empty so that it registers no OpenSpiel game). Both
kernels play uniformly random ``vitou`` / ``vitou_2p`` deals with
``sim.random_play.random_games`` on one thread, in short runs interleaved A B B A A B ...
so that load on the shared machine hits both alike. Reported: the medians, and the median
of the ratios of the two runs of each round (this / baseline), the headline; the issue
asks for at least 0.90. Writes ``results/bench_family_kernel.json``.

    python benchmarks/bench_family_kernel.py [--baseline main] [--deals 50000] [--rounds 31]
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402
from vitou_ai.sim.random_play import random_games  # noqa: E402


def rate(fn, params, deals: int, seed: int) -> float:
    t = time.perf_counter()
    fn(params, deals, seed=seed)
    return deals / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default="main", help="commit or branch (default: main)")
    ap.add_argument("--deals", type=int, default=50_000, help="deals per run")
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_family_kernel.json"))
    args = ap.parse_args()
    base = subprocess.run(["git", "rev-parse", args.baseline], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    numba.set_num_threads(1)
    report = {"baseline_commit": base, "deals_per_run": args.deals, "rounds": args.rounds,
              "threads": 1, "profiles": {}}
    tmp = Path(tempfile.mkdtemp())
    try:
        tar = subprocess.run(["git", "archive", base, "vitou_ai"], cwd=ROOT, capture_output=True,
                             check=True)
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=tar.stdout, check=True)
        (tmp / "vitou_ai").rename(tmp / "vitou_ai_base")
        (tmp / "vitou_ai_base" / "__init__.py").write_text("")
        sys.path.insert(0, str(tmp))
        old_rp = importlib.import_module("vitou_ai_base.sim.random_play")
        old_params = importlib.import_module("vitou_ai_base.rules.params")
        for profile in ("vitou", "vitou_2p"):
            pa_old = old_params.VitouParams(profile=profile).to_array()
            pa_new = VitouParams(profile=profile).to_array()
            old_rp.random_games(pa_old, 2000, seed=0)  # compile
            random_games(pa_new, 2000, seed=0)
            a, b, ratios = [], [], []
            for i in range(args.rounds):
                if i % 2 == 0:
                    ra = rate(old_rp.random_games, pa_old, args.deals, i)
                    rb = rate(random_games, pa_new, args.deals, i)
                else:
                    rb = rate(random_games, pa_new, args.deals, i)
                    ra = rate(old_rp.random_games, pa_old, args.deals, i)
                a.append(ra)
                b.append(rb)
                ratios.append(rb / ra)
            row = {"baseline_deals_per_s": statistics.median(a),
                   "family_kernel_deals_per_s": statistics.median(b),
                   "ratio_of_medians": statistics.median(b) / statistics.median(a),
                   "median_paired_ratio": statistics.median(ratios),
                   "raw": {"baseline": a, "family_kernel": b}}
            report["profiles"][profile] = row
            print(f"{profile:<9} baseline {row['baseline_deals_per_s']:>10,.0f}/s  this kernel "
                  f"{row['family_kernel_deals_per_s']:>10,.0f}/s  median paired ratio "
                  f"{row['median_paired_ratio']:.3f} (ratio of medians "
                  f"{row['ratio_of_medians']:.3f}; {args.rounds} rounds)", flush=True)
        for profile in ("truc_catalan", "truc_catalan_2p", "truc_1912", "trut", "put"):
            pa = VitouParams(profile=profile).to_array()
            random_games(pa, 2000, seed=0)
            r = statistics.median(rate(random_games, pa, args.deals, i) for i in range(5))
            report["profiles"][profile] = {"family_kernel_deals_per_s": r}
            print(f"{profile:<15} {r:>10,.0f} random deals/s (1 thread)", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write_atomic(Path(args.out), (json.dumps(report, indent=2) + "\n").encode())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
