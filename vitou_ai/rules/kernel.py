"""The rules kernel: Vitou's transitions on a flat ``int32`` state array.

Every function takes ``params`` (``int64[N_PARAMS]`` from
:meth:`VitouParams.to_array`) and ``state`` (``int32[STATE_SIZE]``, layout in
:mod:`vitou_ai.rules.layout`), is compiled with numba, and is callable from
Python and from other jitted code. Nothing allocates except :func:`new_state`.
Rule numbers refer to ``RULES.md``; the order of nodes and the action ids are
``docs/kernel_interface.md``.

:func:`apply_action` trusts its input (it is the hot path of the simulator
and the solvers): check legality first with :func:`legal_actions`, or use the
checked Python wrapper :class:`vitou_ai.rules.game.Game`.

One module because it is the single transition function of the rules:
:func:`apply_action` dispatches to the private phase helpers, which change the state
together (the end of a deal, :func:`_finish_deal`, starts the next one through
:func:`_start_deal`), so split by phase the files would call back into each other; the
state layout's invariants are kept in this one file, behind the one interface of
``docs/kernel_interface.md``.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit
from .layout import (
    A_ABANDON,
    A_ACCEPT,
    A_AGREE,
    A_CONCEDE,
    A_DECLINE,
    A_DISCARD0,
    A_FOLD,
    A_GIVE,
    A_GO,
    A_KEEP,
    A_PASS,
    A_PLAY0,
    A_PLAY_HI0,
    A_RAISE,
    A_REDEAL,
    A_REFUSE,
    A_REJECT,
    A_REST,
    A_SEE,
    A_SIGNAL0,
    A_TAKE,
    C_DEAL0,
    C_DEAL_HI0,
    C_DEALER0,
    C_SEEN,
    C_UNSEEN,
    CHANCE_PLAYER,
    DEAL_START,
    DEAL_STOP,
    END_ABANDONED,
    END_ALL_VOID,
    END_CONCEDED,
    END_DECLINED,
    END_DRAW,
    END_FOLDED,
    END_PASSED,
    END_REFUSED,
    END_TRICKS,
    MAX_HAND,
    MAX_PLAYERS,
    MAX_RANKS,
    MAX_TOKENS,
    PH_ABANDON,
    PH_ANSWER,
    PH_BLIND,
    PH_CHOOSE,
    PH_DEAL,
    PH_DECIDE,
    PH_DISCARD,
    PH_DRAW_DEALER,
    PH_ONE_FROM_END,
    PH_PLAY,
    PH_REDEAL,
    PH_REDEAL_ANSWER,
    PH_SEE,
    PH_SEEN,
    PH_SIGNAL,
    PH_TERMINAL,
    RES_VOID,
    RES_VOID_SEAT,
    S_ABANDON_USED,
    S_ACTIVE,
    S_AFTER_GAMES,
    S_AFTER_SCORE,
    S_ANSWER_SEAT,
    S_BEST,
    S_BESTSEAT,
    S_BLINDPOS,
    S_DEALER,
    S_DEALS,
    S_DECK,
    S_DISC,
    S_END,
    S_EXCH_ANSWER,
    S_EXCH_CARD,
    S_FIRSTHAND,
    S_GAMES,
    S_GEST,
    S_GOT,
    S_HAND,
    S_HELD,
    S_LASTRAISE,
    S_LEADER,
    S_LOCKED,
    S_NBEST,
    S_NDEALT,
    S_NIN,
    S_NPLAYED,
    S_NRAISES,
    S_NREFUSALS,
    S_NTOK,
    S_NTRICKS,
    S_OUT,
    S_PHASE,
    S_PLAYED,
    S_POINTS,
    S_PREV_STAKE,
    S_PSIDE,
    S_PUTSTEP,
    S_PUTTER,
    S_R6MODE,
    S_R6POS,
    S_R6TEAM,
    S_RAISED_NOW,
    S_REDEAL,
    S_REDEALPOS,
    S_RES_NTRICKS,
    S_RES_RAISES,
    S_RES_REFUSALS,
    S_RES_STAKE,
    S_RES_TRES,
    S_RETURNS,
    S_SCORE0,
    S_SEEN,
    S_SEEPOS,
    S_SHARED,
    S_SIGCH,
    S_SIGPOS,
    S_STAKE,
    S_TCODE,
    S_TOK,
    S_TRES,
    S_TRICK,
    S_WINNER,
    S_WRETURNS,
    S_WTRICKS,
    STATE_SIZE,
    TERMINAL_PLAYER,
)
from .params import (
    MATCH_STAKE,
    P_ABANDON,
    P_BLIND,
    P_CARRY,
    P_CHOOSER,
    P_COPIES,
    P_DEAL_RULE,
    P_DEALER,
    P_EARLY_CARD,
    P_FOLD_PAYS,
    P_GAMES,
    P_GAMES0,
    P_HAND,
    P_LADDER,
    P_LINEAR,
    P_MATCH,
    P_MAX_DEALS,
    P_NLADDER,
    P_NO_CAP,
    P_OFE,
    P_PARTNER_TIE,
    P_PARTNERS,
    P_PLAYERS,
    P_PUT,
    P_PUT_STAKE,
    P_RANKS,
    P_REDEAL,
    P_REST,
    P_SCORE0,
    P_SCORE1,
    P_SEEN_PPB,
    P_SIGNALS,
    P_TARGET,
    P_TRICK_ORDER,
    P_TWO_PLAYER_RAISES,
    P_WILL,
    PPB,
)
from .tables import DEAL_DECIDED, DEAL_DECIDED_RULES, RULE_PUT

# ---------------------------------------------------------------------------------------------
# small helpers


@jit
def team_of(params, seat):
    """Team of a seat: ``seat % 2`` (four players: partners opposite; two: seat = team)."""
    return seat % 2


@jit
def one_from_end(params, state):
    """True when a team is at ``target - 1`` (R4.2d, R6, R9.3; family C5, F4.2), and the
    game has a one-from-end rule (not Trut T5, Put P6)."""
    if params[P_OFE] == 0:
        return False
    t1 = params[P_TARGET] - 1
    return state[S_SCORE0] == t1 or state[S_SCORE0 + 1] == t1


@jit
def trick_size(params):
    """Cards in a trick: the players, or 2 in partnership Put (P6.4: the active players)."""
    return 2 if params[P_PARTNERS] == 1 else params[P_PLAYERS]


@jit
def trick_seat(params, state, k):
    """Seat of the ``k``-th card of the current trick (from its leader) in the two-sided
    profiles. Partnership Put (P6.4): the two active players alternate, ``S_ACTIVE`` per
    team. Kept tiny (it is inlined on the hot path): Willughby's Put uses :func:`_nth_in`
    (:func:`card_seat` for either)."""
    if params[P_PARTNERS] == 1:
        return state[S_ACTIVE + (team_of(params, state[S_LEADER]) + k) % 2]
    return (state[S_LEADER] + k) % params[P_PLAYERS]


@jit
def card_seat(params, state, k):
    """Seat of the ``k``-th card of the current trick in any profile: :func:`trick_seat`,
    or in Willughby's Put (P7.1, P7.4) the ``k``-th player still in from the leader."""
    if params[P_TRICK_ORDER] == 2:
        return _nth_in(params, state, k)
    return trick_seat(params, state, k)


