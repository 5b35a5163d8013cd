"""Benchmark: the four-player trainer's exact quality against its solver-time budget.

For each variant (``RANKS,COPIES,HAND`` of ``vitou``, dealer 0) and each budget ``T``
(seconds of solver time), the default four-player trainer is run exactly as
``vitou-ai train`` runs it (a child ``python -m vitou_ai train --profile vitou ...
--dealer 0 --time T``; abstract ES-MCCFR, the four-player default), and its average
policy is evaluated exactly on the public tree: NashConv (OpenSpiel's definition) and,
for each team, the bracket on what a best-responding team gains against the other
team's policy (alternating partners' best response: lower bound; pooled partners who
see both hands: upper bound; :func:`vitou_ai.solvers.public.team.team_bracket`), the
calls of ``experiments/team_exploitability.py`` (its ``evaluate``), in points per deal.

One training run per budget, not one run checkpointed at each budget: the trainer sets
its schedule from ``--time`` (pruning after ``0.1 T``, linear-CFR discounting over the
first ``T / 2`` in 20 intervals of ``T / 40``; ``training/abstract.py``) and a
``--resume`` with a larger ``--time`` keeps the checkpoint's discounts done and takes the
new budget's schedule from there, so a 60 s run resumed to 300 s is not what
``--time 300`` trains. The cost is the sum of the budgets instead of the largest. The
in-run evaluation is cut to what the trainer requires (``--evals 1 --eval-matches 0
--lbr-deals 0 --eval-deals 2000``: one sampled evaluation at the end; it does not
change the solver's iterations). Runs go to ``--runs`` (default ``runs/bench_4p_exact``,
not committed); a complete run folder there is reused, an incomplete one resumed.

All the budgets of a variant still to evaluate are evaluated in one child process
(the public tree and its passes built once; ``--_evaluate``), which writes each row as
soon as it is done. Outputs in ``--out`` (default ``results/bench_4p_exact``), all
written atomically (:func:`vitou_ai.io.write_atomic`):

- ``<R>x<C>x<H>.csv``, one row per budget: iterations, solver seconds, information
  states, the training's wall seconds and peak RSS, NashConv, exploitability, team 0's
  value, both teams' gain brackets and alternating rounds, the export, NashConv and
  evaluation seconds (export included), the evaluating process's peak RSS after that
  row (the tree is built once for all its rows: the first row's figure is the
  evaluation's), the 1-minute load average, the policy file;
- ``bots.csv``: the named bots' rows for the same variants, *reused* from the
  ``evaluation.csv`` files under ``results/team_exploitability/`` (the file is named
  in ``source``), not recomputed; ``--bots NAME ...`` evaluates the named bots missing
  there (same child, same ``--bracket`` setting);
- ``run.json``: one record per run (command line, load averages before and after,
  what was trained, reused from --runs, evaluated and skipped, seconds);
- ``curves.png``: NashConv against solver seconds, log-log, one panel per variant, the
  bots' NashConv as horizontal lines.

Budgets already in a variant's CSV are skipped, so the benchmark runs in pieces (one
budget at a time on a shared machine). Bad input (an unparsable or unknown variant,
one the abstract trainer refuses, a budget that is not a positive number, a public
tree over ``--max-gib`` by Knuth's estimate) is refused in one line before any work.

    python benchmarks/bench_4p_exact.py                          # 8,4,2 and 4,3,3 at 60 300 900 3600 s
    python benchmarks/bench_4p_exact.py --variants 4,3,3 --budgets 60 300 900
    python benchmarks/bench_4p_exact.py --variants 8,4,2 --budgets 60 300 --no-bracket

Time and memory measured here (2 shared cores, load 4-7; ``results/bench_4p_exact``):
the 8,4,2 tree (117,981,097 nodes) takes 4.5 minutes to build and the evaluation
10.2 GB at peak; per trained policy the export 9-11 minutes and NashConv with both
brackets 8.5-12 more (``--no-bracket``: NashConv and team 0's value, about 1.5
minutes after the export). 4,3,3 (10,536,195 nodes): 34 s to build, 1.3 GB, 2-5
minutes per policy with brackets.
"""

