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
