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
                      signal, abandon, agree, reject (family: and concede,
                      rest, redeal, keep) are legal; cards legal
raised                the player has just raised (4p) or accepted (2p, locked)
hand                  own held ranks, a multiset (index of 165; C(R+3, 3) for
                      a family deck of R > 8 ranks)
stake, last raise     ladder index (3 bits, more for a longer ladder: truc_1912);
                      team of the latest raise (none/own/other); with the stake it
                      says who may raise next (G3.5, C4.4: only the accepting side)
rest from             truc_1912 only (F3.3): while a jump to the game awaits its
                      answer, the ladder index it jumped from (what a refusal scores)
fresh deal            truc_1912 only (F2): kept (or not yet), proposed and rejected
                      (F2.2), or taken (F2.3)
results               completed tricks, in order: won / lost / void (13 codes)
trick                 summary (cards played, best rank, partner / opponent /
                      tied) or the exact cards in order
partner (knob)        the partner's held ranks when R6.1 shows them (Vitou only:
                      the family never shows them, C5.1)
count (knob)          unseen copies of the top ``count`` ranks
gestures (knob)       off; all: each seat's gesture as seen, from this seat
                      round; team: own and partner's; partner: partner's
history (knob)        the cards of each completed trick
scores (knob)         own team's score, the other team's (7 bits each in Vitou; the
                      family: the bits of ``target - 1``, Trut's carried points, T4.1)
====================  =========================================================
"""

from __future__ import annotations

import itertools

import numpy as np

from .._numba import jit
from ..rules import layout as L
from ..rules.params import (
    P_COPIES,
    P_DEAL_RULE,
    P_HAND,
    P_NLADDER,
    P_OFE,
    P_PLAYERS,
    P_RANKS,
    P_REDEAL,
    P_REST,
    P_TARGET,
)
from .knobs import (
    C_COUNT,
    C_GESTURES,
    C_HISTORY,
    C_PARTNER,
    C_SCORE_BUCKETS,
    C_SCORES,
    C_TRICK,
    NEED_BUCKET_LOWS,
)

_NEED_LOWS = np.array(NEED_BUCKET_LOWS, np.int64)

NONE = L.MAX_RANKS  # "no card" in the hand-index table


def _hand_table() -> tuple[np.ndarray, int]:
    """``int16[14, 14, 14]``: index of a sorted multiset of up to 3 ranks (pad ``NONE``).

    The multisets of ranks ``0 .. R-1`` take the indices ``0 .. C(R+3, 3)-1`` for every
    ``R`` (ordered by their highest rank), so a game with ``R`` ranks needs
    :func:`hand_bits` ``(R)`` bits; the 165 multisets of the Vitou deck (8 ranks) keep
    the indices they always had."""
    table = np.full((NONE + 1,) * 3, -1, np.int16)
    n = 0
    for top in range(8, L.MAX_RANKS + 1):
        for size in range(4):
            for combo in itertools.combinations_with_replacement(range(top), size):
                if top > 8 and (not combo or combo[-1] != top - 1):
                    continue  # listed with a smaller deck already
                x = list(combo) + [NONE] * (3 - size)
                table[x[0], x[1], x[2]] = n
                n += 1
    return table, n


HAND_INDEX, N_HANDS = _hand_table()  # 560 multisets (165 of them in the Vitou deck)
HAND_BITS = 8  # the Vitou deck's (8 ranks); larger family decks: hand_bits(ranks)
LEGAL_BITS = 11  # the Vitou verbs; the family adds concede, rest, redeal, keep
FAMILY_LEGAL_BITS = 4
RESULT_CODES = 13  # 0, 1 or 2 completed tricks of 3 results
RESULT_BITS = 4
STAKE_BITS = 3  # ladders of up to 8 steps; longer ones (truc_1912, F3.1): stake_bits
TRICK_SUMMARY_BITS = 7  # 1 + 3 * 24 codes
GESTURE_BITS = 11  # gestures=all: 6**4 codes (a gesture or not yet, per seat)
TEAM_GESTURE_BITS = 6  # gestures=team: 6**2 codes
PARTNER_GESTURE_BITS = 3  # gestures=partner: 6 codes


@jit
def _bit_length(x):
    b = 0
    while x > 0:
        b += 1
        x >>= 1
    return b


@jit
def hand_bits(ranks):
    """Bits of the hand field (and of the partner's, which adds "not shown"):
    ``C(ranks+3, 3)`` multisets of up to 3 ranks, at least :data:`HAND_BITS`."""
    return max(HAND_BITS, _bit_length((ranks + 1) * (ranks + 2) * (ranks + 3) // 6))


@jit
def stake_bits(nladder):
    """Bits of the stake field: ladder indices ``0 .. nladder-1``, at least 3."""
    return max(STAKE_BITS, _bit_length(nladder - 1))


@jit
def trick_summary_bits(players, ranks):
    """Bits of the trick summary: ``1 + (cards - 1) * per + best * 3 + holder`` with
    ``per = 3 * max(8, ranks)``, below ``(players - 1) * per``; at least 7."""
    return max(TRICK_SUMMARY_BITS, _bit_length((players - 1) * 3 * max(8, ranks)))


@jit
def score_bits(params):
    """Bits of one team's score in the ``scores`` field: 7 in Vitou (its keys never
    changed); the family: scores below the target (Trut: the points carried, T4.1)."""
    if not is_family(params):
        return 7
    return max(1, _bit_length(params[P_TARGET] - 1))


@jit
def shows_partner(params):
    """Whether a partner's hand is ever shown: four-player Vitou's R6.1. The family's one
    from the end (C5.1, F4.2) decides on the player's own cards, Trut has none (T5): no
    field (it would always read "not shown")."""
    return params[P_PLAYERS] == 4 and params[P_OFE] == 1


@jit
def is_family(params):
    """The Truc / Put family (docs/RULES_family.md G2): its deal rule is not Vitou's R3.1."""
    return params[P_DEAL_RULE] != 0


@jit
def feature_bits(cfg, params):
    """Width of the abstract key in bits for a config and a game (``int64[N_PARAMS]``).

    The Vitou profiles' widths are the historical ones (their keys never changed); the
    family's longer ladder (truc_1912, F3.1), larger decks (Catalan, Put) and verbs
    (concede, rest, redeal, keep) widen the fields that hold them."""
    players = params[P_PLAYERS]
    hand_size = params[P_HAND]
    copies = params[P_COPIES]
    ranks = params[P_RANKS]
    family = is_family(params)
    hb = hand_bits(ranks)
    b = 2 + LEGAL_BITS + 1 + hb + stake_bits(params[P_NLADDER]) + 2 + RESULT_BITS
    if family:
        b += FAMILY_LEGAL_BITS
    if params[P_REST] == 1:
        b += stake_bits(params[P_NLADDER])  # F3.3: the stake a waiting rest jumped from
    if params[P_REDEAL] == 1:
        b += 2  # F2: kept, proposed and rejected, taken
    if cfg[C_TRICK] == 0:
        b += trick_summary_bits(players, ranks)
    else:
        b += 2 + 4 * (players - 1)
    if cfg[C_PARTNER] == 1 and shows_partner(params):
        b += hb
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
        b += 2 * score_bits(params)
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
    family = is_family(params)
    lg = 0
    cards = 0
    for i in range(n_legal):
        a = legal[i]
        if a < L.A_RAISE or L.A_PLAY_HI0 <= a < L.A_CONCEDE:
            cards = 1
        elif a < L.A_SIGNAL0:
            lg |= 1 << (a - L.A_RAISE)  # raise accept refuse go pass decline: bits 0..5
        elif a < L.A_ABANDON:
            lg |= 1 << 6
        elif a < L.NUM_ACTIONS:
            lg |= 1 << (7 + a - L.A_ABANDON)  # abandon agree reject: bits 7..9
        elif a < L.NUM_ACTIONS_FAMILY:
            lg |= 1 << (11 + a - L.A_CONCEDE)  # family: concede rest redeal keep: bits 11..14
        else:
            # partnership Put's take / give / discard (P6) have no bit: keys would collide
            # with other fields (the trainer refuses the game first, vitou_ai.capabilities)
            raise ValueError("abstract_key: an action id above the two-sided family's 0..30")
    lg |= cards << 10
    key, s = _push(key, s, lg, LEGAL_BITS + (FAMILY_LEGAL_BITS if family else 0))
    raised = 1 if (state[L.S_RAISED_NOW] == 1 or state[L.S_LOCKED] == 1) else 0
    key, s = _push(key, s, raised, 1)
    hb = hand_bits(params[P_RANKS])
    key, s = _push(key, s, _held_index(state, player), hb)
    key, s = _push(key, s, state[L.S_STAKE], stake_bits(params[P_NLADDER]))
    if params[P_REST] == 1:
        # F3.3: a refused rest scores the stake before it, which can be any step below
        # the game; a refused raise scores the step below it (known from the stake)
        key, s = _push(key, s, _rest_from(params, state, player), stake_bits(params[P_NLADDER]))
    if params[P_REDEAL] == 1:
        # F2.3: public, and the deck left is another one; F2.2: a rejected proposal says
        # the first leader wanted other cards (public)
        rd = 0
        if state[L.S_REDEAL] == 2:
            rd = 2
        elif state[L.S_REDEAL] == 3 and state[L.S_NTOK] > 0 and state[L.S_TOK] == L.A_REDEAL:
            rd = 1
        key, s = _push(key, s, rd, 2)
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
            tc = 1 + (npl - 1) * 3 * max(8, params[P_RANKS]) + state[L.S_BEST] * 3 + holder
        key, s = _push(key, s, tc, trick_summary_bits(n, params[P_RANKS]))
    else:
        key, s = _push(key, s, npl, 2)
        for k in range(n - 1):
            key, s = _push(key, s, state[L.S_TRICK + k] + 1 if k < npl else 0, 4)
    if cfg[C_PARTNER] == 1 and shows_partner(params):
        pv = 0
        if state[L.S_SHARED] == 1 and me == state[L.S_R6TEAM]:  # R6.1
            pv = 1 + _held_index(state, (player + 2) % n)
        key, s = _push(key, s, pv, hb)
    cbits = 3 if params[P_COPIES] <= 7 else 4
    for r in range(min(cfg[C_COUNT], params[P_RANKS])):
        unseen = params[P_COPIES] - state[L.S_PLAYED + r] \
            - state[L.S_HELD + player * L.MAX_RANKS + r]
        if cfg[C_PARTNER] == 1 and n == 4 and state[L.S_SHARED] == 1 and me == state[L.S_R6TEAM]:
            unseen -= state[L.S_HELD + ((player + 2) % n) * L.MAX_RANKS + r]
        if params[P_REDEAL] == 1 and state[L.S_REDEAL] == 2:
            for i in range(params[P_HAND]):  # F2.3: own thrown cards are not in the deck
                if state[L.S_FIRSTHAND + player * L.MAX_HAND + i] == r:
                    unseen -= 1
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
            r = a if a < L.A_RAISE else (
                a - L.A_PLAY_HI0 + 8 if L.A_PLAY_HI0 <= a < L.A_CONCEDE else -1)
            if r >= 0 and k < done:
                key, s = _push(key, s, r + 1, 4)  # rank + 1 <= 13
                k += 1
        s += 4 * ((params[P_HAND] - 1) * n - k)
    if cfg[C_SCORES] == 1:
        sb = score_bits(params)
        if cfg[C_SCORE_BUCKETS] == 1:
            key, s = _push(key, s, need_bucket(params[P_TARGET] - state[L.S_SCORE0 + me]), sb)
            key, s = _push(key, s, need_bucket(params[P_TARGET] - state[L.S_SCORE0 + 1 - me]),
                           sb)
        else:
            key, s = _push(key, s, state[L.S_SCORE0 + me], sb)
            key, s = _push(key, s, state[L.S_SCORE0 + 1 - me], sb)
    return key


@jit
def need_bucket(need):
    """``score_buckets="stakes"``: the bucket (0 .. 4) of a team's need ``T - score``
    (:data:`~vitou_ai.abstraction.config.NEED_BUCKET_LOWS`: 1, 2-3, 4-6, 7-12, 13+)."""
    b = 0
    for i in range(_NEED_LOWS.shape[0]):
        if need >= _NEED_LOWS[i]:
            b = i
    return b


@jit
def _rest_from(params, state, player):
    """F3.3: ``1 +`` the ladder index a jump to the game came from while it awaits its
    answer (the raiser's card, then the answer: R4.3; or the two-player answer, G3.7);
    0 otherwise (no raise waiting, or a one-step raise: the step below the stake)."""
    top = params[P_NLADDER] - 1
    if state[L.S_STAKE] != top or state[L.S_PREV_STAKE] == top - 1:
        return 0
    waiting = (state[L.S_RAISED_NOW] == 1 or state[L.S_ANSWER_SEAT] == player
               or state[L.S_PHASE] == L.PH_ANSWER)
    return state[L.S_PREV_STAKE] + 1 if waiting else 0


@jit
def _rel(res, me):
    """A trick result from team ``me``'s view: 0 won, 1 lost, 2 void."""
    if res == L.RES_VOID:
        return 2
    return 0 if res == me else 1
