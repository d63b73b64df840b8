"""The long run shape: one row per retrieved item, its columns found and checked, as flat arrays.

:class:`RunArrays` and :class:`QrelsArrays` are what every input shape becomes (see ``input_shapes``);
the id, grade and ordering-key arrays built here serve the per-query shapes and the readers too.
Nothing here modifies the caller's frame.
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import ColumnError, DuplicateError, IdTypeWarning, InputError, warn
from .columns import ALIASES, Columns, columns_text, find_column, is_missing, row_label
from .frames import as_pandas, decimals_as_floats
from .id_codes import encode
from .memory import blocked_take

__all__ = [
    "resolve_long_run",
    "resolve_qrels",
    "qrels_columns",
    "RunArrays",
    "QrelsArrays",
    "LongColumns",
    "encode",
    "long_shape",
    "check_frame",
    "id_array",
    "id_kind",
    "encode_ids",
    "grade_array",
    "key_array",
    "warn_id_kinds",
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


def check_frame(frame, what: str) -> pd.DataFrame:
    frame = as_pandas(frame, what)
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
    frame = check_frame(frame, "run")
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
        raise InputError(
            f"The {role} ids in the {what} column {series.name!r} are booleans; ids must be strings or integers."
        )
    if pd.api.types.is_float_dtype(dtype) or pd.api.types.is_complex_dtype(dtype):
        kind = "complex numbers" if pd.api.types.is_complex_dtype(dtype) else "floats"
        raise InputError(
            f"The {role} ids in the {what} column {series.name!r} are {kind} ({dtype}); ids must be strings or "
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
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_complex_dtype(series.dtype):
        sample = series.dropna()
        shown = repr(sample.iloc[0]) if len(sample) else "only missing values"
        raise InputError(
            f"The relevance column {series.name!r} of the {what} must hold integer grades; it has dtype "
            f"{series.dtype} (e.g. {shown}). "
            + (
                "Complex numbers are not grades: keep the part you mean explicitly (e.g. .real)."
                if pd.api.types.is_complex_dtype(series.dtype)
                else "Convert it with pd.to_numeric(...)."
            )
        )
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    missing = np.isnan(values)
    if missing.any() and not allow_missing:
        where = series.index[missing][0]
        raise InputError(
            f"The relevance column {series.name!r} of the {what} has a missing grade (row {row_label(where)})."
        )
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
        fate = (
            f"trec_eval would truncate {value:g} to {int(value)}" if np.isfinite(value) else "trec_eval cannot read it"
        )
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
        raise ColumnError(
            f"order={use!r} needs a {use} column, and the run has none; its columns are {columns_text(frame)}."
        )
    series = frame[name]
    dtype = series.dtype
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype) or dtype.kind == "c":
        found = _first_non_number(series)
        if found is not None and is_missing(found[1]):
            raise InputError(
                f"The {use} column {name!r} is missing in row {row_label(found[0])} (its dtype is {dtype}); every "
                f"row needs a number. Fill in or drop those rows (e.g. frame.dropna(subset=[{name!r}]))."
            )
        where = f", first not a number in row {row_label(found[0])} ({repr(found[1])[:60]})" if found else ""
        raise InputError(
            f"The {use} column {name!r} must be numeric; it has dtype {series.dtype}{where}. "
            "Convert it with pd.to_numeric(...)"
            + (" or keep the real part you mean (.real); complex numbers have no order." if dtype.kind == "c" else ".")
        )
    if isinstance(dtype, pd.ArrowDtype) and pa.types.is_decimal(dtype.pyarrow_dtype):
        floats = decimals_as_floats(pa.array(series), name, "run")  # exact as floats, or refused
        series = pd.Series(floats.to_numpy(), index=series.index, name=name)
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"The {use} column {name!r} has {int(bad.sum())} value(s) that are NaN or infinite, first at row "
            f"{row_label(series.index[i])} ({float(values[i])!r}). Drop or fill them first."
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


def _first_non_number(series: pd.Series) -> tuple | None:
    """(row label, value) of the first cell that is not a real number (missing, text, bool, ...), or None."""
    for label, value in zip(series.index, series.array):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)) or is_missing(value):
            return label, value
    return None


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
    # closed world with gold lists (shape 2): (system code, query id, grade) of the gold items a system did not
    # retrieve, which the denominators count
    unretrieved: tuple | None = None
    unannotated: np.ndarray | None = (
        None  # query ids with no gold at all (NaN, an empty list): not evaluated by default
    )


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


def qrels_columns(qrels: pd.DataFrame, columns: Columns = Columns()):
    """(frame, query column, doc column, query ids, doc ids, grades): the qrels' columns found and read once.

    Ids are Arrow string arrays (integers as their decimal text), grades an int64 array with no missing value.
    A column override applies to the qrels only where the qrels have that column.
    """
    frame = check_frame(qrels, "qrels")

    def given(role):
        name = columns.get(role)
        return name if name in frame.columns else None

    q = find_column(frame, "query", given("query"), required=True, what="qrels")
    d = find_column(frame, "doc", given("doc"), required=True, what="qrels")
    r = find_column(frame, "relevance", given("relevance"), required=True, what="qrels")
    grades = grade_array(frame[r], what="qrels", allow_missing=False).astype(np.int64)
    return (
        frame,
        q,
        d,
        id_array(frame[q], role="query", what="qrels"),
        id_array(frame[d], role="doc", what="qrels"),
        grades,
    )


def resolve_qrels(qrels: pd.DataFrame, columns: Columns = Columns()) -> QrelsArrays:
    """Qrels from a long DataFrame (query id, doc id, relevance).

    A column override applies to the qrels only where the qrels have that column
    (``columns={'query': 'qid'}`` names the run's column; qrels keep ``query_id``).
    """
    frame, q, d, q_arr, d_arr, grades = qrels_columns(qrels, columns)
    qids = np.asarray(q_arr.to_pylist(), dtype=object)
    dids = np.asarray(d_arr.to_pylist(), dtype=object)
    if _repeats_a_pair(q_arr, d_arr):
        pairs = pd.DataFrame({"q": qids, "d": dids})
        dup = pairs.duplicated(keep=False).to_numpy()
        examples = pairs[dup].drop_duplicates().head(3)
        shown = ", ".join(f"({a!r}, {b!r})" for a, b in zip(examples["q"], examples["d"]))
        raise DuplicateError(
            f"The qrels judge the same (query, doc) pair more than once: {shown} "
            f"({int(pairs.duplicated().sum())} extra rows). trec_eval refuses such qrels too; "
            "keep one judgement per pair, e.g. qrels.drop_duplicates(['query_id', 'doc_id'])."
        )
    return QrelsArrays(qids, dids, grades, kind=id_kind(frame[q]), doc_kind=id_kind(frame[d]))


def _repeats_a_pair(queries, docs) -> bool:
    """Whether some (query, doc) pair occurs twice: both columns dictionary-encoded, their code pairs sorted."""
    codes = []
    for ids in (queries, docs):
        encoded = pc.dictionary_encode(ids)
        chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
        n = len(chunks[0].dictionary) if chunks else 0
        indices = [c.indices.to_numpy(zero_copy_only=False) for c in chunks]
        codes.append((np.concatenate(indices).astype(np.int64) if indices else np.zeros(0, np.int64), n))
    (q_codes, _), (d_codes, n_docs) = codes
    pairs = np.sort(q_codes * max(n_docs, 1) + d_codes)
    return bool((pairs[1:] == pairs[:-1]).any())


def warn_id_kinds(run_query: str, qrels_query: str, run_doc: str, qrels_doc: str) -> None:
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


def long_shape(frame, qrels, *, caller, columns: Columns, order=None, score_dtype="float64"):
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
        warn_id_kinds(kind, judged.kind, id_kind(cols.frame[cols.doc]), judged.doc_kind)
    ordered_by = order or ("score" if cols.score is not None else "rank")
    run = RunArrays(
        systems,
        sys_codes,
        q_codes,
        q_values,
        docs,
        key,
        grade,
        kind,
        cols.frame.index,
        ordered_by=ordered_by,
    )
    return run, judged
