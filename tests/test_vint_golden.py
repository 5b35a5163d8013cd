"""Vint golden hand histories (tests/vint_golden/*.toml): every rule clause of
docs/RULES_vint.md and every worked example of the seed, replayed through the
kernel and through the reference engine; tests/vint_golden_bad/*.toml break a
rule at a known action and must be refused there, naming the rule (V9.2)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.reference.vint_engine import RefDeal, RefRubber
from vitou_ai.rules.history import HistoryError
from vitou_ai.vint.game import parse_action
from vitou_ai.vint.history import VintHistory, check_expect, replay, result_dict

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "vint_golden").glob("*.toml"))
BAD = sorted((HERE / "vint_golden_bad").glob("*.toml"))


def test_coverage_of_rules_and_seed_examples():
    names = " ".join(p.stem for p in GOLDEN)
    for clause in ["v3_3", "v3_4", "v3_5", "v4_2", "v4_3", "v5_5", "v5_6", "v6_1", "v6_2",
                   "v6_3", "v8_1", "v8_2"]:
        assert clause in names, f"no golden history for {clause}"
    for example in ["seed_2d_9_to_4", "seed_4s_down_3", "seed_4d_with_10", "seed_3d_with_10",
                    "seed_3h_four_honours_900", "seed_tip_level4_down_1"]:
        assert example in names, f"no golden history for the seed's example {example}"
    bad = " ".join(p.stem for p in BAD)
    for clause in ["v3_2_insufficient", "v4_2_revoke", "v3_7_bid_after", "v3_4_history_ends", "v3_6",
                   "v3_4_card_before"]:
        assert clause in bad


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_history_kernel(path):
    hh = VintHistory.load(path)
    assert hh.expect, "a golden history must carry [expect]"
    assert check_expect(hh, result_dict(hh, replay(hh))) == []


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_history_reference(path):
    """The reference engine reaches the same [expect] values it can compute."""
    hh = VintHistory.load(path)
    hands = [[c for c in range(52) if h >> c & 1] for h in hh.hands]
    deal = RefDeal(hh.params.dealer, hands, short_auction=hh.params.short_auction,
                   foster=hh.params.scoring == "foster")
    for text in hh.actions:
        assert int(text[1]) == deal.turn
        deal.apply(parse_action(text.split(maxsplit=1)[1]))
    assert deal.over()
    sc = deal.score()
    for key in ("below", "honours", "aces", "undertricks", "slam", "crowns"):
        if key in hh.expect:
            assert sc[key] == hh.expect[key], key
    if "tricks" in hh.expect:
        assert deal.side_tricks() == hh.expect["tricks"]
    if "games" in hh.expect:
        rub = RefRubber(foster=hh.params.scoring == "foster")
        rub.games, rub.line = list(hh.rubber_games), list(hh.rubber_below)
        rub.sheet = list(hh.rubber_total)
        rub.write(deal)
        assert rub.games == hh.expect["games"]
        if isinstance(hh.expect.get("settlement"), int):
            assert rub.sheet[0] - rub.sheet[1] == hh.expect["settlement"]


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_history_is_refused_naming_the_rule(path):
    want = tomllib.loads(path.read_text())["expect_error"]
    hh = VintHistory.load(path)
    with pytest.raises(HistoryError) as e:
        replay(hh)
    assert e.value.index == want["index"]
    assert e.value.rule == want["rule"]
    if want["index"] < len(hh.actions):
        assert e.value.action == hh.actions[want["index"]]
    assert "\n" not in str(e.value)


def test_roundtrip(tmp_path):
    for path in GOLDEN[:6]:
        hh = VintHistory.load(path)
        hh.save(tmp_path / path.name)
        again = VintHistory.load(tmp_path / path.name)
        assert result_dict(again, replay(again)) == result_dict(hh, replay(hh))


def test_malformed_files_are_refused(tmp_path):
    base = tomllib.loads(GOLDEN[0].read_text())
    cases = {
        "hands": ["AS KS"] * 4,
        "dealer": 7,
        "scoring": "bridge",
        "rubber_below": [500, 0],
        "actions": "p0 pass",
    }
    for key, value in cases.items():
        data = dict(base, **{key: value})
        with pytest.raises(HistoryError):
            VintHistory.from_dict(data)
    dup = dict(base, hands=[base["hands"][0]] * 4)
    with pytest.raises(HistoryError, match="repeats"):
        VintHistory.from_dict(dup)


def test_vitou_ai_replay_reads_vint_histories():
    """`vitou-ai replay` dispatches game = "vint" files: the golden folder replays
    cleanly (exit 0); each bad file gives exactly one error line naming its rule (exit 2)."""
    import io
    import json

    from vitou_ai.commands.cli import replay_files

    out, err = io.StringIO(), io.StringIO()
    assert replay_files([str(HERE / "vint_golden")], as_json=True, out=out, err=err) == 0
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(records) == len(GOLDEN) and all("mismatch" not in r for r in records)
    out, err = io.StringIO(), io.StringIO()
    assert replay_files([str(p) for p in BAD], as_json=False, out=out, err=err) == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == len(BAD)
    for path, line in zip(BAD, lines, strict=True):
        rule = tomllib.loads(path.read_text())["expect_error"]["rule"]
        assert line.startswith(str(path)) and f", {rule}]" in line
