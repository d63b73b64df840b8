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
  them ``score`` is ``-rank`` (as for MS MARCO runs). Under the default name ``scores`` a
  record may lack them: its list is then ranked in the order given, and a log that mixes
  records with and without scores says so in one warning naming the first such line;
* the relevant field is a list of ids (grade 1), or an object ``{id: grade}`` of integer
  grades (read per block with Python's ``json``: slower); a record without it (or with
  ``null``) is a query without judgements, counted in one warning. A key repeated in any
  object (the record or its grades) is refused, naming the line and the key;
* every other field whose values are strings, numbers or booleans is kept as a query
  attribute (a column of ``queries``, for ``by=`` and ``failure_slices``); fields holding
  lists or objects are not kept. A block with such fields is read again with Python's ``json``;
* with ``stages=``, each named field is a list of ids per record (one list per pipeline
  stage: retrieved, reranked, context, cited), read into ``stages``.
"""

from __future__ import annotations

import dataclasses
import io
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from .._core.long_run import MAX_EXACT
from .._core.memory import release_memory
from .._errors import InputError, RankvizWarning, TrecFormatError, warn
from .json_lines import (
    Attributes,
    bad_line,
    inexact_scores,
    json_kind,
    parse_record,
    record_scores,
    stage_names,
    stage_run,
    system_name,
    unique_queries,
)
from .json_text import load_json
from .run_frame import RunParts, run_frame, string_series
from .text_files import CORRUPT, open_bytes

__all__ = ["RetrievalLog", "read_jsonl"]

#: bytes parsed at once (and the rest of the line they end in)
BLOCK = 1 << 24
_RECORD_START = re.compile(rb"(?m)^[ \t\r]*\{")
_BLANK = re.compile(rb"[ \t\r\n]*")
_NON_BLANK_LINE = re.compile(rb"(?m)^[ \t\r]*[^ \t\r\n]")


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
        ``query_id``, ``text`` (str) when a ``text=`` field was named, and one column per
        other scalar field of the records (the query attributes ``by=`` slices by); None
        when there is neither.
    stages : dict or None
        With ``stages=``: ``{field: run frame}`` in the order named, each run ranked in
        list order (``score`` is ``-rank``): the input of :func:`rankviz.stages`.
    """

    run: pd.DataFrame
    qrels: pd.DataFrame | None
    queries: pd.DataFrame | None
    stages: dict[str, pd.DataFrame] | None = None


@dataclasses.dataclass(frozen=True)
class _Fields:
    query: str
    retrieved: str
    score: str | None
    relevant: str | None
    text: str | None
    optional_score: bool = False  # the default 'scores' name: a record may lack it
    stages: tuple[str, ...] = ()  # further list fields, one per pipeline stage

    def named(self) -> set[str]:
        return {n for n in (self.query, self.retrieved, self.score, self.relevant, self.text, *self.stages) if n}


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
        fields += [(stage, pa.list_(arrow(self.doc))) for stage in f.stages if stage != f.retrieved]
        return pa.schema(fields)


def _learn_kinds(kinds: _Kinds, block: bytes, f: _Fields) -> None:
    """Fill in the kinds not known yet from the block's first records (a few lines with Python's json)."""
    for line in block.split(b"\n", 200)[:200]:
        if not line.strip():
            continue
        try:
            record = load_json(line, "a JSON line", fix="")
        except ValueError:  # not JSON, or nested too deeply: the parse of the block will name this line
            return
        if not isinstance(record, dict):
            return
        kinds.query = kinds.query or json_kind(record.get(f.query))
        for field in (f.retrieved, *f.stages):
            docs = record.get(field)
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


def _records(name: str, first: int, block: bytes, f: _Fields, kinds: _Kinds) -> list[dict]:
    """Every record of the block as a dict (Python's json; a repeated key or deep nesting names its line)."""
    try:
        return [parse_record(raw) for raw in block.split(b"\n") if raw.strip()]
    except ValueError:  # not JSON, a repeated key, nesting too deep
        raise bad_line(name, first, block, f, kinds, "a record breaks a rule") from None


def _graded(name: str, first: int, block: bytes, f: _Fields, kinds: _Kinds, records: list[dict]):
    """The ``{id: grade}`` relevant field of every record of the block: (row, ids, grades)."""
    rows, ids, grades = [], [], []
    for row, record in enumerate(records):
        gold = record.get(f.relevant) or {}
        if not isinstance(gold, dict) or not all(
            isinstance(g, int) and not isinstance(g, bool) and abs(g) <= MAX_EXACT for g in gold.values()
        ):
            raise bad_line(name, first, block, f, kinds, "a grade that is not an integer")
        for doc, grade in gold.items():
            rows.append(row)
            ids.append(doc)
            grades.append(grade)
    return np.asarray(rows, dtype=np.int64), pa.array(ids, pa.large_string()), np.asarray(grades, dtype=np.int64)


