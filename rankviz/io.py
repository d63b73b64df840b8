"""Reading and writing TREC run, qrels and topic files, and dict-of-dicts interop.

TREC files are read the way trec_eval 10 reads them (the details, and where rankviz
departs from trec_eval to refuse what it would misread, are in
:mod:`rankviz._trec_text`): fields separated by spaces, tabs or a CRLF line end;
blank lines and lines starting with ``#`` skipped (the comments with one warning);
gzip, bzip2 and xz files read transparently, by their magic bytes.

* runs: ``query_id iteration doc_id rank score tag`` -- six fields; fields after the
  sixth are ignored (trec_eval ignores them too); the iteration field is dropped.
* qrels: ``query_id iteration doc_id relevance`` -- four fields; the relevance must
  be an integer (trec_eval would silently truncate ``1.7`` to 1; rankviz refuses).

Ids are always returned as strings (pandas' ``str`` dtype): ``"01"`` and ``"1"``
are different documents, as they are to trec_eval.
"""

from __future__ import annotations

import math
import numbers
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._columns import Columns
from ._errors import DuplicateError, InputError, TrecFormatError
from ._frame import MAX_EXACT, resolve_long_run, resolve_qrels
from ._trec_text import (
    comment_lines,
    decimals,
    integers,
    read_text,
    split_fields,
    warn_comments,
)

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


def _strings(values) -> pd.Series:
    return pd.Series(values, dtype="str")


def read_run(path, *, system: str | None = None, comments: bool = True) -> pd.DataFrame:
    """Read a TREC run file.

    Parameters
    ----------
    path : str or path-like
        A file of ``query_id Q0 doc_id rank score tag`` lines, plain or compressed
        (gzip, bzip2, xz: recognised by their first bytes, whatever the file's name).
    system : str, optional
        The name to put in the ``system`` column. By default the run's tag (the
        sixth field) is used.
    comments : bool, default True
        Skip lines whose first non-blank character is ``#``, as trec_eval 10 does,
        with one :class:`~rankviz.RankvizWarning` giving their count and the first
        one. ``False`` reads them as data (query ids starting with ``#``), as
        trec_eval 9 and pytrec_eval do.

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``rank`` (int64),
        ``score`` (float64) and ``system`` (str), in file order.

    Raises
    ------
    FileNotFoundError
        When there is no such file.
    TrecFormatError
        Naming the file, the line number and the line, for a line with fewer than
        six fields, a score that is not a finite number (``nan``, ``inf``), a rank
        that is not an integer of magnitude at most 2**53, a no-break space or
        another character trec_eval would read differently (see
        :mod:`rankviz._trec_text`), or a file that is not UTF-8 text.

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
    name, text = read_text(path)
    fields = split_fields(name, text, 6, what="run", expected=_RUN_FIELDS, extra=True, comments=comments)
    score = decimals(fields, 4, "score (5th)")
    rank = integers(fields, 3, "rank (4th)")
    fields.warn_skipped()
    return pd.DataFrame(
        {
            "query_id": _strings(fields.columns[0]),
            "doc_id": _strings(fields.columns[2]),
            "rank": rank,
            "score": score,
            "system": _strings(fields.columns[5] if system is None else [system] * len(score)),
        }
    )


def read_qrels(path, *, comments: bool = True) -> pd.DataFrame:
    """Read a TREC qrels file.

    Parameters
    ----------
    path : str or path-like
        A file of ``query_id iteration doc_id relevance`` lines (any whitespace),
        plain or compressed (gzip, bzip2, xz).
    comments : bool, default True
        Skip lines starting with ``#`` (with one warning), or read them as data; as
        for :func:`read_run`.

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str), ``iteration`` (str, ignored by evaluation),
        ``doc_id`` (str) and ``relevance`` (int64), in file order.

    Raises
    ------
    FileNotFoundError
        When there is no such file.
    TrecFormatError
        Naming the file, the line number and the line, for a line without exactly
        four fields (six fields suggest a run file given as qrels), a relevance
        that is not an integer of magnitude at most 2**53 (``1.7``, ``1e3`` and
        ``9223372036854775808`` are refused: trec_eval's ``atol`` would read the
        first two as 1), or a character trec_eval would read differently.

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
    name, text = read_text(path)
    fields = split_fields(name, text, 4, what="qrels", expected=_QRELS_FIELDS, extra=False, comments=comments)
    relevance = integers(fields, 3, "relevance (4th)")
    fields.warn_skipped()
    return pd.DataFrame(
        {
            "query_id": _strings(fields.columns[0]),
            "iteration": _strings(fields.columns[1]),
            "doc_id": _strings(fields.columns[2]),
            "relevance": relevance,
        }
    )


