"""Jitted buffers under ``NUMBA_BOUNDSCHECK=1``: ``make test`` runs the solver and
simulator tests once that way (issue 14, item 3), so a buffer overrun raises
IndexError there instead of corrupting memory silently."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from vitou_ai.rules import VitouParams
from vitou_ai.rules import kernel as K


def _cache_dir(env_changes: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_BOUNDSCHECK")}
    env.update(env_changes)
    code = "import numba, vitou_ai._numba; print(numba.config.CACHE_DIR)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.strip()


def test_bounds_checked_code_has_its_own_cache():
    """numba's on-disk cache does not record NUMBA_BOUNDSCHECK: without a separate
    folder a checked run would load unchecked machine code (and the reverse)."""
    plain = _cache_dir({})
    checked = _cache_dir({"NUMBA_BOUNDSCHECK": "1"})
    assert plain and checked and plain != checked


@pytest.mark.skipif(not numba.config.BOUNDSCHECK, reason="needs NUMBA_BOUNDSCHECK=1 (make test)")
def test_an_overrun_raises_in_the_checked_run():
    """The checked run is really checked: a legal-action buffer one slot short
    (the 2p blind window has two actions, R9.2) raises instead of writing past it."""
    pa = VitouParams(profile="vitou_2p").to_array()
    state = K.new_state(pa)
    assert K.legal_actions(pa, state, np.empty(2, np.int64)) == 2
    with pytest.raises(IndexError):
        K.legal_actions(pa, state, np.empty(1, np.int64))
