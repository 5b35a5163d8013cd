"""The information abstraction's cost, measured exactly where the game tree fits.

For each game and abstraction, the abstract game (the real tree with its
information sets merged by abstract key, ``vitou_ai.solvers.sampling.abstract_tree``) is
solved by DCFR, its average policy is lifted to the real game, and its
exploitability there is measured with the exact best response of
``vitou_ai.solvers.flat.evaluate`` (two players) or the team best responses (four
players: NashConv and each team's alternating-partners gain). The real game
solved by the same DCFR iterations is the baseline, so the difference is the
abstraction's cost, not the solver's.

Games: ``vitou_2p`` on the full 32-card deck with two-card hands (the
three-card tree needs 15 GB, ``experiments/solve_2p.py``), and two small
four-player variants. Writes ``results/abstraction_cost/cost.csv`` and
``cost.json``.

    python experiments/abstraction_cost.py [--iterations 400]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.abstraction import AbstractionConfig  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402
from vitou_ai.rules.params import RULES_VERSION  # noqa: E402
from vitou_ai.solvers.flat.cfr import TabularCFR  # noqa: E402
from vitou_ai.solvers.flat.evaluate import exploitability, nash_conv, team_best_response  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.sampling.abstract_tree import abstract_tree, lift  # noqa: E402
from vitou_ai.training.runfolder import write_csv  # noqa: E402

GAMES = {
    "vitou_2p, 32 cards, 2-card hands": VitouParams(profile="vitou_2p", hand_size=2, dealer=-1),
    "vitou, 3 ranks x 2, 1-card hands": VitouParams(profile="vitou", ranks=3, copies=2,
                                                    hand_size=1, dealer=-1),
    "vitou, 3 ranks x 3, 2-card hands, dealer 0": VitouParams(profile="vitou", ranks=3, copies=3,
                                                              hand_size=2, dealer=0),
}
CONFIGS = {
    "default (summary trick, results, count 0)": AbstractionConfig(),
    "count 1": AbstractionConfig(count=1),
    "count 2": AbstractionConfig(count=2),
    "count 8 (all ranks)": AbstractionConfig(count=8),
    "trick exact, count 8": AbstractionConfig(trick="exact", count=8),
    "trick exact, count 8, history cards": AbstractionConfig(trick="exact", count=8,
                                                             history="cards"),
}


def measure(tree, policy) -> dict:
    if tree.num_players == 2:
        return {"exploitability": exploitability(tree, policy)}
    return {"nash_conv": nash_conv(tree, policy),
            "team0_gain": team_best_response(tree, policy, 0).gain,
            "team1_gain": team_best_response(tree, policy, 1).gain}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=400)
    ap.add_argument("--out", default=str(ROOT / "results" / "abstraction_cost"))
    args = ap.parse_args()
    rows = []
    for gname, params in GAMES.items():
        t0 = time.perf_counter()
        tree = build_tree(params)
        base = TabularCFR(tree, "dcfr")
        base.iterate(args.iterations)
        row = {"game": gname, "abstraction": "none (real game)", "infosets": tree.num_infosets,
               **measure(tree, base.average_policy()),
               "seconds": round(time.perf_counter() - t0, 1)}
        rows.append(row)
        print(row, flush=True)
        for cname, cfg in CONFIGS.items():
            t0 = time.perf_counter()
            try:
                cfg.check_game(params)
            except ValueError as e:
                print(f"{gname} / {cname}: skipped ({e})", flush=True)
                continue
            at = abstract_tree(tree, cfg)
            solver = TabularCFR(at.tree, "dcfr")
            solver.iterate(args.iterations)
            row = {"game": gname, "abstraction": cname, "infosets": at.tree.num_infosets,
                   **measure(tree, lift(at, solver.average_policy())),
                   "seconds": round(time.perf_counter() - t0, 1)}
            rows.append(row)
            print(row, flush=True)
    out = Path(args.out)
    write_csv(out / "cost.csv", rows)
    rec = {"rules_version": RULES_VERSION, "iterations": args.iterations, "solver": "dcfr",
           "command": "python experiments/abstraction_cost.py " + " ".join(sys.argv[1:]),
           "configs": {k: v.describe() for k, v in CONFIGS.items()}, "rows": rows}
    write_atomic(out / "cost.json", (json.dumps(rec, indent=2) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
