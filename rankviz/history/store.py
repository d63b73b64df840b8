"""An evaluation history: every evaluation kept in one SQLite file, compared across time by query.

See :class:`History`. The file and its checks are in :mod:`rankviz.history.file`,
the fingerprints in :mod:`rankviz.history.fingerprints`.
"""

from __future__ import annotations

import json
import numbers
import os
import sqlite3

import numpy as np
import pandas as pd

from .. import stats
from .._errors import InputError
from ..io.sqlite_files import OwnedConnection
from . import across
from . import file as fmt
from .recording import Prepared, now, prepare
from .records import Record, pack_json, record_from_values, unpack_json

__all__ = ["History", "Record"]

_INSERT = (
    "INSERT INTO records (name, time, rankviz_version, measures, systems, n_queries, means, options, "
    "qrels_fingerprint, queries_fingerprint, run_fingerprint, options_fingerprint, meta, attrs, per_query) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class History(OwnedConnection):
    """Evaluations kept over time in one SQLite file: record, list, compare, plot, gate.

    Each :meth:`record` stores the per-query table (parquet), the means, the measures
    and options, the rankviz version, content fingerprints of the qrels (with one per
    query), the evaluated query set, the run and the options, the time (UTC), the git
    commit and branch when run inside a repository, the CI variables present and the
    caller's ``meta``. Records are never rewritten: :meth:`accept` appends an event.

    Parameters
    ----------
    path : str or path-like
        The history's file. A path that does not exist becomes a new history (unless
        ``create=False``); an existing file must be a rankviz history.
    create : bool, default True
        Start a new history when ``path`` does not exist (else refuse).

    Raises
    ------
    rankviz.InputError
        When the file is not a rankviz history (any other file, another application's
        SQLite database, a label store, an empty file), is damaged or was written by a
        newer rankviz. Such a file is read through a read-only connection only and left
        unchanged.

    Notes
    -----
    The file is SQLite in WAL mode with ``synchronous=FULL``. Each record is one
    ``BEGIN IMMEDIATE ... COMMIT`` transaction: a process killed while recording leaves
    the record whole or absent, and several processes may record at once (writers wait
    up to 60 s for each other).

    Examples
    --------
    >>> import os, tempfile, rankviz
    >>> run, qrels, _ = rankviz.datasets.load_example()
    >>> history = rankviz.History(os.path.join(tempfile.mkdtemp(), "history.sqlite"))
    >>> bm25 = run[run["system"] == "bm25"]
    >>> first = history.record(bm25, qrels, ["nDCG@10", "RR@10"], name="nightly")
    >>> _ = history.accept(first.id)
    >>> second = history.record(run[run["system"] == "bm25+rerank"], qrels, ["nDCG@10", "RR@10"], name="nightly")
    >>> history.list()[["id", "name", "accepted"]]
       id     name  accepted
    0   1  nightly      True
    1   2  nightly     False
    >>> history.get("accepted").id, history.get("last").id
    (1, 2)
    >>> comparison = history.compare("accepted", "last", "nDCG@10", test="t")
    >>> round(float(comparison.table["difference"].iloc[0]), 4)
    0.0523
    >>> history.close()
    """

    def __init__(self, path, *, create: bool = True):
        if not isinstance(path, (str, os.PathLike)):
            raise InputError(f"History: path must be a str or path-like. Got {type(path).__name__} instead.")
        self.path = os.path.abspath(os.fspath(path))
        if os.path.isdir(self.path):
            raise InputError(
                f"History: {self.path!r} is a folder; give the path of a file, e.g. "
                f"{os.path.join(self.path, 'history.sqlite')!r}."
            )
        if not os.path.exists(self.path):
            if not create:
                raise InputError(f"History: there is no history at {self.path!r}; pass create=True to start one.")
            if not os.path.isdir(os.path.dirname(self.path)):
                raise InputError(
                    f"History: the folder {os.path.dirname(self.path)!r} does not exist; create it first "
                    "(os.makedirs(folder, exist_ok=True)) or give a path in an existing folder."
                )
            fmt.create_history(self.path)
        #: the file's schema version
        self.version = fmt.check_history(self.path)  # read-only: refuses (and leaves untouched) anything else
        self._connection: sqlite3.Connection | None = None
        self._pending_qrels: dict[str, dict[str, str]] = {}

    # -- connection ----------------------------------------------------------------------------
    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = fmt.connect(self.path)
        return self._connection

    def __len__(self) -> int:
        return int(self._db().execute("SELECT count(*) FROM records").fetchone()[0])

    def __repr__(self) -> str:
        return f"History({self.path!r}: {len(self)} records)"

    # -- writing -------------------------------------------------------------------------------
    def record(
        self, run, qrels=None, measures=None, *, name=None, queries=None, meta=None, time=None, **options
    ) -> Record:  # fmt: skip
        """Evaluate a run (or take a per-query table) and store it; when this returns it is committed to disk.

        Parameters
        ----------
        run : DataFrame or dict
            A run, as :func:`rankviz.evaluate` takes it (a long frame, optionally with a
            ``system`` column; a ``{query: {doc: score}}`` dict; ``{system: run frame}``),
            or an already computed per-query table (what ``evaluate(..., per_query=True)``
            returns: a frame without a document column).
        qrels : DataFrame, path, dict or LabelStore, optional
            The judgements (needed to evaluate a run; for a per-query table, they give
            the qrels fingerprint; a record without it compares only with records without
            it, and then nothing checks that the judgements were the same).
        measures : str or list, optional
            The measures to evaluate; for a per-query table its measure columns
            (default: all numeric columns).
        name : str, optional
            What the record belongs to (a system, a branch, a nightly job); the default
            is the run's one system, else ``'run'``. ``'last'``, ``'accepted'`` and
            numbers are refs, not names.
        queries : list of query ids, optional
            The query set: only these queries' judgements and rows are evaluated and kept.
        meta : dict, optional
            Anything JSON-able to keep with the record (it wins over the git and CI keys).
        time : datetime, Timestamp or str, optional
            When the evaluation ran (default: now); for bringing in past evaluations.
            A time without a zone is read as UTC.
        **options
            The evaluation options of :func:`rankviz.evaluate` (``depth``, ``ties``,
            ``missing``, ``rel``, ...); they are fingerprinted with the record.

        Returns
        -------
        Record
            The stored record, as :meth:`get` reads it back.
        """
        prepared = prepare(run, qrels, measures, name=name, queries=queries, meta=meta, time=time, options=options,
                           caller="History.record")  # fmt: skip
        return self.get(self.write(prepared))

    def write(self, prepared: Prepared) -> int:
        """Store a record prepared by :func:`rankviz.history.recording.prepare` in one committed transaction; its id."""
        row, qrels_fp, per_query_fp = prepared.row, prepared.qrels_fp, prepared.per_query_fp
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            if per_query_fp is not None:
                db.execute("INSERT OR IGNORE INTO qrels_sets VALUES (?, ?)", (qrels_fp, pack_json(per_query_fp)))
            record_id = db.execute(_INSERT, row).lastrowid
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        assert record_id is not None  # an INSERT always sets it
        return int(record_id)

    def accept(self, ref, *, name: str | None = None, note: str = "") -> Record:
        """Mark a record accepted (the baseline later checks compare against); an event is appended.

        Parameters
        ----------
        ref : int or str
            A record id, a name (its latest record), ``'last'`` or ``'accepted'``.
        name : str, optional
            Restrict ``'last'``/``'accepted'`` to the records of this name.
        note : str, default ''
            Why (kept with the event).
        """
        record = self.get(ref, name=name)
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                "INSERT INTO events (record_id, kind, time, note) VALUES (?, 'accept', ?, ?)",
                (record.id, now(), str(note)),
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return self.get(record.id)

    # -- reading -------------------------------------------------------------------------------
    def _accepted_ids(self) -> set[int]:
        return {int(r[0]) for r in self._db().execute("SELECT DISTINCT record_id FROM events WHERE kind = 'accept'")}

    def resolve(self, ref, *, name: str | None = None) -> int:
        """The id a ref points to (see :meth:`get`)."""
        db = self._db()
        where, args = ("WHERE r.name = ?", (name,)) if name is not None else ("", ())
        if isinstance(ref, (bool, np.bool_)) or not isinstance(ref, (str, numbers.Integral)):
            raise InputError(f"History: a ref is a record id, a name, 'last' or 'accepted'. Got {ref!r} instead.")
        if isinstance(ref, numbers.Integral) or ref.isdigit():
            found = db.execute("SELECT id FROM records WHERE id = ?", (int(ref),)).fetchone()
        elif ref == "last":
            found = db.execute(f"SELECT r.id FROM records r {where} ORDER BY r.id DESC LIMIT 1", args).fetchone()
        elif ref == "accepted":
            found = db.execute(
                "SELECT r.id FROM events e JOIN records r ON r.id = e.record_id WHERE e.kind = 'accept' "
                f"{'AND r.name = ?' if name is not None else ''} ORDER BY e.id DESC LIMIT 1",
                args,
            ).fetchone()
        else:
            found = db.execute("SELECT id FROM records WHERE name = ? ORDER BY id DESC LIMIT 1", (ref,)).fetchone()
        if found is None:
            names = [r[0] for r in db.execute("SELECT DISTINCT name FROM records ORDER BY name")]
            span = db.execute("SELECT min(id), max(id) FROM records").fetchone()
            known = f"ids {span[0]}-{span[1]}, names {names}" if names else "the history is empty"
            scope = f" among the records named {name!r}" if name is not None else ""
            what = "no record has been accepted" if ref == "accepted" else f"no record matches {ref!r}"
            raise InputError(
                f"History {self.path}: {what}{scope} ({known}). Record one first, or accept one with accept(ref)."
            )
        return int(found[0])

    def get(self, ref, *, name: str | None = None) -> Record:
        """One record: its per-query table, means, measures, options, fingerprints and metadata.

        Parameters
        ----------
        ref : int or str
            A record id; a name (the latest record of that name); ``'last'`` (the latest
            record); or ``'accepted'`` (the record most recently marked accepted).
        name : str, optional
            Restrict ``'last'`` and ``'accepted'`` to the records of this name.

        Returns
        -------
        Record
        """
        record_id = self.resolve(ref, name=name)
        row = (
            self._db()
            .execute(f"SELECT {', '.join(fmt.RECORD_COLUMNS)} FROM records WHERE id = ?", (record_id,))
            .fetchone()
        )
        values = dict(zip(fmt.RECORD_COLUMNS, row))
        return record_from_values(values, record_id, accepted=record_id in self._accepted_ids())

    def qrels_per_query(self, fingerprint: str | None) -> dict[str, str] | None:
        """The per-query fingerprints of a qrels fingerprint (None when unknown)."""
        if fingerprint is None:
            return None
        if fingerprint in self._pending_qrels:
            return self._pending_qrels[fingerprint]
        row = self._db().execute("SELECT per_query FROM qrels_sets WHERE fingerprint = ?", (fingerprint,)).fetchone()
        return None if row is None else unpack_json(row[0])

    def remember_qrels(self, fingerprint: str, per_query: dict[str, str]) -> None:
        """Keep the per-query fingerprints of qrels not (yet) stored, for comparing a run before recording it."""
        self._pending_qrels[fingerprint] = per_query

    def list(self) -> pd.DataFrame:
        """Every record, oldest first: one row per record and system, with its means.

        Returns
        -------
        DataFrame
            ``id``, ``name``, ``time`` (UTC), ``system`` (None without a system column),
            ``n_queries``, one column per measure (the mean), ``accepted`` (ever marked),
            ``qrels``, ``queries``, ``run`` and ``options`` (the first 12 hex digits of each
            fingerprint), ``git_commit``, ``git_branch`` and ``rankviz_version``.
        """
        rows = []
        accepted = self._accepted_ids()
        query = (
            "SELECT id, name, time, systems, n_queries, means, qrels_fingerprint, queries_fingerprint, "
            "run_fingerprint, options_fingerprint, meta, rankviz_version FROM records ORDER BY id"
        )
        for rid, name, time, systems, n, means, qfp, sfp, rfp, ofp, meta, made_by in self._db().execute(query):
            meta = json.loads(meta)
            for mean in json.loads(means):
                system = mean.pop("system")
                rows.append({
                    "id": rid, "name": name, "time": time, "system": system if json.loads(systems) else None,
                    "n_queries": n, **mean, "accepted": rid in accepted,
                    "qrels": qfp and qfp[:12], "queries": sfp[:12], "run": rfp and rfp[:12], "options": ofp[:12],
                    "git_commit": meta.get("git_commit"), "git_branch": meta.get("git_branch"), "rankviz_version": made_by,
                })  # fmt: skip
        frame = pd.DataFrame(rows)
        if not len(frame):
            return pd.DataFrame(columns=["id", "name", "time", "system", "n_queries", "accepted"])
        frame["time"] = pd.to_datetime(frame["time"], utc=True)
        return frame

    # -- across time ---------------------------------------------------------------------------
    def compare(
        self, a, b, measures=None, *, system=None, relabelled=None, labels=None, test: str = "randomization",
        correction: str | None = "holm", **stats_options,
    ) -> stats.Comparison:  # fmt: skip
        """Compare two records paired by query (``b`` against the baseline ``a``): the usual :class:`~rankviz.Comparison`.

        Parameters
        ----------
        a, b : int or str
            Refs (see :meth:`get`): the baseline and the record compared with it.
        measures : str or list, optional
            Default: every measure both records have.
        system : str or (str, str), optional
            For records of several systems: the system to take from each.
        relabelled : {None, 'common'}
            When the qrels changed between the two (or the evaluated queries), the
            comparison is refused, naming what changed; ``'common'`` compares on the
            queries both evaluated whose judgements did not change, and warns saying so.
        labels : (str, str), optional
            The two systems' names in the result (default ``'#<id> <name>'``).
        test, correction, **stats_options
            As :func:`rankviz.stats.compare` (``method``, ``n_resamples``, ``rng``, ...).

        Returns
        -------
        Comparison
            Equal to :func:`rankviz.compare` on the two runs directly (same labels, same
            options), because it is computed from the same per-query values.
        """
        first, second, ta, tb = across.paired(self, a, b, system, relabelled, "History.compare")
        if measures is None:
            measures = [m for m in first.measures if m in second.measures]
        labels = labels or (f"#{first.id} {first.name}", f"#{second.id} {second.name}")
        if len(labels) != 2 or labels[0] == labels[1]:
            raise InputError(f"History.compare: labels must be two different names. Got {labels!r} instead.")
        table = pd.concat([ta.assign(system=str(labels[0])), tb.assign(system=str(labels[1]))], ignore_index=True)
        table = table[["system", "query_id", *[c for c in ta.columns if c not in ("system", "query_id")]]]
        return stats.compare(
            table, baseline=str(labels[0]), measures=measures, test=test, correction=correction, **stats_options
        )

    def changes(self, a, b, measure=None, *, system=None, relabelled=None, top: int = 10) -> pd.DataFrame:
        """What changed per query from record ``a`` to record ``b``: the queries that flipped, and the largest moves.

        A query flips from failure to success when its value goes from 0 to above 0
        (and back). Comparability is checked as in :meth:`compare`.

        Returns
        -------
        DataFrame
            ``query_id``, ``before``, ``after``, ``difference`` (after - before) and
            ``change`` ('failure to success', 'success to failure' or 'moved'): every flipped
            query, then the ``top`` largest other moves, each group by absolute difference.
        """
        return across.changes(self, a, b, measure, system=system, relabelled=relabelled, top=top)

    def gate(
        self, run, qrels=None, measures=None, *, against="accepted", name=None, margin=None, sequential=False,
        alpha=0.05, record=False, relabelled=None, options=None,
    ):  # fmt: skip
        """Check a new run against a stored record: exit code 0 (pass), 1 (regression) or 2 (refused), and why.

        Each measure is tested with the one-sided paired t-test of
        ``H0: mean(new - baseline) >= -margin`` (:func:`rankviz.stats.sequential.margin_test`),
        paired by query, Bonferroni over the measures; a measure regresses when it rejects.

        Parameters
        ----------
        run : DataFrame or dict
            The new run (evaluated with the baseline record's options unless ``options``
            is given), or its per-query table.
        qrels : DataFrame, path, dict or LabelStore
            The judgements; needed, so that a change of qrels is caught.
        measures : str or list, optional
            Default: the baseline record's measures.
        against : int or str, default 'accepted'
            The baseline: a ref (see :meth:`get`), e.g. ``'accepted'``, ``'last'`` or an id.
        name : str, optional
            The name the check belongs to (and the scope of ``'accepted'``/``'last'``);
            default: the baseline's name.
        margin : float, optional
            A non-inferiority margin: fail only when the new run is worse than the
            baseline by more than this, with confidence (default 0: any significant drop).
        sequential : bool, default False
            For scheduled checks: check ``k`` against this baseline and name is tested at
            ``alpha / (k (k + 1))`` (:func:`rankviz.stats.sequential.spending_alpha`), so the
            probability of any false alarm over any number of checks of an unchanged
            system stays at most ``alpha``. Each sequential check is counted in the file.
        alpha : float, default 0.05
        record : bool, default False
            Also store the new run as a record (whatever the decision).
        relabelled : {None, 'common'}
            As in :meth:`compare`: by default, changed qrels or queries refuse (exit code 2).
        options : dict, optional
            Evaluation options (default: the baseline's).

        Returns
        -------
        GateDecision
            ``exit_code``, ``rule`` (which rule decided), ``message`` (one line),
            ``table`` (per measure) and ``to_dict()`` for JSON.

        Examples
        --------
        >>> import os, tempfile, rankviz
        >>> run, qrels, _ = rankviz.datasets.load_example()
        >>> history = rankviz.History(os.path.join(tempfile.mkdtemp(), "history.sqlite"))
        >>> _ = history.accept(history.record(run[run["system"] == "bm25+rerank"], qrels, "nDCG@10", name="prod").id)
        >>> decision = history.gate(run[run["system"] == "bm25"], qrels, name="prod", sequential=True)
        >>> decision.exit_code, decision.check, decision.regressions
        (1, 1, ['nDCG@10'])
        >>> history.gate(run[run["system"] == "bm25+rerank"], qrels, name="prod", margin=0.01).exit_code
        0
        >>> history.gate(run, qrels, against="nope").exit_code
        2
        >>> history.close()
        """
        from .gate import gate

        return gate(self, run, qrels, measures, against=against, name=name, margin=margin, sequential=sequential,
                    alpha=alpha, record=record, relabelled=relabelled, options=options)  # fmt: skip

    def to_mlflow(self, ref="last", *, name: str | None = None, tracking_uri=None, experiment: str = "rankviz",
                  run_name: str | None = None, n_resamples: int = 2000, confidence_level: float = 0.95) -> str:  # fmt: skip
        """Log a record to MLflow (the optional extra ``rankviz[mlflow]``); return the MLflow run id.

        Metrics: each measure's mean and its bootstrap interval bounds (``nDCG_at_10``,
        ``nDCG_at_10.ci_low``, ``nDCG_at_10.ci_high``: MLflow allows no ``@``); params: the
        options, measures and record; tags: the fingerprints and git metadata; artifact:
        the per-query table as ``rankviz/per_query.parquet``. See
        :func:`rankviz.history.mlflow_export.log_record`.
        """
        from .mlflow_export import log_record

        return log_record(self.get(ref, name=name), tracking_uri=tracking_uri, experiment=experiment,
                          run_name=run_name, n_resamples=n_resamples, confidence_level=confidence_level)  # fmt: skip

    def plot(self, measure, *, name=None, ax=None, n_resamples: int = 1000, alpha: float = 0.05, **kwargs):
        """The mean of ``measure`` over time, one line per name, with its interval, marks and rules.

        Each record is a point with its bootstrap interval of the mean (percentile,
        from the stored per-query values); a record whose difference from the
        previous accepted record of its name is significant (paired t-test at
        ``alpha``) gets a marker; a vertical rule marks each record whose qrels differ
        from the record before it (numbers on the two sides are not comparable).
        See :func:`rankviz.history.trend.prepare_trend` for the data alone.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from . import trend

        frame = trend.prepare_trend(self, measure, name=name, n_resamples=n_resamples, alpha=alpha)
        return trend.draw_trend(frame, trend.axes(ax), **kwargs)
