"""Terminal payoffs other than points per deal, for the flat and the public tree alike.

Both :class:`vitou_ai.solvers.flat.tree.GameTree` and
:class:`vitou_ai.solvers.public.tree.PublicTree` keep team 0's return at each
terminal node in one array, ``util`` (points per deal, R8.1), and every solver,
best response and evaluation reads the payoffs from there and nowhere else. So a
game with other payoffs — match equity in place of points — is the same
tree with another ``util``: :func:`with_terminal_utility` makes that copy, and the
solvers run on it unchanged. The mapping must stay zero-sum in the trees'
convention: seat ``s`` gets ``util`` if ``s`` is in team 0, else ``-util``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

import numpy as np

#: ``kind`` of a terminal node, the same value in both tree layouts
KIND_TERMINAL = 2

Tree = TypeVar("Tree")


def terminal_points(tree) -> np.ndarray:
    """``float64[num_nodes]``: team 0's points at terminals (R8.1), NaN elsewhere."""
    if getattr(tree, "util_seats", None) is not None:
        tree.require_two_teams("team 0's terminal points")
    out = np.full(tree.util.shape[0], np.nan)
    term = tree.kind == KIND_TERMINAL
    out[term] = tree.util[term]
    return out


def with_terminal_utility(tree: Tree, transform: Callable[[np.ndarray], np.ndarray]) -> Tree:
    """A copy of ``tree`` whose terminal payoffs are ``transform(points)``.

    Args:
        tree: a ``GameTree`` or a ``PublicTree`` built in deal mode, whose ``util``
            holds team 0's points per deal at terminals.
        transform: maps ``float64[T]`` (team 0's points at the ``T`` terminals, in node
            order) to ``float64[T]``, team 0's new payoff (team 1 gets its negative).

    Returns:
        The same tree (arrays shared, read-only use) with a new ``util`` array; its
        non-terminal entries are 0.

    Raises:
        ValueError: ``transform`` returns the wrong shape or a non-finite value.
    """
    if getattr(tree, "util_seats", None) is not None:
        tree.require_two_teams("a terminal utility transform of team 0's points")
    term = tree.kind == KIND_TERMINAL
    new = np.asarray(transform(tree.util[term].copy()), dtype=np.float64)
    if new.shape != (int(term.sum()),):
        raise ValueError(f"terminal utility transform returned shape {new.shape}, expected "
                         f"({int(term.sum())},)")
    if not np.isfinite(new).all():
        raise ValueError("terminal utility transform returned a non-finite payoff")
    util = np.zeros_like(tree.util)
    util[term] = new
    return dataclasses.replace(tree, util=util)
