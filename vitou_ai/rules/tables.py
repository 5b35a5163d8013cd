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

import functools
import itertools

import numpy as np

from .layout import KEY_HAND as MAX_HAND  # the two-sided profiles' hands (1 .. 3)
from .layout import RES_VOID

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


def _decided(prefix: tuple[int, ...], hand_size: int, winner=deal_winner) -> int:
    """``winner``'s result if every way to finish the deal after ``prefix`` gives it,
    else ``UNDECIDED``."""
    outcomes = {
        winner(prefix + rest)
        for rest in itertools.product(range(3), repeat=hand_size - len(prefix))
    }
    return outcomes.pop() if len(outcomes) == 1 else UNDECIDED


def _build(winner=deal_winner) -> np.ndarray:
    """``int64[MAX_HAND + 1, MAX_HAND + 1, 3**MAX_HAND]``: :func:`_decided` under
    ``winner`` for every hand size, number of tricks played and their results."""
    table = np.full((MAX_HAND + 1, MAX_HAND + 1, 3**MAX_HAND), UNDECIDED, dtype=np.int64)
    for h in range(1, MAX_HAND + 1):
        for k in range(h + 1):
            for prefix in itertools.product(range(3), repeat=k):
                code = 0
                for r in prefix:
                    code = code * 3 + r
                table[h, k, code] = _decided(prefix, h, winner)
    return table


DEAL_DECIDED = _build()


# ---- the Truc / Put family (docs/RULES_family.md G2) ------------------------------------------
#: Rows of :data:`DEAL_DECIDED_RULES`: Vitou R3.1; equal tricks to the first winner and an
#: all-void deal to team 0 / team 1 (the non-dealers, G2.3); Put (equal tricks draw, P2.2).
RULE_VITOU = 0
RULE_ALL_VOID_TEAM0 = 1
RULE_ALL_VOID_TEAM1 = 2
RULE_PUT = 3


def deal_winner_rule(results: tuple[int, ...], rule: int) -> int:
    """G2 on complete results under a row's rule: team 0/1, or ``NOBODY`` (draw or all void)."""
    won = [results.count(0), results.count(1)]
    if won[0] != won[1]:
        return 0 if won[0] > won[1] else 1
    if rule == RULE_PUT:
        return NOBODY  # P2.2: trick and tie, all tied
    for r in results:
        if r != RES_VOID:
            return r
    if rule == RULE_ALL_VOID_TEAM0:
        return 0
    if rule == RULE_ALL_VOID_TEAM1:
        return 1
    return NOBODY


def _build_rules() -> np.ndarray:
    return np.stack([_build(functools.partial(deal_winner_rule, rule=rule)) for rule in range(4)])


#: ``DEAL_DECIDED_RULES[rule, h, k, code]``: as :data:`DEAL_DECIDED` under each G2 rule.
DEAL_DECIDED_RULES = _build_rules()
assert (DEAL_DECIDED_RULES[RULE_VITOU] == DEAL_DECIDED).all()