@jit
def _nth_in(params, state, k):
    """P7.4: the ``k``-th player still in from the leader (who is always in)."""
    n = params[P_PLAYERS]
    seat = state[S_LEADER]
    left = k
    while True:
        if state[S_OUT + seat] == 0:
            if left == 0:
                return seat
            left -= 1
        seat = (seat + 1) % n


@jit
def other_player(params, state, seat):
    """The one who answers ``seat``'s raise in a two-handed exchange (G3.7): the other
    player, or in partnership Put the other side's active player (P6.4)."""
    if params[P_PARTNERS] == 1:
        return state[S_ACTIVE + 1 - team_of(params, seat)]
    return 1 - seat


@jit
def nondealer(params, state):
    """Put's non-dealer (P5): seat ``dealer+1``, or in partnership Put the non-dealers'
    active player (P6.4)."""
    seat = (state[S_DEALER] + 1) % params[P_PLAYERS]
    if params[P_PARTNERS] == 1:
        return state[S_ACTIVE + team_of(params, seat)]
    return seat


@jit
def chooser_seat(params, state):
    """P6.1: the seat that says take or give for the side now choosing (``S_PSIDE``)."""
    n = params[P_PLAYERS]
    if state[S_PSIDE] == 0:
        return (state[S_DEALER] + 1) % n
    if params[P_CHOOSER] == 0:  # "named": the dealer speaks for his side
        return state[S_DEALER]
    return (state[S_DEALER] + 2) % n  # "order": the dealer's side's first seat in order


@jit
def choosing_team(params, state):
    """P6: the team whose hand-over runs now (``S_PSIDE`` 0: the non-dealers')."""
    return team_of(params, state[S_DEALER] + 1 - state[S_PSIDE])


@jit
def _push_token(state, action):
    n = state[S_NTOK]
    if n < MAX_TOKENS:
        state[S_TOK + n] = action
    state[S_NTOK] = n + 1


@jit
def _stake_points(params, state, ladder_index, team):
    """Points of a ladder step for ``team``: its value, or what the team needs
    to reach the target when the step stakes the match (R5.2, R9 table)."""
    if params[P_LINEAR] == 1:  # F3.1: 1, 2, ..., then the game
        v = ladder_index + 1 if ladder_index < params[P_NLADDER] - 1 else MATCH_STAKE
    else:
        v = params[P_LADDER + ladder_index]
    if v == MATCH_STAKE:
        return params[P_TARGET] - state[S_SCORE0 + team]
    return v


# ---------------------------------------------------------------------------------------------
# set-up


@jit
def init_state(params, state):
    """Write the initial state of a game (deal or match) into ``state``.

    Args:
        params: ``int64[N_PARAMS]``.
        state: ``int32[STATE_SIZE]``, overwritten.
    """
    state[:] = 0
    state[S_SCORE0] = params[P_SCORE0]
    state[S_SCORE0 + 1] = params[P_SCORE1]
    state[S_GAMES] = params[P_GAMES0]
    state[S_GAMES + 1] = params[P_GAMES0 + 1]
    state[S_END] = 0
    state[S_WINNER] = -1
    if params[P_DEALER] < 0:
        state[S_DEALER] = -1
        state[S_PHASE] = PH_DRAW_DEALER
        for r in range(params[P_RANKS]):  # the full deck, undealt
            state[S_DECK + r] = params[P_COPIES]
    else:
        state[S_DEALER] = params[P_DEALER]
        _start_deal(params, state)


def new_state(params: np.ndarray) -> np.ndarray:
    """A new initial state: ``int32[STATE_SIZE]``."""
    state = np.empty(STATE_SIZE, dtype=np.int32)
    init_state(params, state)
    return state


@jit
def _start_deal(params, state):
    state[DEAL_START:DEAL_STOP] = 0
    for r in range(params[P_RANKS]):  # the other ranks' counts were just zeroed
        state[S_DECK + r] = params[P_COPIES]
    for i in range(MAX_PLAYERS * MAX_HAND):
        state[S_HAND + i] = -1
    # S_FIRSTHAND is read only after a fresh deal (F2.3), which writes all of it
    for s in range(MAX_PLAYERS):
        state[S_GEST + s] = -1
    state[S_BEST] = -1
    state[S_BESTSEAT] = -1
    state[S_LASTRAISE] = -1
    # Information-state tokens cover the current deal only (R8.2, README: match-mode
    # states hold the current deal and the scores).
    state[S_NTOK] = 0
    for i in range(MAX_TOKENS):
        state[S_TOK + i] = -1
    state[S_ANSWER_SEAT] = -1
    state[S_EXCH_ANSWER] = -1
    state[S_R6TEAM] = -1
    for t in range(2):
        state[S_ACTIVE + t] = -1
        state[S_GOT + t] = -1
        state[S_DISC + t] = -1
    state[S_PUTTER] = -1
    state[S_NIN] = params[P_PLAYERS]  # P7.4: everybody is in until a fold
    state[S_LEADER] = (state[S_DEALER] + 1) % params[P_PLAYERS]
    # R9.2 blind window, except in one-from-end deals (R9.3, R4.2d).
    if params[P_BLIND] == 1 and not one_from_end(params, state):
        state[S_PHASE] = PH_BLIND
    else:
        state[S_PHASE] = PH_DEAL


@jit
def _after_deal(params, state):
    if params[P_REDEAL] == 1 and state[S_REDEAL] == 0:  # F2.1
        state[S_PHASE] = PH_REDEAL
        return
    if params[P_PARTNERS] == 1:  # P6.1: the non-dealers' side chooses first
        state[S_PHASE] = PH_CHOOSE
        return
    if params[P_OFE] == 0:  # T5, P5.6
        state[S_PHASE] = PH_PLAY
        return
    t1 = params[P_TARGET] - 1
    at0 = state[S_SCORE0] == t1
    at1 = state[S_SCORE0 + 1] == t1
    if at0 and at1:  # R6.2; C5.3: played for 1, no round
        state[S_R6MODE] = 2
        state[S_PHASE] = PH_ONE_FROM_END if params[P_OFE] == 1 else PH_PLAY
    elif at0 or at1:  # R6.1, R9.3, C5.1
        state[S_R6MODE] = 1
        state[S_R6TEAM] = 0 if at0 else 1
        state[S_SHARED] = 1 if params[P_PLAYERS] == 4 and params[P_OFE] == 1 else 0
        state[S_PHASE] = PH_ONE_FROM_END
    else:
        _start_signals(params, state)


