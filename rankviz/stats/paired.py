"""Paired comparisons of systems: per-query differences, tests, intervals, power.

Systems are paired by query id, never by row order. For each system x measure
against a baseline: the mean difference ``system - baseline`` with an interval
(``method=``: the paired t-interval, the studentized bootstrap, BCa or percentile),
a p-value from Fisher's randomization (sign-flip) test with the +1 correction
(exact when every sign vector can be enumerated), the paired t-test or Wilcoxon's
signed-rank test, Holm or Benjamini-Hochberg correction over the call, the effect
size d_z and win/tie/loss counts. :func:`power` gives the power of a paired t-test
and the number of queries a target power needs.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.checks import check_choice
from .._core.options import with_options
from .._errors import ColumnError, InputError
from ..io.per_query import per_query_table
from .inference import (
    SMALL_N,
    benjamini_hochberg_kept_nan,
    holm_kept_nan,
    t_quantile,
    t_test_p,
    warn_notes,
    wide_by_system,
)
from .options import StatsGroup, StatsKeywords, StatsOptions
from .power_analysis import PowerResult, power_of
from .resampling import (
    batch_size,
    bca_or_percentile,
    query_stream,
    randomization_p,
    resampled_sums,
    studentized_interval,
)
from .results import Comparison
from .segments import heterogeneity, quietly, segment_columns, segment_label, segment_order, with_categories

__all__ = ["DIFFERENCE_INTERVALS", "paired_differences", "compare", "compare_of", "power"]

#: intervals of a paired mean difference that compare() offers (``method=``)
DIFFERENCE_INTERVALS = ("t", "bootstrap-t", "bca", "percentile")


def paired_differences(table: pd.DataFrame, *, system: str, baseline: str, measure: str) -> pd.DataFrame:
    """Per-query differences ``system - baseline`` of one measure, paired by query id, sorted ascending.

    Parameters
    ----------
    table : DataFrame
        A per-query table with a ``system`` column (``rankviz.evaluate(..., per_query=True)``).
    system : str
        The system whose values come first in the difference.
    baseline : str
        The system subtracted.
    measure : str
        The measure column.

    Returns
    -------
    DataFrame
        ``query_id``, ``baseline``, ``system``, ``difference``; only queries present
        for both systems.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"system": ["a", "a", "b", "b"], "query_id": ["q1", "q2"] * 2, "RR@10": [1.0, 0.5, 0.5, 0.5]})
    >>> rankviz.stats.paired_differences(table, system="a", baseline="b", measure="RR@10")
      query_id  baseline  system  difference
    0       q2       0.5     0.5         0.0
    1       q1       0.5     1.0         0.5
    """
    resolved = per_query_table(table, "paired_differences")
    if resolved.system is None:
        raise ColumnError("paired_differences needs a per-query table with a system column.")
    name = resolved.measure_columns([measure], "paired_differences")[0]
    wide = wide_by_system(resolved, [name], "paired_differences")
    for who in (system, baseline):
        if str(who) not in wide:
            raise InputError(f"paired_differences: unknown system {who!r}; the table has {', '.join(map(repr, wide))}.")
    joined = (
        wide[str(baseline)][name]
        .rename("baseline")
        .to_frame()
        .join(wide[str(system)][name].rename("system"), how="inner")
    )
    if joined.empty:
        raise InputError(f"paired_differences: system {system!r} has no queries in common with baseline {baseline!r}.")
    joined["difference"] = joined["system"] - joined["baseline"]
    joined = joined.reset_index().rename(columns={resolved.query: "query_id"})
    joined = joined.sort_values(["difference", "query_id"], kind="mergesort").reset_index(drop=True)
    joined.attrs["rankviz"] = {"system": str(system), "baseline": str(baseline), "measure": name}
    return joined


def _difference_interval(d, mean, sd, sums, sums_sq, cfg: StatsOptions):
    """(low, high, note) of the mean difference by ``cfg.method``: 't', 'bootstrap-t', 'bca' or 'percentile'."""
    n = len(d)
    if cfg.method == "t":
        if n > 1 and sd > 0:
            half = float(t_quantile(1 - cfg.alpha, n - 1)) * sd / math.sqrt(n)
            return mean - half, mean + half, None
        return (mean, mean, None) if n > 1 else (math.nan, math.nan, None)
    if cfg.method == "bootstrap-t":
        return studentized_interval(mean, d, sums, sums_sq, cfg.alpha)
    jack = (d.sum() - d) / (n - 1) if n > 1 else np.array([np.nan])
    low, high, _, note = bca_or_percentile(mean, sums / n, jack, cfg.alpha, cfg.method)
    return low, high, note


def _paired_row(d, b, s, sums, sums_sq, cfg: StatsOptions, test, p_random, label, notes) -> dict:
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
    if cfg.method != "t" and n <= 100:
        notes.append(  # one note for the whole call (no label): it is about the method, not about a pair
            f"a {cfg.method} interval of a mean difference covers less than its level on up to 100 queries "
            "with tied scores (0.83-0.94 for 95% in benchmarks/coverage.py); the default paired t-interval holds"
        )
    if n < SMALL_N:
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
        p = float(t_test_p(d))
    else:
        from scipy.stats import wilcoxon

        p = float(wilcoxon(d, zero_method="wilcox").pvalue)
    # the paired t-interval beside another method's; with method='t' it is ci_low/ci_high already
    t_columns = {} if cfg.method == "t" else {"t_ci_low": t_ci[0], "t_ci_high": t_ci[1]}
    return {
        "n_queries": n,
        "baseline_mean": float(b.mean()),
        "system_mean": float(s.mean()),
        "difference": mean,
        "ci_low": low,
        "ci_high": high,
        "ci_method": cfg.method,
        **t_columns,
        "p_value": p,
        "p_corrected": math.nan,
        "effect_size": mean / sd if sd and sd > 0 else (0.0 if mean == 0 else math.copysign(math.inf, mean)),
        "wins": wins,
        "ties": ties,
        "losses": losses,
    }


def _shared_queries(base_ids: pd.Index, other_ids: pd.Index) -> tuple[list, np.ndarray, np.ndarray]:
    """The query ids both have, sorted, and their row positions in each (ids are unique per system)."""
    in_base = base_ids.get_indexer(other_ids)
    s_rows = np.flatnonzero(in_base >= 0)
    ids = other_ids[s_rows].tolist()
    order = sorted(range(len(ids)), key=ids.__getitem__)
    s_rows = s_rows[order]
    return [ids[i] for i in order], in_base[s_rows], s_rows


def _compare_one(
    name, baseline, base, other, names, entropy, cfg: StatsOptions, test, notes
) -> tuple[list[dict], bool]:
    """Rows of one system against the baseline (every measure), and whether its randomization test was exact.

    The pair's resamples and sign flips come from the stream of its shared queries
    (sorted), so they do not depend on row order or on the other systems of the call.
    """
    shared, b_rows, s_rows = _shared_queries(base.index, other.index)
    if not len(shared):
        raise InputError(f"compare: system {name!r} has no queries in common with the baseline {baseline!r}.")
    gen = query_stream(entropy, shared)
    n = len(shared)
    b_values = base.to_numpy(dtype=np.float64)[b_rows]
    s_values = other.to_numpy(dtype=np.float64)[s_rows]
    diffs = s_values - b_values
    m = len(names)
    columns = np.column_stack([diffs, diffs**2]) if cfg.method == "bootstrap-t" else diffs
    sums = resampled_sums(columns, cfg.n_resamples, gen, batch_size(n, cfg.batch), caller="compare")
    sums_sq = sums[:, m:] if cfg.method == "bootstrap-t" else np.full((cfg.n_resamples, m), np.nan)
    p_values, exact = np.full(len(names), np.nan), False
    if test == "randomization":
        p_values, exact = randomization_p(diffs, cfg.n_resamples, gen, batch_size(n, cfg.batch))
    rows = []
    for i, measure in enumerate(names):
        label = f"{name} vs {baseline}, {measure}"
        row = _paired_row(
            diffs[:, i], b_values[:, i], s_values[:, i], sums[:, i], sums_sq[:, i], cfg, test, p_values[i], label, notes
        )
        rows.append({"system": name, "baseline": baseline, "measure": measure, **row})
    return rows, exact


@with_options(StatsGroup(methods=DIFFERENCE_INTERVALS, method="t"))
def compare(
    stats_options: StatsOptions,
    table: pd.DataFrame,
    *,
    baseline: str,
    measures=None,
    test: str = "randomization",
    correction: str | None = "holm",
    **_: Unpack[StatsKeywords],
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

    Returns
    -------
    Comparison
        ``.table`` has one row per system x measure: ``system``, ``baseline``,
        ``measure``, ``n_queries``, ``baseline_mean``, ``system_mean``,
        ``difference`` (system - baseline), ``ci_low``/``ci_high`` and
        ``ci_method`` (the interval of ``method``), ``t_ci_low``/``t_ci_high``
        (the paired t-interval, only when ``method`` is another one), ``p_value``,
        ``p_corrected``, ``effect_size`` (d_z), ``wins``, ``ties``, ``losses``; the
        result also records the test, correction, interval method, seed and which
        randomization p-values were exact. Shown in a notebook, it gives the
        columns a reader needs first (:attr:`Comparison.KEY_COLUMNS`) and the rest
        on demand; ``.key_columns`` is that table, ``.table`` and ``.to_frame()`` all
        of them. A table with segment columns (named in ``attrs["rankviz"]["by"]``, as
        ``rankviz.evaluate(..., by=..., per_query=True)`` names them) gives a row per
        system x segment x measure (a query's segment is the baseline's), the correction
        over all of them, and ``.heterogeneity`` (see :mod:`rankviz.stats.segments`).

    Notes
    -----
    ``method`` chooses the interval of the mean difference in ``ci_low``/``ci_high`` (named in
    ``ci_method``). The default, the paired t-interval, is the one that holds its level on
    IR-shaped paired data: in ``benchmarks/coverage.py`` (latent-difficulty model, 30-70% tied
    queries, RR- and nDCG-like, n = 25-100) it covered 0.940-0.954 at 95% (20,000 replicates per
    cell), the bootstrap intervals 0.83-0.95 (2,000; short at n <= 50). See ``docs/statistics.md``.
    ``n_resamples`` serves a bootstrap interval and the randomization test.

    Pairing is by query id, never by row order; queries present for only one of
    the two systems are left out of that pair (with ``missing='zero'`` evaluation
    every judged query is present for every system).
    """
    return compare_of(table, baseline=baseline, measures=measures, test=test, correction=correction, cfg=stats_options)


