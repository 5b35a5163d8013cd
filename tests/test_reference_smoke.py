"""Smoke tests of the reference engine alone (tests/reference/engine.py).

Hand-worked examples from RULES.md, with the rule they come from, plus a
seeded random-play loop over every profile.
"""

from __future__ import annotations

import random

import pytest

from tests.reference.engine import (
    ABANDON,
    ACCEPT,
    AGREE,
    DECLINE,
    GO,
    PASS,
    PROFILES,
    RAISE,
    RANK_LETTERS,
    REFUSE,
    REJECT,
    SEEN,
    SIGNAL_NONE,
    RefGame,
)


def play(letter: str) -> int:
    return RANK_LETTERS.index(letter)


def deal(state, hands: dict[int, str]) -> None:
    """Apply the deal chance nodes so that seat s gets hands[s] (R1.2 order)."""
    n = len(hands)
    dealer = state._dealer
    for i in range(1, n + 1):
        seat = (dealer + i) % n
        for letter in hands[seat]:
            assert state.current_player() == -1
            state.apply_action(play(letter))


def run(state, actions: list[int]) -> None:
    for a in actions:
        state.apply_action(a)


# ---------------------------------------------------------------- R3.2 --


def test_r3_2_team_that_won_trick_1_leads_ten():
    """R3.2 example: the trick-1 winners lead a T to trick 2: the deal ends at once."""
    state = RefGame("vitou", dealer=3).new_initial_state()  # seat 0 leads
    deal(state, {0: "KT8", 1: "QJ7", 2: "QJ7", 3: "QJ8"})
    run(state, [play("K"), play("Q"), play("J"), play("J")])  # seat 0 wins trick 1
    assert not state.is_terminal()
    assert state.current_player() == 0  # R2.4
    state.apply_action(play("T"))
    assert state.is_terminal()
    summary = state.last_deal()
    assert summary["end"] == "tricks"
    assert summary["winner"] == 0
    assert summary["points"] == [1, 0]
    assert summary["tricks"] == ["0"]  # completed tricks only
    assert state.returns() == [1.0, -1.0, 1.0, -1.0]


def test_r3_2_trick_mode_waits_for_the_trick():
    state = RefGame("vitou", dealer=3, early_end="trick").new_initial_state()
    deal(state, {0: "KT8", 1: "QJ7", 2: "QJ7", 3: "QJ8"})
    run(state, [play("K"), play("Q"), play("J"), play("J"), play("T")])
    assert not state.is_terminal()
    run(state, [play("J"), play("Q"), play("Q")])
    assert state.last_deal()["tricks"] == ["0", "0"]
    assert state.returns() == [1.0, -1.0, 1.0, -1.0]


def test_r2_3_partners_void_and_r2_4_leader_leads_again():
    """R2.3: partners tying on top void the trick; R2.4: its leader leads again."""
    state = RefGame("vitou", dealer=3, early_end="trick").new_initial_state()
    deal(state, {0: "A77", 1: "K88", 2: "AJ7", 3: "QJ8"})
    run(state, [play("A"), play("K"), play("A"), play("Q")])
    assert state._tricks == ["void"]
    assert state.current_player() == 0


def test_r3_1_one_trick_each_then_void_goes_to_first_winner():
    """R3.1 table: X, Y, void -> X."""
    state = RefGame("vitou_2p", dealer=1, early_end="trick").new_initial_state()
    run(state, [PASS, PASS])  # blind window (R9.2): non-dealer 0, then dealer 1
    deal(state, {0: "T8A", 1: "99A"})
    run(state, [play("T"), play("9")])  # team 0 wins trick 1, seat 0 leads
    run(state, [play("8"), play("9")])  # team 1 wins trick 2, seat 1 leads
    run(state, [play("A"), play("A")])  # void
    summary = state.last_deal()
    assert summary["tricks"] == ["0", "1", "void"]
    assert summary["winner"] == 0
    assert state.returns() == [1.0, -1.0]


def test_all_void_scores_nothing():
    state = RefGame("vitou_2p", dealer=1).new_initial_state()
    run(state, [PASS, PASS])
    deal(state, {0: "T98", 1: "T98"})
    run(state, [play("T"), play("T"), play("9"), play("9"), play("8")])
    # after the leader's 8 the follower may still win (T, 9 unseen) or lose (7)
    assert not state.is_terminal()
    state.apply_action(play("8"))
    summary = state.last_deal()
    assert summary["end"] == "all_void"
    assert summary["winner"] is None
    assert summary["points"] == [0, 0]
    assert state.returns() == [0.0, 0.0]


# ------------------------------------------------------------ R4 raises --


