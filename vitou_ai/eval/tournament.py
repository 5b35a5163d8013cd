"""Round-robin tournaments between bots, with duplicate deals and seat rotation.

Every pair of bots plays ``games`` deals (deal mode) or matches (match mode)
with :func:`vitou_ai.sim.batch.simulate`: in four-player profiles each bot
is a team of two copies of itself. Two variance cuts:

- *duplicate deals*: games come in pairs on the same cards (the same hands
  at every deal index, the same first dealer), the second with the teams
  swapped, so the luck of the cards cancels within a pair;
- *seat rotation*: the first dealer of pair ``g`` is seat ``g % players``,
  so every bot leads from every seat equally often.

Every pairing uses the same seed, hence the same cards (common random
numbers across pairings). Reported per ordered pair (bot vs opponent):

- wins, losses, draws (deal mode: a deal nobody scored — all void, passed,
  abandoned; match mode: ``max_deals`` reached); the *win rate* over decisive
  games with its 95% Wilson interval (:func:`~vitou_ai.eval.stats.wilson_interval`;
  the games of a duplicate pair are treated as independent, which makes the
  interval conservative when the pair's results are negatively correlated);
- *points per deal*: the bot's points minus the opponent's, per deal played,
  with a 95% interval from the duplicate pairs as independent units
  (:func:`~vitou_ai.eval.stats.ratio_interval`);
- Elo ratings fitted to all pairwise results (:func:`~vitou_ai.eval.stats.fit_elo`).
"""

from __future__ import annotations

import io
import itertools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..bots.policy import Policy, describe
from ..rules.params import RULES_VERSION, VitouParams
from ..sim.batch import F_DEALS, F_POINTS0, F_POINTS1, F_VARIANT, F_WINNER, simulate
from .stats import fit_elo, ratio_interval, wilson_interval

#: rows per simulator call (progress granularity); does not change results.
BLOCK = 1 << 16


@dataclass
class TournamentResult:
    """Results of :func:`run_tournament`.

    Attributes:
        params: the game (``mode`` says deals or matches).
        names: bot names, in the order given.
        games: games per pairing (even: duplicate pairs).
        seed: the seed of every pairing.
        pairs: one dict per ordered pair (see :meth:`pairs_frame` for the keys).
        elo: Elo rating per bot, mean 0.
        seconds: wall time of the simulation.
        ratings: one dict per bot (see :meth:`ratings_frame`).
        bots: :func:`~vitou_ai.bots.policy.describe` of each bot.
    """

    params: VitouParams
    names: list[str]
    games: int
    seed: int
    pairs: list[dict[str, Any]]
    elo: np.ndarray
    seconds: float
    ratings: list[dict[str, Any]] = field(default_factory=list)
    bots: list[dict[str, Any]] = field(default_factory=list)

    def pairs_frame(self):
        """Pairwise results, one row per ordered pair: ``bot``, ``opponent``,
        ``games``, ``wins``, ``losses``, ``draws``, ``win_rate`` (decisive games),
        ``win_lo``, ``win_hi`` (95% Wilson), ``score`` ((wins + draws/2) / games),
        ``deals``, ``points_per_deal``, ``ppd_lo``, ``ppd_hi`` (95%)."""
        import pandas as pd

        return pd.DataFrame(self.pairs)

    def ratings_frame(self):
        """One row per bot: ``bot``, ``elo``, ``games``, ``wins``, ``losses``,
        ``draws``, ``score``, ``points_per_deal`` (against all opponents)."""
        import pandas as pd

        return pd.DataFrame(self.ratings)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (NaN written as ``null``)."""
        p = self.params
        return _finite({
            "rules_version": RULES_VERSION,
            "profile": p.profile,
            "knobs": p.knobs(),
            "mode": p.mode,
            "games_per_pairing": self.games,
            "seed": self.seed,
            "duplicate": True,
            "rotate_dealer": True,
            "bots": self.names,
            "bot_specs": self.bots,
            "seconds": self.seconds,
            "elo_method": "Bradley-Terry MLE (Hunter 2004 MM), prior 0.5 win each way, mean 0",
            "ratings": self.ratings,
            "pairs": self.pairs,
        })


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


def unique_names(policies: Sequence[Policy]) -> list[str]:
    """Policy names, with ``#2``, ``#3`` ... appended to repeats."""
    seen: dict[str, int] = {}
    out = []
    for p in policies:
        k = seen.get(p.name, 0) + 1
        seen[p.name] = k
        out.append(p.name if k == 1 else f"{p.name}#{k}")
    return out