def compare_of(
    table, *, baseline, measures, test, correction, cfg: StatsOptions, caller: str = "compare"
) -> Comparison:
    """:func:`compare` with its statistics options already validated (what ``rankviz.compare`` calls)."""
    test = check_choice(test, "test", caller, ("randomization", "t", "wilcoxon"))
    correction = check_choice(correction, "correction", caller, ("holm", "bh", None))
    by = segment_columns(table)
    if by:
        return _segmented(table, baseline, measures, by, test, correction, cfg, caller)
    resolved = per_query_table(table, caller)
    if resolved.system is None:
        raise ColumnError(
            "compare needs several systems: a per-query table with a 'system' column, or a run frame with one "
            "(df.rank.compare), or a dict of runs (rankviz.compare)."
        )
    names = resolved.measure_columns(measures, caller)
    wide = wide_by_system(resolved, names, caller)
    baseline = str(baseline)
    if baseline not in wide:
        raise InputError(f"compare: unknown baseline {baseline!r}; the systems are {', '.join(map(repr, wide))}.")
    others = [s for s in wide if s != baseline]
    if not others:
        raise InputError(f"compare: there is no system to compare with the baseline {baseline!r}.")
    entropy = cfg.entropy
    rows, exact_systems = [], []
    notes: list[str] = []
    for name in others:
        part, exact = _compare_one(name, baseline, wide[baseline], wide[name], names, entropy, cfg, test, notes)
        rows.extend(part)
        if exact:
            exact_systems.append(name)
    result = pd.DataFrame(rows)
    p = result["p_value"].to_numpy()
    result["p_corrected"] = (
        holm_kept_nan(p) if correction == "holm" else benjamini_hochberg_kept_nan(p) if correction == "bh" else p
    )
    warn_notes(notes, caller)
    return Comparison(
        table=result,
        baseline=baseline,
        test=test,
        correction=correction,
        method=cfg.method,
        confidence_level=cfg.level,
        n_resamples=cfg.n_resamples,
        rng=cfg.seed,
        exact_randomization=tuple(exact_systems),
        notes=tuple(dict.fromkeys(notes)),
    )


