"""Bootstrap intervals of per-query means, paired across systems, with the zero problem of RR measures."""

from __future__ import annotations

import dataclasses
import math
from typing import Unpack, cast

import numpy as np
import pandas as pd

from .._core.options import with_options
from ..io.per_query import is_reciprocal_rank, per_query_table
from .inference import SMALL_N, warn_notes, wide_by_system, wilson_interval
from .options import STATS, StatsKeywords, StatsOptions
from .resampling import (
    batch_size,
    bca_or_percentile,
    query_stream,
    resampled_sums,
    studentized_interval,
)
from .results import BootstrapResult, BootstrapResults, ConfidenceInterval
from .segments import quietly, segment_columns, segment_label, segment_order, with_categories

#: a mean's interval under-covers when fewer than FEW_NONZERO queries are non-zero and at least ZERO_HEAVY of them
#: are zero: calibrated by benchmarks/coverage.py (fires with probability >= 0.927 in every cell under 0.93 coverage
#: and <= 0.093 in every cell at 0.94 or more, exact binomial sums; see docs/statistics.md)
FEW_NONZERO = 15
ZERO_HEAVY = 0.8

__all__ = ["bootstrap", "bootstrap_of", "FEW_NONZERO", "ZERO_HEAVY"]

# ----------------------------------------------------------------------------- bootstrap


def _zero_problem(x, nonzero, sums_x, sums_nz, n, cfg: StatsOptions, method_used, notes) -> dict:
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
        "zero_share_interval": wilson_interval(n - k, n, cfg.level),
        "nonzero_estimate": nz_hat,
        "nonzero_interval": ConfidenceInterval(nz_low, nz_high),
    }


def _one_interval(name, measure, columns, col, sq_col, sums, n, cfg: StatsOptions) -> BootstrapResult:
    """The bootstrap result of one system x measure from the shared resampled sums (of squares: ``sq_col``)."""
    x = columns[:, col]
    notes = []
    if n < SMALL_N:
        notes.append(
            f"only {n} queries: bootstrap intervals under-cover below about 20 queries "
            "(percentile worst); report the t-interval too and read the interval as optimistic"
        )
    if np.all(x == x[0]):
        notes.append(f"all {n} queries have the same {measure} ({x[0]:g}); the interval is degenerate")
    elif np.count_nonzero(x) < FEW_NONZERO and np.count_nonzero(x == 0) >= ZERO_HEAVY * n:
        notes.append(
            f"{measure} of {name!r} is non-zero on only {np.count_nonzero(x)} of {n} queries: with so few, no bootstrap "
            f"interval of the mean holds its {cfg.level:.0%} coverage (0.67-0.91 measured; see "
            "docs/statistics.md). Report the share of zero queries (its Wilson interval holds) beside the mean, and "
            "evaluate more queries"
        )
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
    if is_reciprocal_rank(measure):
        ratio_method = "bca" if used == "bootstrap-t" else used
        extra = _zero_problem(x, columns[:, col + 1], sums[:, col], sums[:, col + 1], n, cfg, ratio_method, notes)
    return BootstrapResult(
        system=name,
        measure=measure,
        estimate=estimate,
        confidence_interval=ConfidenceInterval(low, high),
        standard_error=float(np.std(theta_b, ddof=1)) if cfg.n_resamples > 1 else math.nan,
        confidence_level=cfg.level,
        method=used,
        n_queries=n,
        n_resamples=cfg.n_resamples,
        bootstrap_distribution=theta_b,
        notes=tuple(notes),
        **extra,
    )


def _group_intervals(wide, queries, members, names, entropy, cfg: StatsOptions) -> list[BootstrapResult]:
    """Intervals of the systems that share one set of queries (sorted), resampled together (paired)."""
    blocks: list[np.ndarray] = []
    layout = []
    for name in members:
        values = wide[name].loc[list(queries)].to_numpy(dtype=np.float64)
        for m_index, measure in enumerate(names):
            x = values[:, m_index]
            col = len(blocks)
            blocks.append(x)
            if is_reciprocal_rank(measure):
                blocks.append((x > 0).astype(np.float64))
            if cfg.method == "bootstrap-t":
                blocks.append(x * x)
            layout.append((name, measure, col, len(blocks) - 1))
    columns = np.column_stack(blocks)
    n = columns.shape[0]
    sums = resampled_sums(columns, cfg.n_resamples, query_stream(entropy, queries), batch_size(n, cfg.batch))
    return [_one_interval(name, measure, columns, col, sq, sums, n, cfg) for name, measure, col, sq in layout]


