"""Retrieval logs as JSON lines: one record per query with its retrieved ids, their scores and the gold ids.

``{"query_id": "q1", "retrieved": ["d3", "d1"], "scores": [2.5, 1.0], "relevant": ["d1"]}``,
in field names of the user's choosing. :func:`read_jsonl` streams the file: it is cut in
blocks of lines, each parsed by pyarrow's JSON reader into Arrow arrays and flattened into
run rows at once, so a large log is never held as Python objects (the
``benchmarks/jsonl_memory.py`` figure: peak memory within 2x of the same run read from a
TREC file). A block that pyarrow refuses, or whose values break a rule below, is read
again line by line with Python's ``json`` to name the first bad line.

Rules (each broken one is an error naming the file, the line and the fix):

* one JSON object per line; blank lines are skipped; UTF-8 (a leading byte-order mark is dropped);
* ids are JSON strings or integers (integers become their decimal text, as for frames),
  one kind per field throughout the file; the query id is required and unique;
* the retrieved field is a list of ids, in rank order (rank 1 first); ``[]`` retrieves nothing;
* scores, when named, are a list of finite numbers as long as the retrieved list; without
  them ``score`` is ``-rank`` (as for MS MARCO runs);
* the relevant field is a list of ids (grade 1), or an object ``{id: grade}`` of integer
  grades (read per block with Python's ``json``: slower); a record without it (or with
  ``null``) is a query without judgements, counted in one warning.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from .._core.long_run import MAX_EXACT
from .._core.memory import release_memory
from .._errors import InputError, RankvizWarning, TrecFormatError, warn
from .json_lines import bad_line, json_kind
from .run_frame import RunParts, run_frame, string_series
from .validating_reader import CORRUPT, open_bytes

__all__ = ["RetrievalLog", "read_jsonl"]

#: bytes parsed at once (and the rest of the line they end in)
BLOCK = 1 << 24
_RECORD_START = re.compile(rb"(?m)^[ \t\r]*\{")
_BLANK = re.compile(rb"[ \t\r\n]*")


@dataclasses.dataclass(frozen=True)
class RetrievalLog:
    """What :func:`read_jsonl` read: the run, the qrels and the query texts of a retrieval log.

    Attributes
    ----------
    run : DataFrame
        The columns of :func:`rankviz.read_run`: ``query_id``, ``doc_id`` (str), ``rank``
        (int64, the position in the retrieved list), ``score`` (float64), ``system`` (categorical).
    qrels : DataFrame or None
        ``query_id``, ``doc_id`` (str) and ``relevance`` (int64); None when no record has a relevant field.
    queries : DataFrame or None
        ``query_id`` and ``text`` (str), when a ``text=`` field was named.
    """

    run: pd.DataFrame
    qrels: pd.DataFrame | None
    queries: pd.DataFrame | None


@dataclasses.dataclass(frozen=True)
class _Fields:
    query: str
    retrieved: str
    score: str | None
    relevant: str | None
    text: str | None


class _Kinds:
    """The JSON type of each id field (``'str'`` or ``'int'``) and the relevant field's form, from the first values."""

    def __init__(self):
        self.query = self.doc = self.gold = None
        self.graded = None  # relevant as {id: grade}

    def schema(self, f: _Fields) -> pa.Schema:
        def arrow(kind):
            return pa.int64() if kind == "int" else pa.string()

        fields = [(f.query, arrow(self.query)), (f.retrieved, pa.list_(arrow(self.doc)))]
        if f.score:
            fields.append((f.score, pa.list_(pa.float64())))
        if f.relevant and not self.graded:
            fields.append((f.relevant, pa.list_(arrow(self.gold))))
        if f.text:
            fields.append((f.text, pa.string()))
        return pa.schema(fields)


