"""The periodic evaluation of the trainers (:mod:`vitou_ai.training.points`,
:mod:`vitou_ai.training.abstract`) and the files the points trainer writes at each
evaluation.

An evaluation row (one line of ``curve.csv``) holds the iteration, the solver's wall
seconds, the nodes touched, a sampling solver's table size (``infosets``), the exact
figures of :meth:`vitou_ai.solvers.protocol.Solver.exact_evaluation` where a tree is at
hand (points per deal: ``exploitability`` and ``game_value`` for two players;
``nash_conv`` and the team gains for four), and per opponent bot the trained policy's win
rate (Wilson 95% interval) and points per deal (95% t interval) over duplicate deals.
In a game each for themselves (Willughby's Put, P7.0) one seat of the trained policy
plays against the bot in every other seat, rotated over the seats on the same cards
(:func:`against_bot_each_for_self`); the run's last line gives each interval.
"""

from __future__ import annotations

import io
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..io import write_atomic
from ..rules.params import VitouParams
from ..solvers.protocol import Solver
from .runfolder import mark_writing, write_curve, write_record
from .session import note


def _mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% t interval; NaN bounds below 30 values or without variation
    (:mod:`vitou_ai.eval.stats`)."""
    from ..eval.stats import mean_interval

    return mean_interval(x)


def rotated_lineups(mine, bot, players: int) -> list[list]:
    """The lineups of a game each for themselves (Willughby's Put, P7.0): one seat of
    ``mine`` against ``players - 1`` seats of ``bot``, ``mine`` at seat ``v`` in lineup
    ``v`` (``players`` lineups: every seat once)."""
    return [[mine if k == v else bot for k in range(players)] for v in range(players)]


def against_bot_each_for_self(mine, bot, params: VitouParams, deals: int,
                              seed: int) -> dict[str, float]:
    """A policy against a bot in a game each for themselves (Willughby's Put, P7.0, P7.5):
    one seat of ``mine`` against ``players - 1`` seats of ``bot``, on duplicate deals
    rotated over the seats (:func:`rotated_lineups`: each group of cards is played
    ``players`` times, ``mine`` at seat 0, 1, ... in turn, the dealer the same).

    Args:
        deals: deals in all (``players`` per group of cards; at least one group).
        seed: the deals' seed (:func:`vitou_ai.sim.batch.simulate`).

    Returns:
        ``points_per_deal`` (the trained seat's return per deal, P7.5; 0 between equals:
        the game is zero-sum) with ``ppd_lo`` / ``ppd_hi``, its 95% Student t interval
        over the groups as units (a group's value: the mean over its rotations;
        :func:`vitou_ai.eval.stats.mean_interval`, NaN below 30 groups), ``win_rate``
        (deals the trained seat won among those won by a seat; ``1 / players`` between
        equals) with ``win_lo`` / ``win_hi`` (Wilson 95%), and ``groups``.
    """
    from ..eval.stats import mean_interval, wilson_interval
    from ..sim.batch import simulate

    n = params.players
    groups = max(1, deals // n)
    res = simulate(params, rotated_lineups(mine, bot, n), n * groups, seed=seed,
                   allow_fallback=True)  # the policy in training, as it is
    variant = np.asarray(res["variant"])  # the trained seat of each row (row j: j % n)
    seat_ret = np.stack([np.asarray(res[f"seat_return{k}"], float) for k in range(n)], 1)
    ret = seat_ret[np.arange(len(variant)), variant]
    m, lo, hi = mean_interval(ret.reshape(groups, n).mean(1))
    winner = np.asarray(res["winner"])
    decided = winner >= 0
    wins, won_by_seat = int(np.sum(decided & (winner == variant))), int(decided.sum())
    wlo, whi = wilson_interval(wins, won_by_seat) if won_by_seat else (math.nan, math.nan)
    return {"win_rate": wins / won_by_seat if won_by_seat else math.nan, "win_lo": wlo,
            "win_hi": whi, "points_per_deal": m, "ppd_lo": lo, "ppd_hi": hi,
            "groups": groups}


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
        if params.willughby:  # P7.0: each for themselves; one trained seat, rotated
            out[b] = against_bot_each_for_self(mine, bot, params, s["eval_deals"],
                                               s["seed"] + 1)
            continue
        lineup = [mine, bot] if params.players == 2 else [mine, bot, mine, bot]
        # the policy in training, as it is: unvisited states play its fallback
        res = simulate(params, lineup, 2 * half, seed=s["seed"] + 1, duplicate=True,
                       allow_fallback=True)
        variant = np.asarray(res["variant"])
        winner = np.asarray(res["winner"])
        my_team = np.where(variant == 0, 0, 1)
        ret = np.where(my_team == 0, res["return0"], res["return1"]).astype(float)
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


def figure(rows: list[dict[str, Any]], bots: list[str], title: str):
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


def plot(rows: list[dict[str, Any]], bots: list[str], path: Path, title: str) -> None:
    """:func:`figure` of ``rows`` written as a PNG at ``path`` (atomically, 100 dpi)."""
    import matplotlib.pyplot as plt

    fig = figure(rows, bots, title)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(path, buf.getvalue())


def short_row(row: dict[str, Any], intervals: bool = False) -> str:
    """An evaluation row in one line for the log (``it 20, exploitability 0.09814, vs
    random +0.700``); with ``intervals``, each bot's 95% interval of points per deal
    after it (``vs random +0.700 [+0.650, +0.750]``; none where it is NaN)."""
    parts = [f"it {row['iteration']}"]
    for k in ("exploitability", "nash_conv"):
        if isinstance(row.get(k), float):
            parts.append(f"{k} {row[k]:.5f}")
    if isinstance(row.get("infosets"), int):
        parts.append(f"{row['infosets']:,} infosets")
    for k, v in row.items():
        if k.endswith("_ppd") and isinstance(v, float):
            lo, hi = row.get(f"{k}_lo"), row.get(f"{k}_hi")
            ci = (f" [{lo:+.3f}, {hi:+.3f}]" if intervals and isinstance(lo, float)
                  and isinstance(hi, float) and not (math.isnan(lo) or math.isnan(hi)) else "")
            parts.append(f"vs {k[:-4]} {v:+.3f}{ci}")
    return ", ".join(parts)


def evaluate(adapter: Solver, bots: list[str], s: dict[str, Any]) -> dict[str, Any]:
    """One evaluation of the solver's average policy: a row of ``curve.csv`` (module
    docstring; points per deal). ``s``: the run's resolved settings (``exact``,
    ``eval_deals``, ``seed``: the deals are drawn from ``seed + 1``, the same at every
    evaluation)."""
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
    """The explorer's index of a large policy (:func:`write_outputs`); skipped, with a
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


