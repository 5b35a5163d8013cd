"""Python face of the Vint kernel: parameters, a state object, card and call strings.

Everything here calls :mod:`vitou_ai.vint.kernel`; no rule is repeated. Rule
numbers refer to ``docs/RULES_vint.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from . import kernel as K
from . import layout as L

RULES_VERSION = "vint-rules-1.0"
SCORINGS = ("moscow", "foster")


class VintRuleError(ValueError):
    """An action that breaks a rule; ``rule`` names it (``"V4.2"``)."""

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True)
class VintParams:
    """Parameters of one Vint deal.

    Attributes:
        dealer: seat 0..3 that deals and speaks first (V1.2, V3.1).
        short_auction: V8.1; the auction ends after 3 passes (4 with no bid).
        scoring: ``"moscow"`` (the 1886 rules, V5) or ``"foster"`` (V8.2).
        slam_small: points above the line for a small slam bid and made
            (V5.6 [convention]), 0..100000.
        slam_grand: the same for a grand slam.
    """

    dealer: int = 0
    short_auction: bool = False
    scoring: str = "moscow"
    slam_small: int = 1000
    slam_grand: int = 2000

    def __post_init__(self):
        if isinstance(self.dealer, bool) or not isinstance(self.dealer, int) \
                or not 0 <= self.dealer <= 3:
            raise ValueError(f"dealer must be a seat 0..3, got {self.dealer!r}")
        if not isinstance(self.short_auction, bool):
            raise ValueError(f"short_auction must be true or false, got {self.short_auction!r}")
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}, got {self.scoring!r}")
        for name in ("slam_small", "slam_grand"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 100_000:
                raise ValueError(f"{name} must be an integer 0..100000, got {v!r}")

    def to_array(self) -> np.ndarray:
        """int64[PARAMS_SIZE] for the kernel."""
        a = np.zeros(L.PARAMS_SIZE, np.int64)
        a[L.P_DEALER] = self.dealer
        a[L.P_SHORT] = int(self.short_auction)
        a[L.P_FOSTER] = int(self.scoring == "foster")
        a[L.P_SLAM_SMALL] = self.slam_small
        a[L.P_SLAM_GRAND] = self.slam_grand
        return a

    def knobs(self) -> dict:
        """The non-default knobs (for histories and OpenSpiel strings)."""
        d = {}
        for k, default in (("short_auction", False), ("scoring", "moscow"),
                           ("slam_small", 1000), ("slam_grand", 2000)):
            if getattr(self, k) != default:
                d[k] = getattr(self, k)
        return d


def trick_value_of(level: int, denom: int, foster: bool = False) -> int:
    """V5.1 (V8.2a with ``foster``): the trick value of a contract (the kernel's)."""
    return int(K.trick_value(level, denom, int(foster)))


# ---- strings --------------------------------------------------------------------------------

_SUIT_IN = {"S": 0, "C": 1, "D": 2, "H": 3, "♠": 0, "♣": 1, "♦": 2, "♥": 3}
_CARD_RE = re.compile(r"^(10|[2-9TJQKA])([SCDH♠♣♦♥])$")
_BID_RE = re.compile(r"^([1-7])(S|C|D|H|NT|♠|♣|♦|♥)$")


def card_str(card: int) -> str:
    """``"QH"`` for card id ``card`` (V0.2)."""
    return L.RANKS[card % 13] + L.SUITS[card // 13]


def parse_card(text: str) -> int:
    """Card id of ``"QH"``, ``"10♥"``, ``"qh"``. Raises ValueError."""
    m = _CARD_RE.match(text.strip().upper())
    if not m:
        raise ValueError(f"{text!r} is not a card (rank A K Q J T 9 .. 2, then suit S C D H)")
    rank = "T" if m.group(1) == "10" else m.group(1)
    return _SUIT_IN[m.group(2)] * 13 + L.RANKS.index(rank)


def bid_str(bid: int) -> str:
    """``"2D"`` for bid id 0..34."""
    return f"{bid // 5 + 1}{L.DENOMS[bid % 5]}"


def parse_bid(text: str) -> int:
    """Bid id of ``"2D"``, ``"3NT"``, ``"4♠"``. Raises ValueError."""
    m = _BID_RE.match(text.strip().upper())
    if not m:
        raise ValueError(f"{text!r} is not a bid (level 1-7, then S C D H or NT)")
    d = m.group(2)
    denom = 4 if d == "NT" else _SUIT_IN[d]
    return (int(m.group(1)) - 1) * 5 + denom


def action_str(a: int) -> str:
    """``"play QH"``, ``"pass"``, ``"bid 2D"``."""
    if 0 <= a < L.PASS:
        return f"play {card_str(a)}"
    if a == L.PASS:
        return "pass"
    if L.BID0 <= a < L.NUM_ACTIONS:
        return f"bid {bid_str(a - L.BID0)}"
    raise ValueError(f"no action {a}")


def parse_action(text: str) -> int:
    """Action id of ``"pass"``, ``"bid 2D"``, ``"play QH"``. Raises ValueError."""
    words = text.split()
    if words == ["pass"]:
        return L.PASS
    if len(words) == 2 and words[0] == "bid":
        return L.BID0 + parse_bid(words[1])
    if len(words) == 2 and words[0] == "play":
        return parse_card(words[1])
    raise ValueError(f"{text!r}: expected 'pass', 'bid LEVEL+DENOM' or 'play CARD'")


def hand_str(mask: int) -> str:
    """Cards of a 52-bit mask, suits S C D H, high cards first."""
    cards = [c for c in range(52) if mask >> c & 1]
    cards.sort(key=lambda c: (c // 13, -(c % 13)))
    return " ".join(card_str(c) for c in cards)


def parse_hand(text: str) -> int:
    """52-bit mask of a hand string (cards separated by spaces). Raises ValueError."""
    mask = 0
    for w in text.split():
        c = parse_card(w)
        if mask >> c & 1:
            raise ValueError(f"{w} twice in one hand")
        mask |= 1 << c
    return mask


# ---- state ---------------------------------------------------------------------------------


class VintState:
    """One deal, wrapping a kernel state array (not shared; ``clone`` copies it)."""

    __slots__ = ("params", "arr", "_parr")

    def __init__(self, params: VintParams, arr: np.ndarray | None = None,
                 parr: np.ndarray | None = None):
        self.params = params
        self._parr = params.to_array() if parr is None else parr
        self.arr = K.new_state(self._parr) if arr is None else arr

    def clone(self) -> VintState:
        return VintState(self.params, self.arr.copy(), self._parr)

    # -- dealing --
    def deal(self, hands: list[int]) -> None:
        """Give seat ``s`` the mask ``hands[s]`` (V1.2). Raises ValueError for a bad pack."""
        if len(hands) != 4:
            raise ValueError(f"need four hands, got {len(hands)}")
        total = 0
        for s, h in enumerate(hands):
            if bin(h).count("1") != 13:
                raise ValueError(f"seat {s} has {bin(h).count('1')} cards, not 13 (V1.2)")
            if total & h:
                raise ValueError(f"seat {s}: a card dealt twice (V1.1)")
            total |= h
        K.set_hands(self.arr, np.array(hands, np.int64))

    def apply_chance(self, card: int) -> None:
        if K.apply_chance(self.arr, card) != L.OK:
            raise VintRuleError(f"card {card} cannot be dealt here", "V1.2")

    def deal_seat(self) -> int:
        return int(K.deal_seat(self.arr))

    # -- queries --
    @property
    def phase(self) -> int:
        return int(self.arr[L.S_PHASE])

    def is_terminal(self) -> bool:
        return self.phase == L.PH_OVER

    def is_chance(self) -> bool:
        return self.phase == L.PH_DEAL

    def current_player(self) -> int:
        """Seat to act; -1 at the deal (chance), -4 at the end."""
        if self.phase == L.PH_DEAL:
            return -1
        return int(self.arr[L.S_TOMOVE])

    def legal_actions(self) -> list[int]:
        buf = np.empty(52, np.int64)
        n = K.legal_actions(self.arr, buf)
        return buf[:n].tolist()

    def hand(self, seat: int) -> int:
        return int(self.arr[L.S_HAND + seat])

    def dealt(self, seat: int) -> int:
        return int(self.arr[L.S_ORIG + seat])

    def contract(self) -> tuple[int, int, int] | None:
        """``(level, denom, declarer)`` once the auction has ended, else None."""
        if self.arr[L.S_LEVEL] == 0:
            return None
        return int(self.arr[L.S_LEVEL]), int(self.arr[L.S_TRUMP]), int(self.arr[L.S_BIDDER])

    def tricks(self) -> tuple[int, int]:
        return int(self.arr[L.S_TRICKS]), int(self.arr[L.S_TRICKS + 1])

    def trick_winners(self) -> list[int]:
        return [int(w) for w in self.arr[L.S_WIN:L.S_WIN + 13] if w >= 0]

    def current_trick(self) -> list[int]:
        return [int(c) for c in self.arr[L.S_TRICK:L.S_TRICK + 4] if c >= 0]

    def end(self) -> str:
        return L.END_NAMES[int(self.arr[L.S_END])]

    # -- acting --
    def apply(self, action: int) -> None:
        """Apply a player action. Raises :class:`VintRuleError` naming the rule."""
        code = K.apply_action(self.arr, action)
        if code == L.OK:
            return
        raise VintRuleError(self._explain(code, action), L.ERROR_RULES[code])

    def _explain(self, code: int, action: int) -> str:
        if code == L.ERR_OVER:
            return "the deal is over" if self.is_terminal() else "the cards are still being dealt"
        if code == L.ERR_ACTION:
            return f"no action {action}"
        if code == L.ERR_INSUFFICIENT:
            return (f"insufficient bid: {bid_str(action - L.BID0)} is not higher than "
                    f"{bid_str(int(self.arr[L.S_BID]))}")
        if code == L.ERR_CARD_IN_AUCTION:
            return "the auction has not ended: a call (pass or bid) is due, not a card"
        if code == L.ERR_CALL_IN_PLAY:
            return "the auction has ended (twelve passes after the last bid): play a card"
        if code == L.ERR_NOT_HELD:
            return f"{card_str(action)} is not in seat {self.current_player()}'s hand"
        lead = L.SUITS[int(self.arr[L.S_TRICK]) // 13]
        return (f"revoke: {card_str(action)} does not follow suit; seat "
                f"{self.current_player()} holds {lead} and must follow suit")

    def score(self) -> np.ndarray:
        """int64[SCORE_SIZE], V5 (layout ``SC_*``)."""
        out = np.zeros(L.SCORE_SIZE, np.int64)
        K.deal_score(self.arr, self._parr, out)
        return out

    def score_dict(self) -> dict[str, list[int]]:
        sc = self.score()
        d = {name: [int(sc[2 * k]), int(sc[2 * k + 1])] for k, name in enumerate(L.SCORE_PARTS)}
        d["above"] = [sum(d[n][side] for n in L.SCORE_PARTS[1:]) for side in (0, 1)]
        return d

    def difference(self) -> int:
        """V6.5: the deal's difference, side 0 minus side 1."""
        return int(K.deal_difference(self.score()))