def _pair_stats(a_team_wins, a_team_losses, draws, diff_pairs, deals_pairs) -> dict[str, Any]:
    games = int(a_team_wins + a_team_losses + draws)
    decisive = int(a_team_wins + a_team_losses)
    lo, hi = wilson_interval(int(a_team_wins), decisive)
    ppd, plo, phi = ratio_interval(diff_pairs, deals_pairs)
    return {
        "games": games,
        "wins": int(a_team_wins),
        "losses": int(a_team_losses),
        "draws": int(draws),
        "win_rate": a_team_wins / decisive if decisive else float("nan"),
        "win_lo": lo,
        "win_hi": hi,
        "score": (a_team_wins + 0.5 * draws) / games if games else float("nan"),
        "deals": int(deals_pairs.sum()),
        "points_per_deal": ppd,
        "ppd_lo": plo,
        "ppd_hi": phi,
    }


def run_tournament(policies: Sequence[Policy], params: VitouParams, games: int, seed: int = 0,
                   progress: Callable[[int], None] | None = None) -> TournamentResult:
    """Round robin between ``policies`` (module docstring).

    Args:
        policies: two or more bots.
        params: the game; ``mode`` chooses deals or matches; the first dealer
            is rotated (``dealer`` is set to -1).
        games: games per pairing, rounded up to an even number.
        progress: called with the number of games just played (e.g. a tqdm
            ``update``); the library prints nothing.

    Raises:
        ValueError: fewer than two bots, ``games < 1``.
    """
    if len(policies) < 2:
        raise ValueError("a tournament needs at least two bots")
    if games < 1:
        raise ValueError(f"games per pairing must be >= 1, got {games}")
    games += games % 2
    params = params.replace(dealer=-1)
    names = unique_names(policies)
    n = len(policies)
    wins = np.zeros((n, n))
    stats_rows: list[dict[str, Any]] = []
    per_bot = {i: {"wins": 0, "losses": 0, "draws": 0, "diff": 0.0, "deals": 0} for i in range(n)}
    t0 = time.perf_counter()
    for i, j in itertools.combinations(range(n), 2):
        a, b = policies[i], policies[j]
        lineup = [a, b] * (params.players // 2)
        tables = []
        for row0 in range(0, games, BLOCK):
            m = min(BLOCK, games - row0)
            res = simulate(params, lineup, m, seed=seed, duplicate=True, rotate_dealer=True,
                           row0=row0)
            tables.append(res.table)
            if progress is not None:
                progress(m)
        t = np.concatenate(tables)
        a_team = t[:, F_VARIANT].astype(np.int64)  # variant 0: a is team 0; 1: swapped
        winner = t[:, F_WINNER]
        a_pts = np.where(a_team == 0, t[:, F_POINTS0], t[:, F_POINTS1]).astype(np.float64)
        b_pts = np.where(a_team == 0, t[:, F_POINTS1], t[:, F_POINTS0]).astype(np.float64)
        deals = t[:, F_DEALS].astype(np.float64)
        a_w = int((winner == a_team).sum())
        a_l = int((winner == 1 - a_team).sum())
        d = int((winner < 0).sum())
        diff_pairs = (a_pts - b_pts).reshape(-1, 2).sum(1)
        deals_pairs = deals.reshape(-1, 2).sum(1)
        ab = _pair_stats(a_w, a_l, d, diff_pairs, deals_pairs)
        ba = _pair_stats(a_l, a_w, d, -diff_pairs, deals_pairs)
        stats_rows.append({"bot": names[i], "opponent": names[j], **ab})
        stats_rows.append({"bot": names[j], "opponent": names[i], **ba})
        wins[i, j] += a_w + 0.5 * d
        wins[j, i] += a_l + 0.5 * d
        for k, (w_, l_) in ((i, (a_w, a_l)), (j, (a_l, a_w))):
            per_bot[k]["wins"] += w_
            per_bot[k]["losses"] += l_
            per_bot[k]["draws"] += d
            per_bot[k]["deals"] += int(deals.sum())
        per_bot[i]["diff"] += float(diff_pairs.sum())
        per_bot[j]["diff"] -= float(diff_pairs.sum())
    seconds = time.perf_counter() - t0
    elo = fit_elo(wins)
    ratings = []
    for k in range(n):
        s = per_bot[k]
        g = s["wins"] + s["losses"] + s["draws"]
        ratings.append({"bot": names[k], "elo": float(elo[k]), "games": g, "wins": s["wins"],
                        "losses": s["losses"], "draws": s["draws"],
                        "score": (s["wins"] + 0.5 * s["draws"]) / g,
                        "points_per_deal": s["diff"] / s["deals"]})
    bots = [{**describe(p), "name": nm} for p, nm in zip(policies, names, strict=True)]
    return TournamentResult(params, names, games, seed, stats_rows, elo, seconds, ratings, bots)


def plot(result: TournamentResult):
    """A matplotlib Figure (Agg canvas, no pyplot state): win-rate and
    points-per-deal matrices, and the Elo ratings."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = result.names
    n = len(names)
    idx = {b: k for k, b in enumerate(names)}
    wr = np.full((n, n), np.nan)
    ppd = np.full((n, n), np.nan)
    for row in result.pairs:
        i, j = idx[row["bot"]], idx[row["opponent"]]
        wr[i, j] = row["win_rate"]
        ppd[i, j] = row["points_per_deal"]
    fig = Figure(figsize=(4.2 * 3, 0.5 * n + 3.2))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 3)
    unit = "match" if result.params.mode == "match" else "deal"
    for ax, mat, title, cmap, lim in (
        (axes[0], wr, f"{unit} win rate (row vs column)", "RdBu", (0.0, 1.0)),
        (axes[1], ppd, "points per deal (row - column)", "RdBu",
         (-np.nanmax(np.abs(ppd)) or -1, np.nanmax(np.abs(ppd)) or 1)),
    ):
        im = ax.imshow(mat, cmap=cmap, vmin=lim[0], vmax=lim[1])
        ax.set_xticks(range(n), names, rotation=45, ha="right")
        ax.set_yticks(range(n), names)
        ax.set_title(title, fontsize=10)
        for i in range(n):
            for j in range(n):
                if not np.isnan(mat[i, j]):
                    ax.text(j, i, f"{mat[i, j]:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    order = np.argsort(result.elo)
    axes[2].barh([names[k] for k in order], result.elo[order], color="tab:gray")
    axes[2].axvline(0, color="black", lw=0.8)
    axes[2].set_xlabel("Elo (Bradley-Terry fit, mean 0)")
    plural = "matches" if unit == "match" else "deals"
    axes[2].set_title(f"{result.params.profile}, {result.games} {plural} per pairing", fontsize=10)
    fig.tight_layout()
    return fig


def write_outputs(result: TournamentResult, out_dir: str | Path) -> list[Path]:
    """Write ``pairs.csv``, ``ratings.csv``, ``tournament.json`` and
    ``tournament.png`` into ``out_dir`` (each atomically); return the paths."""
    from ..history import write_atomic

    out = Path(out_dir)
    paths = [out / "pairs.csv", out / "ratings.csv", out / "tournament.json",
             out / "tournament.png"]
    write_atomic(paths[0], result.pairs_frame().to_csv(index=False).encode())
    write_atomic(paths[1], result.ratings_frame().to_csv(index=False).encode())
    write_atomic(paths[2], (json.dumps(result.to_json(), indent=2) + "\n").encode())
    buf = io.BytesIO()
    plot(result).savefig(buf, format="png", dpi=110)
    write_atomic(paths[3], buf.getvalue())
    return paths
