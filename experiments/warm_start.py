"""Experiment: warm starts for the two-player match-equity table.

A score state's deal is solved with match-equity payoffs (:mod:`vitou_ai.match_equity.two_player`)
from scratch (cold) or starting from the solved CFR tables of its neighbour one point
away, ``(a, b + 1)``, whose deal tree has the same structure (the scores change only the
terminal payoffs away from the end, R6 / R9.3). For each state and start, both dealers'
deals are run with DCFR until the exploitability is at most ``--tol`` (checked every
``--batch`` iterations), each scoreless terminal paid the table's equity of the
passed deal (the shipped table: the fixed point's value), and the iterations and
seconds are written to ``warm_start.csv``. Starts:

- ``cold``: zero regrets and average, iteration 0 (what the table uses);
- ``full``: the neighbour's regrets, cumulative policy and iteration count (a resume
  with other payoffs);
- ``regrets``: the neighbour's regrets; average and iteration count from 0;
- ``regrets_t``: the neighbour's regrets and iteration count (DCFR's discounts as late
  in the run); average from 0;
- ``scaled``: as ``full`` with the cumulative policy scaled by 0.1 (the neighbour's
  average as a light prior);
- ``adaptive``: the neighbour's average policy is first evaluated in this state's deal
  (its exploitability ``e0`` with this state's payoffs); if ``e0 <= --adaptive-factor
  * --tol`` the start is ``regrets_t``, else ``cold``. The check costs one
  exploitability evaluation per dealer, counted in the seconds (not the iterations).

    python experiments/warm_start.py --states 5,5 2,7 8,9 0,3 6,9 3,3 \\
        --out results/match_equity/warm_start
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.match_equity import two_player as M  # noqa: E402
from vitou_ai.rules import RULES_VERSION  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.payoffs import KIND_TERMINAL  # noqa: E402

STARTS = ("cold", "full", "regrets", "regrets_t", "scaled", "adaptive")


def refuse(msg: str):
    print(f"warm_start: {msg}", file=sys.stderr)
    raise SystemExit(2)


def check_table(path: str, table: dict, config: M.EquityConfig) -> None:
    """Refuse a table of another game: its sidecar ``.json`` (written with every table)
    names the game, and its states must be this target's."""
    sidecar = Path(path).with_suffix(".json")
    if sidecar.exists():
        try:
            game = json.loads(sidecar.read_text()).get("config", {})
        except ValueError:
            game = {}
        for k in ("profile", "target", "ranks", "copies", "hand_size", "early_end"):
            if k in game and game[k] != getattr(config, k):
                refuse(f"--table {path} is the table of {k} {game[k]}, not {getattr(config, k)}")
    t = config.target
    want = {(a, b, d) for a in range(t) for b in range(t) for d in (0, 1)}
    if set(table) != want:
        refuse(f"--table {path}: its states are not those of a {t}-point match")


def deal_games(config: M.EquityConfig, key, table):
    out = []
    for d in (0, 1):
        tree = build_tree(config.deal_params(key, d))
        pts = tree.util[tree.kind == KIND_TERMINAL]
        eq, nothing = M.equity_after(pts, key, d, config.target, table)
        out.append((tree, eq, nothing))
    return out


def same_structure(a, b) -> bool:
    """Two flat trees with the same nodes, information sets and actions (payoffs aside)."""
    if a.num_nodes != b.num_nodes or a.num_infosets != b.num_infosets:
        return False
    if not all(np.array_equal(getattr(a, f), getattr(b, f))
               for f in ("kind", "first", "nchild", "infoset", "is_nact")):
        return False
    used = np.arange(a.is_actions.shape[1]) < a.is_nact[:, None]  # the slots past is_nact
    return bool(np.array_equal(a.is_actions[used], b.is_actions[used]))  # are not set


