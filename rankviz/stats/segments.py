"""Statistics per segment of the queries: intervals, paired comparisons, and whether a difference varies.

A *segmented* per-query table is a per-query table with one or several segment columns (what
``rankviz.evaluate(..., by=..., per_query=True)`` returns). The statistics of one segment are
exactly those of the unsliced function on that segment's rows:

- :func:`bootstrap_by_of`: :func:`~rankviz.stats.intervals.bootstrap_of` on each segment (BCa by
  default; the zero-heavy warning of ``docs/statistics.md`` fires per segment), beside the mean,
  ``n`` and zero share of a pandas groupby;
- :func:`compare_by_of`: :func:`~rankviz.stats.paired.compare_of` on each segment (the paired
  t-interval and the randomization test by default), the multiple-comparison correction then
  applied once over every system x segment x measure of the call; and per system x measure a test
  of whether the difference varies across segments (:func:`heterogeneity`).

A system's resamples depend only on the seed and its query ids (:func:`~rankviz.stats.resampling.query_stream`),
so a segment's interval is the same in the sliced call as in the unsliced call on its queries.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import cast

import numpy as np
import pandas as pd

from .._errors import DegenerateDataWarning, InputError
from .inference import benjamini_hochberg_kept_nan, holm_kept_nan, warn_notes, wilson_interval
from .intervals import bootstrap_of
from .options import StatsOptions
from .paired import compare_of
from .resampling import query_stream
from .results import html_table

__all__ = ["Slices", "bootstrap_by_of", "compare_by_of", "heterogeneity"]


@dataclasses.dataclass(frozen=True, repr=False)
class Slices:
    """Per-segment statistics of one call (``bootstrap(..., by=)`` or ``compare(..., by=)``).

    Attributes
    ----------
    table : DataFrame
        One row per system x segment x measure (see :func:`bootstrap_by_of`, :func:`compare_by_of`).
    by : tuple of str
        The segment columns.
    kind : {'bootstrap', 'compare'}
    heterogeneity : DataFrame or None
        ``compare`` only: per system x measure, the permutation test of whether the difference
        varies across segments (:func:`heterogeneity`).
    baseline, test, correction, method, confidence_level, n_resamples, rng, notes
        How it was computed (as :class:`~rankviz.stats.Comparison` records them).
    """

    table: pd.DataFrame
    by: tuple[str, ...]
    kind: str
    method: str
    confidence_level: float
    n_resamples: int
    rng: int | None
    baseline: str | None = None
    test: str | None = None
    correction: str | None = None
    heterogeneity: pd.DataFrame | None = None
    notes: tuple[str, ...] = ()

    def to_frame(self) -> pd.DataFrame:
        """The per-segment table (a copy)."""
        return self.table.copy()

    def __len__(self) -> int:
        return len(self.table)

    def _head(self) -> str:
        segments = ", ".join(self.by)
        if self.kind == "compare":
            return (
                f"Per-segment comparison against {self.baseline!r} by {segments}: {self.test} test, correction="
                f"{self.correction} over {len(self.table)} system x segment x measure rows, "
                f"{self.confidence_level:.0%} {self.method} interval, rng={self.rng}"
            )
        return f"Per-segment {self.confidence_level:.0%} {self.method} intervals by {segments}, rng={self.rng}"

    def _shown(self) -> pd.DataFrame:
        if self.kind == "compare":
            columns = ["system", *self.by, "measure", "n_queries", "difference", "ci_low", "ci_high", "p_corrected"]
        else:
            columns = ["system", *self.by, "measure", "n", "mean", "ci_low", "ci_high", "zero_share"]
        return self.table[columns]

    def __repr__(self) -> str:
        text = f"{self._head()}\n{self._shown().round(4).to_string(index=False)}"
        if self.heterogeneity is not None:
            shown = self.heterogeneity[["system", "measure", "n_segments", "statistic", "p_value"]]
            text += f"\nDoes the difference vary across segments? (permutation test)\n{shown.round(4).to_string(index=False)}"
        return text

    def _repr_html_(self) -> str:
        body = html_table(self._shown(), self._head(), self.notes)
        if self.heterogeneity is not None:
            body += html_table(self.heterogeneity, "Does the difference vary across segments? (permutation test)")
        return body


def _segments(table: pd.DataFrame, by, caller: str) -> list[str]:
    by = [by] if isinstance(by, str) else list(by)
    absent = [b for b in by if b not in table.columns]
    if absent:
        raise InputError(f"{caller}: the per-query table has no segment column {absent[0]!r}.")
    return by


def _quiet(func, *args, **kwargs):
    """Call a statistic with its DegenerateDataWarning held back (the notes are gathered and said once)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return func(*args, **kwargs)


def _label(by, key) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{b}={k}" for b, k in zip(by, key))


