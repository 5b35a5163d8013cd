"""The OpenSpiel game ``python_vitou`` (vitou_ai.openspiel.game) against the kernel.

- ``pyspiel.random_sim_test`` on every profile, match mode, signals, research variants;
- trajectories through OpenSpiel agree with the checked kernel wrapper;
- bad parameters and illegal actions raise with a clear message;
- information-state strings: seat included, consistent (same string => same
  player and legal actions), perfect recall in deal mode, tensor <=> string;
- C++ CFR+ solves a small 2-player variant (exploitability < 1e-3) and a small
  4-player variant (NashConv < 1e-3).
"""

from __future__ import annotations

import random
import re

import numpy as np
import pyspiel
import pytest

import vitou_ai  # noqa: F401  (registers python_vitou)
from tests.helpers import play_along_kernel, walk_decisions
from vitou_ai.openspiel.game import VitouState
from vitou_ai.rules import RANK_LETTERS, IllegalActionError, VitouParams
from vitou_ai.rules.game import max_deal_decisions

SIM_GAMES = [
    "python_vitou",
    "python_vitou(profile=vitou_cason)",
    "python_vitou(profile=vitou_2p)",
    "python_vitou(mode=match,dealer=-1)",
    "python_vitou(profile=vitou_2p,mode=match,dealer=-1,max_deals=30)",
    "python_vitou(signals=True,dealer=-1)",
    "python_vitou(signals=True,signal_seen=1.0,score0=20)",
    "python_vitou(profile=vitou_cason,score0=11,score1=11,early_end=trick)",
    "python_vitou(profile=vitou_2p,score0=11)",
    "python_vitou(ranks=4,copies=2,hand_size=2,signals=True)",
    "python_vitou(profile=vitou_2p,ranks=3,copies=2,hand_size=2,target=5)",
]

SMALL_2P = "python_vitou(profile=vitou_2p,ranks=4,copies=2,hand_size=1)"
SMALL_4P = "python_vitou(ranks=2,copies=3,hand_size=1)"  # 2x2 is all void under rules 1.1


@pytest.mark.parametrize("spec", SIM_GAMES)
def test_random_sim(spec):
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=15, serialize=True, verbose=False)


# ---------------------------------------------------------------------------------------------
# parameters and game info


def test_defaults_and_game_info():
    game = pyspiel.load_game("python_vitou")
    assert game.get_type().short_name == "python_vitou"
    assert game.num_players() == 4
    assert game.num_distinct_actions() == 22
    assert game.max_chance_outcomes() == 14
    assert game.min_utility() == -21 and game.max_utility() == 21
    assert game.utility_sum() == 0
    assert game.max_game_length() == max_deal_decisions(VitouParams())
    assert game.vitou_params == VitouParams()
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert t.provides_information_state_string and t.provides_information_state_tensor
    assert t.provides_observation_string and t.provides_observation_tensor


def test_params_map_to_vitou_params():
    game = pyspiel.load_game(
        "python_vitou(profile=vitou_cason,mode=deal,dealer=-1,score0=3,score1=7,target=15,"
        "early_end=trick,signals=True,signal_seen=0.25,ranks=6,copies=3,hand_size=2,max_deals=9)"
    )
    assert game.vitou_params == VitouParams(
        profile="vitou_cason",
        dealer=-1,
        scores=(3, 7),
        target=15,
        early_end="trick",
        signals=True,
        signal_seen=0.25,
        ranks=6,
        copies=3,
        hand_size=2,
        max_deals=9,
    )
    assert game.max_utility() == 15 - 3 and game.min_utility() == -(15 - 3)
    two = pyspiel.load_game("python_vitou(profile=vitou_2p,mode=match,max_deals=7)")
    assert two.num_players() == 2
    assert (two.min_utility(), two.max_utility()) == (-1, 1)
    assert two.max_game_length() == 7 * max_deal_decisions(two.vitou_params)