def write_outputs(folder: Path, adapter: Solver, rows, bots, record, params,
                   checkpoint: bool = True, explore_index: bool = False) -> None:
    """An evaluation's files, in the order that lets ``--resume`` tell a complete one
    from one cut short by a kill (:mod:`vitou_ai.training.runfolder`): ``run.json`` marked
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
    plot(rows, bots, folder / "curve.png", f"{params.profile} — {adapter.name}")
    if checkpoint and adapter.resumable:
        adapter.save(folder / "checkpoint.npz")
    write_record(folder, dict(record, latest=rows[-1], iterations_done=done))


# ---- the abstract trainer's evaluation --------------------------------------------------


def match_label(params: VitouParams) -> str:
    """The matches the evaluation plays, from the game: ``"21-point matches"`` (vitou),
    ``"12-point matches"`` (truc_catalan, C3.1), ``"matches of 2 12-point games"``
    (truc_1912, F4.1), ``"matches of 5 truts"`` (trut, T2.1)."""
    games = params.games or 1
    if params.profile == "trut":
        return f"matches of {games} truts"
    if games > 1:
        return f"matches of {games} {params.target}-point games"
    return f"{params.target}-point matches"


def evaluate_policy(policy, params: VitouParams, bots: list[str], deals: int, matches: int,
                    seed: int) -> dict[str, Any]:
    """Duplicate deal-mode points per deal and the match win rate against each bot, the
    matches at the game's target (:func:`match_label`).

    Returns keys ``{bot}_ppd``, ``_ppd_lo``, ``_ppd_hi`` (the policy's team's
    return per deal, R8.1, pairs of duplicate deals as units) and ``{bot}_match_win``,
    ``_match_lo``, ``_match_hi`` (decisive matches, Wilson 95%)."""
    from ..bots.named import parse_bot
    from ..eval.stats import ratio_interval, wilson_interval
    from ..sim.batch import simulate

    row: dict[str, Any] = {}
    dp = params.replace(dealer=-1, mode="deal")
    mp = params.replace(dealer=-1, mode="match", scores=(0, 0))
    for b in bots:
        bot = parse_bot(b)
        lineup = [policy, bot] * (params.players // 2)
        if deals:
            res = simulate(dp, lineup, deals + deals % 2, seed=seed, duplicate=True,
                           rotate_dealer=True, allow_fallback=True)
            v = np.asarray(res["variant"])
            ret = np.where(v == 0, res["return0"], res["return1"]).astype(float)
            pair = ret.reshape(-1, 2).sum(1)
            m, lo, hi = ratio_interval(pair, np.full(len(pair), 2.0))
            row.update({f"{b}_ppd": m, f"{b}_ppd_lo": lo, f"{b}_ppd_hi": hi})
        if matches and getattr(policy, "domain", None) is not None and \
                policy.domain.missing(mp):  # scores in the key, trained at one: no match
            row.update({f"{b}_match_win": math.nan, f"{b}_match_lo": math.nan,
                        f"{b}_match_hi": math.nan})
        elif matches:
            res = simulate(mp, lineup, matches + matches % 2, seed=seed + 1, duplicate=True,
                           rotate_dealer=True, allow_fallback=True)
            v = np.asarray(res["variant"])
            w = np.asarray(res["winner"])
            wins = int(((w >= 0) & (w == v)).sum())
            decided = int((w >= 0).sum())
            lo, hi = wilson_interval(wins, decided)
            row.update({f"{b}_match_win": wins / decided if decided else math.nan,
                        f"{b}_match_lo": lo, f"{b}_match_hi": hi})
    return row


def plot_abstract(rows: list[dict[str, Any]], bots: list[str], lbr_bots: dict[str, Any], path: Path,
          title: str, matches: str = "21-point matches") -> None:
    """The abstract trainer's curves (:mod:`vitou_ai.training.abstract`) as a PNG at
    ``path``: LBR against solver minutes (the bots' LBR as lines), duplicate points per
    deal and the match win rate against each bot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
    t = [r["seconds"] / 60 for r in rows]
    ax = axes[0]
    lrows = [r for r in rows if isinstance(r.get("lbr"), float)]
    if lrows:
        ax.errorbar([r["seconds"] / 60 for r in lrows], [r["lbr"] for r in lrows],
                    yerr=[[r["lbr"] - r["lbr_lo"] for r in lrows],
                          [r["lbr_hi"] - r["lbr"] for r in lrows]],
                    marker="o", color="black", label="trained policy")
    for k, (b, v) in enumerate(lbr_bots.items()):
        ax.axhline(v["value"], ls="--", color=f"C{k}", label=f"{b}")
    ax.set_xlabel("solver minutes")
    ax.set_ylabel("LBR value (points per deal)")
    ax.set_title("local best response (lower bound on exploitability)")
    if ax.lines:
        ax.legend(fontsize=8)
    for k, b in enumerate(bots):
        if f"{b}_ppd" in rows[0]:
            axes[1].errorbar(t, [r[f"{b}_ppd"] for r in rows],
                             yerr=[[r[f"{b}_ppd"] - r[f"{b}_ppd_lo"] for r in rows],
                                   [r[f"{b}_ppd_hi"] - r[f"{b}_ppd"] for r in rows]],
                             marker="o", color=f"C{k}", label=f"vs {b}")
        if f"{b}_match_win" in rows[0]:
            axes[2].errorbar(t, [r[f"{b}_match_win"] for r in rows],
                             yerr=[[r[f"{b}_match_win"] - r[f"{b}_match_lo"] for r in rows],
                                   [r[f"{b}_match_hi"] - r[f"{b}_match_win"] for r in rows]],
                             marker="o", color=f"C{k}", label=f"vs {b}")
    axes[1].axhline(0, color="grey", lw=0.6)
    axes[1].set_xlabel("solver minutes")
    axes[1].set_ylabel("points per deal (95% CI)")
    axes[1].set_title("duplicate deals, deal mode at 0:0")
    for ax in axes[1:]:  # no labelled curve (--eval-matches 0): no legend, no warning
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    axes[2].axhline(0.5, color="grey", lw=0.6)
    axes[2].set_xlabel("solver minutes")
    axes[2].set_ylabel("match win rate (95% Wilson)")
    axes[2].set_title(f"{matches}, duplicate" if axes[2].get_legend_handles_labels()[0]
                      else "no matches (--eval-matches 0)")
    fig.suptitle(title)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(path, buf.getvalue())
