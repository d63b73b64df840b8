"""Evaluation of a Dask DataFrame: shuffle by query, rankviz's pandas path per partition, one per-query table.

The steps (``docs/dask.md`` describes them for users):

1. the qrels are read and validated on the client (a qrels file, frame or dict is
   small), then handed to every partition as one task (Dask copies it to each worker
   once);
2. the run is shuffled by query id, so each query's rows (of every system) sit in one
   partition, whatever the input partitions were; duplicates that straddled input
   partitions meet there and are refused exactly as pandas refuses them;
3. each partition runs :func:`rankviz.dask._partitions.evaluate_partition`, the pandas
   pipeline itself (no measure code of its own), with ``missing='drop'``;
4. the client gathers the per-query rows (one per system x query: small), adds the
   judged queries that no partition saw under the call's ``missing`` policy (their
   values come from the pandas path too, on a probe run that retrieves nothing for
   them), re-emits the warnings that hold for the whole run, and orders the rows as
   pandas does (systems in order of first appearance, queries in qrels order).
"""

from __future__ import annotations

import dataclasses
import types
import warnings
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from .._core.columns import find_column
from .._core.long_run import resolve_qrels
from .._errors import InputError, UnmatchedIdsWarning
from ..evaluation.pipeline import SINGLE_SYSTEM, kept_cells, read_judgements
from ._compute import compute
from ._partitions import cells_table, evaluate_partition, first_seen

if TYPE_CHECKING:
    from .._core.judged import Judged

__all__ = ["per_query_table"]

#: query id of the probe run (a name no real run uses; a suffix is added if the qrels use it)
PROBE_QUERY = "rankviz-probe-query"


@dataclasses.dataclass
class _Plan:
    query: str
    system: str | None
    qrels: pd.DataFrame | None
    qrels_queries: np.ndarray | None  # judged query ids as str, in qrels order


def _plan(run, qrels, options) -> _Plan:
    """Resolve the run's columns from its schema and validate the qrels on the client."""
    if not hasattr(run, "to_delayed") or not hasattr(run, "shuffle"):
        raise InputError(
            f"rankviz.dask needs a Dask DataFrame (rankviz.dask.read_run, dask.dataframe.from_pandas). Got "
            f"{type(run).__name__} instead; for a pandas DataFrame use rankviz.evaluate or df.rank."
        )
    columns = options.columns
    query = find_column(run, "query", columns.query, required=True, what="run")
    system = find_column(run, "system", columns.system, required=False, what="run")
    if qrels is not None and not isinstance(qrels, pd.DataFrame) and hasattr(qrels, "compute"):
        qrels = qrels.compute()  # a Dask frame of judgements: small enough to hold
    qrels = read_judgements(qrels)
    queries = None
    if qrels is not None:
        queries = np.asarray(resolve_qrels(qrels, columns).queries(), dtype=object)
    return _Plan(query, system, qrels, queries)


def _broadcast(value):
    """``value`` as one task input, embedded once in the graph.

    Not ``client.scatter``: scattered data lives only on the workers that hold it, so a worker
    lost mid-computation (killed, preempted, out of memory) takes it with it and the whole
    computation fails with "cancelled"; a value in the graph is sent again to whichever worker
    needs it.
    """
    import dask

    return dask.delayed(value, pure=True)


def _tasks(run, plan: _Plan, measures, options, caller: str, shuffle: bool):
    """Delayed per-partition evaluations of the shuffled run, and the first-seen pre-pass when order needs it."""
    import dask

    grouped = run.shuffle(on=plan.query, npartitions=run.npartitions) if shuffle else run
    local = dataclasses.replace(options, missing="drop")
    judgements = None
    if plan.qrels is not None:
        q_name = find_column(
            plan.qrels, "query", _given(plan.qrels, options.columns.query), required=True, what="qrels"
        )
        judgements = _broadcast((plan.qrels, plan.qrels[q_name].astype(str)))
    work = dask.delayed(evaluate_partition, pure=True)
    parts = [work(p, judgements, measures, local, caller, plan.query, plan.system) for p in grouped.to_delayed()]
    need_queries = plan.qrels is None
    firsts = []
    if plan.system is not None or need_queries:
        seen = dask.delayed(first_seen, pure=True)
        firsts = [seen(p, plan.system, plan.query if need_queries else None) for p in run.to_delayed()]
    return parts, firsts


