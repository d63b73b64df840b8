"""Input layer: find the columns, recognise the input shape, check values.

Three input shapes become the same flat arrays (:class:`RunArrays`, :class:`QrelsArrays`):

1. a long run: one row per retrieved item (query id, doc id, score and/or rank,
   optional relevance, optional system);
2. per-query lists: one row per query with a list of retrieved ids and the
   relevant ids (list, set, or ``{id: grade}`` dict);
3. per-query relevance vectors: one row per query with booleans or grades in rank
   order (optionally the number of relevant items per query).

Nothing here modifies the caller's frame.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from .columns import Columns, find_column, is_listlike, is_missing
from .long_run import check_frame, long_shape
from .query_rows import lists_shape, vectors_shape

__all__ = ["run_arrays"]


def _first_valid(series: pd.Series):
    for value in series:
        if not is_missing(value):
            return value
    return None


def run_arrays(
    data,
    qrels: pd.DataFrame | None = None,
    *,
    caller: str,
    columns: Columns = Columns(),
    order=None,
    score_dtype="float64",
):
    """Turn any of the three input shapes into (RunArrays, QrelsArrays or None).

    ``qrels`` is a long DataFrame or None (paths and dicts are read by the caller).
    Returns ``qrels=None`` for closed-world input (judgements only from the rows given).
    """
    if isinstance(data, Mapping) and not isinstance(data, pd.DataFrame):
        data = pd.DataFrame({"query": [str(k) for k in data], "relevance": list(data.values())})
    frame = check_frame(data, "run")
    retrieved = find_column(frame, "retrieved", columns.retrieved, required=False, what="run")
    if retrieved is not None:
        return lists_shape(frame, qrels, retrieved, caller=caller, columns=columns)
    rel_name = find_column(frame, "relevance", columns.relevance, required=False, what="run")
    if rel_name is not None and is_listlike(_first_valid(frame[rel_name])):
        return vectors_shape(frame, qrels, rel_name, caller=caller, columns=columns)
    return long_shape(frame, qrels, caller=caller, columns=columns, order=order, score_dtype=score_dtype)
