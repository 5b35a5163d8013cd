"""Vint bots: random, a rule-based bidder, heuristic card play, determinized search.

A bot is called as ``bot.act(view, rng) -> action`` with a :class:`View` of the
deal: the bot's own cards, the public auction and play, nothing else of the other
hands. Bots combine a bidder and a card player:

- ``random``: uniformly random legal calls and cards.
- ``heuristic``: :class:`RuleBidder` + :class:`HeuristicPlayer`.
- ``search``: :class:`RuleBidder` + :class:`SearchPlayer` (sampled deals consistent
  with what the player knows, each solved double-dummy; Ginsberg 2001, "GIB:
  Imperfect information in a computationally challenging game", JAIR 14, sec. 3).

Rule numbers refer to docs/RULES_vint.md.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from . import layout as L
from .game import VintState, trick_value_of

HCP = {12: 4, 11: 3, 10: 2, 9: 1}  # A K Q J


@dataclass
class View:
    """What ``seat`` knows at its turn: its own cards (``hand`` held now, ``dealt``
    at the deal), the calls and cards so far (``calls``: ``(seat, action)``;
    ``plays``: ``(seat, card)``), and the public state (through ``state``, whose
    other hands a bot must not read: use the helpers here)."""

    seat: int
    state: VintState
    calls: list[tuple[int, int]]
    plays: list[tuple[int, int]]

    @property
    def hand(self) -> int:
        return self.state.hand(self.seat)

    @property
    def dealt(self) -> int:
        return self.state.dealt(self.seat)

    def legal(self) -> list[int]:
        return self.state.legal_actions()

    def played_mask(self) -> int:
        m = 0
        for _, c in self.plays:
            m |= 1 << c
        return m

    def voids(self) -> list[set[int]]:
        """Suits each seat has shown out of (failed to follow, V4.2)."""
        out: list[set[int]] = [set() for _ in range(4)]
        for t in range(0, len(self.plays), 4):
            trick = self.plays[t:t + 4]
            lead = trick[0][1] // 13
            for seat, c in trick[1:]:
                if c // 13 != lead:
                    out[seat].add(lead)
        return out


def cards_of(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


class RandomBot:
    name = "random"

    def act(self, view: View, rng: random.Random) -> int:
        return rng.choice(view.legal())


# ---- bidding -------------------------------------------------------------------------------


class RuleBidder:
    """Point count and long suits, honours-seeking, undertrick-aware, with a sacrifice
    rule (the seed's 'Tipps für Einsteiger').

    For each denomination it estimates the tricks its side can take: 6 + (combined
    high-card points - 20) / 3 (26 points about 8 tricks, 32 about 10), plus 0.6 per
    trump beyond seven in the partnership and 0.5 per short side suit with a fit; the
    partner's points and lengths are read from his calls (a bid: 12 points and five
    cards in the suit; passes only: 7 points). A bid's value is (our tricks - their
    tricks) x trick value + the honours and aces it brings at that trick value -
    expected undertricks x level x 500 (tricks ~ normal, sd 1.5; V5.1-V5.5). It bids
    the best bid above the current one if that beats the value of passing (the
    current contract as it stands). Sacrifice: when the opponents hold the contract in
    a suit whose honours we lack, a bid that loses at most ``sacrifice_downs`` tricks
    by our estimate is taken if it costs less than their honours and aces would bring.
    """

    def __init__(self, sd: float = 1.5, sacrifice_downs: float = 1.0):
        self.sd = sd
        self.sacrifice_downs = sacrifice_downs

    # -- hand reading --
    def _partner_info(self, view: View) -> tuple[float, list[float]]:
        partner = (view.seat + 2) % 4
        bids = [a - L.BID0 for s, a in view.calls if s == partner and a > L.PASS]
        lengths = [3.25] * 4
        for b in bids:
            if b % 5 < 4:
                lengths[b % 5] = 5.0
        hcp = 12.0 if bids else 7.0
        return hcp, lengths

    def estimate(self, view: View) -> list[float]:
        """Estimated tricks of our side in each denomination S C D H NT."""
        hand = view.dealt
        cards = cards_of(hand)
        hcp = sum(HCP.get(c % 13, 0) for c in cards)
        lens = [sum(1 for c in cards if c // 13 == s) for s in range(4)]
        p_hcp, p_lens = self._partner_info(view)
        base = 6 + (hcp + p_hcp - 20) / 3
        est = []
        for d in range(4):
            fit = lens[d] + p_lens[d]
            ruff = sum(0.5 for s in range(4) if s != d and lens[s] <= 1) if fit >= 8 else 0.0
            est.append(base + 0.6 * max(0.0, fit - 7) + ruff - (1.0 if fit < 7 else 0.0))
        stoppers = sum(1 for s in range(4) if any(c // 13 == s and c % 13 >= 11 for c in cards))
        est.append(base - 0.5 - 0.5 * (4 - stoppers))
        return [min(13.0, max(0.0, e)) for e in est]

    def _honour_factor(self, view: View, denom: int) -> float:
        """Expected honours factor (x trick value) for our side minus theirs (V5.3)."""
        if denom == L.NT:
            return 0.0
        mine = sum(1 for c in cards_of(view.dealt) if c // 13 == denom and c % 13 >= 8)
        _, p_lens = self._partner_info(view)
        partner = 2.0 if p_lens[denom] >= 5 else (5 - mine) * 0.45
        ours = mine + partner
        if ours >= 3:
            return 20 + 10 * (min(5.0, ours) - 3)
        return -(20 + 10 * (min(5.0, 5 - ours) - 3))

    def _ace_factor(self, view: View) -> float:
        mine = sum(1 for c in cards_of(view.dealt) if c % 13 == 12)
        ours = mine + (4 - mine) / 3
        return 10 * (ours - 2) * 2  # V5.4, roughly: 10 x tv per ace of the majority

    def _expected_down(self, est: float, need: int) -> float:
        total = 0.0
        for k in range(need):
            # P(T <= k) with continuity correction, T ~ N(est, sd)
            total += 0.5 * (1 + math.erf((k + 0.5 - est) / (self.sd * math.sqrt(2))))
        return total

    def bid_value(self, view: View, bid: int, ours: bool, est: list[float]) -> float:
        level, denom = bid // 5 + 1, bid % 5
        tv = trick_value_of(level, denom)
        aces = self._ace_factor(view)
        if ours:
            t = est[denom]
            down = self._expected_down(t, 6 + level)
            return (tv * (2 * min(t, 13) - 13) + tv * (self._honour_factor(view, denom) + aces)
                    - down * level * 500)
        # their contract: assume they make it just; our defence: 13 - (6 + level)
        their = 6 + level
        return tv * (13 - 2 * their) + tv * (self._honour_factor(view, denom) + aces)

    def act(self, view: View, rng: random.Random) -> int:
        legal = view.legal()
        state = view.state
        est = self.estimate(view)
        cur = int(state.arr[L.S_BID])
        cur_ours = cur >= 0 and int(state.arr[L.S_BIDDER]) % 2 == view.seat % 2
        pass_value = self.bid_value(view, cur, cur_ours, est) if cur >= 0 else 0.0
        best, best_value = L.PASS, pass_value
        for a in legal:
            if a <= L.PASS:
                continue
            b = a - L.BID0
            level, denom = b // 5 + 1, b % 5
            if est[denom] < 6 + level - 0.5 and not self._sacrifice_ok(view, b, cur, cur_ours,
                                                                        est):
                continue  # undertrick-aware: never plan to go down, except to sacrifice
            v = self.bid_value(view, b, True, est)
            if v > best_value + 1e-9:
                best, best_value = a, v
        return best

    def _sacrifice_ok(self, view: View, bid: int, cur: int, cur_ours: bool,
                      est: list[float]) -> bool:
        """The sacrifice rule: overbid the opponents' suit contract when we lack its
        honours, at a cost of at most ``sacrifice_downs`` estimated undertricks."""
        if cur < 0 or cur_ours or cur % 5 == L.NT:
            return False
        if self._honour_factor(view, cur % 5) > 0:
            return False
        level, denom = bid // 5 + 1, bid % 5
        return 6 + level - est[denom] <= self.sacrifice_downs


# ---- card play -----------------------------------------------------------------------------


def _rank(c: int) -> int:
    return c % 13


def _winning(trick: list[int], trump: int) -> int:
    """Index of the card winning the trick so far (V4.3)."""
    best = 0
    for i in range(1, len(trick)):
        c, b = trick[i], trick[best]
        if (c // 13 == b // 13 and c > b) or (c // 13 == trump and b // 13 != trump):
            best = i
    return best


class HeuristicPlayer:
    """Card play by simple rules: draw trumps (the declaring side leads trumps while the
    opponents may hold some), cash the top card of a suit when it is the highest
    left, else lead low from the longest suit; second hand low; third hand high;
    fourth hand wins as cheaply as it can; when void, ruff an opponent's winner with
    the lowest trump that wins, else discard the lowest card."""

    def act(self, view: View, rng: random.Random) -> int:
        legal = view.legal()
        if len(legal) == 1:
            return legal[0]
        state = view.state
        level, trump, declarer = state.contract()
        trick = state.current_trick()
        gone = view.played_mask() | sum(1 << c for c in trick)
        hand = view.hand

        def top_left(suit: int) -> int:
            """Highest card of ``suit`` not yet played, held by anyone."""
            for r in range(12, -1, -1):
                c = suit * 13 + r
                if not gone >> c & 1:
                    return c
            return -1

        if not trick:
            ours = declarer % 2 == view.seat % 2
            if trump < 4 and ours:
                trumps = [c for c in legal if c // 13 == trump]
                out = sum(1 for r in range(13) if not (gone | hand) >> (trump * 13 + r) & 1)
                voids = view.voids()
                opp_void = all(trump in voids[s] for s in range(4) if s % 2 != view.seat % 2)
                if trumps and out > 0 and not opp_void:
                    top = max(trumps)
                    return top if top == top_left(trump) else min(trumps)
            for c in sorted(legal, reverse=True):
                if c == top_left(c // 13):  # cash a card that is the highest left
                    return c
            lens = {s: sum(1 for c in legal if c // 13 == s) for s in range(4)}
            suit = max((s for s in lens if lens[s] > 0 and s != trump),
                       key=lambda s: lens[s], default=None)
            if suit is None:
                return min(legal, key=_rank)
            return min((c for c in legal if c // 13 == suit), key=_rank)
        pos = len(trick)
        lead = trick[0] // 13
        win_i = _winning(trick, trump)
        leader = int(state.arr[L.S_LEADER])
        partner_winning = (leader + win_i) % 4 % 2 == view.seat % 2
        winners = [c for c in legal if _winning(trick + [c], trump) == pos]
        following = legal[0] // 13 == lead
        if following:
            if pos == 1:  # second hand low (unless the top card is ours to cash)
                top = max(legal)
                if top == top_left(lead) and top in winners:
                    return top
                return min(legal)
            if partner_winning and (pos == 3 or trick[win_i] == top_left(lead)
                                    or trick[win_i] // 13 == trump != lead):
                return min(legal)
            if winners:
                return max(winners) if pos == 2 else min(winners)  # third high, fourth cheap
            return min(legal)
        # void in the suit led
        if not partner_winning or (pos == 1 and trick[win_i] != top_left(lead)):
            trumps = [c for c in winners if c // 13 == trump]
            if trumps:
                return min(trumps)
        non_trump = [c for c in legal if c // 13 != trump] or legal
        return min(non_trump, key=_rank)


class SearchPlayer:
    """Determinized double-dummy search: sample ``worlds`` deals of the unseen cards
    consistent with what the player knows (cards played, suits each player has shown
    out of, how many cards each holds), solve each double-dummy (DDS via endplay if
    installed, else the compact solver), play the card with the most tricks summed
    over the worlds. With more than ``max_tricks_left`` tricks to go it plays as
    :class:`HeuristicPlayer` (a full-deal solve takes ~0.2 s here)."""

    def __init__(self, worlds: int = 8, max_tricks_left: int = 9):
        from .dd import dd_card_values, endplay_available, endplay_card_values

        self.worlds = worlds
        self.fallback = HeuristicPlayer()
        self.uses_dds = endplay_available()
        self.solve = endplay_card_values if self.uses_dds else dd_card_values
        self.max_tricks_left = max_tricks_left if self.uses_dds else min(max_tricks_left, 4)

    def sample_world(self, view: View, rng: random.Random) -> list[int] | None:
        """Hands (masks of cards still held) of all four seats, the player's own true."""
        state = view.state
        trick = state.current_trick()
        seen = view.played_mask() | sum(1 << c for c in trick) | view.hand
        unseen = [c for c in range(52) if not seen >> c & 1]
        counts = [0] * 4
        tricks_done = len(view.plays) // 4
        leader = int(state.arr[L.S_LEADER])
        for s in range(4):
            played_now = 1 if (s - leader) % 4 < len(trick) else 0
            counts[s] = 13 - tricks_done - played_now
        voids = view.voids()
        others = [s for s in range(4) if s != view.seat]
        for _ in range(50):
            rng.shuffle(unseen)
            hands = [0, 0, 0, 0]
            hands[view.seat] = view.hand
            need = {s: counts[s] for s in others}
            ok = True
            # most constrained cards first: those only some seats may hold
            for c in sorted(unseen, key=lambda c: sum(c // 13 in voids[s] for s in others),
                            reverse=True):
                can = [s for s in others if need[s] > 0 and c // 13 not in voids[s]]
                if not can:
                    ok = False
                    break
                s = rng.choice(can)
                hands[s] |= 1 << c
                need[s] -= 1
            if ok:
                return hands
        return None

    def act(self, view: View, rng: random.Random) -> int:
        legal = view.legal()
        if len(legal) == 1:
            return legal[0]
        state = view.state
        left = 13 - len(view.plays) // 4
        if left > self.max_tricks_left:
            return self.fallback.act(view, rng)
        _, trump, _ = state.contract()
        trick = state.current_trick()
        leader = int(state.arr[L.S_LEADER])
        totals = dict.fromkeys(legal, 0.0)
        n = 0
        for _ in range(self.worlds):
            hands = self.sample_world(view, rng)
            if hands is None:
                continue
            vals = self.solve(np.array(hands, np.int64), trump, trick, leader)
            for c in legal:
                totals[c] += vals.get(c, 0)
            n += 1
        if n == 0:
            return self.fallback.act(view, rng)
        best = max(totals.values())
        return min(c for c in legal if totals[c] == best)  # cheapest of the best


class Bot:
    """A bidder and a card player under one name."""

    def __init__(self, name: str, bidder, player):
        self.name, self.bidder, self.player = name, bidder, player

    def act(self, view: View, rng: random.Random) -> int:
        if view.state.contract() is None:
            return self.bidder.act(view, rng)
        return self.player.act(view, rng)


BOT_NAMES = ("random", "heuristic", "search")


def make_bot(name: str, worlds: int = 8) -> Bot:
    """A bot by name (``BOT_NAMES``). Raises ValueError for an unknown name."""
    if name == "random":
        r = RandomBot()
        return Bot(name, r, r)
    if name == "heuristic":
        return Bot(name, RuleBidder(), HeuristicPlayer())
    if name == "search":
        return Bot(name, RuleBidder(), SearchPlayer(worlds=worlds))
    raise ValueError(f"unknown Vint bot {name!r}; choose from {', '.join(BOT_NAMES)}")
