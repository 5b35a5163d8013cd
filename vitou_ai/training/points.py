"""The trainer of the points objective: a solver of :data:`vitou_ai.solvers.registry.SOLVERS`
(flat tree, public tree, sampling, OpenSpiel) on the real game's information states,
evaluated periodically (:mod:`vitou_ai.training.evaluation`), checkpointed and resumable.

A run folder holds:

- ``run.json``: the run record (``settings``: game, solver and evaluation;
  ``RULES_VERSION``, package versions, git commit, seed, command line), rewritten
  at each evaluation with the latest figures. A resume takes the settings from it and
  refuses a value that contradicts them; the first command, seed and settings stay,
  and each resume's command is appended to ``resumes``;
- ``curve.csv``: one row per evaluation (:mod:`vitou_ai.training.evaluation`);
- ``curve.png``: the curves (without an exact evaluation, the table's growth);
- ``policy.npz``: the average policy as a tabular bot (``vitou_ai.bots.tabular``
  format, no pickle);
- ``checkpoint.npz``: the solver's state; a resume continues from it (every
  solver but ``openspiel-cfr+``: :mod:`vitou_ai.solvers.openspiel_solvers`).

Ctrl-C or a kill loses at most one evaluation interval; Ctrl-C never cuts the writing of
a checkpoint short (:class:`~vitou_ai.training.settings.TrainingInterrupted` says what was
kept). A kill while an evaluation's files are written leaves ``run.json`` marked
``writing``; a resume then takes the checkpoint (the newest complete state), rewrites the
other files from it and says so (:mod:`vitou_ai.training.runfolder`).

Example (a tiny two-player game, a few iterations; ``out`` a fresh folder):

    >>> import io, tempfile, pathlib
    >>> from vitou_ai.training import PointsSettings, train
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> result = train(PointsSettings(ranks=3, copies=1, hand_size=1, solver="cfr",
    ...                               iterations=20, eval_deals=40, bots=("random",),
    ...                               out=folder), out=io.StringIO())
    >>> result.iterations, sorted(p.name for p in folder.iterdir())
    (20, ['checkpoint.npz', 'curve.csv', 'curve.png', 'policy.npz', 'run.json'])
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..io import WriteError
from ..resources import ResourceError, check_memory, check_seconds
from ..rules.params import RULES_VERSION, VitouParams
from ..solvers.protocol import Solver, make_solver, tree_summary
from ..solvers.registry import SOLVERS as REGISTRY
from .evaluation import evaluate, short_row, write_outputs
from .runfolder import (
    checkpoint_head,
    curve_rows,
    git_commit,
    outputs_agree,
    package_versions,
    reconcile_note,
)
from .session import (
    check_simulation_memory,
    check_writable,
    claim_run_folder,
    interrupts_deferred,
    interrupts_ignored,
    new_folder,
    note,
    run_locks,
    seed_error,
    show_progress,
)
from .settings import (
    AUTO_TREE_NODES,
    PointsSettings,
    TrainingError,
    TrainingInterrupted,
    game_params,
    resolve,
)


@dataclass(frozen=True)
class TrainingResult:
    """What a finished run left: its ``folder``, the ``iterations`` done in all and the
    ``latest`` evaluation row (the last line of ``curve.csv``; ``None`` without one)."""

    folder: Path
    iterations: int
    latest: dict[str, Any] | None


def train_points(settings: PointsSettings, out=None) -> TrainingResult:
    """Train with the points objective (:class:`PointsSettings`): check the settings (and,
    with ``resume``, the run folder and its checkpoint) before any work, then build the
    tree, iterate, evaluate every ``eval_every`` iterations and write the run folder.
    Progress lines go to ``out`` (default: stdout), notes on long phases to stderr.

    The run folder's lock (:class:`vitou_ai.io.RunLock`) is held for the run: a second
    writer of the same folder is refused with a :class:`TrainingError`.

    Raises:
        TrainingError: one line, before any work (a tree too large: after trying to build
            it), nothing left behind; or during the run (a file that cannot be written, a
            full MCCFR table), the last evaluation's files kept.
        TrainingInterrupted: Ctrl-C; the last evaluation's files kept.
    """
    with run_locks():  # the folder's lock is released when the run ends
        if settings.out is not None:
            try:  # one writer per run folder, before its files are read
                check_writable(settings.out)
                claim_run_folder(settings.out, "train", settings.command)
            except OSError as e:
                raise TrainingError(str(e)) from None
        return _train(_plan(settings), out or sys.stdout)


@dataclass
class _Plan:
    """A checked ``vitou-ai train``."""

    settings: dict[str, Any]  # RUN_DEFAULTS' keys: the game, solver and evaluation
    params: VitouParams
    folder: Path | None  # None: a new folder under runs/, made once the tree is built
    saved: dict[str, Any]  # the resumed run's record ({} for a new run)
    resume: bool
    iterations: int  # in all, counting those of earlier sessions
    every: int
    bots: list[str]
    time: float | None  # seconds of solver time, in all
    max_tree_nodes: int
    no_progress: bool
    command: str  # as typed, for the record
    #: --resume: the checkpoint's iteration (None: the run stopped before its first one)
    start: int | None = None


def _plan(settings: PointsSettings) -> _Plan:
    """Check the command; read the run to resume. Raises :class:`TrainingError`."""
    from ..bots.named import check_bot_fits, parse_bot

    if settings.resume and not settings.out:
        raise TrainingError("--resume needs --out, the run folder to continue")
    folder = Path(settings.out) if settings.out else None
    try:
        check_writable(folder if folder is not None else "runs")  # before the tree is built
    except OSError as e:
        raise TrainingError(str(e)) from None
    saved: dict[str, Any] | None = None
    if settings.resume:
        if not (folder / "run.json").exists():
            raise TrainingError(f"--resume: no run in {folder}")
        try:
            saved = json.loads((folder / "run.json").read_text())
        except (OSError, ValueError) as e:
            raise TrainingError(f"--resume: cannot read {folder / 'run.json'}: {e}") from None
        if not isinstance(saved, dict):
            raise TrainingError(f"--resume: {folder / 'run.json'} is not a run record")
        if saved.get("objective") == "match" and saved.get("players") == 4:
            raise TrainingError(f"--resume: {folder} is a four-player --objective match run: "
                                "continue it with --objective match --resume --out "
                                f"{folder}")
        if saved.get("objective") == "match":
            raise TrainingError(f"--resume: {folder} is an --objective match run; it is complete "
                                "(its policy covers every score): train another with "
                                "--objective match and a new --out")
    elif folder is not None and (folder / "run.json").exists():
        raise TrainingError(f"{folder} holds a run already: continue it with --resume, or choose "
                            "another --out")
    s = resolve(settings, saved, folder / "run.json" if folder else Path("run.json"))
    if s["solver"] not in REGISTRY:
        raise TrainingError(f"unknown solver {s['solver']!r}; expected one of "
                            f"{', '.join(REGISTRY)}")
    if settings.resume and not REGISTRY[s["solver"]].resumable:
        raise TrainingError(f"{s['solver']} writes no checkpoint (OpenSpiel's CFR+ does not "
                            "continue the same run when read back), so its runs cannot be resumed")
    try:
        params = game_params(s)
    except (ValueError, TypeError) as e:
        raise TrainingError(str(e)) from None
    s["target"] = params.target  # the profile's default made explicit, for --resume
    if REGISTRY[s["solver"]].family == "public":
        from ..solvers.public.tree import check_public_params

        try:
            check_public_params(params)
        except ValueError as e:
            raise TrainingError(f"--solver {s['solver']}: {e}") from None
    saved = saved or {}
    # the run's own length and evaluation interval unless given again
    iterations = settings.iterations if settings.iterations is not None else saved.get(
        "iterations", REGISTRY[s["solver"]].iterations)
    every = settings.eval_every if settings.eval_every is not None else saved.get(
        "eval_every", max(1, iterations // 10))
    bots = s["bots"]
    if not bots:
        raise TrainingError("--bots needs at least one bot to evaluate against")
    try:
        for b in bots:  # a policy of another game is refused as tournament and play do
            check_bot_fits(parse_bot(b), params)
    except (ValueError, OSError) as e:
        raise TrainingError(f"--bots: {e}") from None
    if iterations < 1 or every < 1 or s["eval_deals"] < 2:
        raise TrainingError("--iterations, --eval-every must be >= 1, --eval-deals >= 2")
    start = (_resume_point(folder, saved, iterations, settings.iterations, settings.time)
             if settings.resume else None)
    if seed_error(s["seed"]):
        raise TrainingError(seed_error(s["seed"]))
    if s["tables"] not in ("float64", "float32"):
        raise TrainingError(f"--tables must be float64 or float32, got {s['tables']!r}")
    if s["tables"] != "float64" and REGISTRY[s["solver"]].family != "public":
        raise TrainingError(f"--tables {s['tables']} is an option of the public-tree solvers "
                            f"(--solver public-*), not of {s['solver']}")
    if s["max_infosets"] < 1:
        raise TrainingError(f"--max-infosets must be positive, got {s['max_infosets']}")
    if settings.max_tree_nodes < 1:
        raise TrainingError(f"--max-tree-nodes must be positive, got {settings.max_tree_nodes}")
    if REGISTRY[s["solver"]].family == "public" and settings.max_tree_nodes >= 2**31:
        # public trees index nodes in 32 bits (public_tree.build_public_tree)
        raise TrainingError(f"--max-tree-nodes must be below 2**31 for --solver {s['solver']}, "
                            f"got {settings.max_tree_nodes:,}")
    if settings.time is not None:
        try:
            check_seconds(settings.time, "--time")
        except (TypeError, ValueError) as e:
            raise TrainingError(str(e)) from None
    try:  # the memory the counts allocate, before the tree is built or the folder made
        if REGISTRY[s["solver"]].family == "sampling":
            from ..solvers.sampling.mccfr import table_bytes

            check_memory(table_bytes(params, s["max_infosets"]),
                         f"--max-infosets {s['max_infosets']:,}",
                         "lower it (the table is allocated whole)")
        check_simulation_memory(2 * max(1, s["eval_deals"] // 2),
                                f"--eval-deals {s['eval_deals']:,}")
    except ValueError as e:
        raise TrainingError(str(e)) from None
    from ..capabilities import UnsupportedGameError, require

    tool = REGISTRY[s["solver"]].tool
    try:  # the solver's own tool, before any work (Willughby's Put: refused, P7.5)
        require(tool, params)
    except UnsupportedGameError as e:
        raise TrainingError(str(e)) from None
    command = settings.command
    return _Plan(settings=s, params=params, folder=folder, saved=saved, resume=settings.resume,
                 iterations=iterations, every=every, bots=bots, time=settings.time,
                 max_tree_nodes=settings.max_tree_nodes, no_progress=settings.no_progress,
                 command=command, start=start)


def _resume_point(folder: Path, saved: dict[str, Any], iterations: int,
                  given: int | None, time_limit: float | None = None) -> int | None:
    """The iteration ``--resume`` continues from: the checkpoint's, read and checked
    whole before the tree is built (``None``: the run was stopped during its first
    evaluation, before any checkpoint; it starts again from iteration 0).

    Raises:
        TrainingError: a damaged or missing checkpoint; ``--iterations`` below the
            checkpoint's, or equal to it with outputs that already belong to it; a
            ``--time`` (solver seconds in all) the checkpoint has spent already, with
            outputs that belong to it.
    """
    ck = folder / "checkpoint.npz"
    if not ck.exists() and "iterations_done" not in saved:
        return None
    try:
        head = checkpoint_head(ck)
    except ValueError as e:
        raise TrainingError(f"cannot resume: {e}") from None
    start, spent = head["iteration"], head.get("seconds")
    if (time_limit is not None and isinstance(spent, int | float) and spent >= time_limit
            and outputs_agree(folder, saved, start)):
        raise TrainingError(f"{ck} is at iteration {start:,} after {spent:.1f} s of solver time: "
                            f"--time {time_limit:g} (solver seconds in all, earlier sessions "
                            f"included) leaves nothing to run; give more than {spent:.1f} to "
                            "continue it")
    if iterations < start:
        raise TrainingError(f"--iterations {iterations} is below the {start:,} iterations the run "
                            f"has done ({ck}): give more to continue it")
    if iterations == start and outputs_agree(folder, saved, start):
        told = (f"--iterations {iterations} leaves nothing to run" if given is not None else
                f"the run is complete (its --iterations is {iterations})")
        raise TrainingError(f"{ck} is at iteration {start:,}: {told}; give --iterations above "
                            f"{start} to continue it")
    return start


#: peak memory of a public-tree training run per entry of its public tree, bytes (solver
#: tables, exact evaluation, policy file and explorer index): ``vitou_2p`` 6 ranks x 4
#: copies, 3-card hands, dealer drawn (10,177,993 entries) peaked at 4,247,204 kB
#: (/usr/bin/time -v, 20 iterations, one evaluation), 427 bytes an entry with the
#: process's own; the full game with the dealer drawn (56 M entries) was killed by the
#: kernel at 20 GB on a 24 GB machine before this check
PUBLIC_TRAIN_BYTES_PER_ENTRY = 430


def check_public_train_memory(entries: int, params) -> None:
    """Refuse a public-tree training run whose solve and evaluations would not fit in
    memory: :data:`PUBLIC_TRAIN_BYTES_PER_ENTRY` times ``entries``, less what the process
    already holds (the tree), against what the machine has available.

    Raises:
        TrainingError: one line, with the way round it.
    """
    from ..resources import check_memory, process_rss

    hint = ("train with the dealer fixed (--dealer 0: half the tree; the drawn dealer's "
            "tree is both dealers' side by side), or a smaller variant (--ranks)"
            if params.dealer < 0 else "train a smaller variant (--ranks), or use es-mccfr")
    try:
        check_memory(PUBLIC_TRAIN_BYTES_PER_ENTRY * entries - process_rss(),
                     f"training on this public tree ({entries:,} entries)", hint)
    except ValueError as e:
        raise TrainingError(str(e)) from None


def _build_tree(plan: _Plan):
    """The game tree when the solver needs it or exact evaluation is wanted (``None``
    when "auto" finds it too large). Raises :class:`TrainingError` when a needed tree does
    not fit in ``--max-tree-nodes``."""
    s = plan.settings
    if REGISTRY[s["solver"]].family == "public":
        from ..solvers.public.tree import build_public_tree

        note("train", f"building the public tree (at most {plan.max_tree_nodes:,} nodes)...")
        try:
            tree = build_public_tree(plan.params, max_nodes=plan.max_tree_nodes)
        except ValueError as e:
            fix = (", fix the dealer (--dealer 0: half the tree)" if plan.params.dealer < 0
                   else "")
            raise TrainingError(f"{e} (public-tree solvers: raise --max-tree-nodes{fix}, or "
                                "use es-mccfr, which needs no tree; the flat tree of --solver "
                                "dcfr is larger)") from None
        check_public_train_memory(tree.num_entries, plan.params)
        return tree
    need = REGISTRY[s["solver"]].tree == "flat"
    if not need and s["exact"] == "no":
        return None
    from ..solvers.flat.tree import build_tree, check_tree_actions

    try:  # decisions wider than the tree's tables (truc_1912, F3.3): refused before the build
        check_tree_actions(plan.params)
    except ValueError as e:
        if need:
            raise TrainingError(str(e)) from None
        if s["exact"] == "yes":  # the sampling solver runs without the tree: --exact is the cause
            why = str(e).partition(": use ")[0]
            raise TrainingError(f"--exact yes needs the game tree, and {why}: drop --exact yes "
                                f"({s['solver']} trains without it), or use --hand-size 2 or "
                                "fewer") from None
        return None
    # with a sampling solver, "auto" only builds trees that are quick to build
    if need or s["exact"] == "yes":
        limit, why = plan.max_tree_nodes, "--max-tree-nodes"
    else:
        limit = min(plan.max_tree_nodes, AUTO_TREE_NODES)
        why = ("for the exact evaluation; --exact auto with a sampling solver builds only a "
               "quick tree, --exact yes builds up to --max-tree-nodes")
    note("train", f"building the game tree (at most {limit:,} nodes, {why})...")
    try:
        return build_tree(plan.params, max_nodes=limit)
    except ValueError as e:
        if isinstance(e, ResourceError) and (need or s["exact"] == "yes"):
            raise TrainingError(str(e)) from None  # more nodes would not help
        if need or s["exact"] == "yes":
            hint = "raise --max-tree-nodes" + (
                "" if s["solver"].endswith("mccfr") else ", or use es-mccfr / os-mccfr")
            raise TrainingError(f"{e} ({hint})") from None
        return None


def _record(plan: _Plan, tree, stamp: str, at_iteration: int) -> dict[str, Any]:
    """The run record (``run.json``). A resumed run keeps its first record (its command,
    seed, settings, start) and appends this command to ``resumes``."""
    s = plan.settings
    tree_info = tree_summary(tree)[0] if tree else None
    if plan.resume:
        rec = {k: v for k, v in plan.saved.items()
               if k not in ("latest", "iterations_done", "writing")}
        rec.setdefault("settings", s)
        rec["iterations"], rec["eval_every"] = plan.iterations, plan.every
        rec["resumes"] = [*rec.get("resumes", []), {
            "command": plan.command, "started": stamp, "from_iteration": at_iteration,
            "rules_version": RULES_VERSION, "git_commit": git_commit(),
            "versions": package_versions()}]
        return rec
    return {
        "command": plan.command, "rules_version": RULES_VERSION, "seed": s["seed"],
        "solver": s["solver"], "settings": s,
        "params": {**plan.params.knobs(), "profile": plan.params.profile},
        "iterations": plan.iterations, "eval_every": plan.every, "eval_deals": s["eval_deals"],
        "bots": plan.bots, "versions": package_versions(), "git_commit": git_commit(),
        "started": stamp, "tree": tree_info, "resumes": [],
    }


def _train(plan: _Plan, out) -> TrainingResult:
    """Build, resume, iterate and evaluate; Ctrl-C at any point keeps the last
    evaluation's outputs (written whole: Ctrl-C waits for them) and raises
    :class:`TrainingInterrupted`."""
    s = plan.settings
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    rows: list[dict[str, Any]] = []
    adapter: Solver | None = None
    created: Path | None = None
    bar = None
    try:
        t = time.perf_counter()
        tree = _build_tree(plan)
        build_s = time.perf_counter() - t
        try:
            if plan.folder is None:
                plan.folder = created = new_folder("runs", f"{plan.params.profile}-{s['solver']}",
                                                   stamp)
                claim_run_folder(created, "train", plan.command, made=True)
            elif not plan.folder.exists():
                created = plan.folder  # before mkdir: a Ctrl-C right after it still cleans up
                plan.folder.mkdir(parents=True)
        except OSError as e:
            raise TrainingError(f"--out {plan.folder}: {e.strerror or e}") from None
        folder = plan.folder
        pp = plan.params
        print(f"vitou-ai train: {pp.profile} ({pp.ranks} ranks x {pp.copies} copies, "
              f"{pp.hand_size}-card hands) {s['solver']}"
              + (f" ({s['tables']} tables)" if s["tables"] != "float64" else "") + "; "
              + (f"{tree_summary(tree)[1]} ({build_s:.1f} s); " if tree else
                 "no exact evaluation (" + ("--exact no" if s["exact"] == "no" else
                                            "the tree is too large") + "); ")
              + f"run folder {folder}", file=out, flush=True)
        try:
            adapter = make_solver(s["solver"], plan.params, tree, seed=s["seed"],
                                  max_infosets=s["max_infosets"], tables=s["tables"])
        except ValueError as e:
            raise TrainingError(str(e)) from None
        rows = _resume(adapter, folder) if plan.resume and plan.start is not None else []
        record = _record(plan, tree, stamp, adapter.iterations_done)
        if plan.resume:
            _reconcile(plan, adapter, rows, record, out)
        if show_progress(sys.stderr, plan.no_progress):
            from tqdm import tqdm

            bar = tqdm(total=plan.iterations, initial=adapter.iterations_done, unit="it",
                       file=sys.stderr)
        first = min(plan.every, plan.iterations - adapter.iterations_done)
        if first > 0:
            note("train", f"first evaluation after {first:,} iterations" + (
                " (a first run after an install also compiles the solver)"
                if REGISTRY[s["solver"]].native else ""))
        while adapter.iterations_done < plan.iterations:
            if plan.time and adapter.solver_seconds() >= plan.time:
                break  # a resume whose --time was spent already: not one more iteration
            # up to the next multiple of --eval-every (a --time stop may leave the last
            # evaluation off the grid; a resumed run goes back onto it)
            done = adapter.iterations_done
            step = min(plan.every - done % plan.every, plan.iterations - done)
            ran = advance(adapter, step, plan.time)
            if bar:
                bar.update(ran)
            row = evaluate(adapter, plan.bots, s)
            rows.append(row)
            last = adapter.iterations_done >= plan.iterations or bool(
                plan.time and adapter.solver_seconds() >= plan.time)
            with interrupts_deferred():  # the checkpoint and its outputs, whole
                write_outputs(folder, adapter, rows, plan.bots, record, plan.params,
                               explore_index=last)
            if bar:
                bar.set_postfix_str(short_row(row))
            else:
                print(short_row(row), file=out, flush=True)
            if plan.time and adapter.solver_seconds() >= plan.time:
                break
    except KeyboardInterrupt:
        with interrupts_ignored():  # a second Ctrl-C does not cut the clean-up short
            if not rows and created is not None and created.is_dir() \
                    and not any(created.iterdir()):
                created.rmdir()  # nothing was written: no empty run folder left behind
            kept = ("nothing was saved yet" if not rows else
                    "the last evaluation's outputs are kept" + (
                        " (with its checkpoint: --resume continues)"
                        if adapter and adapter.resumable else ""))
            if bar:
                bar.close()
                bar = None
        raise TrainingInterrupted(kept) from None
    except WriteError as e:  # a full disk, a quota, a read-only file system: one line
        resumable = plan.folder is not None and (plan.folder / "checkpoint.npz").exists()
        raise TrainingError(f"{e}" + ("; --resume continues from the last checkpoint once the "
                                      "file can be written" if resumable else ""),
                            during_run=True) from None
    except TrainingError:
        raise
    except RuntimeError as e:  # TableFullError: the MCCFR table reached --max-infosets
        kept = ("the last evaluation's checkpoint and outputs are kept" if rows else
                "no evaluation was reached, nothing was saved")
        raise TrainingError(f"{e} ({kept})", during_run=True) from None
    finally:
        if bar:
            bar.close()
    print(f"done: {adapter.iterations_done} iterations; "
          + (short_row(rows[-1], intervals=True) if rows else "")
          + f"\nrun folder: {plan.folder}", file=out)
    return TrainingResult(folder=plan.folder, iterations=adapter.iterations_done,
                          latest=rows[-1] if rows else None)


#: longest stretch of solver time between two checkpoints, in seconds: a run whose
#: evaluations are far apart (``--iterations`` of 10**12) still saves this often
CHECKPOINT_SECONDS = 1800.0


def advance(adapter: Solver, n: int, limit: float | None) -> int:
    """Run up to ``n`` iterations, in chunks that double while one takes under a
    second (the same iterates as one call: every solver's state carries over), and
    return early when the solver time reaches ``limit`` seconds (``--time``) or
    :data:`CHECKPOINT_SECONDS` have passed, so that the run evaluates and saves.

    A chunk never asks for more iterations than the time left holds at the last chunk's
    rate, so a stop overshoots by about one iteration, not by a chunk (a doubled chunk
    took ``--time 2`` to 3.85 s).

    Returns:
        The iterations run.
    """
    start_iter, start = adapter.iterations_done, adapter.solver_seconds()
    stop = start + CHECKPOINT_SECONDS if not limit else min(limit, start + CHECKPOINT_SECONDS)
    chunk, per_iteration = 1, 0.0
    while (ran := adapter.iterations_done - start_iter) < n:
        before = adapter.solver_seconds()
        if before >= stop:
            break
        size = min(chunk, n - ran)
        if per_iteration > 0:  # what the time left holds at the last chunk's rate
            size = max(1, min(size, int((stop - before) / per_iteration)))
        adapter.iterate(size)
        now = adapter.solver_seconds()
        per_iteration = (now - before) / size
        if now - before < 1.0:
            chunk *= 2
    return adapter.iterations_done - start_iter


def _resume(adapter: Solver, folder: Path) -> list[dict[str, Any]]:
    """Load the checkpoint; the curve rows up to it. Raises :class:`TrainingError`."""
    from ..solvers.flat.cfr import CheckpointError

    try:
        adapter.load(folder / "checkpoint.npz")
    except CheckpointError as e:
        raise TrainingError(f"cannot resume: {e}") from None
    return [r for r in curve_rows(folder) if r["iteration"] <= adapter.iterations_done]


def _reconcile(plan: _Plan, adapter: Solver, rows: list[dict[str, Any]],
               record: dict[str, Any], out) -> None:
    """Say what ``--resume`` continues from; when the run folder's files do not all
    belong to that checkpoint (a kill during an evaluation), rewrite them from it:
    the checkpoint is the newest complete state (:mod:`vitou_ai.training.runfolder`)."""
    folder = plan.folder
    assert folder is not None
    done = adapter.iterations_done
    if plan.start is None:
        print(f"resumed {folder}: it was stopped before its first checkpoint; starting again "
              "from iteration 0", file=out, flush=True)
        return
    print(f"resumed from {folder / 'checkpoint.npz'} at iteration {done:,}", file=out,
          flush=True)
    if outputs_agree(folder, plan.saved, done):
        return
    note("train", f"resume: {reconcile_note(plan.saved, curve_rows(folder), done)}")
    if not rows or rows[-1]["iteration"] != done:
        rows.append(evaluate(adapter, plan.bots, plan.settings))
    with interrupts_deferred():
        write_outputs(folder, adapter, rows, plan.bots, record, plan.params, checkpoint=False)
