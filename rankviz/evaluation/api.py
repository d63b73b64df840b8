"""Per-query and aggregate evaluation tables: the library's entry points.

The ``df.rank`` accessor only delegates to these functions. They accept any of the
three input shapes (see :mod:`rankviz._core.input_shapes`), never modify their inputs, and
take the same keyword-only evaluation options (``rel``, ``depth``, ``missing``,
``duplicates``, ``ties``, ``order``, ``score_dtype``, ``columns``), validated once
into an :class:`~rankviz._core.options.EvalOptions` at the boundary. ``docs/architecture.md``
follows one call from ``df.rank.mrr`` down to its kernel.

What they return, whatever the input
------------------------------------
A run without a system column is one run; the systems of a run with them index its means.

- ``mrr``, ``ndcg``, ``mean_average_precision``, ``recall``, ``precision``, ``hit_rate``,
  ``r_precision``: a ``float`` for one run, else a Series indexed by ``system``.
- ``evaluate``: a DataFrame, one column per measure labelled as passed (``MRR@10``), one
  row for one run, else indexed by ``system``; ``per_query=True``: a tidy table.
- ``first_relevant_rank``: a nullable-integer Series per query.
- ``summary``: a DataFrame indexed by ``system``.
- ``bootstrap``: a :class:`~rankviz.stats.BootstrapResults`;
  ``compare``: a :class:`~rankviz.stats.Comparison`;
  ``table``: a :class:`~rankviz.stats.SignificanceTable`.
"""

from __future__ import annotations

from typing import Unpack

import numpy as np
import pandas as pd

from .. import stats
from .._core.options import EVAL, EvalKeywords, EvalOptions, with_options
from .._errors import InputError
from ..measures import Measure
from ..measures import dispatch as kernels
from ..stats import many_systems as multiple
from ..stats.intervals import bootstrap_of
from ..stats.options import STATS, EvalStatsKeywords, StatsGroup, StatsOptions
from ..stats.paired import DIFFERENCE_INTERVALS, compare_of
from . import slices, suites
from .pipeline import (
    aggregate_per_system,
    evaluated_cells,
    index_frame,
    judge_run,
    kept_cells,
    labelled,
    metadata,
    read_judgements,
    relabel,
    runs_from_frames,
    unique,
)
from .provenance import model_share, warn_model_labels
from .run_summary import summary

__all__ = [
    "evaluate",
    "first_relevant_rank",
    "summary",
    "bootstrap",
    "compare",
    "table",
]


def _measures(measures, options: EvalOptions) -> list[Measure]:
    """The distinct measures asked for, under the call's ``rel=`` (what the slices compute)."""
    return unique(labelled(measures, options.rel))


