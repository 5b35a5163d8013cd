"""The abstraction on a full game tree: abstract key of every information set,
and the abstract game as a tree whose information sets are the abstract keys.

Solving that tree with :class:`vitou_ai.solvers.flat.cfr.TabularCFR` is CFR on the
abstract game (an imperfect-recall abstraction: Waugh, Zinkevich, Johanson,
Kan, Schnizlein & Bowling 2009, "A practical use of imperfect recall");
:func:`lift` maps its policy back onto the real tree, where
:mod:`vitou_ai.solvers.flat.evaluate` measures its exploitability exactly.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..._numba import jit
from ...abstraction.config import AbstractionConfig
from ...abstraction.key import abstract_key
from ...rules import kernel as K
from ...rules import layout as L
from ..flat.tree import KIND_CHANCE, KIND_DECISION, GameTree, enumerate_deals, first_deal


@jit
def _walk(cfg, params, kind, player, infoset, first, nchild, is_actions, deal_hands, out_key,
          conflict):
    """Depth-first over the tree, rebuilding each node's state from its parent's;
    write each information set's abstract key; count information sets whose
    nodes give different keys (``conflict[0]``, 0 for a function of the
    information state)."""
    n_nodes = kind.shape[0]
    stack_state = np.empty((1 << 14, L.STATE_SIZE), np.int32)
    stack_node = np.empty(1 << 14, np.int64)
    acts = np.empty(L.NUM_ACTIONS, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    K.init_state(params, stack_state[0])
    stack_node[0] = 0
    sp = 1
    seen = np.zeros(out_key.shape[0], np.bool_)
    while sp > 0:
        sp -= 1
        node = stack_node[sp]
        state = stack_state[sp].copy()
        if node >= n_nodes or nchild[node] == 0:
            continue
        if sp + nchild[node] >= stack_state.shape[0]:
            raise ValueError("tree walk: stack too small")
        if kind[node] == KIND_DECISION:
            p = player[node]
            m = K.legal_actions(params, state, acts)
            k = abstract_key(cfg, params, state, p, acts, m)
            i = infoset[node]
            if seen[i] and out_key[i] != k:
                conflict[0] += 1
            seen[i] = True
            out_key[i] = k
            for c in range(nchild[node]):
                K.copy_state(state, stack_state[sp])
                K.apply_action(params, stack_state[sp], is_actions[i, c])
                stack_node[sp] = first[node] + c
                sp += 1
        elif kind[node] == KIND_CHANCE:
            merged = first_deal(state)  # as the tree's builder
            if not merged:
                K.chance_outcomes(params, state, acts, probs)
            for c in range(nchild[node]):
                K.copy_state(state, stack_state[sp])
                if merged:
                    K.apply_deal(params, stack_state[sp], deal_hands[c])
                else:
                    K.apply_action(params, stack_state[sp], acts[c])
                stack_node[sp] = first[node] + c
                sp += 1


def infoset_keys(tree: GameTree, config: AbstractionConfig) -> np.ndarray:
    """``int64[num_infosets]``: the abstract key of each of the tree's information sets.

    Raises:
        ValueError: the key would not fit 63 bits; or (a bug) two nodes of one
            information set give different keys.
    """
    params = tree.params
    config.check_game(params)
    hands, _ = enumerate_deals(params)
    out = np.zeros(tree.num_infosets, np.int64)
    conflict = np.zeros(1, np.int64)
    _walk(config.to_array(params.signals), params.to_array(), tree.kind, tree.player,
          tree.infoset, tree.first, tree.nchild, tree.is_actions, hands, out, conflict)
    if conflict[0]:
        raise ValueError(f"abstraction is not a function of the information state: "
                         f"{int(conflict[0])} nodes disagree with their information set")
    return out


@dataclasses.dataclass(frozen=True)
class AbstractTree:
    """The abstract game on a tree: ``tree`` has the abstract information sets
    (``infoset`` remapped, ``is_*`` one row per abstract key), ``of_real[i]``
    the abstract information set of the real tree's information set ``i``."""

    tree: GameTree
    of_real: np.ndarray
    keys: np.ndarray


def abstract_tree(tree: GameTree, config: AbstractionConfig) -> AbstractTree:
    """The tree with information sets merged by abstract key.

    Raises:
        ValueError: merged information sets with different legal actions or
            different players (the abstraction would be unsound).
    """
    keys = infoset_keys(tree, config)
    # the tree keeps one information set per seat: merging seats (which the key's
    # relative position does) is exact by symmetry, and the tree's solvers and best
    # responses need one player per information set
    uniq, of_real = np.unique(np.stack([keys, tree.is_player.astype(np.int64)], 1), axis=0,
                              return_inverse=True)
    of_real = of_real.reshape(-1)
    m = uniq.shape[0]
    first_real = np.full(m, -1, np.int64)
    first_real[of_real[::-1]] = np.arange(tree.num_infosets)[::-1]
    for name in ("is_player", "is_nact"):
        a = getattr(tree, name)
        if not np.array_equal(a, a[first_real][of_real]):
            raise ValueError(f"abstraction merges information sets with different {name[3:]}")
    mask = tree.legal_mask()
    if not np.array_equal(np.where(mask, tree.is_actions, -1),
                          np.where(mask, tree.is_actions[first_real][of_real], -1)):
        raise ValueError("abstraction merges information sets with different legal actions")
    depth = np.zeros(m, tree.is_depth.dtype)
    np.maximum.at(depth, of_real, tree.is_depth)
    node_is = np.where(tree.infoset >= 0, of_real[np.maximum(tree.infoset, 0)], -1).astype(np.int32)
    abs_tree = dataclasses.replace(
        tree, infoset=node_is, is_player=tree.is_player[first_real],
        is_nact=tree.is_nact[first_real],
        is_actions=np.where(mask, tree.is_actions, 0).astype(np.int8)[first_real],
        is_depth=depth, is_keys=tree.is_keys[first_real])
    return AbstractTree(abs_tree, of_real.astype(np.int64), uniq[:, 0].copy())


def lift(abstract: AbstractTree, policy: np.ndarray) -> np.ndarray:
    """A policy of the abstract tree as a policy of the real tree
    (``float64[real infosets, 5]``)."""
    return policy[abstract.of_real]


def policy_on_tree(tree: GameTree, policy) -> np.ndarray:
    """An :class:`~vitou_ai.bots.abstract.AbstractPolicy` laid out on a real tree's
    information sets (``float64[num_infosets, 5]``; uniform at keys it lacks)."""
    from ...bots.abstract import lookup_row
    from ..flat.evaluate import uniform_policy

    keys = infoset_keys(tree, policy.abstraction).astype(np.uint64) | (np.uint64(1) << np.uint64(63))
    out = uniform_policy(tree)
    for i in range(tree.num_infosets):
        r = lookup_row(policy.slots, 0, policy.slots.shape[0], policy.keys, 0, keys[i])
        if r >= 0 and policy.nact[r] == tree.is_nact[i]:
            p = policy.probs[r, : tree.is_nact[i]].astype(np.float64)
            if p.sum() > 0:
                out[i, : tree.is_nact[i]] = p / p.sum()
    return out
