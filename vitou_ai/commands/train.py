"""``vitou-ai train``: train a betting strategy, log its exploitability and win rates.

The command maps its arguments onto the library's settings
(:class:`vitou_ai.training.PointsSettings`; :func:`vitou_ai.training.choose_trainer`
picks the abstract trainer's where the run is one) and prints what the trainers report
or refuse; the training loops, evaluations, checkpoints and the run-folder format are in
:mod:`vitou_ai.training` (the files of a run folder: :mod:`vitou_ai.training.points`).
The match objective's flags are mapped by :mod:`vitou_ai.commands.train_match` (two
players, trainer :mod:`vitou_ai.training.match`) and :mod:`vitou_ai.commands.train_match_4p`
(four, :mod:`vitou_ai.training.match4p`).

Every refusal is one line on stderr, before any work, exit code 2; Ctrl-C exits with
code 130 and one line, and never cuts the writing of a checkpoint short. Long silent
phases (building the tree, the first iterations) are announced by a line on stderr; the
progress bar is drawn only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from ..rules.params import ALL_PROFILES
from ..solvers.registry import SOLVERS as REGISTRY
from ..solvers.registry import names
from ..training import PointsSettings, TrainingError, TrainingInterrupted, choose_trainer, train
from ..training.dispatch import TWO_PLAYER_DEFAULT, match_trainer
from ..training.settings import (  # noqa: F401  (the command's names)
    ABSTRACT_OPTIONS,
    AUTO_TREE_NODES,
    DEFAULT_BOTS,
    FULL_GAME_DEFAULT,
    GAME_SETTINGS,
    RUN_DEFAULTS,
    field_names,
)
from ..training.settings import show_setting as _show
from .console import SEED_RANGE, check_writable, claim_run_folder, interrupted_line

#: the solvers' names, their families and defaults: vitou_ai.solvers.registry
SOLVERS = tuple(REGISTRY)
ABSTRACT = names("abstract")[0]  # four players: vitou_ai.training.abstract


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``vitou-ai train``."""

    def setting(flag: str, text: str, **kw) -> None:
        # default None: a flag left out is told apart from one given, for --resume
        default = RUN_DEFAULTS[flag[2:].replace("-", "_")]
        shown = ("the profile's" if flag == "--target" else
                 f"{TWO_PLAYER_DEFAULT} for two-player profiles" if flag == "--solver" else
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
    setting("--solver", "native CFR / CFR+ / DCFR / PCFR+ / PDCFR+ on the game tree or (public-*) "
            "on the public "
            "tree, native external- or outcome-sampling MCCFR, or OpenSpiel's C++ solvers; "
            f"four-player profiles default to {ABSTRACT}, and put_partnership (which the "
            f"abstract trainer refuses) to {FULL_GAME_DEFAULT}",
            choices=SOLVERS)
    setting("--seed", f"random seed of the MCCFR samples and of the evaluation deals, "
            f"{SEED_RANGE}", type=int)
    setting("--tables", "the public-tree solvers' table type: float32 halves the tables' "
            "memory (docs/results/regret-minimisers.md)", choices=("float64", "float32"))
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
                   "vitou_ai.training.match; vitou, vitou_cason: "
                   "vitou_ai.training.match4p)")
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
    p.add_argument("--traversal", choices=("es", "team", "hands"), default=None,
                   help="abstract-mccfr: es (default): one external-sampling traversal per "
                   "seat; team: one per team, both partners' actions enumerated and both "
                   "partners' regrets updated from one sample; hands: one per seat over all "
                   "its hands given the others' sampled hands, the others' play sampled once "
                   "per public node (docs/results/team-exploitability.md)")
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
                   help="largest game tree (or, public-*, public tree) to build; a "
                   "sampling solver (es-/os-mccfr) "
                   f"with --exact auto builds one of at most {AUTO_TREE_NODES:,} nodes (it "
                   "only serves the exact evaluation), or none")
    p.add_argument("--out", default=None,
                   help="run folder (default: a new runs/<profile>-<solver>-<time>)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --out with its own settings")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (there is none when stderr is not a terminal)")


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
    if getattr(args, "objective", "points") == "match" and getattr(args, "traversal", None):
        print("vitou-ai train: --traversal applies to --objective points only (the match "
              "objective's four-player trainer traverses es)", file=sys.stderr)
        return 2
    if getattr(args, "objective", "points") == "match" and getattr(args, "pruning", None):
        print("vitou-ai train: --pruning applies to --objective points only (the match "
              "objective's four-player trainer keeps pruning on, docs/abstraction.md)",
              file=sys.stderr)
        return 2
    if getattr(args, "objective", "points") == "match":
        if match_trainer(args.profile, args.resume, args.out) == "match4p":
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
        settings = choose_trainer(points_settings(args), {
            k: getattr(args, k, None) for k in ("abstraction", *ABSTRACT_OPTIONS)}, out)
        train(settings, out)
    except TrainingInterrupted as e:
        print("\n" + interrupted_line("vitou-ai train", e.kept), file=sys.stderr, flush=True)
        return 130
    except TrainingError as e:
        print(("\n" if e.during_run else "") + f"vitou-ai train: {e}", file=sys.stderr)
        return 2
    return 0


def points_settings(args: argparse.Namespace) -> PointsSettings:
    """The arguments of ``vitou-ai train`` as :class:`vitou_ai.training.PointsSettings`
    (a flag left out: ``None``, the default or the resumed run's)."""
    values: dict[str, Any] = {k: getattr(args, k, None) for k in field_names(PointsSettings)
                              if k not in ("out", "resume", "no_progress", "command",
                                           "max_tree_nodes", "bots")}
    bots = getattr(args, "bots", None)
    return PointsSettings(
        **values, bots=tuple(bots) if bots is not None else None,
        max_tree_nodes=getattr(args, "max_tree_nodes", 30_000_000),
        out=Path(args.out) if getattr(args, "out", None) else None,
        resume=bool(getattr(args, "resume", False)),
        no_progress=bool(getattr(args, "no_progress", False)), command=command_line(args))


def command_line(args: argparse.Namespace) -> str:
    """The command as typed (``vitou-ai train ...``), for run records and the run lock."""
    argv = getattr(args, "argv", None)
    return "vitou-ai " + shlex.join(argv) if argv is not None else shlex.join(sys.argv)
