"""``vitou-ai train --objective match`` for two players: the flags mapped onto
:class:`vitou_ai.training.match.MatchSettings`, whose trainer
(:func:`vitou_ai.training.match.train_match`) does the work described below.

Every score state's deal is solved with match-equity payoffs
(:mod:`vitou_ai.match_equity.two_player`, through a sweep of :mod:`vitou_ai.match_equity.sweep`: Ray when it
is installed, else serially), and the solved policies of all states and both dealers
are joined into one tabular policy: the information-state key holds the scores and the
dealer, so the joined table plays each deal with the policy of its score. Writes into
the run folder ``policy.npz`` (a bot for ``vitou-ai tournament`` / ``play``, match
mode), the table (``<stem>.csv``, ``<stem>.png``, ``<stem>.json``), ``tasks/`` (one
result and one policy file per score state: ``--resume`` continues a killed run) and
``run.json``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..training import TrainingError

EXIT_OK, EXIT_ERROR = 0, 2


def _config(args: argparse.Namespace, defaults: dict):
    from ..match_equity.two_player import EquityConfig, MatchEquityError

    profile = args.profile or defaults["profile"]
    if profile != "vitou_2p":
        raise TrainingError(f"--objective match is for vitou_2p (this path), vitou and vitou_cason, "
                            f"not {profile}")
    for flag, name in (("--table", "table"), ("--rounds", "rounds"),
                       ("--table-deals", "table_deals"), ("--warm-policy", "warm_policy")):
        if getattr(args, name, None) is not None:
            raise TrainingError(f"{flag} applies to four-player --objective match only (the "
                                "two-player table is solved exactly, state by state)")
    for flag, name in (("--score0", "score0"), ("--score1", "score1"), ("--dealer", "dealer"),
                       ("--signals", "signals"), ("--signal-seen", "signal_seen")):
        if getattr(args, name, None) is not None:
            raise TrainingError(f"{flag} does not apply to --objective match: the strategy covers "
                                "every score and both dealers")
    for flag, name in (("--iterations", "iterations"), ("--eval-every", "eval_every"),
                       ("--time", "time"), ("--eval-deals", "eval_deals"), ("--bots", "bots"),
                       ("--exact", "exact"), ("--seed", "seed"),
                       ("--abstraction", "abstraction"), ("--threads", "threads"),
                       ("--evals", "evals"), ("--eval-matches", "eval_matches"),
                       ("--lbr-deals", "lbr_deals"), ("--lbr-samples", "lbr_samples")):
        if getattr(args, name, None) is not None:
            raise TrainingError(f"{flag} does not apply to --objective match: each deal is solved "
                                "by CFR to an exploitability of 1e-4 in match equity, exactly, "
                                "without sampling or bot evaluations (vitou-ai match-equity --tol "
                                "sets it for the table)")
    solver = args.solver or defaults["solver"]
    if solver not in ("cfr", "cfr+", "dcfr"):
        raise TrainingError(f"--objective match solves each deal with cfr, cfr+ or dcfr, not "
                            f"{solver}")
    try:
        return EquityConfig(
            target=args.target if args.target is not None else 12,
            ranks=args.ranks if args.ranks is not None else defaults["ranks"],
            copies=args.copies if args.copies is not None else defaults["copies"],
            hand_size=args.hand_size if args.hand_size is not None else defaults["hand_size"],
            early_end=args.early_end or defaults["early_end"], variant=solver)
    except MatchEquityError as e:
        raise TrainingError(str(e)) from None


def run(args: argparse.Namespace, defaults: dict, out=None) -> int:
    """Run ``vitou-ai train --objective match``; returns the exit code (0 done, 2 bad input
    or a failed state, one line on stderr)."""
    from ..training.match import MatchSettings, train_match

    try:
        settings = MatchSettings(
            config=_config(args, defaults),
            max_infosets=args.max_infosets if args.max_infosets is not None
            else defaults["max_infosets"],
            max_tree_nodes=getattr(args, "max_tree_nodes", 30_000_000),
            out=Path(args.out) if args.out else None, resume=bool(args.resume),
            command="vitou-ai " + shlex.join(getattr(args, "argv", [])))
        train_match(settings, out or sys.stdout)
    except TrainingError as e:
        print(f"vitou-ai train: {e}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
