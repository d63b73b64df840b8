"""rankviz._core.memory: the blocked NumPy helpers give NumPy's own answers, whatever the block size."""

from __future__ import annotations

import numpy as np
import pytest

from rankviz._core import memory as _memory


@pytest.mark.parametrize("block", [1, 3, 1000])
def test_blocked_take_and_bincount_equal_numpy(monkeypatch, block):
    monkeypatch.setattr(_memory, "_BLOCK", block)
    rng = np.random.default_rng(block)
    table = rng.integers(-1, 50, size=40).astype(np.int32)
    codes = rng.integers(0, 40, size=257).astype(np.int32)
    assert np.array_equal(_memory.blocked_take(table, codes), table[codes])
    in_place = codes.copy()
    assert _memory.blocked_take(table, in_place, out=in_place) is in_place
    assert np.array_equal(in_place, table[codes])  # the indices overwritten by their own lookups, block by block
    major = rng.integers(0, 3, size=257).astype(np.int8)
    assert np.array_equal(_memory.blocked_bincount(codes, 40), np.bincount(codes, minlength=40))
    assert np.array_equal(
        _memory.blocked_bincount(codes, 120, major, 40), np.bincount(major.astype(np.int64) * 40 + codes, minlength=120)
    )
    assert _memory.blocked_bincount(codes[:0], 5).tolist() == [0] * 5


def test_malloc_trim_is_looked_up_safely_anywhere(monkeypatch):
    """Not Linux, or a C library that cannot be opened by ``CDLL(None)`` (Windows raises TypeError): no trim, and
    ``release_memory`` still works; ``import rankviz`` never looks it up."""
    _memory._malloc_trim.cache_clear()
    monkeypatch.setattr(_memory.sys, "platform", "win32")
    assert _memory._malloc_trim() is None
    _memory.release_memory()
    _memory._malloc_trim.cache_clear()
    monkeypatch.setattr(_memory.sys, "platform", "linux")

    def refuse(name, *args, **kwargs):
        raise TypeError("LoadLibrary() argument 1 must be str, not None")

    monkeypatch.setattr(_memory.ctypes, "CDLL", refuse)
    assert _memory._malloc_trim() is None
    _memory.release_memory()
    _memory._malloc_trim.cache_clear()
