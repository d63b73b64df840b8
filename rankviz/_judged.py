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
Factorizing millions of mostly-unique doc ids costs seconds. Instead every row's
(cell, doc id) pair gets a 64-bit hash read straight from the Arrow string buffers
(:mod:`rankviz._hashing`). The qrels join keeps the rows whose hash passes two bit
tables of the judged pairs' hashes, matches them on the full hash and confirms each
match on the real strings. Duplicate pairs are found by counting hash buckets in
cache-sized chunks of whole cells (rows grouped by query, as in a TREC run) or of a
radix partition (rows in any order); the few candidates are grouped by their real
doc ids. Hash collisions can cost time, never correctness: a match or a duplicate
is only reported after comparing the strings, and equal strings always hash alike.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ._errors import DuplicateError, InputError
from ._frame import QrelsArrays, RunArrays, encode, run_arrays
from ._hashing import contiguous_units, repeated_candidates, string_hashes
from ._options import EvalOptions

__all__ = ["Judged", "judge"]

_CHUNK = 1 << 18  # rows per pass of the rank search: its temporaries stay in cache
_BLOCK = 1 << 15  # elements per block of the bit-table probes
# The fixed-width rank search is used while its table has at most this many slots (8 MB), or 8 per distinct hit score.
_MAX_BLOCK_SLOTS = 1 << 20
_BLOCK_SLOTS_PER_SCORE = 8


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


def judge(data, qrels, options: EvalOptions, *, rel_min: int = 1, caller: str = "evaluate", with_arrays: bool = False):
    """Build the canonical :class:`Judged` arrays from a run (any input shape) and optional qrels.

    ``qrels`` is a long DataFrame or None (closed world). ``options`` is the call's
    validated :class:`~rankviz._options.EvalOptions`. With ``with_arrays=True``
    returns ``(Judged, RunArrays)``, for callers that also need the per-row arrays
    (the tie report) without reading the frame a second time.
    """
    run, qj = run_arrays(
        data, qrels, caller=caller, columns=options.columns, order=options.order, score_dtype=options.score_dtype
    )
    judged = _judge_arrays(run, qj, rel_min=rel_min, depth=options.depth, duplicates=options.duplicates, caller=caller)
    return (judged, run) if with_arrays else judged


