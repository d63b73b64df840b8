"""rankviz.History (issue 33): records read back bit for bit, compare as rankviz.compare does, refuse relabellings."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz.history import History
from rankviz.labels import LabelStore

MEASURES = ["nDCG@10", "RR@10", "AP", "R@100"]


def _sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture(scope="module")
def example():
    return rankviz.datasets.load_example()


@pytest.fixture
def history(tmp_path):
    with History(tmp_path / "history.sqlite") as h:
        yield h


def _system(run, name):
    return run[run["system"] == name]


def _assert_bit_for_bit(stored: pd.DataFrame, direct: pd.DataFrame) -> None:
    assert list(stored.columns) == list(direct.columns)
    assert stored.dtypes.astype(str).tolist() == direct.dtypes.astype(str).tolist()
    pd.testing.assert_frame_equal(stored, direct, check_exact=True)
    for column in direct.columns:
        if pd.api.types.is_float_dtype(direct[column]):
            assert stored[column].to_numpy().tobytes() == direct[column].to_numpy().tobytes(), column


# ----------------------------------------------------------------------------- round trip


def test_example_round_trip_is_bit_for_bit(history, example):
    run, qrels, _ = example
    record = history.record(run, qrels, MEASURES, name="all four")
    direct = rankviz.evaluate(run, MEASURES, qrels, per_query=True)
    _assert_bit_for_bit(history.get(record.id).table, direct)
    means = rankviz.evaluate(run, MEASURES, qrels)
    assert record.means.to_numpy().tobytes() == means.to_numpy().tobytes()
    assert record.systems == ["bm25", "bm25+rerank", "rrf", "tfidf"]
    assert record.options["depth"] is None and record.options["ties"] == "trec_eval"
    assert set(record.fingerprints) == {"qrels", "queries", "run", "options"}
    assert all(isinstance(v, str) and len(v) == 64 for v in record.fingerprints.values())
    assert record.rankviz_version == rankviz.__version__


def test_trec_covid_round_trip_is_bit_for_bit_and_compare_equals_direct(history, covid_dir):
    qrels = rankviz.read_qrels(covid_dir / "qrels-rnd1.txt")
    names = sorted(os.listdir(covid_dir / "runs"))[:2]
    runs = {name: rankviz.read_run(covid_dir / "runs" / name) for name in names}
    measures = ["nDCG@10", "P@5", "AP", "RR"]
    ids = []
    for name, run in runs.items():
        record = history.record(run, qrels, measures, name=name)
        direct = rankviz.evaluate(run, measures, qrels, per_query=True)
        _assert_bit_for_bit(history.get(record.id).table, direct)
        ids.append(record.id)
    via_history = history.compare(ids[0], ids[1], labels=tuple(names), rng=7, n_resamples=2000)
    direct = rankviz.compare(runs, names[0], measures, qrels, rng=7, n_resamples=2000)
    pd.testing.assert_frame_equal(via_history.table, direct.table, check_exact=True)


def test_compare_equals_compare_on_the_two_runs(history, example):
    run, qrels, _ = example
    a = history.record(_system(run, "bm25"), qrels, MEASURES)
    b = history.record(_system(run, "rrf"), qrels, MEASURES)
    for kwargs in ({"rng": 3}, {"test": "t", "method": "bca", "rng": 5, "n_resamples": 1000}):
        mine = history.compare(a.id, b.id, labels=("bm25", "rrf"), **kwargs)
        direct = rankviz.compare(run[run["system"].isin(["bm25", "rrf"])], "bm25", MEASURES, qrels, **kwargs)
        pd.testing.assert_frame_equal(mine.table, direct.table, check_exact=True)
        assert (mine.test, mine.method, mine.rng) == (direct.test, direct.method, direct.rng)
    default = history.compare(a.id, b.id, "nDCG@10")
    assert default.baseline == "#1 bm25" and default.table["system"].tolist() == ["#2 rrf"]


def test_a_per_query_table_records_like_its_run(history, example):
    run, qrels, _ = example
    bm25 = _system(run, "bm25")
    from_run = history.record(bm25, qrels, MEASURES)
    table = rankviz.evaluate(bm25, MEASURES, qrels, per_query=True)
    from_table = history.record(table, qrels, name="bm25 table")
    assert from_table.fingerprints["run"] is None
    assert {k: from_table.fingerprints[k] for k in ("qrels", "queries", "options")} == {
        k: from_run.fingerprints[k] for k in ("qrels", "queries", "options")
    }
    _assert_bit_for_bit(from_table.table, from_run.table)
    with pytest.warns(rankviz.DegenerateDataWarning, match="every difference is zero"):
        comparison = history.compare(from_run.id, from_table.id, test="t")
    assert (comparison.table["difference"] == 0).all()


# ----------------------------------------------------------------------------- refs and events


def test_refs_accept_and_list(history, example):
    run, qrels, _ = example
    first = history.record(_system(run, "bm25"), qrels, "nDCG@10", name="nightly", meta={"ticket": 7})
    second = history.record(_system(run, "rrf"), qrels, "nDCG@10", name="nightly")
    other = history.record(_system(run, "tfidf"), qrels, "nDCG@10", name="branch-x")
    assert history.get("nightly").id == second.id and history.get("last").id == other.id
    assert history.get("last", name="nightly").id == second.id
    assert history.get(str(first.id)).id == first.id and first.meta["ticket"] == 7
    with pytest.raises(rankviz.InputError, match="no record has been accepted"):
        history.get("accepted")
    with pytest.raises(rankviz.InputError, match="no record matches 'nope'.*nightly"):
        history.get("nope")
    with pytest.raises(rankviz.InputError, match="no record matches 99"):
        history.get(99)
    before = history._db().execute("SELECT * FROM records ORDER BY id").fetchall()
    history.accept(first.id, note="release 1")
    history.accept("branch-x")
    assert history.get("accepted").id == other.id
    assert history.get("accepted", name="nightly").id == first.id
    assert history._db().execute("SELECT * FROM records ORDER BY id").fetchall() == before  # never rewritten
    assert history._db().execute("SELECT count(*) FROM events").fetchone()[0] == 2
    listing = history.list()
    assert listing["id"].tolist() == [1, 2, 3] and listing["accepted"].tolist() == [True, False, True]
    assert listing["nDCG@10"].tolist() == [first.means.iloc[0, 0], second.means.iloc[0, 0], other.means.iloc[0, 0]]
    assert str(listing["time"].dt.tz) == "UTC"
    for bad in ("last", "accepted", "12", ""):
        with pytest.raises(rankviz.InputError, match="name"):
            history.record(_system(run, "bm25"), qrels, "nDCG@10", name=bad)
    assert len(history) == 3


def test_meta_has_git_and_ci(history, example, monkeypatch):
    run, qrels, _ = example
    monkeypatch.setenv("GITHUB_SHA", "abc123")
    monkeypatch.setenv("CI", "true")
    record = history.record(_system(run, "bm25"), qrels, "P@5", meta={"note": "x"})
    assert record.meta["ci"]["GITHUB_SHA"] == "abc123" and record.meta["note"] == "x"
    if os.path.exists(os.path.join(os.path.dirname(__file__), "..", "..", ".git")):
        assert len(record.meta["git_commit"]) == 40


# ----------------------------------------------------------------------------- across relabellings


def test_changed_qrels_are_refused_naming_what_changed(history, example):
    run, qrels, _ = example
    bm25 = _system(run, "bm25")
    a = history.record(bm25, qrels, "nDCG@10")
    relabelled = qrels.copy()
    first_queries = relabelled["query_id"].drop_duplicates().head(3).tolist()
    rows = relabelled.index[relabelled["query_id"].isin(first_queries)]
    relabelled.loc[rows, "relevance"] = (relabelled.loc[rows, "relevance"] + 1) % 3
    relabelled = pd.concat(
        [relabelled, pd.DataFrame({"query_id": [first_queries[0]], "doc_id": ["new-doc"], "relevance": [1]})],
        ignore_index=True,
    )
    b = history.record(_system(run, "rrf"), relabelled, "nDCG@10")
    with pytest.raises(rankviz.InputError, match=r"judgements changed for 3 queries .*relabelled='common'"):
        history.compare(a.id, b.id)
    with pytest.warns(rankviz.RankvizWarning, match="compared on the 597 queries"):
        common = history.compare(a.id, b.id, relabelled="common", labels=("bm25", "rrf"), rng=1)
    keep = ~run["query_id"].isin(first_queries)
    direct = rankviz.compare(
        run[keep & run["system"].isin(["bm25", "rrf"])],
        "bm25",
        "nDCG@10",
        qrels[~qrels["query_id"].isin(first_queries)],
        rng=1,
    )
    pd.testing.assert_frame_equal(common.table, direct.table, check_exact=True)
    with pytest.raises(rankviz.InputError, match="judgements changed"):
        history.changes(a.id, b.id)


def test_changed_query_set_or_options_are_refused(history, example):
    run, qrels, _ = example
    bm25 = _system(run, "bm25")
    a = history.record(bm25, qrels, "nDCG@10")
    queries = sorted(set(qrels["query_id"]))[:-5]
    b = history.record(bm25, qrels, "nDCG@10", queries=queries)
    with pytest.raises(rankviz.InputError, match="evaluated queries changed: 5 removed"):
        history.compare(a.id, b.id)
    c = history.record(bm25, qrels, "nDCG@10", depth=5)
    with pytest.raises(rankviz.InputError, match=r"options changed \(depth: None -> 5\)"):
        history.compare(a.id, c.id, relabelled="common")


def test_changes_lists_flips_then_largest_moves(history, example):
    run, qrels, _ = example
    a = history.record(_system(run, "bm25"), qrels, "RR@10")
    b = history.record(_system(run, "bm25+rerank"), qrels, "RR@10")
    out = history.changes(a.id, b.id, top=5)
    ta, tb = a.table.set_index("query_id")["RR@10"], b.table.set_index("query_id")["RR@10"]
    ups = set(ta.index[(ta == 0) & (tb > 0)])
    downs = set(ta.index[(ta > 0) & (tb == 0)])
    assert set(out.loc[out["change"] == "failure to success", "query_id"]) == ups and ups
    assert set(out.loc[out["change"] == "success to failure", "query_id"]) == downs
    moved = out[out["change"] == "moved"]
    assert len(moved) == 5 and (moved["difference"].abs().diff().dropna() <= 0).all()
    np.testing.assert_array_equal(out["difference"], out["after"] - out["before"])


# ----------------------------------------------------------------------------- the file


def test_foreign_and_newer_files_are_refused_unchanged(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello " * 40)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    store = tmp_path / "labels.sqlite"
    LabelStore(store).close()
    newer = tmp_path / "newer.sqlite"
    History(newer).close()
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 99")
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    cases = [(text, "not a SQLite"), (other, "another application"), (store, "label store"),
             (newer, "newer rankviz"), (empty, "empty file")]  # fmt: skip
    for path, match in cases:
        before, files = _sha(path), sorted(os.listdir(tmp_path))
        with pytest.raises(rankviz.InputError, match=match):
            History(path)
        assert _sha(path) == before, path
        assert sorted(os.listdir(tmp_path)) == files
    with pytest.raises(rankviz.InputError, match="no history"):
        History(tmp_path / "absent.sqlite", create=False)
    with pytest.raises(rankviz.InputError, match="does not exist; create it first"):
        History(tmp_path / "no-such-folder" / "history.sqlite")
    with pytest.raises(rankviz.InputError, match="is a folder"):
        History(tmp_path)


def test_reopening_keeps_records_and_the_file_is_wal(tmp_path, example):
    run, qrels, _ = example
    path = tmp_path / "h.sqlite"
    with History(path) as h:
        h.record(_system(run, "bm25"), qrels, "nDCG@10")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert json.loads(db.execute("SELECT measures FROM records").fetchone()[0]) == ["nDCG@10"]
    assert len(History(path)) == 1


def test_bad_input_is_named(history, example):
    run, qrels, _ = example
    with pytest.raises(rankviz.UnknownOptionError, match="depht"):
        history.record(run, qrels, "nDCG@10", depht=10)
    with pytest.raises(rankviz.InputError, match="name the measures"):
        history.record(run, qrels)
    with pytest.raises(rankviz.InputError, match="meta must be a dict"):
        history.record(_system(run, "bm25"), qrels, "P@5", meta=["x"])
    record = history.record(run, qrels, "P@5")
    with pytest.raises(rankviz.InputError, match="several systems"):
        history.compare(record.id, record.id)
    with pytest.raises(rankviz.InputError, match="relabelled must be"):
        history.compare(record.id, record.id, system="bm25", relabelled="all")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = history.compare(record.id, record.id, system=("bm25", "rrf"), test="t", labels=("a", "b"))
    assert len(same) == 1


def test_nothing_the_caller_passed_is_changed_and_means_aggregate_as_evaluate(history, example):
    run, qrels, _ = example
    table = rankviz.evaluate(run, ["AP", "num_rel_ret", "gm_map"], qrels, per_query=True)
    copies = [frame.copy(deep=True) for frame in (run, qrels, table)]
    attrs = json.dumps(table.attrs, default=str)
    from_run = history.record(run, qrels, ["AP", "num_rel_ret", "gm_map"], queries=sorted(set(qrels["query_id"])))
    history.record(table, qrels, name="table")
    for frame, copy in zip((run, qrels, table), copies):
        pd.testing.assert_frame_equal(frame, copy, check_exact=True)
    assert json.dumps(table.attrs, default=str) == attrs
    means = rankviz.evaluate(run, ["AP", "num_rel_ret", "gm_map"], qrels)  # sum and geometric mean aggregates
    assert from_run.means.to_numpy().tobytes() == means.to_numpy().tobytes()
    assert history.get("table").means.to_numpy().tobytes() == means.to_numpy().tobytes()


def test_an_empty_history_lists_nothing(history):
    assert len(history) == 0 and history.list().empty and list(history.list().columns)[:2] == ["id", "name"]
    assert repr(history).endswith("0 records)")
