"""Local best response (LBR): a lower bound on a policy's exploitability, for teams.

Lisý & Bowling (2017), "Equilibrium approximation quality of current no-limit
poker bots" (AAAI workshop; arXiv:1612.07547), adapted to Vitou's two teams
and to every profile of the kernel (Vitou, Truc, Trut, Put). The *exploiting*
team's seats play against the evaluated policy; each seat ``p``, at each of
its decisions with a choice, takes the action of highest estimated value,
where

- the value of an action is an expectation over *worlds*: complete game
  states that agree with everything ``p`` has observed (its information
  state, :func:`vitou_ai.rules.observe.infostate_key`), sampled as described
  below and weighted by Bayes on every action the other seats took so far in
  the deal, as if played by the evaluated policy (likelihood
  ``max(pi(a | I), EPS)``; the partner's earlier actions are LBR actions,
  treated like the policy's: the weights only steer the choice, the bound
  stays valid);
- after the action, every seat plays the *rollout policy* (the evaluated
  policy itself) to the end of the deal, one rollout per sampled world, with
  the same random stream for every action (common random numbers);
- the best action is chosen on ``samples`` worlds; the seat takes it only
  when its gain over the policy's own mixed action (per world: the rollout
  value after it minus the policy-weighted values after the policy's actions)
  exceeds ``Z_DEVIATE`` standard errors on ``samples`` *fresh* worlds, and
  again on ``samples`` more; otherwise it plays the policy. A gain estimated
  on the worlds that chose the action is biased up (the winner's curse), and
  per-world gains are skewed (a small gain in most worlds, a large loss in a
  few), so one small sample that misses the few looks like a sure gain. The
  earlier guard, tested on the choosing worlds, made the response lose
  points: on ``vitou_2p`` 4 x 2 x 1 with a DCFR policy of exact
  exploitability 0.0004, -0.020 [-0.032, -0.008] at 16 worlds and -0.26 at 4
  (16,000 deals); with the two fresh tests, +0.009 [-0.002, +0.020] and
  -0.025 (docs/guide/evaluation.md). Every deviation's expected gain is then
  its true gain times the chance it passes, so a response of a
  near-equilibrium policy stays near 0 (below 8 worlds a skewed sample still
  passes too often), and the bound stays a lower bound either way. This
  departs from Lisý & Bowling, whose LBR values each action exactly over the
  opponent's range and takes the argmax.

A world is built by replaying the deal from the initial state through the
kernel, node by node, in the order the kernel puts them (``PH_*`` phases):
the dealer draw (public), the R9.2 blind window of two-player Vitou (before
the cards), each deal where the kernel deals it (the first deal, and a French
Truc fresh deal F2.3), R6 / C5 one-from-end decisions, R7 gestures and their
catches, Put's P5 decisions, raises, answers and cards. Every player action is
replayed as taken (the public tokens, and the gestures ``p`` saw) except an
opponent's gesture that ``p`` did not catch; every chance outcome ``p`` did
not observe is drawn again:

- cards: each other seat keeps the cards it has played (public) and draws the
  rest of its hand uniformly from the cards ``p`` has not seen (the deck minus
  ``p``'s hands, the partner's hand when R6.1 shares it, and every card
  played); after a fresh deal the thrown-in hands of the other seats (thrown
  in unseen, F2.3; ``p`` keeps only its own in its key) are drawn from the
  same pool, and the proposal and answers made on them weigh the world. A
  world's weight includes the card-removal factor that makes the draw the
  prior on hands as multisets (``prod_r rho_r! / (m_r + rho_r)!`` per seat,
  ``m_r`` copies of rank ``r`` played, ``rho_r`` drawn);
- gestures (R7.2): an opponent's gesture that ``p`` caught is replayed, and
  ``p``'s catch with it (weight ``signal_seen``); one it did not catch (it saw
  ``none``) is drawn from the policy in the world, and if it is not ``none``,
  ``p``'s catch is set to missed (weight ``1 - signal_seen``). The catches
  that ``p`` does not observe (of its own and its partner's gestures, its
  partner's catch of an opponent's) are drawn from their chance
  probabilities.

Each replayed world is checked against ``p``'s information-state key; a
mismatch (which would mean ``p`` read something it did not observe) stops the
evaluation with an error rather than return a number.
LBR's own random draws (worlds, rollouts, its mixed actions) come from a
stream of their own, apart from the game's chance and the policy's play.

Each deal is played twice on the same cards (the same first deal and, if
taken, fresh deal), each team exploiting once, with the dealer rotated over
the seats. The LBR value is the exploiting team's mean points per deal
(R8.1): in this symmetric game a policy's exploitability (the mean of the two
teams' best-response values against it, OpenSpiel's NashConv / players for
two players) is at least that, up to the sampling error given by the 95%
interval (pairs of deals as units).

Action probabilities of the evaluated policy: exact for uniform random play,
tabular and abstract policies (at known keys); for heuristic and neural bots
(and the heuristic fallback of a table), estimated from ``HEUR_DRAWS`` draws
of the bot.

Cost: ``samples`` rollouts per legal action to choose, and where the policy mixes or
differs from the choice, up to ``2 samples`` rollouts per action of the policy's
support (and the chosen one) to test.

Shapes: :func:`local_best_response` returns a :class:`LBRResult` (floats, points
per deal; the interval NaN below 30 deals, :mod:`vitou_ai.eval.stats`);
:func:`sample_worlds` returns ``int32[samples, STATE_SIZE]`` world states and
``float64[samples]`` weights, for inspection and tests.

Errors (``ValueError``, one line): match mode (LBR is defined on single deals),
``deals < 2`` or ``samples < MIN_SAMPLES`` (8: fewer worlds let the deviation tests'
noise pass for gain, and the bound goes below 0), a deal longer than ``MAX_HIST`` nodes, a world
that leaves the deal's sequence of nodes or differs from the player's
information state (guards: neither happens with the kernel's phases), and
(:func:`sample_worlds`) a history that is not a legal deal of the game ending at
a decision of the given seat.

One module because the deal player, the world sampler and the action choice are
jitted functions that call each other on shared scratch buffers inside one
``prange`` loop; split, each would need the others' buffer layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from .._numba import jit, jit_parallel
from ..bots.policy import (
    IWORK_SIZE,
    KIND_ABSTRACT,
    KIND_RANDOM,
    KIND_TABULAR,
    TM_CAP,
    TM_FALLBACK,
    TM_ROW0,
    TM_SLOT0,
    Policy,
    abstract_row,
    choose_action,
    policy_pack,
)
from ..bots.tabular import lookup
from ..capabilities import require
from ..rng import UINT64_MAX, check_seed, next_below, next_u64, row_seed
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.observe import infostate_key
from ..rules.params import (
    P_COPIES,
    P_HAND,
    P_PLAYERS,
    P_RANKS,
    P_SEEN_PPB,
    PPB,
    VitouParams,
)
from ..sim.batch import deal_seed, draw_hands
from ..sim.random_play import sample_chance
from .stats import format_interval, interval_note, ratio_interval

EPS = 1e-3
Z_DEVIATE = 0.5  # standard errors of estimated gain, on each of two fresh samples, to deviate
#: fewest sampled worlds per LBR decision :func:`local_best_response` takes: below it the
#: two deviation tests' noise passes for gain, and a near-Nash policy (exploitability 1e-5)
#: comes out significantly below 0 (1 world: -0.315 [-0.404, -0.226]; 4 worlds:
#: -0.015 [-0.027, -0.003], vitou_2p 4x2x1; docs/guide/evaluation.md).
MIN_SAMPLES = 8
HEUR_DRAWS = 8
MAX_HIST = 160  # nodes of one deal: chance outcomes (every card dealt) and actions

_GAME_SALT = np.uint64(0x5851F42D4C957F2D)
_LBR_SALT = np.uint64(0x2545F4914F6CDD1D)

# status codes (jitted code reports them, Python raises: an exception raised in a
# prange loop reaches the caller as a SystemError)
_OK, _BAD_HISTORY, _NOT_DECISION, _TOO_LONG, _DIVERGED, _NOT_ITS_KEY = 0, 1, 2, 3, 4, 5
_MESSAGES = {
    _BAD_HISTORY: "the history is not a legal deal of this game",
    _TOO_LONG: f"a deal longer than MAX_HIST = {MAX_HIST} nodes",
    _DIVERGED: "a world's replay left the deal's sequence of nodes (a bug)",
    _NOT_ITS_KEY: "a sampled world differs from the player's information state (a bug)",
}


@jit
def action_prob(pack, pi, params, state, player, legal, n_legal, a, rng, keybuf, iwork):
    """Probability that policy ``pi`` takes ``a`` (exact, or estimated: module docstring)."""
    kind = pack.kinds[pi]
    if kind == KIND_RANDOM:
        return 1.0 / n_legal
    if kind == KIND_ABSTRACT:
        r = abstract_row(pack, pi, params, state, player, legal, n_legal)
        if r >= 0:
            for i in range(n_legal):
                if legal[i] == a:
                    return pack.abs_probs[r, i]
            return 0.0
    if kind == KIND_TABULAR:  # as bots.policy._tabular_action draws it
        meta = pack.tab_meta
        infostate_key(params, state, player, keybuf)
        row0 = meta[pi, TM_ROW0]
        r = lookup(pack.tab_slots, meta[pi, TM_SLOT0], meta[pi, TM_CAP], pack.tab_keys, row0,
                   keybuf)
        if r >= 0:
            total = 0.0
            for i in range(n_legal):
                total += pack.tab_probs[row0 + r, legal[i]]
            if total > 0.0:
                return pack.tab_probs[row0 + r, a] / total
        if meta[pi, TM_FALLBACK] == KIND_RANDOM:
            return 1.0 / n_legal
    hits = 0
    for _ in range(HEUR_DRAWS):
        if choose_action(pack, pi, params, state, player, rng, legal, n_legal, keybuf, iwork) == a:
            hits += 1
    return hits / HEUR_DRAWS


@jit
def _rollout(params, pack, state, rng, legal, probs, keybuf, iwork, ret):
    while not K.is_terminal(state):
        if K.is_chance(state):
            K.apply_action(params, state, sample_chance(params, state, rng, legal, probs))
            continue
        q = K.current_player(params, state)
        m = K.legal_actions(params, state, legal)
        K.apply_action(params, state, choose_action(pack, 0, params, state, q, rng, legal, m,
                                                    keybuf, iwork))
    K.returns(params, state, ret)


@jit
def _observer(params, state):
    """At a catch (``PH_SEEN``): the opponent whose catch of the gesture is drawn (R7.2)."""
    n = params[P_PLAYERS]
    seat = (state[L.S_DEALER] + 1 + state[L.S_SIGPOS]) % n
    return (seat + 1 + 2 * state[L.S_SIGCH]) % n


@jit
def _record(params, state, a, hist, hph, hq, n_hist):
    """Append node ``a`` at ``state`` to the history: the outcome or action, the phase,
    and the actor (a seat; at a catch its observer; -1 at other chance nodes). Return
    the new length, or -1 when the history is full."""
    if n_hist >= hist.shape[0]:
        return -1
    ph = state[L.S_PHASE]
    hist[n_hist] = a
    hph[n_hist] = ph
    if ph == L.PH_SEEN:
        hq[n_hist] = _observer(params, state)
    elif K.is_chance(state):
        hq[n_hist] = -1
    else:
        hq[n_hist] = K.current_player(params, state)
    return n_hist + 1


@jit
def _card_of(action):
    """Rank played by a card action, or -1 for any other action."""
    if action < L.A_RAISE:
        return action - L.A_PLAY0
    if L.A_PLAY_HI0 <= action < L.A_CONCEDE:
        return action - L.A_PLAY_HI0 + 8
    return -1


@jit
def _draw(rng, pool, total):
    """A card drawn uniformly from ``pool`` (counts per rank, ``total`` cards), removed."""
    j = next_below(rng, total)
    for r in range(L.MAX_RANKS):
        j -= pool[r]
        if j < 0:
            pool[r] -= 1
            return r
    return -1


@jit
def _world_hands(params, state, p, ndeals, hist, hph, hq, n_hist, rng, hands, pool, played):
    """Hands of the ``ndeals`` deals so far in a world for seat ``p`` into
    ``hands[deal, seat]`` (module docstring); return the card-removal weight."""
    n = params[P_PLAYERS]
    h = params[P_HAND]
    cur = ndeals - 1
    shared = n == 4 and state[L.S_SHARED] == 1 and p % 2 == state[L.S_R6TEAM]  # R6.1
    partner = (p + 2) % n
    for r in range(L.MAX_RANKS):
        pool[r] = params[P_COPIES] if r < params[P_RANKS] else 0
    for q in range(n):
        for r in range(L.MAX_RANKS):
            played[q, r] = 0
        if q == p or (shared and q == partner):
            for i in range(h):
                c = state[L.S_HAND + q * L.MAX_HAND + i]
                hands[cur, q, i] = c
                pool[c] -= 1
    if ndeals == 2:  # F2.3: p's own hand thrown in
        for i in range(h):
            c = state[L.S_FIRSTHAND + p * L.MAX_HAND + i]
            hands[0, p, i] = c
            pool[c] -= 1
    # the cards played in the current deal, from the public history
    last = n_hist
    for j in range(n_hist - 1, -1, -1):
        if hph[j] == L.PH_DEAL:
            break
        last = j
    for j in range(last, n_hist):
        if hph[j] == L.PH_PLAY:
            r = _card_of(hist[j])
            if r >= 0:
                played[hq[j], r] += 1
    total = 0
    for q in range(n):
        if q == p or (shared and q == partner):
            continue
        for r in range(L.MAX_RANKS):
            pool[r] -= played[q, r]
    for r in range(L.MAX_RANKS):
        total += pool[r]
    w = 1.0
    for q in range(n):
        if q == p or (shared and q == partner):
            continue
        c = 0
        for r in range(L.MAX_RANKS):
            for _ in range(played[q, r]):
                hands[cur, q, c] = r
                c += 1
        while c < h:
            hands[cur, q, c] = _draw(rng, pool, total)
            total -= 1
            c += 1
        for r in range(L.MAX_RANKS):  # hands are multisets: prod_r rho! / (m + rho)!
            m = played[q, r]
            if m > 0:
                rho = -m
                for i in range(h):
                    if hands[cur, q, i] == r:
                        rho += 1
                for k in range(1, m + 1):
                    w /= rho + k
    if ndeals == 2:  # the others' thrown-in hands: unseen (F2.3)
        for q in range(n):
            if q == p:
                continue
            for i in range(h):
                hands[0, q, i] = _draw(rng, pool, total)
                total -= 1
    return w


@jit
def sample_world(params, pack, state, p, hist, hph, hq, n_hist, rng, ws, hands, pool, played,
                 legal, probs, keybuf, keybuf2, iwork):
    """Write into ``ws`` a world for seat ``p`` at ``state``, the deal ``hist`` reached
    (module docstring); return its weight, or ``-status`` if the replay fails."""
    n = params[P_PLAYERS]
    nh = n * params[P_HAND]
    ndeals = 0
    for j in range(n_hist):
        if hph[j] == L.PH_DEAL:
            ndeals += 1
    ndeals //= nh
    w = 1.0
    if ndeals > 0:
        w = _world_hands(params, state, p, ndeals, hist, hph, hq, n_hist, rng, hands, pool,
                         played)
    seen = params[P_SEEN_PPB] / PPB
    K.init_state(params, ws)
    d = 0
    j = 0
    while j < n_hist:
        ph = hph[j]
        if ph == L.PH_DEAL:  # a whole deal, where the kernel deals it
            if ws[L.S_PHASE] != L.PH_DEAL or ws[L.S_NDEALT] != 0 or d >= ndeals:
                return -float(_DIVERGED)
            K.apply_deal(params, ws, hands[d])
            d += 1
            j += nh
            continue
        if ph == L.PH_SIGNAL:  # a gesture and its catches (R7.1, R7.2)
            s = hq[j]
            g = hist[j]
            j += 1
            caught = False
            while j < n_hist and hph[j] == L.PH_SEEN:
                if hq[j] == p and hist[j] == L.C_SEEN:
                    caught = True
                j += 1
            if ws[L.S_PHASE] != L.PH_SIGNAL or K.current_player(params, ws) != s:
                return -float(_DIVERGED)
            m = K.legal_actions(params, ws, legal)
            if s % 2 != p % 2 and not caught:  # p saw "none": the gesture is drawn
                g = choose_action(pack, 0, params, ws, s, rng, legal, m, keybuf, iwork)
            elif s != p:
                pr = action_prob(pack, 0, params, ws, s, legal, m, g, rng, keybuf, iwork)
                w *= pr if pr > EPS else EPS
            K.apply_action(params, ws, g)
            while ws[L.S_PHASE] == L.PH_SEEN:
                if _observer(params, ws) == p:  # p's own catch: as p observed it
                    c = L.C_SEEN if caught else L.C_UNSEEN
                    w *= seen if caught else 1.0 - seen
                else:
                    c = sample_chance(params, ws, rng, legal, probs)
                K.apply_action(params, ws, c)
            continue
        a = hist[j]
        q = hq[j]
        j += 1
        if ws[L.S_PHASE] != ph:
            return -float(_DIVERGED)
        if ph == L.PH_SEEN:
            return -float(_DIVERGED)
        if not K.is_chance(ws):
            if K.current_player(params, ws) != q:
                return -float(_DIVERGED)
            if q != p:
                m = K.legal_actions(params, ws, legal)
                if m > 1:
                    pr = action_prob(pack, 0, params, ws, q, legal, m, a, rng, keybuf, iwork)
                    w *= pr if pr > EPS else EPS
        K.apply_action(params, ws, a)
    # the world must be p's information state: nothing p did not observe was kept
    if K.is_chance(ws) or K.is_terminal(ws) or K.current_player(params, ws) != p:
        return -float(_DIVERGED)
    infostate_key(params, state, p, keybuf2)
    infostate_key(params, ws, p, keybuf)
    for i in range(L.KEY_SIZE):
        if keybuf[i] != keybuf2[i]:
            return -float(_NOT_ITS_KEY)
    return w


@jit
def _gain_passes(params, pack, state, p, hist, hph, hq, n_hist, samples, rng, ws, wstate,
                 legal, m, best, pi_a, legal2, probs, keybuf, keybuf2, iwork, ret, hands,
                 pool, played, rng2, wk, dk):
    """Whether the gain of ``legal[best]`` over the policy's mixed action ``pi_a``,
    estimated on ``samples`` fresh worlds, exceeds ``Z_DEVIATE`` standard errors
    (1 or 0), or ``-status``. The gain of a world is its rollout value after ``best``
    minus the ``pi_a``-weighted values after the policy's actions, on common random
    numbers; the mean and its variance are self-normalised by the world weights,
    the variance with the small-sample factor ``n_eff / (n_eff - 1)`` (Kish's effective
    sample size); a sample without variance passes on a positive gain."""
    wsum = 0.0
    for k in range(samples):
        w = sample_world(params, pack, state, p, hist, hph, hq, n_hist, rng, ws, hands, pool,
                         played, legal2, probs, keybuf, keybuf2, iwork)
        if w < 0.0:
            return np.int64(w)
        seed_k = next_u64(rng)
        d = 0.0
        for ai in range(m):
            if ai != best and pi_a[ai] == 0.0:
                continue
            K.copy_state(ws, wstate)
            K.apply_action(params, wstate, legal[ai])
            rng2[0] = seed_k  # common random numbers across the actions
            _rollout(params, pack, wstate, rng2, legal2, probs, keybuf, iwork, ret)
            if ai == best:
                d += ret[p]
            d -= pi_a[ai] * ret[p]
        wk[k] = w
        dk[k] = d
        wsum += w
    if not wsum > 0.0:
        return 0
    gain = 0.0
    for k in range(samples):
        gain += wk[k] / wsum * dk[k]
    var = 0.0
    sq = 0.0
    for k in range(samples):
        var += (wk[k] / wsum) ** 2 * (dk[k] - gain) ** 2
        sq += (wk[k] / wsum) ** 2
    if sq < 1.0:  # n_eff = 1 / sq > 1
        var *= 1.0 / (1.0 - sq)
    if gain > 0.0 and gain > Z_DEVIATE * np.sqrt(var):
        return 1
    return 0


@jit
def lbr_action(params, pack, state, p, hist, hph, hq, n_hist, samples, rng, ws, wstate,
               legal, legal2, probs, keybuf, keybuf2, iwork, ret, hands, pool, played, value,
               rng2, wk, dk, pi_a):
    """The LBR action of seat ``p`` at ``state`` (module docstring), or ``-status``;
    ``rng`` is LBR's own stream."""
    m = K.legal_actions(params, state, legal)
    if m == 1:
        return legal[0]
    for a in range(m):
        value[a] = 0.0
    for _ in range(samples):  # the choice
        w = sample_world(params, pack, state, p, hist, hph, hq, n_hist, rng, ws, hands, pool,
                         played, legal2, probs, keybuf, keybuf2, iwork)
        if w < 0.0:
            return np.int64(w)
        seed_k = next_u64(rng)
        for ai in range(m):
            K.copy_state(ws, wstate)
            K.apply_action(params, wstate, legal[ai])
            rng2[0] = seed_k  # common random numbers across the actions
            _rollout(params, pack, wstate, rng2, legal2, probs, keybuf, iwork, ret)
            value[ai] += w * ret[p]
    best = 0
    for ai in range(1, m):
        if value[ai] > value[best]:
            best = ai
    for ai in range(m):
        pi_a[ai] = action_prob(pack, 0, params, state, p, legal, m, legal[ai], rng, keybuf,
                               iwork)
    if pi_a[best] >= 1.0:  # the policy's own action: nothing to test
        return legal[best]
    # The gain of the chosen action is tested on fresh worlds, twice. On the worlds
    # that chose it, its estimate is biased up (the winner's curse); and a deviation's
    # gain per world is skewed (a small gain in most worlds, a large loss in a few),
    # so one small sample that misses the few looks like a sure gain. Noise passed
    # for gain either way, and the response of a near-equilibrium policy lost points
    # (measured: -0.020 [-0.032, -0.008] on vitou_2p 4x2x1 at 16 worlds).
    for _ in range(2):
        ok = _gain_passes(params, pack, state, p, hist, hph, hq, n_hist, samples, rng, ws,
                          wstate, legal, m, best, pi_a, legal2, probs, keybuf, keybuf2, iwork,
                          ret, hands, pool, played, rng2, wk, dk)
        if ok < 0:
            return ok
        if ok == 0:
            return choose_action(pack, 0, params, state, p, rng, legal, m, keybuf, iwork)
    return legal[best]


