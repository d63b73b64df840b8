"""A label store that never loses a judgement: SQLite, one committed transaction per judgement.

The file format (and the checks that refuse any other file without modifying it)
is in :mod:`rankviz.io.label_file`; this module writes. Judgements are only ever
appended: changing a label adds a row (the latest wins), withdrawing one adds a
row without a grade, so the whole history stays in the file.
"""

from __future__ import annotations

import datetime
import os
import sqlite3
from collections.abc import Iterable, Mapping

import pandas as pd

from .._core.long_run import resolve_qrels
from .._errors import InputError
from ..io import label_file as fmt
from ..io import qrels_from_dict, read_qrels, write_qrels
from ..io.sqlite_files import OwnedConnection, create_atomically
from .label_studio import label_studio_rows, read_label_studio

__all__ = ["LabelStore"]

# schema 2 = schema 1's table plus provenance columns (appended, as ALTER TABLE does in ``upgrade``) and failures
_PROVENANCE_SCHEMA = """
ALTER TABLE judgements ADD COLUMN kind TEXT NOT NULL DEFAULT 'human';
ALTER TABLE judgements ADD COLUMN judge TEXT NOT NULL DEFAULT '';
ALTER TABLE judgements ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';
ALTER TABLE judgements ADD COLUMN raw TEXT;
CREATE TABLE failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    annotator TEXT NOT NULL,
    judge TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    time TEXT NOT NULL,
    reason TEXT NOT NULL,
    raw TEXT
);
CREATE INDEX judgements_by_judge ON judgements (judge, fingerprint);
"""
_SCHEMA = f"""
CREATE TABLE rankviz_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE judgements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    grade INTEGER,
    annotator TEXT NOT NULL,
    time TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT ''
);
CREATE INDEX judgements_by_pair ON judgements (query_id, doc_id, annotator);
{_PROVENANCE_SCHEMA}
INSERT INTO rankviz_meta VALUES ('format', 'rankviz label store'), ('schema_version', '{fmt.SCHEMA_VERSION}');
PRAGMA application_id = {fmt.APPLICATION_ID};
PRAGMA user_version = {fmt.SCHEMA_VERSION};
"""

_INSERT = "INSERT INTO judgements (query_id, doc_id, grade, annotator, time, source) VALUES (?, ?, ?, ?, ?, ?)"
_INSERT_MODEL = (
    "INSERT INTO judgements (query_id, doc_id, grade, annotator, time, source, kind, judge, fingerprint, raw) "
    "VALUES (?, ?, ?, ?, ?, ?, 'model', ?, ?, ?)"
)
_INSERT_FAILURE = (
    "INSERT INTO failures (query_id, doc_id, annotator, judge, fingerprint, time, reason, raw) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")


_text, _grade = fmt.check_text, fmt.check_grade  # the one check of every id and grade written (add, imports)


