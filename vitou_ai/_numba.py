"""Numba options, decided in one place (compare stumpy's ``config.py``).

``cache=True`` keeps compiled kernels on disk next to the sources, so only the
first import on a machine pays the compile. ``fastmath`` is never used: the
kernel sums returns and the solvers sum regrets.
"""

from __future__ import annotations

import numba

jit = numba.njit(cache=True, nogil=True)
"""Decorator for single-state kernels (no parallel loop)."""

jit_parallel = numba.njit(cache=True, nogil=True, parallel=True)
"""Decorator for batch loops over rows with ``numba.prange``."""
