"""Suites: several collections evaluated at once, each query scored against its own dataset's qrels.

A suite is given as

- a dict ``{dataset: (run, qrels)}`` (any run and qrels shape rankviz reads; a ``RetrievalLog`` or
  ``BeirData`` may stand for the pair);
- or a run and qrels that both carry a ``dataset`` column (a query id is unique only within its dataset);
- or a run with a ``dataset`` column and, as the qrels, a list of BEIR folders (each named by its folder's
  name) or ir_datasets ids, read with :func:`rankviz.read_beir` or :func:`rankviz.datasets.from_ir_datasets`.

``rankviz.evaluate`` dispatches here when it is given one: the means per dataset x system, then the macro
average (the mean of the dataset means, what BEIR and MTEB report) and, with ``weighted=True``, the
query-weighted average, both named as such. ``per_query=True`` keeps the ``dataset`` column, the table
:mod:`rankviz.stats.suites` and :func:`rankviz.stats.ranks` take.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .._core.options import EvalOptions
from .._errors import InputError, RankvizWarning, warn
from ..stats.options import StatsOptions
from ..stats.results import Comparison
from ..stats.suite_compare import suite_compare_of
from ..stats.suite_table import suite_significance_table
from ..stats.suites import MACRO, WEIGHTED
from ..stats.table_exports import SignificanceTable
from .pipeline import aggregate_per_system, evaluated_cells, index_frame, labelled, relabel, unique

__all__ = [
    "is_suite",
    "suite_per_query",
    "suite_means",
    "suite_slices",
    "evaluate_suite",
    "compare_suite",
    "table_suite",
    "MISSING_SYSTEMS",
]

#: what to do with a system absent from some datasets: refuse (default) or drop it, with a warning
MISSING_SYSTEMS = ("refuse", "drop")


def _is_pair(value: Any) -> bool:
    return (isinstance(value, tuple) and len(value) == 2) or (
        hasattr(value, "qrels") and hasattr(value, "run") and getattr(value, "run", None) is not None
    )


def is_suite(run: Any, qrels: Any) -> bool:
    """True for a dict of (run, qrels) pairs, or a run frame with a ``dataset`` column."""
    if isinstance(run, Mapping) and run and all(_is_pair(v) for v in run.values()):
        return True
    return isinstance(run, pd.DataFrame) and "dataset" in run.columns


def _pairs(run: Any, qrels: Any, caller: str) -> dict[str, tuple[Any, Any]]:
    """The suite as {dataset: (run, qrels)}, refusing a dataset column on one side only."""
    if isinstance(run, Mapping):
        if qrels is not None:
            raise InputError(
                f"{caller}: the run is a suite ({{dataset: (run, qrels)}}), which carries its own qrels; "
                "leave qrels= out."
            )
        out = {}
        for name, value in run.items():
            pair = value if isinstance(value, tuple) else (value.run, value.qrels)
            if pair[1] is None:
                raise InputError(f"{caller}: dataset {name!r} of the suite has no qrels; give it as (run, qrels).")
            out[str(name)] = pair
        return out
    if isinstance(qrels, (list, tuple)):
        qrels = _qrels_of_sources(qrels, caller)
    if not isinstance(qrels, pd.DataFrame) or "dataset" not in qrels.columns:
        raise InputError(
            f"{caller}: the run has a 'dataset' column but the qrels have none, so a query id repeated across "
            "datasets cannot be told apart. Give the qrels a 'dataset' column too, or pass the suite as "
            "{dataset: (run, qrels)}."
        )
    out = {}
    for name, part in run.groupby(run["dataset"].astype(str), sort=True):
        judged = qrels[qrels["dataset"].astype(str) == name]
        if judged.empty:
            raise InputError(
                f"{caller}: dataset {name!r} of the run has no judgements in the qrels (its 'dataset' column holds "
                f"{sorted(qrels['dataset'].astype(str).unique())[:10]}). Check the dataset names."
            )
        out[name] = (part.drop(columns="dataset"), judged.drop(columns="dataset"))
    return out


def _qrels_of_sources(sources, caller: str) -> pd.DataFrame:
    """The qrels of a list of BEIR folders (named by the folder) or ir_datasets ids, with a ``dataset`` column."""
    import os
    from pathlib import Path

    from ..datasets import from_ir_datasets
    from ..io import read_beir

    frames = []
    for source in sources:
        if not isinstance(source, (str, os.PathLike)):
            raise InputError(
                f"{caller}: a suite's qrels given as a list hold BEIR folders or ir_datasets ids. Got "
                f"{type(source).__name__} {source!r}; pass {{dataset: (run, qrels)}} for frames."
            )
        path = Path(source)
        if path.is_dir():
            name, judged = path.name, read_beir(path, corpus=False).qrels
        else:
            name, found = str(source), from_ir_datasets(str(source), documents=False).qrels
            if found is None:
                raise InputError(
                    f"{caller}: the ir_datasets dataset {name!r} has no qrels to evaluate a suite against."
                )
            judged = found
        frames.append(judged.assign(dataset=name))
    names = [f["dataset"].iloc[0] for f in frames if len(f)]
    if len(set(names)) < len(names):
        raise InputError(f"{caller}: two qrels sources of the suite share a name ({names}); rename one folder.")
    return pd.concat(frames, ignore_index=True)


def suite_per_query(
    run: Any, measures, qrels: Any, options: EvalOptions, evaluate_one, *, missing: str = "refuse", caller: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-query table and the means of a suite, each with ``dataset`` first.

    ``evaluate_one(run, measures, qrels, options)`` is the one-collection evaluation: its per-query
    table and its means (a ``system`` column each), aggregated exactly as ``evaluate`` aggregates.
    Systems absent from some datasets are refused, or with ``missing='drop'`` left out with a warning
    naming them and the datasets they lack.
    """
    if missing not in MISSING_SYSTEMS:
        raise InputError(
            f"The 'missing' parameter of {caller} for a suite must be one of {list(MISSING_SYSTEMS)}. Got {missing!r}."
        )
    pairs = _pairs(run, qrels, caller)
    tables, all_means = [], []
    for name, (one_run, one_qrels) in pairs.items():
        table, means = evaluate_one(one_run, measures, one_qrels, options)
        if "system" not in table.columns:
            table.insert(0, "system", "run")
        table.insert(0, "dataset", name)
        means.insert(0, "dataset", name)
        tables.append(table)
        all_means.append(means)
    everything = pd.concat(tables, ignore_index=True)
    means = pd.concat(all_means, ignore_index=True)
    by_dataset = everything.groupby("dataset", sort=False)["system"].agg(lambda s: set(s.astype(str)))
    all_systems = set().union(*by_dataset)
    partial = {s: [d for d, held in by_dataset.items() if s not in held] for s in sorted(all_systems)}
    partial = {s: lacks for s, lacks in partial.items() if lacks}
    if partial:
        said = "; ".join(f"{s!r} lacks {lacks}" for s, lacks in partial.items())
        if len(partial) == len(all_systems):
            raise InputError(
                f"{caller}: no system is present in every dataset of the suite ({said}); the datasets share no "
                "system to compare."
            )
        if missing == "refuse":
            raise InputError(
                f"{caller}: systems missing from some datasets of the suite: {said}. An average over different "
                "datasets is not comparable: add their runs, or pass missing='drop' to leave them out."
            )
        warn(
            f"{caller}: left out the systems missing from some datasets of the suite: {said}.",
            RankvizWarning,
        )
        everything = everything[~everything["system"].astype(str).isin(partial)].reset_index(drop=True)
        means = means[~means["system"].astype(str).isin(partial)].reset_index(drop=True)
    if len(pairs) == 1:
        warn(
            f"{caller}: a suite of one dataset; its macro average is that dataset's mean, and an interval across "
            "datasets needs several.",
            RankvizWarning,
        )
    return everything, means


