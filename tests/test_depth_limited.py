"""Depth-limited subgames: the build's leaves, the leaf passes against the full subgame,
and the exact evaluation's depth-limited search (vitou_ai.solvers.public.depth_limited)."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai import VitouParams
from vitou_ai.bots.named import parse_bot
from vitou_ai.eval.search_exact import search_policy
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.search.leaves import DEFAULT_BIASES, subgame_continuation_values
from vitou_ai.solvers.public.export import bot_policy
from vitou_ai.solvers.public.subgame import (
    SubgameSolver,
    build_subgame,
    deal_tables,
    subtree_entries,
)
from vitou_ai.solvers.public.tree import KIND_LEAF, KIND_TERMINAL, build_public_tree

TINY = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, dealer=0)
BOT = parse_bot("counter")


def _first_decision(params, hands):
    """The first decision after the deal ``hands`` (the blind window passed)."""
    pa = params.to_array()
    st = np.zeros(L.STATE_SIZE, np.int32)
    K.init_state(pa, st)
    for a in (L.A_PASS, L.A_PASS):
        K.apply_action(pa, st, a)
    K.apply_deal(pa, st, np.array(hands, np.int64))
    assert not K.is_chance(st) and int(st[L.S_NTRICKS]) == 0
    return st


def _leaf_data(params, dl, biases, bot=BOT):
    """Each leaf's continuation values from its full subgame and the blueprint there."""
    hands, values = [], []
    searcher = int(dl.tree.player[0])
    for st in dl.leaf_states:
        full = build_subgame(params, st)
        cv = subgame_continuation_values(full, bot_policy(full.tree, bot, start=full.state),
                                         searcher, biases)
        hands.append(cv.hands)
        values.append(cv.values)
    return hands, values


@pytest.fixture(scope="module")
def trick1():
    st = _first_decision(TINY, [[0, 1], [1, 2]])
    return st, build_subgame(TINY, st), build_subgame(TINY, st, tricks=1)


def test_leaves_are_the_next_tricks_first_states(trick1):
    st, full, dl = trick1
    t = dl.tree
    assert len(dl.leaves) > 0 and dl.num_nodes < full.num_nodes
    assert np.array_equal(dl.leaves, np.nonzero(t.kind == KIND_LEAF)[0])
    assert (t.nchild[dl.leaves] == 0).all()
    for ls in dl.leaf_states:
        assert int(ls[L.S_NTRICKS]) == 1 and not K.is_terminal(ls)
    # above the leaves the two trees are the same: the depth-limited tree maps onto the
    # full one node for node (a leaf's twin is the full tree's node of that state)
    emap = subtree_entries(dl.tree, full.tree, 0)
    first_edge = int(dl.root_offs.max() + dl.root_lens[dl.root_offs.argmax()])
    assert (emap[first_edge:] >= 0).all() and first_edge < dl.tree.num_entries
    # terminals before the limit stay terminals (a refusal in trick 1)
    assert (t.kind == KIND_TERMINAL).any()
    assert len(full.leaves) == 0


def test_bad_tricks_refused(trick1):
    st, _, _ = trick1
    with pytest.raises(ValueError, match="tricks must be an integer of at least 1"):
        build_subgame(TINY, st, tricks=0)


@pytest.mark.parametrize("seat", [0, 1])
def test_blueprint_leaves_equal_the_full_subgame(trick1, seat):
    """With the blueprint as the only continuation, a depth-limited pass gives each root
    hand the value the full subgame gives it (blueprint everywhere), for every seat, and
    so does the opponent's best response (its one choice at the leaves)."""
    st, full, dl = trick1
    H = deal_tables(TINY)[0].shape[0]
    reach = np.random.default_rng(seat).random((2, H)) + 0.1
    sf = SubgameSolver(full, reach)
    sd = SubgameSolver(dl, reach, leaf_values=_leaf_data(TINY, dl, (("blueprint", 1.0),)))
    pf = bot_policy(full.tree, BOT, start=full.state)
    pd = bot_policy(dl.tree, BOT, start=dl.state)
    np.testing.assert_allclose(sd.root_values(seat, pd), sf.root_values(seat, pf),
                               rtol=0, atol=1e-12)
    assert abs(sd.value(seat, pd) - sf.value(seat, pf)) < 1e-12


