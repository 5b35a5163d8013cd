"""The abstract MCCFR's other traversals (``AbstractMCCFR(traversal="team" | "hands")``,
vitou_ai.solvers.sampling.mccfr_team and mccfr_hands): convergence on a small
four-player game whose exact NashConv is computed on the flat tree, checkpoints that
resume the same run and refuse another traversal, bad values refused in one line."""

from __future__ import annotations

import itertools
import json
from math import comb

import numpy as np
import pytest

from tests.test_mccfr_abstract import EXACT, SMALL_4P
from vitou_ai.commands.cli import main
from vitou_ai.solvers.flat.cfr import CheckpointError
from vitou_ai.solvers.flat.evaluate import nash_conv, uniform_policy
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.sampling.abstract_tree import policy_on_tree
from vitou_ai.solvers.sampling.mccfr_abstract import TRAVERSALS, AbstractMCCFR
from vitou_ai.solvers.sampling.mccfr_hands import hand_weight


@pytest.mark.parametrize("traversal", ["team", "hands"])
def test_converges_on_a_small_four_player_game(traversal):
    # lossless knobs on one-card hands (test_abstraction): NashConv -> 0, as for "es"
    # (test_mccfr_abstract); uniform play's is 1.71
    tree = build_tree(SMALL_4P)
    s = AbstractMCCFR(SMALL_4P, EXACT, seed=3, threads=1, max_infosets=1 << 14,
                      traversal=traversal)
    s.iterate(200)
    early = nash_conv(tree, policy_on_tree(tree, s.policy()))
    s.iterate(12000)
    late = nash_conv(tree, policy_on_tree(tree, s.policy()))
    assert late < 0.06 < early
    assert late < nash_conv(tree, uniform_policy(tree)) / 20


def _solver(traversal):
    return AbstractMCCFR(SMALL_4P, seed=5, threads=1, max_infosets=1 << 14, prune_after=0.0,
                         discount_interval=1e-9, discount_intervals=3, traversal=traversal)


@pytest.mark.parametrize("traversal", ["team", "hands"])
def test_checkpoint_resumes_the_same_run(tmp_path, traversal):
    a = _solver(traversal)
    a.iterate(300)
    a.save(tmp_path / "c.npz")
    b = _solver(traversal)
    b.load(tmp_path / "c.npz")
    assert b.iteration == a.iteration and b.num_infosets == a.num_infosets
    a.iterate(300)
    b.iterate(300)
    ka, kb = a.policy().keys, b.policy().keys
    oa, ob = np.argsort(ka), np.argsort(kb)
    assert np.array_equal(ka[oa], kb[ob])
    assert np.array_equal(a.policy().probs[oa], b.policy().probs[ob])


def test_checkpoint_of_another_traversal_is_refused(tmp_path):
    a = _solver("team")
    a.iterate(20)
    a.save(tmp_path / "c.npz")
    for other in ("es", "hands"):
        with pytest.raises(CheckpointError, match="traversal 'team' does not match") as e:
            _solver(other).load(tmp_path / "c.npz")
        assert "\n" not in str(e.value)


def test_bad_traversal_and_unsupported_uses_are_refused():
    assert TRAVERSALS == ("es", "team", "hands")
    with pytest.raises(ValueError, match="traversal must be one of es, team, hands"):
        AbstractMCCFR(SMALL_4P, max_infosets=1 << 10, traversal="vector")
    s = AbstractMCCFR(SMALL_4P, max_infosets=1 << 10, threads=1, traversal="team")
    with pytest.raises(ValueError, match="match objective trains with traversal 'es'"):
        s.set_match_equity(np.zeros((1, 1, 4)), np.zeros((1, 3), np.int64), np.ones(1))
    with pytest.raises(ValueError, match="warm start needs traversal 'es'"):
        s.set_warm_start(None, 1.0, 1.0)


def test_hand_weights_are_the_hypergeometric_law():
    pool = np.array([2, 1, 3, 0], np.int64)
    total = 0.0
    for hand in itertools.combinations_with_replacement(range(4), 3):
        w = hand_weight(pool, np.array(hand, np.int64), 4, 3)
        want = np.prod([comb(int(pool[r]), hand.count(r)) for r in range(4)]) / comb(6, 3)
        assert w == pytest.approx(want)
        total += w
    assert total == pytest.approx(1.0)


def test_cli_records_the_traversal_and_refuses_bad_ones(tmp_path, capsys):
    base = ["train", "--profile", "vitou", "--ranks", "3", "--copies", "2", "--hand-size",
            "1", "--evals", "1", "--eval-deals", "100", "--eval-matches", "0",
            "--lbr-deals", "0", "--no-progress"]
    run = tmp_path / "team"
    assert main([*base, "--iterations", "200", "--traversal", "team", "--out", str(run)]) == 0
    assert json.loads((run / "run.json").read_text())["traversal"] == "team"
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:  # argparse's choices, one line (console.py)
        main([*base, "--iterations", "200", "--traversal", "vector",
              "--out", str(tmp_path / "bad")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'vector'" in err
    assert main(["train", "--resume", "--out", str(run), "--iterations", "400",
                 "--traversal", "hands", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--traversal hands contradicts the run's (team" in err
    assert main(["train", "--profile", "vitou", "--objective", "match", "--traversal", "team",
                 "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--traversal applies to --objective points only" in err
