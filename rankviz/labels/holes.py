"""The holes in the judgements, and what they could do to the measures.

:func:`holes` lists the unjudged (query, doc) pairs in each system's top ``k``,
most consequential first; :func:`bounds` evaluates every system as judged today,
with every hole judged non-relevant and with every hole judged at the highest
grade the qrels use, and, where it is exact, the lowest and highest value any
labelling of the holes could give.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._core.checks import check_cutoff, repeated_documents
from .._core.columns import Columns, find_column
from .._core.input_shapes import run_arrays
from .._core.long_run import MISSING_DOC, resolve_qrels
from .._errors import IdTypeWarning, InputError
from ..evaluation import evaluate
from ..io import qrels_from_dict, read_qrels
from ..measures import parse_measures

__all__ = ["holes", "bounds", "top_k"]

#: families whose value never falls when a document becomes relevant (only the system's own list counts)
_MONOTONE = ("P", "RR", "Success")


def _qrels_frame(qrels, caller: str) -> pd.DataFrame | None:
    if qrels is None or isinstance(qrels, pd.DataFrame):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels)
    if isinstance(qrels, Mapping):
        return qrels_from_dict(qrels)
    raise InputError(
        f"{caller}: qrels must be a DataFrame (query_id, doc_id, relevance), a path (TREC qrels or a label store) "
        f"or a {{query_id: {{doc_id: grade}}}} dict. Got {type(qrels).__name__} instead."
    )


#: stands for "nothing judged yet" (rankviz refuses empty qrels): one pair no run can hold
_NO_QRELS = pd.DataFrame({"query_id": ["\x00rankviz: none"], "doc_id": ["\x00rankviz: none"], "relevance": [0]})


def _has_relevance(run, columns, caller: str) -> bool:
    """Whether a long run carries its own relevance column (per-query lists and vectors always do)."""
    if not isinstance(run, pd.DataFrame):
        return True
    found = find_column(run, "relevance", Columns.of(columns, caller).relevance, required=False, what="run")
    retrieved = find_column(run, "retrieved", Columns.of(columns, caller).retrieved, required=False, what="run")
    return found is not None or retrieved is not None


def top_k(run, qrels, *, k: int, columns=None, caller: str = "holes") -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Each system's top ``k`` per query in trec_eval's order, with each row's grade in the qrels.

    Returns
    -------
    (DataFrame, DataFrame or None)
        ``system``, ``query_id``, ``doc_id``, ``rank`` (1-based), ``grade`` (float,
        NaN = unjudged); and the qrels as a frame (None when none were given).
    """
    qrels = _qrels_frame(qrels, caller)
    if qrels is not None and len(qrels) == 0:  # an empty label store: nothing judged yet
        qrels = None
    if qrels is None and _has_relevance(run, columns, caller):
        raise InputError(
            f"{caller}: the run carries its own relevance column, so every retrieved item is judged and there are no "
            "holes. Pass the judgements separately as qrels= (a frame, a TREC qrels file or a label store)."
        )
    with warnings.catch_warnings():
        if qrels is None:  # nothing judged yet: an empty frame of str ids, whatever the run's id types
            warnings.simplefilter("ignore", IdTypeWarning)
        given = _NO_QRELS if qrels is None else qrels
        arrays, judged = run_arrays(run, given, caller=caller, columns=Columns.of(columns, caller))
        judged = None if qrels is None else judged
    systems = arrays.systems or ("run",)
    sys_codes = arrays.sys_codes if arrays.sys_codes is not None else np.zeros(len(arrays.q_codes), dtype=np.int64)
    rows = pd.DataFrame(
        {
            "s": sys_codes, "q": arrays.q_codes, "key": arrays.key,
            "doc_id": np.asarray(arrays.docs.to_pylist(), dtype=object),
        }
    )  # fmt: skip
    rows = rows[~rows["doc_id"].str.startswith(MISSING_DOC)]
    _refuse_repeats(rows, arrays, caller)
    # trec_eval's order: score (or minus the rank) descending, ties by doc id descending
    rows = rows.sort_values(["s", "q", "key", "doc_id"], ascending=[True, True, False, False], kind="stable")
    rows["rank"] = rows.groupby(["s", "q"], sort=False).cumcount() + 1
    rows = rows[rows["rank"] <= k]
    table = pd.DataFrame(
        {
            "system": np.asarray(systems, dtype=object)[rows["s"].to_numpy()],
            "query_id": arrays.q_values[rows["q"].to_numpy()],
            "doc_id": rows["doc_id"].to_numpy(dtype=object),
            "rank": rows["rank"].to_numpy(dtype=np.int64),
        }
    )
    grades = (
        pd.Series(judged.grades, index=pd.MultiIndex.from_arrays([judged.query_ids, judged.doc_ids]))
        if judged
        else None
    )
    found = grades.reindex(pd.MultiIndex.from_frame(table[["query_id", "doc_id"]])) if grades is not None else None
    table["grade"] = np.full(len(table), np.nan) if found is None else found.to_numpy(dtype=float)
    return table, qrels


