"""SQLite files rankviz owns (the label store, the history): recognised before they are ever opened for writing,
created atomically, so no reader ever sees half a file.

Each kind of file carries its own ``PRAGMA application_id`` and a schema version in
``PRAGMA user_version`` (bytes 68 and 60 of the file's 100-byte header).
:func:`check_owned_file` refuses an empty file, a file that is not SQLite, another
application's database, one of a newer schema or a damaged one, reading only the
header and then a read-only connection, so a refused file is left byte for byte as
it was.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Self

from .._errors import InputError

__all__ = ["SQLITE_MAGIC", "FileKind", "check_owned_file", "connect_read_only", "create_atomically", "OwnedConnection"]

#: the first 16 bytes of every SQLite 3 database file
SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclasses.dataclass(frozen=True)
class FileKind:
    """What :func:`check_owned_file` says and checks for one kind of rankviz file.

    ``name`` is how messages call it (``'label store'``); ``prefix`` starts every
    message (``'History: '``); the ``*_fix`` texts end the matching refusals;
    ``others`` maps the application ids of rankviz's other files to their own
    (problem, fix), so that one is named rather than called another application's.
    """

    name: str
    application_id: int
    schema_version: int
    format: str
    empty_fix: str
    not_sqlite_fix: str
    foreign_fix: str
    no_version_problem: str
    no_version_fix: str
    prefix: str = ""
    others: dict = dataclasses.field(default_factory=dict)

    def refuse(self, path, problem: str, fix: str) -> InputError:
        return InputError(
            f"{self.prefix}{os.fspath(path)} {problem}; it was not opened for writing and is unchanged. {fix}"
        )

    def newer(self, path, version: int) -> InputError:
        return self.refuse(
            path,
            f"was written by a newer rankviz ({self.name} schema {version}; this rankviz reads up to "
            f"{self.schema_version})",
            "Upgrade rankviz (pip install -U rankviz) to open it.",
        )


def check_owned_file(path, kind: FileKind, tables: Callable[[sqlite3.Connection, int], None]) -> int:
    """Check that ``path`` is a ``kind`` file this rankviz reads and writes; return its schema version.

    The header is read first (refusing an empty file, a file that is not SQLite,
    another application's database -- one of ``kind.others`` by its name -- a newer
    schema, no schema version); then, through a read-only connection, the live
    ``user_version`` (the header may lag the ``-wal`` file), SQLite's quick integrity
    check, the ``rankviz_meta`` table's ``format`` and ``tables(connection,
    version)``, which selects the columns the kind reads. Never opened for writing.

    Raises
    ------
    rankviz.InputError
        Naming the file, what it is, that it is unchanged, and what to do.
    """
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not header:
        raise kind.refuse(path, f"is an empty file, not a rankviz {kind.name}", kind.empty_fix)
    if header[:16] != SQLITE_MAGIC or len(header) < 100:
        raise kind.refuse(path, f"is not a rankviz {kind.name} (not a SQLite database)", kind.not_sqlite_fix)
    application = int.from_bytes(header[68:72], "big")
    version = int.from_bytes(header[60:64], "big")
    if application in kind.others:
        raise kind.refuse(path, *kind.others[application])
    if application != kind.application_id:
        raise kind.refuse(
            path,
            f"is a SQLite database of another application (application id {application:#x}), not a rankviz {kind.name}",
            kind.foreign_fix,
        )
    if version > kind.schema_version:
        raise kind.newer(path, version)
    if version < 1:
        raise kind.refuse(path, kind.no_version_problem, kind.no_version_fix)
    try:
        connection = connect_read_only(path, checking=True)
        try:
            live = int(connection.execute("PRAGMA user_version").fetchone()[0])
            if live > kind.schema_version:
                raise kind.newer(path, live)
            ok = connection.execute("PRAGMA quick_check").fetchone()[0]
            meta = dict(connection.execute("SELECT key, value FROM rankviz_meta").fetchall())
            tables(connection, version)
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        raise kind.refuse(
            path, f"is a damaged rankviz {kind.name} (SQLite says: {error})", "Restore it from a backup."
        ) from None
    if ok != "ok" or meta.get("format") != kind.format:
        raise kind.refuse(
            path, f"is a damaged rankviz {kind.name} (integrity check: {ok})", "Restore it from a backup."
        )
    return version


def connect_read_only(path, *, checking: bool = False) -> sqlite3.Connection:
    """A connection that cannot write to the file (SQLite's ``mode=ro``).

    ``checking``: for a file no connection has open (no ``-wal`` beside it), open it
    ``immutable``, so that checking it creates no ``-wal``/``-shm`` files either.
    """
    path = os.path.abspath(os.fspath(path))
    quiet = checking and not os.path.exists(path + "-wal")
    uri = Path(path).as_uri() + ("?mode=ro&immutable=1" if quiet else "?mode=ro")
    connection = sqlite3.connect(uri, uri=True, timeout=60.0)
    connection.execute("PRAGMA query_only = ON")
    return connection


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
