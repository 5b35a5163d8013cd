"""Abstract ES-MCCFR (vitou_ai.solvers.sampling.mccfr_abstract), the abstract policy bot
and LBR (vitou_ai.eval.lbr): convergence on a small game where the exact
exploitability is known, checkpoint round trip, bad input refused in one line,
LBR bounded by the exact best response, duplicate deals."""

from __future__ import annotations

import re

import numpy as np
import pytest

from vitou_ai.abstraction import AbstractionConfig
from vitou_ai.bots.abstract import AbstractPolicy
from vitou_ai.bots.named import named_bot, parse_bot
from vitou_ai.bots.policy import RandomPolicy
from vitou_ai.bots.tabular import check_fits
from vitou_ai.eval.lbr import local_best_response
from vitou_ai.rules import VitouParams
from vitou_ai.sim.batch import simulate
from vitou_ai.solvers.flat.cfr import CheckpointError
from vitou_ai.solvers.flat.evaluate import exploitability, nash_conv, uniform_policy
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.sampling.abstract_tree import policy_on_tree
from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

TINY_2P = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1, dealer=-1)
SMALL_4P = VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=-1)
EXACT = AbstractionConfig(trick="exact", count=8, history="cards")


def test_converges_on_a_small_four_player_game():
    # the exact knobs are lossless on one-card hands (test_abstraction), so the
    # abstract solver must approach the real game's equilibrium (NashConv -> 0)
    tree = build_tree(SMALL_4P)
    s = AbstractMCCFR(SMALL_4P, EXACT, seed=3, threads=1, max_infosets=1 << 14)
    s.iterate(200)
    early = nash_conv(tree, policy_on_tree(tree, s.policy()))
    s.iterate(12000)
    late = nash_conv(tree, policy_on_tree(tree, s.policy()))
    assert late < 0.06 < early
    assert late < nash_conv(tree, uniform_policy(tree)) / 20


def test_two_threads_share_one_table():
    s = AbstractMCCFR(SMALL_4P, seed=1, threads=2, max_infosets=1 << 14)
    s.iterate(2000)
    keys = s.slots[s.used_rows()]
    assert len(np.unique(keys)) == len(keys) == s.num_infosets  # no key lost or doubled


def test_checkpoint_round_trip(tmp_path):
    a = AbstractMCCFR(SMALL_4P, seed=5, threads=1, max_infosets=1 << 14, prune_after=0.0,
                      discount_interval=1e-9, discount_intervals=3)
    a.iterate(300)
    a.save(tmp_path / "c.npz")
    b = AbstractMCCFR(SMALL_4P, seed=5, threads=1, max_infosets=1 << 14, prune_after=0.0,
                      discount_interval=1e-9, discount_intervals=3)
    b.load(tmp_path / "c.npz")
    assert b.iteration == a.iteration and b.num_infosets == a.num_infosets
    ka, pa = a.policy().keys, a.policy().probs
    kb, pb = b.policy().keys, b.policy().probs
    oa, ob = np.argsort(ka), np.argsort(kb)
    assert np.array_equal(ka[oa], kb[ob]) and np.array_equal(pa[oa], pb[ob])
    a.iterate(300)
    b.iterate(300)
    oa, ob = np.argsort(a.policy().keys), np.argsort(b.policy().keys)
    assert np.array_equal(a.policy().probs[oa], b.policy().probs[ob])


def test_checkpoint_of_another_abstraction_or_game_is_refused(tmp_path):
    a = AbstractMCCFR(SMALL_4P, seed=5, threads=1, max_infosets=1 << 14)
    a.iterate(50)
    a.save(tmp_path / "c.npz")
    other = AbstractMCCFR(SMALL_4P, AbstractionConfig(count=1), seed=5, threads=1,
                          max_infosets=1 << 14)
    with pytest.raises(CheckpointError, match="abstraction") as e:
        other.load(tmp_path / "c.npz")
    assert "\n" not in str(e.value)
    with pytest.raises(CheckpointError, match="params"):
        AbstractMCCFR(SMALL_4P.replace(copies=3), seed=5, threads=1).load(tmp_path / "c.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not a readable"):
        a.load(tmp_path / "bad.npz")


