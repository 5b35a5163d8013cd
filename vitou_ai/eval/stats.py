"""Statistics for evaluating bots: Wilson intervals, ratio estimates, Elo ratings.

- :func:`wilson_interval`: the score interval for a binomial proportion
  (Wilson 1927, "Probable inference, the law of succession, and statistical
  inference", JASA 22(158):209-212), computed by SciPy
  (``scipy.stats.binomtest(...).proportion_ci(method="wilson")``);
  :func:`wilson_formula` is the closed form, kept as an independent check
  (the tests compare them).
- :func:`mean_interval`: Student's t interval for a mean (``scipy.stats.t``).
- :func:`ratio_interval`: a ratio of sums over independent units (points per
  deal when matches have different lengths), with the linearisation
  (delta-method) variance of the ratio estimator (Cochran 1977, *Sampling
  Techniques*, 3rd ed., section 6.3); :func:`ratio_difference_interval`, the
  difference of two such ratios on the same units (paired).
- :func:`fit_elo`: Elo ratings fitted to pairwise results by maximum
  likelihood under the Bradley-Terry model, P(i beats j) = g_i / (g_i + g_j),
  with the MM algorithm of Hunter (2004, "MM algorithms for generalized
  Bradley-Terry models", Ann. Statist. 32(1):384-406, eq. 3); Elo = 400
  log10(g), so 400 Elo points are odds of 10:1 (Elo 1978). Draws count half a
  win to each side.

Counts (``successes``, ``n``) are taken as Python ``int`` or any NumPy integer
(``int8`` .. ``int64``, ``uint8`` .. ``uint64``) and converted to Python
``int`` before any arithmetic (:func:`as_count`), so a fixed-width NumPy
integer cannot overflow inside a formula (``4 n^2`` overflows ``int32`` from
``n = 23171``); arrays of values are converted to ``float64``.
"""

from __future__ import annotations

import math
import numbers
from statistics import NormalDist

