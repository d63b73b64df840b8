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

import dataclasses
from collections.abc import Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ._columns import ALIASES, Columns, columns_text, find_column, is_listlike, is_missing, row_label
from ._errors import ColumnError, DuplicateError, IdTypeWarning, InputError, warn
from ._codes import encode
from ._memory import blocked_take

__all__ = [
    "resolve_long_run",
    "resolve_qrels",
    "run_arrays",
    "RunArrays",
    "QrelsArrays",
    "LongColumns",
    "encode",
    "MISSING_DOC",
    "MAX_EXACT",
]

@dataclasses.dataclass(frozen=True)
class LongColumns:
    """Which columns of a long run play which role."""

    frame: pd.DataFrame
    query: str
    doc: str | None
    score: str | None
    rank: str | None
    relevance: str | None
    system: str | None

#: prefix of the id given to a missing entry of a retrieved list (no real id starts with NUL)
MISSING_DOC = "\x01missing:"

#: grades and ranks beyond this are refused: float64 (and trec_eval's arithmetic) stops being exact
MAX_EXACT = 2**53


def _with_index_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Expose named index levels that match a known alias as columns (no data copy under copy-on-write)."""
    known = {a for names in ALIASES.values() for a in names}
    levels = [n for n in frame.index.names if n is not None and n in known and n not in frame.columns]
    return frame.reset_index(level=levels) if levels else frame


def _check_frame(frame, what: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        module = type(frame).__module__.split(".")[0]
        kind = type(frame).__name__ if module == "builtins" else f"{module}.{type(frame).__name__}"
        hint = " Convert it first with .to_pandas()." if hasattr(frame, "to_pandas") else ""
        raise InputError(f"The {what} must be a pandas DataFrame. Got {kind} instead.{hint}")
    if len(frame) == 0:
        raise InputError(f"The {what} is empty (0 rows): there is nothing to evaluate.")
    return _with_index_columns(frame)


def resolve_long_run(frame: pd.DataFrame, columns: Columns = Columns(), *, need_doc: bool = True) -> LongColumns:
    """Resolve the columns of a long run frame (shape 1)."""
    frame = _check_frame(frame, "run")
    q = find_column(frame, "query", columns.query, required=True, what="run")
    d = find_column(frame, "doc", columns.doc, required=need_doc, what="run")
    s = find_column(frame, "score", columns.score, required=False, what="run")
    r = find_column(frame, "rank", columns.rank, required=False, what="run")
    if s is None and r is None:
        raise ColumnError(
            f"The run has neither a score nor a rank column; its columns are {columns_text(frame)}. "
            "Name one with score='col' (higher is better) or rank='col' (1 is best)."
        )
    rel = find_column(frame, "relevance", columns.relevance, required=False, what="run")
    sysc = find_column(frame, "system", columns.system, required=False, what="run")
    return LongColumns(frame, q, d, s, r, rel, sysc)


# --------------------------------------------------------------------------- ids


def _arrow(series: pd.Series) -> pa.Array | pa.ChunkedArray:
    try:
        return pa.array(series, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return pa.array(series.astype("str"), from_pandas=True)


def id_array(series: pd.Series, *, role: str, what: str) -> pa.Array | pa.ChunkedArray:
    """Ids as an Arrow string array. Integers become their decimal text; floats and missing ids are refused."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        series = series.astype(dtype.categories.dtype).astype("str") if len(series) else series.astype("str")
        dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise InputError(f"The {role} ids in the {what} column {series.name!r} are booleans; ids must be strings or integers.")
    if pd.api.types.is_float_dtype(dtype):
        raise InputError(
            f"The {role} ids in the {what} column {series.name!r} are floats ({dtype}); ids must be strings or "
            f"integers. Convert them first, e.g. .astype('int64') or .astype(str)."
        )
    if series.isna().any():
        where = series.index[series.isna().to_numpy()][0]
        raise InputError(f"The {what} column {series.name!r} has a missing {role} id (row {row_label(where)}).")
    arr = _arrow(series)
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        if pa.types.is_integer(arr.type):
            arr = pc.cast(arr, pa.string())
        else:
            arr = _arrow(series.map(str).astype("str"))
    return arr


