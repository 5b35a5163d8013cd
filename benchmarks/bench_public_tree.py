"""Benchmark: range-vector DCFR on the public tree against DCFR on the flat tree, same
variant, same run, both through the one solver interface
(:func:`vitou_ai.solvers.protocol.make_solver`); and the public tree's scaling
from 1 to 2 numba threads; the public tree's array layout (``layout="visit"``,
the walks' order, against ``"expansion"``, the build stack's order) at the same
thread count; and the last card of a deal valued inline by its parent's frame
against a frame of its own (:data:`~vitou_ai.solvers.public.kernels.FORCED_LAST`),
the same tree, the same thread count, in the same interleaved repeats. (An experimental
stored-policy walk was compared here too; it was slower and left the package: its
figure is in docs/results/speed.md.)

Reported: tree sizes and bytes, iterations per second (medians of interleaved
repeats, so that the shared machine's load drifts over all contenders alike),
CPU seconds per iteration, the ratios, the 1-minute load average before and
after, and peak RSS of this process. Writes ``results/bench_public_tree.json``.
The full ``vitou_2p`` solve (its curve, wall and CPU time, peak RSS) is
``experiments/solve_2p.py``.

    python benchmarks/bench_public_tree.py [--profile vitou_2p --ranks 8 --copies 4 --hand-size 2]

``--profile`` takes any two-player profile (``put``, ``truc_catalan_2p``: the family's
public tree); ``--ranks`` defaults to the profile's whole deck.
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

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.protocol import make_solver  # noqa: E402
from vitou_ai.solvers.public import kernels as PK  # noqa: E402
from vitou_ai.solvers.public.tree import build_public_tree  # noqa: E402
from vitou_ai.training.session import check_writable  # noqa: E402


def timed(fn, iterations: int) -> tuple[float, float]:
    """(iterations per wall second, CPU seconds per iteration) of ``fn(iterations)``."""
    w, c = time.perf_counter(), time.process_time()
    fn(iterations)
    return iterations / (time.perf_counter() - w), (time.process_time() - c) / iterations


def refuse(msg: str):
    """Bad input: one line on stderr, exit code 2 (as the ``vitou-ai`` commands)."""
    print(f"bench_public_tree: {msg}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="vitou_2p")
    ap.add_argument("--ranks", type=int, default=None, help="top N ranks (default: the whole deck)")
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--hand-size", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-flat", action="store_true", help="skip the flat tree (too large)")
    ap.add_argument("--no-last-card-baseline", action="store_true",
                    help="skip the walks that give the last card a frame of its own")
    ap.add_argument("--no-layout", action="store_true",
                    help="skip the baseline layout (a second public tree)")
    ap.add_argument("--no-scaling", action="store_true",
                    help="skip the 1-thread run (then every contender makes the same iterations)")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_public_tree.json"))
    args = ap.parse_args(argv)
    # checked before the trees are built and timed: a mistake costs no minutes
    for flag, value in (("--iterations", args.iterations), ("--repeats", args.repeats)):
        if value < 1:
            refuse(f"{flag} must be at least 1, got {value}")
    try:
        params = VitouParams(profile=args.profile, ranks=args.ranks, copies=args.copies,
                             hand_size=args.hand_size)
        if params.players != 2:
            raise ValueError(f"{params.profile} has four players: the benchmark races "
                             "two-player solvers")
        check_writable(args.out, "file")
    except (ValueError, OSError) as e:
        refuse(str(e))
    t = time.perf_counter()
    pt = build_public_tree(params)
    public_build = time.perf_counter() - t
    threads = numba.get_num_threads()
    load_before = os.getloadavg()[0]
    public = make_solver("public-dcfr", params, pt)
    public.iterate(1)  # compile
    contenders = {}
    for th in sorted({threads} if args.no_scaling else {1, threads}):
        def run(n, th=th):
            numba.set_num_threads(th)
            public.iterate(n)
        contenders[f"public_{th}_threads"] = run
    out = {"rules_version": RULES_VERSION, "params": {**params.knobs(), "profile": params.profile},
           "public_tree": {"nodes": pt.num_nodes, "edges": pt.num_edges,
                           "entries": pt.num_entries, "mib": round(pt.nbytes / 2**20, 1),
                           "build_seconds": round(public_build, 1)}}
    def contender(name: str, solver) -> None:
        """``solver`` (compiled by one iteration) raced with all threads."""
        solver.iterate(1)

        def run(n):
            numba.set_num_threads(threads)
            solver.iterate(n)
        contenders[name] = run

    if not args.no_last_card_baseline:
        # the walks before the last card was valued inline: a frame for every decision
        framed = make_solver("public-dcfr", params, pt)
        forced = framed.solver.passes.forced
        forced[forced == PK.FORCED_LAST] = PK.FORCED
        contender("public_last_card_framed", framed)
    if not args.no_layout:
        t = time.perf_counter()
        pt_exp = build_public_tree(params, layout="expansion")
        out["public_tree"]["expansion_build_seconds"] = round(time.perf_counter() - t, 1)
        contender("public_expansion_layout", make_solver("public-dcfr", params, pt_exp))
    if not args.no_flat:
        t = time.perf_counter()
        ft = build_tree(params)
        out["flat_tree"] = {"nodes": ft.num_nodes, "infosets": ft.num_infosets,
                            "mib": round(ft.nbytes / 2**20, 1),
                            "build_seconds": round(time.perf_counter() - t, 1)}
        contender("flat", make_solver("dcfr", params, ft))
    rates: dict[str, list[float]] = {k: [] for k in contenders}
    cpu: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(args.repeats):
        for name, fn in contenders.items():
            r, c = timed(fn, args.iterations)
            rates[name].append(r)
            cpu[name].append(c)
    med = {k: statistics.median(v) for k, v in rates.items()}
    out["iterations_per_second"] = {k: round(v, 3) for k, v in med.items()}
    out["cpu_seconds_per_iteration"] = {k: round(statistics.median(v), 4)
                                        for k, v in cpu.items()}
    top = f"public_{threads}_threads"
    if "public_1_threads" in med:
        out["speedup_threads"] = round(med[top] / med["public_1_threads"], 3)
    if "flat" in med:
        out["public_over_flat"] = round(med[top] / med["flat"], 3)
    if "public_last_card_framed" in med:
        out["inline_over_framed_last_card"] = round(med[top] / med["public_last_card_framed"], 3)
    if "public_expansion_layout" in med:
        out["visit_over_expansion_layout"] = round(med[top] / med["public_expansion_layout"], 3)
    out["load_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    out["threads"] = threads
    out["command"] = " ".join(sys.argv)
    write_atomic(Path(args.out), (json.dumps(out, indent=2) + "\n").encode())
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
