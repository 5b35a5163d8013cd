"""Exact evaluation on a flat game tree: expected returns, best responses,
NashConv, exploitability, and for four players the team best responses: the
alternating partners' (a lower bound) and the pooled team's (an upper bound).

Definitions follow OpenSpiel (``pyspiel.nash_conv`` / ``exploitability``):
``NashConv = sum_p (BR_p - u_p(policy))`` and ``exploitability =
NashConv / num_players``; units are points per deal (R8.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import types
from numba.typed import Dict

from ..._numba import jit
from ...rules import kernel as K
from ...rules import layout as L
from ...rules.observe import infostate_key
from ..arrays import grow1
from ..infoset_table import pack_key
from ..public.team import TeamBracket
from . import kernels as CK
from .tree import (
    KIND_DECISION,
    KIND_TERMINAL,
    MAX_INFOSET_ACTIONS,
    GameTree,
    replay_children,
    replay_start,
)


class EvaluationBuffers:
    """The work arrays of one exact evaluation of a flat tree, sized from it: reach
    probabilities ``reach_p`` / ``reach_o`` and values ``value`` (``float64[num_nodes]``),
    the best response's action ``br_action`` (``int64[num_infosets]``) and action values
    ``q`` (``float64[num_infosets, MAX_INFOSET_ACTIONS]``). Reused across calls."""

    def __init__(self, tree: GameTree):
        n = tree.num_nodes
        self.reach_p = np.empty(n)
        self.reach_o = np.empty(n)
        self.value = np.empty(n)
        self.br_action = np.empty(tree.num_infosets, np.int64)
        self.q = np.zeros((tree.num_infosets, MAX_INFOSET_ACTIONS))


def _check_policy(tree: GameTree, policy: np.ndarray) -> None:
    if policy.shape != (tree.num_infosets, MAX_INFOSET_ACTIONS):
        raise ValueError(f"policy shape {policy.shape} != {(tree.num_infosets, MAX_INFOSET_ACTIONS)}")
    sums = np.where(tree.legal_mask(), policy, 0.0).sum(1)
    if not np.allclose(sums, 1.0, atol=1e-6) or (policy < -1e-12).any():
        bad = int(np.argmax(np.abs(sums - 1.0)))
        raise ValueError(f"policy row {bad} is not a distribution over its legal actions "
                         f"(sums to {sums[bad]})")


def expected_returns(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """``float64[players]``: each seat's expected return under ``policy`` (one pass per
    seat in a per-seat tree, :attr:`GameTree.util_seats`)."""
    _check_policy(tree, policy)
    if tree.per_seat:
        value = np.empty(tree.num_nodes)
        return np.array([CK.expected_values(tree.kind, tree.player, tree.infoset, tree.first,
                                            tree.nchild, tree.prob, tree.util_seats[:, s],
                                            policy, value)
                         for s in range(tree.num_players)])
    v0 = CK.expected_values(tree.kind, tree.player, tree.infoset, tree.first, tree.nchild,
                            tree.prob, tree.util, policy, np.empty(tree.num_nodes))
    return np.array([v0 if s % 2 == 0 else -v0 for s in range(tree.num_players)])


def best_response(tree: GameTree, policy: np.ndarray, player: int,
                  work: EvaluationBuffers | None = None) -> tuple[float, np.ndarray]:
    """A best response of ``player`` to everybody else playing ``policy``.

    Returns:
        (value, br_policy): the best-response value (points per deal) and a copy of
        ``policy`` with ``player``'s rows replaced by the pure best response.
    """
    _check_policy(tree, policy)
    w = work or EvaluationBuffers(tree)
    v = CK.best_response(tree.kind, tree.player, tree.infoset, tree.first, tree.nchild,
                         tree.prob, tree.seat_utility(player), tree.num_players, tree.is_player,
                         tree.is_nact,
                         tree.is_depth, policy, player, w.reach_p, w.reach_o, w.value,
                         w.br_action, w.q)
    out = policy.copy()
    rows = np.nonzero(tree.is_player == player)[0]
    out[rows] = 0.0
    out[rows, w.br_action[rows]] = 1.0
    return float(v), out


def nash_conv(tree: GameTree, policy: np.ndarray) -> float:
    """Sum over players of what a unilateral best response gains (0 at equilibrium)."""
    u = expected_returns(tree, policy)
    work = EvaluationBuffers(tree)
    return float(sum(best_response(tree, policy, p, work)[0] - u[p]
                     for p in range(tree.num_players)))


def exploitability(tree: GameTree, policy: np.ndarray) -> float:
    """``nash_conv / num_players`` (OpenSpiel's definition); points per deal."""
    return nash_conv(tree, policy) / tree.num_players


@dataclass(frozen=True)
class TeamBestResponse:
    """Alternating partners' best responses for one team (four players).

    ``gain`` is a lower bound on what the team can gain by deviating jointly
    (points per deal); ``rounds`` the number of partner best responses taken.
    """

    team: int
    value: float
    baseline: float
    gain: float
    rounds: int


def team_best_response(tree: GameTree, policy: np.ndarray, team: int,
                       max_rounds: int = 20, tol: float = 1e-12) -> TeamBestResponse:
    """Partners ``team`` and ``team + 2`` take best responses in turn, each to the
    other's latest, until the team's value stops improving (OpenSpiel notes,
    "Team games"). Two-player games: the single best response."""
    tree.require_two_teams("a team best response")
    seats = [team] if tree.num_players == 2 else [team, team + 2]
    base = float(expected_returns(tree, policy)[team])
    current = policy.copy()
    value = base
    work = EvaluationBuffers(tree)
    rounds = 0
    for r in range(max_rounds):
        v, current = best_response(tree, current, seats[r % len(seats)], work)
        rounds += 1
        if v <= value + tol and r >= len(seats) - 1:
            value = max(value, v)
            break
        value = max(value, v)
    return TeamBestResponse(team, value, base, value - base, rounds)


_pooled_key = types.UniTuple(types.int64, 5)


@jit
def _pooled_infosets(params, kind, player, infoset, first, nchild, is_actions, deal_hands, team,
                     num_infosets, pooled):
    """Number the pooled information sets of team ``team``: at each decision of a seat of
    the team, (the actor's information set, the partner's information state there), so
    the two partners act as one player who knows what each of them knows. Replays the
    tree on the kernel (children in the builder's order: :func:`tree._build`). Writes
    ``pooled[node]`` (``num_infosets + k`` for the k-th pooled set, -1 elsewhere) and
    returns the actor's infoset of each pooled set, ``int64[k]``."""
    n = kind.shape[0]
    table = Dict.empty(key_type=_pooled_key, value_type=types.int64)
    owner = np.empty(1024, np.int64)
    k_out = 0
    st_states, st_node, state, acts, probs = replay_start(params)
    sp = 1
    key = np.empty(L.KEY_SIZE, np.int8)
    for i in range(n):
        pooled[i] = -1
    while sp > 0:
        sp -= 1
        K.copy_state(st_states[sp], state)
        node = st_node[sp]
        m = nchild[node]
        if m == 0:
            continue
        f = first[node]
        if kind[node] == KIND_DECISION:
            p = player[node]
            iset = infoset[node]
            if p % 2 == team:
                infostate_key(params, state, (p + 2) % 4, key)
                pk = pack_key(key)
                t = (np.int64(iset), pk[0], pk[1], pk[2], pk[3])
                if t in table:
                    j = table[t]
                else:
                    j = k_out
                    table[t] = j
                    if j >= owner.shape[0]:
                        owner = grow1(owner, j + 1)
                    owner[j] = iset
                    k_out += 1
                pooled[node] = num_infosets + j
        sp, st_states, st_node = replay_children(
            params, state, kind[node] == KIND_DECISION, infoset[node], m, f, is_actions,
            deal_hands, acts, probs, st_states, st_node, sp)
    return owner[:k_out].copy()


def pooled_team_best_response(tree: GameTree, policy: np.ndarray, team: int) -> float:
    """Value of team ``team``'s pooled best response on the flat tree: the partners act as
    one player who knows both partners' information (hands, and in 1912 the hands each
    threw in, F2.3) against the other team playing ``policy``; an upper bound on what
    the team can get (as :func:`vitou_ai.solvers.public.team.pooled_best_response_value`
    on the public tree; equal in the tests). Points per deal, team ``team``'s return.

    The best response of one player whose information sets are the pooled ones
    (:func:`_pooled_infosets`): perfect recall holds, and every history of a pooled set
    has the same number of the team's decisions (the actions are public), which the
    backward induction of :func:`cfr_kernels.best_response` needs.

    Raises:
        ValueError: a tree of two players; ``team`` not 0 or 1; a policy of another shape.
    """
    tree.require_two_teams("a pooled team best response")
    if tree.num_players != 4:
        raise ValueError(f"a pooled team needs four players, the tree has {tree.num_players}")
    if team not in (0, 1):
        raise ValueError(f"team must be 0 or 1, not {team}")
    _check_policy(tree, policy)
    player, infoset, is_player, is_nact, is_depth, owner = _pooled_layout(tree, team)
    pol = np.concatenate([policy, policy[owner]])
    n = tree.num_nodes
    return float(CK.best_response(
        tree.kind, player, infoset, tree.first, tree.nchild, tree.prob, tree.util, 4,
        is_player, is_nact, is_depth, pol, team, np.empty(n), np.empty(n), np.empty(n),
        np.empty(len(is_player), np.int64), np.zeros((len(is_player), MAX_INFOSET_ACTIONS))))


def team_bracket(tree: GameTree, policy: np.ndarray, team: int,
                 max_rounds: int = 20) -> TeamBracket:
    """Team ``team``'s value under ``policy`` on the flat tree, and the alternating
    (lower) and pooled (upper) bounds on its best response to the other team's part of
    ``policy``: the flat-tree twin of
    :func:`vitou_ai.solvers.public.team.team_bracket`, for the four-player games the
    public tree does not take (``truc_1912``'s fresh deal, F2.3; partnership Put's
    hand-over, P6.2-P6.3) and for checking the public tree on small variants.

    Args:
        tree: a four-player flat tree (:func:`~vitou_ai.solvers.flat.tree.build_tree`).
        policy: ``float64[tree.num_infosets, 5]``, every seat's policy (e.g. a solver's
            average policy, or :func:`uniform_policy`).
        team: 0 (seats 0, 2) or 1 (seats 1, 3).
        max_rounds: rounds of the alternating partners' best responses.

    Returns:
        :class:`~vitou_ai.solvers.public.team.TeamBracket`, in points per deal.

    Raises:
        ValueError: a tree of two players; ``team`` not 0 or 1; a policy of another shape.

    Examples:
        >>> from vitou_ai import VitouParams
        >>> from vitou_ai.solvers.flat.tree import build_tree
        >>> tree = build_tree(VitouParams(profile="truc_1912", ranks=2, copies=4, hand_size=1,
        ...                               target=3, dealer=0))
        >>> b = team_bracket(tree, uniform_policy(tree), team=0)
        >>> bool(b.value <= b.alternating <= b.pooled + 1e-12)
        True
    """
    if tree.num_players != 4:
        raise ValueError(f"team brackets need four players (two teams of two), the tree has "
                         f"{tree.num_players}")
    if isinstance(team, bool) or team not in (0, 1):
        raise ValueError(f"team must be 0 or 1, not {team!r}")
    _check_policy(tree, policy)
    alt = team_best_response(tree, policy, team, max_rounds=max_rounds)
    pooled = pooled_team_best_response(tree, policy, team)
    return TeamBracket(team, alt.baseline, alt.value, pooled, alt.rounds)


def _pooled_layout(tree: GameTree, team: int) -> tuple[np.ndarray, ...]:
    """The tree's node and infoset arrays with team ``team``'s decisions in its pooled
    information sets, all of them the player ``team``'s (the original sets of the team
    are left, as no one's: ``is_player`` -1): ``(player, infoset, is_player, is_nact,
    is_depth, owner)``, ``owner`` the actor's infoset of each pooled set. Kept on the
    tree (one replay of the tree on the kernel per team)."""
    from .tree import enumerate_deals

    cache = tree.__dict__.setdefault("_pooled_layouts", {})
    if team in cache:
        return cache[team]
    hands, _ = enumerate_deals(tree.params)
    pooled = np.empty(tree.num_nodes, np.int64)
    ni = tree.num_infosets
    owner = _pooled_infosets(tree.params.to_array(), tree.kind, tree.player, tree.infoset,
                             tree.first, tree.nchild, tree.is_actions, hands, team, ni, pooled)
    mine = pooled >= 0
    infoset = np.where(mine, pooled, tree.infoset).astype(np.int64)
    player = np.where(mine, team, tree.player).astype(tree.player.dtype)
    del pooled, mine
    # the pooled sets' depth: the team's decisions before them (both partners')
    depth = _team_depths(tree.kind, tree.first, tree.nchild, player, infoset, team, ni,
                         len(owner))
    is_player = np.concatenate([np.where(tree.is_player % 2 == team, -1, tree.is_player),
                                np.full(len(owner), team)]).astype(tree.is_player.dtype)
    is_nact = np.concatenate([tree.is_nact, tree.is_nact[owner]])
    is_depth = np.concatenate([tree.is_depth, depth]).astype(tree.is_depth.dtype)
    cache[team] = (player, infoset, is_player, is_nact, is_depth, owner)
    return cache[team]


@jit
def _team_depths(kind, first, nchild, player, infoset, team, num_infosets, num_pooled):
    """``int16[num_pooled]``: the team's decisions above each pooled set (a forward pass:
    parents come before their children in the flat tree)."""
    n = kind.shape[0]
    d = np.zeros(n, np.int16)
    out = np.full(num_pooled, -1, np.int16)
    for i in range(n):
        if kind[i] == KIND_TERMINAL:
            continue
        step = 0
        if kind[i] == KIND_DECISION and player[i] == team:
            j = infoset[i] - num_infosets
            if out[j] < 0:
                out[j] = d[i]
            elif out[j] != d[i]:
                raise ValueError("a pooled information set at two depths")
            step = 1
        for c in range(nchild[i]):
            d[first[i] + c] = d[i] + step
    return out


def uniform_policy(tree: GameTree) -> np.ndarray:
    """Every legal action equally likely, ``float64[num_infosets, 5]``."""
    mask = tree.legal_mask()
    return mask / mask.sum(1, keepdims=True)


def value_by_position(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """Expected return by position at the table, points per deal.

    Position ``k`` is the seat ``(dealer + 1 + k) % players``: 0 is the
    dealer's left, who leads trick 1 (R1.3), ``players - 1`` the dealer. With
    a fixed dealer this is :func:`expected_returns` rotated; with the dealer
    drawn by chance (``params.dealer == -1``, R1.4) it averages over the draw
    the return of the seat in each position, taking every subtree's dealer
    from the draw (``(dealer + 1) % players`` would make ``-1`` seat 0, whose
    average over the draw is no position at all).

    Returns:
        ``float64[players]``.

    Raises:
        ValueError: ``policy`` is not a distribution of ``tree``'s shape.
    """
    from ...rules import kernel as K
    from ...rules import layout as L

    _check_policy(tree, policy)
    p = tree.params
    n = p.players
    team_sign = np.array([1.0 if s % 2 == 0 else -1.0 for s in range(n)])
    if p.dealer >= 0:
        u = expected_returns(tree, policy)
        return np.array([u[(p.dealer + 1 + k) % n] for k in range(n)])
    tree.require_two_teams("the value by position over a dealer draw")
    value = np.empty(tree.num_nodes)
    CK.expected_values(tree.kind, tree.player, tree.infoset, tree.first, tree.nchild, tree.prob,
                       tree.util, policy, value)
    # The root is the dealer draw; its children follow the kernel's chance outcomes.
    pa = p.to_array()
    state = K.new_state(pa)
    acts = np.empty(L.NUM_ACTIONS, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    m = K.chance_outcomes(pa, state, acts, probs)
    if state[L.S_PHASE] != L.PH_DRAW_DEALER or m != tree.nchild[0]:
        raise ValueError("the tree's root is not the dealer draw of its parameters")
    out = np.zeros(n)
    for c in range(m):
        dealer = int(acts[c]) - L.C_DEALER0
        v0 = value[tree.first[0] + c]
        for k in range(n):
            out[k] += probs[c] * team_sign[(dealer + 1 + k) % n] * v0
    return out
