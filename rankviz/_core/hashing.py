"""Cheap 64-bit hashes of Arrow strings, and the rows whose key repeats.

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
    apart by the exact check. :func:`doc_hashes` mixes once (the join and the
    duplicate check); :func:`string_hashes` mixes again and, with salts, hashes
    (salt, string) pairs to ``fmix(salt * golden + fmix(string hash))`` (the values
    run fingerprints are made of, kept from one version to the next).
Repeated keys
    The keys are sorted (NumPy's vectorised sort) and compared with their neighbours;
    the rows of the few repeated values are then looked up. Rows grouped in *units*
    that hold every copy of a key (whole cells, when the rows come grouped by cell as
    in a TREC run file) are checked piece by piece (:func:`piece_bounds`).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = [
    "MAX_TABLE_BITS",
    "bit_filter",
    "bit_table",
    "contiguous_units",
    "doc_hashes",
    "mix",
    "piece_bounds",
    "repeated_candidates",
    "string_hashes",
]

_M1 = 0xFF51AFD7ED558CCD
_M2 = 0xC4CEB9FE1A85EC53
_GOLDEN = 0x9E3779B97F4A7C15
_LENGTH = 0xD6E8FEB86659FD93
_WINDOW = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)

_BLOCK = 1 << 15  # elements per block of the elementwise passes
_FILTER_BLOCK = 1 << 18  # values per probe of a bit table
#: the largest bit tables (:func:`bit_table`): 8 MB of booleans
MAX_TABLE_BITS = 23
_PIECE = 1 << 17  # strings hashed at a time


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


def piece_bounds(unit_starts: np.ndarray, target: int) -> np.ndarray:
    """Pieces of about ``target`` rows that never cut a unit (``unit_starts`` ends with the row count): a long
    array's rows can then be hashed and checked for repeats piece by piece, never holding every row's key."""
    n = int(unit_starts[-1])
    if n <= target:
        return np.array([0, n], dtype=np.int64)
    cut = unit_starts[np.minimum(np.searchsorted(unit_starts, np.arange(target, n, target)), len(unit_starts) - 1)]
    return np.unique(np.concatenate([[0], cut, [n]])).astype(np.int64)


def repeated_candidates(keys: np.ndarray) -> np.ndarray:
    """Rows (sorted, int64) whose key occurs more than once: every repeated key's rows, and no other.

    The keys are sorted (NumPy's vectorised sort: a few ns a key, a piece of 250,000 in
    cache) to find the repeated values, almost always none; only then are their rows
    looked up: through a bit table of the repeated values first (:func:`bit_filter`), so
    that only its few candidates are searched for.
    """
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64)
    values = _repeated_values(np.sort(keys))
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    bits = min(MAX_TABLE_BITS, max(10, (16 * len(values)).bit_length()))
    rows = bit_filter(keys, bit_table(values, bits, 0), bits, 0)
    found = keys[rows]
    pos = np.minimum(np.searchsorted(values, found), len(values) - 1)
    return rows[values[pos] == found].astype(np.int64)


def _repeated_values(ordered: np.ndarray) -> np.ndarray:
    """The values that occur more than once in the sorted array ``ordered``, each once, sorted."""
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return ordered[:0]
    values = ordered[1:][same]
    first = np.ones(len(values), dtype=bool)
    first[1:] = values[1:] != values[:-1]
    return values[first]


def bit_table(members: np.ndarray, bits: int, shift: int) -> np.ndarray:
    """A set of the members' bits ``shift .. shift + bits``, as 2**bits booleans (2 MB for 2**21: a gather from it
    costs less than the arithmetic of a packed one)."""
    mask = np.uint64((1 << bits) - 1)
    slots = ((members >> np.uint64(shift)) & mask).view(np.int64)
    flags = np.zeros(1 << bits, dtype=bool)
    flags[slots] = True
    return flags


def bit_filter(values: np.ndarray, table: np.ndarray, bits: int, shift: int) -> np.ndarray:
    """Positions (int64) of ``values`` whose bits ``shift .. shift + bits`` are in ``table`` (from :func:`bit_table`:
    every member passes, and about the table's share of set slots of the others)."""
    mask = np.uint64((1 << bits) - 1)
    found = []
    for start in range(0, len(values), _FILTER_BLOCK):
        probe = values[start : start + _FILTER_BLOCK] >> np.uint64(shift)
        probe &= mask
        found.append(np.flatnonzero(np.take(table, probe.view(np.int64))) + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
