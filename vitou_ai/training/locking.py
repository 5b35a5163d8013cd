"""Node locking and aggregate reports over run folders: what ``vitou-ai lock`` and
``vitou-ai report`` do, as a library.

A *public run* is a two-player run folder (``run.json`` with the game's ``params``,
``policy.npz``: e.g. ``vitou-ai train --solver public-dcfr``) read onto the game's public
tree (:func:`load_public_run`). :func:`lock_run` resolves a lock file on it
(:mod:`vitou_ai.solvers.public.lock`), measures the exploit, re-solves with the lock and
writes a run folder the explorer opens (``vitou-ai explore OUT``)::

    OUT/run.json         the game's params, the lock, the measures (``report``)
    OUT/policy.npz       the re-solved equilibrium given the lock (a tabular policy)
    OUT/locks.toml       the lock file, as given
    OUT/report.json      the measures (:func:`~vitou_ai.solvers.public.lock.exploit_report`)
    OUT/report.csv       the rates of the blueprint, the exploit and the re-solve side by side
    OUT/report.png       their figure (:func:`~vitou_ai.eval.report.plot_reports`)
    OUT/curve.csv        the re-solve's exploitability given the lock, by iteration
    OUT/exploit/         a run folder too: the locked blueprint against its best response

:func:`report_runs` writes one or two strategies' reports (``report.csv``,
``values.csv``, ``report.png``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..io import RunLock, RunLockedError, holds_files, write_atomic
from ..rules.params import VitouParams, knob_differences
from .runfolder import git_commit, package_versions, write_csv, write_record

#: the public tree's node limit here (the full vitou_2p with the dealer drawn: 38 M)
MAX_NODES = 60_000_000
#: peak memory of a lock run per entry of the public tree, bytes: the full vitou_2p game
#: with dealer 0 (28,085,973 entries) peaked at 15.3 GB with its three reports
#: (15,326,052 kB, /usr/bin/time -v, results/node_locking/lock/lock.log); the one with the
#: dealer drawn (56 M entries) was killed at 24.3 GB
LOCK_BYTES_PER_ENTRY = 560


class RunError(ValueError):
    """A run folder that is not a two-player public run; one line."""


@dataclass
class PublicRun:
    """A run folder read onto its public tree: ``params``, ``tree``, ``policy``
    (``float64[num_entries]``), ``folder``."""

    folder: Path
    params: VitouParams
    tree: object
    policy: np.ndarray


def read_params(folder: str | Path) -> VitouParams:
    """The game of a run folder (``run.json``'s ``params``).

    Raises:
        RunError: no such folder, no ``run.json`` / ``policy.npz``, no params recorded.
    """
    f = Path(folder)
    if not (f / "run.json").is_file() or not (f / "policy.npz").is_file():
        raise RunError(f"{folder}: not a run folder (run.json and policy.npz)")
    try:
        rec = json.loads((f / "run.json").read_text())
        d = dict(rec["params"])
    except (ValueError, KeyError, TypeError) as e:
        raise RunError(f"{folder}/run.json: no game recorded ({type(e).__name__})") from None
    for k in ("scores", "games_won"):
        if isinstance(d.get(k), list):
            d[k] = tuple(d[k])
    try:
        return VitouParams(**d)
    except (TypeError, ValueError) as e:
        raise RunError(f"{folder}/run.json: not a game: {str(e).splitlines()[0]}") from None


def load_public_run(folder: str | Path, tree=None, max_nodes: int = MAX_NODES) -> PublicRun:
    """A two-player run folder's policy on its public tree (``tree``: reuse a built tree
    of the same game).

    Raises:
        RunError: :func:`read_params`'s refusals; a four-player game; a game without a
            public tree; a policy the tree cannot read; ``tree`` of another game.
    """
    from ..bots.tabular import TabularPolicy
    from ..solvers.public.export import bot_policy
    from ..solvers.public.tree import build_public_tree

    params = check_two_player(folder)
    try:
        if tree is None:
            tree = build_public_tree(params, max_nodes=max_nodes)
        elif tree.params.profile != params.profile or tree.params.knobs() != params.knobs():
            raise RunError(f"{folder}: another game than the first run's: "
                           f"{knob_differences(params, tree.params, 'first run')}")
        policy = TabularPolicy.load(Path(folder) / "policy.npz")
        pol = bot_policy(tree, policy)
    except RunError:
        raise
    except (ValueError, OSError) as e:
        raise RunError(f"{folder}: {str(e).splitlines()[0]}") from None
    return PublicRun(Path(folder), params, tree, pol)


def check_two_player(folder: str | Path) -> VitouParams:
    """:func:`read_params`, refusing a game that is not two-player before any tree is
    built.

    Raises:
        RunError: :func:`read_params`'s refusals; a game of three or four players.
    """
    params = read_params(folder)
    if params.players != 2:
        raise RunError(f"{folder}: a {params.players}-player game; node locking and the "
                       "report are for two-player public trees")
    return params


def claim_out(out: str | Path, runs, command: str = "") -> RunLock:
    """Take the output folder for one writer (:class:`~vitou_ai.io.RunLock`), before any
    work: it must be new or empty, and none of the run folders read.

    Args:
        out: the folder to write; made if missing.
        runs: the run folders read (never overwritten).
        command: the command line, for the message a second writer gets.

    Returns:
        the held lock; release it when the folder is written.

    Raises:
        RunError: ``out`` is a file, one of ``runs``, not empty, held by another live
            process, or cannot be made; one line.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out}: exists and is not a folder")
    for r in runs:
        if r is not None and Path(r).exists() and out.exists() and out.resolve() == Path(r).resolve():
            raise RunError(f"--out {out}: is the run folder being read; choose a new folder")
    lock = RunLock(out, command)
    try:
        lock.acquire()
    except RunLockedError as e:
        raise RunError(str(e).splitlines()[0]) from None
    except OSError as e:
        raise RunError(f"--out {out}: {e.strerror or e}") from None
    if holds_files(out):
        lock.release()
        raise RunError(f"--out {out}: not empty; choose a new folder (nothing there is "
                       "overwritten)")
    return lock


