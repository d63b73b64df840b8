"""The evaluation history's file: one SQLite database, recognised before it is ever opened for writing.

The habits are the label store's (:mod:`rankviz.io.label_file`): the file carries
``PRAGMA application_id`` "RKVH" and a schema version in ``PRAGMA user_version``; a
file that is empty, not SQLite, another application's database, a label store, a
history of a newer schema or a damaged history is refused, read through its
100-byte header and a read-only connection only, so it is left byte for byte as it
was. A new file is built beside its path and linked in whole, so a second process
creating the same history at the same moment finds a complete one.

Tables: ``records`` (one row per evaluation, never updated), ``qrels_sets`` (the
per-query fingerprints of each distinct qrels, stored once and shared by the
records that used it) and ``events`` (``accept`` marks, appended).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .._errors import InputError
from ..io.sqlite_files import create_atomically

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "check_history", "create_history", "connect", "connect_read_only"]

SQLITE_MAGIC = b"SQLite format 3\x00"
#: ``PRAGMA application_id`` of a rankviz history ("RKVH")
APPLICATION_ID = 0x524B5648
#: the schema this rankviz writes and reads; a history with a larger ``user_version`` is refused
SCHEMA_VERSION = 1
#: ``application_id`` of the label store ("RKVL"): named in the refusal, it is rankviz's other file
LABEL_STORE_ID = 0x524B564C

RECORD_COLUMNS = (
    "id", "name", "time", "rankviz_version", "measures", "systems", "n_queries", "means", "options",
    "qrels_fingerprint", "queries_fingerprint", "run_fingerprint", "options_fingerprint", "meta", "attrs", "per_query",
)  # fmt: skip

SCHEMA = f"""
CREATE TABLE rankviz_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    time TEXT NOT NULL,
    rankviz_version TEXT NOT NULL,
    measures TEXT NOT NULL,
    systems TEXT NOT NULL,
    n_queries INTEGER NOT NULL,
    means TEXT NOT NULL,
    options TEXT NOT NULL,
    qrels_fingerprint TEXT,
    queries_fingerprint TEXT NOT NULL,
    run_fingerprint TEXT,
    options_fingerprint TEXT NOT NULL,
    meta TEXT NOT NULL,
    attrs TEXT NOT NULL,
    per_query BLOB NOT NULL
);
CREATE INDEX records_by_name ON records (name, id);
CREATE TABLE qrels_sets (fingerprint TEXT PRIMARY KEY, per_query BLOB NOT NULL);
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    record_id INTEGER NOT NULL REFERENCES records (id),
    kind TEXT NOT NULL,
    time TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT ''
);
INSERT INTO rankviz_meta VALUES ('format', 'rankviz history'), ('schema_version', '{SCHEMA_VERSION}');
PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
"""


def _refuse(path, problem: str, fix: str) -> InputError:
    return InputError(f"History: {os.fspath(path)} {problem}; it was not opened for writing and is unchanged. {fix}")


def check_history(path) -> int:
    """Check that ``path`` is a rankviz history this version reads and writes; return its schema version.

    Raises
    ------
    rankviz.InputError
        For an empty file, a file that is not SQLite, another application's SQLite
        database (a label store included), a newer schema, or a damaged history. The
        file is never opened for writing.
    """
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not header:
        raise _refuse(path, "is an empty file, not a rankviz history", "Delete it, or give History a new path.")
    if header[:16] != SQLITE_MAGIC or len(header) < 100:
        raise _refuse(path, "is not a rankviz history (not a SQLite database)", "Give History a new path.")
    application = int.from_bytes(header[68:72], "big")
    version = int.from_bytes(header[60:64], "big")
    if application == LABEL_STORE_ID:
        raise _refuse(
            path, "is a rankviz label store, not a history", "Give History another path, e.g. 'history.sqlite'."
        )
    if application != APPLICATION_ID:
        raise _refuse(
            path,
            f"is a SQLite database of another application (application id {application:#x}), not a rankviz history",
            "Give History a new path.",
        )
    if version > SCHEMA_VERSION:
        raise _refuse(
            path,
            f"was written by a newer rankviz (history schema {version}; this rankviz reads up to {SCHEMA_VERSION})",
            "Upgrade rankviz (pip install -U rankviz) to open it.",
        )
    if version < 1:
        raise _refuse(path, "has rankviz's history id but no schema version", "It is not a history rankviz wrote.")
    try:
        connection = connect_read_only(path, checking=True)
        try:
            live = int(connection.execute("PRAGMA user_version").fetchone()[0])  # the header may lag the -wal file
            if live > SCHEMA_VERSION:
                raise _refuse(
                    path,
                    f"was written by a newer rankviz (history schema {live}; this rankviz reads up to {SCHEMA_VERSION})",
                    "Upgrade rankviz (pip install -U rankviz) to open it.",
                )
            ok = connection.execute("PRAGMA quick_check").fetchone()[0]
            meta = dict(connection.execute("SELECT key, value FROM rankviz_meta").fetchall())
            connection.execute(f"SELECT {', '.join(RECORD_COLUMNS)} FROM records LIMIT 1").fetchall()
            connection.execute("SELECT fingerprint, per_query FROM qrels_sets LIMIT 1").fetchall()
            connection.execute("SELECT id, record_id, kind, time, note FROM events LIMIT 1").fetchall()
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        raise _refuse(
            path, f"is a damaged rankviz history (SQLite says: {error})", "Restore it from a backup."
        ) from None
    if ok != "ok" or meta.get("format") != "rankviz history":
        raise _refuse(path, f"is a damaged rankviz history (integrity check: {ok})", "Restore it from a backup.")
    return version


def create_history(path: str) -> None:
    """Write a new empty history at ``path`` atomically (see :func:`rankviz.io.sqlite_files.create_atomically`)."""
    create_atomically(path, SCHEMA, ".rankviz-history-")


def connect(path: str) -> sqlite3.Connection:
    """A writing connection: autocommit (transactions are explicit), 60 s busy wait, ``synchronous=FULL``."""
    connection = sqlite3.connect(path, isolation_level=None, timeout=60.0)
    connection.execute("PRAGMA busy_timeout = 60000")
    connection.execute("PRAGMA synchronous = FULL")
    return connection


def connect_read_only(path, *, checking: bool = False) -> sqlite3.Connection:
    """A connection that cannot write (``mode=ro``; ``immutable`` when checking a file no one has open)."""
    path = os.path.abspath(os.fspath(path))
    quiet = checking and not os.path.exists(path + "-wal")
    uri = Path(path).as_uri() + ("?mode=ro&immutable=1" if quiet else "?mode=ro")
    connection = sqlite3.connect(uri, uri=True, timeout=60.0)
    connection.execute("PRAGMA query_only = ON")
    return connection
