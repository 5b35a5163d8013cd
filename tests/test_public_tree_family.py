"""The public tree on the Truc / Put family (docs/RULES_family.md): exact values against the
flat tree (the reference) to 1e-9 on small variants of every profile it takes, the wide
hand indices (``uint16``, Put's 455 hands) equal to the narrow ones, and its one-line
refusals, each naming its rule."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.cfr import TabularCFR
from vitou_ai.solvers.flat.evaluate import best_response, expected_returns, exploitability
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.protocol import make_solver
from vitou_ai.solvers.public import tree as PTree
from vitou_ai.solvers.public.cfr import PublicCFR, best_response_value
from vitou_ai.solvers.public.cfr import expected_returns as p_returns
from vitou_ai.solvers.public.export import flat_slots, from_flat_policy
from vitou_ai.solvers.public.tree import (
    build_public_tree,
    check_public_params,
    count_public_tree,
    entry_dtype,
    enumerate_hands,
)

# small variants where the flat tree fits: two and four players, drawn dealer, three-card
# hands, one point from the end (C5.1 for one side, C5.3 for both), the Vitou regression.
# (Iterates are compared after a few iterations only: on any game, Vitou's too, the two
# trees' rounding differences grow about tenfold every few DCFR iterations near ties, so
# after ~50 iterations the two runs are different, equally valid, CFR runs.)
SMALL = [
    VitouParams(profile="truc_catalan_2p", ranks=4, copies=2, hand_size=2),
    VitouParams(profile="truc_catalan_2p", ranks=4, copies=2, hand_size=2, dealer=-1),
    VitouParams(profile="truc_catalan_2p", ranks=4, copies=2, hand_size=2, scores=(11, 3)),
    VitouParams(profile="put", ranks=4, copies=2, hand_size=2),
    VitouParams(profile="put", ranks=5, copies=1, hand_size=2, scores=(4, 2)),
    VitouParams(profile="put", ranks=4, copies=2, hand_size=3, dealer=1),
    VitouParams(profile="truc_catalan_2p", ranks=4, copies=2, hand_size=3, dealer=1),
    VitouParams(profile="truc_catalan", ranks=3, copies=2, hand_size=1),
    VitouParams(profile="truc_catalan", ranks=3, copies=2, hand_size=1, scores=(11, 0)),
    VitouParams(profile="truc_catalan", ranks=3, copies=2, hand_size=1, scores=(11, 11)),
    VitouParams(profile="trut", ranks=3, copies=2, hand_size=1),
    VitouParams(profile="trut", ranks=3, copies=2, hand_size=1, dealer=-1, scores=(2, 1)),
    VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2),
]
IDS = ["catalan2p", "catalan2p-drawn", "catalan2p-c5.1", "put", "put-4:2", "put-3cards",
       "catalan2p-3cards", "catalan4p",
       "catalan4p-c5.1", "catalan4p-c5.3", "trut", "trut-drawn-2:1", "vitou2p"]
ATOL = 1e-9


def _random_flat_policy(ft, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    fp = rng.random(ft.is_actions.shape) * ft.legal_mask()
    return fp / fp.sum(1, keepdims=True)


@pytest.mark.parametrize("params", SMALL, ids=IDS)
def test_public_tree_matches_flat_tree(params):
    """Same information sets; a fixed policy's game value and every seat's best-response
    value; the average policy and the exploitability after 8 CFR+ iterations from zero."""
    pt, ft = build_public_tree(params), build_tree(params)
    rows, slots = flat_slots(pt, ft)
    ok = rows >= 0
    assert len(set(rows[ok])) == ft.num_infosets
    assert ok.sum() == ft.legal_mask().sum()
    fp = _random_flat_policy(ft, seed=11)
    pp = from_flat_policy(pt, ft, fp)
    np.testing.assert_allclose(p_returns(pt, pp), expected_returns(ft, fp), rtol=0, atol=ATOL)
    for seat in range(params.players):
        assert best_response_value(pt, pp, seat) == pytest.approx(
            best_response(ft, fp, seat)[0], abs=ATOL)
    ps, fs = PublicCFR(pt, "cfr+"), TabularCFR(ft, "cfr+")
    ps.iterate(8)
    fs.iterate(8)
    pa, fa = ps.average_policy(), fs.average_policy()
    np.testing.assert_allclose(pa[ok], fa[rows[ok], slots[ok]], rtol=0, atol=ATOL)
    assert ps.exploitability() == pytest.approx(exploitability(ft, fa), abs=ATOL)


@pytest.mark.parametrize("params", [SMALL[3], SMALL[7]], ids=["put", "catalan4p"])
def test_the_solver_interface_takes_the_family(params):
    """``make_solver("public-cfr+")``: its exact evaluation equals the flat solver's
    (two players: exploitability and value; four: NashConv and the team gains), and its
    policy exports (31 action ids)."""
    ft = build_tree(params)
    s = make_solver("public-cfr+", params, build_public_tree(params))
    f = make_solver("cfr+", params, ft)
    s.iterate(4)
    f.iterate(4)
    ev, fev = s.exact_evaluation(), f.exact_evaluation()
    for k in ("exploitability", "game_value", "nash_conv", "team0_br_gain", "team1_br_gain"):
        if k in fev:
            assert ev[k] == pytest.approx(fev[k], abs=ATOL), k
    pol = s.tabular_policy("p")
    assert pol.probs.shape[1] == params.num_actions == 31


def test_wide_hand_indices_give_the_same_tree_and_values(monkeypatch):
    """Put's full deck has 455 hands (P1.1), past ``uint8``: the ``uint16`` tables are the
    same tree and the same iterates (forced here on a small deck)."""
    full = VitouParams(profile="put")
    assert enumerate_hands(full).shape[0] == 455 and entry_dtype(455) == np.uint16
    assert entry_dtype(255) == np.uint8
    params = VitouParams(profile="put", ranks=4, copies=2, hand_size=2)
    narrow = build_public_tree(params)
    monkeypatch.setattr(PTree, "entry_dtype", lambda h: np.uint16)
    wide = build_public_tree(params)
    assert wide.entries.dtype == np.uint16 and narrow.entries.dtype == np.uint8
    np.testing.assert_array_equal(wide.entries, narrow.entries)
    np.testing.assert_array_equal(wide.parent_slot, narrow.parent_slot)
    a, b = PublicCFR(narrow, "dcfr"), PublicCFR(wide, "dcfr")
    a.iterate(5)
    b.iterate(5)
    np.testing.assert_array_equal(a.cum_policy, b.cum_policy)
    assert a.exploitability() == b.exploitability()
    c = count_public_tree(params)
    assert (c.nodes, c.entries) == (narrow.num_nodes, narrow.num_entries)


@pytest.mark.parametrize("params, rule", [
    (VitouParams(profile="truc_1912", ranks=3, copies=4, hand_size=1), "F2.3"),
    (VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, scores=(20, 0)), "R6.1"),
    (VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, signals=True), "R7.2"),
    (VitouParams(profile="put", ranks=4, copies=2, hand_size=2, mode="match"), "R8.1"),
], ids=["truc_1912", "vitou-r6.1", "signals", "match"])
def test_each_refusal_is_one_line_naming_its_rule(params, rule):
    for fn in (check_public_params, build_public_tree, count_public_tree):
        with pytest.raises(ValueError) as e:
            fn(params)
        msg = str(e.value)
        assert rule in msg and "\n" not in msg


@pytest.mark.parametrize("profile, ranks", [("put", 5), ("truc_catalan_2p", 4)])
def test_solve_family_rates_on_the_public_tree_equal_the_flat_ones(profile, ranks):
    """``experiments/solve_family.py``'s rate table (reach and action frequencies by
    situation and best card) from the public tree equals the flat tree's, for one policy."""
    from tests.helpers import experiment

    sf = experiment("solve_family.py")
    params = VitouParams(profile=profile, ranks=ranks, dealer=1)
    ft, pt = build_tree(params), build_public_tree(params)
    fs = TabularCFR(ft, "dcfr")
    fs.iterate(20)
    fa = fs.average_policy()
    a = sf.rate_table(ft, fa, params.rank_labels, params.dealer)
    b = sf.public_rate_table(pt, from_flat_policy(pt, ft, fa), params.rank_labels, params.dealer)
    assert len(a) == len(b) > 10
    for x, y in zip(a, b, strict=True):
        assert x.keys() == y.keys() and (x["situation"], x["best_card"]) == (
            y["situation"], y["best_card"])
        for k, v in x.items():
            if isinstance(v, float):
                assert y[k] == pytest.approx(v, abs=ATOL), (x["situation"], k)


def test_public_export_strings_are_the_flat_trees_in_a_deck_of_more_than_8_ranks():
    """The public tree's OpenSpiel export wrote the information-state strings without
    the deck's rank labels: a Put rank of index 8 or more raised IndexError or gave a
    string the observer never makes. Now it holds the flat tree's (which the
    OpenSpiel tests check against the observer)."""
    from vitou_ai.solvers.flat import export
    from vitou_ai.solvers.flat.tree import build_tree
    from vitou_ai.solvers.public import export as public_export
    from vitou_ai.solvers.public.cfr import entry_policy
    from vitou_ai.solvers.public.tree import build_public_tree

    params = VitouParams(profile="put", ranks=10, copies=1, hand_size=1, dealer=-1)
    public = build_public_tree(params)
    pub = public_export.to_openspiel_dict(public, entry_policy(public,
                                                               np.zeros(public.num_entries)))
    flat = build_tree(params)
    flat_keys = set(export.infostate_strings(flat))
    # the public tree also lists hands that card removal makes impossible (reach 0)
    assert flat_keys <= set(pub) and any("hand 7" in k for k in flat_keys)
