"""Cheap 64-bit hashes of Arrow strings, and a filter that finds every repeated key.

Used by :mod:`rankviz._core.judged` to find duplicate (query, doc) rows and judged rows
without factorizing millions of mostly-unique doc ids (a hash table of 7 M strings
costs seconds; these are a few streaming NumPy passes). Nothing here is exact on its
own: equal strings always get equal hashes, different strings almost always get
different ones, and every caller confirms a match by comparing the real strings.

String hash
    Read straight from the Arrow buffers: for each string, ``w`` 8-byte windows
    spread evenly from its first to its last byte (masked for strings shorter than
    8 bytes), combined with its length and mixed with MurmurHash3's 64-bit
    finaliser. ``w`` grows with the longest string (1 window up to 8 bytes, 2 up to
    16, 3 up to 24, 5 beyond), so every byte of strings up to 40 bytes is read;
    longer strings that share all windows and their length collide and are told
    apart by the exact check. A (salt, string) pair -- a row's cell and doc id --
    hashes to ``fmix(salt * golden + fmix(string hash))``: the string's hash is mixed
    before the salt is added, since the unmixed one is linear in the bytes and pairs
    whose salts and ids differed by related amounts collided by the thousand.
Repeated keys
    Rows are split into *units* that contain every copy of a key (whole cells when
    the rows come grouped by cell, as in a TREC run file; otherwise a radix
    partition on the top hash bits). Within chunks of about 64 k rows, a row whose
    bucket (a few bits of the key) holds no other row cannot be repeated; the
    rest go to the next round with fresh bits. Buckets stay in cache, so a
    round costs a few milliseconds per million rows, and the survivors -- every
    repeated key, plus a few chance collisions -- are returned for an exact check.
"""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa

__all__ = ["contiguous_units", "doc_hashes", "mix", "piece_bounds", "repeated_candidates", "string_hashes", "units_fit"]

_M1 = 0xFF51AFD7ED558CCD
_M2 = 0xC4CEB9FE1A85EC53
_GOLDEN = 0x9E3779B97F4A7C15
_LENGTH = 0xD6E8FEB86659FD93
_WINDOW = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)

_CHUNK_ROWS = 1 << 16  # rows per filter chunk: a 2**19-bucket count table (4 MB) stays in cache
_MAX_TABLE_BITS = 19
_BLOCK = 1 << 15  # elements per block of the elementwise passes
_PARTITION_BLOCK = 1 << 17
_PIECE = 1 << 17  # strings hashed at a time
_THREADS = min(4, os.cpu_count() or 1)  # threads of the partitioned round on a large array


