"""Solve two-player Vitou (``vitou_2p``, deal mode, 0:0) with native full-width CFR.

By default on the deal's *public tree* (range vectors, :mod:`vitou_ai.solvers.public.cfr`);
``--tree flat`` runs the flat game tree instead (the cross-check: same iterates,
about ten times the memory); both through the one solver interface
(:func:`vitou_ai.solvers.protocol.make_solver`). Runs CFR / CFR+ / DCFR (DCFR's
discounts ``--alpha --beta --gamma``, by default 1.5, -1, 3), evaluates the exact
exploitability of the average policy every ``--eval-every`` iterations,
checkpoints atomically after the first evaluation and every ``--checkpoint-every``
wall seconds (after an evaluation; ``--resume`` continues from the last checkpoint),
and writes to ``--out`` (default: ``results/solve_2p_public`` for the full game,
``runs/solve_2p-...`` for any other):

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
import math
import os
import sys
import time
from pathlib import Path
from typing import NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))

from solve_common import (  # noqa: E402
    ROOT,
    lock_out,
    peak_rss_mb,
    resume,
    solve,
    write_summary,
)

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.checkpoint import (  # noqa: E402
    CheckpointError,
    check_config,
    load_checkpoint,
    params_record,
)
from vitou_ai.solvers.flat import cfr  # noqa: E402
from vitou_ai.solvers.flat.cfr import VARIANTS  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.protocol import make_solver  # noqa: E402
from vitou_ai.solvers.public import cfr as public_cfr  # noqa: E402
from vitou_ai.solvers.public.cfr import TABLE_DTYPES  # noqa: E402
from vitou_ai.solvers.public.tree import build_public_tree  # noqa: E402
from vitou_ai.training.session import check_writable, interrupts_outside_numba  # noqa: E402

# DCFR's discounts (Brown & Sandholm 2019 use 1.5, 0, 2); beta -1 and gamma 3 did better
# on 5 ranks x 4 copies, 3-card hands (README, "solved game")
DISCOUNTS = {"alpha": 1.5, "beta": -1.0, "gamma": 3.0}


def refuse(msg: str) -> NoReturn:
    """Bad input: one line on stderr, exit code 2 (as the ``vitou-ai`` commands)."""
    print(f"solve_2p: {msg}", file=sys.stderr)
    raise SystemExit(2)


def read_curve(path: Path) -> list[tuple[int, float, float]]:
    """``(iteration, seconds, exploitability)`` rows of a ``curve.csv``.

    Raises:
        ValueError: one line naming ``path``: missing, unreadable, without those
            columns or without rows, or a cell that is not a number.
    """
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        out = [(int(r["iteration"]), float(r["seconds"]), float(r["exploitability"]))
               for r in rows]
    except OSError as e:
        raise ValueError(f"{path}: cannot read ({e.strerror or e})") from None
    except (KeyError, TypeError, ValueError, UnicodeDecodeError, csv.Error) as e:
        raise ValueError(f"{path}: not a curve.csv with numeric iteration, seconds and "
                         f"exploitability columns ({type(e).__name__}: {e})") from None
    if not out:
        raise ValueError(f"{path}: not a curve.csv: no rows under a header")
    return out


def plot(curve: Path, out: Path, compare: Path | None = None, title: str = "") -> None:
    """Exploitability against solver wall time and iterations, from ``curve.csv``
    (and ``compare``, another run's ``curve.csv``, on the same axes)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [(curve, "this run")]
    if compare is not None:
        runs.append((compare, "flat tree (earlier run)"))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for path, name in runs:
        rows = read_curve(path)
        it = [r[0] for r in rows]
        sec = [r[1] for r in rows]
        ex = [r[2] for r in rows]
        for ax, x in ((axes[0], sec), (axes[1], it)):
            ax.plot(x, ex, marker="o", ms=3, label=name)
    for ax, label in ((axes[0], "solver wall time (s)"), (axes[1], "iteration")):
        ax.axhline(1e-4, color="grey", ls="--", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("exploitability (points per deal)")
        ax.legend()
    fig.suptitle(title or "vitou_2p, full deck, 0:0 - DCFR")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(out, buf.getvalue())


def warm_up(tree_kind: str, variant: str, profile: str, discounts: dict,
            tables: str = "float64") -> float:
    """Compile the solver's kernels (numba, on first use; then cached on disk) on a
    small deal of the same profile, so that the run's solver seconds count
    iterations only. Returns the seconds it took (counted in ``wall_total``)."""
    t = time.perf_counter()
    small = VitouParams(profile=profile, ranks=4, copies=2, hand_size=2)
    if tree_kind == "public":
        solver = make_solver(f"public-{variant}", small, build_public_tree(small),
                             tables=tables, **discounts)
    else:
        solver = make_solver(variant, small, build_tree(small), **discounts)
    solver.iterate(2)
    solver.exact_evaluation()
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    """The command; exit code 0, 2 for bad input (one line on stderr), 130 when
    interrupted (Ctrl-C: ``checkpoint.npz`` and ``curve.csv`` are whole, written
    atomically, and ``--resume`` continues from the last checkpoint). As ``vitou-ai``,
    Ctrl-C is kept out of numba's compiled code and callbacks
    (:func:`vitou_ai.training.session.interrupts_outside_numba`: one inside the tree builder was a
    ``SystemError`` traceback)."""
    _folder.clear()
    try:
        with interrupts_outside_numba():
            return run(argv)
    except KeyboardInterrupt:
        if _folder and (_folder[0] / "checkpoint.npz").is_file():
            print("\nsolve_2p: interrupted; --resume continues from the last checkpoint",
                  file=sys.stderr)
        else:
            print("\nsolve_2p: interrupted before the first checkpoint: nothing to resume",
                  file=sys.stderr)
        return 130


_folder: list[Path] = []  # the run's --out, once known (for the interrupt message)


def run(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="vitou_2p")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--hand-size", type=int, default=3)
    ap.add_argument("--dealer", type=int, default=0)
    ap.add_argument("--tree", choices=("public", "flat"), default="public",
                    help="public tree with range vectors (default) or the flat game tree")
    ap.add_argument("--variant", choices=VARIANTS, default="dcfr")
    ap.add_argument("--tables", choices=TABLE_DTYPES, default="float64",
                    help="the public tree's table type (float32: compact, half their memory)")
    ap.add_argument("--alpha", type=float, default=None,
                    help=f"DCFR only: positive regrets x t^a/(t^a+1) (default {DISCOUNTS['alpha']})")
    ap.add_argument("--beta", type=float, default=None,
                    help=f"DCFR only: negative regrets x t^b/(t^b+1) (default {DISCOUNTS['beta']})")
    ap.add_argument("--gamma", type=float, default=None,
                    help=f"DCFR only: cumulative policy x (t/(t+1))^g (default {DISCOUNTS['gamma']})")
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    ap.add_argument("--iterations", type=int, default=5000, help="stop after this many")
    ap.add_argument("--time", type=float, default=None, help="stop after this many seconds")
    ap.add_argument("--target", type=float, default=1e-4,
                    help="stop when exploitability (points per deal) is at most this")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--checkpoint-every", type=float, default=300.0,
                    help="wall seconds between checkpoints (taken after an evaluation; "
                         "also at the end; 0: after every evaluation)")
    ap.add_argument("--out", default=None,
                    help="default for the full game results/solve_2p_public (public tree), "
                         "results/solve_2p (flat); for another game runs/solve_2p-TREE-"
                         "PROFILE-RANKSxCOPIESxHAND-dealerD")
    ap.add_argument("--compare", default=None,
                    help="a flat-tree curve.csv drawn beside this run's (default: "
                         "results/solve_2p/curve.csv, for the full game only)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--plot-only", action="store_true", help="redraw curve.png from curve.csv")
    args = ap.parse_args(argv)
    full_game = (args.profile, args.ranks, args.copies, args.hand_size, args.dealer) == (
        "vitou_2p", 8, 4, 3, 0)
    if args.out is None:
        # the shipped results are the full game's; any other game's run goes under runs/
        # (a small variant used to overwrite them)
        args.out = str(ROOT / "results" / ("solve_2p_public" if args.tree == "public"
                                           else "solve_2p") if full_game else
                       ROOT / "runs" / (f"solve_2p-{args.tree}-{args.profile}-{args.ranks}x"
                                        f"{args.copies}x{args.hand_size}-dealer{args.dealer}"))
    elif not args.out.strip():
        refuse("--out is empty: name a folder")
    out = Path(args.out)
    title = (f"{args.profile}, {args.ranks} ranks x {args.copies} copies, {args.hand_size}-card "
             f"hands - {args.variant.upper()}, {args.tree} tree")
    # every input checked before the tree is built (minutes on the full game)
    compare = None
    if args.tree == "public":
        # the shipped flat curve is the full game's: not drawn beside a smaller variant
        default = ROOT / "results" / "solve_2p" / "curve.csv"
        compare = (Path(args.compare) if args.compare
                   else default if full_game and default.exists() else None)
        if compare is not None:
            try:
                read_curve(compare)
            except ValueError as e:
                refuse(f"--compare {e}")
    if args.plot_only:
        try:
            read_curve(out / "curve.csv")
            plot(out / "curve.csv", out / "curve.png", compare, title)
        except (ValueError, OSError) as e:
            refuse(f"--plot-only: {e}")
        return 0
    for flag, value, lo in (("--iterations", args.iterations, 1),
                            ("--eval-every", args.eval_every, 1)):
        if value < lo:
            refuse(f"{flag} must be at least {lo}, got {value}")
    if not args.checkpoint_every >= 0:  # inf: only at the end
        refuse(f"--checkpoint-every must be a number of seconds >= 0, got {args.checkpoint_every}")
    if args.time is not None and not args.time > 0:
        refuse(f"--time must be a positive number of seconds, got {args.time}")
    if not args.target >= 0:
        refuse(f"--target must be an exploitability >= 0 (points per deal), got {args.target}")
    given = {k: getattr(args, k) for k in DISCOUNTS if getattr(args, k) is not None}
    for name, value in given.items():
        if not math.isfinite(value):
            refuse(f"--{name} must be a finite number, got {value}")
    if given and args.variant != "dcfr":
        refuse(f"--{next(iter(given))} is a DCFR discount; --variant {args.variant} has none")
    if args.tables != "float64" and args.tree != "public":
        refuse(f"--tables {args.tables} is an option of the public tree (--tree public)")
    # the discounts reach the solver (and its checkpoint record) only for DCFR
    discounts = {**DISCOUNTS, **given} if args.variant == "dcfr" else {}
    try:
        params = VitouParams(profile=args.profile, ranks=args.ranks, copies=args.copies,
                             hand_size=args.hand_size, dealer=args.dealer)
    except ValueError as e:
        refuse(str(e))
    if params.players != 2:
        refuse(f"--profile {args.profile} has {params.players} players; this script solves "
               f"two-player games (four players: vitou-ai train --solver public-dcfr, "
               f"experiments/team_exploitability.py)")
    if args.threads is not None:
        import numba

        if not 1 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
            refuse(f"--threads must be in [1, {numba.config.NUMBA_NUM_THREADS}], "
                   f"got {args.threads}")
        numba.set_num_threads(args.threads)
    try:
        check_writable(out)
    except OSError as e:
        refuse(str(e))
    checkpoint = out / "checkpoint.npz"
    _folder.append(out)
    if args.resume and checkpoint.exists():
        # the record of the checkpoint against this run's, before the tree is built
        fmt = public_cfr.CHECKPOINT_FORMAT if args.tree == "public" else cfr.CHECKPOINT_FORMAT
        want = {"format": fmt, "rules_version": RULES_VERSION, "variant": args.variant,
                **discounts, "params": params_record(params),
                **({"tables": args.tables} if args.tree == "public" else {})}
        try:
            meta, _ = load_checkpoint(checkpoint, ())
            check_config(checkpoint, meta, want, params.players)
            if (out / "curve.csv").exists():
                read_curve(out / "curve.csv")  # the columns the plot reads, and rows
        except (CheckpointError, ValueError) as e:
            refuse(f"cannot resume: {e}")
        done = meta.get("iteration")
        if isinstance(done, int) and args.iterations <= done:
            refuse(f"--resume: the checkpoint is at iteration {done}; --iterations "
                   f"{args.iterations} leaves nothing to run (give more)")
    elif args.resume:
        refuse(f"--resume: no checkpoint.npz in {out} (leave --resume out to start a run)")
    elif checkpoint.exists():
        refuse(f"{out} holds a run's checkpoint already: continue it with --resume, or "
               f"choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    if not lock_out(out, "solve_2p"):  # one writer per run folder, before any work
        raise SystemExit(2)
    t0 = time.perf_counter()
    compile_s = warm_up(args.tree, args.variant, args.profile, discounts, args.tables)
    t1 = time.perf_counter()
    if args.tree == "public":
        tree = build_public_tree(params)
        build_s = time.perf_counter() - t1
        print(f"public tree: {tree.num_nodes:,} nodes, {tree.num_edges:,} edges, "
              f"{tree.num_entries:,} (information set, action) entries, "
              f"{tree.nbytes / 2**20:,.0f} MiB, built in {build_s:.0f} s", flush=True)
        solver = make_solver(f"public-{args.variant}", params, tree, tables=args.tables,
                             **discounts)
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
          checkpoint_every=args.checkpoint_every,
          after_checkpoint=lambda: plot(out / "curve.csv", out / "curve.png", compare, title))
    summary = {
        "rules_version": RULES_VERSION, "params": {**params.knobs(), "profile": params.profile},
        "tree": args.tree, "variant": args.variant, "tables": args.tables,
        "discounts": discounts, "nodes": tree.num_nodes,
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