@pytest.mark.parametrize(
    "spec, words",
    [
        ("python_vitou(profile=poker)", "unknown profile"),
        ("python_vitou(mode=tournament)", "unknown mode"),
        ("python_vitou(early_end=never)", "unknown early_end"),
        ("python_vitou(ranks=9)", "ranks must be in [2, 8]"),
        ("python_vitou(score0=21)", "scores[0]"),
        ("python_vitou(dealer=4)", "dealer"),
        ("python_vitou(profile=vitou_2p,signals=True)", "signals"),
        ("python_vitou(signal_seen=1.5)", "signal_seen"),
        ("python_vitou(ranks=2,copies=1)", "fewer than the 12 needed"),
    ],
)
def test_bad_values_refused(spec, words):
    with pytest.raises(ValueError, match="python_vitou") as info:
        pyspiel.load_game(spec)
    assert words in str(info.value)


def test_unknown_or_mistyped_parameter_refused():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'seats'"):
        pyspiel.load_game("python_vitou(seats=3)")
    # ``players`` is Willughby's Put's knob (docs/RULES_family.md P7.0), refused elsewhere
    with pytest.raises(ValueError, match="P7.0"):
        pyspiel.load_game("python_vitou(players=3)")
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter ranks"):
        pyspiel.load_game("python_vitou(ranks=many)")


# ---------------------------------------------------------------------------------------------
# actions


def _deal_all(state):
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])


def test_action_strings_and_string_to_action():
    game = pyspiel.load_game("python_vitou")
    state = game.new_initial_state()
    assert state.chance_outcomes()[0] == (0, 0.125)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "deal T"
    assert state.string_to_action("deal T") == 0
    _deal_all(state)
    p = state.current_player()
    assert state.legal_actions() == [0, 8]  # first chance outcomes dealt all tens, then nines
    assert state.action_to_string(p, 0) == "play T"
    assert state.string_to_action("play T") == 0
    assert state.string_to_action("raise") == 8
    with pytest.raises(pyspiel.SpielError, match="play X"):
        state.string_to_action("play X")


def test_illegal_actions_raise_with_rule():
    game = pyspiel.load_game("python_vitou")
    state = game.new_initial_state()
    with pytest.raises(IllegalActionError, match="chance outcome 'unseen' impossible"):
        state.apply_action(9)
    _deal_all(state)
    before = state.a.copy()
    with pytest.raises(IllegalActionError, match=r"'accept' by seat 1 is illegal \(R4.3"):
        state.apply_action(9)
    with pytest.raises(IllegalActionError, match="R2.1: seat 1 holds no 7"):
        state.apply_action(7)
    with pytest.raises(ValueError, match="id 99"):
        state.apply_action(99)
    assert np.array_equal(state.a, before)  # nothing applied
    state.apply_action(8)  # raise
    state.apply_action(0)  # play T
    state.apply_action(10)  # refuse
    assert state.is_terminal()
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply_action(0)


def test_state_holds_only_the_kernel_array():
    game = pyspiel.load_game("python_vitou")
    state = game.new_initial_state()
    assert set(vars(state)) == {"a"}
    clone = state.clone()
    assert isinstance(clone, VitouState) and clone.a is not state.a
    assert np.array_equal(clone.a, state.a)
    clone.apply_action(0)
    assert not np.array_equal(clone.a, state.a)
    assert clone.get_game() is game


# ---------------------------------------------------------------------------------------------
# agreement with the kernel


@pytest.mark.parametrize(
    "spec, deals",
    [
        ("python_vitou(dealer=-1)", 150),
        ("python_vitou(profile=vitou_2p,dealer=-1)", 150),
        ("python_vitou(signals=True,dealer=-1,score1=20)", 60),
        ("python_vitou(profile=vitou_cason,mode=match,dealer=-1)", 5),
        ("python_vitou(profile=vitou_2p,ranks=4,copies=2,hand_size=2,score0=11)", 40),
    ],
)
def test_trajectories_agree_with_kernel(spec, deals):
    osg = pyspiel.load_game(spec)
    rng = random.Random(spec)
    for _ in range(deals):
        play_along_kernel(osg, rng)


# ---------------------------------------------------------------------------------------------
# information states and observations