@with_options(STATS)
def bootstrap(
    stats_options: StatsOptions, table: pd.DataFrame, measures=None, **_: Unpack[StatsKeywords]
) -> BootstrapResults:
    """Bootstrap confidence intervals of mean measures, resampling queries.

    Parameters
    ----------
    table : DataFrame
        A per-query table: ``query_id``, optional ``system``, one column per measure.
    measures : str or list of str, optional
        Which measure columns (names like ``"RR@10"``; aliases are parsed). Default: all.

    Returns
    -------
    BootstrapResults
        Always, whatever the number of systems and measures: index it by
        ``(system, measure)`` (a table without a system column is the one system
        ``"run"``), iterate over its :class:`BootstrapResult` values, or call
        ``.to_frame()`` for the tidy table (system, measure, estimate, ci_low,
        ci_high, standard_error, method, ...). A table with segment columns (named in
        ``attrs["rankviz"]["by"]``, as ``rankviz.evaluate(..., by=..., per_query=True)``
        names them) gives one interval per system x segment x measure, each that of the
        unsegmented bootstrap on the segment's rows (see :mod:`rankviz.stats.segments`).

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
    return bootstrap_of(table, measures, stats_options)


def bootstrap_of(table: pd.DataFrame, measures, cfg: StatsOptions, caller: str = "bootstrap") -> BootstrapResults:
    """:func:`bootstrap` with its options already validated (what the run-level functions call)."""
    by = segment_columns(table)
    if by:
        return _segmented(table, measures, by, cfg, caller)
    resolved = per_query_table(table, caller)
    names = resolved.measure_columns(measures, caller)
    wide = wide_by_system(resolved, names, caller)
    entropy = cfg.entropy
    groups: dict[tuple, list] = {}
    for name, frame in wide.items():
        groups.setdefault(tuple(sorted(frame.index)), []).append(name)
    results = [
        r for queries, members in groups.items() for r in _group_intervals(wide, queries, members, names, entropy, cfg)
    ]
    warn_notes([n for r in results for n in r.notes], caller)
    order = {name: i for i, name in enumerate(wide)}
    results.sort(key=lambda r: (order[r.system], names.index(r.measure)))
    return BootstrapResults(tuple(results))


def _segmented(table: pd.DataFrame, measures, by: list[str], cfg: StatsOptions, caller: str) -> BootstrapResults:
    """Bootstrap intervals per segment: the unsegmented bootstrap of each segment's rows.

    Each result's ``estimate`` and ``zero_share`` (given for every measure, with its Wilson
    interval) are those of a pandas groupby of the table, to the last bit.
    """
    resolved = per_query_table(table, caller)
    names = [c for c in resolved.numeric_columns() if c not in by] if measures is None else None
    names = names or resolved.measure_columns(measures, caller)
    frame = with_categories(resolved.frame, by)
    system = resolved.system or "system"
    if resolved.system is None:
        frame = frame.assign(system="run")
    keys = [frame[system].astype(str), *[frame[b] for b in by]]
    means = frame[names].groupby(keys, observed=True).mean()  # the groupby a user writes, to the last bit
    zeros = frame[names].eq(0).groupby(keys, observed=True).sum()
    results, notes = [], []
    for key, part in frame.groupby(by, sort=True, observed=True):
        own = quietly(bootstrap_of, part.drop(columns=by), names, cfg, caller)
        label = segment_label(by, key)
        key = key if isinstance(key, tuple) else (key,)
        for r in own:
            cell, n = (r.system, *key), r.n_queries
            count = zeros.at[cell, r.measure]
            results.append(
                dataclasses.replace(
                    r,
                    estimate=means.at[cell, r.measure],
                    zero_share=count / n,
                    zero_share_interval=wilson_interval(int(cast(float, count)), n, cfg.level),
                    notes=tuple(f"{label}: {note}" for note in r.notes),
                    segment=tuple(zip(by, key)),
                )
            )
            notes += results[-1].notes
    order = segment_order(list(dict.fromkeys(frame[system].astype(str))), frame, by, names)
    results.sort(key=lambda r: order(r.system, [v for _, v in r.segment], r.measure))
    warn_notes(notes, caller)
    categories = tuple(tuple(frame[b].cat.categories) for b in by)
    return BootstrapResults(tuple(results), by=tuple(by), categories=categories)
