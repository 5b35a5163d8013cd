"""Plain-Python reference engine for Vint, written from ``docs/RULES_vint.md``.

Written by the kernel's author in the same session (no separate engineer was
available), from the rules text and in a deliberately different representation,
without reusing kernel code.

It exists only to check the numba kernel (:mod:`vitou_ai.vint.kernel`): the
differential test drives both with the same actions and compares legal actions,
trick winners and scores. It shares nothing with the package but the action ids
of the interface (card = suit * 13 + rank with rank 0 = the two; 52 = pass;
53 + 5 * (level - 1) + denomination = a bid). Cards are kept as (suit, rank)
tuples, hands as sorted lists, the auction as a list of calls: slow and plain.
"""

from __future__ import annotations

SUIT_NAMES = ["spades", "clubs", "diamonds", "hearts"]
HONOUR_RANKS = {"T": 8, "J": 9, "Q": 10, "K": 11, "A": 12}
ACE = 12


class RefRuleError(Exception):
    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule


def card_of(action_id: int) -> tuple[int, int]:
    return divmod(action_id, 13)


def id_of(card: tuple[int, int]) -> int:
    return card[0] * 13 + card[1]


class RefDeal:
    """One deal of Vint: auction (V3), play (V4), score (V5, V8)."""

    def __init__(self, dealer: int, hands: list[list[int]], short_auction: bool = False,
                 foster: bool = False, slam_small: int = 1000, slam_grand: int = 2000):
        assert sorted(c for h in hands for c in h) == list(range(52))
        self.dealer = dealer
        self.dealt = [sorted(card_of(c) for c in h) for h in hands]
        self.hands = [list(h) for h in self.dealt]
        self.short = short_auction
        self.foster = foster
        self.slam_small = slam_small
        self.slam_grand = slam_grand
        self.calls: list[tuple[int, object]] = []  # (seat, "pass" | (level, denom))
        self.turn = dealer  # V3.1
        self.contract: tuple[int, int] | None = None
        self.declarer: int | None = None
        self.thrown_in = False
        self.tricks: list[list[tuple[int, tuple[int, int]]]] = []  # completed: (seat, card)
        self.current: list[tuple[int, tuple[int, int]]] = []
        self.winners: list[int] = []

    # -- auction ------------------------------------------------------------------------------
    def highest_bid(self):
        bids = [(s, c) for s, c in self.calls if c != "pass"]
        return bids[-1] if bids else None

    def in_auction(self) -> bool:
        return self.contract is None and not self.thrown_in

    def over(self) -> bool:
        return self.thrown_in or len(self.tricks) == 13

    def legal(self) -> list[int]:
        if self.over():
            return []
        if self.in_auction():
            out = [52]
            hb = self.highest_bid()
            for level in range(1, 8):
                for denom in range(5):
                    if hb is None or (level, denom) > hb[1]:  # V2.3: level, then denomination
                        out.append(53 + 5 * (level - 1) + denom)
            return out
        hand = self.hands[self.turn]
        if self.current:
            led = self.current[0][1][0]
            same = [c for c in hand if c[0] == led]
            if same:
                return sorted(id_of(c) for c in same)
        return sorted(id_of(c) for c in hand)

    def apply(self, action: int) -> None:
        if self.over():
            raise RefRuleError("V3.7", "deal over")
        if self.in_auction():
            self._call(action)
        else:
            self._play(action)

    def _call(self, action: int) -> None:
        if action < 52:
            raise RefRuleError("V3.4", "a card during the auction")
        if action == 52:
            self.calls.append((self.turn, "pass"))
        else:
            level, denom = (action - 53) // 5 + 1, (action - 53) % 5
            hb = self.highest_bid()
            if hb is not None and not (level, denom) > hb[1]:
                raise RefRuleError("V3.2", "insufficient bid")
            self.calls.append((self.turn, (level, denom)))
        self.turn = (self.turn + 1) % 4
        # count the passes at the end of the auction
        trailing = 0
        for _, c in reversed(self.calls):
            if c != "pass":
                break
            trailing += 1
        hb = self.highest_bid()
        if hb is None:
            if trailing == (4 if self.short else 8):  # V3.5 / V8.1
                self.thrown_in = True
        elif trailing == (3 if self.short else 12):  # V3.4 / V8.1
            self.declarer, self.contract = hb
            self.turn = (self.declarer + 1) % 4  # V4.1

    def _play(self, action: int) -> None:
        if action >= 52:
            raise RefRuleError("V3.7", "a call after the auction")
        card = card_of(action)
        hand = self.hands[self.turn]
        if card not in hand:
            raise RefRuleError("V4.2", "card not held")
        if self.current:
            led = self.current[0][1][0]
            if card[0] != led and any(c[0] == led for c in hand):
                raise RefRuleError("V4.2", "revoke")
        hand.remove(card)
        self.current.append((self.turn, card))
        if len(self.current) < 4:
            self.turn = (self.turn + 1) % 4
            return
        trump = self.contract[1] if self.contract[1] < 4 else None
        led = self.current[0][1][0]
        trumps = [(r, s) for s, (su, r) in self.current if su == trump]
        if trumps:  # V4.3
            winner = max(trumps)[1]
        else:
            winner = max((r, s) for s, (su, r) in self.current if su == led)[1]
        self.tricks.append(self.current)
        self.winners.append(winner)
        self.current = []
        self.turn = winner  # V4.4

    # -- scoring ---------------------------------------------------------------------------------
    def trick_value(self) -> int:
        level, denom = self.contract
        if self.foster:
            return 10 * level
        return 10 * level - 6 + [0, 2, 4, 6, 8][denom]

    def side_tricks(self) -> list[int]:
        return [sum(1 for w in self.winners if w % 2 == side) for side in (0, 1)]

    def score(self) -> dict[str, list[int]]:
        """Points per part and side (V5; V8.2)."""
        parts = {k: [0, 0] for k in ("below", "honours", "aces", "undertricks", "slam", "crowns")}
        if self.thrown_in:
            return parts
        level, denom = self.contract
        tv = self.trick_value()
        tricks = self.side_tricks()
        parts["below"] = [tricks[0] * tv, tricks[1] * tv]
        side_cards = [self.dealt[0] + self.dealt[2], self.dealt[1] + self.dealt[3]]
        aces = [sum(1 for c in cards if c[1] == ACE) for cards in side_cards]
        honours = [0, 0]
        if denom < 4:
            honours = [sum(1 for c in cards if c[0] == denom and c[1] in HONOUR_RANKS.values())
                       for cards in side_cards]
        decl_side = self.declarer % 2
        defenders = 1 - decl_side
        short_by = 6 + level - tricks[decl_side]
        if not self.foster:
            for side in (0, 1):
                if honours[side] >= 3:  # V5.3 table
                    parts["honours"][side] = {3: 20, 4: 30, 5: 40}[honours[side]] * tv
                if aces[side] > aces[1 - side]:  # V5.4
                    parts["aces"][side] = 10 * tv * aces[side]
            if aces[0] == aces[1]:
                more = 0 if tricks[0] > tricks[1] else 1
                parts["aces"][more] = 2 * 10 * tv
            if short_by > 0:  # V5.5
                extra = {6: 3000, 7: 5000}.get(level, 0)
                parts["undertricks"][defenders] = short_by * level * 500 + extra
        else:
            if denom < 4:  # V8.2b
                counts = [honours[s] + aces[s] for s in (0, 1)]
                for side in (0, 1):
                    if counts[side] > counts[1 - side]:
                        parts["honours"][side] = 10 * tv * counts[side]
            else:
                for side in (0, 1):
                    if aces[side] >= 3:
                        parts["honours"][side] = 25 * tv * aces[side]
            for seat in range(4):  # V8.2c
                hand = self.dealt[seat]
                n_aces = sum(1 for c in hand if c[1] == ACE)
                if n_aces >= 3:
                    parts["crowns"][seat % 2] += 500 * (n_aces - 2) * (2 if denom == 4 else 1)
                for suit in range(4):
                    ranks = {c[1] for c in hand if c[0] == suit}
                    longest, run = 0, 0
                    for r in (8, 9, 10, 11, 12):
                        run = run + 1 if r in ranks else 0
                        longest = max(longest, run)
                    if longest >= 3:
                        doubled = denom == 4 or suit == denom
                        parts["crowns"][seat % 2] += 500 * (longest - 2) * (2 if doubled else 1)
            if short_by > 0:  # V8.2d
                parts["undertricks"][defenders] = short_by * 100 * tv
        if short_by <= 0 and level >= 6:  # V5.6
            parts["slam"][decl_side] = self.slam_small if level == 6 else self.slam_grand
        return parts


class RefRubber:
    """V6: games to 500 below the line counted trick by trick, bonuses, settlement."""

    def __init__(self, foster: bool = False):
        self.foster = foster
        self.games = [0, 0]
        self.line = [0, 0]  # below the line in the current game
        self.sheet = [0, 0]  # all points written in the rubber

    def write(self, deal: RefDeal) -> None:
        if deal.thrown_in:
            return
        tv = deal.trick_value()
        game_done = False
        for w in deal.winners:
            side = w % 2
            self.sheet[side] += tv
            if game_done:
                continue
            self.line[side] += tv
            if self.line[side] >= 500:
                game_done = True
                self.games[side] += 1
                bonus = 500 if self.games[side] == 1 else 1000
                self.sheet[side] += bonus * (2 if self.foster else 1)
                self.line = [0, 0]
        sc = deal.score()
        for part in ("honours", "aces", "undertricks", "slam", "crowns"):
            for side in (0, 1):
                self.sheet[side] += sc[part][side]

    def finished(self) -> bool:
        return 2 in self.games