def id_kind(series: pd.Series) -> str:
    """'int' or 'str': how ids of a column compare before rankviz turns them into strings."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    return "int" if pd.api.types.is_integer_dtype(dtype) else "str"


def encode_ids(series: pd.Series, *, role: str, what: str) -> tuple[np.ndarray, np.ndarray]:
    """``encode(id_array(series))``; a categorical of string categories (``read_run``'s ``system``) straight
    from its codes, without a string per row."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype) and all(isinstance(v, str) for v in dtype.categories):
        codes = series.cat.codes.to_numpy()
        if len(dtype.categories) == 1 and (codes == 0).all():  # one system (a run read from one file): as it is
            return codes, np.asarray([str(dtype.categories[0])], dtype=object)
        if (codes >= 0).all():  # a missing id goes the general way, which names its row
            first = pd.unique(codes)
            small = np.int8 if len(first) < 2**7 else np.int16 if len(first) < 2**15 else np.int32
            remap = np.full(len(dtype.categories), -1, dtype=small)
            remap[first] = np.arange(len(first), dtype=small)
            return blocked_take(remap, codes), np.asarray([str(v) for v in dtype.categories[first]], dtype=object)
    return encode(id_array(series, role=role, what=what))


# ------------------------------------------------------------------ values


def grade_array(series: pd.Series, *, what: str, allow_missing: bool) -> np.ndarray:
    """Relevance grades as float64 (NaN = unjudged where allowed); integers only."""
    if pd.api.types.is_bool_dtype(series.dtype):
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    if not pd.api.types.is_numeric_dtype(series.dtype):
        sample = series.dropna()
        shown = repr(sample.iloc[0]) if len(sample) else "only missing values"
        raise InputError(
            f"The relevance column {series.name!r} of the {what} must hold integer grades; it has dtype "
            f"{series.dtype} (e.g. {shown}). Convert it with pd.to_numeric(...)."
        )
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    missing = np.isnan(values)
    if missing.any() and not allow_missing:
        where = series.index[missing][0]
        raise InputError(f"The relevance column {series.name!r} of the {what} has a missing grade (row {row_label(where)}).")
    huge = ~missing & np.isfinite(values) & (np.abs(values) > MAX_EXACT)
    if huge.any():
        i = int(np.flatnonzero(huge)[0])
        raise InputError(
            f"The relevance column {series.name!r} of the {what} has the grade {row_label(series.iloc[i])} (row "
            f"{row_label(series.index[i])}), beyond +-2**53 where grades stop being exact (one above 2**63 would "
            "even wrap to a negative number). Map the grades to a small range first."
        )
    bad = ~missing & ((values != np.round(values)) | ~np.isfinite(values))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        value = float(values[i])
        fate = f"trec_eval would truncate {value:g} to {int(value)}" if np.isfinite(value) else "trec_eval cannot read it"
        raise InputError(
            f"The relevance column {series.name!r} of the {what} must hold integer grades; found {value:g} "
            f"(row {row_label(series.index[i])}). {fate}; rankviz refuses to guess: round or map the grades explicitly."
        )
    return values


def key_array(frame: pd.DataFrame, cols: LongColumns, *, order, score_dtype: str, caller: str) -> np.ndarray:
    """The ordering key, higher = better: the score, or minus the rank."""
    use = order or ("score" if cols.score is not None else "rank")
    name = cols.score if use == "score" else cols.rank
    if name is None:
        raise ColumnError(f"order={use!r} needs a {use} column, and the run has none; its columns are {columns_text(frame)}.")
    series = frame[name]
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        raise InputError(
            f"The {use} column {name!r} must be numeric; it has dtype {series.dtype}. Convert it with pd.to_numeric(...)."
        )
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"The {use} column {name!r} has {int(bad.sum())} value(s) that are NaN or infinite, first at row "
            f"{row_label(series.index[i])} ({float(values[i])!r}). Drop or fill them before evaluating."
        )
    if use == "rank" and (np.abs(values) > MAX_EXACT).any():
        i = int(np.flatnonzero(np.abs(values) > MAX_EXACT)[0])
        raise InputError(
            f"The rank column {name!r} has the rank {row_label(series.iloc[i])} (row {row_label(series.index[i])}), beyond "
            "2**53 where ranks stop being exact and could tie or swap. Renumber the ranks (1 is best)."
        )
    if use == "score":
        return values.astype(np.float32).astype(np.float64) if score_dtype == "float32" else values
    return -values