def solve(config, key, table, tol, batch, start="cold", warm=None, factor=20.0):
    """Both dealers' deals at ``key`` to exploitability ``tol``: (solves, iterations,
    seconds, chosen) per dealer; ``chosen``: the start each dealer's deal used (the
    ``adaptive`` start's choice) and the neighbour average's exploitability here."""
    solves = [M._DealSolve(t, eq, no, "flat", "dcfr") for t, eq, no in
              deal_games(config, key, table)]
    its, secs, chosen = [], [], []
    for d, s in enumerate(solves):
        s.set_redeal(table[(key[0], key[1], 1 - d)])  # a scoreless deal passes the deal
        t = time.perf_counter()
        mode, e0 = start, None
        if start != "cold":
            w = warm[d]
            if not same_structure(s.tree, w.tree):
                raise ValueError(f"{key}: the neighbour's deal tree differs")
            c, n = s.cfr, w.cfr
            if start == "adaptive":
                c.cum_policy[...] = n.cum_policy  # the neighbour's average, judged here
                e0 = s.exploitability()
                c.cum_policy[...] = 0.0
                mode = "regrets_t" if e0 <= factor * tol else "cold"
            if mode != "cold":
                c.regrets[...] = n.regrets
                if mode in ("full", "scaled"):
                    c.cum_policy[...] = n.cum_policy * (0.1 if mode == "scaled" else 1.0)
                if mode in ("full", "scaled", "regrets_t"):
                    c.iteration = n.iteration
                c._loaded()
        first = s.cfr.iteration
        e = s.exploitability() if mode != "cold" else np.inf
        while e > tol:
            s.cfr.iterate(batch)
            e = s.exploitability()
        its.append(s.cfr.iteration - first)
        secs.append(time.perf_counter() - t)
        chosen.append((mode, e0))
    return solves, its, secs, chosen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--states", nargs="+", default=["5,5", "2,7", "8,9", "0,3", "6,9", "3,3"],
                    help="score states A,B to solve (neighbour A,B+1; B+1 below the target "
                         "- 1, away from R9.3)")
    ap.add_argument("--hand-size", type=int, default=2, help="cards per hand (default: 2)")
    ap.add_argument("--ranks", type=int, default=8, help="ranks in the deck (default: 8)")
    ap.add_argument("--copies", type=int, default=4, help="copies of each rank (default: 4)")
    ap.add_argument("--target", type=int, default=12,
                    help="points that win the match (default: 12, R5.3)")
    ap.add_argument("--adaptive-factor", type=float, default=20.0,
                    help="the adaptive start warms when the neighbour's average is within "
                         "this many times --tol here (default: 20)")
    ap.add_argument("--table", default=str(ROOT / "results/match_equity/vitou_2p_hand2.csv"),
                    help="the solved table whose equities pay the terminals")
    ap.add_argument("--tol", type=float, default=1e-4, help="exploitability target")
    ap.add_argument("--batch", type=int, default=10, help="iterations between checks")
    ap.add_argument("--starts", nargs="+", default=list(STARTS), choices=STARTS)
    ap.add_argument("--out", default=str(ROOT / "results/match_equity/warm_start"))
    args = ap.parse_args(argv)
    try:
        config = M.EquityConfig(target=args.target, hand_size=args.hand_size,
                                ranks=args.ranks, copies=args.copies)
    except (M.MatchEquityError, ValueError) as e:
        refuse(str(e))
    if args.adaptive_factor <= 0:
        refuse(f"--adaptive-factor must be positive, got {args.adaptive_factor}")
    try:
        table = M.read_table_csv(args.table)
    except (OSError, ValueError) as e:
        refuse(f"--table {args.table}: {e}")
    check_table(args.table, table, config)
    keys = []
    for s in args.states:
        try:
            a, b = (int(x) for x in s.split(","))
        except ValueError:
            refuse(f"bad state {s!r}; expected A,B")
        t = config.target
        if not (0 <= a < t - 1 and 0 <= b < t - 2):
            refuse(f"state {s}: A in 0..{t - 2} and B in 0..{t - 3} (the neighbour B+1 "
                   f"below {t - 1}, away from R9.3)")
        keys.append((a, b))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    t0 = time.perf_counter()
    for key in keys:
        nb = (key[0], key[1] + 1)
        warm, nits, _, _ = solve(config, nb, table, args.tol, args.batch)
        for start in args.starts:
            _, its, secs, chosen = solve(config, key, table, args.tol, args.batch, start,
                                         warm, args.adaptive_factor)
            for d in (0, 1):
                rows.append({"score0": key[0], "score1": key[1], "dealer": d,
                             "neighbour": f"{nb[0]},{nb[1]}", "start": start,
                             "iterations": its[d], "seconds": round(secs[d], 2),
                             "neighbour_iterations": nits[d], "used": chosen[d][0],
                             "neighbour_exploitability_here":
                                 "" if chosen[d][1] is None else f"{chosen[d][1]:.3g}"})
            print(f"{key} {start:<10} iterations {its} ({sum(secs):.1f} s)", flush=True)
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
        write_atomic(out / "warm_start.csv", buf.getvalue().encode())
    meta = {"command": " ".join(["python", "experiments/warm_start.py", *sys.argv[1:]]),
            "rules_version": RULES_VERSION, "tol": args.tol, "batch": args.batch,
            "adaptive_factor": args.adaptive_factor,
            "seconds": round(time.perf_counter() - t0, 1)}
    write_atomic(out / "run.json", json.dumps(meta, indent=1).encode())
    print(f"wrote {out / 'warm_start.csv'} ({meta['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
