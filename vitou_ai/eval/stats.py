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

**Which intervals are given.** A 95% interval from a handful of units says more
than it knows: one duplicate pair gave ``[1.0, 1.0]``, two that agreed
``[-1.0, -1.0]``. Every interval function therefore takes ``min_n`` (default
:data:`MIN_UNITS` = 30 independent units: duplicate pairs, deals, matches,
decisive games) and returns NaN bounds below it; the estimate itself is still
returned. Thirty is the usual rule of thumb for the normal approximation of a
mean (the t quantile at 29 degrees of freedom is 2.05, within 5% of 1.96), and
the one limit for all intervals keeps the rule simple to state. A mean or ratio
whose units are all alike (zero estimated variance, e.g. every pair scored 0) has
NaN bounds too, at any ``n``: a zero-width interval would claim certainty that
the sample cannot give. A proportion needs no such case: Wilson's interval of 0
or ``n`` successes in ``n`` already has a width (0 of 30: ``[0, 0.114]``, close to
the rule of three's 3/n). :func:`interval_note` says why an interval is missing
(``"n too small (4 pairs; at least 30 needed)"``) and :func:`format_interval`
prints either the interval or that note; reports and command lines use them.
Values that are not finite (NaN, inf) are refused (``ValueError``): their mean and
spread are not numbers, and the NaN bounds would read as "no variation".
"""

from __future__ import annotations

import math
import numbers
from statistics import NormalDist

import numpy as np

#: Fewest independent units behind a 95% interval (module docstring).
MIN_UNITS = 30

_NAN = float("nan")
# a standard error this small relative to the estimate is rounding in ``y - R x``,
# not variation: the units are alike
_ROUNDING = 1e-12


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


def _check_finite(**arrays: np.ndarray) -> None:
    """Refuse NaN or inf in one line: the mean and spread of such values are not numbers,
    and a NaN bound would otherwise read as "no variation" (:func:`interval_note`)."""
    for name, a in arrays.items():
        bad = int(np.count_nonzero(~np.isfinite(a)))
        if bad:
            raise ValueError(f"{name} must be finite, got {bad} NaN or inf of {a.size}")


def _check_min_n(min_n: int) -> int:
    m = as_count(min_n, "min_n")
    if m < 1:
        raise ValueError(f"min_n must be at least 1, got {m}")
    return m


def interval_note(n: int, lo: float, hi: float, unit: str = "units",
                  min_n: int = MIN_UNITS) -> str | None:
    """Why an interval of these functions is missing, or ``None`` if it is given.

    Args:
        n: the independent units behind it (duplicate pairs, deals, matches).
        lo, hi: the bounds as returned (NaN when withheld).
        unit: what a unit is, plural (``"pairs"``, ``"deals"``).

    Returns:
        ``"n too small (N pairs; at least 30 needed)"`` below ``min_n``; ``"no
        variation (all N pairs alike)"`` for NaN bounds from a sample without
        variance; ``None`` when the bounds are numbers.
    """
    n = as_count(n, "n")
    if n < min_n:
        return f"n too small ({n} {unit}; at least {min_n} needed)"
    if math.isnan(lo) or math.isnan(hi):
        return f"no variation (all {n} {unit} alike)"
    return None


def format_interval(lo: float, hi: float, n: int, unit: str = "units", spec: str = "+.3f",
                    min_n: int = MIN_UNITS) -> str:
    """``"[lo, hi]"`` with ``spec`` (a format spec such as ``"+.3f"``), or the
    :func:`interval_note` when the interval is withheld."""
    note = interval_note(n, lo, hi, unit, min_n)
    if note is not None:
        return note
    return f"[{lo:{spec}}, {hi:{spec}}]"


def _counts(successes: int | np.integer, n: int | np.integer) -> tuple[int, int]:
    k, m = as_count(successes, "successes"), as_count(n, "n")
    if m < 0 or not 0 <= k <= m:
        raise ValueError(f"need 0 <= successes <= n, got {k} of {m}")
    return k, m


def wilson_formula(successes: int | np.integer, n: int | np.integer,
                   confidence: float = 0.95, min_n: int = MIN_UNITS) -> tuple[float, float]:
    """Wilson's (1927) score interval, closed form:
    ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``.

    Args:
        successes, n: counts, Python ``int`` or any NumPy integer (module docstring).
        min_n: fewest trials for an interval (module docstring); ``1`` for the bare
            formula.

    Returns:
        ``(low, high)`` as Python floats; ``(nan, nan)`` for ``n < min_n`` (and
        ``n == 0``).

    Raises:
        TypeError: a count that is not an integer.
        ValueError: ``successes`` outside ``0..n``, ``min_n < 1``, or a bad ``confidence``.
    """
    successes, n = _counts(successes, n)
    z = _z(confidence)
    if n < _check_min_n(min_n) or n == 0:
        return _NAN, _NAN
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, not rounding
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def wilson_interval(successes: int | np.integer, n: int | np.integer,
                    confidence: float = 0.95, min_n: int = MIN_UNITS) -> tuple[float, float]:
    """95% (by default) Wilson score interval for ``successes`` of ``n``, by SciPy
    (module docstring).

    Args:
        successes, n: counts, Python ``int`` or any NumPy integer.
        min_n: fewest trials for an interval (module docstring).

    Returns:
        ``(low, high)`` as Python floats; ``(nan, nan)`` for ``n < min_n`` (and
        ``n == 0``).

    Raises:
        TypeError: a count that is not an integer.
        ValueError: ``successes`` outside ``0..n``, ``min_n < 1``, or a bad ``confidence``.
    """
    successes, n = _counts(successes, n)
    _z(confidence)
    if n < _check_min_n(min_n) or n == 0:
        return _NAN, _NAN
    from scipy.stats import binomtest

    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def mean_interval(values: np.ndarray, confidence: float = 0.95,
                  min_n: int = MIN_UNITS) -> tuple[float, float, float]:
    """Mean of ``values`` and its Student t interval, ``mean -+ t_{n-1} s / sqrt(n)``
    (``scipy.stats.t``).

    Args:
        values: ``float[n]`` (any numeric dtype; converted to ``float64``).
        min_n: fewest values for an interval (module docstring); at least 2.

    Returns:
        ``(mean, low, high)``; the bounds are NaN when ``n < min_n`` or every value
        is the same (module docstring).

    Raises:
        ValueError: ``values`` empty, not 1-d or not finite (NaN, inf), ``min_n < 2``, or
            a bad ``confidence``.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values must be a non-empty 1-d array, got shape {x.shape}")
    _check_finite(values=x)
    _z(confidence)
    if _check_min_n(min_n) < 2:
        raise ValueError(f"min_n must be at least 2 for a mean, got {min_n}")
    m = float(x.mean())
    n = x.size
    sd = float(x.std(ddof=1)) if n >= 2 else 0.0
    if n < min_n or not sd > _ROUNDING * (abs(m) + 1.0):
        return m, _NAN, _NAN
    from scipy.stats import t

    h = float(t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
    return m, m - h, m + h


def ratio_interval(y: np.ndarray, x: np.ndarray, confidence: float = 0.95,
                   min_n: int = MIN_UNITS) -> tuple[float, float, float]:
    """Ratio ``R = sum(y) / sum(x)`` over independent units and its normal interval.

    ``se(R) = sqrt(sum((y - R x)^2) / (n (n - 1))) / mean(x)`` (Cochran 1977,
    section 6.3). With ``x`` constant this is the usual interval for a mean.

    Args:
        y, x: ``float[n]`` per unit (e.g. point difference and deals of a
            duplicate pair; any numeric dtype, converted to ``float64``);
            ``sum(x) > 0``.
        min_n: fewest units with ``x != 0`` for an interval (module docstring; a unit
            without a base adds nothing); at least 2.

    Returns:
        ``(R, low, high)``; the bounds are NaN with fewer than ``min_n`` such units or
        when every unit has the same ratio (no variation: module docstring).

    Raises:
        ValueError: shapes differ, a value not finite (NaN, inf), ``sum(x) <= 0``, or
            ``min_n < 2``.
    """
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if y.shape != x.shape or y.ndim != 1:
        raise ValueError(f"y and x must be 1-d of one shape, got {y.shape} and {x.shape}")
    _check_finite(y=y, x=x)
    if x.sum() <= 0:
        raise ValueError("sum(x) must be positive")
    z = _z(confidence)
    if _check_min_n(min_n) < 2:
        raise ValueError(f"min_n must be at least 2 for a ratio, got {min_n}")
    r = float(y.sum() / x.sum())
    n = y.shape[0]
    if int(np.count_nonzero(x)) < min_n:  # units without a base add no information
        return r, _NAN, _NAN
    resid = y - r * x
    se = math.sqrt(float((resid**2).sum()) / (n * (n - 1))) / float(x.mean())
    if not se > _ROUNDING * (abs(r) + 1.0):
        return r, _NAN, _NAN
    return r, r - z * se, r + z * se


def ratio_difference_interval(y1: np.ndarray, x1: np.ndarray, y2: np.ndarray,
                              x2: np.ndarray, confidence: float = 0.95,
                              min_n: int = MIN_UNITS) -> tuple[float, float, float]:
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
        min_n: fewest units with ``x1 != 0`` or ``x2 != 0`` for an interval (module
            docstring); at least 2.

    Returns:
        ``(D, low, high)``; the bounds are NaN with fewer than ``min_n`` such units or
        when the linearised differences do not vary (module docstring).

    Raises:
        ValueError: shapes differ, a value not finite (NaN, inf), a ``sum(x) <= 0``, or
            ``min_n < 2``.
    """
    arrs = [np.asarray(a, dtype=np.float64) for a in (y1, x1, y2, x2)]
    if len({a.shape for a in arrs}) != 1 or arrs[0].ndim != 1:
        raise ValueError(f"y1, x1, y2, x2 must be 1-d of one shape, got "
                         f"{[a.shape for a in arrs]}")
    y1, x1, y2, x2 = arrs
    _check_finite(y1=y1, x1=x1, y2=y2, x2=x2)
    if x1.sum() <= 0 or x2.sum() <= 0:
        raise ValueError("sum(x1) and sum(x2) must be positive")
    z = _z(confidence)
    if _check_min_n(min_n) < 2:
        raise ValueError(f"min_n must be at least 2 for a ratio, got {min_n}")
    r1, r2 = float(y1.sum() / x1.sum()), float(y2.sum() / x2.sum())
    d = r1 - r2
    n = y1.shape[0]
    if int(np.count_nonzero((x1 != 0) | (x2 != 0))) < min_n:
        return d, _NAN, _NAN
    e = (y1 - r1 * x1) / float(x1.mean()) - (y2 - r2 * x2) / float(x2.mean())
    se = math.sqrt(float((e**2).sum()) / (n * (n - 1)))
    if not se > _ROUNDING * (abs(r1) + abs(r2) + 1.0):
        return d, _NAN, _NAN
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
