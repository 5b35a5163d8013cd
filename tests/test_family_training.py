"""The four-player family trains on defaults: ``vitou-ai train --profile
truc_catalan`` (trut, truc_1912) takes the abstract trainer on the profile's whole deck and
evaluates at the game's own target; the abstract key tells apart the states the family's
rules (docs/RULES_family.md) treat differently — Catalan's partner ties (G1.3, C2.1), who
may retruc (G3.5, C4.4), Trut's carried points (T4.1), 1912's *our rest* (F3.3) and fresh
deal (F2). The Vitou keys are pinned by tests/test_sizing.py (test_vitou_keys_are_unchanged).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.helpers import play_random
from vitou_ai.abstraction import AbstractionConfig
from vitou_ai.abstraction.key import abstract_key
from vitou_ai.commands.cli import main
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.sampling.abstract_tree import abstract_tree, infoset_keys
from vitou_ai.training.evaluation import match_label

CATALAN = VitouParams(profile="truc_catalan", dealer=0)
T1912 = VitouParams(profile="truc_1912", dealer=0)
TRUT = VitouParams(profile="trut", dealer=0)


def _state(params, hands, actions=(), hands2=None, pre=()):
    """Dealer 0 (seat 1 leads): deal ``hands`` (per seat), apply ``pre`` (the F2 round),
    deal ``hands2`` if the fresh deal was taken, then ``actions``."""
    game = Game(params)
    s = game.new_initial_state()
    K.apply_deal(game.array, s.array, np.array(hands, np.int64))
    for a in pre:
        s.apply_action(a)
    if hands2 is not None:
        K.apply_deal(game.array, s.array, np.array(hands2, np.int64))
    for a in actions:
        s.apply_action(a)
    return game, s


def _key(game, s, cfg=None):
    cfg = (cfg or AbstractionConfig()).to_array(game.params.signals)
    legal = np.array(s.legal_actions(), np.int64)
    return int(abstract_key(cfg, game.array, s.array, s.current_player(), legal, len(legal)))


def _trick_result(params, hands, actions):
    game, s = _state(params, hands, actions)
    assert s.array[L.S_NTRICKS] >= 1
    return int(s.array[L.S_TRES])


# ---- Catalan: partner ties go to the first card (G1.3, C2.1) -----------------------------

HANDS_C = [[4, 6, 9],   # seat 0 (dealer): plays last to trick 1
           [0, 7, 8],   # seat 1 leads
           [0, 5, 8],   # seat 2
           [0, 4, 9]]   # seat 3, seat 1's partner


def test_catalan_partner_tie_reads_as_held_not_void():
    """Seat 1 leads the 3 (rank 0), seat 3 (its partner) ties it: in Catalan the first 3
    holds the trick for team 1 (G1.3), as if seat 3 had played low; an opponent's tie (seat 2)
    voids it. Seat 0, last to play, sees equal keys where the rules give the same trick and
    different keys where they do not. (Passed before too: the summary reads the kernel's
    holder of the trick, which applies G1.3.)"""
    partner_tie = [0, 5, 0]   # seat 1: 3, seat 2: 10, seat 3: 3
    partner_low = [0, 5, 4]   # seat 1: 3, seat 2: 10, seat 3: 11
    opp_tie = [0, 0, 4]       # seat 1: 3, seat 2: 3, seat 3: 11
    keys = {}
    for name, cards in (("partner_tie", partner_tie), ("partner_low", partner_low),
                        ("opp_tie", opp_tie)):
        hands = [list(h) for h in HANDS_C]
        hands[2] = [cards[1], 5 if cards[1] == 0 else 0, 8]
        hands[3] = [cards[2], 4 if cards[2] == 0 else 0, 9]
        game, s = _state(CATALAN, hands, [L.A_PLAY0 + c for c in cards])
        assert s.current_player() == 0
        keys[name] = _key(game, s)
        # what seat 0's low card (rank 9: "4") leaves: team 1's trick, or void
        res = _trick_result(CATALAN, hands, [L.A_PLAY0 + c for c in cards] + [L.A_PLAY_HI0 + 1])
        keys[name + "_res"] = res
    assert keys["partner_tie_res"] == keys["partner_low_res"] == 1
    assert keys["opp_tie_res"] == L.RES_VOID
    assert keys["partner_tie"] == keys["partner_low"]
    assert keys["partner_tie"] != keys["opp_tie"]


# ---- who may retruc (G3.5, C4.4) -----------------------------------------------------------

def test_catalan_who_may_retruc_is_in_the_key():
    """Seat 0 plays last to trick 1 (no raise there, G3.6) at the truc, with the same cards on
    the table: in one state team 1 said truc (seat 0's side accepted and may retruc, C4.4), in
    the other seat 0's own side did (only team 1 may retruc). Same legal actions, other keys.
    (Passed before too: the side of the latest raise is a field.)"""
    cards = [L.A_PLAY0 + 7, L.A_PLAY0 + 5, L.A_PLAY0 + 4]
    ours = [cards[0], L.A_RAISE, cards[1], cards[2]]   # seat 2 (team 0) trucs
    theirs = [L.A_RAISE, cards[0], cards[1], cards[2]]  # seat 1 (team 1) trucs
    out = {}
    for name, acts in (("ours", ours), ("theirs", theirs)):
        game, s = _state(CATALAN, HANDS_C, acts)
        assert s.current_player() == 0 and s.array[L.S_STAKE] == 1
        out[name] = (_key(game, s), tuple(s.legal_actions()), int(s.array[L.S_LASTRAISE]))
    assert out["ours"][1] == out["theirs"][1]  # seat 0 may not raise in either (last card)
    assert out["ours"][2] == 0 and out["theirs"][2] == 1
    assert out["ours"][0] != out["theirs"][0]
    # and the rule it stands for: at trick 2 seat 0's side may retruc in one state only
    for name, acts, can in (("ours", ours, False), ("theirs", theirs, True)):
        game, s = _state(CATALAN, HANDS_C, acts + [L.A_PLAY_HI0 + 1])  # seat 0: the 4
        assert s.current_player() == 3  # won trick 1 with the 11: leads trick 2
        s.apply_action(L.A_PLAY_HI0 + 1)  # its 4, the lowest (a 3 would end the deal, G2.4)
        assert s.current_player() == 0
        assert (L.A_RAISE in s.legal_actions()) == can, name


# ---- Trut: the points carried (T4.1) ---------------------------------------------------------

def test_trut_scores_field_holds_the_carried_points():
    """With the scores knob, Trut's key holds each side's written points (below the trut of
    3: what T4.1 carries) in 2 bits each, not the 7 of a 21-point Vitou score; the points at
    2:0 and 0:0 give other keys. Without the knob the points are not in the key, which loses
    nothing in deal mode: the returns are the points scored, not capped (G4, T5)."""
    on, off = AbstractionConfig(scores=True), AbstractionConfig()
    assert on.bits(TRUT) - off.bits(TRUT) == 4
    assert on.bits(CATALAN) - off.bits(CATALAN) == 8  # 0 .. 11
    hands = [[3, 4, 5], [0, 1, 2], [6, 7, 7], [0, 6, 5]]
    keys, rets = set(), set()
    for sc in ((0, 0), (2, 0), (2, 2)):
        game, s = _state(TRUT.replace(scores=sc), hands)
        keys.add(_key(game, s, on))
        assert _key(game, s, off) == _key(*_state(TRUT, hands), off)
        s.apply_action(L.A_RAISE)  # seat 1 calls trut; then each plays its highest card
        while not s.is_terminal():
            s.apply_action(s.legal_actions()[0])
        rets.add(tuple(s.returns()))
    assert len(keys) == 3
    assert len(rets) == 1 and max(rets.pop()) == 3  # the trut: 3 points at every score


def test_trut_match_carries_the_surplus():
    """T4.2: B at 2 points calls trut and wins: B keeps 2, A goes to 0 (the state the
    scores field reads at the next deal)."""
    game, s = _state(VitouParams(profile="trut", dealer=0, mode="match", scores=(1, 2),
                                 games_won=(2, 3)),
                     [[7, 7, 6], [0, 0, 1], [7, 6, 6], [1, 2, 2]],
                     [L.A_RAISE])  # seat 1 (team 1) calls trut
    while s.array[L.S_DEALS] == 0 and not s.is_terminal():
        s.apply_action(min(a for a in s.legal_actions() if a not in (L.A_RAISE, L.A_REFUSE)))
    assert tuple(s.array[L.S_SCORE0:L.S_SCORE0 + 2]) == (0, 2)
    assert tuple(s.array[L.S_GAMES:L.S_GAMES + 2]) == (2, 4)


# ---- 1912: our rest (F3.3), the fresh deal (F2) ---------------------------------------------

HANDS_F = [[7, 6, 5], [0, 1, 7], [6, 5, 4], [3, 2, 4]]


def _rest_answer(raised_before: bool):
    """Seat 2 answers seat 1's *rest* at trick 2; before it the stake was 1 (no raise) or 2
    (seat 2 raised in trick 1, accepted by seat 3's card)."""
    t1 = [L.A_PLAY0 + 0, L.A_PLAY0 + 6, L.A_PLAY0 + 3, L.A_PLAY0 + 7]
    if raised_before:
        t1 = [t1[0], L.A_RAISE, t1[1], t1[2], t1[3]]
    game, s = _state(T1912, HANDS_F, [L.A_KEEP] + t1 + [L.A_REST, L.A_PLAY0 + 1])
    assert s.current_player() == 2 and L.A_REFUSE in s.legal_actions()
    assert s.array[L.S_STAKE] == len(T1912.ladder) - 1  # the game
    key = _key(game, s)
    s.apply_action(L.A_REFUSE)
    return key, tuple(s.legal_actions()), s.returns()


def test_1912_rest_key_holds_the_stake_it_jumped_from():
    """Fails before: a waiting rest from 1 and from 2 gave one key, but a refusal scores 1 in
    one and 2 in the other (F3.3, G3.2)."""
    k1, _, r1 = _rest_answer(False)
    k2, _, r2 = _rest_answer(True)
    assert (max(r1), max(r2)) == (1, 2)
    assert k1 != k2


def test_1912_fresh_deal_is_in_the_key():
    """F2: after a proposal rejected (F2.2) the table knows the first leader wanted other
    cards; after a fresh deal (F2.3) the deck was another one. Kept, rejected and taken give
    three keys for the same hand at the first card (before: kept = rejected)."""
    keep = _state(T1912, HANDS_F, pre=[L.A_KEEP])
    rejected = _state(T1912, HANDS_F, pre=[L.A_REDEAL, L.A_AGREE, L.A_REJECT])
    taken = _state(T1912, [[7, 7, 6], [1, 1, 2], [6, 5, 4], [3, 2, 4]],
                   pre=[L.A_REDEAL, L.A_AGREE, L.A_AGREE, L.A_AGREE], hands2=HANDS_F)
    keys = [_key(*x) for x in (keep, rejected, taken)]
    for _, s in (keep, rejected, taken):
        assert s.current_player() == 1 and s.array[L.S_PHASE] == L.PH_PLAY
    assert len(set(keys)) == 3


def test_1912_count_leaves_out_own_thrown_cards():
    """F2.3: the thrown hands are not in the deck; the player knows its own, so with the
    ``count`` knob two fresh deals differing only in seat 1's thrown cards differ (unseen 7s:
    4 - 1 held - 2 thrown = 1, against 3)."""
    cfg = AbstractionConfig(count=1)
    keys = []
    for first in ([0, 0, 2], [3, 3, 2]):
        hands = [[7, 7, 6], first, [6, 5, 4], [3, 2, 4]]
        g, s = _state(T1912, hands, pre=[L.A_REDEAL] + [L.A_AGREE] * 3, hands2=HANDS_F)
        keys.append(_key(g, s, cfg))
    assert keys[0] != keys[1]


@pytest.mark.parametrize("params", [
    VitouParams(profile="truc_1912", ranks=4, copies=2, hand_size=1, dealer=-1),
    VitouParams(profile="truc_catalan", ranks=3, copies=2, hand_size=1, dealer=-1),
    VitouParams(profile="trut", ranks=3, copies=2, hand_size=1, dealer=-1),
])
def test_family_key_is_a_function_of_the_information_state(params):
    tree = build_tree(params)
    for cfg in (AbstractionConfig(), AbstractionConfig(count=1, scores=True)):
        infoset_keys(tree, cfg)  # raises if two nodes of one infoset disagree
        at = abstract_tree(tree, cfg)  # raises if merged infosets differ in player or actions
        assert at.tree.num_infosets <= tree.num_infosets


@pytest.mark.parametrize("profile", ["truc_catalan", "truc_1912", "trut"])
def test_family_equal_keys_have_equal_legal_actions(profile):
    params = VitouParams(profile=profile, dealer=-1)
    game = Game(params)
    for cfg in (AbstractionConfig(), AbstractionConfig(count=1, scores=True)):
        c = cfg.to_array(False)
        seen: dict[int, tuple[int, ...]] = {}

        def visit(state, c=c, seen=seen):
            if state.is_chance_node():
                return
            legal = np.array(state.legal_actions(), np.int64)
            k = int(abstract_key(c, game.array, state.array, state.current_player(), legal,
                                 len(legal)))
            assert 0 <= k < 2**63
            assert seen.setdefault(k, tuple(legal)) == tuple(legal)

        for d in range(150):
            play_random(game, d, visit)
        assert len(seen) > 100


# ---- the command ---------------------------------------------------------------------------

def test_match_labels_come_from_the_game():
    assert match_label(VitouParams(profile="vitou")) == "21-point matches"
    assert match_label(CATALAN) == "12-point matches"
    assert match_label(T1912) == "matches of 2 12-point games"
    assert match_label(TRUT) == "matches of 5 truts"


@pytest.mark.parametrize("profile", ["truc_catalan", "trut"])
def test_four_player_family_trains_on_defaults(profile, tmp_path, capsys):
    """Refused before (the flat tree's 30,000,000 nodes): the abstract trainer is the
    default solver of every four-player profile, on the profile's whole deck."""
    out = tmp_path / "run"
    code = main(["train", "--profile", profile, "--iterations", "300", "--evals", "1",
                 "--eval-deals", "2", "--eval-matches", "2", "--lbr-deals", "0", "--bots",
                 "random", "--threads", "1", "--out", str(out)])
    assert code == 0, capsys.readouterr()
    rec = json.loads((out / "run.json").read_text())
    assert rec["solver"] == "abstract-es-mccfr"
    assert "ranks" not in rec["params"]  # the whole deck: Catalan's 10 ranks (C1.3)
    assert rec["eval_match_kind"] == match_label(VitouParams(profile=profile))


def test_family_default_keys_are_pinned():
    """Digest of the default keys of 60 random deals per profile. truc_catalan and trut are
    those of 5566d1e (before the family's features: the features add nothing to their keys
    at the default knobs, so the results/train_4p_truc_catalan policy still reads); truc_1912's
    changed there (rest, fresh deal) and are pinned from 32dad40."""
    import hashlib

    c = AbstractionConfig().to_array(False)
    got = {}
    for prof in ("truc_catalan", "trut", "truc_1912"):
        game, keys = Game(VitouParams(profile=prof, dealer=-1)), []

        def visit(state, game=game, keys=keys):
            if not state.is_chance_node():
                legal = np.array(state.legal_actions(), np.int64)
                keys.append(int(abstract_key(c, game.array, state.array, state.current_player(),
                                             legal, len(legal))))

        for d in range(60):
            play_random(game, d, visit)
        got[prof] = (len(keys), hashlib.sha256(np.array(keys, np.int64).tobytes()).hexdigest()[:16])
    assert got == {"truc_catalan": (534, "3626cc359d48982e"), "trut": (484, "ac236b737e7fa5dd"),
                   "truc_1912": (677, "c00e65f05351895f")}
