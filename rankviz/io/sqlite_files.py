"""SQLite files rankviz owns (the label store, the history): created atomically, so no reader ever sees half a file."""

from __future__ import annotations

import os
import sqlite3
import tempfile

__all__ = ["create_atomically"]


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
