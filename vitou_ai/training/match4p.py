"""The four-player match objective (``vitou-ai train --profile vitou --objective match``,
``vitou_cason`` too): a strategy that plays for the match. :func:`train_match_4p` takes a
:class:`Match4pSettings` and raises :class:`~vitou_ai.training.settings.TrainingError`.

The abstract ES-MCCFR of :mod:`vitou_ai.solvers.sampling.mccfr_abstract` with the score in the key
(abstraction ``scores=on``, by default ``score_buckets=stakes``: each team's need
``T - score`` in 5 buckets) and match-equity payoffs: each traversal draws a score state
and dealer uniformly (:func:`vitou_ai.match_equity.objective_4p.training_states`) and
values a terminal by the change of team 0's match equity under the current table
(:func:`vitou_ai.solvers.sampling.abstract_table.terminal_value`). Rounds of *policy -> table ->
policy* (:func:`vitou_ai.match_equity.objective_4p.iterate`): train ``--time`` solver
seconds, estimate the table of the average policy in all four seats
(:mod:`vitou_ai.match_equity.four_player`, ``--table-deals`` deals per state and dealer,
pooled over the seat symmetries, bootstrap standard errors), continue training against
it, until no entry of the table moves by more than its Monte Carlo error (Bonferroni)
or ``--rounds``.

``--warm-policy PATH`` (e.g. the points policy) starts every new row of the table from
that policy's probabilities at the same state under its own abstraction (regrets ``p/T``,
10 visits of prior in the average policy:
:meth:`~vitou_ai.solvers.sampling.mccfr_abstract.AbstractMCCFR.set_warm_start`).

The first table: ``--table PATH`` (e.g. the points policy's,
``results/match_equity/vitou_4p.csv``), else the *coin-flip* table (every deal scores
one point for either team with probability 1/2; a documented prior, not a policy's).

Run folder: ``run.json`` (settings, then the result), ``state.json`` (the rounds done),
``checkpoint.npz`` (the solver after the last training; ``--resume --out FOLDER``
continues), ``round_<r>/`` (``policy.npz``, the table ``<stem>.csv``, ``_states.csv``,
``.png``, ``table.json``, ``tasks/``), ``history.csv`` (per round: ``max_abs``,
``mean_abs`` of the change, ``max_se``, ``max_z``, ``z_crit``, ``converged``, solver
seconds, abstract information states), ``policy.npz`` and ``table.csv`` (the last round's).
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .settings import TrainingError

PROFILES = ("vitou", "vitou_cason")
DEFAULTS = {"time": 300.0, "rounds": 3, "table_deals": 1000, "threads": 2, "seed": 0,
            "max_infosets": 8_000_000, "abstraction": "scores=on,score_buckets=stakes",
            "bootstrap": 50, "warm_policy": None}
#: warm start (``--warm-policy``): initial regrets ``p / T`` (a point's worth of match
#: equity) and ``WARM_PRIOR_VISITS * p`` in the average policy
WARM_PRIOR_VISITS = 10.0
MAX_ROUNDS = 100


@dataclass(frozen=True)
class Match4pSettings:
    """A four-player match-objective run. Every field left ``None`` takes :data:`DEFAULTS`
    in a new run and the run's own value in a resumed one (where a value given that
    differs is refused; only ``rounds`` may lengthen it).

    Attributes:
        profile: ``vitou`` or ``vitou_cason`` (:data:`PROFILES`).
        solver: only ``abstract-mccfr`` (the trainer's).
        time: solver seconds per round, in (0, 10**7].
        rounds: at most this many rounds of policy -> table -> policy, 1 .. 100.
        table_deals: simulated deals per score state and dealer for each round's table.
        threads, seed, max_infosets: as :class:`~vitou_ai.training.settings.AbstractSettings`.
        abstraction: knobs, with the score in the key (``scores=on``).
        warm_policy: a four-player points policy (``policy.npz``) new rows start from.
        table: the first round's table (a four-player table CSV of the same profile;
            ``None``: the coin-flip table).
        out, resume, command: as :class:`~vitou_ai.training.settings.PointsSettings`.
    """

    profile: str | None = None
    solver: str | None = None
    time: float | None = None
    rounds: int | None = None
    table_deals: int | None = None
    threads: int | None = None
    seed: int | None = None
    max_infosets: int | None = None
    abstraction: str | None = None
    warm_policy: str | Path | None = None
    table: str | Path | None = None
    out: Path | None = None
    resume: bool = False
    command: str = ""


def _settings(args: Match4pSettings) -> dict:
    """The checked settings of a new run. Raises :class:`TrainingError` (one line)."""
    from ..match_equity.objective_4p import read_table_4p
    from ..match_equity.two_player import MatchEquityError
    from ..rules.params import VitouParams
    from .abstract import max_threads, parse_abstraction

    profile = args.profile
    if profile not in PROFILES:
        raise TrainingError(f"four-player --objective match is for {' or '.join(PROFILES)}, "
                            f"not {profile}")
    if args.solver not in (None, "abstract-mccfr"):
        raise TrainingError(f"four-player --objective match trains with abstract-mccfr, not "
                            f"{args.solver}")
    s = dict(DEFAULTS)
    for k in ("time", "rounds", "table_deals", "threads", "seed", "max_infosets",
              "abstraction", "warm_policy"):
        if getattr(args, k, None) is not None:
            s[k] = getattr(args, k)
    t = s["time"]
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) \
            or not 0 < t <= 10 ** 7:
        raise TrainingError(f"--time must be a positive number of solver seconds per round, "
                            f"got {t!r}")
    for name, lo, hi in (("rounds", 1, MAX_ROUNDS), ("table_deals", 10, 10 ** 7),
                         ("threads", 1, max_threads()), ("seed", 0, 2 ** 31 - 1),
                         ("max_infosets", 1, 2 ** 31)):
        v = s[name]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise TrainingError(f"--{name.replace('_', '-')} must be an integer in {lo} .. {hi}, "
                                f"got {v!r}")
    try:
        abstraction = parse_abstraction(s["abstraction"])
    except ValueError as e:
        raise TrainingError(str(e)) from None
    if not abstraction.scores:
        raise TrainingError("--objective match needs the score in the key: --abstraction "
                            "scores=on (and score_buckets=stakes or exact)")
    params = VitouParams(profile=profile, dealer=-1)
    try:
        abstraction.check_game(params)
        # the memory the counts allocate, before the run folder is made
        from ..resources import check_memory
        from ..solvers.sampling.mccfr_abstract import table_bytes
        from .session import check_simulation_memory

        check_memory(table_bytes(params, s["max_infosets"]),
                     f"--max-infosets {s['max_infosets']:,}",
                     "lower it (the table is allocated whole)")
        check_simulation_memory(s["table_deals"], f"--table-deals {s['table_deals']:,}")
    except ValueError as e:
        raise TrainingError(str(e)) from None
    s["abstraction"] = abstraction.describe()
    s["profile"] = profile
    s["target"] = params.target
    if s["warm_policy"] is not None:
        _warm_policy(s["warm_policy"], params)
        s["warm_policy"] = str(s["warm_policy"])
    if args.table is not None:
        try:
            read_table_4p(args.table, profile, params.target)
        except MatchEquityError as e:
            raise TrainingError(str(e)) from None
        s["table"] = str(args.table)
    else:
        s["table"] = None
    return s


def _check_resume_flags(args: Match4pSettings, s: dict) -> None:
    """Refuse, on ``--resume``, a flag that contradicts the run's settings (``run.json``):
    a resumed run keeps its game, schedule and tables; only ``--rounds`` lengthens it.
    Raises :class:`TrainingError` (one line)."""
    if args.profile is not None and args.profile != s["profile"]:
        raise TrainingError(f"--profile {args.profile} contradicts the run's {s['profile']} "
                            "(run.json): a resumed run keeps its game")
    for flag, name in (("--time", "time"), ("--table-deals", "table_deals"),
                       ("--threads", "threads"), ("--seed", "seed"),
                       ("--max-infosets", "max_infosets"), ("--table", "table"),
                       ("--warm-policy", "warm_policy"), ("--abstraction", "abstraction"),
                       ("--solver", "solver")):
        given = getattr(args, name, None)
        if given is None:
            continue
        saved = s.get(name)
        if name == "abstraction":
            from .abstract import parse_abstraction

            try:
                same = parse_abstraction(given).describe() == saved
            except ValueError:
                same = False
        elif name in ("table", "warm_policy"):
            same = saved is not None and Path(str(given)).resolve() == Path(saved).resolve()
        elif name == "solver":
            same = given == "abstract-mccfr"
        else:
            same = given == saved
        if not same:
            raise TrainingError(f"{flag} {given} contradicts the run's "
                                f"{saved if saved is not None else 'default'} (run.json): a resumed "
                                "run keeps its settings; --rounds lengthens it")


def _warm_policy(path, params):
    """The ``--warm-policy`` policy, checked. Raises :class:`TrainingError` (one line)."""
    from ..bots.abstract import AbstractPolicy, check_fits
    from ..bots.named import parse_bot

    if not Path(path).is_file():
        raise TrainingError(f"--warm-policy {path}: no such file")
    try:
        pol = parse_bot(str(path))
    except (ValueError, OSError) as e:
        raise TrainingError(f"--warm-policy {path}: {e}") from None
    if not isinstance(pol, AbstractPolicy):
        raise TrainingError(f"--warm-policy {path}: not an abstract policy (a four-player "
                            "abstract ES-MCCFR policy.npz)")
    if pol.abstraction.scores:
        raise TrainingError(f"--warm-policy {path}: a policy with the score in its key (a match "
                            "objective's); the warm start takes a points policy (scores off)")
    try:
        check_fits(pol, params)
    except ValueError as e:
        raise TrainingError(f"--warm-policy {e}") from None
    return pol


def coin_flip_table(target: int) -> dict:
    """The table of a deal that scores one point for either team with probability 1/2
    (:func:`vitou_ai.match_equity.four_player.table_from_outcomes`): the default start."""
    from ..match_equity.four_player import PLAYERS, table_from_outcomes

    out = {(a, b, d): {1: 1, -1: 1} for a in range(target) for b in range(target)
           for d in range(PLAYERS)}
    return table_from_outcomes(out, target)


def _read_se(states_csv: Path) -> dict:
    with open(states_csv, newline="") as f:
        return {(int(r["score0"]), int(r["score1"]), int(r["dealer"])): float(r["se"] or 0.0)
                for r in csv.DictReader(f)}


def _write_history(folder: Path, rows: list[dict]) -> None:
    from ..io import write_atomic

    cols = ["round", "max_abs", "mean_abs", "max_se", "max_z", "z_crit", "converged",
            "worst", "solver_seconds", "iterations", "infosets", "policy_infosets"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({**r, "worst": ":".join(str(x) for x in r.get("worst", []))})
    write_atomic(folder / "history.csv", buf.getvalue().encode())


def train_match_4p(settings: Match4pSettings, out=None) -> Path:
    """Train the four-player match objective (module docstring); notes on stderr, the
    summary on ``out``.

    Returns:
        The run folder.

    Raises:
        TrainingError: one line: bad settings or a run that cannot be resumed, before any
            work; a full table or a failed table estimate during the run (the rounds done
            are kept: a resume continues).
    """
    from .session import run_locks

    with run_locks():  # the folder's lock, for the run
        return _train(settings, out or sys.stdout)


def _train(args: Match4pSettings, out) -> Path:
    from ..abstraction.config import AbstractionConfig
    from ..io import holds_files, json_finite, write_atomic
    from ..match_equity import four_player as F
    from ..match_equity import two_player as M
    from ..match_equity.objective_4p import (
        equity_array,
        iterate,
        points_threshold_to_equity,
        read_table_4p,
        training_states,
    )
    from ..match_equity.sweep import Sweep, SweepError
    from ..rules.params import RULES_VERSION, VitouParams
    from ..solvers.checkpoint import CheckpointError
    from ..solvers.sampling.mccfr import TableFullError
    from ..solvers.sampling.mccfr_abstract import AbstractMCCFR
    from .abstract import schedule
    from .session import check_writable, claim_run_folder, new_folder, note

    def bad(msg: str) -> TrainingError:
        return TrainingError(msg)

    try:
        if args.resume:
            if not args.out:
                raise TrainingError("--resume needs --out FOLDER (the run to continue)")
            folder = Path(args.out)
            try:
                saved = json.loads((folder / "run.json").read_text())
                s = saved["settings"]
                state = json.loads((folder / "state.json").read_text())
            except (OSError, ValueError, KeyError, TypeError):
                raise TrainingError(f"--resume: no four-player --objective match run in "
                                    f"{folder} (run.json, state.json)") from None
            _check_resume_flags(args, s)
            if args.rounds is not None:
                if isinstance(args.rounds, bool) or not 1 <= args.rounds <= MAX_ROUNDS:
                    raise TrainingError(f"--rounds must be an integer in 1 .. {MAX_ROUNDS}, "
                                        f"got {args.rounds!r}")
                s["rounds"] = args.rounds
        else:
            s = _settings(args)
            state = {"round": 0, "trained": 0, "history": []}
            try:
                check_writable(args.out or "runs")
            except OSError as e:
                raise TrainingError(str(e)) from None
            if args.out and Path(args.out).exists() and holds_files(Path(args.out)):
                raise TrainingError(f"{args.out} is not empty; --resume continues it")
    except TrainingError:
        raise

    if args.out:  # one writer per run folder (vitou_ai.io.RunLock)
        folder = Path(args.out)
        claim_run_folder(folder, "train", args.command)
        folder.mkdir(parents=True, exist_ok=True)
    else:
        folder = new_folder("runs", f"{s['profile']}-match")
        claim_run_folder(folder, "train", args.command, made=True)
    params = VitouParams(profile=s["profile"], dealer=-1)
    t = params.target
    total = s["time"] * s["rounds"]
    abstraction = AbstractionConfig(**s["abstraction"])
    solver = AbstractMCCFR(params, abstraction, seed=s["seed"], max_infosets=s["max_infosets"],
                           threads=s["threads"],
                           prune_threshold=points_threshold_to_equity(-20.0, t),
                           **schedule(total, pruning="on"))
    if s.get("warm_policy"):
        try:
            solver.set_warm_start(_warm_policy(s["warm_policy"], params), 1.0 / t,
                                  WARM_PRIOR_VISITS)
        except ValueError as e:  # a TrainingError too
            raise bad(str(e)) from None
    if not args.resume:
        record = {"objective": "match", "players": 4, "rules_version": RULES_VERSION,
                  "settings": s, "start_table": s["table"] or "coin-flip",
                  "prune_after": solver.prune_after, "prune_threshold": solver.prune_threshold,
                  "discount_interval": solver.discount_interval,
                  "discount_intervals": solver.discount_intervals,
                  "training_states": "uniform over (score0, score1, dealer), scores < target",
                  "payoff": "team 0: E(after, dealer+1) - E(before, dealer); team 1: negated",
                  "command": args.command}
        write_atomic(folder / "run.json", (json.dumps(json_finite(record), indent=1) + "\n").encode())
        write_atomic(folder / "state.json", json.dumps(state).encode())
    else:  # the record says how far the run was taken, and by which commands
        saved["settings"] = s
        saved["resumes"] = [*saved.get("resumes", []), args.command]
        write_atomic(folder / "run.json", (json.dumps(json_finite(saved), indent=1) + "\n").encode())
    ckpt = folder / "checkpoint.npz"
    if state["trained"] > 0:
        try:
            solver.load(ckpt)
        except CheckpointError as e:
            raise bad(str(e)) from None
    # the table the next round trains against
    if state["round"] == 0:
        table = read_table_4p(s["table"], s["profile"], t) if s["table"] else coin_flip_table(t)
        se = None
        if s["table"]:
            states_csv = Path(s["table"]).with_name(Path(s["table"]).stem + "_states.csv")
            if states_csv.is_file():
                try:
                    se = _read_se(states_csv)
                except (OSError, KeyError, ValueError):
                    se = None
    else:
        rd = folder / f"round_{state['round']}"
        stem = F.output_stem(F.Config4p(policy=str(rd / "policy.npz"), profile=s["profile"],
                                        target=t, deals=s["table_deals"]))
        table = M.read_table_csv(rd / f"{stem}.csv")
        se = _read_se(rd / f"{stem}_states.csv")
    rows, weights = training_states(t)
    solver.warm_up()
    note("train", f"{s['profile']} --objective match: {s['rounds']} rounds of {s['time']:g} "
         f"solver seconds, {s['threads']} threads, table {solver.nbytes / 2 ** 30:.2f} GiB; "
         f"run folder {folder}")

    def train_round(r: int, tab) -> Path:
        rd = folder / f"round_{r}"
        if r <= state["trained"]:
            return rd / "policy.npz"
        solver.set_match_equity(equity_array(tab, t), rows, weights)
        until = r * s["time"]
        chunk = 200
        while solver.seconds < until:
            before = solver.seconds
            solver.iterate(chunk)
            spent = max(solver.seconds - before, 1e-6)
            chunk = int(max(50, min(chunk * 2, chunk * 5.0 / spent)))
        rd.mkdir(exist_ok=True)
        solver.save(ckpt)
        pol = solver.policy(name=f"{s['profile']}-match-r{r}")
        pol.mode = "match"  # its domain record: trained over every score state, for the match
        pol.save(rd / "policy.npz")
        state["trained"] = r
        state.setdefault("solver", {})[str(r)] = {
            "seconds": solver.seconds, "iterations": solver.iteration,
            "infosets": solver.num_infosets}
        write_atomic(folder / "state.json", json.dumps(state).encode())
        note("train", f"round {r}: {solver.iteration:,} iterations, {solver.seconds:.0f} s, "
             f"{solver.num_infosets:,} abstract information states")
        return rd / "policy.npz"

    def estimate(r: int, policy_path: Path):
        rd = folder / f"round_{r}"
        config = F.Config4p(policy=str(policy_path), profile=s["profile"], target=t,
                            deals=s["table_deals"])
        with Sweep(rd / "tasks", config.fingerprint(), backend="serial") as sweep:
            tab, sei, summary = F.run_table_4p(config, rd, sweep, replicates=s["bootstrap"])
        write_atomic(rd / "table.json", (json.dumps(json_finite(summary), indent=1) + "\n").encode())
        return tab, sei

    def on_round(row: dict) -> None:
        r = row["round"]
        info = state.get("solver", {}).get(str(r), {})
        pol = F.load_policy(str(folder / f"round_{r}" / "policy.npz"))
        row.update(solver_seconds=info.get("seconds"), iterations=info.get("iterations"),
                   infosets=info.get("infosets"), policy_infosets=len(pol.keys)
                   if hasattr(pol, "keys") else None)
        state["round"] = r
        state["history"].append(row)
        _write_history(folder, state["history"])
        write_atomic(folder / "state.json", json.dumps(state).encode())
        note("train", f"round {r}: table change max {row['max_abs']:.4f}, mean "
             f"{row['mean_abs']:.4f}, max z {row['max_z']:.2f} (criterion < "
             f"{row['z_crit']:.2f}){' converged' if row['converged'] else ''}")

    done = bool(state["history"]) and state["history"][-1]["converged"]
    try:
        if not done and state["round"] < s["rounds"]:
            iterate(table, se, train_round, estimate, s["rounds"], start_round=state["round"] + 1,
                    on_round=on_round)
    except TableFullError as e:
        raise bad(str(e)) from None
    except (SweepError, M.MatchEquityError, OSError) as e:
        raise bad(str(e)) from None
    last = folder / f"round_{state['round']}"
    stem = F.output_stem(F.Config4p(policy=str(last / "policy.npz"), profile=s["profile"],
                                    target=t, deals=s["table_deals"]))
    for src, dst in ((last / "policy.npz", "policy.npz"), (last / f"{stem}.csv", "table.csv")):
        with open(src, "rb") as f:  # whole or not at all; a full disk is one line (WriteError)
            write_atomic(folder / dst, lambda out, f=f: shutil.copyfileobj(f, out))
    h = state["history"][-1]
    print(f"match objective ({s['profile']}): {state['round']} rounds, last table change max "
          f"{h['max_abs']:.4f} (max z {h['max_z']:.2f}, criterion {h['z_crit']:.2f}: "
          f"{'converged' if h['converged'] else 'not converged'}) -> {folder / 'policy.npz'}",
          file=out)
    return folder
