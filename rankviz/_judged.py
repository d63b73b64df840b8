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
the distinct hit scores are sorted (a few per query); each row of the run is placed
among them by a vectorised binary search, and a histogram of the placements gives,
for every distinct hit score, how many rows score strictly higher and how many
tie with it. Doc ids are compared only inside tie groups that contain a hit. The
cost is linear in the number of rows and does not depend on their order.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ._errors import DuplicateError, InputError
from ._frame import QrelsArrays, RunArrays, encode, run_arrays
from ._validation import check_choice, check_cutoff

__all__ = ["Judged", "judge"]

_CHUNK = 1 << 20


@dataclasses.dataclass(frozen=True, eq=False)
class Judged:
    """A run joined with its judgements (see the module docstring).

    Per cell (``n_systems * n_queries`` of them, system-major): ``num_ret`` (items
    retrieved, capped at ``depth``), ``present`` (the system retrieved anything for
    the query) and ``cell_group`` (which judgement group holds the cell's grades).

    Per hit, sorted by cell then rank: ``hit_cell``, ``hit_rank`` (1-based, trec_eval
    order, not capped by ``depth``), ``hit_grade``, ``hit_above`` (items scored
    strictly higher) and ``hit_tied`` (size of the hit's tie group, itself included).

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
        per_group = np.add.reduceat(flags.astype(np.int64), self.group_offsets[:-1]) if len(grades) else None
        sizes = np.diff(self.group_offsets)
        counts = np.zeros(len(sizes), dtype=np.int64)
        if per_group is not None:
            nonempty = sizes > 0
            counts[nonempty] = per_group[nonempty]
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
    data,
    qrels=None,
    *,
    rel_min: int = 1,
    depth: int | None = None,
    missing: str = "zero",
    duplicates: str = "error",
    caller: str = "evaluate",
    **columns,
) -> Judged:
    """Build the canonical :class:`Judged` arrays from a run (any input shape) and optional qrels."""
    depth = check_cutoff(depth, caller, name="depth")
    check_choice(missing, "missing", caller, ("zero", "drop", "error"))
    check_choice(duplicates, "duplicates", caller, ("error", "first"))
    run, qj = run_arrays(data, qrels, caller=caller, **columns)
    return _judge_arrays(run, qj, rel_min=rel_min, depth=depth, duplicates=duplicates, caller=caller)


def _judge_arrays(run: RunArrays, qj: QrelsArrays | None, *, rel_min, depth, duplicates, caller) -> Judged:
    n_sys = 1 if run.systems is None else len(run.systems)
    sys_codes = run.sys_codes if run.sys_codes is not None else np.zeros(len(run.q_codes), dtype=np.int64)
    closed = qj is None
    if closed:
        queries = run.query_order if run.query_order is not None else run.q_values
    else:
        queries = qj.queries()
    queries = np.asarray(queries, dtype=object)
    n_q = len(queries)
    q_index = pd.Index(queries, dtype=object)
    q_map = q_index.get_indexer(run.q_values)

    n_runq = len(run.q_values)
    seen = np.zeros((n_sys, n_runq), dtype=bool)
    if len(run.q_codes):
        pair_counts = np.bincount(sys_codes * n_runq + run.q_codes, minlength=n_sys * n_runq)
        seen = pair_counts.reshape(n_sys, n_runq) > 0
    if not closed and n_runq and (q_map < 0).all():
        run_sample = ", ".join(repr(q) for q in run.q_values[:3])
        qrels_sample = ", ".join(repr(q) for q in queries[:3])
        hint = ""
        if run.kind != qj.kind:
            hint = f" The run's query ids are {run.kind}s and the qrels' are {qj.kind}s."
        raise InputError(
            f"The run and the qrels share no query id (run: {run_sample}, ...; qrels: {qrels_sample}, ...).{hint} "
            "Check that both use the same query ids."
        )
    system_names = run.systems if run.systems is not None else (None,)
    unjudged = {name: tuple(run.q_values[seen[s] & (q_map < 0)].tolist()) for s, name in enumerate(system_names)}

    row_q = q_map[run.q_codes] if len(run.q_codes) else np.zeros(0, dtype=np.int64)
    keep = row_q >= 0
    key, docs, grade = run.key, run.docs, run.grade
    if not keep.all():
        idx = np.flatnonzero(keep)
        row_q, sys_codes, key = row_q[idx], sys_codes[idx], key[idx]
        docs = pc.take(docs, pa.array(idx))
        grade = grade[idx] if grade is not None else None
    cell = sys_codes.astype(np.int64) * n_q + row_q
    n_cells = n_sys * n_q

    if closed:
        grade = grade.copy()
    else:
        grade = _lookup_grades(row_q, docs, qj, q_index)

    drop = _duplicate_rows(cell, docs, key, duplicates, run, queries, n_q)
    if drop is not None:
        keep_rows = np.ones(len(cell), dtype=bool)
        keep_rows[drop] = False
        idx = np.flatnonzero(keep_rows)
        cell, key, grade = cell[idx], key[idx], grade[idx]
        docs = pc.take(docs, pa.array(idx))

    with np.errstate(invalid="ignore"):
        is_hit = (grade >= 0) & ((grade > 0) | (grade >= rel_min))
    hit_idx = np.flatnonzero(is_hit)
    above, tied, tie_rank = _rank_hits(cell, key, hit_idx, n_cells, docs)
    hit_cell = cell[hit_idx]
    hit_rank = above + tie_rank + 1
    order = np.lexsort((hit_rank, hit_cell))

    num_ret = np.bincount(cell, minlength=n_cells).astype(np.int64)
    present = num_ret > 0
    if depth is not None:
        num_ret = np.minimum(num_ret, depth)

    if closed:
        cell_group, offsets, grades = _closed_groups(cell, grade, n_cells, run, queries, n_q)
    else:
        cell_group = np.tile(np.arange(n_q, dtype=np.int64), n_sys)
        offsets, grades = _qrels_groups(qj, q_index, n_q)

    return Judged(
        systems=run.systems,
        queries=queries,
        num_ret=num_ret,
        present=present,
        hit_cell=hit_cell[order],
        hit_rank=hit_rank[order],
        hit_grade=grade[hit_idx][order],
        hit_above=above[order],
        hit_tied=tied[order],
        cell_group=cell_group,
        group_offsets=offsets,
        group_grades=grades,
        closed_world=closed and run.n_relevant is None,
        depth=depth,
        unjudged=unjudged,
    )


def _lookup_grades(row_q: np.ndarray, docs, qj: QrelsArrays, q_index: pd.Index) -> np.ndarray:
    """The qrels grade of every row's (query, doc) pair; NaN where the pair is not judged."""
    grade = np.full(len(row_q), np.nan)
    if not len(qj.doc_ids) or not len(row_q):
        return grade
    doc_codes, doc_values = encode(pa.array(qj.doc_ids.tolist(), pa.string()))
    n_docs = len(doc_values)
    judged_q = q_index.get_indexer(qj.query_ids)
    judged_key = judged_q.astype(np.int64) * n_docs + doc_codes
    order = np.argsort(judged_key)
    judged_key, judged_grade = judged_key[order], qj.grades[order].astype(np.float64)

    value_set = pa.array(doc_values.tolist(), type=docs.type)
    found = _filled(pc.index_in(docs, value_set=value_set), -1)
    rows = np.flatnonzero(found >= 0)
    if not len(rows):
        return grade
    keys = row_q[rows].astype(np.int64) * n_docs + found[rows]
    pos = np.searchsorted(judged_key, keys)
    pos_c = np.minimum(pos, len(judged_key) - 1)
    match = judged_key[pos_c] == keys
    grade[rows[match]] = judged_grade[pos_c[match]]
    return grade


