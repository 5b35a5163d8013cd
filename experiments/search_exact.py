"""Exact measures of the search bot on a small variant's whole public tree: NashConv of
every seat searching against the blueprint's, and the exact head-to-head value of search
against its own blueprint (no sampling). With no ``--safe``, the bot's default
(``safe=auto``: nested Maxmargin with two players, no search with four).

    PYTHONPATH=. NUMBA_NUM_THREADS=1 python experiments/search_exact.py \\
        --ranks 4 --copies 2 --hand-size 2 --blueprints counter cautious dcfr:10 \\
        --out results/search
    PYTHONPATH=. NUMBA_NUM_THREADS=1 python experiments/search_exact.py \\
        --ranks 4 --copies 2 --hand-size 2 --blueprints counter cautious dcfr:10 dcfr:100 \\
        --safe resolve --out results/search/safe_resolve
    PYTHONPATH=. NUMBA_NUM_THREADS=1 python experiments/search_exact.py --profile vitou \
        --ranks 4 --copies 2 --hand-size 2 --blueprints dcfr:100 --safe none \
        --out results/search/four_player/partner_fixed

    PYTHONPATH=. NUMBA_NUM_THREADS=1 python experiments/search_exact.py \
        --ranks 4 --copies 2 --hand-size 2 --blueprints dcfr:100 dcfr:10 counter \
        --tricks 1 --out results/search/depth_limited

``--tricks 1``: every subgame depth-limited to the current trick, its leaves valued by the
blueprint's continuation values (Brown, Sandholm & Amos 2018; the first trick's search
in the 3-card game). ``dcfr:N``: the public tree's own DCFR average policy after N iterations (a blueprint
of known quality). Writes ``OUT/exact_<ranks>x<copies>x<hand>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from vitou_ai import VitouParams
from vitou_ai.bots.named import parse_bot
from vitou_ai.eval.search_exact import mix_by_seat, search_policy
from vitou_ai.io import json_finite, write_atomic
from vitou_ai.rules.params import RULES_VERSION
from vitou_ai.solvers.public.cfr import PublicCFR, expected_returns, nash_conv
from vitou_ai.solvers.public.export import bot_policy
from vitou_ai.solvers.public.subgame import SEARCH_SAFE_MODES, effective_safe_mode
from vitou_ai.solvers.public.tree import build_public_tree


def check_blueprints(specs: list[str]) -> None:
    """Refuse a blueprint spec before any work: ``dcfr:N`` with N an integer >= 1, else a
    bot spec :func:`~vitou_ai.bots.named.parse_bot` takes.

    Raises:
        ValueError: one line naming the spec.
    """
    for spec in specs:
        if spec.startswith("dcfr:"):
            n = spec.split(":", 1)[1]
            if not n.isdigit() or int(n) < 1:
                raise ValueError(f"blueprint {spec!r}: dcfr:N needs N, an integer >= 1 "
                                 "(the tree's own DCFR iterations)")
        else:
            try:
                parse_bot(spec)
            except (ValueError, OSError) as e:
                raise ValueError(f"blueprint {spec!r}: {e}") from None


def blueprint_policy(tree, spec: str):
    """The blueprint ``spec`` (checked by :func:`check_blueprints`) as ``tree``'s entry
    policy: ``dcfr:N``, the tree's own DCFR average after N iterations; else the bot's
    exact probabilities."""
    if spec.startswith("dcfr:"):
        cfr = PublicCFR(tree, "dcfr", frontier_size=0)
        cfr.iterate(int(spec.split(":")[1]))
        return cfr.average_policy()
    return bot_policy(tree, parse_bot(spec))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="vitou_2p", help="a two- or four-player profile "
                    "(default: vitou_2p)")
    ap.add_argument("--ranks", type=int, default=4, help="ranks of the variant (default: 4)")
    ap.add_argument("--copies", type=int, default=2, help="copies of each rank (default: 2)")
    ap.add_argument("--hand-size", type=int, default=2, help="cards a hand (default: 2)")
    ap.add_argument("--blueprints", nargs="+", default=["counter", "dcfr:10"],
                    help="bot specs (a named bot or a .npz policy) or dcfr:N, the public "
                         "tree's own DCFR after N iterations (default: counter dcfr:10)")
    ap.add_argument("--iterations", type=int, default=1000, help="DCFR iterations a search")
    ap.add_argument("--eps", type=float, default=0.01, help="the bot's epsilon")
    ap.add_argument("--safe", default="auto", choices=list(SEARCH_SAFE_MODES),
                    help="the bot's safe re-solving mode (default: the bot's, auto)")
    ap.add_argument("--alternative", default="best_response",
                    choices=["best_response", "blueprint"],
                    help="the gadgets' alternative values")
    ap.add_argument("--nested", action=argparse.BooleanOptionalAction, default=None,
                    help="alternatives from the seat's previous solve (default: with a "
                         "gadget, as the bot plays; --no-nested measures the non-nested "
                         "gadget)")
    ap.add_argument("--partner", default="blueprint", choices=("blueprint", "search"),
                    help="four players, --safe none: the partner held to the blueprint "
                         "(the bot's) or re-solved with its range from its own searches "
                         "(both partners search; head to head, the team searches)")
    ap.add_argument("--tricks", type=int, default=None,
                    help="two players: depth-limit every subgame to this many tricks, "
                         "leaves valued by the blueprint's continuation values (default: "
                         "to the end of the deal)")
    ap.add_argument("--out", default="results/search",
                    help="folder of exact_<ranks>x<copies>x<hand>.json (default: results/search)")
    args = ap.parse_args(argv)
    try:
        params = VitouParams(profile=args.profile, ranks=args.ranks, copies=args.copies,
                             hand_size=args.hand_size, dealer=-1)
        check_blueprints(args.blueprints)
        if args.iterations < 1:
            raise ValueError(f"--iterations must be at least 1, got {args.iterations}")
        mode = effective_safe_mode(args.safe, params.players)
        if args.partner == "search" and params.players != 4:
            raise ValueError(f"--partner search is a four-player design; {args.profile} has "
                             f"{params.players} players")
        if args.partner == "search" and mode != "none":
            raise ValueError(f"--partner search is a design of --safe none, not of "
                             f"--safe {args.safe}")
        if args.tricks is not None and params.players != 2:
            raise ValueError(f"--tricks is for two players; {args.profile} has "
                             f"{params.players}")
        if args.tricks is not None and not 1 <= args.tricks < params.hand_size:
            raise ValueError(f"--tricks must be from 1 to {params.hand_size - 1} (fewer than "
                             f"the deal's {params.hand_size} tricks), got {args.tricks}")
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"--out {args.out}: cannot create it ({e.strerror})") from None
    except ValueError as e:
        print(f"search_exact: {e}", file=sys.stderr)
        return 2
    tree = build_public_tree(params)
    rows = []
    path = out / f"exact_{args.ranks}x{args.copies}x{args.hand_size}.json"
    doc = {"rules_version": RULES_VERSION, "params": params.knobs(),
           "command": " ".join(["experiments/search_exact.py"] + (argv or sys.argv[1:])),
           "tree_nodes": tree.num_nodes, "search_iterations": args.iterations,
           "epsilon": args.eps, "safe": args.safe, "mode_played": mode,
           "nested_played": (mode in ("resolve", "maxmargin") if args.nested is None
                             else args.nested),
           "alternative": args.alternative, "nested": args.nested,
           "partner": args.partner, "tricks": args.tricks, "rows": rows}
    for spec in args.blueprints:
        bp = blueprint_policy(tree, spec)
        t0 = time.perf_counter()
        se, stats = search_policy(tree, bp, iterations=args.iterations,
                                  epsilon=args.eps, safe=args.safe,
                                  alternative=args.alternative, nested=args.nested,
                                  partner=args.partner, tricks=args.tricks)
        secs = time.perf_counter() - t0
        n = tree.num_players
        # head to head: the seat searching (with partner="search", its team's two seats:
        # the design has the partner play the search too) against the blueprint
        team = args.partner == "search"
        u_se = [float(expected_returns(tree, mix_by_seat(
            tree, [se if (s % 2 == k % 2 if team else s == k) else bp
                   for s in range(n)]))[k]) for k in range(n)]
        row = {"blueprint": spec, "nash_conv_blueprint": nash_conv(tree, bp),
               "nash_conv_search": nash_conv(tree, se),
               "search_vs_blueprint_by_seat": u_se,
               "search_vs_blueprint": sum(u_se) / n,
               "search_seconds": secs, **stats}
        rows.append(row)
        write_atomic(path, json.dumps(json_finite(doc), indent=1).encode())
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
