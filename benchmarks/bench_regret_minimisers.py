"""Benchmark: convergence of the regret minimisers, side by side in one process: DCFR (the
default), CFR+, PCFR+ (Farina, Kroer & Sandholm 2021) and PDCFR+ (Xu et al. 2024), on
the public tree and on the flat tree (the main job's), :mod:`vitou_ai.solvers.flat.cfr`
for their update rules.

Each rung is a two-player game, the dealer drawn by chance (as ``vitou-ai train``'s
default): ``RANKS,COPIES,HAND_SIZE`` (a ``vitou_2p`` variant), ``PROFILE`` (a two-player
profile's full game) or ``PROFILE:RANKS`` (its top RANKS ranks), e.g. ``put:8``,
``truc_catalan_2p:7``. It builds its public tree once (and its flat tree, when a flat
solver is asked for); the solvers share them and advance in turns, each to its next
evaluation point, so that the machine's load drifts over all of them alike. The average
policy's exact exploitability (points per deal) is evaluated at iterations 1, 2, ... 20
and then every 5 % more iterations (the first iteration at or below a target is found to
within 5 %); a solver stops at ``--target`` or ``--max-iterations``. Solver time is the
seconds spent in ``iterate`` (evaluation excluded), after one iteration of each solver on
the rung's tree thrown away (numba's compilation or cache load is not timed).

A solver written ``NAME:float32`` runs with compact tables
(:data:`vitou_ai.solvers.public.cfr.TABLE_DTYPES`): half the tables' memory, reported as
``table_bytes`` beside each solver's times; ``NAME@alpha=A;beta=B;gamma=G`` runs a
solver that takes DCFR's discounts with those exponents (Brown & Sandholm 2019, section
3), so that discount settings can be compared side by side.

Reported per rung and solver: the curve ``(iteration, solver seconds, exploitability)``
and the first evaluated iteration (and its solver time) at or below 1e-3 and 1e-4, with
both as ratios to public-dcfr's and to flat dcfr's (``ratio_to_public_dcfr``,
``ratio_to_dcfr``: each when that solver ran); with ``--target`` above 1e-4, the
milestones not below it and the target itself. Writes ``results/bench_regret_minimisers.json``
(atomically) and the figure ``docs/results/img/regret_minimisers.png``; with another
``--out``, the figure beside it (``--figure`` to choose).

    python benchmarks/bench_regret_minimisers.py [--rungs 4,4,2 5,4,3] [--target 1e-4]
    python benchmarks/bench_regret_minimisers.py --rungs 5,4,3 --solvers public-dcfr,public-dcfr:float32 \
        --out results/bench_compact_tables.json --figure docs/results/img/compact_tables.png
    python benchmarks/bench_regret_minimisers.py --rungs 5,4,3 \
        --solvers "public-dcfr,public-dcfr@alpha=1.5;beta=-1;gamma=3" --out ... --figure ...
    python benchmarks/bench_regret_minimisers.py --rungs put:8 truc_catalan_2p:7
    python benchmarks/bench_regret_minimisers.py --rungs 8,4,2 --solvers dcfr,cfr+,pcfr+,pdcfr+
    python benchmarks/bench_regret_minimisers.py --replot   # the figure, from the JSON
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import math
import os
import sys
import time
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.protocol import FLAT, PUBLIC, make_solver  # noqa: E402
from vitou_ai.solvers.public.cfr import TABLE_DTYPES  # noqa: E402
from vitou_ai.solvers.public.tree import build_public_tree, check_public_params  # noqa: E402
from vitou_ai.solvers.registry import SOLVERS as SOLVER_SPECS  # noqa: E402
from vitou_ai.training.session import check_writable  # noqa: E402

SOLVERS = ("public-dcfr", "public-cfr+", "public-pcfr+", "public-pdcfr+")
TARGETS = (1e-3, 1e-4)


def milestones(target: float) -> tuple[float, ...]:
    """The exploitabilities reported: 1e-3 and 1e-4 where a solver is run to them (not
    below ``--target``, where it stops), and the target itself."""
    return tuple(sorted({x for x in TARGETS if x >= target} | {target}, reverse=True))
#: the solvers the others' times are divided by, each when it ran: the public tree's
#: default and the flat tree's (the main job's)
BASELINES = ("public-dcfr", "dcfr")
DEFAULT_OUT = ROOT / "results" / "bench_regret_minimisers.json"
DEFAULT_FIGURE = ROOT / "docs" / "results" / "img" / "regret_minimisers.png"


def ratio_key(baseline: str) -> str:
    """The record's key of the ratios to ``baseline``: ``ratio_to_public_dcfr``..."""
    return "ratio_to_" + baseline.replace("-", "_")


