"""Uniformly random play over the kernel, batched with ``prange``.

Used by the quickstart summary and the kernel benchmark; the simulator with
bots and tournaments builds on the same pattern.
"""

from __future__ import annotations

import numba
import numpy as np

from .._numba import jit, jit_parallel
from ..rng import UINT64_MAX, check_seed, next_below, next_float, row_seed
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.params import P_RANKS

CHUNK = 256


@jit
def sample_chance(params, state, rng, actions, probs):
    """Draw a chance outcome of ``state`` with its exact probability."""
    if state[L.S_PHASE] == L.PH_DEAL:  # a uniformly drawn undealt card (R1.2)
        nranks = params[P_RANKS]  # ranks beyond the deck's have no cards
        total = 0
        for r in range(nranks):
            total += state[L.S_DECK + r]
        k = next_below(rng, total)
        for r in range(nranks):
            k -= state[L.S_DECK + r]
            if k < 0:
                return L.C_DEAL0 + r if r < 8 else L.C_DEAL_HI0 + r - 8
    n = K.chance_outcomes(params, state, actions, probs)
    u = next_float(rng)
    for i in range(n - 1):
        u -= probs[i]
        if u < 0.0:
            return actions[i]
    return actions[n - 1]


@jit
def play_random(params, state, rng, actions, probs):
    """Play ``state`` to the end with uniformly random legal actions; return the
    number of player decisions taken."""
    decisions = 0
    while not K.is_terminal(state):
        if K.is_chance(state):
            a = sample_chance(params, state, rng, actions, probs)
        else:
            n = K.legal_actions(params, state, actions)
            a = actions[next_below(rng, n)]
            decisions += 1
        K.apply_action(params, state, a)
    return decisions


@jit_parallel
def simulate_random(params, n_games, seed, end, winner, points, stake, raises, returns0):
    """Play ``n_games`` games with uniformly random players.

    Args:
        params: ``int64[N_PARAMS]``.
        seed: batch seed; row ``i`` uses its own stream (:func:`row_seed`), so
            the results do not depend on the thread count.
        end, winner, stake, raises: ``int8[n_games]`` outputs: the last deal's end
            code (``layout.END_*``), scoring team (-1 nobody), ladder index,
            number of raises.
        points: ``int16[n_games, 2]``: the last deal's points per team.
        returns0: ``float64[n_games]``: return of seat 0.
    """
    n_chunks = (n_games + CHUNK - 1) // CHUNK
    for c in numba.prange(n_chunks):
        state = np.empty(L.STATE_SIZE, dtype=np.int32)
        actions = np.empty(L.NUM_ACTIONS, dtype=np.int64)
        probs = np.empty(L.MAX_CHANCE_OUTCOMES, dtype=np.float64)
        rng = np.empty(1, dtype=np.uint64)
        ret = np.empty(L.MAX_PLAYERS, dtype=np.float64)
        for i in range(c * CHUNK, min(n_games, (c + 1) * CHUNK)):
            rng[0] = row_seed(seed, i)
            K.init_state(params, state)
            play_random(params, state, rng, actions, probs)
            end[i] = state[L.S_END]
            winner[i] = state[L.S_WINNER]
            points[i, 0] = state[L.S_POINTS]
            points[i, 1] = state[L.S_POINTS + 1]
            stake[i] = state[L.S_RES_STAKE]
            raises[i] = state[L.S_RES_RAISES]
            K.returns(params, state, ret)
            returns0[i] = ret[0]


def random_games(params_array: np.ndarray, n_games: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Run :func:`simulate_random` and return its outputs as a dict of arrays.

    Raises:
        ValueError, TypeError: a seed that is not a whole number in ``0 .. 2**64-1``.
    """
    seed = check_seed(seed, "seed", UINT64_MAX)
    out = {
        "end": np.empty(n_games, np.int8),
        "winner": np.empty(n_games, np.int8),
        "points": np.empty((n_games, 2), np.int16),
        "stake": np.empty(n_games, np.int8),
        "raises": np.empty(n_games, np.int8),
        "return0": np.empty(n_games, np.float64),
    }
    simulate_random(
        params_array, n_games, np.uint64(seed), out["end"], out["winner"], out["points"],
        out["stake"], out["raises"], out["return0"],
    )
    return out
