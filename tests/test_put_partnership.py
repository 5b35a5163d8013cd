"""Partnership Put (``put_partnership``, docs/RULES_family.md P6) beyond its golden histories
and the differential test: the hand-over moves exactly the partner's best card (P6.2), a
discard is seen by nobody else (P6.3), equal information-state keys give equal legal
actions on every node of a small variant, and the simulator, the named bots and the
tournament run it (simulate / tournament commands)."""

from __future__ import annotations

import random

import pytest

from tests.helpers import (
    check_keys_give_legal_actions,
    check_recorded_deals_replay,
    dealt,
    play_deal,
)
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import layout as L

PROFILE = "put_partnership"


def test_hand_over_moves_the_best_card_and_lays_the_rest_away():
    g = Game(profile=PROFILE, dealer=3)
    # seat 0: 10 9 4 (indices 6 7 12); seat 2: K 7 5 (3 9 11); dealer 3, so seat 0 speaks
    s = dealt(g, [[6, 7, 12], [0, 1, 2], [3, 9, 11], [4, 5, 8]])
    assert s.current_player() == 0 and s.legal_actions() == [L.A_TAKE, L.A_GIVE]
    s.apply_action(L.A_GIVE)  # P6.1: seat 2 plays; P6.2: seat 0 hands over his 10
    assert s.hand(0) == [] and s.hand(2) == [3, 6, 9, 11]
    assert s.current_player() == 2  # P6.3
    assert s.legal_actions() == [L.A_DISCARD0 + r for r in (3, 6, 9, 11)]
    s.apply_action(L.A_DISCARD0 + 3)  # lays his K away, keeps the 10
    assert s.hand(2) == [6, 9, 11]
    assert s.current_player() == 3  # the dealer speaks for his side (chooser "named")
    s.apply_action(L.A_TAKE)  # seat 1 hands over the 3 (index 0)
    assert s.hand(1) == [] and s.hand(3) == [0, 4, 5, 8]
    s.apply_action(L.A_DISCARD0 + 8)
    assert s.current_player() == 2  # P6.4: the non-dealers' active player leads
    assert int(s.array[L.S_PHASE]) == L.PH_PLAY


def test_chooser_order_lets_the_dealers_partner_speak():
    g = Game(profile=PROFILE, dealer=3, chooser="order")
    s = dealt(g, [[6, 7, 12], [0, 1, 2], [3, 9, 11], [4, 5, 8]])
    s.apply_action(L.A_TAKE)
    s.apply_action(s.legal_actions()[0])
    assert s.current_player() == 1  # dealer + 2


def test_a_discard_is_in_no_one_elses_information_state():
    g = Game(profile=PROFILE, dealer=3)
    s = dealt(g, [[6, 7, 12], [0, 1, 2], [3, 9, 11], [4, 5, 8]])
    s.apply_action(L.A_TAKE)
    keys = {}
    for a in s.legal_actions():
        t = s.clone()
        t.apply_action(a)
        keys[a] = [t.infostate_key(p).tobytes() for p in range(4)]
    first, *rest = keys.values()
    for other in rest:
        assert other[0] != first[0]  # the active player knows what he laid away
        assert other[1:] == first[1:]  # nobody else does (face down)


def test_equal_keys_give_equal_legal_actions_on_a_small_variant():
    """Every decision node of a two-rank, two-card variant: a player's key determines
    the player to act and the legal actions (perfect recall, P6.2-P6.3 included)."""
    g = Game(profile=PROFILE, dealer=0, ranks=2, copies=4, hand_size=2)
    nodes, keys = check_keys_give_legal_actions(g)
    assert nodes > 1000 and keys > 100


@pytest.mark.parametrize("bot", ["random", "cautious", "bluffer", "counter"])
def test_named_bots_play_legal_actions(bot):
    from vitou_ai.bots.named import named_bot
    from vitou_ai.eval.tournament import run_tournament

    params = VitouParams(profile=PROFILE, dealer=-1)
    res = run_tournament([named_bot(bot), named_bot("random")], params, games=200, seed=1)
    assert len(res.names) == 2


def test_simulate_and_tournament_commands(tmp_path, capsys):
    from vitou_ai.commands.cli import main

    assert main(["simulate", "--profile", PROFILE, "--deals", "500",
                 "--bots", "random", "counter"]) == 0
    assert main(["tournament", "--profile", PROFILE, "--deals", "400", "--bots", "random",
                 "counter", "cautious", "--out", str(tmp_path / "t"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "counter" in out


def test_random_deals_end_every_way_and_are_zero_sum():
    g = Game(profile=PROFILE, dealer=-1)
    rng = random.Random(5)
    ends = set()
    for _ in range(400):
        s, _ = play_deal(g, rng)
        r = s.returns()
        assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1]
        ends.add(s.last_deal().end)
    assert {"tricks", "refused", "conceded", "draw"} <= ends


def test_terminal_play_does_not_show_the_bots_discards():
    """P6.3: a card laid away is face down; the terminal game says only that it was."""
    import io
    import re

    from vitou_ai.commands.play import play_match

    out = io.StringIO()
    inp = io.StringIO("\n".join(["1"] * 3000) + "\n")
    assert play_match(profile=PROFILE, seed=3, target=3, inp=inp, out=out) == 0
    text = out.getvalue()
    assert "lays a card away" in text
    assert not re.search(r"seat \d \([^)]*\): discard", text)


def test_recorded_random_deals_replay_to_the_same_result():
    """``history.record`` writes take / give / discard R, and the replay gives the deal."""
    g = Game(profile=PROFILE, dealer=-1, chooser="order")
    check_recorded_deals_replay(g, random.Random(9), 60)
