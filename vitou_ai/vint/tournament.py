"""Duplicate Vint tournaments over rubbers (docs/RULES_vint.md V6).

Each pairing plays ``rubbers`` duplicate pairs: rubber ``r`` is played twice with
the same stream of deals (the same cards, dealers and deal order), once with bot A
in seats 0 and 2 and once with A in seats 1 and 3, so each bot holds both sides'
cards. A's duplicate score for pair ``r`` is the mean of its two settlements (V6.4;
points per rubber); the table reports its mean with a 95% normal interval, and the
share of rubbers A won with a Wilson interval (:mod:`vitou_ai.eval.stats`). Below 30
rubber pairs (or 30 rubbers), or when every pair scored alike, an interval is
withheld (NaN bounds) and the table says why (:mod:`vitou_ai.eval.stats`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..eval.stats import format_interval, ratio_interval, wilson_interval
from .bots import make_bot
from .game import VintParams
from .table import play_rubber


@dataclass
class PairingResult:
    a: str
    b: str
    scores: list[float] = field(default_factory=list)  # A's duplicate score per pair
    rubbers_won: int = 0
    rubbers: int = 0
    deals: int = 0

    def mean_ci(self) -> tuple[float, float, float]:
        """A's mean duplicate score and its 95% interval (NaN bounds: module docstring)."""
        return ratio_interval(self.scores, np.ones(len(self.scores)))

    def as_dict(self) -> dict:
        m, lo, hi = self.mean_ci()
        wlo, whi = wilson_interval(self.rubbers_won, self.rubbers)
        return {"a": self.a, "b": self.b, "pairs": len(self.scores), "deals": self.deals,
                "points_per_rubber": m, "ci95": [lo, hi],
                "rubbers_won": self.rubbers_won, "rubbers": self.rubbers,
                "win_rate": self.rubbers_won / self.rubbers, "win_rate_ci95": [wlo, whi]}


def duplicate_match(a: str, b: str, pairs: int, seed: int = 0,
                    params: VintParams | None = None, worlds: int = 8) -> PairingResult:
    """``pairs`` duplicate rubber pairs of bot ``a`` against bot ``b`` (names of
    :func:`vitou_ai.vint.bots.make_bot`). Raises ValueError for unknown bots or
    ``pairs < 1`` or a seed out of ``0 .. 2**31-1`` (``--seed``'s range; the rubbers'
    seeds are derived from it), TypeError for a seed that is not a whole number
    (:func:`vitou_ai.rng.check_seed`)."""
    from ..rng import check_seed

    seed = check_seed(seed)
    if pairs < 1:
        raise ValueError(f"pairs must be at least 1, got {pairs}")
    A, B = make_bot(a, worlds), make_bot(b, worlds)
    res = PairingResult(a, b)
    for r in range(pairs):
        deal_seed = seed * 1_000_003 + r
        first = play_rubber([A, B, A, B], deal_seed, params, play_seed=deal_seed)
        second = play_rubber([B, A, B, A], deal_seed, params, play_seed=deal_seed)
        res.scores.append((first.settlement - second.settlement) / 2)
        res.rubbers_won += (first.winner == 0) + (second.winner == 1)
        res.rubbers += 2
        res.deals += first.deals + second.deals
    return res


def round_robin(names: list[str], pairs: int, seed: int = 0, params: VintParams | None = None,
                worlds: int = 8, progress=None) -> list[PairingResult]:
    """Every pairing of ``names`` (each unordered pair once)."""
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            out.append(duplicate_match(a, b, pairs, seed, params, worlds))
            if progress:
                progress(out[-1])
    return out


def table_markdown(results: list[PairingResult]) -> str:
    rows = ["| A | B | rubber pairs | deals | A's points per rubber (95% CI) | "
            "A's rubbers won (95% Wilson) |", "|---|---|---|---|---|---|"]
    for r in results:
        d = r.as_dict()
        ci = format_interval(*d["ci95"], d["pairs"], "pairs", "+,.0f")
        wci = format_interval(*d["win_rate_ci95"], d["rubbers"], "rubbers", ".0%")
        rows.append(
            f"| {r.a} | {r.b} | {d['pairs']} | {d['deals']} | {d['points_per_rubber']:+,.0f} "
            f"{ci} | {d['rubbers_won']}/{d['rubbers']} = {d['win_rate']:.0%} {wci} |")
    return "\n".join(rows)
