"""Writing runs (TREC text or parquet) and qrels, in trec_eval's order, never half a file."""

from __future__ import annotations

import json
import os
import tempfile

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._core.columns import Columns
from .._core.long_run import resolve_long_run, resolve_qrels
from .._errors import InputError
from .msmarco import write_msmarco_qrels, write_msmarco_run
from .run_frame import check_writable_ids, trec_order, write_parquet_run

__all__ = ["write_run", "write_qrels", "write_jsonl"]


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
    format : {'trec', 'parquet', 'msmarco', 'jsonl'}, optional
        TREC text lines, or a parquet file of the columns :func:`read_run` returns
        (``query_id``, ``doc_id``, ``rank``, ``score``, ``system``), which
        :func:`read_run` reads back much faster; MS MARCO's ``qid<TAB>pid<TAB>rank``
        lines (no scores: :mod:`rankviz.io.msmarco`); or one JSON line per query
        (``{"query_id": ..., "retrieved": [...], "scores": [...]}``, read back by
        :func:`rankviz.read_jsonl`). By default ``'parquet'`` when the path ends in
        ``.parquet`` or ``.pq``, ``'jsonl'`` for ``.jsonl``, else ``'trec'``.

    Notes
    -----
    Lines are sorted by query id and by trec_eval's order (score descending, ties
    by doc id descending); the rank field is rewritten to match. Scores are
    written with Python's shortest round-trip representation. Both formats hold
    the same rows: ``read_run`` gives the same frame from either.
    """
    if format is None:
        lower = os.fspath(path).lower()
        format = "parquet" if lower.endswith((".parquet", ".pq")) else "jsonl" if lower.endswith(".jsonl") else "trec"
    if format not in ("trec", "parquet", "msmarco", "jsonl"):
        raise InputError(
            f"The 'format' parameter of write_run must be 'trec', 'parquet', 'msmarco' or 'jsonl'. Got {format!r} instead."
        )
    if format == "msmarco":
        return write_msmarco_run(run, path, columns=columns)
    if format == "jsonl":
        return write_jsonl(run, path, columns=columns)
    cols = resolve_long_run(run, Columns.of(columns, "write_run"), need_doc=True)
    frame = cols.frame
    tag = _run_tag(frame, cols.system, tag)
    qid = frame[cols.query].astype("str")
    did = frame[cols.doc].astype("str")
    check_writable_ids(qid, did)
    if cols.score is not None:
        key = -pd.to_numeric(frame[cols.score]).to_numpy(dtype=np.float64)
        score = frame[cols.score].to_numpy(dtype=np.float64)
    else:
        key = pd.to_numeric(frame[cols.rank]).to_numpy(dtype=np.float64)
        score = -key
    if not np.isfinite(score).all():
        bad = score[~np.isfinite(score)][0]
        raise InputError(f"write_run: every score must be a finite number (read_run refuses others). Got {bad!r}.")
    order, ranks = trec_order(qid, key, did)
    q_sorted, d_sorted = (pc.take(pa.array(ids, from_pandas=True), pa.array(order)) for ids in (qid, did))
    if format == "parquet":
        _write_parquet_replacing(path, q_sorted, d_sorted, ranks, score[order], tag)
        return
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for q, d, r, s in zip(q_sorted.to_pylist(), d_sorted.to_pylist(), ranks.tolist(), score[order].tolist()):
            handle.write(f"{q} Q0 {d} {r} {s!r} {tag}\n")


def write_qrels(qrels: pd.DataFrame, path, *, columns=None, format: str = "trec") -> None:
    """Write qrels as a TREC qrels file (``query_id 0 doc_id relevance``); ``columns`` as for :func:`write_run`.

    ``format='msmarco'`` separates the fields with tabs, as MS MARCO's qrels are.

    Parameters
    ----------
    qrels : DataFrame
        Relevance judgements: query id, doc id and an integer relevance grade
        (column names resolve as for :func:`rankviz.evaluate`).
    path : str or path-like
        The file to write; an existing file is replaced.
    columns : dict, optional
        Column names by role when the defaults and aliases do not find them:
        ``{'query': ..., 'doc': ..., 'relevance': ...}``.
    format : {'trec', 'msmarco'}, default 'trec'
        Space-separated TREC lines, or MS MARCO's tab-separated ones.

    Returns
    -------
    None
        The file at ``path`` holds one line per judgement.

    Examples
    --------
    >>> import pandas as pd, rankviz, tempfile, os
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [2, 0]})
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> rankviz.write_qrels(qrels, path)
    >>> print(open(path).read(), end="")
    q1 0 a 2
    q1 0 b 0
    """
    if format not in ("trec", "msmarco"):
        raise InputError(f"The 'format' parameter of write_qrels must be 'trec' or 'msmarco'. Got {format!r} instead.")
    if format == "msmarco":
        return write_msmarco_qrels(qrels, path, columns=columns)
    q = resolve_qrels(qrels, Columns.of(columns, "write_qrels"))
    check_writable_ids(pd.Series(q.query_ids, dtype="str"), pd.Series(q.doc_ids, dtype="str"))
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for qid, did, rel in zip(q.query_ids, q.doc_ids, q.grades):
            handle.write(f"{qid} 0 {did} {int(rel)}\n")


def write_jsonl(run, path, *, qrels=None, queries=None, columns=None) -> None:
    """Write a run (and its qrels) as one JSON line per query, read back by :func:`read_jsonl`.

    Each line is ``{"query_id": ..., "retrieved": [...], "scores": [...]}``, queries sorted by
    id and each list in trec_eval's order (score descending, ties by doc id descending);
    with ``qrels``, ``"relevant": {doc_id: grade}`` (every judgement, so the qrels read
    back unchanged; a judged query the run does not retrieve gets ``"retrieved": []``);
    with ``queries`` (a frame or dict of texts), ``"text"``. One system per file.

    Parameters
    ----------
    run : DataFrame
        A long run of one system (query id, doc id, score and/or rank; column names
        resolve as for :func:`rankviz.evaluate`).
    path : str or path-like
        The file to write; an existing file is replaced.
    qrels : DataFrame, optional
        Relevance judgements written as each line's ``"relevant"``.
    queries : DataFrame or dict, optional
        Query texts, as a frame with ``query_id`` and ``text`` columns or a dict
        ``{query_id: text}``, written as each line's ``"text"``.
    columns : dict, optional
        Column names by role when the defaults and aliases do not find them:
        ``{'query': ..., 'doc': ..., 'score': ..., 'rank': ..., 'system': ...}``.

    Examples
    --------
    >>> import pandas as pd, rankviz, tempfile, os
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> path = os.path.join(tempfile.mkdtemp(), "run.jsonl")
    >>> rankviz.write_jsonl(run, path, queries={"q1": "cheap flights"})
    >>> print(open(path).read(), end="")
    {"query_id": "q1", "retrieved": ["a", "b"], "scores": [2.0, 1.0], "text": "cheap flights"}
    """
    cols = resolve_long_run(run, Columns.of(columns, "write_jsonl"), need_doc=True)
    frame = cols.frame
    if cols.system is not None and frame[cols.system].nunique() > 1:
        raise InputError("write_jsonl writes one system per file; select one system first.")
    qid, did = frame[cols.query].astype("str"), frame[cols.doc].astype("str")
    if cols.score is not None:
        score = frame[cols.score].to_numpy(dtype=np.float64)
        key = -score
    else:
        key = pd.to_numeric(frame[cols.rank]).to_numpy(dtype=np.float64)
        score = -key
    if not np.isfinite(score).all():
        raise InputError("write_jsonl: every score must be a finite number (JSON has no NaN or infinity).")
    order, _ = trec_order(qid, key, did)
    lists: dict[str, tuple[list, list]] = {}
    for q, d, s in zip(qid.to_numpy()[order].tolist(), did.to_numpy()[order].tolist(), score[order].tolist()):
        entry = lists.setdefault(q, ([], []))
        entry[0].append(d)
        entry[1].append(s)
    gold: dict[str, dict[str, int]] = {}
    if qrels is not None:
        judged = resolve_qrels(qrels, Columns.of(columns, "write_jsonl"))
        for q, d, g in zip(judged.query_ids, judged.doc_ids, judged.grades):
            gold.setdefault(str(q), {})[str(d)] = int(g)
    texts = _texts(queries)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for q in sorted(set(lists) | set(gold)):
            docs, scores = lists.get(q, ([], []))
            record: dict[str, object] = {"query_id": q, "retrieved": docs, "scores": scores}
            if qrels is not None and q in gold:
                record["relevant"] = gold[q]
            if q in texts:
                record["text"] = texts[q]
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _texts(queries) -> dict[str, str]:
    if queries is None:
        return {}
    if isinstance(queries, dict):
        return {str(k): str(v) for k, v in queries.items()}
    return dict(zip(queries["query_id"].astype("str"), queries["text"].astype("str")))
