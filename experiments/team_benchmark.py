"""Experiment: the Vitou team benchmark, small four-player variants solved to their
team-maxmin equilibrium with correlation (TMECor) with a certified gap.

For each variant ``RANKS,COPIES,HAND`` (four-player ``--profile``, dealer ``--dealer``,
scores 0:0) the flat tree is built and solved by
:func:`vitou_ai.solvers.flat.tmecor.solve_tmecor` (double oracle over the teams' joint
pure plans, the exact team best response as oracle) until the gap is at most ``--gap``
or ``--time-limit`` seconds have passed. Values are points per deal for team 0 (seats
0 and 2); team 1's is the negation.

The value of correlation (TMECor value minus the team-maxmin value without a shared
signal, TME) is bounded above by what uncorrelated play is shown to guarantee, each
guarantee measured against the other team's exact team best response
(:func:`vitou_ai.solvers.flat.team_maxmin.team_maxmin_best_response`, HiGHS's proven
bound):

- ``cfr_guarantee0/1``: a DCFR policy of the four seats (``--cfr-iterations`` of
  :class:`vitou_ai.solvers.flat.cfr.TabularCFR`, ``dcfr``), each team's part: what a
  team guarantees playing the four-player solver's policy (the "Nash-like" baseline);
- ``pure_guarantee0/1``: the best single joint pure plan among the TMECor mixture's
  support (a pure plan needs no shared signal);
- ``correlation0/1``: the TMECor value (each team's points) minus the larger of the two,
  an upper bound on the value of correlation (0: correlation is worth nothing there);
  blank where the gap did not close to 1e-3.

Every guarantee is also a bound on the TMECor value (team 0's a lower one, team 1's an
upper one), so ``bracket_lower`` / ``bracket_upper`` are the tightest of them with the
solver's own ``lower`` / ``upper``: what the run proves where the gap did not close.

``OUT/tmecor.png`` plots, per variant, the bracket on team 0's value and what each
baseline guarantees (from the CSV alone: rerunning redraws it without solving).
``OUT/tmecor.csv`` keeps rows already there and skips their variants; it is rewritten
atomically after every variant. ``game`` is the variant's OpenSpiel string
(``pyspiel.load_game`` after ``import vitou_ai.openspiel``).

    nice python experiments/team_benchmark.py --out results/team_benchmark
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path
from typing import NoReturn

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "experiments"))

import team_common  # noqa: E402

from vitou_ai.capabilities import cell  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.openspiel.game import game_string  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.flat.cfr import TabularCFR  # noqa: E402
from vitou_ai.solvers.flat.team_maxmin import team_maxmin_best_response  # noqa: E402
from vitou_ai.solvers.flat.tmecor import plan_policy, solve_tmecor  # noqa: E402
from vitou_ai.solvers.flat.tree import KIND_TERMINAL, build_tree, check_size  # noqa: E402

DEFAULT_VARIANTS = ["2,3,1", "2,4,1", "3,2,1", "3,3,1", "3,4,1", "4,2,1", "4,3,1", "4,4,1",
                    "5,2,1", "5,3,1", "5,4,1", "2,4,2", "6,2,1", "4,2,2", "3,3,2"]
COLUMNS = ["profile", "variant", "dealer", "game", "flat_nodes", "flat_infosets",
           "terminals", "value", "value_team1", "lower", "upper", "gap", "status",
           "iterations", "plans0", "plans1", "support0", "support1", "seconds",
           "oracle_seconds", "cfr_iterations", "cfr_guarantee0", "cfr_guarantee1",
           "pure_guarantee0", "pure_guarantee1", "correlation0", "correlation1",
           "bracket_lower", "bracket_upper", "baseline_seconds", "rules_version"]
PROG = "team_benchmark"
#: the gap under which a variant counts as solved (the benchmark's target)
SOLVED_GAP = 1e-3


def fmt(x: float, digits: int) -> str:
    """``x`` to ``digits`` decimals, without a negative zero."""
    return f"{round(x, digits) + 0.0:.{digits}f}"


def refuse(msg: str) -> NoReturn:
    team_common.refuse(PROG, msg)


def variant(spec: str, profile: str, dealer: int) -> VitouParams:
    return team_common.variant(PROG, spec, profile, dealer)


def derive(row: dict) -> dict:
    """The columns computed from the measured ones (module docstring)."""
    def num(k: str) -> float:
        return float(row[k]) if row.get(k) not in (None, "") else -np.inf

    value = float(row["value"])
    g0 = max(num("cfr_guarantee0"), num("pure_guarantee0"))
    g1 = max(num("cfr_guarantee1"), num("pure_guarantee1"))
    solved = float(row["gap"]) <= SOLVED_GAP
    return {**row, "correlation0": fmt(value - g0, 6) if solved else "",
            "correlation1": fmt(-value - g1, 6) if solved else "",
            "bracket_lower": fmt(max(float(row["lower"]), g0), 9),
            "bracket_upper": fmt(min(float(row["upper"]), -g1), 9)}


def write_csv(path: Path, rows: list[dict]) -> None:
    team_common.write_rows(path, [derive(r) for r in rows], COLUMNS)


def guarantee(tree, policy: np.ndarray, team: int, time_limit: float) -> float:
    """Team ``team``'s guaranteed value (its own points) with its part of ``policy``:
    minus the other team's exact team best response (HiGHS's proven bound)."""
    return -team_maxmin_best_response(tree, policy, 1 - team, time_limit=time_limit).bound


def cfr_guarantees(tree, iterations: int, time_limit: float) -> tuple[float, float]:
    """Each team's guarantee with the DCFR average policy of the four seats."""
    solver = TabularCFR(tree, variant="dcfr")
    solver.iterate(iterations)
    pol = solver.average_policy()
    return guarantee(tree, pol, 0, time_limit), guarantee(tree, pol, 1, time_limit)