def parse_rung(text: str) -> VitouParams:
    """The game of a ``--rungs`` item, the dealer drawn by chance (R1.4):
    ``RANKS,COPIES,HAND_SIZE`` (``vitou_2p``), ``PROFILE`` or ``PROFILE:RANKS``.

    Raises:
        ValueError: one line: a malformed item, an unknown profile, a variant outside the
            rules, or a game that is not two-player.
    """
    head, colon, tail = text.partition(":")
    if "," in head:
        parts = head.split(",")
        if colon or len(parts) != 3 or not all(x.isdigit() for x in parts):
            raise ValueError(f"--rungs: {text!r} is not RANKS,COPIES,HAND_SIZE, PROFILE or "
                             "PROFILE:RANKS")
        ranks, copies, hand = map(int, parts)
        params = VitouParams(profile="vitou_2p", ranks=ranks, copies=copies,
                             hand_size=hand, dealer=-1)
    else:
        if colon and not tail.isdigit():
            raise ValueError(f"--rungs: {text!r}: RANKS must be a whole number")
        try:
            params = VitouParams(profile=head, ranks=int(tail) if colon else None, dealer=-1)
        except ValueError as e:
            raise ValueError(f"--rungs: {text!r}: {e}") from None
    if params.players != 2:
        raise ValueError(f"--rungs: {text!r} is a {params.players}-player game; the benchmark "
                         "compares two-player exploitability")
    return params


def rung_label(params: VitouParams) -> str:
    """``vitou_2p 5,4,3`` / ``put:8``: the rung as ``--rungs`` names it."""
    if params.profile == "vitou_2p":
        return f"vitou_2p {params.ranks},{params.copies},{params.hand_size}"
    full = VitouParams(profile=params.profile).ranks
    return params.profile if params.ranks == full else f"{params.profile}:{params.ranks}"


def solver_spec(spec: str) -> tuple[str, str, dict[str, float]]:
    """``(solver name, table type, discounts)`` of a ``--solvers`` item:
    ``NAME[:float32][@alpha=A;beta=B;gamma=G]`` (any of the three discounts, for the
    solvers that take them: ``public-dcfr`` and ``public-dcfr-postflop``).

    Raises:
        ValueError: a discount that is not ``alpha``, ``beta`` or ``gamma``, or not a
            finite number.
    """
    head, _, tail = spec.partition("@")
    name, _, tables = head.partition(":")
    discounts: dict[str, float] = {}
    for item in filter(None, tail.split(";")):
        key, eq, value = item.partition("=")
        try:
            x = float(value) if eq else math.nan
        except ValueError:
            x = math.nan
        if key not in ("alpha", "beta", "gamma") or not math.isfinite(x):
            raise ValueError(f"{spec}: {item!r} is not alpha=A, beta=B or gamma=G "
                             "with a finite number")
        discounts[key] = x
    return name, tables or "float64", discounts


def table_bytes(s) -> int:
    """Bytes of a public-tree solver's tables (regrets, cumulative policy, prediction)."""
    c = s.solver
    return int(c.regrets.nbytes + c.cum_policy.nbytes + c.prediction.nbytes)


def refuse(msg: str):
    """Bad input: one line on stderr, exit code 2 (as the ``vitou-ai`` commands)."""
    print(f"bench_regret_minimisers: {msg}", file=sys.stderr)
    raise SystemExit(2)


def next_eval(n: int) -> int:
    """The iteration after ``n`` at which to evaluate: every one up to 20, then +5 %."""
    return n + 1 if n < 20 else max(n + 1, math.ceil(n * 1.05))


def first_below(curve: list[list[float]], target: float) -> dict | None:
    """The first evaluated point at or below ``target``: ``{iterations, seconds}``."""
    for it, sec, expl in curve:
        if expl <= target:
            return {"iterations": int(it), "seconds": round(sec, 3)}
    return None


