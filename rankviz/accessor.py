"""The ``df.rank`` namespace, which is also pandas' own ``DataFrame.rank``.

``import rankviz`` makes ``df.rank`` an object that

* calls through to pandas: ``df.rank(method="min")`` is exactly ``DataFrame.rank``;
* carries rankviz's evaluation methods: ``df.rank.mrr(k=10, qrels=qrels)``.

A plain ``register_dataframe_accessor("rank")`` is not enough: it warns about
overriding an existing attribute and replaces the class attribute, so
``pd.DataFrame.rank(df)`` and ``df.pipe(pd.DataFrame.rank)`` would break. Instead a
small descriptor returns pandas' function on class access and a callable accessor
on instance access. The same accessor is registered through pandas' public API as
``df.rankviz``. Accessors hold nothing but the frame (pandas 3 rebuilds them on
every access); every method delegates to a module function.
"""

from __future__ import annotations

import functools
import inspect

import pandas as pd

from . import evaluation as _ev

__all__ = ["RankAccessor", "register"]


class RankAccessor:
    """rankviz's evaluation methods on a DataFrame, callable as pandas' ``DataFrame.rank``.

    ``df.rank(...)`` computes pandas' numerical data ranks (see
    :meth:`pandas.DataFrame.rank`); ``df.rank.<method>(...)`` evaluates the frame as
    a ranked run. The same namespace is available as ``df.rankviz``.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> run.rank.mrr(k=10, qrels=qrels)
    0.5
    >>> run.rank(method="min")["score"].tolist()
    [2.0, 1.0]
    """

    def __init__(self, frame: pd.DataFrame):
        if not isinstance(frame, pd.DataFrame):
            raise AttributeError("The rankviz accessor works on DataFrames only.")
        self._frame = frame

    # pandas' DataFrame.rank -------------------------------------------------
    def __call__(self, *args, **kwargs):
        return _PANDAS_RANK(self._frame, *args, **kwargs)

    @property
    def __signature__(self):
        parameters = list(inspect.signature(_PANDAS_RANK).parameters.values())[1:]
        return inspect.Signature(parameters)

    # evaluation ---------------------------------------------------------------
    def mrr(self, k=None, qrels=None, **options):
        """Mean reciprocal rank at ``k``; see :func:`rankviz.evaluation.mrr`."""
        return _ev.mrr(self._frame, k, qrels, **options)

    def ndcg(self, k=None, qrels=None, **options):
        """Mean nDCG at ``k``; see :func:`rankviz.evaluation.ndcg`."""
        return _ev.ndcg(self._frame, k, qrels, **options)

    def map(self, k=None, qrels=None, **options):
        """Mean average precision; see :func:`rankviz.evaluation.mean_average_precision`."""
        return _ev.mean_average_precision(self._frame, k, qrels, **options)

    def recall(self, k, qrels=None, **options):
        """Mean recall at ``k``; see :func:`rankviz.evaluation.recall`."""
        return _ev.recall(self._frame, k, qrels, **options)

    def precision(self, k, qrels=None, **options):
        """Mean precision at ``k``; see :func:`rankviz.evaluation.precision`."""
        return _ev.precision(self._frame, k, qrels, **options)

    def hit_rate(self, k, qrels=None, **options):
        """Share of queries with a relevant item in the top ``k``; see :func:`rankviz.evaluation.hit_rate`."""
        return _ev.hit_rate(self._frame, k, qrels, **options)

    def r_precision(self, qrels=None, **options):
        """Mean R-precision; see :func:`rankviz.evaluation.r_precision`."""
        return _ev.r_precision(self._frame, qrels, **options)

    def evaluate(self, measures, qrels=None, **options):
        """Several measures, per query or per system; see :func:`rankviz.evaluate`."""
        return _ev.evaluate(self._frame, measures, qrels, **options)

    def first_relevant_rank(self, qrels=None, **options):
        """Rank of the first relevant item per query; see :func:`rankviz.evaluation.first_relevant_rank`."""
        return _ev.first_relevant_rank(self._frame, qrels, **options)

    def summary(self, k=10, qrels=None, **options):
        """The analyst's summary table; see :func:`rankviz.evaluation.summary`."""
        return _ev.summary(self._frame, k, qrels, **options)

    def bootstrap(self, measures, qrels=None, **options):
        """Bootstrap confidence intervals of mean measures; see :func:`rankviz.evaluation.bootstrap`."""
        return _ev.bootstrap(self._frame, measures, qrels, **options)

    def compare(self, baseline, measures, qrels=None, **options):
        """Paired comparisons against a baseline system; see :func:`rankviz.evaluation.compare`."""
        return _ev.compare(self._frame, baseline=baseline, measures=measures, qrels=qrels, **options)

    def ties(self, qrels=None, **options):
        """How much score ties can move each measure; see :func:`rankviz.ties.tie_report`."""
        from .ties import tie_report

        return tie_report(self._frame, qrels, **options)

    def explore(self, qrels=None, **options):
        """An ipywidgets per-query debugger; see :func:`rankviz.widgets.explore`."""
        from . import widgets

        return widgets.explore(self._frame, qrels=qrels, **options)

    @property
    def plot(self):
        """Plots of this run (``df.rank.plot.failures(...)``); see :mod:`rankviz.plots`."""
        from . import plots

        return plots.RunPlots(self._frame)


class _RankDescriptor:
    """``DataFrame.rank``: pandas' function on the class, a :class:`RankAccessor` on instances."""

    _rankviz = True

    def __init__(self, pandas_rank):
        self.pandas_rank = pandas_rank
        functools.update_wrapper(self, pandas_rank)

    def __get__(self, obj, cls=None):
        if obj is None:
            return self.pandas_rank
        return RankAccessor(obj)


_PANDAS_RANK = None


def register() -> None:
    """Install ``df.rank`` (keeping pandas' ``DataFrame.rank``) and ``df.rankviz``. Idempotent."""
    global _PANDAS_RANK
    current = pd.DataFrame.__dict__.get("rank")
    if current is not None and getattr(current, "_rankviz", False):
        _PANDAS_RANK = current.pandas_rank  # already installed (e.g. by a reload)
    else:
        _PANDAS_RANK = pd.DataFrame.rank
        pd.DataFrame.rank = _RankDescriptor(_PANDAS_RANK)
    if "rankviz" not in pd.DataFrame.__dict__:
        pd.api.extensions.register_dataframe_accessor("rankviz")(RankAccessor)
        # pandas lists a frame's registered accessors in dir() of its GroupBy objects too
        # (GroupBy._dir_additions delegates to the frame), although ``df.groupby(...).rankviz``
        # does not exist; that also breaks pandas' own test_tab_completion. ``dir(df)`` still
        # shows ``rankviz``: it is a class attribute.
        accessors = getattr(pd.DataFrame, "_accessors", None)
        if isinstance(accessors, set):
            accessors.discard("rankviz")
