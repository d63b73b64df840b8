"""The stages of a pipeline as data: each stage's run read into one ordered list of ids per query.

:func:`stage_lists` reads every stage with the readers every measure uses (:func:`run_arrays`, the
pipeline's judging for the duplicate check), orders each query's list as trec_eval does (score
descending, doc id descending), and checks the stages against each other: the same queries, an
unordered stage only last, depths that do not grow (said), no documents a stage adds (said).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from os import PathLike

import numpy as np
import pandas as pd

from .._core.checks import check_cutoff, check_rel, repeated_documents
from .._core.columns import find_column
from .._core.input_shapes import run_arrays
from .._core.options import EvalOptions
from .._errors import InputError, RankvizWarning, warn
from ..io import read_run
from .pipeline import read_judgements, read_run_input

__all__ = ["StageLists", "stage_lists", "relevant_sets", "judgement_frame", "check_stage_rel"]

CALLER = "stages"


@dataclasses.dataclass(frozen=True)
class StageLists:
    """Every stage's lists: ``held[s][q]`` the ids stage ``s`` holds for query ``q`` (cut to its depth, in
    order), ``full[s][q]`` its whole list; ``ordered[s]`` whether the stage is ranked; ``depths[s]`` the depth
    asked for (None: each list's length)."""

    names: tuple[str, ...]
    queries: tuple[str, ...]
    held: tuple[dict, ...]
    full: tuple[dict, ...]
    ordered: tuple[bool, ...]
    depths: tuple[int | None, ...]
    positions: tuple[dict, ...] = ()  # positions[s][q][doc]: the 1-based position of doc in held[s][q]

    def depth_of(self, s: int, query: str) -> int:
        """The number of ids stage ``s`` may hold for ``query``: its depth, else its list's length."""
        depth = self.depths[s]
        return len(self.full[s].get(query, ())) if depth is None else depth


def _is_unordered_mapping(run) -> bool:
    return isinstance(run, Mapping) and bool(run) and all(isinstance(v, (set, frozenset)) for v in run.values())


def _is_id_list_mapping(run) -> bool:
    """``{query: [doc ids]}`` (lists or tuples of ids, not booleans: those are relevance vectors)."""
    if not isinstance(run, Mapping) or not run:
        return False
    if not all(isinstance(v, (list, tuple, set, frozenset)) for v in run.values()):
        return False
    first = next((x for v in run.values() for x in v), None)
    return first is None or not isinstance(first, (bool, np.bool_))


def _long_from_mapping(run: Mapping) -> tuple[pd.DataFrame | None, list[str]]:
    queries = [str(q) for q in run]
    rows = [(str(q), d, r) for q, ids in run.items() for r, d in enumerate(_listed(ids), start=1)]
    if not rows:
        return None, queries
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])
    return frame, queries


def _listed(ids) -> list:
    # a set has no order: sorted by its ids' text, so that reading it is deterministic (its order is not used)
    return sorted(ids, key=str) if isinstance(ids, (set, frozenset)) else list(ids)


def _long_from_lists_frame(frame: pd.DataFrame, retrieved: str, options: EvalOptions) -> tuple[pd.DataFrame, list]:
    """A frame of per-query lists (a ``retrieved`` column) as a long run of ranks."""
    query = find_column(frame, "query", options.columns.query, required=True, what="run")
    queries = [str(q) for q in frame[query]]
    rows = [
        (str(q), d, r)
        for q, ids in zip(frame[query], frame[retrieved])
        for r, d in enumerate([] if ids is None or (np.ndim(ids) == 0 and pd.isna(ids)) else _listed(ids), start=1)
    ]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"]), queries