def _judge_arrays(run: RunArrays, qj: QrelsArrays | None, *, rel_min, depth, duplicates, caller) -> Judged:
    n_sys = 1 if run.systems is None else len(run.systems)
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
    n_cells = n_sys * n_q
    # Per-row codes fit in 32 bits almost always: half the memory traffic of int64.
    index_type = np.int32 if max(n_cells, n_sys * n_runq) < 2**31 - 1 else np.int64

    q_codes, sys_codes = run.q_codes, run.sys_codes
    pair_counts = np.zeros((n_sys, n_runq), dtype=np.int64)
    if len(q_codes):
        pair = q_codes if sys_codes is None else sys_codes.astype(np.int64) * n_runq + q_codes
        pair_counts = np.bincount(pair, minlength=n_sys * n_runq).reshape(n_sys, n_runq)
        del pair
    seen = pair_counts > 0
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

    # Rows of queries that are not evaluated are left out; ``src`` maps the rows kept to the run's rows
    # (None while they are all of them, in order), so the doc ids are never copied.
    row_q = np.take(q_map.astype(index_type), q_codes) if len(q_codes) else np.zeros(0, dtype=index_type)
    key, grade, src = run.key, run.grade, None
    keep = row_q >= 0
    if not keep.all():
        src = np.flatnonzero(keep)
        row_q, key = row_q[src], key[src]
        sys_codes = sys_codes[src] if sys_codes is not None else None
        grade = grade[src] if grade is not None else None
    del keep
    cell = row_q if sys_codes is None else sys_codes.astype(index_type) * n_q + row_q

    # 64-bit hashes of the (cell, doc id) pairs serve both the duplicate check and the qrels join: the judged
    # pairs are hashed once per system. With very many systems the join gets (query, doc id) hashes of its own.
    per_system = closed or sys_codes is None or n_sys * len(qj.doc_ids) <= max(len(cell) // 16, 1 << 16)
    salts = [cell] if per_system else [cell, row_q]
    keys = _pair_keys(run.docs, src, salts) if len(cell) else [np.zeros(0, dtype=np.uint64) for _ in salts]
    cell_keys = keys[0]
    # Judgements are kept sparse: the rows that have a grade (sorted) and their grades.
    if closed:
        judged_rows = np.flatnonzero(~np.isnan(grade))
        judged_grade = grade[judged_rows]
    else:
        copies = n_sys if per_system else 1
        judged_rows, judged_grade = _lookup_grades(len(cell), keys[-1], copies, n_q, run.docs, src, qj, q_index, row_q)
    del row_q, keys, grade

    # Items per cell from the counts per (system, run query) already made.
    num_ret = np.zeros(n_cells, dtype=np.int64)
    evaluated = q_map >= 0
    cells_of_pairs = (np.arange(n_sys)[:, None] * n_q + q_map[None, :])[:, evaluated]
    num_ret[cells_of_pairs.ravel()] = pair_counts[:, evaluated].ravel()
    drop = _duplicate_rows(cell, cell_keys, key, run.docs, src, duplicates, run, queries, n_q, int(np.count_nonzero(num_ret)))
    del cell_keys
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
        is_hit = (judged_grade >= 0) & ((judged_grade > 0) | (judged_grade >= rel_min))
    hit_idx, hit_grade = judged_rows[is_hit], judged_grade[is_hit]
    above, tied, tie_rank = _rank_hits(cell, key, hit_idx, n_cells, run.docs, src)
    hit_cell = cell[hit_idx].astype(np.int64)
    hit_rank = above + tie_rank + 1
    order = np.lexsort((hit_rank, hit_cell))

    present = num_ret > 0
    if depth is not None:
        num_ret = np.minimum(num_ret, depth)

    if closed:
        cell_group, offsets, grades = _closed_groups(cell[judged_rows], judged_grade, n_cells, run, queries, n_q)
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
        hit_grade=hit_grade[order],
        hit_above=above[order],
        hit_tied=tied[order],
        cell_group=cell_group,
        group_offsets=offsets,
        group_grades=grades,
        closed_world=closed and run.n_relevant is None,
        depth=depth,
        unjudged=unjudged,
    )


def _pair_keys(docs, src, salts) -> list[np.ndarray]:
    """The hash of (salt, doc id) of every kept row, for each salt array (see :mod:`rankviz._hashing`)."""
    if src is None:
        return string_hashes(docs, salts)
    full = []
    for salt in salts:
        spread = np.zeros(len(docs), dtype=salt.dtype)
        spread[src] = salt
        full.append(spread)
    return [keys[src] for keys in string_hashes(docs, full)]


def _take(docs, src, idx) -> pa.Array:
    """The doc ids of the kept rows ``idx``, taken chunk by chunk (a chunked take may copy every chunk)."""
    rows = idx if src is None else src[idx]
    if not isinstance(docs, pa.ChunkedArray):
        return docs.take(pa.array(rows))
    lengths = np.fromiter((len(c) for c in docs.chunks), dtype=np.int64, count=docs.num_chunks)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    which = np.searchsorted(starts, rows, side="right") - 1
    parts = []
    order = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[order], np.arange(docs.num_chunks + 1))
    for c in np.flatnonzero(np.diff(bounds)):
        picked = order[bounds[c] : bounds[c + 1]]
        parts.append((picked, docs.chunk(int(c)).take(pa.array(rows[picked] - starts[c]))))
    if not parts:
        return pa.array([], type=docs.type)
    taken = pa.concat_arrays([p for _, p in parts])
    position = np.concatenate([picked for picked, _ in parts])
    if len(parts) == 1 or (np.diff(position) > 0).all():
        return taken
    return taken.take(pa.array(np.argsort(position)))