@jit
def _start_signals(params, state):
    # R7.1, R7.3: no gestures at T-1 : T-1; the sharing team makes none.
    if params[P_SIGNALS] == 1 and state[S_R6MODE] != 2:
        state[S_PHASE] = PH_SIGNAL
        state[S_SIGPOS] = 0
        _skip_signallers(params, state)
    else:
        state[S_PHASE] = PH_PLAY


@jit
def _skip_signallers(params, state):
    n = params[P_PLAYERS]
    while state[S_SIGPOS] < n:
        seat = (state[S_DEALER] + 1 + state[S_SIGPOS]) % n
        if state[S_R6MODE] == 1 and team_of(params, seat) == state[S_R6TEAM]:
            state[S_SIGPOS] += 1
        else:
            return
    state[S_PHASE] = PH_PLAY


# ---------------------------------------------------------------------------------------------
# queries


@jit
def copy_state(src, dst):
    """``dst[:] = src`` for two state arrays (an explicit loop: numba's slice copy of a
    row is several times slower on this hot path)."""
    for i in range(STATE_SIZE):
        dst[i] = src[i]


@jit
def is_terminal(state):
    """True when the game (deal or match) is over."""
    return state[S_PHASE] == PH_TERMINAL


@jit
def is_chance(state):
    """True at chance nodes (dealer draw, a card dealt, a gesture caught or missed)."""
    ph = state[S_PHASE]
    return ph == PH_DRAW_DEALER or ph == PH_DEAL or ph == PH_SEEN


@jit
def current_player(params, state):
    """Seat to act, ``CHANCE_PLAYER`` (-1) or ``TERMINAL_PLAYER`` (-4)."""
    ph = state[S_PHASE]
    n = params[P_PLAYERS]
    dealer = state[S_DEALER]
    if ph == PH_PLAY:
        if params[P_WILL] == 1:  # P7.4: the players still in
            return _nth_in(params, state, state[S_NPLAYED])
        return trick_seat(params, state, state[S_NPLAYED])
    if ph == PH_DEAL or ph == PH_SEEN or ph == PH_DRAW_DEALER:
        return CHANCE_PLAYER
    if ph == PH_TERMINAL:
        return TERMINAL_PLAYER
    if ph == PH_ANSWER:
        return state[S_EXCH_ANSWER]
    if ph == PH_ABANDON:
        return (state[S_LEADER] + 1) % n
    if ph == PH_BLIND:  # R9.2: the non-dealer first, then the dealer
        return (dealer + 1 + state[S_BLINDPOS]) % n
    if ph == PH_SIGNAL:
        return (dealer + 1 + state[S_SIGPOS]) % n
    if ph == PH_DECIDE:  # P5.3: the non-dealer (P6.4: the non-dealers' active player)
        return nondealer(params, state)
    if ph == PH_REDEAL:  # F2.1: the first leader
        return (dealer + 1) % n
    if ph == PH_CHOOSE:  # P6.1
        return chooser_seat(params, state)
    if ph == PH_SEE:  # P7.4: the others in turn from the putter's left
        return (state[S_PUTTER] + 1 + state[S_SEEPOS]) % n
    if ph == PH_DISCARD:  # P6.3: the side's active player
        return state[S_ACTIVE + choosing_team(params, state)]
    if ph == PH_REDEAL_ANSWER:  # F2.2: the others in playing order
        return (dealer + 2 + state[S_REDEALPOS]) % n
    # PH_ONE_FROM_END
    if state[S_R6MODE] == 2:  # R6.2: once round from the dealer's left
        return (dealer + 1 + state[S_R6POS]) % n
    # R6.1: the team's first player in order from the dealer's left
    seat = (dealer + 1) % n
    if team_of(params, seat) != state[S_R6TEAM]:
        seat = (seat + 1) % n
    return seat


@jit
def _can_raise(params, state, seat):
    """R4.2 (four players) or R9.2 (two players) for the seat at its card turn."""
    if state[S_STAKE] >= params[P_NLADDER] - 1:  # R4.2c
        return False
    if one_from_end(params, state):  # R4.2d, R9.3
        return False
    last = state[S_LASTRAISE]
    if last >= 0 and last == team_of(params, seat):  # R4.2b
        return False
    if params[P_TWO_PLAYER_RAISES] == 0 and state[S_NPLAYED] == params[P_PLAYERS] - 1:
        return False  # R4.2a, R4.4
    return True


@jit
def legal_actions(params, state, out):
    """Write the legal player actions, ascending, into ``out``; return their count.

    Args:
        out: ``int32`` or ``int64`` array with at least ``NUM_ACTIONS`` slots.

    Returns:
        The number of legal actions; 0 at chance and terminal nodes.
    """
    ph = state[S_PHASE]
    n = 0
    if ph == PH_PLAY and params[P_WILL] == 1:
        return _legal_play_willughby(params, state, out)
    if ph == PH_PLAY:
        seat = trick_seat(params, state, state[S_NPLAYED])
        base = S_HELD + seat * MAX_RANKS
        nranks = params[P_RANKS]
        for r in range(min(nranks, 8)):  # R2.1, G1.1: any card held
            if state[base + r] > 0:
                out[n] = A_PLAY0 + r
                n += 1
        can_rest = False
        if params[P_TWO_PLAYER_RAISES] == 1:
            if state[S_LOCKED] == 0:
                if _can_raise(params, state, seat):
                    out[n] = A_RAISE
                    n += 1
                    can_rest = params[P_REST] == 1
                if (
                    params[P_ABANDON] == 1
                    and state[S_NTRICKS] == 0
                    and state[S_NPLAYED] == 0
                    and state[S_ABANDON_USED] == 0
                    and not one_from_end(params, state)
                ):
                    out[n] = A_ABANDON
                    n += 1
        elif state[S_RAISED_NOW] == 0:
            if _can_raise(params, state, seat):
                out[n] = A_RAISE
                n += 1
                can_rest = params[P_REST] == 1
            if state[S_ANSWER_SEAT] == seat:  # R4.3, R4.4
                out[n] = A_REFUSE
                n += 1
        if nranks > 8:  # the family's low ranks: ids after the Vitou actions
            for r in range(8, nranks):
                if state[base + r] > 0:
                    out[n] = A_PLAY_HI0 + r - 8
                    n += 1
        if params[P_PUT] == 1 and state[S_LOCKED] == 0 and state[S_STAKE] == 0:  # P5.1, P5.2
            out[n] = A_CONCEDE
            n += 1
        if can_rest and state[S_STAKE] + 2 < params[P_NLADDER]:  # F3.3
            out[n] = A_REST
            n += 1
    elif ph == PH_ANSWER:  # R9.2, G3.7
        if state[S_STAKE] < params[P_NLADDER] - 1:
            out[n] = A_RAISE
            n += 1
        out[n] = A_ACCEPT
        n += 1
        out[n] = A_REFUSE
        n += 1
        if params[P_REST] == 1 and state[S_STAKE] + 2 < params[P_NLADDER]:
            out[n] = A_REST
            n += 1
    elif ph == PH_DECIDE:  # P5.3
        out[0] = A_RAISE
        out[1] = A_CONCEDE
        n = 2
    elif ph == PH_CHOOSE:  # P6.1
        out[0] = A_TAKE
        out[1] = A_GIVE
        n = 2
    elif ph == PH_SEE:  # P7.4
        out[0] = A_SEE
        out[1] = A_FOLD
        n = 2
    elif ph == PH_DISCARD:  # P6.3: any of the h + 1 cards held
        base = S_HELD + state[S_ACTIVE + choosing_team(params, state)] * MAX_RANKS
        for r in range(params[P_RANKS]):
            if state[base + r] > 0:
                out[n] = A_DISCARD0 + r
                n += 1
    elif ph == PH_REDEAL:  # F2.1
        out[0] = A_REDEAL
        out[1] = A_KEEP
        n = 2
    elif ph == PH_REDEAL_ANSWER:  # F2.2
        out[0] = A_AGREE
        out[1] = A_REJECT
        n = 2
    elif ph == PH_BLIND:
        out[0] = A_RAISE
        out[1] = A_PASS
        n = 2
    elif ph == PH_ONE_FROM_END:
        out[0] = A_GO
        out[1] = A_PASS if state[S_R6MODE] == 2 else A_DECLINE
        n = 2
    elif ph == PH_SIGNAL:
        for g in range(5):
            out[g] = A_SIGNAL0 + g
        n = 5
    elif ph == PH_ABANDON:
        out[0] = A_AGREE
        out[1] = A_REJECT
        n = 2
    return n