def suite_means(per_query: pd.DataFrame, means: pd.DataFrame, columns: list[str], *, weighted: bool = False):
    """Means per dataset x system, then the macro (and query-weighted) average rows, indexed by (dataset, system).

    The per-dataset means are ``evaluate``'s own (so equal to evaluating each dataset alone, to the last
    bit); the macro average is their mean; the query-weighted one weighs each dataset's mean by its
    queries. ``n_queries`` is the dataset's query count, and on an average's row the queries of every dataset.
    """
    sizes = per_query.groupby(["dataset", "system"], sort=False).size()
    table = means.set_index(["dataset", "system"])[columns].sort_index()
    table.insert(0, "n_queries", sizes.reindex(table.index).to_numpy())
    totals = table.groupby(level="system")["n_queries"].sum()
    macro = table[columns].groupby(level="system").mean()
    macro.insert(0, "n_queries", totals.reindex(macro.index))
    rows = [table, pd.concat({MACRO: macro}, names=["dataset"])]
    if weighted:
        weights = table["n_queries"] / totals.reindex(table.index.get_level_values("system")).to_numpy()
        pooled = table[columns].mul(weights, axis=0).groupby(level="system").sum()
        pooled.insert(0, "n_queries", totals.reindex(pooled.index))
        rows.append(pd.concat({WEIGHTED: pooled}, names=["dataset"]))
    return pd.concat(rows)


