"""Playing for the match with four players (the match objective of ``vitou-ai train --objective match``): the pieces of the
iteration *policy -> table -> policy*.

The abstract ES-MCCFR (:mod:`vitou_ai.solvers.sampling.mccfr_abstract`) trains with the
score in its key and values a deal's terminal by the change of team 0's match
equity it causes, ``E(a', b', d+1) - E(a, b, d)`` (team 1: its negation; the deal
passes to the left, R1.3; a deal scoring nothing keeps the scores, R5.1), under a
table ``E``. The table of the trained policy in all four seats is then estimated by
:mod:`vitou_ai.match_equity.four_player` (simulated deals at every score, the
recursion, a bootstrap standard error), the trainer continues with it, and so on
until the table changes by less than its Monte Carlo error (:func:`table_change`)
or a round limit. A fixed point is a policy that best-responds (as far as the
sampled training reaches) to the match equity of its own play.

This module holds the pure parts: the table as the dense array the jitted traversal
reads (:func:`equity_array`), the score states drawn in training
(:func:`training_states`), reading and checking a table given on the command line
(:func:`read_table_4p`), the convergence criterion (:func:`table_change`) and the
loop itself over two callables (:func:`iterate`), which the tests run on a toy whose
fixed point is known in closed form.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from . import two_player as M
from .two_player import MatchEquityError

Table = Mapping[tuple[int, int, int], float]
PLAYERS = 4


def equity_array(table: Table, target: int, players: int = PLAYERS) -> np.ndarray:
    """The table as ``float64[T+1, T+1, players]``: ``[a, b, d]`` team 0's probability of
    winning the match at ``a:b`` (both below ``T``) with seat ``d`` dealing; the rows
    ``a = T`` (team 0 has won: 1) and ``b = T`` (team 1 has won: 0) for every ``d`` are the
    ended matches (R5.3; a baraque is capped to reach ``T`` exactly, R5.2 and R8.1).

    Raises:
        MatchEquityError: a missing state or an equity outside [0, 1].
    """
    eq = np.zeros((target + 1, target + 1, players))
    eq[target, :, :] = 1.0  # eq[T, T] is never reached (one team scores in a deal)
    for a in range(target):
        for b in range(target):
            for d in range(players):
                try:
                    v = float(table[(a, b, d)])
                except KeyError:
                    raise MatchEquityError(f"the table has no entry for {a}:{b}, dealer "
                                           f"{d}") from None
                if not 0.0 <= v <= 1.0:
                    raise MatchEquityError(f"equity {v} at {a}:{b}, dealer {d} is not a "
                                           "probability")
                eq[a, b, d] = v
    return eq


def training_states(target: int, players: int = PLAYERS) -> tuple[np.ndarray, np.ndarray]:
    """The score states a traversal draws from and their weights: every ``(a, b, d)``
    with ``a, b < T``, uniformly (``T^2 * players`` rows).

    Uniform rather than in proportion to how often matches visit a state: the states
    where the objectives differ most (one team near ``T``) are rare in matches from 0:0,
    and with the ``stakes`` score buckets the 0:0-like states (both needs 13+ in
    ``vitou``) still get a share of ``(T-12)^2 / T^2`` (18 % at 21).

    Returns:
        ``(int64[S, 3]`` score0, score1, dealer; ``float64[S]`` weights``)``.
    """
    rows = np.array([(a, b, d) for a in range(target) for b in range(target)
                     for d in range(players)], np.int64)
    return rows, np.ones(rows.shape[0])


def read_table_4p(path: str | Path, profile: str, target: int) -> dict[tuple[int, int, int], float]:
    """Read a four-player table (columns ``score0, score1, dealer, equity0``,
    :func:`vitou_ai.match_equity.two_player.table_csv`) and check that it is one of this
    game: four dealers, every score below ``target`` and none above, and, when a
    ``<stem>.json`` record sits next to it (as :mod:`vitou_ai.match_equity.four_player`
    writes), its profile and target.

    Raises:
        MatchEquityError: one line naming the file: unreadable or malformed (the
            reader's errors), a two-player table (dealers 0 and 1 only), another target,
            another profile, or missing states.
    """
    table = M.read_table_csv(path)
    if not table:
        raise MatchEquityError(f"{path}: the match-equity table has no rows")
    dealers = sorted({d for _, _, d in table})
    if dealers != list(range(PLAYERS)):
        kind = "a two-player table" if dealers and max(dealers) <= 1 else "not a four-player table"
        raise MatchEquityError(f"{path}: {kind} (dealers {dealers}); --objective match for "
                               f"{profile} needs dealers 0 .. 3")
    top = max(max(a, b) for a, b, _ in table) + 1
    if top != target and len(table) != top * top * PLAYERS:
        raise MatchEquityError(f"{path}: an incomplete table ({len(table)} states, scores up "
                               f"to {top - 1}); {profile} plays to {target}: "
                               f"{target * target * PLAYERS} states")
    if top != target:
        raise MatchEquityError(f"{path}: a table for target {top} (scores up to {top - 1}); "
                               f"{profile} plays to {target}")
    missing = [(a, b, d) for a in range(target) for b in range(target) for d in range(PLAYERS)
               if (a, b, d) not in table]
    if missing:
        a, b, d = missing[0]
        raise MatchEquityError(f"{path}: {len(missing)} states missing, e.g. {a}:{b} dealer {d}")
    record = Path(path).with_suffix(".json")
    if record.is_file():
        try:
            cfg = json.loads(record.read_text()).get("config", {})
        except (OSError, ValueError, AttributeError):
            cfg = {}
        if isinstance(cfg, dict) and cfg.get("profile") not in (None, profile):
            raise MatchEquityError(f"{path}: a table of profile {cfg['profile']} ({record.name}); "
                                   f"this run is {profile}")
    return table


def bonferroni_z(entries: int, alpha: float = 0.05) -> float:
    """``z`` such that ``entries`` independent standard normals all stay within ``±z``
    with probability about ``1 - alpha`` (two-sided Bonferroni: ``Phi^-1(1 - alpha/2n)``)."""
    from scipy.stats import norm

    return float(norm.isf(alpha / (2 * max(1, entries))))


def table_change(old: Table, new: Table, se_old: Table | None, se_new: Table | None,
                 alpha: float = 0.05) -> dict:
    """How much the table moved between rounds, against its Monte Carlo error.

    ``z_k = (new_k - old_k) / sqrt(se_old_k^2 + se_new_k^2)`` per entry (a table without
    standard errors counts as exact). The criterion: *converged* when every ``|z_k|`` is
    below :func:`bonferroni_z` of the number of entries (no entry's change is
    significant at family-wise level ``alpha``: what Monte Carlo error alone gives);
    with no standard errors at all, when ``max |dE|`` is 0 (up to 1e-12).

    Returns:
        ``max_abs``, ``mean_abs`` (of ``dE``), ``max_se`` (of ``se_new``), ``max_z``,
        ``z_crit``, ``entries``, ``converged`` (bool), ``worst`` (the state of ``max_z``).
    """
    keys = sorted(new)
    d = np.array([new[k] - old[k] for k in keys])
    s_old = np.array([se_old[k] if se_old else 0.0 for k in keys])
    s_new = np.array([se_new[k] if se_new else 0.0 for k in keys])
    s = np.hypot(s_old, s_new)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(s > 0, np.abs(d) / np.where(s > 0, s, 1.0),
                     np.where(np.abs(d) > 1e-12, np.inf, 0.0))
    crit = bonferroni_z(len(keys), alpha)
    i = int(np.argmax(z))
    return {"max_abs": float(np.abs(d).max()), "mean_abs": float(np.abs(d).mean()),
            "max_se": float(s_new.max()), "max_z": float(z[i]), "z_crit": crit,
            "entries": len(keys), "converged": bool(z.max() < crit),
            "worst": list(keys[i])}


def iterate(table0: Table, se0: Table | None, train: Callable[[int, Table], object],
            estimate: Callable[[int, object], tuple[Table, Table | None]], rounds: int,
            start_round: int = 1, on_round: Callable[[dict], None] | None = None,
            alpha: float = 0.05) -> tuple[Table, list[dict]]:
    """The iteration policy -> table -> policy.

    Args:
        table0, se0: the table the first round trains against, and its standard errors.
        train: ``train(round, table) -> policy`` (continues training with the new payoffs).
        estimate: ``estimate(round, policy) -> (table, se)``.
        rounds: the last round (at most ``rounds - start_round + 1`` are run).
        start_round: the first round to run (a resumed run: the next one).
        on_round: called with each round's row (checkpointing).
        alpha: the level of the convergence test (:func:`table_change`).

    Returns:
        ``(table, history)``: the last table and one row per round run: ``round`` and the
        fields of :func:`table_change`; stops after the first converged round.

    Raises:
        ValueError: ``rounds < start_round`` or ``start_round < 1``.
    """
    if start_round < 1 or rounds < start_round:
        raise ValueError(f"rounds {start_round} .. {rounds}: nothing to run")
    table, se = table0, se0
    history = []
    for r in range(start_round, rounds + 1):
        policy = train(r, table)
        new, se_new = estimate(r, policy)
        row = {"round": r, **table_change(table, new, se, se_new, alpha)}
        history.append(row)
        if on_round:
            on_round(row)
        table, se = new, se_new
        if row["converged"]:
            break
    return table, history


def points_threshold_to_equity(threshold: float, target: int) -> float:
    """The pruning threshold in match equity for one in points per deal: divided by the
    target (a point is worth about ``1/T`` of a match; the regrets' scale shrinks by the
    same factor)."""
    if not math.isfinite(threshold):
        return threshold
    return threshold / target
