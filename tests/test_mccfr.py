"""External- and outcome-sampling MCCFR (Lanctot et al. 2009) on the kernel:
convergence on small variants (exact evaluation on the flat tree), resume from
a checkpoint reproduces an uninterrupted run, bounded table, bad checkpoints."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai.rules import VitouParams
from vitou_ai.solvers.cfr import CheckpointError
from vitou_ai.solvers.evaluate import exploitability, nash_conv, uniform_policy
from vitou_ai.solvers.mccfr import MCCFR, TableFullError
from vitou_ai.solvers.tree import build_tree

TINY_2P = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1)
TINY_4P = VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1)


def test_external_sampling_converges_two_players():
    tree = build_tree(TINY_2P)
    s = MCCFR(TINY_2P, "external", seed=1)
    s.iterate(2000)
    early = exploitability(tree, s.policy_on_tree(tree))
    s.iterate(38000)
    late = exploitability(tree, s.policy_on_tree(tree))
    assert late < 0.03 < early
    assert s.num_infosets <= tree.num_infosets  # no infoset invented


@pytest.mark.parametrize("sampling, iterations, bound", [("external", 8000, 0.08),
                                                         ("outcome", 80000, 0.2)])
def test_four_player_nash_conv_falls(sampling, iterations, bound):
    tree = build_tree(TINY_4P)
    s = MCCFR(TINY_4P, sampling, seed=2)
    s.iterate(iterations)
    assert nash_conv(tree, s.policy_on_tree(tree)) < bound < nash_conv(tree, uniform_policy(tree))


@pytest.mark.parametrize("sampling", ["external", "outcome"])
def test_resume_reproduces_uninterrupted_run(sampling, tmp_path):
    straight = MCCFR(TINY_2P, sampling, seed=5)
    straight.iterate(300)
    first = MCCFR(TINY_2P, sampling, seed=5)
    first.iterate(120)
    first.save(tmp_path / "m.npz")
    resumed = MCCFR(TINY_2P, sampling, seed=5)
    resumed.load(tmp_path / "m.npz")
    resumed.iterate(180)
    assert resumed.iteration == 300
    np.testing.assert_array_equal(resumed.average_policy(), straight.average_policy())
    np.testing.assert_array_equal(resumed.keys[:resumed.num_infosets],
                                  straight.keys[:straight.num_infosets])


def test_table_capacity_is_enforced_and_checkpoints_checked(tmp_path):
    s = MCCFR(TINY_2P, "external", max_infosets=10)
    with pytest.raises(TableFullError, match="raise max_infosets"):
        s.iterate(10)
    ok = MCCFR(TINY_2P, "external", seed=1)
    ok.iterate(5)
    ok.save(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="seed"):
        MCCFR(TINY_2P, "external", seed=2).load(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="sampling"):
        MCCFR(TINY_2P, "outcome", seed=1).load(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="params"):
        MCCFR(TINY_2P.replace(scores=(3, 0)), "external", seed=1).load(tmp_path / "c.npz")
    with pytest.raises(CheckpointError, match="exceed max_infosets"):
        MCCFR(TINY_2P, "external", seed=1, max_infosets=3).load(tmp_path / "c.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        ok.load(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="unknown sampling"):
        MCCFR(TINY_2P, "chance")


def test_full_four_player_game_runs_with_bounded_memory():
    """The full 4-player game: no tree, lazily allocated information states."""
    s = MCCFR(VitouParams(profile="vitou", signals=True), "outcome", seed=0,
              max_infosets=200_000)
    s.iterate(500)
    assert 0 < s.num_infosets <= 200_000
    pol = s.average_policy()
    assert np.allclose(pol.sum(1), 1.0)