def _segmented(table, baseline, measures, by: list[str], test, correction, cfg: StatsOptions, caller) -> Comparison:
    """Paired comparisons per segment: the unsegmented comparison on each segment's queries, corrected once over all.

    A query's segment is the baseline's (so a per-system attribute such as ``first_hit`` slices each
    pair by the baseline's value). ``p_value`` and the interval of a row are those of ``compare`` on
    the segment's queries; ``p_corrected`` is ``correction`` over every system x segment x measure row.
    """
    resolved = per_query_table(table, caller)
    if resolved.system is None:
        raise InputError(f"{caller} needs several systems: a per-query table with a 'system' column.")
    names = [c for c in resolved.numeric_columns() if c not in by] if measures is None else None
    names = names or resolved.measure_columns(measures, caller)
    table = with_categories(resolved.frame, by).rename(columns={resolved.system: "system", resolved.query: "query_id"})
    baseline = str(baseline)
    base_rows = table[table["system"].astype(str) == baseline]
    if base_rows.empty:
        systems = ", ".join(map(repr, dict.fromkeys(table["system"].astype(str))))
        raise InputError(f"{caller}: unknown baseline {baseline!r}; the systems are {systems}.")
    segment_of = base_rows.set_index(base_rows["query_id"].astype(str))[by]
    ids = table["query_id"].astype(str)
    frame = table.assign(
        **{b: pd.Categorical(ids.map(segment_of[b].astype(object)), categories=table[b].cat.categories, ordered=True)
           for b in by}
    )  # fmt: skip
    frame = frame[frame[by].notna().all(axis=1)]
    rows, notes, exact = [], [], []
    for key, part in frame.groupby(by, sort=True, observed=True):
        if part["system"].nunique() < 2:
            continue
        result = quietly(compare_of, part.drop(columns=by), baseline=baseline, measures=names, test=test,
                         correction=None, cfg=cfg, caller=caller)  # fmt: skip
        label = segment_label(by, key)
        notes += [f"{label}: {n}" for n in result.notes]
        exact += [f"{s} ({label})" for s in result.exact_randomization]
        key = key if isinstance(key, tuple) else (key,)
        rows.append(result.table.assign(**dict(zip(by, key))))
    if not rows:
        raise InputError(f"{caller}: no segment holds the baseline and another system.")
    result = pd.concat(rows, ignore_index=True)
    p = result["p_value"].to_numpy()
    result["p_corrected"] = (
        holm_kept_nan(p) if correction == "holm" else benjamini_hochberg_kept_nan(p) if correction == "bh" else p
    )
    order = segment_order(list(dict.fromkeys(frame["system"].astype(str))), frame, by, names)
    position = sorted(range(len(result)), key=lambda i: order(
        str(result["system"].iat[i]), [result[b].iat[i] for b in by], result["measure"].iat[i]))  # fmt: skip
    result = result.iloc[position].reset_index(drop=True)
    for b in by:
        result[b] = pd.Categorical(result[b], categories=frame[b].cat.categories, ordered=True)
    front = ["system", "baseline", *by, "measure"]
    result = result[front + [c for c in result.columns if c not in front]]
    varies = heterogeneity(frame, baseline=baseline, names=names, by=by, cfg=cfg)
    warn_notes(notes, caller)
    return Comparison(
        table=result, baseline=baseline, test=test, correction=correction, method=cfg.method,
        confidence_level=cfg.level, n_resamples=cfg.n_resamples, rng=cfg.seed, exact_randomization=tuple(exact),
        notes=tuple(dict.fromkeys(notes)), by=tuple(by), heterogeneity=varies,
    )  # fmt: skip


