"""The slow path of :mod:`rankviz.io.jsonl`: a block of JSON lines read again line by line to name the bad line.

``f`` is the reader's field names (``query``, ``retrieved``, ``score``, ``relevant``,
``text``) and ``kinds`` the JSON type of each id field learnt from the first records
(``'str'`` or ``'int'``, and whether relevant ids come as ``{id: grade}``).
"""

from __future__ import annotations

import itertools
import json
import math
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._core.long_run import MAX_EXACT
from .._errors import InputError, TrecFormatError
from .json_text import load_json
from .run_frame import RunParts, run_frame

__all__ = [
    "Attributes",
    "bad_line",
    "inexact_scores",
    "json_kind",
    "parse_record",
    "record_scores",
    "stage_names",
    "stage_run",
    "system_name",
]


def json_kind(value) -> str | None:
    """``'int'`` or ``'str'``: the kind of a JSON id value; None for anything that is not an id (bools too)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return "int" if isinstance(value, int) else "str"


def _check_id(value, kind: str | None, what: str, fix: str) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return f"the {what} must be a JSON string or integer, found {json.dumps(value)[:60]}{fix}"
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return f"the {what} {value} is beyond 64 bits; write ids as JSON strings"
    if kind is not None and json_kind(value) != kind:
        other = "integers" if kind == "int" else "strings"
        return f"the {what} is a JSON {'integer' if isinstance(value, int) else 'string'}, but earlier lines have {other}; write all of them one way"
    return None


def _record_problem(record, f, kinds) -> str | None:
    """What is wrong with one parsed record, or None."""
    if not isinstance(record, dict):
        return f"expected a JSON object per line, found {type(record).__name__}"
    if f.query not in record or record[f.query] is None:
        return f"the record has no {f.query!r} field (the query id); name it with query='...'"
    problem = _check_id(record[f.query], kinds.query, f"query id {f.query!r}", "")
    if problem:
        return problem
    docs = record.get(f.retrieved)
    if not isinstance(docs, list):
        return f"the {f.retrieved!r} field must be a list of the retrieved ids in rank order, found {json.dumps(docs)[:60]}; name it with retrieved='...'"
    for doc in docs:
        if problem := _check_id(doc, kinds.doc, f"retrieved id in {f.retrieved!r}", ""):
            return problem
    for stage in f.stages:
        ids = record.get(stage)
        if not isinstance(ids, list):
            return f"the {stage!r} field (a stage) must be a list of ids in rank order, found {json.dumps(ids)[:60]}"
        for doc in ids:
            if problem := _check_id(doc, kinds.doc, f"id in {stage!r}", ""):
                return problem
    if f.score and not (f.optional_score and record.get(f.score) is None):
        scores = record.get(f.score)
        if not isinstance(scores, list) or len(scores) != len(docs):
            found = f"{len(scores)} scores" if isinstance(scores, list) else json.dumps(scores)[:60]
            return f"the {f.score!r} field must be a list of {len(docs)} numbers (one per retrieved id), found {found}"
        for s in scores:
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(float(s)):
                return f"every score in {f.score!r} must be a finite number, found {json.dumps(s)}"
            if isinstance(s, int) and abs(s) > MAX_EXACT:
                return (f"the score {s} in {f.score!r} is an integer beyond 2**53, which float64 rounds (as the TREC "
                        "readers, rankviz refuses it); write it as a float (1e18) if rounding is meant")  # fmt: skip
    if f.relevant:
        gold = record.get(f.relevant)
        if isinstance(gold, dict) and kinds.graded is False or isinstance(gold, list) and kinds.graded:
            return f"the {f.relevant!r} field is a {'list' if isinstance(gold, list) else 'object'} here but not on earlier lines"
        if gold is not None and not isinstance(gold, (list, dict)):
            return f"the {f.relevant!r} field must be a list of ids or an object {{id: grade}}, found {json.dumps(gold)[:60]}"
        for doc in gold or ():
            if problem := _check_id(doc, None if kinds.graded else kinds.gold, f"relevant id in {f.relevant!r}", ""):
                return problem
        for grade in gold.values() if isinstance(gold, dict) else ():
            if isinstance(grade, bool) or not isinstance(grade, int) or abs(grade) > MAX_EXACT:
                return f"every grade in {f.relevant!r} must be an integer within +-2**53, found {json.dumps(grade)}"
    if f.text and not isinstance(record.get(f.text), (str, type(None))):
        return f"the {f.text!r} field (the query text) must be a string"
    return None


def inexact_scores(records: list[dict], score: str) -> bool:
    """Whether a record's scores hold a JSON integer beyond 2**53 (pyarrow reads it as a rounded float)."""
    lists = [scores for scores in (record.get(score) for record in records) if isinstance(scores, list)]
    return any(
        isinstance(s, int) and not isinstance(s, bool) and abs(s) > MAX_EXACT
        for s in itertools.chain.from_iterable(lists)
    )