def _lookup_grades(n_rows, row_keys, copies, n_q, docs, src, qj: QrelsArrays, q_index: pd.Index, row_q):
    """The judged rows (sorted) and their qrels grades.

    ``row_keys`` hash every row's (salt, doc id): salt = cell (``system * n_q + query``)
    when ``copies`` is the number of systems, so the judged pairs are hashed once per
    system; salt = query when ``copies`` is 1. Two bit tables of the judged hashes let
    through the judged rows and a fraction of a percent of the others; those are
    matched on the full hash and confirmed by comparing the doc ids, so a hash
    collision never joins a grade.
    """
    empty = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    n_judged = len(qj.doc_ids)
    if not n_judged or not n_rows:
        return empty
    judged_docs = pa.array(qj.doc_ids.tolist(), pa.string())
    judged_q = q_index.get_indexer(qj.query_ids)
    salt = (np.arange(copies, dtype=np.int64)[:, None] * n_q + judged_q[None, :]).ravel()
    judged_key = string_hashes(pa.concat_arrays([judged_docs] * copies), [salt])[0]
    order = np.argsort(judged_key)
    sorted_key = judged_key[order]
    if (sorted_key[1:] == sorted_key[:-1]).any():
        # Two judged pairs of one query share a hash (long ids alike in every byte read): match exactly instead.
        return _lookup_grades_exact(row_q, docs, src, qj, q_index)

    bits = min(26, max(10, (32 * len(judged_key)).bit_length()))
    cand = _bit_filter(row_keys, judged_key, bits, 0)
    keys = row_keys[cand]
    second = _bit_filter(keys, judged_key, bits, 32)
    cand, keys = cand[second], keys[second]
    pos = np.minimum(np.searchsorted(sorted_key, keys), len(sorted_key) - 1)
    match = sorted_key[pos] == keys
    rows, judged = cand[match], order[pos[match]] % n_judged
    if not len(rows):
        return empty
    run_ids = _take(docs, src, rows)
    same = _bools(pc.equal(run_ids, judged_docs.take(pa.array(judged)).cast(run_ids.type)))
    return rows[same], qj.grades[judged[same]].astype(np.float64)


def _bit_filter(values: np.ndarray, members: np.ndarray, bits: int, shift: int) -> np.ndarray:
    """Positions of ``values`` whose bits ``shift .. shift + bits`` are those of some member (no false negatives).

    The table is a packed bit set (2**bits bits; 256 KB for 2**21), so it stays in cache.
    """
    mask = np.uint64((1 << bits) - 1)
    slots = ((members >> np.uint64(shift)) & mask).astype(np.int64)
    table = np.zeros(1 << max(bits - 3, 0), dtype=np.uint8)
    np.bitwise_or.at(table, slots >> 3, (1 << (slots & 7)).astype(np.uint8))
    hit = np.empty(len(values), dtype=bool)
    for start in range(0, len(values), _BLOCK):
        probe = values[start : start + _BLOCK] >> np.uint64(shift)
        probe &= mask
        slot = probe.view(np.int64)
        byte = np.take(table, slot >> 3)
        byte >>= (slot & 7).astype(np.uint8)
        np.bitwise_and(byte, 1, out=byte)
        hit[start : start + _BLOCK] = byte
    return np.flatnonzero(hit)


