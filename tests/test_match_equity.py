"""Match-equity table of vitou_2p (vitou_ai.match_equity.two_player): the fixed point of scoreless
deals on a toy game with a known answer, the recursion's boundary (equity 1 at the
target), seat symmetry, both solvers through one terminal-utility hook, bad input."""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from vitou_ai.match_equity import two_player as M
from vitou_ai.rules.params import VitouParams
from vitou_ai.solvers.flat.tree import MAX_INFOSET_ACTIONS, GameTree

SMALL = dict(ranks=4, copies=2, hand_size=1)


def toy_tree(player: int, p_win: float, p_lose: float) -> GameTree:
    """``player`` chooses `stop` (a terminal) or `redeal` (a chance node: seat 0 wins the
    match, loses it, or nothing is scored and the partner game starts). Terminals in
    node order: stop (1), win (3), lose (4), nothing (5)."""
    kind = np.array([1, 2, 0, 2, 2, 2], np.int8)
    first = np.array([1, 0, 3, 0, 0, 0], np.int64)
    nchild = np.array([2, 0, 3, 0, 0, 0], np.int32)
    prob = np.array([1, 1, 1, p_win, p_lose, 1 - p_win - p_lose])
    actions = np.zeros((1, MAX_INFOSET_ACTIONS), np.int8)
    actions[0, :2] = (11, 12)
    return GameTree(
        params=VitouParams(profile="vitou_2p"), kind=kind,
        player=np.array([player, -4, -1, -4, -4, -4], np.int8),
        infoset=np.array([0, -1, -1, -1, -1, -1], np.int32), first=first, nchild=nchild,
        prob=prob, util=np.zeros(6), is_player=np.array([player], np.int8),
        is_nact=np.array([2], np.int8), is_actions=actions, is_depth=np.zeros(1, np.int16),
        is_keys=np.zeros((1, 47), np.int8))


def test_fixed_point_toy_game_known_answer():
    # Game 0: seat 0 stops at equity 1/2 or redeals (win .4, lose .3, nothing .3 -> game 1).
    # Game 1: seat 1 (minimising seat 0's equity) stops at 0.47 or redeals (win .3,
    # lose .4, nothing .3 -> game 0). Both redeal: x0 = .4 + .3 x1, x1 = .3 + .3 x0, so
    # x0 = 0.49 / 0.91 = 7/13 > 1/2 and x1 = 6/13 < 0.47: redealing is right for both.
    nothing = np.array([False, False, False, True])
    games = [(toy_tree(0, 0.4, 0.3), np.array([0.5, 1.0, 0.0, np.nan]), nothing),
             (toy_tree(1, 0.3, 0.4), np.array([0.47, 1.0, 0.0, np.nan]), nothing)]
    res = M.solve_fixed_point(games, [1, 0], tol=1e-10, fixed_point_tol=1e-12)
    assert res.equity[0] == pytest.approx(float(Fraction(7, 13)), abs=1e-9)
    assert res.equity[1] == pytest.approx(float(Fraction(6, 13)), abs=1e-9)
    assert res.p_nothing == pytest.approx([0.3, 0.3], abs=1e-7)  # average policy: ~1e-9 on stop
    assert max(res.exploitability) <= 1e-10


def test_fixed_point_toy_game_stop_is_right():
    # With stop worth 0.55 in game 0, redealing is worth at most .4 + .3 * x1 < .55 for
    # any x1 <= .5: seat 0 stops, x0 = .55 and x1 = min(.47, .3 + .3 * .55 = .465) = .465.
    nothing = np.array([False, False, False, True])
    games = [(toy_tree(0, 0.4, 0.3), np.array([0.55, 1.0, 0.0, np.nan]), nothing),
             (toy_tree(1, 0.3, 0.4), np.array([0.47, 1.0, 0.0, np.nan]), nothing)]
    res = M.solve_fixed_point(games, [1, 0], tol=1e-10, fixed_point_tol=1e-12)
    assert res.equity == pytest.approx([0.55, 0.465], abs=1e-9)


