"""Statistics for a gate that runs on a schedule: alpha spending across checks and a non-inferiority margin.

A regression gate that tests every night at alpha = 0.05 raises a false alarm every
few weeks on a system that never changed: each check is a new chance to be wrong.
:func:`spending_alpha` gives check ``k`` (k = 1, 2, ...) the level

    alpha_k = alpha / (k (k + 1)),

whose sum over every k >= 1 is exactly alpha (the sum telescopes: 1/(k(k+1)) =
1/k - 1/(k+1)). By the union (Bonferroni) bound, the probability of *any* false
alarm over any number of checks is at most the sum of the levels, alpha, whatever
the dependence between the checks (they share the baseline). This is alpha
spending in the sense of Lan and DeMets (1983), with a spending sequence that never
runs out, the union-bound construction of confidence sequences (Darling and Robbins,
1967): a simple anytime-valid rule, conservative because the union bound ignores
the checks' positive dependence.

:func:`margin_test` is the one-sided paired test of each check: the new system is
declared worse than the baseline by more than ``margin`` (a non-inferiority margin,
0 = any drop) when the one-sided paired t-test of ``H0: mean(new - baseline) >= -margin``
rejects at its level, i.e. when the upper confidence bound of the mean difference
at ``1 - level`` is below ``-margin``. At the margin (true difference exactly
``-margin``) it rejects with probability alpha (checked by simulation in
``benchmarks/sequential_gate.py``).

References
----------
Darling, D. A. and Robbins, H. (1967). Confidence sequences for mean, variance, and
median. *Proceedings of the National Academy of Sciences* 58(1), 66-68.

Lan, K. K. G. and DeMets, D. L. (1983). Discrete sequential boundaries for clinical
trials. *Biometrika* 70(3), 659-663.
"""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np

from .._errors import InputError

__all__ = ["spending_alpha", "margin_p_values", "margin_test", "MarginTest", "SPENDING_RULE"]

#: how :func:`spending_alpha` spends alpha, in words (what a gate's output says)
SPENDING_RULE = "alpha_k = alpha / (k (k + 1)) at check k (union bound over all checks: total alpha)"


def _alpha(alpha, caller: str) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < float(alpha) < 1:
        raise InputError(f"{caller}: alpha must be a number strictly between 0 and 1. Got {alpha!r} instead.")
    return float(alpha)


def spending_alpha(check: int, alpha: float = 0.05) -> float:
    """The level of check ``check`` (1, 2, ...) when ``alpha`` is spent as ``alpha / (k (k + 1))``.

    Parameters
    ----------
    check : int
        The check's number, from 1.
    alpha : float, default 0.05
        The probability of any false alarm over all checks.

    Returns
    -------
    float

    Examples
    --------
    >>> from rankviz.stats.sequential import spending_alpha
    >>> spending_alpha(1), spending_alpha(2), round(spending_alpha(100), 8)
    (0.025, 0.008333333333333333, 4.95e-06)
    >>> round(sum(spending_alpha(k) for k in range(1, 100_000)), 4)  # tends to alpha
    0.05
    """
    if isinstance(check, bool) or not isinstance(check, numbers.Integral) or check < 1:
        raise InputError(f"spending_alpha: check must be an integer >= 1. Got {check!r} instead.")
    alpha = _alpha(alpha, "spending_alpha")
    return alpha / (int(check) * (int(check) + 1))


def margin_p_values(differences, *, margin: float = 0.0) -> np.ndarray:
    """One-sided paired t-test p-values of ``H0: mean >= -margin`` along the last axis (vectorised).

    Small p says the mean difference is below ``-margin``. Rows whose differences are
    all equal get p = 0 when that value is below ``-margin``, else 1.
    """
    from scipy import stats as scipy_stats

    d = np.asarray(differences, dtype=np.float64)
    n = d.shape[-1]
    if n < 2:
        raise InputError(f"margin_test: a paired test needs at least 2 queries. Got {n}.")
    mean = d.mean(axis=-1)
    sd = d.std(axis=-1, ddof=1)
    shifted = mean + float(margin)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = shifted / (sd / math.sqrt(n))
    p = scipy_stats.t.cdf(t, n - 1)
    degenerate = ~(sd > 1e-12 * np.maximum(1.0, np.abs(mean)))
    return np.where(degenerate, np.where(shifted < 0, 0.0, 1.0), p)


@dataclasses.dataclass(frozen=True)
class MarginTest:
    """One check: is the new system worse than the baseline by more than the margin, with confidence?

    ``worse`` is True when the one-sided paired t-test rejects ``mean >= -margin`` at
    ``level`` (equivalently ``upper_bound < -margin``).
    """

    n_queries: int
    difference: float  # mean(new - baseline)
    margin: float
    statistic: float  # t = (difference + margin) / se
    p_value: float
    level: float  # the level this check was tested at (alpha, or alpha_k when spent)
    upper_bound: float  # one-sided upper confidence bound of the mean difference at 1 - level
    worse: bool


def margin_test(differences, *, margin: float = 0.0, alpha: float = 0.05, check: int | None = None) -> MarginTest:
    """The one-sided paired non-inferiority test of one check.

    Parameters
    ----------
    differences : array-like
        Per-query ``new - baseline``, paired by query.
    margin : float, default 0.0
        How much worse the new system may be before the check fails (>= 0).
    alpha : float, default 0.05
        The level: of this one test, or (with ``check``) of all checks together.
    check : int, optional
        The check's number (1, 2, ...): the test is then made at
        :func:`spending_alpha` ``(check, alpha)``.

    Returns
    -------
    MarginTest

    Examples
    --------
    >>> import numpy as np
    >>> from rankviz.stats.sequential import margin_test
    >>> d = np.random.default_rng(0).normal(-0.05, 0.1, 200)
    >>> margin_test(d).worse, margin_test(d, margin=0.1).worse
    (True, False)
    >>> margin_test(d, check=100).level
    4.950495049504951e-06
    """
    alpha = _alpha(alpha, "margin_test")
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real) or not 0 <= float(margin) < math.inf:
        raise InputError(f"margin_test: margin must be a finite number >= 0. Got {margin!r} instead.")
    d = np.asarray(differences, dtype=np.float64).ravel()
    if not np.isfinite(d).all():
        raise InputError("margin_test: the differences have missing or infinite values.")
    level = alpha if check is None else spending_alpha(check, alpha)
    p = float(margin_p_values(d, margin=float(margin)))
    from scipy import stats as scipy_stats

    n = len(d)
    mean, se = float(d.mean()), float(d.std(ddof=1)) / math.sqrt(n)
    upper = mean + float(scipy_stats.t.ppf(1 - level, n - 1)) * se
    t = (mean + float(margin)) / se if se > 0 else (math.inf if mean + float(margin) >= 0 else -math.inf)
    return MarginTest(n, mean, float(margin), t, p, level, upper, bool(p < level))
