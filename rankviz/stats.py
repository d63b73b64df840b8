"""Statistics over per-query tables: bootstrap intervals, paired comparisons, the zero problem.

The query is the sampling unit. Everything here works on a *per-query table*: the
output of :func:`rankviz.evaluate` with ``per_query=True`` (columns ``system``
(optional), ``query_id`` and one column per measure), or any table of that shape,
so notebooks can bootstrap anything computed per query.

Bootstrap
    Queries are resampled with replacement; the same resampled queries serve every
    system and measure of one call (a paired bootstrap). A resample is drawn as a
    vector of counts, so each resampled mean is one matrix product. Intervals are
    BCa (default; Efron & Tibshirani 1993, ch. 14) or percentile, computed as
    :func:`scipy.stats.bootstrap` computes them. Where BCa is undefined (constant
    data, a jackknife with no spread) the percentile interval is used and a
    :class:`DegenerateDataWarning` says so.
Paired comparisons
    For each system x measure against a baseline, paired by query id: the mean
    difference with its paired bootstrap CI and paired t CI, a p-value from a
    Fisher randomization (sign-flip) test with the +1 correction of Phipson &
    Smyth (2010) (exact enumeration when 2**n <= n_resamples), a paired t-test or a
    Wilcoxon signed-rank test; Holm or Benjamini-Hochberg correction over every
    comparison of the call; the effect size d_z = mean(d) / sd(d); and
    win/tie/loss counts.
The zero problem
    MRR mixes two things: how often the first relevant item is found at all, and
    how high it is when found. For RR measures every bootstrap result also reports
    the share of queries with RR = 0 with a Wilson interval, and the MRR over the
    non-zero queries with its own bootstrap CI (the ratio is recomputed inside
    every resample). ``MRR = (1 - zero share) x MRR over non-zero queries``.

Coverage (measured by ``benchmarks/coverage.py``; see its RESULTS)
    BCa covers 0.95 +- 0.01 for n >= 50 queries with up to 60% zeros. Below about 20
    queries every bootstrap interval under-covers (percentile worst), at 90% zeros
    and n = 25 about 7% of samples are all zeros and no interval can cover the
    truth, and for paired differences with many identical scores at n <= 50 the
    paired t-interval covers better than the bootstrap. Warnings say so when the
    data look like that.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._errors import ColumnError, DegenerateDataWarning, InputError, warn
from ._validation import check_choice, check_int, check_probability
from .measures import parse_measure

__all__ = [
    "ConfidenceInterval",
    "BootstrapResult",
    "bootstrap",
    "compare",
    "paired_differences",
    "wilson_interval",
    "holm",
    "benjamini_hochberg",
    "results_table",
]

_SMALL_N = 20


class ConfidenceInterval(NamedTuple):
    """A two-sided interval; unpacks as ``(low, high)``."""

    low: float
    high: float


@dataclasses.dataclass(frozen=True, repr=False)
class BootstrapResult:
    """A bootstrap confidence interval of one measure's mean for one system.

    Attributes
    ----------
    system : str or None
    measure : str
    estimate : float
        The mean over queries.
    confidence_interval : ConfidenceInterval
    standard_error : float
        Standard deviation of the bootstrap distribution.
    confidence_level : float
    method : {'bca', 'percentile'}
        The method actually used (BCa falls back to percentile where undefined).
    n_queries, n_resamples : int
    bootstrap_distribution : ndarray
        The resampled means (kept, but not shown in the repr).
    zero_share, zero_share_interval
        RR measures only: share of queries with RR = 0 and its Wilson interval.
    nonzero_estimate, nonzero_interval
        RR measures only: MRR over the queries with RR > 0 and its bootstrap interval.
    notes : tuple of str
        What was degenerate or unreliable about the data, if anything.
    """

    system: str | None
    measure: str
    estimate: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    confidence_level: float
    method: str
    n_queries: int
    n_resamples: int
    bootstrap_distribution: np.ndarray
    zero_share: float | None = None
    zero_share_interval: ConfidenceInterval | None = None
    nonzero_estimate: float | None = None
    nonzero_interval: ConfidenceInterval | None = None
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        low, high = self.confidence_interval
        level = f"{self.confidence_level:.0%}"
        who = f"system={self.system!r}, " if self.system is not None else ""
        text = (
            f"BootstrapResult({who}measure={self.measure!r}, estimate={self.estimate:.4f}, "
            f"{level} CI=({low:.4f}, {high:.4f}), standard_error={self.standard_error:.4f}, "
            f"method={self.method!r}, n_queries={self.n_queries}, n_resamples={self.n_resamples}"
        )
        if self.zero_share is not None:
            zl, zh = self.zero_share_interval
            nz = "nan" if self.nonzero_estimate is None or math.isnan(self.nonzero_estimate) else f"{self.nonzero_estimate:.4f}"
            nl, nh = self.nonzero_interval
            text += f", zero_share={self.zero_share:.4f} ({zl:.4f}, {zh:.4f}), nonzero_estimate={nz} ({nl:.4f}, {nh:.4f})"
        return text + ")"

    def to_dict(self) -> dict:
        """The fields as a flat dict (the bootstrap distribution left out)."""
        row = {
            "system": self.system,
            "measure": self.measure,
            "estimate": self.estimate,
            "low": self.confidence_interval.low,
            "high": self.confidence_interval.high,
            "standard_error": self.standard_error,
            "confidence_level": self.confidence_level,
            "method": self.method,
            "n_queries": self.n_queries,
            "n_resamples": self.n_resamples,
        }
        if self.zero_share is not None:
            row.update(
                zero_share=self.zero_share,
                zero_share_low=self.zero_share_interval.low,
                zero_share_high=self.zero_share_interval.high,
                nonzero_estimate=self.nonzero_estimate,
                nonzero_low=self.nonzero_interval.low,
                nonzero_high=self.nonzero_interval.high,
            )
        return row


def results_table(results) -> pd.DataFrame:
    """A tidy table (system, measure, estimate, low, high, ...) from bootstrap results."""
    if isinstance(results, BootstrapResult):
        results = [results]
    elif isinstance(results, dict):
        results = list(results.values())
    rows = [r.to_dict() for r in results]
    table = pd.DataFrame(rows)
    if "system" in table and table["system"].isna().all():
        table = table.drop(columns="system")
    return table


# ----------------------------------------------------------------------------- helpers


def wilson_interval(successes: int, n: int, confidence_level: float = 0.95) -> ConfidenceInterval:
    """Wilson score interval of a binomial proportion (Wilson 1927); (nan, nan) when n = 0."""
    from scipy.special import ndtri

    confidence_level = check_probability(confidence_level, "confidence_level", "wilson_interval")
    if n == 0:
        return ConfidenceInterval(math.nan, math.nan)
    z = float(ndtri(0.5 + confidence_level / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return ConfidenceInterval(max(0.0, centre - half), min(1.0, centre + half))


def _adjusted(p_values, step) -> np.ndarray:
    """Apply a step-wise adjustment to the non-NaN p-values (sorted ascending), keep NaNs, cap at 1."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    values = p[ok]
    if len(values):
        order = np.argsort(values, kind="mergesort")
        result = np.empty(len(values))
        result[order] = np.minimum(step(values[order]), 1.0)
        out[ok] = result
    return out


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error), NaNs left out and kept as NaN."""
    return _adjusted(p_values, lambda v: np.maximum.accumulate((len(v) - np.arange(len(v))) * v))


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), NaNs kept as NaN."""
    return _adjusted(p_values, lambda v: np.minimum.accumulate((v * len(v) / np.arange(1, len(v) + 1))[::-1])[::-1])