def _check_cells_whole(table: pd.DataFrame, caller: str) -> None:
    """With ``shuffle=False``: a (system, query) evaluated in two partitions had its rows split between them."""
    keys = [c for c in ("system", "query_id") if c in table.columns]
    split = table.duplicated(keys, keep=False)
    if split.any():
        example = table.loc[split, keys].iloc[0].tolist()
        raise InputError(
            f"{caller}: with shuffle=False every query's rows (of each system) must sit in one partition, but "
            f"{' '.join(map(repr, example))} has rows in several. Pass shuffle=True (the default) to group them by query id."
        )


def _given(frame, name):
    return name if name is not None and name in frame.columns else None


def _ordered_unique(lists) -> list:
    return list(dict.fromkeys(x for values in lists for x in values))


def _reemit(results) -> None:
    """Warn once per message; the no-judged-document warning only when every evaluated partition gave it (as pandas)."""
    evaluated = [r for r in results if r.table is not None]
    unmatched = [[(c, m) for c, m in r.warnings if issubclass(c, UnmatchedIdsWarning)] for r in evaluated]
    shown = set()
    for category, message in (w for r in results for w in r.warnings):
        if issubclass(category, UnmatchedIdsWarning):
            if not all(unmatched) or (category, message) != unmatched[0][0]:
                continue
        if (category, message) not in shown:
            shown.add((category, message))
            warnings.warn(message, category, stacklevel=4)


def _merge_unjudged(results, systems) -> dict:
    keys = list(systems) if systems is not None else [None]
    merged: dict[str | None, list] = {key: [] for key in keys}
    for r in results:
        for key, queries in r.unjudged.items():
            merged.setdefault(key, []).extend(queries)
    return {key: tuple(dict.fromkeys(values)) for key, values in merged.items()}


def _probe_id(taken) -> str:
    name = PROBE_QUERY
    while name in taken:
        name += "_"
    return name


def _absent_rows(plan: _Plan, systems, absent: dict, measures, options, caller: str) -> pd.DataFrame:
    """The pandas path's values for judged queries a system never retrieved: a probe run that retrieves nothing for them."""
    judged_queries = cast(np.ndarray, plan.qrels_queries)  # set with plan.qrels: this filler is for a run with qrels
    queries = [q for q in judged_queries if any(q in absent[s] for s in absent)]
    qrels = resolve_qrels(cast(pd.DataFrame, plan.qrels), options.columns)
    wanted = np.isin(qrels.query_ids, np.asarray(queries, dtype=object))
    probe = _probe_id(set(judged_queries))
    probe_qrels = pd.DataFrame(
        {
            "query_id": pd.array([*qrels.query_ids[wanted].tolist(), probe], dtype="str"),
            "doc_id": pd.array([*qrels.doc_ids[wanted].tolist(), "d"], dtype="str"),
            "relevance": np.append(qrels.grades[wanted], 0),
        }
    )
    names = list(systems) if systems is not None else [SINGLE_SYSTEM]
    probe_run = pd.DataFrame(
        {
            "query_id": pd.array([probe] * len(names), dtype="str"),
            "doc_id": pd.array(["d"] * len(names), dtype="str"),
            "score": 0.0,
            "rank": 1,
        }
    )
    if systems is not None:
        probe_run["system"] = pd.array(names, dtype="str")
    plain = dataclasses.replace(options, missing="zero", columns=type(options.columns)())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table, _ = cells_table(probe_run, measures, probe_qrels, plain, caller)
    table = table[table["query_id"] != probe]
    if systems is None:
        return table.reset_index(drop=True)
    keep = [q in absent[s] for s, q in zip(table["system"], table["query_id"])]
    return table[keep].reset_index(drop=True)


def _empty_cells(plan: _Plan, systems, absent: dict, measures, options, caller: str) -> pd.DataFrame:
    """Closed world: a cell without rows has no judgements either; the pandas path's values of one such cell, repeated.

    (Per-query relevance vectors with a known number of relevant items pad even an
    empty cell; such runs have one row per query, so a Dask frame of them is rare.)
    """
    names = list(systems) if systems is not None else [SINGLE_SYSTEM]
    probe = pd.DataFrame(
        {
            "system": pd.array(["a", "b"], dtype="str"),
            "query_id": pd.array(["p", "q"], dtype="str"),
            "doc_id": pd.array(["d", "d"], dtype="str"),
            "score": 0.0,
            "rank": 1,
            "relevance": 0,
        }
    )
    plain = dataclasses.replace(options, missing="zero", columns=type(options.columns)())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table, _ = cells_table(probe, measures, None, plain, caller)
    empty = table[(table["system"] == "a") & (table["query_id"] == "q")].drop(columns=["system", "query_id"])
    cells = [(s, q) for s in names for q in sorted(absent.get(s, ()))]
    rows = pd.DataFrame({"query_id": pd.array([q for _, q in cells], dtype="str")})
    if systems is not None:
        # pandas-stubs leaves the string arrays out of insert's values (any ExtensionArray is one)
        rows.insert(0, "system", pd.array([s for s, _ in cells], dtype="str"))  # type: ignore[arg-type]
    for name in empty.columns:
        rows[name] = np.repeat(empty[name].to_numpy(), len(cells))
    return rows


