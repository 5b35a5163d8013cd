"""Policies over a public tree's entries, to and from the other policy formats:
the simulator's tabular bot (``policy.npz``), OpenSpiel's tabular policy
(information-state string -> action probabilities), and the flat tree's tables.

Information sets are matched by the kernel's information-state key
(:func:`vitou_ai.rules.observe.infostate_key`), so a policy moves between the
two trees without a second reading of the rules. The public tree also holds
(decision, hand) pairs that no deal reaches (a hand the others' ranges rule
out); they have no row in the flat tree, and in the exports they are rows
that play never consults.
"""

from __future__ import annotations

import numpy as np

from ..._numba import jit
from ...bots.exact import MAX_DRAWS, policy_probs
from ...bots.policy import IWORK_SIZE
from ...rules import kernel as K
from ...rules import layout as L
from ..flat.tree import KIND_DECISION as FLAT_DECISION
from ..flat.tree import GameTree, replay_children
from ..flat.tree import replay_start as flat_replay_start
from .tree import (
    KIND_DECISION,
    PublicTree,
    _replay_push,
    check_entry_array,
    infoset_table,
    replay_start,
    set_dealt_hand,
)


def entry_children(tree: PublicTree) -> np.ndarray:
    """``int64[num_entries]``: the child node each entry's action leads to (-1 for the
    full and "not dealt" ranges, which belong to no action)."""
    out = np.full(tree.num_entries, -1, np.int64)
    nodes = np.nonzero(tree.actor_len > 0)[0]
    for c in nodes:
        out[tree.actor_off[c]:tree.actor_off[c] + tree.actor_len[c]] = c
    return out


