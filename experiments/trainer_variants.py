"""Experiment: the abstract trainer's traversals (``vitou-ai train --traversal es | team |
hands``) on a small variant, judged exactly.

For each ``NAME=RUN_FOLDER`` (a finished ``vitou-ai train`` run of the abstract
trainer on the variant), the run's average policy (``policy.npz``) is evaluated on the
variant's public tree: NashConv (OpenSpiel's definition, points per deal) and team 0's
value, as ``benchmarks/bench_4p_exact.py --no-bracket`` does; the run's own figures are
copied from its ``run.json`` (traversal, budget, iterations, solver seconds, abstract
information states inserted, nodes touched). The exact team best responses are
``experiments/team_maxmin.py --policy NAME=RUN_FOLDER/policy.npz`` (not recomputed
here). One CSV row per run, ``--out/nash_conv.csv`` rewritten after each row.

    python experiments/trainer_variants.py --variant 4,2,2 \\
        --run es60=/tmp/tv/es_60 team60=/tmp/tv/team_60 --out /tmp/tv/nc

Bad input (an unparsable variant, a folder without ``run.json`` / ``policy.npz``) is
refused in one line, exit code 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COLUMNS = ["name", "variant", "dealer", "traversal", "time_budget", "iterations", "seconds",
           "iterations_per_second", "infosets", "nodes_touched", "nash_conv", "team0_value",
           "eval_seconds", "rules_version"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="4,2,2", help="RANKS,COPIES,HAND of vitou")
    ap.add_argument("--dealer", type=int, default=0)
    ap.add_argument("--run", nargs="+", required=True, metavar="NAME=FOLDER")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    try:
        ranks, copies, hand = (int(x) for x in args.variant.split(","))
    except ValueError:
        print(f"trainer_variants.py: --variant must be RANKS,COPIES,HAND, got {args.variant!r}",
              file=sys.stderr)
        return 2
    runs = []
    for item in args.run:
        name, eq, folder = item.partition("=")
        folder = Path(folder)
        if not eq or not (folder / "run.json").exists() or not (folder / "policy.npz").exists():
            print(f"trainer_variants.py: --run {item!r}: expected NAME=FOLDER of a finished run "
                  "(run.json and policy.npz)", file=sys.stderr)
            return 2
        runs.append((name, folder))

    from vitou_ai.bots.named import parse_bot
    from vitou_ai.rules import VitouParams
    from vitou_ai.rules.params import RULES_VERSION
    from vitou_ai.solvers.public import cfr as PC
    from vitou_ai.solvers.public.export import bot_policy
    from vitou_ai.solvers.public.tree import build_public_tree

    params = VitouParams(profile="vitou", ranks=ranks, copies=copies, hand_size=hand,
                         dealer=args.dealer)
    tree = build_public_tree(params)
    passes = PC.PublicPasses(tree)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, folder in runs:
        rec = json.loads((folder / "run.json").read_text())
        latest = rec["latest"]
        t = time.perf_counter()
        pol = bot_policy(tree, parse_bot(str(folder / "policy.npz")))
        row = {"name": name, "variant": args.variant, "dealer": args.dealer,
               "traversal": rec.get("traversal", "es"), "time_budget": rec.get("time_budget"),
               "iterations": latest["iteration"], "seconds": latest["seconds"],
               "iterations_per_second": round(latest["iteration"] / latest["seconds"]),
               "infosets": latest["infosets"], "nodes_touched": latest["nodes_touched"],
               "nash_conv": PC.nash_conv(tree, pol, passes),
               "team0_value": float(PC.expected_returns(tree, pol, passes)[0]),
               "rules_version": RULES_VERSION}
        row["eval_seconds"] = round(time.perf_counter() - t, 1)
        rows.append(row)
        with open(out / "nash_conv.csv", "w", newline="") as f:  # each row as it is done
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)
        print(f"{name}: NashConv {row['nash_conv']:.4f}, {row['iterations']:,} iterations, "
              f"{row['infosets']:,} states", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
