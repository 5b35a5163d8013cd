"""Solve two-player Vitou (``vitou_2p``, deal mode, 0:0) with native full-width CFR.

Builds the deal's game tree once (flat arrays), runs CFR / CFR+ / DCFR,
evaluates the exact exploitability of the average policy every
``--eval-every`` iterations, checkpoints atomically (``--resume`` continues
from the last checkpoint), and writes to ``--out``:

- ``curve.csv``: iteration, seconds, nodes touched, exploitability and the game
  value for the player on the dealer's left (points per deal), peak RSS;
- ``summary.json``: configuration, ``RULES_VERSION``, tree size, final figures;
- ``checkpoint.npz``: solver state (regrets, cumulative policy; no pickle).

    python experiments/solve_2p.py                      # the full 32-card game
    python experiments/solve_2p.py --ranks 4 --copies 2 --hand-size 2 --iterations 500
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.history import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.cfr import VARIANTS, CheckpointError, TabularCFR  # noqa: E402
from vitou_ai.solvers.evaluate import (  # noqa: E402
    _Work,
    best_response,
    expected_returns,
    value_by_position,
)
from vitou_ai.solvers.tree import build_tree  # noqa: E402


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def plot(curve: Path, out: Path) -> None:
    """Exploitability against solver wall time and iterations, from ``curve.csv``."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(curve) as f:
        rows = list(csv.DictReader(f))
    it = [int(r["iteration"]) for r in rows]
    sec = [float(r["seconds"]) for r in rows]
    ex = [float(r["exploitability"]) for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, x, label in ((axes[0], sec, "solver wall time (s)"), (axes[1], it, "iteration")):
        ax.plot(x, ex, marker="o")
        ax.axhline(0.001, color="grey", ls="--", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("exploitability (points per deal)")
    fig.suptitle("vitou_2p, full deck, 0:0 - DCFR on the full tree")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(out, buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="vitou_2p")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--hand-size", type=int, default=3)
    ap.add_argument("--dealer", type=int, default=0)
    ap.add_argument("--variant", choices=VARIANTS, default="dcfr")
    ap.add_argument("--iterations", type=int, default=5000, help="stop after this many")
    ap.add_argument("--time", type=float, default=None, help="stop after this many seconds")
    ap.add_argument("--target", type=float, default=0.001,
                    help="stop when exploitability (points per deal) is at most this")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--out", default=str(ROOT / "results" / "solve_2p"))
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--plot-only", action="store_true", help="redraw curve.png from curve.csv")
    args = ap.parse_args(argv)
    if args.plot_only:
        plot(Path(args.out) / "curve.csv", Path(args.out) / "curve.png")
        return 0

    params = VitouParams(profile=args.profile, ranks=args.ranks, copies=args.copies,
                         hand_size=args.hand_size, dealer=args.dealer)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    tree = build_tree(params)
    build_s = time.perf_counter() - t0
    print(f"tree: {tree.num_nodes:,} nodes, {tree.num_infosets:,} infosets, "
          f"{tree.nbytes / 2**20:,.0f} MiB, built in {build_s:.0f} s", flush=True)
    solver = TabularCFR(tree, args.variant)
    ckpt = out / "checkpoint.npz"
    curve = out / "curve.csv"
    rows: list[dict] = []
    if args.resume and ckpt.exists():
        try:
            solver.load(ckpt)
        except CheckpointError as e:
            print(f"cannot resume: {e}", file=sys.stderr)
            return 2
        if curve.exists():
            with open(curve) as f:
                rows = [r for r in csv.DictReader(f) if int(r["iteration"]) <= solver.iteration]
        print(f"resumed at iteration {solver.iteration}", flush=True)
    work = _Work(tree)
    expl = float("inf")
    while True:
        step = min(args.eval_every, args.iterations - solver.iteration)
        if step <= 0:
            break
        solver.iterate(step)
        avg = solver.average_policy()
        u = expected_returns(tree, avg)
        nash_conv = sum(best_response(tree, avg, p, work)[0] - u[p] for p in range(2))
        left = float(value_by_position(tree, avg)[0])  # averaged over the draw if drawn
        expl = nash_conv / 2
        rows.append({"iteration": solver.iteration, "seconds": round(solver.seconds, 3),
                     "nodes_touched": solver.nodes_touched, "exploitability": expl,
                     "value_dealer_left": left, "peak_rss_mb": round(peak_rss_mb())})
        print(f"it {solver.iteration:>6}  {solver.seconds:>8.0f} s  exploitability "
              f"{expl:.6f}  value(dealer's left) {left:+.5f}", flush=True)
        solver.save(ckpt)
        text = ",".join(rows[0]) + "\n" + "".join(
            ",".join(str(r[k]) for k in rows[0]) + "\n" for r in rows)
        write_atomic(curve, text.encode())
        plot(curve, out / "curve.png")
        if expl <= args.target or (args.time and solver.seconds >= args.time):
            break
    summary = {
        "rules_version": RULES_VERSION, "params": {**params.knobs(), "profile": params.profile},
        "variant": args.variant, "nodes": tree.num_nodes, "infosets": tree.num_infosets,
        "tree_build_seconds": round(build_s, 1), "iterations": solver.iteration,
        "solver_seconds": round(solver.seconds, 1), "exploitability": rows[-1]["exploitability"]
        if rows else None, "value_dealer_left": rows[-1]["value_dealer_left"] if rows else None,
        "peak_rss_mb": round(peak_rss_mb()), "command": " ".join(sys.argv),
    }
    write_atomic(out / "summary.json", (json.dumps(summary, indent=2) + "\n").encode())
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
