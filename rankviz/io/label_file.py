"""The label store's file format: recognising a store, refusing any other file untouched, reading its qrels.

A label store (:class:`rankviz.labels.LabelStore` writes it) is a SQLite database
whose header carries rankviz's application id and the schema version
(``PRAGMA application_id`` and ``PRAGMA user_version``, bytes 68 and 60 of the
file), with the tables ``rankviz_meta`` (``format``, ``schema_version``) and
``judgements`` (one row per judgement, never updated: a changed label is a new
row, a withdrawn one a row whose grade is NULL).

Schema 2 (rankviz writes it for new stores) adds provenance to each judgement:
``kind`` (``'human'`` or ``'model'``), ``judge`` (the judge's name, ``''`` for a
person), ``fingerprint`` (the judge's configuration hash) and ``raw`` (a model's
answer as it came), and a ``failures`` table: a pair a judge could not grade, with
the reason (never a grade). A schema 1 store (the first release) opens unchanged
and its rows read as human judgements; :meth:`rankviz.labels.LabelStore.upgrade`
moves it to schema 2 when a model is to write into it.

Values are checked as they are read (SQLite is loosely typed, and another tool may
have written the file): a grade that is not an integer of magnitude at most 2**53
or NULL, an empty or non-text id, or an unknown kind refuses the file, naming the row.

This module sits with the readers (input layer) so that :func:`rankviz.read_qrels`
and every evaluation function taking a qrels path read a store without knowing
the class that writes it. Nothing here writes: a file is checked from its first
100 bytes, then opened read-only (``mode=ro``) for the integrity check, so a file
that is not a rankviz store, a damaged one, or one from a newer rankviz is refused
and never modified.
"""

from __future__ import annotations

import numbers
import os
import sqlite3

import numpy as np
import pandas as pd

from .._errors import InputError
from .sqlite_files import SQLITE_MAGIC, FileKind, check_owned_file, connect_read_only

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "SQLITE_MAGIC",
    "RESOLVE_CHOICES",
    "is_sqlite_file",
    "check_store",
    "connect_read_only",
    "read_rows",
    "read_failures",
    "schema_version",
    "resolve_qrels",
    "read_store_qrels",
    "check_text",
    "check_grade",
]

#: ``PRAGMA application_id`` of a rankviz label store ("RKVL")
APPLICATION_ID = 0x524B564C
#: the schema this rankviz writes and reads; a store with a larger ``user_version`` is refused
SCHEMA_VERSION = 2
#: ``human_first``: a pair's human grades decide it (the latest); a model's fill only the pairs no person graded
RESOLVE_CHOICES = ("latest", "majority", "mean", "human_first")
KIND_CHOICES = ("human", "model")

_V1_COLUMNS = ("id", "query_id", "doc_id", "grade", "annotator", "time", "source")
_PROVENANCE = ("kind", "judge", "fingerprint", "raw")
_COLUMNS = _V1_COLUMNS + _PROVENANCE
_FAILURE_COLUMNS = ("id", "query_id", "doc_id", "annotator", "judge", "fingerprint", "time", "reason", "raw")
_MAX_GRADE = 2**53


def check_text(value, name: str, caller: str) -> str:
    """An id or a name as a store keeps it: a non-empty string (ints are accepted and written as their digits).

    Every row a store writes passes this (``LabelStore.add`` and every import).
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, numbers.Integral)):
        raise InputError(
            f"The {name!r} parameter of {caller} must be a string. Got {type(value).__name__} {value!r} instead."
        )
    text = str(value)
    if not text.strip():
        raise InputError(f"The {name!r} parameter of {caller} must be a non-empty string. Got {value!r} instead.")
    return text


def check_grade(value, caller: str, name: str = "grade") -> int:
    """A grade as a store keeps it: an integer (an integral float is accepted) of magnitude at most 2**53."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, float, np.floating)):
        raise InputError(
            f"The {name!r} parameter of {caller} must be an integer grade (0, 1, 2, ...). Got {value!r} instead."
        )
    if isinstance(value, (float, np.floating)) and not (np.isfinite(value) and float(value).is_integer()):
        raise InputError(
            f"The {name!r} parameter of {caller} must be an integer grade (0, 1, 2, ...). Got {value!r} instead."
        )
    if abs(int(value)) > _MAX_GRADE:
        raise InputError(
            f"The {name!r} parameter of {caller} must be at most 2**53 in magnitude. Got {value!r} instead."
        )
    return int(value)


def is_sqlite_file(path) -> bool:
    """Whether ``path`` is a regular file that starts with SQLite's 16-byte header string."""
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == SQLITE_MAGIC
    except (OSError, TypeError, ValueError):
        return False


