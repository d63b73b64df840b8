"""Provenance in the label store (issue 32 item 2) and a store edited by another tool (issue 31 item 3)."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

import rankviz
from rankviz.io import label_file
from rankviz.labels import LabelStore

# The schema-1 file format as rankviz 0.1 wrote it, before provenance: written out here so the test does
# not depend on the code under test to make an old file.
SCHEMA_1 = f"""
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
INSERT INTO rankviz_meta VALUES ('format', 'rankviz label store'), ('schema_version', '1');
PRAGMA application_id = {label_file.APPLICATION_ID};
PRAGMA user_version = 1;
"""


def _sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def _old_store(path, rows):
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA_1)
    db.executemany(
        "INSERT INTO judgements (query_id, doc_id, grade, annotator, time, source) VALUES (?, ?, ?, ?, ?, 'api')", rows
    )
    db.close()
    return path


def test_an_old_store_opens_unchanged_and_its_rows_read_as_human(tmp_path):
    path = _old_store(
        tmp_path / "old.sqlite",
        [("q1", "d1", 2, "ann", "2026-01-01T00:00:00+00:00"), ("q1", "d2", 0, "ann", "2026-01-01T00:00:01+00:00")],
    )
    before = _sha(path)
    store = LabelStore(path)
    qrels = store.to_qrels()
    assert sorted(zip(qrels["doc_id"], qrels["relevance"])) == [("d1", 2), ("d2", 0)]
    assert set(store.history()["kind"]) == {"human"}
    assert len(rankviz.read_qrels(path, kind="human")) == 2
    store.add("q2", "d1", 1, annotator="ann")  # a person's grade: the old format still takes it
    with pytest.raises(rankviz.InputError, match="upgrade"):
        store.add_model("q2", "d2", 1, annotator="m", judge="m", fingerprint="f")
    store.close()
    assert _sha(path) != before  # the human grade was written...
    reopened = LabelStore(path)
    assert reopened.version == 1  # ...but the file was never rewritten to a new schema on open


def test_human_first_resolution_takes_people_and_fills_from_the_model(tmp_path):
    store = LabelStore(tmp_path / "s.sqlite")
    store.add_model("q1", "d1", 0, annotator="m", judge="m", fingerprint="f", raw="0")
    store.add_model("q1", "d2", 3, annotator="m", judge="m", fingerprint="f", raw="3")
    store.add("q1", "d1", 2, annotator="alice")
    resolved = rankviz.read_qrels(store, resolve="human_first").set_index("doc_id")
    assert resolved.loc["d1", "relevance"] == 2 and resolved.loc["d1", "kind"] == "human"
    assert resolved.loc["d2", "relevance"] == 3 and resolved.loc["d2", "kind"] == "model"
    assert rankviz.read_qrels(store, kind="human")["doc_id"].tolist() == ["d1"]
    assert store.graded_by("m", "f") == {("q1", "d1"), ("q1", "d2")}
    assert store.graded_by("m", "other") == set()
    history = store.history()
    assert history.loc[history["kind"] == "model", "raw"].tolist() == ["0", "3"]


@pytest.mark.parametrize("bad", ["'high'", "1.5", str(2**62)])
def test_a_store_edited_by_another_tool_is_refused_naming_the_row(tmp_path, bad):
    path = tmp_path / "s.sqlite"
    store = LabelStore(path)
    for doc in ("d1", "d2", "d3"):
        store.add("q1", doc, 1, annotator="ann")
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"UPDATE judgements SET grade = {bad} WHERE doc_id = 'd2'")
    db.close()
    before = _sha(path)
    for read in (lambda: rankviz.read_qrels(path), lambda: LabelStore(path).to_qrels()):
        with pytest.raises(rankviz.RankvizError, match=r"row \d+"):
            read()
    assert _sha(path) == before