def test_r4_3_refusing_six_gives_three():
    state = RefGame("vitou", dealer=3).new_initial_state()
    deal(state, {0: "78Q", 1: "KQJ", 2: "T98", 3: "AKQ"})
    state.apply_action(RAISE)  # seat 0: 1 -> 3
    assert state.legal_actions() == [play("Q"), play("8"), play("7")]  # must play
    state.apply_action(play("7"))
    assert REFUSE in state.legal_actions() and RAISE in state.legal_actions()
    state.apply_action(RAISE)  # seat 1 re-raises: accepts 3, raises to 6
    state.apply_action(play("J"))
    assert state.current_player() == 2
    state.apply_action(REFUSE)  # seat 2 refuses 6
    summary = state.last_deal()
    assert summary["end"] == "refused"
    assert summary["winner"] == 1
    assert summary["points"] == [0, 3]
    assert summary["stake"] == 3
    assert summary["raises"] == 2 and summary["refusals"] == 1
    assert state.returns() == [-3.0, 3.0, -3.0, 3.0]


def test_r4_2_conditions_in_four_players():
    state = RefGame("vitou", dealer=3).new_initial_state()
    deal(state, {0: "78Q", 1: "KQJ", 2: "J98", 3: "AKQ"})
    assert RAISE in state.legal_actions()
    state.apply_action(RAISE)
    state.apply_action(play("7"))
    state.apply_action(play("J"))  # seat 1 accepts by playing: stake 3
    assert REFUSE not in state.legal_actions()
    assert RAISE not in state.legal_actions()  # R4.2b: partner of the raiser
    state.apply_action(play("8"))
    assert RAISE not in state.legal_actions()  # R4.2a: seat 3 is last
    state.apply_action(play("A"))  # team 1 wins trick 1, seat 3 leads
    assert RAISE in state.legal_actions()  # team 1 may raise: latest by team 0


def test_r4_6_raise_lapses_when_the_raisers_card_ends_the_deal():
    state = RefGame("vitou", dealer=3).new_initial_state()
    deal(state, {0: "KT8", 1: "QJ7", 2: "QJ7", 3: "QJ8"})
    run(state, [play("K"), play("Q"), play("J"), play("J")])  # team 0 wins trick 1
    run(state, [RAISE, play("T")])  # the T ends the deal: the raise lapses
    summary = state.last_deal()
    assert summary["points"] == [1, 0]
    assert summary["stake"] == 1
    assert summary["raises"] == 1


def test_r5_2_baraque_is_worth_what_the_winners_need():
    """R5.2 / R8.1: B at 5:0 in deal mode is worth 21 - 5 = 16."""
    state = RefGame("vitou", dealer=3, scores=(5, 0)).new_initial_state()
    deal(state, {0: "T98", 1: "KQJ", 2: "T87", 3: "AKQ"})
    run(state, [RAISE, play("8")])  # seat 0: 3
    run(state, [RAISE, play("J")])  # seat 1: accepts 3, 6
    run(state, [RAISE, play("7")])  # seat 2: accepts 6, 12
    assert RAISE not in state.legal_actions()  # seat 3 is last (R4.4)
    state.apply_action(play("A"))  # accepts 12; team 1 wins trick 1, seat 3 leads
    assert RAISE in state.legal_actions()  # latest raise was team 0's
    run(state, [RAISE, play("K")])  # seat 3 raises to B
    assert RAISE not in state.legal_actions()  # B is the top (R4.2c)
    run(state, [play("T")])  # seat 0 accepts B
    run(state, [play("Q")])  # trick 2 could still be void (a T is unseen)
    assert not state.is_terminal()
    run(state, [play("8")])  # team 0 wins trick 2: one trick each
    run(state, [play("9"), play("K"), play("T")])  # seat 3 could still tie the T
    assert not state.is_terminal()
    run(state, [play("Q")])
    summary = state.last_deal()
    assert summary["stake"] == "B"
    assert summary["winner"] == 0
    assert summary["points"] == [16, 0]
    assert state.returns() == [16.0, -16.0, 16.0, -16.0]


def test_refusing_b_gives_twelve():
    state = RefGame("vitou", dealer=3).new_initial_state()
    deal(state, {0: "T98", 1: "KQJ", 2: "T87", 3: "AKQ"})
    run(state, [RAISE, play("8"), RAISE, play("J"), RAISE, play("7"), play("A")])
    run(state, [RAISE, play("K"), REFUSE])
    summary = state.last_deal()
    assert summary["points"] == [0, 12] and summary["stake"] == 12


# --------------------------------------------------------- R6 and R9 ----


def test_r6_1_decline_gives_the_other_team_one():
    state = RefGame("vitou", dealer=0, scores=(20, 5)).new_initial_state()
    deal(state, {0: "T98", 1: "KQJ", 2: "T87", 3: "AKQ"})
    assert state.current_player() == 2  # team 0's first seat from the dealer's left
    assert state.legal_actions() == [GO, DECLINE]
    state.apply_action(DECLINE)
    summary = state.last_deal()
    assert summary["end"] == "declined"
    assert summary["points"] == [0, 1]
    assert state.returns() == [-1.0, 1.0, -1.0, 1.0]


