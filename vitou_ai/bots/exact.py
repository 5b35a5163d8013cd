"""Exact action probabilities of the heuristic bots, by enumerating their random draws.

A heuristic bot (:func:`vitou_ai.bots.heuristic.heuristic_action`) decides from
the player's view of the state and a few uniform draws from its random stream:
each draw ``u`` is compared with one of its parameters (``u < bluff``, ``u <
lead_high``, ...) or turned into an index (``floor(u * n)``, a uniformly random
legal action or gesture). Its action is therefore a function of the draws that
is constant on the boxes cut by those thresholds: the parameters' values and the
fractions ``k / n``. Running the bot once per box, with a *scripted* stream
(:func:`vitou_ai.rng._scripted`) that returns a point inside the box, and adding
the box's volume to the action it takes, gives the bot's exact mixed action
(up to the rounding of the volumes). Boxes are opened one draw at a time, only
as deep as the bot actually draws, so a decision without draws costs one run.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit
from ..rng import SCRIPT_SCALE
from ..rules.observe import infostate_key
from .heuristic import heuristic_action
from .policy import (
    KIND_ABSTRACT,
    KIND_HEURISTIC,
    KIND_NEURAL,
    KIND_TABULAR,
    TM_CAP,
    TM_FALLBACK,
    TM_ROW0,
    TM_SLOT0,
    abstract_row,
)
from .tabular import lookup

#: Most draws one heuristic decision makes (epsilon, bluff, then up to two card choices).
MAX_DRAWS = 6


def breakpoints(hp: np.ndarray) -> np.ndarray:
    """``float64[B]``: sorted thresholds a draw is compared with: 0, 1, the parameters
    ``hp`` strictly between, and ``k / 3`` (``next_below(3)``: a false gesture);
    :func:`heuristic_probs` adds ``k / n_legal`` (a uniformly random legal action)."""
    pts = {0.0, 1.0, 1 / 3, 2 / 3}
    pts.update(float(x) for x in hp if 0.0 < x < 1.0)
    return np.array(sorted(pts))


@jit
def heuristic_probs(hp, params, state, player, legal, n_legal, bounds, iwork, script, out):
    """The heuristic bot's probability of each action at a decision (module docstring).

    Args:
        hp: ``float64[N_HP]``; params, state, player, legal, n_legal: as for
            :func:`~vitou_ai.bots.heuristic.heuristic_action`.
        bounds: :func:`breakpoints` of ``hp``, ``float64[B]``.
        iwork: ``int64`` scratch (32 slots); script: ``uint64[2 + MAX_DRAWS]`` scratch.
        out: ``float64[params.num_actions]`` (22 or 31), overwritten: the probabilities by
            action id.

    Raises:
        ValueError: a decision drawing more than ``MAX_DRAWS`` times.
    """
    extra = np.empty(bounds.shape[0] + n_legal - 1)
    extra[: bounds.shape[0]] = bounds
    for k in range(1, n_legal):
        extra[bounds.shape[0] + k - 1] = k / n_legal
    bounds = np.unique(extra)
    n_iv = bounds.shape[0] - 1
    for a in range(out.shape[0]):
        out[a] = 0.0
    idx = np.zeros(MAX_DRAWS, np.int64)
    depth = 0
    while True:
        script[0] = 0
        script[1] = depth
        w = 1.0
        for k in range(depth):
            j = idx[k]
            script[2 + k] = np.uint64(0.5 * (bounds[j] + bounds[j + 1]) * SCRIPT_SCALE)
            w *= bounds[j + 1] - bounds[j]
        a = heuristic_action(hp, params, state, player, script, legal, n_legal, iwork)
        if script[0] > depth:  # the bot drew past the script: open the next draw
            if depth == MAX_DRAWS:
                raise ValueError("a heuristic decision drew more than MAX_DRAWS times")
            idx[depth] = 0
            depth += 1
            continue
        out[a] += w
        while depth > 0:
            idx[depth - 1] += 1
            if idx[depth - 1] < n_iv:
                break
            depth -= 1
        if depth == 0:
            return out


@jit
def policy_probs_flagged(pack, pi, params, state, player, legal, n_legal, bounds, keybuf,
                         iwork, script, out):
    """:func:`policy_probs`, writing ``out`` and returning whether the policy fell back:
    1 when a tabular or abstract policy has no strategy at this information state (as
    :func:`vitou_ai.bots.policy.decide`'s ``fell_back``) and ``out`` holds its fallback's
    probabilities; 0 otherwise (always 0 for random and heuristic policies)."""
    kind = pack.kinds[pi]
    for a in range(out.shape[0]):
        out[a] = 0.0
    if kind == KIND_NEURAL:
        raise ValueError("exact probabilities of a neural policy are not available")
    fallback = kind
    if kind == KIND_TABULAR:
        infostate_key(params, state, player, keybuf)
        meta = pack.tab_meta
        row0 = meta[pi, TM_ROW0]
        r = lookup(pack.tab_slots, meta[pi, TM_SLOT0], meta[pi, TM_CAP], pack.tab_keys, row0,
                   keybuf)
        if r >= 0:
            total = 0.0
            for i in range(n_legal):
                total += pack.tab_probs[row0 + r, legal[i]]
            if total > 0.0:
                for i in range(n_legal):
                    out[legal[i]] = pack.tab_probs[row0 + r, legal[i]] / total
                return 0
        fallback = meta[pi, TM_FALLBACK]
    elif kind == KIND_ABSTRACT:
        r = abstract_row(pack, pi, params, state, player, legal, n_legal)
        if r >= 0:
            total = 0.0
            for i in range(n_legal):
                total += pack.abs_probs[r, i]
            if total > 0.0:
                for i in range(n_legal):
                    out[legal[i]] = pack.abs_probs[r, i] / total
                return 0
        fallback = pack.abs_meta[pi, TM_FALLBACK]
    if fallback == KIND_HEURISTIC:
        heuristic_probs(pack.fparams[pi], params, state, player, legal, n_legal, bounds,
                        iwork, script, out)
        return int(kind == KIND_TABULAR or kind == KIND_ABSTRACT)
    for i in range(n_legal):
        out[legal[i]] = 1.0 / n_legal
    return int(kind == KIND_TABULAR or kind == KIND_ABSTRACT)


@jit
def policy_probs(pack, pi, params, state, player, legal, n_legal, bounds, keybuf, iwork, script,
                 out):
    """Exact action probabilities of policy ``pi`` of a :class:`~vitou_ai.bots.policy.PolicyPack`
    at a decision, as :func:`~vitou_ai.bots.policy.choose_action` would draw them:
    uniform random play, a heuristic bot (:func:`heuristic_probs`), a tabular or
    abstract policy (its row, normalised over the legal actions, or its fallback where
    it has none). ``bounds``: :func:`breakpoints` of the heuristic (or fallback)
    parameters ``pack.fparams[pi]``. Neural policies are not handled (ValueError).

    Returns:
        ``out`` (``float64[params.num_actions]``), the probabilities by action id.
    """
    policy_probs_flagged(pack, pi, params, state, player, legal, n_legal, bounds, keybuf, iwork,
                         script, out)
    return out