class LabelStore(OwnedConnection):
    """Relevance judgements in one SQLite file: every judgement committed to disk when ``add`` returns.

    Each judgement keeps the query, the document, the grade, the annotator, the time
    (UTC) and where it came from (``source``). Changing a label adds a row (the
    history is kept; the latest wins); annotators are kept apart by name and any
    number of processes may write at once. Reopening a store resumes where it
    stopped.

    Parameters
    ----------
    path : str or path-like
        The store's file. A path that does not exist becomes a new store (unless
        ``create=False``); an existing file must be a rankviz label store.
    create : bool, default True
        Create the store when ``path`` does not exist.

    Raises
    ------
    rankviz.InputError
        When the file exists but is not a rankviz label store (any other file,
        another application's SQLite database, an empty file), is damaged, or was
        written by a newer rankviz. Such a file is checked read-only and never
        modified.

    Notes
    -----
    The file is SQLite in WAL mode with ``synchronous=FULL``; each :meth:`add` is one
    ``BEGIN IMMEDIATE ... COMMIT`` transaction, so a judgement acknowledged to the
    caller survives the process being killed (and, with ``FULL``, a power cut).
    Writers wait up to 60 s for each other's transactions (``busy_timeout``). The
    schema is described in :mod:`rankviz.io.label_file`.

    Examples
    --------
    >>> import os, tempfile, rankviz
    >>> from rankviz.labels import LabelStore
    >>> path = os.path.join(tempfile.mkdtemp(), "labels.sqlite")
    >>> store = LabelStore(path)
    >>> store.add("q1", "d1", 2, annotator="ann")
    >>> store.add("q1", "d2", 0, annotator="ann")
    >>> store.add("q1", "d2", 1, annotator="ann")  # a change: the latest wins
    >>> store.to_qrels()[["query_id", "doc_id", "relevance"]].to_dict("list")
    {'query_id': ['q1', 'q1'], 'doc_id': ['d1', 'd2'], 'relevance': [2, 1]}
    >>> len(store.history()), store.annotators()
    (3, ['ann'])
    >>> rankviz.read_qrels(path, annotator="ann")["relevance"].tolist()
    [2, 1]
    >>> store.close()
    """

    def __init__(self, path, *, create: bool = True):
        if not isinstance(path, (str, os.PathLike)):
            raise InputError(f"LabelStore: path must be a str or path-like. Got {type(path).__name__} instead.")
        self.path = os.path.abspath(os.fspath(path))
        if os.path.isdir(self.path):
            raise InputError(
                f"LabelStore: {self.path!r} is a folder; give the path of a file, e.g. {os.path.join(self.path, 'labels.sqlite')!r}."
            )
        if not os.path.exists(self.path):
            if not create:
                raise InputError(f"LabelStore: there is no store at {self.path!r}; pass create=True to make a new one.")
            create_atomically(self.path, _SCHEMA, ".rankviz-labels-")
        #: the file's schema version (1: written by the first release, its rows read as human judgements)
        self.version = fmt.check_store(self.path)  # read-only: refuses (and leaves untouched) anything but a store
        self._connection: sqlite3.Connection | None = None

    def __fspath__(self) -> str:  # rankviz.read_qrels(store) and evaluate(..., store) read the store's file
        return self.path

    # -- connection ----------------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            connection = sqlite3.connect(self.path, isolation_level=None, timeout=60.0)
            connection.execute("PRAGMA busy_timeout = 60000")
            connection.execute("PRAGMA synchronous = FULL")
            self._connection = connection
        return self._connection

    def _write(self, rows: list[tuple], statement: str = _INSERT) -> None:
        """Append rows in one committed transaction."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(statement, rows)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- writing -------------------------------------------------------------------------------
    def add(self, query_id, doc_id, grade, *, annotator: str, source: str = "api") -> None:
        """Record one judgement; when this returns it is committed to disk.

        Parameters
        ----------
        query_id, doc_id : str
            The pair judged (ints are written as their digits).
        grade : int
            The relevance grade (0 = not relevant).
        annotator : str
            Who judged (a person, ``"llm-judge"``); annotators are kept apart.
        source : str, default 'api'
            Where the judgement came from (the judging widget writes ``'widget'``).
        """
        row = (
            _text(query_id, "query_id", "LabelStore.add"), _text(doc_id, "doc_id", "LabelStore.add"),
            _grade(grade, "LabelStore.add"), _text(annotator, "annotator", "LabelStore.add"), _now(), str(source),
        )  # fmt: skip
        self._write([row])

    def remove(self, query_id, doc_id, *, annotator: str, source: str = "api") -> None:
        """Withdraw an annotator's judgement of a pair (a row without a grade: the pair is unjudged again, history kept).

        Parameters
        ----------
        query_id, doc_id : str
            The pair.
        annotator : str
            Whose judgement is withdrawn.
        source : str, default 'api'
            Where the withdrawal came from.

        Examples
        --------
        >>> import os, tempfile
        >>> from rankviz.labels import LabelStore
        >>> store = LabelStore(os.path.join(tempfile.mkdtemp(), "labels.sqlite"))
        >>> store.add("q1", "d1", 2, annotator="ann")
        >>> store.remove("q1", "d1", annotator="ann")
        >>> store.grade("q1", "d1", annotator="ann") is None
        True
        """
        row = (
            _text(query_id, "query_id", "LabelStore.remove"), _text(doc_id, "doc_id", "LabelStore.remove"), None,
            _text(annotator, "annotator", "LabelStore.remove"), _now(), str(source),
        )  # fmt: skip
        self._write([row])

    def add_model(
        self, query_id, doc_id, grade, *, annotator: str, judge: str, fingerprint: str, raw=None, source: str = "judge"
    ) -> None:  # fmt: skip
        """Record one model judgement with its provenance; when this returns it is committed to disk.

        ``judge`` and ``fingerprint`` name the judge and its configuration, ``raw`` is
        the model's answer as it came. :func:`rankviz.labels.judge_pairs` calls this.
        """
        self._needs_provenance("add_model")
        row = (
            _text(query_id, "query_id", "LabelStore.add_model"), _text(doc_id, "doc_id", "LabelStore.add_model"),
            _grade(grade, "LabelStore.add_model"), _text(annotator, "annotator", "LabelStore.add_model"), _now(),
            str(source), _text(judge, "judge", "LabelStore.add_model"), str(fingerprint), None if raw is None else str(raw),
        )  # fmt: skip
        self._write([row], _INSERT_MODEL)

    def add_failure(
        self, query_id, doc_id, reason: str, *, annotator: str, judge: str, fingerprint: str, raw=None
    ) -> None:  # fmt: skip
        """Record that a judge could not grade a pair, and why (a failure is never a grade); committed on return."""
        self._needs_provenance("add_failure")
        row = (
            _text(query_id, "query_id", "LabelStore.add_failure"), _text(doc_id, "doc_id", "LabelStore.add_failure"),
            _text(annotator, "annotator", "LabelStore.add_failure"), _text(judge, "judge", "LabelStore.add_failure"),
            str(fingerprint), _now(), str(reason), None if raw is None else str(raw),
        )  # fmt: skip
        self._write([row], _INSERT_FAILURE)

    def _needs_provenance(self, caller: str) -> None:
        if self.version < 2:
            raise InputError(
                f"LabelStore.{caller}: {self.path} is a schema 1 label store (written by an earlier rankviz), which "
                "cannot record a model's judgements. Call store.upgrade() first (older rankviz versions then refuse "
                "the file), or judge into a new store."
            )

    def upgrade(self) -> None:
        """Move a schema 1 store to schema 2 (provenance and failures), in one transaction; its rows stay human.

        Opening an old store never changes it; this does, once: rankviz versions
        before schema 2 then refuse the file. Nothing happens to a schema 2 store.
        """
        if self.version >= 2:
            return
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            if fmt.schema_version(db) < 2:  # another process may have upgraded it meanwhile
                for statement in _PROVENANCE_SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("UPDATE rankviz_meta SET value = ? WHERE key = 'schema_version'", (str(fmt.SCHEMA_VERSION),))
                db.execute(f"PRAGMA user_version = {fmt.SCHEMA_VERSION}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        self.version = fmt.SCHEMA_VERSION

    def import_qrels(self, qrels, *, annotator: str, source: str | None = None) -> int:
        """Bring outside labels in: a TREC qrels file, a qrels frame or ``{query: {doc: grade}}``, in one transaction.

        Parameters
        ----------
        qrels : str, path-like, DataFrame or dict
            The labels.
        annotator : str
            The name they are stored under (``"trec"``, ``"nist"``).
        source : str, optional
            Where they came from; by default ``'qrels:<file name>'`` for a file, else ``'qrels'``.

        Returns
        -------
        int
            The number of judgements added.

        Examples
        --------
        >>> import os, tempfile
        >>> from rankviz.labels import LabelStore
        >>> store = LabelStore(os.path.join(tempfile.mkdtemp(), "labels.sqlite"))
        >>> store.import_qrels({"q1": {"d1": 2, "d2": 0}}, annotator="trec")
        2
        """
        annotator = _text(annotator, "annotator", "LabelStore.import_qrels")
        if isinstance(qrels, (str, os.PathLike)):
            if self._is_me(qrels):
                raise InputError("LabelStore.import_qrels: that path is this store itself; nothing to import.")
            source = source or f"qrels:{os.path.basename(os.fspath(qrels))}"
            qrels = read_qrels(qrels)
        elif isinstance(qrels, Mapping):
            qrels = qrels_from_dict(qrels)
        if not isinstance(qrels, pd.DataFrame):
            raise InputError(
                "LabelStore.import_qrels: qrels must be a path to a TREC qrels file, a DataFrame (query_id, doc_id, "
                f"relevance) or a {{query_id: {{doc_id: grade}}}} dict. Got {type(qrels).__name__} instead."
            )
        arrays = _qrels_arrays(qrels)
        now, source = _now(), source or "qrels"
        rows = [(q, d, int(g), annotator, now, source) for q, d, g in zip(*arrays)]
        self._write(rows)
        return len(rows)

    def import_label_studio(
        self, export, *, query_key: str = "query_id", doc_key: str = "doc_id", grades: Mapping | None = None,
        annotator: str | None = None,
    ) -> int:  # fmt: skip
        """Bring in a Label Studio JSON export (``[{"data": ..., "annotations": [...]}, ...]``), in one transaction.

        Parameters
        ----------
        export : str, path-like or list
            The exported file (Label Studio's "JSON" export) or its parsed list of tasks.
        query_key, doc_key : str
            The keys of each task's ``data`` holding the query id and the document id.
        grades : dict, optional
            Choice label -> grade (``{"Relevant": 2, "Partly": 1, "Not relevant": 0}``)
            for ``choices`` results; ``rating`` and ``number`` results are grades as they are.
        annotator : str, optional
            One name for every annotation; by default each annotation's
            ``completed_by`` (an email or ``label-studio:<user id>``).

        Returns
        -------
        int
            The number of judgements added (cancelled annotations are skipped).

        Raises
        ------
        rankviz.InputError
            Naming the task, for any row :meth:`add` would refuse (an empty, null or list id;
            a grade that is no integer of magnitude at most 2**53, also through ``grades``),
            several choices, a time that is not ISO 8601; and for a file that is not UTF-8
            JSON. Nothing is written then. Times are compared as UTC instants.
        """
        if isinstance(export, (str, os.PathLike)):
            source = f"label-studio:{os.path.basename(os.fspath(export))}"
            export = read_label_studio(export)
        else:
            source = "label-studio"
        found = label_studio_rows(export, query_key=query_key, doc_key=doc_key, grades=grades)
        if annotator is not None:
            annotator = _text(annotator, "annotator", "LabelStore.import_label_studio")
        rows = [(q, d, g, annotator or who, when or _now(), source) for q, d, g, who, when in found]
        self._write(rows)
        return len(rows)

    # -- reading -------------------------------------------------------------------------------
    def history(self) -> pd.DataFrame:
        """Every judgement in the order committed: ``id``, ``query_id``, ``doc_id``, ``grade`` (missing: withdrawn),
        ``annotator``, ``time`` (UTC, ISO 8601), ``source``, ``kind`` (``human`` or ``model``), ``judge`` and
        ``fingerprint`` (the model judge's name and configuration hash) and ``raw`` (the model's answer)."""
        return fmt.read_rows(self._db(), self.path)

    def failures(self) -> pd.DataFrame:
        """The pairs model judges could not grade: ``query_id``, ``doc_id``, ``annotator``, ``judge``,
        ``fingerprint``, ``time``, ``reason`` (a timeout, an unparsable answer, ...) and ``raw``."""
        return fmt.read_failures(self._db())

    def graded_by(self, judge: str, fingerprint: str) -> set[tuple[str, str]]:
        """The (query id, doc id) pairs this judge (name and configuration fingerprint) has graded."""
        if self.version < 2:
            return set()
        rows = self._db().execute(
            "SELECT DISTINCT query_id, doc_id FROM judgements WHERE kind = 'model' AND judge = ? AND fingerprint = ? "
            "AND grade IS NOT NULL",
            (str(judge), str(fingerprint)),
        )
        return {(str(q), str(d)) for q, d in rows}

    def annotators(self) -> list[str]:
        """The annotators' names, sorted.

        Returns
        -------
        list of str
            Every annotator with a judgement (withdrawn ones included).

        Examples
        --------
        >>> import os, tempfile
        >>> from rankviz.labels import LabelStore
        >>> store = LabelStore(os.path.join(tempfile.mkdtemp(), "labels.sqlite"))
        >>> store.add("q1", "d1", 2, annotator="ann")
        >>> store.annotators()
        ['ann']
        """
        return [row[0] for row in self._db().execute("SELECT DISTINCT annotator FROM judgements ORDER BY annotator")]

    def grade(self, query_id, doc_id, *, annotator: str):
        """The annotator's current grade of a pair (None when unjudged or withdrawn).

        Parameters
        ----------
        query_id, doc_id : str
            The pair.
        annotator : str
            Whose grade.

        Returns
        -------
        int or None
            The latest grade.

        Examples
        --------
        >>> import os, tempfile
        >>> from rankviz.labels import LabelStore
        >>> store = LabelStore(os.path.join(tempfile.mkdtemp(), "labels.sqlite"))
        >>> store.add("q1", "d1", 2, annotator="ann")
        >>> store.grade("q1", "d1", annotator="ann"), store.grade("q1", "d9", annotator="ann")
        (2, None)
        """
        row = (
            self._db()
            .execute(
                "SELECT grade FROM judgements WHERE query_id = ? AND doc_id = ? AND annotator = ? ORDER BY id DESC LIMIT 1",
                (str(query_id), str(doc_id), str(annotator)),
            )
            .fetchone()
        )
        if row is None or row[0] is None:
            return None
        if isinstance(row[0], bool) or not isinstance(row[0], int) or abs(row[0]) > 2**53:
            self.history()  # names the row another tool wrote, and the fix
        return row[0]

    def to_qrels(self, path=None, *, annotator=None, kind=None, resolve: str = "latest"):
        """The store's current labels as qrels: a frame, or (with ``path``) a TREC qrels file.

        Parameters
        ----------
        path : str or path-like, optional
            Write a TREC qrels file there (and return None). Refused when it is the
            store itself (or its ``-wal``/``-shm`` files) or any SQLite file.
        annotator : str or list of str, optional
            Whose labels (default: every annotator's).
        kind : {'human', 'model'}, optional
            People's labels or a model's (default: both).
        resolve : {'latest', 'majority', 'mean', 'human_first'}, default 'latest'
            How several annotators' latest grades of one pair become one: the most
            recent, the most frequent (a tie goes to the most recent of the tied
            grades), the mean rounded half up, or a person's grade wherever one
            exists (the latest person's), the model's for the rest.

        Returns
        -------
        DataFrame or None
            ``query_id``, ``iteration``, ``doc_id``, ``relevance``, as :func:`rankviz.read_qrels` returns
            (with a ``kind`` column when a model gave any of the grades).
        """
        qrels = fmt.resolve_qrels(
            self.history(), annotator=annotator, kind=kind, resolve=resolve, caller="LabelStore.to_qrels"
        )
        if path is None:
            return qrels
        if self._is_me(path) or fmt.is_sqlite_file(path):
            raise InputError(
                f"LabelStore.to_qrels: {os.fspath(path)!r} is {'this store' if self._is_me(path) else 'a SQLite database'}; "
                "an export never overwrites a store. Give another path, e.g. 'qrels.txt'."
            )
        write_qrels(qrels, path)
        return None

    def _is_me(self, path) -> bool:
        target = os.path.realpath(os.fspath(path))
        mine = os.path.realpath(self.path)
        return target in (mine, mine + "-wal", mine + "-shm", mine + "-journal")

    def __len__(self) -> int:
        return int(self._db().execute("SELECT count(*) FROM judgements").fetchone()[0])

    def __repr__(self) -> str:
        return f"LabelStore({self.path!r}: {len(self)} judgements by {len(self.annotators())} annotators)"


def _qrels_arrays(qrels: pd.DataFrame) -> tuple[Iterable, Iterable, Iterable]:
    """(query ids, doc ids, grades) of a qrels frame, its columns found as everywhere in rankviz."""
    arrays = resolve_qrels(qrels)
    return arrays.query_ids.tolist(), arrays.doc_ids.tolist(), arrays.grades.tolist()