def run_rung(params: VitouParams, solvers: tuple[str, ...], target: float,
             max_iterations: int) -> dict:
    names = [solver_spec(n)[0] for n in solvers]
    tree = flat = None
    build = flat_build = 0.0
    if any(n in PUBLIC for n in names):
        print(f"{rung_label(params)}: building the public tree...", flush=True)
        t = time.perf_counter()
        tree = build_public_tree(params)
        build = time.perf_counter() - t
        print(f"{rung_label(params)}: public tree {tree.num_nodes:,} nodes, "
              f"{tree.num_entries:,} entries ({build:.1f} s)", flush=True)
    if any(n in FLAT for n in names):
        print(f"{rung_label(params)}: building the flat tree...", flush=True)
        t = time.perf_counter()
        flat = build_tree(params)
        flat_build = time.perf_counter() - t
        print(f"{rung_label(params)}: flat tree {flat.num_nodes:,} nodes ({flat_build:.1f} s)",
              flush=True)
    live = {}
    for name in solvers:
        solver, tables, discounts = solver_spec(name)
        make = functools.partial(make_solver, solver, params,
                                 tree if solver in PUBLIC else flat, tables=tables, **discounts)
        # one iteration and one evaluation on this tree, thrown away: every compiled
        # pass it takes (a tree past 100,000 public nodes walks a parallel frontier that a
        # small one does not) is compiled or loaded from numba's cache outside the timing
        warm = make()
        warm.iterate(1)
        warm.exact_evaluation()
        del warm
        live[name] = make()
    curves: dict[str, list[list[float]]] = {n: [] for n in solvers}
    pending = dict.fromkeys(solvers, 1)
    while pending:
        for name in list(pending):
            s = live[name]
            s.iterate(pending[name] - s.iterations_done)
            e = s.exact_evaluation()["exploitability"]
            curves[name].append([s.iterations_done, s.solver_seconds(), e])
            if e <= target or s.iterations_done >= max_iterations:
                del pending[name]
                print(f"  {name}: {e:.3g} after {s.iterations_done:,} iterations, "
                      f"{s.solver_seconds():.1f} s", flush=True)
            else:
                pending[name] = min(max_iterations, next_eval(s.iterations_done))
    out = {"params": {**params.knobs(), "profile": params.profile},
           "milestones": list(milestones(target)),
           "public_nodes": None if tree is None else tree.num_nodes,
           "entries": None if tree is None else tree.num_entries,
           "build_seconds": round(build, 1),
           "flat_nodes": None if flat is None else flat.num_nodes,
           "flat_build_seconds": round(flat_build, 1), "solvers": {}}
    for name in solvers:
        out["solvers"][name] = {
            "table_bytes": table_bytes(live[name]),
            "curve": [[int(i), round(s, 4), e] for i, s, e in curves[name]],
            **{f"to_{x:g}": first_below(curves[name], x) for x in milestones(target)}}
    for baseline in BASELINES:
        base = out["solvers"].get(baseline)
        if base is None:
            continue
        key = ratio_key(baseline)
        for rec in out["solvers"].values():
            rec[key] = {}
            for x in milestones(target):
                a, b = rec[f"to_{x:g}"], base[f"to_{x:g}"]
                rec[key][f"{x:g}"] = None if a is None or b is None else {
                    "iterations": round(a["iterations"] / b["iterations"], 3),
                    # a toy's baseline can reach a target in under a millisecond
                    "seconds": round(a["seconds"] / max(b["seconds"], 1e-3), 3)}
    return out


def rung_params(rung: dict) -> VitouParams:
    """The rung's game from its record (``knobs()``: the parameters off the defaults)."""
    rec = rung["params"]
    return VitouParams(profile=rec["profile"], **{k: v for k, v in rec.items() if k != "profile"})


