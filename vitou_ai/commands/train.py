"""``vitou-ai train``: train a betting strategy, log its exploitability and win rates.

A run folder holds:

- ``run.json``: the run record (``settings``: game, solver and evaluation;
  ``RULES_VERSION``, package versions, git commit, seed, command line), rewritten
  at each evaluation with the latest figures. ``--resume --out FOLDER`` takes the
  settings from it and refuses a flag that contradicts them; the first command,
  seed and settings stay, and each resume's command is appended to ``resumes``;
- ``curve.csv``: one row per evaluation: iteration, wall seconds, nodes touched,
  the sampling solvers' table size (``infosets``), exploitability and the game
  value (``game_value``, seat 0's expected return; two players) or NashConv and team best-response gains (four players) where the exact game tree
  fits, and per opponent bot the win rate (Wilson 95% interval) and points per
  deal (95% interval) of the trained policy;
- ``curve.png``: the curves (without an exact evaluation, the table's growth);
- ``policy.npz``: the average policy as a tabular bot (``vitou_ai.bots.tabular``
  format, no pickle), usable as ``vitou-ai tournament --bots policy.npz random ...`` (same game
  size options);
- ``checkpoint.npz``: the solver's state; ``--resume`` continues from it (every
  solver but ``openspiel-cfr+``: :mod:`vitou_ai.solvers.openspiel_solvers`).

Ctrl-C or a kill loses at most one evaluation interval; Ctrl-C exits with code 130
and one line, and never cuts the writing of a checkpoint short. A kill while an
evaluation's files are written leaves ``run.json`` marked ``writing``; ``--resume`` then
takes the checkpoint (the newest complete state), rewrites the other files from it and
says so (:mod:`vitou_ai.commands.runs`). ``--resume`` says which checkpoint and iteration
it continues from, and refuses ``--iterations`` at or below it (nothing to run) and a
damaged checkpoint before the tree is built. Long silent phases
(building the tree, the first iterations) are announced by a line on stderr; the
progress bar is drawn only when stderr is a terminal.

One module because the command's steps (arguments, settings and their resume checks, the
plan, the training loop, evaluations, outputs) pass one plan and one settings dict
between private functions; what the abstract trainer shares with it is in
:mod:`vitou_ai.commands.runs`.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import shlex
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..io import WriteError, write_atomic
from ..resources import ResourceError, check_memory, check_seconds
from ..rules.params import ALL_PROFILES, RULES_VERSION, VitouParams
from ..solvers.protocol import Solver, make_solver, tree_summary
from .console import (
    EXIT_INTERRUPTED,
    SEED_RANGE,
    check_simulation_memory,
    check_writable,
    claim_run_folder,
    interrupted_line,
    interrupts_deferred,
    interrupts_ignored,
    new_folder,
    note,
    seed_error,
    show_progress,
)
from .runs import (
    _git_commit,
    _versions,
    _write_record,
    checkpoint_head,
    curve_rows,
    mark_writing,
    outputs_agree,
    reconcile_note,
    write_curve,
)

NATIVE = ("cfr", "cfr+", "dcfr", "pcfr+", "pdcfr+", "es-mccfr", "os-mccfr")
PUBLIC = ("public-cfr", "public-cfr+", "public-dcfr", "public-pcfr+", "public-pdcfr+")  # range-vector CFR on the public tree
ABSTRACT = "abstract-mccfr"  # four players: vitou_ai.commands.train_abstract
#: options of the abstract trainer only, and their defaults (refused with another solver:
#: they used to be ignored silently)
ABSTRACT_OPTIONS = {"threads": 2, "evals": 6, "eval_matches": 2000, "lbr_deals": 200,
                    "lbr_samples": 12, "pruning": "off"}
OPENSPIEL = ("openspiel-cfr", "openspiel-cfr+", "openspiel-es-mccfr", "openspiel-os-mccfr")
SOLVERS = NATIVE + PUBLIC + OPENSPIEL + (ABSTRACT,)
DEFAULT_BOTS = ("random", "cautious", "bluffer", "counter")

#: the largest tree a sampling solver builds with ``--exact auto`` (only for the exact
#: evaluation, so only trees quick to build; ``--exact yes`` builds to ``--max-tree-nodes``)
AUTO_TREE_NODES = 2_000_000

#: The settings that make a run, with their defaults: the game, the solver, the evaluation.
#: ``--resume`` takes them from the run's ``run.json``; a flag giving another value is
#: refused. The length of the run (``--iterations``, ``--time``), ``--eval-every``,
#: ``--max-tree-nodes`` and ``--no-progress`` may change from one resume to the next.
RUN_DEFAULTS: dict[str, Any] = {
    "profile": "vitou_2p", "ranks": None, "copies": 4, "hand_size": 2, "dealer": -1,
    "score0": 0, "score1": 0, "target": None, "early_end": "card", "signals": False,
    "signal_seen": 0.5,
    "solver": "dcfr", "seed": 0, "max_infosets": 1 << 22,
    "eval_deals": 20000, "bots": list(DEFAULT_BOTS), "exact": "auto",
}
GAME_SETTINGS = ("profile", "ranks", "copies", "hand_size", "dealer", "score0", "score1",
                 "target", "early_end", "signals", "signal_seen")


def _show(value: Any) -> str:
    """A setting as typed on the command line."""
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``vitou-ai train``."""

    def setting(flag: str, text: str, **kw) -> None:
        # default None: a flag left out is told apart from one given, for --resume
        default = RUN_DEFAULTS[flag[2:].replace("-", "_")]
        shown = ("the profile's" if flag == "--target" else
                 f"{default} for two-player profiles" if flag == "--solver" else
                 "the profile's whole deck" if flag == "--ranks" else _show(default))
        p.add_argument(flag, default=None, help=f"{text} (default: {shown}; with --resume: "
                       "the run's)", **kw)

    setting("--profile", "game profile (RULES.md section 9)",
            choices=ALL_PROFILES)
    setting("--ranks", "research variant: the top N ranks of the profile's deck (Vitou: "
            "T 9 A K Q J 8 7, so 8 is the whole deck)", type=int)
    setting("--copies", "research variant: copies of each rank", type=int)
    setting("--hand-size", "cards per hand (2 with the full deck: two-card hands; "
            "abstract-mccfr, the four-player default: 3)", type=int)
    setting("--dealer", "dealer seat; -1: drawn by chance, so the policy covers every seat",
            type=int)
    setting("--score0", "team 0's score before the deal", type=int)
    setting("--score1", "team 1's score before the deal", type=int)
    setting("--target", "match target, which decides the one-from-the-end rules (R6)",
            type=int)
    setting("--early-end", "when a decided deal stops (R3.2): after the card or the trick",
            choices=("card", "trick"))
    setting("--signals", "gestures (R7; four players)", action=argparse.BooleanOptionalAction)
    setting("--signal-seen", "probability that an opponent catches a gesture (R7.2)",
            type=float)
    setting("--solver", "native CFR / CFR+ / DCFR on the game tree or (public-*) on the public "
            "tree, native external- or outcome-sampling MCCFR, or OpenSpiel's C++ solvers; "
            f"four-player profiles default to {ABSTRACT}, and put_partnership (which the "
            f"abstract trainer refuses) to {FULL_GAME_DEFAULT}",
            choices=SOLVERS)
    setting("--seed", f"random seed of the MCCFR samples and of the evaluation deals, "
            f"{SEED_RANGE}", type=int)
    setting("--max-infosets", "MCCFR table capacity (information states; abstract-mccfr: "
            "8000000)", type=int)
    setting("--eval-deals", "deals per opponent bot at each evaluation (duplicate: seats "
            "swapped)", type=int)
    setting("--bots", "opponent bots of the evaluation, space-separated (the older "
            "comma-separated form is read too)", nargs="+", metavar="BOT")
    setting("--exact", "exact exploitability / NashConv on the full tree (auto: if it fits)",
            choices=("auto", "yes", "no"))
    p.add_argument("--objective", default="points", choices=("points", "match"),
                   help="points: points per deal at the given score (R8.1); match: the "
                   "probability of winning the match, a strategy for every score (vitou_2p: "
                   "vitou_ai.commands.train_match; vitou, vitou_cason: "
                   "vitou_ai.commands.train_match_4p)")
    p.add_argument("--table", default=None, metavar="CSV",
                   help="four-player --objective match: the match-equity table of the first "
                   "round (a four-player table of the same profile, e.g. "
                   "results/match_equity/vitou_4p.csv; default: the coin-flip table)")
    p.add_argument("--rounds", type=int, default=None,
                   help="four-player --objective match: at most this many rounds of policy -> "
                   "table -> policy (default 3; --time is per round)")
    p.add_argument("--warm-policy", default=None, metavar="NPZ",
                   help="four-player --objective match: start new rows from this abstract "
                   "policy (e.g. results/train_4p/policy.npz, the points policy)")
    p.add_argument("--table-deals", type=int, default=None,
                   help="four-player --objective match: simulated deals per score state and "
                   "dealer for each round's table (default 1000)")
    p.add_argument("--abstraction", default=None,
                   help="abstract-mccfr: knobs, e.g. count=1,trick=exact (docs/abstraction.md)")
    p.add_argument("--pruning", choices=("on", "off"), default=None,
                   help="abstract-mccfr: regret-based pruning after 10%% of --time (after 60 s "
                   "of solver time without --time; Pluribus); default off: the exact sweep "
                   "measured it raising NashConv at equal time more often than not "
                   "(docs/results/sweep-4p.md); runs before 2026-12-03 had it on")
    p.add_argument("--threads", type=int, default=None,
                   help="abstract-mccfr: worker threads, 1 .. the machine's cores (2 on a "
                   "one-core machine); default 2")
    p.add_argument("--evals", type=int, default=None,
                   help="abstract-mccfr: evaluations in the run (default 6)")
    p.add_argument("--eval-matches", type=int, default=None,
                   help="abstract-mccfr: matches (at the game's target) per bot at each evaluation "
                   "(0: none; default 2000)")
    p.add_argument("--lbr-deals", type=int, default=None,
                   help="abstract-mccfr: deals per team for the LBR bound (0: none; "
                   "default 200)")
    p.add_argument("--lbr-samples", type=int, default=None,
                   help="abstract-mccfr: sampled worlds per LBR decision (default 12; at "
                   "least 8: with fewer the deviation tests' noise passes for gain)")
    p.add_argument("--iterations", type=int, default=None,
                   help="stop after this many iterations in all (default 1000; MCCFR: "
                   "200000; with --resume: the run's)")
    p.add_argument("--time", type=float, default=None,
                   help="stop after this many seconds of solver time (default: no limit; "
                   "abstract-mccfr: 3000 unless --iterations is given)")
    p.add_argument("--eval-every", type=int, default=None,
                   help="iterations between evaluations (default: iterations / 10; with "
                   "--resume: the run's)")
    p.add_argument("--max-tree-nodes", type=int, default=30_000_000,
                   help="largest game tree to build; a sampling solver (es-/os-mccfr) "
                   f"with --exact auto builds one of at most {AUTO_TREE_NODES:,} nodes (it "
                   "only serves the exact evaluation), or none")
    p.add_argument("--out", default=None,
                   help="run folder (default: a new runs/<profile>-<solver>-<time>)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --out with its own settings")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (there is none when stderr is not a terminal)")


