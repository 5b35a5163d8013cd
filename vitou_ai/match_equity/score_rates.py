"""Raise and refusal rates by score state of score-conditioned two-player policies: where
the match-objective strategy differs from the point-maximising one.

Both strategies of :mod:`vitou_ai.match_equity.two_player` are solved deal by deal at every score
state ``(a, b)`` and dealer (:func:`vitou_ai.match_equity.two_player.state_policy`): ``"match"``
with match-equity payoffs (the same deterministic solve as the table's), ``"points"``
with the points of R8.1 at that score. Each policy is laid on the deal's exact game tree
and summarised per seat by :func:`vitou_ai.eval.analysis.infoset_table`: the reach-weighted
probability of raising where a raise is allowed (R9.2) and of refusing a raise, each
with its base (expected decisions per deal). Seat 1 at ``(a, b, d)`` is the player
with ``b`` points facing ``a``: rows are keyed by the player's own score and the
opponent's, so the states with ``a <= b`` give every ``(own, opp)`` pair (seat
symmetry, as in the table).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ..eval import analysis as A
from . import two_player as M

OBJECTIVES = ("match", "points")
RATES = ("raise", "refuse")


def seat_rates(tree, policy: np.ndarray) -> list[dict]:
    """Per seat of a two-player deal: ``raise_rate`` / ``raise_reach`` and
    ``refusal_rate`` / ``answer_reach`` (reach-weighted, :mod:`vitou_ai.eval.analysis`;
    NaN where the base is 0, e.g. no raise allowed one from the end, R9.3)."""
    df = A.infoset_table(tree, policy)
    df = df[df["reach"] > 0]
    out = []
    for seat in (0, 1):
        s = df[df["seat"] == seat]
        r = s[s["can_raise"]]
        q = s[s["answering"]]
        rr, qr = float(r["reach"].sum()), float(q["reach"].sum())
        out.append({"seat": seat,
                    "raise_rate": float((r["reach"] * r["raise"]).sum()) / rr if rr > 0
                    else float("nan"), "raise_reach": rr,
                    "refusal_rate": float((q["reach"] * q["refuse"]).sum()) / qr if qr > 0
                    else float("nan"), "answer_reach": qr})
    return out


def rates_by_score(config: M.EquityConfig, table: dict[tuple[int, int, int], float],
                   objectives: tuple[str, ...] = OBJECTIVES,
                   on_state: Callable[[tuple[int, int], str], None] | None = None
                   ) -> pd.DataFrame:
    """Raise and refusal rates of each objective's policy at every score state.

    Args:
        config: the two-player game and solve (``EquityConfig``).
        table: its match-equity table (``vitou_ai.match_equity.two_player``), which the
            ``"match"`` payoffs need.

    Returns:
        One row per objective, state with ``a <= b``, dealer and seat: ``objective``,
        ``own``, ``opp`` (the seat's score and the opponent's), ``deals`` (the seat
        deals), ``raise_rate``, ``raise_reach``, ``refusal_rate``, ``answer_reach``.
    """
    from ..bots.tabular import TabularPolicy
    from ..solvers.flat.tree import build_tree

    rows = []
    states = sorted({(min(a, b), max(a, b)) for a in range(config.target)
                     for b in range(config.target)})
    for a, b in states:
        trees = [build_tree(config.deal_params((a, b), d)) for d in (0, 1)]
        for obj in objectives:
            keys, probs = M.state_policy(config, (a, b), table, obj)
            tab = TabularPolicy(keys, probs)
            for d, tree in enumerate(trees):
                for r in seat_rates(tree, A.policy_from_tabular(tree, tab)):
                    seat = r.pop("seat")
                    own, opp = (a, b) if seat == 0 else (b, a)
                    rows.append({"objective": obj, "own": own, "opp": opp,
                                 "deals": seat == d, **r})
            if on_state:
                on_state((a, b), obj)
    return pd.DataFrame(rows)


def rate_grid(frame: pd.DataFrame, objective: str, rate: str, target: int,
              min_reach: float = 0.0, base: bool = False) -> np.ndarray:
    """``float64[target, target]``: the ``rate`` (``"raise"`` or ``"refuse"``) of
    ``objective`` at ``[own, opp]``, both deal roles together (weighted by their bases);
    NaN where the base (expected such decisions per deal, summed over the two deal roles)
    is 0 or below ``min_reach``. With ``base=True``, the base itself."""
    value, weight = ("raise_rate", "raise_reach") if rate == "raise" else \
        ("refusal_rate", "answer_reach")
    f = frame[(frame["objective"] == objective) & (frame[weight] > 0)]
    keys = [f["own"], f["opp"]]
    total = f[weight].groupby(keys).sum()
    g = total if base else (f[value] * f[weight]).groupby(keys).sum() / total
    m = np.full((target, target), np.nan)
    for (own, opp), v in g.items():
        if total[(own, opp)] >= min_reach:
            m[int(own), int(opp)] = v
    return m


def largest_differences(frame: pd.DataFrame, target: int, n: int = 10,
                        min_reach: float = A.MIN_REACH) -> pd.DataFrame:
    """The ``n`` states ``(own, opp)`` where the match objective's raise or refusal rate
    differs most from the points objective's, among those where both rates rest on a
    base of at least ``min_reach`` expected decisions per deal: ``rate``, ``own``,
    ``opp``, ``match``, ``points``, ``difference`` (match - points), ``match_base``,
    ``points_base``."""
    rows = []
    for rate in RATES:
        m, p = (rate_grid(frame, o, rate, target, min_reach) for o in OBJECTIVES)
        mb, pb = (rate_grid(frame, o, rate, target, base=True) for o in OBJECTIVES)
        for own in range(target):
            for opp in range(target):
                if np.isfinite(m[own, opp]) and np.isfinite(p[own, opp]):
                    rows.append({"rate": rate, "own": own, "opp": opp, "match": m[own, opp],
                                 "points": p[own, opp],
                                 "difference": m[own, opp] - p[own, opp],
                                 "match_base": mb[own, opp], "points_base": pb[own, opp]})
    df = pd.DataFrame(rows)
    return df.reindex(df["difference"].abs().sort_values(ascending=False).index).head(n) \
        .reset_index(drop=True)


def plot_rates(frame: pd.DataFrame, target: int, title: str = "",
               min_reach: float = A.MIN_REACH):
    """A 2 x 3 figure: raise and refusal rates by (own, opponent's) score, for the match
    objective, the points objective and their difference; a cell whose base is below
    ``min_reach`` expected decisions per deal is left blank (white). Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(14, 8.4), constrained_layout=True)
    for i, rate in enumerate(RATES):
        grids = [rate_grid(frame, o, rate, target, min_reach) for o in OBJECTIVES]
        top = np.nanmax([np.nanmax(g) for g in grids])
        for j, (g, name) in enumerate(zip(grids, OBJECTIVES, strict=True)):
            im = axes[i, j].imshow(g, origin="lower", cmap="viridis", vmin=0, vmax=top)
            axes[i, j].set_title(f"{rate} rate, {name} objective")
        fig.colorbar(im, ax=axes[i, :2], shrink=0.85)
        diff = grids[0] - grids[1]
        lim = np.nanmax(np.abs(diff))
        im = axes[i, 2].imshow(diff, origin="lower", cmap="RdBu_r", vmin=-lim, vmax=lim)
        axes[i, 2].set_title(f"{rate} rate: match - points")
        fig.colorbar(im, ax=axes[i, 2], shrink=0.85)
        for ax in axes[i]:
            ax.set_xlabel("opponent's score")
            ax.set_ylabel("own score")
    fig.suptitle((title + "\n" if title else "")
                 + f"blank: no such decision, or below {min_reach:g} expected decisions per deal")
    return fig
