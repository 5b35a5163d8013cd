"""The information abstraction (docs/abstraction.md): a function of the
information state, equal keys imply equal legal actions, lossless at its exact
settings on a game small enough to enumerate, bad knobs refused."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import play_random
from vitou_ai.abstraction import AbstractionConfig
from vitou_ai.abstraction.key import abstract_key
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.sampling.abstract_tree import abstract_tree, infoset_keys
from vitou_ai.training.abstract import parse_abstraction

SMALL_4P = VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=-1)
SMALL_2P = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, dealer=-1)
EXACT = AbstractionConfig(trick="exact", count=8, history="cards")


def _legal_by_key(params: VitouParams, cfg: AbstractionConfig, deals: int, seed: int):
    game = Game(params)
    c = cfg.to_array(params.signals)
    seen: dict[int, tuple[int, ...]] = {}
    clash = []

    def visit(state):
        if state.is_chance_node():
            return
        legal = np.array(state.legal_actions(), np.int64)
        k = int(abstract_key(c, game.array, state.array, state.current_player(), legal,
                             len(legal)))
        assert 0 <= k < 2**63
        if seen.setdefault(k, tuple(legal)) != tuple(legal):
            clash.append((k, seen[k], tuple(legal)))

    for d in range(deals):
        play_random(game, seed + d, visit)
    return seen, clash


@pytest.mark.parametrize("params", [
    VitouParams(profile="vitou", dealer=-1),
    VitouParams(profile="vitou", dealer=-1, signals=True),
    VitouParams(profile="vitou", dealer=-1, scores=(20, 13)),
    VitouParams(profile="vitou", dealer=-1, scores=(20, 20)),
    VitouParams(profile="vitou_2p", dealer=-1),
])
def test_equal_keys_have_equal_legal_actions(params):
    seen, clash = _legal_by_key(params, AbstractionConfig(), 300, seed=11)
    assert not clash
    assert len(seen) > 50


@pytest.mark.parametrize("mode", ["all", "team"])
def test_equal_keys_have_equal_legal_actions_in_every_gesture_mode(mode):
    # the default (partner) is covered above with signals on
    seen, clash = _legal_by_key(VitouParams(profile="vitou", dealer=-1, signals=True),
                                AbstractionConfig(gestures=mode), 150, seed=12)
    assert not clash
    assert len(seen) > 50


def test_gesture_modes_keep_exactly_their_gestures():
    # R7.2: the partner's gesture is always seen; the key of each mode changes with
    # the gestures it keeps and with no other (gesture codes -1 .. 4, L.GESTURES)
    params = VitouParams(profile="vitou", dealer=0, signals=True)
    game = Game(params)
    found = []

    def grab(state):
        if not found and state.array[L.S_PHASE] == L.PH_PLAY:
            found.append(state.array.copy())

    for seed in range(40):
        play_random(game, seed, grab)
        if found:
            break
    base = found[0]
    me, partner, opponent = 1, 3, 2
    base[L.S_GEST:L.S_GEST + 4] = 0  # everyone gestured `none`
    base[L.S_SEEN + me * L.MAX_PLAYERS + opponent] = 1  # and I caught the opponent's

    def key(mode, seat=None, gesture=None):
        st = base.copy()
        if seat is not None:
            st[L.S_GEST + seat] = gesture
        legal = np.zeros(0, np.int64)  # the same (none) for every variant
        return int(abstract_key(AbstractionConfig(gestures=mode).to_array(True), game.array,
                                st, me, legal, 0))

    changes = {"off": set(), "partner": {partner}, "team": {me, partner},
               "all": {me, partner, opponent}}
    for mode, kept in changes.items():
        for seat in (me, partner, opponent):
            assert (key(mode, seat, 1) != key(mode)) == (seat in kept), (mode, seat)
    assert AbstractionConfig().gesture_mode(True) == "partner"
    assert AbstractionConfig().gesture_mode(False) == "off"
    bits = {m: AbstractionConfig(gestures=m).bits(params) for m in changes}
    assert bits["off"] < bits["partner"] < bits["team"] < bits["all"]


@pytest.mark.parametrize("params, cfg", [(SMALL_4P, AbstractionConfig()), (SMALL_4P, EXACT),
                                         (SMALL_2P, AbstractionConfig())])
def test_key_is_a_function_of_the_information_state(params, cfg):
    tree = build_tree(params)
    keys = infoset_keys(tree, cfg)  # raises if two nodes of one infoset disagree
    assert keys.shape == (tree.num_infosets,)
    at = abstract_tree(tree, cfg)  # raises if merged infosets differ in player or actions
    assert at.tree.num_infosets <= tree.num_infosets


def test_exact_settings_are_lossless_on_one_card_hands():
    # with one card each no trick is completed before a decision, so the exact
    # knobs see everything a player knows: the abstract tree has the real infosets
    tree = build_tree(SMALL_4P)
    at = abstract_tree(tree, EXACT)
    assert at.tree.num_infosets == tree.num_infosets
    # the default (lossy) knobs merge some of them
    assert abstract_tree(tree, AbstractionConfig()).tree.num_infosets < tree.num_infosets


def test_seat_symmetry_merges_seats_exactly():
    # dealer 0 and dealer 1 games are the same game rotated (at 0:0): the keys of
    # the two trees are the same set
    k0 = set(infoset_keys(build_tree(SMALL_4P.replace(dealer=0)), EXACT).tolist())
    k1 = set(infoset_keys(build_tree(SMALL_4P.replace(dealer=1)), EXACT).tolist())
    assert k0 == k1


def test_bad_knobs_are_refused():
    with pytest.raises(ValueError, match="count"):
        AbstractionConfig(count=9)
    with pytest.raises(ValueError, match="trick"):
        AbstractionConfig(trick="fuzzy")
    with pytest.raises(ValueError, match="63"):
        AbstractionConfig(scores=True, gestures=True, count=8, trick="exact").check_game(
            VitouParams(profile="vitou", signals=True))
    with pytest.raises(ValueError, match="gestures"):
        AbstractionConfig(gestures="wink")
    assert AbstractionConfig(gestures=True).gestures == "all"  # earlier records
    assert parse_abstraction("gestures=team").gestures == "team"
    assert parse_abstraction("gestures=off").gestures == "off"
    with pytest.raises(ValueError, match="knob=value"):
        parse_abstraction("colour=red")
    assert parse_abstraction("count=1,trick=exact,scores=on") == AbstractionConfig(
        count=1, trick="exact", scores=True)
    with pytest.raises(ValueError, match="knob trick given twice"):
        parse_abstraction("trick=exact,trick=summary")


def test_key_reads_no_hidden_card():
    # two states that differ only in an opponent's hand give the same key
    params = VitouParams(profile="vitou", dealer=0)
    game = Game(params)
    cfg = AbstractionConfig().to_array(False)
    keys = []
    for other in ([[1, 2, 3], [4, 5, 6], [7, 7, 6]], [[1, 1, 2], [5, 5, 6], [7, 4, 4]]):
        s = game.new_initial_state()
        hands = np.zeros((4, 3), np.int64)
        hands[1] = [0, 0, 7]  # seat 1 leads (dealer 0)
        hands[2], hands[3], hands[0] = other
        from vitou_ai.rules import kernel as K

        K.apply_deal(game.array, s.array, hands)
        legal = np.array(s.legal_actions(), np.int64)
        keys.append(int(abstract_key(cfg, game.array, s.array, 1, legal, len(legal))))
        assert s.array[L.S_PHASE] == L.PH_PLAY
    assert keys[0] == keys[1]


def test_abstract_key_refuses_action_ids_it_has_no_bit_for():
    """The key's legal-action field has bits for the ids 0..30 only; partnership Put's
    take / give / discard (P6.1, P6.3) would have been shifted into the next fields,
    so two information states with other legal actions could share a key. The trainer
    refuses the game (capabilities); the key itself refuses too, not a silent clash."""
    game = Game(VitouParams(profile="put_partnership", ranks=2, copies=4, hand_size=2,
                            dealer=0))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    legal = np.array(state.legal_actions(), np.int64)
    assert L.A_TAKE in legal
    with pytest.raises(ValueError, match="action id above"):
        abstract_key(EXACT.to_array(False), game.array, state.array, state.current_player(),
                     legal, len(legal))