from __future__ import annotations

import argparse
import csv
import glob
import io
import json
import math
import os
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.training.settings import ABSTRACT_OPTIONS  # noqa: E402

DEFAULT_VARIANTS = ["8,4,2", "4,3,3"]
DEFAULT_BUDGETS = [60.0, 300.0, 900.0, 3600.0]
#: the trainer's in-run evaluation, cut to the least it takes (it does not change training)
TRAIN_FLAGS = ["--evals", "1", "--eval-matches", "0", "--lbr-deals", "0", "--eval-deals", "2000",
               "--no-progress"]
BOT_SOURCES = "results/team_exploitability/**/evaluation.csv"
COLUMNS = ["variant", "budget", "iterations", "solver_seconds", "infosets",
           "train_wall_seconds", "train_peak_rss_mib", "public_nodes", "nash_conv",
           "exploitability", "team0_value", "team0_gain_lower", "team0_gain_upper",
           "team1_gain_lower", "team1_gain_upper", "team0_rounds", "team1_rounds",
           "tree_seconds", "export_seconds", "nash_conv_seconds", "eval_seconds",
           "eval_peak_rss_mib", "load1", "policy"]
BOT_COLUMNS = ["variant", "policy", "nash_conv", "exploitability", "team0_value",
               "team0_gain_lower", "team0_gain_upper", "team1_gain_lower", "team1_gain_upper",
               "export_seconds", "eval_seconds", "source"]


def refuse(msg: str) -> NoReturn:
    """Bad input: one line on stderr, exit code 2 (as the ``vitou-ai`` commands)."""
    print(f"bench_4p_exact: {msg}", file=sys.stderr)
    raise SystemExit(2)


def variant(spec: str) -> VitouParams:
    """``R,C,H`` as ``vitou``'s four-player parameters, dealer 0 (refused in one line)."""
    try:
        r, c, h = (int(x) for x in spec.split(","))
    except ValueError:
        refuse(f"bad variant {spec!r}; expected RANKS,COPIES,HAND, e.g. 8,4,2")
    try:
        return VitouParams(profile="vitou", ranks=r, copies=c, hand_size=h, dealer=0)
    except ValueError as e:
        refuse(f"variant {spec!r}: {e}")


def tag(spec: str) -> str:
    return spec.replace(",", "x")


def label(budget: float) -> str:
    return f"{budget:g}"


def read_csv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, restval="", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    write_atomic(path, buf.getvalue().encode())


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def peak_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def run_child(cmd: list[str], log: Path) -> tuple[int, float, int]:
    """Run ``cmd`` with its output in ``log``: (exit code, wall seconds, peak RSS MiB)."""
    t = time.perf_counter()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as f:
        f.write(f"$ {' '.join(cmd)}\n".encode())
        f.flush()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
        try:
            _, status, usage = os.wait4(p.pid, 0)
        except KeyboardInterrupt:
            p.wait()  # the child has the Ctrl-C too and keeps its checkpoint
            raise
        p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, time.perf_counter() - t, usage.ru_maxrss // 1024


# ---- training ---------------------------------------------------------------------------

def train_command(spec: str, budget: float, folder: Path, resume: bool) -> list[str]:
    r, c, h = spec.split(",")
    return [sys.executable, "-m", "vitou_ai", "train", "--profile", "vitou", "--ranks", r,
            "--copies", c, "--hand-size", h, "--dealer", "0", "--time", label(budget),
            *TRAIN_FLAGS, "--out", str(folder)] + (["--resume"] if resume else [])


