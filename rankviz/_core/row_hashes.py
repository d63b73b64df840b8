"""The qrels join and the duplicate check, from hashes of every row's doc id made piece by piece.

Both steps of :mod:`rankviz._core.judged` that look at every row of a run work on a
64-bit hash of the row's doc id (:func:`rankviz._core.hashing.doc_hashes`):

- the join lets through the rows whose doc id's hash passes two bit tables of the
  judged doc ids' hashes (every judged row, and a few others: a doc judged for another
  query, a chance pass), then matches those few on their (query, doc id) key;
- the duplicate check keys every row by its (cell, doc id) -- the doc id's hash plus
  the cell times an odd constant -- and lets through the rows whose key may repeat.

Neither needs the hashes of all rows at once. When the rows come grouped by cell (a
TREC run, a frame sorted by query), :func:`scan_rows` hashes them in pieces of about
250,000 rows that never cut a cell, and keeps of each piece only the few rows either
step lets through: the hashes of a 7M-row run would be 56 MB, a piece's 2 MB. Pieces
are independent, so a long run's are shared by two threads (NumPy releases the GIL).
Otherwise (rows in any order) the duplicate check needs every key at once: they are
made piece by piece into one array (only the kept rows', never the dropped ones').

Nothing here decides alone: a joined grade is confirmed by comparing the doc ids,
and the duplicate candidates are grouped by their real doc ids by the caller.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .hashing import MAX_TABLE_BITS, bit_filter, bit_table, doc_hashes, piece_bounds, repeated_candidates
from .hit_ranks import filled_numpy, take_docs
from .long_run import QrelsArrays
from .memory import LARGE, release_memory
from .threads import THREADS, parallel_map

__all__ = ["JudgedKeys", "Scan", "judged_keys", "matched_grades", "scan_rows"]

_PIECE_ROWS = 1 << 18  # rows hashed at a time
_THREADS = THREADS  # threads sharing the pieces of a long run
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # odd: key = doc hash + salt * _GOLDEN is one-to-one in the salt


@dataclasses.dataclass(frozen=True)
class JudgedKeys:
    """The judged (query, doc id) pairs' keys, sorted, and the bits of two filters of their doc ids' hashes."""

    docs: pa.Array  # the judged doc ids
    sorted_key: np.ndarray
    order: np.ndarray  # sorted position -> judged pair
    bits: int
    tables: tuple[np.ndarray, np.ndarray]  # the sets of bits 0 .. bits and 32 .. 32 + bits of the doc id hashes


def salted(hashes: np.ndarray, salt: np.ndarray) -> np.ndarray:
    """Keys of (salt, doc id) pairs from the doc ids' hashes, in place: equal pairs, equal keys.

    ``hash + salt * golden`` (mod 2**64): for a given hash one-to-one in the salt, and two
    different pairs share a key only when their hashes differ by exactly a multiple of
    the odd constant fixed by their salts, about 2**-64 for well-mixed hashes.
    """
    step = salt.astype(np.uint64)
    step *= _GOLDEN
    hashes += step
    return hashes


def judged_keys(qj: QrelsArrays, judged_q: np.ndarray) -> JudgedKeys | None:
    """The keys of the judged (query, doc id) pairs (``judged_q``: each judgement's query number); None when two of them share a key (long ids alike in every
    byte read): then the join must go through the doc ids themselves."""
    judged_docs = pa.array(qj.doc_ids.tolist(), pa.string())
    hashes = doc_hashes(judged_docs)
    bits = min(MAX_TABLE_BITS, max(10, (32 * len(hashes)).bit_length()))
    tables = (bit_table(hashes, bits, 0), bit_table(hashes, bits, 32))
    judged_key = salted(hashes, judged_q)
    order = np.argsort(judged_key)
    sorted_key = judged_key[order]
    if (sorted_key[1:] == sorted_key[:-1]).any():
        return None
    return JudgedKeys(judged_docs, sorted_key, order, bits, tables)


def _join_candidates(hashes: np.ndarray, jk: JudgedKeys) -> np.ndarray:
    """Positions of ``hashes`` that pass both bit filters: every judged doc id and a fraction of a percent of the
    others."""
    cand = bit_filter(hashes, jk.tables[0], jk.bits, 0)
    return cand[bit_filter(hashes[cand], jk.tables[1], jk.bits, 32)]


def matched_grades(rows: np.ndarray, keys: np.ndarray, jk: JudgedKeys, docs, src, grades: np.ndarray):
    """The judged rows among the candidates ``rows`` (their (query, doc id) keys ``keys``) and their grades: equal
    key, then equal doc id (so a hash collision never joins a grade)."""
    pos = np.minimum(np.searchsorted(jk.sorted_key, keys), len(jk.sorted_key) - 1)
    match = jk.sorted_key[pos] == keys
    rows, judged = rows[match], jk.order[pos[match]]
    if not len(rows):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    run_ids = take_docs(docs, src, rows)
    same = filled_numpy(pc.equal(run_ids, jk.docs.take(pa.array(judged)).cast(run_ids.type)), False, bool)
    return rows[same], grades[judged[same]].astype(np.float64)


@dataclasses.dataclass(frozen=True)
class Scan:
    """What :func:`scan_rows` keeps: the join's candidate rows and their keys, and the duplicate candidates."""

    join_rows: np.ndarray
    join_keys: np.ndarray
    repeats: np.ndarray  # rows (sorted) that may repeat a (cell, doc id) pair