def _bools(arr) -> np.ndarray:
    """An Arrow boolean (chunked) array as NumPy, nulls as False."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr.fill_null(False).to_numpy(zero_copy_only=False).astype(bool, copy=False)


def _lookup_grades_exact(row_q, docs, src, qj: QrelsArrays, q_index: pd.Index):
    """:func:`_lookup_grades` through a dictionary of the judged doc ids (no hashing shortcuts)."""
    doc_codes, doc_values = encode(pa.array(qj.doc_ids.tolist(), pa.string()))
    n_docs = len(doc_values)
    judged_q = q_index.get_indexer(qj.query_ids)
    judged_key = judged_q.astype(np.int64) * n_docs + doc_codes
    order = np.argsort(judged_key)
    judged_key, judged_grade = judged_key[order], qj.grades[order].astype(np.float64)

    value_set = pa.array(doc_values.tolist(), type=docs.type)
    found = _filled(pc.index_in(docs, value_set=value_set), -1)
    if src is not None:
        found = found[src]
    rows = np.flatnonzero(found >= 0)
    keys = row_q[rows].astype(np.int64) * n_docs + found[rows]
    pos = np.minimum(np.searchsorted(judged_key, keys), max(len(judged_key) - 1, 0))
    match = judged_key[pos] == keys
    return rows[match], judged_grade[pos[match]]


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
    order = np.lexsort((-g_grade, g_cell))
    sizes = np.bincount(g_cell, minlength=n_cells)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return np.arange(n_cells, dtype=np.int64), offsets, g_grade[order]


def _duplicate_rows(cell, keys, key, docs, src, policy, run: RunArrays, queries, n_q, n_present) -> np.ndarray | None:
    """Rows to drop for repeated (cell, doc) pairs, or raise when ``policy == 'error'``.

    ``keys`` hold the hash of every row's (cell, doc) pair: they give a small superset
    of the repeated rows without a sort or a dictionary of all doc ids
    (:func:`rankviz._hashing.repeated_candidates`). The candidates are then grouped by
    their real doc ids, so chance hash collisions are never reported and a real repeat
    is never missed. ``duplicates='first'`` keeps the highest score, ties to the first row.
    """
    if len(cell) < 2:
        return None
    cand = repeated_candidates(keys, contiguous_units(cell, n_present))
    if not len(cand):
        return None
    doc_codes, doc_values = encode(_take(docs, src, cand))
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
    raise DuplicateError(
        f"The run retrieves the same document more than once for a query ({int(repeat.sum())} repeated rows): "
        + "; ".join(examples)
        + ". trec_eval refuses such runs; pass duplicates='first' to keep the best-ranked row of each pair."
    )


def _rank_hits(cell, key, hit_idx, n_cells, docs, src):
    """For each hit: rows scored strictly higher in its cell, its tie-group size, and its place in the group.

    The place in the group follows trec_eval: doc ids descending in byte order.
    """
    m = len(hit_idx)
    empty = np.zeros(0, dtype=np.int64)
    if m == 0:
        return empty, empty, empty
    hit_cell, hit_key = cell[hit_idx].astype(np.int64), key[hit_idx]
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
    n_blocks = int(np.count_nonzero(has))
    width = 1 << int(per_cell.max()).bit_length()
    if (n_blocks + 1) * width > max(_BLOCK_SLOTS_PER_SCORE * n_u, _MAX_BLOCK_SLOTS):
        above_u, tied_u, eq_rows, eq_u = _place_rows_search(cell, key, u_key, u_start, has, per_cell, n_u)
    else:
        above_u, tied_u, eq_rows, eq_u = _place_rows_blocks(cell, key, u_key, u_cell, u_start, has, n_blocks, width)

    place = np.zeros(m, dtype=np.int64)
    if len(eq_rows):
        shared = tied_u[eq_u] > 1
        if shared.any():
            place = _tie_places(eq_rows[shared], eq_u[shared], hit_idx, hit_u, docs, src)
    return above_u[hit_u], tied_u[hit_u], place


def _place_rows_blocks(cell, key, u_key, u_cell, u_start, has, n_blocks, width):
    """Place every row among its cell's distinct hit scores (the usual case: a few per cell).

    Each cell with hits gets a block of ``width`` (a power of two above its count)
    slots holding its distinct hit scores in descending order, padded with -inf. A
    branchless binary search with fixed steps gives every row ``p``, the number of
    its cell's hit scores above it, in log2(width) gathers, and whether it ties one
    of them. The histogram of (p, tie) per block is the rank information of every
    distinct hit score. Rows scored below every hit of their cell (most of a deep
    run) cannot move a hit's rank and are skipped after one comparison.
    """
    n_u = len(u_key)
    block_of_cell = np.full(len(has), n_blocks, dtype=np.int64)
    block_of_cell[has] = np.arange(n_blocks)
    within = np.arange(n_u) - u_start[u_cell]
    slot_of_u = block_of_cell[u_cell] * width + within
    flat = np.full((n_blocks + 1) * width + width, -np.inf)
    flat[slot_of_u] = u_key
    u_of_slot = np.full(len(flat), -1, dtype=np.int64)
    u_of_slot[slot_of_u] = np.arange(n_u)
    index_type = np.int32 if 2 * len(flat) < 2**31 else np.int64  # 2 * slot + tie must fit
    base_of_cell = (block_of_cell * width).astype(index_type)
    lowest_hit = np.full(len(has), np.inf)
    lowest_hit[has] = u_key[u_start[1:][has] - 1]
    steps = []
    step = width >> 1
    while step:
        steps.append(step)
        step >>= 1
    # flat[step - 1 + p] as a view, so each step is one gather, one comparison and one masked add.
    shifted = [flat[s - 1 :] for s in steps]

    n_slots = (n_blocks + 1) * width
    placed, eq_rows, eq_slot = [], [], []
    for start in range(0, len(cell), _CHUNK):
        c = cell[start : start + _CHUNK]
        k = key[start : start + _CHUNK]
        sel = np.flatnonzero(k >= np.take(lowest_hit, c))
        c, k = c[sel], k[sel]
        p = np.take(base_of_cell, c)
        for s, view in zip(steps, shifted):
            np.add(p, s, out=p, where=np.take(view, p) > k)
        eq = np.take(flat, p) == k
        where = np.flatnonzero(eq)
        p *= 2
        p += eq
        placed.append(p)
        if len(where):
            eq_rows.append(sel[where] + start)
            eq_slot.append(p[where] >> 1)
    # One histogram at the end: a bincount per chunk would clear the whole table every time.
    hist = np.bincount(np.concatenate(placed), minlength=2 * n_slots) if placed else np.zeros(2 * n_slots, dtype=np.int64)
    del placed

    cum = np.cumsum(hist)
    block_start = 2 * (block_of_cell[u_cell] * width)
    before_block = np.where(block_start > 0, cum[np.maximum(block_start - 1, 0)], 0)
    above_u = cum[2 * slot_of_u] - before_block
    tied_u = hist[2 * slot_of_u + 1]
    if eq_rows:
        rows = np.concatenate(eq_rows)
        groups = u_of_slot[np.concatenate(eq_slot)]
    else:
        rows = groups = np.zeros(0, dtype=np.int64)
    return above_u, tied_u, rows, groups


def _place_rows_search(cell, key, u_key, u_start, has, per_cell, n_u):
    """:func:`_place_rows_blocks` for cells with many distinct hit scores: a binary search over each cell's own range."""
    n_cells = len(has)
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

    u_cell = np.repeat(np.arange(n_cells), per_cell)
    cum = np.cumsum(hist)
    slot = np.arange(n_u) + shift[u_cell]
    base = 2 * (u_start[u_cell] + shift[u_cell])
    before_cell = np.where(base > 0, cum[np.maximum(base - 1, 0)], 0)
    above_u = cum[2 * slot] - before_cell
    tied_u = hist[2 * slot + 1]
    if eq_rows:
        return above_u, tied_u, np.concatenate(eq_rows), np.concatenate(eq_u)
    empty = np.zeros(0, dtype=np.int64)
    return above_u, tied_u, empty, empty


def _tie_places(rows, groups, hit_idx, hit_u, docs, src) -> np.ndarray:
    """Place of each hit inside its tie group when doc ids are sorted descending (0 = first)."""
    table = pa.table({"g": pa.array(groups), "d": _take(docs, src, rows)})
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
