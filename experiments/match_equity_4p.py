"""Experiment: the four-player match-equity table, approximately, with its measured error
(:mod:`vitou_ai.match_equity.four_player`).

1. For every score state below the target and each of the four dealers, ``--deals``
   deals are simulated with ``--policy`` in all four seats (one sweep task per score
   pair: Ray, a Ray cluster with ``--address``, or serially; seeds from the task's
   key; ``--resume`` continues a killed run). The table follows by the two-player
   table's recursion (the dealer cycle of a deal that scores nothing solved as a fixed
   point), and its standard errors by a parametric bootstrap of the counts.
2. The error is measured on whole matches: ``--matches`` matches (kernel match mode,
   R8.2) from each ``--check`` state and each dealer, the same policy in all seats;
   team 0's win rate with its 95% Wilson interval against the table.

Writes ``OUT/<stem>.csv`` (``score0, score1, dealer, equity0``; score0 is the team of
seats 0 and 2), ``<stem>_states.csv``, ``<stem>.png``, ``<stem>_check.csv`` and
``<stem>.json``; ``<stem>`` is ``vitou_4p`` for the game as played.

    NUMBA_NUM_THREADS=1 python experiments/match_equity_4p.py --backend serial \\
        --deals 20000 --matches 20000 --out results/match_equity

Exit codes: 0 done, 2 bad input or a failed sweep (one line on stderr), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.match_equity import four_player as M4  # noqa: E402
from vitou_ai.match_equity.sweep import BACKENDS, Sweep, SweepError  # noqa: E402
from vitou_ai.match_equity.two_player import MatchEquityError, check_scores  # noqa: E402

DEFAULT_CHECKS = ("0:0", "10:10", "5:15", "15:5", "18:18", "20:15", "15:20", "20:20")
PROG = "match_equity_4p"


def parse_state(text: str, target: int) -> tuple[int, int]:
    """``"A:B"`` as a checked score pair.

    Raises:
        MatchEquityError: not two integers, or a score outside the match (one line).
    """
    parts = text.split(":")
    if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
        raise MatchEquityError(f"--check {text!r}: expected A:B, two scores")
    return check_scores([int(p) for p in parts], target)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default=str(ROOT / M4.DEFAULT_POLICY),
                    help="policy played in all four seats (.npz)")
    ap.add_argument("--profile", default="vitou", choices=M4.PROFILES_4P)
    ap.add_argument("--target", type=int, default=21, help="points that win the match")
    ap.add_argument("--deals", type=int, default=20_000,
                    help="simulated deals per score state and dealer")
    ap.add_argument("--bootstrap", type=int, default=100,
                    help="bootstrap replicates of the table (0: none)")
    ap.add_argument("--no-pool", action="store_true",
                    help="do not pool the counts over the seat symmetries (pool_symmetric)")
    ap.add_argument("--check", nargs="*", default=None, metavar="A:B",
                    help="states from which whole matches are simulated (default: "
                    f"{' '.join(DEFAULT_CHECKS)} at target 21, else 0:0)")
    ap.add_argument("--matches", type=int, default=20_000,
                    help="matches per check state and dealer (0: no check)")
    ap.add_argument("--seed", type=int, default=0, help="base seed of the match check")
    ap.add_argument("--out", default=str(ROOT / "results" / "match_equity"))
    ap.add_argument("--resume", action="store_true",
                    help="continue from the per-state results already in --out")
    ap.add_argument("--backend", default="auto", choices=BACKENDS,
                    help="auto: Ray if installed, else serial")
    ap.add_argument("--address", default=None, metavar="HOST:PORT",
                    help="an existing Ray cluster (default: an embedded local runtime)")
    ap.add_argument("--workers", type=int, default=None,
                    help="CPUs of the embedded Ray runtime (default: all of this machine's)")
    ap.add_argument("--max-retries", type=int, default=2, help="retries of a failed state")
    args = ap.parse_args(argv)

    def fail(msg: str) -> int:
        print(f"{PROG}: {msg}", file=sys.stderr)
        return 2

    try:
        config = M4.Config4p(policy=str(Path(args.policy).resolve()), profile=args.profile,
                             target=args.target, deals=args.deals)
        given = args.check if args.check is not None else \
            list(DEFAULT_CHECKS) if args.target == 21 else ["0:0"]
        checks = [parse_state(s, args.target) for s in given]
        if args.matches < 0 or args.bootstrap < 0 or args.max_retries < 0:
            raise MatchEquityError("--matches, --bootstrap and --max-retries must be >= 0")
        M4.check_policy(config)
        fingerprint = config.fingerprint()
    except MatchEquityError as e:
        return fail(str(e))
    out = Path(args.out)
    stem = M4.output_stem(config)
    tasks = out / f"tasks_{stem}"
    if not args.resume and tasks.is_dir() and any(tasks.glob("*.json")):
        return fail(f"{tasks} already holds results; add --resume to continue them, or "
                    "choose another --out")
    done = [0]

    def on_state(rec: dict, resumed: bool) -> None:
        done[0] += 1
        if done[0] % 21 == 0 or not resumed and done[0] < 3:
            a, b = rec["key"]
            how = "stored" if resumed else f"{rec['seconds']:.1f} s"
            print(f"[{PROG}] state {a}:{b} ({done[0]} of {args.target ** 2}), {how}",
                  flush=True)

    start = time.perf_counter()
    try:
        with Sweep(tasks, fingerprint, backend=args.backend, address=args.address,
                   workers=args.workers, max_retries=args.max_retries,
                   accepts=config.earlier_fingerprints()) as sweep:
            print(f"[{PROG}] {stem}: backend {sweep.backend}", flush=True)
            table, se, summary = M4.run_table_4p(config, out, sweep, on_state,
                                                 replicates=args.bootstrap,
                                                 pool=not args.no_pool)
    except (SweepError, MatchEquityError, OSError) as e:
        return fail(str(e))
    print(f"[{PROG}] table: the dealer's team at 0:0 wins {summary['equity_dealer_team_0_0']:.4f}"
          f"; largest bootstrap s.e. {summary['max_se']}", flush=True)
    rows = []
    if args.matches and checks:
        def on_row(r: dict) -> None:
            print(f"[{PROG}] from {r['score0']}:{r['score1']} seat {r['dealer']} deals: table "
                  f"{r['table']:.4f} (s.e. {r['table_se']:.4f}), matches {r['simulated']:.4f} "
                  f"[{r['lo']:.4f}, {r['hi']:.4f}], z = {r['z']:+.2f}", flush=True)

        check_start = time.perf_counter()
        rows = M4.compare_with_matches(config, table, se or None, checks, args.matches,
                                       args.seed, on_row=on_row)
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        write_atomic(out / f"{stem}_check.csv", buf.getvalue().encode())
        diffs = [abs(r["diff"]) for r in rows]
        summary["check"] = {
            "matches_per_row": args.matches, "rows": len(rows),
            "inside": sum(r["inside"] is True for r in rows),  # None: interval withheld
            "max_abs_diff": max(diffs), "mean_abs_diff": sum(diffs) / len(diffs),
            "max_abs_z": max(abs(r["z"]) for r in rows),
            "draws": sum(r["draws"] for r in rows),
            "seconds": time.perf_counter() - check_start,
        }
    policy = Path(config.policy)
    summary["config"]["policy"] = str(policy.relative_to(ROOT)) \
        if policy.is_relative_to(ROOT) else str(policy)
    summary["command"] = "python experiments/match_equity_4p.py " + shlex.join(
        sys.argv[1:] if argv is None else argv)
    summary["wall_seconds"] = time.perf_counter() - start
    write_atomic(out / f"{stem}.json", (json.dumps(summary, indent=1) + "\n").encode())
    if rows:
        c = summary["check"]
        print(f"[{PROG}] check: {c['inside']} of {c['rows']} Wilson intervals hold the table; "
              f"largest |difference| {c['max_abs_diff']:.4f}, largest |z| {c['max_abs_z']:.2f}")
    print(f"[{PROG}] wrote {out / (stem + '.csv')} ({summary['table_rows']} rows), .png, "
          f"_states.csv, {'_check.csv, ' if rows else ''}.json")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; run again with --resume to continue", file=sys.stderr)
        sys.exit(130)
