"""Differential test for the Truc / Put family: the kernel against the independent
reference engine ``tests/reference/family.py`` (written from docs/RULES_family.md).

Both are driven with the same seeded random actions; at every step they must agree
on terminal/chance status, current player, legal actions (or chance outcomes and
probabilities), and at the end on returns, the deal summary and the scores and games
after it. Configurations are drawn per deal so that one-from-end deals (C5), both
``early_end`` values, match mode with several games (G4), carried surplus (T4) and
research variants occur. ``VITOU_DIFF_DEALS`` sets the deals per profile (default
20,000); the slow test runs 1,000,000.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.helpers import draw_scores, drive_against_reference
from tests.reference.family import FamilyGame
from vitou_ai.rules import VitouParams
from vitou_ai.rules.params import FAMILY_PROFILES as _ALL_FAMILY

# put_willughby (P7, each for themselves) has its own reference and differential test:
# tests/test_differential_willughby.py
FAMILY_PROFILES = tuple(p for p in _ALL_FAMILY if p != "put_willughby")

DEALS = int(os.environ.get("VITOU_DIFF_DEALS", "20000"))


def draw_config(profile: str, rng: random.Random) -> dict:
    base = VitouParams(profile=profile)
    players = base.players
    cfg: dict = {"profile": profile}
    if rng.random() < 0.3:  # research variant
        hand = rng.randint(2 if profile == "put_partnership" else 1, 3)  # P6.0: 2 or 3
        ranks = rng.randint(3 if profile == "truc_1912" else 2, base.ranks)
        copies = max(rng.randint(1, 4), -(-players * hand * (2 if profile == "truc_1912" else 1)
                                          // ranks))
        cfg.update(ranks=ranks, copies=copies, hand_size=hand)
    if rng.random() < 0.2 and profile != "trut":
        cfg["target"] = rng.choice([2, 3, 7, 15])
    target = VitouParams(profile=profile, target=cfg.get("target")).target
    cfg["scores"] = draw_scores(target, rng)
    cfg["dealer"] = rng.randrange(-1, players)
    cfg["early_end"] = rng.choice(["card", "trick"])
    if profile in ("truc_1912", "trut"):
        games = base.games if profile == "truc_1912" else rng.choice([5, 7])
        cfg["games"] = games
        cfg["games_won"] = (rng.randrange(games), rng.randrange(games))
    if profile == "put_partnership":  # P6.1: both readings of who speaks for a side
        cfg["chooser"] = rng.choice(["named", "order"])
    if rng.random() < 0.15:
        cfg["mode"] = "match"
        cfg["max_deals"] = rng.randint(1, 40)
    return cfg


def run_pair(cfg: dict, rng: random.Random) -> str:
    """Drive kernel and reference together; return how the last deal ended."""
    d, r = drive_against_reference(cfg, FamilyGame(**cfg).new_initial_state(), rng)
    assert (d.end, d.winner, list(d.points), d.stake) == (
        r["end"], r["winner"], r["points"], r["stake"]), cfg
    assert list(d.tricks) == r["tricks"], cfg
    assert (d.raises, d.refusals) == (r["raises"], r["refusals"]), cfg
    assert list(d.scores_after) == r["scores_after"], cfg
    assert list(d.games_after) == r["games_after"], cfg
    return d.end


def _run(profile: str, deals: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    ends: dict[str, int] = {}
    for _ in range(deals):
        end = run_pair(draw_config(profile, rng), rng)
        ends[end] = ends.get(end, 0) + 1
    return ends


@pytest.mark.parametrize("profile", FAMILY_PROFILES)
def test_kernel_matches_family_reference(profile):
    ends = _run(profile, DEALS, seed=11 + FAMILY_PROFILES.index(profile))
    put = profile in ("put", "put_partnership")
    want = {"tricks", "refused"} | ({"conceded", "draw"} if put else set())
    if not put and profile != "trut":
        want |= {"declined"}
    assert want <= set(ends), ends  # the random deals reach every way a deal ends


@pytest.mark.slow
@pytest.mark.parametrize("profile", FAMILY_PROFILES)
def test_kernel_matches_family_reference_million(profile):
    _run(profile, 1_000_000, seed=2000 + FAMILY_PROFILES.index(profile))
