"""What the solver families' trees share: sizes read off their arrays (:class:`TreeArrays`)
and the amortised growth of a builder's arrays (:func:`grow1`, :func:`grow2`), for the
flat tree (:mod:`vitou_ai.solvers.flat.tree`) and the public tree
(:mod:`vitou_ai.solvers.public.tree`)."""

from __future__ import annotations

import numpy as np

from .._numba import jit
from ..rules.params import VitouParams


@jit
def grow1(a, n):
    """``a`` (1-d) if it holds ``n`` rows, else a copy with ``max(n, 2 * len(a))`` rows, the
    first ``len(a)`` copied (amortised growth of a tree builder's arrays)."""
    if n <= a.shape[0]:
        return a
    b = np.empty(max(n, 2 * a.shape[0]), a.dtype)
    b[: a.shape[0]] = a
    return b


@jit
def grow2(a, n):
    """:func:`grow1` for a 2-d array: rows grown, columns kept."""
    if n <= a.shape[0]:
        return a
    b = np.empty((max(n, 2 * a.shape[0]), a.shape[1]), a.dtype)
    b[: a.shape[0]] = a
    return b


class TreeArrays:
    """What the flat :class:`GameTree` and the public tree
    (:class:`~vitou_ai.solvers.public.tree.PublicTree`) share: sizes read off their
    arrays. A subclass names its arrays in ``ARRAYS`` (those :attr:`nbytes` counts)."""

    ARRAYS: tuple[str, ...] = ()
    params: VitouParams
    kind: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def num_players(self) -> int:
        return self.params.players

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays named in ``ARRAYS``."""
        return sum(getattr(self, f).nbytes for f in self.ARRAYS)