@with_options(EVAL)
def evaluate(
    options: EvalOptions,
    run,
    measures,
    qrels=None,
    *,
    per_query: bool = False,
    by=None,
    queries=None,
    weighted: bool = False,
    incomplete_systems: str = "refuse",
    **_: Unpack[EvalKeywords],
) -> pd.DataFrame:
    """Evaluate a run on several measures at once.

    Parameters
    ----------
    run : DataFrame or dict
        Any of the three input shapes (long run, per-query lists, relevance vectors);
        a ranx/pytrec_eval-style dict ``{query_id: {doc_id: score}}``; or a dict of
        runs ``{system name: run frame}``, evaluated as one run with those systems.
    measures : str, Measure, ir_measures measure, or list of them
        ir_measures-style names: ``"RR@10"``, ``"nDCG@10"``, ``"AP"``, ``"R@100"``,
        ``"P@5"``, ``"Success@10"``, ``"Rprec"``, ``"RR(rel=2)@10"``,
        ``"nDCG(gain='exp')@10"``; aliases (``"MRR@10"``, ``"Recall@5"``); trec_eval
        names (``"ndcg_cut_10"``); ir_measures' own objects (``ir_measures.nDCG@10``).
    qrels : DataFrame, path or dict, optional
        Judgements: a long frame (query id, doc id, relevance), a TREC qrels file or
        a ranx/pytrec_eval-style ``{query_id: {doc_id: grade}}``. Without qrels the
        run's own relevance column (or the per-query lists/vectors) are the judgements.
    per_query : bool, default False
        One row per system x query instead of one per system.
    by : str, mapping, Series or list of them, optional
        Slices (see :mod:`rankviz.evaluation.slices`): a run or ``queries`` column, a mapping or
        Series from query id to segment, or a built-in attribute (``"n_relevant"``,
        ``"query_length"``, ``"first_hit"``, ``"judged_share"``). The result is then the tidy
        per-(system, segment, measure) table (``n``, ``mean``, ``zero_share``), or with
        ``per_query`` the per-query table with the segment columns.
    queries : DataFrame, Series or dict, optional
        Query attributes and texts for ``by``.
    weighted : bool, default False
        A suite only: also give the query-weighted average beside the macro average.
    incomplete_systems : {'refuse', 'drop'}, default 'refuse'
        A suite only: a system absent from some datasets is refused, or left out with a warning naming it.

    Suites
    ------
    A dict ``{dataset: (run, qrels)}`` as the run (no ``qrels=``), or a run and qrels that both carry a
    ``dataset`` column, is a suite of collections (see :mod:`rankviz.evaluation.suites`). The result is
    indexed by (dataset, system) with an ``n_queries`` column, followed by the rows of the macro average
    (dataset ``'(macro average)'``: the mean of the dataset means) and, with ``weighted=True``, of the
    query-weighted average; ``per_query=True`` keeps the ``dataset`` column, and ``by='dataset'`` gives
    the tidy slices table.

    Returns
    -------
    DataFrame
        One float column per measure, labelled with the name passed (``"MRR@10"`` stays
        ``MRR@10``; two names of one measure give two columns); a Measure value, or a
        measure ``rel=`` changes, by its canonical name (``RR(rel=2)@10``).
        ``attrs["rankviz"]["canonical"]`` maps each label to its canonical name. Rows:
        one for a run without a system column, else indexed by ``system`` (a column is
        then what ``rankviz.mrr`` returns); with ``per_query``, a tidy table with
        ``system`` (if any) and ``query_id`` columns. ``attrs["rankviz"]`` also records
        the missing and unjudged queries and whether the world was closed; with qrels
        that carry a ``kind`` column (a label store a model judged into), also
        ``model_share``: per system, the share of the judged documents in its top
        ``model_share_k`` (the largest cutoff of the measures) that a model graded.
        A :class:`~rankviz.ModelLabelsWarning` says when that is most of them for
        some system and no label is a person's.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> rankviz.evaluate(run, ["RR@10", "P@1"], qrels)
       RR@10  P@1
    0   0.75  0.5
    >>> rankviz.evaluate(run, ["RR@10", "P@1"], qrels, rel=2)
       RR(rel=2)@10  P(rel=2)@1
    0           0.5         0.5
    >>> rankviz.evaluate(run, ["MRR@10", "Recall@1"], qrels).attrs["rankviz"]["canonical"]
    {'MRR@10': 'RR@10', 'Recall@1': 'R@1'}
    >>> runs = {"bm25": run, "dense": run.assign(score=[1.0, 2.0, 2.0, 1.0])}
    >>> rankviz.evaluate(runs, ["MRR@10"], qrels)["MRR@10"].to_dict()
    {'bm25': 0.75, 'dense': 1.0}
    """
    if suites.is_suite(run, qrels):
        pairs = labelled(measures, options.rel)
        return suites.evaluate_suite(run, pairs, qrels, per_query, by, weighted, incomplete_systems, options)
    if by is not None:  # segments are labelled by canonical measure names (a measure column per canonical name)
        measures = _measures(measures, options)
        table, by = slices.segmented_table(run, measures, qrels, by=by, queries=queries, options=options,
                                           caller="evaluate")  # fmt: skip
        return table if per_query else slices.aggregate_per_segment(table, [m.name for m in measures], by)
    return evaluate_run(run, measures, qrels, options, per_query=per_query)


def per_query_table(run, measures, qrels, options: EvalOptions, *, incomplete_systems: str = "refuse") -> pd.DataFrame:
    """``evaluate(run, measures, qrels, per_query=True)`` with the options already validated (what the
    statistics, plots, widgets, fusion tuning and the CLI evaluate through)."""
    if suites.is_suite(run, qrels):
        pairs = labelled(measures, options.rel)
        return suites.evaluate_suite(run, pairs, qrels, True, None, False, incomplete_systems, options)
    return evaluate_run(run, measures, qrels, options, per_query=True)