def _filled(arr, fill: int) -> np.ndarray:
    """An Arrow integer (chunked) array as int64 NumPy, nulls replaced by ``fill``."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr.fill_null(fill).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _qrels_groups(qj: QrelsArrays, q_index: pd.Index, n_q: int) -> tuple[np.ndarray, np.ndarray]:
    """Judged grades (>= 0) per query, sorted descending within each query."""
    group = q_index.get_indexer(qj.query_ids).astype(np.int64)
    grades = qj.grades.astype(np.float64)
    ok = grades >= 0
    group, grades = group[ok], grades[ok]
    order = np.lexsort((-grades, group))
    sizes = np.bincount(group, minlength=n_q)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return offsets, grades[order]


def _closed_groups(cell, grade, n_cells, run: RunArrays, queries, n_q):
    """Closed world: each cell's judgements are the grades of its own rows (plus n_relevant padding)."""
    ok = ~np.isnan(grade) & (grade >= 0)
    g_cell, g_grade = cell[ok], grade[ok]
    if run.n_relevant is not None:
        # Binary vectors with a known number of relevant items: the unretrieved relevant ones are grade-1 items.
        found = np.bincount(g_cell, weights=(g_grade >= 1).astype(np.float64), minlength=n_cells)
        wanted = np.tile(np.asarray([run.n_relevant[q] for q in queries], dtype=np.float64), n_cells // max(n_q, 1))
        extra = np.maximum(wanted - found, 0).astype(np.int64)
        g_cell = np.concatenate([g_cell, np.repeat(np.arange(n_cells), extra)])
        g_grade = np.concatenate([g_grade, np.ones(int(extra.sum()))])
    order = np.lexsort((-g_grade, g_cell))
    sizes = np.bincount(g_cell, minlength=n_cells)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return np.arange(n_cells, dtype=np.int64), offsets, g_grade[order]


def _duplicate_rows(cell, docs, key, policy, run: RunArrays, queries, n_q) -> np.ndarray | None:
    """Rows to drop for repeated (cell, doc) pairs, or raise when ``policy == 'error'``."""
    if len(cell) < 2:
        return None
    doc_codes, doc_values = encode(docs)
    pair = cell * max(len(doc_values), 1) + doc_codes
    order = np.lexsort((np.arange(len(pair)), -key, pair))
    sorted_pair = pair[order]
    repeat = np.empty(len(pair), dtype=bool)
    repeat[0] = False
    repeat[1:] = sorted_pair[1:] == sorted_pair[:-1]
    if not repeat.any():
        return None
    if policy == "first":
        return order[repeat]
    first_rows = order[repeat]
    examples = []
    for row in first_rows[:3]:
        c = int(cell[row])
        system = None if run.systems is None else run.systems[c // n_q]
        where = f" in system {system!r}" if system is not None else ""
        examples.append(f"query {queries[c % n_q]!r}, doc {doc_values[doc_codes[row]]!r}{where}")
    raise DuplicateError(
        f"The run retrieves the same document more than once for a query ({int(repeat.sum())} repeated rows): "
        + "; ".join(examples)
        + ". trec_eval refuses such runs; pass duplicates='first' to keep the best-ranked row of each pair."
    )


def _rank_hits(cell, key, hit_idx, n_cells, docs):
    """For each hit: rows scored strictly higher in its cell, its tie-group size, and its place in the group.

    The place in the group follows trec_eval: doc ids descending in byte order.
    """
    m = len(hit_idx)
    empty = np.zeros(0, dtype=np.int64)
    if m == 0:
        return empty, empty, empty
    hit_cell, hit_key = cell[hit_idx], key[hit_idx]
    order = np.lexsort((-hit_key, hit_cell))
    s_cell, s_key = hit_cell[order], hit_key[order]
    new = np.empty(m, dtype=bool)
    new[0] = True
    new[1:] = (s_cell[1:] != s_cell[:-1]) | (s_key[1:] != s_key[:-1])
    u_key = s_key[new]
    u_cell = s_cell[new]
    n_u = len(u_key)
    hit_u = np.empty(m, dtype=np.int64)
    hit_u[order] = np.cumsum(new) - 1

    per_cell = np.bincount(u_cell, minlength=n_cells)
    u_start = np.zeros(n_cells + 1, dtype=np.int64)
    np.cumsum(per_cell, out=u_start[1:])
    has = per_cell > 0
    # Each cell gets one slot per distinct hit score plus one for "below all of them".
    shift = np.cumsum(has) - has
    n_slots = n_u + int(has.sum())
    hist = np.zeros(2 * n_slots, dtype=np.int64)
    n_iter = int(per_cell.max()).bit_length()
    eq_rows, eq_u = [], []
    for start in range(0, len(cell), _CHUNK):
        c = cell[start : start + _CHUNK]
        k = key[start : start + _CHUNK]
        inside = has[c]
        rows = None
        if not inside.all():
            rows = np.flatnonzero(inside)
            c, k = c[rows], k[rows]
        lo = u_start[c]
        end = u_start[c + 1]
        hi = end.copy()
        for _ in range(n_iter):
            active = lo < hi
            mid = (lo + hi) >> 1
            higher = active & (u_key[np.minimum(mid, n_u - 1)] > k)
            lo = np.where(higher, mid + 1, lo)
            hi = np.where(active & ~higher, mid, hi)
        eq = (lo < end) & (u_key[np.minimum(lo, n_u - 1)] == k)
        hist += np.bincount(2 * (lo + shift[c]) + eq, minlength=2 * n_slots)
        where = np.flatnonzero(eq)
        if len(where):
            eq_rows.append((where if rows is None else rows[where]) + start)
            eq_u.append(lo[where])

    cum = np.cumsum(hist)
    slot = np.arange(n_u) + shift[u_cell]
    base = 2 * (u_start[u_cell] + shift[u_cell])
    before_cell = np.where(base > 0, cum[np.maximum(base - 1, 0)], 0)
    above_u = cum[2 * slot] - before_cell
    tied_u = hist[2 * slot + 1]

    place = np.zeros(m, dtype=np.int64)
    if eq_rows:
        rows = np.concatenate(eq_rows)
        groups = np.concatenate(eq_u)
        shared = tied_u[groups] > 1
        if shared.any():
            place = _tie_places(rows[shared], groups[shared], hit_idx, hit_u, docs)
    return above_u[hit_u], tied_u[hit_u], place


def _tie_places(rows, groups, hit_idx, hit_u, docs) -> np.ndarray:
    """Place of each hit inside its tie group when doc ids are sorted descending (0 = first)."""
    table = pa.table({"g": pa.array(groups), "d": pc.take(docs, pa.array(rows))})
    order = pc.sort_indices(table, sort_keys=[("g", "ascending"), ("d", "descending")]).to_numpy()
    sorted_groups = groups[order]
    starts = np.r_[0, np.flatnonzero(sorted_groups[1:] != sorted_groups[:-1]) + 1]
    first = np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    place_of_row = np.arange(len(order)) - first
    sorted_rows = rows[order]
    lookup = np.argsort(sorted_rows)
    pos = np.searchsorted(sorted_rows[lookup], hit_idx)
    pos = np.minimum(pos, len(lookup) - 1)
    matched = sorted_rows[lookup[pos]] == hit_idx
    place = np.zeros(len(hit_idx), dtype=np.int64)
    place[matched] = place_of_row[lookup[pos[matched]]]
    return place
