"""Willughby's Put (``put_willughby``, docs/RULES_family.md P7) beyond its golden histories
and the differential test: a folded player's cards stay in no one else's information state
(P7.4), equal keys give equal legal actions on every node of a small variant (hands of 4
and 5 run on into the key's partner slots), random deals end every way and are zero-sum,
OpenSpiel's API check and the kernel agree, recorded deals replay, the named bots play
legal actions, and the commands run it (simulate / tournament) or refuse it in one line
(terminal play, the solvers: docs/guide/games-and-tools.md)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import vitou_ai  # noqa: F401  (registers python_vitou)
from tests.helpers import (
    check_information_states,
    check_keys_give_legal_actions,
    check_random_sim,
    check_recorded_deals_replay,
    dealt,
    needs_extra,
    play_along_kernel,
    play_deal,
)
from vitou_ai.openspiel.game import game_string
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L

PROFILE = "put_willughby"


def test_defaults_are_the_seeds():
    """P7.0: three players by default, a card more than there are players; P7.5 stakes."""
    p = VitouParams(profile=PROFILE)
    assert (p.players, p.hand_size, p.put_stake, p.fold_pays) == (3, 4, 5, "nothing")
    assert VitouParams(profile=PROFILE, players=4).hand_size == 5
    assert p.num_actions == L.NUM_ACTIONS_WILLUGHBY == 48 and p.ladder == (1, 5)
    assert p.knobs() == {} and VitouParams(profile=PROFILE, players=4).knobs() == {
        "hand_size": 5, "players": 4}


@pytest.mark.parametrize("bad, rule", [
    (dict(players=2), "P7.0"), (dict(players=5), "P7.0"), (dict(hand_size=1), "P7.0"),
    (dict(hand_size=5), "P7.0"), (dict(put_stake=1), "P7.5"), (dict(fold_pays="all"), "P7.5"),
    (dict(mode="match"), "P7.6"), (dict(scores=(1, 0)), "P7.6"), (dict(target=7), "P7.6"),
    (dict(chooser="order"), "P7.6"), (dict(games=2), "P7.6"),
])
def test_a_wrong_knob_is_one_line_naming_p7(bad, rule):
    with pytest.raises(ValueError) as e:
        VitouParams(profile=PROFILE, **bad)
    assert f"docs/RULES_family.md {rule}" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("profile", ["put", "vitou", "put_partnership"])
def test_willughby_knobs_are_refused_elsewhere_naming_p7(profile):
    for knob in (dict(players=3), dict(put_stake=2), dict(fold_pays="stake")):
        with pytest.raises(ValueError, match=r"put_willughby only"):
            VitouParams(profile=profile, **knob)


def test_a_folded_hand_stays_unseen_and_out_of_play():
    """P7.4: a fold is a public token; the folded seat plays no more, its cards count as
    out of play in the public observation and stay in no other player's key."""
    g = Game(profile=PROFILE, dealer=0)
    hands = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    s = dealt(g, hands)
    s.apply_action(L.A_RAISE)  # p1 puts
    s.apply_action(L.A_SEE)  # p2 sees
    s.apply_action(L.A_FOLD)  # p0 folds
    assert s.current_player() == 1 and int(s.array[L.S_OUT]) == 1
    other = dealt(g, [[0, 1, 2, 12], *hands[1:]])  # p0 held another card
    for a in (L.A_RAISE, L.A_SEE, L.A_FOLD):
        other.apply_action(a)
    for p in (1, 2):
        assert s.infostate_key(p).tobytes() == other.infostate_key(p).tobytes()
    assert s.infostate_key(0).tobytes() != other.infostate_key(0).tobytes()
    from vitou_ai.rules.observe import O_HELD_COUNT

    obs = s.public_observation()
    assert (obs[O_HELD_COUNT], obs[O_HELD_COUNT + 1], obs[O_HELD_COUNT + 2]) == (0, 4, 4)
    while not s.is_terminal():  # p1 and p2 play on; p0 never acts again
        assert s.current_player() != 0
        s.apply_action(s.legal_actions()[0] if s.legal_actions()[0] != L.A_RAISE
                       else s.legal_actions()[1])
    r = s.returns()
    assert r[0] == 0 and sum(r) == 0