def test_iterate_values_linear_known_answer():
    x, steps = M.iterate_values(np.array([0.4, 0.3]), np.array([0.3, 0.3]), [1, 0],
                                np.array([0.5, 0.5]), 1e-12)
    assert x == pytest.approx([7 / 13, 6 / 13], abs=1e-11)
    assert steps > 1
    with pytest.raises(M.MatchEquityError, match="did not converge"):
        # a deal that never scores: x = 0.1 + x has no fixed point
        M.iterate_values(np.array([0.1]), np.array([1.0]), [0], np.array([0.2]), 1e-12,
                         max_steps=50)


def test_equity_after_boundary_and_next_dealer():
    # target 4, scores 3:2, seat 0 deals: any point for seat 0 wins the match (equity 1),
    # 1 point for seat 1 leads to 3:3 with seat 1 dealing, 3 points win it for seat 1
    table = {(3, 3, 1): 0.25}
    eq, nothing = M.equity_after(np.array([1.0, -1.0, 0.0, -2.0, 3.0]), (3, 2), 0, 4, table)
    assert eq[0] == 1.0 and eq[4] == 1.0
    assert eq[1] == 0.25
    assert eq[3] == 0.0
    assert nothing.tolist() == [False, False, True, False, False]
    assert M.lookup(table, 4, 0, 0, 4) == 1.0 and M.lookup(table, 1, 5, 1, 4) == 0.0


@pytest.fixture(scope="module")
def small_tables():
    cfg = M.EquityConfig(target=3, tol=1e-5, **SMALL)
    mirrored, recs = M.compute_table(cfg)
    full, recs_full = M.compute_table(M.EquityConfig(target=3, tol=1e-5, mirror=False, **SMALL))
    return cfg, mirrored, recs, full, recs_full


def test_table_covers_every_state_and_is_a_probability(small_tables):
    cfg, table, recs, _, _ = small_tables
    t = cfg.target
    assert set(table) == {(a, b, d) for a in range(t) for b in range(t) for d in (0, 1)}
    assert all(0.0 <= v <= 1.0 for v in table.values())
    assert max(r["exploitability"] for rec in recs for r in rec["rows"]) <= cfg.tol


def test_symmetric_states_symmetric_equities(small_tables):
    cfg, table, recs, full, recs_full = small_tables
    # the written table: E(a, b, d) + E(b, a, 1 - d) = 1 (off the diagonal by construction,
    # on it the two dealers are solved separately: within the solve's error)
    for (a, b, d), v in table.items():
        if a != b:
            assert v + table[(b, a, 1 - d)] == pytest.approx(1.0, abs=1e-9)
    # every state solved directly (mirror=False) agrees; an error of at most tol per deal
    # propagates through at most 2T deals, each diluted by 1 / (1 - P(nothing scored))
    p_max = max(r["p_nothing"] for rec in recs_full for r in rec["rows"])
    bound = 2 * cfg.target * cfg.tol / (1 - p_max)
    for k, v in full.items():
        assert abs(v - table[k]) <= bound, k
    for (a, b, d), v in full.items():
        assert abs(v + full[(b, a, 1 - d)] - 1.0) <= bound


def test_swap_symmetry_checks_the_solved_twins_and_can_fail(small_tables):
    cfg, _, recs, _, recs_full = small_tables
    t = cfg.target
    sym = M.swap_symmetry(recs)  # mirrored: the diagonal states' two dealers
    assert sym["pairs"] == t and sym["within_bound"] and sym["largest_residual"] > 0.0
    assert M.swap_symmetry(recs_full)["pairs"] == t * t  # every (a, b, d) with its twin
    assert M.swap_symmetry(recs_full)["within_bound"]
    # a diagonal equity moved by more than its bound is caught, and named
    bad = copy.deepcopy(recs)
    row = next(r for rec in bad if rec["key"] == [1, 1] for r in rec["rows"])
    row["equity0"] += 2.5 * (sum(r["exploitability"] for rec in bad if rec["key"] == [1, 1]
                                 for r in rec["rows"]) + 1e-12) + sym["largest_residual"]
    broken = M.swap_symmetry(bad)
    assert not broken["within_bound"] and broken["worst"][:3] == [1, 1, 0]
    assert broken["largest_share_of_bound"] > 1.0


