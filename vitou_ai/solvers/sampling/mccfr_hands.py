"""All the traverser's hands per sampled deal (``AbstractMCCFR(traversal="hands")``).

The estimator of opponent-public chance sampling (Johanson, Bard, Lanctot, Gibson &
Bowling 2012, "Efficient Nash equilibrium approximation through Monte Carlo
counterfactual regret minimization", AAMAS, section 3: sample the other seats'
private chance and the public chance, enumerate the traverser's private chance)
combined with external sampling of the other seats' actions, **computed hand by hand,
not as a vector**: this is not the vector-form walk of that paper (one walk carrying
a reach vector over the traverser's hands), it loops over the hands and makes every
hand see the same samples, which gives the same regret updates at a cost that grows
with the number of hands.

One traversal for traverser ``p``:

1. the deal is drawn by chance as usual (the dealer if drawn, every card), then
   ``p``'s cards are put back: the pool is the undealt cards plus ``p``'s;
2. every multiset ``H`` of ``hand_size`` ranks the pool allows is taken in turn,
   weighted by its probability given the others' hands (multivariate hypergeometric,
   ``w(H) = prod_r C(pool_r, H_r) / C(|pool|, hand_size)``; the kernel deals one
   uniformly drawn undealt card at a time, R1.2, so ``p``'s hand given the others' is a
   uniform draw from the pool), and written into the state (``S_HELD``, ``S_HAND``,
   ``S_DECK``: the only fields the deal leaves that depend on ``p``'s cards;
   ``_after_deal`` and the gestures' start do not read them);
3. from there an external-sampling walk as :func:`.mccfr_abstract.es_traverse`, with
   every regret update and every average-policy addition multiplied by ``w(H)``, and
   every chance outcome and other seat's action drawn from a stream seeded by the
   traversal's seed and the hash of the actions since the deal (the *public path*;
   :func:`path_step`). The others' information states do not hold ``p``'s cards, so at
   one public node every hand of ``p`` that reaches it meets the same sigma and the
   same draw: the others' play is sampled once per public node and shared by all of
   ``p``'s hands, as in the vector form (that is where the variance falls).

Unbiased: for a fixed hand the walk is external sampling with independent draws at
distinct public nodes (distinct hashes); enumerating ``p``'s private chance with its
exact probability instead of sampling it is Lanctot et al. 2009's general sampling
(section 2.1, the hand's probability stays in ``pi_{-i}``), so the expected update of
each information state equals external sampling's. The terminal value is read from
each hand's own terminal state (no claim that payoffs do not depend on unplayed cards
is needed). An iteration is one such traversal per seat. Points objective only (no
warm start, no match equity).
"""

from __future__ import annotations

import numba
import numpy as np

from ..._numba import jit, jit_parallel
from ...abstraction.key import abstract_key
from ...rng import next_float, next_u64
from ...rules import kernel as K
from ...rules import layout as L
from ...rules.params import P_HAND, P_PLAYERS, P_RANKS
from ...sim.random_play import sample_chance
from .abstract_table import (
    FULL,
    MARK,
    W_FULL,
    W_INSERTED,
    W_TOUCHED,
    close_node,
    explore_mask,
    mix64,
    slot_of,
    terminal_value,
)
from .mccfr import regret_matching_row, sample_action

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@jit
def path_step(h, action):
    """The public path's hash ``h`` (``uint64``) after ``action`` (an action or chance
    id): SplitMix64 of the pair, so equal paths give equal hashes."""
    return mix64(np.uint64(h) ^ (np.uint64(action + 1) * _GOLDEN))


@jit
def _comb(n, k):
    if k < 0 or k > n:
        return 0.0
    c = 1.0
    for i in range(k):
        c = c * (n - i) / (i + 1)
    return c


@jit
def hand_weight(pool, hand, nranks, hsize):
    """Probability of the sorted ``hand`` (``int64[hsize]`` ranks) drawn without
    replacement from ``pool`` (``int64[nranks]`` copies per rank); 0 if the pool cannot
    give it."""
    total = 0
    for r in range(nranks):
        total += pool[r]
    w = 1.0
    for r in range(nranks):
        k = 0
        for i in range(hsize):
            if hand[i] == r:
                k += 1
        if k > pool[r]:
            return 0.0
        w *= _comb(pool[r], k)
    return w / _comb(total, hsize)


