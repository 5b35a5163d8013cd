"""What a player knows: the information-state key and the public observation.

Both are fixed-size arrays computed from the kernel state; both jitted.
"""

from __future__ import annotations

from .._numba import jit
from .kernel import team_of
from .layout import (
    K_DEALER,
    K_GEST,
    K_HAND,
    K_NTOK,
    K_PARTNER,
    K_PLAYER,
    K_SCORE0,
    K_SCORE1,
    K_TOK,
    KEY_SIZE,
    MAX_HAND,
    MAX_PLAYERS,
    MAX_RANKS,
    MAX_TOKENS,
    PH_ANSWER,
    S_ACTIVE,
    S_ANSWER_SEAT,
    S_BEST,
    S_DEALER,
    S_DISC,
    S_EXCH_ANSWER,
    S_FIRSTHAND,
    S_GAMES,
    S_GEST,
    S_GOT,
    S_HAND,
    S_HELD,
    S_LASTRAISE,
    S_LEADER,
    S_NPLAYED,
    S_NTOK,
    S_NTRICKS,
    S_OUT,
    S_PHASE,
    S_PLAYED,
    S_R6MODE,
    S_R6TEAM,
    S_REDEAL,
    S_SCORE0,
    S_SEEN,
    S_SHARED,
    S_STAKE,
    S_TOK,
    S_TRES,
    S_TRICK,
)
from .params import P_HAND, P_PARTNERS, P_PLAYERS


@jit
def _sorted_hand(state, seat, h, out, at):
    """Write ``seat``'s dealt hand (a multiset) sorted ascending at ``out[at:at+h]``."""
    _sorted_cards(state, S_HAND + seat * MAX_HAND, h, out, at)


@jit
def _sorted_cards(state, base, h, out, at):
    """Write the ``h`` ranks at ``state[base:base+h]`` sorted ascending at ``out[at:at+h]``
    (``h`` up to ``MAX_HAND``: Willughby's hands of 4 or 5 run on into ``K_PARTNER``)."""
    for i in range(h):
        out[at + i] = -1
    for i in range(h):
        v = state[base + i]
        j = at + i
        while j > at and (out[j - 1] > v or out[j - 1] < 0) and v >= 0:
            out[j] = out[j - 1]
            j -= 1
        out[j] = v


@jit
def infostate_key(params, state, player, out):
    """Perfect-recall information state of ``player`` as ``int8[KEY_SIZE]``.

    Layout (``K_*`` in :mod:`layout`): seat, dealer, team scores, own hand
    sorted (-1 before the deal), partner's hand when R6.1 shares it, or one's
    own hand thrown in by a French Truc fresh deal (F2.3), or in partnership Put
    (P6.2, P6.3) the active player's card received and card laid away (-1 = not yet;
    a discard is face down, so it is in no one else's key), else -1,
    each seat's gesture as this player saw it (R7.2: own and partner's as
    made, an opponent's only if caught, else ``none``; -1 before that seat's
    turn to gesture), then the public action tokens of the deal in order
    (every player action except gestures; the actor of each follows from the
    rules). Equal keys imply equal legal actions and equal current player.
    Within a match, the key covers the current deal and the scores; earlier
    deals are not in it.

    Args:
        out: ``int8[KEY_SIZE]``, overwritten.
    """
    n = params[P_PLAYERS]
    h = params[P_HAND]
    for i in range(KEY_SIZE):
        out[i] = -1
    out[K_PLAYER] = player
    out[K_DEALER] = state[S_DEALER]
    out[K_SCORE0] = state[S_SCORE0]
    out[K_SCORE1] = state[S_SCORE0 + 1]
    _sorted_hand(state, player, h, out, K_HAND)
    partner = (player + 2) % n
    if state[S_SHARED] == 1 and team_of(params, player) == state[S_R6TEAM]:  # R6.1
        _sorted_hand(state, partner, h, out, K_PARTNER)
    elif state[S_REDEAL] == 2:  # F2.3: the player's own hand thrown in (perfect recall)
        _sorted_cards(state, S_FIRSTHAND + player * MAX_HAND, h, out, K_PARTNER)
    elif params[P_PARTNERS] == 1:  # P6.2, P6.3: the active player's card received, laid away
        t = team_of(params, player)
        if state[S_ACTIVE + t] == player:
            out[K_PARTNER] = state[S_GOT + t]
            out[K_PARTNER + 1] = state[S_DISC + t]
    for s in range(n):
        g = state[S_GEST + s]
        if g < 0:
            out[K_GEST + s] = -1
        elif team_of(params, s) == team_of(params, player):
            out[K_GEST + s] = g
        elif state[S_SEEN + player * MAX_PLAYERS + s] == 1:
            out[K_GEST + s] = g
        else:
            out[K_GEST + s] = 0
    ntok = min(state[S_NTOK], MAX_TOKENS)
    out[K_NTOK] = ntok
    for i in range(ntok):
        out[K_TOK + i] = state[S_TOK + i]


