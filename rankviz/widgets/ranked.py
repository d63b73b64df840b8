"""Ranked lists for the explorer: one query's list from :func:`rankviz.ranked_list`, fast, with its documents.

A widget asks for one (system, query) list after another. :class:`RankedLists`
indexes a long run's rows by (system, query) once, so that each list is computed
from its own rows only, joins document titles and texts by id, and keeps the list
shown last (the measures and the table of one display both read it).
"""

from __future__ import annotations

import warnings
from typing import cast

import numpy as np
import pandas as pd

from .._core.columns import columns_text, find_column, is_listlike
from .._core.frames import as_pandas
from .._core.options import EvalOptions
from .._errors import IdTypeWarning, InputError
from ..evaluation.ranked_lists import ranked_list_of

__all__ = ["RankedLists", "read_documents"]


def read_documents(documents) -> pd.DataFrame | None:
    """Document titles and texts indexed by doc id as strings (first row wins); None for None.

    Raises
    ------
    rankviz.InputError
        When ``documents`` is not a DataFrame or lacks a doc id or a ``text`` column.
    """
    if documents is None:
        return None
    documents = as_pandas(documents, "documents")
    if not isinstance(documents, pd.DataFrame):
        raise InputError(f"explore: documents must be a DataFrame. Got {type(documents).__name__} instead.")
    dcol = find_column(documents, "doc", required=False, what="documents")
    if dcol is None or "text" not in documents.columns:
        raise InputError(
            "explore: documents needs a document id column ('doc_id', 'docid' or 'docno') and a 'text' column "
            f"(optionally 'title'); its columns are {columns_text(documents)}."
        )
    keep = ["title", "text"] if "title" in documents.columns else ["text"]
    frame = pd.DataFrame({c: documents[c].fillna("").astype("str").to_numpy() for c in keep})
    frame.index = pd.Index(documents[dcol].astype("str").to_numpy(), name="doc_id")
    return frame[~frame.index.duplicated()]


def _empty_ranked_list() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "rank": pd.Series([], dtype="int64"),
            "doc_id": pd.Series([], dtype="str"),
            "relevance": pd.array([], dtype="Int64"),
            "relevant": pd.Series([], dtype=bool),
        }
    )


class RankedLists:
    """The ranked lists of a run, one (system, query) at a time.

    Parameters
    ----------
    run : DataFrame
        Any input shape rankviz evaluates, as a DataFrame.
    qrels : DataFrame, path, dict or None
    options : EvalOptions, optional
        The evaluation options every list follows (as :func:`rankviz.ranked_list` takes them): ``columns``
        finds the run's query and system columns, ``rel`` (default 1) is the minimum grade of a relevant row.
    documents : DataFrame, optional
        As :func:`read_documents` returns it.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.widgets.ranked import RankedLists
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]})
    >>> lists = RankedLists(run, {"q1": {"a": 1}})
    >>> lists.get(None, "q1")[["doc_id", "relevant"]].to_dict("list")
    {'doc_id': ['b', 'a'], 'relevant': [False, True]}
    >>> lists.longest
    2
    """

    def __init__(self, run: pd.DataFrame, qrels, options: EvalOptions | None = None, *, documents=None):
        self._options = EvalOptions() if options is None else options
        self._run, self._qrels, self._columns = run, qrels, self._options.columns
        self._documents = documents
        self._rows = self._rows_by_query()
        self._last: tuple | None = None
        #: the length of the longest list (10 when the run's shape does not tell)
        self.longest = self._longest_list()

    @property
    def documents(self) -> pd.DataFrame | None:
        """The documents joined to each list (as :func:`read_documents` returns them), or None."""
        return self._documents

    def _column(self, role: str) -> str | None:
        return find_column(self._run, role, self._columns.get(role), required=False, what="run")

    def _rows_by_query(self) -> dict[tuple, np.ndarray] | None:
        """Row positions of each (system, query) of a long run; None for per-query lists or vectors."""
        run = self._run
        if self._column("retrieved") is not None:
            return None
        relevance = self._column("relevance")
        if relevance is not None and is_listlike(run[relevance].iloc[0]):
            return None
        qcol = self._column("query")
        if qcol is None:
            return None
        ids = pd.Series(run[qcol].astype("str").to_numpy(), name="query")
        scol = self._column("system")
        # (groupby's indices are arrays of row positions; pandas-stubs also allows an Index or a list)
        if scol is None:
            indices = cast("dict[str, np.ndarray]", ids.groupby(ids, sort=False).indices)
            return {(None, q): rows for q, rows in indices.items()}
        systems = pd.Series(run[scol].astype("str").to_numpy(), name="system")
        groups = pd.DataFrame({"system": systems, "query": ids}).groupby(["system", "query"], sort=False)
        return dict(cast("dict[tuple, np.ndarray]", groups.indices))

    def _longest_list(self) -> int:
        if self._rows is not None:
            return max(len(rows) for rows in self._rows.values())
        longest = 0
        for role in ("retrieved", "relevance"):
            name = self._column(role)
            if name is not None:
                longest = max([longest] + [len(v) for v in self._run[name] if is_listlike(v)])
        return longest or 10

    def get(self, system: str | None, query_id) -> pd.DataFrame:
        """The whole ranked list of one query (a new frame), with ``title``/``text`` when documents are known."""
        key = (system, str(query_id))
        if self._last is None or self._last[0] != key:
            self._last = (key, self._documents_joined(self._ranked(system, str(query_id))))
        return self._last[1].copy()

    def _ranked(self, system, query_id: str) -> pd.DataFrame:
        run = self._run
        if self._rows is not None:
            rows = self._rows.get((system, query_id))
            if rows is None:  # judged, but this system retrieved nothing for it
                return _empty_ranked_list()
            run = run.iloc[rows]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IdTypeWarning)  # said once, when the run was first evaluated
            return ranked_list_of(run, query_id, self._qrels, self._options, system=system)

    def _documents_joined(self, table: pd.DataFrame) -> pd.DataFrame:
        if self._documents is not None:
            looked_up = self._documents.reindex(table["doc_id"].astype("str").to_numpy())
            for column in looked_up.columns:
                table[column] = looked_up[column].fillna("").to_numpy(dtype=object)
        return table
