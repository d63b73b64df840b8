"""Writing runs (TREC text or parquet) and qrels, in trec_eval's order, never half a file."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._core.columns import Columns
from .._core.long_run import resolve_long_run, resolve_qrels
from .._errors import InputError
from .run_frame import (
    write_parquet_run,
)

__all__ = ["write_run", "write_qrels"]


def _check_writable_ids(query_ids: pd.Series, doc_ids: pd.Series) -> None:
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
