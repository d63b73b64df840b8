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
import math

import numpy as np
import pandas as pd

from ._columns import SINGLE_SYSTEM, row_label
from ._errors import ColumnError, DegenerateDataWarning, InputError, warn
from ._resampling import (
    batch_size,
    bca_or_percentile,
    call_entropy,
    query_stream,
    randomization_p,
    resampled_sums,
    studentized_interval,
)
from ._tables import PerQueryTable, per_query_table
from ._validation import check_choice, check_int, check_probability
from .measures import parse_measure
from .results import BootstrapResult, BootstrapResults, Comparison, ConfidenceInterval

__all__ = [
    "ConfidenceInterval",
    "BootstrapResult",
    "BootstrapResults",
    "Comparison",
    "bootstrap",
    "compare",
    "paired_differences",
    "wilson_interval",
    "holm",
    "benjamini_hochberg",
]

_SMALL_N = 20

#: intervals of a paired mean difference that compare() offers (``method=``)
DIFFERENCE_INTERVALS = ("t", "bootstrap-t", "bca", "percentile")


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


def _measure_columns(table: PerQueryTable, measures, caller: str) -> list[str]:
    """The measure columns asked for (names or aliases such as 'MRR@10'), or every numeric one."""
    if measures is None:
        names = table.numeric_columns()
        if not names:
            raise ColumnError(f"{caller}: the per-query table has no numeric measure columns.")
        return names
    if isinstance(measures, str) or not hasattr(measures, "__iter__"):
        measures = [measures]
    names = []
    for m in measures:
        name = str(m)
        if name not in table.frame.columns:
            try:
                name = parse_measure(m).name
            except InputError:
                pass
        if name not in table.frame.columns:
            present = ", ".join(repr(c) for c in table.frame.columns if c not in table.id_columns)
            raise ColumnError(
                f"{caller}: the per-query table has no column for measure {str(m)!r}; it has {present}. "
                f"Evaluate it first, e.g. rankviz.evaluate(run, [{str(m)!r}], qrels, per_query=True)."
            )
        names.append(name)
    return names


def _check_cells(table: PerQueryTable, names: list[str], caller: str) -> None:
    """Refuse what would silently change a statistic: a (system, query) twice, or a missing or infinite value."""
    frame = table.frame
    keys = [c for c in (table.system, table.query) if c is not None]
    repeated = frame.duplicated(keys, keep=False).to_numpy()
    if repeated.any():
        row = frame[repeated].iloc[0]
        who = f"system {str(row[table.system])!r}, " if table.system is not None else ""
        raise InputError(
            f"{caller}: {who}query {str(row[table.query])!r} has {int((frame[keys] == row[keys]).all(axis=1).sum())} rows "
            f"in the per-query table ({int(repeated.sum())} rows repeat a (system, query) pair); each pair must appear "
            f"once, or the query would count several times. Drop the repeats, e.g. table.drop_duplicates({keys!r})."
        )
    for name in names:
        values = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = ~np.isfinite(values)
        if bad.any():
            row = frame[bad].iloc[0]
            who = f"system {str(row[table.system])!r}, " if table.system is not None else ""
            raise InputError(
                f"{caller}: {who}query {str(row[table.query])!r} has no finite value in column {name!r} "
                f"({row_label(frame[name][bad].iloc[0])}; {int(bad.sum())} such rows). Statistics need a value for every "
                "query: evaluate with missing='zero' (trec_eval -c), or drop those queries for every system."
            )


def _wide(table: PerQueryTable, names: list[str], caller: str) -> dict[str, pd.DataFrame]:
    """{system: DataFrame indexed by query id with the measure columns}; one system "run" without a system column.

    Checks the cells first (see :func:`_check_cells`).
    """
    _check_cells(table, names, caller)
    if table.system is None:
        return {SINGLE_SYSTEM: table.frame.set_index(table.query)[names]}
    return {str(name): part.set_index(table.query)[names] for name, part in table.frame.groupby(table.system, sort=False)}


