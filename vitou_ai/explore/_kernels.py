"""Jitted helpers of the explorer: the policy of one range at one public node.

Everything here composes the kernel (legal actions), the public tree's hand swap
(:func:`vitou_ai.solvers.public.tree.set_dealt_hand`) and the bots' exact probabilities
(:func:`vitou_ai.bots.exact.policy_probs`), as
:func:`vitou_ai.solvers.public.export.policy_entries` does over a whole tree; no
rule is restated.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit
from ..bots.exact import MAX_DRAWS, policy_probs
from ..bots.policy import (
    IWORK_SIZE,
    KIND_ABSTRACT,
    KIND_TABULAR,
    TM_CAP,
    TM_ROW0,
    TM_SLOT0,
    abstract_row,
)
from ..bots.tabular import lookup
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.observe import infostate_key
from ..solvers.public.tree import set_dealt_hand


@jit
def range_policy(params, state, p, hands, rng, dealt, pack, pi, bounds, na, out, hit):
    """Policy ``pi``'s action probabilities for each hand of seat ``p``'s range.

    Args:
        state: ``int32[STATE_SIZE]`` a kernel state of the public node (its hand of ``p``
            is overwritten).
        rng: ``int64[R]`` hand indices into ``hands`` (ignored when ``dealt`` is False:
            the one "not dealt" range).
        out: ``float64[R, na]``, filled by action id.
        hit: ``bool[R]``, False where a tabular or abstract policy has no row with mass on
            a legal action for the hand (it then plays its fallback: uniform, or a heuristic).
    """
    played = np.empty(L.MAX_RANKS, np.int64)
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    script = np.zeros(2 + MAX_DRAWS, np.uint64)
    legal = np.empty(na, np.int64)
    row = np.empty(na)
    for i in range(rng.shape[0]):
        if dealt:
            set_dealt_hand(params, state, p, hands[rng[i]], played)
        n_legal = K.legal_actions(params, state, legal)
        policy_probs(pack, pi, params, state, p, legal, n_legal, bounds, keybuf, iwork, script,
                     row)
        hit[i] = True
        kind = pack.kinds[pi]
        if kind == KIND_TABULAR:
            infostate_key(params, state, p, keybuf)
            meta = pack.tab_meta
            r = lookup(pack.tab_slots, meta[pi, TM_SLOT0], meta[pi, TM_CAP], pack.tab_keys,
                       meta[pi, TM_ROW0], keybuf)
            total = 0.0
            if r >= 0:
                for k in range(n_legal):
                    total += pack.tab_probs[meta[pi, TM_ROW0] + r, legal[k]]
            hit[i] = total > 0.0
        elif kind == KIND_ABSTRACT:
            r = abstract_row(pack, pi, params, state, p, legal, n_legal)
            total = 0.0
            if r >= 0:
                for k in range(n_legal):
                    total += pack.abs_probs[r, k]
            hit[i] = total > 0.0
        for a in range(na):
            out[i, a] = row[a]


@jit
def set_hand(params, state, seat, hand):
    """Give ``seat`` the hand ``hand`` in ``state`` (public part untouched)."""
    played = np.empty(L.MAX_RANKS, np.int64)
    set_dealt_hand(params, state, seat, hand, played)
