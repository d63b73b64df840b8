"""``df.rank.plot``: the plots of a run, evaluated on the way.

:class:`RunPlots` computes nothing itself. Each method hands the run and its
evaluation options to one public function of :mod:`rankviz.evaluation`
(:func:`~rankviz.evaluation.evaluate` for plots of per-query values,
:func:`~rankviz.evaluation.bootstrap`'s table, then statistics, for intervals), which validates them,
and draws what comes back with the function of the same name.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

import pandas as pd

from .. import evaluation
from .._core.options import EVAL, EvalOptions, option_names, unknown_keyword, with_method_options
from ..evaluation.api import per_query_table
from ..evaluation.changes import changes_of
from ..measures import Measure
from ..stats.intervals import bootstrap_of
from ..stats.options import STATS, StatsOptions
from . import changes as changes_plot
from . import failure_causes as failure_causes_plot
from . import slices as slices_plot
from . import style
from .curves import measure_family, metric_at_k
from .diagnosis import recall_vs_mrr
from .differences import paired_differences
from .distributions import rr_distribution
from .intervals import ci
from .resampled import bootstrap_distribution
from .worst_queries import failures

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["RunPlots"]


def _from_plot(plot, measures_of, call: str, artist: str, **defaults):
    """A :class:`RunPlots` method made from a plot of per-query tables, with that plot's own parameters.

    The method's signature is the plot's (its data replaced by ``qrels``; ``defaults`` where the method
    must name a measure the plot reads off its table) plus the evaluation options: it evaluates
    ``measures_of(arguments)`` per query and hands the table and the same arguments to ``plot``, so the
    two never drift apart. Its ``**kwargs`` are the plot's one matplotlib call's.
    """
    own = [
        p.replace(default=defaults.get(p.name, p.default))
        for p in inspect.signature(plot).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    name = plot.__name__

    def method(self, options: EvalOptions, qrels=None, **kwargs):
        arguments = {p.name: kwargs.pop(p.name, p.default) for p in own}
        drawing = self._drawing(kwargs, name, call, artist)
        table = self._evaluate(measures_of(arguments), qrels, options)
        return plot(table, **arguments, **drawing)

    parameters = [
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("options", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=EvalOptions),
        inspect.Parameter("qrels", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None),
        *own,
        inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
    ]
    method.__signature__ = inspect.Signature(parameters, return_annotation="Axes")  # type: ignore[attr-defined]
    method.__name__ = method.__qualname__ = name
    method.__qualname__ = f"RunPlots.{name}"
    method.__doc__ = (
        f"Evaluate what :func:`rankviz.plots.{name}` reads, per query, and draw it: the plot's own parameters, "
        "the evaluation options, and the plot's matplotlib keywords."
    )
    return with_method_options(EVAL)(method)


class RunPlots:
    """The plots of a run, as ``df.rank.plot.<name>(qrels, ...)``.

    Each method evaluates what its plot needs and calls the function of the same
    name in :mod:`rankviz.plots`. Its signature shows the evaluation options
    (``rel``, ``depth``, ``missing``, ``ties``, ``columns``, ...) and, for ``ci`` and
    ``bootstrap_distribution``, the statistics options (``n_resamples``,
    ``confidence_level``, ``method``, ``rng``); its ``**kwargs`` go to the plot's
    one matplotlib call (``alpha``, ``linewidth``, ``color``, ...), and a keyword
    that is neither is an error with the closest known name.

    Examples
    --------
    >>> import rankviz
    >>> from rankviz.datasets import load_example
    >>> run, qrels, queries = load_example()
    >>> ax = run.rank.plot.rr_distribution(qrels, k=10)
    """

    def __init__(self, frame: pd.DataFrame):
        self._frame = frame

    @staticmethod
    def _drawing(kwargs: dict, caller: str, call: str, artist: str) -> dict:
        """The matplotlib keywords of ``Axes.<call>``; anything else is a mistyped option."""
        drawing, rest = style.split_matplotlib_kwargs(kwargs, call, artist)
        for key in rest:
            raise unknown_keyword(caller, key, [*option_names(), "n_resamples", "confidence_level", "method", "rng"])
        return drawing

    def _evaluate(self, measures, qrels, options: EvalOptions) -> pd.DataFrame:
        return per_query_table(self._frame, measures, qrels, options)

    # plots of per-query tables: each method is the plot, evaluated on the way (its parameters, its defaults)
    rr_distribution = _from_plot(
        rr_distribution, lambda a: [a["measure"] or f"RR@{a['k']}"], "bar", "patches.Rectangle"
    )
    failures = _from_plot(failures, lambda a: [a["measure"]], "barh", "patches.Rectangle")
    paired_differences = _from_plot(
        paired_differences, lambda a: [a["measure"]], "stairs", "patches.StepPatch", measure="RR@10"
    )
    recall_vs_mrr = _from_plot(
        recall_vs_mrr,
        lambda a: [f"RR@{a['k']}", f"R@{100 if a['recall_k'] is None else a['recall_k']}"],
        "scatter",
        "collections.PathCollection",
        recall_k=100,
    )

    @with_method_options(EVAL, STATS)
    def ci(
        self,
        options: EvalOptions,
        stats_options: StatsOptions,
        qrels=None,
        *,
        measures=("RR@10", "nDCG@10"),
        baseline=None,
        sort=True,
        ax=None,
        **kwargs,
    ) -> Axes:
        """Bootstrap ``measures`` per system and plot :func:`rankviz.plots.ci`."""
        drawing = self._drawing(kwargs, "ci", "hlines", "collections.LineCollection")
        table, names = evaluation.per_query_of(self._frame, measures, qrels, options=options, caller="bootstrap")
        results = bootstrap_of(table, names, stats_options)
        return ci(results, baseline=baseline, sort=sort, ax=ax, **drawing)

    @with_method_options(EVAL, STATS)
    def bootstrap_distribution(
        self,
        options: EvalOptions,
        stats_options: StatsOptions,
        qrels=None,
        *,
        measure="RR@10",
        system=None,
        bins=50,
        ax=None,
        **kwargs,
    ) -> Axes:
        """Bootstrap ``measure`` and plot :func:`rankviz.plots.bootstrap_distribution` (of ``system``).

        A system's resamples depend only on ``rng`` and its queries, as in
        :func:`rankviz.bootstrap`: the same ``rng`` gives the same interval.
        """
        drawing = self._drawing(kwargs, "bootstrap_distribution", "hist", "patches.Patch")
        table, names = evaluation.per_query_of(self._frame, measure, qrels, options=options, caller="bootstrap")
        results = bootstrap_of(table, names, stats_options)
        return bootstrap_distribution(results, system=system, bins=bins, ax=ax, **drawing)

    @with_method_options(EVAL)
    def metric_at_k(
        self,
        options: EvalOptions,
        qrels=None,
        *,
        measures=("RR", "R", "nDCG"),
        k=range(1, 21),
        hue=None,
        ax=None,
        **kwargs,
    ) -> Axes:
        """Evaluate each measure family at every cutoff in ``k`` and plot :func:`rankviz.plots.metric_at_k`."""
        drawing = self._drawing(kwargs, "metric_at_k", "plot", "lines.Line2D")
        families = [
            measure_family(m, "metric_at_k") for m in ([measures] if isinstance(measures, (str, Measure)) else measures)
        ]
        table = self._evaluate([f @ int(c) for f in families for c in k], qrels, options)
        return metric_at_k(table, measures=families, hue=hue, ax=ax, **drawing)

    @with_method_options(EVAL)
    def failure_causes(
        self, options: EvalOptions, qrels=None, *, system=None, queries=None, k=10, n=15, alpha=0.05, ax=None, **kwargs
    ) -> Axes:
        """Evaluate ``RR@k`` per query, find :func:`rankviz.failure_slices` and plot :func:`rankviz.plots.failure_causes`."""
        from ..stats import failure_slices

        drawing = self._drawing(kwargs, "failure_causes", "barh", "patches.Rectangle")
        table = self._evaluate([f"RR@{k}"], qrels, options)
        slices = failure_slices(table, measure=table.columns[-1], system=system, queries=queries)
        return failure_causes_plot.failure_causes(slices, n=n, alpha=alpha, ax=ax, **drawing)

    @with_method_options(EVAL)
    def changes(
        self,
        options: EvalOptions,
        qrels=None,
        *,
        system,
        baseline,
        measure=None,
        k=10,
        n=10,
        queries=None,
        ax=None,
        **kwargs,
    ) -> Axes:
        """Compute :func:`rankviz.changes` and plot its biggest movers (:func:`rankviz.plots.changes`)."""
        drawing = self._drawing(kwargs, "changes", "annotate", "text.Annotation")
        moved = changes_of(self._frame, qrels, options, system=system, baseline=baseline, measure=measure, k=k)
        return changes_plot.changes(moved, n=n, queries=queries, ax=ax, **drawing)

    @with_method_options(EVAL, STATS)
    def slices(
        self,
        options: EvalOptions,
        stats_options: StatsOptions,
        qrels=None,
        *,
        by,
        measure="RR@10",
        queries=None,
        order="auto",
        ax=None,
        **kwargs,
    ) -> Axes:
        """Bootstrap ``measure`` per segment of ``by`` (:func:`rankviz.bootstrap` with ``by=``) and plot :func:`rankviz.plots.slices`."""
        drawing = self._drawing(kwargs, "slices", "hlines", "collections.LineCollection")
        table, names = evaluation.per_query_of(
            self._frame, measure, qrels, by=by, queries=queries, options=options, caller="bootstrap"
        )
        return slices_plot.slices(bootstrap_of(table, names, stats_options), order=order, ax=ax, **drawing)
