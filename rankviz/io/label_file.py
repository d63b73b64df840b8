"""The label store's file format: recognising a store, refusing any other file untouched, reading its qrels.

A label store (:class:`rankviz.labels.LabelStore` writes it) is a SQLite database
whose header carries rankviz's application id and the schema version
(``PRAGMA application_id`` and ``PRAGMA user_version``, bytes 68 and 60 of the
file), with two tables: ``rankviz_meta`` (``format``, ``schema_version``) and
``judgements`` (one row per judgement, never updated: a changed label is a new
row, a withdrawn one a row whose grade is NULL).

This module sits with the readers (input layer) so that :func:`rankviz.read_qrels`
and every evaluation function taking a qrels path read a store without knowing
the class that writes it. Nothing here writes: a file is checked from its first
100 bytes, then opened read-only (``mode=ro``) for the integrity check, so a file
that is not a rankviz store, a damaged one, or one from a newer rankviz is refused
and never modified.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "SQLITE_MAGIC",
    "RESOLVE_CHOICES",
    "is_sqlite_file",
    "check_store",
    "connect_read_only",
    "read_rows",
    "resolve_qrels",
    "read_store_qrels",
]

#: the first 16 bytes of every SQLite 3 database file
SQLITE_MAGIC = b"SQLite format 3\x00"
#: ``PRAGMA application_id`` of a rankviz label store ("RKVL")
APPLICATION_ID = 0x524B564C
#: the schema this rankviz writes and reads; a store with a larger ``user_version`` is refused
SCHEMA_VERSION = 1
RESOLVE_CHOICES = ("latest", "majority", "mean")

_COLUMNS = ("id", "query_id", "doc_id", "grade", "annotator", "time", "source")


def is_sqlite_file(path) -> bool:
    """Whether ``path`` is a regular file that starts with SQLite's 16-byte header string."""
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == SQLITE_MAGIC
    except (OSError, TypeError, ValueError):
        return False


def _refuse(path, problem: str, fix: str) -> InputError:
    return InputError(f"{os.fspath(path)} {problem}; it was not opened for writing and is unchanged. {fix}")


def check_store(path) -> int:
    """Check that ``path`` is a rankviz label store this version can read and write; return its schema version.

    Raises
    ------
    rankviz.InputError
        For an empty file, a file that is not SQLite, a SQLite database of another
        application, a store with a newer schema version, or a damaged store. The
        file is never opened for writing.
    """
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not header:
        raise _refuse(path, "is an empty file, not a rankviz label store", "Delete it, or give LabelStore a new path.")
    if header[:16] != SQLITE_MAGIC or len(header) < 100:
        raise _refuse(
            path,
            "is not a rankviz label store (not a SQLite database)",
            "Give LabelStore a new path or an existing store.",
        )
    application = int.from_bytes(header[68:72], "big")
    version = int.from_bytes(header[60:64], "big")
    if application != APPLICATION_ID:
        raise _refuse(
            path,
            f"is a SQLite database of another application (application id {application:#x}), not a rankviz label store",
            "Give LabelStore a new path; to bring labels in, export them as TREC qrels and use LabelStore.import_qrels.",
        )
    if version > SCHEMA_VERSION:
        raise _refuse(
            path,
            f"was written by a newer rankviz (label store schema {version}; this rankviz reads up to {SCHEMA_VERSION})",
            "Upgrade rankviz (pip install -U rankviz) to open it.",
        )
    if version < 1:
        raise _refuse(
            path,
            "has rankviz's application id but no schema version",
            "It is not a store rankviz wrote; give a new path.",
        )
    _check_contents(path)
    return version


def _check_contents(path) -> None:
    """SQLite's quick integrity check and the meta table, through a read-only connection."""
    try:
        connection = connect_read_only(path, checking=True)
        try:
            ok = connection.execute("PRAGMA quick_check").fetchone()[0]
            meta = dict(connection.execute("SELECT key, value FROM rankviz_meta").fetchall())
            connection.execute(
                "SELECT id, query_id, doc_id, grade, annotator, time, source FROM judgements LIMIT 1"
            ).fetchall()
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        raise _refuse(
            path, f"is a damaged rankviz label store (SQLite says: {error})", "Restore it from a backup."
        ) from None
    if ok != "ok" or meta.get("format") != "rankviz label store":
        raise _refuse(path, f"is a damaged rankviz label store (integrity check: {ok})", "Restore it from a backup.")


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