def figure(rungs: list[dict]) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(rungs), 2, figsize=(10, 3.6 * len(rungs)), squeeze=False)
    for row, rung in zip(axes, rungs, strict=True):
        p = rung_params(rung)
        sizes = [f"{rung[k]:,} {what}" for k, what in (("public_nodes", "public nodes"),
                                                       ("flat_nodes", "flat nodes"))
                 if rung.get(k)]
        title = (f"{rung_label(p)}: {p.ranks} ranks x {p.copies} copies, {p.hand_size}-card "
                 f"hands ({', '.join(sizes)})")
        for name, rec in rung["solvers"].items():
            it = [c[0] for c in rec["curve"]]
            sec = [max(c[1], 1e-3) for c in rec["curve"]]
            ex = [max(c[2], 1e-12) for c in rec["curve"]]
            row[0].plot(it, ex, label=name)
            row[1].plot(sec, ex, label=name)
        for ax, xl in zip(row, ("iterations", "solver seconds"), strict=True):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(xl)
            ax.set_ylabel("exploitability (points per deal)")
            for x in rung.get("milestones", TARGETS):
                ax.axhline(x, color="grey", lw=0.5, ls=":")
            ax.grid(True, which="major", alpha=0.3)
        row[0].set_title(title, fontsize=9, loc="left")
        row[0].legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Convergence of the regret minimisers, side by side in one process: "
        "exploitability against iterations and solver seconds, and the iterations and "
        "seconds to 1e-3 and 1e-4 as ratios to public-dcfr and flat dcfr.")
    ap.add_argument("--rungs", nargs="+", default=["4,4,2", "5,4,3"],
                    help="two-player games: RANKS,COPIES,HAND_SIZE (vitou_2p), PROFILE or "
                         "PROFILE:RANKS (its top RANKS ranks); default: 4,4,2 5,4,3")
    ap.add_argument("--solvers", default=",".join(SOLVERS),
                    help="comma-separated: public-tree or flat-tree solver names, each "
                         "optionally NAME:float32 (public tree) or "
                         "NAME@alpha=A;beta=B;gamma=G (DCFR); default: %(default)s")
    ap.add_argument("--target", type=float, default=1e-4,
                    help="stop each solver at this exploitability, points per deal "
                         "(default: %(default)g)")
    ap.add_argument("--max-iterations", type=int, default=6000,
                    help="or after this many iterations (default: %(default)s)")
    ap.add_argument("--out", default=str(DEFAULT_OUT),
                    help="the JSON record, written atomically after each rung (default: "
                         "results/bench_regret_minimisers.json)")
    ap.add_argument("--figure", default=None,
                    help="the figure (default: docs/results/img/regret_minimisers.png with "
                         "the default --out, else --out with .png)")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the figure (and print the report) from --out's JSON")
    args = ap.parse_args(argv)
    if args.figure is None:  # a run writing elsewhere never overwrites the docs' figure
        args.figure = str(DEFAULT_FIGURE if Path(args.out) == DEFAULT_OUT
                          else Path(args.out).with_suffix(".png"))
    if args.replot:
        try:
            check_writable(args.figure, "file", "--figure")
            results = json.loads(Path(args.out).read_text())["rungs"]
        except KeyError:
            refuse(f"--replot: {args.out} has no 'rungs': not a record of this benchmark")
        except (OSError, ValueError) as e:
            refuse(f"--replot: {args.out}: {e}")
        write_atomic(Path(args.figure), figure(results))
        report(results)
        print(f"wrote {args.figure}")
        return 0
    # checked before any tree is built: a mistake costs no minutes
    solvers = tuple(s for s in args.solvers.split(",") if s)
    for s in solvers:
        try:
            name, tables, discounts = solver_spec(s)
        except ValueError as e:
            refuse(str(e))
        if name not in PUBLIC + FLAT:
            refuse(f"unknown solver {name!r}; expected some of the public tree's "
                   f"{', '.join(PUBLIC)} or the flat tree's {', '.join(FLAT)}")
        if tables not in TABLE_DTYPES:
            refuse(f"{s}: tables must be one of {', '.join(TABLE_DTYPES)}")
        if tables != "float64" and name not in PUBLIC:
            refuse(f"{s}: compact tables are for the public-tree solvers only")
        if discounts and not SOLVER_SPECS[name].discounts:
            refuse(f"{s}: {name} takes no DCFR discounts")
    if not (args.target > 0) or args.max_iterations < 1:
        refuse("--target must be > 0 and --max-iterations >= 1")
    rungs = []
    public = any(solver_spec(n)[0] in PUBLIC for n in solvers)
    try:
        for r in args.rungs:
            p = parse_rung(r)
            if public:
                check_public_params(p)
            rungs.append(p)
        check_writable(args.out, "file")
        check_writable(args.figure, "file", "--figure")
    except (ValueError, OSError) as e:
        refuse(str(e))
    load_before = os.getloadavg()[0]
    wall = time.perf_counter()
    results: list[dict] = []
    for p in rungs:
        results.append(run_rung(p, solvers, args.target, args.max_iterations))
        # after each rung, so that an interrupted run keeps the rungs it finished
        record = {
            "rules_version": RULES_VERSION,
            "command": "python benchmarks/bench_regret_minimisers.py " + " ".join(
                sys.argv[1:] if argv is None else argv),
            "complete": len(results) == len(rungs),
            "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
            "load_1min_before": round(load_before, 2),
            "load_1min_after": round(os.getloadavg()[0], 2),
            "wall_seconds": round(time.perf_counter() - wall, 1),
            "target": args.target, "max_iterations": args.max_iterations,
            "eval_grid": "every iteration to 20, then +5 %", "rungs": results}
        write_atomic(Path(args.out), (json.dumps(record, indent=1) + "\n").encode())
        write_atomic(Path(args.figure), figure(results))
    report(results)
    print(f"wrote {args.out} and {args.figure}")
    return 0


def report(results: list[dict]) -> None:
    """Print each rung's iterations and solver seconds to the targets, and the ratios."""
    for rung in results:
        print(f"{rung_label(rung_params(rung))}:")
        for name, rec in rung["solvers"].items():
            cells = []
            for x in rung.get("milestones", TARGETS):
                to = rec[f"to_{x:g}"]
                if to is None:
                    cells.append(f"{x:g}: not reached")
                    continue
                cell = f"{x:g}: {to['iterations']:,} it, {to['seconds']:.1f} s"
                for baseline in BASELINES:
                    ratio = rec.get(ratio_key(baseline), {}).get(f"{x:g}")
                    if ratio is not None and name != baseline:
                        cell += (f" (x{ratio['iterations']:.2f} it, x{ratio['seconds']:.2f} s "
                                 f"of {baseline})")
                cells.append(cell)
            print(f"  {name:22s} " + "; ".join(cells))


if __name__ == "__main__":
    raise SystemExit(main())
