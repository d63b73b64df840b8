"""One stored evaluation (:class:`Record`), its per-query table as parquet bytes, and what changed between two.

The per-query table is stored as parquet (zstd) written by pyarrow: the float64
columns come back bit for bit, the dtypes (``str``, ``category``, integers) as
they were. :func:`what_changed` reads two records' fingerprints and says, in
words, why their numbers are not comparable.
"""

from __future__ import annotations

import dataclasses
import io
import json
import zlib

import pandas as pd

__all__ = [
    "Record",
    "table_bytes",
    "table_from_bytes",
    "pack_json",
    "unpack_json",
    "what_changed",
    "QrelsDiff",
    "qrels_diff",
]


def table_bytes(table: pd.DataFrame) -> bytes:
    """A per-query table as parquet bytes (its ``attrs`` are stored beside it, not in the file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = table.copy(deep=False)
    frame.attrs = {}
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buffer, compression="zstd")
    return buffer.getvalue()


def table_from_bytes(blob: bytes) -> pd.DataFrame:
    """The per-query table back from :func:`table_bytes`."""
    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(blob)).to_pandas()


def pack_json(value) -> bytes:
    """A JSON value compressed (the per-query qrels fingerprints: many short strings)."""
    return zlib.compress(json.dumps(value, sort_keys=True).encode("utf-8"), 6)


def unpack_json(blob: bytes):
    return json.loads(zlib.decompress(blob).decode("utf-8"))


@dataclasses.dataclass(frozen=True, repr=False)
class Record:
    """One evaluation read back from a :class:`~rankviz.History`.

    Parameters
    ----------
    id : int
        The record's number in its history (never reused).
    name : str
        The name it was recorded under (a system, a branch, a nightly job).
    time : pandas.Timestamp
        When it was recorded (UTC).
    table : DataFrame
        The per-query table, as :func:`rankviz.evaluate` returned it with ``per_query=True``
        (or as it was given): a ``query_id`` column, a ``system`` column when the run had one,
        one float column per measure.
    means : DataFrame
        The mean of each measure over the queries, one row per system (index ``system``;
        a single row ``run`` without a system column).
    measures : tuple of str
        The measures' names, as the table's columns.
    options : dict
        The evaluation options (``depth``, ``ties``, ``missing``, ...).
    fingerprints : dict
        ``qrels``, ``queries``, ``run`` and ``options``: SHA-256 of each one's content
        (``None`` where it was not known: no qrels given, a per-query table instead of a run).
    meta : dict
        Git commit and branch, CI variables and what the caller passed as ``meta``.
    rankviz_version : str
        The rankviz version that recorded it.
    accepted : bool
        Whether it was ever marked accepted.

    Examples
    --------
    >>> import os, tempfile, rankviz
    >>> run, qrels, _ = rankviz.datasets.load_example()
    >>> history = rankviz.History(os.path.join(tempfile.mkdtemp(), "history.sqlite"))
    >>> record = history.record(run[run["system"] == "bm25"], qrels, ["nDCG@10"], name="nightly")
    >>> record.id, record.name, record.measures, record.accepted
    (1, 'nightly', ('nDCG@10',), False)
    >>> history.close()
    """

    id: int
    name: str
    time: pd.Timestamp
    table: pd.DataFrame
    means: pd.DataFrame
    measures: tuple[str, ...]
    options: dict
    fingerprints: dict
    meta: dict
    rankviz_version: str
    accepted: bool = False

    @property
    def systems(self) -> list[str]:
        """The systems of the per-query table ([] without a system column)."""
        return [str(s) for s in self.means.index] if "system" in self.table.columns else []

    def __repr__(self) -> str:
        flag = ", accepted" if self.accepted else ""
        means = ", ".join(f"{m} {v:.4f}" for m, v in self.means.iloc[0].items()) if len(self.means) == 1 else ""
        shown = means or f"{len(self.means)} systems"
        return (
            f"Record #{self.id} {self.name!r} ({self.time:%Y-%m-%d %H:%M:%S} UTC{flag}): "
            f"{self.table['query_id'].nunique() if 'query_id' in self.table else len(self.table)} queries, {shown}"
        )


@dataclasses.dataclass(frozen=True)
class QrelsDiff:
    """Which queries' judgements differ between two records (by their per-query fingerprints)."""

    changed: tuple[str, ...]  # judged in both, judgements differ
    added: tuple[str, ...]  # judged only in the later one
    removed: tuple[str, ...]  # judged only in the earlier one

    @property
    def relabelled(self) -> frozenset[str]:
        return frozenset(self.changed) | frozenset(self.added) | frozenset(self.removed)


