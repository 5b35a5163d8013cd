"""Experiment: where the exact team best response lies between the two team bounds.

For each four-player variant ``RANKS,COPIES,HAND`` (flat tree, dealer ``--dealer``)
and each policy played by all four seats (named bots, and trained policies given as
``--policy NAME=PATH``), both teams' value and three best responses to the other
team's part of the policy, points per deal (R8.1):

- ``alternating``: partners' best responses in turn (a joint pure plan found by local
  search: a lower bound), :func:`vitou_ai.solvers.flat.evaluate.team_bracket`;
- ``exact`` and ``exact_bound``: the best joint plan of partners who do not see each
  other's cards but agree on the plan before the deal (the team-maxmin-with-correlation
  best response), by an integer program, :mod:`vitou_ai.solvers.flat.team_maxmin`; within
  ``--time-limit`` HiGHS may stop with a plan (``exact``, measured again on the tree)
  and a proven upper bound (``exact_bound``) that differ, ``optimal`` says which;
- ``pooled``: partners who see both hands (an upper bound).

``position`` is ``(exact - alternating) / (pooled - alternating)``: 0 where the
alternation already found the best plan, 1 where seeing the partner's hand is worth
nothing beyond it. ``OUT/team_maxmin.csv`` keeps rows already there and skips their
(variant, policy, team); it is rewritten atomically after every row. ``--sizes`` only
counts the programs of larger variants (``OUT/sizes.csv``), without solving.

    python experiments/team_maxmin.py --variants 3,2,1 4,2,1 4,3,1 4,2,2 3,4,2 \\
        --policy trained=runs/tm_422/policy.npz --out results/team_maxmin
    python experiments/team_maxmin.py --sizes 4,3,2 --out results/team_maxmin
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "experiments"))

import team_common  # noqa: E402

from vitou_ai.bots.named import parse_bot  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.flat.evaluate import team_bracket, uniform_policy  # noqa: E402
from vitou_ai.solvers.flat.team_maxmin import (  # noqa: E402
    TeamMaxminError,
    program_size,
    team_maxmin_best_response,
)
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.public.export import flat_bot_policy  # noqa: E402

COLUMNS = ["profile", "variant", "dealer", "policy", "team", "value", "alternating",
           "exact", "exact_bound", "pooled", "optimal", "position", "gain_alternating",
           "gain_exact", "gain_pooled", "binaries", "products", "rows", "seconds",
           "rules_version"]
PROG = "team_maxmin"
SIZE_COLUMNS = ["profile", "variant", "dealer", "policy", "team", "flat_nodes",
                "flat_infosets", "binaries", "products", "rows", "terminals", "seconds"]


def refuse(msg: str) -> NoReturn:
    team_common.refuse(PROG, msg)


def variant(spec: str, profile: str, dealer: int) -> VitouParams:
    return team_common.variant(PROG, spec, profile, dealer)


def policies_of(args) -> dict[str, str]:
    out = {b: b for b in args.bots}
    for item in args.policy:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            refuse(f"--policy {item!r}: expected NAME=PATH")
        if not Path(path).exists():
            refuse(f"--policy {item!r}: {path} does not exist")
        out[name] = path
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--profile", default="vitou", help="a four-player profile")
    p.add_argument("--variants", nargs="*", default=["3,2,1", "4,2,1", "4,3,1", "4,2,2"],
                   help="RANKS,COPIES,HAND variants to solve")
    p.add_argument("--sizes", nargs="*", default=[], help="variants only counted")
    p.add_argument("--dealer", type=int, default=0, help="the dealer's seat")
    p.add_argument("--bots", nargs="*", default=["uniform", "counter", "cautious", "bluffer"],
                   help="named bots played by all four seats ('uniform': every legal action "
                        "alike, on the tree)")
    p.add_argument("--policy", action="append", default=[],
                   help="NAME=PATH of a trained policy.npz for every variant given")
    p.add_argument("--time-limit", type=float, default=600.0,
                   help="seconds of HiGHS per team best response")
    p.add_argument("--out", default="results/team_maxmin", help="output folder")
    args = p.parse_args(argv)
    if args.time_limit <= 0:
        refuse(f"--time-limit must be positive, got {args.time_limit}")
    pols = policies_of(args)
    for spec in [*args.variants, *args.sizes]:
        variant(spec, args.profile, args.dealer)  # every variant checked before any work
    out = team_common.out_folder(PROG, args.out)
    path = out / "team_maxmin.csv"
    rows = team_common.read_rows(path, PROG, ("profile", "variant", "dealer", "policy", "team"))
    done = {(r["profile"], r["variant"], r["dealer"], r["policy"], r["team"]) for r in rows}
    for spec in args.variants:
        params = variant(spec, args.profile, args.dealer)
        tree = build_tree(params)
        print(f"{spec}: {tree.num_nodes:,} nodes, {tree.num_infosets:,} information sets",
              flush=True)
        for name, bot in pols.items():
            keyed = [(args.profile, spec, str(args.dealer), name, str(t)) for t in (0, 1)]
            if all(k in done for k in keyed):
                continue
            try:
                pol = uniform_policy(tree) if bot == "uniform" else flat_bot_policy(
                    tree, parse_bot(bot))
            except ValueError as e:  # a trained policy of another game
                refuse(f"variant {spec}, {name}: {e}")
            for team in (0, 1):
                if keyed[team] in done:
                    continue
                t = time.perf_counter()
                b = team_bracket(tree, pol, team)
                try:
                    r = team_maxmin_best_response(tree, pol, team, time_limit=args.time_limit)
                except TeamMaxminError as e:
                    refuse(f"variant {spec}, {name}: {e}")
                span = b.pooled - b.alternating
                rows.append({
                    "profile": args.profile, "variant": spec, "dealer": args.dealer,
                    "policy": name, "team": team, "value": f"{b.value:.9f}",
                    "alternating": f"{b.alternating:.9f}", "exact": f"{r.best:.9f}",
                    "exact_bound": f"{r.bound:.9f}", "pooled": f"{b.pooled:.9f}",
                    "optimal": int(r.optimal),
                    "position": f"{(r.best - b.alternating) / span:.4f}" if span > 1e-12 else "",
                    "gain_alternating": f"{b.alternating - b.value:.9f}",
                    "gain_exact": f"{r.best - b.value:.9f}",
                    "gain_pooled": f"{b.pooled - b.value:.9f}",
                    "binaries": r.size.binaries, "products": r.size.products,
                    "rows": r.size.rows, "seconds": f"{time.perf_counter() - t:.1f}",
                    "rules_version": RULES_VERSION})
                team_common.write_rows(path, rows, COLUMNS)
                print(f"{spec} {name} team {team}: value {b.value:+.4f}, alternating "
                      f"{b.alternating:+.4f} <= exact {r.best:+.4f} (bound {r.bound:+.4f}, "
                      f"{'optimal' if r.optimal else 'not proven'}) <= pooled {b.pooled:+.4f}"
                      f"; {r.seconds:.1f} s", flush=True)
    if args.sizes:
        sizes = team_common.read_rows(out / "sizes.csv")
        for spec in args.sizes:
            t = time.perf_counter()
            try:
                tree = build_tree(variant(spec, args.profile, args.dealer))
            except ValueError as e:
                refuse(f"variant {spec}: {e}")
            for name, bot in pols.items():
                pol = uniform_policy(tree) if bot == "uniform" else flat_bot_policy(
                    tree, parse_bot(bot))
                for team in (0, 1):
                    s = program_size(tree, pol, team)
                    sizes.append({"profile": args.profile, "variant": spec,
                                  "dealer": args.dealer, "policy": name, "team": team,
                                  "flat_nodes": tree.num_nodes,
                                  "flat_infosets": tree.num_infosets, "binaries": s.binaries,
                                  "products": s.products, "rows": s.rows,
                                  "terminals": s.terminals,
                                  "seconds": f"{time.perf_counter() - t:.1f}"})
                    team_common.write_rows(out / "sizes.csv", sizes, SIZE_COLUMNS)
                    print(f"{spec} {name} team {team}: {s}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