class _BadInput(ValueError):
    """Input ``vitou-ai train`` refuses: one line, printed without a traceback."""


def _given(args: argparse.Namespace) -> dict[str, Any]:
    """The run settings given on the command line."""
    from ..bots.named import split_bot_specs

    given = {k: getattr(args, k) for k in RUN_DEFAULTS if getattr(args, k, None) is not None}
    if "bots" in given:
        try:
            given["bots"] = split_bot_specs(given["bots"])
        except ValueError as e:
            raise _BadInput(str(e)) from None
    return given


def _recorded_settings(saved: dict[str, Any], where: Path) -> dict[str, Any]:
    """The settings of a run from its ``run.json`` (``settings``; for runs written before
    it existed, rebuilt from ``params``, ``solver``, ``seed``, ``eval_deals``, ``bots``).

    Raises:
        _BadInput: a record without them.
    """
    if isinstance(saved.get("settings"), dict):
        return dict(saved["settings"])
    try:
        knobs = dict(saved["params"])
        params = VitouParams(**{k: tuple(v) if k == "scores" else v for k, v in knobs.items()})
        out = {k: getattr(params, k) for k in GAME_SETTINGS if hasattr(params, k)}
        out["score0"], out["score1"] = params.scores
        for k in ("solver", "seed", "eval_deals", "bots"):
            out[k] = saved[k]
    except (KeyError, TypeError, ValueError) as e:
        raise _BadInput(f"--resume: {where} does not record the run's settings ({e})") from None
    return out