def bootstrap_by_of(table: pd.DataFrame, names: list[str], by, cfg: StatsOptions, caller: str = "bootstrap") -> Slices:
    """Bootstrap intervals per segment: :func:`bootstrap_of` on each segment's rows.

    The table has ``system``, the segment columns, ``measure``, ``n``, ``mean`` and
    ``zero_share`` (a pandas groupby of the per-query table), ``ci_low``/``ci_high``,
    ``method`` (BCa, or percentile where BCa is undefined), ``standard_error`` and the zero
    share's Wilson interval ``zero_share_ci_low``/``zero_share_ci_high``.
    """
    by = _segments(table, by, caller)
    frame = table if "system" in table.columns else table.assign(system="run")
    keys = [frame["system"].astype(str), *[frame[b] for b in by]]
    means = frame[names].groupby(keys, observed=True).mean()  # the groupby a user writes, to the last bit
    zeros = frame[names].eq(0).groupby(keys, observed=True).sum()
    rows, notes = [], []
    for key, part in frame.groupby(by, sort=True, observed=True):
        results = _quiet(bootstrap_of, part.drop(columns=by), names, cfg, caller)
        notes += [f"{_label(by, key)}: {n}" for n in results.notes]
        key = key if isinstance(key, tuple) else (key,)
        for r in results:
            cell, n = (r.system, *key), r.n_queries
            zero_ci = wilson_interval(int(cast(float, zeros.at[cell, r.measure])), n, cfg.level)
            rows.append(
                {
                    "system": r.system,
                    **dict(zip(by, key)),
                    "measure": r.measure,
                    "n": n,
                    "mean": means.at[cell, r.measure],
                    "zero_share": zeros.at[cell, r.measure] / n,
                    "ci_low": r.confidence_interval.low,
                    "ci_high": r.confidence_interval.high,
                    "method": r.method,
                    "standard_error": r.standard_error,
                    "zero_share_ci_low": zero_ci.low,
                    "zero_share_ci_high": zero_ci.high,
                }  # fmt: skip
            )
    result = _ordered(pd.DataFrame(rows), frame, by, names)
    warn_notes(notes, caller)
    return Slices(result, tuple(by), "bootstrap", cfg.method, cfg.level, cfg.n_resamples, cfg.seed,
                  notes=tuple(dict.fromkeys(notes)))  # fmt: skip


def _ordered(result: pd.DataFrame, frame: pd.DataFrame, by, names) -> pd.DataFrame:
    """Rows by system (in the table's order), segment (in category order), measure (as asked)."""
    systems = {s: i for i, s in enumerate(dict.fromkeys(frame["system"].astype(str)))}
    for b in by:
        result[b] = pd.Categorical(result[b], categories=frame[b].cat.categories, ordered=True)
    order = pd.DataFrame({"s": result["system"].map(systems), "m": result["measure"].map(names.index)})
    keys = [order["s"], *[result[b].cat.codes for b in by], order["m"]]
    position = np.lexsort([k.to_numpy() for k in keys[::-1]])
    return result.iloc[position].reset_index(drop=True)


def compare_by_of(
    table: pd.DataFrame, *, baseline, names: list[str], by, test, correction, cfg: StatsOptions, caller="compare"
) -> Slices:
    """Paired comparisons per segment: :func:`compare_of` on each segment's queries, corrected once over all.

    A query's segment is the baseline's (so a per-system attribute such as ``first_hit`` slices each
    pair by the baseline's value). The table has ``system``, ``baseline``, the segment columns,
    ``measure`` and every column of :func:`rankviz.stats.compare`; ``p_value`` and the interval are
    those of ``compare`` on the segment's queries; ``p_corrected`` is ``correction`` (Holm or
    Benjamini-Hochberg) over every system x segment x measure row of the call.
    """
    by = _segments(table, by, caller)
    if "system" not in table.columns:
        raise InputError(f"{caller} needs several systems: a per-query table with a 'system' column.")
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
    rows, notes = [], []
    for key, part in frame.groupby(by, sort=True, observed=True):
        if part["system"].nunique() < 2:
            continue
        result = _quiet(compare_of, part.drop(columns=by), baseline=baseline, measures=names, test=test,
                        correction=None, cfg=cfg, caller=caller)  # fmt: skip
        notes += [f"{_label(by, key)}: {n}" for n in result.notes]
        key = key if isinstance(key, tuple) else (key,)
        rows.append(result.table.assign(**dict(zip(by, key))))
    if not rows:
        raise InputError(f"{caller}: no segment holds the baseline and another system.")
    result = pd.concat(rows, ignore_index=True)
    p = result["p_value"].to_numpy()
    result["p_corrected"] = (
        holm_kept_nan(p) if correction == "holm" else benjamini_hochberg_kept_nan(p) if correction == "bh" else p
    )
    result = _ordered(result, frame, by, names)
    front = ["system", "baseline", *by, "measure"]
    result = result[front + [c for c in result.columns if c not in front]]
    varies = heterogeneity(frame, baseline=baseline, names=names, by=by, cfg=cfg)
    warn_notes(notes, caller)
    return Slices(result, tuple(by), "compare", cfg.method, cfg.level, cfg.n_resamples, cfg.seed,
                  baseline=baseline, test=test, correction=correction, heterogeneity=varies,
                  notes=tuple(dict.fromkeys(notes)))  # fmt: skip