KIND = FileKind(
    name="label store",
    application_id=APPLICATION_ID,
    schema_version=SCHEMA_VERSION,
    format="rankviz label store",
    empty_fix="Delete it, or give LabelStore a new path.",
    not_sqlite_fix="Give LabelStore a new path or an existing store.",
    foreign_fix="Give LabelStore a new path; to bring labels in, export them as TREC qrels and use "
    "LabelStore.import_qrels.",
    no_version_problem="has rankviz's application id but no schema version",
    no_version_fix="It is not a store rankviz wrote; give a new path.",
)


def check_store(path) -> int:
    """Check that ``path`` is a rankviz label store this version can read and write; return its schema version.

    Raises
    ------
    rankviz.InputError
        For an empty file, a file that is not SQLite, a SQLite database of another
        application, a store with a newer schema version, or a damaged store. The
        file is never opened for writing (:func:`rankviz.io.sqlite_files.check_owned_file`).
    """
    return check_owned_file(path, KIND, _tables)


def _tables(connection: sqlite3.Connection, version: int) -> None:
    """The judgements (and from schema 2 the failures) table has the columns this version reads."""
    columns = _COLUMNS if version >= 2 else _V1_COLUMNS
    connection.execute(f"SELECT {', '.join(columns)} FROM judgements LIMIT 1").fetchall()
    if version >= 2:
        connection.execute(f"SELECT {', '.join(_FAILURE_COLUMNS)} FROM failures LIMIT 1").fetchall()


def schema_version(connection: sqlite3.Connection) -> int:
    """The schema version of an open store (``PRAGMA user_version``)."""
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


# the first row whose values another tool could have written but rankviz never does (SQLite does not enforce types)
_BAD_ROW = f"""
SELECT id, query_id, doc_id, grade, annotator, time, source, {{kind}} FROM judgements
WHERE NOT (grade IS NULL OR (typeof(grade) = 'integer' AND grade BETWEEN -{_MAX_GRADE} AND {_MAX_GRADE}))
   OR typeof(query_id) != 'text' OR trim(query_id) = '' OR typeof(doc_id) != 'text' OR trim(doc_id) = ''
   OR typeof(annotator) != 'text' OR trim(annotator) = '' OR typeof(time) != 'text'
   OR {{kind}} NOT IN ('human', 'model')
ORDER BY id LIMIT 1
"""


def _why(row: tuple) -> str:
    _, query_id, doc_id, grade, annotator, time, _, kind = row
    if not (grade is None or (isinstance(grade, int) and abs(grade) <= _MAX_GRADE)):
        return f"grade {grade!r} ({type(grade).__name__}) is not an integer of magnitude at most 2**53, nor NULL"
    for name, value in (("query_id", query_id), ("doc_id", doc_id), ("annotator", annotator)):
        if not isinstance(value, str) or not value.strip():
            return f"{name} {value!r} is not a non-empty text"
    if not isinstance(time, str):
        return f"time {time!r} is not a text"
    return f"kind {kind!r} is neither 'human' nor 'model'"


def _check_values(connection: sqlite3.Connection, version: int, path: str) -> None:
    bad = connection.execute(_BAD_ROW.format(kind="kind" if version >= 2 else "'human'")).fetchone()
    if bad is None:
        return
    position = connection.execute("SELECT count(*) FROM judgements WHERE id <= ?", (bad[0],)).fetchone()[0]
    raise InputError(
        f"{path} has a judgement rankviz cannot read: row {position} of its judgements table (id {bad[0]}): "
        f"{_why(bad)}. Another tool wrote it (SQLite does not enforce types); the file is unchanged. Correct or "
        "delete that row with a SQLite tool (a grade is an integer, or NULL for a withdrawn judgement; ids are "
        "non-empty text), or restore the store from a backup."
    )


def read_rows(connection: sqlite3.Connection, path: str = "the label store") -> pd.DataFrame:
    """Every judgement of a store, in the order they were committed (``id``), each value checked.

    A schema 1 store's rows read as human judgements (``kind='human'``, no judge).

    Raises
    ------
    rankviz.InputError
        Naming the row, for a value rankviz never writes (a grade of ``'high'``,
        ``1.5`` or ``2**62``, an empty id, an unknown kind).
    """
    version = schema_version(connection)
    _check_values(connection, version, path)
    selected = _COLUMNS if version >= 2 else _V1_COLUMNS
    rows = connection.execute(f"SELECT {', '.join(selected)} FROM judgements ORDER BY id").fetchall()
    columns = list(zip(*rows)) if rows else [() for _ in selected]
    frame = pd.DataFrame({name: list(values) for name, values in zip(selected, columns)})
    if version < 2:
        frame = frame.assign(kind="human", judge="", fingerprint="", raw=None)
    frame["id"] = frame["id"].astype(np.int64)
    frame["grade"] = pd.array(frame["grade"].tolist(), dtype="Int64")
    for name in ("query_id", "doc_id", "annotator", "time", "source", "kind", "judge", "fingerprint"):
        frame[name] = frame[name].astype("str")
    frame["raw"] = frame["raw"].astype(object)
    return frame


