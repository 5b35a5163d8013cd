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
