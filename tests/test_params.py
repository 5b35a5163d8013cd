"""VitouParams validation (R8, R9) and the kernel array form."""

import pytest

from vitou_ai.rules import VitouParams
from vitou_ai.rules import params as P


def test_profile_defaults():
    assert VitouParams().target == 21 and VitouParams().players == 4
    assert VitouParams(profile="vitou_cason").target == 12
    two = VitouParams(profile="vitou_2p")
    assert two.players == 2 and two.ladder_labels == ("1", "3", "6", "12")
    assert VitouParams().ladder_labels == ("1", "3", "6", "12", "B")


def test_array_fields():
    a = VitouParams(profile="vitou_2p", scores=(3, 11), early_end="trick", dealer=1).to_array()
    assert a[P.P_PLAYERS] == 2 and a[P.P_TARGET] == 12 and a[P.P_NLADDER] == 4
    assert a[P.P_SCORE0] == 3 and a[P.P_SCORE1] == 11 and a[P.P_EARLY_CARD] == 0
    assert a[P.P_TWO_PLAYER_RAISES] == 1 and a[P.P_DEALER] == 1


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(profile="bridge"), "unknown profile"),
        (dict(mode="tournament"), "unknown mode"),
        (dict(early_end="never"), "unknown early_end"),
        (dict(ranks=9), "ranks must be in [2, 8]"),
        (dict(ranks=1), "ranks must be in [2, 8]"),
        (dict(hand_size=4), "hand_size must be in [1, 3]"),
        (dict(copies=0), "copies must be in [1, 8]"),
        (dict(ranks=2, copies=2), "fewer than the 12 needed"),
        # a new user's: "16 needed for 4 hands of 2" without the fresh deal (F2.3)
        (dict(profile="truc_1912", ranks=3, copies=4, hand_size=2),
         "16 needed for 4 hands of 2 and the fresh deal's second set of hands"),
        (dict(scores=(21, 0)), "scores[0] must be in [0, 20]"),
        (dict(scores=(0, -1)), "scores[1] must be in [0, 20]"),
        (dict(scores=(0, 0, 0)), "two team scores"),
        (dict(dealer=4), "dealer must be in [-1, 3]"),
        (dict(profile="vitou_2p", dealer=2), "dealer must be in [-1, 1]"),
        (dict(profile="vitou_2p", signals=True), "signals are a four-player knob"),
        (dict(signal_seen=1.5), "signal_seen must be a probability"),
        (dict(target=1), "target must be in [2, 99]"),
        (dict(target=2.5), "target must be an integer"),
        (dict(max_deals=0), "max_deals must be in [1, 10000]"),
        (dict(signals="yes"), "signals must be a bool"),
    ],
)
def test_invalid_parameters_are_refused(kwargs, fragment):
    with pytest.raises(ValueError) as e:
        VitouParams(**kwargs)
    assert fragment in str(e.value)


#: a valid value other than the default of every VitouParams field, for most profiles
_PROBE = dict(mode="match", dealer=1, scores=(1, 0), target=7, early_end="trick", signals=True,
              signal_seen=0.25, ranks=6, copies=3, hand_size=2, max_deals=50, games_won=(1, 0),
              chooser="order", players=4, put_stake=3, fold_pays="stake")
_PROBE_OF = {"games": {"truc_1912": 3, "trut": 7}}


@pytest.mark.parametrize("profile", P.ALL_PROFILES)
def test_refusals_list_the_profiles_real_knobs(profile):
    """A refused knob's message lists the profile's knobs, derived from its parameters
    (``profile_knobs``); the hand-kept lists gave ``put`` only ``direction`` (not its
    ``target``) and ``put_willughby`` no ``ranks``, ``copies`` or ``hand_size``. Every listed
    knob is taken; every other one but ``signal_seen`` (inert without signals) and
    Willughby's ``early_end``, ``max_deals`` (inert in its deal mode, P7.2, P7.6) is refused."""
    knobs = P.profile_knobs(profile)
    default = VitouParams(profile=profile)
    for name in ("profile", *knobs):
        if name == "profile":
            continue
        probe = _PROBE_OF.get(name, {}).get(profile, _PROBE.get(name))
        if name == "direction":
            probe = "counterclockwise" if default.direction == "clockwise" else "clockwise"
        if name == "games_won":
            VitouParams(profile=profile, games=_PROBE_OF["games"][profile], games_won=probe)
            continue
        assert getattr(VitouParams(profile=profile, **{name: probe}), name) == probe, name
    inert = {"signal_seen"} | ({"early_end", "max_deals"} if profile == "put_willughby" else set())
    others = [f for f in _PROBE if f not in knobs and f not in inert] + [
        f for f in ("direction", "games") if f not in knobs]
    for name in others:
        value = {"direction": "clockwise", "games": 3, "players": 3}.get(name, _PROBE.get(name))
        with pytest.raises(ValueError) as e:
            VitouParams(profile=profile, **{name: value})
        msg = str(e.value)
        assert "\n" not in msg
        if "is not a knob of profile" in msg and "its knobs" in msg:
            assert msg.endswith("its knobs: " + ", ".join(knobs)), msg
    assert ("target" in knobs) == (profile != "put_willughby")
    if profile == "put_willughby":
        assert {"ranks", "copies", "hand_size", "players", "put_stake", "fold_pays"} <= set(knobs)
        with pytest.raises(ValueError, match="its knobs: dealer, ranks, copies, hand_size, "
                                             "direction, players, put_stake, fold_pays$"):
            VitouParams(profile=profile, chooser="order")
    if profile == "put":
        with pytest.raises(ValueError, match=r"its knobs: mode, dealer, scores, target, "
                                             r"early_end, ranks, copies, hand_size, max_deals, "
                                             r"direction$"):
            VitouParams(profile=profile, players=3)


