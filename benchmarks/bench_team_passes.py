"""Benchmark: the four-player team passes on the public tree (``vitou``, signals off,
dealer 0, every seat playing ``random``), same run, interleaved repeats.

Per variant: wall seconds (medians) of
- a team's value and one seat's best response by the single-seat range passes
  (:class:`~vitou_ai.solvers.public.cfr.PublicPasses`, both cores; what
  :func:`~vitou_ai.solvers.public.team.team_value` and ``seat_best_response`` use)
  against the same by the team passes over pairs of hands (``MODE_VALUE``,
  ``MODE_SEAT``, one thread: the baseline);
- the pooled team best response with a decision's terminal children valued
  together (the default) against entering each terminal (``merge_terminals=False``,
  the baseline);
- one team's whole bracket (:func:`~vitou_ai.solvers.public.team.team_bracket`);
with nodes, entries, hands and peak RSS, and the seconds per million nodes that the
extrapolation to the full deck (``8,4,2``, 117,981,097 nodes) uses. Writes
``results/bench_team_passes.json``.

    python benchmarks/bench_team_passes.py [--variants 4,3,2 5,4,2 6,4,2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.bots.named import named_bot  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.public import team as PT  # noqa: E402
from vitou_ai.solvers.public.export import bot_policy  # noqa: E402
from vitou_ai.solvers.public.tree import build_public_tree  # noqa: E402


def seconds(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bench(spec: str, repeats: int) -> dict:
    r, c, h = (int(x) for x in spec.split(","))
    params = VitouParams(profile="vitou", ranks=r, copies=c, hand_size=h, dealer=0)
    t = time.perf_counter()
    tree = build_public_tree(params)
    build = time.perf_counter() - t
    pol = bot_policy(tree, named_bot("random"))
    fast, ref = PT.TeamPasses(tree), PT.TeamPasses(tree, merge_terminals=False)
    contenders = {
        "value_seat_passes": lambda: PT.team_value(tree, pol, 0, fast),
        "value_team_pass": lambda: ref.run(0, PT.MODE_VALUE, -1, pol),
        "seat_br_seat_passes": lambda: PT.seat_best_response(tree, pol, 0, fast),
        "seat_br_team_pass": lambda: ref.run(0, PT.MODE_SEAT, 0, pol),
        "pooled_merged": lambda: PT.pooled_best_response_value(tree, pol, 0, fast),
        "pooled_each_terminal": lambda: PT.pooled_best_response_value(tree, pol, 0, ref),
    }
    for fn in contenders.values():  # compile and warm up
        fn()
    times: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(repeats):
        for k, fn in contenders.items():
            times[k].append(seconds(fn))
    med = {k: statistics.median(v) for k, v in times.items()}
    bracket = seconds(lambda: PT.team_bracket(tree, pol, 0, passes=fast))
    out = {"variant": spec, "nodes": tree.num_nodes, "entries": tree.num_entries,
           "hands": tree.num_hands, "build_seconds": round(build, 1),
           "median_seconds": {k: round(v, 3) for k, v in med.items()},
           "speedup": {
               "value": round(med["value_team_pass"] / med["value_seat_passes"], 2),
               "seat_br": round(med["seat_br_team_pass"] / med["seat_br_seat_passes"], 2),
               "pooled": round(med["pooled_each_terminal"] / med["pooled_merged"], 2)},
           "bracket_team0_seconds": round(bracket, 1),
           "seconds_per_million_nodes": {
               k: round(v / tree.num_nodes * 1e6, 4) for k, v in med.items()},
           "bracket_seconds_per_million_nodes": round(bracket / tree.num_nodes * 1e6, 3)}
    print(json.dumps(out), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variants", nargs="+", default=["4,3,2", "5,4,2", "6,4,2"],
                    help="RANKS,COPIES,HAND four-player variants (default: 4,3,2 5,4,2 6,4,2)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_team_passes.json"))
    args = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    rows = [bench(v, args.repeats) for v in args.variants]
    meta = {"rules_version": RULES_VERSION, "command": " ".join(sys.argv),
            "load_1min_before_after": [round(load0, 2), round(os.getloadavg()[0], 2)],
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            "variants": rows}
    write_atomic(Path(args.out), json.dumps(meta, indent=1).encode())
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
