"""Solve two-player Vitou (``vitou_2p``, deal mode, 0:0) with native full-width CFR.

By default on the deal's *public tree* (range vectors, :mod:`vitou_ai.solvers.public_cfr`);
``--tree flat`` runs the flat game tree instead (the cross-check: same iterates,
about ten times the memory); both through the one solver interface
(:func:`vitou_ai.solvers.protocol.make_solver`). Runs CFR / CFR+ / DCFR (DCFR's
discounts ``--alpha --beta --gamma``, by default 1.5, -1, 3), evaluates the exact
exploitability of the average policy every ``--eval-every`` iterations,
checkpoints atomically (``--resume`` continues from the last checkpoint), and
writes to ``--out``:

- ``curve.csv``: iteration, solver seconds (wall, in iterations only), total wall
  seconds since the start (tree build and evaluations included) and CPU seconds,
  nodes touched, exploitability and the game value for the player on the dealer's
  left (points per deal), peak RSS, the machine's 1-minute load average;
- ``summary.json``: configuration, ``RULES_VERSION``, tree size, final figures;
- ``checkpoint.npz``: solver state (regrets, cumulative policy; no pickle);
- ``curve.png``: exploitability against wall time and iterations, beside the
  flat solver's curve when ``--compare`` names its ``curve.csv``.

    python experiments/solve_2p.py                      # the full 32-card game
    python experiments/solve_2p.py --tree flat --out results/solve_2p
    python experiments/solve_2p.py --ranks 4 --copies 2 --hand-size 2 --iterations 500
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from solve_common import ROOT, peak_rss_mb, resume, solve, write_summary  # noqa: E402

from vitou_ai.history import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.cfr import VARIANTS  # noqa: E402
from vitou_ai.solvers.protocol import make_solver  # noqa: E402
from vitou_ai.solvers.public_tree import build_public_tree  # noqa: E402
from vitou_ai.solvers.tree import build_tree  # noqa: E402


def plot(curve: Path, out: Path, compare: Path | None = None) -> None:
    """Exploitability against solver wall time and iterations, from ``curve.csv``
    (and ``compare``, another run's ``curve.csv``, on the same axes)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [(curve, "this run")]
    if compare is not None and compare.exists():
        runs.append((compare, "flat tree (earlier run)"))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for path, name in runs:
        with open(path) as f:
            rows = list(csv.DictReader(f))
        it = [int(r["iteration"]) for r in rows]
        sec = [float(r["seconds"]) for r in rows]
        ex = [float(r["exploitability"]) for r in rows]
        for ax, x in ((axes[0], sec), (axes[1], it)):
            ax.plot(x, ex, marker="o", ms=3, label=name)
    for ax, label in ((axes[0], "solver wall time (s)"), (axes[1], "iteration")):
        ax.axhline(1e-4, color="grey", ls="--", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("exploitability (points per deal)")
        ax.legend()
    fig.suptitle("vitou_2p, full deck, 0:0 - DCFR")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(out, buf.getvalue())


def warm_up(tree_kind: str, variant: str, profile: str, discounts: dict) -> float:
    """Compile the solver's kernels (numba, on first use; then cached on disk) on a
    small deal of the same profile, so that the run's solver seconds count
    iterations only. Returns the seconds it took (counted in ``wall_total``)."""
    t = time.perf_counter()
    small = VitouParams(profile=profile, ranks=4, copies=2, hand_size=2)
    if tree_kind == "public":
        solver = make_solver(f"public-{variant}", small, build_public_tree(small), **discounts)
    else:
        solver = make_solver(variant, small, build_tree(small), **discounts)
    solver.iterate(2)
    solver.exact_evaluation()
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="vitou_2p")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--hand-size", type=int, default=3)
    ap.add_argument("--dealer", type=int, default=0)
    ap.add_argument("--tree", choices=("public", "flat"), default="public",
                    help="public tree with range vectors (default) or the flat game tree")
    ap.add_argument("--variant", choices=VARIANTS, default="dcfr")
    # DCFR's discounts (Brown & Sandholm 2019 use 1.5, 0, 2); beta -1 and gamma 3 did
    # better on 5 ranks x 4 copies, 3-card hands (README, "solved game")
    ap.add_argument("--alpha", type=float, default=1.5, help="DCFR: positive regrets x t^a/(t^a+1)")
    ap.add_argument("--beta", type=float, default=-1.0, help="DCFR: negative regrets x t^b/(t^b+1)")
    ap.add_argument("--gamma", type=float, default=3.0,
                    help="DCFR: cumulative policy x (t/(t+1))^g")
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    ap.add_argument("--iterations", type=int, default=5000, help="stop after this many")
    ap.add_argument("--time", type=float, default=None, help="stop after this many seconds")
    ap.add_argument("--target", type=float, default=1e-4,
                    help="stop when exploitability (points per deal) is at most this")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--out", default=None,
                    help="default results/solve_2p_public (public tree), results/solve_2p (flat)")
    ap.add_argument("--compare", default=str(ROOT / "results" / "solve_2p" / "curve.csv"),
                    help="a flat-tree curve.csv drawn beside this run's")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--plot-only", action="store_true", help="redraw curve.png from curve.csv")
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = str(ROOT / "results" / ("solve_2p_public" if args.tree == "public"
                                           else "solve_2p"))
    compare = Path(args.compare) if args.tree == "public" and args.compare else None
    if args.plot_only:
        plot(Path(args.out) / "curve.csv", Path(args.out) / "curve.png", compare)
        return 0
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)

    params = VitouParams(profile=args.profile, ranks=args.ranks, copies=args.copies,
                         hand_size=args.hand_size, dealer=args.dealer)
    discounts = {"alpha": args.alpha, "beta": args.beta, "gamma": args.gamma}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    compile_s = warm_up(args.tree, args.variant, args.profile, discounts)
    t1 = time.perf_counter()
    if args.tree == "public":
        tree = build_public_tree(params)
        build_s = time.perf_counter() - t1
        print(f"public tree: {tree.num_nodes:,} nodes, {tree.num_edges:,} edges, "
              f"{tree.num_entries:,} (information set, action) entries, "
              f"{tree.nbytes / 2**20:,.0f} MiB, built in {build_s:.0f} s", flush=True)
        solver = make_solver(f"public-{args.variant}", params, tree, **discounts)
    else:
        tree = build_tree(params)
        build_s = time.perf_counter() - t1
        print(f"tree: {tree.num_nodes:,} nodes, {tree.num_infosets:,} infosets, "
              f"{tree.nbytes / 2**20:,.0f} MiB, built in {build_s:.0f} s", flush=True)
        solver = make_solver(args.variant, params, tree, **discounts)
    rows = resume(solver, out) if args.resume else []
    if rows is None:
        return 2
    if solver.iterations_done:
        print(f"resumed at iteration {solver.iterations_done}", flush=True)
    leader = (params.dealer + 1) % params.players
    cpu0 = time.process_time() - (float(rows[-1]["cpu_seconds"]) if rows and "cpu_seconds"
                                  in rows[-1] else 0.0)
    wall0 = float(rows[-1]["wall_total"]) if rows and rows[-1].get("wall_total") else 0.0

    def record(ev: dict) -> dict:
        expl = ev["exploitability"]
        # seat 0's value; a drawn dealer has no "dealer's left" seat
        left = ((1 if leader == 0 else -1) * ev["game_value"] if params.dealer >= 0
                else float("nan"))
        row = {"iteration": solver.iterations_done,
               "seconds": round(solver.solver_seconds(), 3),
               "wall_total": round(time.perf_counter() - t0 + wall0, 3),
               "cpu_seconds": round(time.process_time() - cpu0, 1),
               "nodes_touched": solver.nodes_touched, "exploitability": expl,
               "value_dealer_left": left, "peak_rss_mb": round(peak_rss_mb()),
               "load_1min": round(os.getloadavg()[0], 2)}
        print(f"it {solver.iterations_done:>6}  {solver.solver_seconds():>8.0f} s  exploitability "
              f"{expl:.6f}  value(dealer's left) {left:+.5f}", flush=True)
        return row

    solve(solver, rows, record, out=out, iterations=args.iterations,
          eval_every=args.eval_every, target=args.target, time_limit=args.time,
          after_eval=lambda: plot(out / "curve.csv", out / "curve.png", compare))
    summary = {
        "rules_version": RULES_VERSION, "params": {**params.knobs(), "profile": params.profile},
        "tree": args.tree, "variant": args.variant, "discounts": discounts, "nodes": tree.num_nodes,
        "infosets": getattr(tree, "num_infosets", None),
        "entries": getattr(tree, "num_entries", None),
        "compile_seconds": round(compile_s, 1), "tree_build_seconds": round(build_s, 1),
        "iterations": solver.iterations_done,
        "solver_seconds": round(solver.solver_seconds(), 1),
        "wall_total": rows[-1].get("wall_total") if rows else None,
        "cpu_seconds": rows[-1].get("cpu_seconds") if rows else None, "exploitability": rows[-1]["exploitability"]
        if rows else None, "value_dealer_left": rows[-1]["value_dealer_left"] if rows else None,
        "peak_rss_mb": round(peak_rss_mb()), "command": " ".join(sys.argv),
    }
    write_summary(out, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
