"""Counter-based random streams for jitted code: one stream per batch row.

A stream is a ``uint64[1]`` array advanced by SplitMix64 (Steele, Lea & Flood
2014, "Fast splittable pseudorandom number generators"). Row ``i`` of a batch
seeded with ``seed`` starts from :func:`row_seed`, so results do not depend
on the number of threads or on how rows are chunked.

The bots, the simulator and the sampling solvers all draw from these streams, so
the module sits below all of them: it imports nothing of the package but the
numba options.
"""

from __future__ import annotations

import numpy as np

from ._numba import jit

#: the largest ``--seed`` of every command: one range everywhere, the one OpenSpiel's
#: solvers take (a C ``int``), so a seed that works in one command works in all
SEED_MAX = 2**31 - 1
SEED_RANGE = "0 .. 2**31-1"
#: the largest seed of the batch functions (a ``uint64``): seeds derived inside the
#: package (``seed + 1``) may pass :data:`SEED_MAX`
UINT64_MAX = 2**64 - 1


def seed_error(seed, flag: str = "--seed", top: int = SEED_MAX) -> str | None:
    """Why ``seed`` is refused (not a whole number in ``0 .. top``), or ``None``."""
    rng = SEED_RANGE if top == SEED_MAX else f"0 .. {'2**64-1' if top == UINT64_MAX else top}"
    if (isinstance(seed, bool) or not isinstance(seed, int | np.integer)
            or not 0 <= int(seed) <= top):
        return f"{flag} must be in {rng}, got {seed!r}"
    return None


def check_seed(seed, name: str = "seed", top: int = SEED_MAX) -> int:
    """``seed`` as an ``int``, or the one-line error of :func:`seed_error`.

    Raises:
        TypeError: not a whole number. ValueError: out of ``0 .. top``.
    """
    why = seed_error(seed, name, top)
    if why:
        raise (TypeError if isinstance(seed, bool) or not isinstance(seed, int | np.integer)
               else ValueError)(why)
    return int(seed)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@jit
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@jit
def row_seed(seed, row):
    """Initial stream state of ``row`` in a batch seeded with ``seed`` (uint64)."""
    return _mix(np.uint64(seed) * _GOLDEN + _mix(np.uint64(row) + _GOLDEN))


@jit
def next_u64(rng):
    """Next 64 random bits of the stream ``rng`` (``uint64[1]``, advanced in place)."""
    rng[0] += _GOLDEN
    return _mix(rng[0])


@jit
def next_float(rng):
    """Uniform float in [0, 1) with 53 random bits (a scripted stream: its next value)."""
    if rng.shape[0] > 1:
        return _scripted(rng)
    return (next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@jit
def next_below(rng, n):
    """Uniform integer in ``0 .. n-1`` (Lemire's multiply-shift; bias < n / 2**32).
    A scripted stream: ``floor(u * n)`` of its next value ``u``."""
    if rng.shape[0] > 1:
        return min(np.int64(_scripted(rng) * n), n - 1)
    x = next_u64(rng) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


#: ``2**53``: a scripted stream holds ``u * 2**53`` for each value ``u`` in [0, 1).
SCRIPT_SCALE = 9007199254740992.0


@jit
def _scripted(rng):
    """The next value of a *scripted* stream: ``uint64[2 + L]`` holding the number of
    values drawn so far, ``L``, then ``L`` values ``u`` as ``u * 2**53``. Draws past
    the script return 0 and are still counted, so the caller sees that the script
    was too short. :func:`vitou_ai.bots.exact.heuristic_probs` uses such streams to
    enumerate a bot's random choices exactly; every other stream is ``uint64[1]``."""
    c = rng[0]
    rng[0] = c + np.uint64(1)
    if c < rng[1]:
        return rng[np.int64(c) + 2] * (1.0 / SCRIPT_SCALE)
    return 0.0
