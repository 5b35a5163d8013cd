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

import numpy as np
import pytest

from tests.reference.engine import RefGame
from vitou_ai.rules import VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.rules.game import Game

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
    u = rng.random()
    if u < 0.25:  # R6.1 / R9.3
        s = [target - 1, rng.randrange(target - 1)]
        rng.shuffle(s)
    elif u < 0.35:  # R6.2
        s = [target - 1, target - 1]
    else:
        s = [rng.randrange(target), rng.randrange(target)]
    cfg["scores"] = tuple(s)
    cfg["dealer"] = rng.randrange(-1, players)
    cfg["early_end"] = rng.choice(["card", "trick"])
    if players == 4 and rng.random() < 0.5:
        cfg["signals"] = True
        cfg["signal_seen"] = rng.choice([0.0, 0.3, 0.5, 1.0])
    if rng.random() < 0.1:
        cfg["mode"] = "match"
        cfg["max_deals"] = rng.randint(1, 40)
    return cfg


def run_pair(cfg: dict, rng: random.Random) -> int:
    """Drive kernel and reference together; return the number of steps."""
    game = Game(**cfg)
    params = game.array
    state = K.new_state(params)
    ref = RefGame(**cfg).new_initial_state()
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
            assert np.allclose(probs[:n], [p for _, p in theirs], atol=1e-9, rtol=0), where
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
    assert d.end == r["end"], cfg
    assert d.winner == r["winner"], cfg
    assert list(d.points) == list(r["points"]), cfg
    assert d.stake == str(r["stake"]), cfg
    assert list(d.tricks) == list(r["tricks"]), cfg
    assert d.raises == r["raises"] and d.refusals == r["refusals"], cfg
    assert mine.scores() == tuple(ref.scores()), cfg
    return steps


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
