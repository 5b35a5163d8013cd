"""Benchmark: Vitou's random-deal rate on this kernel vs the kernel before the Truc / Put
family was added, measured in the same run; and the family profiles' rates.

The baseline is a git commit of this repository (default: the branch point from
``main``), exported with ``git archive`` to a temporary folder. Two long-lived worker
processes (baseline and this tree) play uniformly random ``vitou`` / ``vitou_2p`` deals
with ``sim.random_play.random_games`` on one thread; their runs are interleaved (A B A B
...) so that load on the shared machine hits both alike. The headline is the ratio of the
medians (this / baseline); the issue asks for at least 0.90. Writes
``results/bench_family_kernel.json``.

    python benchmarks/bench_family_kernel.py [--baseline COMMIT] [--deals 300000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.history import write_atomic  # noqa: E402

WORKER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import numba
numba.set_num_threads(1)
from vitou_ai.rules import VitouParams
from vitou_ai.sim.random_play import random_games
arrays = {}
print("ready", flush=True)
for line in sys.stdin:
    profile, deals, seed = line.split()
    if profile not in arrays:
        arrays[profile] = VitouParams(profile=profile).to_array()
        random_games(arrays[profile], 2000, seed=0)  # compile
    t = time.perf_counter()
    random_games(arrays[profile], int(deals), seed=int(seed))
    print(int(deals) / (time.perf_counter() - t), flush=True)
"""


class Worker:
    def __init__(self, path: Path):
        self.p = subprocess.Popen([sys.executable, "-c", WORKER, str(path)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, cwd=path)
        assert self.p.stdout.readline().strip() == "ready"

    def rate(self, profile: str, deals: int, seed: int) -> float:
        self.p.stdin.write(f"{profile} {deals} {seed}\n")
        self.p.stdin.flush()
        return float(self.p.stdout.readline())

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default=None, help="commit (default: merge-base with main)")
    ap.add_argument("--deals", type=int, default=300_000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_family_kernel.json"))
    args = ap.parse_args()
    base = args.baseline or subprocess.run(
        ["git", "merge-base", "HEAD", "main"], cwd=ROOT, capture_output=True, text=True,
        check=True).stdout.strip()
    report = {"baseline_commit": base, "deals_per_run": args.deals, "repeats": args.repeats,
              "threads": 1, "profiles": {}}
    with tempfile.TemporaryDirectory() as tmp:
        tar = subprocess.run(["git", "archive", base], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=tar.stdout, check=True)
        old, new = Worker(Path(tmp)), Worker(ROOT)
        try:
            for profile in ("vitou", "vitou_2p"):
                a, b = [], []
                for i in range(args.repeats):  # interleaved, alternating who goes first
                    first, second = (old, new) if i % 2 == 0 else (new, old)
                    r1 = first.rate(profile, args.deals, i)
                    r2 = second.rate(profile, args.deals, i)
                    (a if first is old else b).append(r1)
                    (b if second is new else a).append(r2)
                ratio = statistics.median(b) / statistics.median(a)
                report["profiles"][profile] = {
                    "baseline_deals_per_s": statistics.median(a),
                    "family_kernel_deals_per_s": statistics.median(b),
                    "ratio": ratio, "raw": {"baseline": a, "family_kernel": b}}
                print(f"{profile:<9} baseline {statistics.median(a):>10,.0f}/s  this kernel "
                      f"{statistics.median(b):>10,.0f}/s  ratio {ratio:.3f} (median of {args.repeats})",
                      flush=True)
            for profile in ("truc_catalan", "truc_catalan_2p", "truc_1912", "trut", "put"):
                rates = [new.rate(profile, args.deals, i) for i in range(3)]
                report["profiles"][profile] = {"family_kernel_deals_per_s": statistics.median(rates)}
                print(f"{profile:<15} {statistics.median(rates):>10,.0f} random deals/s (1 thread)",
                      flush=True)
        finally:
            old.close()
            new.close()
    write_atomic(Path(args.out), (json.dumps(report, indent=2) + "\n").encode())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