def test_equity_one_at_the_target_and_one_point_from_it(small_tables):
    cfg, table, _, _, _ = small_tables
    t = cfg.target
    # at T-1 : 0 seat 0 needs one deal won (R9.3: go/decline), seat 1 needs three points
    assert all(table[(t - 1, b, d)] > table[(b, t - 1, d)] for b in range(t - 1) for d in (0, 1))
    assert M.lookup(table, t, 0, 0, t) == 1.0


@pytest.mark.slow  # compiling the public-tree kernels takes about a minute
def test_flat_and_public_tree_give_the_same_state():
    cfg = M.EquityConfig(target=3, tol=1e-6, **SMALL)
    table = {(a, b, d): 0.3 + 0.1 * a - 0.1 * b for a in range(3) for b in range(3)
             for d in (0, 1)}
    flat = M.solve_state(cfg, (1, 1), table)
    pub = M.solve_state(M.EquityConfig(target=3, tol=1e-6, solver="public", **SMALL), (1, 1),
                        table)
    for rf, rp in zip(flat["rows"], pub["rows"], strict=True):
        assert rf["equity0"] == pytest.approx(rp["equity0"], abs=2e-6)


def test_bad_scores_and_config_one_line():
    cfg = M.EquityConfig(target=3, **SMALL)
    with pytest.raises(M.MatchEquityError, match=r"score1 = 3 is outside the match"):
        M.solve_state(cfg, (0, 3), {})
    with pytest.raises(M.MatchEquityError, match=r"score0 = -1"):
        M.check_scores((-1, 0), 3)
    with pytest.raises(M.MatchEquityError, match="only the two-player table"):
        M.EquityConfig(profile="vitou")
    with pytest.raises(M.MatchEquityError, match="hand"):
        M.EquityConfig(ranks=2, copies=1, hand_size=2)


def test_mirror_keys_give_the_seat_swapped_states_keys():
    from vitou_ai.solvers.flat.tree import build_tree

    cfg = M.EquityConfig(target=3, **SMALL)
    for (a, b, d) in ((1, 2, 0), (0, 2, 1)):
        mine = build_tree(cfg.deal_params((a, b), d)).is_keys
        swapped = build_tree(cfg.deal_params((b, a), 1 - d)).is_keys
        assert {k.tobytes() for k in M.mirror_keys(mine)} == {k.tobytes() for k in swapped}


def test_train_objective_match_covers_every_score_and_dealer(tmp_path, capsys, monkeypatch):
    from vitou_ai.bots.tabular import TabularPolicy
    from vitou_ai.commands.cli import main
    from vitou_ai.match_equity import sweep
    from vitou_ai.solvers.flat.tree import build_tree

    monkeypatch.setattr(sweep, "ray_available", lambda: False)  # serial: tests/test_sweep.py

    code = main(["train", "--objective", "match", "--ranks", "4", "--copies", "2",
                 "--hand-size", "1", "--target", "3", "--out", str(tmp_path / "run")])
    _, err = capsys.readouterr()
    assert code == 0, err
    policy = TabularPolicy.load(tmp_path / "run" / "policy.npz")
    cfg = M.EquityConfig(target=3, **SMALL)
    for a in range(3):
        for b in range(3):
            for d in (0, 1):
                keys = build_tree(cfg.deal_params((a, b), d)).is_keys
                assert all(policy.row(k) >= 0 for k in keys), (a, b, d)
    for bad, what in ((["--profile", "truc_catalan"], "is for vitou_2p"),
                      (["--score0", "1"], "does not apply"),
                      ([], "--max-infosets")):  # the full deck's 2-card game at every score
        args = ["train", "--objective", "match", *bad]
        if bad and bad[0] != "--profile":
            args += ["--ranks", "4", "--copies", "2", "--hand-size", "1", "--target", "3"]
        code = main(args + ["--out", str(tmp_path / "bad")])
        _, err = capsys.readouterr()
        assert code == 2 and err.count("\n") == 1 and what in err, (bad, err)