def heterogeneity(frame: pd.DataFrame, *, baseline: str, names: list[str], by, cfg: StatsOptions) -> pd.DataFrame:
    """Per system x measure: does the paired difference ``system - baseline`` vary across segments?

    A permutation test of the segment x difference interaction. With ``d_i`` the per-query
    difference and ``T_s``, ``n_s`` the sum and count of segment ``s``, the statistic is the
    between-segment sum of squares ``sum_s n_s (mean_s - mean)^2 = sum_s T_s^2 / n_s - T^2 / n``
    (the one-way ANOVA F is a monotone function of it once the total is fixed). Under the null
    the segment labels are exchangeable with the differences, so the labels are permuted among
    the pair's queries (``n_resamples`` times, from the stream of the pair's query ids) and the
    p-value is ``(1 + #{permuted >= observed}) / (1 + n_resamples)`` (Phipson & Smyth 2010).

    Why this test: it needs no normal approximation of each segment's mean, which fails exactly
    where slices live (segments of 5-50 queries, 30-70% tied differences, skewed RR
    differences); Cochran's Q on per-segment estimates weights each by its inverse variance,
    which is infinite for a segment whose differences are all zero. Its null (the same
    distribution of differences in every segment) is stronger than equal means; with very
    unequal spreads and unequal segment sizes it can reject for spread alone, which the
    quantile bins (equal sizes) keep small.
    """
    base = frame[frame["system"].astype(str) == baseline].set_index("query_id")
    codes = pd.Series(pd.MultiIndex.from_frame(base[by].astype(str)).factorize()[0], index=base.index)
    groups: dict[tuple, list] = {}  # systems with the same shared queries share their permutations (and stream)
    for name, part in frame[frame["system"].astype(str) != baseline].groupby("system", sort=False, observed=True):
        other = part.set_index("query_id")
        shared = tuple(sorted(set(other.index) & set(base.index), key=str))
        d = other.loc[list(shared), names].to_numpy(dtype=np.float64) - base.loc[list(shared), names].to_numpy(
            dtype=np.float64
        )
        groups.setdefault(shared, []).append((str(name), d))
    found = {}
    for shared, members in groups.items():
        labels = codes.loc[list(shared)].to_numpy()
        stat, p = _permutation_p(np.hstack([d for _, d in members]), labels, cfg, query_stream(cfg.entropy, shared))
        for k, (name, _) in enumerate(members):
            found[name] = (len(shared), int(len(np.unique(labels))), stat[k * len(names) :], p[k * len(names) :])
    rows = []
    for name in dict.fromkeys(frame["system"].astype(str)):
        if name not in found:
            continue
        n, n_segments, stat, p = found[name]
        for i, measure in enumerate(names):
            rows.append({"system": name, "baseline": baseline, "measure": measure, "n_queries": n,
                         "n_segments": n_segments, "statistic": stat[i], "p_value": p[i], "test": "permutation"})  # fmt: skip
    return pd.DataFrame(rows)


def _between(sums: np.ndarray, counts: np.ndarray, total: np.ndarray, n: int) -> np.ndarray:
    """Between-segment sum of squares from segment sums (..., S, m) and counts (S,)."""
    return (sums**2 / counts[:, None]).sum(axis=-2) - total**2 / n


def _permutation_p(d: np.ndarray, labels: np.ndarray, cfg: StatsOptions, gen) -> tuple[np.ndarray, np.ndarray]:
    n, m = d.shape
    segments = np.unique(labels)
    if len(segments) < 2 or n < 3:
        return np.full(m, math.nan), np.full(m, math.nan)
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    starts = np.flatnonzero(np.r_[True, sorted_labels[1:] != sorted_labels[:-1]])
    counts = np.diff(np.r_[starts, n]).astype(np.float64)
    total = d.sum(axis=0)
    observed = _between(np.add.reduceat(d[order], starts, axis=0), counts, total, n)
    tol = 1e-9 * np.maximum(1.0, np.abs(observed))
    batch = max(1, (1 << 17) // n)  # rows of permutations at once; the stream is drawn row by row whatever the batch
    hits = np.zeros(m)
    for start in range(0, cfg.n_resamples, batch):
        b = min(batch, cfg.n_resamples - start)
        perms = gen.permuted(np.broadcast_to(np.arange(n), (b, n)), axis=1)
        sums = np.add.reduceat(d[perms], starts, axis=1)  # (b, S, m)
        hits += (_between(sums, counts, total, n) >= observed - tol).sum(axis=0)
    return observed, (hits + 1.0) / (cfg.n_resamples + 1.0)