# ------------------------------------------------------------------ arrays


@dataclasses.dataclass(frozen=True)
class RunArrays:
    """A run as flat arrays. ``grade`` is set only when the run carries its own judgements."""

    systems: tuple[str, ...] | None
    sys_codes: np.ndarray | None  # None without a system column, and with one system (every row is system 0)
    q_codes: np.ndarray
    q_values: np.ndarray  # unique query ids (object array of str)
    docs: pa.Array | pa.ChunkedArray
    key: np.ndarray
    grade: np.ndarray | None
    kind: str  # 'int' or 'str' ids before conversion
    row_index: pd.Index | None = None
    n_relevant: dict | None = None  # query id -> number of relevant items (shape 3 only)
    query_order: np.ndarray | None = None  # closed world: every query to evaluate, in order
    ordered_by: str = "rank"  # 'score' when key is the score, 'rank' when it is minus the rank


@dataclasses.dataclass(frozen=True)
class QrelsArrays:
    """Judgements as flat arrays (one row per judged (query, doc) pair)."""

    query_ids: np.ndarray  # object array of str, per judgement
    doc_ids: np.ndarray
    grades: np.ndarray  # int64
    kind: str = "str"
    doc_kind: str = "str"
    query_order: np.ndarray | None = None  # every judged query, in order (defaults to first appearance)

    def queries(self) -> np.ndarray:
        if self.query_order is not None:
            return self.query_order
        return np.asarray(pd.unique(self.query_ids), dtype=object)


def resolve_qrels(qrels: pd.DataFrame, columns: Columns = Columns()) -> QrelsArrays:
    """Qrels from a long DataFrame (query id, doc id, relevance).

    A column override applies to the qrels only where the qrels have that column
    (``columns={'query': 'qid'}`` names the run's column; qrels keep ``query_id``).
    """
    frame = _check_frame(qrels, "qrels")

    def given(role):
        name = columns.get(role)
        return name if name in frame.columns else None

    q = find_column(frame, "query", given("query"), required=True, what="qrels")
    d = find_column(frame, "doc", given("doc"), required=True, what="qrels")
    r = find_column(frame, "relevance", given("relevance"), required=True, what="qrels")
    grades = grade_array(frame[r], what="qrels", allow_missing=False)
    qids = np.asarray(id_array(frame[q], role="query", what="qrels").to_pylist(), dtype=object)
    dids = np.asarray(id_array(frame[d], role="doc", what="qrels").to_pylist(), dtype=object)
    pairs = pd.DataFrame({"q": qids, "d": dids})
    dup = pairs.duplicated(keep=False).to_numpy()
    if dup.any():
        examples = pairs[dup].drop_duplicates().head(3)
        shown = ", ".join(f"({a!r}, {b!r})" for a, b in zip(examples["q"], examples["d"]))
        raise DuplicateError(
            f"The qrels judge the same (query, doc) pair more than once: {shown} "
            f"({int(pairs.duplicated().sum())} extra rows). trec_eval refuses such qrels too; "
            "keep one judgement per pair, e.g. qrels.drop_duplicates(['query_id', 'doc_id'])."
        )
    return QrelsArrays(qids, dids, grades.astype(np.int64), kind=id_kind(frame[q]), doc_kind=id_kind(frame[d]))


def _first_valid(series: pd.Series):
    for value in series:
        if not is_missing(value):
            return value
    return None


