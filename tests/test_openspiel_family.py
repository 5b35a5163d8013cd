"""``python_vitou(profile=<family profile>)``: the Truc / Put family through OpenSpiel.

The same conformance checks as tests/test_openspiel.py: OpenSpiel's API check
(``pyspiel.random_sim_test`` with serialisation) on every profile, trajectories that
agree with the checked kernel wrapper, information states that are consistent and
perfect recall over every history of small variants, and C++ CFR+ on a small Put.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

import vitou_ai  # noqa: F401  (registers python_vitou)
from tests.helpers import check_information_states, check_random_sim, play_along_kernel
from vitou_ai.openspiel.game import game_string
from vitou_ai.rules import VitouParams

SIM_GAMES = [
    "python_vitou(profile=truc_catalan)",
    "python_vitou(profile=truc_catalan,score0=11,dealer=-1)",
    "python_vitou(profile=truc_catalan_2p,mode=match,dealer=-1,max_deals=40)",
    "python_vitou(profile=truc_1912)",
    "python_vitou(profile=truc_1912,mode=match,games_won0=1,max_deals=30)",
    "python_vitou(profile=trut,score0=2,score1=1,games=7)",
    "python_vitou(profile=trut,mode=match,max_deals=30)",
    "python_vitou(profile=put)",
    "python_vitou(profile=put,target=7,mode=match,dealer=-1,max_deals=30)",
    "python_vitou(profile=put,ranks=4,copies=2,hand_size=2)",
]


@pytest.mark.parametrize("spec", SIM_GAMES)
def test_random_sim(spec):
    check_random_sim(spec)


def test_game_info_from_the_profile():
    put = pyspiel.load_game("python_vitou(profile=put)")
    assert put.num_players() == 2
    assert put.num_distinct_actions() == 31 and put.max_chance_outcomes() == 19
    assert (put.min_utility(), put.max_utility()) == (-5, 5)
    assert put.vitou_params == VitouParams(profile="put")
    trut = pyspiel.load_game("python_vitou(profile=trut,score0=2)")
    assert trut.max_utility() == 3  # T5: not capped, at most a trut
    catalan = pyspiel.load_game("python_vitou(profile=truc_catalan)")
    assert catalan.num_players() == 4 and catalan.vitou_params.ranks == 10
    for p in ("truc_catalan", "truc_catalan_2p", "truc_1912", "trut", "put"):
        params = VitouParams(profile=p)
        assert pyspiel.load_game(game_string(params)).vitou_params == params


@pytest.mark.parametrize("spec, words", [
    ("python_vitou(profile=truco)", "unknown profile"),
    ("python_vitou(profile=put,games=3)", "G4.1"),
    ("python_vitou(games=3)", "G4.1"),
    ("python_vitou(direction=counterclockwise)", "G0.2"),
    ("python_vitou(profile=trut,games=6)", "T2.1"),
    ("python_vitou(profile=truc_catalan,signals=true)", "C6"),
    ("python_vitou(profile=put,ranks=14)", "ranks must be in [2, 13]"),
])
def test_bad_values_refused(spec, words):
    with pytest.raises(Exception, match=words.replace("[", r"\[").replace("]", r"\]")):
        pyspiel.load_game(spec)


def test_action_strings_and_illegal_actions():
    game = pyspiel.load_game("python_vitou(profile=put,dealer=1)")
    state = game.new_initial_state()
    for a in (0, 0, 1, 14, 14, 15):  # p0: 3 3 2; p1: 8 8 7 (ids 14.. deal ranks 8..)
        state.apply_action(a)
    assert state.legal_actions() == [0, 1, 8, 27]
    assert [state.action_to_string(a) for a in state.legal_actions()] == [
        "play 3", "play 2", "raise", "concede"]
    with pytest.raises(Exception, match="P1|G1.1"):
        state.apply_action(24)  # play 6: p0 has none


@pytest.mark.parametrize("spec, deals", [
    ("python_vitou(profile=truc_catalan,dealer=-1)", 60),
    ("python_vitou(profile=truc_catalan_2p,dealer=-1)", 60),
    ("python_vitou(profile=truc_1912,dealer=-1)", 60),
    ("python_vitou(profile=trut,mode=match,dealer=-1,max_deals=20)", 3),
    ("python_vitou(profile=put,dealer=-1)", 60),
])
def test_trajectories_agree_with_kernel(spec, deals):
    osg = pyspiel.load_game(spec)
    rng = random.Random(spec)
    for _ in range(deals):
        play_along_kernel(osg, rng)


@pytest.mark.parametrize("spec", [
    "python_vitou(profile=put,ranks=3,copies=2,hand_size=2,dealer=-1)",
    "python_vitou(profile=truc_catalan_2p,ranks=3,copies=2,hand_size=2)",
    "python_vitou(profile=truc_catalan_2p,ranks=3,copies=1,hand_size=1,score0=11)",
    "python_vitou(profile=truc_catalan,ranks=2,copies=2,hand_size=1,dealer=-1)",
    "python_vitou(profile=truc_1912,ranks=3,copies=3,hand_size=1)",
    "python_vitou(profile=trut,ranks=2,copies=2,hand_size=1,score0=2)",
])
def test_information_states_consistent_and_perfect_recall(spec):
    check_information_states(pyspiel.load_game(spec))


def test_cfr_plus_solves_small_put():
    game = pyspiel.load_game("python_vitou(profile=put,ranks=4,copies=2,hand_size=1)")
    solver = pyspiel.CFRPlusSolver(pyspiel.convert_to_cached_tree(game))
    for _ in range(500):
        solver.evaluate_and_update_policy()
    assert 0 <= pyspiel.exploitability(game, solver.average_policy()) < 1e-3


@pytest.mark.parametrize("profile", ["truc_catalan", "truc_1912", "trut", "put",
                                     "truc_catalan_2p", "vitou"])
def test_jitted_tensor_from_key_is_the_observers(profile):
    """``VitouObserver.set_from_key`` (the jitted twin, used for policies read on tree
    keys and by neural bots) gives the observer's own information-state tensor. Its
    token rows were 22 wide, Vitou's action count, in the family's 31-id games, which
    put every token after the first in the wrong place."""
    from vitou_ai.rules import layout as L
    from vitou_ai.rules.observe import infostate_key

    game = pyspiel.load_game(game_string(VitouParams(profile=profile)))
    obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    twin = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    rng = random.Random(7)
    compared = 0
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            p = state.current_player()
            obs.set_from(state, p)
            key = np.empty(L.KEY_SIZE, np.int8)
            infostate_key(game.params_array, state.a, p, key)
            twin.set_from_key(key, int(state.a[L.S_DEALS]))
            np.testing.assert_array_equal(twin.tensor, obs.tensor)
            compared += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert compared > 20


def test_flat_tree_fresh_deal_comes_from_the_rest_of_the_deck():
    """F2.3: the flat tree's 1912 fresh deal is dealt from the cards left, as OpenSpiel's
    card-by-card chance deals it. A fresh-deal policy that depends on the hand (propose and
    agree holding the lowest rank, else keep / reject; uniform elsewhere) has the same
    exact value on both trees. With 2 ranks x 4 copies and 1-card hands the fresh deal is
    the first one's complement; the flat tree once dealt it from the whole deck again
    (value -0.66254 for team 0, against OpenSpiel's -0.66720)."""
    from open_spiel.python import policy as osp
    from open_spiel.python.algorithms import expected_game_score

    from vitou_ai.rules import layout as L
    from vitou_ai.solvers.flat.evaluate import expected_returns, uniform_policy
    from vitou_ai.solvers.flat.tree import build_tree

    params = VitouParams(profile="truc_1912", dealer=0, ranks=2, copies=4, hand_size=1,
                         target=3)
    low = params.ranks - 1

    def choose(legal, weak):
        if L.A_REDEAL in legal:
            return L.A_REDEAL if weak else L.A_KEEP
        if L.A_AGREE in legal:
            return L.A_AGREE if weak else L.A_REJECT
        return None

    class FreshDealPolicy(osp.Policy):
        def action_probabilities(self, state, player_id=None):
            legal = state.legal_actions()
            seat = state.current_player()
            a = choose(legal, int(state.a[L.S_HAND + seat * L.MAX_HAND]) == low)
            return {a: 1.0} if a is not None else {b: 1.0 / len(legal) for b in legal}

    tree = build_tree(params)
    policy = uniform_policy(tree)
    for i in range(tree.num_infosets):
        legal = [int(a) for a in tree.is_actions[i, :tree.is_nact[i]]]
        a = choose(legal, int(tree.is_keys[i, L.K_HAND]) == low)
        if a is not None:
            policy[i] = 0.0
            policy[i, legal.index(a)] = 1.0
    game = pyspiel.load_game(game_string(params))
    want = expected_game_score.policy_value(game.new_initial_state(),
                                            [FreshDealPolicy(game, list(range(4)))] * 4)
    assert expected_returns(tree, policy) == pytest.approx(want, abs=1e-12)
    assert want[0] == pytest.approx(-0.66719577, abs=1e-8)