def _no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"the key {next(k for k in keys if keys.count(k) > 1)!r} appears twice in one object")
    return dict(pairs)


#: what a JSON-lines record holds, for the message on one nested too deeply
_FLAT = "a record holds ids, scores and flat attributes"


def parse_record(raw: bytes):
    """One line as Python values; a key repeated in any object or nesting too deep raises a ValueError."""
    return load_json(raw, "a JSON line", fix=_FLAT, object_pairs_hook=_no_duplicate_keys)


def _record_line(block: bytes, index: int) -> int:
    """The offset (0 = the block's first line) of the block's ``index``-th non-blank line."""
    seen = -1
    for offset, raw in enumerate(block.split(b"\n")):
        if raw.strip():
            seen += 1
            if seen == index:
                return offset
    return 0


def _scalar_column(values: list) -> pd.Series:
    """A column of JSON scalars: strings stay strings, integers stay exact, mixed kinds stay as given (objects)."""
    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if kinds <= {str}:
        return pd.Series(pd.array(values, dtype="str"))
    if kinds <= {bool}:
        return pd.Series(pd.array(values, dtype="boolean"))
    if kinds <= {int} and all(-(2**63) <= v < 2**63 for v in present):
        return pd.Series(pd.array(values, dtype="Int64"))
    if kinds <= {int, float} and all(isinstance(v, float) or abs(v) <= MAX_EXACT for v in present):
        return pd.Series(pd.array([None if v is None else float(v) for v in values], dtype="Float64"))
    return pd.Series(values, dtype=object)


class Attributes:
    """The scalar fields of the records beyond the named ones (query attributes), gathered block by block."""

    def __init__(self):
        self.columns: dict[str, list] = {}
        self.rows = 0

    def add(self, records: list[dict] | None, named: set[str], n: int) -> None:
        """Add a block's records (None: the block has no other field) of ``n`` rows."""
        for record in records or ():
            for key, value in record.items():
                if key in named or isinstance(value, (list, dict)):
                    continue
                if key not in self.columns:
                    self.columns[key] = [None] * self.rows
                self.columns[key].append(value)
            self.rows += 1
            for column in self.columns.values():
                if len(column) < self.rows:
                    column.append(None)
        if records is None:
            self.rows += n
            for column in self.columns.values():
                column.extend([None] * n)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({key: _scalar_column(values) for key, values in self.columns.items()})


def bad_line(name: str, first: int, block: bytes, f, kinds, reason: str = "") -> InputError:
    """The error naming the first bad line of ``block`` (Python's json, line by line)."""
    for offset, raw in enumerate(block.split(b"\n")):
        if not raw.strip():
            continue
        number = first + offset
        shown = raw.decode("utf-8", "replace").strip()
        shown = shown if len(shown) <= 200 else shown[:200] + "..."
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return TrecFormatError(f"{name}, line {number}: the file is not valid UTF-8 ({exc.reason}).")
        try:
            record = load_json(text, f"{name}, line {number}", fix=_FLAT, object_pairs_hook=_no_duplicate_keys)
        except TrecFormatError as exc:  # nested too deeply
            return TrecFormatError(f"{exc} {shown[:60]!r}")
        except ValueError as exc:
            hint = " (one JSON object per line)" if "Extra data" in str(exc) else ""
            return TrecFormatError(f"{name}, line {number}: not a valid JSON object{hint}: {exc}: {shown!r}")
        problem = _record_problem(record, f, kinds)
        if problem:
            return TrecFormatError(f"{name}, line {number}: {problem}: {shown!r}")
    last = first + block.count(b"\n")
    lines = f"lines {first}-{last}"
    return TrecFormatError(f"{name}, {lines}: could not be read ({reason or 'unknown reason'}).")


