"""The four-player match-objective policy against the points policy in duplicate matches.

For each start (scores, R8.2 match mode from them; the first dealer rotates over the
four seats, ``rotate_dealer``) ``--matches`` matches are played, in duplicate pairs: the
same cards twice with the teams swapped (:func:`vitou_ai.sim.batch.simulate`,
``duplicate=True``). The match policy sits in seats 0 and 2 in one match of a pair and
1 and 3 in the other. Reported per start: the match policy's wins, losses, draws
(``max_deals``, R8.2), its win rate with the 95% Wilson interval over matches
(:func:`vitou_ai.eval.stats.wilson_interval`; conservative for duplicate pairs, whose
two results are negatively correlated), the mean over pairs with a normal 95%
interval (pairs as units), and each side of the start: the share of matches the team
holding ``score0`` wins when it is the match policy (``match_as_team0``) and when it is
the points policy (``points_as_team0``), each over half the matches, with Wilson
intervals (for 18:14: the match policy ahead vs the points policy ahead; its complement
is the side behind).

    python experiments/match_vs_points_4p.py --profile vitou \\
        --match-policy results/match_4p/vitou/policy.npz \\
        --points-policy results/train_4p/policy.npz --matches 20000 \\
        --starts 0:0 18:14 14:18 20:17 17:20 --out results/match_4p/vitou_vs_points.csv
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from pathlib import Path

import numpy as np

from vitou_ai.bots.named import parse_bot
from vitou_ai.eval.stats import ratio_interval, wilson_interval
from vitou_ai.io import write_atomic
from vitou_ai.rules.params import RULES_VERSION, VitouParams
from vitou_ai.sim.batch import F_DEALS, F_VARIANT, F_WINNER, simulate

COLUMNS = ["start", "score0", "score1", "matches", "wins", "losses", "draws", "win_rate",
           "wilson_lo", "wilson_hi", "pair_mean", "pair_lo", "pair_hi",
           "match_as_team0", "match_as_team0_lo", "match_as_team0_hi",
           "points_as_team0", "points_as_team0_lo", "points_as_team0_hi",
           "mean_deals", "seconds"]


def duel(params: VitouParams, match_policy, points_policy, matches: int, seed: int) -> dict:
    """``matches`` (rounded up to even) duplicate matches; the match policy's results."""
    n = matches + matches % 2
    t0 = time.perf_counter()
    # abstract policies: their unsampled states play counter (5-13% of decisions,
    # docs/guide/evaluation.md), as in the published results
    res = simulate(params, [match_policy, points_policy] * 2, n, seed=seed, duplicate=True,
                   rotate_dealer=True, allow_fallback=True)
    t = res.table
    m_team = t[:, F_VARIANT].astype(np.int64)  # variant 0: the match policy is team 0
    winner = t[:, F_WINNER]
    wins = int((winner == m_team).sum())
    losses = int((winner == 1 - m_team).sum())
    draws = n - wins - losses
    lo, hi = wilson_interval(wins, n)
    score = np.where(winner == m_team, 1.0, np.where(winner < 0, 0.5, 0.0))
    pairs = score.reshape(-1, 2).mean(1)
    pair_mean, pair_lo, pair_hi = ratio_interval(pairs, np.ones(len(pairs)))  # NaN below 30
    # each side of the start: the match policy as the team with score0 (variant 0) against
    # the points policy as that team (variant 1), on the same cards
    half = n // 2
    m0 = int(((m_team == 0) & (winner == 0)).sum())
    p0 = int(((m_team == 1) & (winner == 0)).sum())
    m0_lo, m0_hi = wilson_interval(m0, half)
    p0_lo, p0_hi = wilson_interval(p0, half)
    return {"matches": n, "wins": wins, "losses": losses, "draws": draws,
            "match_as_team0": m0 / half, "match_as_team0_lo": m0_lo,
            "match_as_team0_hi": m0_hi, "points_as_team0": p0 / half,
            "points_as_team0_lo": p0_lo, "points_as_team0_hi": p0_hi,
            "win_rate": wins / n, "wilson_lo": lo, "wilson_hi": hi,
            "pair_mean": pair_mean, "pair_lo": pair_lo, "pair_hi": pair_hi,
            "mean_deals": float(t[:, F_DEALS].mean()), "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--profile", default="vitou", choices=("vitou", "vitou_cason"))
    p.add_argument("--match-policy", required=True)
    p.add_argument("--points-policy", required=True)
    p.add_argument("--matches", type=int, default=20000)
    p.add_argument("--starts", nargs="+", default=["0:0"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    mp, pp = parse_bot(a.match_policy), parse_bot(a.points_policy)
    rows = []
    for k, start in enumerate(a.starts):
        s0, s1 = (int(x) for x in start.split(":"))
        params = VitouParams(profile=a.profile, mode="match", scores=(s0, s1), dealer=-1)
        r = {"start": start, "score0": s0, "score1": s1,
             **duel(params, mp, pp, a.matches, a.seed + 1000 * k)}
        rows.append(r)
        print(f"{start}: match policy wins {r['win_rate']:.4f} [{r['wilson_lo']:.4f}, "
              f"{r['wilson_hi']:.4f}] of {r['matches']:,} (draws {r['draws']}), "
              f"{r['seconds']:.0f} s", file=sys.stderr, flush=True)
    buf = io.StringIO()
    w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.6f}" if isinstance(v, float) else v) for k, v in r.items()})
    out = Path(a.out)
    write_atomic(out, buf.getvalue().encode())
    meta = {"rules_version": RULES_VERSION, "profile": a.profile,
            "match_policy": a.match_policy, "points_policy": a.points_policy,
            "matches": a.matches, "seed": a.seed, "starts": a.starts,
            "command": "python experiments/match_vs_points_4p.py " + " ".join(argv or sys.argv[1:])}
    write_atomic(out.with_suffix(".json"), (json.dumps(meta, indent=1) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