@pytest.mark.parametrize("actions, end, rule", [
    ([0, 5, L.A_PLAY_HI0 + 4, 1, 4, L.A_PLAY_HI0 + 3], "tricks", "P7.2"),  # p1: 3, 2
    ([L.A_RAISE, L.A_FOLD, L.A_FOLD], "folded", "P7.4"),  # everybody folds the put
])
def test_an_action_after_the_end_names_the_willughby_rule(actions, end, rule):
    """An action after a Willughby deal has ended cites the rule that ended it (it cited
    Vitou's R3.2)."""
    from vitou_ai.rules import IllegalActionError

    g = Game(profile=PROFILE, dealer=0)
    s = dealt(g, [[12, 11, 10, 9], [0, 1, 7, 8], [2, 3, 4, 5]])  # 4 5 6 7 | 3 2 9 8 | A K Q J
    for a in actions:
        s.apply_action(a)
    assert s.is_terminal() and s.last_deal().end == end
    with pytest.raises(IllegalActionError) as e:
        s.apply_action(6)
    assert e.value.rule == rule and "the game is over" in str(e.value)


@pytest.mark.parametrize("players, hand", [(3, 4), (4, 5)])
def test_long_hands_fill_the_key_in_order(players, hand):
    g = Game(profile=PROFILE, players=players, dealer=players - 1)
    hands = [list(range(s, s + hand)) for s in range(players)]
    s = dealt(g, [sorted(h, reverse=True) for h in hands])
    for p in range(players):
        k = s.infostate_key(p)
        assert list(k[L.K_HAND : L.K_HAND + hand]) == hands[p]
        assert all(k[L.K_GEST : L.K_GEST + 4] == -1)
    assert L.KEY_SIZE == 47  # unchanged by the longer hands (shipped policies record it)


def test_equal_keys_give_equal_legal_actions_on_a_small_variant():
    def zero_sum(s):
        assert sum(s.returns()) == 0

    g = Game(profile=PROFILE, dealer=0, ranks=3, copies=2, hand_size=2)
    nodes, keys = check_keys_give_legal_actions(g, zero_sum)
    assert nodes > 1000 and keys > 100


@pytest.mark.parametrize("players", [3, 4])
def test_random_deals_end_every_way_and_are_zero_sum(players):
    g = Game(profile=PROFILE, players=players, dealer=-1, fold_pays="stake")
    rng = random.Random(players)
    ends = set()
    for _ in range(600):
        s, _ = play_deal(g, rng)
        r = s.returns()
        assert sum(r) == 0 and len(r) == players
        assert max(r) <= 5 * (players - 1) + players - 1 and min(r) >= -5
        ends.add(s.last_deal().end)
    assert {"tricks", "folded", "draw"} <= ends


SIM_GAMES = [
    "python_vitou(profile=put_willughby)",
    "python_vitou(profile=put_willughby,players=4,dealer=-1)",
    "python_vitou(profile=put_willughby,players=4,fold_pays=stake,put_stake=3)",
    "python_vitou(profile=put_willughby,ranks=4,copies=2,hand_size=2,dealer=-1)",
]


@pytest.mark.parametrize("spec", SIM_GAMES)
def test_openspiel_random_sim(spec):
    check_random_sim(spec)


def test_openspiel_game_info_and_round_trip():
    g = pyspiel.load_game("python_vitou(profile=put_willughby,players=4)")
    assert g.num_players() == 4 and g.num_distinct_actions() == 48
    assert (g.min_utility(), g.max_utility()) == (-5, 15)
    assert g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    for p in (VitouParams(profile=PROFILE), VitouParams(profile=PROFILE, players=4,
                                                        fold_pays="stake", put_stake=2)):
        assert pyspiel.load_game(game_string(p)).vitou_params == p
    with pytest.raises(ValueError, match="P7.6"):
        pyspiel.load_game("python_vitou(profile=put_willughby,mode=match)")
    with pytest.raises(ValueError, match="P7.0"):
        pyspiel.load_game("python_vitou(profile=put,players=3)")