def _record(params: VitouParams, command: str, extra: dict) -> dict:
    return {"command": command, "params": {**params.knobs(), "profile": params.profile},
            "versions": package_versions(), "git_commit": git_commit(),
            "written": time.strftime("%Y%m%d-%H%M%S"), **extra}


def write_policy_run(folder: Path, tree, policy: np.ndarray, name: str, record: dict) -> None:
    """A run folder the explorer opens: ``policy.npz`` (the policy as a tabular bot) and
    ``run.json`` (``record``, which holds the game's ``params``)."""
    from ..solvers.public.export import to_tabular_policy

    folder.mkdir(parents=True, exist_ok=True)
    to_tabular_policy(tree, policy, name=name).save(folder / "policy.npz")
    write_record(folder, record)


def lock_run(run: str | Path, locks: str | Path, out: str | Path, iterations: int = 2000,
             target: float = 1e-3, variant: str = "dcfr", check_every: int = 50,
             command: str = "", log=None) -> dict:
    """Lock, exploit and re-solve a public run (module docstring for the folder written).

    Returns:
        the measures (``report.json``), with ``iterations``, ``seconds`` of the re-solve.

    Raises:
        RunError, LockError: bad run folder or lock file; ``out`` not new or empty, the run
            itself, or written by another process (:func:`claim_out`); one line, before
            the work.
    """
    from ..solvers.public.lock import load_locks

    params = check_two_player(run)
    rules = load_locks(locks, params)  # refused before the tree is built
    say = log or (lambda s: None)
    claim = claim_out(out, [run], command or f"lock_run({run}, {locks})")
    try:
        say(f"reading {run} onto the public tree of {params.profile} ...")
        return _lock_run(run, locks, Path(out), params, rules, iterations, target, variant,
                         check_every, command, say)
    finally:
        claim.release()


def check_lock_memory(entries: int, params: VitouParams) -> None:
    """Refuse a lock run whose re-solve, exploit and measures would not fit in memory:
    :data:`LOCK_BYTES_PER_ENTRY` times ``entries`` (the public tree's), less what this
    process already holds (the tree and the blueprint), against what the machine has
    available.

    Raises:
        vitou_ai.resources.ResourceError: one line, with the way round it.
    """
    from ..resources import check_memory, process_rss

    hint = ("train and lock the game with the dealer fixed (vitou-ai train --dealer 0; "
            "dealer = 0 in the lock file's [game]): the drawn dealer's tree is the two "
            "dealers' trees side by side, mirror images whose values by position are the "
            "same" if params.dealer < 0 else "lock a smaller variant")
    need = LOCK_BYTES_PER_ENTRY * entries - process_rss()
    check_memory(need, f"locking this run ({entries:,} entries in its public tree)", hint)


