"""Run frames from the readers' columns, and runs stored as parquet files.

The half of :mod:`rankviz.io` that the TREC reader (:mod:`rankviz.io.trec_reader`), the
JSON-lines reader and the parquet reader end in (layer 3): each file becomes a :class:`RunParts`, and
:func:`run_frame` turns one or many of them into the frame :func:`rankviz.read_run`
returns, so that every path gives the same dtypes: ``query_id`` and ``doc_id`` as
pandas' ``str``, ``rank`` int64, ``score`` float64 and ``system`` categorical.
"""

from __future__ import annotations

import dataclasses
from typing import cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .._core.long_run import MAX_EXACT
from .._core.memory import release_memory
from .._errors import ColumnError, InputError, TrecFormatError

__all__ = [
    "RunParts",
    "RUN_FRAME_COLUMNS",
    "TagCodes",
    "parts_from_parsed",
    "parts_from_table",
    "parts_from_fields",
    "run_frame",
    "string_series",
    "is_parquet",
    "read_parquet_run",
    "write_parquet_run",
    "check_writable_ids",
    "trec_order",
]

#: the columns of a run read from a file, in order (also those of a run parquet file)
RUN_FRAME_COLUMNS = ("query_id", "doc_id", "rank", "score", "system")


@dataclasses.dataclass(frozen=True)
class RunParts:
    """One run file's columns: ids as Arrow strings, numbers as NumPy, and the tag of every row as codes into ``tags``."""

    name: str
    query_ids: pa.ChunkedArray
    doc_ids: pa.ChunkedArray
    rank: np.ndarray
    score: np.ndarray
    tag_codes: np.ndarray
    tags: list[str]


def _large_strings(values) -> pa.ChunkedArray:
    if isinstance(values, list):
        values = pa.array(values, pa.large_string())
    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    return values if pa.types.is_large_string(values.type) else values.cast(pa.large_string())


def _tag_codes(tags, system: str | None, n: int) -> tuple[np.ndarray, list[str]]:
    if system is not None:
        return np.zeros(n, dtype=np.int8), [system]
    codes, values = pd.factorize(np.asarray(tags, dtype=object))
    return codes.astype(np.int32), [str(v) for v in values]


class TagCodes:
    """The run tag of every row as codes into ``values``, gathered chunk by chunk from dictionary-encoded tag columns
    (the TREC reader's blocks, a parquet file's row groups); no array is made while there is one tag."""

    def __init__(self):
        self.values: dict[str, int] = {}
        self.blocks: list[tuple[int, np.ndarray | int]] = []  # (rows, codes or the one code of every row)

    def append(self, column: pa.ChunkedArray) -> None:
        for chunk in column.chunks:
            lookup = np.asarray(
                [self.values.setdefault(str(v), len(self.values)) for v in chunk.dictionary.to_pylist()], dtype=np.int32
            )
            if len(lookup) == 1:
                self.blocks.append((len(chunk), int(lookup[0])))
            else:
                self.blocks.append((len(chunk), lookup[chunk.indices.to_numpy(zero_copy_only=False)]))

    def result(self) -> tuple[np.ndarray, list[str]]:
        n = sum(rows for rows, _ in self.blocks)
        if len(self.values) <= 1:
            return np.zeros(n, dtype=np.int8), list(self.values)
        codes = np.empty(n, dtype=np.int8 if len(self.values) < 2**7 else np.int32)
        start = 0
        for rows, block in self.blocks:
            codes[start : start + rows] = block
            start += rows
        return codes, list(self.values)


def parts_from_fields(
    name: str, query_ids: list, doc_ids: list, rank, score, tags: list, system: str | None
) -> RunParts:
    """The parts of a run from its ids (lists of strings or Arrow strings) and numbers; ``tags`` (a list) unless
    ``system`` names the run."""
    codes, values = _tag_codes(tags, system, len(score))
    return RunParts(name, _large_strings(query_ids), _large_strings(doc_ids), rank, score, codes, values)


def parts_from_table(name: str, table: pa.Table | None, system: str | None) -> RunParts | None:
    """The parts of a run from a parquet file's table (``query_id``, ``doc_id``, ``rank``, ``score``, ``tag``).

    None for None. Pass the table straight from the call that made it: the columns copied out to NumPy are then
    freed as soon as they are copied. (The fast TREC reader's columns go through :func:`parts_from_parsed`.)
    """
    if table is None:
        return None
    numbers = {}
    for column in ("rank", "score"):  # copied out one at a time; each column's Arrow buffers are freed once copied
        numbers[column] = _numpy(table.column(column))
        table = table.drop_columns([column])
        release_memory()
    if system is not None:
        codes, values = np.zeros(table.num_rows, dtype=np.int8), [system]
    else:
        tags = TagCodes()
        tags.append(table.column("tag"))
        codes, values = tags.result()
    return RunParts(
        name,
        _large_strings(table.column("query_id")),
        _large_strings(table.column("doc_id")),
        numbers["rank"].astype(np.int64, copy=False),
        numbers["score"].astype(np.float64, copy=False),
        codes,
        values,
    )


