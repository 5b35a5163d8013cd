"""Experiment: publish the states of a match-equity sweep solved so far.

The exact 3-card ``vitou_2p`` table is solved state by state through
``vitou-ai match-equity --hand-size 3 --solver public`` (Ray path, one result file per
score state in ``OUT/tasks_<stem>/``, resumable with ``--resume``). It took several
sessions, so this script reads the states solved so far (or all of them), without solving
anything, and writes:

- ``OUT/<stem>_solved.csv``: ``score0, score1, dealer, equity0`` of the solved states
  (with ``mirror``, their seat-swapped twins too), the table's own columns;
- ``OUT/<stem>_solved_states.csv``: per state and dealer the equity, exploitability,
  DCFR iterations, probability that nothing is scored, public-tree nodes and the
  measured seconds of the state's solve (both dealers together, queueing excluded), and, with
  ``--compare``, the 2-card table's equity at the same state and the difference;
- ``OUT/<stem>_solved.json``: the configuration, fingerprint, rules version, how many
  of the sweep's states are solved, the waves complete, and the measured seconds per
  state (median, largest), apart for the states where a seat is one point from the end
  (R6: no raises, so their deals are small) and the others, and the seat-swap check of
  the solved twins (:func:`vitou_ai.match_equity.two_player.swap_symmetry`).

Only files written for this configuration are read (the sweep's fingerprint check);
a configuration with no solved state is refused in one line.

    python experiments/match_equity_solved.py --hand-size 3 --solver public \\
        --out results/match_equity --compare results/match_equity/vitou_2p_hand2.csv
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.match_equity import two_player as M  # noqa: E402
from vitou_ai.match_equity.sweep import Sweep, SweepError  # noqa: E402
from vitou_ai.rules import RULES_VERSION  # noqa: E402


def solved_records(config: M.EquityConfig, out: Path) -> tuple[list[dict], list[float], int]:
    """The stored records of ``config``'s sweep in ``out``, in task order, with each
    task's measured seconds, and the number of complete waves (every state solved)."""
    tasks = out / f"tasks_{M.output_stem(config)}"
    sweep = Sweep(tasks, config.fingerprint(), backend="serial",
                  accepts=config.earlier_fingerprints())
    records, seconds, complete = [], [], 0
    whole = True
    for wave in M.task_keys(config):
        got = 0
        for key in wave:
            rec = sweep.load(tuple(key))
            if rec is None:
                continue
            got += 1
            records.append(rec)
            # the state's own solve time: the sweep's file also counts the time a task
            # waited for a worker
            seconds.append(float(rec["seconds"]))
        whole &= got == len(wave)
        complete += int(whole)
    return records, seconds, complete


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--target", type=int, default=12, help="points that win the match")
    p.add_argument("--ranks", type=int, default=8, help="top N ranks")
    p.add_argument("--copies", type=int, default=4, help="copies per rank")
    p.add_argument("--hand-size", type=int, default=3, help="cards per hand")
    p.add_argument("--tol", type=float, default=1e-4, help="the sweep's exploitability")
    p.add_argument("--fixed-point-tol", type=float, default=1e-9, help="the sweep's value")
    p.add_argument("--solver", choices=M.SOLVERS, default="public", help="the sweep's tree")
    p.add_argument("--variant", choices=M.VARIANTS, default="dcfr", help="CFR variant")
    p.add_argument("--no-mirror", action="store_true", help="the sweep solved every state")
    p.add_argument("--out", default="results/match_equity",
                   help="the sweep's --out folder (read), where the files are written")
    p.add_argument("--compare", default=None,
                   help="another table's CSV (e.g. the 2-card one) to set beside each state")
    a = p.parse_args(argv)
    try:
        config = M.EquityConfig(target=a.target, ranks=a.ranks, copies=a.copies,
                                hand_size=a.hand_size, tol=a.tol,
                                fixed_point_tol=a.fixed_point_tol, solver=a.solver,
                                variant=a.variant, mirror=not a.no_mirror)
        other = M.read_table_csv(a.compare) if a.compare else None
        out = Path(a.out)
        records, seconds, complete = solved_records(config, out)
    except (M.MatchEquityError, SweepError, OSError, ValueError) as e:
        print(f"match_equity_solved: {e}", file=sys.stderr)
        return 2
    stem = M.output_stem(config)
    if not records:
        print(f"match_equity_solved: no solved state of {stem} in {out / ('tasks_' + stem)}",
              file=sys.stderr)
        return 2
    table = M.table_from_records(records, config)
    write_atomic(out / f"{stem}_solved.csv", M.table_csv(table).encode())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["score0", "score1", "dealer", "equity0", "exploitability", "iterations",
                "p_nothing", "nodes", "task_seconds", "compare_equity0", "difference"])
    end = config.target - 1
    near, far = [], []
    for rec, sec in zip(records, seconds, strict=True):
        (near if end in rec["key"] else far).append(sec)
        for r, nodes in zip(rec["rows"], rec["nodes"], strict=True):
            key = (r["score0"], r["score1"], r["dealer"])
            cmp = other.get(key) if other is not None else None
            w.writerow([*key, f"{r['equity0']:.12f}", f"{r['exploitability']:.3e}",
                        r["iterations"], f"{r['p_nothing']:.6f}", nodes, f"{sec:.2f}",
                        "" if cmp is None else f"{cmp:.12f}",
                        "" if cmp is None else f"{r['equity0'] - cmp:+.6f}"])
    write_atomic(out / f"{stem}_solved_states.csv", buf.getvalue().encode())

    def stats(xs):
        return ({"states": len(xs), "median_seconds": statistics.median(xs),
                 "max_seconds": max(xs), "sum_seconds": sum(xs)} if xs else {"states": 0})

    total = sum(len(w) for w in M.task_keys(config))
    diffs = [abs(r["equity0"] - other[(r["score0"], r["score1"], r["dealer"])])
             for rec in records for r in rec["rows"]
             if other is not None and (r["score0"], r["score1"], r["dealer"]) in other]
    summary = {
        "config": config.as_dict(), "rules_version": RULES_VERSION,
        "fingerprint": config.fingerprint(), "states_solved": len(records),
        "states_in_sweep": total, "waves_complete": complete,
        "waves_in_sweep": len(M.task_keys(config)),
        "solved": [rec["key"] for rec in records],
        "max_exploitability": max(r["exploitability"] for rec in records for r in rec["rows"]),
        "seconds_one_from_end": stats(near), "seconds_other_states": stats(far),
        "iterations_other_states": sorted(r["iterations"] for rec in records
                                          if end not in rec["key"] for r in rec["rows"]),
        "swap_symmetry": M.swap_symmetry(records),
        "compare": a.compare,
        "largest_abs_difference": max(diffs) if diffs else None,
    }
    write_atomic(out / f"{stem}_solved.json", (json.dumps(summary, indent=1) + "\n").encode())
    print(f"{stem}: {len(records)} of {total} states solved ({complete} waves complete); "
          f"states away from the end: {stats(far)}; one from the end: {stats(near)}")
    sym = summary["swap_symmetry"]
    print(f"seat swap, E(a, b, d) + E(b, a, 1 - d) = 1: {sym['pairs']} solved pairs, largest "
          f"residual {sym['largest_residual']:.2e}, {sym['largest_share_of_bound']:.1%} of "
          f"its bound (2 x the pair's exploitabilities); within bound: {sym['within_bound']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
