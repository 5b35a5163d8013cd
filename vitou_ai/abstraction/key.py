"""The abstract key: a 63-bit integer computed from what one player knows.

:func:`abstract_key` reads only fields of the kernel state that the player's
information state (:func:`vitou_ai.rules.observe.infostate_key`) determines:
the player's own held cards, the partner's when R6.1 shows them, the public
state of the deal (cards on the table, completed trick results, copies played
per rank, stake, raises) and the gestures as this player saw them (R7.2). So
it is a function of the information state; ``tests/test_abstraction.py``
checks that on every information state of small games, and checks that equal
abstract keys have equal legal actions.

Fields, low bits first (widths in :func:`feature_bits`); ``docs/abstraction.md``
says which are lossless and which are knobs:

====================  =========================================================
position              seat relative to the dealer's left (0 leads trick 1)
legal                 which of raise, accept, refuse, go, pass, decline,
                      signal, abandon, agree, reject are legal; cards legal
raised                the player has just raised (4p) or accepted (2p, locked)
hand                  own held ranks, a multiset (index of 165)
stake, last raise     ladder index; team of the latest raise (none/own/other)
results               completed tricks, in order: won / lost / void (13 codes)
trick                 summary (cards played, best rank, partner / opponent /
                      tied) or the exact cards in order
partner (knob)        the partner's held ranks when R6.1 shows them
count (knob)          unseen copies of the top ``count`` ranks
gestures (knob)       off; all: each seat's gesture as seen, from this seat
                      round; team: own and partner's; partner: partner's
history (knob)        the cards of each completed trick
scores (knob)         own team's score, the other team's
====================  =========================================================
"""

from __future__ import annotations

import itertools

import numpy as np

from .._numba import jit
from ..rules import layout as L
from ..rules.params import P_COPIES, P_HAND, P_PLAYERS, P_RANKS
from .config import C_COUNT, C_GESTURES, C_HISTORY, C_PARTNER, C_SCORES, C_TRICK

NONE = 8  # "no card" in the hand-index table


def _hand_table() -> tuple[np.ndarray, int]:
    """``int16[9, 9, 9]``: index of a sorted multiset of up to 3 ranks (pad 8)."""
    table = np.full((9, 9, 9), -1, np.int16)
    n = 0
    for size in range(4):
        for combo in itertools.combinations_with_replacement(range(8), size):
            x = list(combo) + [NONE] * (3 - size)
            table[x[0], x[1], x[2]] = n
            n += 1
    return table, n


HAND_INDEX, N_HANDS = _hand_table()  # 165 multisets
HAND_BITS = 8
LEGAL_BITS = 11
RESULT_CODES = 13  # 0, 1 or 2 completed tricks of 3 results
RESULT_BITS = 4
TRICK_SUMMARY_BITS = 7  # 1 + 3 * 24 codes
GESTURE_BITS = 11  # gestures=all: 6**4 codes (a gesture or not yet, per seat)
TEAM_GESTURE_BITS = 6  # gestures=team: 6**2 codes
PARTNER_GESTURE_BITS = 3  # gestures=partner: 6 codes


@jit
def feature_bits(cfg, players, hand_size, copies, ranks):
    """Width of the abstract key in bits for a config and a game's shape."""
    b = 2 + LEGAL_BITS + 1 + HAND_BITS + 3 + 2 + RESULT_BITS
    if cfg[C_TRICK] == 0:
        b += TRICK_SUMMARY_BITS
    else:
        b += 2 + 4 * (players - 1)
    if cfg[C_PARTNER] == 1 and players == 4:
        b += HAND_BITS
    cbits = 3 if copies <= 7 else 4
    b += min(cfg[C_COUNT], ranks) * cbits
    if cfg[C_GESTURES] == 1:
        b += GESTURE_BITS
    elif cfg[C_GESTURES] == 2:
        b += TEAM_GESTURE_BITS
    elif cfg[C_GESTURES] == 3:
        b += PARTNER_GESTURE_BITS
    if cfg[C_HISTORY] == 1:
        b += (hand_size - 1) * players * 4
    if cfg[C_SCORES] == 1:
        b += 14
    return b


@jit
def _held_index(state, seat):
    x0 = NONE
    x1 = NONE
    x2 = NONE
    k = 0
    base = L.S_HELD + seat * L.MAX_RANKS
    for r in range(L.MAX_RANKS):
        for _ in range(state[base + r]):
            if k == 0:
                x0 = r
            elif k == 1:
                x1 = r
            else:
                x2 = r
            k += 1
    return np.int64(HAND_INDEX[x0, x1, x2])


@jit
def _push(key, shift, value, width):
    return key | (np.int64(value) << np.int64(shift)), shift + width