@jit
def _legal_play_willughby(params, state, out):
    """P7.1, P7.3: any card held; put at the lead of a trick while no put was made."""
    seat = _nth_in(params, state, state[S_NPLAYED])
    base = S_HELD + seat * MAX_RANKS
    nranks = params[P_RANKS]
    n = 0
    for r in range(min(nranks, 8)):
        if state[base + r] > 0:
            out[n] = A_PLAY0 + r
            n += 1
    if state[S_NPLAYED] == 0 and state[S_STAKE] == 0:
        out[n] = A_RAISE
        n += 1
    for r in range(8, nranks):
        if state[base + r] > 0:
            out[n] = A_PLAY_HI0 + r - 8
            n += 1
    return n


@jit
def chance_outcomes(params, state, actions, probs):
    """Write the chance outcomes and their probabilities; return their count.

    Only outcomes of positive probability are listed, ascending; the
    probabilities sum to 1. R1.2 (one card at a time from the undealt cards),
    R1.4 (uniform first dealer), R7.2 (gesture caught with ``signal_seen``).

    Args:
        actions: ``int`` array, at least ``MAX_CHANCE_OUTCOMES`` slots.
        probs: ``float64`` array, same size.
    """
    ph = state[S_PHASE]
    n = 0
    if ph == PH_DEAL:
        nranks = params[P_RANKS]
        total = 0
        for r in range(nranks):
            total += state[S_DECK + r]
        for r in range(nranks):
            c = state[S_DECK + r]
            if c > 0:
                actions[n] = C_DEAL0 + r if r < 8 else C_DEAL_HI0 + r - 8
                probs[n] = c / total
                n += 1
    elif ph == PH_SEEN:
        p = params[P_SEEN_PPB]
        if p > 0:
            actions[n] = C_SEEN
            probs[n] = p / PPB
            n += 1
        if p < PPB:
            actions[n] = C_UNSEEN
            probs[n] = (PPB - p) / PPB
            n += 1
    elif ph == PH_DRAW_DEALER:
        np_ = params[P_PLAYERS]
        for s in range(np_):
            actions[n] = C_DEALER0 + s
            probs[n] = 1.0 / np_
            n += 1
    return n


@jit
def returns(params, state, out):
    """Write each seat's return into ``out`` (``float64[players]``).

    Deal mode (R8.1): points, the scoring team ``+v`` and the other ``-v``, ``v``
    capped at what the scorer needed. Match mode (R8.2): +1 / -1 / 0. All zero
    until the game is terminal.
    """
    will = params[P_WILL] == 1  # P7.5: each for themselves, a return per seat
    for s in range(params[P_PLAYERS]):
        if state[S_PHASE] == PH_TERMINAL:
            out[s] = state[S_WRETURNS + s] if will else state[S_RETURNS + team_of(params, s)]
        else:
            out[s] = 0.0


# ---------------------------------------------------------------------------------------------
# R3.2: is the deal's winner certain?


@jit
def trick_outcomes(params, state):
    """Possible results of the current, incomplete trick (R3.2 ``card``, rules 1.1).

    The players still to play may complete the trick in any way that uses, of
    each rank, no more cards than are unseen (``copies`` minus the copies
    played in this deal: the deck's composition is public, the hands are not).
    Whatever the order, any remaining player can hold any card of a
    completion, so only the multiset of the completion matters:

    - all under the best card: needs ``nrem`` unseen cards ranked below it;
    - a tie with the best card (void, R2.3): one unseen copy of it plus
      ``nrem - 1`` cards ranked no higher;
    - a single higher rank ``r`` wins for the team of whoever plays it (any
      remaining seat): one copy of ``r`` plus ``nrem - 1`` cards ranked below
      ``r``;
    - two or more copies of a higher rank ``r`` tie (void): two copies of
      ``r`` plus ``nrem - 2`` cards ranked no higher than ``r``.

    Returns:
        Bit mask over results: bit 0 team 0 wins, bit 1 team 1 wins, bit 2 void.
    """
    nplayers = trick_size(params)
    copies = params[P_COPIES]
    nranks = params[P_RANKS]
    best = state[S_BEST]
    nrem = nplayers - state[S_NPLAYED]
    # teams still to play: bit per team
    rem_teams = 0
    for k in range(state[S_NPLAYED], nplayers):
        rem_teams |= 1 << team_of(params, trick_seat(params, state, k))
    # unseen cards ranked strictly below the best card (index > best); no allocation
    below = 0
    for r in range(best + 1, nranks):
        below += copies - state[S_PLAYED + r]
    unseen_best = copies - state[S_PLAYED + best]
    mask = 0
    if below >= nrem:
        if state[S_NBEST] > 1:
            mask |= 1 << RES_VOID
        else:
            mask |= 1 << team_of(params, state[S_BESTSEAT])
    if unseen_best >= 1 and unseen_best + below >= nrem:
        mask |= 1 << RES_VOID
    # higher ranks r = best-1 .. 0; ``below`` becomes the unseen cards ranked below r
    below += unseen_best
    for r in range(best - 1, -1, -1):
        unseen_r = copies - state[S_PLAYED + r]
        if unseen_r >= 1 and below >= nrem - 1:
            mask |= rem_teams
        if nrem >= 2 and unseen_r >= 2 and unseen_r + below >= nrem:
            mask |= 1 << RES_VOID
        below += unseen_r
    return mask


