"""Playing Vint deals and rubbers between bots (docs/RULES_vint.md V1-V7).

:func:`play_deal` runs one deal through the kernel with four bots;
:func:`play_rubber` deals until a side has two games (V6.3), the deal passing to
the left each time (V1.3). Deals come from a seeded stream so that a duplicate
match can replay the same cards with the seats swapped.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .bots import View
from .game import VintParams, VintState
from .rubber import DealRecord, Rubber


def deal_hands(rng: random.Random, dealer: int) -> list[int]:
    """A shuffled pack dealt one card at a time from the dealer's left (V1.2): four masks."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for k, c in enumerate(deck):
        hands[(dealer + 1 + k) % 4] |= 1 << c
    return hands


@dataclass
class DealResult:
    state: VintState
    calls: list[tuple[int, int]]
    plays: list[tuple[int, int]]


def play_deal(bots, params: VintParams, hands: list[int], rng: random.Random) -> DealResult:
    """One deal: ``bots[s]`` plays seat ``s``. Raises VintRuleError if a bot breaks a rule."""
    state = VintState(params)
    state.deal(hands)
    calls: list[tuple[int, int]] = []
    plays: list[tuple[int, int]] = []
    while not state.is_terminal():
        seat = state.current_player()
        a = bots[seat].act(View(seat, state, calls, plays), rng)
        state.apply(a)
        (calls if a >= 52 else plays).append((seat, a))
    return DealResult(state, calls, plays)


@dataclass
class RubberResult:
    settlement: int  # V6.4, side 0 minus side 1
    winner: int
    deals: int
    records: list[DealRecord]


def play_rubber(bots, deal_seed: int, params: VintParams | None = None, play_seed: int = 0,
                max_deals: int = 200) -> RubberResult:
    """A rubber between ``bots`` (seat order); deal ``k`` uses the ``k``-th pack of the
    stream ``deal_seed`` and dealer ``k % 4``. Raises RuntimeError past ``max_deals``
    (only all-pass bots can get there); ValueError / TypeError for a seed that is not a
    whole number in ``0 .. 2**64-1`` (:func:`vitou_ai.rng.check_seed`: ``random.Random``
    took ``1.5`` and ``-1`` as seeds of their own)."""
    from ..rng import UINT64_MAX, check_seed

    deal_seed = check_seed(deal_seed, "deal_seed", UINT64_MAX)
    play_seed = check_seed(play_seed, "play_seed", UINT64_MAX)
    base = params or VintParams()
    deals_rng = random.Random(deal_seed)
    play_rng = random.Random(play_seed)
    rub = Rubber(scoring=base.scoring)
    records = []
    for k in range(max_deals):
        dealer = k % 4
        p = VintParams(dealer=dealer, short_auction=base.short_auction, scoring=base.scoring,
                       slam_small=base.slam_small, slam_grand=base.slam_grand)
        res = play_deal(bots, p, deal_hands(deals_rng, dealer), play_rng)
        records.append(rub.add_deal(res.state))
        if rub.over:
            return RubberResult(rub.settlement(), rub.winner, k + 1, records)
    raise RuntimeError(f"no rubber after {max_deals} deals")


def play_evening(players, deal_seed: int, params: VintParams | None = None,
                 play_seed: int = 0) -> tuple[list[int], list[RubberResult]]:
    """An evening (V7): three rubbers, partners changing so that everyone partners
    everyone once (:data:`vitou_ai.vint.rubber.EVENING_SEATS`). ``players[i]`` is
    player ``i``'s bot. Returns each player's total (V6.4 summed) and the rubbers."""
    from .rubber import EVENING_SEATS, evening_totals

    results = []
    for r, seats in enumerate(EVENING_SEATS):
        at_seat = [None] * 4
        for player, seat in enumerate(seats):
            at_seat[seat] = players[player]
        results.append(play_rubber(at_seat, deal_seed * 3 + r, params, play_seed * 3 + r))
    return evening_totals([x.settlement for x in results]), results
