"""Hand-history writer: random games recorded as histories replay to the same result,
and kernel.apply_deal deals given hands like the chance sequence does."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.helpers import play_random
from vitou_ai.rules import Game
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.rules.history import HandHistory, record, replay, result_dict

CONFIGS = [
    dict(profile="vitou"),
    dict(profile="vitou", signals=True, scores=(20, 3)),
    dict(profile="vitou", signals=True, signal_seen=0.3),
    dict(profile="vitou_cason", scores=(11, 11)),
    dict(profile="vitou_2p"),
    dict(profile="vitou_2p", scores=(4, 11), ranks=5, copies=2, hand_size=2),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_recorded_random_games_replay_identically(cfg, tmp_path):
    game = Game(dealer=1, **cfg)
    for seed in range(150):
        state, actions = play_random(game, seed)
        hh = record(game, actions)
        path = tmp_path / f"{seed}.toml"
        hh.save(path)
        again = HandHistory.load(path)
        replayed = replay(again)
        assert replayed.returns() == state.returns()
        assert result_dict(again, replayed) == result_dict(hh, state)


def test_apply_deal_matches_chance_sequence():
    game = Game(profile="vitou", dealer=2)
    rng = random.Random(0)
    for _ in range(50):
        state, actions = play_random(game, rng.randrange(10**6))
        hh = record(game, actions)
        hands = np.array(hh.parsed_hands(), dtype=np.int64)
        a = K.new_state(game.array)
        K.apply_deal(game.array, a, hands)
        b = game.new_initial_state()
        for card in hh.deal_sequence():
            b.apply_action(card)
        assert (a == b.array).all()
        assert a[L.S_PHASE] == L.PH_PLAY
