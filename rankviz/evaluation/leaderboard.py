"""``rankviz.ranks``: a leaderboard that says which places the data can separate, for one collection or a suite."""

from __future__ import annotations

from typing import Unpack

from .._core.options import EVAL, EvalOptions, with_options
from .._errors import InputError
from ..stats.options import EvalIntervalKeywords, StatsGroup, StatsOptions
from ..stats.rank_intervals import RankIntervals, ranks_of
from .api import per_query_table

__all__ = ["ranks"]


@with_options(EVAL, StatsGroup(methods=("percentile",), method="percentile", exclude=("batch",)))
def ranks(
    options: EvalOptions,
    stats_options: StatsOptions,
    run,
    measure,
    qrels=None,
    *,
    level: str = "queries",
    incomplete_systems: str = "refuse",
    **_: Unpack[EvalIntervalKeywords],
) -> RankIntervals:
    """Each system's rank with a simultaneous confidence interval, and tiers the data cannot separate.

    Parameters
    ----------
    run : DataFrame or dict
        The runs of one collection (a run with a system column, or a dict of runs) evaluated against
        ``qrels``; or a suite: a dict ``{dataset: (run, qrels)}``, or a run and qrels with a ``dataset`` column.
    measure : str or Measure
        One measure (``"nDCG@10"``); the ranks attach to its mean, or on a suite to its macro average.
    qrels : DataFrame, path or dict, optional
        The judgements of one collection (a suite carries its own).
    level : {'queries', 'datasets'}, default 'queries'
        On a suite: ``'queries'`` ranks on these datasets; ``'datasets'`` also resamples the datasets
        (ranks that would hold on other datasets like these).
    incomplete_systems : {'refuse', 'drop'}, default 'refuse'
        On a suite: a system absent from some datasets is refused, or left out with a warning.

    Returns
    -------
    RankIntervals
        Best first: system, estimate, rank, rank_low, rank_high, tier; ``.statistic`` names what the
        ranks attach to, ``.plot()`` draws the leaderboard. See :func:`rankviz.stats.ranks` for the method.

    Examples
    --------
    >>> import rankviz
    >>> ex = rankviz.datasets.load_example()
    >>> board = rankviz.ranks(ex.run, "nDCG@10", ex.qrels, rng=0, n_resamples=2000)
    >>> board.to_frame()[["system", "rank", "rank_low", "rank_high", "tier"]].values.tolist()
    [['bm25+rerank', 1, 1, 1, 'a'], ['bm25', 2, 2, 2, 'b'], ['rrf', 3, 3, 3, 'c'], ['tfidf', 4, 4, 4, 'd']]
    >>> board.statistic
    'mean nDCG@10 over 600 queries'
    """
    if isinstance(measure, (list, tuple)):
        if len(measure) != 1:
            raise InputError(
                f"The 'measure' parameter of ranks takes one measure. Got {len(measure)}: {list(measure)}."
            )
        (measure,) = measure
    table = per_query_table(run, [measure], qrels, options, incomplete_systems=incomplete_systems)
    column = [c for c in table.columns if c not in ("dataset", "system", "query_id")][0]
    return ranks_of(table, column, level=level, cfg=stats_options, caller="ranks")
