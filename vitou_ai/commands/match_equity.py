"""``vitou-ai match-equity``: the match-equity table of ``vitou_2p`` (:mod:`vitou_ai.match_equity.two_player`)
through a sweep (:mod:`vitou_ai.match_equity.sweep`: an embedded Ray runtime, a Ray cluster, or serially).

Exit codes: 0 done, 2 bad input or a failed sweep (one line on stderr), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

EXIT_OK, EXIT_ERROR = 0, 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``vitou-ai match-equity``."""
    from ..match_equity.sweep import BACKENDS
    from ..match_equity.two_player import SOLVERS, VARIANTS
    from ..rules.params import ALL_PROFILES

    p.add_argument("--profile", default="vitou_2p", choices=ALL_PROFILES,
                   help="game profile; only vitou_2p is computed (the others are refused "
                   "with the reason)")
    p.add_argument("--target", type=int, default=12, help="points that win the match")
    p.add_argument("--ranks", type=int, default=8, help="research variant: top N ranks")
    p.add_argument("--copies", type=int, default=4, help="research variant: copies per rank")
    p.add_argument("--hand-size", type=int, default=3, help="cards per hand, 1 .. 3")
    p.add_argument("--tol", type=float, default=1e-4,
                   help="exploitability of each deal, in match-equity units (probability)")
    p.add_argument("--fixed-point-tol", type=float, default=1e-9,
                   help="value iterations of a state and its redeal stop below this move")
    p.add_argument("--solver", default="flat", choices=SOLVERS,
                   help="flat game tree or public tree")
    p.add_argument("--variant", default="dcfr", choices=VARIANTS, help="CFR variant")
    p.add_argument("--no-mirror", action="store_true",
                   help="solve every state, not only score0 <= score1 and the rest by seat "
                   "symmetry")
    p.add_argument("--out", default="results/match_equity",
                   help="output folder (table, heatmap, summary; per-state results in "
                   "OUT/tasks_<stem>/)")
    p.add_argument("--resume", action="store_true",
                   help="continue from the per-state results already in --out, and a state "
                   "being solved from its checkpoint")
    p.add_argument("--checkpoint-every", type=float, default=600.0, metavar="SECONDS",
                   help="save the state being solved this often (OUT/partial_<stem>/), so "
                   "that a run stopped mid-state resumes there with --resume (a kill loses "
                   "the solving since the last save); 0: after every batch of iterations, "
                   "inf: never. With a Ray cluster, --out must be on a filesystem the "
                   "nodes share")
    p.add_argument("--backend", default="auto", choices=BACKENDS,
                   help="auto: Ray if installed, else serial")
    p.add_argument("--address", default=None, metavar="HOST:PORT",
                   help="an existing Ray cluster (default: an embedded local runtime)")
    p.add_argument("--workers", type=int, default=None,
                   help="CPUs of the embedded Ray runtime (default: all of this machine's)")
    p.add_argument("--max-retries", type=int, default=2, help="retries of a failed state")
    p.add_argument("--max-tree-nodes", type=int, default=30_000_000,
                   help="largest deal tree to solve, checked on the 0:0 deal before the sweep "
                   "starts (the full deck's 3-card deal has 105 M nodes, 15 GB per tree)")
    p.add_argument("--lookup", default=None, metavar="A:B",
                   help="print E(A, B, dealer) for both dealers from the table in --out "
                   "(computed before) instead of computing")


