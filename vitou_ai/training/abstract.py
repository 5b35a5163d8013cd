"""The four-player trainer (``vitou-ai train --profile vitou``): abstract ES-MCCFR
(:mod:`vitou_ai.solvers.sampling.mccfr_abstract`) on the information abstraction of
:mod:`vitou_ai.abstraction`, on a wall-time budget, behind the same library interface as
the points trainer (:func:`train_abstract` takes :class:`~vitou_ai.training.settings.
AbstractSettings`, raises :class:`~vitou_ai.training.settings.TrainingError`, returns a
:class:`~vitou_ai.training.points.TrainingResult`). It is a trainer of its own, not a
:class:`~vitou_ai.solvers.protocol.Solver` of the points trainer: its evaluation is LBR
and matches (no exact tree), its schedule is in solver seconds and its workers run in
rounds of ``threads`` iterations.

The run folder has the files of :mod:`vitou_ai.training.points`:

- ``curve.csv``, one row per evaluation: iteration, solver seconds, abstract
  information states, nodes touched, the LBR lower bound on exploitability
  (:mod:`vitou_ai.eval.lbr`) with its 95% interval, and per opponent bot the
  duplicate deal-mode points per deal (95% interval, duplicate pairs as units)
  and the match win rate at the game's target (95% Wilson interval; 21-point
  matches for ``vitou``, 12-point for Catalan, two 12-point games for 1912,
  five truts for Trut: :func:`~vitou_ai.training.evaluation.match_label`);
- ``curve.png``; ``run.json`` (configuration, versions, commit, command, the
  latest row and the LBR of every opponent bot);
- ``policy.npz``: the average policy (:class:`~vitou_ai.bots.abstract.AbstractPolicy`),
  a bot for ``vitou-ai tournament`` / ``vitou-ai play`` (falls back on
  ``counter`` at unseen abstract states);
- ``checkpoint.npz``: a resume (``--resume --out FOLDER``) continues the run.
"""

from __future__ import annotations

import json
import math
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..abstraction.config import GESTURES, AbstractionConfig
from ..resources import check_memory, check_seconds
from ..rules.params import RULES_VERSION, VitouParams
from .evaluation import evaluate_policy, match_label, plot_abstract
from .runfolder import (
    checkpoint_head,
    curve_rows,
    git_commit,
    mark_writing,
    outputs_agree,
    package_versions,
    reconcile_note,
    write_curve,
    write_record,
)
from .session import (
    check_simulation_memory,
    check_writable,
    claim_run_folder,
    run_locks,
    seed_error,
)
from .settings import AbstractSettings, TrainingError, TrainingInterrupted

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


def train_abstract(settings: AbstractSettings, out=None):
    """Train the four-player abstract policy (:class:`AbstractSettings`): check the
    settings (and, with ``resume``, the run folder and its checkpoint) before any work,
    take the run folder's lock, then iterate, evaluate ``evals`` times and write the run
    folder. Progress lines go to ``out`` (default: stdout).

    Returns:
        A :class:`~vitou_ai.training.points.TrainingResult`.

    Raises:
        TrainingError: one line, before any work, nothing left behind; or during the run
            (the table reached ``max_infosets``), the last evaluation's files kept.
        TrainingInterrupted: Ctrl-C; the last evaluation's files kept.
    """
    with run_locks():  # the folder's lock is released when the run ends
        return _train(settings, out)


