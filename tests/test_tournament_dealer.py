"""`vitou-ai tournament --dealer SEAT` and ``run_tournament(rotate_dealer=False)``: a policy
trained with one dealer seat plays a tournament whose every deal that seat deals; the bots
are checked for the game as played. And a search bot over a blueprint that does not fit
the game: refused, ``--allow-fallback`` or not, in one line that says why.

The policies are uniform tables over the public tree of ``vitou_2p`` 4x2x1 (one card a
hand), built in milliseconds, with the game they were made for recorded as a trained
policy's is.
"""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest

from tests.helpers import one_line_error
from vitou_ai.bots.named import parse_bot
from vitou_ai.commands.cli import build_parser, main
from vitou_ai.eval import tournament as T
from vitou_ai.rules import VitouParams
from vitou_ai.sim.batch import F_DEALER

VARIANT = dict(profile="vitou_2p", ranks=4, copies=2, hand_size=1)
SMALL = ["--profile", "vitou_2p", "--ranks", "4", "--copies", "2", "--hand-size", "1"]


def _uniform_policy(params: VitouParams, name: str):
    """Uniform play at every information state of ``params`` (its rows hold its dealer and
    scores), recording ``params`` as the game it was made for."""
    from vitou_ai.solvers.public.cfr import entry_policy
    from vitou_ai.solvers.public.export import to_tabular_policy
    from vitou_ai.solvers.public.tree import build_public_tree

    tree = build_public_tree(params)
    return to_tabular_policy(tree, entry_policy(tree, np.zeros(tree.num_entries)), name=name)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """``dealer0.npz``: trained with seat 0 dealing; ``score32.npz``: at score 3:2 (no
    strategy at 0:0); ``holes.npz``: ``dealer0`` with every third row dropped (a table
    with no strategy at some of its game's information states, as a short MCCFR run's)."""
    from vitou_ai.bots.tabular import TabularPolicy

    d = tmp_path_factory.mktemp("policies")
    full = _uniform_policy(VitouParams(**VARIANT, dealer=0), "dealer0")
    full.save(d / "dealer0.npz")
    keep = np.arange(full.keys.shape[0]) % 3 != 0
    TabularPolicy(full.keys[keep], full.probs[keep], name="holes", params=full.params,
                  mode=full.mode).save(d / "holes.npz")
    _uniform_policy(VitouParams(**VARIANT, dealer=0, scores=(3, 2)),
                    "score32").save(d / "score32.npz")
    return d


@pytest.mark.parametrize("seat", ["2", "-1", "9"])
def test_dealer_must_be_a_seat_before_any_work(tmp_path, capsys, monkeypatch, seat):
    monkeypatch.setattr(T, "run_tournament", lambda *a, **k: pytest.fail("played"))
    code = main(["tournament", *SMALL, "--bots", "random", "counter", "--deals", "10",
                 "--dealer", seat, "--out", str(tmp_path / "t")])
    one_line_error(capsys, code, "--dealer must be a seat of the game, 0 .. 1", f"got {seat}")
    assert not (tmp_path / "t").exists()