def _lookup(args, config, out: Path) -> int:
    from ..match_equity.two_player import (
        MatchEquityError,
        check_scores,
        output_stem,
        read_table_csv,
    )

    # options of the computation: they mean nothing to a lookup (the table's file name
    # holds only the game), so one given would read a table made otherwise, unnoticed
    unused = {"tol": 1e-4, "fixed_point_tol": 1e-9, "solver": "flat", "variant": "dcfr",
              "no_mirror": False, "resume": False, "backend": "auto", "address": None,
              "workers": None, "max_retries": 2, "max_tree_nodes": 30_000_000,
              "checkpoint_every": 600.0}
    given = [k for k, default in unused.items() if getattr(args, k, default) != default]
    if given:
        flag = "--" + given[0].replace("_", "-")
        print(f"vitou-ai match-equity: {flag} does not apply to --lookup (it reads the "
              "stored table; the table's file name holds only the game's knobs)",
              file=sys.stderr)
        return EXIT_ERROR
    try:
        parts = args.lookup.split(":")
        if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
            raise MatchEquityError(f"--lookup {args.lookup!r}: expected A:B, two scores")
        a, b = check_scores([int(p) for p in parts], config.target)
        table = read_table_csv(out / f"{output_stem(config)}.csv")
        for d in (0, 1):
            if (a, b, d) not in table:
                raise MatchEquityError(f"{out / (output_stem(config) + '.csv')}: no row for "
                                       f"{a}:{b} dealer {d}")
            print(f"score {a}:{b}, seat {d} deals: seat 0 wins the match with probability "
                  f"{table[(a, b, d)]:.6f}")
    except MatchEquityError as e:
        print(f"vitou-ai match-equity: {e}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _check_tree_size(config, max_nodes: int) -> None:
    """Build the 0:0 deal's tree (seat 0 dealing) with at most ``max_nodes`` nodes, so a
    deal too large for this machine is refused in the command, once, before any task
    is given to the workers, which would each build two of them (the other scores' deals are no larger: one from
    the end, R6, there are no raises).

    Raises:
        MatchEquityError: the tree has more than ``max_nodes`` nodes.
    """
    from ..match_equity.two_player import MatchEquityError
    from .console import note

    if config.solver == "public":
        from ..solvers.public.tree import build_public_tree as build
    else:
        from ..solvers.flat.tree import build_tree as build
    note("match-equity", f"checking the deal's {config.solver} tree (at most {max_nodes:,} "
         "nodes)...")
    from ..resources import ResourceError

    try:
        build(config.deal_params((0, 0), 0), max_nodes=max_nodes)
    except ResourceError as e:  # it fits the node limit, not this machine
        raise MatchEquityError(str(e)) from None
    except ValueError:
        raise MatchEquityError(f"the deal's {config.solver} tree has more than {max_nodes:,} "
                               "nodes; a deal is solved whole (two trees per score state at "
                               "once): use " + ("" if config.solver == "public" else
                               "--solver public (the public tree: the 3-card table's), ")
                               + "--hand-size 2 or fewer --ranks, or raise --max-tree-nodes"
                               ) from None


def command(args: argparse.Namespace) -> int:
    """Run ``vitou-ai match-equity``; returns the exit code."""
    from ..match_equity.sweep import Sweep, SweepError
    from ..match_equity.two_player import EquityConfig, MatchEquityError, output_stem, run_table
    from .console import note

    try:
        config = EquityConfig(profile=args.profile, target=args.target, ranks=args.ranks,
                              copies=args.copies, hand_size=args.hand_size, tol=args.tol,
                              fixed_point_tol=args.fixed_point_tol, solver=args.solver,
                              variant=args.variant, mirror=not args.no_mirror)
        if args.max_retries < 0:
            raise MatchEquityError(f"--max-retries must be at least 0, got {args.max_retries}")
        if not args.checkpoint_every >= 0:  # NaN fails too
            raise MatchEquityError("--checkpoint-every must be a number of seconds, 0 or more "
                                   f"(inf: never), got {args.checkpoint_every}")
    except MatchEquityError as e:
        print(f"vitou-ai match-equity: {e}", file=sys.stderr)
        return EXIT_ERROR
    out = Path(args.out)
    if args.lookup is not None:
        return _lookup(args, config, out)
    from .console import check_writable

    try:
        check_writable(out)  # before Ray starts and any deal is solved
    except OSError as e:
        print(f"vitou-ai match-equity: {e}", file=sys.stderr)
        return EXIT_ERROR
    tasks = out / f"tasks_{output_stem(config)}"
    partial = out / f"partial_{output_stem(config)}"  # run_table's state checkpoints
    held = [f for f, pattern in ((tasks, "*.json"), (partial, "*.npz"))
            if f.is_dir() and any(f.glob(pattern))]
    if not args.resume and held:
        what = "results" if held[0] == tasks else "a state's checkpoint"
        print(f"vitou-ai match-equity: {held[0]} already holds {what}; add --resume to "
              "continue, or choose another --out", file=sys.stderr)
        return EXIT_ERROR
    if args.resume and not held:
        # a mistyped folder would start the whole sweep again, unnoticed (train --resume too)
        print(f"vitou-ai match-equity: --resume: no sweep in {out} (no {tasks.name}/ with "
              f"results, no {partial.name}/ with checkpoints); leave --resume out to start "
              "one", file=sys.stderr)
        return EXIT_ERROR
    from .console import claim_run_folder

    # one writer for the table's files too (the sweep's own lock ends with the sweep)
    claim_run_folder(tasks, "match-equity",
                     "vitou-ai " + shlex.join(getattr(args, "argv", None) or []))
    done = [0]

    def on_state(rec: dict, resumed: bool) -> None:
        done[0] += 1
        a, b = rec["key"]
        eq = " ".join(f"{r['equity0']:.6f}" for r in rec["rows"])
        ex = max(r["exploitability"] for r in rec["rows"])
        kept = rec.get("resumed_seconds", 0.0)
        how = "stored" if resumed else f"{rec['seconds']:.1f} s" + (
            f" ({kept:.0f} s of it before the checkpoint it resumed)" if kept else "")
        note("match-equity", f"state {a}:{b} ({done[0]}) equity0 by dealer {eq}, "
             f"exploitability <= {ex:.2e}, {how}")

    try:
        with Sweep(tasks, config.fingerprint(), backend=args.backend, address=args.address,
                   workers=args.workers, max_retries=args.max_retries,
                   accepts=config.earlier_fingerprints()) as sweep:
            if sweep.lock_note:  # a stale lock of a killed sweep (vitou_ai.io.RunLock)
                note("match-equity", sweep.lock_note)
            note("match-equity", f"{output_stem(config)}: backend {sweep.backend}"
                 + (f" at {args.address}" if args.address else
                    f", {sweep.workers} workers" if sweep.backend == "ray" else ""))
            # before any deal is solved; a table whose states are all stored solves none
            from ..match_equity.two_player import task_keys

            if any(sweep.load(tuple(k)) is None for wave in task_keys(config) for k in wave):
                _check_tree_size(config, args.max_tree_nodes)
            summary = run_table(config, out, sweep, on_state,
                                checkpoint_every=args.checkpoint_every)
    except (SweepError, MatchEquityError, OSError) as e:
        print(f"vitou-ai match-equity: {e}", file=sys.stderr)
        return EXIT_ERROR
    summary["command"] = "vitou-ai match-equity " + shlex.join(getattr(args, "argv", [])[1:])
    from ..io import write_atomic

    write_atomic(out / f"{output_stem(config)}.json",
                 (json.dumps(summary, indent=1) + "\n").encode())
    print(f"{output_stem(config)}: {summary['table_rows']} rows -> "
          f"{out / (output_stem(config) + '.csv')}; the dealer at 0:0 wins the match with "
          f"probability {summary['equity_dealer_0_0']:.6f}; largest exploitability "
          f"{summary['max_exploitability']:.2e}; {summary['solve_seconds_sum']:.0f} s of solving")
    return EXIT_OK
