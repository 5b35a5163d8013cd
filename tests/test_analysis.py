"""Bluff analysis (vitou_ai.eval.analysis): reach-weighted tables with checkable values."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai.eval import analysis as A
from vitou_ai.rules import VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.rules.params import game_name
from vitou_ai.solvers.flat.cfr import TabularCFR
from vitou_ai.solvers.flat.evaluate import uniform_policy
from vitou_ai.solvers.flat.tree import build_tree

TINY_2P = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1)


def test_reach_and_chances_are_probabilities():
    tree = build_tree(TINY_2P)
    df = A.infoset_table(tree, uniform_policy(tree))
    assert ((df.p_win >= 0) & (df.p_win + df.p_lose <= 1 + 1e-12)).all()
    # the non-dealer's blind-window decision happens in every deal
    first = df[(df.best_card == "-") & (df.position == 0) & (df.trick == 1)]
    assert first.reach.max() == pytest.approx(1.0)
    # uniform play: raise probability at an infoset is 1 / number of legal actions
    r = df[df.can_raise]
    assert ((r["raise"] > 0) & (r["raise"] <= 0.5)).all()


def test_never_raising_policy_has_no_raises_or_bluffs():
    tree = build_tree(TINY_2P)
    pol = uniform_policy(tree)
    for i in range(tree.num_infosets):
        acts = list(tree.is_actions[i, :tree.is_nact[i]])
        if L.A_RAISE in acts and len(acts) > 1:
            k = acts.index(L.A_RAISE)
            pol[i, k] = 0.0
            pol[i, :len(acts)] /= pol[i, :len(acts)].sum()
    df = A.infoset_table(tree, pol)
    assert A.raise_frequencies(df)["raise"].max() == 0
    assert A.bluff_frequency(df).empty or A.bluff_frequency(df)["raises"].sum() == 0


def test_solved_policy_tables_and_plot(tmp_path):
    tree = build_tree(VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2))
    s = TabularCFR(tree, "dcfr")
    s.iterate(200)
    df = A.infoset_table(tree, s.average_policy())
    b = A.bluff_frequency(df)
    assert ((b.bluff_share >= 0) & (b.bluff_share <= 1)).all()
    rr = A.refusal_rates(df)
    assert ((rr.refuse >= 0) & (rr.refuse <= 1)).all()
    fig = A.plot_summary(df, "test")
    fig.savefig(tmp_path / "x.png")
    assert (tmp_path / "x.png").stat().st_size > 1000


def test_false_gestures_counted_against_the_hand():
    """A policy that always signals 'ten' lies exactly when it holds no T."""
    params = VitouParams(profile="vitou", ranks=2, copies=2, hand_size=1, signals=True)
    tree = build_tree(params)
    pol = uniform_policy(tree)
    for i in range(tree.num_infosets):
        acts = list(tree.is_actions[i, :tree.is_nact[i]])
        if L.A_SIGNAL0 + 1 in acts:
            pol[i, :] = 0.0
            pol[i, acts.index(L.A_SIGNAL0 + 1)] = 1.0
    df = A.infoset_table(tree, pol)
    rate = A.false_gesture_rate(df)
    # the first gesturer holds one card of T T 9 9: no T with probability 1/2
    assert rate.loc[0, "false_share"] == pytest.approx(0.5, abs=1e-9)


def test_policy_from_tabular_round_trip(tmp_path):
    from vitou_ai.bots.tabular import TabularPolicy

    tree = build_tree(TINY_2P)
    s = TabularCFR(tree, "cfr+")
    s.iterate(50)
    pol = s.average_policy()
    probs = np.zeros((tree.num_infosets, L.NUM_ACTIONS), np.float32)
    for i in range(tree.num_infosets):
        for k in range(tree.is_nact[i]):
            probs[i, tree.is_actions[i, k]] = pol[i, k]
    TabularPolicy(tree.is_keys, probs).save(tmp_path / "p.npz")
    back = A.policy_from_tabular(tree, TabularPolicy.load(tmp_path / "p.npz"))
    np.testing.assert_allclose(back, pol, atol=1e-6)


def test_score_sweep_no_raises_one_from_end():
    out = A.score_sweep(TINY_2P, [(0, 0), (11, 3)], iterations=50)
    assert out.loc[1, "raise_rate"] == 0.0  # R4.2d / R9.3
    assert out.loc[0, "raise_rate"] > 0.0


def _hatched(ax) -> int:
    return sum(1 for p in ax.patches if p.get_hatch())


def test_frequency_tables_carry_their_base_and_plots_mark_thin_rows():
    """A frequency is shown with the reach behind it (a bluff share
    of 0.38 at stake 6 rested on reach 0.001), and plots hatch rows below a threshold."""
    tree = build_tree(VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2))
    s = TabularCFR(tree, "dcfr")
    s.iterate(100)
    df = A.infoset_table(tree, s.average_policy())
    live = df[df.reach > 0]
    rf = A.raise_frequencies(df)
    bl = A.bluff_frequency(df)
    rr = A.refusal_rates(df)
    by_stake = A.raise_frequencies(df, ["stake"])
    for table, base in ((rf, "reach"), (bl, "raises"), (rr, "reach"), (by_stake, "reach")):
        assert {base, "reach", "infosets"} <= set(table.columns)
        assert (table[base] >= 0).all() and (table["infosets"] >= 1).all()
    # the bases are the sums of what the rows rest on
    can = live[live.can_raise]
    assert rf["reach"].sum() == pytest.approx(can.reach.sum())
    assert rf["infosets"].sum() == len(can)
    assert bl["raises"].sum() == pytest.approx((can.reach * can["raise"]).sum())
    assert rr["reach"].sum() == pytest.approx(live[live.answering].reach.sum())
    # a raise can only be answered as often as it is made (R4.3): raises at stake s
    # are the answers at the next stake
    raises_by_stake = bl["raises"].to_numpy()
    assert rr["reach"].to_numpy() == pytest.approx(raises_by_stake[:len(rr)], rel=1e-9)
    # thin rows are hatched: as many hatched bars as rows below min_reach
    for min_reach in (0.0, 0.01, 0.2, 10.0):
        fig = A.plot_summary(df, "t", min_reach=min_reach)
        ax_raise, ax_bluff, ax_refuse = fig.axes[:3]
        assert _hatched(ax_raise) == int((rf["reach"] < min_reach).sum())
        assert _hatched(ax_bluff) == int((bl["raises"] < min_reach).sum())
        assert _hatched(ax_refuse) == int((rr["reach"] < min_reach).sum())
    assert 0 < int((bl["raises"] < 0.2).sum()) < len(bl)  # the case is exercised
    with pytest.raises(ValueError, match="min_reach"):
        A.plot_summary(df, min_reach=-1)


def test_score_sweep_rates_carry_their_base():
    out = A.score_sweep(TINY_2P, [(0, 0)], iterations=50)
    row = out.iloc[0]
    assert row["raise_reach"] > 0 and row["answer_reach"] > 0 and row["raises"] > 0
    # the raises are the raise rate times the decisions where a raise was allowed
    assert row["raises"] == pytest.approx(row["raise_rate"] * row["raise_reach"])


def test_plot_summary_on_a_four_player_one_trick_game():
    """Found by a new user: a four-player run with one card each (a single trick
    in the raise table) made plot_summary fail with a KeyError."""
    tree = build_tree(VitouParams(profile="vitou", ranks=4, copies=2, hand_size=1))
    df = A.infoset_table(tree, uniform_policy(tree))
    fig = A.plot_summary(df, "four players")
    bars = fig.axes[0].patches
    assert len(bars) == len(A.raise_frequencies(df)) > 0


@pytest.mark.parametrize("profile, per_trick", [
    ("put_partnership", 2), ("vitou", 4), ("trut", 4), ("vitou_2p", 2), ("put", 2)])
def test_trick_counts_the_cards_of_a_trick(profile, per_trick):
    """Found by a new user: partnership Put's tricks have two cards (the active players',
    P6.4), but every decision was labelled trick 1 (cards played / four players)."""
    tree = build_tree(VitouParams(profile=profile, ranks=2, copies=4, hand_size=2, dealer=0))
    df = A.infoset_table(tree, uniform_policy(tree))
    plays = []
    for key in tree.is_keys:
        toks = key[L.K_TOK:L.K_TOK + int(key[L.K_NTOK])]
        plays.append(sum(1 for t in toks if A._is_card(int(t))))
    plays = np.array(plays)
    assert (df["trick"].to_numpy() == plays // per_trick + 1).all()
    assert set(df["trick"]) == {1, 2}
    if profile == "put_partnership":
        assert (df["trick"][(plays >= 2) & (plays <= 3)] == 2).all()
        assert ((plays >= 2) & (plays <= 3)).any()


# ---- the tree and the policy are of one game ----------------------------------------------

SMALL_2P = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=1)


@pytest.fixture(scope="module")
def solved_small():
    """(tree, TabularPolicy recording its game) of a CFR+ solve of vitou_2p 4x2x1."""
    from vitou_ai.solvers.protocol import make_solver

    tree = build_tree(SMALL_2P)
    s = make_solver("cfr+", SMALL_2P, tree=tree)
    s.iterate(100)
    return tree, s.tabular_policy("cfr+100")


def _one_line(info) -> str:
    msg = str(info.value)
    assert "\n" not in msg, msg
    return msg


@pytest.mark.parametrize("other", [dict(ranks=5), dict(profile="put"),
                                   dict(profile="truc_catalan_2p"), dict(hand_size=2)])
def test_policy_from_tabular_refuses_a_policy_of_another_game(solved_small, other):
    """A 4x2x1 vitou_2p table on a 5-rank tree matched 1,036 of its 1,543 information
    sets by key and gave an exploitability of 0.602 (0.911 on a put tree), a number of
    no game; the bluff tables were built from it."""
    tree, tab = solved_small
    game = SMALL_2P.replace(**other) if "profile" not in other else VitouParams(
        **{"ranks": 4, "copies": 2, "hand_size": 1, **other})
    with pytest.raises(ValueError, match="another game") as info:
        A.policy_from_tabular(build_tree(game), tab)
    msg = _one_line(info)
    assert "vitou_2p" in msg and game_name(game) in msg, msg
    with pytest.raises(ValueError, match="another game"):
        A.tabular_coverage(build_tree(game), tab)


def test_a_table_without_its_game_is_checked_by_its_coverage(solved_small):
    """A table recording no game: the share of its decisions that would be uniform play
    decides (the same table on another deck, or at another score: no row there)."""
    from vitou_ai.bots.tabular import TabularPolicy

    tree, tab = solved_small
    bare = TabularPolicy(tab.keys, tab.probs, name="bare")
    assert A.tabular_coverage(tree, bare) == {"infosets": tree.num_infosets, "missing": 0,
                                              "fallback_share": 0.0}
    np.testing.assert_array_equal(A.policy_from_tabular(tree, bare),
                                  A.policy_from_tabular(tree, tab))
    for game, words in ((SMALL_2P.replace(ranks=5), "no row for 507 of the 1,543"),
                        (SMALL_2P.replace(scores=(2, 1)), "no row for 1,036 of the 1,036")):
        other = build_tree(game)
        with pytest.raises(ValueError, match="no row for") as info:
            A.policy_from_tabular(other, bare)
        msg = _one_line(info)
        assert words in msg and game_name(game) in msg and "no game recorded" in msg, msg
        c = A.tabular_coverage(other, bare)
        assert c["fallback_share"] > A.MAX_FALLBACK
        # told to allow it, it is laid out (uniform where the table has no row)
        assert A.policy_from_tabular(other, bare, max_fallback=1.0).shape == (
            other.num_infosets, other.is_actions.shape[1])
    put = VitouParams(profile="put", ranks=4, copies=2, hand_size=1)
    with pytest.raises(ValueError, match="has 22 action ids, the tree") as info:
        A.policy_from_tabular(build_tree(put), bare)  # Put's low ranks: ids Vitou has not
    assert game_name(put) in _one_line(info)
    at_21 = A.tabular_coverage(build_tree(SMALL_2P.replace(scores=(2, 1))), bare)
    assert at_21["fallback_share"] == 1.0
    with pytest.raises(ValueError, match="max_fallback must be in"):
        A.policy_from_tabular(tree, bare, max_fallback=2)


def test_a_sampled_table_that_misses_only_unplayed_sets_is_taken():
    """External-sampling MCCFR leaves the sets behind its opponents' never-played actions
    unvisited: many sets, none of the policy's own decisions; not refused."""
    from vitou_ai.solvers.protocol import make_solver

    tree = build_tree(SMALL_2P)
    m = make_solver("es-mccfr", SMALL_2P, seed=1)
    m.iterate(1000)
    tab = m.tabular_policy("es")
    c = A.tabular_coverage(tree, tab)
    assert c["missing"] > 0 and c["fallback_share"] <= A.MAX_FALLBACK, c
    A.policy_from_tabular(tree, tab)


