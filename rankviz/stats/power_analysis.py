"""Power and topic-set size of a paired comparison.

"Is this difference real?" has a twin question: "how many queries would I need for a
difference this size to be significant?". For the paired t-test on per-query
differences with standard deviation ``sd``, the test statistic follows a noncentral t
distribution with ``n - 1`` degrees of freedom and noncentrality
``difference * sqrt(n) / sd``; the power at level ``alpha`` (two-sided) is the chance
that it falls beyond the critical values. Sakai's topic set size design (Sakai, *Topic
set size design*, Information Retrieval Journal 19, 2016) turns this around: the
smallest number of queries whose power reaches a target.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .._core.checks import check_int, check_probability
from .._errors import InputError

__all__ = ["PowerResult", "power_of", "paired_t_power"]

#: the largest number of queries power() searches for a target power
_MAX_QUERIES = 10_000_000


@dataclasses.dataclass(frozen=True)
class PowerResult:
    """The power of the two-sided paired t-test at ``n_queries``, and what it was computed from.

    With a target power, ``n_queries`` is the smallest number of queries that reaches
    it (``power`` is then the power at that size).

    Parameters
    ----------
    n_queries : int
        The number of queries: the one asked about, or the smallest reaching ``target_power``.
    power : float
        The test's power at ``n_queries``.
    difference : float
        The true mean per-query difference assumed.
    sd : float
        The standard deviation of the per-query differences.
    alpha : float
        The test's significance level.
    target_power : float or None
        The power asked for, or None when the power at a given size was asked.

    Examples
    --------
    >>> import rankviz
    >>> result = rankviz.stats.power(difference=0.05, sd=0.2, target_power=0.8)
    >>> result.n_queries, round(result.power, 3), result.effect_size
    (128, 0.802, 0.25)
    """

    n_queries: int
    power: float
    difference: float
    sd: float
    alpha: float
    target_power: float | None = None

    @property
    def effect_size(self) -> float:
        """Cohen's d_z = difference / sd of the per-query differences."""
        return self.difference / self.sd if self.sd > 0 else math.inf

    def __repr__(self) -> str:
        goal = f", target_power={self.target_power:.2f}" if self.target_power is not None else ""
        return (
            f"PowerResult(n_queries={self.n_queries}, power={self.power:.3f}, difference={self.difference:.4f}, "
            f"sd={self.sd:.4f}, effect_size={self.effect_size:.3f}, alpha={self.alpha}{goal})"
        )


def paired_t_power(difference: float, sd: float, n_queries, alpha: float = 0.05):
    """Power of the two-sided paired t-test (noncentral t), for one size or an array of sizes."""
    from scipy.stats import nct
    from scipy.stats import t as student

    n = np.asarray(n_queries, dtype=np.float64)
    df = n - 1
    noncentrality = difference * np.sqrt(n) / sd
    critical = student.ppf(1 - alpha / 2, df)
    return nct.sf(critical, df, noncentrality) + nct.cdf(-critical, df, noncentrality)


def power_of(difference: float, sd: float, *, n_queries=None, target_power=None, alpha: float = 0.05) -> PowerResult:
    """The power at ``n_queries``, or the smallest size reaching ``target_power`` (see :func:`rankviz.stats.power`)."""
    alpha = check_probability(alpha, "alpha", "power")
    if not (isinstance(sd, (int, float)) and sd > 0 and math.isfinite(sd)):
        raise InputError(f"The 'sd' parameter of power must be a positive number. Got {sd!r} instead.")
    if not (isinstance(difference, (int, float)) and math.isfinite(difference)) or difference == 0:
        raise InputError(
            f"The 'difference' parameter of power must be a non-zero number (the smallest difference that matters). "
            f"Got {difference!r} instead."
        )
    if target_power is None:
        n = check_int(n_queries, "n_queries", "power", low=2)
        return PowerResult(n, float(paired_t_power(difference, sd, n, alpha)), float(difference), float(sd), alpha)
    target = check_probability(target_power, "target_power", "power")
    return _smallest_n(float(difference), float(sd), alpha, target)


def _smallest_n(difference: float, sd: float, alpha: float, target: float) -> PowerResult:
    """Doubling then bisection on n: power grows with n."""
    low, high = 2, 4
    while paired_t_power(difference, sd, high, alpha) < target:
        low, high = high, high * 2
        if high > _MAX_QUERIES:
            raise InputError(
                f"power: more than {_MAX_QUERIES:,} queries would be needed for power {target} at this difference."
            )
    while high - low > 1:
        middle = (low + high) // 2
        if paired_t_power(difference, sd, middle, alpha) >= target:
            high = middle
        else:
            low = middle
    n = low if paired_t_power(difference, sd, low, alpha) >= target else high
    return PowerResult(n, float(paired_t_power(difference, sd, n, alpha)), difference, sd, alpha, target)