def _check_missing(systems, queries, present: dict, missing: str, caller: str) -> dict:
    """Judged queries each system did not retrieve; ``missing='error'`` raises pandas' own message."""
    keys = list(systems) if systems is not None else [None]
    flags = np.asarray([[q in present.get(key, ()) for q in queries] for key in keys], dtype=bool).reshape(-1)
    shape = types.SimpleNamespace(
        present=flags,
        n_cells=len(flags),
        n_queries=len(queries),
        queries=np.asarray(queries, dtype=object),
        systems=None if systems is None else tuple(systems),
    )
    kept_cells(cast("Judged", shape), missing, caller)  # duck-typed: kept_cells reads only these fields
    return {
        key: tuple(q for q, hit in zip(queries, flags[i * len(queries) : (i + 1) * len(queries)]) if not hit)
        for i, key in enumerate(keys)
    }


def _present(table: pd.DataFrame, has_systems: bool) -> dict:
    if not len(table):
        return {}
    if not has_systems:
        return {None: set(table["query_id"].astype(str))}
    return {str(s): set(g.astype(str)) for s, g in table.groupby("system", sort=False)["query_id"]}


def _order(table: pd.DataFrame, systems, queries) -> pd.DataFrame:
    """Rows as pandas orders them: system by system (first appearance), queries in qrels (or run) order."""
    q_rank = pd.Index(list(queries)).get_indexer(table["query_id"].astype(str))
    keys = [q_rank]
    if systems is not None:
        keys.insert(0, pd.Index(list(systems)).get_indexer(table["system"].astype(str)))
    return table.iloc[np.lexsort(keys[::-1])].reset_index(drop=True)


def _no_shared_query(run, measures, plan: _Plan, options, caller: str) -> None:
    """No partition had a judged query: pandas' error (its sample of run ids comes from the run's first rows)."""
    head = run.head(1000, npartitions=-1)
    cells_table(head, measures, plan.qrels, options, caller)  # raises the pandas path's InputError


def per_query_table(
    run, measures, qrels, options, caller: str, progress: bool = False, shuffle: bool = True
) -> pd.DataFrame:
    """The per-query table of a Dask run, equal to ``rankviz.evaluate(..., per_query=True)`` on the whole frame."""
    for m in measures:
        m.check_complete()
    plan = _plan(run, qrels, options)
    parts, firsts = _tasks(run, plan, measures, options, caller, shuffle)
    computed = compute([*parts, *firsts], progress=progress)
    results, seen = computed[: len(parts)], computed[len(parts) :]
    systems = _ordered_unique(s for s, _ in seen) if plan.system is not None else None
    _reemit(results)
    tables = [r.table for r in results if r.table is not None and len(r.table)]
    if plan.qrels is not None and not any(r.table is not None for r in results):
        _no_shared_query(run, measures, plan, options, caller)
    columns = ["system"] * (systems is not None) + ["query_id"] + [m.name for m in measures]
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=columns)
    if not shuffle:
        _check_cells_whole(table, caller)
    queries = plan.qrels_queries if plan.qrels_queries is not None else _ordered_unique(q for _, q in seen)
    missing_from_run = _check_missing(systems, queries, _present(table, systems is not None), options.missing, caller)
    if options.missing == "zero" and any(missing_from_run.values()):
        absent = {k if k is not None else SINGLE_SYSTEM: set(v) for k, v in missing_from_run.items()}
        filler = _absent_rows if plan.qrels is not None else _empty_cells
        table = pd.concat([table, filler(plan, systems, absent, measures, options, caller)], ignore_index=True)
    table = _order(table, systems, queries)
    closed = next((r.closed_world for r in results if r.closed_world is not None), plan.qrels is None)
    table.attrs["rankviz"] = {
        "measures": [m.name for m in measures],
        "closed_world": closed,
        "n_queries": len(queries),
        "missing_from_run": missing_from_run,
        "unjudged_in_run": _merge_unjudged(results, systems),
        "unannotated": (),  # long runs only: a query without gold is a per-query-lists idea
        "depth": options.depth,
        "ties": options.ties,
        "missing": options.missing,
    }
    return table