@jit
def trick_outcomes_family(params, state):
    """:func:`trick_outcomes` under G1.3: ties between partners go to the first card.

    Only the teams of the players still to play matter: ``m[t]`` of them are of
    team ``t``. With ``F`` the remaining players who play the highest rank of
    the completion:

    - nobody beats the best card: the standing result stays, except that an
      opponent of the best card's player who ties it voids the trick; partners
      of that player may tie it harmlessly;
    - a higher rank ``r`` is played by a set ``F`` of one team only: that team
      wins (``|F|`` copies of ``r``, the others below ``r``); by both teams: void.

    Returns:
        Bit mask over results: bit 0 team 0 wins, bit 1 team 1 wins, bit 2 void.
    """
    nplayers = trick_size(params)
    copies = params[P_COPIES]
    nranks = params[P_RANKS]
    best = state[S_BEST]
    nrem = nplayers - state[S_NPLAYED]
    m0 = 0
    m1 = 0
    for k in range(state[S_NPLAYED], nplayers):
        if team_of(params, trick_seat(params, state, k)) == 0:
            m0 += 1
        else:
            m1 += 1
    below = 0
    for r in range(best + 1, nranks):
        below += copies - state[S_PLAYED + r]
    unseen_best = copies - state[S_PLAYED + best]
    mask = 0
    if state[S_NBEST] > 1:  # already void: stays void unless beaten
        if below + min(unseen_best, nrem) >= nrem:
            mask |= 1 << RES_VOID
    else:
        t = team_of(params, state[S_BESTSEAT])
        same = m0 if t == 0 else m1
        other = nrem - same
        if below + min(unseen_best, same) >= nrem:
            mask |= 1 << t
        if other >= 1 and unseen_best >= 1 and below + min(unseen_best, nrem) >= nrem:
            mask |= 1 << RES_VOID
    below += unseen_best
    for r in range(best - 1, -1, -1):
        unseen_r = copies - state[S_PLAYED + r]
        if unseen_r >= 1:
            if m0 >= 1 and below + min(unseen_r, m0) >= nrem:
                mask |= 1
            if m1 >= 1 and below + min(unseen_r, m1) >= nrem:
                mask |= 2
            if m0 >= 1 and m1 >= 1 and unseen_r >= 2 and below + min(unseen_r, nrem) >= nrem:
                mask |= 1 << RES_VOID
        below += unseen_r
    return mask


@jit
def _decided_now(params, state):
    """The deal's result if certain now (team, 2 = nobody), else -1 (R3.1, R3.2; G2)."""
    rule = params[P_DEAL_RULE]
    if rule != 0:
        return _decided_now_family(params, state, rule)
    h = params[P_HAND]
    k = state[S_NTRICKS]
    code = state[S_TCODE]
    if state[S_NPLAYED] == 0:
        return DEAL_DECIDED[h, k, code]
    if params[P_EARLY_CARD] == 0:
        return -1
    base = code * 3
    if (
        DEAL_DECIDED[h, k + 1, base] < 0
        and DEAL_DECIDED[h, k + 1, base + 1] < 0
        and DEAL_DECIDED[h, k + 1, base + 2] < 0
    ):
        return -1  # no result of this trick can settle the deal (e.g. trick 1 of 3)
    mask = trick_outcomes(params, state)
    result = -2
    for res in range(3):
        if (mask >> res) & 1:
            d = DEAL_DECIDED[h, k + 1, code * 3 + res]
            if d < 0 or (result != -2 and d != result):
                return -1
            result = d
    return result


@jit
def _decided_now_family(params, state, rule):
    """:func:`_decided_now` under the family's G2 rules and G1.3 ties (G2.4)."""
    if rule == 1:  # G2.3: all void -> the non-dealers' team
        row = 1 + team_of(params, (state[S_DEALER] + 1) % params[P_PLAYERS])
    else:
        row = RULE_PUT
    h = params[P_HAND]
    k = state[S_NTRICKS]
    code = state[S_TCODE]
    if state[S_NPLAYED] == 0:
        return DEAL_DECIDED_RULES[row, h, k, code]
    if params[P_EARLY_CARD] == 0:
        return -1
    base = code * 3
    if (
        DEAL_DECIDED_RULES[row, h, k + 1, base] < 0
        and DEAL_DECIDED_RULES[row, h, k + 1, base + 1] < 0
        and DEAL_DECIDED_RULES[row, h, k + 1, base + 2] < 0
    ):
        return -1
    if params[P_PARTNER_TIE] == 1:
        mask = trick_outcomes_family(params, state)
    else:
        mask = trick_outcomes(params, state)
    result = -2
    for res in range(3):
        if (mask >> res) & 1:
            d = DEAL_DECIDED_RULES[row, h, k + 1, code * 3 + res]
            if d < 0 or (result != -2 and d != result):
                return -1
            result = d
    return result


# ---------------------------------------------------------------------------------------------
# transitions


@jit
def apply_action(params, state, action):
    """Apply a player action or a chance outcome, in place.

    The action must be legal (see :func:`legal_actions` / :func:`chance_outcomes`);
    it is not checked here.
    """
    ph = state[S_PHASE]
    if ph == PH_PLAY:
        if params[P_WILL] == 1:
            _apply_play_willughby(params, state, action)
        else:
            _apply_play_phase(params, state, action)
    elif ph == PH_DEAL:
        _deal_card(params, state, action - C_DEAL0 if action < 8 else action - C_DEAL_HI0 + 8)
    elif ph == PH_ANSWER:
        _apply_answer(params, state, action)
    elif ph == PH_SEEN:
        _apply_seen(params, state, action)
    elif ph == PH_SIGNAL:
        _apply_signal(params, state, action)
    elif ph == PH_ONE_FROM_END:
        _push_token(state, action)
        if state[S_R6MODE] == 1:  # R6.1, R9.3
            if action == A_GO:
                _start_signals(params, state)
            else:
                _finish_deal(params, state, END_DECLINED, 1 - state[S_R6TEAM], 1)
        elif action == A_GO:  # R6.2: the first go; no signals
            state[S_PHASE] = PH_PLAY
        else:
            state[S_R6POS] += 1
            if state[S_R6POS] == params[P_PLAYERS]:
                _finish_deal(params, state, END_PASSED, -1, 0)
    elif ph == PH_BLIND:
        _push_token(state, action)
        if action == A_RAISE:
            _open_exchange(params, state, current_player(params, state), 0)
        else:
            state[S_BLINDPOS] += 1
            if state[S_BLINDPOS] == 2:
                state[S_PHASE] = PH_DEAL
    elif ph == PH_ABANDON:
        _push_token(state, action)
        if action == A_AGREE:
            _finish_deal(params, state, END_ABANDONED, -1, 0)
        else:
            state[S_PHASE] = PH_PLAY
    elif ph == PH_DRAW_DEALER:
        state[S_DEALER] = action - C_DEALER0
        _start_deal(params, state)
    elif ph == PH_DECIDE:  # P5.3
        _push_token(state, action)
        state[S_PUTSTEP] = 1
        seat = nondealer(params, state)
        if action == A_CONCEDE:
            _finish_deal(params, state, END_CONCEDED, 1 - team_of(params, seat), 1)
        else:
            _open_exchange(params, state, seat, 2)
    elif ph == PH_CHOOSE:  # P6.1, P6.2
        _push_token(state, action)
        _hand_over(params, state, action)
    elif ph == PH_DISCARD:  # P6.3: face down, so no public token
        _discard(params, state, action - A_DISCARD0)
    elif ph == PH_SEE:  # P7.4
        _push_token(state, action)
        _see_or_fold(params, state, action)
    elif ph == PH_REDEAL:  # F2.1
        _push_token(state, action)
        if action == A_KEEP:
            state[S_REDEAL] = 3
            _after_deal(params, state)
        else:
            state[S_REDEAL] = 1
            state[S_REDEALPOS] = 0
            state[S_PHASE] = PH_REDEAL_ANSWER
    elif ph == PH_REDEAL_ANSWER:  # F2.2, F2.3
        _push_token(state, action)
        if action == A_REJECT:
            state[S_REDEAL] = 3
            _after_deal(params, state)
        else:
            state[S_REDEALPOS] += 1
            if state[S_REDEALPOS] == params[P_PLAYERS] - 1:
                _take_redeal(params, state)


