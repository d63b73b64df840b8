"""Resampling machinery of the statistics: bootstrap sums, BCa/percentile intervals, sign flips.

A bootstrap resample is drawn as a vector of counts (how often each query is drawn),
so the resampled sums of every column are one matrix product. Intervals follow
:func:`scipy.stats.bootstrap`'s definitions; the randomization test is Fisher's
sign-flip test with the +1 correction of Phipson & Smyth (2010), exact when every
sign vector can be enumerated.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
from typing import cast

import numpy as np

from .._core.checks import check_int
from .._errors import InputError

__all__ = [
    "call_entropy",
    "query_stream",
    "batch_size",
    "check_budget",
    "resampled_sums",
    "bca_or_percentile",
    "studentized_interval",
    "randomization_p",
]

#: resample means this close to the estimate (relative) count as equal to it in BCa's bias correction
_AT_ESTIMATE = 1e-10


def call_entropy(rng, caller: str) -> tuple[int, ...]:
    """The seed material of one call: an int seed as given, fresh entropy for None, drawn once from a Generator."""
    if isinstance(rng, np.random.Generator):
        return tuple(int(v) for v in rng.integers(0, 2**63, size=2))
    if rng is None:
        return (cast(int, np.random.SeedSequence().entropy),)  # fresh: an int from the OS
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return (int(rng),)
    raise InputError(
        f"The 'rng' parameter of {caller} must be None, an int seed >= 0 or a numpy Generator. Got {rng!r} instead."
    )


def query_stream(entropy: tuple[int, ...], query_ids) -> np.random.Generator:
    """The random stream of one set of queries: a function of the call's seed and the sorted query ids only.

    So a system's resamples do not depend on the row order, on the other systems in
    the call, or on which systems share its queries; systems with the same queries
    get the same resamples (paired).
    """
    digest = hashlib.blake2b("\x1f".join(sorted(map(str, query_ids))).encode("utf-8"), digest_size=16).digest()
    words = np.frombuffer(digest, dtype=np.uint32).tolist()
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([*entropy, *words])))


#: the most query draws one call may make (resamples x queries): about an hour of random numbers on one core
MAX_DRAWS = 10**12


def _memory_bytes() -> int:
    """Half of this machine's physical memory (8 GiB where it cannot be read): what kept resamples may use."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def _size(n_bytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n_bytes < 1024 or unit == "PiB":
            return f"{n_bytes:.0f} {unit}" if unit == "bytes" else f"{n_bytes:.1f} {unit}"
        n_bytes /= 1024
    return ""  # pragma: no cover - the loop always returns


