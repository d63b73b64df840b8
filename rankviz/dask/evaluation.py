"""Evaluation functions for Dask DataFrames: the same names, options and numbers as :mod:`rankviz.evaluation`.

``evaluate(run, measures, qrels, per_query=True)`` returns the per-query table as a
*pandas* DataFrame (one row per system x query: small), so ``rankviz.stats.bootstrap``,
``rankviz.stats.compare``, ``rankviz.multiple.significance_table``, the plots, the
explorer and reports take it unchanged. Every option (``rel``, ``depth``,
``missing``, ``duplicates``, ``ties``, ``order``, ``score_dtype``, ``judged_only``,
``columns``) means what it means on pandas; ``progress=True`` shows a progress bar.
"""

from __future__ import annotations

from typing import Unpack

import pandas as pd

from .._core.checks import check_choice, check_cutoff
from .._core.options import EVAL, EvalKeywords, EvalOptions, with_options
from .._errors import InputError
from ..evaluation.pipeline import aggregate_per_system, labelled, relabel, unique, with_rel
from ..measures import Measure
from ._evaluate import per_query_table

__all__ = ["evaluate", "mrr", "ndcg", "mean_average_precision", "recall", "precision", "hit_rate", "r_precision"]


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


@with_options(EVAL)
def mrr(
    options: EvalOptions, run, qrels=None, *, k: int | None = None, progress: bool = False, **_: Unpack[EvalKeywords]
) -> float | pd.Series:
    """Mean reciprocal rank at ``k`` of a Dask run (:func:`rankviz.mrr`), a float for one run, a Series per system."""
    return _single(run, Measure("RR", cutoff=check_cutoff(k, "mrr")), qrels, options, "mrr", progress)


@with_options(EVAL)
def ndcg(
    options: EvalOptions,
    run,
    qrels=None,
    *,
    k: int | None = None,
    gain: str = "linear",
    progress: bool = False,
    **_: Unpack[EvalKeywords],
) -> float | pd.Series:
    """Mean nDCG at ``k`` of a Dask run (:func:`rankviz.ndcg`), a float for one run, a Series per system."""
    gain = check_choice(gain, "gain", "ndcg", ("linear", "exp", "exponential"))
    measure = Measure("nDCG", cutoff=check_cutoff(k, "ndcg"))(gain="exp" if gain == "exponential" else gain)
    return _single(run, measure, qrels, options, "ndcg", progress)


@with_options(EVAL)
def mean_average_precision(
    options: EvalOptions, run, qrels=None, *, k: int | None = None, progress: bool = False, **_: Unpack[EvalKeywords]
) -> float | pd.Series:
    """Mean average precision of a Dask run (:func:`rankviz.mean_average_precision`), a float for one run, a Series per system."""
    return _single(run, Measure("AP", cutoff=check_cutoff(k, "map")), qrels, options, "map", progress)


@with_options(EVAL)
def recall(
    options: EvalOptions, run, qrels=None, *, k: int, progress: bool = False, **_: Unpack[EvalKeywords]
) -> float | pd.Series:
    """Mean recall at ``k`` of a Dask run (:func:`rankviz.recall`), a float for one run, a Series per system."""
    measure = Measure("R", cutoff=check_cutoff(k, "recall", allow_none=False))
    return _single(run, measure, qrels, options, "recall", progress)


@with_options(EVAL)
def precision(
    options: EvalOptions, run, qrels=None, *, k: int, progress: bool = False, **_: Unpack[EvalKeywords]
) -> float | pd.Series:
    """Mean precision at ``k`` of a Dask run (:func:`rankviz.precision`), a float for one run, a Series per system."""
    measure = Measure("P", cutoff=check_cutoff(k, "precision", allow_none=False))
    return _single(run, measure, qrels, options, "precision", progress)


@with_options(EVAL)
def hit_rate(
    options: EvalOptions, run, qrels=None, *, k: int, progress: bool = False, **_: Unpack[EvalKeywords]
) -> float | pd.Series:
    """Share of queries with a relevant item in the top ``k`` of a Dask run (:func:`rankviz.hit_rate`)."""
    measure = Measure("Success", cutoff=check_cutoff(k, "hit_rate", allow_none=False))
    return _single(run, measure, qrels, options, "hit_rate", progress)


@with_options(EVAL)
def r_precision(
    options: EvalOptions, run, qrels=None, *, progress: bool = False, **_: Unpack[EvalKeywords]
) -> float | pd.Series:
    """Mean R-precision of a Dask run (:func:`rankviz.r_precision`), a float for one run, a Series per system."""
    return _single(run, Measure("Rprec"), qrels, options, "r_precision", progress)
