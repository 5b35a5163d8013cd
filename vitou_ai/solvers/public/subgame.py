"""Public subgames from a mid-deal public state: build, Bayes ranges, range-vector re-solving.

A *subgame* is the public tree (:mod:`vitou_ai.solvers.public.tree`) below one public
state of a deal, down to the end of the deal. It is built by the same walk as the whole
tree (``public_tree._build``, started from the given kernel state instead of the
initial one): the rules are the kernel's alone. Hands are the *dealt* hands of
:func:`~vitou_ai.solvers.public.tree.enumerate_hands` (the hand index space of the whole
tree), and :func:`~vitou_ai.solvers.public.tree.set_dealt_hand` keeps the cards a seat has
already played, so seat ``s``'s root range is the dealt hands that contain the cards it
has played and fit the deck beside the cards the others have played (exact card
removal: the joint deal probability at the terminals,
:func:`~vitou_ai.solvers.public.tree.joint_deal_probability`, does the rest). A subgame
is therefore, node for node, the whole tree's subtree below that public state
(``tests/test_search.py``), and the range walks of
:mod:`vitou_ai.solvers.public.kernels` run on it with the seats' reach probabilities at
its root as the ``root_reach`` they already take.

*Bayes ranges* (:func:`bayes_reach`): the reach probability of each hand of each seat,
the product of a blueprint's probabilities of that seat's actions since the deal, each
asked of the blueprint with the hand swapped in (:func:`~vitou_ai.bots.exact.policy_probs`:
exact, a heuristic's random draws enumerated). With the deal's prior (exact card
removal) this is Bayes' rule: ``P(h_s = h | public) ∝ reach_s(h) sum_{h_-s} P(h, h_-s)
prod_{s' != s} reach_s'(h_s')`` (:func:`range_posterior`). Vector-form re-solving from
such ranges is DeepStack's (Moravčík et al. 2017, Science 356, "continual re-solving",
there with a gadget; here unsafe or with the Re-solve or Maxmargin gadget, see
:class:`SubgameSolver`).

One module because the build, the Bayes ranges and the solver (with its gadgets) are the
three steps of one re-solve and share one record, :class:`Subgame`, and its hand index
space; apart, each would re-derive the others' conventions (which hands a seat can hold,
whose reach the root carries).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..._numba import jit
from ...bots.exact import MAX_DRAWS, policy_probs
from ...bots.policy import IWORK_SIZE
from ...rules import kernel as K
from ...rules import layout as L
from ...rules.params import VitouParams
from . import kernels as PK
from .cfr import PublicCFR
from .tree import (
    KIND_DECISION,
    KIND_LEAF,
    KIND_TERMINAL,
    PublicTree,
    _build,
    check_public_params,
    entry_dtype,
    enumerate_hands,
    hand_counts,
    pair_deal_probabilities,
    representative_deal,
    set_dealt_hand,
)


class SubgameTooLarge(ValueError):
    """The subgame has more nodes than allowed (the search falls back on the blueprint)."""


class UnreachableSubgame(ValueError):
    """A seat reaches the subgame's public state with no hand (zero reach on its whole root
    range): nothing to solve (the search falls back)."""


@dataclass
class Subgame:
    """A public subgame (module docstring).

    Attributes:
        tree: its public tree; node 0 is the public state it starts from (a decision).
        root_hands: per seat, ``int64[R_s]``: the hand indices (rows of ``tree.hands``)
            of the seat's root range, sorted.
        root_offs, root_lens: ``int64[players]``: those ranges as slices of ``tree.entries``
            (what the range walks take as ``root_offs`` / ``root_lens``).
        state: ``int32[STATE_SIZE]``, a copy of the kernel state it was built from.
        leaves: ``int64[F]``, the depth-limited subgame's leaves (``KIND_LEAF`` node ids,
            sorted; :func:`build_subgame` with ``tricks``); empty for a full subgame.
        leaf_states: ``int32[F, STATE_SIZE]``, a kernel state of each leaf's public state
            (its hidden hands one representative deal's).
    """

    tree: PublicTree
    root_hands: list[np.ndarray]
    root_offs: np.ndarray
    root_lens: np.ndarray
    state: np.ndarray
    leaves: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    leaf_states: np.ndarray = field(default_factory=lambda: np.zeros((0, L.STATE_SIZE), np.int32))

    @property
    def num_nodes(self) -> int:
        return self.tree.num_nodes


def played_counts(params: VitouParams, state: np.ndarray) -> np.ndarray:
    """``int64[players, ranks]``: copies of each rank each seat has played this deal, read
    from the state's layout (dealt hand minus held copies, ``layout.S_HAND`` / ``S_HELD``)."""
    n, R = params.players, params.ranks
    out = np.zeros((n, R), np.int64)
    for s in range(n):
        for i in range(params.hand_size):
            r = int(state[L.S_HAND + s * L.MAX_HAND + i])
            if r < 0:
                raise ValueError("the state is not dealt: a subgame starts after the deal (R1.2)")
            out[s, r] += 1
        for r in range(R):
            out[s, r] -= int(state[L.S_HELD + s * L.MAX_RANKS + r])
    return out


def root_ranges(params: VitouParams, state: np.ndarray,
                counts: np.ndarray | None = None) -> list[np.ndarray]:
    """Per seat, the dealt hands still possible given the public cards: those holding
    every card the seat has played, and leaving enough copies for the cards the others
    have played (R1.1: ``copies`` of each rank). ``int64[R_s]`` each, sorted."""
    if counts is None:
        counts = hand_counts(params, enumerate_hands(params))
    played = played_counts(params, state)
    total = played.sum(0)
    out = []
    for s in range(params.players):
        others = total - played[s]
        ok = (counts >= played[s]).all(1) & (counts + others <= params.copies).all(1)
        out.append(np.nonzero(ok)[0].astype(np.int64))
    return out


def check_subgame_state(params: VitouParams, state: np.ndarray) -> None:
    """Refuse a state a subgame cannot start from.

    Raises:
        ValueError: see :func:`~vitou_ai.solvers.public.tree.check_public_params`; a state
            that is not ``int32[STATE_SIZE]``; terminal; a chance node; not dealt yet
            (the 2p blind window, R9.2).
    """
    check_public_params(params)
    if not isinstance(state, np.ndarray) or state.shape != (L.STATE_SIZE,):
        raise ValueError(f"state must be a kernel state, int32[{L.STATE_SIZE}]")
    if K.is_terminal(state):
        raise ValueError("the deal is over: no subgame below a terminal state")
    if K.is_chance(state):
        raise ValueError("a subgame starts at a decision, not at a chance node (the deal)")
    if state[L.S_PHASE] == L.PH_BLIND or int(state[L.S_NDEALT]) < params.players * params.hand_size:
        raise ValueError("the state is not dealt (R9.2 blind window): a subgame starts "
                         "after the deal")


_TABLES: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def deal_tables(params: VitouParams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hands, counts, pair probabilities) of the deck, computed once per deck and player
    count (the exact pair probabilities are Fractions: 0.2 s for the 32-card deck)."""
    key = (params.players, params.ranks, params.copies, params.hand_size)
    if key not in _TABLES:
        hands = enumerate_hands(params)
        counts = hand_counts(params, hands)
        pair_p = (pair_deal_probabilities(params, hands) if params.players == 2
                  else np.zeros((1, 1)))
        _TABLES[key] = (hands, counts, pair_p)
    return _TABLES[key]


def build_subgame(params: VitouParams, state: np.ndarray, max_nodes: int = 2_000_000,
                  tricks: int | None = None) -> Subgame:
    """The public subgame below the public state of ``state`` (module docstring).

    Only the public part of ``state`` and each seat's played cards matter: the hidden
    hands in it are swapped for each hand of the ranges as the walk goes.

    Args:
        params: the game (deal mode, as for the whole public tree).
        state: ``int32[STATE_SIZE]``, a dealt decision state of a deal of ``params``.
        max_nodes: the most nodes to build.
        tricks: ``None``, the subgame to the end of the deal; ``t >= 1``, *depth-limited*:
            to the end of the ``t``-th trick from the current one (1: the current trick),
            the first public state of the next trick a ``KIND_LEAF`` without children
            (:attr:`Subgame.leaves`; its values come from continuation strategies,
            :mod:`vitou_ai.solvers.public.depth_limited`). Terminal states before it stay terminal.

    Raises:
        ValueError: see :func:`check_subgame_state`; ``tricks < 1``.
        SubgameTooLarge: more than ``max_nodes`` nodes.
    """
    check_subgame_state(params, state)
    if tricks is not None and (isinstance(tricks, bool)
                               or not isinstance(tricks, int | np.integer) or tricks < 1):
        raise ValueError(f"tricks must be an integer of at least 1 (the current trick), "
                         f"got {tricks!r}")
    leaf_tricks = -1 if tricks is None else int(state[L.S_NTRICKS]) + int(tricks)
    hands, counts, pair_p = deal_tables(params)
    H = hands.shape[0]
    ranges = root_ranges(params, state, counts)
    for s, r in enumerate(ranges):
        if len(r) == 0:
            raise ValueError(f"seat {s} has no hand consistent with the cards played "
                             "(the state does not fit the deck, R1.1)")
    deal0 = representative_deal(params)
    out = _build_ranges(params, state, ranges, max_nodes, leaf_tricks)
    n_nodes = out[0]
    if n_nodes > max_nodes:
        raise SubgameTooLarge(f"the subgame has more than {max_nodes:,} nodes")
    ne = out[10]
    kind, player, first, nchild, action, prob, util, aoff, alen = (a[:n_nodes] for a in out[1:10])
    tree = PublicTree(params, hands, counts, pair_p, kind.copy(), player.copy(),
                      first.astype(np.int32), nchild.copy(), action.copy(), prob.copy(),
                      util.copy(), aoff.astype(np.int32 if ne < 2**31 else np.int64), alen.copy(), out[11][:ne].copy(),
                      out[12][:ne].copy(), deal0)
    root_len = np.array([len(r) for r in ranges], np.int64)
    offs = 1 + H + np.concatenate([[0], np.cumsum(root_len)[:-1]])
    return Subgame(tree, ranges, offs.astype(np.int64), root_len,
                   np.array(state, np.int32), out[13].copy(), out[14].copy())


def public_key(params: VitouParams, state: np.ndarray) -> bytes:
    """A key of the public state of ``state``: equal for two states whose subgames are the
    same tree (the builder reads only the public part of a state and each seat's played
    cards; the hidden fields, the undealt deck ``S_DECK``, the hands ``S_HAND`` /
    ``S_HELD`` / ``S_FIRSTHAND``, are zeroed, the played cards per seat added), so the
    search bot can remember a subgame's size (:class:`~vitou_ai.search.bot.SearchPolicy`).
    Fields that are hidden but not zeroed here only make fewer keys equal."""
    st = np.array(state, np.int32)
    for lo, ln in ((L.S_DECK, L.MAX_RANKS), (L.S_HAND, L.MAX_PLAYERS * L.MAX_HAND),
                   (L.S_HELD, L.MAX_PLAYERS * L.MAX_RANKS),
                   (L.S_FIRSTHAND, L.MAX_PLAYERS * L.MAX_HAND)):
        st[lo:lo + ln] = 0
    return (repr(sorted(params.knobs().items())).encode() + st.tobytes()
            + played_counts(params, state).tobytes())


def _build_ranges(params: VitouParams, state: np.ndarray, ranges: list[np.ndarray],
                  max_nodes: int, leaf_tricks: int = -1) -> tuple:
    """The builder's raw output (``public_tree._build``) from ``state`` with root ranges
    ``ranges`` (sorted hand indices per seat); ``out[0] > max_nodes`` when it stopped at
    the cap."""
    hands, counts, pair_p = deal_tables(params)
    H = hands.shape[0]
    root_ent = np.zeros((4, H), np.int64)
    root_len = np.zeros(4, np.int64)
    for s, r in enumerate(ranges):
        root_ent[s, :len(r)] = r
        root_len[s] = len(r)
    return _build(params.to_array(), hands, counts, params.copies, representative_deal(params),
                  pair_p, max_nodes, True, params.num_actions, np.empty(4096 + H, entry_dtype(H)),
                  np.zeros(4096 + H, entry_dtype(H)), np.ascontiguousarray(state, np.int32),
                  root_ent, root_len, leaf_tricks)


# ---- Bayes ranges -------------------------------------------------------------------------


@jit
def _bayes_reach(params, start, actions, skip, hands, pack, pi, bounds, na, epsilon, own,
                 reach):
    """Replay ``actions`` from ``start``; at each decision of seat ``p`` multiply
    ``reach[p, h]`` by policy ``pi``'s probability of the action with hand ``h`` swapped
    in, mixed with ``epsilon`` of uniform play over ``h``'s legal actions (0 where the
    action is illegal for ``h``; ``skip[t]``: only that; seat ``own``: no mixing). Chance actions
    (none after the deal in deal mode) multiply nothing."""
    state = start.copy()
    tmp = np.empty_like(start)
    played = np.empty(L.MAX_RANKS, np.int64)
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    script = np.zeros(2 + MAX_DRAWS, np.uint64)
    legal = np.empty(na, np.int64)
    row = np.empty(na)
    H = hands.shape[0]
    for t in range(actions.shape[0]):
        a = actions[t]
        if not K.is_chance(state):
            p = K.current_player(params, state)
            for h in range(H):
                if reach[p, h] == 0.0:
                    continue
                K.copy_state(state, tmp)
                set_dealt_hand(params, tmp, p, hands[h], played)
                ok = True
                for r in range(L.MAX_RANKS):
                    if tmp[L.S_HELD + p * L.MAX_RANKS + r] < 0:
                        ok = False  # h lacks a card p has already played
                if not ok:
                    reach[p, h] = 0.0
                    continue
                n_legal = K.legal_actions(params, tmp, legal)
                is_legal = False
                for k in range(n_legal):
                    if legal[k] == a:
                        is_legal = True
                if not is_legal:
                    reach[p, h] = 0.0
                    continue
                if skip[t]:
                    continue  # the caller multiplies this decision's own probabilities
                policy_probs(pack, pi, params, tmp, p, legal, n_legal, bounds, keybuf, iwork,
                             script, row)
                eps = 0.0 if p == own else epsilon
                reach[p, h] *= (1.0 - eps) * row[a] + eps / n_legal
        K.apply_action(params, state, a)
    return state


def bayes_reach(params: VitouParams, blueprint, start: np.ndarray,
                actions, skip=None, epsilon: float = 0.0, own: int = -1) -> np.ndarray:
    """Each seat's reach probability for each dealt hand under ``blueprint`` along a deal.

    Args:
        params: the game.
        blueprint: a simulator policy (random, heuristic, tabular or abstract; not neural)
            assumed to be every seat's.
        start: ``int32[STATE_SIZE]``, the state right after the deal (R1.2; after the 2p
            blind window, R9.2, whose actions are taken unseen and so inform nothing).
        actions: the kernel action ids played since ``start``, in order.
        skip: optional ``bool[len(actions)]``: decisions whose probabilities the caller
            supplies (a searcher's own searched decisions); only hands that cannot take
            the action (a card they lack) are zeroed there.
        epsilon: in [0, 1): each action's probability is taken as ``(1 - epsilon)
            sigma(a) + epsilon / n_legal``: the blueprint as a model of a player who
            sometimes strays from it, so that an action the blueprint never takes (a
            deterministic heuristic's, or the searcher's own) leaves the ranges
            non-zero instead of ending the search (0: Bayes on the blueprint exactly).
        own: a seat whose probabilities are taken unmixed (the searcher's own: it knows
            it played the blueprint where it did not search); -1: none.

    Returns:
        ``float64[players, H]`` over the rows of
        :func:`~vitou_ai.solvers.public.tree.enumerate_hands`: the product of the
        blueprint's probabilities of the seat's actions with that hand (0 where an action
        was illegal for it: a card it does not hold). Card removal between seats is in
        the deal prior (:func:`range_posterior`), not here.

    Raises:
        ValueError: a neural blueprint (no exact probabilities); an action illegal in the
            replay (from the kernel).
    """
    from ...bots.exact import breakpoints
    from ...bots.policy import policy_pack

    hands = deal_tables(params)[0]
    reach = np.ones((params.players, hands.shape[0]))
    actions = np.asarray(list(actions), np.int64)
    skip = np.zeros(len(actions), np.bool_) if skip is None else np.asarray(skip, np.bool_)
    if skip.shape != actions.shape:
        raise ValueError("skip must have one flag per action")
    if not 0.0 <= epsilon < 1.0:
        raise ValueError(f"epsilon must be in [0, 1), got {epsilon}")
    pack = policy_pack(blueprint, signals=params.signals)
    _bayes_reach(params.to_array(), np.ascontiguousarray(start, np.int32),
                 actions, skip, hands, pack, 0,
                 breakpoints(pack.fparams[0]), params.num_actions, float(epsilon), int(own), reach)
    return reach


def range_posterior(params: VitouParams, reach: np.ndarray, seat: int,
                    known: dict[int, int] | None = None) -> np.ndarray:
    """Bayes' rule: ``float64[H]``, the probability of each dealt hand of ``seat`` given the
    public actions (through ``reach``, :func:`bayes_reach`) and the hands in ``known``
    (``{seat: hand index}``, e.g. the observer's own), with the exact deal prior
    (:func:`~vitou_ai.solvers.public.tree.joint_deal_probability`: card removal).

    Raises:
        ValueError: no deal is consistent (every posterior weight 0).
    """
    from itertools import product

    from .tree import joint_deal_probability

    hands = enumerate_hands(params)
    counts = hand_counts(params, hands)
    known = known or {}
    H = hands.shape[0]
    w = np.zeros(H)
    choices = [[known[s]] if s in known else range(H) for s in range(params.players)]
    for combo in product(*choices):
        r = 1.0
        for s, h in enumerate(combo):
            if s not in known:
                r *= reach[s, h]
        if r == 0.0:
            continue
        w[combo[seat]] += r * float(joint_deal_probability(params, [counts[h] for h in combo]))
    if w.sum() <= 0:
        raise ValueError("no deal is consistent with these reach probabilities")
    return w / w.sum()


# ---- re-solving ---------------------------------------------------------------------------


#: safe re-solving techniques of :class:`SubgameSolver` (``safe=``)
SAFE_MODES = ("none", "resolve", "maxmargin")
#: the gadgets' alternative values (``alternative=``): the opponent's best-response
#: counterfactual values against the blueprint in the subgame, or the blueprint's own
ALTERNATIVES = ("best_response", "blueprint")


def check_safe_mode(safe: str, players: int = 2) -> None:
    """Refuse an unknown ``safe`` mode, or a gadget in a game of other than two players.

    Raises:
        ValueError: one line.
    """
    if safe not in SAFE_MODES:
        raise ValueError(f"unknown safe mode {safe!r}; expected one of {', '.join(SAFE_MODES)}")
    if safe != "none" and players != 2:
        raise ValueError(f"safe={safe} is for two players (the gadget gives each opponent "
                         f"hand an alternative value; {players} seats have three opponents "
                         "whose hands do not split so): use safe=none")


#: the search bot's ``safe=`` (:class:`~vitou_ai.search.bot.SearchPolicy`): ``"auto"`` (its
#: default) or one of :data:`SAFE_MODES`
SEARCH_SAFE_MODES = ("auto",) + SAFE_MODES
#: what ``safe="auto"`` plays, by player count: nested Maxmargin with two players (the
#: lowest exact NashConv of the modes measured, ``docs/results/search.md``); with four,
#: no search (``"off"``: the blueprint's action), since no four-player mode measured keeps
#: NashConv at or below the blueprint's
AUTO_SAFE = {2: "maxmargin", 4: "off"}


def effective_safe_mode(safe: str, players: int) -> str:
    """The mode the search bot plays for ``safe`` in a game of ``players`` seats: ``safe``
    itself, or for ``"auto"`` :data:`AUTO_SAFE` (``"off"``: no search, the blueprint).

    Raises:
        ValueError: one line: an unknown mode; a gadget with other than two players
            (:func:`check_safe_mode`).
    """
    if safe not in SEARCH_SAFE_MODES:
        raise ValueError(f"unknown safe mode {safe!r}; expected one of "
                         f"{', '.join(SEARCH_SAFE_MODES)}")
    if safe == "auto":
        return AUTO_SAFE.get(players, "off")
    check_safe_mode(safe, players)
    return safe


@jit
def _subtree_entries(s_first, s_nchild, s_action, s_kind, s_aoff, s_alen, s_entries,
                     t_first, t_nchild, t_action, t_kind, t_aoff, t_alen, t_entries,
                     node, num_hands, out):
    """Walk ``s`` from its root and ``t`` from ``node`` together (children matched by action
    id, entries by hand); fill ``out``; return -1, or the first node of ``s`` without a twin."""
    pos = np.full(num_hands + 1, -1, np.int64)
    su = np.empty(s_first.shape[0] + 1, np.int64)
    sv = np.empty(s_first.shape[0] + 1, np.int64)
    su[0] = 0
    sv[0] = node
    top = 1
    while top > 0:
        top -= 1
        u = su[top]
        v = sv[top]
        fv = t_first[v]
        for cu in range(s_first[u], s_first[u] + s_nchild[u]):
            cv = -1
            for c in range(fv, fv + t_nchild[v]):
                if t_action[c] == s_action[cu]:
                    cv = c
                    break
            # a depth-limited subgame's leaf is the twin of any node but a terminal
            if cv < 0 or (s_kind[cu] != t_kind[cv]
                          and (s_kind[cu] != KIND_LEAF or t_kind[cv] == KIND_TERMINAL)):
                return cu
            if s_kind[u] == KIND_DECISION:
                lo = t_aoff[cv]
                ln = t_alen[cv]
                for k in range(ln):
                    pos[t_entries[lo + k]] = lo + k
                bad = False
                for k in range(s_alen[cu]):
                    m = pos[s_entries[s_aoff[cu] + k]]
                    out[s_aoff[cu] + k] = m
                    if m < 0:
                        bad = True
                for k in range(ln):
                    pos[t_entries[lo + k]] = -1
                if bad:
                    return cu
            if s_kind[cu] != KIND_TERMINAL:
                su[top] = cu
                sv[top] = cv
                top += 1
    return -1


def subtree_entries(sub: PublicTree, tree: PublicTree, node: int) -> np.ndarray:
    """``int64[sub.num_entries]``: the entry of ``tree`` below ``node`` that is each entry
    of ``sub`` (the same edge by action ids, the same hand), -1 for ``sub``'s root ranges
    (they belong to no action), when ``sub`` is the subgame of ``tree`` at ``node``
    (:func:`build_subgame`: node for node the subtree, tested in ``tests/test_search.py``).
    ``tree`` may be the whole public tree or an earlier subgame whose tree holds ``node``
    (nested re-solving maps a seat's previous solve onto its next subgame). Jitted: one
    walk of the two trees.

    Raises:
        RuntimeError: the two trees differ below ``node`` (an edge or a hand of ``sub``
            missing in ``tree``): not its subgame.
    """
    if sub.num_hands != tree.num_hands:
        raise RuntimeError("the two trees have different hand index spaces")
    out = np.full(sub.num_entries, -1, np.int64)
    bad = _subtree_entries(sub.first, sub.nchild, sub.action, sub.kind, sub.actor_off,
                           sub.actor_len, sub.entries, tree.first, tree.nchild, tree.action,
                           tree.kind, tree.actor_off, tree.actor_len, tree.entries,
                           int(node), tree.num_hands, out)
    if bad >= 0:
        raise RuntimeError(f"the subgame's node {bad} has no twin (or a hand its twin "
                           f"lacks) below node {node}")
    return out


class SubgameSolver:
    """Range-vector CFR (DCFR by default) on a :class:`Subgame` from given root reaches,
    unsafe or with a safety gadget for the opponent of the seat to act at the root.

    ``safe="none"``: *unsafe* re-solving (Brown & Sandholm 2017, "Safe and nested subgame
    solving for imperfect-information games", NeurIPS, section 4, "unsafe subgame
    solving"): the subgame is solved as a game of its own in which chance deals the hands
    with probability ``prior × reach`` at its root, the reaches being the blueprint's
    (Bayes). It can be exploited by an opponent who reaches the subgame with other ranges
    than the blueprint's (ibid., the coin-toss example): measured exactly in
    ``docs/results/search.md``.

    The gadgets (two players; the *searcher* is the seat to act at the subgame's root, the
    *opponent* the other) give each opponent hand ``h`` of its root range an
    *alternative* ``alt(h)``, a counterfactual value of the opponent at the root (times
    the searcher's root reach and the deal prior, not the opponent's own reach: the scale
    of the subgame's own values), from one pass over the subgame with ``blueprint``:

    - ``alternative="best_response"`` (the default): the opponent's best-response value
      against the blueprint (Burch et al.'s and Brown & Sandholm's CBV); the blueprint
      meets every constraint below, so the gadget's solution can too, up to its
      convergence error;
    - ``alternative="blueprint"``: its value when both seats play the blueprint (lower,
      equal where the blueprint is an equilibrium: a stricter target, which the
      blueprint itself misses off its own path). Measured exactly for the search bot
      (``docs/results/search.md``): better with ``resolve`` for three of four
      blueprints, much worse with ``maxmargin``, whose best-response version has the
      lowest NashConv over the near-equilibrium blueprint.

    The gadgets:

    - ``safe="resolve"``: the Re-solve gadget (Burch, Johanson & Bowling 2014, "Solving
      imperfect information games using decomposition", AAAI, the re-solving game;
      Brown & Sandholm 2017, "Subgame Resolving" among the prior approaches): before the
      subgame each opponent hand chooses to *terminate* (payoff ``alt(h)``) or *enter*;
      that choice is one more decision of the opponent, solved by regret matching (with
      the same DCFR discounts as the subgame's entries) from its values after each
      opponent pass, and the opponent's root reach is ``reach(h) × P(enter | h)``. At the
      gadget's equilibrium the opponent's best-response counterfactual value of every
      hand of positive ``reach`` is at most ``alt(h)`` (ibid.; :meth:`safety_margins`
      measures how far a solve is from it): with best-response alternatives, replacing
      the blueprint by the solve *in this one subgame* does not make the searcher more
      exploitable in the whole game (Burch et al. 2014). Hands of zero
      ``reach`` get no constraint. Re-solving again at the next decision from the
      blueprint's alternatives is *not* covered: nested re-solving keeps the guarantee
      only with the previous solve's values as the alternatives (Brown & Sandholm 2017,
      nested subgame solving: pass that solve's policy, mapped by
      :func:`subtree_entries`, as ``blueprint``, as the search bot does and
      :func:`vitou_ai.eval.search_exact.search_policy` by default).
    - ``safe="maxmargin"``: the Maxmargin gadget (Moravčík, Schmid, Ha, Hladík &
      Gaukrodger 2016, "Refining subgames in large imperfect information games", AAAI;
      Brown & Sandholm 2017, "Maxmargin" among the prior approaches): the opponent picks
      the hand to enter with, with payoff ``v(h) - alt(h)``, a distribution over the
      hands of its root range with positive ``reach`` (regret matching, DCFR discounts);
      that distribution is its root reach. The searcher then maximises the smallest
      margin ``alt(h) - BR(h)`` over those hands.

    The searcher's own range follows the policy it played
    (:class:`~vitou_ai.search.bot.SearchPolicy`).

    Args:
        sub: the subgame.
        reach: ``float64[players, H]`` root reach per dealt hand (e.g. :func:`bayes_reach`);
            read on each seat's root range.
        variant, alpha, beta, gamma: as :class:`~vitou_ai.solvers.public.cfr.PublicCFR`.
        safe: one of :data:`SAFE_MODES`.
        blueprint: ``float64[sub.tree.num_entries]``, the blueprint over the subgame's
            entries (e.g. :func:`~vitou_ai.solvers.public.export.bot_policy` with
            ``start=sub.state``); needed by the gadgets, ignored by ``"none"``.
        alternative: one of :data:`ALTERNATIVES` (above).
        fixed: seats whose play in the subgame is held to ``blueprint`` instead of being
            re-solved (four players: the searcher's partner, who will really play the
            blueprint there, not the searcher's re-solve of it). Their passes are not
            run; the average policy on their entries is the blueprint.
        leaf_values: a depth-limited subgame's (``sub.leaves`` not empty; two players):
            one :class:`~vitou_ai.search.leaves.ContinuationValues` per leaf of
            ``sub.leaves`` in order (its ``searcher`` checked), or ``(hands, values)``,
            per leaf of ``sub.leaves`` in order, ``(hands0, hands1)``
            (sorted dealt-hand indices) and ``float64[K, len(hands0), len(hands1)]``, team
            0's expected return below the leaf with the seat to act at the root playing
            the blueprint and the other seat continuation ``k``
            (:func:`vitou_ai.search.leaves.continuation_values`); the other seat's choice
            among the ``K`` is solved with the subgame
            (:mod:`~vitou_ai.solvers.public.depth_limited`, Brown, Sandholm & Amos 2018).

    Attributes:
        alternatives: ``float64[R_opponent]``, ``alt(h)`` on the opponent's root range
            (``sub.root_hands[opponent]``); empty with ``safe="none"``.

    Raises:
        ValueError: ``reach`` of another shape, negative or not finite; zero on a whole
            root range (the public state is unreachable); an unknown ``safe`` or
            ``alternative``; a gadget
            with other than two players, without ``blueprint`` or with one of another
            length, or where the root is not a decision; ``fixed`` seats without
            ``blueprint``, out of range or the root's actor; a depth-limited subgame
            without ``leaf_values``, or with values that do not fit its leaves
            (:class:`~vitou_ai.solvers.public.depth_limited.LeafPasses`); ``leaf_values``
            for a full subgame.
    """

    def __init__(self, sub: Subgame, reach: np.ndarray, variant: str = "dcfr",
                 alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0,
                 safe: str = "none", blueprint: np.ndarray | None = None,
                 alternative: str = "best_response", fixed: tuple[int, ...] = (),
                 leaf_values: tuple | None = None):
        t = sub.tree
        n, H = t.num_players, t.num_hands
        check_safe_mode(safe, n)
        if alternative not in ALTERNATIVES:
            raise ValueError(f"unknown alternative {alternative!r}; expected one of "
                             f"{', '.join(ALTERNATIVES)}")
        self.alternative = alternative
        reach = np.asarray(reach, np.float64)
        if reach.shape != (n, H):
            raise ValueError(f"reach shape {reach.shape} != ({n}, {H})")
        if not np.isfinite(reach).all() or (reach < 0).any():
            raise ValueError("reach probabilities must be finite and >= 0")
        self.sub = sub
        self.safe = safe
        self.cfr = PublicCFR(t, variant, alpha, beta, gamma, frontier_size=0)
        if len(sub.leaves):
            # a depth-limited subgame: never walked with its leaves worth 0
            from .depth_limited import LeafPasses

            if leaf_values is None:
                raise ValueError("a depth-limited subgame needs leaf_values (continuation "
                                 "values at its leaves)")
            if n != 2 or t.kind[0] != KIND_DECISION:
                raise ValueError("depth-limited solving is for two players, from a decision")
            searcher = int(t.player[0])
            if not isinstance(leaf_values, tuple):
                # one ContinuationValues (vitou_ai.search.leaves) per leaf, in order
                items = list(leaf_values)
                if any(int(getattr(c, "searcher", searcher)) != searcher for c in items):
                    raise ValueError(f"leaf values computed for another searcher than seat "
                                     f"{searcher}, the seat to act at the subgame's root")
                try:
                    leaf_values = ([c.hands for c in items], [c.values for c in items])
                except AttributeError:
                    raise ValueError("leaf_values: a (hands, values) pair, or one "
                                     "ContinuationValues per leaf") from None
            if len(leaf_values) != 2:
                raise ValueError("leaf_values: a (hands, values) pair, or one "
                                 "ContinuationValues per leaf")
            if len(leaf_values[0]) == len(sub.leaves):
                # each leaf's values are over its public state's ranges (root_ranges of
                # its kernel state): catches leaves out of order, or another leaf's values
                for f, st in enumerate(sub.leaf_states):
                    want = root_ranges(t.params, st, t.counts)
                    got = leaf_values[0][f]
                    if len(got) != 2 or any(
                            not np.array_equal(np.asarray(g, np.int64), w)
                            for g, w in zip(got, want, strict=True)):
                        raise ValueError(f"leaf {int(sub.leaves[f])}: its values are over "
                                         "other hands than its public state's ranges "
                                         "(leaves out of order, or another state's values)")
            self.cfr.passes = LeafPasses(t, sub.leaves, sub.root_offs, sub.root_lens,
                                         searcher, *leaf_values)
        elif leaf_values is not None:
            raise ValueError("leaf_values given for a subgame without leaves")
        ps = self.cfr.passes
        ps.root_offs[:] = sub.root_offs
        ps.root_lens[:] = sub.root_lens
        ps.root_reach[:] = 0.0
        for s in range(n):
            r = reach[s, sub.root_hands[s]]
            if not r.any():
                raise UnreachableSubgame(f"seat {s} reaches this public state with no hand: "
                                         "nothing to solve")
            ps.root_reach[s, :len(r)] = r
        self._bayes = ps.root_reach.copy()
        self.alternatives = np.zeros(0)
        self.fixed = tuple(sorted({int(x) for x in fixed}))
        if self.fixed:
            if t.kind[0] != KIND_DECISION or not all(0 <= x < n for x in self.fixed) \
                    or int(t.player[0]) in self.fixed:
                raise ValueError(f"fixed seats {self.fixed} must be seats of the game other "
                                 "than the one to act at the subgame's root")
            if blueprint is None:
                raise ValueError("fixed seats need the blueprint over the subgame's entries")
        if safe == "none" and not self.fixed:
            return
        from .tree import check_entry_array

        if blueprint is None:
            raise ValueError(f"safe={safe} needs the blueprint over the subgame's entries")
        blueprint = check_entry_array(t, blueprint, "blueprint")
        if self.fixed:
            # a fixed seat never runs its pass: its regrets (so its current policy, by
            # regret matching) and its cumulative policy (so its average) stay the
            # blueprint's; the others' passes play against it
            from .export import entry_children

            child = entry_children(t)
            seat = np.full(t.num_nodes, -1, np.int64)
            for d in np.nonzero(t.kind == KIND_DECISION)[0]:
                seat[int(t.first[d]):int(t.first[d] + t.nchild[d])] = int(t.player[d])
            mask = np.isin(np.where(child >= 0, seat[np.maximum(child, 0)], -1), self.fixed)
            self.cfr.regrets[mask] = blueprint[mask]
            self.cfr.cum_policy[mask] = blueprint[mask]
        if safe == "none":
            return
        if t.kind[0] != KIND_DECISION:
            raise ValueError("the subgame's root is not a decision")
        self.searcher = int(t.player[0])
        self.opponent = 1 - self.searcher
        o = self.opponent
        self._R = int(sub.root_lens[o])
        self._bayes_o = self._bayes[o, :self._R].copy()
        self.alternatives = self.root_values(o, blueprint,
                                             best_response=alternative == "best_response")
        # gadget regrets: resolve, [enter, terminate] per hand; maxmargin, one per hand
        self._g = np.zeros((2, self._R) if safe == "resolve" else self._R)
        self._set_gadget_reach()

    # ---- the gadget ------------------------------------------------------------------------
    def gadget_policy(self) -> np.ndarray:
        """``float64[R_opponent]``: the gadget's current policy on the opponent's root
        range: P(enter | h) (``resolve``; 1/2 while both regrets are <= 0), or the
        distribution over hands (``maxmargin``; uniform over the hands of positive
        ``reach`` while every regret is <= 0).

        Raises:
            ValueError: ``safe="none"`` (no gadget).
        """
        if self.safe == "none":
            raise ValueError("safe=none has no gadget")
        pos = np.maximum(self._g, 0.0)
        if self.safe == "resolve":
            tot = pos[0] + pos[1]
            return np.where(tot > 0, pos[0] / np.where(tot > 0, tot, 1.0), 0.5)
        elig = self._bayes_o > 0
        pos = np.where(elig, pos, 0.0)
        tot = pos.sum()
        return pos / tot if tot > 0 else elig / elig.sum()

    def _set_gadget_reach(self) -> None:
        ps = self.cfr.passes
        g = self.gadget_policy()
        ps.root_reach[self.opponent, :self._R] = (self._bayes_o * g if self.safe == "resolve"
                                                  else g)

    def _gadget_hook(self, p: int, after: bool, disc: tuple) -> None:
        """Before each pass, the opponent's root reach from the gadget; after the
        opponent's, the gadget's regret update from its root values (the walk's DCFR
        rule: add the instantaneous regret, floor at 0 under CFR+, then discount)."""
        if not after:
            self._set_gadget_reach()
            return
        if p != self.opponent:
            return
        _, dpos, dneg, _, clip = disc
        v = self.cfr.passes.out[:self._R]
        g = self.gadget_policy()
        if self.safe == "resolve":
            u = g * v + (1.0 - g) * self.alternatives
            inst = np.stack([v - u, self.alternatives - u])
        else:
            m = v - self.alternatives
            inst = np.where(self._bayes_o > 0, m - float(g @ m), 0.0)
        r = self._g + inst
        if clip:
            r = np.maximum(r, 0.0)
        self._g = np.where(r > 0, r * dpos, r * dneg)

    def safety_margins(self, policy: np.ndarray | None = None) -> np.ndarray:
        """``float64[R_opponent]``: ``alt(h) - BR(h)``, ``BR(h)`` the opponent's
        best-response counterfactual value of each root hand against ``policy``
        (``float64[num_entries]``, default the average policy) in the subgame. Negative:
        the opponent gains that much (times its own reach of ``h``) by reaching the
        subgame with ``h`` against ``policy`` rather than against the blueprint.

        Raises:
            ValueError: ``safe="none"`` (no alternatives).
        """
        if self.safe == "none":
            raise ValueError("safe=none computes no alternatives")
        return self.alternatives - self.root_values(self.opponent, policy, best_response=True)

    @property
    def iterations(self) -> int:
        return self.cfr.iteration

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (DCFR, alternating; the gadget's update after each
        opponent pass)."""
        self.cfr.iterate(n, None if self.safe == "none" else self._gadget_hook, skip=self.fixed)

    def solve(self, seconds: float, clock: Callable[[], float] = time.perf_counter,
              min_iterations: int = 1, max_iterations: int = 1_000_000) -> int:
        """Iterate until the next iteration would end past ``seconds`` from now (by the
        duration of the slowest iteration so far), at least ``min_iterations``.
        Returns the iterations run."""
        t0 = clock()
        worst = 0.0
        done = 0
        while done < max_iterations:
            now = clock()
            if done >= min_iterations and now - t0 + worst > seconds:
                break
            self.iterate(1)
            worst = max(worst, clock() - now)
            done += 1
        return done

    def average_policy(self) -> np.ndarray:
        """``float64[num_entries]``: the average policy over the subgame's entries."""
        return self.cfr.average_policy()

    def root_policy(self, hand: int) -> dict[int, float]:
        """The average policy at the root for dealt hand ``hand`` (a row of
        ``tree.hands``): ``{action id: probability}``.

        Raises:
            ValueError: ``hand`` not in the root range of the seat to act.
        """
        return root_policy(self.sub, self.average_policy(), hand)

    def root_values(self, seat: int, policy: np.ndarray | None = None,
                    best_response: bool = False) -> np.ndarray:
        """``float64[R_seat]``: ``seat``'s counterfactual value of each hand of its root
        range (points per deal × the others' reach and the deal prior; sum them weighted
        by ``seat``'s own reach for its expected return), under ``policy``
        (``float64[num_entries]``; default the average policy), or ``seat``'s best
        response to the others' part of it. The others' reaches are the ``reach`` given
        (with a gadget too: not the gadget's)."""
        ps = self.cfr.passes
        pol = self.average_policy() if policy is None else np.ascontiguousarray(policy, np.float64)
        e = np.zeros(0)
        kept = ps.root_reach.copy()
        ps.root_reach[:] = self._bayes
        try:
            ps.run(seat, PK.POLICY_GIVEN, PK.UPDATE_BR if best_response else PK.UPDATE_NONE,
                   e, e, pol)
        finally:
            ps.root_reach[:] = kept
        return ps.out[:self.sub.root_lens[seat]].copy()

    def value(self, seat: int = 0, policy: np.ndarray | None = None) -> float:
        """``seat``'s expected return at the root (points per deal, unnormalised: times the
        probability of the root's public state under the root reaches and the prior)."""
        v = self.root_values(seat, policy)
        return float(v @ self._bayes[seat, :len(v)])

    def nash_conv(self, policy: np.ndarray | None = None) -> float:
        """``sum_s (BR_s - u_s)`` in the subgame at these root reaches (same units as
        :meth:`value`)."""
        total = 0.0
        for s in range(self.sub.tree.num_players):
            u = self.root_values(s, policy)
            b = self.root_values(s, policy, best_response=True)
            r = self._bayes[s, :len(u)]
            total += float((b - u) @ r)
        return total


def root_policy(sub: Subgame, policy: np.ndarray, hand: int) -> dict[int, float]:
    """``{action id: probability}`` of ``policy`` (over ``sub.tree``'s entries) at the root
    for dealt hand ``hand`` of the seat to act.

    Raises:
        ValueError: the root is not a decision; ``hand`` not in the actor's root range.
    """
    t = sub.tree
    if t.kind[0] != KIND_DECISION:
        raise ValueError("the subgame's root is not a decision")
    out: dict[int, float] = {}
    f, m = int(t.first[0]), int(t.nchild[0])
    for c in range(f, f + m):
        lo, ln = int(t.actor_off[c]), int(t.actor_len[c])
        hs = t.entries[lo:lo + ln]
        j = np.nonzero(hs == hand)[0]
        if len(j):
            out[int(t.action[c])] = float(policy[lo + j[0]])
    if not out:
        raise ValueError(f"hand {hand} is not in the root range of seat {int(t.player[0])}")
    return out


def find_node(tree: PublicTree, actions) -> int:
    """The node of ``tree`` reached from its root by the kernel action or chance ids
    ``actions`` (the deal node's single edge is taken without an id).

    Raises:
        ValueError: an action with no edge there.
    """
    from .tree import KIND_DEAL

    node = 0
    for a in actions:
        while tree.kind[node] == KIND_DEAL:
            node = int(tree.first[node])
        f, m = int(tree.first[node]), int(tree.nchild[node])
        kids = [c for c in range(f, f + m) if tree.action[c] == a]
        if not kids:
            raise ValueError(f"no edge {a} below node {node}")
        node = kids[0]
    while tree.kind[node] == KIND_DEAL:
        node = int(tree.first[node])
    return node

