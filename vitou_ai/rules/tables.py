"""Precomputed tables for the hot path of the kernel.

``DEAL_DECIDED[h, k, code]`` answers R3.1 + R3.2 for a deal of ``h`` tricks
after ``k`` completed tricks whose results (``RES_TEAM0``, ``RES_TEAM1``,
``RES_VOID``) are ``code`` in base 3, first trick most significant: the
winning team (0 or 1), ``2`` if nobody can win (all void), or ``-1`` if the
later tricks could still change the result. Built once, by enumeration, from
the general rule of R3.1: more tricks wins; with equal tricks, the team that
won a trick first; with no trick won, nobody.
"""

from __future__ import annotations

import itertools

import numpy as np

from .layout import MAX_HAND, RES_VOID

NOBODY = 2
UNDECIDED = -1


def deal_winner(results: tuple[int, ...]) -> int:
    """R3.1 general rule on complete results: team 0/1, or ``NOBODY``."""
    won = [results.count(0), results.count(1)]
    if won[0] != won[1]:
        return 0 if won[0] > won[1] else 1
    for r in results:
        if r != RES_VOID:
            return r
    return NOBODY


def _decided(prefix: tuple[int, ...], hand_size: int) -> int:
    outcomes = {
        deal_winner(prefix + rest)
        for rest in itertools.product(range(3), repeat=hand_size - len(prefix))
    }
    return outcomes.pop() if len(outcomes) == 1 else UNDECIDED


def _build() -> np.ndarray:
    table = np.full((MAX_HAND + 1, MAX_HAND + 1, 3**MAX_HAND), UNDECIDED, dtype=np.int64)
    for h in range(1, MAX_HAND + 1):
        for k in range(h + 1):
            for prefix in itertools.product(range(3), repeat=k):
                code = 0
                for r in prefix:
                    code = code * 3 + r
                table[h, k, code] = _decided(prefix, h)
    return table


DEAL_DECIDED = _build()
