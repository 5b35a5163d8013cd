"""External- and outcome-sampling MCCFR (Lanctot et al. 2009) on the kernel:
convergence on small variants (exact evaluation on the flat tree), resume from
a checkpoint reproduces an uninterrupted run, bounded table, bad checkpoints,
episodes as long as the game allows (match mode)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from vitou_ai.rules import VitouParams
from vitou_ai.rules.game import max_deal_decisions, max_game_decisions
from vitou_ai.solvers.flat.cfr import CheckpointError
from vitou_ai.solvers.flat.evaluate import exploitability, nash_conv, uniform_policy
from vitou_ai.solvers.flat.tree import KIND_DECISION, build_tree
from vitou_ai.solvers.sampling.mccfr import MCCFR, TableFullError

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


# A four-player match on a 4-card deck (every card dealt, one card each): most
# deals are void (R2.3) and score nothing, so a match runs through many deals and
# one outcome-sampling episode passes 128 decisions within ten iterations.
DEEP_MATCH = dict(profile="vitou", mode="match", ranks=2, copies=2, hand_size=1)


def _run_isolated(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter: a buffer overrun in jitted code aborts
    the process (heap corruption) instead of raising."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)


def test_outcome_sampling_episodes_longer_than_128_decisions():
    """The per-episode buffers had 128 slots, unchecked, and a match
    episode is longer (the process died). They are sized by ``max_game_decisions``."""
    code = (
        "import json\n"
        "from vitou_ai.rules import VitouParams\n"
        "from vitou_ai.solvers.sampling.mccfr import MCCFR\n"
        f"s = MCCFR(VitouParams(**{DEEP_MATCH!r}), 'outcome', seed=1)\n"
        "s.iterate(10)\n"
        "print(json.dumps([s.deepest, s.num_infosets]))\n"
    )
    done = _run_isolated(code)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    deepest, infosets = json.loads(done.stdout)
    assert 128 < deepest <= max_game_decisions(VitouParams(**DEEP_MATCH))
    assert infosets > 0


def test_the_depth_bound_holds_on_every_path_of_small_deal_trees():
    """The buffers rely on ``max_deal_decisions`` bounding the decisions of every
    deal; check it on every path of full trees (not only sampled ones), including
    one-from-end deals and signals."""
    for params in (VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2),
                   VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1,
                               scores=(11, 0)),
                   VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1),
                   VitouParams(profile="vitou", ranks=2, copies=2, hand_size=1, signals=True,
                               signal_seen=1.0),  # every gesture caught: a smaller tree
                   VitouParams(profile="vitou", ranks=2, copies=2, hand_size=1, signals=True,
                               scores=(20, 0)),
                   VitouParams(profile="vitou", ranks=2, copies=2, hand_size=1,
                               scores=(20, 20))):
        tree = build_tree(params)
        depth = np.zeros(tree.num_nodes, np.int64)
        for i in np.flatnonzero(tree.nchild):  # parents come before their children
            f, m = tree.first[i], tree.nchild[i]
            depth[f:f + m] = depth[i] + (tree.kind[i] == KIND_DECISION)
        assert 0 < depth.max() <= max_deal_decisions(params), params


def test_external_sampling_on_a_short_match_stays_within_the_bound():
    params = VitouParams(profile="vitou_2p", mode="match", ranks=2, copies=2, hand_size=1,
                         target=3, max_deals=4)
    s = MCCFR(params, "external", seed=3)
    s.iterate(50)
    assert 0 < s.deepest <= max_game_decisions(params)


def test_checkpoint_with_pickled_objects_is_refused_without_numpys_hint(tmp_path):
    """A damaged or hostile checkpoint holding object arrays: one line, and never
    NumPy's suggestion to load it unsafely with allow_pickle."""
    path = tmp_path / "checkpoint.npz"
    np.savez(path, meta=np.array([{"format": "x"}], dtype=object))
    with pytest.raises(CheckpointError) as e:
        MCCFR(TINY_4P, sampling="external", seed=1).load(path)
    assert "never loads" in str(e.value) and "allow_pickle" not in str(e.value)
