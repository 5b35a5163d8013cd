"""The four-player match-equity table (vitou_ai.match_equity.four_player): the recursion over the
four-dealer cycle on toy outcome distributions with answers worked out by hand, equity 1
at the target, the seat symmetries, the pooling, and bad input as one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers import experiment
from vitou_ai.match_equity import four_player as M4
from vitou_ai.match_equity.two_player import MatchEquityError, read_table_csv

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "results" / "train_4p" / "policy.npz"


def _experiment():
    return experiment("match_equity_4p.py", "match_equity_4p_exp")


def _same_everywhere(target: int, dist: dict[int, float]) -> dict:
    return {(a, b, d): dist for a in range(target) for b in range(target) for d in range(4)}


def test_best_of_three_known_answer():
    # Target 2, every deal scores 1 point, team 0 with probability p: team 0 wins the
    # match when it wins 2 deals of at most 3, p^3 + 3 p^2 (1 - p) = 0.648 at p = 0.6.
    table = M4.table_from_outcomes(_same_everywhere(2, {1: 0.6, -1: 0.4}), target=2)
    for d in range(4):
        assert table[(0, 0, d)] == pytest.approx(0.648, abs=1e-12)
        assert table[(1, 1, d)] == pytest.approx(0.6, abs=1e-12)
        assert table[(0, 1, d)] == pytest.approx(0.36, abs=1e-12)
        assert table[(1, 0, d)] == pytest.approx(0.84, abs=1e-12)


def test_fixed_point_of_the_dealer_cycle():
    # At 1:1 (target 2) dealer d: team 0 wins w_d, team 1 wins, or nothing is scored
    # (n_d) and seat d+1 deals. E_0 = w_0 + n_0 E_1 = ... around the cycle, so
    # E_0 = (w_0 + n_0 w_1 + n_0 n_1 w_2 + n_0 n_1 n_2 w_3) / (1 - n_0 n_1 n_2 n_3).
    w = [0.5, 0.2, 0.4, 0.1]
    n = [0.2, 0.4, 0.1, 0.5]
    outcomes = _same_everywhere(2, {1: 0.5, -1: 0.5})
    for d in range(4):
        outcomes[(1, 1, d)] = {1: w[d], 0: n[d], -1: 1 - w[d] - n[d]}
    table = M4.table_from_outcomes(outcomes, target=2)
    for d in range(4):
        num, prod = 0.0, 1.0
        for k in range(4):
            num += prod * w[(d + k) % 4]
            prod *= n[(d + k) % 4]
        assert table[(1, 1, d)] == pytest.approx(num / (1 - prod), abs=1e-11)
    # 0:1 and 1:0 reach 1:1 with the next dealer (R1.3)
    for d in range(4):
        assert table[(1, 0, d)] == pytest.approx(0.5 + 0.5 * table[(1, 1, (d + 1) % 4)],
                                                 abs=1e-11)


def test_equity_one_at_the_target():
    t = 21
    outcomes = _same_everywhere(t, {1: 0.4, -1: 0.4, 0: 0.2})
    outcomes[(0, 0, 0)] = {t: 1.0}  # baraque at 0:0 (R5.2: capped at T - score, R8.1)
    outcomes[(20, 5, 1)] = {1: 1.0}
    outcomes[(5, 20, 2)] = {-1: 1.0}
    table = M4.table_from_outcomes(outcomes, target=t)
    assert table[(0, 0, 0)] == 1.0
    assert table[(20, 5, 1)] == 1.0
    assert table[(5, 20, 2)] == 0.0
    assert all(0.0 <= v <= 1.0 for v in table.values())


def test_symmetric_distributions_give_symmetric_equities():
    # Distributions that respect the seat symmetries (rotation by two seats keeps the
    # teams; by one swaps them and negates u) give E(a,b,d) = E(a,b,d+2) = 1 - E(b,a,d+1).
    rng = np.random.default_rng(3)
    t = 6
    base = {}
    for a in range(t):
        for b in range(t):
            for d in (0, 1):
                p = rng.dirichlet(np.ones(6))
                base[(a, b, d)] = dict(zip([-3, -1, 0, 1, 3, 6], p.tolist(), strict=True))
    outcomes = {}
    for (a, b, d), dist in base.items():
        if d == 0:
            outcomes[(a, b, 0)] = outcomes[(a, b, 2)] = dist
            outcomes[(b, a, 1)] = outcomes[(b, a, 3)] = {-u: v for u, v in dist.items()}
    table = M4.table_from_outcomes(outcomes, target=t)
    for a in range(t):
        for b in range(t):
            for d in range(4):
                assert abs(table[(a, b, d)] - table[(a, b, (d + 2) % 4)]) < 1e-9
                assert abs(table[(a, b, d)] + table[(b, a, (d + 1) % 4)] - 1) < 1e-9
    for a in range(t):  # equal scores, the dealer's team is the one that differs
        assert abs(table[(a, a, 0)] + table[(a, a, 1)] - 1) < 1e-9


def test_pooling_makes_any_counts_symmetric_and_keeps_every_deal():
    rng = np.random.default_rng(5)
    t = 4
    counts = {(a, b, d): dict(zip([-3, -1, 0, 1, 3], rng.integers(1, 50, 5).tolist(),
                                  strict=True))
              for a in range(t) for b in range(t) for d in range(4)}
    pooled = M4.pool_symmetric(counts)
    for k, c in pooled.items():
        orbit = [counts[(k[0], k[1], (k[2] + 2) % 4)], counts[k],
                 counts[(k[1], k[0], (k[2] + 1) % 4)], counts[(k[1], k[0], (k[2] + 3) % 4)]]
        assert sum(c.values()) == sum(sum(o.values()) for o in orbit)
        assert c[3] == counts[k][3] + orbit[0][3] + orbit[2][-3] + orbit[3][-3]
    table = M4.table_from_outcomes(pooled, target=t)
    for a in range(t):
        for b in range(t):
            for d in range(4):
                assert abs(table[(a, b, d)] + table[(b, a, (d + 1) % 4)] - 1) < 1e-9


def test_bootstrap_se_is_zero_for_a_certain_outcome_and_positive_otherwise():
    t = 3
    sure = _same_everywhere(t, {1: 100})
    se = M4.bootstrap_se(sure, t, replicates=5)
    assert max(se.values()) == 0.0
    noisy = _same_everywhere(t, {1: 60, -1: 40})
    se = M4.bootstrap_se(noisy, t, replicates=20, seed=1)
    assert 0.0 < se[(0, 0, 0)] < 0.2


@pytest.mark.parametrize("kwargs, match", [
    (dict(profile="vitou_2p"), "four-player table"),
    (dict(target=1), "target"),
    (dict(deals=0), "deals per state"),
])
def test_bad_configuration_is_one_line(kwargs, match):
    with pytest.raises(MatchEquityError, match=match) as e:
        M4.Config4p(**kwargs)
    assert "\n" not in str(e.value)


def test_bad_outcomes_are_one_line_naming_the_state():
    outcomes = _same_everywhere(2, {1: 0.5, -1: 0.5})
    del outcomes[(1, 0, 3)]
    with pytest.raises(MatchEquityError, match="score 1:0, dealer 3"):
        M4.table_from_outcomes(outcomes, target=2)
    outcomes = _same_everywhere(2, {1: 0.5, -1: 0.5})
    for d in range(4):
        outcomes[(1, 1, d)] = {0: 1.0}
    with pytest.raises(MatchEquityError, match="score 1:1: no deal ever scores"):
        M4.table_from_outcomes(outcomes, target=2)
    outcomes[(1, 1, 0)] = {1: -1.0}
    with pytest.raises(MatchEquityError, match="score 1:1, dealer 0"):
        M4.table_from_outcomes(outcomes, target=2)


@pytest.mark.parametrize("argv, match", [
    (["--check", "21:0"], "score0 = 21 is outside the match"),
    (["--check", "3-4"], "expected A:B"),
    (["--deals", "0"], "deals per state"),
    (["--policy", "/nonexistent/policy.npz"], "no such policy file"),
    (["--profile", "vitou", "--target", "100"], "target"),
])
def test_experiment_bad_input_is_one_line(argv, match, capsys, tmp_path):
    code = _experiment().main([*argv, "--out", str(tmp_path), "--backend", "serial"])
    err = capsys.readouterr().err
    assert code == 2
    assert match in err and err.count("\n") == 1
    assert not any(tmp_path.iterdir())  # nothing written


@pytest.mark.slow
@pytest.mark.skipif(not POLICY.exists(), reason="needs results/train_4p/policy.npz")
def test_small_table_from_the_trained_policy_and_resume(tmp_path):
    # Target 3 with the trained policy: the sweep, the files, and a resumed run that
    # reads every state back and writes the same table.
    exp = _experiment()
    argv = ["--target", "3", "--deals", "400", "--bootstrap", "5", "--matches", "400",
            "--check", "0:0", "2:2", "--backend", "serial", "--out", str(tmp_path)]
    assert exp.main(argv) == 0
    first = (tmp_path / "vitou_4p_target3.csv").read_text()
    table = read_table_csv(tmp_path / "vitou_4p_target3.csv")
    assert len(table) == 9 * 4
    assert all(0 <= v <= 1 for v in table.values())
    assert (tmp_path / "vitou_4p_target3_check.csv").exists()
    assert exp.main(argv) == 2  # refuses to mix without --resume
    assert exp.main([*argv, "--resume"]) == 0
    assert (tmp_path / "vitou_4p_target3.csv").read_text() == first


def test_score_rates_follow_the_rules_on_a_small_game():
    # vitou_2p, 4 ranks x 2, 1-card hands, target 3: both objectives' rates per seat.
    from vitou_ai.match_equity import score_rates as S
    from vitou_ai.match_equity import two_player as M

    config = M.EquityConfig(ranks=4, copies=2, hand_size=1, target=3)
    table, _ = M.compute_table(config)
    frame = S.rates_by_score(config, table)
    assert len(frame) == 2 * 6 * 2 * 2  # objectives x states a <= b x dealers x seats
    assert set(zip(frame["own"], frame["opp"], strict=True)) == {
        (a, b) for a in range(3) for b in range(3)}
    rates = frame[["raise_rate", "refusal_rate"]].to_numpy()
    assert np.all((rates[np.isfinite(rates)] >= 0) & (rates[np.isfinite(rates)] <= 1))
    # R9.3: one from the end nobody raises (no raise is offered)
    end = frame[(frame["own"] == 2) | (frame["opp"] == 2)]
    assert (end["raise_reach"] == 0).all() and end["raise_rate"].isna().all()
    assert (frame[(frame["own"] < 2) & (frame["opp"] < 2)]["raise_reach"] > 0).all()
    top = S.largest_differences(frame, 3, n=4)
    assert list(top.columns) == ["rate", "own", "opp", "match", "points", "difference",
                                 "match_base", "points_base"]
    assert (top[["match_base", "points_base"]] >= 0.01).all().all()
    assert np.allclose(top["difference"], top["match"] - top["points"])
    grid = S.rate_grid(frame, "match", "raise", 3)
    assert grid.shape == (3, 3) and np.isnan(grid[2]).all() and np.isnan(grid[:, 2]).all()


def test_symmetry_z_measures_the_distance_from_the_symmetries():
    t = 3
    table = {(a, b, d): 0.5 for a in range(t) for b in range(t) for d in range(4)}
    se = dict.fromkeys(table, 0.01)
    z = M4.symmetry_z(table, se, t)
    assert z["rotation2"]["pairs"] == 9 * 2 and z["team_swap"]["pairs"] == 3 * 4
    assert z["rotation2"]["max_abs_z"] == 0 and z["team_swap"]["max_abs_z"] == 0
    table[(0, 1, 0)] = 0.5 + 0.03  # 0.03 / hypot(0.01, 0.01) = 2.12 from (0, 1, 2) and (1, 0, 1)
    z = M4.symmetry_z(table, se, t)
    assert z["rotation2"]["max_abs_z"] == pytest.approx(0.03 / np.hypot(0.01, 0.01))
    assert z["team_swap"]["max_abs_z"] == pytest.approx(0.03 / np.hypot(0.01, 0.01))
    assert z["team_swap"]["share_outside_1.96"] == pytest.approx(1 / 12)
