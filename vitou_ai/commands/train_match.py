"""``vitou-ai train --objective match``: a two-player strategy that maximises the
probability of winning the match, conditioned on the score.

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
import json
import shlex
import sys
from pathlib import Path

EXIT_OK, EXIT_ERROR = 0, 2


class _BadInput(ValueError):
    pass


def _config(args: argparse.Namespace, defaults: dict):
    from ..match_equity.two_player import EquityConfig, MatchEquityError

    profile = args.profile or defaults["profile"]
    if profile != "vitou_2p":
        raise _BadInput(f"--objective match is for vitou_2p (this path), vitou and vitou_cason, "
                        f"not {profile}")
    for flag, name in (("--table", "table"), ("--rounds", "rounds"),
                       ("--table-deals", "table_deals"), ("--warm-policy", "warm_policy")):
        if getattr(args, name, None) is not None:
            raise _BadInput(f"{flag} applies to four-player --objective match only (the "
                            "two-player table is solved exactly, state by state)")
    for flag, name in (("--score0", "score0"), ("--score1", "score1"), ("--dealer", "dealer"),
                       ("--signals", "signals"), ("--signal-seen", "signal_seen")):
        if getattr(args, name, None) is not None:
            raise _BadInput(f"{flag} does not apply to --objective match: the strategy covers "
                            "every score and both dealers")
    for flag, name in (("--iterations", "iterations"), ("--eval-every", "eval_every"),
                       ("--time", "time"), ("--eval-deals", "eval_deals"), ("--bots", "bots"),
                       ("--exact", "exact"), ("--seed", "seed"),
                       ("--abstraction", "abstraction"), ("--threads", "threads"),
                       ("--evals", "evals"), ("--eval-matches", "eval_matches"),
                       ("--lbr-deals", "lbr_deals"), ("--lbr-samples", "lbr_samples")):
        if getattr(args, name, None) is not None:
            raise _BadInput(f"{flag} does not apply to --objective match: each deal is solved "
                            "by CFR to an exploitability of 1e-4 in match equity, exactly, "
                            "without sampling or bot evaluations (vitou-ai match-equity --tol "
                            "sets it for the table)")
    solver = args.solver or defaults["solver"]
    if solver not in ("cfr", "cfr+", "dcfr"):
        raise _BadInput(f"--objective match solves each deal with cfr, cfr+ or dcfr, not "
                        f"{solver}")
    try:
        return EquityConfig(
            target=args.target if args.target is not None else 12,
            ranks=args.ranks if args.ranks is not None else defaults["ranks"],
            copies=args.copies if args.copies is not None else defaults["copies"],
            hand_size=args.hand_size if args.hand_size is not None else defaults["hand_size"],
            early_end=args.early_end or defaults["early_end"], variant=solver)
    except MatchEquityError as e:
        raise _BadInput(str(e)) from None


def run(args: argparse.Namespace, defaults: dict, out=None) -> int:
    """Run ``vitou-ai train --objective match``; returns the exit code (0 done, 2 bad input
    or a failed state, one line on stderr)."""
    out = out or sys.stdout
    from ..bots.tabular import TabularPolicy
    from ..io import holds_files, json_finite, write_atomic
    from ..match_equity.sweep import Sweep, SweepError
    from ..match_equity.two_player import (
        MatchEquityError,
        output_stem,
        read_policies,
        run_table,
        task_keys,
    )
    from ..rules.params import RULES_VERSION, VitouParams
    from ..solvers.flat.tree import build_tree
    from .console import check_writable, claim_run_folder, new_folder, note

    try:
        config = _config(args, defaults)
        if args.resume and not args.out:
            raise _BadInput("--resume needs --out FOLDER (the run to continue)")
        max_infosets = args.max_infosets if args.max_infosets is not None \
            else defaults["max_infosets"]
        try:
            check_writable(args.out or "runs")
        except OSError as e:
            raise _BadInput(str(e)) from None
        if args.resume and not (Path(args.out) / "tasks").is_dir():
            raise _BadInput(f"--resume: no --objective match run in {args.out} (no tasks/ "
                            "folder)")
        max_nodes = getattr(args, "max_tree_nodes", 30_000_000)
        try:
            per_state = build_tree(config.deal_params((0, 0), 0),
                                   max_nodes=max_nodes).num_infosets
        except ValueError as e:
            raise _BadInput(f"{e} (one deal's tree; --max-tree-nodes "
                            f"{max_nodes:,})") from None
        estimate = 2 * per_state * config.target ** 2
        if estimate > max_infosets:
            raise _BadInput(f"the score-conditioned policy would hold about {estimate:,} "
                            f"information states ({per_state:,} per deal x 2 dealers x "
                            f"{config.target}^2 scores), more than --max-infosets "
                            f"{max_infosets:,}; raise it or use a smaller variant")
    except _BadInput as e:
        print(f"vitou-ai train: {e}", file=sys.stderr)
        return EXIT_ERROR
    if args.out:
        folder = Path(args.out)
        if not args.resume and folder.exists() and holds_files(folder):
            print(f"vitou-ai train: {folder} is not empty; --resume continues it",
                  file=sys.stderr)
            return EXIT_ERROR
        folder.mkdir(parents=True, exist_ok=True)
    else:
        folder = new_folder("runs", f"{config.profile}-match")
    # one writer per run folder (vitou_ai.io.RunLock; taken already for an --out)
    claim_run_folder(folder, "train", "vitou-ai " + shlex.join(getattr(args, "argv", [])),
                     made=not args.out)
    tasks = folder / "tasks"

    def on_state(rec: dict, resumed: bool) -> None:
        a, b = rec["key"]
        eq = " ".join(f"{r['equity0']:.4f}" for r in rec["rows"])
        note("train", f"state {a}:{b}: equity0 by dealer {eq}"
             + (" (stored)" if resumed else f", {rec['seconds']:.1f} s"))

    try:
        with Sweep(tasks, config.fingerprint(), accepts=config.earlier_fingerprints()) as sweep:
            note("train", f"match objective, {output_stem(config)}: every score state, "
                 f"backend {sweep.backend}")
            summary = run_table(config, folder, sweep, on_state, policy_dir=tasks)
        keys = [k for wave in task_keys(config) for k in wave]
        kk, pp = read_policies(tasks, keys, mirror=config.mirror)
    except (SweepError, MatchEquityError, OSError) as e:
        print(f"vitou-ai train: {e}", file=sys.stderr)
        return EXIT_ERROR
    params = VitouParams(profile=config.profile, target=config.target, ranks=config.ranks,
                         copies=config.copies, hand_size=config.hand_size,
                         early_end=config.early_end, dealer=-1)
    policy = TabularPolicy(kk, pp, name=f"{config.profile}-match", params=params, mode="match")
    policy.save(folder / "policy.npz")
    record = {"objective": "match", "rules_version": RULES_VERSION,
              "config": config.as_dict(), "policy_infosets": len(policy),
              "table": summary,
              "command": "vitou-ai " + shlex.join(getattr(args, "argv", []))}
    write_atomic(folder / "run.json", (json.dumps(json_finite(record), indent=1) + "\n").encode())
    print(f"match objective: {len(policy):,} information states -> {folder / 'policy.npz'}; "
          f"dealer at 0:0 wins with probability {summary['equity_dealer_0_0']:.4f}", file=out)
    return EXIT_OK
