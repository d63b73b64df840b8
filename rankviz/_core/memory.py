"""Giving memory that large steps no longer need back to the system.

Reading a big run and judging it allocate and free arrays of every row. Two
allocators would otherwise keep what was freed reserved in the process: glibc keeps
what threads free in their arenas until ``malloc_trim`` asks for it, and Arrow's
default pool (mimalloc or jemalloc) keeps freed pages for reuse. So the large
temporary Arrow results are allocated from :data:`POOL` (the C library's allocator),
and :func:`release_memory` is called after the steps that free them, so that the
process's peak is what it holds, not what it once held.
"""

from __future__ import annotations

import ctypes
import functools
import sys

import numpy as np
import pyarrow as pa

__all__ = ["POOL", "blocked_bincount", "blocked_take", "release_memory"]

#: the pool for large temporary Arrow results: the C library's allocator, which :func:`release_memory` can trim
POOL = pa.system_memory_pool()


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, looked up on first use; None elsewhere (not Linux, or a C library without it)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None


#: steps over at least this many rows free enough memory to be worth returning to the system at once
LARGE = 1 << 20


def release_memory() -> None:
    """Return the free memory of :data:`POOL` (and of the C library's arenas) to the system.

    Arrow's ``release_unused`` does not trim the system pool's arenas, hence the
    ``malloc_trim`` call; where there is none (not glibc: macOS, Windows, musl), only
    Arrow's call is made.
    """
    POOL.release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


#: elements per block of :func:`blocked_take` and :func:`blocked_bincount`
_BLOCK = 1 << 20


def blocked_take(table: np.ndarray, codes: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``table[codes]`` block by block: NumPy widens an index array to 64 bits before indexing, which for a
    7M-row array of int32 codes is a 56 MB copy; in blocks it is 8 MB at a time.

    ``out`` may be ``codes`` itself (NumPy buffers ``out`` when it overlaps the indices).
    """
    out = np.empty(len(codes), dtype=table.dtype) if out is None else out
    for start in range(0, len(codes), _BLOCK):
        np.take(table, codes[start : start + _BLOCK], out=out[start : start + _BLOCK])
    return out


def blocked_bincount(
    values: np.ndarray, minlength: int, major: np.ndarray | None = None, stride: int = 0
) -> np.ndarray:
    """``np.bincount(major * stride + values, minlength=minlength)`` block by block (``major`` None: 0), without
    the 64-bit copy of the whole index that NumPy would make (see :func:`blocked_take`)."""
    counts = np.zeros(minlength, dtype=np.int64)
    for start in range(0, len(values), _BLOCK):
        part = values[start : start + _BLOCK].astype(np.int64)
        if major is not None:
            part += major[start : start + _BLOCK].astype(np.int64) * stride
        counts += np.bincount(part, minlength=minlength)
    return counts