@jit
def _deal_from(params, state, rng, deck, hands):
    """``hands[seat]`` drawn without replacement from the undealt cards (``S_DECK``)."""
    total = 0
    for r in range(L.MAX_RANKS):
        deck[r] = state[L.S_DECK + r] if r < params[P_RANKS] else 0
        total += deck[r]
    for s in range(params[P_PLAYERS]):
        for i in range(params[P_HAND]):
            hands[s, i] = _draw(rng, deck, total)
            total -= 1


@jit
def lbr_deal(params, pack, seed, group, exploit, samples, out_ret):
    """Play one deal: team ``exploit`` by LBR, the other by policy 0 of ``pack``;
    write the exploiting team's points into ``out_ret[0]``; return ``_OK`` or a status."""
    n = params[P_PLAYERS]
    h = params[P_HAND]
    state = np.empty(L.STATE_SIZE, np.int32)
    legal = np.empty(L.NUM_ACTIONS_FAMILY, np.int64)
    legal2 = np.empty(L.NUM_ACTIONS_FAMILY, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    keybuf2 = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    ret = np.zeros(L.MAX_PLAYERS)
    hands = np.zeros((L.MAX_PLAYERS, L.MAX_HAND), np.int64)
    whands = np.zeros((2, L.MAX_PLAYERS, L.MAX_HAND), np.int64)
    deck = np.empty(L.MAX_RANKS, np.int64)
    pool = np.empty(L.MAX_RANKS, np.int64)
    played = np.zeros((L.MAX_PLAYERS, L.MAX_RANKS), np.int64)
    ws = np.empty(L.STATE_SIZE, np.int32)
    wstate = np.empty(L.STATE_SIZE, np.int32)
    value = np.empty(L.NUM_ACTIONS_FAMILY)
    hist = np.empty(MAX_HIST, np.int64)
    hph = np.empty(MAX_HIST, np.int64)
    hq = np.empty(MAX_HIST, np.int64)
    rng2 = np.empty(1, np.uint64)
    wk = np.zeros(samples)
    dk = np.zeros(samples)
    pi_a = np.zeros(L.NUM_ACTIONS_FAMILY)
    rng = np.empty(1, np.uint64)  # the game's chance and the policy's play
    rng[0] = row_seed(np.uint64(seed) ^ _GAME_SALT, np.uint64(2 * group + exploit))
    rl = np.empty(1, np.uint64)  # LBR's own draws
    rl[0] = row_seed(np.uint64(seed) ^ _LBR_SALT, np.uint64(2 * group + exploit))
    rd = np.empty(1, np.uint64)  # the cards: the same for both exploiting teams
    rd[0] = deal_seed(np.uint64(seed), np.uint64(group), np.uint64(0))
    K.init_state(params, state)
    n_hist = 0
    ndeals = 0
    while not K.is_terminal(state):
        if K.is_chance(state):
            ph = state[L.S_PHASE]
            if ph == L.PH_DEAL and state[L.S_NDEALT] == 0:  # a whole deal, card by card
                if ndeals == 0:
                    draw_hands(params, rd, deck, hands)
                else:  # F2.3: the fresh deal, from the rest of the deck
                    _deal_from(params, state, rd, deck, hands)
                ndeals += 1
                for k in range(n):
                    seat = (state[L.S_DEALER] + 1 + k) % n  # R1.2 order, as apply_deal
                    for i in range(h):
                        r = hands[seat, i]
                        a = L.C_DEAL0 + r if r < 8 else L.C_DEAL_HI0 + r - 8
                        n_hist = _record(params, state, a, hist, hph, hq, n_hist)
                        if n_hist < 0:
                            return _TOO_LONG
                        K.apply_action(params, state, a)
                continue
            if ph == L.PH_DRAW_DEALER:  # rotated over the seats
                a = L.C_DEALER0 + group % n
            else:
                a = sample_chance(params, state, rng, legal, probs)
        else:
            q = K.current_player(params, state)
            if q % 2 == exploit:
                a = lbr_action(params, pack, state, q, hist, hph, hq, n_hist, samples, rl, ws,
                               wstate, legal, legal2, probs, keybuf, keybuf2, iwork, ret,
                               whands, pool, played, value, rng2, wk, dk, pi_a)
                if a < 0:
                    return -a
            else:
                m = K.legal_actions(params, state, legal)
                a = choose_action(pack, 0, params, state, q, rng, legal, m, keybuf, iwork)
        n_hist = _record(params, state, a, hist, hph, hq, n_hist)
        if n_hist < 0:
            return _TOO_LONG
        K.apply_action(params, state, a)
    K.returns(params, state, ret)
    out_ret[0] = ret[exploit]
    return _OK


@jit_parallel
def lbr_batch(params, pack, seed, samples, out, status):
    """``out[g, t]``: points of exploiting team ``t`` in deal group ``g``; ``status[g, t]``
    its ``_OK`` or why it failed."""
    for g in numba.prange(out.shape[0]):
        for t in range(2):
            status[g, t] = lbr_deal(params, pack, seed, g, t, samples, out[g, t:t + 1])


@jit
def _sample_worlds(params, pack, history, p, seed, worlds, weights):
    """Replay ``history`` (checked), then fill ``worlds`` / ``weights``; return ``_OK`` or
    why the history is refused."""
    n_hist = history.shape[0]
    state = np.empty(L.STATE_SIZE, np.int32)
    legal = np.empty(L.NUM_ACTIONS_FAMILY, np.int64)
    probs = np.empty(L.MAX_CHANCE_IDS_FAMILY, np.float64)
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    keybuf2 = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    whands = np.zeros((2, L.MAX_PLAYERS, L.MAX_HAND), np.int64)
    pool = np.empty(L.MAX_RANKS, np.int64)
    played = np.zeros((L.MAX_PLAYERS, L.MAX_RANKS), np.int64)
    hist = np.empty(max(n_hist, 1), np.int64)
    hph = np.empty(max(n_hist, 1), np.int64)
    hq = np.empty(max(n_hist, 1), np.int64)
    K.init_state(params, state)
    for j in range(n_hist):
        a = history[j]
        if K.is_terminal(state):
            return _BAD_HISTORY
        if K.is_chance(state):
            m = K.chance_outcomes(params, state, legal, probs)
        else:
            m = K.legal_actions(params, state, legal)
        ok = False
        for i in range(m):
            if legal[i] == a:
                ok = True
        if not ok:
            return _BAD_HISTORY
        _record(params, state, a, hist, hph, hq, j)
        K.apply_action(params, state, a)
    if K.is_chance(state) or K.is_terminal(state) or K.current_player(params, state) != p:
        return _NOT_DECISION
    rng = np.empty(1, np.uint64)
    rng[0] = row_seed(np.uint64(seed) ^ _LBR_SALT, np.uint64(0))
    for k in range(worlds.shape[0]):
        w = sample_world(params, pack, state, p, hist, hph, hq, n_hist, rng, worlds[k], whands,
                         pool, played, legal, probs, keybuf, keybuf2, iwork)
        if w < 0.0:
            return np.int64(-w)
        weights[k] = w
    return _OK


@dataclass(frozen=True)
class LBRResult:
    """LBR value (points per deal) of the exploiting team, with its 95% interval over
    the deal pairs (``lo``, ``hi``: NaN below :data:`~vitou_ai.eval.stats.MIN_UNITS`
    pairs or without variation, :mod:`vitou_ai.eval.stats`)."""

    value: float
    lo: float
    hi: float
    deals: int
    samples: int

    @property
    def note(self) -> str | None:
        """Why the interval is withheld (``"n too small (...)"``), or ``None``."""
        return interval_note(self.deals, self.lo, self.hi, "deal pairs")

    def interval(self, spec: str = "+.3f") -> str:
        """The interval as ``"[lo, hi]"``, or the reason it is withheld."""
        return format_interval(self.lo, self.hi, self.deals, "deal pairs", spec)


def _check_game(params: VitouParams) -> None:
    require("lbr", params)
    if params.mode != "deal":
        raise ValueError("LBR is computed on single deals (mode='deal')")


def local_best_response(policy: Policy, params: VitouParams, deals: int = 1000,
                        samples: int = 16, seed: int = 0) -> LBRResult:
    """LBR lower bound on the exploitability of ``policy`` (module docstring).

    Args:
        policy: the evaluated policy (any bot).
        params: the game (deal mode, any profile); the dealer is rotated over the seats.
        deals: deals per exploiting team (even pairs on the same cards); the interval
            needs 30 (:mod:`vitou_ai.eval.stats`).
        samples: sampled worlds per LBR decision, for the choice and for each of the
            two tests of its gain (module docstring); at least ``MIN_SAMPLES`` (8).

    Raises:
        ValueError: match mode, ``deals < 2`` or ``samples < MIN_SAMPLES``, a deal longer than
            ``MAX_HIST`` nodes, a policy trained for another game or variant; a search
            bot (:mod:`vitou_ai.search`): the rollouts play the evaluated policy, so they
            would run its search at every rollout decision, thousands per LBR decision.
        TypeError: not a policy object, ``params`` not a ``VitouParams``.

    Examples:
        >>> import vitou_ai
        >>> params = vitou_ai.VitouParams(profile="vitou_cason", ranks=4, copies=2, hand_size=1)
        >>> lbr = vitou_ai.local_best_response(vitou_ai.load_policy("random"), params,
        ...                                    deals=40, samples=8)
        >>> lbr.lo <= lbr.value <= lbr.hi, lbr.deals
        (True, 40)
    """
    from ..bots.named import check_policies

    if getattr(policy, "kind", None) == "search":
        raise ValueError(f"bot {policy.name!r}: LBR does not take a search bot: its rollouts "
                         "play the evaluated policy to the end of the deal, so they would run "
                         "the search at every rollout decision, thousands per LBR decision; "
                         "evaluate its blueprint, or play it in duplicate deals "
                         "(vitou-ai tournament --deals)")
    check_policies([policy], params)
    seed = check_seed(seed, "seed", UINT64_MAX)
    _check_game(params)
    if deals < 2:
        raise ValueError(f"LBR needs deals >= 2, got {deals}")
    if samples < MIN_SAMPLES:
        raise ValueError(f"LBR needs samples >= {MIN_SAMPLES} worlds per decision, got {samples}: "
                         "with fewer, the deviation tests' noise passes for gain and the bound "
                         "comes out below 0")
    params = params.replace(dealer=-1)
    pack = policy_pack(policy, params.signals)
    out = np.zeros((deals, 2))
    status = np.zeros((deals, 2), np.int64)
    lbr_batch(params.to_array(), pack, np.uint64(seed), int(samples), out, status)
    if status.any():
        raise ValueError(f"LBR on {params.profile}: {_MESSAGES[int(status.max())]}")
    unit = out.mean(1)  # both teams exploit the same deal: one unit
    m, lo, hi = ratio_interval(unit, np.ones(len(unit)))
    return LBRResult(m, lo, hi, int(deals), int(samples))


def sample_worlds(policy: Policy, params: VitouParams, history: Sequence[int], player: int,
                  samples: int = 16, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The worlds LBR samples for ``player`` at the end of ``history`` (module docstring).

    Args:
        policy: the evaluated policy (the Bayes weights).
        params: the game (deal mode), with the dealer of the history (``-1``: the
            history starts with the dealer draw).
        history: the deal from the initial state: every chance outcome (each card
            dealt, the catches) and action, kernel ids.
        player: the seat whose decision the history ends at.
        samples: worlds to draw.

    Returns:
        ``(worlds, weights)``: ``int32[samples, STATE_SIZE]`` kernel states, each at
        ``player``'s decision with its information state, and ``float64[samples]``
        their (unnormalised) weights.

    Raises:
        ValueError: match mode, ``samples < 1``, a history that is not a legal deal of
            the game, longer than ``MAX_HIST``, or not ending at ``player``'s decision.
    """
    _check_game(params)
    seed = check_seed(seed, "seed", UINT64_MAX)
    if samples < 1:
        raise ValueError(f"sample_worlds needs samples >= 1, got {samples}")
    hist = np.asarray(history, np.int64).reshape(-1)
    if hist.shape[0] > MAX_HIST:
        raise ValueError(f"a history of {hist.shape[0]} nodes is longer than MAX_HIST = {MAX_HIST}")
    pack = policy_pack(policy, params.signals)
    worlds = np.zeros((int(samples), L.STATE_SIZE), np.int32)
    weights = np.zeros(int(samples))
    why = _sample_worlds(params.to_array(), pack, hist, int(player), np.uint64(seed), worlds,
                         weights)
    if why == _NOT_DECISION:
        raise ValueError(f"sample_worlds: the history does not end at a decision of seat {player}")
    if why != _OK:
        raise ValueError(f"sample_worlds: {_MESSAGES[int(why)]}")
    return worlds, weights
