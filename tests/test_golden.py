"""Golden hand histories (tests/golden/*.toml): each worked out by hand from
RULES.md, one or more per clause of R2-R9 and per row of the R3.1 table, and
replayed through the kernel; tests/golden_bad/*.toml break a rule at a known
action and must be refused there, naming the rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import check_bad_history, check_golden_history
from vitou_ai.rules.history import HandHistory, replay, result_dict

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "golden").glob("*.toml"))
BAD = sorted((HERE / "golden_bad").glob("*.toml"))


def test_golden_coverage():
    names = " ".join(p.stem for p in GOLDEN)
    for clause in ["r2_1", "r2_2", "r2_3", "r2_4", "r3_2", "r4_1", "r4_2a", "r4_2b", "r4_2c",
                   "r4_2d", "r4_3", "r4_4", "r4_5", "r4_6", "r5_1", "r5_2", "r6_1", "r6_2", "r7",
                   "r8_1", "r9_cason", "r9_2p", "r9_3"]:
        assert clause in names, f"no golden history for {clause}"
    for row in range(1, 8):
        assert f"r3_1_row{row}" in names


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_history(path):
    check_golden_history(path)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_history_is_refused_at_the_right_action(path):
    check_bad_history(path)


def test_golden_roundtrip(tmp_path):
    """Writing a history and reading it back gives the same replay."""
    for path in GOLDEN[:10]:
        hh = HandHistory.load(path)
        out = tmp_path / path.name
        hh.save(out)
        again = HandHistory.load(out)
        assert result_dict(again, replay(again)) == result_dict(hh, replay(hh))


def test_api_refuses_bad_actions_and_seats():
    from vitou_ai.rules import Game, IllegalActionError

    state = Game().new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(TypeError):
        state.apply_action(0.0)
    with pytest.raises(IllegalActionError, match="not an action"):
        state.apply_action(-1)
    with pytest.raises(IllegalActionError) as e:
        state.apply_action(14)  # a gesture with signals off
    assert e.value.rule == "R7"
    with pytest.raises(IllegalActionError) as e:
        state.apply_action(11)  # go in a normal deal
    assert e.value.rule == "R6.1"
    for seat in (-1, 4, 50, True):
        with pytest.raises(ValueError, match="seat must be in"):
            state.infostate_key(seat)
        with pytest.raises(ValueError, match="seat must be in"):
            state.hand(seat)