def _learn_kinds(kinds: _Kinds, block: bytes, f: _Fields) -> None:
    """Fill in the kinds not known yet from the block's first records (a few lines with Python's json)."""
    for line in block.split(b"\n", 200)[:200]:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            return  # the parse of the block will name this line
        if not isinstance(record, dict):
            return
        kinds.query = kinds.query or json_kind(record.get(f.query))
        docs = record.get(f.retrieved)
        if isinstance(docs, list) and docs:
            kinds.doc = kinds.doc or json_kind(docs[0])
        gold = record.get(f.relevant) if f.relevant else None
        if isinstance(gold, dict) and kinds.graded is None:
            kinds.graded = True
        elif isinstance(gold, list) and gold:
            kinds.graded = False if kinds.graded is None else kinds.graded
            kinds.gold = kinds.gold or json_kind(gold[0])
        if kinds.query and kinds.doc and (kinds.graded is not None or not f.relevant):
            return


def _blocks(stream, size: int):
    """(first line number, bytes) of whole lines, about ``size`` bytes each."""
    line = 1
    while chunk := stream.read(size):
        block = chunk + stream.readline()
        yield line, block
        line += block.count(b"\n")


# ---------------------------------------------------------------------- the fast path: a block at a time


def _ids(column, kind: str | None) -> pa.ChunkedArray:
    """The ids as large strings; ``kind`` None (not learnt: no value seen) is taken as strings."""
    column = column if isinstance(column, pa.ChunkedArray) else pa.chunked_array([column])
    return column.cast(pa.large_string()) if kind == "int" or column.type != pa.large_string() else column


def _graded(name: str, first: int, block: bytes, f: _Fields, kinds: _Kinds):
    """The ``{id: grade}`` relevant field of every record of the block (Python's json): (row, ids, grades)."""
    rows, ids, grades = [], [], []
    row = 0
    for raw in block.split(b"\n"):
        if not raw.strip():
            continue
        gold = json.loads(raw).get(f.relevant) or {}
        if not isinstance(gold, dict) or not all(
            isinstance(g, int) and not isinstance(g, bool) and abs(g) <= MAX_EXACT for g in gold.values()
        ):
            raise bad_line(name, first, block, f, kinds, "a grade that is not an integer")
        for doc, grade in gold.items():
            rows.append(row)
            ids.append(doc)
            grades.append(grade)
        row += 1
    return np.asarray(rows, dtype=np.int64), pa.array(ids, pa.large_string()), np.asarray(grades, dtype=np.int64)


class _Parts:
    """The columns gathered block by block."""

    def __init__(self):
        self.queries, self.docs, self.ranks, self.scores = [], [], [], []
        self.gold_queries, self.gold_docs, self.grades = [], [], []
        self.record_ids, self.texts = [], []
        self.unjudged = 0


def _block(name: str, first: int, block: bytes, f: _Fields, kinds: _Kinds, parts: _Parts) -> None:
    """Parse one block into ``parts``; any problem raises the error naming its line."""
    expected = len(_RECORD_START.findall(block))
    try:
        options = pa_json.ParseOptions(explicit_schema=kinds.schema(f), unexpected_field_behavior="ignore")
        table = pa_json.read_json(io.BytesIO(block), parse_options=options)
        table.validate(full=True)  # UTF-8 of the strings kept
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        raise bad_line(name, first, block, f, kinds, str(exc)) from None
    if table.num_rows != expected or not _fine(table, f):
        raise bad_line(name, first, block, f, kinds, "a record breaks a rule")
    queries = _ids(table.column(f.query), kinds.query)
    retrieved = table.column(f.retrieved).combine_chunks()
    parent = pc.list_parent_indices(retrieved).to_numpy(zero_copy_only=False)
    offsets = retrieved.offsets.to_numpy().astype(np.int64)
    rank = np.arange(len(parent), dtype=np.int64) + offsets[0] - offsets[parent] + 1
    parts.record_ids.append(queries)
    parts.queries.append(queries.take(pa.array(parent)))
    parts.docs.append(_ids(pc.list_flatten(retrieved), kinds.doc))
    parts.ranks.append(rank)
    if f.score:
        parts.scores.append(pc.list_flatten(table.column(f.score).combine_chunks()).to_numpy(zero_copy_only=False))
    else:
        parts.scores.append(-rank.astype(np.float64))
    if f.relevant:
        _gold(name, first, block, f, kinds, parts, table, queries)
    if f.text:
        parts.texts.append(table.column(f.text).fill_null(""))


