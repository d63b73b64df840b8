"""The qrels join and the duplicate check, from hashes of every row's (cell, doc id) made piece by piece.

Both steps of :mod:`rankviz._core.judged` that look at every row of a run work on a
64-bit hash of the row's (salt, doc id) pair (:mod:`rankviz._core.hashing`): the join
lets through the rows whose hash is among the judged pairs' hashes, and the
duplicate check the rows whose hash may repeat. Neither needs the hashes of all
rows at once. When the rows come grouped by cell (a TREC run, a frame sorted by
query), :func:`scan_rows` hashes them in pieces of about 500,000 rows that never
cut a cell, and keeps of each piece only the few rows either step lets through and
their hashes: the hashes of a 7M-row run would be 56 MB, a piece's 4 MB.
Otherwise (rows in any order) the duplicate check needs every hash at once: they
are made piece by piece into one array (only the kept rows', never the dropped ones').

Nothing here decides alone: a joined grade is confirmed by comparing the doc ids,
and the duplicate candidates are grouped by their real doc ids by the caller.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .hashing import piece_bounds, repeated_candidates, string_hashes, units_fit
from .hit_ranks import filled_numpy, take_docs
from .long_run import QrelsArrays
from .memory import LARGE, release_memory

__all__ = ["JudgedKeys", "Scan", "judged_keys", "matched_grades", "scan_rows"]

_BLOCK = 1 << 15  # elements per block of the bit-table probes
_PIECE_ROWS = 1 << 19  # rows hashed at a time when the rows come grouped by cell


@dataclasses.dataclass(frozen=True)
class JudgedKeys:
    """The judged (salt, doc id) pairs' hashes, sorted, and the bits of two filters that let their rows through."""

    docs: pa.Array  # the judged doc ids
    sorted_key: np.ndarray
    order: np.ndarray  # sorted position -> judged pair (times the copies)
    bits: int
    tables: tuple[np.ndarray, np.ndarray]  # the packed bit sets of bits 0 .. bits and 32 .. 32 + bits of the hashes


def judged_keys(qj: QrelsArrays, q_index: pd.Index, copies: int, n_q: int) -> JudgedKeys | None:
    """The hashes of the judged pairs, ``copies`` times (salt = copy * n_q + query); None when two of them share a
    hash (long ids alike in every byte read): then the join must go through the doc ids themselves."""
    judged_docs = pa.array(qj.doc_ids.tolist(), pa.string())
    judged_q = q_index.get_indexer(pd.Index(qj.query_ids))
    salt = (np.arange(copies, dtype=np.int64)[:, None] * n_q + judged_q[None, :]).ravel()
    judged_key = string_hashes(pa.concat_arrays([judged_docs] * copies), [salt])[0]
    order = np.argsort(judged_key)
    sorted_key = judged_key[order]
    if (sorted_key[1:] == sorted_key[:-1]).any():
        return None
    bits = min(26, max(10, (32 * len(judged_key)).bit_length()))
    return JudgedKeys(
        judged_docs, sorted_key, order, bits, (_bit_table(sorted_key, bits, 0), _bit_table(sorted_key, bits, 32))
    )


def _bit_table(members: np.ndarray, bits: int, shift: int) -> np.ndarray:
    """A packed bit set (2**bits bits; 256 KB for 2**21, so it stays in cache) of the members' bits ``shift ..``."""
    mask = np.uint64((1 << bits) - 1)
    slots = ((members >> np.uint64(shift)) & mask).astype(np.int64)
    table = np.zeros(1 << max(bits - 3, 0), dtype=np.uint8)
    np.bitwise_or.at(table, slots >> 3, (1 << (slots & 7)).astype(np.uint8))
    return table


def _bit_filter(values: np.ndarray, table: np.ndarray, bits: int, shift: int) -> np.ndarray:
    """Positions of ``values`` whose bits ``shift .. shift + bits`` are set in ``table`` (:func:`_bit_table`: no
    false negatives)."""
    mask = np.uint64((1 << bits) - 1)
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


def _join_candidates(keys: np.ndarray, jk: JudgedKeys) -> np.ndarray:
    """Positions of ``keys`` that pass both bit filters: every judged row and a fraction of a percent of the others."""
    cand = _bit_filter(keys, jk.tables[0], jk.bits, 0)
    return cand[_bit_filter(keys[cand], jk.tables[1], jk.bits, 32)]


