"""The per-query shapes of RAG logs: one row per query with a list of retrieved ids and the relevant ids,
or with a relevance vector in rank order. Both become the :class:`RunArrays` a long run gives.

Nothing here modifies the caller's frame.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import pyarrow as pa

from .._errors import DuplicateError, InputError, QueryIdWarning, warn
from .columns import ALIASES, FALLBACK_ALIASES, Columns, columns_text, find_column, is_listlike, is_missing, row_label
from .id_codes import encode
from .long_run import MAX_EXACT, MISSING_DOC, RunArrays, id_array

__all__ = ["lists_shape", "vectors_shape"]


def _system_column(frame, columns: Columns):
    return find_column(frame, "system", columns.system, required=False, what="run")


def _query_labels(frame: pd.DataFrame, columns: Columns) -> pd.Series:
    name = find_column(frame, "query", columns.query, required=False, what="run")
    if name is not None:
        return frame[name]
    looked = ", ".join(repr(a) for a in ALIASES["query"] + FALLBACK_ALIASES["query"])
    if isinstance(frame.index, pd.RangeIndex):
        # No query column and a default index: number the queries by their row, and say so.
        warn(
            f"The run has no query-id column (looked for {looked}; its columns are {columns_text(frame)}), so its "
            f"{len(frame)} rows are numbered '0', '1', ... as query ids. Name the column with "
            "columns={'query': 'your_column'} if there is one.",
            QueryIdWarning,
        )
        return pd.Series(frame.index.astype(str), index=frame.index, name="query")
    if frame.index.name is None:
        warn(
            f"The run has no query-id column (looked for {looked}), so the labels of its index "
            f"({row_label(frame.index[0])}, ...) are the query ids. Name the index (frame.rename_axis('query_id')) "
            "or the column (columns={'query': ...}) to silence this.",
            QueryIdWarning,
        )
    return pd.Series(frame.index, index=frame.index, name=frame.index.name or "query")


def _list_id(item, column: str, row, role: str):
    """One id inside a list: a string, an integer as its decimal text, None when missing; floats are refused."""
    if is_missing(item):
        return None
    if isinstance(item, str):
        return item
    if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
        kind = "float" if isinstance(item, (float, np.floating)) else type(item).__name__
        raise InputError(
            f"The {column!r} column of row {row_label(row)} holds a {kind} {role} id ({item!r}); ids must be strings or "
            "integers, as in the long shape (1.0 would never match '1'). Convert them first, e.g. [str(int(x)) for x in ids]."
        )
    return str(int(item))


def _retrieved_ids(frame: pd.DataFrame, column: str) -> tuple[list, np.ndarray]:
    """Every retrieved id in rank order (None where missing) and the list length of each row."""
    flat: list[str | None] = []
    lengths = np.zeros(len(frame), dtype=np.int64)
    for i, value in enumerate(frame[column]):
        if is_missing(value):
            continue
        if not is_listlike(value):
            raise InputError(
                f"The {column!r} column must hold lists of retrieved ids; row {row_label(frame.index[i])} holds "
                f"{type(value).__name__} {value!r}."
            )
        if isinstance(value, (set, frozenset)):
            raise InputError(
                f"The {column!r} column of row {row_label(frame.index[i])} is a set, which has no order; use a list in rank order."
            )
        flat.extend(_list_id(item, column, frame.index[i], "doc") for item in value)
        lengths[i] = len(value)
    return flat, lengths


def _finite(value: int | np.integer | float | np.floating) -> bool:
    """Whether a number can go through ``int()``: every integer, a float unless infinite (NaN is missing already)."""
    return isinstance(value, (int, np.integer)) or bool(np.isfinite(value))


def _grade(value, doc: str, column: str, row) -> int:
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer, float, np.floating))
        or is_missing(value)
    ):
        raise InputError(
            f"The grade of doc {doc!r} in the {column!r} column of row {row_label(row)} must be an integer. Got {value!r}."
        )
    if not _finite(value) or value != int(value) or abs(int(value)) > MAX_EXACT:
        raise InputError(
            f"The grade of doc {doc!r} in the {column!r} column of row {row_label(row)} must be an integer within "
            f"+-2**53. Got {value!r}."
        )
    return int(value)


def _is_grade_series(value) -> bool:
    """A pandas Series of numbers indexed by doc ids (not 0, 1, 2, ...): ``pd.Series({"b": 1, "c": 2})``."""
    return (
        isinstance(value, pd.Series)
        and not isinstance(value.index, pd.RangeIndex)
        and (pd.api.types.is_numeric_dtype(value.dtype) or pd.api.types.is_bool_dtype(value.dtype))
    )


def _relevant_grades(value, column: str, row) -> dict[str, int]:
    """{doc id: grade} of one row's relevant ids (a list/set of ids, or an {id: grade} dict); missing ids name nothing."""
    if is_missing(value):
        return {}
    if _is_grade_series(value):
        value = dict(value.items())  # grades indexed by doc id: {id: grade}
    if isinstance(value, Mapping):
        pairs = [(_list_id(k, column, row, "relevant"), v) for k, v in value.items()]
        return {d: _grade(g, d, column, row) for d, g in pairs if d is not None}
    if is_listlike(value):
        ids = (_list_id(k, column, row, "relevant") for k in value)
        return {d: 1 for d in ids if d is not None}
    raise InputError(
        f"The {column!r} column must hold lists/sets of relevant ids or {{id: grade}} dicts; row "
        f"{row_label(row)} holds {type(value).__name__} {value!r}."
    )


