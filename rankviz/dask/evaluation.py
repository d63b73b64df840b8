"""Evaluation functions for Dask DataFrames: the same names, options and numbers as :mod:`rankviz.evaluation`.

Dask is a way of computing the per-query table (:func:`per_query`, the CLI's ``evaluate_with=`` hook):
``evaluate`` and the seven shortcuts (``mrr``, ``ndcg``, ..., made from
:data:`rankviz.evaluation.shortcuts.SHORTCUTS`, not written again) aggregate that table as pandas does.

``evaluate(run, measures, qrels, per_query=True)`` returns the per-query table as a
*pandas* DataFrame (one row per system x query: small), so ``rankviz.stats.bootstrap``,
``rankviz.stats.compare``, ``rankviz.stats.significance_table``, the plots, the
explorer and reports take it unchanged. Every option (``rel``, ``depth``,
``missing``, ``duplicates``, ``ties``, ``order``, ``score_dtype``, ``judged_only``,
``columns``) means what it means on pandas; ``progress=True`` shows a progress bar.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Unpack

import pandas as pd

from .._core.options import EVAL, EvalKeywords, EvalOptions, with_options
from .._errors import InputError
from ..evaluation.pipeline import aggregate_per_system, labelled, relabel, unique, with_rel
from ..evaluation.shortcuts import SHORTCUTS, Shortcut, shortcut_measure, shortcut_parameters
from ..measures import Measure
from ._evaluate import per_query_table

__all__ = ["evaluate", "per_query", "SHORTCUT_FUNCTIONS", *(s.name for s in SHORTCUTS)]


def _systems(table: pd.DataFrame) -> list[str] | None:
    """The systems in the per-query table's row order (None without a system column)."""
    return list(dict.fromkeys(table["system"].astype(str))) if "system" in table.columns else None


@with_options(EVAL)
def evaluate(
    options: EvalOptions,
    run,
    measures,
    qrels=None,
    *,
    per_query: bool = False,
    progress: bool = False,
    shuffle: bool = True,
    **_: Unpack[EvalKeywords],
) -> pd.DataFrame:
    """Evaluate a Dask DataFrame run on several measures: :func:`rankviz.evaluate`, out of core.

    Parameters
    ----------
    run : dask.dataframe.DataFrame
        A long run (query id, doc id, score and/or rank, optional system), e.g. from
        :func:`rankviz.dask.read_run`. Any partitioning: rows are shuffled by query id.
    measures : str, Measure or list of them
        As for :func:`rankviz.evaluate`.
    qrels : DataFrame, path or dict, optional
        Judgements, read on the client (they must fit in memory: they are sent to every
        worker once). A Dask DataFrame of qrels is computed first.
    per_query : bool, default False
        One row per system x query instead of one per system.
    progress : bool, default False
        Show a progress bar (distributed's with a client, else Dask's local one).
    shuffle : bool, default True
        Group the rows by query id first. ``False`` skips the shuffle when every
        (system, query)'s rows already sit in one partition (a parquet dataset written
        per query range, one TREC file per system read with ``blocksize=None``); a
        query found in two partitions then raises an ``InputError`` instead of
        giving wrong numbers.

    Returns
    -------
    pandas.DataFrame
        Exactly what :func:`rankviz.evaluate` returns on the whole run as one pandas
        frame: the same columns, rows, order, values and ``attrs["rankviz"]``.

    Raises
    ------
    InputError, ColumnError, DuplicateError, UnknownMeasureError
        The pandas path's errors with its messages, raised where the partition is evaluated.
    """
    pairs = labelled(measures, options.rel)
    if shuffle not in (True, False):
        raise InputError(f"The 'shuffle' parameter of evaluate must be True or False. Got {shuffle!r} instead.")
    table = per_query_table(run, unique(pairs), qrels, options, "evaluate", progress, shuffle)
    if not per_query:
        meta = table.attrs["rankviz"]
        table = aggregate_per_system(table, unique(pairs), _systems(table))
        table.attrs["rankviz"] = meta
    return relabel(table, pairs)


def per_query(run, measures, qrels, options: EvalOptions, *, progress: bool = False) -> pd.DataFrame:
    """``evaluate(run, measures, qrels, per_query=True)`` with the options already validated: the Dask way of
    computing :func:`rankviz.evaluation.api.per_query_table` (the CLI's ``evaluate_with=`` hook)."""
    pairs = labelled(measures, options.rel)
    return relabel(per_query_table(run, unique(pairs), qrels, options, "evaluate", progress), pairs)


def _single(run, measure: Measure, qrels, options: EvalOptions, caller: str, progress: bool) -> float | pd.Series:
    """A float for one run, a Series indexed by ``system`` for a run with systems (as :func:`rankviz.mrr`)."""
    (measure,) = with_rel([measure], options.rel)
    table = per_query_table(run, [measure], qrels, options, caller, progress)
    systems = _systems(table)
    values = aggregate_per_system(table, [measure], systems)[measure.name].to_numpy()
    if systems is None:
        return float(values[0])
    return pd.Series(values, index=pd.Index(systems, name="system", dtype="str"), name=measure.name)


def _shortcut(s: Shortcut) -> Callable[..., Any]:
    """The Dask function of one shortcut: the pandas function's parameters and numbers, plus ``progress``."""

    def function(options: EvalOptions, run, qrels=None, *, progress: bool = False, **params):
        return _single(run, shortcut_measure(s.name, **params), qrels, options, s.method_name, progress)

    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter("options", positional, annotation="EvalOptions"),
            inspect.Parameter("run", positional),
            inspect.Parameter("qrels", positional, default=None),
            *shortcut_parameters(s.name),
            inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=False, annotation="bool"),
        ],
        return_annotation="float | pd.Series",
    )
    function.__name__ = s.name
    function.__qualname__ = s.name
    function.__module__ = __name__
    function.__doc__ = f"""{s.summary} Of a Dask run: :func:`rankviz.{s.name}`, out of core.

    Parameters
    ----------
    run : dask.dataframe.DataFrame
        A long run, as for :func:`evaluate`.
    qrels : DataFrame, path or dict, optional
        Judgements, as for :func:`evaluate`.
    k, gain
        As for :func:`rankviz.{s.name}` (where it takes them).
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    float or Series
        Exactly what :func:`rankviz.{s.name}` returns on the whole run as one pandas frame.
    """
    return with_options(EVAL)(function)


#: the seven shortcuts (rankviz.evaluation.shortcuts.SHORTCUTS), each computed through the Dask per-query table
SHORTCUT_FUNCTIONS: dict[str, Callable[..., Any]] = {s.name: _shortcut(s) for s in SHORTCUTS}
globals().update(SHORTCUT_FUNCTIONS)