def _settings(args: argparse.Namespace, saved: dict[str, Any] | None,
              where: Path) -> dict[str, Any]:
    """The run's settings: a new run's from the flags over :data:`RUN_DEFAULTS`; a resumed
    run's from its record, where a flag that differs is refused.

    Raises:
        _BadInput: a flag that conflicts with the resumed run's settings.
    """
    given = _given(args)
    if saved is None:
        return {**RUN_DEFAULTS, **given}
    recorded = _recorded_settings(saved, where)
    for k, v in given.items():
        if k in recorded and v != recorded[k]:
            flag = "--" + k.replace("_", "-")
            raise _BadInput(f"{flag} {_show(v)} conflicts with the run's {_show(recorded[k])} "
                            f"({where}): leave it out to resume the run as it was")
    return {**RUN_DEFAULTS, **given, **recorded}


def _params(s: dict[str, Any]) -> VitouParams:
    return VitouParams(profile=s["profile"], ranks=s["ranks"], copies=s["copies"],
                       hand_size=s["hand_size"], dealer=s["dealer"],
                       scores=(s["score0"], s["score1"]), target=s["target"],
                       early_end=s["early_end"], signals=s["signals"],
                       signal_seen=s["signal_seen"])


# ---- solvers (vitou_ai.solvers.protocol) -----------------------------------------------------


def _resumable(solver: str) -> bool:
    """Whether the solver writes a checkpoint that ``--resume`` continues exactly."""
    from ..solvers.openspiel_solvers import RESUMABLE

    return solver in NATIVE or solver in PUBLIC or solver in RESUMABLE


# ---- evaluation ----------------------------------------------------------------------------


