"""Running a list of Dask tasks: on the current distributed client if there is one, with an optional progress bar.

With a ``distributed.Client`` (a ``LocalCluster`` or ``Client("tcp://scheduler:8786")``)
the tasks run on its workers and ``progress=True`` shows distributed's progress bar
(a widget in Jupyter, a text bar in a terminal). Without one they run on Dask's
local scheduler and ``progress=True`` shows :class:`dask.diagnostics.ProgressBar`.
Errors raised on a worker reach the caller as the same exception, same message.
"""

from __future__ import annotations

__all__ = ["compute", "current_client"]


def current_client():
    """The default ``distributed.Client``, or None (no distributed installed, or no client started)."""
    try:
        from distributed import default_client
    except ImportError:  # pragma: no cover - distributed is part of rankviz[dask]
        return None
    try:
        return default_client()
    except ValueError:
        return None


def compute(tasks: list, *, progress: bool = False) -> list:
    """The results of ``tasks`` (Dask delayed objects), in order."""
    import dask

    client = current_client()
    if client is not None:
        futures = client.compute(tasks)
        if progress:
            from distributed import progress as show_progress

            show_progress(futures)
        try:
            return client.gather(futures)
        finally:
            for future in futures:
                future.release()
    if progress:
        from dask.diagnostics import ProgressBar

        with ProgressBar():
            return list(dask.compute(*tasks))
    return list(dask.compute(*tasks))
