"""The label store: nothing acknowledged is ever lost, nothing foreign is ever touched (issue 25)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

import rankviz
from rankviz.io import label_file
from rankviz.labels import LabelStore
from tests.conftest import ROOT


def _sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def path(tmp_path):
    return tmp_path / "labels.sqlite"


# ----------------------------------------------------------------------------- the basics


def test_history_is_kept_and_the_latest_wins(path):
    store = LabelStore(path)
    store.add("q1", "d1", 0, annotator="ann")
    store.add("q1", "d1", 2, annotator="ann")
    store.add("q1", "d2", 1, annotator="ann")
    assert store.history()["grade"].tolist() == [0, 2, 1]
    qrels = store.to_qrels()
    assert list(qrels.columns) == ["query_id", "iteration", "doc_id", "relevance"]
    assert dict(zip(qrels["doc_id"], qrels["relevance"])) == {"d1": 2, "d2": 1}
    assert store.grade("q1", "d1", annotator="ann") == 2


def test_reopening_resumes_and_annotators_stay_apart(path):
    with LabelStore(path) as store:
        store.add("q1", "d1", 1, annotator="alice")
        store.add("q1", "d1", 0, annotator="bob")
    again = LabelStore(path)
    assert again.annotators() == ["alice", "bob"]
    assert again.to_qrels(annotator="alice")["relevance"].tolist() == [1]
    assert again.to_qrels(annotator="bob")["relevance"].tolist() == [0]
    assert rankviz.read_qrels(path, annotator="alice")["relevance"].tolist() == [1]
    assert rankviz.read_qrels(path, annotator=["alice", "bob"], resolve="mean")["relevance"].tolist() == [1]


def test_withdrawn_judgement_leaves_the_pair_unjudged_and_in_the_history(path):
    store = LabelStore(path)
    store.add("q1", "d1", 1, annotator="a")
    store.remove("q1", "d1", annotator="a")
    assert len(store.to_qrels()) == 0
    assert len(store.history()) == 2 and store.grade("q1", "d1", annotator="a") is None


def test_resolve_rules(path):
    store = LabelStore(path)
    for who, grade in (("a", 2), ("b", 0), ("c", 0), ("d", 1)):
        store.add("q", "x", grade, annotator=who)
    assert store.to_qrels(resolve="latest")["relevance"].item() == 1
    assert store.to_qrels(resolve="majority")["relevance"].item() == 0
    assert store.to_qrels(resolve="mean")["relevance"].item() == 1  # 0.75 rounds to 1
    store.add("q", "y", 1, annotator="a")
    store.add("q", "y", 2, annotator="b")
    assert store.to_qrels(resolve="majority").set_index("doc_id").loc["y", "relevance"] == 2  # a tie: the latest
    assert store.to_qrels(resolve="mean").set_index("doc_id").loc["y", "relevance"] == 2  # 1.5 rounds up


def test_evaluation_reads_a_store_as_qrels(path):
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    store = LabelStore(path)
    store.add("q1", "d2", 1, annotator="a")
    assert rankviz.mrr(run, qrels=str(path)) == 0.5
    assert rankviz.evaluate(run, "RR@10", path)["RR@10"].item() == 0.5


def test_export_writes_trec_and_never_overwrites_a_store(path, tmp_path):
    store = LabelStore(path)
    store.add("q1", "d1", 2, annotator="a")
    out = tmp_path / "qrels.txt"
    assert store.to_qrels(out) is None
    assert out.read_text() == "q1 0 d1 2\n"
    for target in (path, str(path), f"{path}-wal"):
        with pytest.raises(rankviz.InputError, match="never overwrites"):
            store.to_qrels(target)
    other = LabelStore(tmp_path / "other.sqlite")
    other.close()
    with pytest.raises(rankviz.InputError, match="SQLite database"):
        store.to_qrels(tmp_path / "other.sqlite")
    store.close()
    assert LabelStore(path).to_qrels()["relevance"].tolist() == [2]  # still the store, with its judgement


def test_import_trec_qrels_and_label_studio(path, tmp_path):
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text("q1 0 d1 2\nq1 0 d2 0\n")
    store = LabelStore(path)
    assert store.import_qrels(qrels_file, annotator="trec") == 2
    export = [
        {"id": 1, "data": {"query_id": "q1", "doc_id": "d1", "text": "..."},
         "annotations": [{"completed_by": 7, "result": [{"type": "choices", "value": {"choices": ["Not relevant"]}}],
                          "created_at": "2024-01-01T10:00:00Z", "was_cancelled": False}]},
        {"id": 2, "data": {"query_id": "q1", "doc_id": "d3"},
         "annotations": [{"completed_by": {"id": 7, "email": "x@example.org"}, "result": [{"type": "rating", "value": {"rating": 3}}],
                          "created_at": "2024-01-01T11:00:00Z"},
                         {"completed_by": 8, "was_cancelled": True, "result": [{"type": "rating", "value": {"rating": 1}}]}]},
    ]  # fmt: skip
    export_file = tmp_path / "export.json"
    export_file.write_text(json.dumps(export))
    assert store.import_label_studio(export_file, grades={"Relevant": 1, "Not relevant": 0}) == 2
    history = store.history()
    assert set(history["annotator"]) == {"trec", "label-studio:7", "x@example.org"}
    assert history["source"].tolist()[-1] == "label-studio:export.json"
    ls = store.to_qrels(annotator=["label-studio:7", "x@example.org"])
    assert dict(zip(ls["doc_id"], ls["relevance"])) == {"d1": 0, "d3": 3}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda s: s.add("q", "d", 1.5, annotator="a"), "integer grade"),
        (lambda s: s.add("q", "d", True, annotator="a"), "integer grade"),
        (lambda s: s.add("q", "d", "2", annotator="a"), "integer grade"),
        (lambda s: s.add("q", "", 1, annotator="a"), "non-empty"),
        (lambda s: s.add("q", "d", 1, annotator=""), "non-empty"),
        (lambda s: s.add(None, "d", 1, annotator="a"), "must be a string"),
        (lambda s: s.to_qrels(resolve="vote"), "'resolve' parameter"),
        (lambda s: s.to_qrels(annotator="nobody"), "no judgement by annotator 'nobody'"),
        (lambda s: s.import_label_studio(42), "list of tasks"),
        (lambda s: s.import_label_studio([{"data": {"q": 1}, "annotations": [{"result": [{"value": {"rating": 1}}]}]}]),
         "no 'query_id' and 'doc_id'.*query_key="),
        (lambda s: s.import_label_studio([{"data": {"query_id": "q", "doc_id": "d"},
                                           "annotations": [{"result": [{"value": {"choices": ["Meh"]}}]}]}]), "grades="),
    ],
)  # fmt: skip
def test_bad_input_is_a_rankviz_error_saying_what_to_do(path, call, match):
    store = LabelStore(path)
    store.add("q", "d", 1, annotator="a")
    with pytest.raises(rankviz.InputError, match=match):
        call(store)
    assert len(store) == 1  # nothing half-written


def test_read_qrels_options_are_refused_for_a_text_file(tmp_path):
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text("q1 0 d1 2\n")
    with pytest.raises(rankviz.InputError, match="apply to a label store"):
        rankviz.read_qrels(qrels_file, annotator="a")


def test_missing_store_with_create_false(tmp_path):
    with pytest.raises(rankviz.InputError, match="create=True"):
        LabelStore(tmp_path / "none.sqlite", create=False)
    with pytest.raises(rankviz.InputError, match="is a folder"):
        LabelStore(tmp_path)


# ----------------------------------------------------------------------------- foreign, newer, damaged files


def _foreign_sqlite(path):
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine');")
    db.close()


def _newer_store(path):
    LabelStore(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {label_file.SCHEMA_VERSION + 1}")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def _damaged_store(path):
    store = LabelStore(path)
    for i in range(300):
        store.add("q", f"d{i}", 1, annotator="a")
    store.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    data = bytearray(open(path, "rb").read())
    data[4096 : 4096 + 2000] = os.urandom(2000)  # page 2: the table's first pages
    open(path, "wb").write(bytes(data))


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda p: p.write_text("q1 0 d1 1\n"), "not a SQLite database"),
        (lambda p: p.write_bytes(os.urandom(4096)), "not a SQLite database"),
        (lambda p: p.write_bytes(b""), "empty file"),
        (_foreign_sqlite, "another application"),
        (_newer_store, "newer rankviz"),
        (_damaged_store, "damaged"),
    ],
    ids=["text", "random-bytes", "empty", "foreign-sqlite", "newer-schema", "damaged"],
)
def test_a_file_that_is_not_a_usable_store_is_refused_and_unchanged(tmp_path, make, match):
    path = tmp_path / "labels.sqlite"
    make(path)
    before, files = _sha(path), sorted(os.listdir(tmp_path))
    with pytest.raises(rankviz.InputError, match=match):
        LabelStore(path)
    if match != "not a SQLite database" and match != "empty file":
        with pytest.raises(rankviz.InputError, match=match):
            rankviz.read_qrels(path)
    assert _sha(path) == before
    assert sorted(os.listdir(tmp_path)) == files  # no journal or -wal file left beside it either


# ----------------------------------------------------------------------------- processes

_CHILD = textwrap.dedent(
    """
    import sys
    from rankviz.labels import LabelStore
    store = LabelStore(sys.argv[1])
    name, n = sys.argv[2], int(sys.argv[3])
    for i in range(n):
        store.add(f"q{i % 7}", f"{name}-{i}", i % 3, annotator=name)
        print(i, flush=True)  # acknowledged: add has returned
    """
)


def _child(path, name: str, n: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), name, str(n)], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env
    )


def test_every_acknowledged_judgement_survives_sigkill(path):
    LabelStore(path).close()  # created before, so the child's start-up time is not spent on it
    rng = random.Random()
    stop_after = rng.randint(5, 300)
    child = _child(path, "killed", 100_000)
    acknowledged = []
    for line in child.stdout:
        acknowledged.append(int(line))
        if len(acknowledged) >= stop_after:
            break
    time.sleep(rng.random() * 0.05)  # kill at a random point of a later add, not right after a print
    child.send_signal(signal.SIGKILL)
    acknowledged += [int(line) for line in child.stdout.read().split()]
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    stored = set(LabelStore(path).history()["doc_id"])
    missing = [i for i in acknowledged if f"killed-{i}" not in stored]
    assert acknowledged and missing == []


def test_two_processes_writing_at_once_lose_nothing(path):
    LabelStore(path).close()
    children = [_child(path, name, 1000) for name in ("left", "right")]
    outputs = [child.communicate(timeout=600)[0] for child in children]
    assert [child.returncode for child in children] == [0, 0]
    assert [len(out.split()) for out in outputs] == [1000, 1000]
    history = LabelStore(path).history()
    assert len(history) == 2000
    for name in ("left", "right"):
        assert set(history.loc[history["annotator"] == name, "doc_id"]) == {f"{name}-{i}" for i in range(1000)}


def test_two_processes_creating_one_store_at_once_both_succeed(tmp_path):
    path = tmp_path / "new.sqlite"
    children = [_child(path, name, 3) for name in ("a", "b")]
    assert [child.communicate(timeout=120)[0].split() for child in children] == [["0", "1", "2"]] * 2
    assert len(LabelStore(path)) == 6