@pytest.mark.parametrize(
    "spec",
    [
        "python_vitou(profile=vitou_2p,ranks=3,copies=1,hand_size=1,dealer=-1)",
        "python_vitou(profile=vitou_2p,ranks=3,copies=1,hand_size=1,score0=11,score1=11)",
        "python_vitou(ranks=2,copies=3,hand_size=1,dealer=-1)",
        "python_vitou(ranks=2,copies=3,hand_size=1,score0=20)",
        "python_vitou(ranks=2,copies=3,hand_size=1,score0=20,score1=20)",
    ],
)
def test_information_states_consistent_and_perfect_recall(spec):
    game = pyspiel.load_game(spec)
    info_obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    seen = {}
    tensors = {}

    def check(state, trail):
        p = state.current_player()
        key = state.information_state_string(p)
        assert key.startswith(f"p{p} ")
        # other seats see a different information state
        for q in range(game.num_players()):
            if q != p:
                assert state.information_state_string(q) != key
        entry = (p, tuple(state.legal_actions()), trail[p])
        if key in seen:
            assert seen[key] == entry, key  # same player, legal actions and own history
        else:
            seen[key] = entry
        info_obs.set_from(state, p)
        t = info_obs.tensor.tobytes()
        assert tensors.setdefault(t, key) == key  # the tensor identifies the string
        assert np.array_equal(
            np.asarray(state.information_state_tensor(p), np.float32), info_obs.tensor
        )

    walk_decisions(game, check)
    assert len(seen) == len(tensors) > 4


def test_information_states_sampled_with_signals():
    """Signals make the exact tree large: check consistency and perfect recall on
    sampled histories (the small deck makes information states repeat often)."""
    game = pyspiel.load_game("python_vitou(ranks=2,copies=3,hand_size=1,signals=True,dealer=-1)")
    rng = random.Random(7)
    seen = {}
    repeats = 0
    for _ in range(1500):
        state = game.new_initial_state()
        trail = [() for _ in range(4)]
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                a = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                p = state.current_player()
                key = state.information_state_string(p)
                entry = (p, tuple(state.legal_actions()), tuple(trail[p]))
                if key in seen:
                    assert seen[key] == entry, key
                    repeats += 1
                seen[key] = entry
                a = rng.choice(state.legal_actions())
                trail[p] = trail[p] + ((key, a),)
            state.apply_action(a)
    assert repeats > 1000


def test_information_state_with_signals_and_shared_hands():
    game = pyspiel.load_game("python_vitou(signals=True,signal_seen=1.0,score0=20)")
    state = game.new_initial_state()
    _deal_all(state)
    # R6.1: team 0 at 20; its first seat from the dealer's left (dealer 0: seat 1 is
    # team 1, so seat 2) decides, having seen the partner's hand.
    p = state.current_player()
    assert p == 2 and state.legal_actions() == [11, 13]
    s2 = state.information_state_string(2)
    assert "partner" in s2 and "partner" in state.information_state_string(0)
    assert "partner" not in state.information_state_string(1)
    assert "partner" in state.observation_string(2)
    state.apply_action(11)  # go
    # the opponents gesture; seat 1 first
    assert state.current_player() == 1
    state.apply_action(state.string_to_action("signal ace"))
    assert state.is_chance_node() and state.chance_outcomes() == [(8, 1.0)]
    state.apply_action(8)
    state.apply_action(8)
    assert "gestures ? ace ? ?" in state.information_state_string(0)
    assert "gestures ? ace ? ?" in state.information_state_string(3)


def test_observation_tensor_and_string():
    game = pyspiel.load_game("python_vitou")
    state = game.new_initial_state()
    _deal_all(state)
    obs = game.make_py_observer()
    obs.set_from(state, 1)
    assert set(obs.dict) == {"player", "public", "to_act", "hand", "partner", "gestures"}
    assert obs.dict["player"].tolist() == [0, 1, 0, 0]
    assert obs.dict["hand"].sum() == 3
    assert np.array_equal(np.asarray(state.observation_tensor(1), np.float32), obs.tensor)
    assert state.observation_string(1).startswith("p1 ")
    assert state.observation_string(1) != state.observation_string(3)
    assert len(state.information_state_tensor(0)) == game.information_state_tensor_size()
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()
    with pytest.raises(ValueError, match="not supported"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False), {"x": 1})


# ---------------------------------------------------------------------------------------------
# solvers


