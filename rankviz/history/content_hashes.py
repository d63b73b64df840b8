"""64-bit hashes of every byte of Arrow strings, and an order-free digest of a run's rows.

:func:`rankviz._core.hashing.string_hashes` reads at most 40 bytes of an id (its
callers confirm every match on the real strings); a fingerprint has no such second
look, so here every byte counts. A string of ``L`` bytes is read as ``m = max(1,
ceil(L / 8))`` little-endian 8-byte words ``w_k`` (the last one zero-padded) and
hashed as::

    h = fmix(w_0 * W + sum_{k >= 1} fmix(w_k * W + k * P) + L * C)          (mod 2**64)

``fmix`` is MurmurHash3's 64-bit finaliser (a bijection), ``W``, ``P``, ``C`` odd
constants. A string's hash depends on its own bytes only, never on the rest of its
array. Two different strings of the same length differ in some word: in the first
word only, their sums differ by ``W`` times a non-zero number below 2**64, which is
never 0 modulo 2**64 (``W`` is odd), so they never collide; in a later word, that
word's ``fmix`` values must be cancelled by the rest of the sum, a 2**-64
coincidence. The length term separates trailing NULs (``'a'`` from ``'a\\x00'``),
and ``'01'`` and ``'1'`` differ in their bytes and their lengths. Strings up to 8
bytes (the usual ids) are one word: ``fmix(w * W + L * C)``, one pass of ``fmix``.

Everything runs over blocks of ``_BLOCK`` rows, so the dozen NumPy passes of a block
stay in cache instead of streaming arrays of millions of rows through memory a
dozen times.

Collision resistance: these are 64-bit hashes of non-adversarial content. A row's
hash is ``fmix(((v * a + h_query) * b + h_doc) * c + h_system)`` with ``v`` the
score's bits and ``a``, ``b``, ``c`` odd: two rows that differ only in their score
differ before ``fmix`` by ``a * b * c`` times a non-zero number, so they never
collide; rows that differ in an id get equal hashes with probability about 2**-64
(the ids' hashes are mixed before they are combined, so related ids do not cancel
each other linearly). The digest of a run
(:func:`run_digest`) then keeps the row count, the sum and the sum of squares of the
row hashes modulo 2**64, which do not depend on the order of the rows. Changing,
adding or removing rows leaves both sums unchanged only if the changed rows' hashes
cancel in the sum *and* in the sum of squares, a further 2**-64-scale coincidence
for hashes that behave as random. A change made on purpose to collide (someone
who can choose ids and read this code) is not defended against: the fingerprint
tells whether two evaluations saw the same run, it is not a signature.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._core.long_run import id_array

__all__ = ["text_hashes", "id_source", "column_hasher", "run_digest"]

_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_W = np.uint64(0x9E3779B97F4A7C15)
_P = np.uint64(0xC2B2AE3D27D4EB4F)
_C = np.uint64(0xD6E8FEB86659FD93)
_ROW = (np.uint64(0x165667B19E3779F9), np.uint64(0x85EBCA77C2B2AE63), np.uint64(0x27D4EB2F165667C5))
_S33 = np.uint64(33)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_BLOCK = 1 << 16
_SAMPLE = 4096  # rows looked at to guess whether a column's ids come in runs


def _fmix(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser, in place."""
    x ^= x >> _S33
    x *= _M1
    x ^= x >> _S33
    x *= _M2
    x ^= x >> _S33
    return x


def _chunks(arr) -> list[pa.Array]:
    """An Arrow (chunked) array as string or large_string arrays."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    out = []
    for chunk in chunks:
        if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
            chunk = chunk.cast(pa.large_string())  # string_view and the like: the same bytes, another layout
        out.append(chunk)
    return out


def _hash_block(view: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The hashes of the strings whose byte ranges are ``offsets[i]:offsets[i+1]`` of the padded buffer ``view``."""
    starts = offsets[:-1]
    length = np.diff(offsets)
    if int(length.max()) <= 8:
        sums = view[starts]  # fancy indexing: np.take would first copy the whole strided view
        sums &= np.take(_LOW_BYTES, length)
        sums *= _W
    else:
        count = np.maximum((length + 7) >> 3, 1)
        first = np.cumsum(count)
        first -= count
        k = np.arange(int(first[-1] + count[-1]), dtype=np.int64)
        k -= np.repeat(first, count)  # each word's number within its string
        pos = np.repeat(starts, count)
        pos += k << 3
        left = np.repeat(length, count)
        left -= k << 3  # bytes of the string from this word on (the last word keeps min(left, 8))
        words = view[pos]
        words &= np.take(_LOW_BYTES, np.minimum(left, 8))
        words *= _W
        later = k > 0
        salt = k.view(np.uint64)
        salt *= _P
        words += salt
        words[later] = _fmix(words[later])  # the first word of each string stays linear (w_0 * W)
        sums = np.add.reduceat(words, first)
    term = length.view(np.uint64)
    term *= _C
    sums += term
    return _fmix(sums)


