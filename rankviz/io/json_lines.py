"""The slow path of :mod:`rankviz.io.jsonl`: a block of JSON lines read again line by line to name the bad line.

``f`` is the reader's field names (``query``, ``retrieved``, ``score``, ``relevant``,
``text``) and ``kinds`` the JSON type of each id field learnt from the first records
(``'str'`` or ``'int'``, and whether relevant ids come as ``{id: grade}``).
"""

from __future__ import annotations

import json
import math

from .._core.long_run import MAX_EXACT
from .._errors import InputError, TrecFormatError

__all__ = ["bad_line", "json_kind"]


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
    if f.score:
        scores = record.get(f.score)
        if not isinstance(scores, list) or len(scores) != len(docs):
            found = f"{len(scores)} scores" if isinstance(scores, list) else json.dumps(scores)[:60]
            return f"the {f.score!r} field must be a list of {len(docs)} numbers (one per retrieved id), found {found}"
        for s in scores:
            if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(float(s)):
                return f"every score in {f.score!r} must be a finite number, found {json.dumps(s)}"
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


def _no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"the key {next(k for k in keys if keys.count(k) > 1)!r} appears twice in one object")
    return dict(pairs)


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
            record = json.loads(text, object_pairs_hook=_no_duplicate_keys)
        except ValueError as exc:
            hint = " (one JSON object per line)" if "Extra data" in str(exc) else ""
            return TrecFormatError(f"{name}, line {number}: not a valid JSON object{hint}: {exc}: {shown!r}")
        problem = _record_problem(record, f, kinds)
        if problem:
            return TrecFormatError(f"{name}, line {number}: {problem}: {shown!r}")
    last = first + block.count(b"\n")
    lines = f"lines {first}-{last}"
    return TrecFormatError(f"{name}, {lines}: could not be read ({reason or 'unknown reason'}).")