def _fine(table: pa.Table, f: _Fields) -> bool:
    """Whether the values of a parsed block keep the rules that Arrow can check without Python objects."""
    if table.column(f.query).null_count or table.column(f.retrieved).null_count:
        return False
    retrieved = table.column(f.retrieved)
    if pc.list_flatten(retrieved).null_count:
        return False
    if f.score:
        scores = table.column(f.score)
        if (
            scores.null_count
            or not pc.all(pc.equal(pc.list_value_length(scores), pc.list_value_length(retrieved))).as_py()
        ):
            return False
        flat = pc.list_flatten(scores)
        if len(flat) and not pc.all(pc.is_finite(flat)).as_py():
            return False
    return True


def _gold(name, first, block, f: _Fields, kinds: _Kinds, parts: _Parts, table: pa.Table, queries) -> None:
    if kinds.graded:
        rows, ids, grades = _graded(name, first, block, f, kinds)
        judged = np.zeros(table.num_rows, dtype=bool)
        judged[rows] = True
        parts.unjudged += int((~judged).sum())  # an empty object counts as unjudged too
    else:
        gold = table.column(f.relevant).combine_chunks()
        if pc.list_flatten(gold).null_count:
            raise bad_line(name, first, block, f, kinds, "a null relevant id")
        parts.unjudged += int(pc.sum(pc.fill_null(pc.equal(pc.list_value_length(gold), 0), True)).as_py() or 0)
        rows = pc.list_parent_indices(gold).to_numpy(zero_copy_only=False)
        ids, grades = _ids(pc.list_flatten(gold), kinds.gold), np.ones(len(rows), dtype=np.int64)
    parts.gold_queries.append(queries.take(pa.array(rows)))
    parts.gold_docs.append(ids if isinstance(ids, pa.ChunkedArray) else pa.chunked_array([ids]))
    parts.grades.append(grades)


# ---------------------------------------------------------------------- the public functions


def _parse(name: str, stream, f: _Fields, block_size: int) -> _Parts:
    kinds, parts = _Kinds(), _Parts()
    blocks = _blocks(stream, block_size)
    while True:
        try:
            first, block = next(blocks)
        except StopIteration:
            break
        except CORRUPT as exc:
            raise TrecFormatError(f"{name}: the compressed data is corrupt or truncated ({exc}).") from None
        if first == 1:
            block = block.removeprefix(b"\xef\xbb\xbf")
        if _BLANK.fullmatch(block):
            continue
        _learn_kinds(kinds, block, f)
        _block(name, first, block, f, kinds, parts)
        del block
    if not parts.record_ids:
        raise TrecFormatError(f"{name}: the file has no JSON lines (expected one object per query).")
    return parts


def _unique_queries(name: str, parts: _Parts, f: _Fields) -> None:
    ids = pa.chunked_array([c for a in parts.record_ids for c in a.chunks], type=pa.large_string())
    counts = pc.value_counts(ids)
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        raise InputError(
            f"{name}: the query id {repeated[0].as_py()!r} has {f.query!r} in more than one record; a log holds one "
            "record per query (merge them, or give each record its own id)."
        )