def _mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% t interval; NaN bounds below 30 values or without variation
    (:mod:`vitou_ai.eval.stats`)."""
    from ..eval.stats import mean_interval

    return mean_interval(x)


def _against_bots(adapter: Solver, bots: list[str], s: dict[str, Any]) -> dict[str, Any]:
    from ..bots.named import parse_bot
    from ..eval.stats import wilson_interval
    from ..sim.batch import simulate

    mine = adapter.tabular_policy("trained")
    params = adapter.params
    out: dict[str, Any] = {}
    half = max(1, s["eval_deals"] // 2)
    for b in bots:
        bot = parse_bot(b)
        lineup = [mine, bot] if params.players == 2 else [mine, bot, mine, bot]
        # the policy in training, as it is: unvisited states play its fallback
        res = simulate(params, lineup, 2 * half, seed=s["seed"] + 1, duplicate=True,
                       allow_fallback=True)
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


EXACT_KEYS = ("exploitability", "nash_conv", "team0_br_gain", "team1_br_gain",
              "team0_pooled_gain", "team1_pooled_gain")


def _figure(rows: list[dict[str, Any]], bots: list[str], title: str):
    """The curves of a run as a matplotlib figure, one panel per thing measured.

    Left, what is known of the policy's distance to equilibrium: the exact
    exploitability / NashConv against solver time where the tree fits; otherwise the
    growth of the sampling solver's table (information states against iterations), or
    failing that the nodes it touched. Right, points per deal against each bot. A panel
    with nothing to draw is left out, never shown empty.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    it = [r["iteration"] for r in rows]
    exact = [k for k in EXACT_KEYS
             if any(isinstance(r.get(k), float) and r[k] > 0 for r in rows)]
    growth = next((k for k in ("infosets", "nodes_touched")
                   if any(isinstance(r.get(k), int) and r[k] > 0 for r in rows)), None)
    fig, axes = plt.subplots(1, 2 if exact or growth else 1, figsize=(11, 4), squeeze=False)
    axes = list(axes[0])
    if exact:
        ax = axes.pop(0)
        for key in exact:
            ax.plot([r["seconds"] for r in rows], [r.get(key) for r in rows], marker="o",
                    label=key)
        ax.set_xlabel("solver wall time (s)")
        ax.set_ylabel("points per deal")
        ax.set_yscale("log")
        ax.set_title("exact evaluation")
        ax.legend()
    elif growth:
        ax = axes.pop(0)
        ax.plot(it, [r.get(growth) for r in rows], marker="o", color="tab:purple")
        ax.set_xlabel("iteration")
        ax.set_ylabel("information states in the table" if growth == "infosets"
                      else "nodes touched")
        ax.set_title("no exact evaluation (the tree is too large):\n"
                     + ("the table's growth" if growth == "infosets" else "the work done"))
    ax = axes.pop(0)
    for b in bots:
        ys = [r.get(f"{b}_ppd") for r in rows]
        lo = [r.get(f"{b}_ppd_lo") for r in rows]
        hi = [r.get(f"{b}_ppd_hi") for r in rows]
        ax.plot(it, ys, marker="o", label=f"vs {b}")
        ax.fill_between(it, lo, hi, alpha=0.2)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("iteration")
    ax.set_ylabel("points per deal (95% CI)")
    ax.set_title("trained policy against bots")
    ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def _plot(rows: list[dict[str, Any]], bots: list[str], path: Path, title: str) -> None:
    import matplotlib.pyplot as plt

    fig = _figure(rows, bots, title)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(path, buf.getvalue())


# ---- the command -------------------------------------------------------------------------


def run(args: argparse.Namespace, out=None) -> int:
    """Run ``vitou-ai train``; returns the exit code (0 done, 2 bad input, 130 interrupted).

    Every refusal is one line on stderr, given before any work (or, for a tree too large,
    after trying to build it) and leaving nothing behind.
    """
    out = out or sys.stdout
    if getattr(args, "out", None):
        try:  # one writer per run folder, before its files are read (vitou_ai.io.RunLock)
            check_writable(args.out)
            claim_run_folder(args.out, "train", command_line(args))
        except OSError as e:
            print(f"vitou-ai train: {e}", file=sys.stderr)
            return 2
    if getattr(args, "objective", "points") == "match" and getattr(args, "pruning", None):
        print("vitou-ai train: --pruning applies to --objective points only (the match "
              "objective's four-player trainer keeps pruning on, docs/abstraction.md)",
              file=sys.stderr)
        return 2
    if getattr(args, "objective", "points") == "match":
        four = (args.profile or RUN_DEFAULTS["profile"]) in ("vitou", "vitou_cason")
        if args.resume and args.out:  # a resumed run is routed by what its folder holds
            four = (Path(args.out) / "state.json").exists() or (
                four and not _two_player_match_run(args.out))
        if four:
            from . import train_match_4p

            return train_match_4p.run(args, out)
        from . import train_match

        return train_match.run(args, RUN_DEFAULTS, out)
    for flag, name in (("--table", "table"), ("--rounds", "rounds"),
                       ("--table-deals", "table_deals"), ("--warm-policy", "warm_policy")):
        if getattr(args, name, None) is not None:
            print(f"vitou-ai train: {flag} applies to four-player --objective match only",
                  file=sys.stderr)
            return 2
    try:
        args = _full_game_default(args, out)
        abstract = _abstract_route(args)
        if abstract is not None:
            from . import train_abstract

            ns, params = abstract
            for k, default in ABSTRACT_OPTIONS.items():
                if getattr(ns, k, None) is None:
                    setattr(ns, k, default)
            return train_abstract.run(ns, params, out)
        # the abstract trainer's own options, given on this command line (None: not given)
        given = [f"--{k.replace('_', '-')}" for k in ("abstraction", *ABSTRACT_OPTIONS)
                 if getattr(args, k, None) is not None]
        if given:
            raise _BadInput(f"{given[0]} applies to --solver abstract-mccfr only (the default "
                            "for every four-player profile); this run's solver "
                            + ("reads the real game's information states"
                               if given[0] == "--abstraction" else "does not use it"))
        plan = _plan(args)
    except _BadInput as e:
        print(f"vitou-ai train: {e}", file=sys.stderr)
        return 2
    return _train(plan, out)


def command_line(args: argparse.Namespace) -> str:
    """The command as typed (``vitou-ai train ...``), for run records and the run lock."""
    argv = getattr(args, "argv", None)
    return "vitou-ai " + shlex.join(argv) if argv is not None else shlex.join(sys.argv)


def _two_player_match_run(folder: str) -> bool:
    """Whether ``folder`` holds a two-player ``--objective match`` run (a ``tasks/`` folder
    and no four-player ``state.json``)."""
    return (Path(folder) / "tasks").is_dir() and not (Path(folder) / "state.json").exists()


#: the default solver of a four-player game the abstract trainer refuses (it samples the
#: full game: no abstraction, no tree)
FULL_GAME_DEFAULT = "es-mccfr"


