"""The Vint rules kernel: one deal (deal -> auction -> play -> score), numba.

Arrays in, arrays out (layout in :mod:`vitou_ai.vint.layout`). Every function
works on one ``int64[STATE_SIZE]`` state; :func:`random_deals` batches random
play over rows with ``prange``, one random stream per row
(:mod:`vitou_ai.rng`). Rule numbers refer to ``docs/RULES_vint.md``.
Rubber scoring (V6) is in :mod:`vitou_ai.vint.rubber`.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numba import jit, jit_parallel
from ..rng import next_below, next_float, row_seed
from .layout import (
    BID0,
    END_PLAYED,
    END_THROWN_IN,
    ERR_ACTION,
    ERR_CALL_IN_PLAY,
    ERR_CARD_IN_AUCTION,
    ERR_INSUFFICIENT,
    ERR_NOT_HELD,
    ERR_OVER,
    ERR_REVOKE,
    NT,
    OK,
    P_DEALER,
    P_FOSTER,
    P_SHORT,
    P_SLAM_GRAND,
    P_SLAM_SMALL,
    PASS,
    PH_AUCTION,
    PH_DEAL,
    PH_OVER,
    PH_PLAY,
    S_BEST,
    S_BESTCARD,
    S_BID,
    S_BIDDER,
    S_DEALER,
    S_END,
    S_HAND,
    S_LEADER,
    S_LEVEL,
    S_NCALLS,
    S_NDEALT,
    S_NIN,
    S_NTRICK,
    S_ORIG,
    S_PASSES,
    S_PHASE,
    S_SHORT,
    S_TOMOVE,
    S_TRICK,
    S_TRICKS,
    S_TRUMP,
    S_WIN,
    SC_ACES,
    SC_BELOW,
    SC_CROWNS,
    SC_HONOURS,
    SC_SLAM,
    SC_TRICK_VALUE,
    SC_UNDER,
    SCORE_SIZE,
    STATE_SIZE,
)

SUIT_MASK = np.int64((1 << 13) - 1)
ONE = np.int64(1)


@jit
def new_state(params):
    """A fresh deal before the first card (V1.2). ``params``: int64[PARAMS_SIZE]."""
    s = np.empty(STATE_SIZE, np.int64)
    reset_state(s, params)
    return s


@jit
def reset_state(s, params):
    """Make ``s`` a fresh deal in place (see :func:`new_state`)."""
    s[:] = 0
    s[S_DEALER] = params[P_DEALER]
    s[S_PHASE] = PH_DEAL
    s[S_TOMOVE] = -1
    s[S_BID] = -1
    s[S_BIDDER] = -1
    s[S_LEADER] = -1
    s[S_BEST] = -1
    s[S_BESTCARD] = -1
    s[S_SHORT] = params[P_SHORT]
    s[S_TRUMP] = -1
    for i in range(4):
        s[S_TRICK + i] = -1
    for t in range(13):
        s[S_WIN + t] = -1


@jit
def deal_seat(s):
    """Seat that receives the next card dealt (V1.2: from the dealer's left, round)."""
    return (s[S_DEALER] + 1 + s[S_NDEALT]) % 4


@jit
def apply_chance(s, card):
    """Deal ``card`` (0..51) to the next seat. Returns 0, or ERR_ACTION if the card
    is already dealt or this is not a chance node."""
    if s[S_PHASE] != PH_DEAL or card < 0 or card >= 52:
        return ERR_ACTION
    bit = ONE << card
    for p in range(4):
        if s[S_ORIG + p] & bit:
            return ERR_ACTION
    seat = deal_seat(s)
    s[S_ORIG + seat] |= bit
    s[S_HAND + seat] |= bit
    s[S_NDEALT] += 1
    if s[S_NDEALT] == 52:
        s[S_PHASE] = PH_AUCTION
        s[S_TOMOVE] = s[S_DEALER]  # V3.1: the dealer speaks first
    return OK


@jit
def set_hands(s, hands):
    """Deal the whole pack at once: ``hands`` int64[4] card masks (13 cards each)."""
    for p in range(4):
        s[S_ORIG + p] = hands[p]
        s[S_HAND + p] = hands[p]
    s[S_NDEALT] = 52
    s[S_PHASE] = PH_AUCTION
    s[S_TOMOVE] = s[S_DEALER]


@jit
def legal_actions(s, out):
    """Write the legal actions, ascending, into ``out`` (int64[>= 52]); return their
    number (0 at chance nodes and at the end). V3.2 for calls, V4.2 for cards."""
    n = 0
    ph = s[S_PHASE]
    if ph == PH_AUCTION:
        out[n] = PASS
        n += 1
        for b in range(s[S_BID] + 1, 35):
            out[n] = BID0 + b
            n += 1
    elif ph == PH_PLAY:
        hand = s[S_HAND + s[S_TOMOVE]]
        m = hand
        if s[S_NIN] > 0:
            lead = s[S_TRICK] // 13
            follow = hand & (SUIT_MASK << (13 * lead))
            if follow != 0:
                m = follow
        for c in range(52):
            if m & (ONE << c):
                out[n] = c
                n += 1
    return n


@jit
def apply_action(s, a):
    """Apply player action ``a`` for the player to move. Returns ``OK`` or an
    error code (layout ``ERR_*``; nothing is changed on error)."""
    ph = s[S_PHASE]
    if ph != PH_AUCTION and ph != PH_PLAY:
        return ERR_OVER
    if a < 0 or a >= BID0 + 35:
        return ERR_ACTION
    seat = s[S_TOMOVE]
    if ph == PH_AUCTION:
        if a < PASS:
            return ERR_CARD_IN_AUCTION
        s[S_NCALLS] += 1
        if a == PASS:
            s[S_PASSES] += 1
            if s[S_BID] < 0:
                if s[S_PASSES] == (4 if s[S_SHORT] else 8):  # V3.5, V8.1
                    s[S_PHASE] = PH_OVER
                    s[S_END] = END_THROWN_IN
                    s[S_TOMOVE] = -4
                    return OK
            elif s[S_PASSES] == (3 if s[S_SHORT] else 12):  # V3.4, V8.1
                b = s[S_BID]
                s[S_LEVEL] = b // 5 + 1
                s[S_TRUMP] = b % 5
                s[S_PHASE] = PH_PLAY
                s[S_LEADER] = (s[S_BIDDER] + 1) % 4  # V4.1
                s[S_TOMOVE] = s[S_LEADER]
                return OK
            s[S_TOMOVE] = (seat + 1) % 4
            return OK
        b = a - BID0
        if b <= s[S_BID]:
            s[S_NCALLS] -= 1
            return ERR_INSUFFICIENT  # V3.2
        s[S_BID] = b
        s[S_BIDDER] = seat
        s[S_PASSES] = 0
        s[S_TOMOVE] = (seat + 1) % 4
        return OK
    # play (V4)
    if a >= PASS:
        return ERR_CALL_IN_PLAY
    hand = s[S_HAND + seat]
    bit = ONE << a
    if hand & bit == 0:
        return ERR_NOT_HELD
    suit = a // 13
    nin = s[S_NIN]
    if nin > 0:
        lead = s[S_TRICK] // 13
        if suit != lead and hand & (SUIT_MASK << (13 * lead)) != 0:
            return ERR_REVOKE  # V4.2
    s[S_HAND + seat] = hand & ~bit
    s[S_TRICK + nin] = a
    if nin == 0:
        s[S_BEST] = seat
        s[S_BESTCARD] = a
    else:
        best = s[S_BESTCARD]
        bsuit = best // 13
        trump = s[S_TRUMP]
        if (suit == bsuit and a > best) or (suit == trump and bsuit != trump):  # V4.3
            s[S_BEST] = seat
            s[S_BESTCARD] = a
    if nin < 3:
        s[S_NIN] = nin + 1
        s[S_TOMOVE] = (seat + 1) % 4
        return OK
    w = s[S_BEST]
    t = s[S_NTRICK]
    s[S_WIN + t] = w
    s[S_TRICKS + w % 2] += 1
    s[S_NTRICK] = t + 1
    s[S_NIN] = 0
    for i in range(4):
        s[S_TRICK + i] = -1
    s[S_LEADER] = w  # V4.4
    s[S_TOMOVE] = w
    if t + 1 == 13:
        s[S_PHASE] = PH_OVER
        s[S_END] = END_PLAYED
        s[S_TOMOVE] = -4
    return OK


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)