_LABEL = {"num": "number", "title": "topic", "desc": "description", "narr": "narrative"}
_SGML_COLUMN = {"num": "query_id", "title": "text", "desc": "description", "narr": "narrative"}
_SGML_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z]+)\b[^>]*>")
_TOPIC_COLUMNS = ["query_id", "text", "question", "description", "narrative"]


def _topic_field(value: str | None, tag: str) -> str:
    """Whitespace collapsed, and the label TREC topics start the field with dropped ('Number: 301' -> '301')."""
    text = " ".join((value or "").split())
    label = _LABEL.get(tag)
    if label and text[: len(label) + 1].lower() == label + ":":
        text = text[len(label) + 1 :].lstrip()
    return text


def _xml_topics(name: str, text: str) -> list[dict]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise TrecFormatError(f"{name}: not well-formed topic XML ({exc}).") from None
    rows = []
    for topic in root.iter("topic"):
        rows.append(
            {
                "query_id": _topic_field(topic.get("number") or topic.findtext("num"), "num"),
                "text": _topic_field(topic.findtext("query") or topic.findtext("title"), "title"),
                "question": _topic_field(topic.findtext("question"), "question"),
                "description": _topic_field(topic.findtext("desc") or topic.findtext("description"), "desc"),
                "narrative": _topic_field(topic.findtext("narr") or topic.findtext("narrative"), "narr"),
            }
        )
    if not rows:
        raise TrecFormatError(f"{name}: no <topic> elements found.")
    unnamed = [i for i, row in enumerate(rows, start=1) if not row["query_id"]]
    if unnamed:
        raise TrecFormatError(f"{name}: <topic> number {unnamed[0]} of the file has no number attribute or <num> (its query id).")
    return rows


def _sgml_topics(name: str, text: str) -> list[dict]:
    """Classic TREC topics: ``<top> <num> Number: 301 <title> ... <desc> Description: ... </top>``, not XML."""
    starts = [m.end() for m in re.finditer(r"<\s*top\s*>", text, flags=re.IGNORECASE)]
    rows = []
    for start, stop in zip(starts, starts[1:] + [len(text)]):
        block = re.split(r"<\s*/\s*top\s*>", text[start:stop], maxsplit=1, flags=re.IGNORECASE)[0]
        tags = list(_SGML_TAG.finditer(block))
        row = {}
        for tag, following in zip(tags, tags[1:] + [None]):
            key = tag.group(2).lower()
            if not tag.group(1) and key in _SGML_COLUMN:
                row[_SGML_COLUMN[key]] = _topic_field(block[tag.end() : following.start() if following else None], key)
        if not row.get("query_id"):
            line = text.count("\n", 0, start) + 1
            raise TrecFormatError(f"{name}, line {line}: a <top> topic without a <num> (its query id); add '<num> Number: ...'.")
        row.setdefault("text", row.get("description", ""))
        rows.append(row)
    return rows


