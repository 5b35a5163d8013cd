"""The abstract trainer's shared table and its jitted primitives: the open-addressing
hash table of abstract information states (keys with :data:`MARK` set, linear probing,
compare-and-swap insertion), the per-worker counters, the pruning mask and the terminal
valuation. One module below the traversals (:mod:`.mccfr_abstract`'s external sampling,
:mod:`.mccfr_team`, :mod:`.mccfr_hands`), so that they share one table layout without
importing each other.
"""

from __future__ import annotations

import numpy as np

from ..._numba import jit
from ...rules import kernel as K
from ...rules.params import P_DEALER, P_PLAYERS, P_SCORE0, P_SCORE1
from .atomics import cas_u64

MARK = np.uint64(1) << np.uint64(63)  # set in every stored key: 0 marks an empty slot
MAX_PROBE = 1 << 12
FULL = -2
REGRET_FLOOR = -1e7  # keeps float32 regrets finite on very long runs (Pluribus floors too)

# per-worker counters
W_INSERTED = 0
W_FULL = 1
W_TOUCHED = 2
N_W = 3


@jit
def mix64(x):
    """SplitMix64 finaliser: the hash of a stored key."""
    z = np.uint64(x)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit
def slot_of(slots, stored):
    """Slot of ``stored`` (a key with ``MARK`` set), inserting it if absent.

    Returns ``(slot, inserted)``; slot ``FULL`` when ``MAX_PROBE`` probes found
    no room. Safe with concurrent callers (compare-and-swap)."""
    mask = np.uint64(slots.shape[0] - 1)
    i = np.int64(mix64(stored) & mask)
    for _ in range(MAX_PROBE):
        cur = slots[i]
        if cur == stored:
            return i, 0
        if cur == 0:
            old = cas_u64(slots, i, np.uint64(0), stored)
            if old == 0:
                return i, 1
            if old == stored:
                return i, 0
        i = (i + 1) & np.int64(mask)
    return FULL, 0


@jit
def find_slot(slots, stored):
    """Slot of ``stored``, or -1 if absent (read only)."""
    mask = np.uint64(slots.shape[0] - 1)
    i = np.int64(mix64(stored) & mask)
    for _ in range(slots.shape[0]):
        cur = slots[i]
        if cur == stored:
            return i
        if cur == 0:
            return -1
        i = (i + 1) & np.int64(mask)
    return -1


@jit
def explore_mask(regrets, slot, m, possum, prune, thr, out):
    """Which of the traverser's ``m`` actions at table row ``slot`` a traversal
    explores: ``out[:m]`` (bool) all True, except with ``prune`` and some positive
    regret (``possum > 0``, the sum :func:`regret_matching_row` returned) the actions
    whose regret is below ``thr`` (points per deal), which are False (regret-based
    pruning, Pluribus supplement Alg. 1). Shared by the traversals of
    :mod:`.mccfr_team` and :mod:`.mccfr_vector`."""
    for a in range(m):
        out[a] = True
    if prune and possum > 0.0:
        for a in range(m):
            if regrets[slot, a] < thr:
                out[a] = False


@jit
def terminal_value(params, state, p, ret, eq):
    """Traverser ``p``'s value of a terminal deal state.

    ``eq`` empty (``shape[0] == 0``): points per deal (R8.1). Otherwise ``eq`` is the
    match-equity table ``float64[T+1, T+1, players]`` (:func:`equity_array`) and the value
    is the change of team 0's match equity, ``E(a', b', d+1) - E(a, b, d)``, for team 0's
    seats and its negation for team 1's (zero-sum): ``a, b`` the scores before the deal
    (``params[P_SCORE0]``, ``params[P_SCORE1]``), ``d = params[P_DEALER]``, ``a', b'``
    after it (team 0's capped return ``u``: ``a' = a + u`` if ``u > 0``, ``b' = b - u``
    if ``u < 0``; a deal scoring nothing keeps them, R5.1), the deal passing left (R1.3).
    """
    K.returns(params, state, ret)
    if eq.shape[0] == 0:
        return ret[p]
    a = params[P_SCORE0]
    b = params[P_SCORE1]
    d = params[P_DEALER]
    u = int(ret[0])
    if u > 0:
        a2, b2 = a + u, b
    else:
        a2, b2 = a, b - u
    v0 = eq[a2, b2, (d + 1) % params[P_PLAYERS]] - eq[a, b, d]
    return v0 if p % 2 == 0 else -v0


@jit
def close_node(regrets, r, m, sig, vals, explore, w):
    """Leave a traverser's node ``r`` of ``m`` actions: its sampled value, the
    ``sig``-weighted sum of the explored children's ``vals`` (``float64[width]`` rows),
    and its regrets moved by ``w`` times each explored action's advantage (floored at
    :data:`REGRET_FLOOR`; ``w`` is 1 in external sampling, the partner's reach in the
    team traversal, and no update when ``w`` is 0). Returns the value."""
    v = 0.0
    for a in range(m):
        if explore[a]:
            v += sig[a] * vals[a]
    if w > 0.0:
        for a in range(m):
            if explore[a]:
                x = regrets[r, a] + w * (vals[a] - v)
                regrets[r, a] = x if x > REGRET_FLOOR else REGRET_FLOOR
    return v