def matched_grades(rows: np.ndarray, keys: np.ndarray, jk: JudgedKeys, docs, src, grades: np.ndarray):
    """The judged rows among the candidates ``rows`` (their hashes ``keys``) and their grades: equal hash, then
    equal doc id (so a hash collision never joins a grade)."""
    n_judged = len(jk.docs)
    pos = np.minimum(np.searchsorted(jk.sorted_key, keys), len(jk.sorted_key) - 1)
    match = jk.sorted_key[pos] == keys
    rows, judged = rows[match], jk.order[pos[match]] % n_judged
    if not len(rows):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    run_ids = take_docs(docs, src, rows)
    same = filled_numpy(pc.equal(run_ids, jk.docs.take(pa.array(judged)).cast(run_ids.type)), False, bool)
    return rows[same], grades[judged[same]].astype(np.float64)


@dataclasses.dataclass(frozen=True)
class Scan:
    """What :func:`scan_rows` keeps: the join's candidate rows and their hashes, and the duplicate candidates."""

    join_rows: np.ndarray
    join_keys: np.ndarray
    repeats: np.ndarray  # rows (sorted) that may repeat a (cell, doc id) pair


def _piece_keys(docs, src, salts, a: int, b: int) -> list[np.ndarray]:
    """The hashes of kept rows ``a .. b`` with each salt (``src`` maps kept rows to the run's rows, in order).

    The doc ids are hashed where they are, never copied: with ``src``, the run's rows
    from the piece's first to its last kept one are hashed, each salt spread over them
    (the rows left out get salt 0), and the kept rows' hashes picked out.
    """
    if b <= a:
        return [np.zeros(0, dtype=np.uint64) for _ in salts]
    if src is None:
        return string_hashes(docs.slice(a, b - a), [salt[a:b] for salt in salts])
    first, last = int(src[a]), int(src[b - 1]) + 1
    rows = src[a:b] - first
    spread = []
    for salt in salts:
        full = np.zeros(last - first, dtype=salt.dtype)
        full[rows] = salt[a:b]
        spread.append(full)
    return [keys[rows] for keys in string_hashes(docs.slice(first, last - first), spread)]


def scan_rows(docs, src, cell: np.ndarray, join_salt: np.ndarray | None, jk: JudgedKeys | None, units) -> Scan:
    """Hash every kept row's (cell, doc id) and, with ``jk``, its (``join_salt``, doc id); keep only candidates.

    ``units`` are the start rows of the cells (:func:`rankviz._core.hashing.contiguous_units`)
    or None when the rows are not grouped by cell. ``join_salt`` is None when the join
    uses the cell hash itself.
    """
    salts = [cell] if join_salt is None else [cell, join_salt]
    n = len(cell)
    streamed = units_fit(units)
    if streamed and n:
        bounds = piece_bounds(units, _PIECE_ROWS)
        every = None
    else:  # the duplicate check needs every hash at once; they are still made (and joined) piece by piece
        bounds = np.unique(np.r_[np.arange(0, n, _PIECE_ROWS), n]).astype(np.int64)
        every = np.empty(n, dtype=np.uint64)
    join_rows, join_keys, repeats = [], [], []
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        keys = _piece_keys(docs, src, salts, a, b)
        if jk is not None:
            cand = _join_candidates(keys[-1], jk)
            join_rows.append(cand + a)
            join_keys.append(keys[-1][cand])
        if every is not None:
            every[a:b] = keys[0]
        else:  # every round on the piece: no cell crosses its bounds (a and b are cell starts)
            local = units[np.searchsorted(units, a) : np.searchsorted(units, b, side="right")] - a
            repeats.append(repeated_candidates(keys[0], local) + a)
        del keys
    if every is not None:
        repeats = [repeated_candidates(every, None)]
        del every
    repeated = np.concatenate(repeats) if repeats else np.zeros(0, dtype=np.int64)
    if n >= LARGE:  # the hashes and the filters' temporaries, freed: give them back (threads keep their own arenas)
        release_memory()
    empty_rows, empty_keys = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64)
    return Scan(
        np.concatenate(join_rows) if join_rows else empty_rows,
        np.concatenate(join_keys) if join_keys else empty_keys,
        repeated,
    )
