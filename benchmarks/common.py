"""Shared by the benchmarks: the rate of uniformly random play through a Python game
object (the reference engine, or OpenSpiel's ``python_vitou``)."""

from __future__ import annotations

import random
import time

from tests.helpers import random_action


def python_rates(new_state, n: int, repeats: int) -> list[float]:
    """Games per second of ``repeats`` runs of ``n`` random games from ``new_state()``."""
    rates = []
    for i in range(repeats):
        rng = random.Random(i)
        t = time.perf_counter()
        for _ in range(n):
            s = new_state()
            while not s.is_terminal():
                s.apply_action(random_action(s, rng))
        rates.append(n / (time.perf_counter() - t))
    return rates