def test_a_one_dealer_policy_plays_with_dealer_and_is_recorded(files, tmp_path, capsys):
    """Without ``--dealer`` such a policy could not play a tournament at all, and the
    refusal pointed to a ``--dealer`` the tournament did not have."""
    policy = str(files / "dealer0.npz")
    for extra in ([], ["--allow-fallback"], ["--dealer", "1"]):
        code = main(["tournament", *SMALL, "--bots", policy, "counter", "--deals", "10",
                     *extra, "--out", str(tmp_path / "no")])
        one_line_error(capsys, code, "seat 0 dealing only", "vitou-ai tournament --dealer 0")
    assert not (tmp_path / "no").exists()
    out = tmp_path / "t"
    code = main(["tournament", *SMALL, "--bots", policy, "counter", "--deals", "40",
                 "--dealer", "0", "--seed", "4", "--out", str(out), "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0
    assert "every deal dealt by seat 0" in text and "first dealer rotated" not in text
    assert "0.00% of" in text.split("played by its fallback")[-1]  # a table that fits
    doc = json.loads((out / "tournament.json").read_text())
    assert doc["dealer"] == 0 and doc["rotate_dealer"] is False
    words = shlex.split(doc["command"])
    assert words[words.index("--dealer") + 1] == "0"
    words[words.index("--out") + 1] = str(tmp_path / "again")
    assert main([*words[1:], "--no-progress"]) == 0  # the command reproduces it
    capsys.readouterr()
    assert (tmp_path / "again" / "pairs.csv").read_text() == (out / "pairs.csv").read_text()
    code = main(["tournament", *SMALL, "--bots", "random", "counter", "--deals", "10",
                 "--out", str(tmp_path / "rot"), "--no-progress"])
    assert code == 0 and "first dealer rotated" in capsys.readouterr().out
    doc = json.loads((tmp_path / "rot" / "tournament.json").read_text())
    assert doc["dealer"] == "rotating" and doc["rotate_dealer"] is True
    assert "dealer" not in doc["knobs"]  # not -1, which in train's terms means "drawn"


def test_run_tournament_deals_from_the_seat_and_checks_the_game_as_played(files, monkeypatch):
    """``run_tournament`` checked the bots on the dealer it was given and then rotated it:
    a seat-0 policy given ``dealer=0`` played half its deals at dealer 1, outside its
    table. Rotating (the default), it is refused; ``rotate_dealer=False`` deals every game
    (the fallback probe's too) from the seat."""
    policy = parse_bot(str(files / "dealer0.npz"))
    params = VitouParams(**VARIANT, mode="deal", dealer=0)
    counter = parse_bot("counter")
    with pytest.raises(ValueError, match="seat 0 dealing only"):
        T.run_tournament([policy, counter], params, 20, seed=1)
    with pytest.raises(ValueError, match="needs a dealer seat"):
        T.run_tournament([counter, parse_bot("random")], params.replace(dealer=-1), 20,
                         rotate_dealer=False)
    dealers = []
    simulate = T.simulate

    def spy(*a, **k):
        res = simulate(*a, **k)
        dealers.extend(res.table[:, F_DEALER].tolist())
        return res

    monkeypatch.setattr(T, "simulate", spy)
    with pytest.raises(ValueError, match="seat 1 deals every deal, so it would play at random "
                       "in all of them"):
        T.run_tournament([policy, counter], params.replace(dealer=1), 20, rotate_dealer=False)
    res = T.run_tournament([policy, counter], params, 20, seed=1, rotate_dealer=False)
    assert dealers and set(dealers) == {0}
    assert res.params.dealer == 0 and res.to_json()["dealer"] == 0
    assert res.fallback[0]["share"] == 0.0
    dealers.clear()
    T.run_tournament([counter, parse_bot("random")], params, 20, seed=1)
    assert set(dealers) == {0, 1}  # the default rotates, as before


def test_a_search_bot_plays_with_dealer(files, tmp_path, capsys, monkeypatch):
    """A search bot over a seat-0 blueprint plays ``--deals`` with ``--dealer 0``: every
    deal dealt by seat 0 (it was refused in every tournament)."""
    from vitou_ai.eval import search_match as sm

    dealers = []
    play = sm.play_deal

    def spy(params, seats, hands, dealer, seed):
        dealers.append(dealer)
        return play(params, seats, hands, dealer, seed)

    monkeypatch.setattr(sm, "play_deal", spy)
    bot = f"search:{files / 'dealer0.npz'},budget=0.5"
    code = main(["tournament", *SMALL, "--bots", bot, "counter", "--deals", "4",
                 "--dealer", "0", "--out", str(tmp_path / "t"), "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert dealers == [0] * 4
    assert "search: the share of each search bot's decisions it searched" in text


def test_a_search_bot_over_a_blueprint_that_does_not_fit_is_refused_saying_why(
        files, tmp_path, capsys, monkeypatch):
    """The help said ``--allow-fallback`` lets a policy file play outside the scores it was
    trained for; a search bot over such a blueprint was still refused, in the blueprint's
    words (it did not say a search bot was concerned, nor that the option did not apply).
    It cannot be searched over (the gadget's replay of the blueprint refuses it at the
    first searched decision), so it is refused before any work, saying so; the plain
    policy plays its fallback, with its share printed."""
    monkeypatch.setattr(T, "run_tournament", lambda *a, **k: pytest.fail("played"))
    score32 = str(files / "score32.npz")
    for extra in ([], ["--allow-fallback"]):
        code = main(["tournament", *SMALL, "--bots", f"search:{score32}", "counter",
                     "--deals", "10", "--dealer", "0", *extra, "--out", str(tmp_path / "t")])
        line = one_line_error(capsys, code, f"bot 'search:{score32}'",
                              "a search bot's blueprint must fit the game as played",
                              "safe gadget's values", "score 3:2")
        assert ("--allow-fallback does not change that" in line) == bool(extra)
    helptext = build_parser()[1]["tournament"].format_help()
    assert ("A search bot's blueprint must cover the scores and dealer seats of the game as "
            "played, option or not") in " ".join(helptext.split())
    monkeypatch.undo()
    code = main(["tournament", *SMALL, "--bots", score32, "counter", "--deals", "10",
                 "--dealer", "0", "--allow-fallback", "--out", str(tmp_path / "p"),
                 "--no-progress"])
    assert code == 0
    assert "100.00% of" in capsys.readouterr().out.split("played by its fallback")[-1]


def test_the_search_replay_refuses_a_blueprint_of_another_score(files):
    """Why the refusal stands: let through, the bot raised at its first searched decision
    (the gadget's blueprint replay, ``solvers.public.export.bot_policy``)."""
    from vitou_ai.eval.search_match import duplicate_returns

    bot = parse_bot(f"search:{files / 'score32.npz'},budget=0.5")
    params = VitouParams(**VARIANT, mode="deal", dealer=0)
    with pytest.raises(ValueError, match="made for other game parameters"):
        duplicate_returns(params, bot, parse_bot("counter"), 2, seed=0, rotate_dealer=False)


def test_a_search_bot_does_not_switch_off_the_fallback_check(files, tmp_path, capsys):
    """With a search bot in the tournament, the other policies' fallback was neither probed
    nor counted ("not measured of 0 decisions"): a table with no strategy at a third of its
    information states played, silently. Now it is probed with the search bot's blueprint
    in its place: refused above the limit, and with ``--allow-fallback`` its share printed
    and recorded, saying how it was counted."""
    holes = str(files / "holes.npz")
    bot = f"search:{files / 'dealer0.npz'},budget=0.2"
    common = ["tournament", *SMALL, "--bots", holes, "counter", bot, "--deals", "4",
              "--dealer", "0", "--no-progress"]
    code = main([*common, "--out", str(tmp_path / "no")])
    one_line_error(capsys, code, f"'holes' ({holes})", "limit 1%")  # names its file
    assert not (tmp_path / "no").exists()
    out = tmp_path / "t"
    assert main([*common, "--allow-fallback", "--out", str(out)]) == 0
    text = capsys.readouterr().out.split("played by its fallback")[-1]
    assert "not measured" not in text and "each search bot's blueprint in its place" in text
    doc = json.loads((out / "tournament.json").read_text())
    rows = {r["name"]: r for r in doc["fallback"]}
    share = [r for n, r in rows.items() if "holes" in n][0]
    assert share["decisions"] > 0 and 0.05 < share["share"] < 1.0 and share["file"] == holes
    assert "blueprint in its place" in share["measured"]
    searched = [r for n, r in rows.items() if n.startswith("search:")][0]
    assert searched["decisions"] > 0 and searched["share"] == 0.0  # its blueprint fits


def test_a_one_dealer_deal_policy_is_refused_in_matches_allow_fallback_or_not(
        files, tmp_path, capsys, monkeypatch):
    """In a match the deal passes on (R8.2): with ``--dealer 0 --allow-fallback`` a seat-0
    deal policy played every deal seat 1 dealt at random (79 % of its decisions), where the
    help says such a policy is refused wherever another seat deals."""
    monkeypatch.setattr(T, "run_tournament", lambda *a, **k: pytest.fail("played"))
    policy = str(files / "dealer0.npz")
    for extra in ([], ["--allow-fallback"]):
        code = main(["tournament", *SMALL, "--bots", policy, "counter", "--matches", "10",
                     "--dealer", "0", *extra, "--out", str(tmp_path / "t")])
        one_line_error(capsys, code, f"({policy})", "the deal passes on (R8.2)",
                       "--deals N --dealer 0")
    assert not (tmp_path / "t").exists()


def test_a_search_bot_in_match_mode_is_refused_for_the_mode_first(files, tmp_path, capsys):
    """Its blueprint's refusal (train a match policy) led only to this one."""
    code = main(["tournament", *SMALL, "--bots", f"search:{files / 'dealer0.npz'}", "counter",
                 "--matches", "10", "--dealer", "0", "--out", str(tmp_path / "t")])
    one_line_error(capsys, code, "a search bot plays tournaments in deal mode")


def test_a_search_bot_over_a_blueprint_with_holes(files, tmp_path, capsys):
    """Its blueprint fits the game but has no strategy at some information states: the
    probe (the blueprint in its place) refuses it above the limit, naming what plays
    there (it said "its fallback (None)"); with ``--allow-fallback`` it plays and its share
    is printed (the summary skipped every search bot)."""
    bot = f"search:{files / 'holes.npz'},budget=0.2"
    common = ["tournament", *SMALL, "--bots", bot, "counter", "--deals", "4", "--dealer", "0",
              "--no-progress"]
    code = main([*common, "--out", str(tmp_path / "no")])
    one_line_error(capsys, code, "limit 1%", "its fallback (the blueprint's random)")
    assert main([*common, "--allow-fallback", "--out", str(tmp_path / "t")]) == 0
    text = capsys.readouterr().out.split("played by its fallback")[-1]
    line = [s for s in text.splitlines() if s.strip().startswith("search:")][0]
    assert "(fallback: the blueprint's random)" in line and "0.00%" not in line


def test_a_refusal_names_the_file_when_two_policies_share_a_name(tmp_path, capsys):
    """Two ``policy.npz`` files of one trainer share their name; a refusal of one named
    only that name, so it did not say which file."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    _uniform_policy(VitouParams(**VARIANT, dealer=-1), "same").save(a / "policy.npz")
    _uniform_policy(VitouParams(**{**VARIANT, "ranks": 3}, dealer=-1),
                    "same").save(b / "policy.npz")
    code = main(["tournament", *SMALL, "--bots", str(a / "policy.npz"), str(b / "policy.npz"),
                 "--deals", "4", "--out", str(tmp_path / "t")])
    one_line_error(capsys, code, f"policy '{b / 'policy.npz'}' was trained for ranks = 3")
