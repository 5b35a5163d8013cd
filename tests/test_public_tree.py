"""Public-tree solving: the tree and its deal probabilities, range-vector CFR against the
flat tree, exact evaluation, a hand-solved toy, checkpoints and bad inputs
(Johanson et al. 2011, 2012; the flat solver is the reference)."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.cfr import CheckpointError, TabularCFR
from vitou_ai.solvers.flat.evaluate import expected_returns, exploitability, nash_conv
from vitou_ai.solvers.flat.tree import build_tree, enumerate_deals
from vitou_ai.solvers.public import kernels as PK
from vitou_ai.solvers.public.cfr import PublicCFR, best_response_value, entry_policy
from vitou_ai.solvers.public.cfr import expected_returns as p_returns
from vitou_ai.solvers.public.cfr import exploitability as p_exploitability
from vitou_ai.solvers.public.cfr import nash_conv as p_nash_conv
from vitou_ai.solvers.public.export import flat_slots, from_flat_policy, to_tabular_policy
from vitou_ai.solvers.public.tree import (
    KIND_TERMINAL,
    build_public_tree,
    enumerate_hands,
    hand_counts,
    joint_deal_probability,
    pair_deal_probabilities,
)

# small variants where the flat tree fits: both families, both dealer settings
AGREEMENT = [
    (VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=2), "cfr", 12),
    (VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, dealer=-1), "cfr+", 10),
    (VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, scores=(3, 7)), "dcfr", 20),
    (VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1), "cfr", 10),
    (VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=-1), "dcfr", 10),
    (VitouParams(profile="vitou_cason", ranks=4, copies=1, hand_size=1, scores=(11, 11)),
     "cfr+", 10),
    (VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, dealer=-1), "pcfr+", 10),
    (VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=-1), "pdcfr+", 10),
]

# one card each from T T 9 9, seat 0 deals and is at 11 of 12 (R9.3): seat 1 leads
# its one card after seat 0's go (no raise, no abandon); seat 0 alone decides.
TOY = VitouParams(profile="vitou_2p", ranks=2, copies=2, hand_size=1, scores=(11, 0))


@pytest.mark.parametrize("params, variant, iterations", AGREEMENT,
                         ids=["2p-cfr", "2p-drawn-cfr+", "2p-3:7-dcfr", "4p-cfr", "4p-drawn-dcfr",
                              "cason-r6.2-cfr+", "2p-drawn-pcfr+", "4p-drawn-pdcfr+"])
def test_public_tree_agrees_with_flat_tree(params, variant, iterations):
    pt, ft = build_public_tree(params), build_tree(params)
    ps, fs = PublicCFR(pt, variant), TabularCFR(ft, variant)
    ps.iterate(iterations)
    fs.iterate(iterations)
    pa, fa = ps.average_policy(), fs.average_policy()
    rows, slots = flat_slots(pt, ft)
    ok = rows >= 0
    # every flat information set is one (public node, hand) pair, every action an entry
    assert len(set(rows[ok])) == ft.num_infosets
    assert ok.sum() == ft.legal_mask().sum()
    np.testing.assert_allclose(pa[ok], fa[rows[ok], slots[ok]], rtol=0, atol=1e-9)
    np.testing.assert_allclose(p_returns(pt, pa), expected_returns(ft, fa), rtol=0, atol=1e-9)
    assert ps.nash_conv() == pytest.approx(nash_conv(ft, fa), abs=1e-9)
    assert p_exploitability(pt, pa) == pytest.approx(exploitability(ft, fa), abs=1e-9)


def test_evaluation_of_any_flat_policy_agrees():
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2)
    pt, ft = build_public_tree(params), build_tree(params)
    rng = np.random.default_rng(7)
    fp = rng.random((ft.num_infosets, 5)) * ft.legal_mask()
    fp /= fp.sum(1, keepdims=True)
    pp = from_flat_policy(pt, ft, fp)
    np.testing.assert_allclose(p_returns(pt, pp), expected_returns(ft, fp), atol=1e-12)
    assert p_nash_conv(pt, pp) == pytest.approx(nash_conv(ft, fp), abs=1e-12)


def test_toy_values_worked_by_hand():
    """P(T T) = P(9 9) = 2/4 * 1/3 = 1/6, P(T 9) = P(9 T) = 2/4 * 2/3 = 1/3. Seat 0 at
    11 of 12 chooses go or decline (R9.3): decline gives seat 1 one point (-1);
    go and win scores 1 (R9.3), go and lose gives seat 1 three (-3), a tie voids
    the deal (0). Holding T: go = 1/3 * 0 + 2/3 * 1 = 2/3 > -1; holding 9:
    go = 2/3 * -3 + 1/3 * 0 = -2 < -1. Equilibrium value of seat 0:
    1/2 * 2/3 + 1/2 * -1 = -1/6. Uniform: 1/2 (1/2 * 2/3 - 1/2) + 1/2 (1/2 * -2 - 1/2)
    = -5/6; seat 0's best response gains 2/3, seat 1 has no choice: NashConv 2/3."""
    hands = enumerate_hands(TOY)
    np.testing.assert_allclose(pair_deal_probabilities(TOY, hands),
                               [[1 / 6, 1 / 3], [1 / 3, 1 / 6]], atol=1e-15)
    pt = build_public_tree(TOY)
    uniform = entry_policy(pt, np.zeros(pt.num_entries))
    assert p_returns(pt, uniform)[0] == pytest.approx(-5 / 6, abs=1e-12)
    assert p_nash_conv(pt, uniform) == pytest.approx(2 / 3, abs=1e-12)
    assert best_response_value(pt, uniform, 0) == pytest.approx(-1 / 6, abs=1e-12)
    solver = PublicCFR(pt, "dcfr")
    solver.iterate(300)
    assert solver.expected_returns()[0] == pytest.approx(-1 / 6, abs=1e-3)
    assert solver.exploitability() < 1e-3


