"""The label store and the history refuse other files through one check (io/sqlite_files.check_owned_file)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3

import pytest

import rankviz
from rankviz.history import History
from rankviz.history.file import check_history
from rankviz.io.label_file import check_store
from rankviz.labels import LabelStore


def _sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "text").write_text("hello " * 40)
    (tmp_path / "empty").write_bytes(b"")
    with sqlite3.connect(tmp_path / "other") as db:
        db.execute("CREATE TABLE t (x)")
    LabelStore(tmp_path / "labels").close()
    History(tmp_path / "history").close()
    for kind in ("labels", "history"):
        shutil.copy(tmp_path / kind, tmp_path / f"{kind}-newer")
        with sqlite3.connect(tmp_path / f"{kind}-newer") as db:
            db.execute("PRAGMA user_version = 99")
        shutil.copy(tmp_path / kind, tmp_path / f"{kind}-damaged")
        with sqlite3.connect(tmp_path / f"{kind}-damaged") as db:
            db.execute("DROP TABLE rankviz_meta")
    return tmp_path


STORE = "it was not opened for writing and is unchanged."
CASES = {
    ("empty", check_store): "{p} is an empty file, not a rankviz label store; " + STORE
    + " Delete it, or give LabelStore a new path.",
    ("empty", check_history): "History: {p} is an empty file, not a rankviz history; " + STORE
    + " Delete it, or give History a new path.",
    ("text", check_store): "{p} is not a rankviz label store (not a SQLite database); " + STORE
    + " Give LabelStore a new path or an existing store.",
    ("text", check_history): "History: {p} is not a rankviz history (not a SQLite database); " + STORE
    + " Give History a new path.",
    ("other", check_history): "History: {p} is a SQLite database of another application (application id 0x0), not a "
    "rankviz history; " + STORE + " Give History a new path.",
    ("labels", check_history): "History: {p} is a rankviz label store, not a history; " + STORE
    + " Give History another path, e.g. 'history.sqlite'.",
    ("history", check_store): "{p} is a SQLite database of another application (application id 0x524b5648), not a "
    "rankviz label store; " + STORE + " Give LabelStore a new path; to bring labels in, export them as TREC qrels "
    "and use LabelStore.import_qrels.",
    ("labels-newer", check_store): "{p} was written by a newer rankviz (label store schema 99; this rankviz reads up "
    "to 2); " + STORE + " Upgrade rankviz (pip install -U rankviz) to open it.",
    ("history-newer", check_history): "History: {p} was written by a newer rankviz (history schema 99; this rankviz "
    "reads up to 1); " + STORE + " Upgrade rankviz (pip install -U rankviz) to open it.",
    ("labels-damaged", check_store): "{p} is a damaged rankviz label store (SQLite says: no such table: rankviz_meta); "
    + STORE + " Restore it from a backup.",
    ("history-damaged", check_history): "History: {p} is a damaged rankviz history (SQLite says: no such table: "
    "rankviz_meta); " + STORE + " Restore it from a backup.",
}  # fmt: skip


@pytest.mark.parametrize(("name", "check"), list(CASES), ids=[f"{n}-{c.__name__}" for n, c in CASES])
def test_each_kind_names_what_the_file_is_and_leaves_it_unchanged(files, name, check):
    path = files / name
    before, listing = _sha(path), sorted(os.listdir(files))
    with pytest.raises(rankviz.InputError) as refused:
        check(path)
    assert str(refused.value) == CASES[name, check].format(p=path)
    assert _sha(path) == before
    assert sorted(os.listdir(files)) == listing


def test_a_newer_schema_still_in_the_wal_is_refused_by_both(files):
    for name, check, make in (("labels", check_store, LabelStore), ("history", check_history, History)):
        assert check(files / name) >= 1
        writer = sqlite3.connect(files / name)  # open: the new version sits in the -wal, the header still says 1 or 2
        try:
            writer.execute("PRAGMA user_version = 7")
            with pytest.raises(rankviz.InputError, match="newer rankviz .* schema 7"):
                check(files / name)
            with pytest.raises(rankviz.InputError, match="newer rankviz"):
                make(files / name)
        finally:
            writer.close()
