"""Reading and writing TREC run and qrels files, and dict-of-dicts interop.

TREC files are whitespace separated (any mix of spaces and tabs, CRLF or LF), may
contain comment lines starting with ``#`` and blank lines, and are read the way
trec_eval reads them:

* runs: ``query_id iteration doc_id rank score tag`` -- six fields; fields after the
  sixth are ignored (trec_eval ignores them too); the iteration field is dropped.
* qrels: ``query_id iteration doc_id relevance`` -- four fields; the relevance must
  be an integer (trec_eval would silently truncate ``1.7`` to 1; rankviz refuses).

Ids are always returned as strings (pandas' ``str`` dtype): ``"01"`` and ``"1"``
are different documents, as they are to trec_eval.
"""

from __future__ import annotations

import csv
import io
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ._columns import Columns
from ._errors import DuplicateError, InputError, TrecFormatError
from ._frame import resolve_long_run, resolve_qrels

__all__ = [
    "read_run",
    "read_qrels",
    "read_topics",
    "write_run",
    "write_qrels",
    "run_to_dict",
    "qrels_to_dict",
    "run_from_dict",
    "qrels_from_dict",
]

_RUN_FIELDS = "query_id Q0 doc_id rank score tag"
_QRELS_FIELDS = "query_id iteration doc_id relevance"