@pytest.mark.parametrize("params", [VitouParams(profile="vitou_2p"),
                                    VitouParams(profile="vitou", ranks=4, copies=3,
                                                hand_size=2)], ids=["2p-full", "4p"])
def test_joint_deal_probabilities_match_the_flat_merged_deal(params):
    hands = enumerate_hands(params)
    counts = hand_counts(params, hands)
    index = {tuple(h): i for i, h in enumerate(hands)}
    deals, probs = enumerate_deals(params)
    sample = range(0, len(probs), max(1, len(probs) // 3000))
    for d in sample:
        mine = joint_deal_probability(params, [counts[index[tuple(h)]] for h in deals[d]])
        assert float(mine) == pytest.approx(probs[d], rel=1e-12)
    if params.players == 2:
        pair = pair_deal_probabilities(params, hands)
        assert pair.sum() == pytest.approx(1.0, abs=1e-12)
        assert (pair > 0).sum() == len(probs)


def test_frontier_split_changes_only_rounding():
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2)
    pt = build_public_tree(params)
    # (a small tree walks in one thread by default: the frontier is asked for here)
    a, b = PublicCFR(pt, "dcfr", frontier_size=0), PublicCFR(pt, "dcfr", frontier_size=128)
    a.iterate(5)
    b.iterate(5)
    # the frontier's values join the top in another order: rounding only
    np.testing.assert_allclose(a.regrets, b.regrets, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.cum_policy, b.cum_policy, rtol=0, atol=1e-12)


def test_forced_decisions_are_skipped_exactly():
    """Decisions where no hand has two legal actions (the last card's play) skip
    regret matching and the update: the same average policy and values as walking
    them like any decision."""
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2)
    pt = build_public_tree(params)
    a, b = PublicCFR(pt, "dcfr"), PublicCFR(pt, "dcfr")
    forced = a.passes.forced
    dec = np.nonzero(pt.kind == 1)[0]
    assert 0 < forced[dec].sum() < len(dec)
    for node in dec[:2000]:
        f, m = pt.first[node], pt.nchild[node]
        e0, e1 = pt.actor_off[f], pt.actor_off[f + m - 1] + pt.actor_len[f + m - 1]
        slots = pt.parent_slot[e0:e1]
        assert bool(forced[node]) == (len(set(slots.tolist())) == len(slots))
        last = forced[node] and all(pt.kind[f + k] == KIND_TERMINAL for k in range(m))
        assert (forced[node] == PK.FORCED_LAST) == last
    assert (forced == PK.FORCED_LAST).any()
    b.passes.forced[:] = 0
    a.iterate(20)
    b.iterate(20)
    np.testing.assert_allclose(a.average_policy(), b.average_policy(), rtol=0, atol=1e-12)
    assert a.exploitability() == pytest.approx(b.exploitability(), abs=1e-12)


@pytest.mark.parametrize("threads_frontier", [0, 128])
def test_last_cards_valued_inline_exactly(threads_frontier):
    """With two seats a last card played into terminals only is valued by its parent's
    frame (no frame of its own): the same iterates, best responses and visit counts
    as walking it, in one thread and over the frontier."""
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=3)
    pt = build_public_tree(params)
    a = PublicCFR(pt, "dcfr", frontier_size=threads_frontier)
    b = PublicCFR(pt, "dcfr", frontier_size=threads_frontier)
    assert (a.passes.forced == PK.FORCED_LAST).sum() > 100
    b.passes.forced[b.passes.forced == PK.FORCED_LAST] = PK.FORCED
    a.iterate(20)
    b.iterate(20)
    assert a.nodes_touched == b.nodes_touched
    np.testing.assert_allclose(a.regrets, b.regrets, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.cum_policy, b.cum_policy, rtol=0, atol=1e-12)
    for p in (0, 1):
        assert a.best_response_value(p) == pytest.approx(b.best_response_value(p), abs=1e-13)
    pa, pb = np.zeros(pt.num_entries), np.zeros(pt.num_entries)
    for s, out in ((a, pa), (b, pb)):
        s.passes.run(0, PK.POLICY_AVERAGE, PK.UPDATE_BR_POLICY, out, s.cum_policy, s._empty)
    np.testing.assert_array_equal(pa, pb)


