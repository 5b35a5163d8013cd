"""Numba options, decided in one place (compare stumpy's ``config.py``).

``cache=True`` keeps compiled kernels on disk next to the sources, so only the
first import on a machine pays the compile. ``fastmath`` is never used: the
kernel sums returns and the solvers sum regrets.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def _cache_dir() -> str:
    """A numba cache folder keyed by a hash of the package's sources.

    Numba's on-disk cache checks the timestamp of a function's own file only,
    not of the functions it calls in other modules, so an edit to the kernel
    could leave stale compiled callers in use. Keying the folder on every
    source file makes any edit start a fresh cache. The cache does not record
    ``NUMBA_BOUNDSCHECK`` either (a run with it set would load unchecked code,
    and leave checked code for later runs), so the setting is part of the key.
    ``NUMBA_CACHE_DIR`` set by the user wins; ``VITOU_AI_CACHE`` moves the base
    folder.
    """
    h = hashlib.sha256(numba.__version__.encode())
    h.update(f"boundscheck={numba.config.BOUNDSCHECK}".encode())
    pkg = Path(__file__).resolve().parent
    for f in sorted(pkg.rglob("*.py")):
        h.update(f.relative_to(pkg).as_posix().encode())
        h.update(f.read_bytes())
    base = os.environ.get("VITOU_AI_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "vitou_ai")
    return os.path.join(base, f"numba-{h.hexdigest()[:16]}")


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = _cache_dir()

jit = numba.njit(cache=True, nogil=True)
"""Decorator for single-state kernels (no parallel loop)."""

jit_parallel = numba.njit(cache=True, nogil=True, parallel=True)
"""Decorator for batch loops over rows with ``numba.prange``."""
