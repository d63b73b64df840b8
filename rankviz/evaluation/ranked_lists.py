"""One query's ranked list, as the measures see it: the same rows, order, depth, ties and duplicates.

:func:`ranked_list` reads the run with the pipeline's own readers (:func:`run_arrays`), judges the query's
rows with the pipeline's own judging (so a duplicate document, an unknown system or a bad option gives
exactly the error ``mrr`` gives), and orders the rows as trec_eval does (score descending, doc id
descending in byte order), vectorised. ``tests/evaluation/test_ranked_lists.py`` checks that the first relevant rank of
every list gives ``evaluate``'s RR per query under every option.
"""

from __future__ import annotations

import dataclasses
import difflib
import warnings
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.input_shapes import run_arrays
from .._core.judged import judge_arrays
from .._core.long_run import MISSING_DOC, QrelsArrays, RunArrays
from .._core.options import EVAL, EvalKeywords, EvalOptions, with_options
from .._errors import InputError, UnmatchedIdsWarning
from .pipeline import read_judgements, read_run_input

__all__ = ["ranked_list", "ranked_list_of"]


@with_options(EVAL)
def ranked_list(
    options: EvalOptions, run, query, qrels=None, *, system=None, documents=None, **_: Unpack[EvalKeywords]
) -> pd.DataFrame:
    """One query's ranked list in trec_eval order, joined with its judgements.

    The list is the one every measure sees under the same options: cut to ``depth`` (after the
    tie mode has ordered the tie groups; under ``judged_only`` before the unjudged rows leave), with
    ``duplicates="first"`` keeping a document's best-ranked row (and the default refusing a
    repeated document, as :func:`rankviz.mrr` does), unjudged rows dropped under
    ``judged_only=True``, and tied scores ordered by ``ties``: ``"trec_eval"`` (and
    ``"expected"``, whose measures average over the orders of a tie group) keep trec_eval's
    order, ``"optimistic"`` puts a tie group's relevant documents first and ``"pessimistic"``
    last.

    Parameters
    ----------
    run : DataFrame or dict
        Any input shape.
    query : str
        The query id (a value; the query-id *column* is named with ``columns={'query': ...}``).
    qrels : DataFrame, path or dict, optional
    system : str, optional
        Which system: required when the run has several; a run of one system (a file read
        with :func:`rankviz.read_run`, whose ``system`` column holds its tag) is that system.
    documents : DataFrame, optional
        ``doc_id`` and ``text`` (and optionally ``title``) columns; adds them to the list.

    Returns
    -------
    DataFrame
        ``rank`` (1-based), ``doc_id``, ``score`` (when ranked by score), ``relevance``
        (nullable Int64, missing = unjudged), ``relevant`` (bool: grade >= ``rel``), ``tied``
        (how many rows of the list share the row's score, itself included), plus document
        columns. A judged query the system retrieved nothing for gives an empty list.

    Raises
    ------
    InputError
        For a query that is neither in the run nor in the qrels (with the closest ids), or a
        system the run does not have.
    DuplicateError
        When the query's list holds a document twice (``duplicates="first"`` keeps the first).

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 2.0]})
    >>> qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["b"], "relevance": [1]})
    >>> rankviz.ranked_list(run, "q1", qrels)["doc_id"].tolist()
    ['a', 'c', 'b']
    >>> rankviz.ranked_list(run, "q1", qrels, ties="optimistic", depth=2)["doc_id"].tolist()
    ['a', 'b']
    """
    return ranked_list_of(run, query, qrels, options, system=system, documents=documents)


def ranked_list_of(run, query, qrels, options: EvalOptions, *, system=None, documents=None) -> pd.DataFrame:
    """:func:`ranked_list` with the options already validated (what the explorer's lists call)."""
    rel = 1 if options.rel is None else options.rel
    judgements = read_judgements(qrels)
    arrays, judged = run_arrays(
        read_run_input(run),
        judgements,
        caller="ranked_list",
        columns=options.columns,
        order=options.order,
        score_dtype=options.score_dtype,
    )
    query = str(query)
    rows = _rows_of(arrays, query, system, judged)
    sub, sub_judged = _one_list(arrays, judged, rows, query)
    # The pipeline's own judging of these rows: the same duplicate check and message as every measure. Whether
    # the run's and the qrels' ids match at all is said by the evaluation of the run, not once per list shown.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedIdsWarning)
        judge_arrays(sub, sub_judged, options, rel_min=min(rel, 0), caller="ranked_list")
    docs = np.asarray(sub.docs.to_pylist(), dtype=object)
    grades = _grades(sub, sub_judged, docs)
    keep = _first_copies(docs, sub.key) if options.duplicates == "first" else np.arange(len(docs))
    docs, key, grades = docs[keep], sub.key[keep], grades[keep]
    order = _trec_order(docs, key)
    reorder = options.ties in ("optimistic", "pessimistic")
    if options.judged_only:
        # trec_eval -M then -J: cut in trec_eval's order, then unjudged rows (NaN) and negative grades (pooled,
        # unjudged) leave and the rest close ranks; a tie mode then orders the condensed list's tie groups.
        order = order[: options.depth]
        with np.errstate(invalid="ignore"):
            order = order[grades[order] >= 0]
    if reorder:
        order = _ties_reordered(order, key, grades, rel, optimistic=options.ties == "optimistic")
    if not options.judged_only:  # the cut comes after the tie mode: a relevant row tied across it may come in
        order = order[: options.depth]
    return _table(docs[order], key[order], grades[order], rel, arrays.ordered_by == "score", documents)


