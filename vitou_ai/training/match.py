"""The two-player match objective (``vitou-ai train --objective match``): a strategy that
maximises the probability of winning the match, conditioned on the score.

Every score state's deal is solved with match-equity payoffs
(:mod:`vitou_ai.match_equity.two_player`, through a sweep of
:mod:`vitou_ai.match_equity.sweep`: Ray when it is installed, else serially), and the
solved policies of all states and both dealers are joined into one tabular policy: the
information-state key holds the scores and the dealer, so the joined table plays each
deal with the policy of its score. Writes into the run folder ``policy.npz`` (a bot for
``vitou-ai tournament`` / ``play``, match mode), the table (``<stem>.csv``, ``<stem>.png``,
``<stem>.json``), ``tasks/`` (one result and one policy file per score state: a resume
continues a killed run) and ``run.json``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .settings import TrainingError


@dataclass(frozen=True)
class MatchSettings:
    """A two-player match-objective run.

    Attributes:
        config: the table's game and solver (:class:`vitou_ai.match_equity.two_player.
            EquityConfig`: target, deck, hand size, ``cfr`` / ``cfr+`` / ``dcfr``).
        max_infosets: the largest score-conditioned policy, in information states
            (about ``2 x target**2 x`` one deal's; refused above it before any work).
        max_tree_nodes: the largest tree of one deal.
        out: the run folder (``None``: a new ``runs/<profile>-match-<time>``).
        resume: continue the run in ``out`` (its ``tasks/`` folder).
        command: the command line recorded in ``run.json`` and the run lock.
    """

    config: Any  # an EquityConfig
    max_infosets: int = 1 << 22
    max_tree_nodes: int = 30_000_000
    out: Path | None = None
    resume: bool = False
    command: str = ""


def train_match(settings: MatchSettings, out=None) -> Path:
    """Solve every score state with match-equity payoffs and join the policies
    (module docstring); progress notes on stderr, the summary on ``out``.

    Returns:
        The run folder.

    Raises:
        TrainingError: one line: before any work (``resume`` without ``out`` or without a
            run there, an ``out`` that cannot be written or holds other files, one deal's
            tree over ``max_tree_nodes``, a policy over ``max_infosets``), or a state whose
            solve failed (the states solved are kept in ``tasks/``).
    """
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
    from .session import check_writable, claim_run_folder, new_folder, note, run_locks

    out = out or sys.stdout
    config, folder = settings.config, settings.out
    if settings.resume and not folder:
        raise TrainingError("--resume needs --out FOLDER (the run to continue)")
    try:
        check_writable(folder or "runs")
    except OSError as e:
        raise TrainingError(str(e)) from None
    if settings.resume and not (Path(folder) / "tasks").is_dir():
        raise TrainingError(f"--resume: no --objective match run in {folder} (no tasks/ "
                            "folder)")
    max_nodes = settings.max_tree_nodes
    try:
        per_state = build_tree(config.deal_params((0, 0), 0), max_nodes=max_nodes).num_infosets
    except ValueError as e:
        raise TrainingError(f"{e} (one deal's tree; --max-tree-nodes {max_nodes:,})") from None
    estimate = 2 * per_state * config.target ** 2
    if estimate > settings.max_infosets:
        raise TrainingError(f"the score-conditioned policy would hold about {estimate:,} "
                            f"information states ({per_state:,} per deal x 2 dealers x "
                            f"{config.target}^2 scores), more than --max-infosets "
                            f"{settings.max_infosets:,}; raise it or use a smaller variant")
    if folder:
        folder = Path(folder)
        if not settings.resume and folder.exists() and holds_files(folder):
            raise TrainingError(f"{folder} is not empty; --resume continues it")
        folder.mkdir(parents=True, exist_ok=True)
    else:
        folder = new_folder("runs", f"{config.profile}-match")
    with run_locks():  # one writer per run folder (vitou_ai.io.RunLock), for the run
        claim_run_folder(folder, "train", settings.command, made=not settings.out)
        tasks = folder / "tasks"

        def on_state(rec: dict, resumed: bool) -> None:
            a, b = rec["key"]
            eq = " ".join(f"{r['equity0']:.4f}" for r in rec["rows"])
            note("train", f"state {a}:{b}: equity0 by dealer {eq}"
                 + (" (stored)" if resumed else f", {rec['seconds']:.1f} s"))

        try:
            with Sweep(tasks, config.fingerprint(),
                       accepts=config.earlier_fingerprints()) as sweep:
                note("train", f"match objective, {output_stem(config)}: every score state, "
                     f"backend {sweep.backend}")
                summary = run_table(config, folder, sweep, on_state, policy_dir=tasks)
            keys = [k for wave in task_keys(config) for k in wave]
            kk, pp = read_policies(tasks, keys, mirror=config.mirror)
        except (SweepError, MatchEquityError, OSError) as e:
            raise TrainingError(str(e)) from None
        params = VitouParams(profile=config.profile, target=config.target, ranks=config.ranks,
                             copies=config.copies, hand_size=config.hand_size,
                             early_end=config.early_end, dealer=-1)
        policy = TabularPolicy(kk, pp, name=f"{config.profile}-match", params=params,
                               mode="match")
        policy.save(folder / "policy.npz")
        record = {"objective": "match", "rules_version": RULES_VERSION,
                  "config": config.as_dict(), "policy_infosets": len(policy),
                  "table": summary, "command": settings.command}
        write_atomic(folder / "run.json",
                     (json.dumps(json_finite(record), indent=1) + "\n").encode())
    print(f"match objective: {len(policy):,} information states -> {folder / 'policy.npz'}; "
          f"dealer at 0:0 wins with probability {summary['equity_dealer_0_0']:.4f}", file=out)
    return folder