@jit
def _advance_shared(cfg, params, state, p, base, h, nrng, slots, nact, regrets, cum, acts, probs,
                    sig, mout, hout, cnt, w):
    """:func:`.mccfr_abstract._advance` with draws seeded by ``(base, public path)`` and
    average-policy additions weighted by ``w``; ``hout[0]``: the path's hash on return."""
    while True:
        if K.is_terminal(state):
            hout[0] = h
            return -1
        if K.is_chance(state):
            nrng[0] = mix64(base ^ h)
            c = sample_chance(params, state, nrng, acts, probs)
            K.apply_action(params, state, c)
            h = path_step(h, c)
            continue
        q = K.current_player(params, state)
        m = K.legal_actions(params, state, acts)
        if m > regrets.shape[1]:
            raise ValueError("more legal actions than the table's width")
        if m == 1:
            K.apply_action(params, state, acts[0])
            h = path_step(h, acts[0])
            continue
        key = abstract_key(cfg, params, state, q, acts, m)
        slot, new = slot_of(slots, np.uint64(key) | MARK)
        if slot < 0:
            return FULL
        cnt[W_TOUCHED] += 1
        if new == 1:
            cnt[W_INSERTED] += 1
            nact[slot] = m
        if q == p:
            mout[0] = m
            hout[0] = h
            return slot
        regret_matching_row(regrets, slot, m, sig)
        for a in range(m):
            cum[slot, a] += w * sig[a]
        nrng[0] = mix64(base ^ h)
        a = acts[sample_action(sig, m, nrng)]
        K.apply_action(params, state, a)
        h = path_step(h, a)


@jit
def _walk(cfg, params, p, base, w, nrng, slots, nact, regrets, cum, states, srow, mrow, hsh,
          child, vals, sig, acts, explore, probs, ret, mout, hout, cnt, prune, thr, eq):
    """The external-sampling walk from ``states[0]`` (after the deal, ``p``'s hand
    written) with weight ``w``; returns ``p``'s value, NaN when the table is full."""
    slot = _advance_shared(cfg, params, states[0], p, base, np.uint64(0), nrng, slots, nact,
                           regrets, cum, acts[0], probs, sig[0], mout, hout, cnt, w)
    if slot == FULL:
        return np.nan
    if slot < 0:
        return terminal_value(params, states[0], p, ret, eq)
    d = 0
    srow[0] = slot
    mrow[0] = mout[0]
    hsh[0] = hout[0]
    child[0] = 0
    s = regret_matching_row(regrets, slot, mout[0], sig[0])
    explore_mask(regrets, slot, mout[0], s, prune, thr, explore[0])
    while True:
        r = srow[d]
        m = mrow[d]
        while child[d] < m and not explore[d, child[d]]:
            child[d] += 1
        if child[d] < m:
            a = child[d]
            K.copy_state(states[d], states[d + 1])
            K.apply_action(params, states[d + 1], acts[d, a])
            nslot = _advance_shared(cfg, params, states[d + 1], p, base,
                                    path_step(hsh[d], acts[d, a]), nrng, slots, nact, regrets,
                                    cum, acts[d + 1], probs, sig[d + 1], mout, hout, cnt, w)
            if nslot == FULL:
                return np.nan
            if nslot < 0:
                vals[d, a] = terminal_value(params, states[d + 1], p, ret, eq)
                child[d] += 1
            else:
                if d + 2 >= states.shape[0]:
                    raise ValueError("traversal deeper than the depth buffers")
                d += 1
                srow[d] = nslot
                mrow[d] = mout[0]
                hsh[d] = hout[0]
                child[d] = 0
                s = regret_matching_row(regrets, nslot, mout[0], sig[d])
                explore_mask(regrets, nslot, mout[0], s, prune, thr, explore[d])
        else:
            v = close_node(regrets, r, m, sig[d], vals[d], explore[d], w)
            if d == 0:
                return v
            d -= 1
            vals[d, child[d]] = v
            child[d] += 1