def parts_from_parsed(name: str, parsed, system: str | None) -> RunParts:
    """The parts of a run from the TREC reader's columns (:class:`rankviz.io.trec_reader.Parsed`)."""
    codes, values = (
        (np.zeros(len(parsed.tag_codes), dtype=np.int8), [system])
        if system is not None
        else (parsed.tag_codes, parsed.tags)
    )
    return RunParts(
        name,
        parsed.strings["query_id"],
        parsed.strings["doc_id"],
        parsed.numbers["rank"],
        parsed.numbers["score"],
        codes,
        values,
    )


def _numpy(column: pa.ChunkedArray) -> np.ndarray:
    """One NumPy array of a chunked numeric column (NumPy's memory, not Arrow's pool)."""
    chunks = [chunk.to_numpy() for chunk in column.chunks]
    return np.concatenate(chunks) if len(chunks) != 1 else chunks[0].copy()


def string_series(values: pa.ChunkedArray) -> pd.Series:
    """Arrow strings as a Series of pandas' ``str`` dtype (pandas 3: Arrow-backed, chunks kept as they are)."""
    dtype = pd.Series([], dtype="str").dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        return values.to_pandas(types_mapper={values.type: dtype}.get)
    return pd.Series(values.to_pandas(), dtype="str")


def run_frame(parts: list[RunParts]) -> pd.DataFrame:
    """The frame of one or more runs, rows in file order; ``system`` categorical with the tags sorted."""
    categories = pd.Index(sorted({tag for p in parts for tag in p.tags}), dtype="str")
    small = np.int8 if len(categories) < 2**7 else np.int16 if len(categories) < 2**15 else np.int32
    if len(categories) == 1:  # one system: zeros, no lookup per row
        codes = [np.zeros(sum(len(p.score) for p in parts), dtype=np.int8)]
    else:
        codes = [categories.get_indexer(pd.Index(p.tags, dtype="str")).astype(small)[p.tag_codes] for p in parts]
    system = pd.Categorical.from_codes(
        codes[0] if len(codes) == 1 else np.concatenate(codes), dtype=pd.CategoricalDtype(categories)
    )
    del codes

    def joined(column: str):
        values = [getattr(p, column) for p in parts]
        if isinstance(values[0], np.ndarray):
            return values[0] if len(values) == 1 else np.concatenate(values)
        return pa.chunked_array([chunk for v in values for chunk in v.chunks], type=values[0].type)

    columns = {
        "query_id": string_series(joined("query_ids")),
        "doc_id": string_series(joined("doc_ids")),
        "rank": joined("rank"),
        "score": joined("score"),
        "system": system,
    }
    frame = pd.DataFrame(columns, copy=False)
    release_memory()
    return frame


# ------------------------------------------------------------------ parquet


