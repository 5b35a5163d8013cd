"""Experiment: sweep the four-player trainer's abstraction knobs and MCCFR variants on
the exact benchmark.

Each configuration is the abstract ES-MCCFR of ``vitou-ai train`` (the four-player
default, :class:`vitou_ai.solvers.sampling.mccfr_abstract.AbstractMCCFR`) on a ``vitou`` variant
(``RANKS,COPIES,HAND``, dealer 0), trained for ``--time`` seconds of solver time with
one worker thread, then evaluated exactly on the public tree: NashConv (OpenSpiel's
definition, points per deal) and team 0's value; with ``--bracket`` also both teams'
gain brackets (:func:`vitou_ai.solvers.public.team.team_bracket`). Equal solver time,
equal thread count: NashConv at equal time is what the sweep ranks.

A configuration is ``NAME=KNOBS``, ``KNOBS`` a comma-separated list of

- the abstraction's knobs (``trick=exact``, ``count=8``, ``history=cards``, ...; as
  ``vitou-ai train --abstraction``, docs/abstraction.md);
- the MCCFR variant's: ``prune=on|off`` (regret-based pruning after 10% of the budget,
  Pluribus), ``discount=N`` (linear-CFR discounting, Brown & Sandholm 2019, for the
  first ``N`` of 40 intervals of ``T/40``: ``vitou-ai train`` uses 20, ``0`` is plain
  averaging, ``40`` discounts all along).

The MCCFR knobs default to the schedule ``vitou-ai train`` ran when the sweep was made
(``prune=on,discount=20``); ``vitou-ai train`` now runs ``prune=off`` (``--pruning``), the
sweep's finding, so ``default`` here is the earlier trainer and ``prune=off`` today's.
Rows go to ``--out``/``<R>x<C>x<H>_<T>s.csv`` (written atomically after each configuration; a
configuration already there is skipped, so the sweep runs in pieces); the trained
policies to ``--runs`` (not committed).

    python experiments/sweep_4p.py --variant 4,3,2 --time 60 \\
        --configs default noprune=prune=off hctx=partner=off,history=cards,trick=exact
    python experiments/sweep_4p.py --variant 8,4,2 --time 300 --stage train --configs ... &
    python experiments/sweep_4p.py --variant 8,4,2 --time 300 --stage eval --configs ...
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import resource
import sys
import time
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.training.abstract import parse_abstraction, schedule  # noqa: E402

MCCFR_KNOBS = ("prune", "discount")
NAME = re.compile(r"[A-Za-z0-9_.,=+-]+")
COLUMNS = ["variant", "config", "knobs", "abstraction", "prune", "discount", "seconds",
           "iterations", "infosets", "load1_after", "nash_conv", "team0_value", "team0_gain_lower",
           "team0_gain_upper", "team1_gain_lower", "team1_gain_upper", "train_wall",
           "eval_seconds", "peak_rss_mib", "seed", "rules_version", "policy"]


def refuse(msg: str) -> NoReturn:
    print(f"sweep_4p.py: {msg}", file=sys.stderr)
    raise SystemExit(2)


def variant(spec: str) -> VitouParams:
    try:
        r, c, h = (int(x) for x in spec.split(","))
        return VitouParams(profile="vitou", ranks=r, copies=c, hand_size=h, dealer=0)
    except (ValueError, TypeError) as e:
        refuse(f"--variant {spec!r}: expected RANKS,COPIES,HAND of vitou ({e})")


def parse_config(text: str) -> tuple[str, str, dict]:
    """``NAME=KNOBS`` or ``KNOBS`` (then the name is the knobs) -> (name, abstraction
    text, mccfr knobs)."""
    from vitou_ai.abstraction import AbstractionConfig

    head, eq, rest = text.partition("=")
    if eq and head not in AbstractionConfig.__dataclass_fields__ and head not in MCCFR_KNOBS:
        name, knobs = head, rest
    else:
        name, knobs = text, ("" if text == "default" else text)
    if not NAME.fullmatch(name) or name.startswith("."):
        refuse(f"config {text!r}: a name is letters, digits and _ . , = + - (it names a "
               "folder under --runs), not starting with '.'")
    abstraction, mccfr = [], {"prune": "on", "discount": 20}
    for item in filter(None, knobs.split(",")):
        k, _, v = item.partition("=")
        if k == "prune":
            if v not in ("on", "off"):
                refuse(f"config {text!r}: prune must be on or off, got {v!r}")
            mccfr[k] = v
        elif k == "discount":
            if not v.isdigit() or int(v) > 40:
                refuse(f"config {text!r}: discount must be an integer 0..40, got {v!r}")
            mccfr[k] = int(v)
        else:
            abstraction.append(item)
    try:
        parse_abstraction(",".join(abstraction))
    except (ValueError, TypeError) as e:
        refuse(f"config {text!r}: {e}")
    return name, ",".join(abstraction), mccfr


def read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    write_atomic(path, buf.getvalue().encode())


def train(params: VitouParams, abstraction: str, mccfr: dict, seconds: float, seed: int,
          max_infosets: int):
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    solver = AbstractMCCFR(
        params, parse_abstraction(abstraction), seed=seed, max_infosets=max_infosets,
        threads=1, **schedule(seconds, mccfr["prune"], mccfr["discount"]))
    solver.warm_up()
    t = time.perf_counter()
    chunk = 2000
    while solver.seconds < seconds:
        t1 = time.perf_counter()
        solver.iterate(chunk)
        dt = time.perf_counter() - t1
        chunk = int(min(max(chunk * (2.0 / max(dt, 1e-3)) ** 0.5, 200), 2_000_000))
    return solver, time.perf_counter() - t


def trained(folder: Path) -> dict | None:
    """The training record of a finished configuration in ``folder`` (None: not yet)."""
    try:
        return json.loads((folder / "train.json").read_text())
    except (OSError, ValueError):
        return None


def knobs_text(abstraction: str, mccfr: dict) -> str:
    return ",".join(filter(None, [abstraction, f"prune={mccfr['prune']}",
                                  f"discount={mccfr['discount']}"]))


def check_stored(args, configs, tag: str, path: Path) -> None:
    """Refuse a configuration whose name is in the CSV or under ``--runs`` with other
    knobs or another seed (it would be skipped, or its old policy evaluated)."""
    stored = {r["config"]: r for r in read_rows(path)}
    for name, abstraction, mccfr in configs:
        want = (knobs_text(abstraction, mccfr), str(args.seed))
        for rec, where in ((stored.get(name), path),
                           (trained(Path(args.runs) / tag / name),
                            Path(args.runs) / tag / name / "train.json")):
            if rec and (rec["knobs"], str(rec["seed"])) != want:
                refuse(f"config {name!r} is in {where} with knobs {rec['knobs']} and seed "
                       f"{rec['seed']}, not {want[0]} and seed {want[1]}: give it another "
                       "name")


def train_stage(args, params, configs, tag: str) -> None:
    for name, abstraction, mccfr in configs:
        folder = Path(args.runs) / tag / name
        if trained(folder):
            continue
        solver, wall = train(params, abstraction, mccfr, args.time, args.seed,
                             args.max_infosets)
        folder.mkdir(parents=True, exist_ok=True)
        solver.policy(f"sweep-{name}").save(folder / "policy.npz")
        rec = {"variant": args.variant, "config": name,
               "knobs": knobs_text(abstraction, mccfr),
               "abstraction": abstraction or "default", "prune": mccfr["prune"],
               "discount": mccfr["discount"], "seconds": round(solver.seconds, 1),
               "iterations": solver.iteration, "infosets": solver.num_infosets,
               "train_wall": round(wall, 1), "load1_after": round(os.getloadavg()[0], 2),
               "seed": args.seed, "rules_version": RULES_VERSION,
               "policy": str(folder / "policy.npz")}
        write_atomic(folder / "train.json", json.dumps(rec, indent=1).encode())
        print(f"  trained {name:24s} {solver.iteration:>11,} it {solver.num_infosets:>9,} "
              "states", flush=True)


def eval_stage(args, params, configs, tag: str, path: Path) -> None:
    from vitou_ai.bots.abstract import AbstractPolicy
    from vitou_ai.solvers.public import cfr as PC
    from vitou_ai.solvers.public import team as PT
    from vitou_ai.solvers.public.export import bot_policy
    from vitou_ai.solvers.public.tree import build_public_tree

    t = time.perf_counter()
    tree = build_public_tree(params)
    passes = PT.TeamPasses(tree) if args.bracket else PC.PublicPasses(tree)
    print(f"{args.variant}: public tree {tree.num_nodes:,} nodes "
          f"({time.perf_counter() - t:.1f} s)", flush=True)
    for name, _, _ in configs:
        folder = Path(args.runs) / tag / name
        if trained(folder) is None:
            print(f"  waiting for {folder / 'train.json'} (a --stage train run writes it)",
                  flush=True)
        while (rec := trained(folder)) is None:  # the train stage's output, when it comes
            time.sleep(10)
        t = time.perf_counter()
        pol = bot_policy(tree, AbstractPolicy.load(folder / "policy.npz"))
        row = dict(rec)
        if args.bracket:
            row["nash_conv"] = PT.nash_conv(tree, pol, passes)
            for team in (0, 1):
                b = PT.team_bracket(tree, pol, team, passes=passes)
                row[f"team{team}_gain_lower"] = b.gain_lower
                row[f"team{team}_gain_upper"] = b.gain_upper
                if team == 0:
                    row["team0_value"] = b.value
        else:
            row["nash_conv"] = PC.nash_conv(tree, pol, passes)
            row["team0_value"] = float(PC.expected_returns(tree, pol, passes)[0])
        row["eval_seconds"] = round(time.perf_counter() - t, 1)
        row["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        rows = [r for r in read_rows(path) if r["config"] != name] + [row]
        write_rows(path, rows)
        print(f"  {name:24s} {rec['iterations']:>11,} it {rec['infosets']:>9,} states  "
              f"NashConv {row['nash_conv']:.5f}", flush=True)


def plot(out: Path) -> None:
    """``sweep.png``: one panel per CSV in ``out``, a bar per configuration (NashConv)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = {p.stem: read_rows(p) for p in sorted(out.glob("*x*x*_*s.csv"))}
    tables = {k: v for k, v in tables.items() if v}
    if not tables:
        return
    fig, axes = plt.subplots(len(tables), 1, figsize=(8.0, 2.2 + 0.28 * sum(map(len, tables.values()))),
                             squeeze=False, layout="constrained",
                             height_ratios=[len(v) for v in tables.values()])
    for ax, (name, rows) in zip(axes[:, 0], tables.items(), strict=True):
        rows = sorted(rows, key=lambda r: -float(r["nash_conv"]))
        labels = [f"{r['abstraction']}, prune {r['prune']}, discount {r['discount']}, "
                  f"seed {r['seed']}" for r in rows]
        colors = ["C1" if r["prune"] == "on" else "C0" for r in rows]
        ax.barh(range(len(rows)), [float(r["nash_conv"]) for r in rows], color=colors)
        ax.set_yticks(range(len(rows)), labels, fontsize=7)
        variant, budget = name.split("_")
        ax.set_title(f"vitou {variant.replace('x', ',')}, {budget} of solver time", fontsize=9)
        ax.set_xlabel("exact NashConv (points per deal)")
        ax.grid(True, axis="x", alpha=0.3)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(out / "sweep.png", buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="4,3,2", help="RANKS,COPIES,HAND of vitou, dealer 0")
    ap.add_argument("--time", type=float, default=60.0, help="solver seconds per config")
    ap.add_argument("--configs", nargs="+", default=["default"],
                    help="NAME=KNOBS or KNOBS (then named by its text; a NAME is not a knob's "
                    "name); KNOBS: abstraction knobs (docs/abstraction.md) and prune=on|off, "
                    "discount=0..40; 'default': none. A name already in the CSV is skipped")
    ap.add_argument("--stage", choices=("both", "train", "eval"), default="both",
                    help="train: train and save the policies only; eval: evaluate each as "
                    "its training finishes (run beside a train stage: two cores)")
    ap.add_argument("--bracket", action=argparse.BooleanOptionalAction, default=False,
                    help="also both teams' gain brackets (slow on 8,4,2)")
    ap.add_argument("--seed", type=int, default=0, help="MCCFR seed, 0 .. 2**31-1")
    ap.add_argument("--max-infosets", type=int, default=8_000_000, help="table bound")
    ap.add_argument("--out", default=str(ROOT / "results" / "sweep_4p"),
                    help="CSV folder (default results/sweep_4p)")
    ap.add_argument("--runs", default=str(ROOT / "runs" / "sweep_4p"),
                    help="policies' folder (default runs/sweep_4p)")
    args = ap.parse_args(argv)
    if not (args.time > 0 and math.isfinite(args.time)):
        refuse(f"--time must be a positive number of seconds, got {args.time}")
    if not 0 <= args.seed < 2**31:
        refuse(f"--seed must be in 0 .. 2**31-1, got {args.seed}")
    if args.max_infosets < 1:
        refuse(f"--max-infosets must be at least 1, got {args.max_infosets}")
    params = variant(args.variant)
    configs = [parse_config(c) for c in args.configs]
    names = [c[0] for c in configs]
    if len(set(names)) != len(names):
        refuse(f"--configs: a name given twice ({names})")
    for _, abstraction, _ in configs:
        try:
            parse_abstraction(abstraction).check_game(params)
        except ValueError as e:
            refuse(f"--variant {args.variant}: {e}")
    tag = f"{args.variant.replace(',', 'x')}_{args.time:g}s"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{tag}.csv"
    check_stored(args, configs, tag, path)
    todo = [c for c in configs if not any(r["config"] == c[0] for r in read_rows(path))]
    if not todo:
        print(f"all configurations already in {path}")
        return 0
    if args.stage in ("both", "train"):
        train_stage(args, params, todo, tag)
    if args.stage in ("both", "eval"):
        eval_stage(args, params, todo, tag, path)
        plot(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
