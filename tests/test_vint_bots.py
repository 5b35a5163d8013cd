"""Vint bots, tables, rubbers, duplicate tournaments and terminal play."""

from __future__ import annotations

import io
import random

import pytest

from vitou_ai.commands.vint import main as vint_main
from vitou_ai.commands.vint import wants_vint
from vitou_ai.vint import VintParams
from vitou_ai.vint.bots import RuleBidder, View, make_bot
from vitou_ai.vint.game import VintState, parse_hand
from vitou_ai.vint.table import deal_hands, play_deal, play_rubber
from vitou_ai.vint.tournament import duplicate_match


def test_bots_play_legal_deals():
    rng = random.Random(1)
    bots = [make_bot("heuristic"), make_bot("random"), make_bot("search", worlds=2),
            make_bot("random")]
    for i in range(6):
        res = play_deal(bots, VintParams(dealer=i % 4), deal_hands(rng, i % 4), rng)
        assert res.state.is_terminal()  # play_deal raises on any illegal action


def _view_at_start(hands, dealer=0):
    state = VintState(VintParams(dealer=dealer))
    state.deal([parse_hand(h) for h in hands])
    return View(dealer, state, [], [])


HANDS = ["AS KS QS JS TS 9S 8S AH KH AD KD AC KC",
         "7S 6S 5S 4S 3S 2S QH JH TH QD JD QC JC",
         "9H 8H 7H 6H 5H 4H TD 9D 8D 7D TC 9C 8C",
         "3H 2H 6D 5D 4D 3D 2D 7C 6C 5C 4C 3C 2C"]


def test_rule_bidder_bids_a_strong_hand_and_passes_a_weak_one():
    bidder = RuleBidder()
    strong = _view_at_start(HANDS)
    a = bidder.act(strong, random.Random(0))
    assert a > 52 and (a - 53) % 5 == 0  # a spade bid: seven spades with five honours
    weak = _view_at_start([HANDS[3], HANDS[0], HANDS[1], HANDS[2]])
    assert bidder.act(weak, random.Random(0)) == 52


def test_heuristic_beats_random_in_duplicate():
    res = duplicate_match("heuristic", "random", pairs=2, seed=3)
    d = res.as_dict()
    assert d["points_per_rubber"] > 0 and d["rubbers"] == 4
    again = duplicate_match("heuristic", "random", pairs=2, seed=3)
    assert again.scores == res.scores  # seeded: the same rubbers


def test_rubber_ends_with_two_games():
    bots = [make_bot("heuristic")] * 4
    r = play_rubber(bots, deal_seed=4, play_seed=4)
    assert r.winner in (0, 1)
    games = [sum(1 for rec in r.records if rec.game_winner == s) for s in (0, 1)]
    assert max(games) == 2 and games[r.winner] == 2


def test_cli_dispatch_and_refusals():
    assert wants_vint(["play", "--game", "vint"]) and wants_vint(["tournament", "--game=vint"])
    assert not wants_vint(["play", "--profile", "vitou"])
    out = io.StringIO()
    code = vint_main(["play", "--game", "vint", "--seed", "3"],
                     inp=io.StringIO("pass\n1D\nbid 1S\nQH\n9NT\nquit\n"), out=out)
    text = out.getvalue()
    assert code == 0
    assert "refused (V3.2): insufficient bid" in text
    assert "refused (V3.4)" in text
    assert "not understood" in text


def test_cli_tournament(tmp_path):
    out = io.StringIO()
    f = tmp_path / "t.json"
    assert vint_main(["tournament", "--game", "vint", "--bots", "random,heuristic",
                      "--pairs", "2", "--out", str(f)], out=out) == 0
    assert "| heuristic" in out.getvalue() or "| random" in out.getvalue()
    assert f.exists()


