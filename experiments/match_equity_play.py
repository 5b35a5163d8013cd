"""Experiment: the match-equity table in play.

1. Cross-check: from a start state ``A:B`` and each dealer, ``--matches`` matches are
   simulated by the kernel in match mode (R8.2: it scores, rotates the deal, applies
   R6 / R9.3) with both seats playing the table's score-conditioned policy (each
   state's deal solved with match-equity payoffs, :func:`vitou_ai.match_equity.two_player.state_policy`,
   the same deterministic solve as the table's); seat 0's win rate with its 95%
   Wilson interval is set against ``E(A, B, dealer)``.
2. Match objective against points per deal (``--compare``): the same match policy
   against the score-conditioned point-maximising policy (each state's deal solved
   in points, R8.1 at that score), duplicate matches from ``A:B`` with the first
   dealer alternating; the match policy's win rate with its Wilson interval.

The table is read from ``--table`` (a CSV of ``vitou-ai match-equity``) or computed
here (serially). Writes ``OUT/play.json``.

    python experiments/match_equity_play.py --ranks 4 --copies 2 --hand-size 2 \\
        --target 12 --start 0:0 --matches 20000 --compare --out results/match_equity/play_small
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.bots.tabular import TabularPolicy  # noqa: E402
from vitou_ai.eval.stats import format_interval, wilson_interval  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.match_equity import two_player as M  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.sim.batch import simulate  # noqa: E402


def combined(config, table, states, objective) -> TabularPolicy:
    """One score-conditioned policy over ``states``: each state with ``a <= b`` solved,
    the others played by seat-swapped keys (:func:`vitou_ai.match_equity.two_player.mirror_keys`)."""
    keys, probs = [], []
    for a, b in sorted({(min(k), max(k)) for k in states}):
        kk, pp = M.state_policy(config, (a, b), table, objective)
        keys.append(kk)
        probs.append(pp)
        if a < b:
            keys.append(M.mirror_keys(kk))
            probs.append(pp)
    return TabularPolicy(np.concatenate(keys), np.concatenate(probs),
                         name=f"{objective}-objective")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--hand-size", type=int, default=2)
    ap.add_argument("--target", type=int, default=12)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--table", default=None, help="CSV of vitou-ai match-equity (else computed)")
    ap.add_argument("--run", default=None,
                    help="folder of `vitou-ai train --objective match`: its table and policy")
    ap.add_argument("--start", default="0:0", help="start scores A:B")
    ap.add_argument("--matches", type=int, default=20000)
    ap.add_argument("--compare", action="store_true",
                    help="also match objective vs points objective")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    config = M.EquityConfig(ranks=args.ranks, copies=args.copies, hand_size=args.hand_size,
                            target=args.target, tol=args.tol)
    start = M.check_scores([int(s) for s in args.start.split(":")], config.target)
    t0 = time.perf_counter()
    if args.run:
        args.table = str(Path(args.run) / f"{M.output_stem(config)}.csv")
    if args.table:
        table = M.read_table_csv(args.table)
        table_source = args.table
    else:
        table, _ = M.compute_table(config)
        table_source = "computed"
    t_table = time.perf_counter() - t0
    states = M.reachable_states(start, config.target)
    t0 = time.perf_counter()
    if args.run:
        match_pol = TabularPolicy.load(Path(args.run) / "policy.npz")
        match_pol.name = "match-objective"
    else:
        match_pol = combined(config, table, states, "match")
    t_pol = time.perf_counter() - t0
    base = VitouParams(profile="vitou_2p", mode="match", ranks=args.ranks, copies=args.copies,
                       hand_size=args.hand_size, target=args.target, scores=start)
    out: dict = {"rules_version": RULES_VERSION, "config": config.as_dict(),
                 "start": list(start), "matches": args.matches, "seed": args.seed,
                 "table": table_source, "table_seconds": round(t_table, 1),
                 "states": len(states), "policy_infosets": len(match_pol),
                 "match_policy_seconds": round(t_pol, 1), "cross_check": []}
    for d in (0, 1):
        res = simulate(base.replace(dealer=d), [match_pol, match_pol], args.matches,
                       seed=args.seed + d)
        wins = int((np.asarray(res["winner"]) == 0).sum())
        draws = int((np.asarray(res["winner"]) < 0).sum())
        lo, hi = wilson_interval(wins, args.matches)
        e = table[(start[0], start[1], d)]
        out["cross_check"].append({"dealer": d, "table_equity0": e,
                                   "simulated_win_rate0": wins / args.matches,
                                   "wilson95": [lo, hi], "draws": draws,
                                   "inside": lo <= e <= hi})
        print(f"from {start[0]}:{start[1]}, seat {d} deals: table {e:.4f}, simulated "
              f"{wins / args.matches:.4f} "
              f"{format_interval(lo, hi, args.matches, 'matches', '.4f')}", flush=True)
    if args.compare:
        t0 = time.perf_counter()
        points_pol = combined(config, table, states, "points")
        out["points_policy_seconds"] = round(time.perf_counter() - t0, 1)
        res = simulate(base.replace(dealer=-1), [match_pol, points_pol], args.matches,
                       seed=args.seed + 7, duplicate=True, rotate_dealer=True)
        winner = np.asarray(res["winner"])
        variant = np.asarray(res["variant"])  # 1: the seats swapped
        match_team = np.where(variant == 0, 0, 1)
        wins = int((winner == match_team).sum())
        draws = int((winner < 0).sum())
        n = len(winner)
        lo, hi = wilson_interval(wins, n)
        out["compare"] = {"matches": n, "match_objective_wins": wins, "draws": draws,
                          "win_rate": wins / n, "wilson95": [lo, hi],
                          "duplicate": True, "first_dealer": "alternating"}
        print(f"match objective vs points objective: {wins}/{n} = {wins / n:.4f} "
              f"{format_interval(lo, hi, n, 'matches', '.4f')}", flush=True)
    out["command"] = " ".join(["python", *sys.argv])
    write_atomic(Path(args.out) / "play.json", (json.dumps(out, indent=1) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
