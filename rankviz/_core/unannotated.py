"""Input without qrels: the gold the rows do not show, and the queries that have no gold at all.

- Per-query gold lists give each query's judgements; a system's retrieved rows show only the
  gold items it retrieved, so the others are added to its cell's judgement group
  (:func:`with_unretrieved`): R and the ideal DCG come from the gold given.
- A query with no gold at all (a missing or empty list of relevant ids, a missing relevance
  vector or one of missing entries) is *unannotated*: it cannot be scored. It is left out
  (``unannotated='drop'``, the default) with a warning giving the count, or scored 0
  (``unannotated='zero'``); either way the evaluation records it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import UnannotatedWarning, warn

__all__ = ["warn_unannotated", "with_unretrieved"]


def warn_unannotated(queries: np.ndarray | None, policy: str, caller: str) -> tuple:
    """The unannotated query ids as a tuple; warns when they are left out (``policy == 'drop'``)."""
    if queries is None or not len(queries):
        return ()
    found = tuple(str(q) for q in queries)
    if policy == "drop":
        shown = ", ".join(repr(q) for q in found[:3]) + (", ..." if len(found) > 3 else "")
        warn(
            f"{caller}: {len(found)} quer{'y has' if len(found) == 1 else 'ies have'} no gold ids at all (missing "
            f"or empty), e.g. {shown}: unannotated, so left out of the evaluation (listed as not evaluated). Pass "
            "unannotated='zero' to score them 0 and count them in the mean.",
            UnannotatedWarning,
        )
    return found


def with_unretrieved(g_cell: np.ndarray, g_grade: np.ndarray, unretrieved: tuple, queries: np.ndarray):
    """Judgement groups (cell, grade) with the gold items each cell did not retrieve added.

    ``unretrieved`` is (system code, query id, grade) per such item; cells are numbered
    ``system * len(queries) + query number`` over the evaluated ``queries``.
    """
    systems, query_ids, grades = unretrieved
    number = pd.Index(queries, dtype=object).get_indexer(query_ids) if len(query_ids) else np.zeros(0, np.int64)
    keep = (number >= 0) & (grades >= 0)
    cells = systems[keep] * len(queries) + number[keep]
    return np.concatenate([g_cell, cells.astype(np.int64)]), np.concatenate([g_grade, grades[keep]])
