"""Differential test: the numba kernel against the independent reference engine
(tests/reference/engine.py, written from RULES.md alone).

Both are driven with the same seeded random actions; at every step they must
agree on terminal/chance status, current player, legal actions (or chance
outcomes and probabilities), and at the end on returns and the deal summary.
Configurations are drawn per deal so that one-from-end deals (R6.1, R6.2,
R9.3), signals, both ``early_end`` values, match mode and research variants
all occur. ``VITOU_DIFF_DEALS`` sets the deals per profile (default 20,000);
the slow test runs 1,000,000.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.helpers import draw_scores, drive_against_reference
from tests.reference.engine import RefGame
from vitou_ai.rules import VitouParams

DEALS = int(os.environ.get("VITOU_DIFF_DEALS", "20000"))
PROFILES = ("vitou", "vitou_cason", "vitou_2p")


def draw_config(profile: str, rng: random.Random) -> dict:
    players = 2 if profile == "vitou_2p" else 4
    cfg: dict = {"profile": profile}
    if rng.random() < 0.3:  # research variant
        hand = rng.randint(1, 3)
        ranks = rng.randint(2, 8)
        copies = max(rng.randint(1, 4), -(-players * hand // ranks))
        cfg.update(ranks=ranks, copies=copies, hand_size=hand)
    if rng.random() < 0.2:
        cfg["target"] = rng.choice([2, 3, 7, 15])
    target = VitouParams(profile=profile, target=cfg.get("target")).target
    cfg["scores"] = draw_scores(target, rng)
    cfg["dealer"] = rng.randrange(-1, players)
    cfg["early_end"] = rng.choice(["card", "trick"])
    if players == 4 and rng.random() < 0.5:
        cfg["signals"] = True
        cfg["signal_seen"] = rng.choice([0.0, 0.3, 0.5, 1.0])
    if rng.random() < 0.1:
        cfg["mode"] = "match"
        cfg["max_deals"] = rng.randint(1, 40)
    return cfg


def run_pair(cfg: dict, rng: random.Random) -> None:
    """Drive kernel and reference together; check the returns and the deal summary."""
    d, r = drive_against_reference(cfg, RefGame(**cfg).new_initial_state(), rng)
    assert d.end == r["end"], cfg
    assert d.winner == r["winner"], cfg
    assert list(d.points) == list(r["points"]), cfg
    assert d.stake == str(r["stake"]), cfg
    assert list(d.tricks) == list(r["tricks"]), cfg
    assert d.raises == r["raises"] and d.refusals == r["refusals"], cfg


def _run(profile: str, deals: int, seed: int) -> None:
    rng = random.Random(seed)
    ends: dict[str, int] = {}
    for _ in range(deals):
        cfg = draw_config(profile, rng)
        run_pair(cfg, rng)
    return ends


@pytest.mark.parametrize("profile", PROFILES)
def test_kernel_matches_reference(profile):
    _run(profile, DEALS, seed=PROFILES.index(profile) + 1)


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
def test_kernel_matches_reference_million(profile):
    _run(profile, 1_000_000, seed=1000 + PROFILES.index(profile))
