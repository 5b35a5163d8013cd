"""Differential test: the Vint kernel against the plain-Python reference engine
(tests/reference/vint_engine.py), on seeded random deals of every variant.

At every decision the two engines must list the same legal actions; at the end
the same trick winners and the same score, part by part (V4, V5, V8); and over a
sequence of deals the same rubber sheets (V6).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference.vint_engine import RefDeal, RefRubber
from vitou_ai.vint import VintParams
from vitou_ai.vint import kernel as K
from vitou_ai.vint import layout as L
from vitou_ai.vint.game import VintState
from vitou_ai.vint.rubber import Rubber

VARIANTS = [
    VintParams(dealer=0),
    VintParams(dealer=1, scoring="foster"),
    VintParams(dealer=2, short_auction=True),
    VintParams(dealer=3, short_auction=True, scoring="foster", slam_small=500, slam_grand=1500),
]
PASS_PROBS = [-1.0, 0.6, 0.85, 0.95]  # uniform auctions reach level 7; passing more varies it


def _mask(actions):
    lo = hi = 0
    for a in actions:
        if a < 62:
            lo |= 1 << a
        else:
            hi |= 1 << (a - 62)
    return lo, hi


def _signed(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x


def check_deals(n: int, seed: int) -> dict[str, int]:
    hands = np.zeros(4, np.int64)
    acts = np.zeros(600, np.int64)
    legal = np.zeros((600, 2), np.int64)
    seen = {"played": 0, "thrown_in": 0, "levels": 0}
    levels = set()
    for row in range(n):
        params = VARIANTS[row % 4]
        parr = params.to_array()
        k, s = K.random_trace(parr, seed, row, PASS_PROBS[(row // 4) % 4], hands, acts, legal)
        ref = RefDeal(params.dealer, [[c for c in range(52) if int(h) >> c & 1] for h in hands],
                      short_auction=params.short_auction, foster=params.scoring == "foster",
                      slam_small=params.slam_small, slam_grand=params.slam_grand)
        for i in range(k):
            lo, hi = _mask(ref.legal())
            assert (_signed(lo), _signed(hi)) == (legal[i, 0], legal[i, 1]), (row, i)
            ref.apply(int(acts[i]))
        assert ref.over()
        kst = VintState(params, s)
        if ref.thrown_in:
            assert kst.end() == "thrown_in"
            seen["thrown_in"] += 1
            continue
        seen["played"] += 1
        levels.add(ref.contract[0])
        assert kst.trick_winners() == ref.winners, row
        sc = kst.score_dict()
        want = ref.score()
        for part in L.SCORE_PARTS:
            assert sc[part] == want[part], (row, part)
    seen["levels"] = len(levels)
    return seen


def test_differential_20000_deals():
    seen = check_deals(20_000, seed=12)
    assert seen["played"] > 10_000 and seen["thrown_in"] > 500
    assert seen["levels"] == 7


@pytest.mark.slow
def test_differential_200000_deals():
    check_deals(200_000, seed=99)


def test_rubbers_agree():
    """Forty rubbers of random deals: the same games, bonuses and settlement (V6)."""
    hands = np.zeros(4, np.int64)
    acts = np.zeros(600, np.int64)
    legal = np.zeros((600, 2), np.int64)
    row = 0
    for r in range(40):
        foster = r % 2 == 1
        rub, ref_rub = Rubber(scoring="foster" if foster else "moscow"), RefRubber(foster=foster)
        dealer = 0
        while not rub.over:
            params = VintParams(dealer=dealer, scoring="foster" if foster else "moscow")
            n_act, s = K.random_trace(params.to_array(), 5, row, 0.9, hands, acts, legal)
            row += 1
            ref = RefDeal(dealer, [[c for c in range(52) if int(h) >> c & 1] for h in hands],
                          foster=foster)
            for a in acts[:n_act]:
                ref.apply(int(a))
            rub.add_deal(VintState(params, s))
            ref_rub.write(ref)
            assert rub.games == ref_rub.games
            assert rub.total == ref_rub.sheet
            dealer = (dealer + 1) % 4  # V1.3
        assert ref_rub.finished()