def lists_shape(frame, qrels, retrieved, *, caller, columns: Columns):
    if qrels is not None:
        raise InputError(
            f"{caller}: the run holds per-query lists of retrieved ids, so the relevant ids belong in a column of "
            "the same frame (relevant=...); do not also pass qrels=."
        )
    relevant = find_column(frame, "relevant", columns.relevant, required=True, what="run")
    qlabels = _query_labels(frame, columns)
    sys_name = _system_column(frame, columns)
    qids = np.asarray(id_array(qlabels, role="query", what="run").to_pylist(), dtype=object)
    systems = frame[sys_name].astype("str").to_numpy(dtype=object) if sys_name else None
    keys = pd.DataFrame({"s": systems if systems is not None else "", "q": qids})
    if keys.duplicated().any():
        bad = keys[keys.duplicated()].iloc[0]
        hint = (
            f" If the rows are several systems (retrievers), name the column that says which: "
            f"columns={{'system': 'your_column'}} (the columns are {columns_text(frame)})."
            if sys_name is None
            else ""
        )
        raise DuplicateError(
            f"The query {bad['q']!r} has more than one row of retrieved ids; one row per query (and system) is "
            f"expected.{hint}"
        )

    flat, lengths = _retrieved_ids(frame, retrieved)
    row_of = np.repeat(np.arange(len(frame)), lengths)
    positions = np.arange(len(row_of)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    # A missing entry keeps its rank as an empty slot: a unique id no judgement can name (shown as missing).
    flat = [MISSING_DOC + f"{r}:{p}" if d is None else d for d, r, p in zip(flat, row_of.tolist(), positions.tolist())]
    docs = pa.array(flat, pa.string())

    gold, unannotated = _gold_of_queries(frame, relevant, qids)
    q_codes, q_values = encode(
        pa.array(qids[row_of].tolist(), pa.string()) if len(row_of) else pa.array([], pa.string())
    )
    sys_codes = sys_tuple = None
    if systems is not None:
        sys_codes, values = encode(pa.array(systems[row_of].tolist(), pa.string()))
        sys_tuple = tuple(values.tolist())
    # Closed world: a retrieved id that is not in its query's gold is judged non-relevant (grade 0).
    row_q = qids[row_of]
    grade = np.asarray([gold[q].get(d, 0) for q, d in zip(row_q.tolist(), flat)], dtype=np.float64)
    key = -(positions + 1).astype(np.float64)
    order = np.asarray(pd.unique(qids), dtype=object)
    run = RunArrays(
        sys_tuple,
        sys_codes,
        q_codes,
        q_values,
        docs,
        key,
        grade,
        "str",
        None,
        query_order=order,
        unretrieved=_unretrieved_gold(gold, row_q, flat, sys_codes, len(sys_tuple or ("",))),
        unannotated=unannotated,
    )
    # Queries that retrieved nothing still carry their gold; the evaluation scores them 0.
    return run, None


def _gold_of_queries(frame: pd.DataFrame, relevant: str, qids: np.ndarray) -> tuple[dict, np.ndarray]:
    """{query: {doc: grade}} from the relevant column (one set per query, the same across systems), and the
    queries whose gold is missing or empty (unannotated)."""
    gold: dict[str, dict] = {}
    unannotated = []
    for i, value in enumerate(frame[relevant]):
        grades = _relevant_grades(value, relevant, frame.index[i])
        q = qids[i]
        if q in gold:
            if gold[q] != grades:
                raise InputError(
                    f"The relevant ids of query {q!r} differ between its rows; a query has one set of judgements."
                )
            continue
        gold[q] = grades
        if not grades:
            unannotated.append(q)
    return gold, np.asarray(unannotated, dtype=object)


def _unretrieved_gold(gold: dict, row_q: np.ndarray, flat: list, sys_codes, n_sys: int):
    """(system code, query id, grade) of every gold item a system did not retrieve for its query: the part of
    the denominators (R, the ideal DCG) the retrieved rows do not show."""
    systems = sys_codes.tolist() if sys_codes is not None else [0] * len(flat)
    retrieved = set(zip(systems, row_q.tolist(), flat))
    s_out, q_out, g_out = [], [], []
    for s in range(n_sys):
        for q, grades in gold.items():
            for d, g in grades.items():
                if (s, q, d) not in retrieved:
                    s_out.append(s)
                    q_out.append(q)
                    g_out.append(g)
    return (
        np.asarray(s_out, dtype=np.int64),
        np.asarray(q_out, dtype=object),
        np.asarray(g_out, dtype=np.float64),
    )


def _vector_grade(item, column: str, row) -> float:
    """One entry of a relevance vector: a bool or an integer grade; NaN (unjudged) where missing."""
    if is_missing(item):
        return np.nan
    if isinstance(item, (bool, np.bool_)):
        return float(item)
    if (
        isinstance(item, (int, np.integer, float, np.floating))
        and _finite(item)
        and item == int(item)
        and abs(int(item)) <= MAX_EXACT
    ):
        return float(item)
    raise InputError(
        f"The {column!r} column of row {row_label(row)} holds {item!r} in its relevance vector; entries must be "
        "booleans or integer grades (within +-2**53), or missing for an unjudged item."
    )


def _vector_grades(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Every grade in rank order (NaN = a missing entry: an unjudged item at that rank) and each row's length."""
    flat: list[float] = []
    lengths = np.zeros(len(frame), dtype=np.int64)
    for i, value in enumerate(frame[column]):
        if is_missing(value):
            continue
        if not is_listlike(value) or isinstance(value, (set, frozenset)):
            raise InputError(
                f"The {column!r} column must hold a list of booleans or grades in rank order; row "
                f"{row_label(frame.index[i])} holds {type(value).__name__} {value!r}."
            )
        flat.extend(_vector_grade(item, column, frame.index[i]) for item in value)
        lengths[i] = len(value)
    return np.asarray(flat, dtype=np.float64), lengths


def vectors_shape(frame, qrels, rel_name, *, caller, columns: Columns):
    if qrels is not None:
        raise InputError(
            f"{caller}: the run holds per-query relevance vectors, which already are the judgements; do not also "
            "pass qrels=. (For recall-like measures give the number of relevant items with n_relevant=.)"
        )
    qlabels = _query_labels(frame, columns)
    sys_name = _system_column(frame, columns)
    qids = np.asarray(id_array(qlabels, role="query", what="run").to_pylist(), dtype=object)
    systems = frame[sys_name].astype("str").to_numpy(dtype=object) if sys_name else None
    grade, lengths = _vector_grades(frame, rel_name)
    row_of = np.repeat(np.arange(len(frame)), lengths)
    positions = np.arange(len(row_of)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    docs = pa.array([str(p + 1) for p in positions.tolist()], pa.string())
    q_codes, q_values = encode(
        pa.array(qids[row_of].tolist(), pa.string()) if len(row_of) else pa.array([], pa.string())
    )
    sys_codes = sys_tuple = None
    if systems is not None:
        sys_codes, svalues = encode(pa.array(systems[row_of].tolist(), pa.string()))
        sys_tuple = tuple(svalues.tolist())
    n_rel_name = find_column(frame, "n_relevant", columns.n_relevant, required=False, what="run")
    n_relevant = None
    if n_rel_name is not None:
        if len(grade) and not np.isin(grade[~np.isnan(grade)], (0.0, 1.0)).all():
            raise InputError(
                "n_relevant describes binary judgements (True/False or 0/1); these vectors hold graded labels. "
                "For graded judgements pass a long run with qrels instead."
            )
        counts = pd.to_numeric(frame[n_rel_name], errors="coerce").to_numpy(dtype=np.float64)
        if np.isnan(counts).any() or (counts < 0).any() or (counts != np.round(counts)).any():
            raise InputError(f"The {n_rel_name!r} column must hold non-negative integers.")
        found = np.bincount(row_of, weights=(grade >= 1).astype(np.float64), minlength=len(frame))
        short = np.flatnonzero(counts < found)
        if len(short):
            i = int(short[0])
            raise InputError(
                f"Query {qids[i]!r} has n_relevant={int(counts[i])} but {int(found[i])} relevant items in its vector."
            )
        n_relevant = dict(zip(qids.tolist(), counts.astype(np.int64).tolist()))
    key = -(positions + 1).astype(np.float64)
    # Queries with an empty vector still count (they retrieved nothing): list every query explicitly.
    order = np.asarray(pd.unique(qids), dtype=object)
    # No gold at all: a missing vector, or one whose entries are all missing (never an empty one: it retrieved nothing).
    labelled = np.bincount(row_of, weights=~np.isnan(grade), minlength=len(frame)) > 0
    lacking = np.asarray([is_missing(v) for v in frame[rel_name]], dtype=bool) | ((lengths > 0) & ~labelled)
    if n_rel_name is not None:
        lacking &= False  # n_relevant says how many are relevant: annotated
    unannotated = np.asarray(pd.unique(qids[lacking]), dtype=object)
    run = RunArrays(
        sys_tuple,
        sys_codes,
        q_codes,
        q_values,
        docs,
        key,
        grade,
        "str",
        None,
        n_relevant,
        order,
        unannotated=unannotated,
    )
    return run, None
