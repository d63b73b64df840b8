"""Segments of a per-query table: which columns they are, their order, and whether a difference varies.

A *segmented* per-query table is a per-query table with one or several segment columns, named in
``table.attrs["rankviz"]["by"]`` (what ``rankviz.evaluate(..., by=..., per_query=True)`` returns).
Every statistic groups by them and returns its usual type with a segment level; the statistics of
one segment are exactly those of the unsegmented function on that segment's rows:

- :func:`rankviz.stats.bootstrap`: a :class:`~rankviz.stats.BootstrapResults` whose results carry
  their segment (BCa by default; the zero-heavy warning of ``docs/statistics.md`` fires per segment),
  the mean and zero share those of a pandas groupby;
- :func:`rankviz.stats.compare`: a :class:`~rankviz.stats.Comparison` with the segment columns
  (the paired t-interval and the randomization test by default), the multiple-comparison correction
  applied once over every system x segment x measure of the call; and per system x measure a test
  of whether the difference varies across segments (:func:`heterogeneity`).

A system's resamples depend only on the seed and its query ids (:func:`~rankviz.stats.resampling.query_stream`),
so a segment's interval is the same in the segmented call as in the unsegmented call on its queries.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from .._errors import DegenerateDataWarning
from .options import StatsOptions
from .resampling import query_stream

__all__ = ["segment_columns", "with_categories", "segment_label", "quietly", "segment_order", "heterogeneity"]


def segment_columns(table) -> list[str]:
    """The segment columns a per-query table carries: those of ``attrs["rankviz"]["by"]`` it still has.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"query_id": ["q1", "q2"], "area": ["faq", "docs"], "RR@10": [1.0, 0.5]})
    >>> segment_columns(table)
    []
    >>> table.attrs["rankviz"] = {"by": ["area", "dropped"]}
    >>> segment_columns(table)
    ['area']
    """
    attrs = getattr(table, "attrs", None)
    meta = attrs.get("rankviz") if isinstance(attrs, dict) else None
    by = meta.get("by") if isinstance(meta, dict) else None
    if not isinstance(by, (list, tuple)) or not isinstance(table, pd.DataFrame):
        return []
    return [b for b in by if isinstance(b, str) and b in table.columns]


def with_categories(table: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """``table`` with every segment column categorical (a column that is not one gets its sorted values)."""
    plain = [b for b in by if not isinstance(table[b].dtype, pd.CategoricalDtype)]
    if not plain:
        return table
    return table.assign(**{b: pd.Categorical(table[b]) for b in plain})


def segment_label(by, key) -> str:
    """``"a=x, b=y"``: a segment named in notes."""
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{b}={k}" for b, k in zip(by, key))


def quietly(func, *args, **kwargs):
    """Call a statistic with its DegenerateDataWarning held back (the notes are gathered and said once)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return func(*args, **kwargs)


def segment_order(systems: list[str], frame: pd.DataFrame, by: list[str], names: list[str]):
    """Sort key of a (system, segment values, measure) row: system as given, segment in category order, measure as asked."""
    position = {s: i for i, s in enumerate(systems)}
    codes = [{c: i for i, c in enumerate(frame[b].cat.categories)} for b in by]

    def key(system, segment, measure) -> tuple:
        return (position[system], *(c[v] for c, v in zip(codes, segment)), names.index(measure))

    return key


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