def read_jsonl(
    path,
    *,
    query: str = "query_id",
    retrieved: str = "retrieved",
    relevant: str | None = "relevant",
    score: str | None = "scores",
    text: str | None = None,
    system: str | None = None,
    block_size: int = BLOCK,
) -> RetrievalLog:
    """Read a retrieval log of JSON lines (one record per query) into a run, qrels and query texts.

    Parameters
    ----------
    path : str or path-like
        The log, plain or compressed (gzip, bzip2, xz: found by their first bytes).
    query, retrieved : str
        The fields of the query id and of the retrieved ids (a list, best first).
    relevant : str or None, default 'relevant'
        The field of the gold ids: a list (grade 1) or an object ``{id: grade}``.
        None reads no qrels.
    score : str or None, default 'scores'
        The field of the retrieved ids' scores (a list as long as ``retrieved``).
        None, or the default name when the first record has no such field: ``score`` is ``-rank``.
    text : str, optional
        The field of the query text, for ``queries``.
    system : str, optional
        The ``system`` of the run's rows; by default the file's name.
    block_size : int, default 16 MiB
        Bytes parsed at once: memory is bounded by a few blocks beside the result.

    Returns
    -------
    RetrievalLog
        ``.run`` (the columns of :func:`rankviz.read_run`), ``.qrels`` (``query_id``,
        ``doc_id``, ``relevance``, or None) and ``.queries`` (or None).

    Raises
    ------
    FileNotFoundError
        When there is no such file.
    TrecFormatError
        Naming the file, the line and the fix, for a line that is not one JSON object,
        lacks the query id or the retrieved list, holds an id that is neither a string
        nor an integer, scores that are not finite numbers or not one per retrieved id,
        grades that are not integers, or text that is not UTF-8.
    InputError
        For a query id in more than one record.

    Warns
    -----
    RankvizWarning
        Once, with their count, for records without relevant ids (their queries are
        not in the qrels, so evaluation does not count them).

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "log.jsonl")
    >>> _ = open(path, "w").write('{"question": "q1", "ids": ["d1", "d2"], "gold": ["d2"]}\\n')
    >>> log = rankviz.read_jsonl(path, query="question", retrieved="ids", relevant="gold", score=None)
    >>> rankviz.mrr(log.run, qrels=log.qrels, k=10).item()
    0.5
    """
    for label, value in (("query", query), ("retrieved", retrieved)):
        if not isinstance(value, str) or not value:
            raise InputError(f"The {label!r} parameter of read_jsonl must be a field name. Got {value!r} instead.")
    name, _, stream = open_bytes(path)
    with stream:
        try:
            head = stream.read(1 << 16)
        except CORRUPT as exc:
            raise TrecFormatError(f"{name}: the compressed data is corrupt or truncated ({exc}).") from None
    fields = _Fields(query, retrieved, _optional(score, "scores", head), _optional(relevant, "relevant", head), text)
    name, _, stream = open_bytes(path)
    with stream:
        parts = _parse(name, stream, fields, block_size)
    _unique_queries(name, parts, fields)
    if fields.relevant and parts.unjudged:
        warn(
            f"{name}: {parts.unjudged} record(s) have no relevant ids in {fields.relevant!r}: their queries are not "
            "in the qrels, so evaluation leaves them out. Give them their gold ids, or drop them from the log.",
            RankvizWarning,
        )
    tag = system if system is not None else os.path.basename(name) or "run"
    run = _run(name, parts, tag)
    return RetrievalLog(run=run, qrels=_qrels(parts) if fields.relevant else None, queries=_queries(parts, fields))


def _optional(given: str | None, default: str, head: bytes) -> str | None:
    """A field name, or None: the default name is dropped when the first record does not have it."""
    if given is None or given != default:
        return given
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        record = json.loads(first)
    except ValueError:
        return given  # the parse names the line
    return given if not isinstance(record, dict) or default in record else None


def _concat(chunks: list) -> pa.ChunkedArray:
    return pa.chunked_array([c for a in chunks for c in a.chunks], type=pa.large_string())


def _run(name: str, parts: _Parts, tag: str) -> pd.DataFrame:
    queries, docs = _concat(parts.queries), _concat(parts.docs)
    parts.queries.clear()
    parts.docs.clear()
    rank, score = np.concatenate(parts.ranks), np.concatenate(parts.scores)
    frame = run_frame([RunParts(name, queries, docs, rank, score, np.zeros(len(rank), dtype=np.int8), [tag])])
    release_memory()
    return frame


def _qrels(parts: _Parts) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query_id": string_series(_concat(parts.gold_queries)),
            "doc_id": string_series(_concat(parts.gold_docs)),
            "relevance": np.concatenate(parts.grades) if parts.grades else np.zeros(0, dtype=np.int64),
        }
    )


def _queries(parts: _Parts, f: _Fields) -> pd.DataFrame | None:
    if not f.text:
        return None
    texts = pa.chunked_array([c for a in parts.texts for c in a.chunks], type=pa.string())
    return pd.DataFrame({"query_id": string_series(_concat(parts.record_ids)), "text": string_series(texts)})