def test_r6_1_go_and_lose_gives_three_and_no_raises():
    state = RefGame("vitou", dealer=0, scores=(20, 19), signals=True).new_initial_state()
    deal(state, {0: "987", 1: "TTA", 2: "987", 3: "K87"})
    state.apply_action(GO)
    # R7.3: only team 1 signals, from the dealer's left: seat 1 then seat 3
    assert state.current_player() == 1
    state.apply_action(SIGNAL_NONE + 1)
    assert state.chance_outcomes() == [(8, 0.5), (9, 0.5)]
    run(state, [SEEN, SEEN])
    assert state.current_player() == 3
    state.apply_action(SIGNAL_NONE)
    assert state.current_player() == 1  # seat 1 leads
    assert RAISE not in state.legal_actions()  # R4.2d
    run(state, [play("T")])
    run(state, [play("9"), play("K"), play("9")])
    run(state, [play("T")])  # team 1 won trick 1 and leads a T: over
    summary = state.last_deal()
    assert summary["points"] == [0, 3]
    # R8.1: capped at what team 1 needed: 21 - 19 = 2
    assert state.returns() == [-2.0, 2.0, -2.0, 2.0]


def test_r6_2_all_pass():
    state = RefGame("vitou_cason", dealer=2, scores=(11, 11), signals=True).new_initial_state()
    deal(state, {0: "987", 1: "TTA", 2: "987", 3: "K87"})
    seats = []
    for _ in range(4):
        seats.append(state.current_player())
        state.apply_action(PASS)
    assert seats == [3, 0, 1, 2]
    assert state.last_deal()["end"] == "passed"
    assert state.returns() == [0.0] * 4


def test_r9_2_blind_raise_refused():
    state = RefGame("vitou_2p", dealer=0).new_initial_state()
    assert state.current_player() == 1  # the non-dealer speaks first
    state.apply_action(RAISE)
    assert state.current_player() == 0
    assert state.legal_actions() == [RAISE, ACCEPT, REFUSE]
    state.apply_action(REFUSE)
    summary = state.last_deal()
    assert summary["end"] == "refused" and summary["points"] == [0, 1]
    assert state.returns() == [-1.0, 1.0]


def test_r9_2_card_turn_exchange_and_abandon():
    state = RefGame("vitou_2p", dealer=0).new_initial_state()
    run(state, [PASS, PASS])
    deal(state, {1: "T98", 0: "AKQ"})
    assert state.current_player() == 1
    assert ABANDON in state.legal_actions()
    run(state, [ABANDON, REJECT])
    assert ABANDON not in state.legal_actions()
    run(state, [RAISE, RAISE, RAISE])  # 3, 6, 12 (seat 1, 0, 1)
    assert state.legal_actions() == [ACCEPT, REFUSE]  # 12 is the top
    state.apply_action(ACCEPT)
    assert state.legal_actions() == [play("T"), play("9"), play("8")]
    state.apply_action(play("T"))
    run(state, [play("A"), play("9")])  # seat 1 won trick 1 and leads the 9
    assert not state.is_terminal()  # seat 0 could still win trick 2 with a T
    run(state, [play("K")])
    summary = state.last_deal()
    assert summary["stake"] == 12 and summary["points"] == [0, 12]
    assert summary["raises"] == 3


def test_r9_2_abandon_agreed():
    state = RefGame("vitou_2p", dealer=0).new_initial_state()
    run(state, [PASS, PASS])
    deal(state, {1: "T98", 0: "AKQ"})
    run(state, [ABANDON, AGREE])
    assert state.last_deal()["end"] == "abandoned"
    assert state.returns() == [0.0, 0.0]


def test_match_mode_plays_deals_until_target():
    state = RefGame("vitou_2p", mode="match", dealer=0, scores=(0, 10)).new_initial_state()
    state.apply_action(RAISE)
    state.apply_action(REFUSE)  # seat 1 scores 1: 0 - 11
    assert state.scores() == (0, 11)
    assert not state.is_terminal()
    # next deal: dealer 1, one from the end: no blind window (R9.3)
    assert state.current_player() == -1
    deal(state, {0: "T98", 1: "AKQ"})
    assert state.current_player() == 1
    assert state.legal_actions() == [GO, DECLINE]
    state.apply_action(DECLINE)
    assert state.scores() == (1, 11)
    assert state.returns() == [0.0, 0.0]


