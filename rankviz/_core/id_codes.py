"""Dictionary codes of Arrow string arrays: the query (and system) ids of a run as int32 codes.

Below :mod:`rankviz._core.input_shapes` (layer 1): the first step that touches every row of an id
column. A column whose equal values come in runs (the query ids of a TREC run, of a frame
sorted by query) is encoded from the first value of each run: one comparison of every
row with the next (Arrow, in C++) and a dictionary of a few thousand values, about a third
of the cost of hashing every row. Otherwise Arrow's ``dictionary_encode`` does the work, on
two threads for a long array, and its buffers are copied out and given back at once (see
:mod:`rankviz._core.memory`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .memory import LARGE, POOL, blocked_take, release_memory
from .threads import THREADS, parallel_map

__all__ = ["encode"]


def encode(arr) -> tuple[np.ndarray, np.ndarray]:
    """Factorize an Arrow string array: (int32 codes, unique values in order of first appearance, as objects).

    A long array whose equal values come in runs is encoded from the first value of each
    run (:func:`_run_starts`). Otherwise a long array is encoded in two halves on two threads (Arrow releases the GIL), the
    second half's values then numbered after the first's: the same codes, in about
    half the time (a 7M-row query column: ~110 ms alone).
    """
    n = len(arr)
    starts = _run_starts(arr) if n >= _RUNS_MIN else None
    if starts is not None:
        head_codes, values = _encode_one(_take_sorted(arr, starts))
        lengths = np.diff(np.append(starts, n))
        return np.repeat(head_codes, lengths), values
    if n < _TWO_HALVES or THREADS < 2:
        return _encode_one(arr)
    half = n // 2
    codes = np.empty(n, dtype=np.int32)  # each half's codes are written straight into it
    (_, values_a), (_, values_b) = parallel_map(
        _encode_one, (arr.slice(0, half), arr.slice(half)), (codes[:half], codes[half:])
    )
    position = pd.Index(values_a, dtype=object).get_indexer(values_b)
    new = position < 0
    position[new] = len(values_a) + np.arange(int(new.sum()))
    blocked_take(position.astype(np.int32), codes[half:], out=codes[half:])
    return codes, np.concatenate([values_a, values_b[new]])


#: arrays at least this long are encoded in two halves at once
_TWO_HALVES = 1 << 21

#: arrays at least this long are looked at for runs of equal values (:func:`_run_starts`)
_RUNS_MIN = 1 << 16
#: rows compared first, to give up at once on an array in any order
_PROBE = 1 << 14
#: runs are used while there are at most one per this many rows
_ROWS_PER_RUN = 16


def _run_starts(arr) -> np.ndarray | None:
    """The first row of every run of equal values (int64, from 0), or None when the runs are too many to pay.

    Equal values in separate runs are fine (they get one code, the dictionary of the
    runs' first values gives it); runs only have to be long on average. A sample of
    the first rows is compared first, so an array in random order costs a few
    microseconds here.
    """
    n = len(arr)
    if arr.null_count:
        return None
    probe = min(n, _PROBE)
    if len(_changes_in(arr, 0, probe - 1)) * _ROWS_PER_RUN > probe:
        return None
    # Two halves on two threads (Arrow releases the GIL); half h compares rows cuts[h] .. cuts[h + 1] with the next.
    cuts = [0, (n - 1) // 2, n - 1] if n >= 2 * _RUNS_MIN else [0, n - 1]
    found = parallel_map(_changes_in, [arr] * (len(cuts) - 1), cuts[:-1], cuts[1:])
    if sum(len(f) for f in found) * _ROWS_PER_RUN > n:
        return None
    return np.concatenate([np.zeros(1, dtype=np.int64), *found])


def _changes_in(arr, a: int, b: int) -> np.ndarray:
    """The rows ``i + 1`` (int64) for ``i`` in ``a .. b`` whose value differs from row ``i``'s."""
    change = pc.not_equal(arr.slice(a + 1, b - a), arr.slice(a, b - a))
    return pc.indices_nonzero(change).to_numpy().astype(np.int64) + (a + 1)


def _take_sorted(arr, rows: np.ndarray):
    """``arr.take(rows)`` for sorted ``rows``, chunk by chunk (Arrow's take of a chunked array joins every chunk
    into one first: a copy of the whole column)."""
    if not isinstance(arr, pa.ChunkedArray):
        return arr.take(pa.array(rows))
    parts, start = [], 0
    for chunk in arr.chunks:
        a, b = np.searchsorted(rows, [start, start + len(chunk)])
        if b > a:
            parts.append(chunk.take(pa.array(rows[a:b] - start)))
        start += len(chunk)
    return pa.chunked_array(parts, type=arr.type)


def _encode_one(arr, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode` in one pass; the codes written into ``out`` (int32, as long as ``arr``) when given."""
    encoded = pc.dictionary_encode(arr, memory_pool=POOL)
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    if not chunks:
        return (np.zeros(0, np.int32) if out is None else out), np.zeros(0, dtype=object)
    dictionary = chunks[0].dictionary
    codes = np.empty(len(arr), dtype=np.int32) if out is None else out
    start = 0
    for chunk in chunks:  # Arrow's int32 indices copied out, so that Arrow's buffers can be freed
        codes[start : start + len(chunk)] = chunk.indices.to_numpy(zero_copy_only=False)
        start += len(chunk)
    values = np.asarray(dictionary.to_pylist(), dtype=object)
    del encoded, dictionary, chunks
    if len(codes) >= LARGE:  # Arrow's copy of the codes, freed: give it back rather than keep it reserved
        release_memory()
    # int32 codes: half the memory of int64, and the consumers widen where they multiply.
    return codes, values