@jit
def popcount(m):
    """Number of set bits of a card mask (SWAR bit count, no loop; no product, so it
    also runs without overflow warnings as plain Python under NUMBA_DISABLE_JIT)."""
    x = np.uint64(m)
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    x = x + (x >> np.uint64(8))
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return np.int64(x & np.uint64(127))


@jit
def lowest_card(m):
    """Index of the lowest set bit of a non-zero mask: the bits below it, counted."""
    x = np.int64(m)
    return popcount((x & -x) - 1)


@jit
def trick_value(level, denom, foster):
    """V5.1 (V8.2a under Foster's rules), points per trick."""
    if foster:
        return 10 * level
    return 10 * level - 6 + 2 * denom


@jit
def honour_run(hand, suit):
    """Longest unbroken run of honours (A K Q J T) of ``suit`` in ``hand`` (V8.2c)."""
    best = 0
    run = 0
    for r in range(8, 13):
        if hand & (ONE << (suit * 13 + r)):
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


@jit
def deal_score(s, params, out):
    """Score a finished deal (V5; V8.2 under Foster's rules) into ``out``
    (int64[SCORE_SIZE]: for each part ``k``, ``out[2k + side]``; ``out[12]`` the
    trick value). All zeros for a thrown-in hand (V5.7)."""
    for i in range(SCORE_SIZE):
        out[i] = 0
    if s[S_END] != END_PLAYED:
        return
    level = s[S_LEVEL]
    denom = s[S_TRUMP]
    foster = params[P_FOSTER]
    tv = trick_value(level, denom, foster)
    out[SC_TRICK_VALUE] = tv
    decl_side = s[S_BIDDER] % 2
    tricks0 = s[S_TRICKS]
    tricks1 = s[S_TRICKS + 1]
    out[SC_BELOW] = tricks0 * tv  # V5.2
    out[SC_BELOW + 1] = tricks1 * tv
    side_hand0 = s[S_ORIG] | s[S_ORIG + 2]
    aces0 = 0
    for su in range(4):
        if side_hand0 & (ONE << (su * 13 + 12)):
            aces0 += 1
    aces1 = 4 - aces0
    made = tricks0 if decl_side == 0 else tricks1
    need = 6 + level
    if not foster:
        if denom != NT:  # V5.3
            h0 = popcount((side_hand0 >> (denom * 13 + 8)) & 31)
            if h0 >= 3:
                out[SC_HONOURS] = (h0 - 1) * 10 * tv
            elif h0 <= 2:
                out[SC_HONOURS + 1] = (4 - h0) * 10 * tv
        if aces0 > aces1:  # V5.4
            out[SC_ACES] = 10 * tv * aces0
        elif aces1 > aces0:
            out[SC_ACES + 1] = 10 * tv * aces1
        elif tricks0 > tricks1:
            out[SC_ACES] = 20 * tv
        else:
            out[SC_ACES + 1] = 20 * tv
        if made < need:  # V5.5
            pen = (need - made) * level * 500
            if level == 6:
                pen += 3000
            elif level == 7:
                pen += 5000
            out[SC_UNDER + 1 - decl_side] = pen
    else:
        if denom != NT:  # V8.2b
            h0 = popcount((side_hand0 >> (denom * 13 + 8)) & 31) + aces0
            if h0 >= 5:
                out[SC_HONOURS] = 10 * tv * h0
            else:
                out[SC_HONOURS + 1] = 10 * tv * (9 - h0)
        else:
            if aces0 >= 3:
                out[SC_HONOURS] = 25 * tv * aces0
            elif aces1 >= 3:
                out[SC_HONOURS + 1] = 25 * tv * aces1
        for p in range(4):  # V8.2c crowns
            hand = s[S_ORIG + p]
            crown = 0
            na = 0
            for su in range(4):
                if hand & (ONE << (su * 13 + 12)):
                    na += 1
            if na >= 3:
                v = 500 * (na - 2)
                crown += 2 * v if denom == NT else v
            for su in range(4):
                run = honour_run(hand, su)
                if run >= 3:
                    v = 500 * (run - 2)
                    crown += 2 * v if (denom == NT or su == denom) else v
            out[SC_CROWNS + p % 2] += crown
        if made < need:  # V8.2d
            out[SC_UNDER + 1 - decl_side] = (need - made) * 100 * tv
    if made >= need:  # V5.6
        if level == 6:
            out[SC_SLAM + decl_side] = params[P_SLAM_SMALL]
        elif level == 7:
            out[SC_SLAM + decl_side] = params[P_SLAM_GRAND]


