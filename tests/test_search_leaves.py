"""Continuation values at the leaves of a depth-limited search (vitou_ai.search.leaves)."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai import VitouParams
from vitou_ai.bots.exact import MAX_DRAWS, breakpoints, policy_probs
from vitou_ai.bots.named import parse_bot
from vitou_ai.bots.policy import IWORK_SIZE, pack_policies
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.search.leaves import (
    BIAS_CLASSES,
    DEFAULT_BIASES,
    continuation_values,
)
from vitou_ai.solvers.public.export import bot_policy
from vitou_ai.solvers.public.subgame import SubgameSolver, build_subgame, deal_tables
from vitou_ai.solvers.public.tree import set_dealt_hand

# 4 ranks x 2 copies, 3-card hands: a leaf after trick 1 has tricks 2-3 below it
SMALL = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=3, dealer=0)
BOT = parse_bot("counter")


def _leaf(params, hands):
    """The first decision of trick 2: the deal ``hands`` after a passed blind window, each
    seat playing its lowest legal card (highest rank index) in trick 1."""
    pa = params.to_array()
    st = np.zeros(L.STATE_SIZE, np.int32)
    K.init_state(pa, st)
    for a in (L.A_PASS, L.A_PASS):
        K.apply_action(pa, st, a)
    K.apply_deal(pa, st, np.array(hands, np.int64))
    legal = np.empty(params.num_actions, np.int64)
    while st[L.S_NTRICKS] < 1:
        n = K.legal_actions(pa, st, legal)
        K.apply_action(pa, st, max(a for a in legal[:n] if a < L.A_RAISE))
    assert not K.is_terminal(st) and not K.is_chance(st)
    return st


@pytest.fixture(scope="module")
def leaf():
    st = _leaf(SMALL, [[0, 1, 2], [1, 2, 3]])
    return st, {s: continuation_values(SMALL, st, BOT, s) for s in (0, 1)}


def _brute(params, state, blueprint, searcher, cls, factor, h0, h1):
    """Team 0's expected return from ``state`` with seat 0 dealt hand ``h0`` and seat 1
    ``h1`` (rows of the deal's hands), by enumerating the kernel: the blueprint's exact
    probabilities, the non-searcher's actions of class ``cls`` weighted by ``factor``."""
    pa = params.to_array()
    hands = deal_tables(params)[0]
    st = state.copy()
    played = np.empty(L.MAX_RANKS, np.int64)
    set_dealt_hand(pa, st, 0, hands[h0], played)
    set_dealt_hand(pa, st, 1, hands[h1], played)
    assert (st[L.S_HELD:L.S_HELD + 2 * L.MAX_RANKS] >= 0).all()
    pack = pack_policies([blueprint], signals=params.signals)
    bounds = breakpoints(pack.fparams[0])
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    script = np.zeros(2 + MAX_DRAWS, np.uint64)
    biased = set(BIAS_CLASSES[cls])
    ret = np.zeros(params.players)

    def value(s):
        if K.is_terminal(s):
            K.returns(pa, s, ret)
            return float(ret[0])
        assert not K.is_chance(s)
        p = K.current_player(pa, s)
        legal = np.empty(params.num_actions, np.int64)
        n = K.legal_actions(pa, s, legal)
        row = np.zeros(params.num_actions)
        policy_probs(pack, 0, pa, s, p, legal, n, bounds, keybuf, iwork, script, row)
        w = np.array([row[a] * (factor if p != searcher and a in biased else 1.0)
                      for a in legal[:n]])
        w /= w.sum()
        total = 0.0
        for a, q in zip(legal[:n], w, strict=True):
            if q > 0.0:
                c = s.copy()
                K.apply_action(pa, c, int(a))
                total += q * value(c)
        return total

    return value(st)


def test_shapes_and_ranges(leaf):
    st, cvs = leaf
    sub = build_subgame(SMALL, st)
    for s, cv in cvs.items():
        assert cv.searcher == s and cv.biases == DEFAULT_BIASES
        for seat in (0, 1):
            assert cv.hands[seat].dtype == np.int64
            np.testing.assert_array_equal(cv.hands[seat], sub.root_hands[seat])
        assert cv.values.shape == (len(DEFAULT_BIASES), len(cv.hands[0]), len(cv.hands[1]))
        pp = deal_tables(SMALL)[2][np.ix_(cv.hands[0], cv.hands[1])]
        assert (pp == 0).any() and (cv.values[:, pp == 0] == 0.0).all()


def test_blueprint_matches_subgame_value(leaf):
    st, cvs = leaf
    sub = build_subgame(SMALL, st)
    bp = bot_policy(sub.tree, BOT, start=sub.state)
    H = sub.tree.num_hands
    rng = np.random.default_rng(0)
    reach = rng.uniform(0.1, 1.0, (2, H))
    want = SubgameSolver(sub, reach).value(0, policy=bp)
    pp = sub.tree.pair_prob
    for cv in cvs.values():
        r0, r1 = reach[0, cv.hands[0]], reach[1, cv.hands[1]]
        got = float(np.einsum("a,b,ab,ab->", r0, r1, pp[np.ix_(cv.hands[0], cv.hands[1])],
                              cv.values[0]))
        assert abs(got - want) < 1e-9


@pytest.mark.parametrize("searcher", [0, 1])
def test_brute_force(leaf, searcher):
    st, cvs = leaf
    cv = cvs[searcher]
    pp = deal_tables(SMALL)[2][np.ix_(cv.hands[0], cv.hands[1])]
    k_raise = [c for c, _ in cv.biases].index("raise")
    # the raise bias changes the value of some dealable pairs: check those and others
    moved = np.argwhere((pp > 0) & (np.abs(cv.values[k_raise] - cv.values[0]) > 1e-6))
    assert len(moved)
    pairs = [tuple(x) for x in moved[:3]] + [tuple(x) for x in np.argwhere(pp > 0)[:2]]
    for a, b in pairs:
        h0, h1 = int(cv.hands[0][a]), int(cv.hands[1][b])
        for k in (0, k_raise):
            cls, f = cv.biases[k]
            want = _brute(SMALL, st, BOT, searcher, cls, f, h0, h1)
            assert abs(cv.values[k, a, b] - want) < 1e-9, (searcher, cls, a, b)


def test_bias_on_the_other_seat_only(leaf):
    _, cvs = leaf
    v0, v1 = cvs[0].values, cvs[1].values
    np.testing.assert_array_equal(v0[0], v1[0])  # the blueprint: no seat biased
    k = [c for c, _ in DEFAULT_BIASES].index("raise")
    assert np.abs(v0[k] - v1[k]).max() > 1e-3


def test_factor_one_is_the_blueprint(leaf):
    st, cvs = leaf
    cv = continuation_values(SMALL, st, BOT, 0, biases=(("raise", 1.0), ("accept", 1.0)))
    np.testing.assert_allclose(cv.values, cvs[0].values[[0, 0]], rtol=0, atol=1e-12)


def _one_line_error(*args, match, **kw):
    with pytest.raises(ValueError, match=match) as e:
        continuation_values(*args, **kw)
    assert "\n" not in str(e.value)


def test_bad_input(leaf):
    st, _ = leaf
    four = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=2, dealer=0)
    _one_line_error(four, st, BOT, 0, match="two players")
    _one_line_error(SMALL, st, BOT, 0, biases=(("fold", 5.0),), match="unknown bias class")
    _one_line_error(SMALL, st, BOT, 0, biases=(("raise", 0.0),), match="> 0")
    _one_line_error(SMALL, st, BOT, 0, biases=(("raise", -2.0),), match="> 0")
    _one_line_error(SMALL, st, BOT, 0, biases=(), match="no continuation")
    _one_line_error(SMALL, st, BOT, 2, match="searcher")
    pa = SMALL.to_array()
    undealt = np.zeros(L.STATE_SIZE, np.int32)
    K.init_state(pa, undealt)
    _one_line_error(SMALL, undealt, BOT, 0, match="not dealt|chance")
    end = st.copy()
    legal = np.empty(SMALL.num_actions, np.int64)
    while not K.is_terminal(end):
        K.legal_actions(pa, end, legal)
        K.apply_action(pa, end, int(legal[0]))
    _one_line_error(SMALL, end, BOT, 0, match="over|terminal")