def _warn(notes: list[str], caller: str) -> None:
    """One warning per call, listing every distinct note."""
    unique = list(dict.fromkeys(notes))
    if unique:
        warn(f"{caller}: " + "; ".join(unique) + ".", DegenerateDataWarning)


def _seed(rng) -> int | None:
    return int(rng) if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) else None


# ----------------------------------------------------------------------------- bootstrap


@dataclasses.dataclass(frozen=True)
class _Settings:
    n_resamples: int
    confidence_level: float
    method: str
    batch: int | None

    @property
    def alpha(self) -> float:
        return (1 - self.confidence_level) / 2


def _settings(caller, n_resamples, confidence_level, method, batch, methods=("bca", "percentile", "bootstrap-t")) -> _Settings:
    confidence_level = check_probability(confidence_level, "confidence_level", caller)
    n_resamples = check_int(n_resamples, "n_resamples", caller, low=1)
    least = math.ceil(2 / (1 - confidence_level) - 1e-9)
    if n_resamples < least:
        raise InputError(
            f"The 'n_resamples' parameter of {caller} must be at least {least} for a {confidence_level:.0%} interval "
            f"(each tail needs at least one resample; the default is 10000). Got {n_resamples} instead."
        )
    return _Settings(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=check_choice(str(method).lower(), "method", caller, methods),
        batch=None if batch is None else check_int(batch, "batch", caller, low=1),
    )


