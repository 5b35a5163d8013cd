"""The predictive regret minimisers PCFR+ (Farina, Kroer & Sandholm 2021), PDCFR+
(Xu et al. 2024) and HS-PCFR+ (Zhang, McAleer & Sandholm, hyperparameter schedules) on the flat and public trees: they converge to the game value (the
sequence-form LP's, and DCFR's), the two trees agree at equal iterations, a resumed run
equals an uninterrupted one (the prediction is saved), and bad names are refused in one
line."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai.commands.cli import main
from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.cfr import TabularCFR, iteration_schedule
from vitou_ai.solvers.flat.sequence_form import game_value
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.protocol import make_solver
from vitou_ai.solvers.public.cfr import PublicCFR
from vitou_ai.solvers.public.tree import build_public_tree

PARAMS = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1)
PREDICTIVE = ("pcfr+", "pdcfr+", "hs-pcfr+")


@pytest.fixture(scope="module")
def trees():
    return build_tree(PARAMS), build_public_tree(PARAMS)


@pytest.fixture(scope="module")
def dcfr_value(trees):
    s = make_solver("public-dcfr", PARAMS, trees[1])
    s.iterate(400)
    return s.exact_evaluation()["game_value"]


@pytest.mark.parametrize("variant", PREDICTIVE)
def test_converges_to_the_game_value_on_both_trees(trees, dcfr_value, variant):
    flat, public = trees
    exact = game_value(flat)  # the sequence-form LP: shares only the tree with CFR
    assert dcfr_value == pytest.approx(exact, abs=2e-5)
    a, b = make_solver(variant, PARAMS, flat), make_solver(f"public-{variant}", PARAMS, public)
    seen = []
    for n in (20, 400):
        a.iterate(n - a.iterations_done)
        b.iterate(n - b.iterations_done)
        ea, eb = a.exact_evaluation(), b.exact_evaluation()
        # the same update rule on two tree layouts: the same average policy up to rounding
        assert eb["exploitability"] == pytest.approx(ea["exploitability"], abs=1e-9)
        assert eb["game_value"] == pytest.approx(ea["game_value"], abs=1e-9)
        seen.append(eb["exploitability"])
    assert seen[-1] < 1e-4 < seen[0]
    assert eb["game_value"] == pytest.approx(exact, abs=2e-5)
    assert eb["game_value"] == pytest.approx(dcfr_value, abs=2e-5)


def test_the_prediction_changes_the_iterates(trees):
    """PCFR+ is not CFR+ with quadratic averaging: the policy played differs."""
    a, b = PublicCFR(trees[1], "pcfr+"), PublicCFR(trees[1], "cfr+")
    a.iterate(3)
    b.iterate(3)
    assert np.abs(a.prediction).max() > 0
    assert not np.allclose(a.current_policy(), b.current_policy())


def test_schedules_follow_the_papers():
    # PCFR+: floor at 0, weight t^2, no discount
    assert iteration_schedule("pcfr+", 3, 1.5, 0.0, 2.0) == (9.0, 1.0, 1.0, 1.0, True)
    # PDCFR+ (alpha 2.3, gamma 5): positive regrets x t^a/(t^a+1), the average x (t/(t+1))^5
    w, dpos, _, davg, clip = iteration_schedule("pdcfr+", 2, 2.3, 0.0, 5.0)
    assert (w, clip) == (1.0, True)
    assert dpos == pytest.approx(2**2.3 / (2**2.3 + 1))
    assert davg == pytest.approx((2 / 3) ** 5)
    assert (PublicCFR(PARAMS, "pdcfr+").alpha, PublicCFR(PARAMS, "pdcfr+").gamma) == (2.3, 5.0)
    assert (TabularCFR(PARAMS, "dcfr").alpha, TabularCFR(PARAMS, "dcfr").gamma) == (1.5, 2.0)
    # HS-PCFR+(30): PCFR+'s regrets, weight 1, the average x (t/(t+1))^gamma_t with gamma_t
    # falling linearly from 30 to 25 over HS_HORIZON iterations, then 25
    from vitou_ai.solvers.flat.cfr import HS_HORIZON

    g = PublicCFR(PARAMS, "hs-pcfr+").gamma
    assert g == 30.0
    for it, gamma_t in ((1, 30 - 5 / HS_HORIZON), (HS_HORIZON // 2, 27.5), (HS_HORIZON, 25.0),
                        (3 * HS_HORIZON, 25.0)):
        w, dpos, _, davg, clip = iteration_schedule("hs-pcfr+", it, 0.0, 0.0, g)
        assert (w, dpos, clip) == (1.0, 1.0, True)
        assert davg == pytest.approx((it / (it + 1)) ** gamma_t)


@pytest.mark.parametrize("name", ["pcfr+", "pdcfr+", "public-pcfr+", "public-pdcfr+",
                                  "hs-pcfr+", "public-hs-pcfr+"])
def test_resume_equals_an_uninterrupted_run(trees, tmp_path, name):
    tree = trees[1] if name.startswith("public") else trees[0]
    straight = make_solver(name, PARAMS, tree)
    straight.iterate(12)
    first = make_solver(name, PARAMS, tree)
    first.iterate(7)
    first.save(tmp_path / "ck.npz")
    resumed = make_solver(name, PARAMS, tree)
    resumed.load(tmp_path / "ck.npz")
    resumed.iterate(5)
    s, r = straight.solver, resumed.solver
    # without the saved prediction the resumed run plays another policy at iteration 8
    np.testing.assert_array_equal(r.prediction, s.prediction)
    np.testing.assert_array_equal(r.regrets, s.regrets)
    np.testing.assert_array_equal(r.cum_policy, s.cum_policy)
    assert resumed.exact_evaluation() == straight.exact_evaluation()


def test_a_checkpoint_of_another_variant_is_refused(trees, tmp_path):
    s = make_solver("public-pcfr+", PARAMS, trees[1])
    s.iterate(2)
    s.save(tmp_path / "ck.npz")
    other = make_solver("public-cfr+", PARAMS, trees[1])
    with pytest.raises(ValueError, match="checkpoint variant 'pcfr\\+' does not match"):
        other.load(tmp_path / "ck.npz")


def test_bad_names_refused_in_one_line(trees, tmp_path, capsys):
    for bad in ("pcfr", "public-pdcfr"):
        with pytest.raises(ValueError, match=f"unknown solver '{bad}'"):
            make_solver(bad, PARAMS, trees[1])
    with pytest.raises(ValueError, match="unknown CFR variant 'pcfr'"):
        PublicCFR(trees[1], "pcfr")
    with pytest.raises(ValueError, match="unknown CFR variant 'pdcfr'"):
        TabularCFR(trees[0], "pdcfr")
    with pytest.raises(SystemExit) as e:  # argparse's choices: exit 2, one line
        main(["train", "--solver", "public-pcfr", "--ranks", "3", "--copies", "1",
              "--hand-size", "1", "--out", str(tmp_path / "r")])
    err = [s for s in capsys.readouterr().err.splitlines() if s.strip()]
    assert e.value.code == 2 and len(err) == 1, err
    assert "invalid choice: 'public-pcfr'" in err[0] and "public-pcfr+" in err[0]
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("solver", ["public-pdcfr+", "pcfr+"])
def test_train_runs_and_resumes_a_predictive_solver(tmp_path, solver):
    """``vitou-ai train --solver``: the flat ones build the flat tree, ``--resume``
    continues exactly."""
    tiny = ["--solver", solver, "--ranks", "3", "--copies", "1", "--hand-size", "1",
            "--eval-every", "10", "--eval-deals", "100", "--no-progress", "--bots", "random"]
    out, straight = tmp_path / "r", tmp_path / "s"
    assert main(["train", "--iterations", "10", "--out", str(out), *tiny]) == 0
    assert main(["train", "--iterations", "20", "--out", str(out), "--resume", *tiny]) == 0
    assert main(["train", "--iterations", "20", "--out", str(straight), *tiny]) == 0
    import csv

    rows = [list(csv.DictReader(open(f / "curve.csv"))) for f in (out, straight)]
    assert rows[0][-1]["iteration"] == "20"
    assert rows[0][-1]["exploitability"] == rows[1][-1]["exploitability"]
    if not solver.startswith("public-"):  # the flat tree is built for it even without --exact
        assert main(["train", "--iterations", "2", "--exact", "no", "--out",
                     str(tmp_path / "n"), *tiny]) == 0