def test_policy_file_round_trip_and_refusal(tmp_path):
    s = AbstractMCCFR(SMALL_4P, seed=2, threads=1, max_infosets=1 << 14)
    s.iterate(500)
    pol = s.policy("p")
    path = tmp_path / "policy.npz"
    pol.save(path)
    back = parse_bot(str(path))
    assert isinstance(back, AbstractPolicy) and len(back) == len(pol)
    assert back.fallback is not None  # counter by default
    assert parse_bot(f"{path}:fallback=random").fallback is None
    check_fits(back, SMALL_4P)
    with pytest.raises(ValueError, match="was trained for ranks = 3") as e:
        check_fits(back, SMALL_4P.replace(hand_size=2, ranks=4))
    assert "\n" not in str(e.value)
    # plays in the simulator, deterministically; 500 iterations leave many abstract states
    # unvisited, where counter plays (refused by default above 1% of its decisions)
    lineup = [back, named_bot("counter")] * 2
    with pytest.raises(ValueError, match=r"policy .p. \(.*policy\.npz\) had no strategy at"):
        simulate(SMALL_4P, lineup, 200, seed=4, duplicate=True, rotate_dealer=True)
    r1 = simulate(SMALL_4P, lineup, 200, seed=4, duplicate=True, rotate_dealer=True,
                  allow_fallback=True)
    r2 = simulate(SMALL_4P, lineup, 200, seed=4, duplicate=True, rotate_dealer=True,
                  allow_fallback=True)
    assert np.array_equal(r1.table, r2.table) and r1.fallback[0]["share"] > 0.01


def test_duplicate_deals_swap_the_seats_on_the_same_cards():
    # random play against itself on duplicate deals: within a pair the dealer is the
    # same and the team sitting in each seat is swapped (variant 0 / 1)
    r = simulate(SMALL_4P, [RandomPolicy()] * 4, 400, seed=9, duplicate=True, rotate_dealer=True)
    v = np.asarray(r["variant"]).reshape(-1, 2)
    d = np.asarray(r["dealer"]).reshape(-1, 2)
    assert (v[:, 0] == 0).all() and (v[:, 1] == 1).all()
    assert (d[:, 0] == d[:, 1]).all() and set(d[:, 0]) == {0, 1, 2, 3}
    # a bot that plays its highest card always, against itself: same cards, same
    # result, so the two games of a pair score exactly opposite for the seat teams
    bot = parse_bot("cautious:lead_high=1,bluff=0,raise_at=1,reraise_at=1")
    r = simulate(SMALL_4P, [bot] * 4, 400, seed=9, duplicate=True, rotate_dealer=True)
    ret = np.asarray(r["return0"]).reshape(-1, 2)
    assert np.array_equal(ret[:, 0], ret[:, 1])


def test_lbr_is_bounded_by_the_exact_best_response():
    # toy game: exploitability of uniform random play is known exactly (tree BR)
    tree = build_tree(TINY_2P)
    exact = exploitability(tree, uniform_policy(tree))
    r = local_best_response(RandomPolicy(), TINY_2P, deals=3000, samples=24, seed=1)
    assert r.lo <= exact + 1e-9  # a lower bound (up to sampling error)
    assert r.value > 0.5 * exact  # and not a trivial one: the greedy response finds most of it
    assert r.lo < r.value < r.hi


def test_lbr_of_a_near_equilibrium_is_small():
    tree = build_tree(TINY_2P)
    s = AbstractMCCFR(TINY_2P, EXACT, seed=3, threads=1, max_infosets=1 << 12)
    s.iterate(20000)
    pol = s.policy()
    exact = exploitability(tree, policy_on_tree(tree, pol))
    r = local_best_response(pol, TINY_2P, deals=2000, samples=16, seed=2)
    assert r.lo <= exact + 1e-9
    rand = local_best_response(RandomPolicy(), TINY_2P, deals=2000, samples=16, seed=2)
    assert r.value < rand.value


@pytest.mark.parametrize("trained, played, fragment", [
    (False, True, "trained without signals, this game has signals"),
    (True, False, "trained with signals (R7 gestures), this game has none"),
])
def test_policy_of_the_other_signals_setting_is_refused(tmp_path, capsys, trained, played,
                                                        fragment):
    from vitou_ai.bots.abstract import check_fits as abstract_fits
    from vitou_ai.commands.cli import main

    s = AbstractMCCFR(SMALL_4P.replace(signals=trained), seed=2, threads=1,
                      max_infosets=1 << 14)
    s.iterate(100)
    path = tmp_path / "policy.npz"
    s.policy("p").save(path)
    back = parse_bot(str(path))
    game = SMALL_4P.replace(signals=played)
    abstract_fits(back, SMALL_4P.replace(signals=trained))  # its own game: accepted
    for fits in (abstract_fits, check_fits):
        with pytest.raises(ValueError, match=re.escape(fragment)) as e:
            fits(back, game)
        assert "\n" not in str(e.value) and str(path) in str(e.value)
    # the tournament refuses it in one line naming the file
    argv = ["tournament", "--profile", "vitou", "--ranks", "3", "--copies", "2", "--hand-size",
            "1", "--bots", str(path), "random", "--deals", "10", "--out", str(tmp_path / "t"),
            "--no-progress"] + (["--signals"] if played else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err and str(path) in err
