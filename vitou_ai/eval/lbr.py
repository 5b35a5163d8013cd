"""Local best response (LBR): a lower bound on a policy's exploitability, for teams.

Lisý & Bowling (2017), "Equilibrium approximation quality of current no-limit
poker bots" (AAAI workshop; arXiv:1612.07547), adapted to Vitou's two teams.
The *exploiting* team's seats play against the evaluated policy; each seat,
at each of its decisions with a choice, takes the action of highest estimated
value, where

- the value of an action is an expectation over the hidden hands of the
  other three seats (opponents and partner), sampled from the unseen cards
  (the prior, R1.2) and weighted by Bayes on every action they took so far
  in the deal, as if played by the evaluated policy (likelihood
  ``max(pi(a | I), EPS)``; the partner's earlier actions are LBR actions,
  treated like the policy's: the weights only steer the choice, the bound
  stays valid);
- after the action, every seat plays the *rollout policy* (the evaluated
  policy itself) to the end of the deal, one rollout per sampled world, with
  the same random stream for every action (common random numbers);
- the seat takes the best action only when its estimated gain over the
  policy's own mixed action exceeds ``Z_DEVIATE`` standard errors (weighted
  worlds); otherwise it plays the policy. With few sampled worlds, a plain
  argmax of noisy estimates can do worse than the policy itself (measured:
  a negative "bound"); this guard keeps the response an improvement step.

Each deal is played twice on the same cards, each team exploiting once, with
the dealer rotated over the seats. The LBR value is the exploiting team's
mean points per deal (R8.1): in this symmetric game a policy's
exploitability (the mean of the two teams' best-response values against it,
OpenSpiel's NashConv / players for two players) is at least that, up to the
sampling error given by the 95% interval (pairs of deals as units).

Action probabilities of the evaluated policy: exact for uniform random play
and abstract policies (at known keys); for heuristic and tabular bots,
estimated from ``HEUR_DRAWS`` draws of the bot with a private random stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from .._numba import jit, jit_parallel
from ..bots.policy import (
    IWORK_SIZE,
    KIND_ABSTRACT,
    KIND_RANDOM,
    Policy,
    abstract_row,
    choose_action,
    pack_policies,
)
from ..rng import next_below, next_u64, row_seed
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.params import P_COPIES, P_HAND, P_PLAYERS, P_RANKS, VitouParams
from ..sim.batch import deal_seed, draw_hands
from ..sim.random_play import sample_chance

EPS = 1e-3
Z_DEVIATE = 1.0  # standard errors of estimated gain needed to deviate from the policy
HEUR_DRAWS = 8
MAX_HIST = 64


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
def lbr_action(params, pack, state, p, dealer, hist, n_hist, samples, rng, worlds, wstate,
               legal, legal2, probs, keybuf, iwork, ret, hands, pool, value, rng2, wv, wk, wk2,
               pi_a):
    """The LBR action of seat ``p`` at ``state`` (module docstring)."""
    n = params[P_PLAYERS]
    h = params[P_HAND]
    m = K.legal_actions(params, state, legal)
    if m == 1:
        return legal[0]
    shared_partner = n == 4 and state[L.S_SHARED] == 1 and p % 2 == state[L.S_R6TEAM]
    partner = (p + 2) % n
    for a in range(m):
        value[a] = 0.0
    wsum = 0.0
    for k in range(samples):
        # the unseen pool: the deck minus own cards and every card played
        for r in range(L.MAX_RANKS):
            pool[r] = params[P_COPIES] if r < params[P_RANKS] else 0
        for i in range(h):
            pool[state[L.S_HAND + p * L.MAX_HAND + i]] -= 1
        for q in range(n):
            if q == p:
                continue
            for r in range(L.MAX_RANKS):
                if shared_partner and q == partner:
                    continue
                played = 0
                for i in range(h):
                    if state[L.S_HAND + q * L.MAX_HAND + i] == r:
                        played += 1
                played -= state[L.S_HELD + q * L.MAX_RANKS + r]  # dealt - held: public
                pool[r] -= played
        if shared_partner:
            for i in range(h):
                pool[state[L.S_HAND + partner * L.MAX_HAND + i]] -= 1
        total = 0
        for r in range(L.MAX_RANKS):
            total += pool[r]
        # a world: each other seat keeps the cards it played and draws the rest
        for q in range(n):
            c = 0
            if q == p or (shared_partner and q == partner):
                for i in range(h):
                    hands[q, i] = state[L.S_HAND + q * L.MAX_HAND + i]
                continue
            for r in range(L.MAX_RANKS):
                played = 0
                for i in range(h):
                    if state[L.S_HAND + q * L.MAX_HAND + i] == r:
                        played += 1
                played -= state[L.S_HELD + q * L.MAX_RANKS + r]
                for _ in range(played):
                    hands[q, c] = r
                    c += 1
            while c < h:
                j = next_below(rng, total)
                for r in range(L.MAX_RANKS):
                    j -= pool[r]
                    if j < 0:
                        hands[q, c] = r
                        pool[r] -= 1
                        total -= 1
                        break
                c += 1
        # replay the deal in that world, weighting by the others' actions (Bayes)
        ws = worlds[k]
        K.init_state(params, ws)
        if ws[L.S_PHASE] == L.PH_DRAW_DEALER:
            K.apply_action(params, ws, L.C_DEALER0 + dealer)
        K.apply_deal(params, ws, hands)
        w = 1.0
        for j in range(n_hist):
            a = hist[j]
            if not K.is_chance(ws):
                q = K.current_player(params, ws)
                if q != p:
                    mq = K.legal_actions(params, ws, legal2)
                    if mq > 1:
                        pr = action_prob(pack, 0, params, ws, q, legal2, mq, a, rng, keybuf, iwork)
                        w *= pr if pr > EPS else EPS
            K.apply_action(params, ws, a)
        wsum += w
        seed_k = next_u64(rng)
        for ai in range(m):
            K.copy_state(ws, wstate)
            K.apply_action(params, wstate, legal[ai])
            rng2[0] = seed_k  # common random numbers across the actions
            _rollout(params, pack, wstate, rng2, legal2, probs, keybuf, iwork, ret)
            value[ai] += w * ret[p]
            wv[k, ai] = ret[p]
        wk[k] = w
    best = 0
    for ai in range(1, m):
        if value[ai] > value[best]:
            best = ai
    # deviate from the policy only where the sampled worlds say it gains, by more than
    # Z_DEVIATE standard errors: noisy estimates must not make the response worse
    # than the policy it answers
    for ai in range(m):
        pi_a[ai] = action_prob(pack, 0, params, state, p, legal, m, legal[ai], rng, keybuf,
                               iwork)
    if wsum <= 0.0:
        return choose_action(pack, 0, params, state, p, rng, legal, m, keybuf, iwork)
    gain = 0.0
    for k in range(samples):
        d = wv[k, best]
        for ai in range(m):
            d -= pi_a[ai] * wv[k, ai]
        wk2[k] = d
        gain += wk[k] / wsum * d
    var = 0.0
    for k in range(samples):
        var += (wk[k] / wsum) ** 2 * (wk2[k] - gain) ** 2
    if gain > Z_DEVIATE * np.sqrt(var) and gain > 0.0:
        return legal[best]
    return choose_action(pack, 0, params, state, p, rng, legal, m, keybuf, iwork)


@jit
def lbr_deal(params, pack, seed, group, exploit, samples, out_ret):
    """Play one deal: team ``exploit`` by LBR, the other by policy 0 of ``pack``;
    write the exploiting team's points into ``out_ret[0]``."""
    n = params[P_PLAYERS]
    state = np.empty(L.STATE_SIZE, np.int32)
    legal = np.empty(L.NUM_ACTIONS, np.int64)
    legal2 = np.empty(L.NUM_ACTIONS, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    ret = np.zeros(L.MAX_PLAYERS)
    hands = np.zeros((L.MAX_PLAYERS, L.MAX_HAND), np.int64)
    deck = np.empty(L.MAX_RANKS, np.int64)
    pool = np.empty(L.MAX_RANKS, np.int64)
    worlds = np.empty((samples, L.STATE_SIZE), np.int32)
    wstate = np.empty(L.STATE_SIZE, np.int32)
    value = np.empty(L.NUM_ACTIONS)
    hist = np.empty(MAX_HIST, np.int64)
    rng2 = np.empty(1, np.uint64)
    wv = np.zeros((samples, L.NUM_ACTIONS))
    wk = np.zeros(samples)
    wk2 = np.zeros(samples)
    pi_a = np.zeros(L.NUM_ACTIONS)
    rng = np.empty(1, np.uint64)
    rng[0] = row_seed(np.uint64(seed) ^ np.uint64(0x5851F42D4C957F2D), np.uint64(2 * group + exploit))
    K.init_state(params, state)
    dealer = group % n
    if state[L.S_PHASE] == L.PH_DRAW_DEALER:
        K.apply_action(params, state, L.C_DEALER0 + dealer)
    dealer = state[L.S_DEALER]
    rd = np.empty(1, np.uint64)
    rd[0] = deal_seed(np.uint64(seed), np.uint64(group), np.uint64(0))
    draw_hands(params, rd, deck, hands)
    K.apply_deal(params, state, hands)
    n_hist = 0
    while not K.is_terminal(state):
        if K.is_chance(state):
            a = sample_chance(params, state, rng, legal, probs)
        else:
            q = K.current_player(params, state)
            if q % 2 == exploit:
                a = lbr_action(params, pack, state, q, dealer, hist, n_hist, samples, rng, worlds,
                               wstate, legal, legal2, probs, keybuf, iwork, ret, hands, pool,
                               value, rng2, wv, wk, wk2, pi_a)
            else:
                m = K.legal_actions(params, state, legal)
                a = choose_action(pack, 0, params, state, q, rng, legal, m, keybuf, iwork)
        if n_hist >= MAX_HIST:
            raise ValueError("deal longer than MAX_HIST actions")
        hist[n_hist] = a
        n_hist += 1
        K.apply_action(params, state, a)
    K.returns(params, state, ret)
    out_ret[0] = ret[exploit]


@jit_parallel
def lbr_batch(params, pack, seed, samples, out):
    """``out[g, t]``: points of exploiting team ``t`` in deal group ``g``."""
    for g in numba.prange(out.shape[0]):
        for t in range(2):
            lbr_deal(params, pack, seed, g, t, samples, out[g, t:t + 1])


@dataclass(frozen=True)
class LBRResult:
    """LBR value (points per deal) of the exploiting team, with its 95% interval."""

    value: float
    lo: float
    hi: float
    deals: int
    samples: int


def local_best_response(policy: Policy, params: VitouParams, deals: int = 1000,
                        samples: int = 16, seed: int = 0) -> LBRResult:
    """LBR lower bound on the exploitability of ``policy`` (module docstring).

    Args:
        policy: the evaluated policy (any bot).
        params: the game (deal mode); the dealer is rotated over the seats.
        deals: deals per exploiting team (even pairs on the same cards).
        samples: sampled worlds per LBR decision.

    Raises:
        ValueError: match mode, ``deals < 2`` or ``samples < 1``.
    """
    if params.mode != "deal":
        raise ValueError("LBR is computed on single deals (mode='deal')")
    if deals < 2 or samples < 1:
        raise ValueError(f"LBR needs deals >= 2 and samples >= 1, got {deals}, {samples}")
    params = params.replace(dealer=-1)
    pack = pack_policies([policy], params.signals)
    out = np.zeros((deals, 2))
    lbr_batch(params.to_array(), pack, np.uint64(seed), int(samples), out)
    unit = out.mean(1)  # both teams exploit the same deal: one unit
    m = float(unit.mean())
    half = 1.96 * float(unit.std(ddof=1)) / math.sqrt(len(unit))
    return LBRResult(m, m - half, m + half, int(deals), int(samples))
