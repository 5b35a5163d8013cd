"""Experiment: raise and refusal rates by score state of the match-objective two-player
strategy against the point-maximising one (:mod:`vitou_ai.match_equity.score_rates`).

Each score state's deal is solved for both objectives (the match objective with the
table's equities as payoffs, read from ``--table``: a CSV of ``vitou-ai match-equity`` or
``vitou-ai train --objective match``), and each policy's reach-weighted raise and refusal
rates are taken per seat on the exact tree. Writes ``OUT/rates.csv`` (one row per
objective, state, dealer and seat), ``OUT/largest.csv`` (the states that differ most),
``OUT/rates.png`` and ``OUT/run.json``; ``notebooks/bluff_frequencies.ipynb`` draws the
same figure from ``rates.csv``.

    python experiments/match_vs_points_rates.py --ranks 4 --copies 2 --hand-size 2 \\
        --target 12 --out results/match_equity/rates_ranks4_copies2_hand2
"""

from __future__ import annotations

import argparse
import io
import json
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.match_equity import score_rates as S  # noqa: E402
from vitou_ai.match_equity import two_player as M  # noqa: E402
from vitou_ai.rules import RULES_VERSION  # noqa: E402

PROG = "match_vs_points_rates"
DEFAULT_TABLE = (ROOT / "results" / "match_equity" / "ranks4_copies2_hand2"
                 / "vitou_2p_ranks4_copies2_hand2.csv")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--hand-size", type=int, default=2)
    ap.add_argument("--target", type=int, default=12)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--table", default=str(DEFAULT_TABLE),
                    help="the game's match-equity table (CSV)")
    ap.add_argument("--replot", action="store_true",
                    help="redraw largest.csv and rates.png from OUT/rates.csv (no solving)")
    ap.add_argument("--out", default=str(ROOT / "results" / "match_equity"
                                         / "rates_ranks4_copies2_hand2"))
    args = ap.parse_args(argv)
    try:
        config = M.EquityConfig(ranks=args.ranks, copies=args.copies,
                                hand_size=args.hand_size, target=args.target, tol=args.tol)
        table = M.read_table_csv(args.table)
        missing = [(a, b, d) for a in range(args.target) for b in range(args.target)
                   for d in (0, 1) if (a, b, d) not in table]
        if missing:
            raise M.MatchEquityError(f"{args.table}: no row for {missing[0]} (a table of "
                                     "another target?)")
    except M.MatchEquityError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    done = [0]

    def on_state(key, obj):
        done[0] += 1
        if done[0] % 20 == 0:
            print(f"[{PROG}] {done[0]} solves, at {key[0]}:{key[1]} ({obj}), "
                  f"{time.perf_counter() - start:.0f} s", flush=True)

    out = Path(args.out)
    if args.replot:
        import pandas as pd

        try:
            frame = pd.read_csv(out / "rates.csv")
        except OSError as e:
            print(f"{PROG}: {out / 'rates.csv'}: cannot read it ({e.strerror}); run without "
                  "--replot first", file=sys.stderr)
            return 2
    else:
        frame = S.rates_by_score(config, table, on_state=on_state)
        buf = io.StringIO()
        frame.to_csv(buf, index=False, float_format="%.6g")
        write_atomic(out / "rates.csv", buf.getvalue().encode())
    top = S.largest_differences(frame, args.target, 15)
    buf = io.StringIO()
    top.to_csv(buf, index=False, float_format="%.4f")
    write_atomic(out / "largest.csv", buf.getvalue().encode())
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = S.plot_rates(frame, args.target,
                       f"{M.output_stem(config)}: raise and refusal rates by score, match "
                       "objective vs points objective")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(out / "rates.png", buf.getvalue())
    if args.replot:
        old = json.loads((out / "run.json").read_text()) if (out / "run.json").exists() else {}
        old["largest"] = top.head(6).to_dict(orient="records")
        old["replot_command"] = "python experiments/match_vs_points_rates.py " + shlex.join(
            sys.argv[1:] if argv is None else argv)
        write_atomic(out / "run.json", (json.dumps(old, indent=1) + "\n").encode())
        print(top.round(4).to_string())
        return 0
    summary = {"rules_version": RULES_VERSION, "config": config.as_dict(),
               "table": str(Path(args.table).resolve().relative_to(ROOT))
               if Path(args.table).resolve().is_relative_to(ROOT) else args.table,
               "rows": len(frame), "seconds": round(time.perf_counter() - start, 1),
               "largest": top.head(6).to_dict(orient="records"),
               "command": "python experiments/match_vs_points_rates.py "
               + shlex.join(sys.argv[1:] if argv is None else argv)}
    write_atomic(out / "run.json", (json.dumps(summary, indent=1) + "\n").encode())
    print(top.round(4).to_string())
    print(f"[{PROG}] wrote {out}/rates.csv, largest.csv, rates.png, run.json "
          f"({summary['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