def test_card_play_classes_and_given_continuations(leaf):
    """``play_high`` / ``play_low`` weight the higher / lower half of the ranks' card
    plays of the other seat; a given continuation equal to the blueprint repeats the
    blueprint's row, labelled ``given``."""
    from vitou_ai.search.leaves import (
        biased_policy,
        entry_seats_actions,
        play_action,
        subgame_continuation_values,
    )

    st, _ = leaf
    sub = build_subgame(SMALL, st)
    bp = bot_policy(sub.tree, BOT, start=sub.state)
    seats, acts = entry_seats_actions(sub.tree)
    for cls, ranks in (("play_high", range(SMALL.ranks // 2)),
                       ("play_low", range(SMALL.ranks // 2, SMALL.ranks))):
        b = biased_policy(sub.tree, bp, 1, cls, 50.0)
        hit = (seats == 1) & np.isin(acts, [play_action(r) for r in ranks]) & (bp > 0) & (bp < 1)
        assert hit.any() and (b[hit] > bp[hit]).all()
        np.testing.assert_allclose(b[seats == 0], bp[seats == 0], atol=1e-12)
    cv = subgame_continuation_values(sub, bp, 0, (("blueprint", 1.0),), extra=(bp,))
    assert cv.biases[-1] == ("given", 1.0) and cv.values.shape[0] == 2
    np.testing.assert_allclose(cv.values[1], cv.values[0], atol=1e-12)
