"""Batch random play (vitou_ai.sim.random_play): deterministic per seed, independent of
the thread count and of the batch size, and agreeing with the checked Game wrapper."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from vitou_ai.rules import VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.sim.random_play import random_games


@pytest.mark.parametrize("profile", ["vitou", "vitou_2p"])
def test_same_seed_same_result_any_thread_count(profile):
    params = VitouParams(profile=profile, mode="match", dealer=-1).to_array()
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = random_games(params, 3000, seed=7)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = random_games(params, 3000, seed=7)
    finally:
        numba.set_num_threads(before)
    for k in one:
        assert (one[k] == many[k]).all(), k
    other = random_games(params, 3000, seed=8)
    assert not (one["return0"] == other["return0"]).all()


def test_rows_do_not_depend_on_batch_size():
    params = VitouParams().to_array()
    small = random_games(params, 300, seed=3)
    big = random_games(params, 5000, seed=3)
    for k in small:
        assert (small[k] == big[k][:300]).all(), k


def test_random_deal_statistics_are_sane():
    """Points within the ladder, one scoring team per deal, the 2p end reasons all occur."""
    params = VitouParams(profile="vitou_2p").to_array()
    res = random_games(params, 20000, seed=1)
    ends = set(np.unique(res["end"]))
    assert {L.END_TRICKS, L.END_REFUSED, L.END_ABANDONED} <= ends
    assert np.abs(res["return0"]).max() <= 12
    assert ((res["points"] > 0).sum(1) <= 1).all()  # at most one team scores (R5.1)
