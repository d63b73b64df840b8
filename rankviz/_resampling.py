"""Resampling machinery of the statistics: bootstrap sums, BCa/percentile intervals, sign flips.

A bootstrap resample is drawn as a vector of counts (how often each query is drawn),
so the resampled sums of every column are one matrix product. Intervals follow
:func:`scipy.stats.bootstrap`'s definitions; the randomization test is Fisher's
sign-flip test with the +1 correction of Phipson & Smyth (2010), exact when every
sign vector can be enumerated.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._errors import InputError
from ._validation import check_int

__all__ = ["as_generator", "batch_size", "resampled_sums", "bca_or_percentile", "randomization_p"]


def as_generator(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise InputError(f"The 'rng' parameter must be None, an int seed or a numpy Generator. Got {rng!r} instead.")


def batch_size(n: int, batch: int | None) -> int:
    if batch is not None:
        return check_int(batch, "batch", "bootstrap", low=1)
    return max(1, (1 << 22) // max(n, 1))


def resampled_sums(columns: np.ndarray, n_resamples: int, rng: np.random.Generator, batch: int) -> np.ndarray:
    """Sums of each column over ``n_resamples`` bootstrap resamples of the rows (shape (B, p)).

    A resample is a vector of counts (how often each query is drawn), so the sums of
    every column are one matrix product: the same resamples serve all columns.
    """
    n = columns.shape[0]
    out = np.empty((n_resamples, columns.shape[1]))
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        draws = rng.integers(0, n, size=(b, n))
        draws += (np.arange(b) * n)[:, None]
        counts = np.bincount(draws.ravel(), minlength=b * n).reshape(b, n)
        out[start : start + b] = counts @ columns
    return out


def bca_or_percentile(theta_hat, theta_b, jackknife, alpha, method):
    """(low, high, method used, note) following scipy.stats.bootstrap's definitions."""
    from scipy.special import ndtr, ndtri

    note = None
    finite = theta_b[np.isfinite(theta_b)]
    if len(finite) < len(theta_b):
        note = f"{len(theta_b) - len(finite)} resamples had no defined value and were left out"
    if not len(finite) or not np.isfinite(theta_hat):
        return math.nan, math.nan, method, "the statistic is undefined on these data"
    if method == "bca":
        jack = jackknife[np.isfinite(jackknife)]
        spread = jack.mean() - jack if len(jack) else np.array([])
        den = np.sum(spread**2)
        if len(finite) and np.ptp(finite) > 0 and den > 0 and len(jack) == len(jackknife):
            pct = (np.count_nonzero(finite < theta_hat) + np.count_nonzero(finite <= theta_hat)) / (2 * len(finite))
            z0 = ndtri(pct)
            a_hat = np.sum(spread**3) / (6 * den**1.5)
            z_alpha = ndtri(alpha)
            levels = []
            for z in (z_alpha, -z_alpha):
                num = z0 + z
                levels.append(ndtr(z0 + num / (1 - a_hat * num)))
            if np.all(np.isfinite(levels)):
                low, high = np.quantile(finite, levels)
                return float(low), float(high), "bca", note
        fallback = "BCa is undefined on these data (no spread in the bootstrap or jackknife distribution); used the percentile interval"
        note = fallback if note is None else f"{note}; {fallback}"
        method = "percentile"
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return float(low), float(high), method, note


def randomization_p(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator, batch: int) -> tuple[np.ndarray, bool]:
    """Two-sided sign-flip p-values for each column of ``diffs`` (n x m); exact when 2**n <= n_resamples."""
    n, m = diffs.shape
    observed = np.abs(diffs.mean(axis=0))
    tol = 1e-12 * np.maximum(1.0, np.abs(diffs).max(axis=0)) * n
    if n <= 20 and 2**n <= n_resamples:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        null = np.abs(signs @ diffs) / n
        return (null >= observed - tol / n).mean(axis=0), True
    hits = np.zeros(m)
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        signs = rng.integers(0, 2, size=(b, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        null = np.abs(signs @ diffs) / n
        hits += (null >= observed - tol / n).sum(axis=0)
    return (hits + 1.0) / (n_resamples + 1.0), False
