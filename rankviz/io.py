"""Reading and writing TREC run, qrels and topic files, run parquet files, and dict-of-dicts interop.

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

Two readers give the same frames: a fast one (:mod:`rankviz._trec_fast`, pyarrow's
CSV parser in blocks) for files written the usual way, and the validating one
(:mod:`rankviz._trec_text`) for every other file and for any file in which the fast
one finds a problem, so errors always name the file, the line and what was expected.
A run saved with ``write_run(..., format="parquet")`` is read back by
:func:`read_run` (recognised by its magic bytes); topic files are read by
:mod:`rankviz._topics`.
"""

from __future__ import annotations

import glob
import math
import numbers
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ._columns import Columns
from ._errors import DuplicateError, InputError
from ._frame import MAX_EXACT, resolve_long_run, resolve_qrels
from ._label_file import is_sqlite_file, read_store_qrels
from ._run_table import (
    RunParts,
    is_parquet,
    parts_from_fields,
    parts_from_parsed,
    read_parquet_run,
    run_frame,
    string_series,
    write_parquet_run,
)
from ._topics import read_topics
from ._trec_fast import QRELS_COLUMNS, RUN_COLUMNS, read_fast
from ._trec_text import decimals, display_name, integers, read_text, split_fields

__all__ = [
    "read_run",
    "read_runs",
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


def _run_parts(path, system: str | None, comments: bool) -> RunParts:
    """One run file's columns: parquet, or TREC text through the fast reader, else the validating one."""
    name = display_name(path)
    if is_parquet(path):
        return read_parquet_run(name, path, system)
    parts = parts_from_parsed(name, read_fast(path, RUN_COLUMNS), system)
    if parts is not None:
        return parts
    name, text = read_text(path)
    fields = split_fields(name, text, 6, what="run", expected=_RUN_FIELDS, extra=True, comments=comments)
    score = decimals(fields, 4, "score (5th)")
    rank = integers(fields, 3, "rank (4th)")
    fields.warn_skipped()
    return parts_from_fields(name, fields.columns[0], fields.columns[2], rank, score, fields.columns[5], system)


def read_run(path, *, system: str | None = None, comments: bool = True) -> pd.DataFrame:
    """Read a TREC run file, or a run saved as parquet by :func:`write_run`.

    Parameters
    ----------
    path : str or path-like
        A file of ``query_id Q0 doc_id rank score tag`` lines, plain or compressed
        (gzip, bzip2, xz: recognised by their first bytes, whatever the file's name),
        or a parquet file written by ``write_run(..., format="parquet")`` (also
        recognised by its first bytes).
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
        ``score`` (float64) and ``system`` (categorical of str, the tags sorted),
        in file order.

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
    ColumnError
        For a parquet file without the columns ``query_id``, ``doc_id``, ``rank``,
        ``score`` and ``system`` (``system`` is not needed when ``system=`` is
        given), or with missing values, non-finite scores or ranks beyond 2**53 in them.

    See Also
    --------
    read_runs : many run files into one frame.
    write_run : write a run as a TREC file or as parquet.

    Notes
    -----
    Like trec_eval, evaluation orders documents by ``score`` (descending, ties by
    doc id descending); the ``rank`` field is kept but not trusted.

    A file written the usual way (single spaces between fields, LF or CRLF line
    ends, plain integer ranks, no comment lines) is parsed by pyarrow in blocks, in
    parallel and without holding its text in memory; any other file, and any file
    with a problem, is read by the validating reader, which gives the same frame or
    names the line at fault (see :mod:`rankviz._trec_fast`).

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
    return run_frame([_run_parts(path, system, comments)])


_GLOB_CHARACTERS = re.compile(r"[*?[]")


def _run_paths(paths) -> list:
    """The files a read_runs argument names: a glob pattern, a folder (its files), one path or a list of paths."""
    if isinstance(paths, (str, os.PathLike)):
        text = os.fsdecode(paths)
        if _GLOB_CHARACTERS.search(text) and not os.path.exists(text):
            found = [p for p in sorted(glob.glob(text)) if not os.path.isdir(p)]
            if not found:
                raise FileNotFoundError(f"read_runs: no file matches {text!r} (relative to {os.getcwd()}).")
            return found
        if os.path.isdir(text):
            found = sorted(p for p in Path(text).iterdir() if p.is_file() and not p.name.startswith("."))
            if not found:
                raise FileNotFoundError(f"read_runs: the folder {text!r} has no files.")
            return found
        return [paths]
    try:
        listed = list(paths)
    except TypeError:
        raise InputError(f"read_runs expects a glob pattern, a folder, or a list of paths. Got {type(paths).__name__}.") from None
    if not listed:
        raise InputError("read_runs: the list of paths is empty.")
    missing = [display_name(p) for p in listed if not os.path.exists(p)]
    if missing:
        raise FileNotFoundError(f"read_runs: no such file: {', '.join(missing[:5])}" + (f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""))
    return listed


def read_runs(paths, *, system_from: str = "tag", comments: bool = True) -> pd.DataFrame:
    """Read many run files into one frame, one system per run (the "all submissions in a folder" case).

    Parameters
    ----------
    paths : str, path-like or list of them
        A glob pattern (``"runs/*.txt"``, ``"runs/**/*.gz"`` does not recurse), a
        folder (every file in it but hidden ones, sorted by name), or a list of paths.
        Each file is read as by :func:`read_run`: TREC text, plain or compressed, or
        parquet.
    system_from : {'tag', 'file'}, default 'tag'
        Name each run's rows by its tag (the sixth field), or by the file's name
        without its directory (``runs/bm25.txt.gz`` -> ``'bm25.txt.gz'``).
    comments : bool, default True
        As for :func:`read_run`.

    Returns
    -------
    DataFrame
        The columns of :func:`read_run`, the files' rows one after the other in
        the order of ``paths``; ``system`` is categorical (the names sorted).

    Raises
    ------
    FileNotFoundError
        For a pattern that matches no file, an empty folder, or a listed path that
        does not exist (all are checked before any file is read).
    InputError
        When two files give the same system name (two runs with one tag: read them
        with ``system_from='file'``), for an empty list, or an unknown ``system_from``.
    TrecFormatError, ColumnError
        As for :func:`read_run`, naming the file at fault.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> for tag in ("bm25", "dense"):
    ...     _ = open(os.path.join(folder, tag + ".txt"), "w").write(f"q1 Q0 d1 1 2.5 {tag}\\n")
    >>> runs = rankviz.read_runs(os.path.join(folder, "*.txt"))
    >>> runs["system"].tolist(), runs["system"].dtype.name
    (['bm25', 'dense'], 'category')
    """
    if system_from not in ("tag", "file"):
        raise InputError(f"The 'system_from' parameter of read_runs must be 'tag' or 'file'. Got {system_from!r} instead.")
    files = _run_paths(paths)
    parts, owner = [], {}
    for path in files:
        name = display_name(path)
        part = _run_parts(path, os.path.basename(name) if system_from == "file" else None, comments)
        for tag in part.tags:
            if tag in owner:
                raise InputError(
                    f"read_runs: the runs {owner[tag]} and {name} both name their rows {tag!r}, which would merge them "
                    "into one system. Read them with system_from='file' (each file's name), or rename a tag."
                )
            owner[tag] = name
        parts.append(part)
    return run_frame(parts)


def read_qrels(path, *, comments: bool = True, annotator=None, resolve: str = "latest") -> pd.DataFrame:
    """Read a TREC qrels file (or a label store).

    Parameters
    ----------
    path : str or path-like
        A file of ``query_id iteration doc_id relevance`` lines (any whitespace),
        plain or compressed (gzip, bzip2, xz); or a label store
        (:class:`rankviz.labels.LabelStore`, recognised by its first 16 bytes).
    comments : bool, default True
        Skip lines starting with ``#`` (with one warning), or read them as data; as
        for :func:`read_run`.
    annotator : str or list of str, optional
        A label store only: whose judgements (default: every annotator's).
    resolve : {'latest', 'majority', 'mean'}, default 'latest'
        A label store only: how several annotators' grades of one pair become one
        (see :meth:`rankviz.labels.LabelStore.to_qrels`).

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
    if is_sqlite_file(path):  # a label store; any other SQLite file is refused there, untouched
        return read_store_qrels(path, annotator=annotator, resolve=resolve)
    if annotator is not None or resolve != "latest":
        raise InputError(
            f"read_qrels: annotator= and resolve= apply to a label store (rankviz.labels.LabelStore); "
            f"{display_name(path)} is a TREC qrels file. Leave them out."
        )
    parsed = read_fast(path, QRELS_COLUMNS)
    if parsed is not None:
        columns = {c: string_series(parsed.strings[c]) for c in ("query_id", "iteration", "doc_id")}
        columns["relevance"] = parsed.numbers["relevance"]
        return pd.DataFrame(columns, copy=False)
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


def _run_tag(frame: pd.DataFrame, system: str | None, tag: str | None) -> str:
    """The sixth field: ``tag``, else the frame's one system name, else 'rankviz'."""
    if system is not None:
        systems = [str(s) for s in pd.unique(frame[system])]
        if len(systems) > 1:
            raise InputError(
                f"write_run writes one system per file; this frame holds {len(systems)} "
                f"({', '.join(systems[:5])}). Select one, e.g. run[run.{system} == {systems[0]!r}]."
            )
        if tag is None and systems:
            tag = systems[0]
    tag = tag or "rankviz"
    if any(ch.isspace() for ch in tag):
        raise InputError(f"The run tag must not contain whitespace. Got {tag!r}.")
    return tag


def _write_parquet_replacing(path, *columns) -> None:
    """Write to a temporary file beside ``path`` and move it into place: a failed write leaves ``path`` as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".write_run-", suffix=".parquet", dir=folder)
    os.close(handle)
    try:
        write_parquet_run(temporary, *columns)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_run(run: pd.DataFrame, path, *, tag: str | None = None, columns=None, format: str | None = None) -> None:
    """Write a run as a TREC run file (or as parquet), ranked the way trec_eval reads it.

    Parameters
    ----------
    run : DataFrame
        A long run (query id, doc id, score and/or rank; column names resolve as
        for :func:`rankviz.evaluate`). With a ``system`` column it must hold one
        system only.
    path : str or path-like
        The file to write; an existing file is replaced (as pandas' ``to_csv`` and
        ``to_parquet`` do). A parquet file is written beside it first and moved into
        place, so a failed write leaves the old file as it was.
    tag : str, optional
        The sixth field. Defaults to the system name, else ``"rankviz"``.
    columns : dict, optional
        Column names by role when the defaults and aliases do not find them:
        ``{'query': ..., 'doc': ..., 'score': ..., 'rank': ..., 'system': ...}``.
    format : {'trec', 'parquet'}, optional
        TREC text lines, or a parquet file of the columns :func:`read_run` returns
        (``query_id``, ``doc_id``, ``rank``, ``score``, ``system``), which
        :func:`read_run` reads back much faster. By default ``'parquet'`` when the
        path ends in ``.parquet`` or ``.pq``, else ``'trec'``.

    Notes
    -----
    Lines are sorted by query id and by trec_eval's order (score descending, ties
    by doc id descending); the rank field is rewritten to match. Scores are
    written with Python's shortest round-trip representation. Both formats hold
    the same rows: ``read_run`` gives the same frame from either.
    """
    if format is None:
        format = "parquet" if os.fspath(path).lower().endswith((".parquet", ".pq")) else "trec"
    if format not in ("trec", "parquet"):
        raise InputError(f"The 'format' parameter of write_run must be 'trec' or 'parquet'. Got {format!r} instead.")
    cols = resolve_long_run(run, Columns.of(columns, "write_run"), need_doc=True)
    frame = cols.frame
    tag = _run_tag(frame, cols.system, tag)
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
    order, ranks = _trec_order(qid, key, did)
    q_sorted, d_sorted = (pc.take(pa.array(ids, from_pandas=True), pa.array(order)) for ids in (qid, did))
    if format == "parquet":
        _write_parquet_replacing(path, q_sorted, d_sorted, ranks, score[order], tag)
        return
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for q, d, r, s in zip(q_sorted.to_pylist(), d_sorted.to_pylist(), ranks.tolist(), score[order].tolist()):
            handle.write(f"{q} Q0 {d} {r} {s!r} {tag}\n")


def _trec_order(qid: pd.Series, key: np.ndarray, did: pd.Series) -> tuple[np.ndarray, np.ndarray]:
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