# ----------------------------------------------------------------------------- power


def power(
    table: pd.DataFrame | None = None,
    *,
    system: str | None = None,
    baseline: str | None = None,
    measure: str | None = None,
    difference: float | None = None,
    sd: float | None = None,
    n_queries: int | None = None,
    target_power: float | None = None,
    alpha: float = 0.05,
) -> PowerResult:
    """Power of a paired comparison at ``n_queries``, or the number of queries a target power needs.

    The two-sided paired t-test on per-query differences with standard deviation
    ``sd``: its statistic follows a noncentral t distribution with ``n - 1`` degrees of
    freedom and noncentrality ``difference * sqrt(n) / sd``. With ``target_power`` the
    smallest ``n`` that reaches it (Sakai's topic set size design; Sakai, Information
    Retrieval Journal 19, 2016). ``benchmarks/coverage.py`` and the tests check it
    against simulation.

    Parameters
    ----------
    table : DataFrame, optional
        A per-query table with a ``system`` column (``rankviz.evaluate(...,
        per_query=True)``): ``sd`` is the standard deviation of the per-query
        differences ``system - baseline`` of ``measure``; ``difference`` defaults to
        their mean and ``n_queries`` to their number.
    system, baseline, measure : str, optional
        Which pair and measure of ``table``.
    difference : float, optional
        The true mean difference to detect (default: the observed one).
    sd : float, optional
        Standard deviation of the per-query differences (instead of a table).
    n_queries : int, optional
        The number of queries whose power is wanted (default: the table's).
    target_power : float, optional
        Find the smallest number of queries with at least this power instead.
    alpha : float, default 0.05
        Two-sided significance level.

    Returns
    -------
    PowerResult

    Examples
    --------
    >>> import rankviz
    >>> rankviz.stats.power(difference=0.02, sd=0.1, n_queries=50)
    PowerResult(n_queries=50, power=0.284, difference=0.0200, sd=0.1000, effect_size=0.200, alpha=0.05)
    >>> rankviz.stats.power(difference=0.02, sd=0.1, target_power=0.8).n_queries
    199
    """
    if table is not None:
        if system is None or baseline is None or measure is None:
            raise InputError(
                "power: with a per-query table, name the system=, the baseline= and the measure= to compare."
            )
        d = paired_differences(table, system=system, baseline=baseline, measure=measure)["difference"].to_numpy()
        if sd is None:
            sd = float(d.std(ddof=1)) if len(d) > 1 else math.nan
        difference = float(d.mean()) if difference is None else difference
        if n_queries is None and target_power is None:
            n_queries = len(d)
    if sd is None or difference is None:
        raise InputError(
            "power needs the difference to detect and the sd of per-query differences (or a per-query table)."
        )
    return power_of(difference, sd, n_queries=n_queries, target_power=target_power, alpha=alpha)
