"""Vint kernel batch properties: results independent of the thread count, totals
consistent with the rules (13 tricks, thrown-in hands score nothing)."""

from __future__ import annotations

import numba
import numpy as np

from vitou_ai.vint import VintParams
from vitou_ai.vint.kernel import random_deals


def test_same_seed_same_deals_on_any_thread_count():
    p = VintParams(dealer=1).to_array()
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a = random_deals(p, 3000, 17)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        b = random_deals(p, 3000, 17)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = random_deals(p, 3000, 18)
    assert not np.array_equal(a[0], c[0])


def test_batch_totals_follow_the_rules():
    scores, info = random_deals(VintParams().to_array(), 5000, 3)
    played = info[:, 0] == 1
    tv = scores[:, 12]
    # V5.2: both sides' tricks are written, 13 in all
    assert np.array_equal(scores[played, 0] + scores[played, 1], 13 * tv[played])
    assert np.all(scores[~played] == 0)  # V5.7
    assert np.all(scores >= 0)