def check_budget(n_resamples: int, n_queries: int, kept_columns: int, caller: str) -> None:
    """Refuse a resample count that cannot finish: too many draws, or too many kept values for the memory.

    The draws are made in batches (their memory stays bounded whatever the count), but
    an interval takes quantiles of every resample's value, so ``kept_columns`` columns of
    ``n_resamples`` float64 values, and their copies in the results, must fit in half
    of the memory at once, and
    ``n_resamples * n_queries`` draws must be few enough to finish (:data:`MAX_DRAWS`).
    """
    kept = 16.0 * n_resamples * kept_columns  # the sums, and each result's distribution made from them
    limit = _memory_bytes()
    if kept > limit:
        most = max(1, int(limit // (16 * kept_columns)))
        raise InputError(
            f"The 'n_resamples' parameter of {caller} is too large: {n_resamples} resamples keep {_size(kept)} of "
            f"resampled values ({kept_columns} column(s), twice 8 bytes a value; an interval needs all of them for "
            f"its quantiles), more than the {_size(limit)} this machine can give. Use at most {most} (the default "
            f"10000 is plenty for a 95% interval)."
        )
    draws = n_resamples * max(n_queries, 1)
    if draws > MAX_DRAWS:
        raise InputError(
            f"The 'n_resamples' parameter of {caller} is too large: {n_resamples} resamples of {n_queries} queries "
            f"are {draws:.3g} random draws, more than the {MAX_DRAWS:.0e} that finish in about an hour. Use at most "
            f"{max(1, MAX_DRAWS // max(n_queries, 1))} (the default 10000 is plenty for a 95% interval)."
        )


def batch_size(n: int, batch: int | None) -> int:
    if batch is not None:
        return check_int(batch, "batch", "bootstrap", low=1)
    return max(1, (1 << 22) // max(n, 1))


def resampled_sums(
    columns: np.ndarray, n_resamples: int, rng: np.random.Generator, batch: int, *, caller: str = "bootstrap"
) -> np.ndarray:
    """Sums of each column over ``n_resamples`` bootstrap resamples of the rows (shape (B, p)).

    Refused (:func:`check_budget`) when the sums cannot be kept or drawn in time.

    A resample is a vector of counts (how often each query is drawn), so the sums of
    a column are one matrix-vector product: the same resamples serve all columns.
    Each column gets its own product (not one matrix product for all), so that its
    sums are bit-identical whatever other columns share the call.
    """
    n = columns.shape[0]
    check_budget(n_resamples, n, columns.shape[1], caller)
    out = np.empty((n_resamples, columns.shape[1]))
    contiguous = [np.ascontiguousarray(columns[:, j]) for j in range(columns.shape[1])]
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        draws = rng.integers(0, n, size=(b, n))
        draws += (np.arange(b) * n)[:, None]
        counts = np.bincount(draws.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
        for j, column in enumerate(contiguous):
            out[start : start + b, j] = counts @ column
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
            # Resample means within rounding of the estimate count as equal to it (half below, half above),
            # so the order of a summation cannot move the interval.
            tol = _AT_ESTIMATE * max(1.0, abs(theta_hat))
            below, at_or_below = np.count_nonzero(finite < theta_hat - tol), np.count_nonzero(finite <= theta_hat + tol)
            pct = (below + at_or_below) / (2 * len(finite))
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


def studentized_interval(theta_hat: float, x: np.ndarray, sums: np.ndarray, sums_sq: np.ndarray, alpha: float):
    """(low, high, note): the bootstrap-t (studentized) interval of a mean (Efron & Tibshirani 1993, ch. 12).

    Each resample's t = (mean* - mean) / se* comes from its sum and sum of squares;
    the interval is ``[mean - q(1 - alpha) se, mean - q(alpha) se]`` with ``se`` the
    sample's standard error. Resamples with no spread (every drawn value equal) have
    no t and are left out (counted in the note).
    """
    n = len(x)
    se = float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    if not se > 0:
        return theta_hat, theta_hat, "the sample has no spread: the interval is a point"
    means = sums / n
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.maximum(sums_sq - n * means**2, 0.0) / (n - 1)
        t = (means - theta_hat) / np.sqrt(variance / n)
    finite = t[np.isfinite(t)]
    note = None
    if len(finite) < len(t):
        note = f"{len(t) - len(finite)} resamples had no spread and were left out of the bootstrap-t distribution"
    if not len(finite):
        return math.nan, math.nan, "no resample had any spread: the bootstrap-t interval is undefined"
    q_low, q_high = np.quantile(finite, [alpha, 1 - alpha])
    return float(theta_hat - q_high * se), float(theta_hat - q_low * se), note


def randomization_p(
    diffs: np.ndarray, n_resamples: int, rng: np.random.Generator, batch: int, *, caller: str = "compare"
) -> tuple[np.ndarray, bool]:
    """Two-sided sign-flip p-values for each column of ``diffs`` (n x m); exact when 2**n <= n_resamples."""
    n, m = diffs.shape
    observed = np.abs(diffs.mean(axis=0))
    tol = 1e-12 * np.maximum(1.0, np.abs(diffs).max(axis=0)) * n
    if n <= 20 and 2**n <= n_resamples:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        null = np.abs(signs @ diffs) / n
        return (null >= observed - tol / n).mean(axis=0), True
    check_budget(n_resamples, n, 0, caller)
    hits = np.zeros(m)
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        signs = rng.integers(0, 2, size=(b, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        null = np.abs(signs @ diffs) / n
        hits += (null >= observed - tol / n).sum(axis=0)
    return (hits + 1.0) / (n_resamples + 1.0), False
