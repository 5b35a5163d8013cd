"""``vitou-ai train``: train a betting strategy, log its exploitability and win rates.

A run folder holds:

- ``run.json``: the run record (configuration, ``RULES_VERSION``, package
  versions, git commit, seed, command line), rewritten at each evaluation with
  the latest figures;
- ``curve.csv``: one row per evaluation: iteration, wall seconds, nodes touched,
  exploitability (two players) or NashConv and team best-response gains (four
  players) where the exact game tree fits, and per opponent bot the win rate
  (Wilson 95% interval) and points per deal (95% interval) of the trained policy;
- ``curve.png``: the curves;
- ``policy.npz``: the average policy as a tabular bot (``vitou_ai.bots.tabular``
  format, no pickle), usable as ``vitou-ai tournament --bots policy.npz random ...`` (same game
  size options);
- ``checkpoint.npz``: the native solver's state; ``--resume`` continues from it.

Ctrl-C or a kill loses at most one evaluation interval.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .history import write_atomic
from .rules import layout as L
from .rules.params import RULES_VERSION, VitouParams

NATIVE = ("cfr", "cfr+", "dcfr", "es-mccfr", "os-mccfr")
ABSTRACT = "abstract-mccfr"  # four players: vitou_ai.train_abstract
OPENSPIEL = ("openspiel-cfr", "openspiel-cfr+", "openspiel-es-mccfr", "openspiel-os-mccfr")
SOLVERS = NATIVE + OPENSPIEL + (ABSTRACT,)
DEFAULT_BOTS = ("random", "cautious", "bluffer", "counter")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", default="vitou_2p", choices=("vitou", "vitou_cason", "vitou_2p"))
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--copies", type=int, default=4)
    p.add_argument("--hand-size", type=int, default=None,
                   help="cards per hand (default: 3 for four players, 2 for vitou_2p)")
    p.add_argument("--dealer", type=int, default=-1,
                   help="dealer seat; -1 (default): drawn by chance, so the policy covers both")
    p.add_argument("--score0", type=int, default=0)
    p.add_argument("--score1", type=int, default=0)
    p.add_argument("--target", type=int, default=None)
    p.add_argument("--early-end", default="card", choices=("card", "trick"))
    p.add_argument("--signals", action="store_true")
    p.add_argument("--signal-seen", type=float, default=0.5)
    p.add_argument("--solver", default=None, choices=SOLVERS,
                   help="default: abstract-mccfr for four players, dcfr for vitou_2p")
    p.add_argument("--abstraction", default=None,
                   help="abstract-mccfr: knobs, e.g. count=1,trick=exact (docs/abstraction.md)")
    p.add_argument("--threads", type=int, default=2, help="abstract-mccfr: worker threads")
    p.add_argument("--evals", type=int, default=6, help="abstract-mccfr: evaluations in the run")
    p.add_argument("--eval-matches", type=int, default=2000,
                   help="abstract-mccfr: 21-point matches per bot at each evaluation")
    p.add_argument("--lbr-deals", type=int, default=200,
                   help="abstract-mccfr: deals per team for the LBR bound (0: none)")
    p.add_argument("--lbr-samples", type=int, default=12,
                   help="abstract-mccfr: sampled worlds per LBR decision")
    p.add_argument("--iterations", type=int, default=None,
                   help="stop after this many iterations (default 1000; MCCFR: 200000)")
    p.add_argument("--time", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--eval-every", type=int, default=None,
                   help="iterations between evaluations (default: iterations / 10)")
    p.add_argument("--eval-deals", type=int, default=20000,
                   help="deals per opponent bot at each evaluation (duplicate: teams swapped)")
    p.add_argument("--bots", default=",".join(DEFAULT_BOTS))
    p.add_argument("--exact", choices=("auto", "yes", "no"), default="auto",
                   help="exact exploitability/NashConv on the full tree (auto: if it fits)")
    p.add_argument("--max-tree-nodes", type=int, default=30_000_000)
    p.add_argument("--max-infosets", type=int, default=1 << 22,
                   help="MCCFR table capacity (abstract-mccfr: about 100 bytes each)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="run folder (default runs/<profile>-<solver>-<time>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument("--no-progress", action="store_true")


def _params(args) -> VitouParams:
    four = args.profile in ("vitou", "vitou_cason")
    if args.solver is None:
        args.solver = ABSTRACT if four else "dcfr"
    if args.hand_size is None:
        args.hand_size = 3 if four else 2
    return VitouParams(profile=args.profile, ranks=args.ranks, copies=args.copies,
                       hand_size=args.hand_size, dealer=args.dealer,
                       scores=(args.score0, args.score1), target=args.target,
                       early_end=args.early_end, signals=args.signals,
                       signal_seen=args.signal_seen)


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for pkg in ("vitou_ai", "numpy", "numba", "open_spiel", "pandas", "matplotlib", "scipy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _git_commit() -> str | None:
    try:
        r = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                           cwd=Path(__file__).parent, timeout=10)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


# ---- solver adapters ------------------------------------------------------------------------


class _Adapter:
    """One interface over native and OpenSpiel solvers for the training loop."""

    def __init__(self, name: str, params: VitouParams, tree, args):
        self.name, self.params, self.tree = name, params, tree
        self.resumable = name in NATIVE
        if name in ("cfr", "cfr+", "dcfr"):
            from .solvers.cfr import TabularCFR

            self.solver = TabularCFR(tree, name)
        elif name in ("es-mccfr", "os-mccfr"):
            from .solvers.mccfr import MCCFR

            self.solver = MCCFR(params, "external" if name == "es-mccfr" else "outcome",
                                seed=args.seed, max_infosets=args.max_infosets)
        else:
            import pyspiel

            from .openspiel_game import game_string

            self.game = pyspiel.load_game(game_string(params))
            if name == "openspiel-cfr":
                self.solver = pyspiel.CFRSolver(self.game)
            elif name == "openspiel-cfr+":
                self.solver = pyspiel.CFRPlusSolver(self.game)
            elif name == "openspiel-es-mccfr":
                self.solver = pyspiel.ExternalSamplingMCCFRSolver(self.game, args.seed)
            else:
                self.solver = pyspiel.OutcomeSamplingMCCFRSolver(self.game, 0.6, args.seed)
            self.iteration = 0
            self.seconds = 0.0

    def iterate(self, n: int) -> None:
        if self.name in NATIVE:
            self.solver.iterate(n)
            return
        t = time.perf_counter()
        step = getattr(self.solver, "evaluate_and_update_policy", None) or self.solver.run_iteration
        for _ in range(n):
            step()
        self.iteration += n
        self.seconds += time.perf_counter() - t

    @property
    def iterations_done(self) -> int:
        return self.solver.iteration if self.name in NATIVE else self.iteration

    def solver_seconds(self) -> float:
        return self.solver.seconds if self.name in NATIVE else self.seconds

    @property
    def nodes_touched(self) -> int | None:
        return self.solver.nodes_touched if self.name in NATIVE else None

    def policy_on_tree(self) -> np.ndarray:
        """The average policy on the tree's infosets (needs the tree)."""
        if self.name in ("cfr", "cfr+", "dcfr"):
            return self.solver.average_policy()
        if self.name in ("es-mccfr", "os-mccfr"):
            return self.solver.policy_on_tree(self.tree)
        from .solvers.export import from_openspiel_table

        return from_openspiel_table(self.tree, _openspiel_table(self.game, self.solver))

    def tabular_policy(self, name: str):
        """The average policy as a simulator bot (:class:`vitou_ai.bots.tabular.TabularPolicy`)."""
        from .bots.tabular import TabularPolicy

        if self.name in ("es-mccfr", "os-mccfr"):
            s = self.solver
            n = s.num_infosets
            keys, nact, actions, pol = s.keys[:n], s.nact[:n], s.actions[:n], s.average_policy()
        else:
            t = self.tree
            keys, nact, actions, pol = t.is_keys, t.is_nact, t.is_actions, self.policy_on_tree()
        probs = np.zeros((keys.shape[0], L.NUM_ACTIONS), np.float32)
        rows = np.repeat(np.arange(keys.shape[0]), nact.astype(np.int64))
        slots = np.concatenate([np.arange(m) for m in nact]) if len(nact) else np.zeros(0, int)
        probs[rows, actions[rows, slots].astype(np.int64)] = pol[rows, slots]
        return TabularPolicy(keys, probs, name=name, params=self.params)


