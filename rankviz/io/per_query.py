"""Reading the tables users hand to statistics, plots and widgets: the one reader of per-query tables.

Two kinds of table come back from users after evaluation: per-query tables (the
output of ``rankviz.evaluate(..., per_query=True)``, or anything of that shape) and
query texts. Both are resolved here, once, with the column roles of
:mod:`rankviz._core.columns` and the measure names of :mod:`rankviz.measures`: which
column is the query id, which the system, which column holds a measure (``'MRR@10'``
finds ``'RR@10'``), the systems in order, and whether a column is a reciprocal rank.
``stats``, ``plots`` and ``widgets`` read them by the same rules and fail with the same
messages.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping

import pandas as pd

from .._core.columns import (
    ALIASES,
    TEXT_COLUMNS,
    check_key_cells,
    columns_text,
    find_column,
    is_listlike,
    is_missing,
)
from .._core.frames import as_pandas
from .._errors import ColumnError, DuplicateTextWarning, InputError, RankvizWarning, warn
from ..measures import Measure, parse_measure

__all__ = ["PerQueryTable", "per_query_table", "query_keys", "query_texts", "is_reciprocal_rank"]


def is_reciprocal_rank(column) -> bool:
    """Whether a measure column holds reciprocal ranks (``RR@10``, ``MRR@10``, ``recip_rank``, ``RR(rel=2)@5``)."""
    try:
        return parse_measure(column).family == "RR"
    except InputError:
        return False


@dataclasses.dataclass(frozen=True)
class PerQueryTable:
    """A per-query table with its query-id column and (optional) system column resolved."""

    frame: pd.DataFrame
    query: str | None
    system: str | None

    @property
    def id_columns(self) -> set:
        return {c for c in (self.query, self.system) if c is not None}

    def systems(self) -> list[str]:
        """The systems, as strings, in order of first appearance ([] without a system column)."""
        if self.system is None:
            return []
        return [str(s) for s in pd.unique(self.frame[self.system].astype(str))]

    def measure_column(self, measure, caller: str) -> str:
        """The column holding ``measure``: its exact name, else its canonical name ('MRR@10' finds 'RR@10').

        Raises
        ------
        ColumnError
            No such column; the message lists the table's columns and how to evaluate it.

        Examples
        --------
        >>> import pandas as pd
        >>> from rankviz.io.per_query import per_query_table
        >>> per_query_table(pd.DataFrame({"query_id": ["q1"], "RR@10": [1.0]}), "x").measure_column("MRR@10", "x")
        'RR@10'
        """
        text = measure.name if isinstance(measure, Measure) else str(measure)
        if text in self.frame.columns:
            return text
        try:
            name = parse_measure(measure).name
        except InputError:
            name = None
        if name is not None and name in self.frame.columns:
            return name
        present = [c for c in self.frame.columns if c not in self.id_columns]
        raise ColumnError(
            f"{caller}: the per-query table has no column for measure {text!r}; it has {columns_text(present)}. "
            f"Evaluate it first, e.g. rankviz.evaluate(run, [{text!r}], qrels, per_query=True)."
        )

    def measure_columns(self, measures, caller: str) -> list[str]:
        """The columns of the measures asked for (names or aliases), or every numeric one for None."""
        if measures is None:
            names = self.numeric_columns()
            if not names:
                raise ColumnError(f"{caller}: the per-query table has no numeric measure columns.")
            return names
        if isinstance(measures, (str, Measure)) or not hasattr(measures, "__iter__"):
            measures = [measures]
        return [self.measure_column(m, caller) for m in measures]

    def numeric_columns(self) -> list[str]:
        """The measure columns: every numeric column that is not an id column."""
        return [
            c
            for c in self.frame.columns
            if c not in self.id_columns
            and pd.api.types.is_numeric_dtype(self.frame[c])
            and not pd.api.types.is_bool_dtype(self.frame[c])
        ]


def per_query_table(data, caller: str, *, require_query: bool = True) -> PerQueryTable:
    """Resolve a per-query table: its query-id column and, if any, its system column.

    A table indexed by system (as ``rankviz.summary`` returns) or by query id gets
    that index back as a column. The caller's frame is not modified.

    Raises
    ------
    InputError
        When ``data`` is not a DataFrame or is empty.
    ColumnError
        When ``require_query`` and no query-id column is found.
    """
    data = as_pandas(data, "per-query table")
    if not isinstance(data, pd.DataFrame):
        raise InputError(
            f"{caller} works on a per-query table (the output of rankviz.evaluate(run, measures, qrels, "
            f"per_query=True)). Got {type(data).__name__} instead."
        )
    frame = data
    levels = [
        n
        for n in frame.index.names
        if n is not None and n not in frame.columns and (n in ALIASES["system"] or n in ALIASES["query"])
    ]
    if levels:
        frame = frame.reset_index(level=levels)
    if len(frame) == 0:
        raise InputError(f"{caller}: the per-query table is empty (0 rows).")
    query = find_column(frame, "query", required=False, what="per-query table")
    if require_query and query is None:
        raise ColumnError(
            f"{caller} needs a per-query table with a query id column ({columns_text(ALIASES['query'])}); its "
            f"columns are {columns_text(frame.columns)}. Evaluate with rankviz.evaluate(run, measures, qrels, per_query=True)."
        )
    system = find_column(frame, "system", required=False, what="per-query table")
    for name, role in ((query, "query"), (system, "system")):
        if name is not None:  # a missing id or system would be dropped by a groupby in silence
            check_key_cells(frame, name, role, "per-query table")
    return PerQueryTable(frame, query, system)


def query_texts(queries, caller: str) -> dict[str, str]:
    """``{query id: text}`` from a DataFrame (a query id column or index and a text column), a Series or a dict.

    ``None`` gives an empty dict. Missing texts become ``""`` (with one warning); a text that is not a
    string (a number, a list) and a missing query id are refused, naming them. Text columns are
    looked for in the order ``text``, ``query_text``, ``question``, ``title``.
    """
    if queries is None:
        return {}
    queries = as_pandas(queries, "queries")
    if isinstance(queries, pd.Series):
        return _one_text_each(queries.items(), caller)
    if isinstance(queries, Mapping):
        return _one_text_each(queries.items(), caller)
    if not isinstance(queries, pd.DataFrame):
        raise InputError(
            f"{caller}: queries must be a DataFrame (query_id, text), a Series or a dict of query texts. "
            f"Got {type(queries).__name__} instead."
        )
    query = find_column(queries, "query", required=False, what="queries")
    text = next((c for c in TEXT_COLUMNS if c in queries.columns and c != query), None)
    if text is None and query in TEXT_COLUMNS:  # a lone 'question' column is the text, not the query id
        query, text = None, query
    if text is None or (query is None and queries.index.name not in ALIASES["query"]):
        raise ColumnError(
            f"{caller}: queries must be a DataFrame with a query id column ('query_id', 'qid' or 'query') and a "
            f"text column ('text', 'query_text', 'question' or 'title'), as rankviz.read_topics returns; its "
            f"columns are {columns_text(queries.columns)}."
        )
    ids = query_keys(queries, query)
    return _one_text_each(zip(ids.tolist(), queries[text].tolist()), caller, text)


def query_keys(queries: pd.DataFrame, query) -> pd.Series:
    """The query ids of a queries frame: its ``query`` column, else its index (as a column: rows by position).

    A missing id (None, NaN, NA) is refused naming its row, as in every key column: read as
    the text ``'nan'`` or dropped by a lookup, it would move its row's text and attributes in silence.

    Examples
    --------
    >>> import pandas as pd
    >>> query_keys(pd.DataFrame({"query_id": ["q1", "q2"], "text": ["a", "b"]}), "query_id").tolist()
    ['q1', 'q2']
    """
    if query is not None:
        check_key_cells(queries, query, "query", "queries frame")
        return queries[query]
    ids = queries.index.to_series(index=pd.RangeIndex(len(queries)), name=queries.index.name or "index")
    check_key_cells(ids.to_frame(), ids.name, "query", "queries frame (index)")
    return ids


def _one_text_each(pairs, caller: str, column=None) -> dict[str, str]:
    """{id: text}, the first text of an id kept; an id given two different texts is said, not silently overwritten."""
    out: dict[str, str] = {}
    clash = None
    missing: list[str] = []
    for q, t in pairs:
        if is_missing(q) or not isinstance(q, Hashable) or is_listlike(q):
            raise InputError(
                f"{caller}: the queries hold a query id {q!r}; every text needs its query id (a string or an "
                "integer). Fill it in or drop that entry."
            )
        if is_missing(t):
            missing.append(str(q))
        q, t = str(q), _text(t, q, caller, column)
        if q in out:
            if out[q] != t and clash is None:
                clash = (q, out[q], t)
            continue
        out[q] = t
    if clash is not None:
        q, first, second = clash
        warn(
            f"{caller}: query {q!r} has two different texts ({first[:40]!r} and {second[:40]!r}); the first is shown. "
            "Drop the repeated ids from the queries (e.g. queries.drop_duplicates('query_id')) to choose.",
            DuplicateTextWarning,
        )
    if missing:  # read as "" (no words): say so, since the words of a query's text are slices and lengths
        warn(
            f"{caller}: {len(missing)} query text(s) are missing (None or NaN; the first of query {missing[0]!r}) and "
            "are read as empty: those queries have no words. Fill them in, or drop those rows from the queries.",
            RankvizWarning,
        )
    return out


def _text(value, query: str, caller: str, column) -> str:
    """A query's text: a string, or "" when missing; a number, list or other object is refused (it is no text).

    ``str(inf)`` is ``'inf'`` and ``str(['a'])`` is ``"['a']"``: read as text, each would add words the
    query never had, and change every slice of its terms in silence.
    """
    if isinstance(value, str):
        return value
    if is_missing(value):
        return ""
    where = f"column {str(column)!r}" if column is not None else "the texts"
    raise InputError(
        f"{caller}: the text of query {query!r} ({where}) is a {type(value).__name__} ({value!r:.60}), not a string. "
        "Give each query its text as a string (missing texts may be None), e.g. fix that row or convert the "
        "column with .astype(str) if the values are meant as words."
    )
