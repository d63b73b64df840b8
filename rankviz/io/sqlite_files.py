"""SQLite files rankviz owns (the label store, the history): created atomically, so no reader ever sees half a file."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from typing import Self

__all__ = ["create_atomically", "OwnedConnection"]


def create_atomically(path: str, schema: str, prefix: str) -> None:
    """Write a new SQLite file holding ``schema`` at ``path``: built beside it, linked in only if ``path`` is still free.

    Two processes creating the same file at once both succeed: the second finds the first one's
    complete file (never a half-initialised one, which its format check would refuse). The file is
    left in WAL mode. ``prefix`` names the temporary file (``.rankviz-labels-``).
    """
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=prefix, suffix=".sqlite", dir=folder)
    os.close(handle)
    try:
        os.unlink(temporary)  # SQLite creates the file itself
        connection = sqlite3.connect(temporary, isolation_level=None)
        try:
            connection.executescript(schema)
            connection.execute("PRAGMA journal_mode = WAL")
        finally:
            connection.close()
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process created it first: use theirs
    finally:
        for leftover in (temporary, temporary + "-wal", temporary + "-shm"):
            if os.path.exists(leftover):
                os.unlink(leftover)


class OwnedConnection:
    """One lazily opened SQLite connection, closed by ``close()``, a ``with`` block or garbage collection.

    The label store and the history both hold their file this way; each opens ``_connection`` itself.
    """

    _connection: sqlite3.Connection | None = None

    def close(self) -> None:
        """Close the connection (it reopens on the next call).

        Examples
        --------
        >>> import os, tempfile
        >>> from rankviz.labels import LabelStore
        >>> store = LabelStore(os.path.join(tempfile.mkdtemp(), "labels.sqlite"))
        >>> store.add("q1", "d1", 2, annotator="ann")
        >>> store.close()
        >>> store.grade("q1", "d1", annotator="ann")  # reopened
        2
        >>> store.close()
        """
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass
