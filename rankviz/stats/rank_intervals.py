"""Rank intervals and tiers: which places in a leaderboard the data can separate.

Every system's rank gets a *simultaneous* confidence interval: all of them hold together with
probability at least the confidence level. They follow from simultaneous intervals for every pairwise
difference of means (the approach of Klein, Wright & Wieczorek 2020, "A joint confidence region for an
overall ranking of populations", JRSS C; and Mogstad, Romano, Shaikh & Wilhelm 2024, "Inference for
ranks with applications to mobility across neighbourhoods and academic achievement across countries"):

- one paired bootstrap (the same resamples for every system) gives each system's centred resampled
  mean ``m*_i - m_i``;
- the quantile ``q`` of the largest centred pairwise difference, ``max_i - min_i`` of those, makes
  ``|(m_i - m_j) - (mu_i - mu_j)| <= q`` hold for every pair at once (a Tukey-type simultaneous band);
- system ``i`` is surely behind ``j`` when ``m_j - m_i > q``. Its rank interval runs from 1 plus the
  systems surely ahead of it to the count of systems not surely behind it.

Tiers are the compact letter display of the same separations: two systems share a letter when the data
cannot order them, so a tier never claims a separation the simultaneous band does not support. The
band is not studentized (one width for every pair): simple, exact in its family-wise guarantee, and
conservative for pairs whose difference varies less than the widest pair's.

The resamples are one matrix product for all systems (no Python loop over resamples or systems).
"""

from __future__ import annotations

import dataclasses
import html
import string
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.columns import check_number_cells
from .._core.options import with_options
from .._errors import InputError
from .options import IntervalKeywords, StatsGroup, StatsOptions
from .resampling import check_budget, query_stream
from .results import html_table
from .suites import stratified_means, suite_matrices

__all__ = ["RankIntervals", "ranks", "ranks_of", "intervals_from_resamples", "tier_letters", "resampled_dataset_means"]


def resampled_dataset_means(scores: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means over resampled datasets of a (datasets x systems) score matrix, shape (n_resamples, systems)."""
    d = scores.shape[0]
    draws = rng.integers(0, d, size=(n_resamples, d)) + (np.arange(n_resamples) * d)[:, None]
    counts = np.bincount(draws.ravel(), minlength=n_resamples * d).reshape(n_resamples, d)
    return (counts @ scores) / d


def tier_letters(means: np.ndarray, width: float) -> list[str]:
    """Compact letters: systems whose means lie within ``width`` of each other share a letter.

    Separation is a threshold on the distance between means on a line, so the groups the data cannot
    separate are the maximal windows of sorted means no wider than ``width``; each window gets a letter
    (a, b, ..., z, then aa, ab, ...), in order of the best mean first.
    """
    order = np.argsort(-means, kind="stable")
    sorted_means = means[order]
    n = len(sorted_means)
    starts, first = [], 0
    for last in range(n):
        while sorted_means[first] - sorted_means[last] > width:
            first += 1
        starts.append(first)
    # [starts[e], e] is contained in the next window exactly when the next one starts at the same place
    windows = [(starts[e], e) for e in range(n) if e == n - 1 or starts[e + 1] > starts[e]]
    names = _letters(len(windows))
    joiner = "" if len(windows) <= 26 else ","
    held: list[list[str]] = [[] for _ in range(n)]
    for name, (lo, hi) in zip(names, windows, strict=True):
        for pos in range(lo, hi + 1):
            held[order[pos]].append(name)
    return [joiner.join(h) for h in held]


def _letters(n: int) -> list[str]:
    alphabet = string.ascii_lowercase
    out = []
    for i in range(n):
        name, j = "", i
        while True:
            name = alphabet[j % 26] + name
            j = j // 26 - 1
            if j < 0:
                break
        out.append(name)
    return out


@dataclasses.dataclass(frozen=True, repr=False)
class RankIntervals:
    """Each system's mean, rank, simultaneous rank interval and tier, best first.

    ``statistic`` names what the ranks attach to (for example "mean of nDCG@10 over queries" or
    "macro average of nDCG@10 over 5 datasets"); ``width`` is the simultaneous band's half-width: two
    systems whose means differ by more are separated.
    """

    table: pd.DataFrame
    statistic: str
    width: float
    confidence_level: float
    n_resamples: int
    resampled: str

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    @property
    def tiers(self) -> dict[str, str]:
        return dict(zip(self.table["system"], self.table["tier"], strict=True))

    def __repr__(self) -> str:
        head = (
            f"RankIntervals of the {self.statistic} ({self.confidence_level:.0%} simultaneous, {self.resampled} "
            f"resampled; separated when the means differ by more than {self.width:.4f})"
        )
        return head + "\n" + self.table.round(4).to_string(index=False)

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(repr(self).splitlines()[0])}</p>" + html_table(self.table)

    def plot(self, ax=None):
        """The leaderboard: each system's rank interval as a bar, its point rank as a dot, best on top."""
        import matplotlib.pyplot as plt

        frame = self.table
        n = len(frame)
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, max(2.0, 0.22 * n + 1.0)), layout="constrained")
        y = np.arange(n)
        # each interval as a bar from its first to its last rank, half a rank either side, so a single rank shows too
        ax.barh(
            y,
            frame["rank_high"] - frame["rank_low"] + 0.7,
            left=frame["rank_low"] - 0.35,
            height=0.5,
            color="#4c72b0",
            alpha=0.45,
        )
        ax.plot(frame["rank"], y, "o", color="#222222", markersize=4)
        ax.set_yticks(y)
        ax.set_yticklabels(
            [f"{_plain(s)}  ({t})" for s, t in zip(frame["system"], frame["tier"], strict=True)],
            fontsize=8 if n <= 30 else 6,
        )
        ax.set_ylim(n - 0.5, -0.5)  # best on top, no margin beyond the first and last rows
        ax.set_xlabel(f"rank ({self.confidence_level:.0%} simultaneous interval)")
        ax.set_xlim(0.5, n + 0.5)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        if n == 1:
            ax.set_xticks([1])
        ax.set_title(_plain(f"Rank intervals of the {self.statistic}"), fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        return ax


def _plain(text: str) -> str:
    """Text drawn by matplotlib as written: '$' would start mathtext."""
    return str(text).replace("$", r"\$")


def intervals_from_resamples(
    systems: list[str],
    means: np.ndarray,
    resampled: np.ndarray,
    *,
    confidence_level: float,
    statistic: str,
    resampled_what: str,
    n_units: int | None = None,
) -> RankIntervals:
    """Rank intervals and tiers from the point means (S,) and paired resampled means (B, S).

    ``n_units``: how many units (queries, or datasets) were resampled, the smallest stratum's for a
    stratified bootstrap. The band is widened by ``sqrt(n / (n - 1))``: a bootstrap's variance of a
    mean is ``(n - 1) / n`` times the unbiased one, and without the factor the family-wise error of
    tiers over 8 equal systems measured 0.06 at n = 100-200 (``benchmarks/suites.py``).
    """
    if len(systems) < 1:
        raise InputError("rank intervals need at least one system.")
    centred = resampled - means[None, :]
    spread = centred.max(axis=1) - centred.min(axis=1)
    width = float(np.quantile(spread, confidence_level)) if len(systems) > 1 else 0.0
    if n_units is not None and n_units > 1:
        width *= (n_units / (n_units - 1)) ** 0.5
    ahead = (means[None, :] - means[:, None]) > width  # [i, j]: j surely ahead of i
    low = 1 + ahead.sum(axis=1)
    high = len(systems) - ahead.sum(axis=0)
    order = np.argsort(-means, kind="stable")
    point = np.empty(len(systems), dtype=int)
    point[order] = np.arange(1, len(systems) + 1)
    tiers = tier_letters(means, width)
    table = pd.DataFrame(
        {
            "system": systems,
            "estimate": means,
            "rank": point,
            "rank_low": low,
            "rank_high": high,
            "tier": tiers,
        }
    ).iloc[order]
    return RankIntervals(
        table.reset_index(drop=True), statistic, width, confidence_level, int(resampled.shape[0]), resampled_what
    )


@with_options(StatsGroup(methods=("percentile",), method="percentile", exclude=("batch",)))
def ranks(
    stats_options: StatsOptions,
    table: pd.DataFrame,
    measure: str,
    *,
    level: str = "queries",
    **_: Unpack[IntervalKeywords],
) -> RankIntervals:
    """Each system's rank with a simultaneous confidence interval, and tiers, from a per-query table.

    Parameters
    ----------
    table : DataFrame
        One of: a per-query table (``system``, ``query_id``, the measure) of one collection; a suite
        table with a ``dataset`` column too (the ranks attach to the macro average); or per-dataset
        scores without ``query_id`` (``dataset``, ``system``, the measure: the MTEB shape, whose
        datasets are resampled).
    measure : str
        The measure column.
    level : {'queries', 'datasets'}, default 'queries'
        For a suite: ``'queries'`` resamples queries within each dataset (ranks on these datasets),
        ``'datasets'`` resamples datasets too (ranks that generalise to datasets like these).

    Returns
    -------
    RankIntervals
        Best first: system, estimate, rank, rank_low, rank_high, tier (``.to_frame()``, ``.plot()``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, rankviz
    >>> rng = np.random.default_rng(1)
    >>> rows = [(s, f"q{i}", float(rng.random() < p)) for s, p in (("a", 0.8), ("b", 0.78), ("c", 0.3))
    ...         for i in range(200)]
    >>> table = pd.DataFrame(rows, columns=["system", "query_id", "Success@10"])
    >>> r = rankviz.stats.ranks(table, "Success@10", rng=0, n_resamples=2000)
    >>> r.to_frame()[["system", "rank_low", "rank_high", "tier"]].values.tolist()
    [['a', 1, 2, 'a'], ['b', 1, 2, 'a'], ['c', 3, 3, 'b']]
    """
    return ranks_of(table, measure, level=level, cfg=stats_options, caller="ranks")


def ranks_of(table: pd.DataFrame, measure: str, *, level: str, cfg: StatsOptions, caller: str) -> RankIntervals:
    """:func:`ranks` with its options validated (what ``rankviz.ranks`` calls after evaluating)."""
    if level not in ("queries", "datasets"):
        raise InputError(f"The 'level' parameter of {caller} must be 'queries' or 'datasets'. Got {level!r} instead.")
    if measure not in table.columns:
        raise InputError(f"{caller}: the table has no column {measure!r}; its columns are {list(table.columns)}.")
    frame = table if "system" in table.columns else table.assign(system="run")
    if "query_id" not in frame.columns:
        if "dataset" not in frame.columns:
            raise InputError(
                f"{caller}: the table needs a query_id column (per-query values) or a dataset column (per-dataset "
                f"scores); its columns are {list(table.columns)}."
            )
        check_number_cells(frame, [measure], f"{caller} (per-dataset table)", missing_ok=[measure])
        wide = frame.pivot_table(index="dataset", columns="system", values=measure, aggfunc="first")
        if wide.isna().to_numpy().any():
            raise InputError(f"{caller}: every system needs a score on every dataset; some are missing.")
        systems = [str(c) for c in wide.columns]
        scores = wide.to_numpy(dtype=np.float64)
        check_budget(cfg.n_resamples, scores.shape[0], len(systems), caller)
        rng = query_stream(cfg.entropy, [f"\x1d{d}" for d in wide.index])
        resampled = resampled_dataset_means(scores, cfg.n_resamples, rng)
        statistic = f"mean {measure} over {scores.shape[0]} datasets"
        return intervals_from_resamples(
            systems,
            scores.mean(axis=0),
            resampled,
            n_units=scores.shape[0],
            confidence_level=cfg.level,
            statistic=statistic,
            resampled_what="datasets",
        )
    if "dataset" not in frame.columns:
        frame = frame.assign(dataset="(one collection)")
    datasets, systems, mats = suite_matrices(frame, measure, caller)
    check_budget(cfg.n_resamples, max(m.shape[0] for m in mats), len(datasets) * len(systems), caller)
    boot = stratified_means(mats, datasets, cfg.n_resamples, cfg.entropy)
    means = np.stack([m.mean(axis=0) for m in mats])
    if level == "datasets" and len(datasets) > 1:
        rng = query_stream(cfg.entropy, ["\x1ddatasets", *datasets])
        d = len(datasets)
        draws = rng.integers(0, d, size=(cfg.n_resamples, d)) + (np.arange(cfg.n_resamples) * d)[:, None]
        weights = np.bincount(draws.ravel(), minlength=cfg.n_resamples * d).reshape(cfg.n_resamples, d)
        resampled = np.einsum("bd,bds->bs", weights.astype(float), boot) / d
        what = "datasets, then queries within them,"
        units = d
    else:
        resampled = boot.mean(axis=1)
        what = "queries (within each dataset)" if len(datasets) > 1 else "queries"
        units = min(m.shape[0] for m in mats)
    if len(datasets) > 1:
        statistic = f"macro average of {measure} over {len(datasets)} datasets"
    else:
        statistic = f"mean {measure} over {mats[0].shape[0]} queries"
    return intervals_from_resamples(
        systems,
        means.mean(axis=0),
        resampled,
        confidence_level=cfg.level,
        statistic=statistic,
        resampled_what=what,
        n_units=units,
    )
