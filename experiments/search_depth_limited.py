"""Depth-limited search and the fallback below a search, measured exactly on a small
variant's whole public tree (``vitou_2p``, two players): NashConv of every seat searching
with the bot's default gadget (nested Maxmargin), against the blueprint's, for

- ``full``: every subgame to the end of the deal (the bot's default);
- ``depth-limited K=...``: every subgame to the end of its trick, the leaves valued by the
  blueprint's continuation values, the opponent choosing among K continuations (Brown,
  Sandholm & Amos 2018; ``+BR``: the opponent's best response to the blueprint added);
- ``first trick only``: only the first trick searched (full or depth-limited subgames),
  the later decisions falling back on the blueprint or on the seat's previous solve.

    PYTHONPATH=. NUMBA_NUM_THREADS=1 python experiments/search_depth_limited.py \\
        --ranks 3 --copies 2 --hand-size 2 --blueprint dcfr:100 \\
        --out results/search/depth_limited/sweep_3x2x2.json

Writes one JSON file (atomically, after each row).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from experiments.search_exact import blueprint_policy, check_blueprints
from vitou_ai import VitouParams
from vitou_ai.eval.search_exact import search_policy
from vitou_ai.io import json_finite, write_atomic
from vitou_ai.rules.params import RULES_VERSION
from vitou_ai.solvers.public.cfr import nash_conv
from vitou_ai.solvers.public.tree import build_public_tree

B = ("blueprint", 1.0)
BET = ("raise", "refuse", "accept")
#: the continuation sets measured (name: biases)
SETS = {
    "K=1": (B,),
    "K=4": (B,) + tuple((c, 5.0) for c in BET),
    "K=7": (B,) + tuple((c, f) for c in BET for f in (3.0, 20.0)),
    "K=10": (B,) + tuple((c, f) for c in BET for f in (3.0, 20.0, 1000.0)),
    "K=13": (B,) + tuple((c, f) for c in BET + ("play_high", "play_low")
                         for f in (3.0, 100.0)) + (("play_low", 1000.0), ("play_high", 1000.0)),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=3)
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--hand-size", type=int, default=2)
    ap.add_argument("--blueprint", default="dcfr:100",
                    help="dcfr:N (the tree's own DCFR after N iterations) or a bot spec")
    ap.add_argument("--iterations", type=int, default=1000, help="DCFR iterations a search")
    ap.add_argument("--out", required=True, help="the JSON file written")
    args = ap.parse_args(argv)
    try:
        if args.hand_size < 2:
            raise ValueError("--hand-size must be at least 2 (a depth limit needs a second "
                             "trick)")
        if args.iterations < 1:
            raise ValueError(f"--iterations must be at least 1, got {args.iterations}")
        params = VitouParams(profile="vitou_2p", ranks=args.ranks, copies=args.copies,
                             hand_size=args.hand_size, dealer=-1)
        check_blueprints([args.blueprint])
        try:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"--out {args.out}: cannot create its folder ({e.strerror})") from None
    except ValueError as e:
        print(f"search_depth_limited: {e}", file=sys.stderr)
        return 2
    tree = build_public_tree(params)
    bp = blueprint_policy(tree, args.blueprint)
    rows: list[dict] = []
    doc = {"rules_version": RULES_VERSION, "params": params.knobs(),
           "command": " ".join(["experiments/search_depth_limited.py"] + (argv or sys.argv[1:])),
           "blueprint": args.blueprint, "nash_conv_blueprint": nash_conv(tree, bp),
           "search_iterations": args.iterations, "rows": rows}
    print(json.dumps({"blueprint": args.blueprint,
                      "nash_conv_blueprint": doc["nash_conv_blueprint"]}), flush=True)
    runs = [("full", {})]
    runs += [(f"depth-limited {k}", {"tricks": 1, "biases": b}) for k, b in SETS.items()]
    runs += [("depth-limited K=4+BR", {"tricks": 1, "br_continuation": True})]
    runs += [("first trick only, full, then the blueprint",
              {"search_tricks": 1, "fallback": "blueprint"}),
             ("first trick only, full, then the previous solve",
              {"search_tricks": 1, "fallback": "previous"}),
             ("first trick only, depth-limited K=4, then the blueprint",
              {"search_tricks": 1, "tricks": 1, "fallback": "blueprint"})]
    for name, kw in runs:
        t0 = time.perf_counter()
        se, stats = search_policy(tree, bp, iterations=args.iterations, **kw)
        row = {"run": name, "nash_conv_search": nash_conv(tree, se),
               "seconds": time.perf_counter() - t0, **stats}
        rows.append(row)
        write_atomic(Path(args.out), json.dumps(json_finite(doc), indent=1).encode())
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