def run_arrays(data, qrels: pd.DataFrame | None = None, *, caller: str, columns: Columns = Columns(), order=None, score_dtype="float64"):
    """Turn any of the three input shapes into (RunArrays, QrelsArrays or None).

    ``qrels`` is a long DataFrame or None (paths and dicts are read by the caller).
    Returns ``qrels=None`` for closed-world input (judgements only from the rows given).
    """
    if isinstance(data, Mapping) and not isinstance(data, pd.DataFrame):
        data = pd.DataFrame({"query": [str(k) for k in data], "relevance": list(data.values())})
    frame = _check_frame(data, "run")
    retrieved = find_column(frame, "retrieved", columns.retrieved, required=False, what="run")
    if retrieved is not None:
        return _lists_shape(frame, qrels, retrieved, caller=caller, columns=columns)
    rel_name = find_column(frame, "relevance", columns.relevance, required=False, what="run")
    if rel_name is not None and is_listlike(_first_valid(frame[rel_name])):
        return _vectors_shape(frame, qrels, rel_name, caller=caller, columns=columns)
    return _long_shape(frame, qrels, caller=caller, columns=columns, order=order, score_dtype=score_dtype)


def _warn_id_kinds(run_query: str, qrels_query: str, run_doc: str, qrels_doc: str) -> None:
    """One warning when the run's and the qrels' ids were of different types (compared as strings)."""
    differ = [
        f"{role} ids are {a}s in the run and {b}s in the qrels"
        for role, a, b in (("query", run_query, qrels_query), ("doc", run_doc, qrels_doc))
        if a != b
    ]
    if differ:
        warn(
            f"The {' and the '.join(differ)}; rankviz compares ids as strings, so 1 and '1' match but '00123' and "
            "123 do not. If the ids were read as numbers (pd.read_csv turns '00123' into 123), read them as text: "
            "pd.read_csv(..., dtype=str), or rankviz.read_run / read_qrels.",
            IdTypeWarning,
        )


def _long_shape(frame, qrels, *, caller, columns: Columns, order=None, score_dtype="float64"):
    cols = resolve_long_run(frame, columns)
    key = key_array(cols.frame, cols, order=order, score_dtype=score_dtype, caller=caller)
    q_codes, q_values = encode(id_array(cols.frame[cols.query], role="query", what="run"))
    docs = id_array(cols.frame[cols.doc], role="doc", what="run")
    systems = sys_codes = None
    if cols.system is not None:
        sys_codes, values = encode_ids(cols.frame[cols.system], role="system", what="run")
        systems = tuple(str(v) for v in values)
        if len(systems) == 1:  # every row is system 0: no per-row codes (a run read from one file)
            sys_codes = None
    grade = None
    judged = None
    if qrels is not None:
        judged = resolve_qrels(qrels, columns)
    elif cols.relevance is not None:
        grade = grade_array(cols.frame[cols.relevance], what="run", allow_missing=True)
    else:
        raise InputError(
            f"{caller} needs judgements: pass qrels=... (a DataFrame, a TREC qrels path or a dict), "
            f"or give the run a relevance column ('relevance', 'rel', 'label' or 'grade'); its columns are "
            f"{columns_text(cols.frame)}."
        )
    kind = id_kind(cols.frame[cols.query])
    if judged is not None:
        _warn_id_kinds(kind, judged.kind, id_kind(cols.frame[cols.doc]), judged.doc_kind)
    ordered_by = order or ("score" if cols.score is not None else "rank")
    run = RunArrays(systems, sys_codes, q_codes, q_values, docs, key, grade, kind, cols.frame.index, ordered_by=ordered_by)
    return run, judged


def _system_column(frame, columns: Columns):
    return find_column(frame, "system", columns.system, required=False, what="run")


def _query_labels(frame: pd.DataFrame, columns: Columns) -> pd.Series:
    name = find_column(frame, "query", columns.query, required=False, what="run")
    if name is not None:
        return frame[name]
    if isinstance(frame.index, pd.RangeIndex):
        # No query column and a default index: number the queries by their row.
        return pd.Series(frame.index.astype(str), index=frame.index, name="query")
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
    flat, lengths = [], np.zeros(len(frame), dtype=np.int64)
    for i, value in enumerate(frame[column]):
        if is_missing(value):
            continue
        if not is_listlike(value):
            raise InputError(
                f"The {column!r} column must hold lists of retrieved ids; row {row_label(frame.index[i])} holds "
                f"{type(value).__name__} {value!r}."
            )
        if isinstance(value, (set, frozenset)):
            raise InputError(f"The {column!r} column of row {row_label(frame.index[i])} is a set, which has no order; use a list in rank order.")
        flat.extend(_list_id(item, column, frame.index[i], "doc") for item in value)
        lengths[i] = len(value)
    return flat, lengths


