"""Team traversal for abstract ES-MCCFR (``AbstractMCCFR(traversal="team")``).

One traversal per *team* instead of one per seat: both partners' decisions are
enumerated (every explored action is walked and a node's value is the sigma-weighted
sum of its children's), the two opponents' actions and chance are sampled (once each,
as in external sampling), and both partners' regrets are updated from that one sample,
so the two partners' regrets are driven by the team's value on the same deal and the
same opponent play. The average policy is accumulated where seats are sampled (the
opponents' nodes), as in :mod:`.mccfr_abstract`; each seat gets it from the other
team's traversal.

Why it is an unbiased MCCFR estimator (Lanctot, Waugh, Zinkevich & Bowling 2009,
"Monte Carlo sampling for regret minimization in extensive games", section 2.1:
any sampling scheme whose blocks cover the terminal histories with ``q(z) > 0``
gives an unbiased sampled counterfactual value ``v~(I) = sum_{z in Q} pi_{-i}(z[I])
pi(z[I], z) u_i(z) / q(z)``). For seat ``i`` of the traversed team the partner is one
of the "others": its probabilities are part of ``pi_{-i}``. External sampling samples
them, so they cancel against ``q``; here the partner's actions are not sampled (they
are enumerated, taken with probability 1 in ``q``), so they stay in the estimate with
their exact sigma weights. Hence:

- the value passed up at a partner's node is the sigma-weighted sum over its actions
  (the partner's ``pi(z[I], z)`` part, as at the traverser's own nodes);
- the regret update at seat ``i``'s node ``h`` is multiplied by the partner's reach
  to ``h`` (the product of the partner's sigma along the enumerated path,
  ``reach[d, 1 - j]`` below), the part of ``pi_{-i}(h)`` that is not cancelled by
  ``q``; opponents' and chance's parts are sampled and cancel as in external sampling.

So each seat's expected regret increment is the same as external sampling's (the
counterfactual regret), from a sample shared with its partner. Departures: the
regret-based pruning and the floor of :mod:`.mccfr_abstract` apply at both partners'
nodes; an *iteration* is one traversal per team (two per iteration instead of four),
so iteration counts are not comparable with ``traversal="es"`` (compare at equal
solver seconds). Points objective only (no warm start, no match equity).
"""

from __future__ import annotations

import numba
import numpy as np

from ..._numba import jit, jit_parallel
from ...abstraction.key import abstract_key
from ...rng import next_float
from ...rules import kernel as K
from ...rules import layout as L
from ...sim.random_play import sample_chance
from .abstract_table import (
    FULL,
    MARK,
    W_FULL,
    W_INSERTED,
    W_TOUCHED,
    close_node,
    explore_mask,
    slot_of,
    terminal_value,
)
from .mccfr import regret_matching_row, sample_action


@jit
def _advance_team(cfg, params, state, t, rng, slots, nact, regrets, cum, acts, probs, sig, mout,
                  cnt):
    """Sample chance and the other team's actions until a seat of team ``t`` has a real
    choice. Returns its slot (``mout[0]`` its number of actions, ``mout[1]`` the seat,
    ``acts`` its legal actions), -1 at a terminal state, ``FULL`` when the table is
    full. The average policy is accumulated at the sampled (other team's) nodes."""
    while True:
        if K.is_terminal(state):
            return -1
        if K.is_chance(state):
            K.apply_action(params, state, sample_chance(params, state, rng, acts, probs))
            continue
        q = K.current_player(params, state)
        m = K.legal_actions(params, state, acts)
        if m > regrets.shape[1]:
            raise ValueError("more legal actions than the table's width")
        if m == 1:
            K.apply_action(params, state, acts[0])
            continue
        key = abstract_key(cfg, params, state, q, acts, m)
        slot, new = slot_of(slots, np.uint64(key) | MARK)
        if slot < 0:
            return FULL
        cnt[W_TOUCHED] += 1
        if new == 1:
            cnt[W_INSERTED] += 1
            nact[slot] = m
        if K.team_of(params, q) == t:
            mout[0] = m
            mout[1] = q
            return slot
        regret_matching_row(regrets, slot, m, sig)
        for a in range(m):
            cum[slot, a] += sig[a]
        K.apply_action(params, state, acts[sample_action(sig, m, rng)])