def _full_game_default(args: argparse.Namespace, out) -> argparse.Namespace:
    """``args`` with ``--solver es-mccfr`` when none is given, the run is new and the game
    has four players but the abstract trainer (the four-player default) refuses it
    (:mod:`vitou_ai.capabilities`: partnership Put); that choice is printed on ``out`` as
    the first line. Otherwise ``args`` unchanged."""
    from ..capabilities import cell

    profile = args.profile or RUN_DEFAULTS["profile"]
    if args.solver is not None or args.resume or not _four_players(profile):
        return args
    c = cell(profile, "abstract")
    if c.works:
        return args
    print(f"vitou-ai train: solver {FULL_GAME_DEFAULT} (the four-player default, "
          f"{ABSTRACT}, does not take {profile}: {c.reason}); pass --solver to choose another",
          file=out, flush=True)
    return argparse.Namespace(**{**vars(args), "solver": FULL_GAME_DEFAULT})


def _abstract_route(args: argparse.Namespace):
    """``(args, params)`` for :mod:`vitou_ai.commands.train_abstract` when the run is a four-player
    abstract-MCCFR run (``--solver abstract-mccfr``, the default for every four-player
    profile: vitou, vitou_cason, truc_catalan, truc_1912, trut; hands default to three
    cards), else ``None``."""
    from ..bots.named import split_bot_specs

    if args.resume and args.out and (Path(args.out) / "run.json").exists():
        try:
            rec = json.loads((Path(args.out) / "run.json").read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(rec, dict) or rec.get("solver") != "abstract-es-mccfr":
            return None
        knobs = dict(rec["params"])
        s = {"bots": rec.get("bots", list(DEFAULT_BOTS)), "seed": rec.get("seed", 0),
             "eval_deals": rec.get("eval_deals", 20000),
             "max_infosets": rec.get("max_infosets", 8_000_000)}
        try:
            params = VitouParams(**{k: tuple(v) if k == "scores" else v for k, v in knobs.items()})
        except (TypeError, ValueError) as e:
            raise _BadInput(f"--resume: {args.out}/run.json: {e}") from None
    else:
        profile = args.profile or RUN_DEFAULTS["profile"]
        if not (args.solver == ABSTRACT
                or (args.solver is None and _four_players(profile))):
            return None
        # ranks None: the profile's whole deck (Catalan's 40 cards are 10 ranks, C1.3)
        s = {**RUN_DEFAULTS, "ranks": None, "hand_size": 3, "max_infosets": 8_000_000,
             **_given(args)}
        try:
            params = _params(s)
        except (ValueError, TypeError) as e:
            raise _BadInput(str(e)) from None
    ns = argparse.Namespace(**vars(args))
    ns.bots = split_bot_specs([s["bots"]] if isinstance(s["bots"], str) else s["bots"])
    ns.seed, ns.eval_deals, ns.max_infosets = s["seed"], s["eval_deals"], s["max_infosets"]
    if args.resume and "rec" in locals():
        # a resumed run keeps its own settings: those not given again come from run.json
        # (they were the defaults before, so a resume evaluated and recorded differently)
        for k in ABSTRACT_OPTIONS:
            if getattr(args, k, None) is None and rec.get(k) is not None:
                setattr(ns, k, rec[k])
        if getattr(args, "pruning", None) is None and "pruning" not in rec:
            # a run from before the knob: it pruned (after 0.1 T or 60 s)
            ns.pruning = "on"
        if getattr(args, "abstraction", None) is None and isinstance(rec.get("abstraction"),
                                                                      dict):
            ns.abstraction = ",".join(f"{k}={v}" for k, v in rec["abstraction"].items()
                                      if v is not None)
    return ns, params


def _four_players(profile: str) -> bool:
    """Whether the profile is a four-player game (its default solver is abstract-mccfr)."""
    try:
        return VitouParams(profile=profile).players == 4
    except (TypeError, ValueError):
        return False  # an unknown profile: refused by the flat-tree path, with its message


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


def _plan(args: argparse.Namespace) -> _Plan:
    """Check the command; read the run to resume. Raises :class:`_BadInput`."""
    from ..bots.named import check_bot_fits, parse_bot

    if args.resume and not args.out:
        raise _BadInput("--resume needs --out, the run folder to continue")
    folder = Path(args.out) if args.out else None
    try:
        check_writable(folder if folder is not None else "runs")  # before the tree is built
    except OSError as e:
        raise _BadInput(str(e)) from None
    saved: dict[str, Any] | None = None
    if args.resume:
        if not (folder / "run.json").exists():
            raise _BadInput(f"--resume: no run in {folder}")
        try:
            saved = json.loads((folder / "run.json").read_text())
        except (OSError, ValueError) as e:
            raise _BadInput(f"--resume: cannot read {folder / 'run.json'}: {e}") from None
        if not isinstance(saved, dict):
            raise _BadInput(f"--resume: {folder / 'run.json'} is not a run record")
        if saved.get("objective") == "match" and saved.get("players") == 4:
            raise _BadInput(f"--resume: {folder} is a four-player --objective match run: "
                            "continue it with --objective match --resume --out "
                            f"{folder}")
        if saved.get("objective") == "match":
            raise _BadInput(f"--resume: {folder} is an --objective match run; it is complete "
                            "(its policy covers every score): train another with "
                            "--objective match and a new --out")
    elif folder is not None and (folder / "run.json").exists():
        raise _BadInput(f"{folder} holds a run already: continue it with --resume, or choose "
                        "another --out")
    s = _settings(args, saved, folder / "run.json" if folder else Path("run.json"))
    if s["solver"] not in SOLVERS:
        raise _BadInput(f"unknown solver {s['solver']!r}; expected one of {', '.join(SOLVERS)}")
    if args.resume and not _resumable(s["solver"]):
        raise _BadInput(f"{s['solver']} writes no checkpoint (OpenSpiel's CFR+ does not "
                        "continue the same run when read back), so its runs cannot be resumed")
    try:
        params = _params(s)
    except (ValueError, TypeError) as e:
        raise _BadInput(str(e)) from None
    s["target"] = params.target  # the profile's default made explicit, for --resume
    if s["solver"] in PUBLIC:
        from ..solvers.public.tree import check_public_params

        try:
            check_public_params(params)
        except ValueError as e:
            raise _BadInput(f"--solver {s['solver']}: {e}") from None
    mccfr = s["solver"].endswith("mccfr")
    saved = saved or {}
    # the run's own length and evaluation interval unless given again
    iterations = args.iterations if args.iterations is not None else saved.get(
        "iterations", 200_000 if mccfr else 1000)
    every = args.eval_every if args.eval_every is not None else saved.get(
        "eval_every", max(1, iterations // 10))
    bots = s["bots"]
    if not bots:
        raise _BadInput("--bots needs at least one bot to evaluate against")
    try:
        for b in bots:  # a policy of another game is refused as tournament and play do
            check_bot_fits(parse_bot(b), params)
    except (ValueError, OSError) as e:
        raise _BadInput(f"--bots: {e}") from None
    if iterations < 1 or every < 1 or s["eval_deals"] < 2:
        raise _BadInput("--iterations, --eval-every must be >= 1, --eval-deals >= 2")
    start = (_resume_point(folder, saved, iterations, args.iterations, args.time)
             if args.resume else None)
    if seed_error(s["seed"]):
        raise _BadInput(seed_error(s["seed"]))
    if s["max_infosets"] < 1:
        raise _BadInput(f"--max-infosets must be positive, got {s['max_infosets']}")
    if args.max_tree_nodes < 1:
        raise _BadInput(f"--max-tree-nodes must be positive, got {args.max_tree_nodes}")
    if s["solver"] in PUBLIC and args.max_tree_nodes >= 2**31:
        # public trees index nodes in 32 bits (public_tree.build_public_tree)
        raise _BadInput(f"--max-tree-nodes must be below 2**31 for --solver {s['solver']}, "
                        f"got {args.max_tree_nodes:,}")
    if args.time is not None:
        try:
            check_seconds(args.time, "--time")
        except (TypeError, ValueError) as e:
            raise _BadInput(str(e)) from None
    try:  # the memory the counts allocate, before the tree is built or the folder made
        if s["solver"] in ("es-mccfr", "os-mccfr"):
            from ..solvers.sampling.mccfr import table_bytes

            check_memory(table_bytes(params, s["max_infosets"]),
                         f"--max-infosets {s['max_infosets']:,}",
                         "lower it (the table is allocated whole)")
        check_simulation_memory(2 * max(1, s["eval_deals"] // 2),
                                f"--eval-deals {s['eval_deals']:,}")
    except ValueError as e:
        raise _BadInput(str(e)) from None
    from ..capabilities import UnsupportedGameError, require

    tool = ("public_tree" if s["solver"] in PUBLIC else "mccfr"
            if s["solver"] in ("es-mccfr", "os-mccfr") else "flat_tree")
    try:  # the solver's own tool, before any work (Willughby's Put: refused, P7.5)
        require(tool, params)
    except UnsupportedGameError as e:
        raise _BadInput(str(e)) from None
    command = command_line(args)
    return _Plan(settings=s, params=params, folder=folder, saved=saved, resume=args.resume,
                 iterations=iterations, every=every, bots=bots, time=args.time,
                 max_tree_nodes=args.max_tree_nodes, no_progress=args.no_progress,
                 command=command, start=start)


def _resume_point(folder: Path, saved: dict[str, Any], iterations: int,
                  given: int | None, time_limit: float | None = None) -> int | None:
    """The iteration ``--resume`` continues from: the checkpoint's, read and checked
    whole before the tree is built (``None``: the run was stopped during its first
    evaluation, before any checkpoint; it starts again from iteration 0).

    Raises:
        _BadInput: a damaged or missing checkpoint; ``--iterations`` below the
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
        raise _BadInput(f"cannot resume: {e}") from None
    start, spent = head["iteration"], head.get("seconds")
    if (time_limit is not None and isinstance(spent, int | float) and spent >= time_limit
            and outputs_agree(folder, saved, start)):
        raise _BadInput(f"{ck} is at iteration {start:,} after {spent:.1f} s of solver time: "
                        f"--time {time_limit:g} (solver seconds in all, earlier sessions "
                        f"included) leaves nothing to run; give more than {spent:.1f} to "
                        "continue it")
    if iterations < start:
        raise _BadInput(f"--iterations {iterations} is below the {start:,} iterations the run "
                        f"has done ({ck}): give more to continue it")
    if iterations == start and outputs_agree(folder, saved, start):
        told = (f"--iterations {iterations} leaves nothing to run" if given is not None else
                f"the run is complete (its --iterations is {iterations})")
        raise _BadInput(f"{ck} is at iteration {start:,}: {told}; give --iterations above "
                        f"{start} to continue it")
    return start


def _build_tree(plan: _Plan):
    """The game tree when the solver needs it or exact evaluation is wanted (``None``
    when "auto" finds it too large). Raises :class:`_BadInput` when a needed tree does
    not fit in ``--max-tree-nodes``."""
    s = plan.settings
    if s["solver"] in PUBLIC:
        from ..solvers.public.tree import build_public_tree

        note("train", f"building the public tree (at most {plan.max_tree_nodes:,} nodes)...")
        try:
            return build_public_tree(plan.params, max_nodes=plan.max_tree_nodes)
        except ValueError as e:
            raise _BadInput(f"{e} (public-tree solvers: raise --max-tree-nodes, or use "
                            "dcfr / es-mccfr)") from None
    need = s["solver"] in ("cfr", "cfr+", "dcfr", "pcfr+", "pdcfr+") or s["solver"] in OPENSPIEL
    if not need and s["exact"] == "no":
        return None
    from ..solvers.flat.tree import build_tree, check_tree_actions

    try:  # decisions wider than the tree's tables (truc_1912, F3.3): refused before the build
        check_tree_actions(plan.params)
    except ValueError as e:
        if need:
            raise _BadInput(str(e)) from None
        if s["exact"] == "yes":  # the sampling solver runs without the tree: --exact is the cause
            why = str(e).partition(": use ")[0]
            raise _BadInput(f"--exact yes needs the game tree, and {why}: drop --exact yes "
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
            raise _BadInput(str(e)) from None  # more nodes would not help
        if need or s["exact"] == "yes":
            hint = "raise --max-tree-nodes" + (
                "" if s["solver"].endswith("mccfr") else ", or use es-mccfr / os-mccfr")
            raise _BadInput(f"{e} ({hint})") from None
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
            "rules_version": RULES_VERSION, "git_commit": _git_commit(),
            "versions": _versions()}]
        return rec
    return {
        "command": plan.command, "rules_version": RULES_VERSION, "seed": s["seed"],
        "solver": s["solver"], "settings": s,
        "params": {**plan.params.knobs(), "profile": plan.params.profile},
        "iterations": plan.iterations, "eval_every": plan.every, "eval_deals": s["eval_deals"],
        "bots": plan.bots, "versions": _versions(), "git_commit": _git_commit(),
        "started": stamp, "tree": tree_info, "resumes": [],
    }


def _train(plan: _Plan, out) -> int:
    """Build, resume, iterate and evaluate; Ctrl-C at any point exits 130 with one line
    and keeps the last evaluation's outputs (written whole: Ctrl-C waits for them)."""
    s = plan.settings
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    rows: list[dict[str, Any]] = []
    adapter: Solver | None = None
    created: Path | None = None
    bar = None
    code = 0
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
            raise _BadInput(f"--out {plan.folder}: {e.strerror or e}") from None
        folder = plan.folder
        pp = plan.params
        print(f"vitou-ai train: {pp.profile} ({pp.ranks} ranks x {pp.copies} copies, "
              f"{pp.hand_size}-card hands) {s['solver']}; "
              + (f"{tree_summary(tree)[1]} ({build_s:.1f} s); " if tree else
                 "no exact evaluation (" + ("--exact no" if s["exact"] == "no" else
                                            "the tree is too large") + "); ")
              + f"run folder {folder}", file=out, flush=True)
        try:
            adapter = make_solver(s["solver"], plan.params, tree, seed=s["seed"],
                                  max_infosets=s["max_infosets"])
        except ValueError as e:
            raise _BadInput(str(e)) from None
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
                if s["solver"] in NATIVE or s["solver"] in PUBLIC else ""))
        while adapter.iterations_done < plan.iterations:
            if plan.time and adapter.solver_seconds() >= plan.time:
                break  # a resume whose --time was spent already: not one more iteration
            # up to the next multiple of --eval-every (a --time stop may leave the last
            # evaluation off the grid; a resumed run goes back onto it)
            done = adapter.iterations_done
            step = min(plan.every - done % plan.every, plan.iterations - done)
            ran = _advance(adapter, step, plan.time)
            if bar:
                bar.update(ran)
            row = _evaluate(adapter, plan.bots, s)
            rows.append(row)
            last = adapter.iterations_done >= plan.iterations or bool(
                plan.time and adapter.solver_seconds() >= plan.time)
            with interrupts_deferred():  # the checkpoint and its outputs, whole
                _write_outputs(folder, adapter, rows, plan.bots, record, plan.params,
                               explore_index=last)
            if bar:
                bar.set_postfix_str(_short(row))
            else:
                print(_short(row), file=out, flush=True)
            if plan.time and adapter.solver_seconds() >= plan.time:
                break
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
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
            print("\n" + interrupted_line("vitou-ai train", kept), file=sys.stderr, flush=True)
    except _BadInput as e:
        code = 2
        print(f"vitou-ai train: {e}", file=sys.stderr)
    except WriteError as e:  # a full disk, a quota, a read-only file system: one line
        code = 2
        resumable = plan.folder is not None and (plan.folder / "checkpoint.npz").exists()
        print(f"\nvitou-ai train: {e}" + ("; --resume continues from the last checkpoint "
                                          "once the file can be written" if resumable else ""),
              file=sys.stderr)
    except RuntimeError as e:  # TableFullError: the MCCFR table reached --max-infosets
        code = 2
        kept = ("the last evaluation's checkpoint and outputs are kept" if rows else
                "no evaluation was reached, nothing was saved")
        print(f"\nvitou-ai train: {e} ({kept})", file=sys.stderr)
    finally:
        if bar:
            bar.close()
    if code == 0:
        print(f"done: {adapter.iterations_done} iterations; " + (_short(rows[-1]) if rows else "")
              + f"\nrun folder: {plan.folder}", file=out)
    return code


#: longest stretch of solver time between two checkpoints, in seconds: a run whose
#: evaluations are far apart (``--iterations`` of 10**12) still saves this often
CHECKPOINT_SECONDS = 1800.0


def _advance(adapter: Solver, n: int, limit: float | None) -> int:
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
    """Load the checkpoint; the curve rows up to it. Raises :class:`_BadInput`."""
    from ..solvers.flat.cfr import CheckpointError

    try:
        adapter.load(folder / "checkpoint.npz")
    except CheckpointError as e:
        raise _BadInput(f"cannot resume: {e}") from None
    return [r for r in curve_rows(folder) if r["iteration"] <= adapter.iterations_done]


def _reconcile(plan: _Plan, adapter: Solver, rows: list[dict[str, Any]],
               record: dict[str, Any], out) -> None:
    """Say what ``--resume`` continues from; when the run folder's files do not all
    belong to that checkpoint (a kill during an evaluation), rewrite them from it:
    the checkpoint is the newest complete state (:mod:`vitou_ai.commands.runs`)."""
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
        rows.append(_evaluate(adapter, plan.bots, plan.settings))
    with interrupts_deferred():
        _write_outputs(folder, adapter, rows, plan.bots, record, plan.params, checkpoint=False)


def _short(row: dict[str, Any]) -> str:
    parts = [f"it {row['iteration']}"]
    for k in ("exploitability", "nash_conv"):
        if isinstance(row.get(k), float):
            parts.append(f"{k} {row[k]:.5f}")
    if isinstance(row.get("infosets"), int):
        parts.append(f"{row['infosets']:,} infosets")
    for k, v in row.items():
        if k.endswith("_ppd") and not k.endswith("_lo") and isinstance(v, float):
            parts.append(f"vs {k[:-4]} {v:+.3f}")
    return ", ".join(parts)


def _evaluate(adapter: Solver, bots: list[str], s: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"iteration": adapter.iterations_done,
                           "seconds": round(adapter.solver_seconds(), 3),
                           "nodes_touched": adapter.nodes_touched}
    if adapter.table_size is not None:
        row["infosets"] = adapter.table_size
    if s["exact"] != "no":
        row.update(adapter.exact_evaluation() or {})
    for b, r in _against_bots(adapter, bots, s).items():
        row[f"{b}_win"] = r["win_rate"]
        row[f"{b}_win_lo"] = r["win_lo"]
        row[f"{b}_win_hi"] = r["win_hi"]
        row[f"{b}_ppd"] = r["points_per_deal"]
        row[f"{b}_ppd_lo"] = r["ppd_lo"]
        row[f"{b}_ppd_hi"] = r["ppd_hi"]
    return row


def _explore_index(policy, path: Path, params: VitouParams) -> None:
    """The explorer's index of a large policy (:func:`_write_outputs`); skipped, with a
    note, where it cannot be written (the explorer then builds it on first open)."""
    from ..capabilities import UnsupportedGameError, require
    from ..explore.mapped import write_index
    from ..explore.model import MAP_ROWS

    if len(policy) < MAP_ROWS:
        return
    try:
        require("explore", params)
    except UnsupportedGameError:
        return
    t0 = time.perf_counter()
    try:
        index = write_index(policy, path)
    except OSError as e:
        note("train", f"the explorer's index was not written ({e}); vitou-ai explore "
                      "builds it on first open")
        return
    note("train", f"explorer index of {len(policy):,} information sets written to {index} "
                  f"({time.perf_counter() - t0:.0f} s)")


def _write_outputs(folder: Path, adapter: Solver, rows, bots, record, params,
                   checkpoint: bool = True, explore_index: bool = False) -> None:
    """An evaluation's files, in the order that lets ``--resume`` tell a complete one
    from one cut short by a kill (:mod:`vitou_ai.commands.runs`): ``run.json`` marked
    ``writing``, the policy, the curve and its plot, the checkpoint, ``run.json``.

    With ``explore_index`` (the run's last evaluation), a policy of at least
    :data:`vitou_ai.explore.model.MAP_ROWS` rows of a game the explorer takes also gets
    its memory-mapped index (``policy.npz.explore/``, :func:`vitou_ai.explore.mapped.
    write_index`), so that ``vitou-ai explore`` opens the run at once."""
    done = adapter.iterations_done
    if (folder / "run.json").exists():
        try:
            before = json.loads((folder / "run.json").read_text())
        except (OSError, ValueError):
            before = None
        mark_writing(folder, before if isinstance(before, dict) else record, done)
    else:
        mark_writing(folder, record, done)
    policy = adapter.tabular_policy(f"{params.profile}-{adapter.name}")
    policy.save(folder / "policy.npz")
    if explore_index:
        _explore_index(policy, folder / "policy.npz", params)
    del policy
    write_curve(folder, rows)
    _plot(rows, bots, folder / "curve.png", f"{params.profile} — {adapter.name}")
    if checkpoint and adapter.resumable:
        adapter.save(folder / "checkpoint.npz")
    _write_record(folder, dict(record, latest=rows[-1], iterations_done=done))