def suite_slices(per_query: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``by='dataset'`` on a suite: the tidy (system, segment, measure, n, mean, zero_share) table of slices."""
    long = per_query.melt(id_vars=["dataset", "system", "query_id"], value_vars=columns, var_name="measure")
    grouped = long.groupby(["system", "dataset", "measure"], sort=True)["value"]
    table = grouped.agg(n="size", mean="mean", zero_share=lambda v: float((v == 0).mean())).reset_index()
    return table.rename(columns={"dataset": "segment"})


def _one_collection(run, pairs, qrels, options: EvalOptions) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One collection of a suite: its per-query table and its means (aggregated as ``evaluate`` does), labelled."""
    measures = unique(pairs)
    j, keep, values = evaluated_cells(run, measures, qrels, options, "evaluate")
    table = index_frame(j)
    for name, column in values.items():
        table[name] = column
    table = table[keep].reset_index(drop=True)
    means = aggregate_per_system(table, measures, j.systems)
    if j.systems is None:
        means.index = pd.Index(["run"], name="system", dtype="str")
    return relabel(table, pairs), relabel(means, pairs).reset_index()


def evaluate_suite(run, pairs, qrels, per_query, by, weighted, incomplete_systems, options) -> pd.DataFrame:
    """``rankviz.evaluate`` of a suite (``pairs``: the measures as labelled by the call)."""
    table, means = suite_per_query(
        run, pairs, qrels, options, _one_collection, missing=incomplete_systems, caller="evaluate"
    )
    columns = list(dict.fromkeys(label for label, _ in pairs))
    if by is not None:
        if not (isinstance(by, str) and by == "dataset"):
            raise InputError(
                "The 'by' parameter of evaluate on a suite takes 'dataset' (one segment per dataset). Got "
                f"{by!r}: slice one dataset at a time (evaluate(run, measures, qrels, by=...)) for other attributes."
            )
        return suite_slices(table, columns)
    if per_query:
        return table
    return suite_means(table, means, columns, weighted=bool(weighted))


def compare_suite(
    runs, baseline, measures, qrels, test, correction, by, options: EvalOptions, stats_options: StatsOptions
) -> Comparison:
    """``rankviz.compare`` of a suite: the macro-average difference, stratified t-interval and randomization test."""
    if by is not None or test != "randomization" or stats_options.method != "t":
        raise InputError(
            "compare of a suite tests the macro-average difference with a stratified randomization test and a "
            "stratified t-interval: leave test=, method= and by= at their defaults (or compare one dataset at a time)."
        )
    pairs = labelled(measures, options.rel)
    table, _ = suite_per_query(runs, pairs, qrels, options, _one_collection, caller="compare")
    names = list(dict.fromkeys(label for label, _ in pairs))
    return suite_compare_of(table, baseline=baseline, measures=names, correction=correction, cfg=stats_options)


def table_suite(
    runs, measures, qrels, *, test, correction, alpha, system_order, options: EvalOptions, stats_options: StatsOptions
) -> SignificanceTable:
    """``rankviz.table`` of a suite: per measure, each dataset's column, then the macro average and its tiers."""
    pairs = labelled(measures, options.rel)
    table, means = suite_per_query(runs, pairs, qrels, options, _one_collection, caller="table")
    names = list(dict.fromkeys(label for label, _ in pairs))
    macro = suite_means(table, means, names).loc[MACRO]
    return suite_significance_table(
        table,
        names,
        test=test,
        correction=correction,
        alpha=alpha,
        cfg=stats_options,
        system_order=system_order,
        macro=macro,
        caller="table",
    )