@pytest.mark.parametrize("bad, says", [
    (["--pairs", "0"], "--pairs must be at least 2"),
    (["--pairs", "1"], "--pairs must be at least 2"),
    (["--bots", "random"], "at least two different bots"),
    (["--bots", "random,nobody"], "unknown bot 'nobody'"),
    (["--seed", "-1"], "--seed must be in 0 .. 2**31-1"),
    (["--worlds", "0"], "--worlds must be at least 1"),
])
def test_cli_tournament_refuses_bad_options(bad, says, capsys):
    assert vint_main(["tournament", "--game", "vint", *bad], out=io.StringIO()) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and err.count("\n") == 0


def test_cli_play_refuses_no_rubbers(capsys):
    assert vint_main(["play", "--game", "vint", "--rubbers", "0"], inp=io.StringIO(""),
                     out=io.StringIO()) == 2
    assert "--rubbers must be at least 1" in capsys.readouterr().err


def test_evening_three_rubbers_rotating_partners():
    from vitou_ai.vint.rubber import EVENING_SEATS
    from vitou_ai.vint.table import play_evening

    partners = [{p for p in range(4) if seats[p] % 2 == seats[0] % 2} - {0}
                for seats in EVENING_SEATS]
    assert partners == [{2}, {1}, {3}]  # V7.1: A with C, then B, then D
    h = make_bot("heuristic")
    totals, rubbers = play_evening([h, h, h, h], deal_seed=2)
    assert len(rubbers) == 3 and sum(totals) == 0
    x = [r.settlement for r in rubbers]
    assert totals[0] == x[0] + x[1] + x[2]  # player A sits in seat 0 every rubber


def test_sacrifice_rule():
    """RuleBidder._sacrifice_ok: over the opponents' suit contract whose honours we
    lack, a bid we expect to go down by at most one is allowed; not over our own."""
    bidder = RuleBidder()
    # seat 1 holds no hearts honours and long spades; seat 0 opened 2H
    state = VintState(VintParams(dealer=0))
    state.deal([parse_hand(h) for h in [
        "AH KH QH JH TH 9H AD KD AC KC 2S 3S 4S",
        "AS KS QS JS 9S 8S 7S 6S 2D 3D 2C 3C 4C",
        "8H 7H 6H 5H 4D 5D 6D 7D 8D 5C 6C 7C 8C",
        "TS 5S 4H 3H 2H 9D TD JD QD 9C TC JC QC"]])
    state.apply(53 + 5 + 3)  # 2H by seat 0
    view = View(1, state, [(0, 53 + 8)], [])
    est = bidder.estimate(view)
    cur = 5 + 3
    assert bidder._honour_factor(view, 3) < 0
    ok = [b for b in range(cur + 1, 35) if b % 5 == 0 and bidder._sacrifice_ok(view, b, cur,
                                                                              False, est)]
    assert ok and all(6 + b // 5 + 1 - est[0] <= 1.0 for b in ok)
    assert not bidder._sacrifice_ok(view, 10, cur, True, est)  # never over our own contract


def test_terminal_play_runs_a_whole_rubber(monkeypatch):
    """The terminal loop to the settlement, with the human's answers taken from a bot."""
    from vitou_ai.commands import vint as vcli

    stand_in = make_bot("heuristic")
    rng = random.Random(0)
    monkeypatch.setattr(vcli.Session, "ask", lambda self, view: stand_in.act(view, rng))
    out = io.StringIO()
    assert vint_main(["play", "--game", "vint", "--seed", "5"], inp=io.StringIO(""),
                     out=out) == 0
    text = out.getvalue()
    assert "rubber to" in text and "(V6.4)" in text and "contract" in text


def test_terminal_play_saves_replayable_histories(monkeypatch, tmp_path):
    from vitou_ai.commands import vint as vcli
    from vitou_ai.commands.cli import replay_files

    stand_in = make_bot("heuristic")
    rng = random.Random(1)
    monkeypatch.setattr(vcli.Session, "ask", lambda self, view: stand_in.act(view, rng))
    assert vint_main(["play", "--game", "vint", "--seed", "6", "--save", str(tmp_path)],
                     inp=io.StringIO(""), out=io.StringIO()) == 0
    files = sorted(tmp_path.glob("*.toml"))
    assert files
    assert replay_files([str(tmp_path)], as_json=True, out=io.StringIO(), err=io.StringIO()) == 0