@jit
def abstract_key(cfg, params, state, player, legal, n_legal):
    """The abstract key of ``player`` to act in ``state``, an ``int64`` in ``[0, 2**63)``.

    Args:
        cfg: ``int64[N_CFG]`` (:meth:`AbstractionConfig.to_array`).
        params: ``int64[N_PARAMS]``; state: ``int32[STATE_SIZE]``, a decision node.
        player: the seat to act; legal, n_legal: ``kernel.legal_actions`` output.

    Two information states with equal keys have equal legal actions (the
    card actions follow from the hand, the others are a field).
    """
    n = params[P_PLAYERS]
    me = player % 2 if n == 4 else player
    key = np.int64(0)
    s = 0
    key, s = _push(key, s, (player - state[L.S_DEALER] - 1) % n, 2)
    lg = 0
    cards = 0
    for i in range(n_legal):
        a = legal[i]
        if a < L.A_RAISE:
            cards = 1
        elif a < L.A_SIGNAL0:
            lg |= 1 << (a - L.A_RAISE)  # raise accept refuse go pass decline: bits 0..5
        elif a < L.A_ABANDON:
            lg |= 1 << 6
        else:
            lg |= 1 << (7 + a - L.A_ABANDON)  # abandon agree reject: bits 7..9
    lg |= cards << 10
    key, s = _push(key, s, lg, LEGAL_BITS)
    raised = 1 if (state[L.S_RAISED_NOW] == 1 or state[L.S_LOCKED] == 1) else 0
    key, s = _push(key, s, raised, 1)
    key, s = _push(key, s, _held_index(state, player), HAND_BITS)
    key, s = _push(key, s, state[L.S_STAKE], 3)
    last = state[L.S_LASTRAISE]
    key, s = _push(key, s, 0 if last < 0 else (1 if last == me else 2), 2)
    nt = state[L.S_NTRICKS]
    code = 0
    if nt == 1:
        code = 1 + _rel(state[L.S_TRES], me)
    elif nt >= 2:
        code = 4 + 3 * _rel(state[L.S_TRES], me) + _rel(state[L.S_TRES + 1], me)
    key, s = _push(key, s, code, RESULT_BITS)
    npl = state[L.S_NPLAYED]
    if cfg[C_TRICK] == 0:
        tc = 0
        if npl > 0:
            if state[L.S_NBEST] > 1:
                holder = 2
            elif state[L.S_BESTSEAT] % 2 == me and n == 4:
                holder = 0
            else:
                holder = 1
            tc = 1 + (npl - 1) * 24 + state[L.S_BEST] * 3 + holder
        key, s = _push(key, s, tc, TRICK_SUMMARY_BITS)
    else:
        key, s = _push(key, s, npl, 2)
        for k in range(n - 1):
            key, s = _push(key, s, state[L.S_TRICK + k] + 1 if k < npl else 0, 4)
    if cfg[C_PARTNER] == 1 and n == 4:
        pv = 0
        if state[L.S_SHARED] == 1 and me == state[L.S_R6TEAM]:  # R6.1
            pv = 1 + _held_index(state, (player + 2) % n)
        key, s = _push(key, s, pv, HAND_BITS)
    cbits = 3 if params[P_COPIES] <= 7 else 4
    for r in range(min(cfg[C_COUNT], params[P_RANKS])):
        unseen = params[P_COPIES] - state[L.S_PLAYED + r] \
            - state[L.S_HELD + player * L.MAX_RANKS + r]
        if cfg[C_PARTNER] == 1 and n == 4 and state[L.S_SHARED] == 1 and me == state[L.S_R6TEAM]:
            unseen -= state[L.S_HELD + ((player + 2) % n) * L.MAX_RANKS + r]
        key, s = _push(key, s, unseen, cbits)
    if cfg[C_GESTURES] == 1:
        g = 0
        for k in range(n - 1, -1, -1):
            seat = (player + k) % n
            v = state[L.S_GEST + seat]
            if v >= 0 and seat % 2 != me and state[L.S_SEEN + player * L.MAX_PLAYERS + seat] == 0:
                v = 0  # R7.2: a missed gesture looks like none
            g = g * 6 + (v + 1)
        key, s = _push(key, s, g, GESTURE_BITS)
    elif cfg[C_GESTURES] == 2:
        # own and partner's: both always seen (R7.2: the partner always sees)
        g = (state[L.S_GEST + player] + 1) * 6 + state[L.S_GEST + (player + 2) % n] + 1
        key, s = _push(key, s, g, TEAM_GESTURE_BITS)
    elif cfg[C_GESTURES] == 3:
        key, s = _push(key, s, state[L.S_GEST + (player + 2) % n] + 1, PARTNER_GESTURE_BITS)
    if cfg[C_HISTORY] == 1:
        # the cards of completed tricks, read back from the public token sequence
        done = nt * n
        k = 0
        for i in range(min(state[L.S_NTOK], L.MAX_TOKENS)):
            a = state[L.S_TOK + i]
            if a < L.A_RAISE and k < done:
                key, s = _push(key, s, a + 1, 4)
                k += 1
        s += 4 * ((params[P_HAND] - 1) * n - k)
    if cfg[C_SCORES] == 1:
        key, s = _push(key, s, state[L.S_SCORE0 + me], 7)
        key, s = _push(key, s, state[L.S_SCORE0 + 1 - me], 7)
    return key


@jit
def _rel(res, me):
    """A trick result from team ``me``'s view: 0 won, 1 lost, 2 void."""
    if res == L.RES_VOID:
        return 2
    return 0 if res == me else 1