def finished_run(folder: Path, budget: float) -> dict | None:
    """The record of a complete run in ``folder`` that reached ``budget``, else None."""
    try:
        rec = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError):
        return None
    if (not isinstance(rec, dict) or "writing" in rec or not (folder / "policy.npz").exists()
            or float(rec.get("solver_seconds", 0.0)) < budget
            or rec.get("time_budget") != budget
            # a run from before --pruning (it pruned) is not what the trainer runs now
            or rec.get("pruning", "on") != ABSTRACT_OPTIONS["pruning"]):
        return None
    return rec


def train(spec: str, budget: float, runs: Path) -> dict:
    """Train (or reuse) the run of ``spec`` at ``budget``; its figures for the CSV row."""
    folder = runs / tag(spec) / f"t{label(budget)}"
    rec = finished_run(folder, budget)
    info_path = folder / "bench_train.json"
    if rec is None:
        resume = (folder / "run.json").exists()
        cmd = train_command(spec, budget, folder, resume)
        print(f"train {spec} --time {label(budget)}{' (resumed)' if resume else ''}: "
              f"{folder}", flush=True)
        code, wall, rss = run_child(cmd, folder.parent / f"t{label(budget)}.log")
        rec = finished_run(folder, budget)
        if code != 0 or rec is None:
            print(f"bench_4p_exact: training {spec} at {label(budget)} s failed (exit {code}); "
                  f"see {folder.parent / f't{label(budget)}.log'}", file=sys.stderr)
            raise SystemExit(1)
        info = {"command": " ".join(cmd[1:]), "wall_seconds": round(wall, 1),
                "peak_rss_mib": rss, "load_after": loadavg()}
        write_atomic(info_path, json.dumps(info, indent=1).encode())
        reused = False
    else:
        print(f"train {spec} --time {label(budget)}: reusing {folder}", flush=True)
        reused = True
    try:
        info = json.loads(info_path.read_text())
    except (OSError, ValueError):
        info = {}
    return {"iterations": rec["iterations_done"], "solver_seconds": round(rec["solver_seconds"], 1),
            "infosets": rec.get("infosets", ""), "train_wall_seconds": info.get("wall_seconds", ""),
            "train_peak_rss_mib": info.get("peak_rss_mib", ""),
            "policy": str((folder / "policy.npz").resolve().relative_to(ROOT)
                          if folder.resolve().is_relative_to(ROOT) else folder / "policy.npz"),
            "reused": reused}


# ---- exact evaluation (the child) ------------------------------------------------------