def _t_quantile(q: float, df: int) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, q))


def _t_test_p(d: np.ndarray) -> float:
    """Two-sided one-sample t-test p-value of mean(d) = 0 (as scipy.stats.ttest_1samp)."""
    from scipy.special import stdtr

    n = len(d)
    t = d.mean() / (d.std(ddof=1) / math.sqrt(n))
    return float(2 * stdtr(n - 1, -abs(t)))


def _rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise InputError(f"The 'rng' parameter must be None, an int seed or a numpy Generator. Got {rng!r} instead.")


def _batch_size(n: int, batch: int | None) -> int:
    if batch is not None:
        return check_int(batch, "batch", "bootstrap", low=1)
    return max(1, (1 << 22) // max(n, 1))


def _resampled_sums(columns: np.ndarray, n_resamples: int, rng: np.random.Generator, batch: int) -> np.ndarray:
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


def _bca_or_percentile(theta_hat, theta_b, jackknife, alpha, method):
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


def _resolve_table(table: pd.DataFrame, caller: str) -> tuple[pd.DataFrame, str | None, str]:
    from ._frame import _find

    if not isinstance(table, pd.DataFrame):
        raise InputError(
            f"{caller} works on a per-query table (the output of rankviz.evaluate(..., per_query=True)). "
            f"Got {type(table).__name__} instead."
        )
    if len(table) == 0:
        raise InputError(f"{caller}: the per-query table is empty.")
    query = _find(table, "query", None, required=True, what="per-query table")
    system = _find(table, "system", None, required=False, what="per-query table")
    return table, system, query


def _measure_columns(table: pd.DataFrame, measures, caller: str, exclude) -> list[str]:
    if measures is None:
        names = [c for c in table.columns if c not in exclude and pd.api.types.is_numeric_dtype(table[c])]
        if not names:
            raise ColumnError(f"{caller}: the per-query table has no numeric measure columns.")
        return names
    if isinstance(measures, str) or not hasattr(measures, "__iter__"):
        measures = [measures]
    names = []
    for m in measures:
        name = str(m)
        if name not in table.columns:
            try:
                name = parse_measure(m).name
            except InputError:
                pass
        if name not in table.columns:
            present = ", ".join(repr(c) for c in table.columns if c not in exclude)
            raise ColumnError(
                f"{caller}: the per-query table has no column for measure {str(m)!r}; it has {present}. "
                f"Evaluate it first, e.g. rankviz.evaluate(run, [{str(m)!r}], qrels, per_query=True)."
            )
        names.append(name)
    return names


def _wide(table: pd.DataFrame, system: str | None, query: str, names: list[str]):
    """{system: DataFrame indexed by query id with the measure columns}."""
    if system is None:
        return {None: table.set_index(query)[names]}
    out = {}
    for name, part in table.groupby(system, sort=False):
        out[str(name)] = part.set_index(query)[names]
    return out


def _warn(notes: list[str], caller: str) -> None:
    """One warning per call, listing every distinct note."""
    unique = list(dict.fromkeys(notes))
    if unique:
        warn(f"{caller}: " + "; ".join(unique) + ".", DegenerateDataWarning)


# ----------------------------------------------------------------------------- bootstrap


def bootstrap(
    table: pd.DataFrame,
    measures=None,
    *,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "bca",
    rng=None,
    batch: int | None = None,
):
    """Bootstrap confidence intervals of mean measures, resampling queries.

    Parameters
    ----------
    table : DataFrame
        A per-query table: ``query_id``, optional ``system``, one column per measure.
    measures : str or list of str, optional
        Which measure columns (names like ``"RR@10"``; aliases are parsed). Default: all.
    n_resamples : int, default 10000
    confidence_level : float, default 0.95
    method : {'bca', 'percentile'}, default 'bca'
    rng : None, int or numpy.random.Generator
        Seed for reproducible resamples.
    batch : int, optional
        Resamples drawn at once (bounds memory); by default about 4 M counts at a time.

    Returns
    -------
    BootstrapResult
        For one measure of a table without systems.
    dict of {system: BootstrapResult}
        For one measure of a table with a ``system`` column.
    DataFrame
        For several measures: the tidy table (system, measure, estimate, low, high,
        standard_error, method, ...), one row per system x measure.

    Notes
    -----
    Systems are resampled together (the same resampled queries) when they share
    their queries, so their intervals are paired. Warnings
    (:class:`DegenerateDataWarning`) flag constant or all-zero data, BCa fallbacks
    and fewer than 20 queries.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"query_id": [f"q{i}" for i in range(40)], "RR@10": [1.0, 0.5, 0.0, 0.25] * 10})
    >>> res = rankviz.stats.bootstrap(table, "RR@10", rng=0)
    >>> round(res.estimate, 4), res.method
    (0.4375, 'bca')
    """
    caller = "bootstrap"
    n_resamples = check_int(n_resamples, "n_resamples", caller, low=1)
    confidence_level = check_probability(confidence_level, "confidence_level", caller)
    method = check_choice(str(method).lower(), "method", caller, ("bca", "percentile"))
    table, system_col, query_col = _resolve_table(table, caller)
    names = _measure_columns(table, measures, caller, exclude={system_col, query_col})
    wide = _wide(table, system_col, query_col, names)
    gen = _rng(rng)
    alpha = (1 - confidence_level) / 2
    results: list[BootstrapResult] = []
    notes_all: list[str] = []

    # Systems sharing the same queries are resampled together (paired).
    groups: dict[tuple, list] = {}
    for name, frame in wide.items():
        groups.setdefault(tuple(frame.index), []).append(name)
    for queries, members in groups.items():
        n = len(queries)
        blocks, layout = [], []
        for name in members:
            values = wide[name].to_numpy(dtype=np.float64)
            if np.isnan(values).any():
                raise InputError(f"{caller}: the per-query table has missing values (system {name!r}); evaluate with missing='zero' or drop them.")
            for m_index, measure in enumerate(names):
                x = values[:, m_index]
                layout.append((name, measure, len(blocks)))
                blocks.append(x)
                if measure.startswith("RR"):
                    blocks.append((x > 0).astype(np.float64))
        columns = np.column_stack(blocks)
        sums = _resampled_sums(columns, n_resamples, gen, _batch_size(n, batch))
        for name, measure, col in layout:
            x = columns[:, col]
            notes = []
            if n < _SMALL_N:
                notes.append(
                    f"only {n} queries: bootstrap intervals under-cover below about 20 queries "
                    "(percentile worst); report the t-interval too and read the interval as optimistic"
                )
            if np.all(x == x[0]):
                notes.append(f"all {n} queries have the same {measure} ({x[0]:g}); the interval is degenerate")
            estimate = float(x.mean())
            theta_b = sums[:, col] / n
            jack = (x.sum() - x) / (n - 1) if n > 1 else np.array([np.nan])
            low, high, used, note = _bca_or_percentile(estimate, theta_b, jack, alpha, method)
            if note:
                notes.append(note)
            extra = {}
            if measure.startswith("RR"):
                nonzero = columns[:, col + 1]
                k = int(nonzero.sum())
                extra["zero_share"] = 1.0 - k / n
                extra["zero_share_interval"] = wilson_interval(n - k, n, confidence_level)
                with np.errstate(invalid="ignore", divide="ignore"):
                    ratio_b = sums[:, col] / sums[:, col + 1]
                    nz_hat = x.sum() / k if k else math.nan
                    jack_nz = (x.sum() - x) / (k - nonzero) if n > 1 else np.array([np.nan])
                nz_low, nz_high, _, nz_note = _bca_or_percentile(nz_hat, ratio_b, jack_nz, alpha, used)
                if k == 0:
                    notes.append("every query has RR = 0: the MRR over non-zero queries is undefined")
                elif nz_note:
                    notes.append(f"MRR over non-zero queries: {nz_note}")
                elif np.isnan(ratio_b).any():
                    notes.append(
                        f"{int(np.isnan(ratio_b).sum())} of {n_resamples} resamples had no query with RR > 0; "
                        "the non-zero MRR interval leaves them out"
                    )
                extra["nonzero_estimate"] = nz_hat
                extra["nonzero_interval"] = ConfidenceInterval(nz_low, nz_high)
            notes_all.extend(notes)
            results.append(
                BootstrapResult(
                    system=name,
                    measure=measure,
                    estimate=estimate,
                    confidence_interval=ConfidenceInterval(low, high),
                    standard_error=float(np.std(theta_b, ddof=1)) if n_resamples > 1 else math.nan,
                    confidence_level=confidence_level,
                    method=used,
                    n_queries=n,
                    n_resamples=n_resamples,
                    bootstrap_distribution=theta_b,
                    notes=tuple(notes),
                    **extra,
                )
            )
    _warn(notes_all, caller)
    order = {name: i for i, name in enumerate(wide)}
    results.sort(key=lambda r: (order[r.system], names.index(r.measure)))
    if len(names) > 1:
        return results_table(results)
    if system_col is None:
        return results[0]
    return {r.system: r for r in results}


# ----------------------------------------------------------------------------- comparisons


def paired_differences(table: pd.DataFrame, *, system: str, baseline: str, measure: str) -> pd.DataFrame:
    """Per-query differences ``system - baseline`` of one measure, paired by query id, sorted ascending.

    Returns
    -------
    DataFrame
        ``query_id``, ``baseline``, ``system``, ``difference``; only queries present
        for both systems.
    """
    table, system_col, query_col = _resolve_table(table, "paired_differences")
    if system_col is None:
        raise ColumnError("paired_differences needs a per-query table with a system column.")
    name = _measure_columns(table, [measure], "paired_differences", exclude={system_col, query_col})[0]
    wide = _wide(table, system_col, query_col, [name])
    for who in (system, baseline):
        if str(who) not in wide:
            raise InputError(f"paired_differences: unknown system {who!r}; the table has {', '.join(map(repr, wide))}.")
    joined = wide[str(baseline)][name].rename("baseline").to_frame().join(wide[str(system)][name].rename("system"), how="inner")
    if joined.empty:
        raise InputError(f"paired_differences: system {system!r} has no queries in common with baseline {baseline!r}.")
    joined["difference"] = joined["system"] - joined["baseline"]
    joined = joined.reset_index().rename(columns={query_col: "query_id"})
    joined = joined.sort_values(["difference", "query_id"], kind="mergesort").reset_index(drop=True)
    joined.attrs["rankviz"] = {"system": str(system), "baseline": str(baseline), "measure": name}
    return joined


def _randomization_p(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator, batch: int) -> tuple[np.ndarray, bool]:
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


def compare(
    table: pd.DataFrame,
    *,
    baseline: str,
    measures=None,
    test: str = "randomization",
    correction: str | None = "holm",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "bca",
    rng=None,
    batch: int | None = None,
) -> pd.DataFrame:
    """Paired comparisons of every system against a baseline, per measure.

    Parameters
    ----------
    table : DataFrame
        A per-query table with a ``system`` column.
    baseline : str
        The system the others are compared with.
    measures : str or list, optional
        Measure columns (default: all).
    test : {'randomization', 't', 'wilcoxon'}, default 'randomization'
        Fisher's sign-flip randomization test (+1 corrected), the paired t-test, or
        Wilcoxon's signed-rank test (zero differences dropped).
    correction : {'holm', 'bh', None}, default 'holm'
        Multiple-comparison correction over every system x measure of the call.
    n_resamples : int, default 10000
        For the bootstrap CI and the randomization test.
    confidence_level : float, default 0.95
    method : {'bca', 'percentile'}, default 'bca'
        Bootstrap interval of the mean difference.
    rng : None, int or numpy.random.Generator
    batch : int, optional

    Returns
    -------
    DataFrame
        One row per system x measure: ``system``, ``baseline``, ``measure``,
        ``n_queries``, ``baseline_mean``, ``system_mean``, ``difference``,
        ``ci_low``/``ci_high`` (paired bootstrap), ``t_ci_low``/``t_ci_high``
        (paired t), ``p_value``, ``p_corrected``, ``effect_size`` (d_z),
        ``wins``, ``ties``, ``losses``.

    Notes
    -----
    Pairing is by query id, never by row order; queries present for only one of
    the two systems are left out of that pair (with ``missing='zero'`` evaluation
    every judged query is present for every system).
    """
    caller = "compare"
    n_resamples = check_int(n_resamples, "n_resamples", caller, low=1)
    confidence_level = check_probability(confidence_level, "confidence_level", caller)
    test = check_choice(test, "test", caller, ("randomization", "t", "wilcoxon"))
    correction = check_choice(correction, "correction", caller, ("holm", "bh", None))
    method = check_choice(str(method).lower(), "method", caller, ("bca", "percentile"))
    table, system_col, query_col = _resolve_table(table, caller)
    if system_col is None:
        raise ColumnError(
            "compare needs several systems: a per-query table with a 'system' column, or a run frame with one "
            "(df.rank.compare), or a dict of runs (rankviz.compare)."
        )
    names = _measure_columns(table, measures, caller, exclude={system_col, query_col})
    wide = _wide(table, system_col, query_col, names)
    baseline = str(baseline)
    if baseline not in wide:
        raise InputError(f"compare: unknown baseline {baseline!r}; the systems are {', '.join(map(repr, wide))}.")
    others = [s for s in wide if s != baseline]
    if not others:
        raise InputError(f"compare: there is no system to compare with the baseline {baseline!r}.")
    gen = _rng(rng)
    alpha = (1 - confidence_level) / 2
    rows, notes_all, exact_systems = [], [], []
    base = wide[baseline]
    for name in others:
        joined = base.add_suffix("__base").join(wide[name].add_suffix("__sys"), how="inner")
        if joined.empty:
            raise InputError(f"compare: system {name!r} has no queries in common with the baseline {baseline!r}.")
        n = len(joined)
        b_values = joined[[f"{m}__base" for m in names]].to_numpy(dtype=np.float64)
        s_values = joined[[f"{m}__sys" for m in names]].to_numpy(dtype=np.float64)
        diffs = s_values - b_values
        sums = _resampled_sums(diffs, n_resamples, gen, _batch_size(n, batch))
        if test == "randomization":
            p_values, exact = _randomization_p(diffs, n_resamples, gen, _batch_size(n, batch))
            if exact:
                exact_systems.append(name)
        for i, measure in enumerate(names):
            d = diffs[:, i]
            notes = []
            mean = float(d.mean())
            jack = (d.sum() - d) / (n - 1) if n > 1 else np.array([np.nan])
            low, high, _, note = _bca_or_percentile(mean, sums[:, i] / n, jack, alpha, method)
            if note:
                notes.append(f"{name} vs {baseline}, {measure}: {note}")
            sd = float(d.std(ddof=1)) if n > 1 else math.nan
            if n > 1 and sd > 0:
                half = float(_t_quantile(1 - alpha, n - 1)) * sd / math.sqrt(n)
                t_ci = (mean - half, mean + half)
            else:
                t_ci = (mean, mean) if n > 1 else (math.nan, math.nan)
            wins, losses = int((d > 0).sum()), int((d < 0).sum())
            ties = n - wins - losses
            if n <= 50 and ties >= 0.5 * n:
                notes.append(
                    f"{name} vs {baseline}, {measure}: {ties} of {n} queries have identical scores; with many ties "
                    "at n <= 50 the paired t-interval covers better than the bootstrap interval"
                )
            if n < _SMALL_N:
                notes.append(f"only {n} paired queries: intervals and tests have little power and may under-cover")
            if test == "randomization":
                p = float(p_values[i])
            elif wins + losses == 0:
                p = 1.0
                notes.append(f"{name} vs {baseline}, {measure}: every difference is zero; p-value set to 1")
            elif test == "t":
                p = float(_t_test_p(d)) if sd > 0 else (0.0 if mean != 0 else 1.0)
            else:
                from scipy.stats import wilcoxon

                p = float(wilcoxon(d, zero_method="wilcox").pvalue)
            rows.append(
                {
                    "system": name,
                    "baseline": baseline,
                    "measure": measure,
                    "n_queries": n,
                    "baseline_mean": float(b_values[:, i].mean()),
                    "system_mean": float(s_values[:, i].mean()),
                    "difference": mean,
                    "ci_low": low,
                    "ci_high": high,
                    "t_ci_low": t_ci[0],
                    "t_ci_high": t_ci[1],
                    "p_value": p,
                    "p_corrected": math.nan,
                    "effect_size": mean / sd if sd and sd > 0 else (0.0 if mean == 0 else math.copysign(math.inf, mean)),
                    "wins": wins,
                    "ties": ties,
                    "losses": losses,
                }
            )
            notes_all.extend(notes)
    result = pd.DataFrame(rows)
    p = result["p_value"].to_numpy()
    if correction == "holm":
        result["p_corrected"] = holm(p)
    elif correction == "bh":
        result["p_corrected"] = benjamini_hochberg(p)
    else:
        result["p_corrected"] = p
    result.attrs["rankviz"] = {
        "test": test,
        "correction": correction,
        "method": method,
        "confidence_level": confidence_level,
        "n_resamples": n_resamples,
        # systems whose randomization p-values enumerate all 2**n sign flips (exact, no +1 correction)
        "exact_randomization": exact_systems,
    }
    _warn(notes_all, caller)
    return result
