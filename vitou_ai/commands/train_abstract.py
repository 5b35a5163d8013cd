"""``vitou-ai train --profile vitou``: the four-player strategy, trained by
abstract ES-MCCFR (:mod:`vitou_ai.solvers.sampling.mccfr_abstract`) on the information
abstraction of :mod:`vitou_ai.abstraction`, on a wall-time budget.

The run folder is the one ``vitou-ai train`` writes (:mod:`vitou_ai.commands.train`):

- ``curve.csv``, one row per evaluation: iteration, solver seconds, abstract
  information states, nodes touched, the LBR lower bound on exploitability
  (:mod:`vitou_ai.eval.lbr`) with its 95% interval, and per opponent bot the
  duplicate deal-mode points per deal (95% interval, duplicate pairs as units)
  and the match win rate at the game's target (95% Wilson interval; 21-point
  matches for ``vitou``, 12-point for Catalan, two 12-point games for 1912,
  five truts for Trut: :func:`match_label`);
- ``curve.png``; ``run.json`` (configuration, versions, commit, command, the
  latest row and the LBR of every opponent bot);
- ``policy.npz``: the average policy (:class:`~vitou_ai.bots.abstract.AbstractPolicy`),
  a bot for ``vitou-ai tournament`` / ``vitou-ai play`` (falls back on
  ``counter`` at unseen abstract states);
- ``checkpoint.npz``: ``--resume --out FOLDER`` continues the run.
"""

from __future__ import annotations

import io
import json
import math
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..abstraction.config import GESTURES, AbstractionConfig
from ..io import write_atomic
from ..resources import check_memory, check_seconds
from ..rules.params import RULES_VERSION, VitouParams
from .console import check_simulation_memory, check_writable, claim_run_folder, seed_error

DEFAULT_TIME = 3000.0  # seconds of solver time when neither --time nor --iterations is given


#: bytes of memory LBR holds per sampled world in each deal being played at once (one per
#: numba thread; :func:`vitou_ai.eval.lbr.lbr_deal`'s value rows and weights)
LBR_SAMPLE_BYTES = 8 * 31 + 16
#: bytes LBR keeps per deal (both teams' return and status)
LBR_DEAL_BYTES = 32


def lbr_bytes(deals: int, samples: int) -> float:
    """About the memory LBR of ``deals`` deals with ``samples`` worlds per decision
    takes: its results per deal, and the worlds of the deals played at once (one per
    core)."""
    import os

    return (float(deals) * LBR_DEAL_BYTES
            + float(samples) * LBR_SAMPLE_BYTES * (os.cpu_count() or 1))


def max_threads() -> int:
    """The largest ``--threads``: the machine's cores (at least 2, the default). More
    workers than cores only make every chunk of iterations longer (each chunk is
    rounded up to a multiple of the workers), so a time budget is overrun."""
    import os

    return max(2, os.cpu_count() or 1)


def parse_abstraction(text: str | None) -> AbstractionConfig:
    """``"count=2,trick=exact"`` -> :class:`AbstractionConfig` (empty: the defaults).

    ``gestures`` takes a mode (``off``, ``all``, ``team``, ``partner``); ``on``
    means ``all``.

    Raises:
        ValueError: an unknown knob or a bad value, naming it.
    """
    if not text:
        return AbstractionConfig()
    changes: dict[str, Any] = {}
    fields = AbstractionConfig.__dataclass_fields__
    for item in text.split(","):
        k, eq, v = item.partition("=")
        k = k.strip()
        if not eq or k not in fields:
            raise ValueError(f"--abstraction: expected knob=value with knob in "
                             f"{', '.join(fields)}, got {item!r}")
        v = v.strip()
        if k in changes:
            raise ValueError(f"--abstraction: knob {k} given twice ({text!r})")
        if k == "gestures" and v.lower() in GESTURES:
            changes[k] = v.lower()
        elif k in ("scores", "partner", "gestures"):
            if v.lower() not in ("on", "off", "true", "false", "1", "0"):
                allowed = (f"one of {', '.join(GESTURES)} (on: all)" if k == "gestures"
                           else "on or off")
                raise ValueError(f"--abstraction: {k} must be {allowed}, got {v!r}")
            changes[k] = v.lower() in ("on", "true", "1")
        elif k == "count":
            try:
                changes[k] = int(v)
            except ValueError:
                raise ValueError(f"--abstraction: count must be an integer, got {v!r}") from None
        else:
            changes[k] = v
    return AbstractionConfig(**changes)