class _Parts:
    """The columns gathered block by block."""

    def __init__(self, f: _Fields):
        self.queries: list = []
        self.docs: list = []
        self.ranks: list = []
        self.scores: list = []
        self.gold_queries: list = []
        self.gold_docs: list = []
        self.grades: list = []
        self.record_ids: list = []
        self.texts: list = []
        self.attributes = Attributes()
        self.stages: dict[str, list] = {stage: [] for stage in f.stages}
        self.unjudged = self.gold_present = 0
        self.scored = self.unscored = 0  # records with retrieved ids, with and without scores
        self.first_unscored: int | None = None  # its line


def _parsed(name: str, first: int, block: bytes, f: _Fields, kinds: _Kinds) -> tuple[pa.Table, bool]:
    """The block parsed by Arrow, and whether it holds fields beyond the named ones (read then by Python too)."""
    try:
        try:
            options = pa_json.ParseOptions(explicit_schema=kinds.schema(f), unexpected_field_behavior="error")
            table, extra = pa_json.read_json(io.BytesIO(block), parse_options=options), False
        except pa.ArrowInvalid as exc:
            if "unexpected field" not in str(exc):
                raise
            options = pa_json.ParseOptions(explicit_schema=kinds.schema(f), unexpected_field_behavior="ignore")
            table, extra = pa_json.read_json(io.BytesIO(block), parse_options=options), True
        table.validate(full=True)  # UTF-8 of the strings kept
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        raise bad_line(name, first, block, f, kinds, str(exc)) from None
    return table, extra


def _block(name: str, first: int, block: bytes, f: _Fields, kinds: _Kinds, parts: _Parts) -> None:
    """Parse one block into ``parts``; any problem raises the error naming its line."""
    expected = len(_RECORD_START.findall(block))
    if len(_NON_BLANK_LINE.findall(block)) != expected:  # a line that is not an object ('null', '[]', '1'):
        raise bad_line(name, first, block, f, kinds, "a line is not a JSON object")  # pyarrow may crash on it
    table, extra = _parsed(name, first, block, f, kinds)
    if table.num_rows != expected or not _fine(table, f):
        raise bad_line(name, first, block, f, kinds, "a record breaks a rule")
    records = _records(name, first, block, f, kinds) if extra else None
    if f.score and _beyond_exact(table.column(f.score)):  # an integer score there would be rounded: look closer
        records = records if records is not None else _records(name, first, block, f, kinds)
        if inexact_scores(records, f.score):
            raise bad_line(name, first, block, f, kinds, "an integer score beyond 2**53")
    queries = _ids(table.column(f.query), kinds.query)
    retrieved = table.column(f.retrieved).combine_chunks()
    parent = pc.list_parent_indices(retrieved).to_numpy(zero_copy_only=False)
    offsets = retrieved.offsets.to_numpy().astype(np.int64)
    rank = np.arange(len(parent), dtype=np.int64) + offsets[0] - offsets[parent] + 1
    parts.record_ids.append(queries)
    parts.queries.append(queries.take(pa.array(parent)))
    parts.docs.append(_ids(pc.list_flatten(retrieved), kinds.doc))
    parts.ranks.append(rank)
    parts.scores.append(record_scores(first, block, f, table, retrieved, parent, rank, parts))
    for stage in f.stages:
        parts.stages[stage].append(table.column(stage).combine_chunks())
    if f.relevant:
        _gold(name, first, block, f, kinds, parts, table, queries, records)
    if f.text:
        parts.texts.append(table.column(f.text).fill_null(""))
    parts.attributes.add(records, f.named(), table.num_rows)


def _beyond_exact(scores) -> bool:
    flat = pc.list_flatten(scores)
    return bool(len(flat)) and (pc.max(pc.abs(flat)).as_py() or 0.0) > MAX_EXACT


def _fine(table: pa.Table, f: _Fields) -> bool:
    """Whether the values of a parsed block keep the rules that Arrow can check without Python objects."""
    if table.column(f.query).null_count or table.column(f.retrieved).null_count:
        return False
    retrieved = table.column(f.retrieved)
    if pc.list_flatten(retrieved).null_count:
        return False
    for stage in f.stages:
        if table.column(stage).null_count or pc.list_flatten(table.column(stage)).null_count:
            return False
    if f.score:
        scores = table.column(f.score)
        lengths = pc.equal(pc.list_value_length(scores), pc.list_value_length(retrieved))
        if (scores.null_count and not f.optional_score) or not pc.all(pc.fill_null(lengths, True)).as_py():
            return False
        flat = pc.list_flatten(scores)  # a null score ([1.0, null]) is no number: pc.all would skip it
        if flat.null_count or (len(flat) and not pc.all(pc.is_finite(flat)).as_py()):
            return False
    return True