def policy_table(tree: PublicTree, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The policy as (``keys`` ``int8[I, KEY_SIZE]``, ``probs`` ``float64[I, num_actions]``),
    one row per information set (kernel key), probabilities by the kernel's action id
    (``params.num_actions`` columns: 22 for Vitou, 31 for the family).

    Raises:
        ValueError: ``policy`` is not ``float64[num_entries]`` of finite values >= 0.
    """
    policy = check_entry_array(tree, policy)
    keys, entry_is = infoset_table(tree)
    child = entry_children(tree)
    probs = np.zeros((keys.shape[0], tree.params.num_actions))
    ok = entry_is >= 0
    probs[entry_is[ok], tree.action[child[ok]].astype(np.int64)] = policy[ok]
    return keys, probs


def to_tabular_policy(tree: PublicTree, policy: np.ndarray, name: str = "public-cfr"):
    """The policy as a simulator bot (:class:`vitou_ai.bots.tabular.TabularPolicy`),
    the ``policy.npz`` format of ``vitou-ai train``."""
    from ...bots.tabular import TabularPolicy

    keys, probs = policy_table(tree, policy)
    return TabularPolicy(keys, probs.astype(np.float32), name=name, params=tree.params)


def to_openspiel_dict(tree: PublicTree, policy: np.ndarray) -> dict[str, list[tuple[int, float]]]:
    """``{information-state string: [(action id, probability), ...]}``, the form
    ``pyspiel.TabularPolicy(dict)`` takes (as :func:`vitou_ai.solvers.flat.export.to_openspiel_dict`)."""
    from ...openspiel.game import infostate_string

    keys, probs = policy_table(tree, policy)
    p = tree.params
    out = {}
    for i in range(keys.shape[0]):
        acts = np.nonzero(probs[i])[0]
        legal = _legal_of(tree, i)
        out[infostate_string(keys[i], p.players, p.hand_size,
                             labels=p.rank_labels if p.family else None,
                             partnership=p.partnership, willughby=p.willughby)] = [
            (int(a), float(probs[i, a])) for a in sorted(set(acts) | legal)]
    return out


def _legal_of(tree: PublicTree, row: int) -> set[int]:
    cache = getattr(tree, "_legal_cache", None)
    if cache is None:
        _, entry_is = infoset_table(tree)
        child = entry_children(tree)
        cache = {}
        for e in np.nonzero(entry_is >= 0)[0]:
            cache.setdefault(int(entry_is[e]), set()).add(int(tree.action[child[e]]))
        tree._legal_cache = cache
    return cache.get(row, set())


def flat_slots(tree: PublicTree, flat: GameTree) -> tuple[np.ndarray, np.ndarray]:
    """Where each entry sits in the flat tree's tables: (row ``int64[num_entries]``, slot
    ``int64[num_entries]``), -1 for entries of information sets no deal reaches."""
    keys, entry_is = infoset_table(tree)
    child = entry_children(tree)
    index = {flat.is_keys[i].tobytes(): i for i in range(flat.num_infosets)}
    rows = np.full(tree.num_entries, -1, np.int64)
    slots = np.full(tree.num_entries, -1, np.int64)
    for e in np.nonzero(entry_is >= 0)[0]:
        r = index.get(keys[entry_is[e]].tobytes())
        if r is None:
            continue
        a = int(tree.action[child[e]])
        acts = list(flat.is_actions[r, :flat.is_nact[r]])
        rows[e] = r
        slots[e] = acts.index(a)
    return rows, slots


def from_flat_policy(tree: PublicTree, flat: GameTree, flat_policy: np.ndarray) -> np.ndarray:
    """A flat-tree policy (``float64[num_infosets, width]``, the flat tree's
    ``is_actions`` width) as a policy over the public tree's entries; information sets
    no deal reaches get the uniform policy."""
    from .cfr import entry_policy

    width = flat.is_actions.shape[1]
    if flat_policy.shape != (flat.num_infosets, width):
        raise ValueError(f"flat policy shape {flat_policy.shape} != "
                         f"{(flat.num_infosets, width)}")
    rows, slots = flat_slots(tree, flat)
    w = np.zeros(tree.num_entries)
    ok = rows >= 0
    w[ok] = flat_policy[rows[ok], slots[ok]]
    return entry_policy(tree, w)


@jit
def policy_entries(params, kind, player, first, nchild, action, aoff, alen, ent, hands, deal0,
                    pack, pi, bounds, na, start, out):
    """Replay the tree on the kernel (as ``public_tree._infoset_keys``) and write, for each
    entry, policy ``pi``'s probability of the entry's action for the entry's hand
    (``na``: the game's action ids, ``params.num_actions``). ``start``: the root's kernel
    state (``int32[STATE_SIZE]``: a subgame's, :mod:`vitou_ai.solvers.public.subgame`), or
    ``int32[0]`` for the initial state."""
    H = hands.shape[0]
    st_states, st_node = replay_start(params)
    if start.shape[0] == L.STATE_SIZE:
        K.copy_state(start, st_states[0])
    sp = 1
    state = np.empty(L.STATE_SIZE, np.int32)
    played = np.empty(L.MAX_RANKS, np.int64)
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    script = np.zeros(2 + MAX_DRAWS, np.uint64)
    legal = np.empty(na, np.int64)
    probs = np.zeros((H + 1, na))
    done = np.zeros(H + 1, np.bool_)
    row = np.empty(na)
    while sp > 0:
        sp -= 1
        K.copy_state(st_states[sp], state)
        node = st_node[sp]
        if kind[node] == KIND_DECISION:
            p = player[node]
            m = nchild[node]
            f = first[node]
            for k in range(m):
                c = f + k
                for j in range(alen[c]):
                    done[ent[aoff[c] + j]] = False
            for k in range(m):
                c = f + k
                for j in range(alen[c]):
                    e = aoff[c] + j
                    hh = ent[e]
                    if not done[hh]:
                        if hh < H:
                            set_dealt_hand(params, state, p, hands[hh], played)
                        n_legal = K.legal_actions(params, state, legal)
                        policy_probs(pack, pi, params, state, p, legal, n_legal, bounds, keybuf,
                                     iwork, script, row)
                        for a in range(na):
                            probs[hh, a] = row[a]
                        done[hh] = True
                    out[e] = probs[hh, action[c]]
        sp, st_states, st_node = _replay_push(params, kind, player, first, nchild, action, aoff,
                                              ent, hands, deal0, node, state, st_states, st_node,
                                              sp, played)

def _check_made_for(tree, policy) -> None:
    """Refuse a policy made for other game parameters than ``tree``'s (ValueError): the
    profile and every knob (``knobs()`` alone are the differences from each profile's
    defaults, equal for a 4x2x1 ``vitou_2p`` and a 4x2x1 ``truc_catalan_2p``). A policy
    made with the dealer drawn (``dealer=-1``) covers every dealer seat, so it fits a
    tree (a search's subgame) with a fixed one (R1.4)."""
    from ...rules.params import game_name

    own = getattr(policy, "params", None)
    if own is not None and hasattr(own, "knobs") and own.dealer == -1 \
            and tree.params.dealer >= 0:
        own = own.replace(dealer=tree.params.dealer)
    if own is not None and hasattr(own, "knobs") and (
            own.profile != tree.params.profile or own.knobs() != tree.params.knobs()):
        raise ValueError(f"policy {getattr(policy, 'name', '?')!r} was made for other game "
                         f"parameters ({game_name(policy.params)}) than this tree's "
                         f"({game_name(tree.params)})")


def bot_policy(tree: PublicTree, policy, start: np.ndarray | None = None) -> np.ndarray:
    """A simulator policy (random, heuristic, tabular or abstract; ``vitou_ai.bots``) as
    a policy over the public tree's entries, with its exact action probabilities
    (:func:`vitou_ai.bots.exact.policy_probs`: a heuristic bot's random draws are
    enumerated, not sampled), played by every seat.

    ``start``: ``int32[STATE_SIZE]``, the kernel state of the tree's root when the tree
    is a subgame (:attr:`vitou_ai.solvers.public.subgame.Subgame.state`); ``None``: a whole tree.

    Returns:
        ``float64[num_entries]``, normalised per information set.

    Raises:
        ValueError: a neural policy; a policy for other game parameters.
    """
    from ...bots.policy import RandomPolicy
    from .cfr import entry_policy

    _check_made_for(tree, policy)
    if isinstance(policy, RandomPolicy):
        # uniform over each (decision, hand)'s entries: the kernel replay's
        # 1 / n_legal, renormalised over the entries present, is the same policy
        # (tests), and the replay is the costly part (minutes on 155 M entries)
        return entry_policy(tree, np.zeros(tree.num_entries))
    return _replayed_policy(tree, policy, start)


def _replayed_policy(tree: PublicTree, policy, start: np.ndarray | None = None) -> np.ndarray:
    """:func:`bot_policy` by replaying the tree on the kernel, for any policy
    :func:`~vitou_ai.bots.exact.policy_probs` handles."""
    from ...bots.exact import breakpoints
    from ...bots.policy import policy_pack
    from .cfr import entry_policy

    pack = policy_pack(policy, signals=tree.params.signals)
    out = np.zeros(tree.num_entries)
    policy_entries(tree.params.to_array(), tree.kind, tree.player, tree.first, tree.nchild,
                    tree.action, tree.actor_off, tree.actor_len, tree.entries, tree.hands,
                    tree.deal0, pack, 0, breakpoints(pack.fparams[0]), tree.params.num_actions,
                    np.zeros(0, np.int32) if start is None
                    else np.ascontiguousarray(start, np.int32), out)
    # entries of information sets no deal reaches may have lost actions: renormalise
    return entry_policy(tree, out)


@jit
def _flat_policy_rows(params, kind, player, infoset, first, nchild, is_actions, deal_hands,
                      pack, pi, bounds, na, out):
    """Replay the flat tree on the kernel (children in the builder's order, as
    :func:`vitou_ai.solvers.flat.evaluate._pooled_infosets`) and write, at the first node
    of each information set reached, policy ``pi``'s probability of each of the set's
    actions into ``out[infoset, slot]``."""
    n = kind.shape[0]
    done = np.zeros(out.shape[0], np.bool_)
    st_states, st_node, state, acts, probs = flat_replay_start(params)
    sp = 1
    legal = np.empty(na, np.int64)
    row = np.empty(na)
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    script = np.zeros(2 + MAX_DRAWS, np.uint64)
    while sp > 0:
        sp -= 1
        K.copy_state(st_states[sp], state)
        node = st_node[sp]
        m = nchild[node]
        if m == 0 or node >= n:
            continue
        f = first[node]
        if kind[node] == FLAT_DECISION:
            iset = infoset[node]
            if not done[iset]:
                n_legal = K.legal_actions(params, state, legal)
                policy_probs(pack, pi, params, state, player[node], legal, n_legal, bounds,
                             keybuf, iwork, script, row)
                for c in range(m):
                    out[iset, c] = row[is_actions[iset, c]]
                done[iset] = True
        sp, st_states, st_node = replay_children(
            params, state, kind[node] == FLAT_DECISION, infoset[node], m, f, is_actions,
            deal_hands, acts, probs, st_states, st_node, sp)
    return done


def flat_bot_policy(tree: GameTree, policy) -> np.ndarray:
    """A simulator policy (random, heuristic, tabular or abstract; ``vitou_ai.bots``) as
    a policy over the flat tree's information sets, with its exact action probabilities
    (:func:`vitou_ai.bots.exact.policy_probs`), played by every seat: the flat-tree twin
    of :func:`bot_policy`, e.g. for :func:`vitou_ai.solvers.flat.evaluate.team_bracket` of a
    named bot in the games the public tree does not take.

    Returns:
        ``float64[num_infosets, width]`` (the flat tree's ``is_actions`` width),
        normalised per information set.

    Raises:
        ValueError: a neural policy; a policy for other game parameters.
    """
    from ...bots.exact import breakpoints
    from ...bots.policy import policy_pack

    _check_made_for(tree, policy)
    from ..flat.tree import enumerate_deals

    pack = policy_pack(policy, signals=tree.params.signals)
    out = np.zeros(tree.is_actions.shape, np.float64)
    hands, _ = enumerate_deals(tree.params)
    done = _flat_policy_rows(tree.params.to_array(), tree.kind, tree.player, tree.infoset,
                             tree.first, tree.nchild, tree.is_actions, hands, pack, 0,
                             breakpoints(pack.fparams[0]), tree.params.num_actions, out)
    if not done.all():  # every information set of a built tree is reached by some deal
        raise AssertionError("flat_bot_policy: an information set the replay did not reach")
    total = out.sum(1, keepdims=True)
    return out / np.where(total > 0, total, 1.0)