def read_failures(connection: sqlite3.Connection) -> pd.DataFrame:
    """The pairs judges could not grade, with the reason (none in a schema 1 store)."""
    if schema_version(connection) < 2:
        rows: list = []
    else:
        rows = connection.execute(f"SELECT {', '.join(_FAILURE_COLUMNS)} FROM failures ORDER BY id").fetchall()
    columns = list(zip(*rows)) if rows else [() for _ in _FAILURE_COLUMNS]
    frame = pd.DataFrame({name: list(values) for name, values in zip(_FAILURE_COLUMNS, columns)})
    frame["id"] = frame["id"].astype(np.int64)
    for name in _FAILURE_COLUMNS[1:-1]:
        frame[name] = frame[name].astype("str")
    frame["raw"] = frame["raw"].astype(object)
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


def _kind_of_pairs(latest: pd.DataFrame) -> pd.Series:
    """Per (query, doc): ``human``, ``model``, or ``mixed`` when people and a model both gave the grades combined."""
    return latest.groupby(["query_id", "doc_id"], sort=False)["kind"].agg(
        lambda k: k.iloc[0] if k.nunique() == 1 else "mixed"
    )


def resolve_qrels(
    rows: pd.DataFrame, *, annotator=None, kind=None, resolve: str = "latest", caller: str = "read_qrels"
) -> pd.DataFrame:
    """Qrels from a store's judgements: each annotator's latest grade per pair, combined by ``resolve``.

    Returns a frame like :func:`rankviz.read_qrels` gives: ``query_id``, ``iteration``
    (``"0"``), ``doc_id``, ``relevance`` (int64), in the order the pairs were first
    judged; and, when any grade returned came from a model, a ``kind`` column
    (``human``, ``model``, or ``mixed`` for a grade combined from both), which
    evaluation reads to say how much of a top k a model graded. Withdrawn judgements
    (the latest row has no grade) leave the pair unjudged.
    """
    if resolve not in RESOLVE_CHOICES:
        raise InputError(
            f"The 'resolve' parameter of {caller} must be one of {', '.join(map(repr, RESOLVE_CHOICES))}. Got {resolve!r} instead."
        )
    if kind is not None and kind not in KIND_CHOICES:
        raise InputError(
            f"The 'kind' parameter of {caller} must be 'human', 'model' or None (both). Got {kind!r} instead."
        )
    rows = _chosen(rows, annotator, caller)
    if kind is not None:
        if not (rows["kind"] == kind).any():
            raise InputError(
                f"{caller}: no {kind} judgement in the store{' by the annotators chosen' if annotator is not None else ''}; "
                f"its judgements are {', '.join(sorted(set(rows['kind']))) or 'none yet'}. Pass kind=None for every judgement."
            )
        rows = rows[rows["kind"] == kind]
    first = rows.groupby(["query_id", "doc_id"], sort=False)["id"].min()
    latest = rows.loc[rows.groupby(["query_id", "doc_id", "annotator"], sort=False)["id"].idxmax()]
    latest = latest[latest["grade"].notna()]
    if resolve == "human_first" and len(latest):
        has_human = latest.groupby(["query_id", "doc_id"], sort=False)["kind"].transform(lambda k: (k == "human").any())
        latest = latest[~has_human.astype(bool) | (latest["kind"] == "human")]
    combined = _combine(latest, "latest" if resolve == "human_first" else resolve) if len(latest) else latest
    if len(combined) and resolve in ("majority", "mean"):  # the grade combines every annotator's: say whose
        pair_kind = _kind_of_pairs(latest)
        combined = combined.assign(
            kind=pair_kind.reindex(pd.MultiIndex.from_frame(combined[["query_id", "doc_id"]])).to_numpy()
        )
    combined = combined.assign(
        first=first.reindex(pd.MultiIndex.from_frame(combined[["query_id", "doc_id"]])).to_numpy()
    )
    combined = combined.sort_values("first", kind="stable")
    qrels = pd.DataFrame(
        {
            "query_id": pd.array(combined["query_id"].tolist(), dtype="str"),
            "iteration": pd.array(["0"] * len(combined), dtype="str"),
            "doc_id": pd.array(combined["doc_id"].tolist(), dtype="str"),
            "relevance": combined["grade"].to_numpy(dtype=np.int64),
        }
    )
    if len(combined) and (combined["kind"] != "human").any():
        qrels["kind"] = pd.array(combined["kind"].tolist(), dtype="str")
    return qrels


def read_store_qrels(path, *, annotator=None, kind=None, resolve: str = "latest") -> pd.DataFrame:
    """The qrels of a label store file (checked first, read through a read-only connection)."""
    check_store(path)
    connection = connect_read_only(path)
    try:
        rows = read_rows(connection, os.fspath(path))
    finally:
        connection.close()
    return resolve_qrels(rows, annotator=annotator, kind=kind, resolve=resolve, caller="read_qrels")