def test_cfr_plus_solves_small_2p_variant():
    game = pyspiel.load_game(SMALL_2P)
    # The cached tree runs CFR+ at C++ speed; it is built through the Python game
    # (legal actions, chance outcomes, information-state strings, returns).
    solver = pyspiel.CFRPlusSolver(pyspiel.convert_to_cached_tree(game))
    for _ in range(1000):
        solver.evaluate_and_update_policy()
    expl = pyspiel.exploitability(game, solver.average_policy())
    assert 0 <= expl < 1e-3

    # The same solver straight on the Python game gives the same iterates.
    direct = pyspiel.CFRPlusSolver(game)
    cached = pyspiel.CFRPlusSolver(pyspiel.convert_to_cached_tree(game))
    for _ in range(5):
        direct.evaluate_and_update_policy()
        cached.evaluate_and_update_policy()
    assert pyspiel.exploitability(game, direct.average_policy()) == pytest.approx(
        pyspiel.exploitability(game, cached.average_policy()), abs=1e-9
    )


def test_cfr_plus_nash_conv_small_4p_variant():
    game = pyspiel.load_game(SMALL_4P)
    uniform = pyspiel.nash_conv(game, pyspiel.UniformRandomPolicy(game))
    solver = pyspiel.CFRPlusSolver(pyspiel.convert_to_cached_tree(game))
    for _ in range(300):
        solver.evaluate_and_update_policy()
    nash_conv = pyspiel.nash_conv(game, solver.average_policy())
    assert uniform > 0.1
    assert -1e-9 <= nash_conv < 1e-3


# ---------------------------------------------------------------------------------------------
# every observation type

_T = pyspiel.IIGObservationType
_PRIV = pyspiel.PrivateInfoType
ALL_OBS_TYPES = [
    _T(public_info=pub, perfect_recall=recall, private_info=pit)
    for pub in (True, False)
    for recall in (True, False)
    for pit in (_PRIV.NONE, _PRIV.SINGLE_PLAYER, _PRIV.ALL_PLAYERS)
]


def _obs_id(t) -> str:
    return f"public={t.public_info}-recall={t.perfect_recall}-{t.private_info.name}"


def test_private_only_observation_is_supported():
    """The issue's case: it raised "observations without public information are not
    supported"."""
    game = pyspiel.load_game("python_vitou")
    obs = game.make_py_observer(
        _T(public_info=False, perfect_recall=False, private_info=_PRIV.SINGLE_PLAYER))
    state = game.new_initial_state()
    _deal_all(state)
    obs.set_from(state, 1)
    # first outcomes each time: seat 1 (the dealer's left, R1.2) gets three of the four tens
    assert obs.string_from(state, 1) == "p1 | hand TTT"
    assert obs.dict["hand"].sum() == 3 and set(obs.dict) == {"player", "hand", "partner",
                                                             "gestures"}
    assert "scores" not in obs.string_from(state, 1)


def _dealt_state(game, hands_by_seat, actions):
    """Deal ``hands_by_seat`` (rank letters per seat; dealer 0, so R1.2 order is seats
    1, 2, 3, 0) and apply the player actions (strings)."""
    state = game.new_initial_state()
    n = game.num_players()
    for k in range(n):
        for c in hands_by_seat[(1 + k) % n]:
            state.apply_action(RANK_LETTERS.index(c))
    for text in actions:
        state.apply_action(state.string_to_action(text))
    return state


def test_current_observation_is_not_the_history():
    """perfect_recall=False is the current observation: two histories that reach the
    same situation for p1 (trick 1 won by p1 with the same four cards, played in a
    different order by seats that p1 cannot see into) look alike; the information
    state (perfect recall) keeps them apart."""
    game = pyspiel.load_game("python_vitou")
    a = _dealt_state(game, ["KQJ", "TQJ", "987", "A87"],
                     ["play T", "play 9", "play A", "play K"])
    b = _dealt_state(game, ["KQJ", "TQJ", "A87", "987"],
                     ["play T", "play A", "play 9", "play K"])
    assert a.current_player() == b.current_player() == 1
    for pub in (True, False):
        now = game.make_py_observer(_T(public_info=pub, perfect_recall=False,
                                       private_info=_PRIV.SINGLE_PLAYER))
        assert now.string_from(a, 1) == now.string_from(b, 1)
        now.set_from(a, 1)
        ta = now.tensor.copy()
        now.set_from(b, 1)
        assert np.array_equal(ta, now.tensor)
    recall = game.make_py_observer(_T(perfect_recall=True))
    assert recall.string_from(a, 1) != recall.string_from(b, 1)
    assert "play T,play 9,play A,play K" in recall.string_from(a, 1)
    # the private part alone is the same in both, with or without recall: p1's cards
    private = game.make_py_observer(_T(public_info=False, perfect_recall=True,
                                       private_info=_PRIV.SINGLE_PLAYER))
    assert private.string_from(a, 1) == private.string_from(b, 1) == "p1 | hand TQJ"
    # everyone sees the same now; the histories differ in the order of the cards
    # and, with every player's private information, in the hands as dealt
    for recall, same in ((False, True), (True, False)):
        for pit in (_PRIV.NONE, _PRIV.ALL_PLAYERS):
            view = game.make_py_observer(_T(perfect_recall=recall, private_info=pit))
            assert (view.string_from(a, 0) == view.string_from(b, 0)) == same
    everyone = game.make_py_observer(_T(perfect_recall=True, private_info=_PRIV.ALL_PLAYERS))
    assert "hands KQJ TQJ 987 A87" in everyone.string_from(a, 0)