def _one_stage(name: str, run, judgements, options: EvalOptions) -> tuple[dict, list[str] | None]:
    """``({query: [ids in trec_eval order]}, the queries the input names)`` for one stage."""
    named: list[str] | None = None
    if isinstance(run, (str, PathLike)):
        run = read_run(run)
    elif _is_id_list_mapping(run):
        run, named = _long_from_mapping(run)
        if run is None:
            return {q: [] for q in named}, named
    else:
        run = read_run_input(run)
        if isinstance(run, pd.DataFrame):
            retrieved = find_column(run, "retrieved", options.columns.retrieved, required=False, what="run")
            if retrieved is not None:
                run, named = _long_from_lists_frame(run, retrieved, options)
    if not isinstance(run, pd.DataFrame):
        raise InputError(
            f"stages: stage {name!r} must be a run (a long frame, per-query lists, a TREC run path or "
            f"{{query: [doc ids]}}); got {type(run).__name__}."
        )
    if len(run) == 0:
        return ({q: [] for q in named} if named is not None else {}), named
    arrays, _ = run_arrays(
        run, judgements, caller=CALLER, columns=options.columns, order=options.order, score_dtype=options.score_dtype
    )
    if arrays.systems is not None and len(arrays.systems) > 1:
        raise InputError(
            f"stages: stage {name!r} holds {len(arrays.systems)} systems ({', '.join(map(repr, arrays.systems[:3]))}"
            "...); pass one system per stage, and one stages() call per system."
        )
    # ids stay Python strings in object arrays: numpy's fixed-width str dtype would drop a trailing NUL ('d\x00')
    docs = np.asarray(arrays.docs.to_pylist(), dtype=object)
    _, doc_rank = np.unique(docs, return_inverse=True)
    order = np.lexsort((-doc_rank, -arrays.key, arrays.q_codes))
    frame = pd.DataFrame({"q": arrays.q_values[arrays.q_codes[order]], "d": docs[order]})
    repeated = frame.duplicated()
    if repeated.any() and options.duplicates == "error":
        examples = [f"query {q!r}, doc {d!r}" for q, d in frame[repeated].head(3).itertuples(index=False)]
        raise repeated_documents(int(repeated.sum()), examples, what=f"stages: stage {name!r}")
    frame = frame[~repeated]  # duplicates="first": each document's best-ranked row
    lists = {str(q): list(part) for q, part in frame.groupby("q", sort=False)["d"]}
    for q in arrays.q_values:
        lists.setdefault(str(q), [])
    if named is not None:
        for q in named:
            lists.setdefault(q, [])
    return lists, named


def _check_depths(depths, names: list[str]) -> dict[str, int | None]:
    if depths is None:
        return dict.fromkeys(names)
    if not isinstance(depths, Mapping):
        raise InputError(f"stages: depths must be a dict {{stage name: k}}, e.g. {{{names[-1]!r}: 5}}; got {depths!r}.")
    unknown = [s for s in depths if s not in names]
    if unknown:
        raise InputError(f"stages: depths names unknown stage(s) {unknown}; the stages are {names}.")
    return {s: check_cutoff(depths.get(s), CALLER, name=f"depths[{s!r}]") for s in names}


def _check_query_sets(names, lists, missing: str) -> tuple[str, ...]:
    sets = [set(stage) for stage in lists]
    union = set().union(*sets)
    if missing == "error" and any(s != sets[0] for s in sets):
        counts = ", ".join(f"{name!r}: {len(s)}" for name, s in zip(names, sets))
        odd = next(i for i, s in enumerate(sets) if s != sets[0])
        example = sorted(sets[0] ^ sets[odd])[:3]
        raise InputError(
            f"stages: the stages hold different query sets ({counts} queries; {len(union)} in all; e.g. "
            f"{', '.join(map(repr, example))} is in one of {names[0]!r} and {names[odd]!r} only). Give every "
            "stage every query (an empty list for nothing), or pass missing='empty' to read a query a stage "
            "lacks as an empty list."
        )
    first = list(lists[0])
    return tuple(first + sorted(union - set(first)))


def judgement_frame(qrels) -> pd.DataFrame:
    """Qrels as a frame: a qrels frame or path, ``{query: {doc: grade}}``, or gold ids ``{query: [doc ids]}``."""
    if (
        isinstance(qrels, Mapping)
        and qrels
        and all(isinstance(v, (list, tuple, set, frozenset)) for v in qrels.values())
    ):
        rows = [(str(q), str(d)) for q, ids in qrels.items() for d in _listed(ids)]
        if not rows:
            raise InputError("stages: the gold ids are empty: there is no relevant document to follow.")
        return pd.DataFrame(
            {"query_id": [q for q, _ in rows], "doc_id": [d for _, d in rows], "relevance": np.ones(len(rows), int)}
        )
    frame = read_judgements(qrels)
    if frame is None:
        raise InputError(
            "stages: the relevant documents are missing: pass qrels= (a qrels frame or path, "
            "{query: {doc: grade}} or gold ids {query: [doc ids]}), or a read_jsonl log that holds them."
        )
    if len(frame) == 0:
        raise InputError("stages: the qrels are empty (0 rows): there is no relevant document to follow.")
    return frame


