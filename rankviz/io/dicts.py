"""Runs and qrels as dicts of dicts (pytrec_eval's and ranx's shape), both ways."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import cast

import numpy as np
import pandas as pd

from .._core.columns import Columns, check_key_cells
from .._core.long_run import MAX_EXACT, resolve_long_run, resolve_qrels
from .._errors import DuplicateError, InputError

__all__ = ["run_to_dict", "qrels_to_dict", "run_from_dict", "qrels_from_dict"]


def run_to_dict(
    run: pd.DataFrame, *, columns=None
) -> dict[str, dict[str, float]] | dict[str, dict[str, dict[str, float]]]:
    """Convert a long run to ``{query_id: {doc_id: score}}`` (pytrec_eval, ranx, ir_measures).

    With a ``system`` column, returns ``{system: {query_id: {doc_id: score}}}``.
    Duplicate (query, doc) rows are refused rather than silently collapsed.

    Parameters
    ----------
    run : DataFrame
        A long run: query id, doc id, and a score or a rank (a rank becomes the score
        ``-rank``), optionally a ``system`` column. Column names resolve as for
        :func:`rankviz.evaluate`.
    columns : dict, optional
        Column names by role when the defaults and aliases do not find them:
        ``{'query': ..., 'doc': ..., 'score': ..., 'rank': ..., 'system': ...}``.

    Returns
    -------
    dict
        ``{query_id: {doc_id: score}}`` with str ids and float scores, or
        ``{system: {query_id: {doc_id: score}}}`` when the run has a ``system`` column.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> rankviz.run_to_dict(run)
    {'q1': {'a': 2.0, 'b': 1.0}}
    """
    cols = resolve_long_run(run, Columns.of(columns, "run_to_dict"), need_doc=True)
    frame = cols.frame
    doc = cast(str, cols.doc)  # need_doc=True: resolve_long_run raised when there is no doc column
    for name, role in ((cols.query, "query"), (doc, "doc"), (cols.system, "system")):
        if name is not None:  # a missing id would become the key 'nan'
            check_key_cells(frame, name, role, "run")
    if cols.score is not None:
        score = pd.to_numeric(frame[cols.score]).to_numpy(dtype=np.float64)
    else:
        score = -pd.to_numeric(frame[cols.rank]).to_numpy(dtype=np.float64)
    keys = [cols.query, doc] if cols.system is None else [cols.system, cols.query, doc]
    dup = frame.duplicated(subset=keys)
    if dup.any():
        row = frame.loc[dup].iloc[0]
        raise DuplicateError(
            f"run_to_dict: the (query, doc) pair ({row[cols.query]!r}, {row[doc]!r}) appears more than once; "
            "a dict can hold one score per pair."
        )

    def nest(qids, dids, scores):
        out: dict[str, dict[str, float]] = {}
        for q, d, s in zip(qids, dids, scores):
            out.setdefault(str(q), {})[str(d)] = float(s)
        return out

    qids = frame[cols.query].astype("str").to_numpy(dtype=object)
    dids = frame[doc].astype("str").to_numpy(dtype=object)
    if cols.system is None:
        return nest(qids, dids, score)
    systems = frame[cols.system].astype("str").to_numpy(dtype=object)
    result: dict[str, dict[str, dict[str, float]]] = {}
    for name in pd.unique(systems):
        mask = systems == name
        result[str(name)] = nest(qids[mask], dids[mask], score[mask])
    return result


def qrels_to_dict(qrels: pd.DataFrame, *, columns=None) -> dict[str, dict[str, int]]:
    """Convert qrels to ``{query_id: {doc_id: relevance}}`` with Python ints (as pytrec_eval requires).

    Parameters
    ----------
    qrels : DataFrame
        Relevance judgements: query id, doc id and an integer relevance grade
        (column names resolve as for :func:`rankviz.evaluate`).
    columns : dict, optional
        Column names by role when the defaults and aliases do not find them:
        ``{'query': ..., 'doc': ..., 'relevance': ...}``.

    Returns
    -------
    dict
        ``{query_id: {doc_id: grade}}`` with str ids and int grades, every judgement
        kept (non-relevant ones included).

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [2, 0]})
    >>> rankviz.qrels_to_dict(qrels)
    {'q1': {'a': 2, 'b': 0}}
    """
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

    Parameters
    ----------
    run : mapping
        ``{query_id: {doc_id: score}}`` (pytrec_eval's and ranx's shape); ids are
        turned into strings, scores must be real numbers.
    system : str, optional
        A system name written into a ``system`` column on every row.

    Returns
    -------
    DataFrame
        One row per (query, doc) pair: ``query_id``, ``doc_id`` (str), ``score``
        (float64) and, when ``system`` is given, ``system``.

    Examples
    --------
    >>> import rankviz
    >>> rankviz.run_from_dict({"q1": {"a": 2.0, "b": 1.0}}, system="bm25")
      query_id doc_id  score system
    0       q1      a    2.0   bm25
    1       q1      b    1.0   bm25
    """
    if not isinstance(run, Mapping):
        raise InputError(f"run_from_dict expects a mapping {{query_id: {{doc_id: score}}}}. Got {type(run).__name__}.")
    qids: list[str] = []
    dids: list[str] = []
    scores: list[float] = []
    for qid, docs in run.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"run_from_dict: the value for query {qid!r} must be a mapping {{doc_id: score}}.")
        for did, score in docs.items():
            if not isinstance(score, numbers.Real):
                raise InputError(f"run_from_dict: the score of ({qid!r}, {did!r}) must be a number. Got {score!r}.")
            qids.append(str(qid))
            dids.append(str(did))
            scores.append(float(score))
    frame = pd.DataFrame(
        {
            "query_id": pd.array(qids, dtype="str"),
            "doc_id": pd.array(dids, dtype="str"),
            "score": np.asarray(scores, dtype=np.float64),
        }
    )
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

    Parameters
    ----------
    qrels : mapping
        ``{query_id: {doc_id: grade}}``; ids are turned into strings.

    Returns
    -------
    DataFrame
        One row per judgement: ``query_id``, ``doc_id`` (str) and ``relevance`` (int64).

    Examples
    --------
    >>> import rankviz
    >>> rankviz.qrels_from_dict({"q1": {"a": 2, "b": 0}})
      query_id doc_id  relevance
    0       q1      a          2
    1       q1      b          0
    """
    if not isinstance(qrels, Mapping):
        raise InputError(
            f"qrels_from_dict expects a mapping {{query_id: {{doc_id: grade}}}}. Got {type(qrels).__name__}."
        )
    rows: list[tuple[str, str, int]] = []
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