def schedule(budget: float | None, pruning: str = "off", discount_intervals: int = 20
             ) -> dict[str, float]:
    """:class:`~vitou_ai.solvers.sampling.mccfr_abstract.AbstractMCCFR`'s schedule keywords for a
    ``--time`` budget in solver seconds (``None``: an ``--iterations`` run): regret-based
    pruning (``pruning="on"``) after 10% of the budget (60 s without one; Pluribus, Brown &
    Sandholm 2019), linear-CFR discounting at intervals of ``budget / 40`` (30 s without
    one) for the first ``discount_intervals`` of them (Brown & Sandholm 2019, LCFR)."""
    return {"prune_after": (0.1 * budget if budget else 60.0) if pruning == "on" else math.inf,
            "discount_interval": budget / 40 if budget else 30.0,
            "discount_intervals": discount_intervals}


def match_label(params: VitouParams) -> str:
    """The matches the evaluation plays, from the game: ``"21-point matches"`` (vitou),
    ``"12-point matches"`` (truc_catalan, C3.1), ``"matches of 2 12-point games"``
    (truc_1912, F4.1), ``"matches of 5 truts"`` (trut, T2.1)."""
    games = params.games or 1
    if params.profile == "trut":
        return f"matches of {games} truts"
    if games > 1:
        return f"matches of {games} {params.target}-point games"
    return f"{params.target}-point matches"


