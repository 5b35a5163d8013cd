"""Continuation values at the leaves of a depth-limited search (two players).

Depth-limited solving (Brown, Sandholm & Amos 2018, "Depth-limited solving for
imperfect-information games", NeurIPS, section 4) cuts the searched subgame at a depth
limit and, at each leaf, lets the opponent of the searcher choose among ``K``
*continuation strategies* for the rest of the game, while the searcher plays its
blueprint below the limit. The value of a leaf is then, for each pair of hands, the
searcher's expected return under each of the ``K`` continuations; the opponent's choice
among them at the leaf is the depth-limited search's business, not this module's.

The continuations (ibid., section 4 and the experiments): continuation ``k`` is the
blueprint *biased* toward one class of actions: on the non-searcher seat's decisions,
the probability of every action of that class is multiplied by a factor and the
information set's probabilities renormalised (Brown et al. bias toward folding, calling
and raising by a factor of 5; here the Vitou classes are ``raise`` (``A_RAISE``),
``refuse`` (``A_REFUSE``, the fold) and ``accept`` (``A_ACCEPT``, the call),
:data:`DEFAULT_BIASES`), and for card play ``play_high`` / ``play_low`` (playing a card of
the higher or the lower half of the variant's ranks). ``("blueprint", 1.0)`` is the
blueprint unchanged; :func:`subgame_continuation_values` also takes whole policies as
continuations (``extra``, e.g. the opponent's best response to the blueprint). The bias
is multiplicative: an action the blueprint never takes stays untaken, and an information
set where the blueprint is pure is not moved (a heuristic blueprint's refusals often are).

The values are exact (no sampling): the leaf's public subgame down to the end of the
deal (:func:`~vitou_ai.solvers.public.subgame.build_subgame`), the blueprint's exact
probabilities over its entries (:func:`~vitou_ai.solvers.public.export.bot_policy`), and
one range walk (:mod:`vitou_ai.solvers.public.kernels`) per hand of seat 1's root range
for seat 0 as traverser, seat 1's root reach the indicator of that hand: the walk's
counterfactual value of seat 0's hand ``a`` is then ``P(a, b) × E[return | a, b]``,
``P`` the exact deal probability of the pair (card removal), divided out here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..rules import layout as L
from ..rules.params import VitouParams
from ..solvers.public import kernels as PK
from ..solvers.public.cfr import PublicPasses, entry_policy
from ..solvers.public.export import bot_policy, entry_children
from ..solvers.public.subgame import Subgame, build_subgame
from ..solvers.public.tree import KIND_DECISION, PublicTree

#: The continuations of Brown, Sandholm & Amos 2018 (section 4): the blueprint, and the
#: blueprint biased by a factor of 5 toward raising, refusing (folding) and accepting
#: (calling).
DEFAULT_BIASES: tuple[tuple[str, float], ...] = (
    ("blueprint", 1.0), ("raise", 5.0), ("refuse", 5.0), ("accept", 5.0))

#: The kernel action ids of each bias class (``vitou_ai/rules/layout.py``); "blueprint":
#: none (the blueprint unchanged).
BIAS_CLASSES: dict[str, tuple[int, ...]] = {
    "blueprint": (),
    "raise": (L.A_RAISE,),
    "refuse": (L.A_REFUSE,),
    "accept": (L.A_ACCEPT,),
    # card play: the higher or the lower half of the variant's ranks (rank 0 the highest,
    # R1.1), resolved against the tree's ranks by :func:`biased_policy`
    "play_high": (),
    "play_low": (),
}


@dataclass
class ContinuationValues:
    """The continuation values of one leaf (module docstring).

    Attributes:
        hands: per seat, ``int64[R_s]``: the sorted dealt-hand indices (rows of
            ``deal_tables(params)[0]``) of the seat's range at the leaf
            (:func:`~vitou_ai.solvers.public.subgame.root_ranges`).
        values: ``float64[K, R_0, R_1]``: team 0's (seat 0's) expected return, points per
            deal (R8.1), when seat 0 holds ``hands[0][a]`` and seat 1 ``hands[1][b]``, from
            the leaf's public state to the end of the deal, the searcher playing the
            blueprint and the other seat continuation ``k``; 0.0 where the pair cannot be
            dealt (pair probability 0).
        searcher: the seat playing the blueprint (0 or 1).
        biases: the continuations, ``((class, factor), ...)``, one per row of ``values``.
    """

    hands: tuple[np.ndarray, np.ndarray]
    values: np.ndarray
    searcher: int
    biases: tuple


def check_biases(biases) -> tuple[tuple[str, float], ...]:
    """The continuations as a tuple of ``(class, factor)`` pairs.

    Raises:
        ValueError, one line: no continuation; an entry that is not a pair; a class not in
            :data:`BIAS_CLASSES`; a factor that is not a finite number > 0.
    """
    out = []
    for item in biases:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ValueError(f"a bias is a (class, factor) pair, got {item!r}")
        cls, factor = item
        if cls not in BIAS_CLASSES:
            raise ValueError(f"unknown bias class {cls!r}; expected one of "
                             f"{', '.join(BIAS_CLASSES)}")
        try:
            f = float(factor)
        except (TypeError, ValueError):
            raise ValueError(f"bias factor {factor!r} of {cls!r} is not a number") from None
        if not math.isfinite(f) or f <= 0.0:
            raise ValueError(f"bias factor of {cls!r} must be a finite number > 0, got {factor!r}")
        out.append((str(cls), f))
    if not out:
        raise ValueError("no continuation: biases is empty")
    return tuple(out)


def entry_seats_actions(tree: PublicTree) -> tuple[np.ndarray, np.ndarray]:
    """``(seat, action)``, ``int64[num_entries]`` each: the seat acting at the decision an
    entry belongs to and the kernel action of the entry (-1 for the root ranges, which
    belong to no decision)."""
    child = entry_children(tree)
    node_seat = np.full(tree.num_nodes, -1, np.int64)
    dec = np.nonzero(tree.kind == KIND_DECISION)[0]
    m = tree.nchild[dec].astype(np.int64)
    # the children of each decision, consecutive from its first child
    kids = np.repeat(tree.first[dec].astype(np.int64) - np.cumsum(m) + m, m) + np.arange(m.sum())
    node_seat[kids] = np.repeat(tree.player[dec].astype(np.int64), m)
    ok = child >= 0
    c = np.maximum(child, 0)
    seat = np.where(ok, node_seat[c], -1)
    action = np.where(ok, tree.action[c].astype(np.int64), -1)
    return seat, action


def play_action(rank: int) -> int:
    """The kernel action that plays ``rank`` (``layout.A_PLAY0 + r`` for ranks below 8,
    ``layout.A_PLAY_HI0 + r - 8`` above: Put's 52-card ranks)."""
    return L.A_PLAY0 + rank if rank < 8 else L.A_PLAY_HI0 + rank - 8


def biased_policy(tree: PublicTree, policy: np.ndarray, seat: int, cls: str, factor: float,
                  seats_actions: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """``policy`` (``float64[num_entries]``) with, on ``seat``'s decisions, the probability of
    the actions of class ``cls`` (:data:`BIAS_CLASSES`) multiplied by ``factor`` and each
    information set (decision node, hand) renormalised (Brown, Sandholm & Amos 2018,
    section 4). ``seats_actions``: :func:`entry_seats_actions` of ``tree``, if at hand.

    Raises:
        ValueError: see :func:`check_biases`.
    """
    ((cls, factor),) = check_biases(((cls, factor),))
    acts = BIAS_CLASSES[cls]
    if cls in ("play_high", "play_low"):
        R = tree.params.ranks
        ranks = range(R // 2) if cls == "play_high" else range(R // 2, R)
        acts = tuple(play_action(r) for r in ranks)
    if not acts or factor == 1.0:
        return np.array(policy, np.float64)
    es, ea = seats_actions if seats_actions is not None else entry_seats_actions(tree)
    mask = (es == seat) & np.isin(ea, acts)
    w = np.array(policy, np.float64)
    w[mask] *= factor
    return entry_policy(tree, w)


def continuation_values(params: VitouParams, state: np.ndarray, blueprint, searcher: int,
                        biases=DEFAULT_BIASES, max_nodes: int = 2_000_000) -> ContinuationValues:
    """Each continuation's value of every pair of hands at a leaf (module docstring).

    Args:
        params: the game, deal mode, two players.
        state: ``int32[STATE_SIZE]``, the leaf: a dealt, non-terminal decision state.
        blueprint: a simulator policy (random, heuristic, tabular or abstract;
            ``vitou_ai.bots``), played by the searcher below the leaf and, biased, by the
            other seat.
        searcher: the seat playing the blueprint (0 or 1); the other is biased.
        biases: the continuations, ``((class, factor), ...)``, classes of
            :data:`BIAS_CLASSES`, factors > 0 (default :data:`DEFAULT_BIASES`).
        max_nodes: the most nodes of the leaf's subgame.

    Returns:
        :class:`ContinuationValues`; ``values`` is ``float64[K, R_0, R_1]``.

    Raises:
        ValueError, one line: other than two players; ``searcher`` not 0 or 1; a bad bias
            (:func:`check_biases`); a state no subgame starts from (terminal, not dealt,
            :func:`~vitou_ai.solvers.public.subgame.check_subgame_state`); a neural
            blueprint or one made for other parameters (:func:`bot_policy`).
        SubgameTooLarge: the leaf's subgame has more than ``max_nodes`` nodes.
    """
    if params.players != 2:
        raise ValueError(f"continuation values are for two players, not {params.players}")
    if searcher not in (0, 1):
        raise ValueError(f"searcher must be seat 0 or 1, got {searcher!r}")
    biases = check_biases(biases)
    sub = build_subgame(params, state, max_nodes)
    return subgame_continuation_values(sub, bot_policy(sub.tree, blueprint, start=sub.state),
                                       searcher, biases)


def subgame_continuation_values(sub: Subgame, blueprint: np.ndarray, searcher: int,
                                biases=DEFAULT_BIASES, extra=()) -> ContinuationValues:
    """:func:`continuation_values` on a built full subgame ``sub`` (the leaf's), the
    blueprint given as ``float64[sub.tree.num_entries]`` (e.g. a whole tree's policy mapped
    by :func:`~vitou_ai.solvers.public.subgame.subtree_entries`, for exact evaluation).
    ``extra``: more continuations, each a whole policy over the subgame's entries (the
    searcher's entries should be the blueprint's: e.g. the other seat's best response to
    the blueprint, which Brown, Sandholm & Amos 2018 add to the set), rows after the
    biases', labelled ``("given", 1.0)`` in ``biases``.

    Raises:
        ValueError: as :func:`continuation_values`; a subgame with leaves (depth-limited).
    """
    if sub.tree.num_players != 2:
        raise ValueError(f"continuation values are for two players, not {sub.tree.num_players}")
    if searcher not in (0, 1):
        raise ValueError(f"searcher must be seat 0 or 1, got {searcher!r}")
    if len(sub.leaves):
        raise ValueError("continuation values need the leaf's full subgame, not a depth-limited one")
    biases = check_biases(biases)
    t = sub.tree
    bp = np.asarray(blueprint, np.float64)
    sa = entry_seats_actions(t)
    pols = [biased_policy(t, bp, 1 - searcher, cls, f, sa) for cls, f in biases]
    pols += [np.asarray(x, np.float64) for x in extra]
    biases = biases + (("given", 1.0),) * len(extra)
    h0, h1 = (np.asarray(h, np.int64) for h in sub.root_hands)
    R0, R1 = len(h0), len(h1)
    pp = t.pair_prob[np.ix_(h0, h1)]
    ps = PublicPasses(t, frontier_size=0)
    ps.root_offs[:] = sub.root_offs
    ps.root_lens[:] = sub.root_lens
    ps.root_reach[:] = 0.0
    ps.root_reach[0, :R0] = 1.0
    e = np.zeros(0)
    values = np.zeros((len(pols), R0, R1))
    live = [b for b in range(R1) if (pp[:, b] > 0.0).any()]
    for k, pol in enumerate(pols):
        for b in live:
            ps.root_reach[1, b] = 1.0
            ps.run(0, PK.POLICY_GIVEN, PK.UPDATE_NONE, e, e, pol)
            ps.root_reach[1, b] = 0.0
            values[k, :, b] = ps.out[:R0]
    pos = pp > 0.0
    values = np.where(pos, values / np.where(pos, pp, 1.0), 0.0)
    return ContinuationValues((h0, h1), values, searcher, biases)