def _piece_hashes(piece: pa.Array) -> np.ndarray:
    """:func:`text_hashes` of one string or large_string array (a block's worth: its bytes are copied once, padded)."""
    n = len(piece)
    _, offsets_buf, data_buf = piece.buffers()[:3]
    large = pa.types.is_large_string(piece.type)
    raw = np.frombuffer(offsets_buf, dtype=np.int64 if large else np.int32)
    offsets: np.ndarray = raw[piece.offset : piece.offset + n + 1].astype(np.int64)
    begin, end = int(offsets[0]), int(offsets[-1])
    padded = np.empty(end - begin + 8, dtype=np.uint8)  # 8 zero bytes after the data: every 8-byte read stays inside
    if end > begin:
        padded[: end - begin] = np.frombuffer(data_buf, dtype=np.uint8)[begin:end]
    padded[end - begin :] = 0
    view = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    offsets -= begin
    return _hash_block(view, offsets)


def text_hashes(arr) -> np.ndarray:
    """A uint64 hash of every byte of every string of an Arrow (chunked) string array; equal strings, equal hashes."""
    out = np.empty(len(arr), dtype=np.uint64)
    done = 0
    for chunk in _chunks(arr):
        for start in range(0, len(chunk), _BLOCK):
            piece = chunk.slice(start, _BLOCK)
            out[done : done + len(piece)] = _piece_hashes(piece)
            done += len(piece)
    return out


def id_source(series: pd.Series, *, role: str, what: str):
    """An id column read as rankviz reads ids (:func:`~rankviz._core.long_run.id_array`), for :func:`column_hasher`.

    The only step that reads pandas: what it returns is an Arrow string array, or for a
    categorical column of string categories (``read_run``'s ``system``) the categories'
    hashes and the codes.
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype) and all(isinstance(v, str) for v in dtype.categories):
        codes = series.cat.codes.to_numpy()
        if len(codes) and int(codes.min()) >= 0:  # a missing id goes the general way, which names its row
            return text_hashes(pa.array(list(dtype.categories), pa.string())), codes
    return id_array(series, role=role, what=what)


def column_hasher(source) -> Callable[[int, int], np.ndarray]:
    """``hashes(a, b)``: the :func:`text_hashes` of rows ``a`` to ``b`` of an :func:`id_source`, a block at a time.

    A categorical column is hashed per category and taken by its codes, without a string
    per row. A column whose ids come in runs (a run's systems and queries, usually) is
    hashed once per run.
    """
    if isinstance(source, tuple):
        table, codes = source
        return lambda a, b: table[codes[a:b]]
    arr = source
    n = len(arr)
    if n > _SAMPLE and len(_changes(arr.slice(0, _SAMPLE))) * 4 < _SAMPLE:  # ids come in runs (a run's system, query)
        starts = np.concatenate([[0], _changes(arr)]).astype(np.int64)
        if len(starts) * 4 < n:  # each run's first id hashed once, then repeated (an Arrow comparison per row)
            return functools.partial(_repeated, starts, np.append(starts[1:], n), text_hashes(arr.take(starts)))
    return lambda a, b: text_hashes(arr.slice(a, b - a))


def _changes(arr) -> np.ndarray:
    """The rows whose id differs from the previous row's."""
    differ = pc.not_equal(arr.slice(1), arr.slice(0, len(arr) - 1))
    return np.flatnonzero(differ.to_numpy(zero_copy_only=False)) + 1


def _repeated(starts: np.ndarray, ends: np.ndarray, heads: np.ndarray, a: int, b: int) -> np.ndarray:
    """Rows ``a`` to ``b`` of runs of equal hashes (run ``i``: rows ``starts[i]`` to ``ends[i]``, hash ``heads[i]``)."""
    first = int(np.searchsorted(starts, a, side="right")) - 1
    last = int(np.searchsorted(starts, b, side="left"))
    counts = np.minimum(ends[first:last], b) - np.maximum(starts[first:last], a)
    return np.repeat(heads[first:last], counts)


def run_digest(sources: list, values: np.ndarray) -> tuple[int, int]:
    """The sum and the sum of squares (mod 2**64) of the rows' hashes: the id columns' hashes (``sources``, from
    :func:`id_source`) and ``values`` (float64, their bits) combined per row, a block of rows at a time (no
    array as long as the run is made). Independent of the order of the rows."""
    hashers = [column_hasher(source) for source in sources]
    total = squares = 0
    with np.errstate(over="ignore"):
        for start in range(0, len(values), _BLOCK):
            stop = min(start + _BLOCK, len(values))
            row = values[start:stop] + 0.0  # -0.0 is 0.0
            row = row.view(np.uint64)
            for factor, hashes in zip(_ROW, hashers):  # ((v * a + h1) * b + h2) * c + h3, then mixed
                row *= factor
                row += hashes(start, stop)
            _fmix(row)
            total += int(row.sum(dtype=np.uint64))
            row *= row
            squares += int(row.sum(dtype=np.uint64))
    return total % 2**64, squares % 2**64