def test_continuations_raise_the_opponents_best_response(trick1):
    """The opponent's best response at the leaves picks the best of the continuations:
    never below the blueprint's, and above it somewhere for a mixed blueprint (uniform
    play: ``counter``'s last-trick answers are pure, which a multiplier cannot move)."""
    st, _, dl = trick1
    H = deal_tables(TINY)[0].shape[0]
    reach = np.ones((2, H))
    bot = parse_bot("random")
    pd = bot_policy(dl.tree, bot, start=dl.state)
    opp = 1 - int(dl.tree.player[0])
    one = SubgameSolver(dl, reach, leaf_values=_leaf_data(TINY, dl, (("blueprint", 1.0),), bot))
    many = SubgameSolver(dl, reach, leaf_values=_leaf_data(TINY, dl, DEFAULT_BIASES, bot))
    b1 = one.root_values(opp, pd, best_response=True)
    bk = many.root_values(opp, pd, best_response=True)
    assert (bk >= b1 - 1e-12).all() and (bk > b1 + 1e-9).any()


def test_depth_limited_solve_runs_and_gadget_holds(trick1):
    st, _, dl = trick1
    H = deal_tables(TINY)[0].shape[0]
    pd = bot_policy(dl.tree, BOT, start=dl.state)
    s = SubgameSolver(dl, np.ones((2, H)), safe="maxmargin", blueprint=pd,
                      leaf_values=_leaf_data(TINY, dl, DEFAULT_BIASES))
    s.iterate(300)
    # the gadget's guarantee in the depth-limited game: no opponent hand gains more
    # than the solve's error against the blueprint's alternatives
    assert s.safety_margins().min() > -0.02


def test_leaf_values_required_and_checked(trick1):
    st, full, dl = trick1
    H = deal_tables(TINY)[0].shape[0]
    reach = np.ones((2, H))
    with pytest.raises(ValueError, match="needs leaf_values"):
        SubgameSolver(dl, reach)
    with pytest.raises(ValueError, match="without leaves"):
        SubgameSolver(full, reach, leaf_values=([], []))
    hands, values = _leaf_data(TINY, dl, (("blueprint", 1.0),))
    with pytest.raises(ValueError, match="leaves but"):
        SubgameSolver(dl, reach, leaf_values=(hands[:-1], values[:-1]))
    bad = [v[:, :-1] if v.shape[1] > 1 else v[:, :, :0] for v in values]
    with pytest.raises(ValueError, match="values of shape"):
        SubgameSolver(dl, reach, leaf_values=(hands, bad))


def test_search_exact_depth_limited_refuses_four_players():
    tree = build_public_tree(VitouParams(profile="vitou", ranks=2, copies=2, hand_size=1,
                                         dealer=0))
    with pytest.raises(ValueError, match="two players"):
        search_policy(tree, np.ones(tree.num_entries), tricks=1, safe="none")


def test_leaf_values_that_do_not_fit_are_refused(trick1):
    """Values of other leaves (out of order), not finite, or computed for the other
    searcher are refused in one line; a list of ContinuationValues is taken as is."""
    from vitou_ai.search.leaves import continuation_values

    st, _, dl = trick1
    H = deal_tables(TINY)[0].shape[0]
    reach = np.ones((2, H))
    searcher = int(dl.tree.player[0])
    cvs = [continuation_values(TINY, ls, BOT, searcher) for ls in dl.leaf_states]
    SubgameSolver(dl, reach, leaf_values=cvs).iterate(2)
    with pytest.raises(ValueError, match="other hands than its public state"):
        SubgameSolver(dl, reach, leaf_values=cvs[::-1])
    other = [continuation_values(TINY, ls, BOT, 1 - searcher) for ls in dl.leaf_states]
    with pytest.raises(ValueError, match="another searcher"):
        SubgameSolver(dl, reach, leaf_values=other)
    hands, values = [c.hands for c in cvs], [c.values.copy() for c in cvs]
    values[0][0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        SubgameSolver(dl, reach, leaf_values=(hands, values))


def test_search_exact_refuses_bad_depth_limited_arguments():
    """Bad ``tricks`` / ``biases`` are refused before any search (never taken for a
    fallback at each decision)."""
    tree = build_public_tree(TINY)
    bp = np.ones(tree.num_entries)
    for kw, msg in (({"tricks": 0}, "tricks must be an integer"),
                    ({"tricks": 2}, "tricks must be an integer"),
                    ({"tricks": 1.5}, "tricks must be an integer"),
                    ({"tricks": 1, "biases": [("nosuch", 1.0)]}, "unknown bias class"),
                    ({"tricks": 1, "biases": []}, "no continuation"),
                    ({"biases": DEFAULT_BIASES}, "for depth-limited search"),
                    ({"iterations": 0}, "iterations must be"),
                    ({"fallback": "x"}, "unknown fallback")):
        with pytest.raises(ValueError, match=msg):
            search_policy(tree, bp, **kw)