def _train(settings: AbstractSettings, out):
    from .points import TrainingResult

    args, params = settings, settings.params  # the settings, named as the flags they hold
    from ..solvers.flat.cfr import CheckpointError
    from ..solvers.sampling.mccfr import TableFullError
    from ..solvers.sampling.mccfr_abstract import AbstractMCCFR
    from .session import interrupts_deferred

    out = out or sys.stdout

    from ..capabilities import UnsupportedGameError, require

    try:
        require("abstract", params)  # before any work (partnership Put: refused, P6)
    except UnsupportedGameError as e:
        raise TrainingError(str(e)) from None
    try:
        abstraction = parse_abstraction(args.abstraction)
        abstraction.check_game(params)
    except ValueError as e:
        raise TrainingError(str(e)) from None
    if params.players != 4:
        raise TrainingError(f"the abstract trainer is for four players ({params.profile} has "
                            f"{params.players}): --profile vitou, vitou_cason, truc_catalan, truc_1912 "
                            "or trut") from None
    budget = args.time if args.time is not None else (None if args.iterations else DEFAULT_TIME)
    if budget is not None:
        try:
            check_seconds(budget, "--time")
        except (TypeError, ValueError) as e:
            raise TrainingError(str(e)) from None
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
            raise TrainingError(f"{flag} must be at least {low}, got {value}") from None
    if args.threads > max_threads():  # 100000 threads: each chunk ran 100000 iterations
        raise TrainingError(f"--threads must be in 1 .. {max_threads()} (this machine's cores, or 2 "
                            f"on a one-core machine), got {args.threads}") from None
    if args.exact == "yes":
        raise TrainingError("--exact yes: the abstract trainer has no exact evaluation (it builds no "
                            "game tree; the four-player trees do not fit): leave --exact out, or use "
                            "--solver dcfr on a small variant") from None
    if args.iterations is not None:
        # the workers run the same number of iterations each (AbstractMCCFR.iterate)
        if args.iterations % args.threads:
            lo = args.iterations - args.iterations % args.threads
            raise TrainingError(f"--iterations {args.iterations} is not a multiple of --threads "
                                f"{args.threads} (each worker runs the same number of iterations): "
                                f"use {max(lo, args.threads)} or {lo + args.threads}") from None
        if args.evals > args.iterations // args.threads:
            raise TrainingError(f"--evals {args.evals} is more than the {args.iterations // args.threads} "
                                f"evaluation points of --iterations {args.iterations} with --threads "
                                f"{args.threads}") from None
    from ..solvers.sampling.mccfr_abstract import TRAVERSALS

    if args.traversal not in TRAVERSALS:
        raise TrainingError(f"--traversal must be one of {', '.join(TRAVERSALS)}, got "
                            f"{args.traversal!r}") from None
    lbr_deals = args.lbr_deals
    if lbr_deals != 0 and lbr_deals < 2:
        raise TrainingError(f"--lbr-deals must be 0 (no LBR) or at least 2, got {lbr_deals}") from None
    if seed_error(args.seed):
        raise TrainingError(seed_error(args.seed)) from None
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
        raise TrainingError(str(e)) from None
    evals = int(args.evals)
    bots = list(args.bots) if not isinstance(args.bots, str) else [
        b.strip() for b in args.bots.split(",") if b.strip()]
    from ..bots.named import check_bot_fits, parse_bot

    try:
        for b in bots:  # a policy of another game is refused as tournament and play do
            check_bot_fits(parse_bot(b), params.replace(dealer=-1))
    except (ValueError, OSError) as e:
        raise TrainingError(f"--bots: {e}") from None
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = Path(args.out or f"runs/{params.profile}-abstract-mccfr-{stamp}")
    try:
        check_writable(folder)
    except OSError as e:
        raise TrainingError(str(e)) from None
    saved: dict[str, Any] = {}
    if args.resume:
        if not (folder / "run.json").exists():
            raise TrainingError(f"--resume: no run in {folder}") from None
        try:
            saved = json.loads((folder / "run.json").read_text())
        except (OSError, ValueError) as e:
            raise TrainingError(f"--resume: cannot read {folder / 'run.json'}: {e}") from None
        if not isinstance(saved, dict):
            raise TrainingError(f"--resume: {folder / 'run.json'} is not a run record") from None
        budget = args.time if args.time is not None else saved.get("time_budget", budget)
        was = saved.get("pruning", "on" if saved.get("prune_after") is not None else "off")
        if args.pruning != was:
            raise TrainingError(f"--resume: --pruning {args.pruning} contradicts the run's ({was}, "
                                f"{folder / 'run.json'})") from None
        was = saved.get("traversal", "es")  # runs before the option traversed "es"
        if args.traversal != was:
            raise TrainingError(f"--resume: --traversal {args.traversal} contradicts the run's "
                                f"({was}, {folder / 'run.json'})") from None
    elif (folder / "run.json").exists():
        raise TrainingError(f"{folder} holds a run already: continue it with --resume, or choose another --out") from None
    budget = float(budget) if budget is not None else None
    iterations = args.iterations
    start: int | None = None
    if args.resume:
        if iterations is None and budget is None:  # an --iterations run: its own length
            iterations = saved.get("iterations")
        try:
            start, why = _resume_point(folder, saved, budget, iterations)
        except ValueError as e:
            raise TrainingError(str(e)) from None
        if why:
            raise TrainingError(why) from None
    created = not folder.exists()
    command = args.command
    claim_run_folder(folder, "train", command, made=created)  # one writer (vitou_ai.io.RunLock)
    solver = AbstractMCCFR(
        params, abstraction, seed=args.seed, max_infosets=args.max_infosets,
        threads=args.threads, traversal=args.traversal, **schedule(budget, args.pruning))
    rows: list[dict[str, Any]] = []
    if args.resume and start is None:
        print(f"resumed {folder}: it was stopped before its first checkpoint; starting again "
              "from iteration 0", file=out, flush=True)
    elif args.resume:
        try:
            solver.load(folder / "checkpoint.npz")
        except CheckpointError as e:
            raise TrainingError(f"cannot resume: {e}") from None
        rows = [r for r in curve_rows(folder) if r["iteration"] <= solver.iteration]
        print(f"resumed from {folder / 'checkpoint.npz'} at iteration {solver.iteration:,} "
              f"({solver.seconds:.0f} s)", file=out, flush=True)
    record = {
        "command": saved.get("command", command) if args.resume else command,
        "rules_version": RULES_VERSION, "seed": args.seed,
        "solver": "abstract-es-mccfr", "params": {**params.knobs(), "profile": params.profile},
        "abstraction": abstraction.describe(), "time_budget": budget, "iterations": iterations,
        "threads": solver.threads, "max_infosets": solver.max_infosets,
        "table_bytes": solver.nbytes, "pruning": args.pruning, "traversal": args.traversal,
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
          f"{'on' if params.signals else 'off'}), abstract ES-MCCFR ({args.traversal} traversal), "
          f"{solver.threads} threads, "
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
        kept = ("the last evaluation's outputs are kept (with its checkpoint: --resume "
                "continues)" if rows else "nothing was saved yet")
        if not rows and created and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # no empty run folder left behind
        raise TrainingInterrupted(kept) from None
    except TableFullError as e:
        kept = ("the last evaluation's checkpoint and outputs are kept" if rows
                else "no evaluation was reached, nothing was saved")
        raise TrainingError(f"{e} ({kept})", during_run=True) from None
    print(f"done: {solver.iteration:,} iterations in {solver.seconds:.0f} s; run folder: "
          f"{folder}", file=out)
    return TrainingResult(folder=folder, iterations=solver.iteration,
                          latest=rows[-1] if rows else None)


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
    """An evaluation's files, in the order of :mod:`vitou_ai.training.runfolder`
    (``run.json`` marked ``writing``, the policy, the curve and its plot, the checkpoint,
    ``run.json``)."""
    try:
        before = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError):
        before = None
    mark_writing(folder, before if isinstance(before, dict) else record, solver.iteration)
    solver.policy(f"{params.profile}-abstract").save(folder / "policy.npz")
    write_curve(folder, rows)
    plot_abstract(rows, bots, record["lbr_bots"], folder / "curve.png", _title(params, record),
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
