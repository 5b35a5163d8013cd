"""Property tests of the kernel (hypothesis): zero-sum returns, conservation of
cards, no dead ends, bounded length, consistent information states."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import play_random
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.rules.game import max_deal_decisions


@st.composite
def game_params(draw):
    profile = draw(st.sampled_from(["vitou", "vitou_cason", "vitou_2p"]))
    players = 2 if profile == "vitou_2p" else 4
    hand = draw(st.integers(1, 3))
    ranks = draw(st.integers(2, 8))
    copies = draw(st.integers(1, 8))
    if ranks * copies < players * hand:
        copies = -(-players * hand // ranks)
    target = draw(st.sampled_from([None, 2, 5, 21]))
    t = VitouParams(profile=profile, target=target).target
    scores = tuple(draw(st.sampled_from([0, max(0, t - 3), t - 1])) for _ in range(2))
    return VitouParams(
        profile=profile,
        mode=draw(st.sampled_from(["deal", "match"])),
        dealer=draw(st.integers(-1, players - 1)),
        scores=scores,
        target=target,
        early_end=draw(st.sampled_from(["card", "trick"])),
        signals=players == 4 and draw(st.booleans()),
        signal_seen=draw(st.sampled_from([0.0, 0.5, 1.0])),
        ranks=ranks,
        copies=copies,
        hand_size=hand,
        max_deals=draw(st.integers(1, 30)),
    )


@settings(max_examples=300, deadline=None)
@given(params=game_params(), seed=st.integers(0, 2**32 - 1))
def test_random_game_invariants(params, seed):
    game = Game(params)
    n_deals_max = params.max_deals if params.mode == "match" else 1
    bound = max_deal_decisions(params) * n_deals_max
    decisions = [0]

    def check(state):
        a = state.array
        # cards conserved: undealt + held + played = copies of each rank (R1.1)
        held = a[L.S_HELD:L.S_HELD + L.MAX_PLAYERS * L.MAX_RANKS].reshape(L.MAX_PLAYERS, -1)
        total = (a[L.S_DECK:L.S_DECK + L.MAX_RANKS] + held.sum(0)
                 + a[L.S_PLAYED:L.S_PLAYED + L.MAX_RANKS])
        want = np.array([params.copies if r < params.ranks else 0 for r in range(L.MAX_RANKS)])
        assert (total == want).all()
        if state.is_chance_node():
            probs = [p for _, p in state.chance_outcomes()]
            assert probs and abs(sum(probs) - 1) < 1e-12 and min(probs) > 0
        else:
            legal = state.legal_actions()
            assert legal, "a player node without legal actions"
            assert legal == sorted(set(legal))
            assert 0 <= state.current_player() < params.players
            decisions[0] += 1

    state, _ = play_random(game, seed, check)
    assert decisions[0] <= bound
    r = state.returns()
    assert abs(sum(r)) < 1e-12  # zero-sum (R8)
    assert all(r[s] == r[s % 2] for s in range(params.players))  # a seat gets its team's return
    if params.mode == "match":
        assert set(r) <= {-1.0, 0.0, 1.0}
    else:
        t = params.target
        assert all(abs(x) <= t for x in r)


@settings(max_examples=40, deadline=None)
@given(profile=st.sampled_from(["vitou", "vitou_2p"]), signals=st.booleans(),
       scores=st.sampled_from([(0, 0), (4, 1), (4, 4)]))
def test_information_state_key_is_consistent(profile, signals, scores):
    """Equal keys => equal current player and legal actions; a player's key only
    grows (perfect recall: earlier tokens stay a prefix, the hand stays)."""
    signals = signals and profile == "vitou"
    game = Game(profile=profile, ranks=4, copies=3, hand_size=2, target=5, scores=scores,
                signals=signals)
    seen: dict[bytes, tuple[int, tuple[int, ...]]] = {}
    for seed in range(60):
        last: dict[int, np.ndarray] = {}

        def check(state, last=last):
            if state.is_chance_node():
                return
            p = state.current_player()
            key = state.infostate_key(p)
            info = (p, tuple(state.legal_actions()))
            assert seen.setdefault(key.tobytes(), info) == info
            if p in last:
                old = last[p]
                n_old = old[L.K_NTOK]
                assert (old[L.K_TOK:L.K_TOK + n_old] == key[L.K_TOK:L.K_TOK + n_old]).all()
                assert (old[:L.K_HAND] == key[:L.K_HAND]).all()
                if old[L.K_HAND] >= 0:  # dealt (2p: the blind window comes first)
                    assert (old[L.K_HAND:L.K_PARTNER] == key[L.K_HAND:L.K_PARTNER]).all()
            last[p] = key

        play_random(game, seed, check)