def _tsv_topics(name: str, text: str, comments: bool) -> list[dict]:
    lines = text.split("\n")
    skipped = comment_lines(text) if comments else []
    comment_set = set(skipped)
    rows = []
    for index, line in enumerate(lines):
        if not line.strip() or index in comment_set:
            continue
        parts = line.split("\t", 1)
        if len(parts) != 2:
            raise TrecFormatError(f"{name}, line {index + 1}: expected 'query_id<TAB>text', found {line.strip()!r}.")
        rows.append({"query_id": parts[0].strip(), "text": parts[1].strip()})
    if skipped and rows:
        warn_comments(name, len(skipped), skipped[0] + 1, lines[skipped[0]])
    return rows


def read_topics(path, *, comments: bool = True) -> pd.DataFrame:
    """Read query texts: TREC topic XML, classic TREC (SGML) topics, or a two-column TSV.

    Parameters
    ----------
    path : str or path-like
        The topic file, plain or compressed (gzip, bzip2, xz), in one of three forms:

        * XML with ``<topic number="1">`` (or ``<num>``) elements holding ``<query>``
          or ``<title>``, and optionally ``<question>``, ``<desc>``, ``<narr>``;
        * classic TREC topics, ``<top> <num> Number: 301 <title> ... <desc>
          Description: ... <narr> Narrative: ... </top>`` (SGML, not well-formed XML);
        * ``query_id<TAB>text`` lines (blank lines and ``#`` comments skipped as in
          :func:`read_run`; ``comments=False`` reads them as data).

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str) and ``text`` (str: the query or title, whitespace
        collapsed; a topic without a title gets its description), plus ``question``,
        ``description`` and ``narrative`` when the file has them. Labels that TREC
        topics start a field with (``Number:``, ``Topic:``, ``Description:``,
        ``Narrative:``) are dropped: ``<num> Number: 301`` gives the id ``'301'``.

    Raises
    ------
    TrecFormatError
        For XML that is not well formed (and has no ``<top>`` topics), a topic
        without a query id, or a TSV line without a tab, naming the file and line.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "topics.301")
    >>> _ = open(path, "w").write("<top>\\n<num> Number: 301\\n<title> Organized Crime & Drugs\\n"
    ...                           "<desc> Description:\\nWhich groups?\\n</top>\\n")
    >>> rankviz.read_topics(path)
      query_id                     text    description
    0      301  Organized Crime & Drugs  Which groups?
    """
    name, text = read_text(path)
    if re.search(r"<\s*top\s*>", text, flags=re.IGNORECASE):
        rows = _sgml_topics(name, text)
    elif text.lstrip().startswith("<"):
        rows = _xml_topics(name, text)
    else:
        rows = _tsv_topics(name, text, comments)
    frame = pd.DataFrame([[row.get(c, "") for c in _TOPIC_COLUMNS] for row in rows], columns=_TOPIC_COLUMNS, dtype=object)
    if frame.empty:
        raise TrecFormatError(f"{name}: the file has no topics (expected TREC topic XML, <top> topics or 'query_id<TAB>text' lines).")
    extra = [c for c in _TOPIC_COLUMNS[2:] if not frame[c].str.len().any()]
    return frame.drop(columns=extra).astype("str")