import numpy as np


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def as_count(value: int | np.integer, name: str = "count") -> int:
    """``value`` as a Python ``int`` (exact, unbounded).

    Args:
        value: a Python ``int`` or a NumPy integer of any width or signedness.
        name: the argument's name, for the error message.

    Raises:
        TypeError: ``value`` is a bool, a float or anything else that is not an
            integer (a count of 10.0 is refused rather than guessed at).
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer count (int or a NumPy integer), got "
                        f"{value!r} of type {type(value).__name__}")
    return int(value)


def _counts(successes: int | np.integer, n: int | np.integer) -> tuple[int, int]:
    k, m = as_count(successes, "successes"), as_count(n, "n")
    if m < 0 or not 0 <= k <= m:
        raise ValueError(f"need 0 <= successes <= n, got {k} of {m}")
    return k, m


def wilson_formula(successes: int | np.integer, n: int | np.integer,
                   confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's (1927) score interval, closed form:
    ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``.

    Args:
        successes, n: counts, Python ``int`` or any NumPy integer (module docstring).

    Returns:
        ``(low, high)`` as Python floats; ``(0, 1)`` for ``n == 0``.

    Raises:
        TypeError: a count that is not an integer.
        ValueError: ``successes`` outside ``0..n``, or a bad ``confidence``.
    """
    successes, n = _counts(successes, n)
    z = _z(confidence)
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, not rounding
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def wilson_interval(successes: int | np.integer, n: int | np.integer,
                    confidence: float = 0.95) -> tuple[float, float]:
    """95% (by default) Wilson score interval for ``successes`` of ``n``, by SciPy
    (module docstring).

    Args:
        successes, n: counts, Python ``int`` or any NumPy integer.

    Returns:
        ``(low, high)`` as Python floats; ``(0, 1)`` for ``n == 0``.

    Raises:
        TypeError: a count that is not an integer.
        ValueError: ``successes`` outside ``0..n``, or a bad ``confidence``.
    """
    successes, n = _counts(successes, n)
    _z(confidence)
    if n == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def mean_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``values`` and its Student t interval, ``mean -+ t_{n-1} s / sqrt(n)``
    (``scipy.stats.t``).

    Args:
        values: ``float[n]`` (any numeric dtype; converted to ``float64``).

    Returns:
        ``(mean, low, high)``; the interval is ``(mean, mean)`` when ``n < 2``.

    Raises:
        ValueError: ``values`` empty or not 1-d, or a bad ``confidence``.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values must be a non-empty 1-d array, got shape {x.shape}")
    _z(confidence)
    m = float(x.mean())
    n = x.size
    if n < 2:
        return m, m, m
    from scipy.stats import t

    h = float(t.ppf(0.5 + confidence / 2.0, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
    return m, m - h, m + h


def ratio_interval(y: np.ndarray, x: np.ndarray,
                   confidence: float = 0.95) -> tuple[float, float, float]:
    """Ratio ``R = sum(y) / sum(x)`` over independent units and its normal interval.

    ``se(R) = sqrt(sum((y - R x)^2) / (n (n - 1))) / mean(x)`` (Cochran 1977,
    section 6.3). With ``x`` constant this is the usual interval for a mean.

    Args:
        y, x: ``float[n]`` per unit (e.g. point difference and deals of a
            duplicate pair; any numeric dtype, converted to ``float64``);
            ``sum(x) > 0``.

    Returns:
        ``(R, low, high)``; the interval is ``(R, R)`` when ``n < 2``.

    Raises:
        ValueError: shapes differ, or ``sum(x) <= 0``.
    """
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if y.shape != x.shape or y.ndim != 1:
        raise ValueError(f"y and x must be 1-d of one shape, got {y.shape} and {x.shape}")
    if x.sum() <= 0:
        raise ValueError("sum(x) must be positive")
    r = float(y.sum() / x.sum())
    n = y.shape[0]
    if n < 2:
        return r, r, r
    resid = y - r * x
    se = math.sqrt(float((resid**2).sum()) / (n * (n - 1))) / float(x.mean())
    z = _z(confidence)
    return r, r - z * se, r + z * se


def ratio_difference_interval(y1: np.ndarray, x1: np.ndarray, y2: np.ndarray,
                              x2: np.ndarray, confidence: float = 0.95
                              ) -> tuple[float, float, float]:
    """The difference ``D = sum(y1) / sum(x1) - sum(y2) / sum(x2)`` of two ratios measured
    on the same independent units (paired: unit ``i`` gives ``y1[i], x1[i], y2[i], x2[i]``),
    and its normal interval.

    The linearisation of each ratio (Cochran 1977, section 6.3), taken per unit and
    differenced: ``e_i = (y1_i - R1 x1_i) / mean(x1) - (y2_i - R2 x2_i) / mean(x2)``,
    ``se(D) = sqrt(sum(e^2) / (n (n - 1)))``. With ``x1 == x2`` it is
    :func:`ratio_interval` of ``y1 - y2`` over ``x1``; the pairing removes the units'
    common variation from the difference.

    Args:
        y1, x1, y2, x2: ``float[n]`` per unit, one shape; ``sum(x1) > 0``, ``sum(x2) > 0``.

    Returns:
        ``(D, low, high)``; the interval is ``(D, D)`` when ``n < 2``.

    Raises:
        ValueError: shapes differ, or a ``sum(x) <= 0``.
    """
    arrs = [np.asarray(a, dtype=np.float64) for a in (y1, x1, y2, x2)]
    if len({a.shape for a in arrs}) != 1 or arrs[0].ndim != 1:
        raise ValueError(f"y1, x1, y2, x2 must be 1-d of one shape, got "
                         f"{[a.shape for a in arrs]}")
    y1, x1, y2, x2 = arrs
    if x1.sum() <= 0 or x2.sum() <= 0:
        raise ValueError("sum(x1) and sum(x2) must be positive")
    r1, r2 = float(y1.sum() / x1.sum()), float(y2.sum() / x2.sum())
    d = r1 - r2
    n = y1.shape[0]
    if n < 2:
        return d, d, d
    e = (y1 - r1 * x1) / float(x1.mean()) - (y2 - r2 * x2) / float(x2.mean())
    se = math.sqrt(float((e**2).sum()) / (n * (n - 1)))
    z = _z(confidence)
    return d, d - z * se, d + z * se


def fit_elo(wins: np.ndarray, prior: float = 0.5, tol: float = 1e-10,
            max_iter: int = 100_000) -> np.ndarray:
    """Elo ratings from a pairwise results matrix (module docstring).

    Args:
        wins: ``float[P, P]``, ``wins[i, j]`` = games ``i`` won against ``j``
            (draws as 1/2 to each; any numeric dtype, converted to
            ``float64``); the diagonal is ignored.
        prior: virtual wins added each way between every pair that played,
            so that a perfect record gives a finite rating (a symmetric
            Beta-like prior; 0 = pure maximum likelihood).
        tol: stop when no log-strength moves by more than this.

    Returns:
        ``float64[P]`` Elo ratings with mean 0.

    Raises:
        ValueError: a non-square or negative matrix, a player without any
            game when ``P > 1``, or (``prior=0``) a player without a win.
    """
    w = np.array(wins, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    if (w < 0).any():
        raise ValueError("wins must be non-negative")
    p = w.shape[0]
    np.fill_diagonal(w, 0.0)
    games = w + w.T
    if p > 1 and (games.sum(1) == 0).any():
        raise ValueError("every player needs at least one game")
    played = games > 0
    w = w + prior * played
    games = w + w.T
    total_wins = w.sum(1)
    if p > 1 and (total_wins == 0).any():
        raise ValueError("a player without a win has no finite maximum-likelihood rating: "
                         "use prior > 0")
    gamma = np.ones(p)
    for _ in range(max_iter):
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(1)
        new = total_wins / denom
        new /= math.exp(np.log(new).mean())
        done = np.abs(np.log(new) - np.log(gamma)).max() < tol
        gamma = new
        if done:
            break
    elo = 400.0 * np.log10(gamma)
    return elo - elo.mean()