@jit
def _hand_over(params, state, action):
    """P6.1, P6.2: the speaker takes the hand or gives it to the partner; the other
    partner hands the active player their best card and lays the rest away face down."""
    n = params[P_PLAYERS]
    speaker = chooser_seat(params, state)
    active = speaker if action == A_TAKE else (speaker + 2) % n
    partner = (active + 2) % n
    team = team_of(params, active)
    state[S_ACTIVE + team] = active
    pbase = S_HELD + partner * MAX_RANKS
    best = -1
    for r in range(params[P_RANKS]):
        if state[pbase + r] > 0:
            best = r  # rank index 0 is the highest: the first held is the best
            break
    state[S_GOT + team] = best
    state[S_HELD + active * MAX_RANKS + best] += 1
    for r in range(params[P_RANKS]):
        state[pbase + r] = 0
    state[S_PHASE] = PH_DISCARD


@jit
def _discard(params, state, rank):
    """P6.3: the active player lays one card away; then the dealer's side (P6.1) or play
    (P6.4: the non-dealers' active player leads)."""
    team = choosing_team(params, state)
    state[S_HELD + state[S_ACTIVE + team] * MAX_RANKS + rank] -= 1
    state[S_DISC + team] = rank
    if state[S_PSIDE] == 0:
        state[S_PSIDE] = 1
        state[S_PHASE] = PH_CHOOSE
    else:
        state[S_PSIDE] = 2
        state[S_LEADER] = nondealer(params, state)
        state[S_PHASE] = PH_PLAY


@jit
def _take_redeal(params, state):
    """F2.3: the hands go out unseen (not back into the deck); three new cards each."""
    for i in range(MAX_PLAYERS * MAX_HAND):
        state[S_FIRSTHAND + i] = state[S_HAND + i]
        state[S_HAND + i] = -1
    for i in range(MAX_PLAYERS * MAX_RANKS):
        state[S_HELD + i] = 0
    state[S_NDEALT] = 0
    state[S_REDEAL] = 2
    state[S_PHASE] = PH_DEAL