@pytest.mark.parametrize("spec", ["python_vitou(profile=put_willughby,dealer=-1)",
                                  "python_vitou(profile=put_willughby,players=4,dealer=-1)"])
def test_openspiel_trajectories_agree_with_kernel(spec):
    osg = pyspiel.load_game(spec)
    rng = random.Random(spec)
    for _ in range(60):
        play_along_kernel(osg, rng)


def test_openspiel_information_states_consistent_and_perfect_recall():
    def no_thrown_hand(state, key):
        assert "thrown" not in key

    game = pyspiel.load_game("python_vitou(profile=put_willughby,ranks=3,copies=2,hand_size=2)")
    check_information_states(game, no_thrown_hand)


def test_openspiel_observation_strings_of_long_hands():
    game = pyspiel.load_game("python_vitou(profile=put_willughby,players=4)")
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    text = s.information_state_string(s.current_player())
    assert text.count(" ") >= 8 and "thrown" not in text and "partner" not in text
    s.apply_action(L.A_RAISE)
    obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))
    assert "see or fold" in obs.string_from(s, 0) and "put by p" in obs.string_from(s, 0)


def test_strings_show_the_put_and_the_folds_and_no_scores():
    """P7.6: no scores or target in the OpenSpiel strings or the environment's table (they
    showed ``scores 0:0`` and ``(target 5)``); P7.3: the raise is written ``put``, as the
    hand histories write it; P7.1, P7.4: tricks by seat and who has folded."""
    game = pyspiel.load_game("python_vitou(profile=put_willughby,dealer=0)")
    s = game.new_initial_state()
    K.apply_deal(game.params_array, s.a, np.array([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
                                                  np.int64))  # p0 3 2 A K, p1 Q J 10 9, p2 8 7 6 5
    assert s.current_player() == 1 and s.action_to_string(L.A_RAISE) == "put"
    assert s.string_to_action("put") == L.A_RAISE
    s.apply_action(L.A_RAISE)  # p1 puts, p2 folds, p0 sees
    s.apply_action(L.A_FOLD)
    s.apply_action(L.A_SEE)
    s.apply_action(5)  # p1 leads J, p0 takes it with the 3
    s.apply_action(0)
    info = s.information_state_string(0)
    assert info == "p0 | dealer 0 | hand 3 2 A K | put,fold,see,play J,play 3", info
    obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))
    text = obs.string_from(s, 0)
    assert "scores" not in text and "tricks p0" in text and "out p2" in text, text
    public = game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE))
    assert public.string_from(s, 1) == "dealer 0 | put,fold,see,play J,play 3"
    state = str(s)
    assert "scores" not in state and "deals" not in state, state
    assert "tricks [p0] out [p2] | put fold see play J play 3" in state, state


@needs_extra("envs")
def test_the_environment_table_shows_the_put_and_no_scores():
    """P7.6, P7.3: the environment's table has no scores or target and writes ``put``."""
    from vitou_ai.envs import vitou_v0

    env = vitou_v0.env(profile=PROFILE, render_mode="ansi")
    env.reset(seed=1)
    table = env.render()
    assert "score" not in table and "target" not in table, table
    assert "put" in table.splitlines()[-1] and "raise" not in table, table


def test_recorded_random_deals_replay_to_the_same_result():
    rng = random.Random(9)
    for players in (3, 4):
        g = Game(profile=PROFILE, players=players, dealer=-1, fold_pays="stake")
        check_recorded_deals_replay(g, rng, 40)


@pytest.mark.parametrize("bot", ["random", "cautious", "bluffer", "counter"])
def test_named_bots_play_legal_actions(bot):
    from vitou_ai.bots.named import named_bot
    from vitou_ai.eval.tournament import run_tournament
    from vitou_ai.sim.batch import simulate

    for players in (3, 4):
        params = VitouParams(profile=PROFILE, players=players, dealer=-1)
        res = run_tournament([named_bot(bot), named_bot("random")], params, games=200, seed=1)
        assert len(res.names) == 2
        t = simulate(params, [named_bot(bot)] * players, 500, seed=2).to_frame()
        assert (t[[f"seat_return{s}" for s in range(players)]].sum(axis=1) == 0).all()