def qrels_diff(first: dict[str, str], second: dict[str, str]) -> QrelsDiff:
    shared = first.keys() & second.keys()
    return QrelsDiff(
        changed=tuple(sorted(q for q in shared if first[q] != second[q])),
        added=tuple(sorted(second.keys() - first.keys())),
        removed=tuple(sorted(first.keys() - second.keys())),
    )


def _some(ids, limit: int = 3) -> str:
    shown = ", ".join(map(repr, list(ids)[:limit]))
    return f" ({shown}{', ...' if len(ids) > limit else ''})" if ids else ""


def what_changed(a: Record, b: Record, diff: QrelsDiff | None) -> list[str]:
    """Why two records' numbers are not comparable, one phrase per reason ([] when they are)."""
    reasons = []
    if a.fingerprints["options"] != b.fingerprints["options"]:
        changed = sorted(k for k in a.options.keys() | b.options.keys() if a.options.get(k) != b.options.get(k))
        shown = "; ".join(f"{k}: {a.options.get(k)!r} -> {b.options.get(k)!r}" for k in changed)
        reasons.append(f"the evaluation options changed ({shown or 'their fingerprints differ'})")
    if diff is not None:
        if diff.changed:
            reasons.append(f"judgements changed for {len(diff.changed)} queries{_some(diff.changed)}")
        if diff.added:
            reasons.append(f"judgements added for {len(diff.added)} queries{_some(diff.added)}")
        if diff.removed:
            reasons.append(f"judgements removed for {len(diff.removed)} queries{_some(diff.removed)}")
    elif a.fingerprints["qrels"] != b.fingerprints["qrels"]:
        missing = None in (a.fingerprints["qrels"], b.fingerprints["qrels"])
        reasons.append(
            f"the qrels differ ({'one record has no qrels fingerprint' if missing else 'fingerprints differ'})"
        )
    if a.fingerprints["queries"] != b.fingerprints["queries"]:
        first, second = set(a.table["query_id"].astype(str)), set(b.table["query_id"].astype(str))
        added, removed = sorted(second - first), sorted(first - second)
        parts = [
            f"{len(added)} added{_some(added)}" if added else "",
            f"{len(removed)} removed{_some(removed)}" if removed else "",
        ]
        reasons.append("the evaluated queries changed: " + ", ".join(p for p in parts if p))
    return reasons


def record_from_values(values: dict, record_id: int, *, accepted: bool) -> Record:
    """A :class:`Record` from the values of a ``records`` row (by column name)."""
    table = table_from_bytes(values["per_query"])
    table.attrs["rankviz"] = json.loads(values["attrs"])
    means = pd.DataFrame(json.loads(values["means"])).set_index("system")
    return Record(
        id=record_id,
        name=values["name"],
        time=pd.Timestamp(values["time"]),
        table=table,
        means=means,
        measures=tuple(json.loads(values["measures"])),
        options=json.loads(values["options"]),
        fingerprints={
            "qrels": values["qrels_fingerprint"],
            "queries": values["queries_fingerprint"],
            "run": values["run_fingerprint"],
            "options": values["options_fingerprint"],
        },
        meta=json.loads(values["meta"]),
        rankviz_version=values["rankviz_version"],
        accepted=accepted,
    )