def test_constructor_validation():
    with pytest.raises(ValueError):
        RefGame("vitou_2p", signals=True)
    with pytest.raises(ValueError):
        RefGame(ranks=2, copies=1)
    with pytest.raises(ValueError):
        RefGame(scores=(21, 0))
    with pytest.raises(ValueError):
        RefGame(hand_size=4)
    with pytest.raises(ValueError):
        RefGame(profile="truc")
    with pytest.raises(ValueError):
        RefGame("vitou_2p", dealer=2)


def test_illegal_action_raises():
    state = RefGame("vitou", dealer=3).new_initial_state()
    with pytest.raises(ValueError):
        state.apply_action(RAISE)  # a chance node
    deal(state, {0: "KT8", 1: "QJ7", 2: "QJ7", 3: "QJ8"})
    with pytest.raises(ValueError):
        state.apply_action(play("A"))  # not held
    with pytest.raises(ValueError):
        state.apply_action(REFUSE)  # no raise waiting


# --------------------------------------------------------- random play --


def _random_config(rng: random.Random, profile: str) -> dict:
    target = {"vitou": 21, "vitou_cason": 12, "vitou_2p": 12}[profile]
    four = profile != "vitou_2p"

    def score():
        return rng.choice([0, 0, rng.randrange(target), target - 1, target - 2])

    config = {
        "profile": profile,
        "dealer": rng.randrange(-1, 4 if four else 2),
        "scores": (score(), score()),
        "early_end": rng.choice(["card", "trick"]),
    }
    if four:
        config["signals"] = rng.random() < 0.5
        config["signal_seen"] = rng.choice([0.0, 0.5, 1.0])
    if rng.random() < 0.2:
        players = 4 if four else 2
        config["hand_size"] = rng.randint(1, 3)
        config["ranks"] = rng.randint(2, 8)
        config["copies"] = rng.randint(1, 4)
        while config["ranks"] * config["copies"] < players * config["hand_size"]:
            config["copies"] += 1
    return config


def _play_out(rng: random.Random, state, max_steps: int = 10_000) -> int:
    steps = 0
    while not state.is_terminal():
        steps += 1
        assert steps < max_steps, "did not terminate"
        player = state.current_player()
        if player == -1:
            outcomes = state.chance_outcomes()
            ids = [o for o, _ in outcomes]
            assert ids == sorted(ids) and all(p > 0 for _, p in outcomes)
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            assert state.legal_actions() == []
            state.apply_action(rng.choices(ids, weights=[p for _, p in outcomes])[0])
        else:
            assert player >= 0
            legal = state.legal_actions()
            assert legal, f"no legal action at a player node: {state}"
            assert legal == sorted(set(legal))
            assert state.returns() == [0.0] * len(state.returns())
            state.apply_action(rng.choice(legal))
    assert state.current_player() == -4
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    return steps


@pytest.mark.parametrize("profile", PROFILES)
def test_random_deals(profile):
    rng = random.Random(20240 + PROFILES.index(profile))
    ends = set()
    for _ in range(2000):
        config = _random_config(rng, profile)
        game = RefGame(mode="deal", **config)
        state = game.new_initial_state()
        _play_out(rng, state)
        returns = state.returns()
        players = len(returns)
        assert returns[0] == -returns[1]
        assert all(returns[s] == returns[s % 2] for s in range(players))
        summary = state.last_deal()
        ends.add(summary["end"])
        points = summary["points"]
        assert min(points) == 0
        if summary["winner"] is None:
            assert points == [0, 0] and returns[0] == 0
        else:
            w = summary["winner"]
            assert points[w] > 0 and points[1 - w] == 0
            v = min(points[w], game.target - game.scores[w])
            assert returns[w] == v
        assert len(summary["tricks"]) <= game.hand_size
        assert state.scores() == game.scores
    expected = {"tricks", "refused", "declined", "passed", "all_void"}
    if profile == "vitou_2p":
        expected.add("abandoned")
    assert expected <= ends


@pytest.mark.parametrize("profile", PROFILES)
def test_random_matches(profile):
    rng = random.Random(777 + PROFILES.index(profile))
    for _ in range(50):
        game = RefGame(
            profile, mode="match", dealer=-1, signals=profile != "vitou_2p" and rng.random() < 0.5
        )
        state = game.new_initial_state()
        _play_out(rng, state, max_steps=200_000)
        returns = state.returns()
        assert returns[0] == -returns[1] and abs(returns[0]) in (0.0, 1.0)
        if returns[0] != 0:
            winner = 0 if returns[0] > 0 else 1
            assert state.scores()[winner] >= game.target
            assert state.scores()[1 - winner] < game.target


def test_clone_is_independent():
    rng = random.Random(5)
    state = RefGame("vitou", dealer=-1, signals=True).new_initial_state()
    for _ in range(20):
        if state.current_player() == -1:
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])
    twin = state.clone()
    _play_out(rng, twin)
    assert not state.is_terminal()
    _play_out(rng, state)