def _openspiel_table(game, solver) -> dict[str, list[tuple[int, float]]]:
    if hasattr(solver, "tabular_average_policy"):
        return solver.tabular_average_policy().policy_table()
    pol = solver.average_policy()
    table: dict[str, list[tuple[int, float]]] = {}
    stack = [game.new_initial_state()]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            continue
        if s.is_chance_node():
            stack.extend(s.child(a) for a, _ in s.chance_outcomes())
            continue
        key = s.information_state_string()
        if key not in table:
            table[key] = list(pol.get_state_policy(s))
        stack.extend(s.child(a) for a in s.legal_actions())
    return table


# ---- evaluation ----------------------------------------------------------------------------


def _mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    from scipy import stats

    n = len(x)
    m = float(np.mean(x))
    if n < 2:
        return m, math.nan, math.nan
    h = float(stats.t.ppf(0.975, n - 1) * np.std(x, ddof=1) / math.sqrt(n))
    return m, m - h, m + h


def _against_bots(adapter: _Adapter, bots: list[str], args) -> dict[str, Any]:
    from .bots.named import parse_bot
    from .eval.stats import wilson_interval
    from .sim.batch import simulate

    mine = adapter.tabular_policy("trained")
    params = adapter.params
    out: dict[str, Any] = {}
    half = max(1, args.eval_deals // 2)
    for b in bots:
        bot = parse_bot(b)
        lineup = [mine, bot] if params.players == 2 else [mine, bot, mine, bot]
        res = simulate(params, lineup, 2 * half, seed=args.seed + 1, duplicate=True)
        variant = np.asarray(res["variant"])
        my_team = np.where(variant == 0, 0, 1)
        ret = np.where(my_team == 0, res["return0"], res["return1"]).astype(float)
        winner = np.asarray(res["winner"])
        decided = winner >= 0
        wins = int(np.sum(decided & (winner == my_team)))
        n = int(decided.sum())
        lo, hi = wilson_interval(wins, n) if n else (math.nan, math.nan)
        m, mlo, mhi = _mean_ci(ret)
        out[b] = {"win_rate": wins / n if n else math.nan, "win_lo": lo, "win_hi": hi,
                  "points_per_deal": m, "ppd_lo": mlo, "ppd_hi": mhi}
    return out


def _exact(adapter: _Adapter) -> dict[str, float]:
    from .solvers.evaluate import exploitability, nash_conv, team_best_response

    tree = adapter.tree
    pol = adapter.policy_on_tree()
    if tree.num_players == 2:
        return {"exploitability": exploitability(tree, pol)}
    return {"nash_conv": nash_conv(tree, pol),
            "team0_br_gain": team_best_response(tree, pol, 0).gain,
            "team1_br_gain": team_best_response(tree, pol, 1).gain}


def _plot(rows: list[dict[str, Any]], bots: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    it = [r["iteration"] for r in rows]
    for key in ("exploitability", "nash_conv", "team0_br_gain", "team1_br_gain"):
        ys = [r.get(key) for r in rows]
        if any(isinstance(y, float) and y > 0 for y in ys):
            axes[0].plot([r["seconds"] for r in rows], ys, marker="o", label=key)
    axes[0].set_xlabel("solver wall time (s)")
    axes[0].set_ylabel("points per deal")
    axes[0].set_title("exact evaluation")
    if axes[0].lines:
        axes[0].set_yscale("log")
        axes[0].legend()
    else:
        axes[0].text(0.5, 0.5, "no exact evaluation\n(the game tree does not fit)",
                     ha="center", va="center", transform=axes[0].transAxes)
    for b in bots:
        ys = [r.get(f"{b}_ppd") for r in rows]
        lo = [r.get(f"{b}_ppd_lo") for r in rows]
        hi = [r.get(f"{b}_ppd_hi") for r in rows]
        axes[1].plot(it, ys, marker="o", label=f"vs {b}")
        axes[1].fill_between(it, lo, hi, alpha=0.2)
    axes[1].axhline(0, color="grey", lw=0.5)
    axes[1].set_xlabel("iteration")
    axes[1].set_ylabel("points per deal (95% CI)")
    axes[1].set_title("trained policy against bots")
    axes[1].legend()
    fig.suptitle(title)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(path, buf.getvalue())


# ---- the command -------------------------------------------------------------------------


def run(args: argparse.Namespace, out=None) -> int:
    """Run ``vitou-ai train``; returns the exit code (0 done, 2 bad input, 130 interrupted)."""
    out = out or sys.stdout
    try:
        params = _params(args)
    except ValueError as e:
        print(f"vitou-ai train: {e}", file=sys.stderr)
        return 2
    if args.solver == ABSTRACT:
        from . import train_abstract

        return train_abstract.run(args, params, out)
    mccfr = args.solver.endswith("mccfr")

    def bad(msg: str) -> int:
        print(f"vitou-ai train: {msg}", file=sys.stderr)
        return 2

    if args.resume and not args.out:
        return bad("--resume needs --out, the run folder to continue")
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = Path(args.out or f"runs/{params.profile}-{args.solver}-{stamp}")
    if folder.exists() and not folder.is_dir():
        return bad(f"--out {folder}: exists and is not a folder")
    saved: dict[str, Any] = {}
    if args.resume:
        if not (folder / "run.json").exists():
            return bad(f"--resume: no run in {folder}")
        if args.solver in OPENSPIEL:
            return bad("OpenSpiel solvers cannot be checkpointed without pickle; --resume needs "
                       "a native solver")
        try:
            saved = json.loads((folder / "run.json").read_text())
        except (OSError, ValueError) as e:
            return bad(f"--resume: cannot read {folder / 'run.json'}: {e}")
    elif (folder / "run.json").exists():
        return bad(f"{folder} holds a run already: continue it with --resume, or choose "
                   "another --out")
    # on --resume, the run's own length and evaluation interval unless given again
    iterations = args.iterations if args.iterations is not None else saved.get(
        "iterations", 200_000 if mccfr else 1000)
    every = args.eval_every if args.eval_every is not None else saved.get(
        "eval_every", max(1, iterations // 10))
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    from .bots.named import parse_bot

    try:
        for b in bots:
            parse_bot(b)
    except (ValueError, OSError) as e:
        return bad(str(e))
    if not bots:
        return bad("--bots needs at least one bot to evaluate against")
    if iterations < 1 or every < 1 or args.eval_deals < 2:
        return bad("--iterations, --eval-every must be >= 1, --eval-deals >= 2")
    if not 0 <= args.seed < 2**31:
        return bad(f"--seed must be in 0 .. 2**31-1, got {args.seed}")
    if args.max_infosets < 1:
        return bad(f"--max-infosets must be positive, got {args.max_infosets}")
    if args.time is not None and not (args.time > 0 and math.isfinite(args.time)):
        return bad(f"--time must be a positive number of seconds, got {args.time}")

    need_tree = args.solver in ("cfr", "cfr+", "dcfr") or args.solver in OPENSPIEL
    tree = None
    if need_tree or args.exact != "no":
        from .solvers.tree import build_tree

        # with a sampling solver, "auto" only builds trees that are quick to build
        limit = args.max_tree_nodes if need_tree or args.exact == "yes" else min(
            args.max_tree_nodes, 2_000_000)
        try:
            tree = build_tree(params, max_nodes=limit)
        except ValueError as e:
            if need_tree or args.exact == "yes":
                hint = "raise --max-tree-nodes" + ("" if mccfr else ", or use es-mccfr / os-mccfr")
                return bad(f"{e} ({hint})")
            tree = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return bad(f"--out {folder}: {e.strerror}")
    print(f"vitou-ai train: {params.profile} {args.solver}; "
          + (f"tree {tree.num_nodes:,} nodes, {tree.num_infosets:,} infosets; " if tree else
             "no exact evaluation (" + ("--exact no" if args.exact == "no" else
                                        "the tree is too large") + "); ")
          + f"run folder {folder}", file=out, flush=True)
    adapter = _Adapter(args.solver, params, tree, args)
    ckpt = folder / "checkpoint.npz"
    rows: list[dict[str, Any]] = []
    if args.resume:
        from .solvers.cfr import CheckpointError

        try:
            adapter.solver.load(ckpt)
        except CheckpointError as e:
            print(f"vitou-ai train: cannot resume: {e}", file=sys.stderr)
            return 2
        if (folder / "curve.csv").exists():
            with open(folder / "curve.csv") as f:
                rows = [{k: _num(v) for k, v in r.items()} for r in csv.DictReader(f)
                        if str(r.get("iteration") or "").isdigit()
                        and int(r["iteration"]) <= adapter.iterations_done]
        print(f"resumed at iteration {adapter.iterations_done}", file=out, flush=True)
    record = {
        "command": " ".join(sys.argv), "rules_version": RULES_VERSION, "seed": args.seed,
        "solver": args.solver, "params": {**params.knobs(), "profile": params.profile},
        "iterations": iterations, "eval_every": every, "eval_deals": args.eval_deals,
        "bots": bots, "versions": _versions(), "git_commit": _git_commit(),
        "started": saved.get("started", stamp), "tree": ({"nodes": tree.num_nodes, "infosets": tree.num_infosets}
                                   if tree else None),
    }
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=iterations, initial=adapter.iterations_done, unit="it", file=sys.stderr)
    code = 0
    try:
        while adapter.iterations_done < iterations:
            step = min(every, iterations - adapter.iterations_done)
            adapter.iterate(step)
            if bar:
                bar.update(step)
            row = _evaluate(adapter, bots, args)
            rows.append(row)
            _write_outputs(folder, adapter, rows, bots, record, params)
            if bar:
                bar.set_postfix_str(_short(row))
            else:
                print(_short(row), file=out, flush=True)
            if args.time and adapter.solver_seconds() >= args.time:
                break
    except KeyboardInterrupt:
        code = 130
        kept = ("nothing was saved yet" if not rows else
                "the last evaluation's outputs are kept" + (
                    " (with its checkpoint: --resume continues)" if adapter.resumable else ""))
        print(f"\ninterrupted: {kept}", file=sys.stderr)
    except RuntimeError as e:  # TableFullError: the MCCFR table reached --max-infosets
        code = 2
        print(f"\nvitou-ai train: {e} (the last evaluation's checkpoint and outputs are kept)",
              file=sys.stderr)
    finally:
        if bar:
            bar.close()
    if code == 0:
        print(f"done: {adapter.iterations_done} iterations; " + (_short(rows[-1]) if rows else "")
              + f"\nrun folder: {folder}", file=out)
    return code


def _short(row: dict[str, Any]) -> str:
    parts = [f"it {row['iteration']}"]
    for k in ("exploitability", "nash_conv"):
        if isinstance(row.get(k), float):
            parts.append(f"{k} {row[k]:.5f}")
    for k, v in row.items():
        if k.endswith("_ppd") and not k.endswith("_lo") and isinstance(v, float):
            parts.append(f"vs {k[:-4]} {v:+.3f}")
    return ", ".join(parts)


def _num(v: str) -> Any:
    try:
        f = float(v)
    except ValueError:
        return v
    return int(f) if f.is_integer() and "." not in v and "e" not in v else f


def _evaluate(adapter: _Adapter, bots: list[str], args) -> dict[str, Any]:
    row: dict[str, Any] = {"iteration": adapter.iterations_done,
                           "seconds": round(adapter.solver_seconds(), 3),
                           "nodes_touched": adapter.nodes_touched}
    if adapter.tree is not None:
        row.update(_exact(adapter))
    for b, r in _against_bots(adapter, bots, args).items():
        row[f"{b}_win"] = r["win_rate"]
        row[f"{b}_win_lo"] = r["win_lo"]
        row[f"{b}_win_hi"] = r["win_hi"]
        row[f"{b}_ppd"] = r["points_per_deal"]
        row[f"{b}_ppd_lo"] = r["ppd_lo"]
        row[f"{b}_ppd_hi"] = r["ppd_hi"]
    return row


def _write_outputs(folder: Path, adapter: _Adapter, rows, bots, record, params) -> None:
    if adapter.resumable:
        adapter.solver.save(folder / "checkpoint.npz")
    adapter.tabular_policy(f"{params.profile}-{adapter.name}").save(folder / "policy.npz")
    cols = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
    write_atomic(folder / "curve.csv", buf.getvalue().encode())
    rec = dict(record, latest=rows[-1], iterations_done=adapter.iterations_done)
    write_atomic(folder / "run.json", (json.dumps(rec, indent=2, default=str) + "\n").encode())
    _plot(rows, bots, folder / "curve.png", f"{params.profile} — {adapter.name}")
