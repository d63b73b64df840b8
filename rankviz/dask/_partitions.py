"""What runs on the workers: one partition (every row of its queries) through rankviz's pandas path.

Each partition of the shuffled run holds every row of its queries, so the pandas
pipeline (:func:`rankviz.evaluation.pipeline.evaluated_cells`) gives exactly the values it
gives on the whole frame: ordering, ties, ``depth``, duplicates and
``score_dtype`` are all per query. The qrels each partition sees are cut to its
own queries (the values of a query depend only on its own judgements), so a
partition pays for its judgements only. Warnings are recorded, not shown: the
client decides which ones hold for the whole run (see :mod:`rankviz.dask._evaluate`).
"""

from __future__ import annotations

import dataclasses
import warnings

import pandas as pd

from ..evaluation.pipeline import evaluated_cells, index_frame, metadata

__all__ = ["PartitionResult", "cells_table", "evaluate_partition", "first_seen"]


@dataclasses.dataclass
class PartitionResult:
    """One partition's per-query rows, its queries without judgements, and the warnings it raised."""

    table: pd.DataFrame | None
    unjudged: dict
    warnings: list
    closed_world: bool | None = None


def cells_table(run, measures, qrels, options, caller: str) -> tuple[pd.DataFrame, dict]:
    """The per-query table of a pandas run (as ``evaluate(per_query=True)`` builds it) and its metadata."""
    j, keep, values = evaluated_cells(run, measures, qrels, options, caller)
    table = index_frame(j)
    for name, column in values.items():
        table[name] = column
    return table[keep].reset_index(drop=True), metadata(j, measures, options)


def _unjudged_only(part: pd.DataFrame, query: str, system: str | None) -> dict:
    """The queries of a partition none of which is judged, per system (as ``unjudged_in_run`` lists them)."""
    if system is None:
        return {None: tuple(pd.unique(part[query].astype(str)).tolist())}
    return {
        str(name): tuple(pd.unique(group[query].astype(str)).tolist())
        for name, group in part.groupby(part[system].astype(str), sort=False)
    }


def evaluate_partition(
    part: pd.DataFrame, judgements, measures, options, caller: str, query: str, system
) -> PartitionResult:
    """Evaluate one partition; ``judgements`` is ``(qrels, their query ids as str)`` or None (closed world)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if judgements is None:
            table, meta = cells_table(part, measures, None, options, caller) if len(part) else (None, {})
            result = PartitionResult(table, meta.get("unjudged_in_run", {}), [], meta.get("closed_world"))
        else:
            qrels, qrels_queries = judgements
            own = qrels[qrels_queries.isin(set(part[query].astype(str).unique()))] if len(part) else qrels.iloc[:0]
            if len(own):
                table, meta = cells_table(part, measures, own, options, caller)
                result = PartitionResult(table, meta["unjudged_in_run"], [], meta["closed_world"])
            else:
                result = PartitionResult(None, _unjudged_only(part, query, system) if len(part) else {}, [])
    result.warnings = [(w.category, str(w.message)) for w in caught]
    return result


def first_seen(part: pd.DataFrame, system: str | None, query: str | None) -> tuple[list, list]:
    """The systems and query ids of a partition in order of first appearance (as strings)."""
    systems = pd.unique(part[system].astype(str)).tolist() if system is not None else []
    queries = pd.unique(part[query].astype(str)).tolist() if query is not None else []
    return systems, queries