def pure_guarantees(tree, res, time_limit: float) -> tuple[float, float]:
    """Each team's best guarantee with one joint pure plan of its TMECor support."""
    out = []
    for team in (0, 1):
        plans, w = res.team_plans[team], res.weights[team]
        other = res.team_plans[1 - team][0]
        best = -np.inf
        for plan in plans[w > 1e-9]:
            pol = plan_policy(tree, plan, other) if team == 0 else plan_policy(tree, other, plan)
            best = max(best, guarantee(tree, pol, team, time_limit))
        out.append(best)
    return out[0], out[1]


def plot(path: Path, rows: list[dict]) -> None:
    """The figure ``tmecor.png`` (module docstring), written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [derive(r) for r in rows]
    x = np.arange(len(rows))
    lo = np.array([float(r["bracket_lower"]) for r in rows])
    hi = np.array([float(r["bracket_upper"]) for r in rows])
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.vlines(x, lo, hi, color="black", lw=3, label="TMECor value: certified bracket")
    solved = [i for i, r in enumerate(rows) if float(r["gap"]) <= SOLVED_GAP]
    ax.plot(x[solved], [float(rows[i]["value"]) for i in solved], "k_", ms=12)
    def col(key: str) -> np.ndarray:  # a baseline not run (--cfr-iterations 0): NaN
        return np.array([float(r[key]) if r.get(key) not in (None, "") else np.nan
                         for r in rows])

    ax.plot(x, col("cfr_guarantee0"), "v", color="tab:blue",
            label="team 0 guarantees with DCFR's policy")
    ax.plot(x, -col("cfr_guarantee1"), "^", color="tab:red",
            label="team 1 holds team 0 to, with DCFR's policy")
    ax.plot(x, col("pure_guarantee0"), "1", color="tab:blue", ms=10,
            label="team 0's best single plan of its support guarantees")
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xticks(x, [r["variant"] for r in rows], rotation=45, fontsize=8)
    ax.set_xlabel("variant (ranks, copies, hand size), vitou, dealer 0, 0:0")
    ax.set_ylabel("team 0's points per deal")
    ys = np.concatenate([lo, hi, -col("cfr_guarantee1"), col("pure_guarantee0")])
    ys = ys[np.isfinite(ys)]
    ax.set_ylim(max(ys.min(), -2.0) - 0.05, min(ys.max(), 2.0) + 0.05)
    ax.legend(fontsize=7)
    fig.tight_layout()
    img = io.BytesIO()
    fig.savefig(img, format="png", dpi=100)
    write_atomic(path, img.getvalue())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--profile", default="vitou", help="a four-player profile of two teams")
    p.add_argument("--variants", nargs="*", default=DEFAULT_VARIANTS,
                   help="RANKS,COPIES,HAND variants to solve")
    p.add_argument("--dealer", type=int, default=0, help="the dealer's seat")
    p.add_argument("--gap", type=float, default=1e-6, help="target gap, points per deal")
    p.add_argument("--time-limit", type=float, default=150.0,
                   help="seconds of TMECor per variant")
    p.add_argument("--no-local-search", action="store_true",
                   help="plain double oracle: integer programs every iteration")
    p.add_argument("--cfr-iterations", type=int, default=2000,
                   help="DCFR iterations of the baseline (0: no baseline)")
    p.add_argument("--cfr-time-limit", type=float, default=60.0,
                   help="seconds of HiGHS per team best response to the DCFR policy")
    p.add_argument("--max-tree-nodes", type=int, default=2_000_000,
                   help="refuse a variant whose flat tree is larger (checked before any work)")
    p.add_argument("--out", default="results/team_benchmark", help="output folder")
    args = p.parse_args(argv)
    if args.time_limit <= 0 or args.cfr_time_limit <= 0:
        refuse("time limits must be positive")
    if not (args.gap >= 0):
        refuse(f"--gap must be >= 0, got {args.gap}")
    if args.cfr_iterations < 0:
        refuse(f"--cfr-iterations must be >= 0, got {args.cfr_iterations}")
    if args.max_tree_nodes < 1:
        refuse(f"--max-tree-nodes must be >= 1, got {args.max_tree_nodes}")
    if not -1 <= args.dealer <= 3:
        refuse(f"--dealer must be a seat 0-3 or -1 (drawn), got {args.dealer}")
    try:
        c = cell(args.profile, "team_bracket")
    except KeyError:
        refuse(f"unknown profile {args.profile!r}")
    if not c.works:  # two teams of two needed (a two-player or each-for-self game)
        refuse(f"--profile {args.profile}: TMECor needs four players in two teams: {c.reason}")
    if not args.variants:
        refuse("--variants: give at least one RANKS,COPIES,HAND variant")
    for spec in args.variants:  # every variant checked before any work, its size too
        params = variant(spec, args.profile, args.dealer)
        try:
            check_size(params, args.max_tree_nodes)
        except ValueError as e:
            refuse(f"variant {spec}: {str(e).splitlines()[0]} (--max-tree-nodes "
                   f"{args.max_tree_nodes:,}: the exact team best responses are integer "
                   "programs over the flat tree)")
    out = team_common.out_folder(PROG, args.out)
    path = out / "tmecor.csv"
    rows = team_common.read_rows(path, PROG, ("profile", "variant", "dealer", "value", "lower",
                                              "upper", "gap"),
                                 ("value", "lower", "upper", "gap", "cfr_guarantee0",
                                  "cfr_guarantee1", "pure_guarantee0", "pure_guarantee1"))
    done = {(r["profile"], r["variant"], r["dealer"]) for r in rows}
    for spec in args.variants:
        if (args.profile, spec, str(args.dealer)) in done:
            continue
        params = variant(spec, args.profile, args.dealer)
        tree = build_tree(params, max_nodes=args.max_tree_nodes)
        print(f"{spec}: {tree.num_nodes:,} nodes, {tree.num_infosets:,} information sets",
              flush=True)
        try:
            res = solve_tmecor(tree, gap=args.gap, time_limit=args.time_limit,
                               local_search=not args.no_local_search)
        except RuntimeError as e:  # no bound at all within the time limit
            refuse(f"variant {spec}: {str(e).splitlines()[0]}; raise --time-limit (the rows "
                   f"of the variants before it are in {path})")
        print(f"  TMECor {res.value:+.6f} in [{res.lower:+.6f}, {res.upper:+.6f}], "
              f"stop: {res.status}, {res.iterations} iterations, plans {res.plans}, "
              f"{res.seconds:.1f} s ({res.oracle_seconds:.1f} s in the oracle)"
              + (f"; {res.note}" if res.note else ""), flush=True)
        row = {"profile": args.profile, "variant": spec, "dealer": args.dealer,
               "game": game_string(params), "flat_nodes": tree.num_nodes,
               "flat_infosets": tree.num_infosets,
               "terminals": int((tree.kind == KIND_TERMINAL).sum()),
               "value": fmt(res.value, 9), "value_team1": fmt(-res.value, 9),
               "lower": fmt(res.lower, 9), "upper": fmt(res.upper, 9),
               "gap": f"{max(res.gap, 0.0):.2e}", "status": res.status,
               "iterations": res.iterations, "plans0": res.plans[0], "plans1": res.plans[1],
               "support0": int((res.weights[0] > 1e-9).sum()),
               "support1": int((res.weights[1] > 1e-9).sum()),
               "seconds": f"{res.seconds:.1f}", "oracle_seconds": f"{res.oracle_seconds:.1f}",
               "cfr_iterations": args.cfr_iterations, "rules_version": RULES_VERSION}
        start = time.perf_counter()
        g0, g1 = (cfr_guarantees(tree, args.cfr_iterations, args.cfr_time_limit)
                  if args.cfr_iterations else (-np.inf, -np.inf))
        q0, q1 = pure_guarantees(tree, res, args.cfr_time_limit)
        secs = time.perf_counter() - start
        row.update(pure_guarantee0=fmt(q0, 9), pure_guarantee1=fmt(q1, 9),
                   baseline_seconds=f"{secs:.1f}")
        if args.cfr_iterations:
            row.update(cfr_guarantee0=fmt(g0, 9), cfr_guarantee1=fmt(g1, 9))
        dcfr = f"DCFR {g0:+.6f} / {g1:+.6f}" if args.cfr_iterations else "DCFR not run"
        print(f"  guarantees, team 0 / team 1: {dcfr}, one plan of the "
              f"support {q0:+.6f} / {q1:+.6f}; {secs:.1f} s", flush=True)
        rows.append(row)
        write_csv(path, rows)
    write_csv(path, rows)  # rows of an earlier run get the derived columns again
    if rows:
        plot(out / "tmecor.png", rows)
    n = sum(float(r["gap"]) <= SOLVED_GAP for r in rows)
    print(f"{n} of {len(rows)} variants with gap <= {SOLVED_GAP:g} -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