def _grade(value, doc: str, column: str, row) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float, np.floating)) or is_missing(value):
        raise InputError(f"The grade of doc {doc!r} in the {column!r} column of row {row_label(row)} must be an integer. Got {value!r}.")
    if value != int(value) or abs(value) > MAX_EXACT:
        raise InputError(
            f"The grade of doc {doc!r} in the {column!r} column of row {row_label(row)} must be an integer within "
            f"+-2**53. Got {value!r}."
        )
    return int(value)


def _relevant_grades(value, column: str, row) -> dict[str, int]:
    """{doc id: grade} of one row's relevant ids (a list/set of ids, or an {id: grade} dict); missing ids name nothing."""
    if is_missing(value):
        return {}
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


def _lists_shape(frame, qrels, retrieved, *, caller, columns: Columns):
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
        raise DuplicateError(f"The query {bad['q']!r} has more than one row of retrieved ids; one row per query (and system) is expected.")

    flat, lengths = _retrieved_ids(frame, retrieved)
    row_of = np.repeat(np.arange(len(frame)), lengths)
    positions = np.arange(len(row_of)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    # A missing entry keeps its rank as an empty slot: a unique id no judgement can name (shown as missing).
    flat = [MISSING_DOC + f"{r}:{p}" if d is None else d for d, r, p in zip(flat, row_of.tolist(), positions.tolist())]
    docs = pa.array(flat, pa.string())

    # Judgements from the relevant column: one set per query, the same across systems.
    j_q, j_d, j_g = [], [], []
    seen: dict[str, dict] = {}
    for i, value in enumerate(frame[relevant]):
        grades = _relevant_grades(value, relevant, frame.index[i])
        q = qids[i]
        if q in seen:
            if seen[q] != grades:
                raise InputError(f"The relevant ids of query {q!r} differ between its rows; a query has one set of judgements.")
            continue
        seen[q] = grades
        for d, g in grades.items():
            j_q.append(q)
            j_d.append(d)
            j_g.append(g)
    judged = QrelsArrays(
        np.asarray(j_q, dtype=object),
        np.asarray(j_d, dtype=object),
        np.asarray(j_g, dtype=np.int64),
        query_order=np.asarray(pd.unique(qids), dtype=object),
    )

    q_codes, q_values = encode(pa.array(qids[row_of].tolist(), pa.string()) if len(row_of) else pa.array([], pa.string()))
    sys_codes = sys_tuple = None
    if systems is not None:
        sys_codes, values = encode(pa.array(systems[row_of].tolist(), pa.string()))
        sys_tuple = tuple(values.tolist())
    key = -(positions + 1).astype(np.float64)
    run = RunArrays(sys_tuple, sys_codes, q_codes, q_values, docs, key, None, "str", None)
    # Queries that retrieved nothing still carry judgements; the evaluation scores them 0.
    return run, judged


def _vector_grade(item, column: str, row) -> float:
    """One entry of a relevance vector: a bool or an integer grade; NaN (unjudged) where missing."""
    if is_missing(item):
        return np.nan
    if isinstance(item, (bool, np.bool_)):
        return float(item)
    if isinstance(item, (int, np.integer, float, np.floating)) and item == int(item) and abs(item) <= MAX_EXACT:
        return float(item)
    raise InputError(
        f"The {column!r} column of row {row_label(row)} holds {item!r} in its relevance vector; entries must be "
        "booleans or integer grades (within +-2**53), or missing for an unjudged item."
    )


def _vector_grades(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Every grade in rank order (NaN = a missing entry: an unjudged item at that rank) and each row's length."""
    flat, lengths = [], np.zeros(len(frame), dtype=np.int64)
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


def _vectors_shape(frame, qrels, rel_name, *, caller, columns: Columns):
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
    q_codes, q_values = encode(pa.array(qids[row_of].tolist(), pa.string()) if len(row_of) else pa.array([], pa.string()))
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
    run = RunArrays(sys_tuple, sys_codes, q_codes, q_values, docs, key, grade, "str", None, n_relevant, order)
    return run, None