def test_frozen_and_replace():
    p = VitouParams()
    with pytest.raises(AttributeError):
        p.target = 3  # type: ignore[misc]
    q = p.replace(profile="vitou_cason", target=None)
    assert q.target == 12
    assert p.knobs() == {}
    assert VitouParams(ranks=4, copies=3).knobs() == {"ranks": 4, "copies": 3}


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(scores="12"), "scores must be two team scores"),
        (dict(scores=None), "scores must be two team scores"),
        (dict(scores=("5", 3)), "scores[0] must be an integer"),
        (dict(scores=(1.9, 0)), "scores[0] must be an integer"),
        (dict(scores=(True, False)), "scores[0] must be an integer"),
        (dict(signal_seen="0.3"), "signal_seen must be a number"),
        (dict(signal_seen=True), "signal_seen must be a number"),
    ],
)
def test_wrong_types_are_refused(kwargs, fragment):
    with pytest.raises(ValueError) as e:
        VitouParams(**kwargs)
    assert fragment in str(e.value)


def test_rules_version_check_converts_or_refuses():
    """Files written under vitou-rules-1.0: two-player ones carry over (R3.2's
    1.1 change needs two players still to play a trick), four-player ones are
    refused with what changed."""
    import pytest

    from vitou_ai.rules.params import RULES_VERSION, check_rules_version

    assert check_rules_version(RULES_VERSION, 4, "f") is False
    assert check_rules_version("vitou-rules-1.0", 2, "f") is True
    with pytest.raises(ValueError, match=r"f: written under vitou-rules-1.0.*R3.2"):
        check_rules_version("vitou-rules-1.0", 4, "f")
    with pytest.raises(ValueError, match="f: written under rules None"):
        check_rules_version(None, 2, "f")


def test_old_policy_files(tmp_path):
    import json

    import numpy as np
    import pytest

    from vitou_ai.bots.tabular import TabularPolicy
    from vitou_ai.rules import layout as L

    keys = np.zeros((1, L.KEY_SIZE), np.int8)
    probs = np.full((1, L.NUM_ACTIONS), 1.0 / L.NUM_ACTIONS, np.float32)
    for profile, ok in (("vitou_2p", True), ("vitou", False)):
        path = tmp_path / f"{profile}.npz"
        np.savez(path, keys=keys, probs=probs, rules_version=np.array("vitou-rules-1.0"),
                 params=np.array(json.dumps({"profile": profile, "hand_size": 2})))
        if ok:
            assert TabularPolicy.load(path).params.profile == profile
        else:
            with pytest.raises(ValueError, match="R3.2 now counts copies"):
                TabularPolicy.load(path)


def test_rules_1_2_takes_files_of_rules_1_1():
    """vitou-rules-1.2 only adds put_partnership (docs/RULES_family.md P6): no other
    profile's transitions, keys or action ids changed, so every 1.1 file carries over."""
    from vitou_ai.rules.params import RULES_VERSION, check_rules_version

    assert RULES_VERSION == "vitou-rules-1.3"
    for players in (2, 4, None):
        assert check_rules_version("vitou-rules-1.1", players, "f") is True


def test_rules_1_3_takes_files_of_rules_1_2_and_1_1():
    """vitou-rules-1.3 only adds put_willughby (docs/RULES_family.md P7): the state's hand
    slots grow (MAX_HAND 5) but the information-state key keeps its size, so 1.1 and 1.2
    files carry over; a 1.0 four-player file is still refused."""
    import pytest

    from vitou_ai.rules import layout as L
    from vitou_ai.rules.params import check_rules_version

    assert L.KEY_SIZE == 47 and L.KEY_HAND == 3 and L.MAX_HAND == 5
    for version in ("vitou-rules-1.1", "vitou-rules-1.2"):
        for players in (2, 3, 4, None):
            assert check_rules_version(version, players, "f") is True
    with pytest.raises(ValueError, match="R3.2"):
        check_rules_version("vitou-rules-1.0", 4, "f")


def test_shipped_policy_files_still_load():
    """Every policy file under results/ (tabular, abstract, neural; written under 1.0 or
    1.1) loads under this rules version."""
    from pathlib import Path

    import numpy as np

    from vitou_ai.bots.named import parse_bot
    from vitou_ai.bots.neural import NeuralPolicy

    files = sorted((Path(__file__).resolve().parents[1] / "results").rglob("*.npz"))
    assert len(files) >= 10
    for path in files:
        with np.load(path, allow_pickle=False) as z:
            tabular = "keys" in z or "format" in z and "abstract" in str(z["format"])
        bot = parse_bot(str(path)) if tabular else NeuralPolicy.load(path)
        assert bot is not None, path