def _gold(name, first, block, f: _Fields, kinds: _Kinds, parts: _Parts, table: pa.Table, queries, records) -> None:
    if kinds.graded:
        records = records if records is not None else _records(name, first, block, f, kinds)
        rows, ids, grades = _graded(name, first, block, f, kinds, records)
        parts.gold_present += sum(record.get(f.relevant) is not None for record in records)
        judged = np.zeros(table.num_rows, dtype=bool)
        judged[rows] = True
        parts.unjudged += int((~judged).sum())  # an empty object counts as unjudged too
    else:
        gold = table.column(f.relevant).combine_chunks()
        parts.gold_present += len(gold) - gold.null_count
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
    kinds, parts = _Kinds(), _Parts(f)
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


def read_jsonl(
    path,
    *,
    query: str = "query_id",
    retrieved: str = "retrieved",
    relevant: str | None = "relevant",
    score: str | None = "scores",
    text: str | None = None,
    system: str | None = None,
    stages=None,
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
        None: ``score`` is ``-rank``. Under the default name a record may lack the field
        (its list is ranked in the order given; a log mixing both warns once).
    text : str, optional
        The field of the query text, for ``queries``.
    system : str, optional
        The ``system`` of the run's rows; by default the file's name without its
        extensions (``logs/bm25.jsonl.gz`` is ``bm25``).
    stages : list of str, optional
        Fields holding one list of ids per pipeline stage, in pipeline order (``["retrieved",
        "reranked", "context", "cited"]``), read into ``.stages``; ``retrieved`` then
        defaults to the first of them.
    block_size : int, default 16 MiB
        Bytes parsed at once: memory is bounded by a few blocks beside the result.

    Returns
    -------
    RetrievalLog
        ``.run`` (the columns of :func:`rankviz.read_run`), ``.qrels`` (``query_id``,
        ``doc_id``, ``relevance``, or None), ``.queries`` (the texts and the other scalar
        fields as query attributes, or None) and ``.stages`` (or None).

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
        not in the qrels, so evaluation does not count them); once for a log where some
        records have scores and others (the first named) have none.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "log.jsonl")
    >>> _ = open(path, "w").write('{"question": "q1", "ids": ["d1", "d2"], "gold": ["d2"]}\\n')
    >>> log = rankviz.read_jsonl(path, query="question", retrieved="ids", relevant="gold", score=None)
    >>> rankviz.mrr(log.run, qrels=log.qrels, k=10).item()
    0.5
    >>> _ = open(path, "w").write('{"query_id": "q1", "retrieved": ["d1", "d2"], "context": ["d2"], '
    ...                           '"relevant": ["d2"], "topic": "billing"}\\n')
    >>> log = rankviz.read_jsonl(path, stages=["retrieved", "context"])
    >>> list(log.stages), log.queries.columns.tolist(), log.run["system"].iloc[0]
    (['retrieved', 'context'], ['query_id', 'topic'], 'log')
    """
    staged_fields = stage_names(stages)
    if staged_fields and retrieved == "retrieved" and "retrieved" not in staged_fields:
        retrieved = staged_fields[0]
    for label, value in (("query", query), ("retrieved", retrieved)):
        if not isinstance(value, str) or not value:
            raise InputError(f"The {label!r} parameter of read_jsonl must be a field name. Got {value!r} instead.")
    fields = _Fields(query, retrieved, score, relevant, text, optional_score=score == "scores", stages=staged_fields)
    name, _, stream = open_bytes(path)
    with stream:
        parts = _parse(name, stream, fields, block_size)
    unique_queries(name, parts.record_ids, fields.query)
    probed = relevant == "relevant" and not parts.gold_present  # the default name, in no record
    if parts.scored and parts.unscored:
        warn(
            f"{name}: {parts.unscored} record(s) with retrieved ids have no {score!r} (the first on line "
            f"{parts.first_unscored}) while {parts.scored} have them: those lists are ranked in the order given. "
            f"Give every record its scores, or pass score=None to rank every list in its order.",
            RankvizWarning,
        )
    if fields.relevant and parts.unjudged and not probed:
        warn(
            f"{name}: {parts.unjudged} record(s) have no relevant ids in {fields.relevant!r}: their queries are not "
            "in the qrels, so evaluation leaves them out. Give them their gold ids, or drop them from the log.",
            RankvizWarning,
        )
    tag = system if system is not None else system_name(name)
    staged = (
        {stage: stage_run(name, parts.record_ids, parts.stages[stage], tag) for stage in staged_fields}
        if staged_fields
        else None
    )
    run = _run(name, parts, tag)
    qrels = _qrels(parts) if fields.relevant and not probed else None
    return RetrievalLog(run=run, qrels=qrels, queries=_queries(parts, fields), stages=staged)


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
    attributes = parts.attributes.frame()
    if not f.text and not len(attributes.columns):
        return None
    frame = pd.DataFrame({"query_id": string_series(_concat(parts.record_ids))})
    if f.text:
        frame["text"] = string_series(pa.chunked_array([c for a in parts.texts for c in a.chunks], type=pa.string()))
    for column in attributes.columns:
        if column not in frame.columns:
            frame[column] = (
                attributes[column].to_numpy() if attributes[column].dtype == object else attributes[column].array
            )
    return frame