OBS_GAMES = [  # (game, random episodes; 0 = every state)
    ("python_vitou(profile=vitou_2p,ranks=3,copies=1,hand_size=1,dealer=-1)", 0),
    ("python_vitou(ranks=2,copies=3,hand_size=1,signals=True,signal_seen=0.5,score1=20)", 150),
    ("python_vitou(ranks=4,copies=2,hand_size=2,signals=True,dealer=-1,score0=20)", 60),
    ("python_vitou(profile=vitou_cason,mode=match,dealer=-1,max_deals=3)", 10),
]


@pytest.mark.parametrize("spec, episodes", OBS_GAMES)
def test_every_observation_type_on_every_state(spec, episodes):
    """Over every state of a small game (or random episodes of larger ones with
    signals and shared hands), for each of the 12 observation types:
    fixed tensor size, string <=> tensor, readable strings; public-only and
    all-players views the same for every player; the full view (public +
    the player's private information) equivalent to its two halves."""
    game = pyspiel.load_game(spec)
    n = game.num_players()
    observers = {_obs_id(t): (t, game.make_py_observer(t)) for t in ALL_OBS_TYPES}
    pairs: dict[str, dict] = {name: {} for name in observers}
    halves: dict[tuple, set] = {}
    raw_numbers = re.compile(r"(-?\d+ ){4}-?\d+")

    def visit(state):
        for name, (t, obs) in observers.items():
            size = obs.tensor.size
            views = []
            for p in range(n):
                obs.set_from(state, p)
                text = obs.string_from(state, p)
                assert obs.tensor.size == size
                assert not raw_numbers.search(text), (name, text)
                tensor = obs.tensor.tobytes()
                # a string names one tensor and back (per observer type)
                assert pairs[name].setdefault(("s", p, text), tensor) == tensor, (name, text)
                assert pairs[name].setdefault(("t", p, tensor), text) == text, (name, text)
                views.append(text)
                if t.private_info == _PRIV.SINGLE_PLAYER:
                    assert text.startswith(f"p{p}")
            if t.private_info != _PRIV.SINGLE_PLAYER:
                assert len(set(views)) == 1, (name, views)  # the same for everyone
        for recall in (True, False):
            for p in range(n):
                full = observers[f"public=True-recall={recall}-SINGLE_PLAYER"][1]
                pub = observers[f"public=True-recall={recall}-NONE"][1]
                priv = observers[f"public=False-recall={recall}-SINGLE_PLAYER"][1]
                key = (recall, full.string_from(state, p))
                split = (pub.string_from(state, p), priv.string_from(state, p))
                halves.setdefault(key, set()).add(split)
                halves.setdefault(("split", recall) + split, set()).add(key[1])

    def walk(state):
        visit(state)
        if state.is_terminal():
            return
        actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                   else state.legal_actions())
        for a in actions:
            walk(state.child(a))

    if episodes == 0:
        walk(game.new_initial_state())
    rng = random.Random(spec)
    for _ in range(episodes):
        state = game.new_initial_state()
        while not state.is_terminal():
            visit(state)
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes],
                                               [p for _, p in outcomes])[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        visit(state)
    # public + private information determine the full view, and the full view its halves
    assert all(len(v) == 1 for v in halves.values())
    assert len(halves) > 20