@jit
def team_traverse(cfg, params, t, rng, slots, nact, regrets, cum, states, srow, mrow, seat,
                  reach, child, vals, sig, acts, explore, probs, ret, mout, cnt, prune, thr, eq):
    """One team traversal for team ``t`` (0: seats 0 and 2; 1: seats 1 and 3); returns
    the team's sampled value (points per deal, or match equity with ``eq``:
    :func:`.abstract_table.terminal_value`), NaN when the table is full.

    Buffers (``D`` levels, ``W`` the table's width): ``states int32[D, STATE_SIZE]``,
    ``srow, mrow, seat, child int64[D]``, ``reach float64[D, 2]`` (each partner's own
    reach at the level, team seat order: the lower seat first), ``vals, sig
    float64[D, W]``, ``acts int64[D, NUM_ACTIONS]``, ``explore bool[D, W]``, ``mout
    int64[2]``. Raises ValueError when the walk is deeper than ``D - 2`` levels."""
    K.init_state(params, states[0])
    slot = _advance_team(cfg, params, states[0], t, rng, slots, nact, regrets, cum, acts[0],
                         probs, sig[0], mout, cnt)
    if slot == FULL:
        return np.nan
    if slot < 0:
        return terminal_value(params, states[0], t, ret, eq)
    d = 0
    srow[0] = slot
    mrow[0] = mout[0]
    seat[0] = mout[1]
    reach[0, 0] = 1.0
    reach[0, 1] = 1.0
    child[0] = 0
    s = regret_matching_row(regrets, slot, mout[0], sig[0])
    explore_mask(regrets, slot, mout[0], s, prune, thr, explore[0])
    while True:
        r = srow[d]
        m = mrow[d]
        j = 0 if seat[d] == t else 1  # the acting partner's index in the team
        while child[d] < m and not explore[d, child[d]]:
            child[d] += 1
        if child[d] < m:
            a = child[d]
            K.copy_state(states[d], states[d + 1])
            K.apply_action(params, states[d + 1], acts[d, a])
            nslot = _advance_team(cfg, params, states[d + 1], t, rng, slots, nact, regrets, cum,
                                  acts[d + 1], probs, sig[d + 1], mout, cnt)
            if nslot == FULL:
                return np.nan
            if nslot < 0:
                vals[d, a] = terminal_value(params, states[d + 1], t, ret, eq)
                child[d] += 1
            else:
                if d + 2 >= states.shape[0]:
                    raise ValueError("traversal deeper than the depth buffers")
                reach[d + 1, j] = reach[d, j] * sig[d, a]
                reach[d + 1, 1 - j] = reach[d, 1 - j]
                d += 1
                srow[d] = nslot
                mrow[d] = mout[0]
                seat[d] = mout[1]
                child[d] = 0
                s = regret_matching_row(regrets, nslot, mout[0], sig[d])
                explore_mask(regrets, nslot, mout[0], s, prune, thr, explore[d])
        else:
            # the partner's part of pi_{-i}, not cancelled by q
            v = close_node(regrets, r, m, sig[d], vals[d], explore[d], reach[d, 1 - j])
            if d == 0:
                return v
            d -= 1
            vals[d, child[d]] = v
            child[d] += 1


@jit_parallel
def run_team_workers(cfg, params, iters, rngs, slots, nact, regrets, cum, counters, prune_prob,
                     thr, depth, eq):
    """``rngs.shape[0]`` workers, each ``iters`` iterations of one team traversal per
    team (:func:`team_traverse`), sharing the table as
    :func:`.mccfr_abstract.run_workers` does. ``depth``: levels of the buffers (both
    partners' decisions: twice :func:`.mccfr_abstract.traversal_depth`). ``eq``: empty
    (points per deal) or the match-equity table of :func:`.abstract_table.terminal_value`
    at ``params``' score (no score-state draws)."""
    width = regrets.shape[1]
    for w in numba.prange(rngs.shape[0]):
        states = np.zeros((depth, L.STATE_SIZE), np.int32)
        srow = np.zeros(depth, np.int64)
        mrow = np.zeros(depth, np.int64)
        seat = np.zeros(depth, np.int64)
        child = np.zeros(depth, np.int64)
        reach = np.ones((depth, 2))
        vals = np.zeros((depth, width))
        sig = np.zeros((depth, width))
        acts = np.zeros((depth, L.NUM_ACTIONS), np.int64)
        explore = np.zeros((depth, width), np.bool_)
        probs = np.zeros(L.MAX_CHANCE_OUTCOMES)
        ret = np.zeros(L.MAX_PLAYERS)
        mout = np.zeros(2, np.int64)
        rng = rngs[w]
        cnt = counters[w]
        for _ in range(iters):
            for t in range(2):
                prune = prune_prob > 0.0 and next_float(rng) < prune_prob
                v = team_traverse(cfg, params, t, rng, slots, nact, regrets, cum, states, srow,
                                  mrow, seat, reach, child, vals, sig, acts, explore, probs, ret,
                                  mout, cnt, prune, thr, eq)
                if np.isnan(v):
                    cnt[W_FULL] = 1
                    break
            if cnt[W_FULL] == 1:
                break