def evaluate_run(run, measures, qrels, options: EvalOptions, *, per_query: bool) -> pd.DataFrame:
    """:func:`evaluate` of one run (not a suite, no slices), the options already validated."""
    pairs = labelled(measures, options.rel)
    measures = unique(pairs)
    qrels = read_judgements(qrels)  # once: a label store's file is read here, and its kinds kept
    j, keep, values = evaluated_cells(run, measures, qrels, options, "evaluate")
    table = index_frame(j)
    for name, column in values.items():
        table[name] = column
    table = table[keep].reset_index(drop=True)
    if not per_query:
        table = aggregate_per_system(table, measures, j.systems)
    table.attrs["rankviz"] = metadata(j, measures, options)
    cutoffs = [m.cutoff for m in measures]
    k = None if any(c is None for c in cutoffs) else max(cutoffs)
    share = model_share(run, qrels, k=k, options=options, caller="evaluate")
    if share is not None:  # qrels with a kind column (a label store a model judged into)
        table.attrs["rankviz"]["model_share"] = float(share.iloc[0]) if j.systems is None else share.to_dict()
        table.attrs["rankviz"]["model_share_k"] = k
        warn_model_labels(share, qrels, "evaluate")
    return relabel(table, pairs)


@with_options(EVAL)
def first_relevant_rank(options: EvalOptions, run, qrels=None, **_: Unpack[EvalKeywords]) -> pd.Series:
    """Rank of the first relevant item per query (trec_eval order), missing where none was retrieved.

    Returns
    -------
    Series
        Nullable ``Int64`` values indexed by ``query_id`` (by ``system`` and
        ``query_id`` when the run has several systems), named ``first_relevant_rank``.
        Queries in the qrels that the run did not retrieve are included (as missing)
        unless ``missing='drop'``.
    """
    rel = 1 if options.rel is None else options.rel
    j = judge_run(run, qrels, options, rel_min=rel, caller="first_relevant_rank")
    keep = kept_cells(j, options.missing, "first_relevant_rank")
    ranks = kernels.first_relevant_rank(j, rel)
    index = index_frame(j)[keep]
    values = pd.array(np.where(np.isnan(ranks), 0, ranks).astype(np.int64), dtype="Int64")
    values[np.isnan(ranks)] = pd.NA
    series = pd.Series(values[keep], name="first_relevant_rank")
    series.index = (
        pd.MultiIndex.from_frame(index) if j.systems is not None else pd.Index(index["query_id"], name="query_id")
    )
    return series


# ----------------------------------------------------------------------------- statistics of runs


@with_options(EVAL, STATS)
def bootstrap(
    options: EvalOptions,
    stats_options: StatsOptions,
    run,
    measures,
    qrels=None,
    *,
    by=None,
    queries=None,
    **_: Unpack[EvalStatsKeywords],
) -> stats.BootstrapResults:
    """Evaluate a run per query, then bootstrap confidence intervals of its mean measures.

    The statistics are those of :func:`rankviz.stats.bootstrap`; the result is
    always a :class:`~rankviz.stats.BootstrapResults` (index it by system and
    measure, ``.to_frame()`` for a tidy table). With ``by`` (and ``queries``, as in
    :func:`evaluate`) the intervals are per segment: the same type with a segment level (index it by
    system, segment and measure; ``.to_frame()`` has the segment columns), each segment's interval
    that of the unsliced bootstrap on its queries.

    Examples
    --------
    >>> import rankviz
    >>> from rankviz.datasets import load_example
    >>> run, qrels, _ = load_example()
    >>> res = rankviz.bootstrap(run[run.system == "bm25"].drop(columns="system"), "RR@10", qrels, rng=0)
    >>> round(res["run", "RR@10"].estimate, 4)
    0.5557
    """
    table, names = per_query_of(run, measures, qrels, by=by, queries=queries, options=options, caller="bootstrap")
    return bootstrap_of(table, names, stats_options)