def _zero_problem(x, nonzero, sums_x, sums_nz, n, cfg: _Settings, method_used, notes) -> dict:
    """RR measures: the zero share with its Wilson interval and the MRR over non-zero queries with its interval."""
    k = int(nonzero.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio_b = sums_x / sums_nz
        nz_hat = x.sum() / k if k else math.nan
        jack_nz = (x.sum() - x) / (k - nonzero) if n > 1 else np.array([np.nan])
    nz_low, nz_high, _, nz_note = bca_or_percentile(nz_hat, ratio_b, jack_nz, cfg.alpha, method_used)
    if k == 0:
        notes.append("every query has RR = 0: the MRR over non-zero queries is undefined")
    elif nz_note:
        notes.append(f"MRR over non-zero queries: {nz_note}")
    elif np.isnan(ratio_b).any():
        notes.append(
            f"{int(np.isnan(ratio_b).sum())} of {cfg.n_resamples} resamples had no query with RR > 0; "
            "the non-zero MRR interval leaves them out"
        )
    return {
        "zero_share": 1.0 - k / n,
        "zero_share_interval": wilson_interval(n - k, n, cfg.confidence_level),
        "nonzero_estimate": nz_hat,
        "nonzero_interval": ConfidenceInterval(nz_low, nz_high),
    }


def _one_interval(name, measure, columns, col, sq_col, sums, n, cfg: _Settings) -> BootstrapResult:
    """The bootstrap result of one system x measure from the shared resampled sums (of squares: ``sq_col``)."""
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
    if cfg.method == "bootstrap-t":
        low, high, note = studentized_interval(estimate, x, sums[:, col], sums[:, sq_col], cfg.alpha)
        used = "bootstrap-t"
    else:
        low, high, used, note = bca_or_percentile(estimate, theta_b, jack, cfg.alpha, cfg.method)
    if note:
        notes.append(note)
    extra = {}
    if measure.startswith("RR"):
        ratio_method = "bca" if used == "bootstrap-t" else used
        extra = _zero_problem(x, columns[:, col + 1], sums[:, col], sums[:, col + 1], n, cfg, ratio_method, notes)
    return BootstrapResult(
        system=name,
        measure=measure,
        estimate=estimate,
        confidence_interval=ConfidenceInterval(low, high),
        standard_error=float(np.std(theta_b, ddof=1)) if cfg.n_resamples > 1 else math.nan,
        confidence_level=cfg.confidence_level,
        method=used,
        n_queries=n,
        n_resamples=cfg.n_resamples,
        bootstrap_distribution=theta_b,
        notes=tuple(notes),
        **extra,
    )


def _group_intervals(wide, queries, members, names, entropy, cfg: _Settings) -> list[BootstrapResult]:
    """Intervals of the systems that share one set of queries (sorted), resampled together (paired)."""
    blocks, layout = [], []
    for name in members:
        values = wide[name].loc[list(queries)].to_numpy(dtype=np.float64)
        for m_index, measure in enumerate(names):
            x = values[:, m_index]
            col = len(blocks)
            blocks.append(x)
            if measure.startswith("RR"):
                blocks.append((x > 0).astype(np.float64))
            if cfg.method == "bootstrap-t":
                blocks.append(x * x)
            layout.append((name, measure, col, len(blocks) - 1))
    columns = np.column_stack(blocks)
    n = columns.shape[0]
    sums = resampled_sums(columns, cfg.n_resamples, query_stream(entropy, queries), batch_size(n, cfg.batch))
    return [_one_interval(name, measure, columns, col, sq, sums, n, cfg) for name, measure, col, sq in layout]


def bootstrap(
    table: pd.DataFrame,
    measures=None,
    *,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "bca",
    rng=None,
    batch: int | None = None,
) -> BootstrapResults:
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
    BootstrapResults
        Always, whatever the number of systems and measures: index it by
        ``(system, measure)`` (a table without a system column is the one system
        ``"run"``), iterate over its :class:`BootstrapResult` values, or call
        ``.to_frame()`` for the tidy table (system, measure, estimate, ci_low,
        ci_high, standard_error, method, ...).

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
    >>> res = rankviz.stats.bootstrap(table, "RR@10", rng=0)["RR@10"]
    >>> round(res.estimate, 4), res.method
    (0.4375, 'bca')
    """
    caller = "bootstrap"
    cfg = _settings(caller, n_resamples, confidence_level, method, batch)
    resolved = per_query_table(table, caller)
    names = _measure_columns(resolved, measures, caller)
    wide = _wide(resolved, names, caller)
    entropy = call_entropy(rng, caller)
    groups: dict[tuple, list] = {}
    for name, frame in wide.items():
        groups.setdefault(tuple(sorted(frame.index)), []).append(name)
    results = [
        r for queries, members in groups.items() for r in _group_intervals(wide, queries, members, names, entropy, cfg)
    ]
    _warn([n for r in results for n in r.notes], caller)
    order = {name: i for i, name in enumerate(wide)}
    results.sort(key=lambda r: (order[r.system], names.index(r.measure)))
    return BootstrapResults(tuple(results))


# ----------------------------------------------------------------------------- comparisons


def paired_differences(table: pd.DataFrame, *, system: str, baseline: str, measure: str) -> pd.DataFrame:
    """Per-query differences ``system - baseline`` of one measure, paired by query id, sorted ascending.

    Returns
    -------
    DataFrame
        ``query_id``, ``baseline``, ``system``, ``difference``; only queries present
        for both systems.
    """
    resolved = per_query_table(table, "paired_differences")
    if resolved.system is None:
        raise ColumnError("paired_differences needs a per-query table with a system column.")
    name = _measure_columns(resolved, [measure], "paired_differences")[0]
    wide = _wide(resolved, [name], "paired_differences")
    for who in (system, baseline):
        if str(who) not in wide:
            raise InputError(f"paired_differences: unknown system {who!r}; the table has {', '.join(map(repr, wide))}.")
    joined = wide[str(baseline)][name].rename("baseline").to_frame().join(wide[str(system)][name].rename("system"), how="inner")
    if joined.empty:
        raise InputError(f"paired_differences: system {system!r} has no queries in common with baseline {baseline!r}.")
    joined["difference"] = joined["system"] - joined["baseline"]
    joined = joined.reset_index().rename(columns={resolved.query: "query_id"})
    joined = joined.sort_values(["difference", "query_id"], kind="mergesort").reset_index(drop=True)
    joined.attrs["rankviz"] = {"system": str(system), "baseline": str(baseline), "measure": name}
    return joined


def _difference_interval(d, mean, sd, sums, sums_sq, cfg: _Settings):
    """(low, high, note) of the mean difference by ``cfg.method``: 't', 'bootstrap-t', 'bca' or 'percentile'."""
    n = len(d)
    if cfg.method == "t":
        if n > 1 and sd > 0:
            half = float(_t_quantile(1 - cfg.alpha, n - 1)) * sd / math.sqrt(n)
            return mean - half, mean + half, None
        return (mean, mean, None) if n > 1 else (math.nan, math.nan, None)
    if cfg.method == "bootstrap-t":
        return studentized_interval(mean, d, sums, sums_sq, cfg.alpha)
    jack = (d.sum() - d) / (n - 1) if n > 1 else np.array([np.nan])
    low, high, _, note = bca_or_percentile(mean, sums / n, jack, cfg.alpha, cfg.method)
    return low, high, note


def _paired_row(d, b, s, sums, sums_sq, cfg: _Settings, test, p_random, label, notes) -> dict:
    """The comparison row of one system x measure from its per-query differences ``d``."""
    n = len(d)
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else math.nan
    if n > 1 and sd <= 1e-12 * max(1.0, abs(mean)):
        sd = 0.0  # equal differences up to rounding (0.3 - 0.2 vs 0.2 - 0.1): no variance, not a tiny one
    low, high, note = _difference_interval(d, mean, sd, sums, sums_sq, cfg)
    if note:
        notes.append(f"{label}: {note}")
    t_ci = _difference_interval(d, mean, sd, sums, sums_sq, dataclasses.replace(cfg, method="t"))[:2]
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    ties = n - wins - losses
    if n <= 50 and ties >= 0.5 * n:
        notes.append(
            f"{label}: {ties} of {n} queries have identical scores; with many ties "
            "at n <= 50 the paired t-interval covers better than the bootstrap interval"
        )
    if n < _SMALL_N:
        notes.append(f"only {n} paired queries: intervals and tests have little power and may under-cover")
    if test == "randomization":
        p = float(p_random)
    elif wins + losses == 0:
        p = 1.0
        notes.append(f"{label}: every difference is zero; p-value set to 1")
    elif test == "t" and not sd > 0:
        p = math.nan
        notes.append(
            f"{label}: every query changes by the same amount ({mean:+g}), so the t-test is undefined (zero variance); "
            "its p-value is NaN and left out of the correction: use test='randomization'"
        )
    elif test == "t":
        p = float(_t_test_p(d))
    else:
        from scipy.stats import wilcoxon

        p = float(wilcoxon(d, zero_method="wilcox").pvalue)
    return {
        "n_queries": n,
        "baseline_mean": float(b.mean()),
        "system_mean": float(s.mean()),
        "difference": mean,
        "ci_low": low,
        "ci_high": high,
        "ci_method": cfg.method,
        "t_ci_low": t_ci[0],
        "t_ci_high": t_ci[1],
        "p_value": p,
        "p_corrected": math.nan,
        "effect_size": mean / sd if sd and sd > 0 else (0.0 if mean == 0 else math.copysign(math.inf, mean)),
        "wins": wins,
        "ties": ties,
        "losses": losses,
    }


def _compare_one(name, baseline, base, other, names, entropy, cfg: _Settings, test, notes) -> tuple[list[dict], bool]:
    """Rows of one system against the baseline (every measure), and whether its randomization test was exact.

    The pair's resamples and sign flips come from the stream of its shared queries
    (sorted), so they do not depend on row order or on the other systems of the call.
    """
    joined = base.add_suffix("__base").join(other.add_suffix("__sys"), how="inner")
    if joined.empty:
        raise InputError(f"compare: system {name!r} has no queries in common with the baseline {baseline!r}.")
    joined = joined.loc[sorted(joined.index)]
    gen = query_stream(entropy, joined.index)
    n = len(joined)
    b_values = joined[[f"{m}__base" for m in names]].to_numpy(dtype=np.float64)
    s_values = joined[[f"{m}__sys" for m in names]].to_numpy(dtype=np.float64)
    diffs = s_values - b_values
    m = len(names)
    columns = np.column_stack([diffs, diffs**2]) if cfg.method == "bootstrap-t" else diffs
    sums = resampled_sums(columns, cfg.n_resamples, gen, batch_size(n, cfg.batch))
    sums_sq = sums[:, m:] if cfg.method == "bootstrap-t" else np.full((cfg.n_resamples, m), np.nan)
    p_values, exact = np.full(len(names), np.nan), False
    if test == "randomization":
        p_values, exact = randomization_p(diffs, cfg.n_resamples, gen, batch_size(n, cfg.batch))
    rows = []
    for i, measure in enumerate(names):
        label = f"{name} vs {baseline}, {measure}"
        row = _paired_row(diffs[:, i], b_values[:, i], s_values[:, i], sums[:, i], sums_sq[:, i], cfg, test, p_values[i], label, notes)
        rows.append({"system": name, "baseline": baseline, "measure": measure, **row})
    return rows, exact


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
) -> Comparison:
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
    Comparison
        ``.table`` has one row per system x measure: ``system``, ``baseline``,
        ``measure``, ``n_queries``, ``baseline_mean``, ``system_mean``,
        ``difference`` (system - baseline), ``ci_low``/``ci_high`` (paired
        bootstrap), ``t_ci_low``/``t_ci_high`` (paired t), ``p_value``,
        ``p_corrected``, ``effect_size`` (d_z), ``wins``, ``ties``, ``losses``; the
        result also records the test, correction, interval method, seed and which
        randomization p-values were exact.

    Notes
    -----
    Pairing is by query id, never by row order; queries present for only one of
    the two systems are left out of that pair (with ``missing='zero'`` evaluation
    every judged query is present for every system).
    """
    caller = "compare"
    cfg = _settings(caller, n_resamples, confidence_level, method, batch, methods=DIFFERENCE_INTERVALS)
    test = check_choice(test, "test", caller, ("randomization", "t", "wilcoxon"))
    correction = check_choice(correction, "correction", caller, ("holm", "bh", None))
    resolved = per_query_table(table, caller)
    if resolved.system is None:
        raise ColumnError(
            "compare needs several systems: a per-query table with a 'system' column, or a run frame with one "
            "(df.rank.compare), or a dict of runs (rankviz.compare)."
        )
    names = _measure_columns(resolved, measures, caller)
    wide = _wide(resolved, names, caller)
    baseline = str(baseline)
    if baseline not in wide:
        raise InputError(f"compare: unknown baseline {baseline!r}; the systems are {', '.join(map(repr, wide))}.")
    others = [s for s in wide if s != baseline]
    if not others:
        raise InputError(f"compare: there is no system to compare with the baseline {baseline!r}.")
    entropy = call_entropy(rng, caller)
    rows, notes, exact_systems = [], [], []
    for name in others:
        part, exact = _compare_one(name, baseline, wide[baseline], wide[name], names, entropy, cfg, test, notes)
        rows.extend(part)
        if exact:
            exact_systems.append(name)
    result = pd.DataFrame(rows)
    p = result["p_value"].to_numpy()
    result["p_corrected"] = holm(p) if correction == "holm" else benjamini_hochberg(p) if correction == "bh" else p
    _warn(notes, caller)
    return Comparison(
        table=result, baseline=baseline, test=test, correction=correction, method=cfg.method,
        confidence_level=cfg.confidence_level, n_resamples=cfg.n_resamples, rng=_seed(rng),
        exact_randomization=tuple(exact_systems), notes=tuple(dict.fromkeys(notes)),
    )
