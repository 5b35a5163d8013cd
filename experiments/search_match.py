"""Duplicate matches of the ``search`` bot against its blueprint and the
named bots, and the blueprint against the same bots on the same deals; per-decision times.

    PYTHONPATH=. NUMBA_NUM_THREADS=1 python experiments/search_match.py \\
        --profile vitou_2p --blueprint counter --budget 0.5 \\
        --opponents counter:300 cautious:100 bluffer:100 random:100 --out results/search

Writes ``OUT/matches.json`` after every match (a run cut short keeps what it finished),
with every decision of the search bot (seconds, searched, why it fell back), each
match's points per pair, and for each opponent the search bot's gain over its blueprint
paired on the same deals (``search_minus_blueprint``, 95% interval over the pairs).
``--no-size-check``: the bot builds every subgame first (before it remembered the public
states above its node cap and capped the build by the time left): the baseline of the
budget's figures in ``docs/results/search.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from vitou_ai import VitouParams
from vitou_ai.bots.named import check_bot_fits, parse_bot
from vitou_ai.eval.search_match import duplicate_match, played_params
from vitou_ai.eval.stats import ratio_interval
from vitou_ai.io import json_finite
from vitou_ai.rules.params import RULES_VERSION
from vitou_ai.search.bot import SearchPolicy
from vitou_ai.solvers.public.subgame import SEARCH_SAFE_MODES


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--profile", default="vitou_2p")
    ap.add_argument("--ranks", type=int, default=None)
    ap.add_argument("--copies", type=int, default=None)
    ap.add_argument("--hand-size", type=int, default=None)
    ap.add_argument("--dealer", type=int, default=None,
                    help="the dealer seat of every deal (default, or -1: the dealer rotates "
                         "over the pairs); a blueprint trained with a fixed dealer needs it")
    ap.add_argument("--blueprint", default="counter", help="a bot spec")
    ap.add_argument("--budget", type=float, default=0.5)
    ap.add_argument("--nodes", type=int, default=200_000)
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--eps", type=float, default=0.01)
    ap.add_argument("--safe", default="auto", choices=list(SEARCH_SAFE_MODES),
                    help="the bot's safe mode (the bot's default)")
    ap.add_argument("--no-size-check", action="store_true",
                    help="build every subgame first, as before the size check (a baseline)")
    ap.add_argument("--opponents", nargs="+", default=["counter:100"],
                    help="BOT:PAIRS items; the blueprint bot is also matched on the same deals")
    ap.add_argument("--warmup", type=int, default=2, help="pairs played first, not counted "
                    "(numba compiles on the first decisions); more, up to ten times as "
                    "many, until the search bot has searched once")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/search")
    args = ap.parse_args(argv)
    kw = {k: v for k, v in (("ranks", args.ranks), ("copies", args.copies),
                            ("hand_size", args.hand_size), ("dealer", args.dealer))
          if v is not None}
    opponents = []  # every BOT:PAIRS item checked before any deal is played
    for item in args.opponents:
        spec, colon, pairs = item.rpartition(":")
        if not colon or not spec or not pairs.isdigit() or int(pairs) < 1:
            ap.error(f"--opponents: {item!r} is not BOT:PAIRS (a bot spec, a colon and a "
                     "number of deal pairs of at least 1, e.g. counter:100)")
        opponents.append((spec, int(pairs)))
    try:
        params = VitouParams(profile=args.profile, **kw)
        blueprint = parse_bot(args.blueprint)
        opponent_bots = [parse_bot(spec) for spec, _ in opponents]
        # the game as played: the dealer rotates over the pairs, or --dealer deals them all
        rotate = args.dealer is None or args.dealer < 0
        for bot in [blueprint, *opponent_bots]:
            check_bot_fits(bot, played_params(params, rotate))
    except (ValueError, TypeError, OSError) as e:
        ap.error(str(e))
    search = SearchPolicy(blueprint, budget=args.budget, max_nodes=args.nodes,
                          max_iterations=args.iters, epsilon=args.eps, safe=args.safe,
                          name=f"search:{args.blueprint},budget={args.budget},safe={args.safe}")
    search.size_check = not args.no_size_check
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        ap.error(f"--out {out}: a file is there, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    doc = {"rules_version": RULES_VERSION, "profile": params.profile, "params": params.knobs(),
           "dealer": "rotating" if rotate else params.dealer, "blueprint": args.blueprint,
           "command": " ".join(["experiments/search_match.py"] + (argv or sys.argv[1:])),
           "search": repr(search), "matches": []}
    # warm-up: numba compiles on the first decisions, the solve's on the first searched
    # one (a four-player deal may have none: more pairs until one, at most 10 * --warmup)
    searched = False
    for k in range(10 * args.warmup):
        duplicate_match(params, search, blueprint, 1, seed=10**6 + k, rotate_dealer=rotate)
        searched = searched or any(d["searched"] for d in search.decisions)
        if k + 1 >= args.warmup and searched:
            break
    if not searched:  # said, not left to the JSON: the search rows would be the blueprint's
        why = sorted({d["reason"] for d in search.decisions if d["reason"]})
        print(f"search_match.py: warning: the search bot searched none of its "
              f"{len(search.decisions)} warm-up decisions; its rows are its fallbacks' "
              f"play. Why: {'; '.join(why)[:400]}", file=sys.stderr, flush=True)
    for (spec, pairs), opp in zip(opponents, opponent_bots, strict=True):
        for who, bot in (("search", search), ("blueprint", blueprint)):
            if who == "blueprint" and spec == args.blueprint:
                continue  # the blueprint against itself: 0 by symmetry of the duplicate
            t0 = time.perf_counter()
            r = duplicate_match(params, bot, opp, pairs, seed=args.seed, rotate_dealer=rotate)
            r.update({"bot": who, "opponent": spec, "wall": time.perf_counter() - t0})
            if who == "search":  # every decision, for the budget's figures
                r["decisions"] = [{k: d.get(k) for k in ("seconds", "searched", "reason",
                                                         "nodes", "iterations",
                                                         "blueprint_seconds", "nested",
                                                         "previous")}
                                  for d in search.decisions]
            if who == "blueprint":  # paired on the same deals: search minus blueprint
                mine = next(m for m in doc["matches"]
                            if m["bot"] == "search" and m["opponent"] == spec)
                d = np.array(mine["pair_points"]) - np.array(r["pair_points"])
                ppd, lo, hi = ratio_interval(d, np.ones(len(d)))
                r["search_minus_blueprint"] = {"points_per_deal": ppd, "lo": lo, "hi": hi}
            doc["matches"].append(r)
            (out / "matches.json").write_text(json.dumps(json_finite(doc), indent=1))
            short = {k: r[k] for k in ("bot", "opponent", "pairs", "points_per_deal", "lo",
                                       "hi", "wall")}
            short.update({k: r[k] for k in ("search_minus_blueprint", "decision_seconds_a")
                          if k in r})
            print(json.dumps(json_finite(short)), flush=True)  # the decisions and pairs: in matches.json
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