def evaluate_child(args: argparse.Namespace) -> int:
    """``--_evaluate SPEC``: evaluate the pending rows in ``--pending`` (a JSON list of
    partial rows, with ``policy``) and the ``--bots`` missing from ``bots.csv``; each row
    is added to the CSV as soon as it is done."""
    from vitou_ai.bots.named import parse_bot
    from vitou_ai.solvers.public import cfr as PC
    from vitou_ai.solvers.public import team as PT
    from vitou_ai.solvers.public.export import bot_policy
    from vitou_ai.solvers.public.tree import build_public_tree

    spec, out = args._evaluate, Path(args.out)
    pending = json.loads(Path(args.pending).read_text())
    path = out / f"{tag(spec)}.csv"
    t = time.perf_counter()
    tree = build_public_tree(variant(spec))
    passes = PT.TeamPasses(tree) if args.bracket else PC.PublicPasses(tree)
    built = round(time.perf_counter() - t, 1)
    print(f"{spec}: public tree {tree.num_nodes:,} nodes ({built} s)", flush=True)

    def measure(policy_spec: str) -> dict:
        t = time.perf_counter()
        load = loadavg()[0]
        pol = bot_policy(tree, parse_bot(policy_spec))
        row = {"public_nodes": tree.num_nodes, "tree_seconds": built,
               "export_seconds": round(time.perf_counter() - t, 1), "load1": load}
        t1 = time.perf_counter()
        if args.bracket:
            row["nash_conv"] = PT.nash_conv(tree, pol, passes)
            row["nash_conv_seconds"] = round(time.perf_counter() - t1, 1)
            for team in (0, 1):
                b = PT.team_bracket(tree, pol, team, passes=passes)
                row.update({f"team{team}_gain_lower": b.gain_lower,
                            f"team{team}_gain_upper": b.gain_upper,
                            f"team{team}_rounds": b.rounds})
                if team == 0:
                    row["team0_value"] = b.value
        else:
            row["nash_conv"] = PC.nash_conv(tree, pol, passes)
            row["nash_conv_seconds"] = round(time.perf_counter() - t1, 1)
            row["team0_value"] = float(PC.expected_returns(tree, pol, passes)[0])
        row["exploitability"] = row["nash_conv"] / 4
        row["eval_seconds"] = round(time.perf_counter() - t, 1)
        row["eval_peak_rss_mib"] = peak_mib()
        return row

    for part in pending:
        row = dict(part, **measure(part["policy"]))
        rows = [r for r in read_csv(path) if float(r["budget"]) != float(row["budget"])]
        rows = sorted(rows + [row], key=lambda r: float(r["budget"]))
        write_csv(path, rows, COLUMNS)
        print(f"  {label(row['budget'])} s: NashConv {row['nash_conv']:.5f} "
              f"({row['eval_seconds']} s, peak RSS {row['eval_peak_rss_mib']} MiB)", flush=True)
    for bot in args.bots:
        bots = read_csv(out / "bots.csv")
        if any(r["variant"] == spec and r["policy"] == bot for r in bots):
            continue
        row = {"variant": spec, "policy": bot, "source": "computed by bench_4p_exact.py",
               **measure(bot)}
        write_csv(out / "bots.csv", bots + [row], BOT_COLUMNS)
        print(f"  {bot}: NashConv {row['nash_conv']:.5f} ({row['eval_seconds']} s)", flush=True)
    return 0


# ---- the bots' rows, reused ------------------------------------------------------------

def reuse_bot_rows(specs: list[str], out: Path) -> dict[str, list[str]]:
    """Add to ``bots.csv`` the named bots' rows of ``specs`` found in the
    ``evaluation.csv`` files of ``results/team_exploitability`` (dealer 0, vitou); one row
    per (variant, bot), those with brackets first. Returns the bots found per variant."""
    from vitou_ai.bots.named import NAMED_BOTS

    have = read_csv(out / "bots.csv")
    seen = {(r["variant"], r["policy"]) for r in have}
    for src in sorted(glob.glob(str(ROOT / BOT_SOURCES), recursive=True)):
        found: dict[tuple[str, str], dict] = {}
        for r in read_csv(Path(src)):
            key = (r.get("variant"), r.get("policy"))
            if (key[0] in specs and key[1] in NAMED_BOTS and r.get("dealer") == "0"
                    and (r.get("profile") or "vitou") == "vitou" and key not in seen):
                row = found.setdefault(key, {"variant": key[0], "policy": key[1],
                                             "nash_conv": r["nash_conv"],
                                             "exploitability": r["exploitability"],
                                             "source": str(Path(src).relative_to(ROOT))})
                t = r.get("team")
                if t == "0":
                    row["team0_value"] = r.get("value", "")
                if t in ("0", "1"):
                    row[f"team{t}_gain_lower"] = r.get("gain_lower", "")
                    row[f"team{t}_gain_upper"] = r.get("gain_upper", "")
        for key, row in found.items():
            have.append(row)
            seen.add(key)
    if have:
        have.sort(key=lambda r: (r["variant"], r["policy"]))
        write_csv(out / "bots.csv", have, BOT_COLUMNS)
    return {s: sorted(r["policy"] for r in have if r["variant"] == s) for s in specs}


# ---- the figure ------------------------------------------------------------------------

BOT_COLORS = {"random": "C1", "cautious": "C2", "bluffer": "C3", "counter": "C4"}


