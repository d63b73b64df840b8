"""Label Studio import keeps LabelStore.add's promise (issue 31): every row is checked, times are instants.

Each hostile export below used to be stored wrong (1.7 as 1, None as "None", a list
as its repr, 2**60) or to raise a raw error; each must now be a rankviz error naming
the task, and the store must be left as it was.
"""

from __future__ import annotations

import json

import pytest

import rankviz
from rankviz.labels import LabelStore


def task(query="q1", doc="d1", value=None, *, when=None, who=7, tid=1):
    annotation = {"completed_by": who, "result": [{"type": "x", "value": value or {"rating": 1}}]}
    if when is not None:
        annotation["updated_at"] = when
    return {"id": tid, "data": {"query_id": query, "doc_id": doc}, "annotations": [annotation]}


@pytest.fixture
def store(tmp_path):
    s = LabelStore(tmp_path / "labels.sqlite")
    s.add("q0", "d0", 1, annotator="a")
    yield s
    s.close()


@pytest.mark.parametrize(
    ("export", "grades", "match"),
    [
        ([task(value={"choices": ["Rel"]})], {"Rel": 1.7}, r"grades\['Rel'\].*integer grade.*1\.7"),
        ([task(value={"choices": ["Rel"]})], {"Rel": "2"}, r"grades\['Rel'\].*integer grade"),
        ([task(value={"choices": ["Rel"]})], {"Rel": None}, r"grades\['Rel'\].*integer grade"),
        ([task(value={"choices": ["Rel"]})], {"Rel": 2**60}, r"grades\['Rel'\].*at most 2\*\*53"),
        ([task(query=None)], None, r"'query_id' parameter of .*task 1.*must be a string"),
        ([task(query="")], None, r"'query_id' parameter of .*task 1.*non-empty"),
        ([task(query="  ")], None, r"non-empty"),
        ([task(doc=["d1", "d2"])], None, r"'doc_id' parameter of .*task 1.*must be a string.*list"),
        ([task(value={"rating": 2**60})], None, r"'rating' parameter of .*task 1.*at most 2\*\*53"),
        ([task(value={"rating": 1.5})], None, r"'rating' parameter.*integer grade"),
        ([task(value={"number": True})], None, r"'number' parameter.*integer grade"),
        ([task(value={"choices": {"Rel": True}})], {"Rel": 1}, r"task 1 has 'choices'.*dict.*list of choice labels"),
        ([task(value={"choices": [{"a": 1}]})], {"Rel": 1}, r"task 1 chose .*dict, not a choice label"),
        ([task(value={"choices": ["Rel", "Not"]})], {"Rel": 1, "Not": 0}, r"task 1 chose several labels"),
        ([task(value={"choices": ["2" * 20]})], None, r"'choice' parameter.*at most 2\*\*53"),
        ([task(when="yesterday")], None, r"task 1 has the time 'yesterday'.*ISO 8601"),
        ([task()], ["Rel"], r"'grades' parameter .* must be a dict"),
        ([task(who=[7, 8])], None, r"'completed_by' parameter of .*task 1.*must be a string.*list"),
        ([task(who={"email": ["x@example.org"]})], None, r"'completed_by' parameter of .*task 1.*list"),
    ],
)
def test_every_imported_row_passes_the_checks_of_add(store, export, grades, match):
    with pytest.raises(rankviz.InputError, match=match):
        store.import_label_studio(export, grades=grades)
    assert len(store) == 1  # nothing written


def test_choices_given_as_one_int_or_string_are_one_choice(store):
    export = [task(value={"choices": 2}, tid=1), task(doc="d2", value={"choices": "Rel"}, tid=2)]
    assert store.import_label_studio(export, grades={"Rel": 1}) == 2
    assert dict(zip(*store.to_qrels(annotator="label-studio:7")[["doc_id", "relevance"]].T.values)) == {
        "d1": 2,
        "d2": 1,
    }


def test_int_ids_are_written_as_their_digits_as_add_does(store):
    assert store.import_label_studio([task(query=17, doc=4)]) == 1
    assert store.history()[["query_id", "doc_id"]].iloc[-1].tolist() == ["17", "4"]


def test_updated_at_is_compared_as_an_instant_not_as_text(store):
    # 10:30+02:00 is 08:30 UTC: earlier than 09:00Z although its text sorts later
    export = [
        task(value={"rating": 3}, when="2024-01-01T10:30:00+02:00", tid=1),
        task(value={"rating": 0}, when="2024-01-01T09:00:00Z", tid=2),
        task(value={"rating": 2}, when="2024-01-01T08:45:00", tid=3),  # no offset: UTC
    ]
    assert store.import_label_studio(export) == 3
    assert store.grade("q1", "d1", annotator="label-studio:7") == 0  # 09:00Z is the latest instant
    times = store.history()["time"].tolist()[-3:]
    assert times == ["2024-01-01T08:30:00.000000+00:00", "2024-01-01T08:45:00.000000+00:00",
                     "2024-01-01T09:00:00.000000+00:00"]  # fmt: skip


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (json.dumps([task()]).encode("utf-16"), "UTF-16"),
        (json.dumps([task()]).encode("utf-16-le"), "UTF-16"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "UTF-16|not UTF-8"),
        (b"\xc3\x28 not utf-8", "not UTF-8 text"),
        (b"[" * 10_000 + b"]" * 10_000, "nested too deeply"),
        (b'{"a": ', "is not JSON"),
    ],
    ids=["utf16-bom", "utf16-le", "binary", "latin", "deep", "truncated"],
)
def test_unreadable_files_are_rankviz_errors(store, tmp_path, content, match):
    path = tmp_path / "export.json"
    path.write_bytes(content)
    with pytest.raises(rankviz.InputError, match=match):
        store.import_label_studio(path)
    assert len(store) == 1


def test_a_utf8_bom_is_read(store, tmp_path):
    path = tmp_path / "export.json"
    path.write_bytes(json.dumps([task()]).encode("utf-8-sig"))
    assert store.import_label_studio(path) == 1