def is_parquet(path) -> bool:
    """Whether the file starts with parquet's magic bytes (``PAR1``); False when it cannot be opened."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"PAR1"
    except (OSError, ValueError, TypeError):
        return False


_KINDS = {
    "query_id": ("strings", lambda t: pa.types.is_string(t) or pa.types.is_large_string(t)),
    "doc_id": ("strings", lambda t: pa.types.is_string(t) or pa.types.is_large_string(t)),
    "system": (
        "strings",
        lambda t: (
            pa.types.is_string(t)
            or pa.types.is_large_string(t)
            or (
                pa.types.is_dictionary(t)
                and (pa.types.is_string(t.value_type) or pa.types.is_large_string(t.value_type))
            )
        ),
    ),
    "rank": ("integers", pa.types.is_integer),
    "score": ("numbers", lambda t: pa.types.is_floating(t) or pa.types.is_integer(t)),
}
_FIX = "Write run parquet files with rankviz.write_run(run, path, format='parquet')"


def _parquet_table(name: str, path, needed: list[str]) -> pa.Table:
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as exc:
        raise TrecFormatError(f"{name}: not a readable parquet file ({exc}).") from None
    missing = [c for c in needed if c not in schema.names]
    if missing:
        raise ColumnError(
            f"{name}: a run parquet file needs the columns {', '.join(needed)}; it has no {', '.join(map(repr, missing))} "
            f"(its columns: {', '.join(map(repr, schema.names))}). {_FIX}, or read this one with pandas.read_parquet "
            "and evaluate the frame (columns= maps other column names)."
        )
    for column in needed:
        kind, check = _KINDS[column]
        found = schema.field(column).type
        if not check(found):
            raise ColumnError(f"{name}: the column {column!r} must hold {kind}, found {found}. {_FIX}.")
    try:
        return pq.read_table(path, columns=needed)
    except (pa.ArrowException, OSError) as exc:
        raise TrecFormatError(f"{name}: not a readable parquet file ({exc}).") from None


def _first(column: pa.ChunkedArray, bad) -> int | None:
    """The row of the first value of ``column`` for which ``bad`` (on a chunk as NumPy) is true, or None."""
    start = 0
    for chunk in column.chunks:
        found = np.flatnonzero(bad(chunk.to_numpy(zero_copy_only=False)))
        if found.size:
            return start + int(found[0])
        start += len(chunk)
    return None


def _check_values(name: str, table: pa.Table) -> None:
    for column in table.column_names:
        if table.column(column).null_count:
            row = _first(table.column(column).is_null(), lambda nulls: nulls)
            raise ColumnError(f"{name}: the column {column!r} has a missing value (row {row}). {_FIX}.")
    checks = (
        ("score", lambda v: ~np.isfinite(v), "a finite number"),
        ("rank", lambda v: np.abs(v) > MAX_EXACT, "an integer within +-2**53"),
    )
    for column, bad, what in checks:
        row = _first(table.column(column), bad)
        if row is not None:
            raise ColumnError(
                f"{name}: every {column} must be {what}; row {row} has {table.column(column)[row].as_py()!r}. {_FIX}."
            )


def read_parquet_run(name: str, path, system: str | None) -> RunParts:
    """The parts of a run parquet file, its columns and values checked (errors name the file and the column)."""
    needed = [c for c in RUN_FRAME_COLUMNS if not (c == "system" and system is not None)]
    table = _parquet_table(name, path, needed)
    _check_values(name, table)
    if system is None:
        tags = table.column("system")
        tags = tags if pa.types.is_dictionary(tags.type) else tags.dictionary_encode()
        table = table.drop_columns(["system"]).append_column("tag", tags)
    return cast(RunParts, parts_from_table(name, table, system))  # None only for a None table


def write_parquet_run(path, query_ids, doc_ids, rank: np.ndarray, score: np.ndarray, tag: str) -> None:
    """A run parquet file: the columns of :data:`RUN_FRAME_COLUMNS`, ids as large strings (what pandas holds, so
    they load without a cast), the tag dictionary-encoded, LZ4-compressed (it decodes faster than the default Snappy)."""
    n = len(score)
    system = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([tag], pa.large_string()))
    table = pa.table(
        {
            "query_id": pc.cast(query_ids, pa.large_string()),
            "doc_id": pc.cast(doc_ids, pa.large_string()),
            "rank": pa.array(rank, pa.int64()),
            "score": pa.array(score, pa.float64()),
            "system": system,
        }
    )
    pq.write_table(table, path, compression="lz4")


# ------------------------------------------------------------------ writing


def check_writable_ids(query_ids: pd.Series, doc_ids: pd.Series) -> None:
    """Refuse ids that would not read back as written: empty, with whitespace, or a query id starting with '#'."""
    for label, ids in (("query", query_ids), ("doc", doc_ids)):
        bad = ids.str.contains(r"\s", regex=True) | (ids.str.len() == 0)
        if bad.any():
            raise InputError(
                f"A {label} id is empty or contains whitespace, which TREC files cannot hold: {ids[bad].iloc[0]!r}."
            )
    comment = query_ids.str.startswith("#")
    if comment.any():
        raise InputError(
            f"A query id starts with '#', which trec_eval 10 and read_run read as a comment line: "
            f"{query_ids[comment].iloc[0]!r}. Rename it."
        )


def trec_order(qid: pd.Series, key: np.ndarray, did: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The rows sorted by query id, then ``key`` ascending, then doc id descending (byte order, as trec_eval), with
    each row's rank in its query (1, 2, ...); Arrow's stable sort."""
    table = pa.table({"q": pa.array(qid, from_pandas=True), "k": pa.array(key), "d": pa.array(did, from_pandas=True)})
    order = pc.sort_indices(table, sort_keys=[("q", "ascending"), ("k", "ascending"), ("d", "descending")]).to_numpy()
    n = len(order)
    if n == 0:
        return order, np.zeros(0, dtype=np.int64)
    codes = pc.dictionary_encode(table.column("q")).combine_chunks().indices.to_numpy(zero_copy_only=False)[order]
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    ranks = np.arange(n, dtype=np.int64) - np.repeat(starts, np.diff(np.append(starts, n))) + 1
    return order, ranks
