"""The public tree of a deal: one node per public history, a range of hands per player.

Vitou's payoffs depend on public actions only: cards are played face up, unplayed
cards are never shown, raises, refusals and declines are public (R2-R6, R9); so do
the Truc / Put family's (docs/RULES_family.md; all but ``truc_1912``'s fresh deal, F2.3). A
player's private state is their hand, a multiset (``docs/kernel_interface.md``:
one's own hand is seen as a multiset). So the game tree factors into a *public
tree* whose nodes are public histories, and at each node, per player, the list
of hands still consistent with that player's own public actions (the *range*).
An information set of player ``p`` is a pair (public decision node of ``p``,
hand of ``p`` in the range). This is the structure of Johanson, Waugh, Bowling &
Zinkevich 2011 ("Accelerating best response calculation in large extensive
games", section 4, public tree) and of Johanson et al. 2012 (vector-form CFR).

The tree is built from the kernel alone: at a public node the kernel state of
one representative deal is kept, and the hand of the player to act is swapped
for each hand of their range (:func:`set_dealt_hand` writes only the dealt hand and
the held cards, the layout fields of a hand) to ask the kernel for that hand's
legal actions; an action's child keeps the hands for which it is legal. The
kernel's rules are never restated here.

Layout (``postflop-solver``-like flat arrays; nodes numbered so that every
child has a larger index than its parent and siblings are contiguous):

- node arrays, length ``num_nodes``: ``kind`` (int8: 0 public chance, 1
  decision, 2 terminal, 3 the deal, 4 a depth-limited subgame's leaf), ``player`` (int8
  seat, -1 chance, deal or leaf,
  -4 terminal), ``first`` (int64) / ``nchild`` (int16) children, ``action``
  (int8: the kernel's action or chance id on the edge into the node, -1 at the
  root and below the deal), ``prob`` (float64: probability of a public chance
  edge, else 1), ``util`` (float64: team 0's return at terminals, points per
  deal, R8.1; the same for every deal reaching the node);
- ``actor_off`` (int64) / ``actor_len`` (int16): the range of the player who
  acted at the parent, as a slice of ``entries`` (for the deal's child and
  public chance children: -1 / 0, the ranges are inherited or full); the
  children of a decision have consecutive slices;
- ``entries`` (``uint8[num_entries]``, ``uint16`` past 255 hands: Put's 455, P1.1;
  :func:`entry_dtype`): hand indices into ``hands``; ``NONE_HAND``
  (= ``num_hands``) stands for "not dealt yet" (the 2p blind window, R9.2). An
  entry created at a decision edge is also the slot of that (information set,
  action) pair in the solvers' regret and policy tables.

Ranges are sorted by hand index; a child's range is a sub-list of its parent's.

One module because the builder (``_build``), the counter (``_count``, the same walk
storing nothing) and the key replay (``_infoset_keys``) are three walks over the one
array layout above, sharing its private helpers (``set_dealt_hand``, ``decision_actions``):
a change to the layout is made in this file alone.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..._numba import jit
from ...capabilities import require
from ...rules import kernel as K
from ...rules import layout as L
from ...rules.observe import infostate_key
from ...rules.params import P_PLAYERS, VitouParams
from ..arrays import TreeArrays, grow1, grow2  # sizes and array growth shared with the flat tree

KIND_CHANCE = 0
KIND_DECISION = 1
KIND_TERMINAL = 2
KIND_DEAL = 3
#: a depth-limited subgame's leaf: the first public state of a later trick, cut off (no
#: children); its values come from continuation strategies (Brown, Sandholm & Amos 2018),
#: :mod:`vitou_ai.solvers.public.depth_limited`. Whole trees and full subgames have none.
KIND_LEAF = 4


# ---- hands and deal probabilities --------------------------------------------------------


def enumerate_hands(params: VitouParams) -> np.ndarray:
    """All hands a seat can be dealt, as sorted multisets of rank indices (R1.1).

    Returns:
        ``int64[H, hand_size]``, in ``itertools.combinations_with_replacement``
        order (lexicographic), at most ``copies`` of a rank.
    """
    out = [c for c in itertools.combinations_with_replacement(range(params.ranks),
                                                                params.hand_size)
           if all(c.count(r) <= params.copies for r in set(c))]
    return np.array(out, dtype=np.int64).reshape(-1, params.hand_size)


def hand_counts(params: VitouParams, hands: np.ndarray) -> np.ndarray:
    """``int64[H, ranks]``: copies of each rank in each hand."""
    out = np.zeros((hands.shape[0], params.ranks), np.int64)
    for i, h in enumerate(hands):
        for r in h:
            out[i, r] += 1
    return out


def joint_deal_probability(params: VitouParams, counts_per_seat: list[np.ndarray]) -> Fraction:
    """Exact probability that seat ``s`` is dealt the multiset ``counts_per_seat[s]``
    for every seat, dealing ``hand_size`` cards to each from the shuffled deck (R1.2).

    With the copies of a rank told apart, the deal is a uniformly random ordered
    partition of the deck into one ``hand_size`` set per seat and the rest, so
    ``P = prod_r multinomial(copies; k_r0, .., k_r(n-1), rest_r)
    / multinomial(N; h, .., h, N - n h)``: card removal is exact, no
    independence between seats is assumed.

    Args:
        counts_per_seat: one ``int[ranks]`` count vector per seat (all seats).
    """
    c, h = params.copies, params.hand_size
    total = params.ranks * c
    num = 1
    for r in range(params.ranks):
        ks = [int(cs[r]) for cs in counts_per_seat]
        rest = c - sum(ks)
        if rest < 0:
            return Fraction(0)
        num *= math.factorial(c) // (math.prod(math.factorial(k) for k in ks)
                                     * math.factorial(rest))
    n = len(counts_per_seat)
    den = math.factorial(total) // (math.factorial(h) ** n * math.factorial(total - n * h))
    return Fraction(num, den)


def pair_deal_probabilities(params: VitouParams, hands: np.ndarray) -> np.ndarray:
    """Two players: ``float64[H, H]``, ``P[i, j]`` = probability that seat ``dealer+1``...
    in fact any fixed seat gets hand ``i`` and the other hand ``j`` (the law is
    symmetric in the seats). Exact (:func:`joint_deal_probability`)."""
    if params.players != 2:
        raise ValueError("pair_deal_probabilities is for two players")
    cnt = hand_counts(params, hands)
    H = hands.shape[0]
    out = np.zeros((H, H))
    for i in range(H):
        for j in range(H):
            out[i, j] = float(joint_deal_probability(params, [cnt[i], cnt[j]]))
    return out


def entry_dtype(num_hands: int) -> type:
    """The type of a hand index in ``entries`` / ``parent_slot``: ``uint8`` while the hands
    and the "not dealt" index fit (every Vitou deck: at most 120 hands), else ``uint16``
    (Put's 52 cards: 455 three-card hands). The walks compile once per type."""
    return np.uint8 if num_hands + 1 <= 256 else np.uint16


# ---- the builder (jitted) ------------------------------------------------------------------


@jit
def set_dealt_hand(params, state, seat, hand, played):
    """Give ``seat`` the dealt hand ``hand`` (``int[hand_size]``) in ``state``, keeping the
    cards it has played: writes the layout fields of a hand only (dealt cards and
    held copies); the public part of the state is untouched."""
    h = hand.shape[0]
    base = L.S_HAND + seat * L.MAX_HAND
    held = L.S_HELD + seat * L.MAX_RANKS
    for r in range(L.MAX_RANKS):
        played[r] = -state[held + r]
    for i in range(h):
        played[state[base + i]] += 1
    for r in range(L.MAX_RANKS):
        state[held + r] = -played[r]
    for i in range(h):
        state[base + i] = hand[i]
        state[held + hand[i]] += 1


@jit
def _ranges_compatible(n, counts, copies, ent, offs, lens, pair_p):
    """False when no deal gives every seat a hand of its range: per rank, the
    fewest copies each range needs must fit the deck; for two players, exactly
    (some pair of hands has positive probability)."""
    if n == 2:
        for i in range(lens[0]):
            a = ent[offs[0] + i]
            for j in range(lens[1]):
                if pair_p[a, ent[offs[1] + j]] > 0.0:
                    return True
        return False
    for r in range(counts.shape[1]):
        need = 0
        for s in range(n):
            m = 1 << 30
            for i in range(lens[s]):
                c = counts[ent[offs[s] + i], r]
                if c < m:
                    m = c
            need += m
        if need > copies:
            return False
    return True


@jit
def decision_actions(params, state, p, hands, counts, copies, pair_p, n, H, ent, ne, offs, lens,
                      legal, union, keep, played, acts):
    """At a decision of seat ``p``: ``legal[i, a]`` for each hand ``i`` of its range
    (``offs[p]`` / ``lens[p]``, slices of ``ent``) and ``keep[a]`` for the actions
    some deal allows (card removal across seats). ``legal``, ``union`` and ``keep``
    are indexed by action id, ``params.num_actions`` wide (22 or 31). Uses ``ent``
    beyond ``ne`` as scratch; ``state``'s hand of ``p`` is left as the range's last hand.

    Returns:
        (number of kept actions, ``ent`` (grown if needed)).
    """
    off_p = offs[p]
    len_p = lens[p]
    dealt = ent[off_p] != H
    na = union.shape[0]
    for a in range(na):
        union[a] = False
        keep[a] = False
    for i in range(len_p):
        if dealt:
            set_dealt_hand(params, state, p, hands[ent[off_p + i]], played)
        for a in range(na):
            legal[i, a] = False
        m = K.legal_actions(params, state, acts)
        for k in range(m):
            legal[i, acts[k]] = True
            union[acts[k]] = True
    m = 0
    for a in range(na):
        if not union[a]:
            continue
        cnt = 0
        for i in range(len_p):
            if legal[i, a]:
                cnt += 1
        # write the candidate range at the end of ent (committed only if kept)
        if ne + cnt > ent.shape[0]:
            ent = grow1(ent, ne + cnt)
        j = 0
        for i in range(len_p):
            if legal[i, a]:
                ent[ne + j] = ent[off_p + i]
                j += 1
        save_off = offs[p]
        save_len = lens[p]
        offs[p] = ne
        lens[p] = cnt
        ok = (not dealt) or _ranges_compatible(n, counts, copies, ent, offs, lens, pair_p)
        offs[p] = save_off
        lens[p] = save_len
        if ok:
            keep[a] = True
            m += 1
    return m, ent


@jit
def _first_child_on_top(st_states, st_node, st_off, st_len, lo, hi):
    """Reverse the stack rows ``lo:hi`` (a node's children, pushed in order) so the
    first child is expanded first. Each node's children stay one block, and the
    blocks (and the entries) are laid out in the order the range walks visit them:
    a node's children, then the subtree of its first child, then of the second...
    The walks then read the tree's arrays front to back, which the memory
    prefetchers follow; the other order made them wait on memory."""
    i = lo
    j = hi - 1
    while i < j:
        for x in range(st_states.shape[1]):
            t = st_states[i, x]
            st_states[i, x] = st_states[j, x]
            st_states[j, x] = t
        t2 = st_node[i]
        st_node[i] = st_node[j]
        st_node[j] = t2
        for x in range(st_off.shape[1]):
            t2 = st_off[i, x]
            st_off[i, x] = st_off[j, x]
            st_off[j, x] = t2
            t2 = st_len[i, x]
            st_len[i, x] = st_len[j, x]
            st_len[j, x] = t2
        i += 1
        j -= 1


@jit
def _build(params, hands, counts, copies, deal0, pair_p, max_nodes, visit_order, na, ent,
           pslot, start, root_ent, root_len, leaf_tricks=-1):
    """The public tree's walk (see :func:`build_public_tree`). ``root_len[0] < 0``: from the
    initial state, every range "not dealt"; else from the kernel state ``start`` (a dealt
    decision state: a subgame, :mod:`vitou_ai.solvers.public.subgame`) with seat ``s``'s range
    ``root_ent[s, :root_len[s]]`` (sorted hand indices). ``leaf_tricks >= 0``: a
    non-terminal node whose state has completed ``leaf_tricks`` tricks (``S_NTRICKS``) is a
    ``KIND_LEAF`` without children, its node id and kernel state returned last (the
    depth-limited subgame)."""
    n = params[P_PLAYERS]
    H = hands.shape[0]
    cap = 1024
    kind = np.empty(cap, np.int8)
    player = np.empty(cap, np.int8)
    first = np.empty(cap, np.int64)
    nchild = np.empty(cap, np.int16)
    action = np.empty(cap, np.int8)
    prob = np.empty(cap, np.float64)
    util = np.empty(cap, np.float64)
    aoff = np.empty(cap, np.int64)
    alen = np.empty(cap, np.int16)
    # ent / pslot come allocated (4096 + H slots; uint8, or uint16 past 255 hands)
    ent[0] = H  # the "not dealt" range
    for i in range(H):
        ent[1 + i] = i
    ne = 1 + H

    scap = 256
    st_states = np.empty((scap, L.STATE_SIZE), np.int32)
    st_node = np.empty(scap, np.int64)
    st_off = np.empty((scap, 4), np.int64)
    st_len = np.empty((scap, 4), np.int64)
    st_node[0] = 0
    if root_len[0] < 0:
        K.init_state(params, st_states[0])
        for s in range(4):
            st_off[0, s] = 0
            st_len[0, s] = 1
    else:
        K.copy_state(start, st_states[0])
        for s in range(4):
            m0 = root_len[s]
            if ne + m0 > ent.shape[0]:
                ent = grow1(ent, ne + m0)
                pslot = grow1(pslot, ne + m0)
            for i in range(m0):
                ent[ne + i] = root_ent[s, i]
                pslot[ne + i] = i
            st_off[0, s] = ne
            st_len[0, s] = m0
            ne += m0
    sp = 1
    n_nodes = 1
    prob[0] = 1.0
    action[0] = -1
    aoff[0] = -1
    alen[0] = 0
    acts = np.empty(na, np.int64)
    cprobs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    ret = np.empty(L.MAX_PLAYERS, np.float64)
    state = np.empty(L.STATE_SIZE, np.int32)
    played = np.empty(L.MAX_RANKS, np.int64)
    legal = np.zeros((H + 1, na), np.bool_)
    union = np.zeros(na, np.bool_)
    keep = np.zeros(na, np.bool_)
    offs = np.empty(4, np.int64)
    lens = np.empty(4, np.int64)
    n_leaves = 0
    leaf_node = np.empty(16, np.int64)
    leaf_state = np.empty((16, L.STATE_SIZE), np.int32)
    while sp > 0:
        sp -= 1
        K.copy_state(st_states[sp], state)
        node = st_node[sp]
        for s in range(4):
            offs[s] = st_off[sp, s]
            lens[s] = st_len[sp, s]
        if K.is_terminal(state):
            kind[node] = KIND_TERMINAL
            player[node] = -4
            first[node] = 0
            nchild[node] = 0
            K.returns(params, state, ret)
            util[node] = ret[0]
            continue
        util[node] = 0.0
        if leaf_tricks >= 0 and state[L.S_NTRICKS] >= leaf_tricks:
            kind[node] = KIND_LEAF
            player[node] = -1
            first[node] = 0
            nchild[node] = 0
            if n_leaves >= leaf_node.shape[0]:
                leaf_node = grow1(leaf_node, n_leaves + 1)
                leaf_state = grow2(leaf_state, n_leaves + 1)
            leaf_node[n_leaves] = node
            K.copy_state(state, leaf_state[n_leaves])
            n_leaves += 1
            continue
        p = -1
        off_p = 0
        len_p = 0
        dealt = False
        if K.is_chance(state):
            player[node] = -1
            if state[L.S_PHASE] == L.PH_DEAL and state[L.S_NDEALT] == 0:
                kind[node] = KIND_DEAL
                m = 1
            elif state[L.S_PHASE] == L.PH_DRAW_DEALER:
                kind[node] = KIND_CHANCE
                m = K.chance_outcomes(params, state, acts, cprobs)
            else:
                raise ValueError("private chance event (gesture caught) in a public tree")
        else:
            # a decision node: the legal actions of every hand in the actor's range
            p = K.current_player(params, state)
            kind[node] = KIND_DECISION
            player[node] = p
            off_p = offs[p]
            len_p = lens[p]
            dealt = ent[off_p] != H
            m, ent = decision_actions(params, state, p, hands, counts, copies, pair_p, n, H, ent,
                                       ne, offs, lens, legal, union, keep, played, acts)
        first[node] = n_nodes
        nchild[node] = m
        need = n_nodes + m
        if need > max_nodes:
            return (need, kind, player, first, nchild, action, prob, util, aoff, alen, ne, ent,
                    pslot, leaf_node[:n_leaves], leaf_state[:n_leaves])
        if need > kind.shape[0]:
            kind = grow1(kind, need)
            player = grow1(player, need)
            first = grow1(first, need)
            nchild = grow1(nchild, need)
            action = grow1(action, need)
            prob = grow1(prob, need)
            util = grow1(util, need)
            aoff = grow1(aoff, need)
            alen = grow1(alen, need)
        if sp + m > st_states.shape[0]:
            st_states = grow2(st_states, sp + m)
            st_node = grow1(st_node, sp + m)
            st_off = grow2(st_off, sp + m)
            st_len = grow2(st_len, sp + m)
        sp0 = sp
        if kind[node] != KIND_DECISION:
            for k in range(m):
                child = n_nodes + k
                K.copy_state(state, st_states[sp])
                aoff[child] = -1
                alen[child] = 0
                if kind[node] == KIND_DEAL:
                    K.apply_deal(params, st_states[sp], deal0)
                    action[child] = -1
                    prob[child] = 1.0
                    for s in range(4):
                        st_off[sp, s] = 1
                        st_len[sp, s] = H
                else:
                    K.apply_action(params, st_states[sp], acts[k])
                    action[child] = acts[k]
                    prob[child] = cprobs[k]
                    for s in range(4):
                        st_off[sp, s] = offs[s]
                        st_len[sp, s] = lens[s]
                st_node[sp] = child
                sp += 1
            if visit_order:
                _first_child_on_top(st_states, st_node, st_off, st_len, sp0, sp)
            n_nodes += m
            continue
        k = 0
        for a in range(na):
            if not keep[a]:
                continue
            child = n_nodes + k
            k += 1
            cnt = 0
            for i in range(len_p):
                if legal[i, a]:
                    cnt += 1
            if ne + cnt > ent.shape[0]:
                ent = grow1(ent, ne + cnt)
            if ne + cnt > pslot.shape[0]:
                pslot = grow1(pslot, ne + cnt)
            j = 0
            rep = -1
            for i in range(len_p):
                if legal[i, a]:
                    ent[ne + j] = ent[off_p + i]
                    pslot[ne + j] = i
                    if rep < 0:
                        rep = i
                    j += 1
            action[child] = a
            prob[child] = 1.0
            aoff[child] = ne
            alen[child] = cnt
            K.copy_state(state, st_states[sp])
            if dealt:
                set_dealt_hand(params, st_states[sp], p, hands[ent[off_p + rep]], played)
            K.apply_action(params, st_states[sp], a)
            st_node[sp] = child
            for s in range(4):
                st_off[sp, s] = offs[s]
                st_len[sp, s] = lens[s]
            st_off[sp, p] = ne
            st_len[sp, p] = cnt
            sp += 1
            ne += cnt
        if visit_order:
            _first_child_on_top(st_states, st_node, st_off, st_len, sp0, sp)
        n_nodes += m
    return (n_nodes, kind, player, first, nchild, action, prob, util, aoff, alen, ne, ent, pslot,
            leaf_node[:n_leaves], leaf_state[:n_leaves])


@dataclass
class PublicTree(TreeArrays):
    """A deal's public tree (module docstring for the arrays).

    ``hands`` (``int64[H, hand_size]``) lists the hands a seat can hold; ``pair_prob``
    (two players, ``float64[H, H]``) the exact probability of each pair of hands
    (seat ``dealer+1``'s first; the law is symmetric).
    """

    params: VitouParams
    hands: np.ndarray
    counts: np.ndarray
    pair_prob: np.ndarray
    kind: np.ndarray
    player: np.ndarray
    first: np.ndarray
    nchild: np.ndarray
    action: np.ndarray
    prob: np.ndarray
    util: np.ndarray
    actor_off: np.ndarray
    actor_len: np.ndarray
    entries: np.ndarray
    parent_slot: np.ndarray
    deal0: np.ndarray

    ARRAYS = ("kind", "player", "first", "nchild", "action", "prob", "util", "actor_off",
              "actor_len", "entries", "parent_slot", "pair_prob")

    @property
    def num_edges(self) -> int:
        return self.num_nodes - 1

    @property
    def num_hands(self) -> int:
        return int(self.hands.shape[0])

    @property
    def num_entries(self) -> int:
        return int(self.entries.shape[0])


def check_entry_array(tree: PublicTree, values, what: str = "policy") -> np.ndarray:
    """Refuse an array that is not ``float64[tree.num_entries]`` of finite values >= 0.

    The range passes index it by entry without bounds checks, so a shorter array
    would be read past its end; the one check every public-tree function taking a
    policy (or weights) over entries goes through.

    Returns:
        ``values`` as a C-contiguous ``float64`` array (the same object when it is one).

    Raises:
        TypeError: not an array of numbers.
        ValueError: another shape, a NaN or infinite entry, a negative entry.
    """
    if not isinstance(values, np.ndarray) or values.dtype.kind not in "biuf":
        raise TypeError(f"{what} must be a float64[{tree.num_entries}] NumPy array over this "
                        f"public tree's entries, got {type(values).__name__}"
                        + (f" of {values.dtype}" if isinstance(values, np.ndarray) else ""))
    if values.shape != (tree.num_entries,):
        raise ValueError(f"{what} shape {values.shape} != ({tree.num_entries},): one value "
                         "per entry of this public tree")
    arr = np.ascontiguousarray(values, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        e = int(np.argmax(bad))
        raise ValueError(f"{what} entry {e} is {arr[e]}: every entry must be a finite number")
    if (arr < 0).any():
        e = int(np.argmax(arr < 0))
        raise ValueError(f"{what} entry {e} is {arr[e]}: every entry must be >= 0")
    return arr


def check_public_params(params: VitouParams) -> None:
    """Refuse the games whose private information is more than one hand per player.

    Every two-player profile and the family's four-player games are one hand per player:
    their tables are sized from the game (``params.num_actions`` ids, up to 13 ranks).

    Raises:
        ValueError, one line naming the rule: match mode; signals on (R7.2: a caught
            gesture is a private observation); ``truc_1912`` (F2.3: a fresh deal gives
            every player a second private hand, and the profile has no variant without
            it); Vitou with four players and exactly one team at ``target - 1`` (R6.1: the
            partners see each other's hands; the family's C5.1 shows none).
    """
    require("public_tree", params)
    if params.mode != "deal":
        raise ValueError("public trees are built for deal mode only (mode='deal', R8.1): a match "
                         "(R8.2) chains deals")
    if params.signals:
        raise ValueError("signals are private observations (R7.2): the public tree needs "
                         "signals=False")
    t1 = params.target - 1
    if (not params.family and params.players == 4
            and (params.scores[0] == t1) != (params.scores[1] == t1)):
        raise ValueError("one team at target-1 shares its hands (R6.1): not a one-hand-per-"
                         "player game; the public tree refuses these scores")


def build_public_tree(params: VitouParams, max_nodes: int = 500_000_000,
                      layout: str = "visit") -> PublicTree:
    """Build the public tree of one deal (deal mode, R8.1) from the kernel.

    Args:
        layout: the order of the node and entry arrays. ``"visit"``: a node's children
            block, then its first child's subtree, then the second's... the order the
            range walks read them in (the memory prefetchers follow it; about 1.6x
            fewer CPU seconds per CFR iteration on the full ``vitou_2p`` tree);
            ``"expansion"``: the last child's subtree first (the build's plain
            depth-first stack; kept as the benchmark's baseline). The tree is the same.

    Raises:
        ValueError: see :func:`check_public_params`; more than ``max_nodes`` nodes;
            ``max_nodes`` below 1 or not below 2**31; an unknown ``layout``.

    Examples:
        >>> from vitou_ai import VitouParams
        >>> from vitou_ai.solvers.public.tree import build_public_tree
        >>> params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=1, dealer=-1)
        >>> tree = build_public_tree(params)
        >>> tree.num_nodes, tree.num_entries
        (2219, 3125)
    """
    check_public_params(params)
    if layout not in ("visit", "expansion"):
        raise ValueError(f"unknown public tree layout {layout!r}; expected 'visit' or "
                         "'expansion'")
    if not 1 <= max_nodes < 2**31:
        raise ValueError(f"max_nodes must be at least 1 and below 2**31, not {max_nodes:,}")
    hands = enumerate_hands(params)
    counts = hand_counts(params, hands)
    pair_p = (pair_deal_probabilities(params, hands) if params.players == 2
              else np.zeros((1, 1)))
    deal0 = representative_deal(params)
    H = hands.shape[0]
    out = _build(params.to_array(), hands, counts, params.copies, deal0, pair_p, max_nodes,
                 layout == "visit", params.num_actions, np.empty(4096 + H, entry_dtype(H)),
                 np.zeros(4096 + H, entry_dtype(H)), np.zeros(L.STATE_SIZE, np.int32),
                 np.zeros((4, 1), np.int64), np.full(4, -1, np.int64))
    n_nodes = out[0]
    if n_nodes > max_nodes:
        raise ValueError(f"the public tree has more than {max_nodes:,} nodes")
    ne = out[10]
    kind, player, first, nchild, action, prob, util, aoff, alen = (a[:n_nodes] for a in out[1:10])
    # child and entry offsets in 32 bits where they fit: the range walks read them at
    # every node, and they were a quarter of the bytes read
    return PublicTree(params, hands, counts, pair_p, kind.copy(), player.copy(),
                      first.astype(np.int32), nchild.copy(), action.copy(), prob.copy(),
                      util.copy(), aoff.astype(np.int32 if ne < 2**31 else np.int64), alen.copy(), out[11][:ne].copy(),
                      out[12][:ne].copy(), deal0)



@jit
def _count(params, hands, counts, copies, deal0, pair_p, probes, seed, na, ent):
    """Nodes and entries of the public tree without keeping it: an exact depth-first
    count (``probes == 0``), or Knuth's estimator (``probes`` random root-to-leaf
    paths, each node counted with the product of the branching factors above it).
    Entries of finished subtrees are reused (a stack discipline), so memory stays
    at the depth times one node's ranges."""
    n = params[P_PLAYERS]
    H = hands.shape[0]
    ent[0] = H  # ent comes allocated, as for _build
    for i in range(H):
        ent[1 + i] = i
    scap = 256
    st_states = np.empty((scap, L.STATE_SIZE), np.int32)
    st_off = np.empty((scap, 4), np.int64)
    st_len = np.empty((scap, 4), np.int64)
    st_mark = np.empty(scap, np.int64)
    st_w = np.empty(scap, np.float64)
    acts = np.empty(na, np.int64)
    cprobs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    state = np.empty(L.STATE_SIZE, np.int32)
    played = np.empty(L.MAX_RANKS, np.int64)
    legal = np.zeros((H + 1, na), np.bool_)
    union = np.zeros(na, np.bool_)
    keep = np.zeros(na, np.bool_)
    offs = np.empty(4, np.int64)
    lens = np.empty(4, np.int64)
    np.random.seed(seed)
    nodes = 0.0
    entries = 0.0
    decisions = 0.0
    rounds = max(probes, 1)
    for _ in range(rounds):
        K.init_state(params, st_states[0])
        for s in range(4):
            st_off[0, s] = 0
            st_len[0, s] = 1
        st_mark[0] = 1 + H
        st_w[0] = 1.0
        sp = 1
        nodes += 1.0
        entries += 1.0 + H
        while sp > 0:
            sp -= 1
            K.copy_state(st_states[sp], state)
            ne = st_mark[sp]
            w = st_w[sp]
            for s in range(4):
                offs[s] = st_off[sp, s]
                lens[s] = st_len[sp, s]
            if K.is_terminal(state):
                continue
            if sp + na + L.MAX_CHANCE_OUTCOMES > st_states.shape[0]:
                st_states = grow2(st_states, 2 * st_states.shape[0])
                st_off = grow2(st_off, 2 * st_off.shape[0])
                st_len = grow2(st_len, 2 * st_len.shape[0])
                st_mark = grow1(st_mark, 2 * st_mark.shape[0])
                st_w = grow1(st_w, 2 * st_w.shape[0])
            if K.is_chance(state):
                if state[L.S_PHASE] == L.PH_DEAL and state[L.S_NDEALT] == 0:
                    m = 1
                elif state[L.S_PHASE] == L.PH_DRAW_DEALER:
                    m = K.chance_outcomes(params, state, acts, cprobs)
                else:
                    raise ValueError("private chance event (gesture caught) in a public tree")
                nodes += w * m
                pick = np.random.randint(m) if probes > 0 else -1
                for k in range(m):
                    if pick >= 0 and k != pick:
                        continue
                    K.copy_state(state, st_states[sp])
                    if m == 1 and state[L.S_PHASE] == L.PH_DEAL:
                        K.apply_deal(params, st_states[sp], deal0)
                        for s in range(4):
                            st_off[sp, s] = 1
                            st_len[sp, s] = H
                    else:
                        K.apply_action(params, st_states[sp], acts[k])
                        for s in range(4):
                            st_off[sp, s] = offs[s]
                            st_len[sp, s] = lens[s]
                    st_mark[sp] = ne
                    st_w[sp] = w * m if probes > 0 else 1.0
                    sp += 1
                continue
            p = K.current_player(params, state)
            decisions += w
            off_p = offs[p]
            len_p = lens[p]
            dealt = ent[off_p] != H
            m, ent = decision_actions(params, state, p, hands, counts, copies, pair_p, n, H, ent,
                                       ne, offs, lens, legal, union, keep, played, acts)
            nodes += w * m
            pick = np.random.randint(m) if probes > 0 else -1
            k = 0
            first_sp = sp
            for a in range(na):
                if not keep[a]:
                    continue
                cnt = 0
                for i in range(len_p):
                    if legal[i, a]:
                        cnt += 1
                entries += w * cnt
                if pick >= 0 and k != pick:
                    k += 1
                    continue
                k += 1
                if ne + cnt > ent.shape[0]:
                    ent = grow1(ent, ne + cnt)
                j = 0
                rep = -1
                for i in range(len_p):
                    if legal[i, a]:
                        ent[ne + j] = ent[off_p + i]
                        if rep < 0:
                            rep = i
                        j += 1
                K.copy_state(state, st_states[sp])
                if dealt:
                    set_dealt_hand(params, st_states[sp], p, hands[ent[off_p + rep]], played)
                K.apply_action(params, st_states[sp], a)
                for s in range(4):
                    st_off[sp, s] = offs[s]
                    st_len[sp, s] = lens[s]
                st_off[sp, p] = ne
                st_len[sp, p] = cnt
                st_w[sp] = w * m if probes > 0 else 1.0
                sp += 1
                ne += cnt
            for q in range(first_sp, sp):
                st_mark[q] = ne
    return nodes / rounds, entries / rounds, decisions / rounds


@dataclass(frozen=True)
class TreeCount:
    """Size of a public tree, counted without building it (:func:`count_public_tree`).

    ``nodes`` / ``entries`` / ``decisions`` are exact when ``probes == 0``, else
    Knuth's unbiased estimates (means over ``probes`` random paths). ``tree_bytes``:
    the arrays of :class:`PublicTree` (39 bytes a node, ``2 * entry_bytes`` an entry:
    :func:`entry_dtype`);
    ``solver_bytes``: that plus :class:`~vitou_ai.solvers.public.cfr.PublicCFR`'s two
    ``float64`` tables (16 bytes an entry).
    """

    nodes: float
    entries: float
    decisions: float
    probes: int
    entry_bytes: int = 1

    @property
    def tree_bytes(self) -> float:
        return 39.0 * self.nodes + 2.0 * self.entry_bytes * self.entries

    @property
    def solver_bytes(self) -> float:
        return self.tree_bytes + 16.0 * self.entries


def count_public_tree(params: VitouParams, probes: int = 0, seed: int = 0) -> TreeCount:
    """Count the public tree of ``params`` without storing it (exact, or Knuth's
    estimator with ``probes`` random paths: D. E. Knuth 1975, "Estimating the
    efficiency of backtrack programs", Math. Comp. 29). Same tree as
    :func:`build_public_tree`.

    Raises:
        ValueError: see :func:`check_public_params`; ``probes < 0``.
    """
    check_public_params(params)
    if probes < 0:
        raise ValueError(f"probes must be >= 0, not {probes}")
    from ...rng import UINT64_MAX, check_seed

    seed = check_seed(seed, "seed", UINT64_MAX)
    hands = enumerate_hands(params)
    counts = hand_counts(params, hands)
    pair_p = (pair_deal_probabilities(params, hands) if params.players == 2
              else np.zeros((1, 1)))
    nodes, entries, decisions = _count(params.to_array(), hands, counts, params.copies,
                                       representative_deal(params), pair_p, probes, seed,
                                       params.num_actions,
                                       np.empty(4096 + hands.shape[0], entry_dtype(hands.shape[0])))
    return TreeCount(float(nodes), float(entries), float(decisions), probes,
                     np.dtype(entry_dtype(hands.shape[0])).itemsize)


def representative_deal(params: VitouParams) -> np.ndarray:
    """A deal that fits the deck, only there to give the kernel a dealt state."""
    deck = [params.copies] * params.ranks
    deal0 = np.zeros((params.players, params.hand_size), np.int64)
    for s in range(params.players):
        for i in range(params.hand_size):
            r = next(r for r in range(params.ranks) if deck[r] > 0)
            deck[r] -= 1
            deal0[s, i] = r
    return deal0


@jit
def replay_start(params):
    """The stack of a replay of a built tree on the kernel: (``int32[cap, STATE_SIZE]``
    states, ``int64[cap]`` nodes, 1 entry: the root's initial state)."""
    st_states = np.empty((256, L.STATE_SIZE), np.int32)
    st_node = np.empty(256, np.int64)
    K.init_state(params, st_states[0])
    st_node[0] = 0
    return st_states, st_node


@jit
def _replay_push(params, kind, player, first, nchild, action, aoff, ent, hands, deal0, node,
                 state, st_states, st_node, sp, played):
    """Push the children of ``node`` (kernel state ``state``) on a replay stack of
    :func:`replay_start`: a decision child gets the actor's hand of its first entry
    (when dealt), a deal node's child the representative deal ``deal0``. Returns
    ``(sp, st_states, st_node)``, the stack grown if needed."""
    H = hands.shape[0]
    m = nchild[node]
    f = first[node]
    if sp + m > st_states.shape[0]:
        st_states = grow2(st_states, sp + m)
        st_node = grow1(st_node, sp + m)
    if kind[node] == KIND_DECISION:
        p = player[node]
        for k in range(m):
            c = f + k
            K.copy_state(state, st_states[sp])
            h0 = ent[aoff[c]]
            if h0 < H:
                set_dealt_hand(params, st_states[sp], p, hands[h0], played)
            K.apply_action(params, st_states[sp], action[c])
            st_node[sp] = c
            sp += 1
    elif kind[node] == KIND_DEAL:
        K.copy_state(state, st_states[sp])
        K.apply_deal(params, st_states[sp], deal0)
        st_node[sp] = f
        sp += 1
    elif kind[node] == KIND_CHANCE:
        for k in range(m):
            K.copy_state(state, st_states[sp])
            K.apply_action(params, st_states[sp], action[f + k])
            st_node[sp] = f + k
            sp += 1
    return sp, st_states, st_node


@jit
def _infoset_keys(params, kind, player, first, nchild, action, aoff, alen, ent, hands, deal0,
                  keys_out, entry_infoset):
    """Replay the tree on the kernel (as :func:`_build` does) and write the kernel's
    information-state key of each (decision node, hand) pair, numbered in node order
    then hand order, and each entry's information set."""
    H = hands.shape[0]
    n_is = 0
    st_states, st_node = replay_start(params)
    sp = 1
    state = np.empty(L.STATE_SIZE, np.int32)
    played = np.empty(L.MAX_RANKS, np.int64)
    key = np.empty(L.KEY_SIZE, np.int8)
    slot = np.full(H + 1, -1, np.int64)
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
                    slot[ent[aoff[c] + j]] = 0
            for hh in range(H + 1):  # infosets in hand order
                if slot[hh] < 0:
                    continue
                if hh < H:
                    set_dealt_hand(params, state, p, hands[hh], played)
                infostate_key(params, state, p, key)
                for q in range(L.KEY_SIZE):
                    keys_out[n_is, q] = key[q]
                slot[hh] = n_is
                n_is += 1
            for k in range(m):
                c = f + k
                for j in range(alen[c]):
                    entry_infoset[aoff[c] + j] = slot[ent[aoff[c] + j]]
            for k in range(m):
                c = f + k
                for j in range(alen[c]):
                    slot[ent[aoff[c] + j]] = -1
        sp, st_states, st_node = _replay_push(params, kind, player, first, nchild, action, aoff,
                                              ent, hands, deal0, node, state, st_states, st_node,
                                              sp, played)
    return n_is


def infoset_table(tree: PublicTree) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's information-state keys of the tree's information sets.

    Returns:
        keys: ``int8[I, KEY_SIZE]`` (``observe.infostate_key``), one row per
            (decision node, hand of the actor), in node order then hand order;
        entry_infoset: ``int64[num_entries]``, the information set each entry
            acts from (-1 for the entries of the full and "not dealt" ranges).
    """
    # a decision has at most as many information sets as its children have entries
    keys = np.empty((tree.num_entries, L.KEY_SIZE), np.int8)
    entry_infoset = np.full(tree.num_entries, -1, np.int64)
    n_is = _infoset_keys(tree.params.to_array(), tree.kind, tree.player, tree.first,
                         tree.nchild, tree.action, tree.actor_off, tree.actor_len,
                         tree.entries, tree.hands, tree.deal0, keys, entry_infoset)
    return keys[:n_is].copy(), entry_infoset