# public observation, int16[OBS_SIZE]
O_PHASE = 0
O_DEALER = 1
O_SCORE0 = 2
O_SCORE1 = 3
O_STAKE = 4
O_LASTRAISE = 5
O_ANSWER = 6  # seat a raise waits on, -1 = none
O_LEADER = 7
O_NPLAYED = 8
O_BEST = 9
O_TRICK = 10  # MAX_PLAYERS slots
O_NTRICKS = O_TRICK + MAX_PLAYERS
O_TRES = O_NTRICKS + 1  # MAX_HAND slots
O_PLAYED = O_TRES + MAX_HAND  # 8 slots (ranks 0..7; the rest at O_PLAYED_HI)
O_HELD_COUNT = O_PLAYED + 8  # cards left per seat, MAX_PLAYERS slots
O_R6MODE = O_HELD_COUNT + MAX_PLAYERS
O_PLAYED_HI = O_R6MODE + 1  # family decks: copies played of ranks 8 .. MAX_RANKS-1
O_GAMES = O_PLAYED_HI + MAX_RANKS - 8  # games won per team (G4.1), 2 slots
OBS_SIZE = O_GAMES + 2


@jit
def public_observation(params, state, out):
    """Markov public observation, ``int16[OBS_SIZE]``: phase, dealer, scores,
    stake (ladder index), team of the latest raise, seat whose answer a raise
    awaits, trick leader and cards, completed trick results, copies played per
    rank, cards left per seat, one-from-end mode, then (family) copies played of
    ranks 8.., games won per team. -1 = none / not yet.
    """
    n = params[P_PLAYERS]
    for i in range(OBS_SIZE):
        out[i] = -1
    out[O_PHASE] = state[S_PHASE]
    out[O_DEALER] = state[S_DEALER]
    out[O_SCORE0] = state[S_SCORE0]
    out[O_SCORE1] = state[S_SCORE0 + 1]
    out[O_STAKE] = state[S_STAKE]
    out[O_LASTRAISE] = state[S_LASTRAISE]
    ans = state[S_ANSWER_SEAT]
    if state[S_EXCH_ANSWER] >= 0 and state[S_PHASE] == PH_ANSWER:
        ans = state[S_EXCH_ANSWER]
    out[O_ANSWER] = ans
    out[O_LEADER] = state[S_LEADER]
    out[O_NPLAYED] = state[S_NPLAYED]
    out[O_BEST] = state[S_BEST]
    for k in range(state[S_NPLAYED]):
        out[O_TRICK + k] = state[S_TRICK + k]
    out[O_NTRICKS] = state[S_NTRICKS]
    for t in range(state[S_NTRICKS]):
        out[O_TRES + t] = state[S_TRES + t]
    for r in range(8):
        out[O_PLAYED + r] = state[S_PLAYED + r]
    for r in range(8, MAX_RANKS):
        out[O_PLAYED_HI + r - 8] = state[S_PLAYED + r]
    out[O_GAMES] = state[S_GAMES]
    out[O_GAMES + 1] = state[S_GAMES + 1]
    for s in range(n):
        c = 0
        if state[S_OUT + s] == 0:  # P7.4: a folded player's cards are out of play
            for r in range(MAX_RANKS):
                c += state[S_HELD + s * MAX_RANKS + r]
        out[O_HELD_COUNT + s] = c
    out[O_R6MODE] = state[S_R6MODE]
