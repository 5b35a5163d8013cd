"""Exact evaluation on a flat game tree: expected returns, best responses,
NashConv, exploitability, and a team best response for four players.

Definitions follow OpenSpiel (``pyspiel.nash_conv`` / ``exploitability``):
``NashConv = sum_p (BR_p - u_p(policy))`` and ``exploitability =
NashConv / num_players``; units are points per deal (R8.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import cfr_kernels as CK
from .tree import MAX_INFOSET_ACTIONS, GameTree


class _Work:
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
    """``float64[players]``: each seat's expected return under ``policy``."""
    _check_policy(tree, policy)
    v0 = CK.expected_values(tree.kind, tree.player, tree.infoset, tree.first, tree.nchild,
                            tree.prob, tree.util, policy, np.empty(tree.num_nodes))
    return np.array([v0 if s % 2 == 0 else -v0 for s in range(tree.num_players)])


def best_response(tree: GameTree, policy: np.ndarray, player: int,
                  work: _Work | None = None) -> tuple[float, np.ndarray]:
    """A best response of ``player`` to everybody else playing ``policy``.

    Returns:
        (value, br_policy): the best-response value (points per deal) and a copy of
        ``policy`` with ``player``'s rows replaced by the pure best response.
    """
    _check_policy(tree, policy)
    w = work or _Work(tree)
    v = CK.best_response(tree.kind, tree.player, tree.infoset, tree.first, tree.nchild,
                         tree.prob, tree.util, tree.num_players, tree.is_player, tree.is_nact,
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
    work = _Work(tree)
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
    seats = [team] if tree.num_players == 2 else [team, team + 2]
    base = float(expected_returns(tree, policy)[team])
    current = policy.copy()
    value = base
    work = _Work(tree)
    rounds = 0
    for r in range(max_rounds):
        v, current = best_response(tree, current, seats[r % len(seats)], work)
        rounds += 1
        if v <= value + tol and r >= len(seats) - 1:
            value = max(value, v)
            break
        value = max(value, v)
    return TeamBestResponse(team, value, base, value - base, rounds)


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
    from ..rules import kernel as K
    from ..rules import layout as L

    _check_policy(tree, policy)
    p = tree.params
    n = p.players
    team_sign = np.array([1.0 if s % 2 == 0 else -1.0 for s in range(n)])
    if p.dealer >= 0:
        u = expected_returns(tree, policy)
        return np.array([u[(p.dealer + 1 + k) % n] for k in range(n)])
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
