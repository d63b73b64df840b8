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

import sqlite3

from ..io.sqlite_files import FileKind, check_owned_file, connect_read_only, create_atomically

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "check_history", "create_history", "connect", "connect_read_only"]

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


KIND = FileKind(
    name="history",
    application_id=APPLICATION_ID,
    schema_version=SCHEMA_VERSION,
    format="rankviz history",
    prefix="History: ",
    empty_fix="Delete it, or give History a new path.",
    not_sqlite_fix="Give History a new path.",
    foreign_fix="Give History a new path.",
    no_version_problem="has rankviz's history id but no schema version",
    no_version_fix="It is not a history rankviz wrote.",
    others={
        LABEL_STORE_ID: ("is a rankviz label store, not a history", "Give History another path, e.g. 'history.sqlite'.")
    },
)


def _tables(connection: sqlite3.Connection, version: int) -> None:
    connection.execute(f"SELECT {', '.join(RECORD_COLUMNS)} FROM records LIMIT 1").fetchall()
    connection.execute("SELECT fingerprint, per_query FROM qrels_sets LIMIT 1").fetchall()
    connection.execute("SELECT id, record_id, kind, time, note FROM events LIMIT 1").fetchall()


def check_history(path) -> int:
    """Check that ``path`` is a rankviz history this version reads and writes; return its schema version.

    Raises
    ------
    rankviz.InputError
        For an empty file, a file that is not SQLite, another application's SQLite
        database (a label store included), a newer schema, or a damaged history. The
        file is never opened for writing (:func:`rankviz.io.sqlite_files.check_owned_file`).
    """
    return check_owned_file(path, KIND, _tables)


def create_history(path: str) -> None:
    """Write a new empty history at ``path`` atomically (see :func:`rankviz.io.sqlite_files.create_atomically`)."""
    create_atomically(path, SCHEMA, ".rankviz-history-")


def connect(path: str) -> sqlite3.Connection:
    """A writing connection: autocommit (transactions are explicit), 60 s busy wait, ``synchronous=FULL``."""
    connection = sqlite3.connect(path, isolation_level=None, timeout=60.0)
    connection.execute("PRAGMA busy_timeout = 60000")
    connection.execute("PRAGMA synchronous = FULL")
    return connection
