"""``df.rank.plot``: the plots of a run, evaluated on the way.

:class:`RunPlots` computes nothing itself. Each method hands the run and its
evaluation options to one public function of :mod:`rankviz.evaluation`
(:func:`~rankviz.evaluation.evaluate` for plots of per-query values,
:func:`~rankviz.evaluation.bootstrap` for intervals), which validates them, and
draws what comes back with the function of the same name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from .. import evaluation
from ..measures import Measure
from . import style
from .curves import measure_family, metric_at_k, recall_vs_mrr
from .differences import paired_differences
from .distributions import rr_distribution
from .intervals import bootstrap_distribution, ci
from .worst_queries import failures

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["RunPlots"]


class RunPlots:
    """The plots of a run, as ``df.rank.plot.<name>(qrels, ...)``.

    Each method evaluates what its plot needs and calls the function of the same
    name in :mod:`rankviz.plots`. Its ``**options`` are split once: the keyword
    arguments matplotlib knows for the plot's main call (``alpha``, ``linewidth``,
    ``color``, ...) go to that call, and everything else is handed unchanged to
    :func:`rankviz.evaluate` (``per_query=True``) or, for ``ci`` and
    ``bootstrap_distribution``, to :func:`rankviz.bootstrap`, which validate them:
    evaluation options (``depth``, ``missing``, ``ties``, column names) and, where a
    bootstrap is involved, statistics options (``n_resamples``,
    ``confidence_level``, ``method``, ``rng``).

    Examples
    --------
    >>> import rankviz
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> ax = run.rank.plot.rr_distribution(qrels, k=10)
    """

    def __init__(self, frame: pd.DataFrame):
        self._frame = frame

    def _evaluate(self, measures, qrels, options: dict, call: str, artist: str) -> tuple[pd.DataFrame, dict]:
        """(per-query table, matplotlib keyword arguments)."""
        kwargs, options = style.split_matplotlib_kwargs(options, call, artist)
        return evaluation.evaluate(self._frame, measures, qrels, per_query=True, **options), kwargs

    def _bootstrap(self, measures, qrels, options: dict, call: str, artist: str):
        """(bootstrap results, matplotlib keyword arguments)."""
        kwargs, options = style.split_matplotlib_kwargs(options, call, artist)
        return evaluation.bootstrap(self._frame, measures, qrels, **options), kwargs

    def rr_distribution(self, qrels=None, *, k=10, measure=None, stat="percent", hue=None, ax=None, **options) -> Axes:
        """Evaluate ``RR@k`` per query and plot :func:`rankviz.plots.rr_distribution`."""
        table, kwargs = self._evaluate(measure or f"RR@{k}", qrels, options, "bar", "patches.Rectangle")
        return rr_distribution(table, k=k, measure=measure, stat=stat, hue=hue, ax=ax, **kwargs)

    def failures(self, qrels=None, *, measure="RR@10", n=20, system=None, queries=None, compare=None, hue=None, ax=None, **options) -> Axes:
        """Evaluate ``measure`` per query and plot :func:`rankviz.plots.failures`."""
        table, kwargs = self._evaluate(measure, qrels, options, "barh", "patches.Rectangle")
        return failures(table, measure=measure, n=n, system=system, queries=queries, compare=compare, hue=hue, ax=ax, **kwargs)

    def ci(self, qrels=None, *, measures=("RR@10", "nDCG@10"), baseline=None, sort=True, ax=None, **options) -> Axes:
        """Bootstrap ``measures`` per system and plot :func:`rankviz.plots.ci`."""
        results, kwargs = self._bootstrap(measures, qrels, options, "hlines", "collections.LineCollection")
        return ci(results, baseline=baseline, sort=sort, ax=ax, **kwargs)

    def bootstrap_distribution(self, qrels=None, *, measure="RR@10", system=None, bins=50, ax=None, **options) -> Axes:
        """Bootstrap ``measure`` and plot :func:`rankviz.plots.bootstrap_distribution` (of ``system``).

        All systems are resampled together, as :func:`rankviz.bootstrap` does: the
        same ``rng`` gives the same interval.
        """
        results, kwargs = self._bootstrap(measure, qrels, options, "hist", "patches.Patch")
        return bootstrap_distribution(results, system=system, bins=bins, ax=ax, **kwargs)

    def paired_differences(self, qrels=None, *, system=None, baseline=None, measure="RR@10", ax=None, **options) -> Axes:
        """Evaluate ``measure`` per query and plot :func:`rankviz.plots.paired_differences` of two systems."""
        table, kwargs = self._evaluate(measure, qrels, options, "stairs", "patches.StepPatch")
        return paired_differences(table, system=system, baseline=baseline, measure=measure, ax=ax, **kwargs)

    def metric_at_k(self, qrels=None, *, measures=("RR", "R", "nDCG"), cutoffs=range(1, 21), hue=None, ax=None, **options) -> Axes:
        """Evaluate each measure family at ``cutoffs`` and plot :func:`rankviz.plots.metric_at_k`."""
        families = [measure_family(m, "metric_at_k") for m in ([measures] if isinstance(measures, (str, Measure)) else measures)]
        table, kwargs = self._evaluate([f @ int(c) for f in families for c in cutoffs], qrels, options, "plot", "lines.Line2D")
        return metric_at_k(table, measures=families, hue=hue, ax=ax, **kwargs)

    def recall_vs_mrr(self, qrels=None, *, k=10, recall_k=100, per_query=False, thresholds=(0.5, 0.5), ax=None, **options) -> Axes:
        """Evaluate ``RR@k`` and ``R@recall_k`` per query and plot :func:`rankviz.plots.recall_vs_mrr`."""
        recall_k = 100 if recall_k is None else recall_k
        table, kwargs = self._evaluate([f"RR@{k}", f"R@{recall_k}"], qrels, options, "scatter", "collections.PathCollection")
        return recall_vs_mrr(table, k=k, recall_k=recall_k, per_query=per_query, thresholds=thresholds, ax=ax, **kwargs)