def _lock_run(run, locks, out: Path, params, rules, iterations, target, variant, check_every,
              command, say) -> dict:
    from ..eval.report import strategy_report
    from ..solvers.public.lock import (
        PositionEvaluator,
        exploit_report,
        resolve_locks,
        solve_locked,
    )

    r = load_public_run(run)
    check_lock_memory(r.tree.num_entries, params)
    lock = resolve_locks(r.tree, rules, Path(locks).read_text(), str(locks))
    say(f"{sum(lock.infosets):,} information sets locked ({lock.mask.sum():,} entries); "
        f"re-solving ({variant}, up to {iterations:,} iterations, target {target:g}) ...")
    t0 = time.perf_counter()
    pol, solver, curve = solve_locked(
        lock, iterations, variant, target, check_every,
        lambda row: say(f"it {row['iteration']:,}: exploitability given the lock "
                        f"{row['exploitability']:.5f} ({row['seconds']:.0f} s)"))
    seconds = time.perf_counter() - t0
    rep = exploit_report(lock, r.policy, pol)
    rep.update({"iterations": solver.iteration, "seconds": seconds, "variant": variant,
                "target": target, "blueprint_run": str(run), "locks": str(locks)})
    ev = PositionEvaluator(r.tree)
    exploit_pol = ev.best_response_policy(lock.apply(r.policy), lock.other)
    record = _record(params, command, {"solver": f"public-{variant} with node locks",
                                       "lock": {"file": "locks.toml",
                                                "position": rep["locked_position"]},
                                       "report": rep})
    write_policy_run(out, r.tree, pol, "locked-resolve", record)
    write_atomic(out / "locks.toml", Path(locks).read_bytes())
    write_atomic(out / "report.json", (json.dumps(rep, indent=2) + "\n").encode())
    write_csv(out / "curve.csv", curve)
    write_policy_run(out / "exploit", r.tree, exploit_pol, "locked-exploit",
                     _record(params, command, {"solver": "locked blueprint vs best response",
                                               "report": rep}))
    try:
        reports = {"blueprint": strategy_report(r.tree, r.policy),
                   "exploit": strategy_report(r.tree, exploit_pol),
                   "resolved": strategy_report(r.tree, pol)}
        _write_reports(out, reports, "blueprint / locked blueprint vs best response / re-solved")
    except ValueError as e:  # a tree above the report's limit: the measures stand alone
        say(f"no rates written: {str(e).splitlines()[0]}")
    say(f"wrote {out}")
    return rep


def _write_reports(out: Path, reports: dict, title: str) -> None:
    from ..eval.report import compare, plot_reports

    table = compare(reports).reset_index()
    table.columns = [c if isinstance(c, str) else (c[0] if not c[1] else f"{c[0]}:{c[1]}")
                     for c in table.columns]
    write_atomic(out / "report.csv", table.to_csv(index=False).encode())
    vals = []
    for name, rep in reports.items():
        v = rep.hand_class_values().reset_index()
        v.insert(0, "strategy", name)
        vals.append(v)
    import pandas as pd

    write_atomic(out / "values.csv", pd.concat(vals).to_csv(index=False).encode())
    fig = plot_reports(reports, title)
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    write_atomic(out / "report.png", buf.getvalue())


def report_runs(run: str | Path, out: str | Path, against: str | Path | None = None,
                log=None, command: str = "") -> dict:
    """The aggregate report of a public run, and of ``against`` beside it (same game):
    ``report.csv`` (rates by trick, stake, position, best card), ``values.csv`` (value by
    position and hand class), ``report.png``.

    Returns:
        ``{name: StrategyReport}``.

    Raises:
        RunError: bad run folders, two games, a four-player game, a tree too large;
            ``out`` not new or empty, one of the runs, or written by another process
            (:func:`claim_out`).
    """
    from ..eval.report import strategy_report

    say = log or (lambda s: None)
    check_two_player(run)
    if against is not None:
        check_two_player(against)
    claim = claim_out(out, [run, against], command or f"report_runs({run})")
    try:
        say(f"reading {run} ...")
        a = load_public_run(run)
        runs = {Path(run).name or "run": a}
        if against is not None:
            b = load_public_run(against, tree=a.tree)
            name = Path(against).name or "against"
            runs[name if name not in runs else name + "-2"] = b
        try:
            reports = {n: strategy_report(x.tree, x.policy) for n, x in runs.items()}
        except ValueError as e:
            raise RunError(str(e)) from None
        _write_reports(Path(out), reports, " vs ".join(reports))
    finally:
        claim.release()
    say(f"wrote {out}")
    return reports
