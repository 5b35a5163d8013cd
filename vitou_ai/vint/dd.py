"""Double-dummy trick counts for Vint positions (all hands visible; V4 play rules).

Two solvers with one answer:

- :func:`dd_tricks` / :func:`dd_card_values`: a compact alpha-beta search (numba),
  exact, with equivalent touching cards searched once. Fine for endings (up to
  about six tricks left); a full 13-trick deal can take seconds.
- :func:`endplay_card_values`: the same numbers from Bo Haglund's DDS through the
  ``endplay`` package (optional extra ``vint``), fast enough for whole deals. Vint
  play is bridge play without a dummy, so bridge double-dummy results apply.

Positions: ``hands`` int64[4] masks of the cards still held (card = suit * 13 +
rank, suits S C D H, rank 12 = ace), ``trump`` 0..3 or 4 (no trump), ``trick``
the cards already played to the current trick (in order, from ``leader``).
Results count tricks from the current trick on (it included) for the side of
the player to move.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numba import jit

# Numba's on-disk cache mishandles self-recursive functions (a cached _search
# segfaults when loaded again, numba 0.6x), so the search and its caller compile
# once per process instead.
jit_nocache = numba.njit(cache=False, nogil=True)

SUIT13 = np.int64((1 << 13) - 1)
ONE = np.int64(1)


@jit
def _beats(card, best, trump):
    s, bs = card // 13, best // 13
    return (s == bs and card > best) or (s == trump and bs != trump)


@jit
def _moves(hand, lead_suit, gone, out):
    """Legal cards of ``hand`` (follow ``lead_suit`` if possible; -1 = leading), one per
    run of touching cards (cards with only ``gone`` cards between them are equivalent)."""
    m = hand
    if lead_suit >= 0:
        f = hand & (SUIT13 << (13 * lead_suit))
        if f != 0:
            m = f
    n = 0
    for s in range(4):
        prev_held = False
        for r in range(12, -1, -1):
            c = s * 13 + r
            bit = ONE << c
            if m & bit:
                if not prev_held:
                    out[n] = c
                    n += 1
                prev_held = True
            elif not (gone & bit):
                prev_held = False
    return n


@jit_nocache
def _search(hands, trump, trick, nin, leader, best_seat, best_card, gone, alpha, beta):
    """Tricks for side 0 (seats 0 and 2) from here to the end, alpha-beta."""
    total = 0
    for p in range(4):
        total |= hands[p]
    if total == 0 and nin == 0:
        return 0
    seat = (leader + nin) % 4
    lead_suit = trick[0] // 13 if nin > 0 else -1
    moves = np.empty(13, np.int64)
    n = _moves(hands[seat], lead_suit, gone, moves)
    maximize = seat % 2 == 0
    best = -1 if maximize else 99
    for i in range(n):
        c = moves[i]
        bit = ONE << c
        hands[seat] &= ~bit
        trick[nin] = c
        if nin == 0 or _beats(c, best_card, trump):
            nb_seat, nb_card = seat, c
        else:
            nb_seat, nb_card = best_seat, best_card
        if nin == 3:
            won = 1 if nb_seat % 2 == 0 else 0
            # a fresh trick array: the next trick must not overwrite this one's cards
            v = won + _search(hands, trump, np.full(4, -1, np.int64), 0, nb_seat, -1, -1,
                              gone | bit | _trick_mask(trick, 3), alpha - won, beta - won)
        else:
            v = _search(hands, trump, trick, nin + 1, leader, nb_seat, nb_card, gone, alpha, beta)
        hands[seat] |= bit
        if maximize:
            if v > best:
                best = v
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    return best


@jit
def _trick_mask(trick, upto):
    m = np.int64(0)
    for i in range(upto):
        m |= ONE << trick[i]
    return m


@jit_nocache
def dd_tricks(hands, trump, trick_cards, leader):
    """Double-dummy tricks for the side to move, from the current trick on.

    Args:
        hands: int64[4] cards still held (the current trick's cards removed).
        trump: 0..3, or 4 for no trump.
        trick_cards: int64[k], k = 0..3, cards played to the current trick.
        leader: seat that led the current trick.
    """
    h = hands.copy()
    trick = np.full(4, -1, np.int64)
    nin = len(trick_cards)
    best_seat, best_card = -1, -1
    gone = np.int64(0)
    held = h[0] | h[1] | h[2] | h[3]
    for c in range(52):
        if not (held & (ONE << c)):
            gone |= ONE << c
    for i in range(nin):
        c = trick_cards[i]
        gone &= ~(ONE << c)  # still on the table: not yet "gone" for touching cards
        trick[i] = c
        if i == 0 or _beats(c, best_card, trump):
            best_seat, best_card = (leader + i) % 4, c
    side0 = _search(h, trump, trick, nin, leader, best_seat, best_card, gone, -1, 99)
    mover = (leader + nin) % 4
    remaining = 0
    for p in range(4):
        remaining = max(remaining, _popcount(h[p]))
    return side0 if mover % 2 == 0 else remaining - side0


@jit
def _popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


def dd_card_values(hands, trump: int, trick_cards: list[int], leader: int) -> dict[int, int]:
    """For each legal card of the player to move: double-dummy tricks for his side from
    the current trick on, if he plays it (the compact solver; every legal card, not
    one per run)."""
    hands = np.asarray(hands, np.int64)
    mover = (leader + len(trick_cards)) % 4
    hand = int(hands[mover])
    legal = [c for c in range(52) if hand >> c & 1]
    if trick_cards:
        follow = [c for c in legal if c // 13 == trick_cards[0] // 13]
        legal = follow or legal
    out = {}
    for c in legal:
        h = hands.copy()
        h[mover] &= ~(1 << c)
        tc = list(trick_cards) + [c]
        if len(tc) == 4:
            best = tc[0]
            win = 0
            for i in range(1, 4):
                if _beats(tc[i], best, trump):
                    best, win = tc[i], i
            winner = (leader + win) % 4
            rest = int(dd_tricks(h, trump, np.zeros(0, np.int64), winner)) if any(h) else 0
            won = 1 if winner % 2 == mover % 2 else 0
            rest_mover = rest if winner % 2 == mover % 2 else _left(h) - rest
            out[c] = won + rest_mover
        else:
            nxt = (mover + 1) % 4
            v = int(dd_tricks(h, trump, np.array(tc, np.int64), leader))
            # v counts for the next player's side (the other side)
            out[c] = _left(h) - v if nxt % 2 != mover % 2 else v
    return out


def _left(hands) -> int:
    """Tricks still to play after the current one is complete (all four hands equal)."""
    return max(bin(int(h)).count("1") for h in hands)


# ---- endplay (DDS) ------------------------------------------------------------------------

_RANKS = "23456789TJQKA"


def endplay_available() -> bool:
    try:
        import endplay.dds  # noqa: F401
    except ImportError:
        return False
    return True


def _pbn(hands) -> str:
    out = []
    for s in range(4):
        h = int(hands[s])
        suits = []
        for su in (0, 3, 2, 1):  # PBN order S H D C; our suits S C D H
            suits.append("".join(_RANKS[r] for r in range(12, -1, -1) if h >> (su * 13 + r) & 1))
        out.append(".".join(suits))
    return "N:" + " ".join(out)


def endplay_card_values(hands, trump: int, trick_cards: list[int], leader: int) -> dict[int, int]:
    """As :func:`dd_card_values`, by DDS through ``endplay``. Raises ImportError without it."""
    from endplay.dds import solve_board
    from endplay.types import Deal, Denom, Player

    full = [int(h) for h in hands]
    for i, c in enumerate(trick_cards):
        full[(leader + i) % 4] |= 1 << c
    deal = Deal(_pbn(full))
    deal.trump = [Denom.spades, Denom.clubs, Denom.diamonds, Denom.hearts, Denom.nt][trump]
    deal.first = Player(leader)
    from endplay.types import Card

    for c in trick_cards:
        deal.play(Card("SCDH"[c // 13] + _RANKS[c % 13]))
    out = {}
    for card, tricks in solve_board(deal):
        su = {"spades": 0, "clubs": 1, "diamonds": 2, "hearts": 3}[card.suit.name]
        r = _RANKS.index(card.rank.name[1:])  # Rank.RT -> "T"
        out[su * 13 + r] = int(tricks)
    return out

