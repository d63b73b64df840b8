"""Independent NumPy and Arrow work on a few threads (both release the GIL in their loops).

The steps that touch every row of a long run split it into pieces that need nothing from
each other (hashing doc ids, placing rows among their query's relevant scores, comparing
every id with the next one) and hand them to :func:`parallel_map`: on two cores about
1.7x faster; on one core, or when no thread can be started (the interpreter is shutting
down), the same calls run in order in the calling thread. A step whose answer is needed
only later (the look-alike id check) runs beside the others with :func:`in_background`.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

__all__ = ["THREADS", "Pending", "in_background", "parallel_map"]

#: threads the per-row steps use at most
THREADS = min(2, os.cpu_count() or 1)


def parallel_map(func, *iterables, workers: int | None = None) -> list:
    """``list(map(func, *iterables))``, the calls shared by up to ``workers`` threads (default :data:`THREADS`)."""
    args = list(zip(*iterables))
    workers = min(THREADS if workers is None else workers, len(args))
    if workers > 1:
        try:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                return list(pool.map(func, *zip(*args)))
        except RuntimeError:  # no new threads: the same work in this thread
            pass
    return [func(*a) for a in args]


class Pending:
    """The result of a call running on another thread (:func:`in_background`); :meth:`result` waits for it."""

    def __init__(self, func, args):
        self._call = (func, args)
        self._future = None
        if THREADS > 1:
            try:
                pool = ThreadPoolExecutor(max_workers=1)
                self._future = pool.submit(func, *args)
                pool.shutdown(wait=False)
            except RuntimeError:  # no new threads: the call is made by result()
                self._future = None

    def result(self):
        """The call's value (its exception, raised here)."""
        if self._future is not None:
            return self._future.result()
        func, args = self._call
        return func(*args)


def in_background(func, *args) -> Pending:
    """Start ``func(*args)`` on another thread (on one core: when its result is asked for)."""
    return Pending(func, args)