def _check_writable_ids(query_ids: pd.Series, doc_ids: pd.Series) -> None:
    """Refuse ids that would not read back as written: empty, with whitespace, or a query id starting with '#'."""
    for label, ids in (("query", query_ids), ("doc", doc_ids)):
        bad = ids.str.contains(r"\s", regex=True) | (ids.str.len() == 0)
        if bad.any():
            raise InputError(f"A {label} id is empty or contains whitespace, which TREC files cannot hold: {ids[bad].iloc[0]!r}.")
    comment = query_ids.str.startswith("#")
    if comment.any():
        raise InputError(
            f"A query id starts with '#', which trec_eval 10 and read_run read as a comment line: "
            f"{query_ids[comment].iloc[0]!r}. Rename it."
        )


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
    _check_writable_ids(qid, did)
    if cols.score is not None:
        key = -pd.to_numeric(frame[cols.score]).to_numpy(dtype=np.float64)
        score = frame[cols.score].to_numpy(dtype=np.float64)
    else:
        key = pd.to_numeric(frame[cols.rank]).to_numpy(dtype=np.float64)
        score = -key
    if not np.isfinite(score).all():
        bad = score[~np.isfinite(score)][0]
        raise InputError(f"write_run: every score must be a finite number (read_run refuses others). Got {bad!r}.")
    order = pd.DataFrame({"q": qid.to_numpy(dtype=object), "k": key, "d": did.to_numpy(dtype=object)})
    order = order.sort_values(["q", "k", "d"], ascending=[True, True, False], kind="mergesort")
    ranks = order.groupby("q", sort=False).cumcount() + 1
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for q, d, r, s in zip(order["q"], order["d"], ranks, score[order.index.to_numpy()]):
            handle.write(f"{q} Q0 {d} {r} {float(s)!r} {tag}\n")


def write_qrels(qrels: pd.DataFrame, path, *, columns=None) -> None:
    """Write qrels as a TREC qrels file (``query_id 0 doc_id relevance``); ``columns`` as for :func:`write_run`."""
    q = resolve_qrels(qrels, Columns.of(columns, "write_qrels"))
    _check_writable_ids(pd.Series(q.query_ids, dtype="str"), pd.Series(q.doc_ids, dtype="str"))
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
    in the dict's order. A score that is not a real number is refused, naming its
    query and document.
    """
    if not isinstance(run, Mapping):
        raise InputError(f"run_from_dict expects a mapping {{query_id: {{doc_id: score}}}}. Got {type(run).__name__}.")
    qids, dids, scores = [], [], []
    for qid, docs in run.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"run_from_dict: the value for query {qid!r} must be a mapping {{doc_id: score}}.")
        for did, score in docs.items():
            if not isinstance(score, numbers.Real):
                raise InputError(f"run_from_dict: the score of ({qid!r}, {did!r}) must be a number. Got {score!r}.")
            qids.append(str(qid))
            dids.append(str(did))
            scores.append(float(score))
    frame = pd.DataFrame({"query_id": pd.array(qids, dtype="str"), "doc_id": pd.array(dids, dtype="str"), "score": np.asarray(scores, dtype=np.float64)})
    if system is not None:
        frame["system"] = pd.array([system] * len(frame), dtype="str")
    return frame


def _grade(value, qid, did) -> int:
    """A dict's grade as an exact int: an integer, or an integral float, of magnitude at most 2**53."""
    exact = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()
    )
    if not exact or abs(int(value)) > MAX_EXACT:
        raise InputError(
            f"qrels_from_dict: relevance grades must be integers within +-2**53; the grade of ({qid!r}, {did!r}) "
            f"is {value!r}."
        )
    return int(value)


def qrels_from_dict(qrels: Mapping[str, Mapping[str, int]]) -> pd.DataFrame:
    """Build a qrels frame (``query_id``, ``doc_id``, ``relevance``) from ``{query_id: {doc_id: grade}}``.

    Grades must be integers (or integral floats) of magnitude at most 2**53.
    """
    if not isinstance(qrels, Mapping):
        raise InputError(f"qrels_from_dict expects a mapping {{query_id: {{doc_id: grade}}}}. Got {type(qrels).__name__}.")
    rows = []
    for q, docs in qrels.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"qrels_from_dict: the value for query {q!r} must be a mapping {{doc_id: grade}}.")
        rows.extend((str(q), str(d), _grade(g, q, d)) for d, g in docs.items())
    return pd.DataFrame(
        {
            "query_id": pd.array([r[0] for r in rows], dtype="str"),
            "doc_id": pd.array([r[1] for r in rows], dtype="str"),
            "relevance": np.asarray([r[2] for r in rows], dtype=np.int64),
        }
    )
