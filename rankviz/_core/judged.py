"""Canonical data: the run joined with its judgements, as flat NumPy arrays.

Every evaluation goes through :func:`judge`, which turns any input shape into one
immutable :class:`Judged` value. Its unit is the *cell*: one (system, query) pair,
numbered ``system * n_queries + query``. For each cell it keeps the number of items
retrieved, and for each *hit* (a retrieved item judged with a positive grade, or at
least the smallest relevance threshold asked for) its rank in trec_eval's order,
its grade, and the tie group it sits in. Every measure is a reduction over the
hits, so the kernels never touch the (possibly millions of) non-relevant rows.

How ranks are found without sorting the run
-------------------------------------------
trec_eval sorts each query's list by score (descending), breaking ties by doc id
(descending, byte order). Only the ranks of the hits matter, and the rank of a hit
is one plus the number of items of its query that come before it. For every cell
the distinct hit scores are sorted (a few per query) into a fixed-width block; each
row of the run is placed among its cell's block by a branchless binary search, and a
histogram of the placements gives, for every distinct hit score, how many rows score
strictly higher and how many tie with it. Rows scored below every hit of their cell
cannot move a rank and are skipped. Doc ids are compared only inside tie groups
that contain a hit. The cost is linear in the number of rows.

Joins and duplicates without a dictionary of doc ids
----------------------------------------------------
Factorizing millions of mostly-unique doc ids costs seconds. Instead every row's doc
id gets a 64-bit hash read straight from the Arrow string buffers
(:mod:`rankviz._core.hashing`). The qrels join keeps the rows whose hash passes two bit
tables of the judged doc ids' hashes, matches those few on their (query, doc) key and
confirms each match on the real strings. Duplicate pairs are found by sorting the
rows' (cell, doc) keys (the hash plus the cell times an odd constant) and comparing
neighbours; the few candidates are grouped by their real doc ids. Hash collisions can
cost time, never correctness: a match or a duplicate is only reported after comparing
the strings, and equal strings always hash alike. When the rows come grouped by cell,
both steps run piece by piece on two threads (:mod:`rankviz._core.row_hashes`), so the
keys of every row never exist at once.

Memory
------
A big run's per-row arrays are few and narrow: int32 query codes (renumbered in
place into the evaluated query numbers when the caller does not ask for the
arrays back), no system codes for a run of one system, NumPy lookups and counts
done in blocks (:mod:`rankviz._core.memory`) so that no 64-bit copy of an index is made,
and what the steps free returned to the system between them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError
from .checks import repeated_documents
from .hashing import contiguous_units
from .hit_ranks import filled_numpy, rank_hits, take_docs
from .id_codes import encode
from .id_spelling import look_alikes, warn_id_spelling
from .input_shapes import run_arrays
from .long_run import QrelsArrays, RunArrays
from .memory import LARGE, blocked_bincount, blocked_take, release_memory
from .options import EvalOptions
from .row_hashes import judged_keys, matched_grades, scan_rows
from .threads import in_background
from .unannotated import warn_unannotated, with_unretrieved

__all__ = ["Judged", "judge", "judge_arrays", "condensed"]


@dataclasses.dataclass(frozen=True, eq=False)
class Judged:
    """A run joined with its judgements (see the module docstring).

    Per cell (``n_systems * n_queries`` of them, system-major): ``num_ret`` (items
    retrieved, capped at ``depth``), ``present`` (the system retrieved anything for
    the query) and ``cell_group`` (which judgement group holds the cell's grades).

    Per hit, sorted by cell then rank: ``hit_cell``, ``hit_rank`` (1-based, trec_eval
    order, not capped by ``depth``), ``hit_grade``, ``hit_above`` (items scored
    strictly higher) and ``hit_tied`` (size of the hit's tie group, itself included).
    The hits are the rows judged relevant enough for the call's measures (grade > 0
    or >= ``rel_min``); with ``rel_min <= 0`` every judged row, and with a negative
    ``rel_min`` also the rows judged with a negative grade, whose hit grade is ``-inf``.

    Per judgement group: ``group_grades[group_offsets[g]:group_offsets[g + 1]]`` are the
    group's judged grades (>= 0), sorted descending. Groups are queries, or cells in
    the closed world (no qrels: judgements come from the rows given).
    """

    systems: tuple[str, ...] | None
    queries: np.ndarray
    num_ret: np.ndarray
    present: np.ndarray
    hit_cell: np.ndarray
    hit_rank: np.ndarray
    hit_grade: np.ndarray
    hit_above: np.ndarray
    hit_tied: np.ndarray
    cell_group: np.ndarray
    group_offsets: np.ndarray
    group_grades: np.ndarray
    closed_world: bool
    depth: int | None
    unjudged: dict
    unannotated: tuple = ()  # queries with no gold at all (input without qrels), left out or scored 0

    @property
    def n_systems(self) -> int:
        return 1 if self.systems is None else len(self.systems)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def n_cells(self) -> int:
        return self.n_systems * self.n_queries

    def relevant_count(self, rel: int) -> np.ndarray:
        """R per cell: judged items with grade >= ``rel`` (never counting negative grades)."""
        grades = self.group_grades
        flags = (grades >= rel) & (grades >= 0)
        sizes = np.diff(self.group_offsets)
        # bincount, not reduceat: a query judged with no grades at the end (an empty last group) is legal
        group_of = np.repeat(np.arange(len(sizes)), sizes)
        counts = np.bincount(group_of, weights=flags, minlength=len(sizes)).astype(np.int64)
        return counts[self.cell_group]

    def ideal_dcg(self, k: int | None, gain: str) -> np.ndarray:
        """Ideal DCG per cell from the top ``k`` of all judged grades (trec_eval ``ndcg_cut``; all of them if None)."""
        grades = self.group_grades
        sizes = np.diff(self.group_offsets)
        position = np.arange(len(grades)) - np.repeat(self.group_offsets[:-1], sizes)
        usable = grades > 0
        if k is not None:
            usable &= position < k
        values = np.where(usable, gain_of(grades, gain) / np.log2(position + 2.0), 0.0)
        group_of = np.repeat(np.arange(len(sizes)), sizes)
        per_group = np.bincount(group_of, weights=values, minlength=len(sizes))
        return per_group[self.cell_group]


def gain_of(grades: np.ndarray, gain: str) -> np.ndarray:
    """Gain of each grade: the grade itself, or 2**grade - 1; 0 for grades <= 0."""
    positive = np.maximum(grades, 0.0)
    return positive if gain == "linear" else np.expm1(positive * np.log(2.0))


def judge(
    data, qrels, options: EvalOptions, *, rel_min: float = 1, caller: str = "evaluate", with_arrays: bool = False
):
    """Build the canonical :class:`Judged` arrays from a run (any input shape) and optional qrels.

    ``qrels`` is a long DataFrame or None (closed world). ``options`` is the call's
    validated :class:`~rankviz._core.options.EvalOptions`. With ``with_arrays=True``
    returns ``(Judged, RunArrays)``, for callers that also need the per-row arrays
    (the tie report) without reading the frame a second time.
    """
    run, qj = run_arrays(
        data, qrels, caller=caller, columns=options.columns, order=options.order, score_dtype=options.score_dtype
    )
    if options.judged_only:
        rel_min = min(rel_min, 0)  # every judged row must be a hit to be kept
    if len(run.key) >= LARGE:  # what reading the frame's columns freed (glibc keeps freed blocks under 32 MB)
        release_memory()
    # Without with_arrays nobody else sees ``run``: its query codes may become the evaluated rows' query numbers.
    judged = judge_arrays(run, qj, options, rel_min=rel_min, caller=caller, consume=not with_arrays)
    if options.judged_only:
        judged = condensed(judged)
    return (judged, run) if with_arrays else judged


def condensed(j: Judged) -> Judged:
    """The judged-only lists of ``j`` (trec_eval ``-J``; condensed lists, Sakai, SIGIR 2007).

    Every retrieved item without a judgement of grade >= 0 is dropped after the list
    was cut to ``depth`` (as trec_eval does), and the items left close ranks in their
    order, ties included. ``j`` must hold every judged row as a hit (``rel_min <= 0``).
    """
    keep = j.hit_grade >= 0
    if j.depth is not None:
        keep &= j.hit_rank <= j.depth
    cell, above, grade = j.hit_cell[keep], j.hit_above[keep], j.hit_grade[keep]
    first = np.ones(len(cell), dtype=bool)
    first[1:] = cell[1:] != cell[:-1]
    starts = np.flatnonzero(first)
    rank = np.arange(len(cell)) - np.repeat(starts, np.diff(np.r_[starts, len(cell)])) + 1
    # A tie group's judged members are contiguous in trec_eval order: renumber them as one group.
    group_first = first.copy()
    group_first[1:] |= above[1:] != above[:-1]
    g_starts = np.flatnonzero(group_first)
    sizes = np.diff(np.r_[g_starts, len(cell)])
    new_above = np.repeat(rank[g_starts] - 1, sizes)
    return dataclasses.replace(
        j,
        num_ret=np.bincount(cell, minlength=j.n_cells).astype(np.int64),
        hit_cell=cell,
        hit_rank=rank.astype(np.int64),
        hit_grade=grade,
        hit_above=new_above.astype(np.int64),
        hit_tied=np.repeat(sizes, sizes).astype(np.int64),
    )


@dataclasses.dataclass(frozen=True)
class _Queries:
    """The evaluated queries and how the run's queries map onto them."""

    ids: np.ndarray  # evaluated query ids, in order
    index: pd.Index
    q_map: np.ndarray  # run query code -> evaluated query number, -1 when not evaluated
    pair_counts: np.ndarray  # rows per (system, run query)
    n_sys: int
    judged_q: np.ndarray  # the evaluated query number of each judgement (none without qrels)

    @property
    def n(self) -> int:
        return len(self.ids)


def _queries(run: RunArrays, qj: QrelsArrays | None, unannotated: str = "drop") -> _Queries:
    """Which queries are evaluated (the judged ones, or every annotated run query without qrels), with row counts."""
    n_sys = 1 if run.systems is None else len(run.systems)
    if qj is None:
        ids = run.query_order if run.query_order is not None else run.q_values
        if unannotated == "drop" and run.unannotated is not None and len(run.unannotated):
            ids = np.asarray(ids, dtype=object)
            ids = ids[~np.isin(ids, run.unannotated)]
        judged_q = np.zeros(0, dtype=np.int64)
    elif qj.query_order is None:  # the judged queries in order of first appearance, and each judgement's number
        judged_q, ids = pd.factorize(np.asarray(qj.query_ids, dtype=object))
    else:
        ids, judged_q = qj.queries(), pd.Index(qj.query_order, dtype=object).get_indexer(pd.Index(qj.query_ids))
    ids = np.asarray(ids, dtype=object)
    index = pd.Index(ids, dtype=object)
    q_map = index.get_indexer(run.q_values)
    n_runq = len(run.q_values)
    pair_counts = np.zeros((n_sys, n_runq), dtype=np.int64)
    if len(run.q_codes):
        counts = blocked_bincount(run.q_codes, n_sys * n_runq, run.sys_codes, n_runq)
        pair_counts = counts.reshape(n_sys, n_runq)
    if qj is not None and n_runq and (q_map < 0).all():
        run_sample = ", ".join(repr(q) for q in run.q_values[:3])
        qrels_sample = ", ".join(repr(q) for q in ids[:3])
        hint = f" The run's query ids are {run.kind}s and the qrels' are {qj.kind}s." if run.kind != qj.kind else ""
        raise InputError(
            f"The run and the qrels share no query id (run: {run_sample}, ...; qrels: {qrels_sample}, ...).{hint} "
            "Check that both use the same query ids."
        )
    return _Queries(ids, index, q_map, pair_counts, n_sys, judged_q)


def _unjudged(run: RunArrays, qs: _Queries) -> dict:
    """Per system: the run's queries that have no judgements (not evaluated)."""
    names = run.systems if run.systems is not None else (None,)
    seen = qs.pair_counts > 0
    return {name: tuple(run.q_values[seen[s] & (qs.q_map < 0)].tolist()) for s, name in enumerate(names)}


def _evaluated_rows(run: RunArrays, qs: _Queries, consume: bool):
    """The rows of evaluated queries: (cell, query number, key, grade, src).

    ``src`` maps the rows kept to the run's rows (None while they are all of them, in
    order), so the doc ids are never copied. Per-row codes fit in 32 bits almost
    always: half the memory traffic of int64. With ``consume`` the run's query codes
    are renumbered in place (the caller owns ``run`` and needs it no more): one array
    of every row fewer.
    """
    n_cells = qs.n_sys * qs.n
    index_type = np.int32 if max(n_cells, qs.n_sys * len(run.q_values)) < 2**31 - 1 else np.int64
    q_codes, sys_codes = run.q_codes, run.sys_codes
    in_place = consume and q_codes.dtype == index_type and q_codes.flags.writeable
    row_q = blocked_take(qs.q_map.astype(index_type), q_codes, out=q_codes if in_place else None)
    key, grade, src = run.key, run.grade, None
    keep = row_q >= 0
    if not keep.all():
        src = np.flatnonzero(keep)
        row_q, key = row_q[src], key[src]
        sys_codes = sys_codes[src] if sys_codes is not None else None
        grade = grade[src] if grade is not None else None
    if sys_codes is None:
        return row_q, row_q, key, grade, src
    cell: np.ndarray = sys_codes.astype(index_type)
    cell *= index_type(qs.n)
    cell += row_q
    return cell, row_q, key, grade, src


def _judgements_of_rows(run, qj, qs: _Queries, cell, row_q, grade, src, n_present: int):
    """(duplicate candidates, sorted rows that have a grade, their grades).

    One scan of the rows' doc id hashes serves both the duplicate check and the qrels
    join (:mod:`rankviz._core.row_hashes`). Judgements are kept sparse.
    """
    closed = qj is None
    jk = None
    if not closed and len(qj.doc_ids) and len(cell):
        jk = judged_keys(qj, qs.judged_q)
    units = contiguous_units(cell, n_present) if len(cell) >= 2 else None
    scan = scan_rows(run.docs, src, cell, row_q, jk, units)
    if closed:
        judged_rows = np.flatnonzero(~np.isnan(grade))
        return scan.repeats, judged_rows, grade[judged_rows]
    if jk is not None:
        judged_rows, judged_grade = matched_grades(scan.join_rows, scan.join_keys, jk, run.docs, src, qj.grades)
    elif len(qj.doc_ids) and len(cell):
        # Two judged pairs of one query share a hash (long ids alike in every byte read): match exactly instead.
        judged_rows, judged_grade = _lookup_grades_exact(row_q, run.docs, src, qj, qs.judged_q)
    else:
        judged_rows, judged_grade = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    return scan.repeats, judged_rows, judged_grade


def _retrieved_counts(qs: _Queries) -> np.ndarray:
    """Items retrieved per cell, from the counts per (system, run query)."""
    num_ret = np.zeros(qs.n_sys * qs.n, dtype=np.int64)
    evaluated = qs.q_map >= 0
    cells_of_pairs = (np.arange(qs.n_sys)[:, None] * qs.n + qs.q_map[None, :])[:, evaluated]
    num_ret[cells_of_pairs.ravel()] = qs.pair_counts[:, evaluated].ravel()
    return num_ret


def judge_arrays(
    run: RunArrays, qj: QrelsArrays | None, options: EvalOptions, *, rel_min: float, caller: str, consume: bool = False
) -> Judged:
    """:func:`judge` for run arrays already read (one query's list, say), under the call's depth and duplicates.

    ``consume=True`` lets the run's query codes become the evaluated rows' query numbers (nobody else
    sees ``run`` afterwards).
    """
    return _judge_arrays(
        run,
        qj,
        rel_min=rel_min,
        depth=options.depth,
        duplicates=options.duplicates,
        caller=caller,
        consume=consume,
        unannotated=options.unannotated,
    )


def _judge_arrays(
    run: RunArrays, qj: QrelsArrays | None, *, rel_min, depth, duplicates, caller, consume=False, unannotated="drop"
) -> Judged:
    closed = qj is None
    # The look-alike id check reads a sample of the doc ids only: it runs beside the join, its warning said after.
    spelling = in_background(look_alikes, run.docs, qj.doc_ids) if qj is not None and len(run.docs) else None
    qs = _queries(run, qj, unannotated)
    lacking = warn_unannotated(run.unannotated if closed else None, unannotated, caller)
    n_q, n_cells = qs.n, qs.n_sys * qs.n
    unjudged = _unjudged(run, qs)
    cell, row_q, key, grade, src = _evaluated_rows(run, qs, consume)
    if len(cell) >= LARGE:
        release_memory()
    num_ret = _retrieved_counts(qs)
    repeats, judged_rows, judged_grade = _judgements_of_rows(
        run, qj, qs, cell, row_q, grade, src, int(np.count_nonzero(num_ret))
    )
    if qj is not None and len(cell):  # nothing judged, or ids that match only respelled: say so, whatever the size
        found = spelling.result() if spelling is not None else None
        warn_id_spelling(run.docs, qj.doc_ids, any_judged=bool(len(judged_rows)), found=found)
    del row_q, grade
    drop = _duplicate_rows(cell, repeats, key, run.docs, src, duplicates, run, qs.ids, n_q)
    if drop is not None:
        keep_rows = np.ones(len(cell), dtype=bool)
        keep_rows[drop] = False
        idx = np.flatnonzero(keep_rows)
        cell, key = cell[idx], key[idx]
        src = idx if src is None else src[idx]
        kept = keep_rows[judged_rows]
        judged_rows = (np.cumsum(keep_rows) - 1)[judged_rows[kept]]
        judged_grade = judged_grade[kept]
        num_ret = np.bincount(cell, minlength=n_cells).astype(np.int64)

    with np.errstate(invalid="ignore"):
        is_hit = (judged_grade > 0) | (judged_grade >= rel_min)
    hit_idx, hit_grade = judged_rows[is_hit], judged_grade[is_hit]
    if rel_min < 0:  # rows judged with a negative grade: in the pool but unjudged (trec_eval's -2), never relevant
        hit_grade = np.where(hit_grade < 0, -np.inf, hit_grade)
    above, tied, tie_rank = rank_hits(cell, key, hit_idx, n_cells, run.docs, src)
    hit_cell = cell[hit_idx].astype(np.int64)
    hit_rank = above + tie_rank + 1
    order = np.lexsort((hit_rank, hit_cell))

    present = num_ret > 0
    if depth is not None:
        num_ret = np.minimum(num_ret, depth)
    if qj is None:  # closed world
        cell_group, offsets, grades = _closed_groups(cell[judged_rows], judged_grade, n_cells, run, qs.ids, n_q)
    else:
        cell_group = np.tile(np.arange(n_q, dtype=np.int64), qs.n_sys)
        offsets, grades = _qrels_groups(qj, qs.judged_q, n_q)
    return Judged(
        systems=run.systems,
        queries=qs.ids,
        num_ret=num_ret,
        present=present,
        hit_cell=hit_cell[order],
        hit_rank=hit_rank[order],
        hit_grade=hit_grade[order],
        hit_above=above[order],
        hit_tied=tied[order],
        cell_group=cell_group,
        group_offsets=offsets,
        group_grades=grades,
        closed_world=closed and run.n_relevant is None and run.unretrieved is None,
        depth=depth,
        unjudged=unjudged,
        unannotated=lacking,
    )


def _lookup_grades_exact(row_q, docs, src, qj: QrelsArrays, judged_q: np.ndarray):
    """The judged rows and their grades (as :func:`rankviz._core.row_hashes.matched_grades`) through a dictionary of the
    judged doc ids, with no hashing shortcuts."""
    doc_codes, doc_values = encode(pa.array(qj.doc_ids.tolist(), pa.string()))
    n_docs = len(doc_values)
    judged_key = judged_q.astype(np.int64) * n_docs + doc_codes
    order = np.argsort(judged_key)
    judged_key, judged_grade = judged_key[order], qj.grades[order].astype(np.float64)

    value_set = pa.array(doc_values.tolist(), type=docs.type)
    found = filled_numpy(pc.index_in(docs, value_set=value_set), -1, np.int64)
    if src is not None:
        found = found[src]
    rows = np.flatnonzero(found >= 0)
    keys = row_q[rows].astype(np.int64) * n_docs + found[rows]
    pos = np.minimum(np.searchsorted(judged_key, keys), max(len(judged_key) - 1, 0))
    match = judged_key[pos] == keys
    return rows[match], judged_grade[pos[match]]


def _qrels_groups(qj: QrelsArrays, judged_q: np.ndarray, n_q: int) -> tuple[np.ndarray, np.ndarray]:
    """Judged grades (>= 0) per query, sorted descending within each query."""
    group = judged_q.astype(np.int64)
    grades = qj.grades.astype(np.float64)
    ok = grades >= 0
    group, grades = group[ok], grades[ok]
    order = np.lexsort((-grades, group))
    sizes = np.bincount(group, minlength=n_q)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return offsets, grades[order]


def _closed_groups(judged_cell, judged_grade, n_cells, run: RunArrays, queries, n_q):
    """Closed world: each cell's judgements are the grades of its own rows (plus n_relevant padding)."""
    ok = judged_grade >= 0
    g_cell, g_grade = judged_cell[ok].astype(np.int64), judged_grade[ok]
    if run.n_relevant is not None:
        # Binary vectors with a known number of relevant items: the unretrieved relevant ones are grade-1 items.
        found = np.bincount(g_cell, weights=(g_grade >= 1).astype(np.float64), minlength=n_cells)
        wanted = np.tile(np.asarray([run.n_relevant[q] for q in queries], dtype=np.float64), n_cells // max(n_q, 1))
        extra = np.maximum(wanted - found, 0).astype(np.int64)
        g_cell = np.concatenate([g_cell, np.repeat(np.arange(n_cells), extra)])
        g_grade = np.concatenate([g_grade, np.ones(int(extra.sum()))])
    if run.unretrieved is not None:  # gold lists: the gold items a system did not retrieve count too
        g_cell, g_grade = with_unretrieved(g_cell, g_grade, run.unretrieved, queries)
    order = np.lexsort((-g_grade, g_cell))
    sizes = np.bincount(g_cell, minlength=n_cells)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return np.arange(n_cells, dtype=np.int64), offsets, g_grade[order]


def _duplicate_rows(cell, cand, key, docs, src, policy, run: RunArrays, queries, n_q) -> np.ndarray | None:
    """Rows to drop for repeated (cell, doc) pairs, or raise when ``policy == 'error'``.

    ``cand`` is a small superset of the repeated rows, found from the hashes of every
    row's (cell, doc) pair without a sort or a dictionary of all doc ids
    (:func:`rankviz._core.row_hashes.scan_rows`). The candidates are grouped here by
    their real doc ids, so chance hash collisions are never reported and a real repeat
    is never missed. ``duplicates='first'`` keeps the highest score, ties to the first row.
    """
    if len(cell) < 2 or not len(cand):
        return None
    doc_codes, doc_values = encode(take_docs(docs, src, cand))
    pair = cell[cand].astype(np.int64) * max(len(doc_values), 1) + doc_codes
    order = np.lexsort((cand, -key[cand], pair))
    sorted_pair = pair[order]
    repeat = np.empty(len(pair), dtype=bool)
    repeat[0] = False
    repeat[1:] = sorted_pair[1:] == sorted_pair[:-1]
    if not repeat.any():
        return None
    repeated = order[repeat]
    if policy == "first":
        return cand[repeated]
    examples = []
    for i in repeated[:3]:
        c = int(cell[cand[i]])
        system = None if run.systems is None else run.systems[c // n_q]
        where = f" in system {system!r}" if system is not None else ""
        examples.append(f"query {queries[c % n_q]!r}, doc {doc_values[doc_codes[i]]!r}{where}")
    raise repeated_documents(int(repeat.sum()), examples)
