"""``vitou-ai train --profile vitou --objective match`` (``vitou_cason`` too): the flags
mapped onto :class:`vitou_ai.training.match4p.Match4pSettings`, whose trainer
(:func:`vitou_ai.training.match4p.train_match_4p`) plays rounds of policy -> table ->
policy; a new run refuses the flags of the points objective it would ignore.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..training import TrainingError
from ..training.match4p import Match4pSettings, train_match_4p

EXIT_OK, EXIT_ERROR = 0, 2

#: flags of the points objective that a four-player match run does not take
NOT_APPLICABLE = (("--score0", "score0"), ("--score1", "score1"), ("--dealer", "dealer"),
                  ("--target", "target"), ("--signals", "signals"),
                  ("--signal-seen", "signal_seen"), ("--iterations", "iterations"),
                  ("--eval-every", "eval_every"), ("--eval-deals", "eval_deals"),
                  ("--bots", "bots"), ("--exact", "exact"), ("--evals", "evals"),
                  ("--eval-matches", "eval_matches"), ("--lbr-deals", "lbr_deals"),
                  ("--lbr-samples", "lbr_samples"), ("--ranks", "ranks"),
                  ("--copies", "copies"), ("--hand-size", "hand_size"),
                  ("--early-end", "early_end"))


def run(args: argparse.Namespace, out=None) -> int:
    """Run four-player ``vitou-ai train --objective match``; returns the exit code (0 done,
    2 bad input, one line on stderr, before any work)."""
    from ..training.match4p import PROFILES

    try:
        if not args.resume:
            if args.profile not in PROFILES:
                raise TrainingError(f"four-player --objective match is for "
                                    f"{' or '.join(PROFILES)}, not {args.profile}")
            for flag, name in NOT_APPLICABLE:
                if getattr(args, name, None) is not None:
                    raise TrainingError(f"{flag} does not apply to four-player --objective "
                                        "match: the strategy covers every score and dealer of "
                                        "the profile's game, trained for --time solver seconds "
                                        "per round")
        settings = Match4pSettings(
            profile=args.profile, solver=args.solver, time=args.time, rounds=args.rounds,
            table_deals=getattr(args, "table_deals", None), threads=args.threads,
            seed=args.seed, max_infosets=args.max_infosets, abstraction=args.abstraction,
            warm_policy=getattr(args, "warm_policy", None), table=getattr(args, "table", None),
            out=Path(args.out) if args.out else None, resume=bool(args.resume),
            command="vitou-ai " + shlex.join(getattr(args, "argv", [])))
        train_match_4p(settings, out or sys.stdout)
    except TrainingError as e:
        print(f"vitou-ai train: {e}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