def stage_names(stages) -> tuple[str, ...]:
    if stages is None:
        return ()
    if isinstance(stages, str) or not all(isinstance(s, str) and s for s in stages):
        raise InputError(
            "The 'stages' parameter of read_jsonl must be a list of field names in pipeline order, such as "
            f"['retrieved', 'reranked', 'context', 'cited']. Got {stages!r} instead."
        )
    names = tuple(stages)
    if len(set(names)) != len(names) or not names:
        raise InputError(f"The 'stages' parameter of read_jsonl names a field twice (or none): {list(names)!r}.")
    return names


def system_name(name: str) -> str:
    """The file's name without its compression and JSON-lines extensions."""
    base = os.path.basename(name)
    for suffix in (".gz", ".bz2", ".xz"):
        base = base.removesuffix(suffix)
    for suffix in (".jsonl", ".ndjson", ".json"):
        base = base.removesuffix(suffix)
    return base or "run"


def stage_run(name: str, record_ids: list, lists: list, tag: str) -> pd.DataFrame:
    """One stage's lists (a list array per block, beside the blocks' query ids) as a run ranked in list order."""
    queries = pa.chunked_array(
        [q.take(pc.list_parent_indices(a)) for q, a in zip(record_ids, lists)], type=pa.large_string()
    )
    docs = pa.chunked_array([pc.list_flatten(a).cast(pa.large_string()) for a in lists], type=pa.large_string())
    rank = np.concatenate(
        [
            (np.arange(len(p)) - a.offsets.to_numpy()[p] + a.offsets.to_numpy()[0] + 1)
            for a in lists
            for p in [pc.list_parent_indices(a).to_numpy(zero_copy_only=False)]
        ]
    ).astype(np.int64)
    return run_frame(
        [RunParts(name, queries, docs, rank, -rank.astype(np.float64), np.zeros(len(rank), dtype=np.int8), [tag])]
    )


def unique_queries(name: str, record_ids: list, field: str) -> None:
    """Refuse a query id in more than one record (``record_ids``: the blocks' query ids)."""
    ids = pa.chunked_array([c for a in record_ids for c in a.chunks], type=pa.large_string())
    counts = pc.value_counts(ids)
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        raise InputError(
            f"{name}: the query id {repeated[0].as_py()!r} has {field!r} in more than one record; a log holds one "
            "record per query (merge them, or give each record its own id)."
        )


def record_scores(first: int, block: bytes, f, table: pa.Table, retrieved, parent, rank, parts):
    """The score of every retrieved id: the record's scores, or ``-rank`` for a record without (or without a field)."""
    if not f.score:
        return -rank.astype(np.float64)
    scores = table.column(f.score).combine_chunks()
    flat = pc.list_flatten(scores).to_numpy(zero_copy_only=False)
    if not scores.null_count:
        parts.scored += int(pc.sum(pc.greater(pc.list_value_length(retrieved), 0)).as_py() or 0)
        return flat
    has = scores.is_valid().to_numpy(zero_copy_only=False)
    nonempty = pc.greater(pc.list_value_length(retrieved), 0).to_numpy(zero_copy_only=False)
    parts.scored += int((has & nonempty).sum())
    missing = ~has & nonempty
    if missing.any():
        parts.unscored += int(missing.sum())
        if parts.first_unscored is None:
            parts.first_unscored = first + _record_line(block, int(np.flatnonzero(missing)[0]))
    out = -rank.astype(np.float64)
    row_has = has[parent]
    out[row_has] = flat
    return out
