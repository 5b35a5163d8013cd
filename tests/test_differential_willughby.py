"""Differential test for Willughby's Put (docs/RULES_family.md P7): the kernel against the
independent reference engine ``tests/reference/willughby.py``.

Both are driven with the same seeded random actions (``tests.helpers.drive_against_
reference``); at every step they must agree on terminal / chance status, current player,
legal actions (or chance outcomes and probabilities), and at the end on the per-seat
returns (zero-sum) and the deal summary. Configurations are drawn per deal: three or four
players, drawn or given dealers, research hands / ranks / copies, both ``fold_pays`` and
several ``put_stake``. ``VITOU_DIFF_DEALS`` sets the deals (default 20,000); the slow test
runs 1,000,000.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.helpers import drive_against_reference
from tests.reference.willughby import WillughbyGame

DEALS = int(os.environ.get("VITOU_DIFF_DEALS", "20000"))


def draw_config(rng: random.Random) -> dict:
    players = rng.choice([3, 4])
    cfg: dict = {"profile": "put_willughby", "players": players,
                 "dealer": rng.randrange(-1, players)}
    if rng.random() < 0.35:  # research variant (P7.0)
        hand = rng.randint(2, players + 1)
        ranks = rng.randint(2, 13)
        copies = max(rng.randint(1, 4), -(-players * hand // ranks))
        if copies > 8:
            ranks = 13
            copies = max(rng.randint(1, 4), -(-players * hand // ranks))
        cfg.update(ranks=ranks, copies=copies, hand_size=hand)
    if rng.random() < 0.3:
        cfg["fold_pays"] = "stake"
    if rng.random() < 0.3:
        cfg["put_stake"] = rng.choice([2, 3, 7])
    cfg["early_end"] = rng.choice(["card", "trick"])  # no effect in P7.2
    return cfg


def run_pair(cfg: dict, rng: random.Random) -> str:
    ref_cfg = {k: v for k, v in cfg.items() if k != "profile"}
    d, r = drive_against_reference(cfg, WillughbyGame(**ref_cfg).new_initial_state(), rng)
    assert (d.end, d.winner, d.stake) == (r["end"], r["winner"], r["stake"]), cfg
    assert list(d.tricks) == r["tricks"], cfg
    assert (d.raises, d.refusals) == (r["raises"], r["refusals"]), cfg
    return d.end


def _run(deals: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    ends: dict[str, int] = {}
    for _ in range(deals):
        end = run_pair(draw_config(rng), rng)
        ends[end] = ends.get(end, 0) + 1
    return ends


def test_kernel_matches_willughby_reference():
    ends = _run(DEALS, seed=71)
    assert {"tricks", "folded", "draw", "all_void"} <= set(ends), ends
    assert sum(ends.values()) == DEALS


@pytest.mark.slow
def test_kernel_matches_willughby_reference_million():
    _run(1_000_000, seed=2071)