def _refuse_repeats(rows: pd.DataFrame, arrays, caller: str) -> None:
    """A document retrieved twice for a query would take two ranks of the pool and count twice: refused, as evaluate does."""
    repeated = rows.duplicated(["s", "q", "doc_id"]).to_numpy()
    if not repeated.any():
        return
    examples = [
        f"query {arrays.q_values[q]!r}, doc {d!r}" + (f" in system {arrays.systems[s]!r}" if arrays.systems else "")
        for s, q, d in rows.loc[repeated, ["s", "q", "doc_id"]].head(3).itertuples(index=False)
    ]
    keys = ["system", "query_id", "doc_id"] if arrays.systems else ["query_id", "doc_id"]
    fix = f"drop the repeated rows first, keeping each pair's best-ranked one (sort, then run.drop_duplicates({keys}))"
    raise repeated_documents(int(repeated.sum()), examples, what=f"{caller}: the run", fix=fix)


def holes(run, qrels=None, *, k: int = 10, all_queries: bool = False, columns=None) -> pd.DataFrame:
    """The unjudged (query, doc) pairs in the systems' top ``k``, the ones a judgement could move most first.

    Parameters
    ----------
    run : DataFrame or dict
        Any input shape rankviz evaluates with qrels; several systems in a
        ``system`` column.
    qrels : DataFrame, path or dict, optional
        The judgements so far (a frame, a TREC qrels file, a label store, or
        ``{query: {doc: grade}}``). None: nothing is judged yet.
    k : int, default 10
        The depth of the pool: each system's top ``k``.
    all_queries : bool, default False
        Also list the holes of queries without any judgement. By default only the
        queries the qrels judge (those the evaluation counts) are listed, so that the
        holes are exactly what :func:`bounds` fills.
    columns : dict, optional
        Column names by role, as for :func:`rankviz.evaluate`.

    Returns
    -------
    DataFrame
        One row per hole: ``query_id``, ``doc_id``, ``priority`` (the sum over
        systems of ``1 / log2(rank + 1)``, the weight nDCG gives its rank: documents
        many systems rank high come first), ``n_systems`` (how many systems have it
        in their top ``k``), ``best_rank``, ``systems`` (their names, comma-separated),
        ``pool_size`` (distinct documents in the query's pool) and ``pool_unjudged``
        (holes of that query). Sorted by priority (then best rank, query, doc).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz import labels
    >>> run = pd.DataFrame({"system": ["a", "a", "b", "b"], "query_id": ["q1"] * 4,
    ...                     "doc_id": ["d1", "d2", "d2", "d3"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    >>> labels.holes(run, qrels, k=2)[["doc_id", "n_systems", "best_rank", "pool_size"]]
      doc_id  n_systems  best_rank  pool_size
    0     d2          2          1          3
    1     d3          1          2          3
    """
    k = check_cutoff(k, "holes", allow_none=False)
    table, qrels = top_k(run, qrels, k=k, columns=columns, caller="holes")
    if qrels is not None and not all_queries:
        judged_queries = set(_qrels_frame_ids(qrels))
        table = table[table["query_id"].isin(judged_queries)]
    pool = table.groupby("query_id", sort=False)["doc_id"].nunique()
    open_rows = table[table["grade"].isna()].assign(weight=lambda t: 1.0 / np.log2(t["rank"] + 1.0))
    group = open_rows.groupby(["query_id", "doc_id"], sort=False)
    result = pd.DataFrame(
        {
            "priority": group["weight"].sum(),
            "n_systems": group["system"].nunique(),
            "best_rank": group["rank"].min(),
            "systems": group["system"].agg(lambda names: ", ".join(sorted(set(names)))),
        }
    ).reset_index()
    result["pool_size"] = pool.reindex(result["query_id"]).to_numpy(dtype=np.int64)
    result["pool_unjudged"] = result.groupby("query_id")["doc_id"].transform("size").astype(np.int64)
    result = result.sort_values(
        ["priority", "best_rank", "query_id", "doc_id"], ascending=[False, True, True, True], kind="stable"
    )
    result = result.reset_index(drop=True)
    for name in ("query_id", "doc_id", "systems"):
        result[name] = result[name].astype("str")
    return result


