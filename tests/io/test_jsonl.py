"""JSON-lines retrieval logs: read_jsonl (streamed, exact or the bad line named) and write_jsonl."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from tests.conftest import shared_path

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def _lines(*records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture(scope="module")
def covid():
    return (
        rankviz.read_run(shared_path("trec_covid_round1", "runs", "smith.bm25")),
        rankviz.read_qrels(shared_path("trec_covid_round1", "qrels-rnd1.txt")),
    )


def test_round_trip_and_agreement_with_read_run_on_trec_covid(covid, tmp_path):
    run, qrels = covid
    rankviz.write_jsonl(run, tmp_path / "log.jsonl", qrels=qrels)
    # small blocks: the stream is cut in many places, with the same result
    log = rankviz.read_jsonl(tmp_path / "log.jsonl", system="smith.bm25", block_size=1 << 16)
    rankviz.write_run(run, tmp_path / "run.txt")
    pd.testing.assert_frame_equal(log.run, rankviz.read_run(tmp_path / "run.txt", system="smith.bm25"))
    key = ["query_id", "doc_id"]
    pd.testing.assert_frame_equal(
        log.qrels.sort_values(key, ignore_index=True),
        qrels[["query_id", "doc_id", "relevance"]].sort_values(key, ignore_index=True),
    )
    measures = ["RR@10", "nDCG@10", "AP", "R@100"]
    pd.testing.assert_frame_equal(
        rankviz.evaluate(log.run, measures, qrels=qrels, per_query=True),
        rankviz.evaluate(
            rankviz.read_run(tmp_path / "run.txt", system="smith.bm25"), measures, qrels=qrels, per_query=True
        ),
    )
    # write what was read, read it again: the same frames
    rankviz.write_jsonl(log.run, tmp_path / "again.jsonl", qrels=log.qrels)
    again = rankviz.read_jsonl(tmp_path / "again.jsonl", system="smith.bm25")
    pd.testing.assert_frame_equal(again.run, log.run)
    pd.testing.assert_frame_equal(again.qrels, log.qrels)


def test_fields_of_the_users_choosing_integer_ids_and_texts(tmp_path):
    path = _write(
        tmp_path,
        "log.jsonl.gz",
        gzip.compress(
            _lines(
                {"question": 7, "ids": [10, 3, 5], "gold": [3], "q": "refund policy", "extra": {"x": [1, 2]}},
                {"question": 8, "ids": [], "gold": [4, 5], "q": "shipping"},
            ).encode()
        ),
    )
    log = rankviz.read_jsonl(path, query="question", retrieved="ids", relevant="gold", score=None, text="q")
    assert log.run["query_id"].tolist() == ["7", "7", "7"] and log.run["doc_id"].tolist() == ["10", "3", "5"]
    assert log.run["rank"].tolist() == [1, 2, 3] and log.run["score"].tolist() == [-1.0, -2.0, -3.0]
    assert log.qrels.values.tolist() == [["7", "3", 1], ["8", "4", 1], ["8", "5", 1]]
    assert log.queries.values.tolist() == [["7", "refund policy"], ["8", "shipping"]]
    assert rankviz.mrr(log.run, qrels=log.qrels, k=10).item() == 0.25  # q8 retrieved nothing: 0, counted


def test_graded_relevance_objects_and_unjudged_records_warn_once(tmp_path):
    path = _write(
        tmp_path,
        "log.jsonl",
        _lines(
            {"query_id": "a", "retrieved": ["d1", "d2"], "scores": [2, 1.5], "relevant": {"d2": 2, "d9": 0}},
            {"query_id": "b", "retrieved": ["d1"], "scores": [1.0]},
            {"query_id": "c", "retrieved": ["d1"], "scores": [1.0], "relevant": {}},
        ),
    )
    with pytest.warns(rankviz.RankvizWarning, match=r"2 record\(s\) have no relevant ids"):
        log = rankviz.read_jsonl(path)
    assert log.qrels.values.tolist() == [["a", "d2", 2], ["a", "d9", 0]]
    assert log.run["score"].tolist() == [2.0, 1.5, 1.0, 1.0]


BAD = {
    "not json": (
        '{"query_id": "q1", "retrieved": ["a"]}\n{"query_id": "q2", "retrieved": ["a"\n',
        "line 2: not a valid JSON object",
    ),
    "two objects on a line": (
        '{"query_id": "q1", "retrieved": []} {"query_id": "q2", "retrieved": []}\n',
        r"line 1: not a valid JSON object \(one JSON object per line\)",
    ),
    "no query id": (
        _lines({"query_id": "q1", "retrieved": []}, {"retrieved": ["a"]}),
        "line 2: the record has no 'query_id' field",
    ),
    "no retrieved list": (
        _lines({"query_id": "q1", "retrieved": []}, {"query_id": "q2"}),
        "line 2: the 'retrieved' field must be a list",
    ),
    "float id": (
        _lines({"query_id": 1.5, "retrieved": []}),
        "line 1: the query id 'query_id' must be a JSON string or integer",
    ),
    "mixed id kinds": (
        _lines({"query_id": "q1", "retrieved": ["a"]}, {"query_id": "q2", "retrieved": [3]}),
        "line 2: the retrieved id in 'retrieved' is a JSON integer, but earlier lines have strings",
    ),
    "null doc": (
        _lines({"query_id": "q1", "retrieved": ["a", None]}),
        "line 1: the retrieved id in 'retrieved' must be a JSON string or integer",
    ),
    "score count": (
        _lines({"query_id": "q1", "retrieved": ["a", "b"], "scores": [1.0]}),
        "line 1: the 'scores' field must be a list of 2 numbers",
    ),
    "score NaN": (
        '{"query_id": "q1", "retrieved": ["a"], "scores": [NaN]}\n',
        "line 1: every score in 'scores' must be a finite number",
    ),
    "score 1e400": (
        '{"query_id": "q1", "retrieved": ["a"], "scores": [1e400]}\n',
        "line 1: every score in 'scores' must be a finite number",
    ),
    "grade 1.5": (
        _lines({"query_id": "q1", "retrieved": ["a"], "relevant": {"a": 1.5}}),
        "line 1: every grade in 'relevant' must be an integer",
    ),
    "duplicate key": (
        '{"query_id": "q1", "query_id": "q2", "retrieved": []}\n',
        "line 1: not a valid JSON object.*appears twice",
    ),
    "latin-1": ('{"query_id": "caf\xe9", "retrieved": []}\n'.encode("latin-1"), "line 1: the file is not valid UTF-8"),
    "an array line": ('["q1", ["a"]]\n', "line 1: expected a JSON object per line"),
    "truncated gzip": (
        gzip.compress(_lines({"query_id": "q1", "retrieved": ["a"] * 50}).encode())[:20],
        "corrupt or truncated",
    ),
    "zip archive": (b"PK\x03\x04rest", "is a zip archive"),
    "empty": ("\n\n", "the file has no JSON lines"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_log_is_refused_naming_the_file_and_line(tmp_path, case):
    content, message = BAD[case]
    path = _write(tmp_path, "log.jsonl", content)
    with pytest.raises(rankviz.TrecFormatError, match=message) as caught:
        rankviz.read_jsonl(path, relevant=None if case not in ("grade 1.5",) else "relevant")
    assert str(caught.value).startswith(str(path))


def test_a_query_in_two_records_is_refused(tmp_path):
    path = _write(
        tmp_path, "log.jsonl", _lines({"query_id": "q1", "retrieved": ["a"]}, {"query_id": "q1", "retrieved": ["b"]})
    )
    with pytest.raises(rankviz.InputError, match="'q1' has 'query_id' in more than one record"):
        rankviz.read_jsonl(path)


@st.composite
def _record(draw):
    """(line, kind, record): a clean record (maybe with odd whitespace), a corrupted one, or a blank line."""
    q = draw(st.sampled_from(["q1", "q2", "01", "é"]))
    n = draw(st.integers(0, 4))
    docs = draw(st.lists(st.sampled_from(["d1", "d2", "07", "x y"]), min_size=n, max_size=n, unique=True))
    scores = [draw(st.floats(allow_nan=False, allow_infinity=False, width=64)) for _ in docs]
    record = {"query_id": q, "retrieved": docs, "scores": scores}
    choice = draw(st.sampled_from(["clean", "clean", "spaced", "no query", "bad score", "cut", "blank"]))
    if choice == "clean":
        return json.dumps(record), "data", record
    if choice == "spaced":
        return "  " + json.dumps(record, indent=None, separators=(" , ", " : ")) + " \r", "data", record
    if choice == "no query":
        return json.dumps({"retrieved": docs, "scores": scores}), "error", None
    if choice == "bad score":
        return json.dumps({**record, "scores": scores + [1.0]}), "error", None
    if choice == "cut":
        return json.dumps(record)[:-1], "error", None
    return " ", "skip", None


@SETTINGS
@given(lines=st.lists(_record(), min_size=1, max_size=8), packed=st.booleans())
def test_corrupted_logs_read_exactly_or_fail_naming_a_bad_line(lines, packed):
    seen, kept = set(), []
    for i, (text, kind, record) in enumerate(lines):  # one record per query: later repeats are made blank
        if kind == "data" and record["query_id"] in seen:
            lines[i] = (" ", "skip", None)
        elif kind == "data":
            seen.add(record["query_id"])
    raw = "\n".join(text for text, _, _ in lines).encode("utf-8") + b"\n"
    errors = {i + 1 for i, (_, kind, _) in enumerate(lines) if kind == "error"}
    kept = [record for _, kind, record in lines if kind == "data"]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "log.jsonl")
        with open(path, "wb") as handle:
            handle.write(gzip.compress(raw) if packed else raw)
        try:
            got = rankviz.read_jsonl(path, relevant=None, system="s")
        except rankviz.TrecFormatError as exc:
            message = str(exc)
            assert message.startswith(path), message
            if errors:
                assert any(f", line {n}:" in message for n in errors), (message, errors)
            else:
                assert not kept and "has no JSON lines" in message
            return
        assert not errors, f"no error although lines {sorted(errors)} are bad"
        rows = [(r["query_id"], d, i + 1, s) for r in kept for i, (d, s) in enumerate(zip(r["retrieved"], r["scores"]))]
        assert list(zip(got.run["query_id"], got.run["doc_id"], got.run["rank"], got.run["score"])) == rows


@SETTINGS
@given(raw=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(lambda t: t.encode("utf-8"))))
def test_arbitrary_bytes_never_raise_anything_but_a_rankviz_error(raw):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "file.jsonl")
        with open(path, "wb") as handle:
            handle.write(raw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)
            try:
                rankviz.read_jsonl(path)
            except rankviz.RankvizError as exc:
                assert str(exc).startswith(path), str(exc)
