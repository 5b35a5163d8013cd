"""Double-dummy solvers (vitou_ai/vint/dd.py) against known results: hand-worked
endings (a finesse onside and offside, ruffing, cashing), a full 13-trick deal whose
result is forced, and DDS (through endplay, when installed) on random endings."""

from __future__ import annotations

import random

import numpy as np

from tests.helpers import needs_extra
from vitou_ai.vint.dd import dd_card_values, dd_tricks
from vitou_ai.vint.game import parse_hand


def _hands(*texts):
    return np.array([parse_hand(t) for t in texts], np.int64)


def test_finesse_onside_and_offside():
    """NT, South (seat 2) leads from S 3 2 towards North's A Q (seat 0). West (seat 3)
    plays before North: with the king there the finesse wins both tricks; with East
    (seat 1) holding it, North-South make one."""
    onside = _hands("AS QS", "5H 6H", "3S 2S", "KS 4S")
    offside = _hands("AS QS", "KS 4S", "3S 2S", "5H 6H")
    assert dd_tricks(onside, 4, np.zeros(0, np.int64), 2) == 2
    assert dd_tricks(offside, 4, np.zeros(0, np.int64), 2) == 1


def test_ruffing_and_cashing():
    """North (seat 0): AS 2H; East: KS QS; South: 3D 4D; West: 5D 6D. North on lead
    cashes AS, then leads 2H, which nobody can follow: 2 tricks at hearts and at no
    trump. East on lead: KS, North must follow with AS (V4.2) and then makes 2H, so
    East-West take nothing."""
    h = _hands("AS 2H", "KS QS", "3D 4D", "5D 6D")
    assert dd_tricks(h, 3, np.zeros(0, np.int64), 0) == 2
    assert dd_tricks(h, 4, np.zeros(0, np.int64), 0) == 2
    assert dd_tricks(h, 3, np.zeros(0, np.int64), 1) == 0
    vals = dd_card_values(h, 3, [], 0)
    assert vals == {parse_hand("AS").bit_length() - 1: 2, parse_hand("2H").bit_length() - 1: 2}


def test_full_deal_one_suit_each():
    """Every seat holds one whole suit (as in the golden histories): at hearts the
    hearts hand's side takes all 13 whoever leads; at no trump the leader's side does."""
    hands = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], np.int64)
    for leader in range(4):
        side_of_hearts = dd_tricks(hands, 3, np.zeros(0, np.int64), leader)
        assert side_of_hearts == (13 if leader % 2 == 1 else 0)
        assert dd_tricks(hands, 4, np.zeros(0, np.int64), leader) == 13


@needs_extra("vint")
def test_against_dds_on_random_endings():
    from vitou_ai.vint.dd import endplay_card_values

    rng = random.Random(7)
    for trial in range(60):
        k = 2 + trial % 4
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[i * k:(i + 1) * k]) for i in range(4)]
        trump, leader, nin = rng.randrange(5), rng.randrange(4), rng.randrange(4)
        trick = []
        for i in range(nin):
            seat = (leader + i) % 4
            cards = [c for c in range(52) if hands[seat] >> c & 1]
            if trick:
                cards = [c for c in cards if c // 13 == trick[0] // 13] or cards
            c = rng.choice(cards)
            trick.append(c)
            hands[seat] &= ~(1 << c)
        assert dd_card_values(hands, trump, trick, leader) == \
            endplay_card_values(hands, trump, trick, leader), trial