@jit
def deal_difference(score):
    """V6.5: (everything side 0 wrote) - (everything side 1 wrote) for one deal."""
    d = 0
    for k in range(6):
        d += score[2 * k] - score[2 * k + 1]
    return d


@jit
def shuffle_deal(s, rng, deck):
    """Deal a uniformly random pack into ``s`` (Fisher-Yates on the stream ``rng``;
    ``deck`` int64[52] scratch)."""
    for i in range(52):
        deck[i] = i
    for i in range(51, 0, -1):
        j = next_below(rng, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    d = s[S_DEALER]
    for p in range(4):
        s[S_ORIG + p] = 0
    for k in range(52):
        s[S_ORIG + (d + 1 + k) % 4] |= ONE << deck[k]
    for p in range(4):
        s[S_HAND + p] = s[S_ORIG + p]
    s[S_NDEALT] = 52
    s[S_PHASE] = PH_AUCTION
    s[S_TOMOVE] = d


@jit
def random_action(s, rng):
    """A uniformly random legal action, without listing them (the same distribution
    as drawing from :func:`legal_actions`)."""
    if s[S_PHASE] == PH_AUCTION:
        k = next_below(rng, 35 - s[S_BID])  # pass + the bids above the current one
        return PASS if k == 0 else BID0 + s[S_BID] + k
    hand = s[S_HAND + s[S_TOMOVE]]
    m = hand
    if s[S_NIN] > 0:
        follow = hand & (SUIT_MASK << (13 * (s[S_TRICK] // 13)))
        if follow != 0:
            m = follow
    k = next_below(rng, popcount(m))
    for _ in range(k):
        m &= m - 1
    return lowest_card(m)


@jit
def random_deal_row(params, rng, score, s, deck):
    """Play one deal with uniformly random legal actions into the preallocated state
    ``s``; write its score."""
    reset_state(s, params)
    shuffle_deal(s, rng, deck)
    while s[S_PHASE] == PH_AUCTION or s[S_PHASE] == PH_PLAY:
        apply_action(s, random_action(s, rng))
    deal_score(s, params, score)


@jit_parallel
def random_deals(params, n, seed):
    """``n`` deals of uniformly random legal play, rows independent of threads.

    Returns ``(scores int64[n, SCORE_SIZE], info int64[n, 5])`` with info columns
    end, contract bid id (-1 thrown in), declarer, tricks of side 0, calls.
    """
    scores = np.zeros((n, SCORE_SIZE), np.int64)
    info = np.zeros((n, 5), np.int64)
    for i in numba.prange(n):
        rng = np.empty(1, np.uint64)
        rng[0] = row_seed(seed, i)
        s = np.empty(STATE_SIZE, np.int64)
        deck = np.empty(52, np.int64)
        random_deal_row(params, rng, scores[i], s, deck)
        info[i, 0] = s[S_END]
        info[i, 1] = s[S_BID] if s[S_END] == END_PLAYED else -1
        info[i, 2] = s[S_BIDDER]
        info[i, 3] = s[S_TRICKS]
        info[i, 4] = s[S_NCALLS]
    return scores, info


@jit
def random_trace(params, seed, row, pass_prob, hands_out, actions_out, legal_out):
    """One random deal for cross-checking (the differential test): deal with the
    stream of ``(seed, row)``, then at each decision pass with probability
    ``pass_prob`` (a negative value: uniform over legal actions) or else pick a
    uniform legal action.

    Writes ``hands_out`` int64[4] (the dealt masks), ``actions_out`` int64[>= 500]
    (the actions), ``legal_out`` int64[>= 500, 2] (the legal set before each action
    as a 2-word bit mask over action ids 0..87). Returns ``(n_actions, final state)``.
    """
    rng = np.empty(1, np.uint64)
    rng[0] = row_seed(seed, row)
    s = new_state(params)
    deck = np.empty(52, np.int64)
    shuffle_deal(s, rng, deck)
    for p in range(4):
        hands_out[p] = s[S_ORIG + p]
    buf = np.empty(52, np.int64)
    n = 0
    while s[S_PHASE] == PH_AUCTION or s[S_PHASE] == PH_PLAY:
        k = legal_actions(s, buf)
        lo = np.int64(0)
        hi = np.int64(0)
        for i in range(k):
            a = buf[i]
            if a < 62:
                lo |= ONE << a
            else:
                hi |= ONE << (a - 62)
        legal_out[n, 0] = lo
        legal_out[n, 1] = hi
        if s[S_PHASE] == PH_AUCTION and pass_prob >= 0.0 and next_float(rng) < pass_prob:
            a = PASS
        else:
            a = buf[next_below(rng, k)]
        apply_action(s, a)
        actions_out[n] = a
        n += 1
    return n, s
