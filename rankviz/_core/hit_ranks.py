"""Ranks of the judged hits without sorting the run (see :mod:`rankviz._core.judged` for the method).

For every cell the distinct hit scores are placed in a fixed-width block; each row of
the run is placed among its cell's block by a branchless binary search, and a
histogram of the placements gives, for every distinct hit score, how many rows score
strictly higher and how many tie with it. Doc ids are compared only inside tie
groups that contain a hit (trec_eval breaks ties by doc id descending).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .threads import parallel_map

__all__ = ["filled_numpy", "rank_hits", "take_docs"]

_CHUNK = 1 << 18  # rows per pass of the rank search: its temporaries stay in cache
_PARALLEL_ROWS = 1 << 20  # runs of at least twice this many rows are placed in two halves on two threads
# The fixed-width rank search is used while its table has at most this many slots (8 MB), or 8 per distinct hit score.
_MAX_BLOCK_SLOTS = 1 << 20
_BLOCK_SLOTS_PER_SCORE = 8


def filled_numpy(arr, fill, dtype) -> np.ndarray:
    """An Arrow (chunked) array as NumPy of ``dtype``, nulls replaced by ``fill``."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr.fill_null(fill).to_numpy(zero_copy_only=False).astype(dtype, copy=False)


def take_docs(docs, src, idx) -> pa.Array:
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


def rank_hits(cell, key, hit_idx, n_cells, docs, src):
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

    def place(lo: int, hi: int):
        """The histogram of rows ``lo .. hi`` and their rows that tie a hit score, with its slot."""
        placed, eq_rows, eq_slot = [], [], []
        for start in range(lo, hi, _CHUNK):
            stop = min(start + _CHUNK, hi)
            c = cell[start:stop]
            k = key[start:stop]
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
        # One histogram per share of the rows: a bincount per chunk would clear the whole table every time.
        counts = np.bincount(np.concatenate(placed), minlength=2 * n_slots) if placed else None
        return counts, eq_rows, eq_slot

    n = len(cell)
    cuts = [0, n] if n < 2 * _PARALLEL_ROWS else [0, n // 2 // _CHUNK * _CHUNK, n]
    shares = parallel_map(place, cuts[:-1], cuts[1:])
    hist = np.zeros(2 * n_slots, dtype=np.int64)
    for counts, _, _ in shares:
        if counts is not None:
            hist += counts
    eq_rows = [r for _, rows, _ in shares for r in rows]
    eq_slot = [s for _, _, slots in shares for s in slots]
    del shares

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
    table = pa.table({"g": pa.array(groups), "d": take_docs(docs, src, rows)})
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
