"""The game tree of a (small enough) deal as flat arrays, built once from the kernel.

Full-width solvers (CFR, CFR+, DCFR) and exact evaluation (best response,
NashConv) run over these arrays instead of re-running the rules. Nodes are
numbered so that every child has a larger index than its parent, and the
children of a node are contiguous: forward passes (reach probabilities) go
up the indices, backward passes (values) go down.

The deal is one chance node whose outcomes are the joint hands as multisets
(R1.2 with the dealing order summed out): a player never sees the order in
which their own cards came (``docs/kernel_interface.md``), the rest of the
state depends only on the multisets, so this tree has the same information
sets, the same values and the same CFR iterates as dealing card by card,
with up to ``(h!)^n`` times fewer nodes. A French Truc fresh deal (F2.3) is dealt
card by card from the rest of the deck (:func:`first_deal`).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np
from numba import types
from numba.typed import Dict

from ..._numba import jit
from ...capabilities import require
from ...resources import check_memory
from ...rules import kernel as K
from ...rules import layout as L
from ...rules.game import max_legal_actions
from ...rules.observe import infostate_key
from ...rules.params import VitouParams
from ..arrays import TreeArrays, grow1, grow2
from ..infoset_table import pack_key

KIND_CHANCE = 0
KIND_DECISION = 1
KIND_TERMINAL = 2
MAX_INFOSET_ACTIONS = 5  # plays (<= 3 ranks) + raise + refuse|abandon; 5 gestures


def action_width(params: VitouParams) -> int:
    """Columns of a per-information-state table indexed by the position of a legal action
    (regrets, policies, legal-action lists) for the game ``params``: the game's
    :func:`~vitou_ai.rules.game.max_legal_actions` (from the rules: the distinct cards of
    a hand plus the verbs of a card turn, or the 5 gestures of R7.1), and never below
    :data:`MAX_INFOSET_ACTIONS`, so the Vitou profiles' tables and files keep their 5
    columns. ``truc_1912`` with 3-card hands has 6 (3 cards, raise, refuse, rest: F3.3).
    A table indexed by action *id* is ``params.num_actions`` wide instead."""
    return max(MAX_INFOSET_ACTIONS, max_legal_actions(params))


def check_tree_actions(params: VitouParams) -> None:
    """Refuse, before any work, a game whose nodes can have more legal actions than the
    flat tree's tables hold (:data:`MAX_INFOSET_ACTIONS`; CFR, exact evaluation and the
    exports share that width).

    Raises:
        ValueError: one line naming the profile and its widest decision.
    """
    m = max_legal_actions(params)
    if m > MAX_INFOSET_ACTIONS:
        raise ValueError(
            f"{params.profile} with {params.hand_size}-card hands has up to {m} legal actions at "
            f"a decision (docs/RULES_family.md F3.3: cards, raise, refuse and rest), more than "
            f"the game tree's {MAX_INFOSET_ACTIONS}: use --hand-size 2 or fewer, or a sampling "
            "solver (es-mccfr, os-mccfr, abstract-mccfr)")

_key_type = types.UniTuple(types.int64, 4)


def _deal_counter(params: VitouParams):
    """``ways(rank, need)``: the number of ways ranks ``rank..`` complete hands still
    ``need``-ing cards (one count per seat), at most ``copies`` of a rank in all."""
    copies = params.copies

    @functools.cache
    def ways(rank: int, need: tuple[int, ...]) -> int:
        if rank == params.ranks:
            return int(not any(need))
        total = 0
        for take in _takes(need, copies):
            total += ways(rank + 1, tuple(a - b for a, b in zip(need, take, strict=True)))
        return total

    return ways


def _takes(need: tuple[int, ...], copies: int):
    for take in itertools.product(*[range(min(x, copies) + 1) for x in need]):
        if sum(take) <= copies:
            yield take


def count_deals(params: VitouParams) -> int:
    """The number of joint deals :func:`enumerate_deals` lists (R1.1, R1.2), counted
    without listing them: how many copies of each rank each seat takes, rank by rank
    (171,885,840 for the full four-player game, so the node limit can refuse it at once).
    """
    return _deal_counter(params)(0, (params.hand_size,) * params.players)


def sample_deals(params: VitouParams, k: int, seed: int = 0) -> np.ndarray:
    """``k`` joint deals drawn uniformly (with replacement) from :func:`enumerate_deals`'s
    list, ``int64[k, players, hand_size]``, without listing it.

    Raises:
        ValueError, TypeError: a seed that is not a whole number in ``0 .. 2**64-1``.
    """
    from ...rng import UINT64_MAX, check_seed

    seed = check_seed(seed, "seed", UINT64_MAX)
    ways = _deal_counter(params)
    n, h = params.players, params.hand_size
    start = (h,) * n
    total = ways(0, start)
    rng = np.random.default_rng(seed)
    out = np.empty((k, n, h), np.int64)
    for i in range(k):
        idx = int(rng.integers(total))
        need = start
        hands: list[list[int]] = [[] for _ in range(n)]
        for rank in range(params.ranks):
            for take in _takes(need, params.copies):
                rest = tuple(a - b for a, b in zip(need, take, strict=True))
                w = ways(rank + 1, rest)
                if idx < w:
                    for seat, c in enumerate(take):
                        hands[seat] += [rank] * c
                    need = rest
                    break
                idx -= w
        out[i] = hands
    return out


def enumerate_deals(params: VitouParams) -> tuple[np.ndarray, np.ndarray]:
    """All joint deals as multisets with their probabilities (R1.1, R1.2).

    Returns:
        hands: ``int64[M, players, hand_size]`` rank indices, each hand sorted.
        probs: ``float64[M]``, summing to 1.
    """
    n, h = params.players, params.hand_size
    counts = [params.copies] * params.ranks
    hands_out: list[list[tuple[int, ...]]] = []
    probs_out: list[float] = []

    def hand_prob(hand: tuple[int, ...], deck: list[int]) -> float:
        # one ordering's probability times the number of orderings (all equal)
        total = sum(deck)
        d = list(deck)
        p = 1.0
        for r in hand:
            p *= d[r] / total
            d[r] -= 1
            total -= 1
        orderings = math.factorial(h)
        for r in set(hand):
            orderings //= math.factorial(hand.count(r))
        return p * orderings

    def rec(seat: int, deck: list[int], acc: list[tuple[int, ...]], p: float) -> None:
        if seat == n:
            hands_out.append(list(acc))
            probs_out.append(p)
            return
        for hand in itertools.combinations_with_replacement(range(params.ranks), h):
            if any(hand.count(r) > deck[r] for r in set(hand)):
                continue
            q = hand_prob(hand, deck)
            d = list(deck)
            for r in hand:
                d[r] -= 1
            rec(seat + 1, d, acc + [hand], p * q)

    rec(0, counts, [], 1.0)
    return np.array(hands_out, dtype=np.int64).reshape(-1, n, h), np.array(probs_out)


@jit
def first_deal(state):
    """Whether ``state`` is at the deal's first card, the chance node that deals the
    joint hands enumerated from the whole deck (:func:`enumerate_deals`). A French Truc
    fresh deal (docs/RULES_family.md F2.3, ``S_REDEAL == 2``) is not: it comes from the
    rest of the deck (the first hands are not in it), so it is dealt card by card by the
    kernel's chance outcomes. (Merging it with the whole deck's deals gave every fresh
    deal the same distribution whatever was thrown in: right marginals, so the value of a
    policy that ignores its thrown hand was unchanged, wrong values otherwise.)"""
    return state[L.S_PHASE] == L.PH_DEAL and state[L.S_NDEALT] == 0 and state[L.S_REDEAL] != 2


@jit
def replay_children(params, state, decision, iset, m, f, is_actions, deal_hands, acts, probs,
                     st_states, st_node, sp):
    """Push the ``m`` children of a built flat tree's node (``f`` its first child) onto a
    replay stack of :func:`replay_start`, in the builder's order (:func:`_build`): at a
    decision of information set ``iset``, its actions; at a chance node, the enumerated
    deals (the first deal, :func:`first_deal`) or the kernel's chance outcomes.
    ``acts``, ``probs``: the chance buffers. Returns ``(sp, st_states, st_node)``, the new
    stack size and the stack, grown if needed."""
    if sp + m > st_states.shape[0]:
        st_states = grow2(st_states, sp + m)
        st_node = grow1(st_node, sp + m)
    if decision:
        for c in range(m):
            K.copy_state(state, st_states[sp])
            K.apply_action(params, st_states[sp], is_actions[iset, c])
            st_node[sp] = f + c
            sp += 1
        return sp, st_states, st_node
    merged = first_deal(state)
    if not merged:
        K.chance_outcomes(params, state, acts, probs)
    for c in range(m):
        K.copy_state(state, st_states[sp])
        if merged:
            K.apply_deal(params, st_states[sp], deal_hands[c])
        else:
            K.apply_action(params, st_states[sp], acts[c])
        st_node[sp] = f + c
        sp += 1
    return sp, st_states, st_node


@jit
def replay_start(params):
    """A replay of a built flat tree on the kernel (the twin of
    :func:`vitou_ai.solvers.public.tree.replay_start`): the stack, ``int32[cap,
    STATE_SIZE]`` states and ``int64[cap]`` nodes holding one entry (the root's initial
    state, node 0), that :func:`replay_children` pushes on; ``state``, an
    ``int32[STATE_SIZE]`` buffer for the entry popped; and :func:`replay_children`'s
    chance buffers ``acts`` (``int64``) and ``probs`` (``float64[MAX_CHANCE_OUTCOMES]``).
    Returns ``(st_states, st_node, state, acts, probs)``; the stack size is 1."""
    st_states = np.empty((4096, L.STATE_SIZE), np.int32)
    st_node = np.empty(4096, np.int64)
    K.init_state(params, st_states[0])
    st_node[0] = 0
    state = np.empty(L.STATE_SIZE, np.int32)
    acts = np.empty(max(L.NUM_ACTIONS, L.MAX_CHANCE_OUTCOMES), np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    return st_states, st_node, state, acts, probs


@jit
def _build(params, deal_hands, deal_probs, max_nodes):
    cap = 1024
    kind = np.empty(cap, np.int8)
    player = np.empty(cap, np.int8)
    infoset = np.empty(cap, np.int32)
    first = np.empty(cap, np.int64)
    nchild = np.empty(cap, np.int32)
    prob = np.empty(cap, np.float64)
    util = np.empty(cap, np.float64)
    icap = 256
    is_player = np.empty(icap, np.int8)
    is_nact = np.empty(icap, np.int8)
    is_actions = np.empty((icap, MAX_INFOSET_ACTIONS), np.int8)
    is_depth = np.empty(icap, np.int16)
    is_keys = np.empty((icap, L.KEY_SIZE), np.int8)
    table = Dict.empty(key_type=_key_type, value_type=types.int64)
    n_infosets = 0

    scap = 4096
    st_states = np.empty((scap, L.STATE_SIZE), np.int32)
    st_node = np.empty(scap, np.int64)
    st_depth = np.empty((scap, 4), np.int16)
    sp = 0
    K.init_state(params, st_states[0])
    st_node[0] = 0
    st_depth[0, :] = 0
    sp = 1
    n_nodes = 1
    prob[0] = 1.0
    acts = np.empty(L.NUM_ACTIONS, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    key = np.empty(L.KEY_SIZE, np.int8)
    ret = np.empty(L.MAX_PLAYERS, np.float64)
    state = np.empty(L.STATE_SIZE, np.int32)
    while sp > 0:
        sp -= 1
        K.copy_state(st_states[sp], state)
        node = st_node[sp]
        depth = st_depth[sp].copy()
        if K.is_terminal(state):
            kind[node] = KIND_TERMINAL
            player[node] = -4
            infoset[node] = -1
            first[node] = 0
            nchild[node] = 0
            K.returns(params, state, ret)
            util[node] = ret[0]
            continue
        util[node] = 0.0
        if K.is_chance(state):
            kind[node] = KIND_CHANCE
            player[node] = -1
            infoset[node] = -1
            merged = first_deal(state)
            m = deal_probs.shape[0] if merged else K.chance_outcomes(params, state, acts, probs)
        else:
            p = K.current_player(params, state)
            kind[node] = KIND_DECISION
            player[node] = p
            infostate_key(params, state, p, key)
            pk = pack_key(key)
            m = K.legal_actions(params, state, acts)
            if m > MAX_INFOSET_ACTIONS:
                raise ValueError("more legal actions than MAX_INFOSET_ACTIONS")
            if pk in table:
                iset = table[pk]
            else:
                iset = n_infosets
                n_infosets += 1
                if iset >= is_player.shape[0]:
                    is_player = grow1(is_player, iset + 1)
                    is_nact = grow1(is_nact, iset + 1)
                    is_depth = grow1(is_depth, iset + 1)
                    is_actions = grow2(is_actions, iset + 1)
                    is_keys = grow2(is_keys, iset + 1)
                table[pk] = iset
                is_player[iset] = p
                is_nact[iset] = m
                is_depth[iset] = depth[p]
                for k in range(m):
                    is_actions[iset, k] = acts[k]
                is_keys[iset, :] = key
            infoset[node] = iset
        first[node] = n_nodes
        nchild[node] = m
        if n_nodes + m > max_nodes:
            return n_nodes + m, kind, player, infoset, first, nchild, prob, util, \
                n_infosets, is_player, is_nact, is_actions, is_depth, is_keys
        if n_nodes + m > kind.shape[0]:
            need = n_nodes + m
            kind = grow1(kind, need)
            player = grow1(player, need)
            infoset = grow1(infoset, need)
            first = grow1(first, need)
            nchild = grow1(nchild, need)
            prob = grow1(prob, need)
            util = grow1(util, need)
        if sp + m > st_states.shape[0]:
            st_states = grow2(st_states, sp + m)
            st_node = grow1(st_node, sp + m)
            st_depth = grow2(st_depth, sp + m)
        dec = kind[node] == KIND_DECISION
        for k in range(m):
            child = n_nodes + k
            K.copy_state(state, st_states[sp])
            if kind[node] == KIND_CHANCE:
                if merged:
                    K.apply_deal(params, st_states[sp], deal_hands[k])
                    prob[child] = deal_probs[k]
                else:
                    K.apply_action(params, st_states[sp], acts[k])
                    prob[child] = probs[k]
            else:
                K.apply_action(params, st_states[sp], acts[k])
                prob[child] = 1.0
            st_node[sp] = child
            st_depth[sp] = depth
            if dec:
                st_depth[sp, player[node]] += 1
            sp += 1
        n_nodes += m
    return n_nodes, kind, player, infoset, first, nchild, prob, util, \
        n_infosets, is_player, is_nact, is_actions, is_depth, is_keys


@jit
def _seat_utilities(params, kind, first, nchild, infoset, is_actions, deal_hands, players):
    """Every seat's return at every terminal, ``float64[num_nodes, players]`` (0 off
    terminals), by replaying the built tree on the kernel (:func:`replay_start`)."""
    n = kind.shape[0]
    out = np.zeros((n, players), np.float64)
    ret = np.empty(L.MAX_PLAYERS, np.float64)
    st_states, st_node, state, acts, probs = replay_start(params)
    sp = 1
    while sp > 0:
        sp -= 1
        K.copy_state(st_states[sp], state)
        node = st_node[sp]
        if kind[node] == KIND_TERMINAL:
            K.returns(params, state, ret)
            for s in range(players):
                out[node, s] = ret[s]
            continue
        sp, st_states, st_node = replay_children(
            params, state, kind[node] == KIND_DECISION, infoset[node], nchild[node],
            first[node], is_actions, deal_hands, acts, probs, st_states, st_node, sp)
    return out


class NotTwoTeamsError(ValueError):
    """A two-team code path (team 0's utility, the other team's its negative, R8.1) was
    given a per-seat tree (:attr:`GameTree.util_seats`, Willughby's Put, P7.5)."""


def two_teams(params: VitouParams) -> bool:
    """Whether the game's sides are two teams (every profile but ``put_willughby``, whose
    three or four players are each for themselves, docs/RULES_family.md P7.0)."""
    return params.profile != "put_willughby"


@dataclass
class GameTree(TreeArrays):
    """A deal's game tree as flat arrays (see the module docstring).

    Node arrays (length ``num_nodes``): ``kind`` (int8: 0 chance, 1 decision,
    2 terminal), ``player`` (int8 seat, -1 chance, -4 terminal), ``infoset``
    (int32, -1 off decisions), ``first`` / ``nchild`` (children
    ``first .. first+nchild-1``; child ``k`` of a decision is the infoset's
    ``k``-th legal action), ``prob`` (float64, probability of the edge into the
    node when its parent is a chance node, else 1), ``util`` (float64, team 0's
    return at terminals, points per deal; seat ``s`` gets ``util`` if ``s`` is
    in team 0 else ``-util``). In a game whose sides are not two teams
    (``put_willughby``, P7.0) ``util`` is NaN and ``util_seats`` (float64[num_nodes,
    players], each seat's own return at terminals, 0 elsewhere) holds the utilities;
    otherwise ``util_seats`` is ``None``. Code that assumes two teams calls
    :meth:`require_two_teams`.

    Infoset arrays (length ``num_infosets``): ``is_player``, ``is_nact``,
    ``is_actions`` (int8[num_infosets, 5], the kernel's action ids, ascending),
    ``is_depth`` (decisions of the acting player before it), ``is_keys``
    (int8[num_infosets, KEY_SIZE], the kernel's information-state keys).
    """

    params: VitouParams
    kind: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    first: np.ndarray
    nchild: np.ndarray
    prob: np.ndarray
    util: np.ndarray
    is_player: np.ndarray
    is_nact: np.ndarray
    is_actions: np.ndarray
    is_depth: np.ndarray
    is_keys: np.ndarray
    util_seats: np.ndarray | None = None

    ARRAYS = ("kind", "player", "infoset", "first", "nchild", "prob", "util", "is_player",
              "is_nact", "is_actions", "is_depth", "is_keys")

    @property
    def per_seat(self) -> bool:
        """Whether the tree keeps one utility per seat (:attr:`util_seats`)."""
        return self.util_seats is not None

    def require_two_teams(self, what: str) -> None:
        """Refuse a per-seat tree for a two-team code path ``what``.

        Raises:
            NotTwoTeamsError: one line, when :attr:`per_seat`.
        """
        if self.per_seat:
            raise NotTwoTeamsError(
                f"{what} assumes two teams (team 0's utility, R8.1); {self.params.profile} has "
                f"{self.params.players} sides, each for themselves (docs/RULES_family.md P7.0): "
                "use the per-seat solvers (cfr, cfr+, dcfr, es-mccfr) and evaluation")

    def seat_utility(self, p: int) -> np.ndarray:
        """``float64[num_nodes]``, the terminal utilities to give the kernels'
        passes for seat ``p`` (they multiply by :func:`~vitou_ai.solvers.flat.kernels.
        utility_sign`): ``util`` in a two-team tree; in a per-seat tree, seat ``p``'s own
        column pre-multiplied by that sign, so the passes see seat ``p``'s return."""
        if self.util_seats is None:
            return self.util
        cache = self.__dict__.setdefault("_seat_cols", {})
        if p not in cache:
            sign = 1.0 if p % 2 == 0 else -1.0
            cache[p] = np.ascontiguousarray(sign * self.util_seats[:, p])
        return cache[p]

    @property
    def num_infosets(self) -> int:
        return int(self.is_player.shape[0])

    def legal_mask(self) -> np.ndarray:
        """``bool[num_infosets, MAX_INFOSET_ACTIONS]``: which action slots exist."""
        return np.arange(MAX_INFOSET_ACTIONS)[None, :] < self.is_nact[:, None]


_SAMPLE_DEALS = 64
#: bytes of memory per node of a flat tree and its solver, about: the tree's arrays (34)
#: twice (they grow by doubling and are copied out trimmed), and CFR's reach and value
#: per node (24)
NODE_BYTES = 96


def _check_size(params: VitouParams, max_nodes: int) -> None:
    """Refuse a tree over ``max_nodes`` before listing its deals (minutes for the full
    game): by the deal count (one node per deal), then by the tree of a uniform sample
    of deals, a part of the whole tree, scaled up to all of them; refused when that
    estimate is over twice the limit (a sample's spread is far below that factor)."""
    deals = count_deals(params)
    if deals + 1 > max_nodes:
        raise ValueError(f"the game tree has more than {max_nodes:,} nodes ({deals:,} deals "
                         "alone); use a smaller variant or a sampling solver")
    if deals <= 4 * _SAMPLE_DEALS:
        return
    hands = sample_deals(params, _SAMPLE_DEALS)
    probs = np.full(_SAMPLE_DEALS, 1.0 / _SAMPLE_DEALS)
    part = int(_build(params.to_array(), hands, probs, max_nodes)[0])
    if part > max_nodes:  # the sample's tree is part of the whole one
        raise ValueError(f"the game tree has more than {max_nodes:,} nodes (the trees of "
                         f"{_SAMPLE_DEALS} of its {deals:,} deals alone); use a smaller "
                         "variant or a sampling solver")
    estimate = part * deals / _SAMPLE_DEALS
    if estimate > 2 * max_nodes:
        raise ValueError(f"the game tree would have about {estimate:,.0f} nodes (from the "
                         f"trees of {_SAMPLE_DEALS} of its {deals:,} deals), more than "
                         f"{max_nodes:,}; use a smaller variant or a sampling solver")
    # a limit raised to fit the tree must still fit the machine (the build allocated
    # until NumPy's MemoryError)
    check_memory(min(estimate, max_nodes) * NODE_BYTES,
                 f"the game tree of about {estimate:,.0f} nodes",
                 "use a smaller variant or a sampling solver")


def check_size(params: VitouParams, max_nodes: int) -> None:
    """Refuse, before the build, a game whose flat tree would exceed ``max_nodes`` nodes
    (by its deal count, then by the trees of a sample of its deals scaled up: seconds at
    most) or the memory available.

    Raises:
        ValueError: the tree is too large (one line, with the count or estimate);
            :class:`vitou_ai.resources.ResourceError` (a ``ValueError``) for memory.
    """
    _check_size(params, max_nodes)


def build_tree(params: VitouParams, max_nodes: int = 200_000_000) -> GameTree:
    """Build the full game tree of one deal (deal mode, R8.1).

    In a game whose sides are not two teams (``put_willughby``) the tree keeps each
    seat's return (:attr:`GameTree.util_seats`).

    Raises:
        ValueError: in match mode (unbounded; use the sampling solvers), a game with
            more legal actions at a node than the tables hold (:func:`check_tree_actions`),
            or when the tree would exceed ``max_nodes`` nodes, or (estimated from a
            sample of deals) the memory available
            (:class:`vitou_ai.resources.ResourceError`, :data:`NODE_BYTES` a node).

    Examples:
        >>> from vitou_ai import VitouParams
        >>> from vitou_ai.solvers.flat.tree import build_tree
        >>> params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=1, dealer=-1)
        >>> build_tree(params).num_nodes
        6059
    """
    require("flat_tree", params)
    if params.mode != "deal":
        raise ValueError("full game trees are built for deal mode only (mode='deal')")
    check_tree_actions(params)
    _check_size(params, max_nodes)
    hands, probs = enumerate_deals(params)
    out = _build(params.to_array(), hands, probs, max_nodes)
    n_nodes = out[0]
    if n_nodes > max_nodes:
        raise ValueError(f"the game tree has more than {max_nodes:,} nodes; "
                         "use a smaller variant or a sampling solver")
    n_is = out[8]
    tree = GameTree(
        params, out[1][:n_nodes].copy(), out[2][:n_nodes].copy(), out[3][:n_nodes].copy(),
        out[4][:n_nodes].copy(), out[5][:n_nodes].copy(), out[6][:n_nodes].copy(),
        out[7][:n_nodes].copy(), out[9][:n_is].copy(), out[10][:n_is].copy(),
        out[11][:n_is].copy(), out[12][:n_is].copy(), out[13][:n_is].copy(),
    )
    if not two_teams(params):  # P7.5: each seat's own return
        tree.util_seats = _seat_utilities(params.to_array(), tree.kind, tree.first,
                                          tree.nchild, tree.infoset, tree.is_actions, hands,
                                          params.players)
        tree.util = np.full(n_nodes, np.nan)
    return tree