def test_both_layouts_are_the_same_tree():
    """The walk-order layout renumbers nodes and entries only: same sizes, same
    iterates (compared through the flat tree's information sets), same values."""
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2)
    a, b = build_public_tree(params), build_public_tree(params, layout="expansion")
    assert (a.num_nodes, a.num_entries) == (b.num_nodes, b.num_entries)
    assert not np.array_equal(a.first, b.first)
    ft = build_tree(params)
    sa, sb = PublicCFR(a, "dcfr"), PublicCFR(b, "dcfr")
    sa.iterate(15)
    sb.iterate(15)
    (ra, la), (rb, lb) = flat_slots(a, ft), flat_slots(b, ft)
    fa, fb = np.full(ft.legal_mask().shape, np.nan), np.full(ft.legal_mask().shape, np.nan)
    fa[ra[ra >= 0], la[ra >= 0]] = sa.average_policy()[ra >= 0]
    fb[rb[rb >= 0], lb[rb >= 0]] = sb.average_policy()[rb >= 0]
    np.testing.assert_allclose(fa, fb, rtol=0, atol=1e-12)
    assert sa.exploitability() == pytest.approx(sb.exploitability(), abs=1e-12)
    with pytest.raises(ValueError, match="unknown public tree layout"):
        build_public_tree(params, layout="bfs")


def test_checkpoint_round_trip_and_bad_checkpoints(tmp_path):
    params = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=2)
    pt = build_public_tree(params)
    straight = PublicCFR(pt, "dcfr")
    straight.iterate(12)
    first = PublicCFR(pt, "dcfr")
    first.iterate(7)
    first.save(tmp_path / "c.npz")
    resumed = PublicCFR(pt, "dcfr")
    resumed.load(tmp_path / "c.npz")
    resumed.iterate(5)
    assert resumed.iteration == 12
    np.testing.assert_array_equal(resumed.average_policy(), straight.average_policy())
    with pytest.raises(CheckpointError, match="variant"):
        PublicCFR(pt, "cfr").load(tmp_path / "c.npz")
    other = build_public_tree(params.replace(scores=(2, 0)))
    with pytest.raises(CheckpointError, match="params|tree"):
        PublicCFR(other, "dcfr").load(tmp_path / "c.npz")
    flat = TabularCFR(build_tree(params), "dcfr")
    flat.save(tmp_path / "flat.npz")
    with pytest.raises(CheckpointError, match="format"):
        PublicCFR(pt, "dcfr").load(tmp_path / "flat.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        PublicCFR(pt, "dcfr").load(tmp_path / "bad.npz")


def test_bad_inputs_give_one_line_errors():
    with pytest.raises(ValueError, match="unknown CFR variant"):
        PublicCFR(VitouParams(profile="vitou_2p", ranks=2, copies=2, hand_size=1), "cfr++")
    with pytest.raises(ValueError, match="signals"):
        build_public_tree(VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1,
                                      signals=True))
    with pytest.raises(ValueError, match="R6.1"):
        build_public_tree(VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1,
                                      scores=(20, 3)))
    with pytest.raises(ValueError, match="deal mode"):
        build_public_tree(VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1,
                                      mode="match"))
    with pytest.raises(ValueError, match="unknown profile"):
        VitouParams(profile="vitou_3p")
    pt = build_public_tree(TOY)
    with pytest.raises(ValueError, match="policy shape"):
        p_exploitability(pt, np.zeros(3))


def test_export_to_tabular_policy_plays_the_average_policy(tmp_path):
    params = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=2)
    pt, ft = build_public_tree(params), build_tree(params)
    s = PublicCFR(pt, "dcfr")
    s.iterate(20)
    avg = s.average_policy()
    to_tabular_policy(pt, avg).save(tmp_path / "policy.npz")
    from vitou_ai.bots.tabular import TabularPolicy

    bot = TabularPolicy.load(tmp_path / "policy.npz")
    rows, slots = flat_slots(pt, ft)
    for e in np.nonzero(rows >= 0)[0]:
        r = rows[e]
        got = bot.probs[bot.row(ft.is_keys[r])][ft.is_actions[r, slots[e]]]
        assert got == pytest.approx(avg[e], abs=1e-6)
