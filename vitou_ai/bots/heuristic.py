"""A family of parameterised heuristic bots, jitted.

One function, :func:`heuristic_action`, plays every decision of the game
(card turns, raises and answers, R6 decisions, gestures, the 2p blind window
and abandon) from a ``float64[N_HP]`` parameter vector. The vector is built by
:class:`HeuristicParams`; the named bots of :mod:`vitou_ai.bots.named` are
points of this family.

Information discipline: the bot reads only what its player knows, i.e. what
:func:`vitou_ai.rules.observe.infostate_key` holds: its own held cards, the
partner's cards when R6.1 shares them, the public state of the deal (cards on
the table, trick results, copies played per rank in ``S_PLAYED``, stake,
raises), and the gestures as this player saw them (R7.2). It never reads
another seat's hand. ``tests/test_bots.py`` checks this: equal information
states get equal actions.

The decisions rest on one number, :func:`strength`: a rough estimate of the
probability that the player's team wins the deal (plus half the probability
that nobody does). It is a model, not a rule: the R3.1 result of each
enumerated trick sequence is read from the kernel's ``tables.DEAL_DECIDED``,
and the chances of single tricks come from hypergeometric counts of the
unseen cards (below), treating tricks as independent.

One module because :func:`heuristic_action` and its jitted helpers are one family:
:func:`strength` (most of the file) feeds every decision, the helpers are private to it,
and :class:`HeuristicParams` names the slots of the vector they all read.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .._numba import jit
from ..rng import next_below, next_float
from ..rules import layout as L
from ..rules.params import (
    P_COPIES,
    P_DEAL_RULE,
    P_HAND,
    P_PARTNERS,
    P_PLAYERS,
    P_RANKS,
    P_WILL,
)
from ..rules.tables import DEAL_DECIDED, DEAL_DECIDED_RULES, RULE_PUT

# ---- parameter vector ----------------------------------------------------------------------------
HP_RAISE_AT = 0
HP_RERAISE_AT = 1
HP_REFUSE_BELOW = 2
HP_BLUFF = 3
HP_LEAD_HIGH = 4
HP_SAVE_TOP = 5
HP_TO_PARTNER = 6
HP_TIE_TO_VOID = 7
HP_COUNT = 8
HP_SIGNAL_RATE = 9
HP_HONESTY = 10
HP_TRUST = 11
HP_GO_AT = 12
HP_GO_ROUND_AT = 13
HP_BLIND_RAISE = 14
HP_ABANDON_BELOW = 15
HP_AGREE_BELOW = 16
HP_EPSILON = 17
N_HP = 18


@dataclass(frozen=True)
class HeuristicParams:
    """Knobs of the heuristic bot family. Every field is in [0, 1].

    Thresholds compare with :func:`strength` (an estimated probability that
    the player's team wins the deal); rates are probabilities per decision.

    Attributes:
        raise_at: raise (R4.2, R9.2) when strength >= this.
        reraise_at: answering a raise, re-raise when strength >= this.
        refuse_below: answering a raise, refuse when strength < this (R4.3).
        bluff: probability of raising anyway below ``raise_at`` at a raise
            opportunity, and of re-raising below ``reraise_at`` when not refusing.
        lead_high: probability of leading the top card (else the lowest card).
        save_top: following and able to win the trick, probability of winning
            with the cheapest card that beats the table (else the top card).
        to_partner: probability of playing low under the partner's winning card
            instead of treating the trick as open (tying it would void it, R2.3).
        tie_to_void: unable to beat the opponents' card, probability of tying it
            to void the trick (R2.3) when a tying card is held.
        count: 1 = count played cards (the public ``S_PLAYED`` counts) when
            estimating strength; 0 = only one's own cards are taken out.
        signal_rate: with ``signals`` on (R7), probability of making a gesture.
        honesty: probability that a gesture is true (ten / nine / ace for the
            best of T, 9, A held, else nohigh); otherwise a false one.
        trust: weight given to the partner's gesture in the strength estimate.
        go_at: R6.1 / R9.3, say ``go`` when strength >= this (else decline).
        go_round_at: R6.2 round, say ``go`` when strength >= this (else pass).
        blind_raise: 2p blind window (R9.2), probability of raising unseen.
        abandon_below: 2p, abandon (R9.2) when strength < this.
        agree_below: 2p, agree to an abandon when strength < this.
        epsilon: probability of a uniformly random legal action instead.

    Raises:
        ValueError: a field outside [0, 1] or not a number.
    """

    raise_at: float = 0.65
    reraise_at: float = 0.8
    refuse_below: float = 0.3
    bluff: float = 0.0
    lead_high: float = 0.5
    save_top: float = 1.0
    to_partner: float = 1.0
    tie_to_void: float = 0.5
    count: float = 1.0
    signal_rate: float = 1.0
    honesty: float = 1.0
    trust: float = 1.0
    go_at: float = 0.5
    go_round_at: float = 0.5
    blind_raise: float = 0.0
    abandon_below: float = 0.0
    agree_below: float = 0.3
    epsilon: float = 0.0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, int | float | np.floating | np.integer):
                raise ValueError(f"heuristic parameter {f.name} must be a number, got {v!r}")
            if not 0.0 <= float(v) <= 1.0:
                raise ValueError(f"heuristic parameter {f.name} must be in [0, 1], got {v}")

    def replace(self, **changes: float) -> HeuristicParams:
        """A copy with some fields changed (validated again).

        Raises:
            ValueError: an unknown field name or a bad value.
        """
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ValueError(f"unknown heuristic parameter(s) {unknown}; known: {sorted(names)}")
        return dataclasses.replace(self, **changes)

    def to_array(self) -> np.ndarray:
        """``float64[N_HP]``, indexed by the ``HP_*`` constants (field order)."""
        return np.array([float(getattr(self, f.name)) for f in dataclasses.fields(self)],
                        dtype=np.float64)


assert len(dataclasses.fields(HeuristicParams)) == N_HP

# ---- small helpers ---------------------------------------------------------------------------------


@jit
def _comb(n, k):
    if k < 0 or n < 0 or k > n:
        return 0.0
    r = 1.0
    for i in range(k):
        r = r * (n - i) / (i + 1)
    return r


@jit
def _hyp_below(pop, succ, draws, j):
    """P(X < j) for X ~ Hypergeometric(pop, succ, draws): fewer than ``j`` of
    ``draws`` cards drawn from ``pop`` unseen cards are among ``succ`` ones."""
    if draws > pop:
        draws = pop
    if draws <= 0 or succ <= 0:
        return 1.0 if j >= 1 else 0.0
    total = _comb(pop, draws)
    s = 0.0
    top = min(j - 1, draws)
    for x in range(top + 1):
        s += _comb(succ, x) * _comb(pop - succ, draws - x)
    p = s / total
    return 1.0 if p > 1.0 else p


@jit
def _has(legal, n_legal, action):
    for i in range(n_legal):
        if legal[i] == action:
            return True
    return False


@jit
def _cards_left(params, state, seat):
    """Cards ``seat`` still holds: public (hand size minus cards played). Partnership Put
    (docs/RULES_family.md P6): a partner who handed the hand over holds none."""
    n = params[P_PLAYERS]
    if params[P_PARTNERS] == 1:
        active = state[L.S_ACTIVE + seat % 2]
        if active >= 0 and active != seat:
            return 0
    left = params[P_HAND] - state[L.S_NTRICKS]
    if (seat - state[L.S_LEADER]) % n < state[L.S_NPLAYED]:
        left -= 1
    return left


@jit
def _at_or_above(u, rank):
    """Unseen cards of rank index <= ``rank`` (as high or higher)."""
    g = 0
    for r in range(rank + 1):
        g += u[r]
    return g


# ---- strength ----------------------------------------------------------------------------------


@jit
def strength(hp, params, state, player, iwork):
    """Estimated P(the player's team wins the deal) + P(nobody) / 2, in [0, 1].

    Model (approximate; public and own information only). The *unseen*
    cards are the deck minus the player's held cards, minus the partner's
    when shared (R6.1) and, if ``hp[HP_COUNT]``, minus the copies played this
    deal (``S_PLAYED``). The current trick is scored from the cards on the
    table and the card the player would put on it. For each later trick ``j``
    the team's j-th best card (own cards, the partner's when shared, else
    the partner's cards drawn from the unseen ones — constrained by the
    partner's gesture with weight ``hp[HP_TRUST]``, R7) is compared with the
    opponents' cards, also drawn from the unseen ones (hypergeometric): the
    trick is won if they hold fewer than ``j`` cards as high or higher, void
    if only ties stop it, lost otherwise. Tricks are independent; the deal
    result of every sequence is R3.1, read from ``DEAL_DECIDED``. Before the
    deal (2p blind window) the strength is 0.5.

    Args:
        iwork: ``int64`` scratch of at least 32 slots.
    """
    n = params[P_PLAYERS]
    h = params[P_HAND]
    nr = params[P_RANKS]
    copies = params[P_COPIES]
    if state[L.S_NDEALT] < n * h:
        return 0.5
    team = player % 2
    partner = (player + 2) % n if n == 4 else -1
    shared = partner >= 0 and state[L.S_SHARED] == 1 and state[L.S_R6TEAM] == team
    count = hp[HP_COUNT] >= 0.5
    u = iwork[0:L.MAX_RANKS]
    mine = iwork[13:17]  # own held ranks, best first
    pcards = iwork[17:21]  # partner's held ranks when shared, best first
    nmine = 0
    npc = 0
    pop = 0
    for r in range(L.MAX_RANKS):
        if r >= nr:
            u[r] = 0
            continue
        c = state[L.S_HELD + player * L.MAX_RANKS + r]
        x = copies - c
        for _ in range(c):
            if nmine < 4:
                mine[nmine] = r
                nmine += 1
        if shared:
            pcount = state[L.S_HELD + partner * L.MAX_RANKS + r]
            x -= pcount
            for _ in range(pcount):
                if npc < 4:
                    pcards[npc] = r
                    npc += 1
        if count:
            x -= state[L.S_PLAYED + r]
        if x < 0:
            x = 0
        u[r] = x
        pop += x
    ntr = state[L.S_NTRICKS]
    nplayed = state[L.S_NPLAYED]
    leader = state[L.S_LEADER]
    k_opp = 0
    for s in range(n):
        if s % 2 != team:
            k_opp += _cards_left(params, state, s)
    # ---- the current trick, if begun
    p_cur_win = 0.0
    p_cur_void = 0.0
    cur = nplayed > 0
    used = -1  # index in ``mine`` of the card this player will put on the current trick
    partner_later = False
    if cur:
        b = state[L.S_BEST]
        pos_me = (player - leader) % n
        me_played = pos_me < nplayed
        later_start = nplayed if me_played else nplayed + 1
        k_later = 0
        n_later_opp = 0
        for q in range(later_start, n):
            s = (leader + q) % n
            if s % 2 != team:
                k_later += _cards_left(params, state, s)
                n_later_opp += 1
            elif s == partner:
                partner_later = True
        ours = state[L.S_NBEST] == 1 and state[L.S_BESTSEAT] % 2 == team
        if ours:
            p_cur_win = _hyp_below(pop, _at_or_above(u, b), k_later, 1)
            if b > 0:
                p_cur_void = _hyp_below(pop, _at_or_above(u, b - 1), k_later, 1) - p_cur_win
            if not me_played and nmine > 0:
                used = nmine - 1
        else:
            beat = -1
            for i in range(nmine):
                if mine[i] < b:
                    beat = i  # the cheapest card that beats the table
            if not me_played and beat >= 0:
                cb = mine[beat]
                p_cur_win = _hyp_below(pop, _at_or_above(u, cb), k_later, 1)
                if cb > 0:
                    p_cur_void = _hyp_below(pop, _at_or_above(u, cb - 1), k_later, 1) - p_cur_win
                used = beat
            else:
                if partner_later and not shared and b > 0:
                    # the partner may still beat the table: some card above b
                    pb = 1.0 - _hyp_below(pop, _at_or_above(u, b - 1),
                                          _cards_left(params, state, partner), 1)
                    p_cur_win = pb * _hyp_below(pop, _at_or_above(u, b - 1), k_later, 1)
                if b > 0:
                    # void if nobody later beats the table and the best card is (or gets)
                    # tied: certain when already tied, else a rough 0.3 (a tying card)
                    p_cur_void = (1.0 - p_cur_win) * _hyp_below(
                        pop, _at_or_above(u, b - 1), k_later, 1) * (
                        1.0 if state[L.S_NBEST] > 1 else 0.3)
                if not me_played and nmine > 0:
                    used = nmine - 1
        k_opp -= n_later_opp
        if p_cur_void < 0.0:
            p_cur_void = 0.0
        if p_cur_win + p_cur_void > 1.0:
            p_cur_void = 1.0 - p_cur_win
    m_f = h - ntr - (1 if cur else 0)
    # ---- future tricks j = 1 .. m_f (pooled order statistics, see the docstring)
    known = iwork[21:29]  # the team's known cards after the current trick
    nk = 0
    for i in range(nmine):
        if i != used:
            known[nk] = mine[i]
            nk += 1
    if shared:
        drop = npc - 1 if partner_later else -1  # the shared partner's lowest card goes now
        for i in range(npc):
            if i != drop:
                known[nk] = pcards[i]
                nk += 1
    m_p = 0
    sig = -1  # the partner's gesture (R7), as a constraint on an unknown partner's cards
    if partner >= 0 and not shared:
        m_p = _cards_left(params, state, partner) - (1 if partner_later else 0)
        if m_p < 0:
            m_p = 0
        partner_unplayed = (partner - leader) % n >= nplayed
        if ntr == 0 and partner_unplayed and hp[HP_TRUST] > 0.0:
            g = state[L.S_GEST + partner]
            if g >= 1:
                sig = g
    w0 = 0.0
    w1 = 0.0
    w2 = 0.0
    v0 = 0.0
    v1 = 0.0
    v2 = 0.0
    g2 = _at_or_above(u, 2) if nr > 2 else pop
    for j in range(m_f):
        win_j = 0.0
        not_lose_j = 0.0
        prev = 0.0
        for r in range(nr):
            g_r = _at_or_above(u, r)
            kle = 0
            for i in range(nk):
                if known[i] <= r:
                    kle += 1
            need = j + 1 - kle
            # F = P(the team's (j+1)-th best card is at rank index <= r)
            if need <= 0:
                f = 1.0
            elif m_p == 0:
                f = 0.0
            else:
                f = 1.0 - _hyp_below(pop, g_r, m_p, need)
                if sig >= 0:
                    if sig <= 3:  # a ten, nine or ace, and m_p - 1 unknown cards
                        need_s = need - (1 if sig - 1 <= r else 0)
                        if need_s <= 0:
                            fs = 1.0
                        else:
                            fs = 1.0 - _hyp_below(pop, g_r, m_p - 1, need_s)
                    else:  # nohigh: m_p cards below the ace
                        fs = 1.0 - _hyp_below(pop - g2, g_r - g2 if g_r > g2 else 0, m_p, need)
                    t = hp[HP_TRUST]
                    f = (1.0 - t) * f + t * fs
            pr = f - prev
            prev = f
            if pr > 0.0:
                win_j += pr * _hyp_below(pop, g_r, k_opp, j + 1)
                if r > 0:
                    not_lose_j += pr * _hyp_below(pop, _at_or_above(u, r - 1), k_opp, j + 1)
                else:
                    not_lose_j += pr
        void_j = not_lose_j - win_j
        if void_j < 0.0:
            void_j = 0.0
        if j == 0:
            w0, v0 = win_j, void_j
        elif j == 1:
            w1, v1 = win_j, void_j
        else:
            w2, v2 = win_j, void_j
    # ---- enumerate the results (win / void / loss per trick): R3.1 from the kernel's table
    code0 = state[L.S_TCODE]
    win = 0.0
    nobody = 0.0
    ncur = 3 if cur else 1
    n_fut = 1
    for _ in range(m_f):
        n_fut *= 3
    for cres in range(ncur):
        if cur:
            if cres == 0:
                pc = p_cur_win
                rc = team
            elif cres == 1:
                pc = p_cur_void
                rc = L.RES_VOID
            else:
                pc = 1.0 - p_cur_win - p_cur_void
                rc = 1 - team
            if pc <= 0.0:
                continue
            base = code0 * 3 + rc
        else:
            pc = 1.0
            base = code0
        for combo in range(n_fut):
            prob = pc
            code = base
            x = combo
            scale = n_fut // 3
            for jj in range(m_f):
                o = (x // scale) % 3 if scale > 0 else 0
                scale //= 3
                wj = w0 if jj == 0 else (w1 if jj == 1 else w2)
                vj = v0 if jj == 0 else (v1 if jj == 1 else v2)
                if o == 0:
                    prob *= wj
                    code = code * 3 + team
                elif o == 1:
                    prob *= vj
                    code = code * 3 + L.RES_VOID
                else:
                    prob *= 1.0 - wj - vj
                    code = code * 3 + (1 - team)
            if prob <= 0.0:
                continue
            d = _deal_result(params, state, h, code)
            if d == team:
                win += prob
            elif d == 2:
                nobody += prob
    s = win + 0.5 * nobody
    if s < 0.0:
        return 0.0
    if s > 1.0:
        return 1.0
    return s


@jit
def _deal_result(params, state, h, code):
    """R3.1, or the family's G2 rule (docs/RULES_family.md), on ``h`` complete results."""
    rule = params[P_DEAL_RULE]
    if rule == 0:
        return DEAL_DECIDED[h, h, code]
    row = RULE_PUT if rule == 2 else 1 + (state[L.S_DEALER] + 1) % params[P_PLAYERS] % 2
    return DEAL_DECIDED_RULES[row, h, h, code]


# ---- decisions ----------------------------------------------------------------------------------


@jit
def _choose_card(hp, params, state, player, rng, legal, n_legal, iwork):
    """A card for the card turn (R2.1): the legal plays are the held ranks,
    best first (rank index 0 is the highest; the family's ranks 8.. have play ids
    ``A_PLAY_HI0 + r - 8``, after the other actions). Returns a play action id."""
    plays = iwork[29:32]  # the held ranks, best first (at most 3 distinct)
    nplays = 0
    for i in range(n_legal):
        a = legal[i]
        if a < L.A_RAISE:
            plays[nplays] = a
            nplays += 1
        elif L.A_PLAY_HI0 <= a < L.A_CONCEDE:
            plays[nplays] = a - L.A_PLAY_HI0 + 8
            nplays += 1
    r = _pick_rank(hp, params, state, player, rng, plays, nplays)
    return r if r < 8 else L.A_PLAY_HI0 + r - 8


@jit
def _pick_rank(hp, params, state, player, rng, legal, nplays):
    top = legal[0]
    low = legal[nplays - 1]
    n = params[P_PLAYERS]
    nplayed = state[L.S_NPLAYED]
    if nplayed == 0:  # leading
        if hp[HP_COUNT] >= 0.5:
            # a card nothing unseen can beat or tie wins the trick: lead it
            u_ge = 0
            copies = params[P_COPIES]
            for r in range(top + 1):
                x = copies - state[L.S_HELD + player * L.MAX_RANKS + r] - state[L.S_PLAYED + r]
                if x > 0:
                    u_ge += x
            if u_ge == 0:
                return top
        if next_float(rng) < hp[HP_LEAD_HIGH]:
            return top
        return low
    b = state[L.S_BEST]
    team = player % 2
    ours = n == 4 and state[L.S_NBEST] == 1 and state[L.S_BESTSEAT] % 2 == team
    if ours and next_float(rng) < hp[HP_TO_PARTNER]:
        for i in range(nplays - 1, -1, -1):  # lowest card that does not tie the partner's
            if legal[i] != b:
                return legal[i]
        return low
    beat = -1
    for i in range(nplays):
        if legal[i] < b:
            beat = legal[i]  # ends on the cheapest card that beats the table
    if beat >= 0:
        last = nplayed == n - 1
        if last or next_float(rng) < hp[HP_SAVE_TOP]:
            return beat
        return top
    if not ours and state[L.S_NBEST] == 1:
        for i in range(nplays):
            if legal[i] == b and next_float(rng) < hp[HP_TIE_TO_VOID]:
                return b
    return low


@jit
def _honest_gesture(params, state, player):
    base = L.S_HELD + player * L.MAX_RANKS
    for r in range(3):
        if r < params[P_RANKS] and state[base + r] > 0:
            return 1 + r  # ten, nine, ace (R7)
    return 4  # nohigh


@jit
def heuristic_action(hp, params, state, player, rng, legal, n_legal, iwork):
    """The heuristic bot's action at a decision node of ``player``.

    Args:
        hp: ``float64[N_HP]`` from :meth:`HeuristicParams.to_array`.
        params: ``int64[N_PARAMS]``; state: ``int32[STATE_SIZE]``.
        rng: the row's decision stream (``uint64[1]``).
        legal, n_legal: the legal actions from ``kernel.legal_actions``.
        iwork: ``int64`` scratch, at least 32 slots.

    Returns:
        One of ``legal[:n_legal]``.
    """
    if hp[HP_EPSILON] > 0.0 and next_float(rng) < hp[HP_EPSILON]:
        return legal[next_below(rng, n_legal)]
    if params[P_WILL] == 1:  # each for themselves: no team strength model
        return willughby_action(hp, params, state, player, rng, legal, n_legal)
    ph = state[L.S_PHASE]
    if ph == L.PH_SIGNAL:  # R7.1
        if next_float(rng) >= hp[HP_SIGNAL_RATE]:
            return L.A_SIGNAL0
        g = _honest_gesture(params, state, player)
        if next_float(rng) >= hp[HP_HONESTY]:
            k = next_below(rng, 3)  # one of the three other gestures
            g = 1 + k if 1 + k < g else 2 + k
        return L.A_SIGNAL0 + g
    if ph == L.PH_BLIND:  # R9.2, cards unseen
        return L.A_RAISE if next_float(rng) < hp[HP_BLIND_RAISE] else L.A_PASS
    s = strength(hp, params, state, player, iwork)
    if ph == L.PH_ONE_FROM_END:  # R6.1, R6.2, R9.3
        if _has(legal, n_legal, L.A_DECLINE):
            return L.A_GO if s >= hp[HP_GO_AT] else L.A_DECLINE
        return L.A_GO if s >= hp[HP_GO_ROUND_AT] else L.A_PASS
    if ph == L.PH_ABANDON:
        return L.A_AGREE if s < hp[HP_AGREE_BELOW] else L.A_REJECT
    # the Truc / Put family (docs/RULES_family.md): fresh deal (F2), Put's decision (P5.3)
    if ph == L.PH_REDEAL:
        return L.A_REDEAL if s < hp[HP_ABANDON_BELOW] else L.A_KEEP
    if ph == L.PH_REDEAL_ANSWER:
        return L.A_AGREE if s < hp[HP_AGREE_BELOW] else L.A_REJECT
    if ph == L.PH_DECIDE:
        if s >= hp[HP_RAISE_AT] or next_float(rng) < hp[HP_BLUFF]:
            return L.A_RAISE
        return L.A_CONCEDE
    if ph == L.PH_CHOOSE:  # P6.1: play the hand oneself if it is good enough to go on with
        return L.A_TAKE if s >= hp[HP_GO_AT] else L.A_GIVE
    if ph == L.PH_DISCARD:  # P6.3: lay away the lowest card (the highest rank index)
        return legal[n_legal - 1]
    can_raise = _has(legal, n_legal, L.A_RAISE)
    if ph == L.PH_ANSWER or _has(legal, n_legal, L.A_REFUSE):  # R4.3, R9.2
        if can_raise and (s >= hp[HP_RERAISE_AT] or (s >= hp[HP_REFUSE_BELOW]
                                                     and next_float(rng) < hp[HP_BLUFF])):
            return L.A_RAISE
        if s < hp[HP_REFUSE_BELOW]:
            return L.A_REFUSE
        if ph == L.PH_ANSWER:
            return L.A_ACCEPT
        return _choose_card(hp, params, state, player, rng, legal, n_legal, iwork)
    if ph == L.PH_PLAY:
        if _has(legal, n_legal, L.A_ABANDON) and s < hp[HP_ABANDON_BELOW]:
            return L.A_ABANDON
        if _has(legal, n_legal, L.A_CONCEDE) and s < hp[HP_ABANDON_BELOW]:  # Put P5
            return L.A_CONCEDE
        if _has(legal, n_legal, L.A_REST) and s >= hp[HP_RERAISE_AT]:  # F3.3
            return L.A_REST
        if can_raise and (s >= hp[HP_RAISE_AT] or next_float(rng) < hp[HP_BLUFF]):
            return L.A_RAISE
        return _choose_card(hp, params, state, player, rng, legal, n_legal, iwork)
    return legal[next_below(rng, n_legal)]  # not reached: every phase is handled above


# ---- Willughby's Put (docs/RULES_family.md P7): a simple rule, each for themselves ----------


@jit
def _top_cards(params, state, player):
    """Cards the player holds among the deck's top quarter of ranks (at least the top
    rank): in the full deck ``3 2 A``."""
    top = max(1, params[P_RANKS] // 4)
    base = L.S_HELD + player * L.MAX_RANKS
    c = 0
    for r in range(top):
        c += state[base + r]
    return c


@jit
def willughby_action(hp, params, state, player, rng, legal, n_legal):
    """The heuristic bot in Willughby's Put (P7). See / put (P7.3, P7.4): with two or
    more top cards (:func:`_top_cards`), or one top card and a trick won already; else
    fold, or put anyway as a bluff with probability ``bluff``. Cards (P7.1): lead the
    best card; follow with the cheapest card that beats the table, else the lowest."""
    ph = state[L.S_PHASE]
    tops = _top_cards(params, state, player)
    good = tops >= 2 or (tops >= 1 and state[L.S_WTRICKS + player] >= 1)
    if ph == L.PH_SEE:
        return L.A_SEE if good else L.A_FOLD
    if _has(legal, n_legal, L.A_RAISE) and (good or next_float(rng) < hp[HP_BLUFF]):
        return L.A_RAISE
    best = -1  # the legal plays are ascending ids: ranks 0..7, then ranks 8.. (A_PLAY_HI0)
    low = -1
    beat = -1
    b = state[L.S_BEST]
    for i in range(n_legal):
        a = legal[i]
        if a < L.A_RAISE:
            r = a
        elif L.A_PLAY_HI0 <= a < L.A_CONCEDE:
            r = a - L.A_PLAY_HI0 + 8
        else:
            continue
        if best < 0:
            best = r
        low = r
        if b >= 0 and r < b:
            beat = r  # ends on the cheapest card that beats the table
    if state[L.S_NPLAYED] == 0:
        r = best
    elif beat >= 0:
        r = beat
    else:
        r = low
    return r if r < 8 else L.A_PLAY_HI0 + r - 8