def test_heuristic_sees_with_top_cards_and_folds_without():
    from vitou_ai.bots.heuristic import HeuristicParams, willughby_action

    g = Game(profile=PROFILE, dealer=0)
    s = dealt(g, [[0, 1, 9, 10], [11, 12, 8, 7], [2, 3, 4, 5]])
    s.apply_action(L.A_RAISE)  # p1 puts (a bluff: no top card)
    hp = HeuristicParams().to_array()
    rng = np.zeros(1, np.uint64)
    legal = np.array([L.A_SEE, L.A_FOLD], np.int64)
    assert willughby_action(hp, g.array, s.array, 2, rng, legal, 2) == L.A_FOLD  # one top card
    s.apply_action(L.A_FOLD)
    assert willughby_action(hp, g.array, s.array, 0, rng, legal, 2) == L.A_SEE  # 3 and 2


def test_simulate_and_tournament_commands(tmp_path, capsys):
    from vitou_ai.commands.cli import main

    assert main(["simulate", "--profile", PROFILE, "--deals", "500",
                 "--bots", "random", "counter"]) == 0
    out = capsys.readouterr().out
    assert "seat 2 (random)" in out and "folded" in out
    assert main(["simulate", "--profile", PROFILE, "--players", "4", "--fold-pays", "stake",
                 "--put-stake", "3", "--deals", "500", "--bots", "counter"]) == 0
    assert "seat 3 (counter)" in capsys.readouterr().out
    assert main(["tournament", "--profile", PROFILE, "--bots", "random", "counter",
                 "cautious", "--out", str(tmp_path / "t"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "2000 deals per pairing" in out and "counter" in out
    assert main(["tournament", "--profile", PROFILE, "--players", "4", "--deals", "200",
                 "--bots", "random", "counter", "--out", str(tmp_path / "t4"),
                 "--no-progress"]) == 0
    cmd = (tmp_path / "t4" / "tournament.json").read_text()
    assert "--players 4" in cmd


@pytest.mark.parametrize("argv, words", [
    (["play", "--profile", PROFILE], "P7.6"),
    (["simulate", "--profile", "put", "--players", "3"], "P7.0"),
    (["simulate", "--profile", PROFILE, "--mode", "match"], "P7.6"),
    (["tournament", "--profile", PROFILE, "--matches", "10", "--bots", "random", "counter"],
     "P7.6"),
    (["train", "--profile", PROFILE, "--solver", "public-dcfr", "--hand-size", "2", "--ranks",
      "4", "--copies", "2", "--iterations", "2", "--no-progress"], "P7.5"),
])
def test_commands_refuse_in_one_line(argv, words, capsys, tmp_path, monkeypatch):
    from vitou_ai.commands.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err


def test_histories_refuse_team_expectations_and_scores(tmp_path, capsys):
    """Found by a new user: Willughby's results have no teams or scores (P7.5, P7.6), so an
    ``[expect] points = [0, 0]`` passed without checking anything and ``scores = [0, 0]``
    was accepted; both are refused naming the rule, and replay prints the returns."""
    from vitou_ai.commands.cli import main
    from vitou_ai.rules.history import HandHistory, HistoryError

    golden = Path(__file__).parent / "golden_family" / "p7_3_put_at_later_lead_one_folds.toml"
    text = golden.read_text()
    assert main(["replay", str(golden)]) == 0
    line = capsys.readouterr().out
    assert "seat 1, returns [0, 5, -5]" in line and "points" not in line
    for extra, rule in (("\n[expect]\npoints = [0, 0]\n", "P7.5"), ("scores = [0, 0]\n", "P7.6")):
        bad = tmp_path / "bad.toml"
        bad.write_text(extra + text if extra.startswith("scores") else
                       text.replace("[expect]", extra.strip() + "\n", 1)
                       if "[expect]" in text else text + extra)
        with pytest.raises(HistoryError) as info:
            HandHistory.load(bad)
        assert info.value.rule == rule, str(info.value)