def relevant_sets(judgements: pd.DataFrame, queries, rel: int) -> dict[str, set]:
    """``{query: ids judged >= rel}`` for each query."""
    q = find_column(judgements, "query", None, required=True, what="qrels")
    d = find_column(judgements, "doc", None, required=True, what="qrels")
    g = find_column(judgements, "relevance", None, required=True, what="qrels")
    kept = judgements[pd.to_numeric(judgements[g], errors="coerce") >= rel]
    gold: dict[str, set] = {}
    for query, doc in zip(kept[q].astype(str), kept[d].astype(str)):
        gold.setdefault(query, set()).add(doc)
    return {q: gold.get(q, set()) for q in queries}


def stage_lists(runs, judgements, *, depths, unordered, missing: str, options: EvalOptions) -> StageLists:
    """Read and check every stage (see :func:`rankviz.stages`)."""
    if not isinstance(runs, Mapping) or len(runs) < 2:
        raise InputError(
            "stages: pass the pipeline as an ordered dict {stage name: run} of at least two stages, e.g. "
            "{'retrieved': bm25, 'reranked': reranked, 'context': context}, or a read_jsonl(..., stages=[...]) log."
        )
    names = [str(n) for n in runs]
    if len(set(names)) < len(names):
        raise InputError(f"stages: two stages share a name: {names}.")
    unordered = [] if unordered is None else [unordered] if isinstance(unordered, str) else list(unordered)
    for name in unordered:
        if name not in names:
            raise InputError(f"stages: unordered={name!r} is not a stage; the stages are {names}.")
    flags = [n not in unordered and not _is_unordered_mapping(r) for n, r in zip(names, runs.values())]
    if not all(flags[:-1]):
        bad = names[flags.index(False)]
        raise InputError(
            f"stages: stage {bad!r} is unordered (a set) but is not the last stage; only the last stage (the ids "
            "the generator cited) may be a set: every stage before it needs a ranked list."
        )
    depth_of = _check_depths(depths, names)
    if not flags[-1] and depth_of[names[-1]] is not None:
        raise InputError(
            f"stages: the unordered stage {names[-1]!r} has no depth (a set has no top k); drop it from depths."
        )
    lists = [_one_stage(name, run, judgements, options)[0] for name, run in zip(names, runs.values())]
    queries = _check_query_sets(names, lists, missing)
    full = tuple({q: lists[s].get(q, []) for q in queries} for s in range(len(names)))
    held = tuple(
        {q: (ids if depth_of[name] is None else ids[: depth_of[name]]) for q, ids in stage.items()}
        for name, stage in zip(names, full)
    )
    positions = tuple({q: {d: i for i, d in enumerate(ids, start=1)} for q, ids in stage.items()} for stage in held)
    result = StageLists(tuple(names), queries, held, full, tuple(flags), tuple(depth_of[n] for n in names), positions)
    _say_depths(result)
    _say_added(result)
    return result


def _say_depths(lists: StageLists) -> None:
    """A ranked stage deeper than the one before it is allowed, and said."""
    for s in range(1, len(lists.names)):
        if not lists.ordered[s]:
            continue
        before = max((len(v) for v in lists.held[s - 1].values()), default=0)
        here = max((len(v) for v in lists.held[s].values()), default=0)
        if here > before:
            warn(
                f"stages: stage {lists.names[s]!r} holds up to {here} ids, deeper than {lists.names[s - 1]!r} before "
                f"it ({before}); a later stage usually keeps fewer. Allowed; check the depths and the stage order.",
                RankvizWarning,
            )


def _say_added(lists: StageLists) -> None:
    """Ids a stage holds that no earlier stage held are allowed (a hybrid merge), and said."""
    for s in range(1, len(lists.names)):
        added, example = 0, None
        for q in lists.queries:
            earlier = set().union(*(lists.full[t][q] for t in range(s)))
            new = [d for d in lists.held[s][q] if d not in earlier]
            added += len(new)
            if new and example is None:
                example = (q, new[0])
        if added and example is not None:
            warn(
                f"stages: stage added documents: {lists.names[s]!r} holds {added} id(s) no earlier stage held "
                f"(e.g. {example[1]!r} for query {example[0]!r}). Allowed (a merge of retrievers); a relevant one "
                "counts from the stage that adds it.",
                RankvizWarning,
            )


def check_stage_rel(rel) -> int:
    return 1 if rel is None else check_rel(rel, CALLER)