@jit
def hands_traverse(cfg, params, p, rng, slots, nact, regrets, cum, root, states, srow, mrow, hsh,
                   child, vals, sig, acts, explore, probs, ret, mout, hout, nrng, pool, hand, cnt,
                   prune, thr, eq):
    """One traversal for traverser ``p`` over all its hands (module docstring); returns
    ``p``'s value averaged over its hands (points per deal, or match equity with
    ``eq``), NaN when the table is full. ``root``: ``int32[STATE_SIZE]``; ``hsh
    uint64[D]``, ``hout, nrng uint64[1]``, ``pool int64[MAX_RANKS]``, ``hand
    int64[MAX_HAND]``; the other buffers as :func:`.mccfr_abstract.es_traverse`'s."""
    K.init_state(params, root)
    while root[L.S_PHASE] == L.PH_DRAW_DEALER or root[L.S_PHASE] == L.PH_DEAL:
        K.apply_action(params, root, sample_chance(params, root, rng, acts[0], probs))
    base = next_u64(rng)
    nranks = params[P_RANKS]
    hsize = params[P_HAND]
    hb = L.S_HELD + p * L.MAX_RANKS
    for r in range(nranks):
        pool[r] = root[L.S_DECK + r] + root[hb + r]
        root[L.S_DECK + r] = pool[r]
        root[hb + r] = 0
    for i in range(hsize):
        hand[i] = 0
    value = 0.0
    while True:
        w = hand_weight(pool, hand, nranks, hsize)
        if w > 0.0:
            K.copy_state(root, states[0])
            for i in range(hsize):
                states[0, L.S_HAND + p * L.MAX_HAND + i] = hand[i]
                states[0, hb + hand[i]] += 1
                states[0, L.S_DECK + hand[i]] -= 1
            v = _walk(cfg, params, p, base, w, nrng, slots, nact, regrets, cum, states, srow,
                      mrow, hsh, child, vals, sig, acts, explore, probs, ret, mout, hout, cnt,
                      prune, thr, eq)
            if np.isnan(v):
                return np.nan
            value += w * v
        i = hsize - 1  # the next non-decreasing rank sequence
        while i >= 0 and hand[i] == nranks - 1:
            i -= 1
        if i < 0:
            return value
        hand[i] += 1
        for k in range(i + 1, hsize):
            hand[k] = hand[i]


@jit_parallel
def run_hands_workers(cfg, params, iters, rngs, slots, nact, regrets, cum, counters, prune_prob,
                      thr, depth, eq):
    """``rngs.shape[0]`` workers, each ``iters`` iterations of one
    :func:`hands_traverse` per seat, sharing the table as
    :func:`.mccfr_abstract.run_workers` does; ``depth`` as there; ``eq`` empty (points)
    or the match-equity table at ``params``' score."""
    players = params[P_PLAYERS]
    width = regrets.shape[1]
    for w in numba.prange(rngs.shape[0]):
        root = np.zeros(L.STATE_SIZE, np.int32)
        states = np.zeros((depth, L.STATE_SIZE), np.int32)
        srow = np.zeros(depth, np.int64)
        mrow = np.zeros(depth, np.int64)
        hsh = np.zeros(depth, np.uint64)
        child = np.zeros(depth, np.int64)
        vals = np.zeros((depth, width))
        sig = np.zeros((depth, width))
        acts = np.zeros((depth, L.NUM_ACTIONS), np.int64)
        explore = np.zeros((depth, width), np.bool_)
        probs = np.zeros(L.MAX_CHANCE_OUTCOMES)
        ret = np.zeros(L.MAX_PLAYERS)
        mout = np.zeros(2, np.int64)
        hout = np.zeros(1, np.uint64)
        nrng = np.zeros(1, np.uint64)
        pool = np.zeros(L.MAX_RANKS, np.int64)
        hand = np.zeros(L.MAX_HAND, np.int64)
        rng = rngs[w]
        cnt = counters[w]
        for _ in range(iters):
            for p in range(players):
                prune = prune_prob > 0.0 and next_float(rng) < prune_prob
                v = hands_traverse(cfg, params, p, rng, slots, nact, regrets, cum, root, states,
                                   srow, mrow, hsh, child, vals, sig, acts, explore, probs, ret,
                                   mout, hout, nrng, pool, hand, cnt, prune, thr, eq)
                if np.isnan(v):
                    cnt[W_FULL] = 1
                    break
            if cnt[W_FULL] == 1:
                break