def evaluate_policy(policy, params: VitouParams, bots: list[str], deals: int, matches: int,
                    seed: int) -> dict[str, Any]:
    """Duplicate deal-mode points per deal and the match win rate against each bot, the
    matches at the game's target (:func:`match_label`).

    Returns keys ``{bot}_ppd``, ``_ppd_lo``, ``_ppd_hi`` (the policy's team's
    return per deal, R8.1, pairs of duplicate deals as units) and ``{bot}_match_win``,
    ``_match_lo``, ``_match_hi`` (decisive matches, Wilson 95%)."""
    from ..bots.named import parse_bot
    from ..eval.stats import ratio_interval, wilson_interval
    from ..sim.batch import simulate

    row: dict[str, Any] = {}
    dp = params.replace(dealer=-1, mode="deal")
    mp = params.replace(dealer=-1, mode="match", scores=(0, 0))
    for b in bots:
        bot = parse_bot(b)
        lineup = [policy, bot] * (params.players // 2)
        if deals:
            res = simulate(dp, lineup, deals + deals % 2, seed=seed, duplicate=True,
                           rotate_dealer=True, allow_fallback=True)
            v = np.asarray(res["variant"])
            ret = np.where(v == 0, res["return0"], res["return1"]).astype(float)
            pair = ret.reshape(-1, 2).sum(1)
            m, lo, hi = ratio_interval(pair, np.full(len(pair), 2.0))
            row.update({f"{b}_ppd": m, f"{b}_ppd_lo": lo, f"{b}_ppd_hi": hi})
        if matches and getattr(policy, "domain", None) is not None and \
                policy.domain.missing(mp):  # scores in the key, trained at one: no match
            row.update({f"{b}_match_win": math.nan, f"{b}_match_lo": math.nan,
                        f"{b}_match_hi": math.nan})
        elif matches:
            res = simulate(mp, lineup, matches + matches % 2, seed=seed + 1, duplicate=True,
                           rotate_dealer=True, allow_fallback=True)
            v = np.asarray(res["variant"])
            w = np.asarray(res["winner"])
            wins = int(((w >= 0) & (w == v)).sum())
            decided = int((w >= 0).sum())
            lo, hi = wilson_interval(wins, decided)
            row.update({f"{b}_match_win": wins / decided if decided else math.nan,
                        f"{b}_match_lo": lo, f"{b}_match_hi": hi})
    return row


def _plot(rows: list[dict[str, Any]], bots: list[str], lbr_bots: dict[str, Any], path: Path,
          title: str, matches: str = "21-point matches") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
    t = [r["seconds"] / 60 for r in rows]
    ax = axes[0]
    lrows = [r for r in rows if isinstance(r.get("lbr"), float)]
    if lrows:
        ax.errorbar([r["seconds"] / 60 for r in lrows], [r["lbr"] for r in lrows],
                    yerr=[[r["lbr"] - r["lbr_lo"] for r in lrows],
                          [r["lbr_hi"] - r["lbr"] for r in lrows]],
                    marker="o", color="black", label="trained policy")
    for k, (b, v) in enumerate(lbr_bots.items()):
        ax.axhline(v["value"], ls="--", color=f"C{k}", label=f"{b}")
    ax.set_xlabel("solver minutes")
    ax.set_ylabel("LBR value (points per deal)")
    ax.set_title("local best response (lower bound on exploitability)")
    if ax.lines:
        ax.legend(fontsize=8)
    for k, b in enumerate(bots):
        if f"{b}_ppd" in rows[0]:
            axes[1].errorbar(t, [r[f"{b}_ppd"] for r in rows],
                             yerr=[[r[f"{b}_ppd"] - r[f"{b}_ppd_lo"] for r in rows],
                                   [r[f"{b}_ppd_hi"] - r[f"{b}_ppd"] for r in rows]],
                             marker="o", color=f"C{k}", label=f"vs {b}")
        if f"{b}_match_win" in rows[0]:
            axes[2].errorbar(t, [r[f"{b}_match_win"] for r in rows],
                             yerr=[[r[f"{b}_match_win"] - r[f"{b}_match_lo"] for r in rows],
                                   [r[f"{b}_match_hi"] - r[f"{b}_match_win"] for r in rows]],
                             marker="o", color=f"C{k}", label=f"vs {b}")
    axes[1].axhline(0, color="grey", lw=0.6)
    axes[1].set_xlabel("solver minutes")
    axes[1].set_ylabel("points per deal (95% CI)")
    axes[1].set_title("duplicate deals, deal mode at 0:0")
    for ax in axes[1:]:  # no labelled curve (--eval-matches 0): no legend, no warning
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    axes[2].axhline(0.5, color="grey", lw=0.6)
    axes[2].set_xlabel("solver minutes")
    axes[2].set_ylabel("match win rate (95% Wilson)")
    axes[2].set_title(f"{matches}, duplicate" if axes[2].get_legend_handles_labels()[0]
                      else "no matches (--eval-matches 0)")
    fig.suptitle(title)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(path, buf.getvalue())


def run(args, params: VitouParams, out=None) -> int:
    """Run the abstract trainer for ``vitou-ai train`` (already-parsed ``args``, with
    :data:`vitou_ai.commands.train.ABSTRACT_OPTIONS` filled in); returns the exit code (0 done, 2
    bad input or table full, 130 interrupted)."""
    from ..solvers.flat.cfr import CheckpointError
    from ..solvers.sampling.mccfr import TableFullError
    from ..solvers.sampling.mccfr_abstract import AbstractMCCFR
    from ..training.runfolder import (
        curve_rows,
        git_commit,
        outputs_agree,
        package_versions,
        reconcile_note,
    )
    from .console import interrupted_line, interrupts_deferred

    out = out or sys.stdout

    def bad(msg: str) -> int:
        print(f"vitou-ai train: {msg}", file=sys.stderr)
        return 2

    from ..capabilities import UnsupportedGameError, require

    try:
        require("abstract", params)  # before any work (partnership Put: refused, P6)
    except UnsupportedGameError as e:
        return bad(str(e))
    try:
        abstraction = parse_abstraction(getattr(args, "abstraction", None))
        abstraction.check_game(params)
    except ValueError as e:
        return bad(str(e))
    if params.players != 4:
        return bad(f"the abstract trainer is for four players ({params.profile} has "
                   f"{params.players}): --profile vitou, vitou_cason, truc_catalan, truc_1912 "
                   "or trut")
    budget = args.time if args.time is not None else (None if args.iterations else DEFAULT_TIME)
    if budget is not None:
        try:
            check_seconds(budget, "--time")
        except (TypeError, ValueError) as e:
            return bad(str(e))
    from ..eval.lbr import MIN_SAMPLES  # fewer worlds: the deviation tests' noise passes for gain

    for flag, value, low in (("--threads", args.threads, 1),
                             ("--evals", args.evals, 1),
                             ("--eval-deals", args.eval_deals, 2),
                             ("--eval-matches", args.eval_matches, 0),
                             ("--lbr-samples", args.lbr_samples, MIN_SAMPLES),
                             ("--max-infosets", args.max_infosets, 1),
                             ("--iterations", 1 if args.iterations is None else args.iterations,
                              1)):
        if value < low:
            return bad(f"{flag} must be at least {low}, got {value}")
    if args.threads > max_threads():  # 100000 threads: each chunk ran 100000 iterations
        return bad(f"--threads must be in 1 .. {max_threads()} (this machine's cores, or 2 "
                   f"on a one-core machine), got {args.threads}")
    if getattr(args, "exact", None) == "yes":
        return bad("--exact yes: the abstract trainer has no exact evaluation (it builds no "
                   "game tree; the four-player trees do not fit): leave --exact out, or use "
                   "--solver dcfr on a small variant")
    if args.iterations is not None:
        # the workers run the same number of iterations each (AbstractMCCFR.iterate)
        if args.iterations % args.threads:
            lo = args.iterations - args.iterations % args.threads
            return bad(f"--iterations {args.iterations} is not a multiple of --threads "
                       f"{args.threads} (each worker runs the same number of iterations): "
                       f"use {max(lo, args.threads)} or {lo + args.threads}")
        if args.evals > args.iterations // args.threads:
            return bad(f"--evals {args.evals} is more than the {args.iterations // args.threads} "
                       f"evaluation points of --iterations {args.iterations} with --threads "
                       f"{args.threads}")
    lbr_deals = args.lbr_deals
    if lbr_deals != 0 and lbr_deals < 2:
        return bad(f"--lbr-deals must be 0 (no LBR) or at least 2, got {lbr_deals}")
    if seed_error(args.seed):
        return bad(seed_error(args.seed))
    try:  # the memory the counts allocate, before the run folder is made
        from ..solvers.sampling.mccfr_abstract import table_bytes

        check_memory(table_bytes(params, args.max_infosets),
                     f"--max-infosets {args.max_infosets:,}",
                     "lower it (the table is allocated whole)")
        check_simulation_memory(args.eval_deals, f"--eval-deals {args.eval_deals:,}")
        check_simulation_memory(args.eval_matches, f"--eval-matches {args.eval_matches:,}")
        check_memory(lbr_bytes(lbr_deals, args.lbr_samples),
                     f"--lbr-deals {lbr_deals:,} with --lbr-samples {args.lbr_samples:,}",
                     "give fewer")
    except ValueError as e:
        return bad(str(e))
    evals = int(args.evals)
    bots = list(args.bots) if not isinstance(args.bots, str) else [
        b.strip() for b in args.bots.split(",") if b.strip()]
    from ..bots.named import check_bot_fits, parse_bot

    try:
        for b in bots:  # a policy of another game is refused as tournament and play do
            check_bot_fits(parse_bot(b), params.replace(dealer=-1))
    except (ValueError, OSError) as e:
        return bad(f"--bots: {e}")
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = Path(args.out or f"runs/{params.profile}-abstract-mccfr-{stamp}")
    try:
        check_writable(folder)
    except OSError as e:
        return bad(str(e))
    saved: dict[str, Any] = {}
    if args.resume:
        if not (folder / "run.json").exists():
            return bad(f"--resume: no run in {folder}")
        try:
            saved = json.loads((folder / "run.json").read_text())
        except (OSError, ValueError) as e:
            return bad(f"--resume: cannot read {folder / 'run.json'}: {e}")
        if not isinstance(saved, dict):
            return bad(f"--resume: {folder / 'run.json'} is not a run record")
        budget = args.time if args.time is not None else saved.get("time_budget", budget)
        was = saved.get("pruning", "on" if saved.get("prune_after") is not None else "off")
        if args.pruning != was:
            return bad(f"--resume: --pruning {args.pruning} contradicts the run's ({was}, "
                       f"{folder / 'run.json'})")
    elif (folder / "run.json").exists():
        return bad(f"{folder} holds a run already: continue it with --resume, or choose another --out")
    budget = float(budget) if budget is not None else None
    iterations = args.iterations
    start: int | None = None
    if args.resume:
        if iterations is None and budget is None:  # an --iterations run: its own length
            iterations = saved.get("iterations")
        try:
            start, why = _resume_point(folder, saved, budget, iterations)
        except ValueError as e:
            return bad(str(e))
        if why:
            return bad(why)
    created = not folder.exists()
    command = "vitou-ai " + " ".join(getattr(args, "argv", None) or sys.argv[1:])
    claim_run_folder(folder, "train", command, made=created)  # one writer (vitou_ai.io.RunLock)
    solver = AbstractMCCFR(
        params, abstraction, seed=args.seed, max_infosets=args.max_infosets,
        threads=args.threads, **schedule(budget, args.pruning))
    rows: list[dict[str, Any]] = []
    if args.resume and start is None:
        print(f"resumed {folder}: it was stopped before its first checkpoint; starting again "
              "from iteration 0", file=out, flush=True)
    elif args.resume:
        try:
            solver.load(folder / "checkpoint.npz")
        except CheckpointError as e:
            return bad(f"cannot resume: {e}")
        rows = [r for r in curve_rows(folder) if r["iteration"] <= solver.iteration]
        print(f"resumed from {folder / 'checkpoint.npz'} at iteration {solver.iteration:,} "
              f"({solver.seconds:.0f} s)", file=out, flush=True)
    record = {
        "command": saved.get("command", command) if args.resume else command,
        "rules_version": RULES_VERSION, "seed": args.seed,
        "solver": "abstract-es-mccfr", "params": {**params.knobs(), "profile": params.profile},
        "abstraction": abstraction.describe(), "time_budget": budget, "iterations": iterations,
        "threads": solver.threads, "max_infosets": solver.max_infosets,
        "table_bytes": solver.nbytes, "pruning": args.pruning,
        "prune_after": solver.prune_after if math.isfinite(solver.prune_after) else None,
        "prune_prob": solver.prune_prob, "prune_threshold": solver.prune_threshold,
        "discount_interval": solver.discount_interval,
        "discount_intervals": solver.discount_intervals, "evals": evals,
        "eval_deals": args.eval_deals, "eval_matches": args.eval_matches,
        "eval_match_kind": match_label(params),
        "lbr_deals": args.lbr_deals, "lbr_samples": args.lbr_samples,
        "bots": bots, "versions": package_versions(), "git_commit": git_commit(),
        "started": saved.get("started", stamp), "lbr_bots": saved.get("lbr_bots", {}),
    }
    if args.resume:  # each resume's command, as the flat-tree runs record them
        record["resumes"] = [*saved.get("resumes", []), command]
    print(f"vitou-ai train: {params.profile} (hand size {params.hand_size}, signals "
          f"{'on' if params.signals else 'off'}), abstract ES-MCCFR, {solver.threads} threads, "
          f"table {solver.nbytes / 2**30:.2f} GiB for {solver.max_infosets:,} states; budget "
          + (f"{budget:.0f} s" if budget else f"{iterations:,} iterations")
          + f"; run folder {folder}", file=out, flush=True)

    def done() -> bool:
        if budget is not None and solver.seconds >= budget:
            return True
        return iterations is not None and solver.iteration >= iterations

    def next_eval() -> float:
        k = len(rows) + 1
        if budget is not None:
            return budget * k / evals
        # an iteration count: the k-th of ``evals`` evenly spaced points, on a whole
        # round of the workers, so that the run stops at exactly ``iterations``
        w = solver.threads
        return w * max(1, round(iterations // w * k / evals))

    code = 0
    chunk, per_iteration = 2000, 0.0
    solver.warm_up()
    try:
        if args.resume and start is not None and not outputs_agree(folder, saved,
                                                                   solver.iteration):
            # a kill during an evaluation: the checkpoint is the newest complete state
            print("vitou-ai train: resume: "
                  + reconcile_note(saved, curve_rows(folder), solver.iteration),
                  file=sys.stderr, flush=True)
            if not rows or rows[-1]["iteration"] != solver.iteration:
                rows.append(_evaluate(solver, params, bots, args, record))
            with interrupts_deferred():
                _write(folder, solver, rows, bots, record, params, checkpoint=False)
        if not record["lbr_bots"] and record["lbr_deals"]:
            from ..eval.lbr import local_best_response

            t = time.perf_counter()
            for b in bots:
                r = local_best_response(parse_bot(b), params.replace(dealer=-1),
                                        deals=record["lbr_deals"], samples=record["lbr_samples"],
                                        seed=args.seed + 7)
                record["lbr_bots"][b] = {"value": r.value, "lo": r.lo, "hi": r.hi,
                                         "deals": r.deals, "samples": r.samples}
                print(f"LBR of {b}: {r.value:+.3f} {r.interval()} points per deal",
                      file=out, flush=True)
            record["lbr_bots_seconds"] = round(time.perf_counter() - t, 1)
        while not done():
            target = next_eval()
            # at least one chunk between two evaluations: a chunk longer than the spacing
            # of the evaluations evaluated the same iterate twice
            while not done() and ((solver.seconds if budget else solver.iteration) < target
                                  or (rows and rows[-1]["iteration"] == solver.iteration)):
                n = chunk  # never past the end, nor past the next evaluation point
                if iterations is not None:
                    n = min(n, iterations - solver.iteration)
                if budget is None and int(target) > solver.iteration:
                    n = min(n, int(target) - solver.iteration)
                if budget is not None and per_iteration > 0:
                    # no more than the time left to the evaluation or the budget holds at
                    # the last chunk's rate: a stop overshoots by little, not by a chunk
                    left = min(target, budget) - solver.seconds
                    n = max(1, min(n, int(left / per_iteration)))
                t, before, it0 = time.perf_counter(), solver.seconds, solver.iteration
                solver.iterate(n)
                dt = time.perf_counter() - t
                per_iteration = (max(solver.seconds - before, 0.0)
                                 / max(1, solver.iteration - it0))
                chunk = int(min(max(chunk * (5.0 / max(dt, 1e-3)) ** 0.5, 200), 2_000_000))
            row = _evaluate(solver, params, bots, args, record)
            rows.append(row)
            with interrupts_deferred():  # the checkpoint and its outputs, whole
                _write(folder, solver, rows, bots, record, params)
            print(_short(row), file=out, flush=True)
    except KeyboardInterrupt:
        code = 130
        kept = ("the last evaluation's outputs are kept (with its checkpoint: --resume "
                "continues)" if rows else "nothing was saved yet")
        if not rows and created and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # no empty run folder left behind
        print("\n" + interrupted_line("vitou-ai train", kept), file=sys.stderr, flush=True)
    except TableFullError as e:
        code = 2
        kept = ("the last evaluation's checkpoint and outputs are kept" if rows
                else "no evaluation was reached, nothing was saved")
        print(f"\nvitou-ai train: {e} ({kept})", file=sys.stderr)
    if code == 0:
        print(f"done: {solver.iteration:,} iterations in {solver.seconds:.0f} s; run folder: "
              f"{folder}", file=out)
    return code


def _evaluate(solver, params: VitouParams, bots, args, record) -> dict[str, Any]:
    from ..bots.named import NAMED_BOTS
    from ..eval.lbr import local_best_response

    t = time.perf_counter()
    policy = solver.policy(f"{params.profile}-abstract")
    policy.fallback = NAMED_BOTS["counter"]
    row: dict[str, Any] = {"iteration": solver.iteration, "seconds": round(solver.seconds, 1),
                           "infosets": solver.num_infosets, "policy_rows": len(policy),
                           "nodes_touched": solver.nodes_touched}
    if record["lbr_deals"]:
        r = local_best_response(policy, params.replace(dealer=-1), deals=record["lbr_deals"],
                                samples=record["lbr_samples"], seed=args.seed + 7)
        row.update({"lbr": r.value, "lbr_lo": r.lo, "lbr_hi": r.hi})
    row.update(evaluate_policy(policy, params, bots, args.eval_deals, record["eval_matches"],
                               args.seed + 1))
    row["eval_seconds"] = round(time.perf_counter() - t, 1)
    return row


def _short(row: dict[str, Any]) -> str:
    parts = [f"it {row['iteration']:,}", f"{row['seconds']:.0f} s", f"{row['infosets']:,} states"]
    if "lbr" in row:
        parts.append(f"LBR {row['lbr']:+.3f}")
    for k, v in row.items():
        if k.endswith("_ppd"):
            parts.append(f"vs {k[:-4]} {v:+.3f}")
        if k.endswith("_match_win"):
            parts.append(f"match {v:.3f}")
    return ", ".join(parts)


def _resume_point(folder: Path, saved: dict[str, Any], budget: float | None,
                  iterations: int | None) -> tuple[int | None, str | None]:
    """The checkpoint's iteration, read and checked whole before the tables are made
    (``None``: stopped before its first checkpoint), and why there is nothing to run,
    if so (``--iterations`` or ``--time`` reached, the outputs already its own).

    Raises:
        ValueError: a damaged or missing checkpoint, ``--iterations`` below it.
    """
    from ..training.runfolder import checkpoint_head, outputs_agree

    ck = folder / "checkpoint.npz"
    if not ck.exists() and "iterations_done" not in saved:
        return None, None
    try:
        head = checkpoint_head(ck)
    except ValueError as e:
        raise ValueError(f"cannot resume: {e}") from None
    start, seconds = head["iteration"], float(head.get("seconds", 0.0))
    if iterations is not None and iterations < start:
        raise ValueError(f"--iterations {iterations} is below the {start:,} iterations the "
                         f"run has done ({ck}): give more to continue it")
    reached = ((budget is not None and seconds >= budget)
               or (iterations is not None and start >= iterations))
    if reached and outputs_agree(folder, saved, start):
        what = (f"--time {budget:g} (its {seconds:.0f} s of solver time)" if budget is not None
                and seconds >= budget else f"--iterations {iterations}")
        return start, (f"{ck} is at iteration {start:,}: {what} leaves nothing to run; give "
                       "more to continue it")
    return start, None


def _write(folder: Path, solver, rows, bots, record, params, checkpoint: bool = True) -> None:
    """An evaluation's files, in the order of :mod:`vitou_ai.commands.runs` (``run.json``
    marked ``writing``, the policy, the curve and its plot, the checkpoint, ``run.json``)."""
    from ..training.runfolder import mark_writing, write_curve, write_record

    try:
        before = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError):
        before = None
    mark_writing(folder, before if isinstance(before, dict) else record, solver.iteration)
    solver.policy(f"{params.profile}-abstract").save(folder / "policy.npz")
    write_curve(folder, rows)
    _plot(rows, bots, record["lbr_bots"], folder / "curve.png", _title(params, record),
          match_label(params))
    if checkpoint:
        solver.save(folder / "checkpoint.npz")
    write_record(folder, dict(record, latest=rows[-1], iterations_done=solver.iteration,
                               solver_seconds=solver.seconds, infosets=solver.num_infosets))


def _title(params: VitouParams, record: dict[str, Any]) -> str:
    signals = ""
    if params.signals:
        mode = AbstractionConfig(**record["abstraction"]).gesture_mode(True)
        signals = f", signals (key: gestures={mode})"
    return f"{params.profile}, {params.hand_size}-card hands{signals} — abstract ES-MCCFR"