def _piece_hashes(docs, src, a: int, b: int) -> np.ndarray:
    """The doc id hashes of kept rows ``a .. b`` (``src`` maps kept rows to the run's rows, in order).

    The doc ids are hashed where they are, never copied: with ``src``, the run's rows
    from the piece's first to its last kept one are hashed and the kept rows' picked out.
    """
    if b <= a:
        return np.zeros(0, dtype=np.uint64)
    if src is None:
        return doc_hashes(docs.slice(a, b - a))
    first, last = int(src[a]), int(src[b - 1]) + 1
    return doc_hashes(docs.slice(first, last - first))[src[a:b] - first]


def scan_rows(docs, src, cell: np.ndarray, row_q: np.ndarray, jk: JudgedKeys | None, units) -> Scan:
    """Hash every kept row's doc id; keep the join's candidates (with ``jk``) and the duplicate candidates.

    ``cell`` and ``row_q`` are the kept rows' cells and query numbers (the same array
    for a run of one system). ``units`` are the start rows of the cells
    (:func:`rankviz._core.hashing.contiguous_units`) or None when the rows are not
    grouped by cell.
    """
    n = len(cell)
    if units is not None and n:
        bounds = piece_bounds(units, _PIECE_ROWS)
        every = None
    else:  # the duplicate check needs every key at once; they are still made (and joined) piece by piece
        bounds = np.unique(np.r_[np.arange(0, n, _PIECE_ROWS), n]).astype(np.int64)
        every = np.empty(n, dtype=np.uint64)

    def piece(a: int, b: int):
        hashes = _piece_hashes(docs, src, a, b)
        join = None
        if jk is not None:
            cand = _join_candidates(hashes, jk)
            join = (cand + a, hashes[cand])
        keys = salted(hashes, cell[a:b])
        if every is not None:
            every[a:b] = keys
            return join, None
        return join, repeated_candidates(keys) + a  # no cell crosses the piece's bounds (a and b are cell starts)

    done = parallel_map(piece, bounds[:-1].tolist(), bounds[1:].tolist(), workers=_THREADS)
    joins = [join for join, _ in done if join is not None]
    repeats = [rep for _, rep in done if rep is not None]
    del done
    if every is not None:
        repeats = [repeated_candidates(every)]
        del every
    repeated = np.concatenate(repeats) if repeats else np.zeros(0, dtype=np.int64)
    if n >= LARGE:  # the hashes and the filters' temporaries, freed: give them back (threads keep their own arenas)
        release_memory()
    if not joins:
        return Scan(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64), repeated)
    join_rows = np.concatenate([rows for rows, _ in joins])
    join_keys = salted(np.concatenate([hashes for _, hashes in joins]), row_q[join_rows])
    return Scan(join_rows, join_keys, repeated)