def _qrels_frame_ids(qrels: pd.DataFrame):
    return resolve_qrels(qrels).query_ids


def _with_holes(qrels: pd.DataFrame, pairs: pd.DataFrame, grade: int) -> pd.DataFrame:
    """The qrels plus ``pairs`` (query_id, doc_id) judged ``grade`` (a new frame; the caller's is untouched)."""
    base = _plain_qrels(qrels)
    added = pd.DataFrame(
        {"query_id": pairs["query_id"].astype("str").to_numpy(), "doc_id": pairs["doc_id"].astype("str").to_numpy(),
         "relevance": np.full(len(pairs), grade, dtype=np.int64)}
    )  # fmt: skip
    return pd.concat([base, added], ignore_index=True)


def _plain_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    arrays = resolve_qrels(qrels)
    return pd.DataFrame(
        {"query_id": arrays.query_ids, "doc_id": arrays.doc_ids,  # str objects (a str dtype drops a trailing NUL)
         "relevance": arrays.grades.astype(np.int64)}
    )  # fmt: skip


def _means(run, measures, qrels, options) -> pd.DataFrame:
    """Means per system (rows indexed by system name, ``"run"`` for a run without systems)."""
    table = evaluate(run, measures, qrels, **options)  # indexed by system; one run is one unnamed row
    if table.index.name != "system":
        table = table.set_axis(pd.Index(["run"] * len(table), name="system", dtype="str"))
    return table


def _recall_extremes(run, measure, qrels, pool: pd.DataFrame, top: int, systems, options, columns) -> tuple[dict, dict]:
    """The exact lowest and highest R@c per system over every labelling of the pool's holes.

    R@c = (relevant in the top c) / R. A hole in the system's own top c adds 1 to both
    when relevant, any other hole adds 1 to R only: the highest value makes the first
    relevant and the others not, the lowest the other way round.
    """
    lists, _ = top_k(run, qrels, k=measure.cutoff, columns=columns, caller="bounds")
    keys = pd.MultiIndex.from_frame(pool[["query_id", "doc_id"]])
    low, high = {}, {}
    for system in systems:
        own = lists[lists["system"] == system]
        inside = keys.isin(pd.MultiIndex.from_frame(own[["query_id", "doc_id"]]))
        high[system] = _means(run, [measure], _with_holes(qrels, pool[inside], top), options).loc[system, measure.name]
        low[system] = _means(run, [measure], _with_holes(qrels, pool[~inside], top), options).loc[system, measure.name]
    return low, high