def _read_text(path) -> tuple[str, str]:
    """Return (display name, decoded text) of ``path``, with a clear error if unreadable."""
    name = os.fspath(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a TREC file") from None
    try:
        return name, raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise TrecFormatError(f"{name}, line {line}: the file is not valid UTF-8 ({exc.reason}).") from None


def _data_lines(text: str) -> tuple[str, list[int] | None]:
    """Drop comment lines; return the text to parse and, when lines were dropped, a map to file lines."""
    if not re.search(r"(?m)^[ \t]*#", text):
        return text, None
    kept, numbers = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            continue
        kept.append(line)
        numbers.append(number)
    return "\n".join(kept) + "\n", numbers


def _file_line(text: str, numbers: list[int] | None, row: int) -> tuple[int, str]:
    """Map a parsed row (blank lines skipped) back to its 1-based file line and the line itself."""
    seen = -1
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.strip():
            seen += 1
            if seen == row:
                return (numbers[index] if numbers else index + 1), line
    return len(lines), ""  # pragma: no cover - rows always map to a line


def _parse_table(path, n_fields: int, what: str, expected: str) -> tuple[pd.DataFrame, str, str, list | None]:
    name, text = _read_text(path)
    body, numbers = _data_lines(text)
    if not body.strip():
        raise TrecFormatError(f"{name}: the file has no {what} lines (expected '{expected}').")
    try:
        table = pd.read_csv(
            io.StringIO(body),
            sep=r"\s+",
            header=None,
            usecols=range(n_fields),
            dtype=str,
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            engine="c",
            skip_blank_lines=True,
        )
    except (pd.errors.ParserError, ValueError) as exc:
        short = _first_short_line(body, numbers, n_fields)
        if short is not None:
            line_no, line = short
            raise TrecFormatError(
                f"{name}, line {line_no}: expected {n_fields} whitespace-separated fields '{expected}', "
                f"found {len(line.split())}: {line.strip()!r}"
            ) from None
        raise TrecFormatError(f"{name}: cannot read it as a {what} file (expected '{expected}'): {exc}") from None
    empty = (table == "").to_numpy()
    if empty.any():
        row = int(np.flatnonzero(empty.any(axis=1))[0])
        line_no, line = _file_line(body, numbers, row)
        found = len(line.split())
        raise TrecFormatError(
            f"{name}, line {line_no}: expected {n_fields} whitespace-separated fields '{expected}', "
            f"found {found}: {line.strip()!r}"
        )
    return table, name, body, numbers


def _first_short_line(body: str, numbers, n_fields: int):
    """(file line, text) of the first data line with fewer than ``n_fields`` fields, if any."""
    for index, line in enumerate(body.splitlines()):
        if line.strip() and len(line.split()) < n_fields:
            return (numbers[index] if numbers else index + 1), line
    return None


def _numeric(column: pd.Series, *, name: str, body: str, numbers, field: str, integer: bool) -> np.ndarray:
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if integer:
        bad |= values != np.round(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        line_no, line = _file_line(body, numbers, row)
        kind = "an integer" if integer else "a finite number"
        raise TrecFormatError(
            f"{name}, line {line_no}: the {field} field must be {kind}, found {column.iloc[row]!r}: {line.strip()!r}"
        )
    return values


def read_run(path, *, system: str | None = None) -> pd.DataFrame:
    """Read a TREC run file.

    Parameters
    ----------
    path : str or path-like
        A file of ``query_id Q0 doc_id rank score tag`` lines.
    system : str, optional
        The name to put in the ``system`` column. By default the run's tag (the
        sixth field) is used.

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``rank`` (int64),
        ``score`` (float64) and ``system`` (str), in file order.

    Raises
    ------
    TrecFormatError
        Naming the file, the line number and what was expected, for a line with
        fewer than six fields, a score that is not a finite number or a rank that
        is not an integer.

    Notes
    -----
    Like trec_eval, evaluation orders documents by ``score`` (descending, ties by
    doc id descending); the ``rank`` field is kept but not trusted.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    >>> rankviz.read_run(path)
      query_id doc_id  rank  score system
    0       q1     d1     1    2.5   bm25
    1       q1     d2     2    1.5   bm25
    """
    table, name, body, numbers = _parse_table(path, 6, "run", _RUN_FIELDS)
    score = _numeric(table[4], name=name, body=body, numbers=numbers, field="score (5th)", integer=False)
    rank = _numeric(table[3], name=name, body=body, numbers=numbers, field="rank (4th)", integer=True)
    tags = table[5] if system is None else pd.Series(system, index=table.index)
    return pd.DataFrame(
        {
            "query_id": table[0].astype("str"),
            "doc_id": table[2].astype("str"),
            "rank": rank.astype(np.int64),
            "score": score,
            "system": tags.astype("str"),
        }
    )


def read_qrels(path) -> pd.DataFrame:
    """Read a TREC qrels file.

    Parameters
    ----------
    path : str or path-like
        A file of ``query_id iteration doc_id relevance`` lines (any whitespace).

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str), ``iteration`` (str, ignored by evaluation),
        ``doc_id`` (str) and ``relevance`` (int64), in file order.

    Raises
    ------
    TrecFormatError
        For a line without exactly four fields (six fields suggest a run file
        given as qrels) or a relevance that is not an integer.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("q1 0 d1 2\\r\\nq1 0.5  d2 0\\r\\n")
    >>> rankviz.read_qrels(path)
      query_id iteration doc_id  relevance
    0       q1         0     d1          2
    1       q1       0.5     d2          0
    """
    table, name, body, numbers = _parse_table(path, 4, "qrels", _QRELS_FIELDS)
    extra = _max_fields(body)
    if extra[0] > 4:
        line_no, line = _file_line(body, numbers, extra[1])
        hint = " It looks like a run file." if extra[0] == 6 else ""
        raise TrecFormatError(
            f"{name}, line {line_no}: expected 4 whitespace-separated fields '{_QRELS_FIELDS}', "
            f"found {extra[0]}: {line.strip()!r}.{hint}"
        )
    relevance = _numeric(table[3], name=name, body=body, numbers=numbers, field="relevance (4th)", integer=True)
    return pd.DataFrame(
        {
            "query_id": table[0].astype("str"),
            "iteration": table[1].astype("str"),
            "doc_id": table[2].astype("str"),
            "relevance": relevance.astype(np.int64),
        }
    )


def _max_fields(body: str) -> tuple[int, int]:
    """The largest number of fields on a data line, and the row where it first occurs."""
    best, where, row = 0, 0, -1
    for line in body.splitlines():
        if not line.strip():
            continue
        row += 1
        count = len(line.split())
        if count > best:
            best, where = count, row
    return best, where


def read_topics(path) -> pd.DataFrame:
    """Read query texts from TREC topic XML (``<topic number=..><query>``) or a two-column TSV.

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str) and ``text`` (str). For XML topics the text is
        the ``<query>`` element (or ``<title>``), with ``<question>`` kept in a
        ``question`` column when present.
    """
    name, text = _read_text(path)
    if text.lstrip().startswith("<"):
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            raise TrecFormatError(f"{name}: not well-formed topic XML ({exc}).") from None
        rows = []
        for topic in root.iter("topic"):
            qid = topic.get("number") or topic.findtext("num") or ""
            query = topic.findtext("query") or topic.findtext("title") or ""
            rows.append({"query_id": qid.strip(), "text": " ".join(query.split()), "question": " ".join((topic.findtext("question") or "").split())})
        if not rows:
            raise TrecFormatError(f"{name}: no <topic> elements found.")
        frame = pd.DataFrame(rows)
        if not frame["question"].str.len().any():
            frame = frame.drop(columns="question")
        return frame.astype("str")
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t", 1)
        if len(parts) != 2:
            raise TrecFormatError(f"{name}, line {number}: expected 'query_id<TAB>text', found {line.strip()!r}.")
        rows.append((parts[0].strip(), parts[1].strip()))
    return pd.DataFrame(rows, columns=["query_id", "text"]).astype("str")


def write_run(run: pd.DataFrame, path, *, tag: str | None = None, columns=None) -> None:
    """Write a run as a TREC run file, ranked the way trec_eval reads it.

    Parameters
    ----------
    run : DataFrame
        A long run (query id, doc id, score and/or rank; column names resolve as
        for :func:`rankviz.evaluate`). With a ``system`` column it must hold one
        system only.
    path : str or path-like
    tag : str, optional
        The sixth field. Defaults to the system name, else ``"rankviz"``.
    columns : dict, optional
        Column names by role when the defaults and aliases do not find them:
        ``{'query': ..., 'doc': ..., 'score': ..., 'rank': ..., 'system': ...}``.

    Notes
    -----
    Lines are sorted by query id and by trec_eval's order (score descending, ties
    by doc id descending); the rank field is rewritten to match. Scores are
    written with Python's shortest round-trip representation.
    """
    cols = resolve_long_run(run, Columns.of(columns, "write_run"), need_doc=True)
    frame = cols.frame
    if cols.system is not None:
        systems = frame[cols.system].astype("str").unique()
        if len(systems) > 1:
            raise InputError(
                f"write_run writes one system per file; this frame holds {len(systems)} "
                f"({', '.join(map(str, systems[:5]))}). Select one, e.g. run[run.{cols.system} == {systems[0]!r}]."
            )
        if tag is None and len(systems):
            tag = str(systems[0])
    tag = tag or "rankviz"
    if any(ch.isspace() for ch in tag):
        raise InputError(f"The run tag must not contain whitespace. Got {tag!r}.")
    qid = frame[cols.query].astype("str")
    did = frame[cols.doc].astype("str")
    for label, ids in (("query", qid), ("doc", did)):
        if ids.str.contains(r"\s", regex=True).any():
            bad = ids[ids.str.contains(r"\s", regex=True)].iloc[0]
            raise InputError(f"A {label} id contains whitespace, which TREC files cannot hold: {bad!r}.")
    if cols.score is not None:
        key = -pd.to_numeric(frame[cols.score]).to_numpy(dtype=np.float64)
        score = frame[cols.score].to_numpy(dtype=np.float64)
    else:
        key = pd.to_numeric(frame[cols.rank]).to_numpy(dtype=np.float64)
        score = -key
    order = pd.DataFrame({"q": qid.to_numpy(dtype=object), "k": key, "d": did.to_numpy(dtype=object)})
    order = order.sort_values(["q", "k", "d"], ascending=[True, True, False], kind="mergesort")
    ranks = order.groupby("q", sort=False).cumcount() + 1
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for q, d, r, s in zip(order["q"], order["d"], ranks, score[order.index.to_numpy()]):
            handle.write(f"{q} Q0 {d} {r} {float(s)!r} {tag}\n")


def write_qrels(qrels: pd.DataFrame, path, *, columns=None) -> None:
    """Write qrels as a TREC qrels file (``query_id 0 doc_id relevance``); ``columns`` as for :func:`write_run`."""
    q = resolve_qrels(qrels, Columns.of(columns, "write_qrels"))
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for qid, did, rel in zip(q.query_ids, q.doc_ids, q.grades):
            handle.write(f"{qid} 0 {did} {int(rel)}\n")


def run_to_dict(run: pd.DataFrame, *, columns=None) -> dict[str, dict[str, float]]:
    """Convert a long run to ``{query_id: {doc_id: score}}`` (pytrec_eval, ranx, ir_measures).

    With a ``system`` column, returns ``{system: {query_id: {doc_id: score}}}``.
    Duplicate (query, doc) rows are refused rather than silently collapsed.
    """
    cols = resolve_long_run(run, Columns.of(columns, "run_to_dict"), need_doc=True)
    frame = cols.frame
    if cols.score is not None:
        score = pd.to_numeric(frame[cols.score]).to_numpy(dtype=np.float64)
    else:
        score = -pd.to_numeric(frame[cols.rank]).to_numpy(dtype=np.float64)
    keys = [cols.query, cols.doc] if cols.system is None else [cols.system, cols.query, cols.doc]
    dup = frame.duplicated(subset=keys)
    if dup.any():
        row = frame.loc[dup].iloc[0]
        raise DuplicateError(
            f"run_to_dict: the (query, doc) pair ({row[cols.query]!r}, {row[cols.doc]!r}) appears more than once; "
            "a dict can hold one score per pair."
        )

    def nest(qids, dids, scores):
        out: dict[str, dict[str, float]] = {}
        for q, d, s in zip(qids, dids, scores):
            out.setdefault(str(q), {})[str(d)] = float(s)
        return out

    qids = frame[cols.query].astype("str").to_numpy(dtype=object)
    dids = frame[cols.doc].astype("str").to_numpy(dtype=object)
    if cols.system is None:
        return nest(qids, dids, score)
    systems = frame[cols.system].astype("str").to_numpy(dtype=object)
    result: dict[str, dict[str, dict[str, float]]] = {}
    for name in pd.unique(systems):
        mask = systems == name
        result[str(name)] = nest(qids[mask], dids[mask], score[mask])
    return result


def qrels_to_dict(qrels: pd.DataFrame, *, columns=None) -> dict[str, dict[str, int]]:
    """Convert qrels to ``{query_id: {doc_id: relevance}}`` with Python ints (as pytrec_eval requires)."""
    q = resolve_qrels(qrels, Columns.of(columns, "qrels_to_dict"))
    out: dict[str, dict[str, int]] = {}
    for qid, did, rel in zip(q.query_ids, q.doc_ids, q.grades):
        out.setdefault(str(qid), {})[str(did)] = int(rel)
    return out


def run_from_dict(run: Mapping[str, Mapping[str, float]], *, system: str | None = None) -> pd.DataFrame:
    """Build a long run frame from ``{query_id: {doc_id: score}}``.

    Returns columns ``query_id``, ``doc_id``, ``score`` (and ``system`` when given),
    in the dict's order.
    """
    if not isinstance(run, Mapping):
        raise InputError(f"run_from_dict expects a mapping {{query_id: {{doc_id: score}}}}. Got {type(run).__name__}.")
    qids, dids, scores = [], [], []
    for qid, docs in run.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"run_from_dict: the value for query {qid!r} must be a mapping {{doc_id: score}}.")
        for did, score in docs.items():
            qids.append(str(qid))
            dids.append(str(did))
            scores.append(float(score))
    frame = pd.DataFrame({"query_id": pd.array(qids, dtype="str"), "doc_id": pd.array(dids, dtype="str"), "score": np.asarray(scores, dtype=np.float64)})
    if system is not None:
        frame["system"] = pd.array([system] * len(frame), dtype="str")
    return frame


def qrels_from_dict(qrels: Mapping[str, Mapping[str, int]]) -> pd.DataFrame:
    """Build a qrels frame (``query_id``, ``doc_id``, ``relevance``) from ``{query_id: {doc_id: grade}}``."""
    if not isinstance(qrels, Mapping):
        raise InputError(f"qrels_from_dict expects a mapping {{query_id: {{doc_id: grade}}}}. Got {type(qrels).__name__}.")
    rows = [(str(q), str(d), g) for q, docs in qrels.items() for d, g in docs.items()]
    grades = np.asarray([g for _, _, g in rows], dtype=np.float64)
    if rows and (not np.isfinite(grades).all() or (grades != np.round(grades)).any()):
        raise InputError("qrels_from_dict: relevance grades must be integers.")
    return pd.DataFrame(
        {
            "query_id": pd.array([r[0] for r in rows], dtype="str"),
            "doc_id": pd.array([r[1] for r in rows], dtype="str"),
            "relevance": grades.astype(np.int64),
        }
    )