def fmix(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser, in place (a bijection: distinct inputs stay distinct)."""
    x ^= x >> 33
    x *= _M1
    x ^= x >> 33
    x *= _M2
    x ^= x >> 33
    return x


def mix(hashes: np.ndarray, salt: np.ndarray) -> np.ndarray:
    """A new array of hashes of the pairs (salt, hash): equal pairs give equal values.

    Computed in blocks that stay in cache (five passes over a block cost less than
    one pass over 7 M values in memory).
    """
    out = np.empty(len(hashes), dtype=np.uint64)
    for start in range(0, len(hashes), _BLOCK):
        _mix_into(hashes[start : start + _BLOCK], salt[start : start + _BLOCK], out[start : start + _BLOCK])
    return out


def _mix_into(hashes: np.ndarray, salt: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = fmix(salt * golden + hashes)``, in place."""
    out[:] = salt
    out *= _GOLDEN
    out += hashes
    return fmix(out)


def _string_chunk(arr: pa.Array, windows: int) -> np.ndarray:
    """The unmixed hash of each string: its windows and length combined (``string_hashes`` mixes it)."""
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    _, offsets_buf, data_buf = arr.buffers()
    offset_type = np.int64 if pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type) else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=offset_type)[arr.offset : arr.offset + n + 1]
    begin, end = int(offsets[0]), int(offsets[-1])
    # The bytes as aligned 8-byte words, with 8 zero bytes before and at least 8 after: every window read stays
    # inside. A window at byte p is then two aligned gathers and shifts (NumPy would copy a strided 8-byte view
    # of the bytes into an array 8 times their size before every gather).
    size = end - begin + 16
    padded = np.empty((size + 7) // 8 * 8 + 8, dtype=np.uint8)
    padded[:8] = 0
    padded[8 + end - begin :] = 0
    if end > begin:
        padded[8 : 8 + end - begin] = np.frombuffer(data_buf, dtype=np.uint8)[begin:end]
    words = padded.view("<u8")
    starts = np.subtract(offsets[:-1], begin - 8, dtype=np.int64)
    length = np.diff(offsets).astype(np.int64, copy=False)

    h = _window_at(words, starts)
    h &= np.take(_LOW_BYTES, np.minimum(length, 8) if windows > 1 else length)  # one window: no string over 8 bytes
    h *= _WINDOW[0]
    if windows > 1:
        # A string's windows depend on its own length only (never on the longest string of the array, or the
        # same id would hash differently in a run and in its qrels): w = _window_count(length) windows,
        # window i = 1 .. w-1 starting at floor(i * (length - 8) / (w - 1)).
        own = np.select([length <= 8, length <= 16, length <= 24], [1, 2, 3], 5)
        span = np.maximum(length - 8, 0)
        for i in range(1, windows):
            used = own > i
            pos = span * i
            pos //= np.maximum(own - 1, 1)
            pos *= used  # windows a string does not have read its first bytes, then masked out
            pos += starts
            w = _window_at(words, pos)
            w &= used.astype(np.uint64) * np.uint64((1 << 64) - 1)
            w *= _WINDOW[i]
            h ^= w
    length_term = length.view(np.uint64)
    length_term *= _LENGTH
    h += length_term
    return h


def _window_at(words: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The 8 bytes from byte ``pos`` of ``words`` (aligned little-endian words), as one little-endian uint64 each."""
    word = pos >> 3
    low = np.take(words, word)
    word += 1
    high = np.take(words, word)
    shift = (pos & 7).astype(np.uint64)
    shift <<= np.uint64(3)
    low >>= shift
    shift ^= np.uint64(63)  # 63 - 8r: two shifts make the 64 - 8r of r = 0 exact (a shift by 64 is not)
    high <<= np.uint64(1)
    high <<= shift
    low |= high
    return low


def _window_count(max_length: int) -> int:
    if max_length <= 8:
        return 1
    if max_length <= 16:
        return 2
    if max_length <= 24:
        return 3
    return 5


def _string_pieces(arr) -> list[pa.Array]:
    """The array as string/large_string pieces of at most ``_PIECE`` rows (zero-copy slices)."""
    if isinstance(arr, pa.ChunkedArray):
        chunks = arr.chunks
        if len(chunks) > 64 and len(arr) < 1024 * len(chunks):
            chunks = [arr.combine_chunks()]
    else:
        chunks = [arr]
    if chunks and not (pa.types.is_string(chunks[0].type) or pa.types.is_large_string(chunks[0].type)):
        chunks = [c.cast(pa.large_string()) for c in chunks]
    return [c.slice(start, _PIECE) for c in chunks for start in range(0, len(c), _PIECE)]


def _raw_pieces(arr):
    """(piece, fmix of its unmixed string hashes) for each piece of :func:`_string_pieces`."""
    pieces = _string_pieces(arr)
    max_length = 0
    for piece in pieces:
        if len(piece):
            top = pa.compute.max(pa.compute.binary_length(piece)).as_py()
            max_length = max(max_length, top or 0)
    windows = _window_count(max_length)
    for piece in pieces:
        yield piece, fmix(_string_chunk(piece, windows))


def doc_hashes(arr) -> np.ndarray:
    """A uint64 hash of every string of an Arrow (chunked) string array, mixed once; equal strings, equal hashes.

    The cheaper half of :func:`string_hashes` (which mixes these again): for the join
    and duplicate check, where a hash only has to spread its values evenly over its bits
    and a collision costs time, never an answer.
    """
    out = np.empty(len(arr), dtype=np.uint64)
    start = 0
    for piece, raw in _raw_pieces(arr):
        out[start : start + len(piece)] = raw
        start += len(piece)
    return out[:start]


def string_hashes(arr, salts=None):
    """A uint64 hash of every string of an Arrow (chunked) string array; equal strings, equal hashes.

    With ``salts`` (a list of integer arrays as long as ``arr``) returns instead one
    array per salt of hashes of the pairs (salt, string), computed piece by piece so
    that no intermediate array of all rows is made. The plain hash is the pair hash
    with salt 0, so ``string_hashes(a)`` equals ``string_hashes(a, [zeros])[0]``.
    Its values are kept from one version to the next (run fingerprints in the history
    are made of them).
    """
    n = len(arr)
    outs = [np.empty(n, dtype=np.uint64) for _ in (salts if salts is not None else [None])]
    start = 0
    for piece, raw in _raw_pieces(arr):
        # Mixed before the salt is added: the unmixed hash is linear in the id's bytes, so (salt, id) pairs whose
        # salts and ids differ by related amounts would collide (27,000 pairs among 7M shuffled (query, doc) rows).
        stop = start + len(piece)
        if salts is None:
            outs[0][start:stop] = fmix(raw)  # the pair hash with salt 0
        else:
            for out, salt in zip(outs, salts):
                _mix_into(raw, salt[start:stop], out[start:stop])
        start = stop
    outs = [out[:start] for out in outs]
    return outs[0] if salts is None else outs


def contiguous_units(groups: np.ndarray, n_distinct: int) -> np.ndarray | None:
    """Start rows (then the row count) of the runs of equal ``groups`` values, if each distinct value forms one run.

    ``n_distinct`` is the number of distinct values; None when some value is split over several runs.
    """
    n = len(groups)
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    change = groups[1:] != groups[:-1]
    if int(np.count_nonzero(change)) + 1 != n_distinct:
        return None
    return np.concatenate([[0], np.flatnonzero(change) + 1, [n]]).astype(np.int64)


def _chunk_bounds(unit_starts: np.ndarray, target: int) -> np.ndarray:
    """Chunks of about ``target`` rows that never cut a unit (``unit_starts`` ends with the row count)."""
    n = int(unit_starts[-1])
    if n <= target:
        return np.array([0, n], dtype=np.int64)
    cut = unit_starts[np.minimum(np.searchsorted(unit_starts, np.arange(target, n, target)), len(unit_starts) - 1)]
    return np.unique(np.concatenate([[0], cut, [n]])).astype(np.int64)


def _filter_round(values: np.ndarray, unit_starts: np.ndarray, shift: int, available: int) -> np.ndarray:
    """Positions of the values whose bucket (up to 19 bits from ``shift``) holds another value of the same chunk.

    ``available`` is how many bits the values have from ``shift`` on.
    """
    keep = np.zeros(len(values), dtype=bool)
    bounds = _chunk_bounds(unit_starts, min(_CHUNK_ROWS, 1 << max(available - 3, 0)))
    kind = values.dtype.type
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        size = b - a
        if size < 2:
            continue
        bits = min(_MAX_TABLE_BITS, available, max(8, int(size * 8 - 1).bit_length()))
        bucket = values[a:b] >> kind(shift) if shift else values[a:b].copy()
        bucket &= kind((1 << bits) - 1)
        # Non-negative after the mask: as intp without a copy for 8-byte values (older NumPy refuses uint64 here).
        bucket = bucket.view(np.intp) if bucket.dtype.itemsize == np.dtype(np.intp).itemsize else bucket.astype(np.intp)
        counts = np.bincount(bucket, minlength=1 << bits)
        keep[a:b] = counts[bucket] > 1
    return np.flatnonzero(keep)


def _partitioned_round(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first filter round for rows in any order: (surviving rows, part starts among them).

    Rows are radix-partitioned on the top key bits (about 32 k rows a part), so every
    copy of a key lands in one part, and each part is filtered on the low 19 bits. Each
    block of ``_PARTITION_BLOCK`` rows is counting-sorted on its own (a stable argsort of
    8-bit values) and gathered while it is in cache; a part is then the concatenation of
    its segments of every block. A global argsort and gather would read memory in
    random order and cost about twice as much. Row numbers are only gathered for the
    survivors.

    Blocks, then parts, are independent NumPy work that releases the GIL, so a large
    array's are shared among a few threads (about 1.5x faster on two cores). The
    arrays that outlive a block are allocated here, in the calling thread, and the
    threads only fill them: what a thread allocates stays in its own C-library arena,
    so only its short-lived temporaries (a block's worth) do.
    """
    n = len(keys)
    part_bits = min(8, max(1, (n // (_CHUNK_ROWS // 2)).bit_length()))
    n_parts = 1 << part_bits
    low = np.empty(n, dtype=np.int32)
    order = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    starts = range(0, n, _PARTITION_BLOCK)
    fill = functools.partial(_partition_block, keys, low, order, part_bits)
    segments = [(start, min(start + _PARTITION_BLOCK, n)) for start in starts]
    workers = min(_THREADS, len(segments))
    kept = None
    if workers > 1:
        try:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                bounds = list(pool.map(fill, starts))
                kept = list(pool.map(functools.partial(_filter_part, low, order, segments, bounds), range(n_parts)))
        except RuntimeError:  # no new threads (the interpreter is shutting down): the same work in this thread
            kept = None
    if kept is None:
        bounds = [fill(start) for start in starts]
        kept = [_filter_part(low, order, segments, bounds, q) for q in range(n_parts)]
    pieces = [r for r in kept if len(r)]
    sizes = [len(r) for r in kept]
    rows = np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, dtype=np.int64)
    return rows, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def _partition_block(keys: np.ndarray, low: np.ndarray, order: np.ndarray, part_bits: int, start: int) -> list[int]:
    """Fill one block's slice of ``low`` (low key bits) and ``order`` (row numbers) grouped by part; the parts' starts
    within the block."""
    block = keys[start : start + _PARTITION_BLOCK]
    stop = start + len(block)
    part = (block >> np.uint64(64 - part_bits)).astype(np.uint8)
    within = np.argsort(part, kind="stable")
    low_bits = block[within]
    low_bits &= np.uint64((1 << _MAX_TABLE_BITS) - 1)
    np.copyto(low[start:stop], low_bits, casting="unsafe")  # below 2**19: exact in int32
    order[start:stop] = within
    order[start:stop] += start
    return [0, *np.cumsum(np.bincount(part, minlength=1 << part_bits)).tolist()]


def _filter_part(low, order, segments, bounds, q: int) -> np.ndarray:
    """The rows of part ``q`` (its segment of every block) whose low bits share a bucket with another's."""
    values = np.concatenate([low[a + b[q] : a + b[q + 1]] for (a, _), b in zip(segments, bounds)])
    keep = _filter_round(values, np.array([0, len(values)]), 0, _MAX_TABLE_BITS) if len(values) > 1 else values[:0]
    if not len(keep):
        return keep
    return np.concatenate([order[a + b[q] : a + b[q + 1]] for (a, _), b in zip(segments, bounds)])[keep]


def units_fit(unit_starts: np.ndarray | None) -> bool:
    """Whether units (from :func:`contiguous_units`) are small enough to be filtered chunk by chunk in place."""
    return unit_starts is not None and np.diff(unit_starts).max(initial=0) <= 4 * _CHUNK_ROWS


def piece_bounds(unit_starts: np.ndarray, target: int) -> np.ndarray:
    """Pieces of about ``target`` rows that never cut a unit: a long array's rows can then be hashed and filtered
    piece by piece (:func:`repeated_candidates` on each), never holding the hashes of every row."""
    return _chunk_bounds(unit_starts, target)


def repeated_candidates(keys: np.ndarray, unit_starts: np.ndarray | None = None) -> np.ndarray:
    """Rows (sorted) that may share their key with another row: a superset of every repeated key's rows.

    ``unit_starts`` (from :func:`contiguous_units`) says that equal keys only occur
    within runs of rows; without it the rows are radix-partitioned by the top key bits.
    """
    n = len(keys)
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    if unit_starts is not None and units_fit(unit_starts):
        rows = _filter_round(keys, unit_starts, 0, 64)
        units = np.searchsorted(rows, unit_starts)
    else:
        rows, units = _partitioned_round(keys)
    # Round one used bits 0-18; the survivors (about 12%) get bits 19-37, then 38-56.
    current = keys[rows]
    for shift in (19, 38):
        before = len(rows)
        if before < 2:
            break
        keep = _filter_round(current, units, shift, 56 - shift)
        rows, current, units = rows[keep], current[keep], np.searchsorted(keep, units)
        if len(rows) > 0.5 * before:
            break
    return np.sort(rows)