def plot(out: Path) -> None:
    """``curves.png`` from every variant CSV in ``out`` and ``bots.csv``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = {p.stem: read_csv(p) for p in sorted(out.glob("*x*x*.csv"))}
    tables = {k: v for k, v in tables.items() if v}
    if not tables:
        return
    bots = read_csv(out / "bots.csv")
    fig, axes = plt.subplots(1, len(tables), figsize=(5.5 * len(tables), 4.2), squeeze=False)
    for ax, (name, rows) in zip(axes[0], tables.items(), strict=True):
        spec = name.replace("x", ",")
        xs = [float(r["solver_seconds"]) for r in rows]
        ys = [float(r["nash_conv"]) for r in rows]
        ax.plot(xs, ys, "o-", color="C0", label="abstract ES-MCCFR (vitou-ai train)")
        before = read_csv(out / "pruning_on" / f"{name}.csv")  # the default until 2026-12-03
        if before:
            ax.plot([float(r["solver_seconds"]) for r in before],
                    [float(r["nash_conv"]) for r in before], "s:", color="0.5",
                    label="the same with --pruning on (the earlier default)")
        for x, y, r in zip(xs, ys, rows, strict=True):
            ax.annotate(f"{label(float(r['budget']))} s", (x, y), textcoords="offset points",
                        xytext=(4, 4), fontsize=7)
        for b in (r for r in bots if r["variant"] == spec):
            ax.axhline(float(b["nash_conv"]), ls="--", lw=1, color=BOT_COLORS.get(b["policy"], "k"),
                       label=f"{b['policy']} {float(b['nash_conv']):.3g}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("solver seconds (2 threads)")
        ax.set_ylabel("NashConv (points per deal)")
        ax.set_title(f"vitou {spec}, dealer 0: exact NashConv")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    write_atomic(out / "curves.png", buf.getvalue())


# ---- the command -----------------------------------------------------------------------

def positive(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (x > 0 and math.isfinite(x)):
        raise argparse.ArgumentTypeError(f"a budget must be a positive number of seconds, "
                                         f"got {text}")
    return x


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, as refuse()
        refuse(message)


def check(args: argparse.Namespace) -> None:
    """Every input, before any work (the counts below take seconds)."""
    from vitou_ai.capabilities import UnsupportedGameError, require
    from vitou_ai.solvers.public.tree import count_public_tree
    from vitou_ai.training.session import check_writable

    for spec in args.variants:
        params = variant(spec)
        try:
            require("abstract", params)
            require("team_bracket", params)
        except UnsupportedGameError as e:
            refuse(f"variant {spec}: {e}")
        est = max((count_public_tree(params, probes=2000, seed=s) for s in (1, 2)),
                  key=lambda c: c.solver_bytes)
        if est.solver_bytes > args.max_gib * 2**30:
            refuse(f"variant {spec}: about {est.nodes:.2g} public nodes, "
                   f"{est.solver_bytes / 2**30:,.1f} GiB for the tree and its tables "
                   f"(Knuth's estimate), over --max-gib {args.max_gib:g}")
    for folder in (args.out, args.runs):
        try:
            check_writable(Path(folder))
        except OSError as e:
            refuse(str(e))


def main(argv: list[str] | None = None) -> int:
    ap = _Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--variants", nargs="+", default=DEFAULT_VARIANTS,
                    help="RANKS,COPIES,HAND variants of vitou (default: 8,4,2 4,3,3)")
    ap.add_argument("--budgets", nargs="+", type=positive, default=DEFAULT_BUDGETS,
                    help="solver-time budgets in seconds (default: 60 300 900 3600)")
    ap.add_argument("--bracket", action=argparse.BooleanOptionalAction, default=True,
                    help="the team brackets too (default); --no-bracket: NashConv only")
    ap.add_argument("--bots", nargs="*", default=[],
                    help="named bots to evaluate where results/team_exploitability has no "
                         "row of theirs (default: none; reused rows only)")
    ap.add_argument("--max-gib", type=positive, default=10.0,
                    help="largest public tree and tables, GiB by Knuth's estimate (default "
                         "10: 8,4,2's 6.9 GiB took 11 GB at peak)")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_4p_exact"))
    ap.add_argument("--runs", default=str(ROOT / "runs" / "bench_4p_exact"),
                    help="training run folders (default: runs/bench_4p_exact)")
    ap.add_argument("--_evaluate", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--pending", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._evaluate:
        return evaluate_child(args)
    from vitou_ai.bots.named import parse_bot

    for b in args.bots:
        try:
            parse_bot(b)
        except (ValueError, OSError) as e:
            refuse(f"--bots: {e}")
    args.variants = list(dict.fromkeys(args.variants))
    args.budgets = sorted(set(args.budgets))
    check(args)
    out, runs = Path(args.out), Path(args.runs)
    start, started = time.perf_counter(), datetime.now(UTC).isoformat(timespec="seconds")
    record = {"command": " ".join([Path(sys.argv[0]).name, *(sys.argv[1:] if argv is None
                                                            else argv)]),
              "rules_version": RULES_VERSION, "started": started, "load_before": loadavg(),
              "cpus": os.cpu_count(), "bracket": args.bracket, "trained": [], "reused": [],
              "evaluated": [], "skipped": []}
    found = reuse_bot_rows(args.variants, out)
    record["bots_reused"] = found
    for spec in args.variants:
        done = {float(r["budget"]) for r in read_csv(out / f"{tag(spec)}.csv")}
        todo = [b for b in args.budgets if b not in done]
        record["skipped"] += [f"{spec} {label(b)} s (in the CSV)" for b in args.budgets
                              if b in done]
        pending = []
        for budget in todo:
            row = {"variant": spec, "budget": budget, **train(spec, budget, runs)}
            done_by = "reused" if row.pop("reused") else "trained"
            record[done_by].append(f"{spec} {label(budget)} s")
            pending.append(row)
        missing = [b for b in args.bots if b not in found[spec]]
        if not pending and not missing:
            continue
        job = runs / tag(spec) / "pending.json"
        write_atomic(job, json.dumps(pending).encode())
        cmd = [sys.executable, str(Path(__file__).resolve()), "--_evaluate", spec,
               "--pending", str(job), "--out", str(out),
               "--bracket" if args.bracket else "--no-bracket", "--bots", *missing]
        print(f"evaluate {spec}: budgets {' '.join(label(p['budget']) for p in pending) or '-'}"
              f"{', bots ' + ' '.join(missing) if missing else ''}", flush=True)
        code, wall, rss = run_child(cmd, runs / tag(spec) / "evaluate.log")
        with open(runs / tag(spec) / "evaluate.log") as f:
            tail = f.read().splitlines()[-len(pending) - 2:]
        print("\n".join(tail), flush=True)
        record["evaluated"].append({"variant": spec, "budgets": [p["budget"] for p in pending],
                                    "bots": missing, "exit": code, "wall_seconds": round(wall, 1),
                                    "peak_rss_mib": rss})
        plot(out)
        if code != 0:
            print(f"bench_4p_exact: the evaluation of {spec} failed (exit {code}); see "
                  f"{runs / tag(spec) / 'evaluate.log'}", file=sys.stderr)
            break
    plot(out)
    record.update(seconds=round(time.perf_counter() - start, 1), load_after=loadavg(),
                  finished=datetime.now(UTC).isoformat(timespec="seconds"))
    try:
        runs_json = json.loads((out / "run.json").read_text())
        runs_json = runs_json if isinstance(runs_json, list) else []
    except (OSError, ValueError):
        runs_json = []
    write_atomic(out / "run.json", json.dumps(runs_json + [record], indent=1).encode())
    print(f"wrote {out} ({record['seconds']} s)")
    return 1 if any(e["exit"] for e in record["evaluated"]) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # every file written so far is whole (written atomically)
        print("\nbench_4p_exact: interrupted", file=sys.stderr)
        sys.exit(130)