@jit
def _deal_card(params, state, rank):
    h = params[P_HAND]
    n = params[P_PLAYERS]
    i = state[S_NDEALT]
    seat = (state[S_DEALER] + 1 + i // h) % n  # R1.2: packets, from the dealer's left
    state[S_HAND + seat * MAX_HAND + i % h] = rank
    state[S_HELD + seat * MAX_RANKS + rank] += 1
    state[S_DECK + rank] -= 1
    state[S_NDEALT] = i + 1
    if i + 1 == n * h:
        _after_deal(params, state)


@jit
def apply_deal(params, state, hands):
    """Deal given hands: apply the remaining card chance nodes from ``hands``.

    Args:
        hands: ``int[players, hand_size]`` rank indices, ``hands[s]`` for seat
            ``s``. The state must be at the deal (phase ``PH_DEAL``) with no
            card dealt yet; the hands must fit the deck (not checked here; the
            hand-history reader checks them).
    """
    h = params[P_HAND]
    n = params[P_PLAYERS]
    for k in range(n):
        seat = (state[S_DEALER] + 1 + k) % n  # R1.2 order
        for i in range(h):
            _deal_card(params, state, hands[seat, i])


@jit
def _apply_signal(params, state, action):
    n = params[P_PLAYERS]
    seat = (state[S_DEALER] + 1 + state[S_SIGPOS]) % n
    g = action - A_SIGNAL0
    state[S_GEST + seat] = g
    if g != 0:
        state[S_SIGCH] = 0
        state[S_PHASE] = PH_SEEN
    else:
        state[S_SIGPOS] += 1
        _skip_signallers(params, state)


@jit
def _apply_seen(params, state, action):
    n = params[P_PLAYERS]
    seat = (state[S_DEALER] + 1 + state[S_SIGPOS]) % n
    observer = (seat + 1 + 2 * state[S_SIGCH]) % n  # the opponents g+1, then g+3
    if action == C_SEEN:
        state[S_SEEN + observer * MAX_PLAYERS + seat] = 1
    state[S_SIGCH] += 1
    if state[S_SIGCH] == 2:
        state[S_SIGPOS] += 1
        state[S_PHASE] = PH_SIGNAL
        _skip_signallers(params, state)


@jit
def _open_exchange(params, state, raiser, at_card_turn):
    """R9.2, G3.7: a raise, answered at once by the other player. ``at_card_turn``: 0 the
    blind window (the deal follows), 1 a card turn (that player then plays a card), 2 Put's
    decision before trick 2 (P5.3: play goes on)."""
    state[S_PREV_STAKE] = state[S_STAKE]
    state[S_STAKE] += 1
    state[S_LASTRAISE] = team_of(params, raiser)
    state[S_NRAISES] += 1
    state[S_EXCH_ANSWER] = other_player(params, state, raiser)
    state[S_EXCH_CARD] = at_card_turn
    state[S_PHASE] = PH_ANSWER


@jit
def _refuse(params, state):
    """R4.3, R9.2: the raising team scores the stake before the refused raise."""
    state[S_NREFUSALS] += 1
    state[S_STAKE] = state[S_PREV_STAKE]
    raisers = state[S_LASTRAISE]
    _finish_deal(
        params, state, END_REFUSED, raisers, _stake_points(params, state, state[S_STAKE], raisers)
    )


@jit
def _apply_answer(params, state, action):
    _push_token(state, action)
    seat = state[S_EXCH_ANSWER]
    if action == A_ACCEPT:
        if state[S_EXCH_CARD] == 1:
            state[S_LOCKED] = 1  # that player now plays a card, nothing else
            state[S_PHASE] = PH_PLAY
        elif state[S_EXCH_CARD] == 2:
            state[S_PHASE] = PH_PLAY
        else:
            state[S_PHASE] = PH_DEAL
    elif action == A_RAISE:  # a re-raise accepts the raise it answers
        _open_exchange(params, state, seat, state[S_EXCH_CARD])
    elif action == A_REST:  # F3.3: a re-raise to the game
        _open_exchange(params, state, seat, state[S_EXCH_CARD])
        state[S_STAKE] = params[P_NLADDER] - 1
    else:
        _refuse(params, state)


@jit
def _apply_play_phase(params, state, action):
    seat = trick_seat(params, state, state[S_NPLAYED])
    _push_token(state, action)
    if action == A_RAISE or action == A_REST:
        if params[P_TWO_PLAYER_RAISES] == 1:
            _open_exchange(params, state, seat, 1)
        else:  # R4.2, R4.3: raise (or re-raise, accepting), then play a card
            state[S_ANSWER_SEAT] = -1
            state[S_PREV_STAKE] = state[S_STAKE]
            state[S_STAKE] += 1
            state[S_LASTRAISE] = team_of(params, seat)
            state[S_NRAISES] += 1
            state[S_RAISED_NOW] = 1
        if action == A_REST:  # F3.3: straight to the game
            state[S_STAKE] = params[P_NLADDER] - 1
        return
    if action == A_REFUSE:
        _refuse(params, state)
        return
    if action == A_ABANDON:
        state[S_ABANDON_USED] = 1
        state[S_PHASE] = PH_ABANDON
        return
    if action == A_CONCEDE:  # P5.1, P5.2: the other side scores 1
        _finish_deal(params, state, END_CONCEDED, 1 - team_of(params, seat), 1)
        return
    if action < A_RAISE:
        _play_card(params, state, seat, action - A_PLAY0)
    else:
        _play_card(params, state, seat, action - A_PLAY_HI0 + 8)


@jit
def _play_card(params, state, seat, rank):
    n = params[P_PLAYERS]
    ntrick = trick_size(params)
    raised = state[S_RAISED_NOW]
    state[S_RAISED_NOW] = 0
    state[S_ANSWER_SEAT] = -1  # playing a card accepts a waiting raise (R4.3)
    state[S_LOCKED] = 0
    state[S_HELD + seat * MAX_RANKS + rank] -= 1
    state[S_PLAYED + rank] += 1
    k = state[S_NPLAYED]
    state[S_TRICK + k] = rank
    best = state[S_BEST]
    if best < 0 or rank < best:  # R2.2
        state[S_BEST] = rank
        state[S_NBEST] = 1
        state[S_BESTSEAT] = seat
    elif rank == best:  # R2.3; G1.3: a partner's tie leaves the trick to the first card
        if (
            params[P_PARTNER_TIE] == 0
            or state[S_NBEST] > 1
            or team_of(params, seat) != team_of(params, state[S_BESTSEAT])
        ):
            state[S_NBEST] += 1
    state[S_NPLAYED] = k + 1
    if k + 1 == ntrick:  # trick complete
        if state[S_NBEST] > 1:
            res = RES_VOID  # R2.4: the leader leads again
        else:
            res = team_of(params, state[S_BESTSEAT])
            state[S_LEADER] = state[S_BESTSEAT]  # R2.4
        t = state[S_NTRICKS]
        state[S_TRES + t] = res
        state[S_TCODE] = state[S_TCODE] * 3 + res
        state[S_NTRICKS] = t + 1
        state[S_NPLAYED] = 0
        state[S_BEST] = -1
        state[S_NBEST] = 0
        state[S_BESTSEAT] = -1
    decided = _decided_now(params, state)
    if decided >= 0:
        if raised == 1:
            state[S_STAKE] = state[S_PREV_STAKE]  # R4.6: the raiser's own card ended the deal
        if decided == 2:
            end = END_ALL_VOID
            for t in range(state[S_NTRICKS]):  # P2.2: a trick won means trick and tie
                if state[S_TRES + t] != RES_VOID:
                    end = END_DRAW
            _finish_deal(params, state, end, -1, 0)
        else:
            _finish_deal(params, state, END_TRICKS, decided, _trick_points(params, state, decided))
    else:
        if raised == 1:
            state[S_ANSWER_SEAT] = (seat + 1) % n  # R4.3: the next player answers
        if (
            params[P_PUT] == 1
            and state[S_NPLAYED] == 0
            and state[S_NTRICKS] == 1
            and state[S_STAKE] == 0
        ):
            state[S_PHASE] = PH_DECIDE  # P5.3


@jit
def _trick_points(params, state, winner):
    mode = state[S_R6MODE]
    if mode == 1:  # R6.1, R9.3
        return 1 if winner == state[S_R6TEAM] else 3
    if mode == 2:  # R6.2
        return 1
    return _stake_points(params, state, state[S_STAKE], winner)  # R4.5, R5.1


@jit
def _finish_deal(params, state, end, winner, points):
    """Record the deal's result; in match mode, score it and start the next deal."""
    state[S_END] = end
    state[S_WINNER] = winner
    state[S_POINTS] = 0
    state[S_POINTS + 1] = 0
    if winner >= 0:
        state[S_POINTS + winner] = points
    state[S_RES_STAKE] = state[S_STAKE]
    state[S_RES_NTRICKS] = state[S_NTRICKS]
    for t in range(MAX_HAND):
        state[S_RES_TRES + t] = state[S_TRES + t]
    state[S_RES_RAISES] = state[S_NRAISES]
    state[S_RES_REFUSALS] = state[S_NREFUSALS]
    target = params[P_TARGET]
    state[S_RETURNS] = 0
    state[S_RETURNS + 1] = 0
    game_over = _score_after(params, state, winner, points)
    if params[P_MATCH] == 0:  # R8.1
        if winner >= 0:
            if params[P_NO_CAP] == 1:  # G4, T5: carry-over scoring, not capped
                v = points
            else:
                v = min(points, target - state[S_SCORE0 + winner])
            state[S_RETURNS + winner] = v
            state[S_RETURNS + 1 - winner] = -v
        state[S_PHASE] = PH_TERMINAL
        return
    # R8.2, G4.1
    if winner >= 0:
        if game_over == 2:  # R5.2, R5.3: the match is won; scores not clamped (19 + 3 = 22)
            state[S_SCORE0 + winner] += points
            state[S_GAMES + winner] += 1
            state[S_RETURNS + winner] = 1
            state[S_RETURNS + 1 - winner] = -1
            state[S_PHASE] = PH_TERMINAL
            return
        for t in range(2):
            state[S_SCORE0 + t] = state[S_AFTER_SCORE + t]
            state[S_GAMES + t] = state[S_AFTER_GAMES + t]
    state[S_DEALS] += 1
    if state[S_DEALS] >= params[P_MAX_DEALS]:
        state[S_PHASE] = PH_TERMINAL  # a draw
        return
    state[S_DEALER] = (state[S_DEALER] + 1) % params[P_PLAYERS]  # R1.3
    _start_deal(params, state)


@jit
def _score_after(params, state, winner, points):
    """Write the scores and games once the deal is scored (G4.1, G4.2, T4.1) into
    ``S_AFTER_SCORE`` / ``S_AFTER_GAMES``; return 0 (game goes on), 1 (a game won, the
    match goes on) or 2 (the match won)."""
    for t in range(2):
        state[S_AFTER_SCORE + t] = state[S_SCORE0 + t]
        state[S_AFTER_GAMES + t] = state[S_GAMES + t]
    if winner < 0:
        return 0
    target = params[P_TARGET]
    new = state[S_SCORE0 + winner] + points
    state[S_AFTER_SCORE + winner] = new
    if new < target:
        return 0
    state[S_AFTER_GAMES + winner] += 1
    if state[S_AFTER_GAMES + winner] >= params[P_GAMES]:
        return 2
    # a new game: the losers restart at 0; the winners too, or keep the surplus (T4.1)
    state[S_AFTER_SCORE + 1 - winner] = 0
    state[S_AFTER_SCORE + winner] = new - target if params[P_CARRY] == 1 else 0
    return 1


# ---------------------------------------------------------------------------------------------
# Willughby's Put (docs/RULES_family.md P7): three or four, each for themselves


@jit
def _apply_play_willughby(params, state, action):
    """P7.3: a put at the lead opens the see round; otherwise a card (P7.1)."""
    seat = _nth_in(params, state, state[S_NPLAYED])
    _push_token(state, action)
    if action == A_RAISE:
        state[S_PREV_STAKE] = state[S_STAKE]
        state[S_STAKE] = 1
        state[S_LASTRAISE] = seat
        state[S_NRAISES] += 1
        state[S_PUTTER] = seat
        state[S_SEEPOS] = 0
        state[S_PHASE] = PH_SEE
        return
    if action < A_RAISE:
        _play_card_willughby(params, state, seat, action - A_PLAY0)
    else:
        _play_card_willughby(params, state, seat, action - A_PLAY_HI0 + 8)


@jit
def _see_or_fold(params, state, action):
    """P7.4: a fold puts the seat out (its cards stay unseen); after the last answer the
    putter leads among those still in, or wins at once if nobody sees."""
    n = params[P_PLAYERS]
    seat = (state[S_PUTTER] + 1 + state[S_SEEPOS]) % n
    if action == A_FOLD:
        state[S_OUT + seat] = 1
        state[S_NIN] -= 1
        state[S_NREFUSALS] += 1
    state[S_SEEPOS] += 1
    if state[S_SEEPOS] == n - 1:
        if state[S_NIN] == 1:
            _finish_willughby(params, state, END_FOLDED, state[S_PUTTER])
        else:
            state[S_PHASE] = PH_PLAY  # the putter is the leader: it leads the trick


@jit
def _play_card_willughby(params, state, seat, rank):
    """P7.1 trick play among the players still in; P7.2: the first to two tricks wins, and
    a deal in which nobody still in can reach two is a draw."""
    state[S_HELD + seat * MAX_RANKS + rank] -= 1
    state[S_PLAYED + rank] += 1
    k = state[S_NPLAYED]
    state[S_TRICK + k] = rank
    best = state[S_BEST]
    if best < 0 or rank < best:
        state[S_BEST] = rank
        state[S_NBEST] = 1
        state[S_BESTSEAT] = seat
    elif rank == best:  # P7.1: a tie for the highest rank voids the trick
        state[S_NBEST] += 1
    state[S_NPLAYED] = k + 1
    if k + 1 < state[S_NIN]:
        return
    winner = -1
    if state[S_NBEST] > 1:
        res = RES_VOID_SEAT  # G1.4: the leader leads again
    else:
        winner = state[S_BESTSEAT]
        res = winner
        state[S_LEADER] = winner
        state[S_WTRICKS + winner] += 1
    t = state[S_NTRICKS]
    state[S_TRES + t] = res
    state[S_NTRICKS] = t + 1
    state[S_NPLAYED] = 0
    state[S_BEST] = -1
    state[S_NBEST] = 0
    state[S_BESTSEAT] = -1
    if winner >= 0 and state[S_WTRICKS + winner] == 2:
        _finish_willughby(params, state, END_TRICKS, winner)
        return
    left = params[P_HAND] - t - 1
    won = 0  # tricks won by anyone (a folded player's too): a draw, else all tied
    for s in range(params[P_PLAYERS]):
        if state[S_OUT + s] == 0 and state[S_WTRICKS + s] + left >= 2:
            return  # someone still in can reach two tricks
        won += state[S_WTRICKS + s]
    _finish_willughby(params, state, END_DRAW if won > 0 else END_ALL_VOID, -1)


@jit
def _finish_willughby(params, state, end, winner):
    """P7.5: the winner is paid the stake by each other player still in; a folder pays
    nothing (or, ``fold_pays = stake``, 1 to the putter); a draw pays nothing. Deal mode
    only (P7.6), so the game is over."""
    n = params[P_PLAYERS]
    state[S_END] = end
    state[S_WINNER] = winner
    state[S_POINTS] = 0
    state[S_POINTS + 1] = 0
    state[S_RETURNS] = 0
    state[S_RETURNS + 1] = 0
    state[S_RES_STAKE] = state[S_STAKE]
    state[S_RES_NTRICKS] = state[S_NTRICKS]
    for t in range(MAX_HAND):
        state[S_RES_TRES + t] = state[S_TRES + t]
    state[S_RES_RAISES] = state[S_NRAISES]
    state[S_RES_REFUSALS] = state[S_NREFUSALS]
    for s in range(MAX_PLAYERS):
        state[S_WRETURNS + s] = 0
    v = 1 if state[S_STAKE] == 0 else params[P_PUT_STAKE]
    if winner >= 0:
        for s in range(n):
            if s != winner and state[S_OUT + s] == 0:
                state[S_WRETURNS + s] -= v
                state[S_WRETURNS + winner] += v
    if params[P_FOLD_PAYS] == 1:
        for s in range(n):
            if state[S_OUT + s] == 1:
                state[S_WRETURNS + s] -= 1
                state[S_WRETURNS + state[S_PUTTER]] += 1
    state[S_PHASE] = PH_TERMINAL