def per_query_of(
    runs, measures, qrels, *, by=None, queries=None, options: EvalOptions, caller: str, each_run: bool = False
) -> tuple[pd.DataFrame, list[str]]:
    """The per-query table every statistic of runs starts from, and its measure columns.

    With ``by``, the table carries the segment columns (named in ``attrs["rankviz"]["by"]``), which the
    statistics group by, and the measures are named canonically; without it, as passed. With ``each_run``
    (``compare``, ``table``) a dict of runs is evaluated run by run ({name: any run shape}), else as one run.
    """
    if by is not None:
        parsed = _measures(measures, options)
        table, _ = slices.segmented_table(runs, parsed, qrels, by=by, queries=queries, options=options, caller=caller)
        return table, [m.name for m in parsed]
    names = [label for label, _ in labelled(measures, options.rel)]
    if not isinstance(runs, dict) or not each_run:
        return per_query_table(runs, measures, qrels, options), names
    if not runs:
        raise InputError(f"{caller}: the dict of runs is empty.")
    tables = []
    for name, frame in runs.items():
        one = runs_from_frames({name: frame}, caller) if isinstance(frame, pd.DataFrame) else frame
        part = per_query_table(one, measures, qrels, options)
        if "system" in part.columns:
            part = part.drop(columns="system")
        part.insert(0, "system", pd.array([str(name)] * len(part), dtype="str"))  # type: ignore[arg-type]  # pandas-stubs omit extension arrays
        tables.append(part)
    return pd.concat(tables, ignore_index=True), names


@with_options(EVAL, StatsGroup(methods=DIFFERENCE_INTERVALS, method="t"))
def compare(
    options: EvalOptions,
    stats_options: StatsOptions,
    runs,
    baseline: str,
    measures,
    qrels=None,
    *,
    test: str = "randomization",
    correction: str | None = "holm",
    by=None,
    queries=None,
    **_: Unpack[EvalStatsKeywords],
) -> stats.Comparison:
    """Evaluate several systems per query and compare each with a baseline (paired by query id).

    Parameters
    ----------
    runs : DataFrame or dict of DataFrames
        A run with a ``system`` column, or ``{system name: run frame}``.
    baseline : str
        The system the others are compared with.
    measures : str or list
    qrels : DataFrame, path or dict, optional
    test, correction
        See :func:`rankviz.stats.compare`.
    by, queries
        Slices, as in :func:`evaluate`: then the comparison is per segment (the segment columns in
        ``.table``), corrected over every system x segment x measure, with in ``.heterogeneity`` a test
        of whether the difference varies across segments (:func:`rankviz.stats.segments.heterogeneity`).

    Returns
    -------
    Comparison
        See :func:`rankviz.stats.compare`.

    Notes
    -----
    A suite (``{dataset: (run, qrels)}``, or runs and qrels with a ``dataset`` column) is compared
    on its macro average, as :func:`rankviz.stats.suite_compare` does.
    """
    if suites.is_suite(runs, qrels):
        return suites.compare_suite(runs, baseline, measures, qrels, test, correction, by, options, stats_options)
    table, names = per_query_of(runs, measures, qrels, by=by, queries=queries, options=options, caller="compare",
                                each_run=True)  # fmt: skip
    return compare_of(table, baseline=baseline, measures=names, test=test, correction=correction, cfg=stats_options)


@with_options(EVAL, StatsGroup(optional_level=True))
def table(
    options: EvalOptions,
    stats_options: StatsOptions,
    runs,
    measures,
    qrels=None,
    *,
    test: str = "tukey",
    correction: str | None = "auto",
    alpha: float = 0.05,
    system_order=None,
    **_: Unpack[EvalStatsKeywords],
) -> multiple.SignificanceTable:
    """Evaluate several systems per query: the table of means with the systems each one significantly beats.

    Parameters
    ----------
    runs : DataFrame or dict of DataFrames
        A run with a ``system`` column, or ``{system name: run frame}``.
    measures : str or list
    qrels : DataFrame, path or dict, optional
    test, correction, alpha, system_order
        See :func:`rankviz.stats.significance_table` (default: the randomized
        Tukey HSD over all systems, paired by query; rows in sorted order).

    Returns
    -------
    SignificanceTable
        ``.to_latex()``, ``.to_markdown()``, ``.to_frame()`` and the notebook view. On a suite
        (``{dataset: (run, qrels)}``, or runs and qrels with a ``dataset`` column) the columns are, per
        measure, each dataset's mean (``"<dataset>: <measure>"``) and the macro average, with its tier
        letters (see :mod:`rankviz.stats.suite_table`).
    """
    if suites.is_suite(runs, qrels):
        return suites.table_suite(runs, measures, qrels, test=test, correction=correction, alpha=alpha,
                                  system_order=system_order, options=options, stats_options=stats_options)  # fmt: skip
    per_query, names = per_query_of(runs, measures, qrels, options=options, caller="table", each_run=True)
    return multiple.significance_table_of(
        per_query,
        names,
        test=test,
        correction=correction,
        alpha=alpha,
        cfg=stats_options,
        system_order=system_order,
        caller="table",
    )
