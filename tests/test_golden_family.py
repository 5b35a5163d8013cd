"""Golden hand histories of the Truc / Put family (tests/golden_family/*.toml), each worked
out by hand from docs/RULES_family.md (the reasoning is in make_histories.py beside them),
one or more per rule clause of each game plus the seed's examples (Trut T4.2, Cotton's
"high game" in Put); tests/golden_family_bad/*.toml break a rule at a known action."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import check_bad_history, check_golden_history
from vitou_ai.rules.history import HandHistory, HistoryError

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "golden_family").glob("*.toml"))
BAD = sorted((HERE / "golden_family_bad").glob("*.toml"))


def test_family_golden_coverage():
    names = " ".join(p.stem for p in GOLDEN + BAD)
    clauses = ["c1_3", "c2_1", "c2_2", "c2_3", "c4_2", "c4_3", "c4_4", "c4_5", "c5_1", "c5_2",
               "c5_3", "c7", "f1_1", "f2_2", "f2_3", "f2_4", "f3_1", "f3_3", "f4_1", "t1_1",
               "t2_1", "t3_1", "t4_2_seed_example_trut_won", "t4_2_seed_example_trut_refused",
               "t5", "p2_2", "p3_1", "p4_1", "p5_1", "p5_2", "p5_3", "p_seed_cotton", "g3_4",
               "g3_6", "p6_1", "p6_2", "p6_3", "p6_4", "p6_1_chooser_order",
               "p7_0", "p7_1", "p7_2", "p7_3", "p7_4", "p7_5"]
    for clause in clauses:
        assert clause in names, f"no golden history for {clause}"


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_family_golden_history(path):
    check_golden_history(path)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_family_bad_history_is_refused_at_the_right_action(path):
    check_bad_history(path)


@pytest.mark.parametrize("data, rule", [
    ({"profile": "put", "dealer": 0, "hands": ["3 2 A", "3 2 A"], "actions": [], "games": 2},
     "G4.1"),
    ({"profile": "vitou", "dealer": 0, "hands": [], "actions": [], "direction": "clockwise"},
     "G0.2"),
    ({"profile": "trut", "dealer": 0, "hands": [], "actions": [], "games": 6}, "T2.1"),
    ({"profile": "put", "dealer": 0, "hands": [], "actions": [], "chooser": "order"}, "P6.1"),
    ({"profile": "put_partnership", "dealer": 0, "hands": [], "actions": [],
      "chooser": "partner"}, "P6.1"),
    ({"profile": "put", "dealer": 0, "hands": [], "actions": [], "players": 3}, "P7.0"),
    ({"profile": "put_willughby", "dealer": 0, "hands": [], "actions": [], "players": 5},
     "P7.0"),
    ({"profile": "put_willughby", "dealer": 0, "hands": [], "actions": [], "put_stake": 1},
     "P7.5"),
    ({"profile": "put_willughby", "dealer": 0, "hands": [], "actions": [],
      "fold_pays": "double"}, "P7.5"),
    ({"profile": "put_willughby", "dealer": 0, "hands": [], "actions": [], "target": 7},
     "P7.6"),
    ({"profile": "put_willughby", "dealer": 0, "hands": [], "actions": [], "chooser": "order"},
     "P7.6"),
    ({"profile": "put_willughby", "dealer": 0, "hands": [], "actions": [], "hand_size": 6},
     "P7.0"),
])
def test_a_knob_the_profile_lacks_is_refused_naming_the_rule(data, rule):
    with pytest.raises(HistoryError, match=rule):
        HandHistory.from_dict(data)


def test_unknown_profile_is_refused():
    with pytest.raises(HistoryError, match="unknown profile 'truco'"):
        HandHistory.from_dict({"profile": "truco", "dealer": 0, "hands": [], "actions": []})