def read_rows(connection: sqlite3.Connection) -> pd.DataFrame:
    """Every judgement of a store, in the order they were committed (``id``)."""
    rows = connection.execute(f"SELECT {', '.join(_COLUMNS)} FROM judgements ORDER BY id").fetchall()
    columns = list(zip(*rows)) if rows else [() for _ in _COLUMNS]
    frame = pd.DataFrame({name: list(values) for name, values in zip(_COLUMNS, columns)})
    frame["id"] = frame["id"].astype(np.int64)
    frame["grade"] = pd.array(frame["grade"].tolist(), dtype="Int64")
    for name in ("query_id", "doc_id", "annotator", "time", "source"):
        frame[name] = frame[name].astype("str")
    return frame


def _chosen(rows: pd.DataFrame, annotator, caller: str) -> pd.DataFrame:
    """The rows of the chosen annotator(s): None = all, a name, or a list of names."""
    if annotator is None:
        return rows
    names = [annotator] if isinstance(annotator, str) else list(annotator)
    known = sorted(set(rows["annotator"]))
    unknown = [name for name in names if name not in known]
    if unknown:
        raise InputError(
            f"{caller}: no judgement by annotator {unknown[0]!r} in the store; its annotators are "
            f"{', '.join(map(repr, known)) or 'none yet'}. Pass one of them, a list of them, or annotator=None for all."
        )
    return rows[rows["annotator"].isin(names)]


def _combine(latest: pd.DataFrame, resolve: str) -> pd.DataFrame:
    """One grade per (query, doc) from each annotator's latest grade, by the ``resolve`` rule."""
    group = latest.groupby(["query_id", "doc_id"], sort=False)
    if resolve == "latest":
        return latest.loc[group["id"].idxmax()]
    if resolve == "mean":
        # round half up: the mean of 1 and 2 is 2, of 0 and 1 is 1
        means = group["grade"].transform(lambda g: np.floor(g.astype(float).mean() + 0.5))
        out = latest.loc[group["id"].idxmax()].copy()
        out["grade"] = pd.array(means.loc[out.index].astype(np.int64).to_numpy(), dtype="Int64")
        return out
    counts = latest.assign(n=latest.groupby(["query_id", "doc_id", "grade"], sort=False)["id"].transform("size"))
    # majority: the most frequent grade; a tie goes to the tied grade judged most recently
    best = counts.sort_values(["n", "id"]).groupby(["query_id", "doc_id"], sort=False).tail(1)
    return best


def resolve_qrels(
    rows: pd.DataFrame, *, annotator=None, resolve: str = "latest", caller: str = "read_qrels"
) -> pd.DataFrame:
    """Qrels from a store's judgements: each annotator's latest grade per pair, combined by ``resolve``.

    Returns a frame like :func:`rankviz.read_qrels` gives: ``query_id``, ``iteration``
    (``"0"``), ``doc_id``, ``relevance`` (int64), in the order the pairs were first
    judged. Withdrawn judgements (the latest row has no grade) leave the pair unjudged.
    """
    if resolve not in RESOLVE_CHOICES:
        raise InputError(
            f"The 'resolve' parameter of {caller} must be one of {', '.join(map(repr, RESOLVE_CHOICES))}. Got {resolve!r} instead."
        )
    rows = _chosen(rows, annotator, caller)
    first = rows.groupby(["query_id", "doc_id"], sort=False)["id"].min()
    latest = rows.loc[rows.groupby(["query_id", "doc_id", "annotator"], sort=False)["id"].idxmax()]
    latest = latest[latest["grade"].notna()]
    combined = _combine(latest, resolve) if len(latest) else latest
    combined = combined.assign(
        first=first.reindex(pd.MultiIndex.from_frame(combined[["query_id", "doc_id"]])).to_numpy()
    )
    combined = combined.sort_values("first", kind="stable")
    return pd.DataFrame(
        {
            "query_id": pd.array(combined["query_id"].tolist(), dtype="str"),
            "iteration": pd.array(["0"] * len(combined), dtype="str"),
            "doc_id": pd.array(combined["doc_id"].tolist(), dtype="str"),
            "relevance": combined["grade"].to_numpy(dtype=np.int64),
        }
    )


def read_store_qrels(path, *, annotator=None, resolve: str = "latest") -> pd.DataFrame:
    """The qrels of a label store file (checked first, read through a read-only connection)."""
    check_store(path)
    connection = connect_read_only(path)
    try:
        rows = read_rows(connection)
    finally:
        connection.close()
    return resolve_qrels(rows, annotator=annotator, resolve=resolve, caller="read_qrels")
