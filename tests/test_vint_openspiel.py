"""The OpenSpiel game ``python_vint`` (vitou_ai/vint/openspiel_game.py): OpenSpiel's
conformance checks (``random_sim_test``, its API suite ``api_test`` on sampled
states), agreement with the kernel wrapper, hidden hands never shown, perfect
recall of the information state (docs/RULES_vint.md V10)."""

from __future__ import annotations

import random
import unittest

import numpy as np
import pyspiel
import pytest

import vitou_ai  # noqa: F401  (registers python_vint)
from vitou_ai.vint import VintParams, VintRuleError
from vitou_ai.vint.game import VintState, card_str
from vitou_ai.vint.openspiel_game import game_string, max_calls

SPECS = ["python_vint", "python_vint(dealer=2,short_auction=true)",
         "python_vint(scoring=foster,dealer=3)"]


@pytest.mark.parametrize("spec", SPECS)
def test_random_sim(spec):
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("spec", SPECS[:2])
def test_openspiel_api_suite(spec):
    """OpenSpiel's own API checks (open_spiel.integration_tests.api_test, shipped in
    the wheel) on 400 sampled states of the game."""
    from open_spiel.integration_tests import api_test

    case = type("VintAPITest", (api_test.EnforceAPIOnPartialTreeBase,),
                {"game_name": "python_vint", "game": pyspiel.load_game(spec)})
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    result = unittest.TextTestRunner(verbosity=0, stream=open("/dev/null", "w")).run(suite)
    assert result.testsRun == 5  # the five partial-tree API checks of open_spiel 2.0.2
    assert result.wasSuccessful(), [str(e[1])[-500:] for e in result.failures + result.errors]


def test_game_info_and_params():
    game = pyspiel.load_game("python_vint(short_auction=true,scoring=foster,slam_small=500)")
    assert game.vint_params == VintParams(short_auction=True, scoring="foster", slam_small=500)
    assert game.num_players() == 4 and game.num_distinct_actions() == 88
    assert game.max_chance_outcomes() == 52
    assert game.max_game_length() == max_calls(True) + 52
    assert pyspiel.load_game(game_string(game.vint_params)).vint_params == game.vint_params
    with pytest.raises(Exception, match="scoring"):
        pyspiel.load_game("python_vint(scoring=bridge)")
    with pytest.raises(Exception, match="dealer"):
        pyspiel.load_game("python_vint(dealer=4)")


def _play_random(game, rng):
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outs = state.chance_outcomes()
            assert abs(sum(p for _, p in outs) - 1) < 1e-9
            state.apply_action(rng.choice(outs)[0])
        else:
            acts = state.legal_actions()
            # pass more often than uniform so that low contracts occur too
            a = 52 if 52 in acts and rng.random() < 0.8 else rng.choice(acts)
            state.apply_action(a)
    return state


def test_longest_auction_fits_max_game_length():
    """V3.4: every bid in turn from 1S to 7NT, each followed by eleven passes."""
    game = pyspiel.load_game("python_vint")
    state = game.new_initial_state()
    for c in range(52):
        state.apply_action(c)
    for _ in range(7):
        state.apply_action(52)
    for b in range(35):
        state.apply_action(53 + b)
        for _ in range(11 if b < 34 else 12):
            state.apply_action(52)
    n = len([h for h in state.full_history() if h.player >= 0])
    assert n == max_calls(False)
    assert not state.is_terminal() and state.legal_actions()[0] < 52


def test_trajectories_agree_with_kernel_and_returns_are_zero_sum():
    game = pyspiel.load_game("python_vint")
    rng = random.Random(3)
    for _ in range(20):
        state = _play_random(game, rng)
        ret = state.returns()
        assert ret[0] == ret[2] == -ret[1] == -ret[3]
        # replay the same actions on the checked wrapper
        ks = VintState(VintParams())
        hist = state.history()
        for c in hist[:52]:
            ks.apply_chance(c)
        for a in hist[52:]:
            ks.apply(a)
        assert ks.is_terminal() and ks.difference() == ret[0]


def test_illegal_actions_name_the_rule():
    game = pyspiel.load_game("python_vint")
    state = game.new_initial_state()
    for c in range(52):
        state.apply_action(c)
    state.apply_action(53 + 7)  # 2D by the dealer
    with pytest.raises(VintRuleError, match="insufficient bid") as e:
        state.apply_action(53 + 2)
    assert e.value.rule == "V3.2"


def test_information_state_hides_other_hands_and_is_perfect_recall():
    game = pyspiel.load_game("python_vint")
    rng = random.Random(5)
    seen: dict[str, tuple] = {}
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            p = state.current_player()
            info = state.information_state_string(p)
            tensor = tuple(np.flatnonzero(state.information_state_tensor(p)))
            # another hand's unplayed cards never appear in the string
            played = {card_str(a % 128) for a in state.history()[52:] if a < 52}
            for other in range(4):
                if other == p:
                    continue
                for c in range(52):
                    if state.a[21 + other] >> c & 1 and card_str(c) not in played:
                        assert f" {card_str(c)}" not in info.split("| auction")[0]
            key = (p, tuple(state.legal_actions()))
            assert seen.setdefault(info, key) == key  # same infoset, same player & actions
            assert seen.setdefault(("t", tensor), (info,)) == (info,)  # tensor <=> string
            acts = state.legal_actions()
            state.apply_action(52 if 52 in acts and rng.random() < 0.85 else rng.choice(acts))


def test_swapping_hidden_cards_changes_only_their_holders_information_states():
    """Two deals differing only in two same-suit cards swapped between seats 1 and 3,
    with the same auction and first trick: seats 0 and 2 have identical information
    states (strings and tensors), seats 1 and 3 different ones (V10.2)."""
    game = pyspiel.load_game("python_vint")
    rng = random.Random(11)
    deck = list(range(52))
    rng.shuffle(deck)
    prefix = [53] + [52] * 12  # 1S by the dealer (seat 0), twelve passes

    def play(order):
        s = game.new_initial_state()
        for c in order:
            s.apply_action(c)
        for a in prefix:
            s.apply_action(a)
        for _ in range(4):  # first trick: each plays its lowest legal card
            s.apply_action(s.legal_actions()[0])
        return s

    a = play(deck)
    played = set(a.history()[52 + len(prefix):])
    seat_of = {c: (1 + k) % 4 for k, c in enumerate(deck)}  # V1.2 with dealer 0
    pair = next((x, y) for x in deck for y in deck
                if seat_of[x] == 1 and seat_of[y] == 3 and x // 13 == y // 13
                and x not in played and y not in played)
    swapped = [pair[1] if c == pair[0] else pair[0] if c == pair[1] else c for c in deck]
    b = play(swapped)
    assert a.history()[52:] == b.history()[52:]
    for p in range(4):
        same = p in (0, 2)
        assert (a.information_state_string(p) == b.information_state_string(p)) == same
        assert (a.information_state_tensor(p) == b.information_state_tensor(p)) == same
        assert (a.observation_string(p) == b.observation_string(p)) == same