def _rows_of(arrays: RunArrays, query: str, system, judged: QrelsArrays | None) -> np.ndarray:
    """Row positions of one query (of one system) in the run arrays; an unknown query or system is an error."""
    if arrays.systems is not None:
        if system is None and len(arrays.systems) == 1:  # read_run's one system: chosen by default
            system = arrays.systems[0]
        if system is None:
            raise InputError(
                f"ranked_list: the run holds {len(arrays.systems)} systems; choose one with system=, "
                f"e.g. system={arrays.systems[0]!r}."
            )
        if str(system) not in arrays.systems:
            raise InputError(
                f"ranked_list: unknown system {system!r}; the run has {', '.join(map(repr, arrays.systems))}."
            )
    codes = np.flatnonzero(arrays.q_values == query)
    if not len(codes):
        known = list(arrays.q_values) + ([] if judged is None else list(judged.queries()))
        if query not in known:
            raise InputError(f"ranked_list: the run has no query {query!r}{_did_you_mean(query, known)}")
        return np.zeros(0, dtype=np.int64)  # judged, but not retrieved: an empty list (every measure is 0)
    mask = arrays.q_codes == codes[0]
    if arrays.systems is not None and arrays.sys_codes is not None:  # None: one system, every row
        mask &= arrays.sys_codes == arrays.systems.index(str(system))
    return np.flatnonzero(mask)


def _did_you_mean(query: str, known: list) -> str:
    folded = {str(k).strip().casefold(): k for k in known}
    close = [folded[query.strip().casefold()]] if query.strip().casefold() in folded else []
    close += [k for k in difflib.get_close_matches(query, [str(k) for k in known], n=3) if k not in close]
    if close:
        return "; did you mean " + " or ".join(repr(c) for c in close[:3]) + "?"
    return f"; its queries are {', '.join(repr(k) for k in known[:3])}{', ...' if len(known) > 3 else ''}."


def _one_list(arrays: RunArrays, judged: QrelsArrays | None, rows: np.ndarray, query: str):
    """The run arrays of one list (one system, one query) and that query's judgements."""
    sub = dataclasses.replace(
        arrays,
        systems=None,
        sys_codes=None,
        q_codes=np.zeros(len(rows), dtype=np.int32),
        q_values=np.asarray([query], dtype=object),
        docs=arrays.docs.take(rows),
        key=arrays.key[rows],
        grade=None if arrays.grade is None else arrays.grade[rows],
        row_index=None,
        query_order=None,
    )
    if judged is None:
        return sub, None
    own = judged.query_ids == query
    return sub, dataclasses.replace(
        judged,
        query_ids=judged.query_ids[own],
        doc_ids=judged.doc_ids[own],
        grades=judged.grades[own],
        query_order=None,
    )


def _grades(sub: RunArrays, judged: QrelsArrays | None, docs: np.ndarray) -> np.ndarray:
    """Each row's grade as float (NaN: unjudged)."""
    if judged is None:
        return np.full(len(docs), np.nan) if sub.grade is None else sub.grade.astype(float)
    index = pd.Index(judged.doc_ids)
    where = index.get_indexer(docs)
    return np.where(where >= 0, judged.grades[np.maximum(where, 0)].astype(float), np.nan)


def _trec_order(docs: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Positions in trec_eval order: key descending, then doc id descending (code points order as UTF-8 bytes)."""
    _, doc_rank = np.unique(docs, return_inverse=True)  # objects: a str dtype would drop a trailing NUL
    return np.lexsort((-doc_rank, -key))


def _first_copies(docs: np.ndarray, key: np.ndarray) -> np.ndarray:
    """``duplicates="first"``: each document's best-ranked row (as the pipeline keeps it)."""
    order = _trec_order(docs, key)
    _, first = np.unique(docs[order], return_index=True)
    return np.sort(order[first])


def _ties_reordered(order: np.ndarray, key: np.ndarray, grades: np.ndarray, rel: int, *, optimistic: bool):
    """Within each group of equal keys, the relevant rows first (optimistic) or last (pessimistic)."""
    if len(order) < 2:
        return order
    k = key[order]
    group = np.cumsum(np.r_[True, k[1:] != k[:-1]])
    with np.errstate(invalid="ignore"):
        relevant = grades[order] >= rel
    second = ~relevant if optimistic else relevant
    return order[np.lexsort((np.arange(len(order)), second, group))]


def _table(docs, key, grades, rel, by_score: bool, documents) -> pd.DataFrame:
    shown = [None if d.startswith(MISSING_DOC) else d for d in docs.tolist()]  # an empty slot of a retrieved list
    table = pd.DataFrame({"rank": np.arange(1, len(docs) + 1), "doc_id": pd.array(shown, dtype="str")})
    if by_score:
        table["score"] = key
    table["relevance"] = pd.array([None if np.isnan(g) else int(g) for g in grades], dtype="Int64")
    with np.errstate(invalid="ignore"):
        table["relevant"] = grades >= rel
    _, group, sizes = np.unique(key, return_inverse=True, return_counts=True)
    table["tied"] = sizes[group].astype(np.int64) if len(key) else np.zeros(0, dtype=np.int64)
    if documents is not None:
        docs_frame = documents.drop_duplicates("doc_id").assign(doc_id=lambda d: d["doc_id"].astype("str"))
        table = table.merge(docs_frame, on="doc_id", how="left")
    return table