def bounds(run, qrels, measures, *, k: int = 10, columns=None) -> pd.DataFrame:
    """Each system's means as judged today, with every hole non-relevant, and with every hole relevant.

    The holes are those of :func:`holes` (the unjudged documents in any system's top
    ``k``, for the queries the qrels judge): the same pool for every system, so the
    scenarios are two consistent worlds in which systems can be compared.

    Parameters
    ----------
    run : DataFrame or dict
        Any input shape rankviz evaluates with qrels (several systems in a ``system`` column).
    qrels : DataFrame, path or dict
        The judgements so far (a frame, a TREC qrels file, a label store or a dict).
    measures : str, Measure or list of them
        As for :func:`rankviz.evaluate`.
    k : int, default 10
        The pool depth.
    columns : dict, optional
        Column names by role, as for :func:`rankviz.evaluate`.

    Returns
    -------
    DataFrame
        One row per system and measure: ``system``, ``measure``, ``value`` (as
        judged), ``if_nonrelevant`` (every hole judged 0), ``if_relevant`` (every
        hole judged at the highest grade the qrels use, at least 1), ``low`` and
        ``high`` (the exact extremes over every labelling of the holes, where known;
        NaN otherwise) and ``n_holes`` (holes in the system's own top ``k``).
        ``rankviz.evaluate`` with the holes added to the qrels at that grade (or at
        0) gives exactly ``if_relevant`` (``if_nonrelevant``).

    Notes
    -----
    P@c, RR (with or without a cutoff) and Success@c only count the system's own
    list and never fall when a document becomes relevant, so the two scenarios are
    their extremes: ``low = if_nonrelevant``, ``high = if_relevant``. R@c also
    depends on R, which every relevant hole raises, including holes that other
    systems retrieved: its extremes make the system's own holes (in its top c)
    relevant and the others not (``high``), or the reverse (``low``); with one
    system and c = k they equal the scenarios. For AP, nDCG and the other measures
    a new relevant document raises the denominator (R, the ideal DCG) too, so
    ``if_nonrelevant`` and ``if_relevant`` are scenarios, not bounds: some labelling
    may lie outside them; ``low`` and ``high`` are NaN. Documents below rank ``k``
    of every system stay as judged today (unjudged counts as non-relevant).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz import labels
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d2"], "relevance": [1]})
    >>> labels.bounds(run, qrels, ["RR@10", "P@2"])[["measure", "value", "if_nonrelevant", "if_relevant", "high"]]
      measure  value  if_nonrelevant  if_relevant  high
    0   RR@10    0.5             0.5          1.0   1.0
    1     P@2    0.5             0.5          1.0   1.0
    """
    k = check_cutoff(k, "bounds", allow_none=False)
    qrels = _qrels_frame(qrels, "bounds")
    if qrels is None:
        raise InputError(
            "bounds: qrels are required (a frame, a TREC qrels file or a label store): the holes are what they lack."
        )
    parsed = parse_measures(measures)
    names = [m.name for m in parsed]
    options = {} if columns is None else {"columns": columns}
    table, _ = top_k(run, qrels, k=k, columns=columns, caller="bounds")
    table = table[table["query_id"].isin(set(_qrels_frame_ids(qrels)))]
    open_rows = table[table["grade"].isna()]
    pool = open_rows[["query_id", "doc_id"]].drop_duplicates().reset_index(drop=True)
    plain = _plain_qrels(qrels)
    top = max(int(plain["relevance"].max()) if len(plain) else 1, 1)
    value = _means(run, names, qrels, options)
    if_non = _means(run, names, _with_holes(plain, pool, 0), options)
    if_rel = _means(run, names, _with_holes(plain, pool, top), options)
    systems = list(value.index)
    n_holes = open_rows.groupby("system")["doc_id"].size()
    rows = []
    for measure in parsed:
        name = measure.name
        if measure.family in _MONOTONE:
            low, high = if_non[name].to_dict(), if_rel[name].to_dict()
        elif measure.family == "R":
            low, high = _recall_extremes(run, measure, plain, pool, top, systems, options, columns)
        else:
            low = high = {}
        for system in systems:
            rows.append({
                "system": system, "measure": name, "value": value.loc[system, name],
                "if_nonrelevant": if_non.loc[system, name], "if_relevant": if_rel.loc[system, name],
                "low": low.get(system, np.nan), "high": high.get(system, np.nan),
                "n_holes": int(n_holes.get(system, 0)),
            })  # fmt: skip
    result = pd.DataFrame(rows)
    result["system"] = result["system"].astype("str")
    result["measure"] = result["measure"].astype("str")
    return result
