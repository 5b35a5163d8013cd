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

import numpy as np
import pytest

from tests.reference.family import FamilyGame
from vitou_ai.rules import VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.rules.game import Game
from vitou_ai.rules.params import FAMILY_PROFILES

DEALS = int(os.environ.get("VITOU_DIFF_DEALS", "20000"))


def draw_config(profile: str, rng: random.Random) -> dict:
    base = VitouParams(profile=profile)
    players = base.players
    cfg: dict = {"profile": profile}
    if rng.random() < 0.3:  # research variant
        hand = rng.randint(1, 3)
        ranks = rng.randint(3 if profile == "truc_1912" else 2, base.ranks)
        copies = max(rng.randint(1, 4), -(-players * hand * (2 if profile == "truc_1912" else 1)
                                          // ranks))
        cfg.update(ranks=ranks, copies=copies, hand_size=hand)
    if rng.random() < 0.2 and profile != "trut":
        cfg["target"] = rng.choice([2, 3, 7, 15])
    target = VitouParams(profile=profile, target=cfg.get("target")).target
    u = rng.random()
    if u < 0.25:
        s = [target - 1, rng.randrange(target - 1)]
        rng.shuffle(s)
    elif u < 0.35:
        s = [target - 1, target - 1]
    else:
        s = [rng.randrange(target), rng.randrange(target)]
    cfg["scores"] = tuple(s)
    cfg["dealer"] = rng.randrange(-1, players)
    cfg["early_end"] = rng.choice(["card", "trick"])
    if profile in ("truc_1912", "trut"):
        games = base.games if profile == "truc_1912" else rng.choice([5, 7])
        cfg["games"] = games
        cfg["games_won"] = (rng.randrange(games), rng.randrange(games))
    if rng.random() < 0.15:
        cfg["mode"] = "match"
        cfg["max_deals"] = rng.randint(1, 40)
    return cfg


def run_pair(cfg: dict, rng: random.Random) -> str:
    """Drive kernel and reference together; return how the last deal ended."""
    game = Game(**cfg)
    params = game.array
    state = K.new_state(params)
    ref = FamilyGame(**cfg).new_initial_state()
    acts = np.empty(L.NUM_ACTIONS, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    steps = 0
    while True:
        where = f"{cfg} step {steps}"
        term = K.is_terminal(state)
        assert term == ref.is_terminal(), where
        if term:
            break
        player = K.current_player(params, state)
        assert player == ref.current_player(), where
        if player == L.CHANCE_PLAYER:
            n = K.chance_outcomes(params, state, acts, probs)
            theirs = ref.chance_outcomes()
            assert [int(a) for a in acts[:n]] == [a for a, _ in theirs], where
            assert all(abs(float(x) - p) < 1e-9 for x, (_, p) in zip(probs[:n], theirs, strict=True)), where
            a = int(rng.choices(acts[:n], probs[:n])[0])
        else:
            n = K.legal_actions(params, state, acts)
            legal = [int(a) for a in acts[:n]]
            assert legal == ref.legal_actions(), where
            a = rng.choice(legal)
        K.apply_action(params, state, a)
        ref.apply_action(a)
        steps += 1
    out = np.zeros(game.num_players)
    K.returns(params, state, out)
    assert list(out) == pytest.approx(ref.returns(), abs=1e-12), cfg
    mine = game.new_initial_state()
    mine.array = state
    d, r = mine.last_deal(), ref.last_deal()
    assert d is not None and r is not None, cfg
    assert (d.end, d.winner, list(d.points), d.stake) == (
        r["end"], r["winner"], r["points"], r["stake"]), cfg
    assert list(d.tricks) == r["tricks"], cfg
    assert (d.raises, d.refusals) == (r["raises"], r["refusals"]), cfg
    assert list(d.scores_after) == r["scores_after"], cfg
    assert list(d.games_after) == r["games_after"], cfg
    assert mine.scores() == tuple(ref.scores()), cfg
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
    want = {"tricks", "refused"} | ({"conceded", "draw"} if profile == "put" else set())
    if profile != "put" and profile != "trut":
        want |= {"declined"}
    assert want <= set(ends), ends  # the random deals reach every way a deal ends


@pytest.mark.slow
@pytest.mark.parametrize("profile", FAMILY_PROFILES)
def test_kernel_matches_family_reference_million(profile):
    _run(profile, 1_000_000, seed=2000 + FAMILY_PROFILES.index(profile))