def test_infoset_table_refuses_a_policy_of_another_tree(solved_small):
    """``infoset_table(other_tree, policy)`` gave a bare IndexError on a larger tree and,
    on a smaller one, a table read from the other tree's rows without a word."""
    tree, _ = solved_small
    pol = A.policy_from_tabular(*solved_small)
    A.infoset_table(tree, pol)
    for game in (SMALL_2P.replace(ranks=5), SMALL_2P.replace(ranks=3)):
        with pytest.raises(ValueError, match="another game's tree") as info:
            A.infoset_table(build_tree(game), pol)
        assert game_name(game) in _one_line(info)
    bad = pol.copy()
    bad[3] *= 2.0  # an unnormalised row
    with pytest.raises(ValueError, match="1 of 1036 rows") as info:
        A.infoset_table(tree, bad)
    _one_line(info)
    with pytest.raises(ValueError, match="finite and non-negative"):
        A.infoset_table(tree, np.full_like(pol, np.nan))


def test_a_bot_laid_on_a_tree_of_another_profile_is_refused(solved_small):
    """``flat_bot_policy`` compared only the knobs, the differences from each profile's
    defaults: a vitou_2p 4x2x1 table passed on a truc_catalan_2p 4x2x1 tree."""
    from vitou_ai.solvers.public.export import flat_bot_policy

    _, tab = solved_small
    truc = VitouParams(profile="truc_catalan_2p", ranks=4, copies=2, hand_size=1)
    assert truc.knobs() == SMALL_2P.knobs()
    with pytest.raises(ValueError, match="other game parameters") as info:
        flat_bot_policy(build_tree(truc), tab)
    msg = _one_line(info)
    assert "truc_catalan_2p" in msg and "vitou_2p" in msg, msg
