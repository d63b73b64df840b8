"""The judging widget and its model, without a browser (tests/widgets/test_browser_judge.py drives it in Chromium)."""

from __future__ import annotations

import pandas as pd
import pytest

import rankviz
from rankviz.labels import LabelStore
from rankviz.widgets import JudgeModel, judge, render_judge

TODO = pd.DataFrame(
    {
        "query_id": ["q1", "q1", "q2", "q2", "q3"],
        "doc_id": ["a", "b", "c", "<d>", "e"],
        "systems": ["x, y", "x", "y", "x", "y"],
    }
)
QUERIES = {"q1": "refund policy", "q2": "<script>alert(1)</script> shipping", "q3": "returns"}
DOCS = pd.DataFrame(
    {"doc_id": ["a", "<d>"], "title": ["Refunds", "T"], "text": ["Our refund policy & <b>terms</b>", "x"]}
)


@pytest.fixture
def store(tmp_path):
    return LabelStore(tmp_path / "labels.sqlite")


def _model(store, **kwargs):
    return JudgeModel(TODO, store, annotator="me", queries=QUERIES, documents=DOCS, **kwargs)


def test_every_grade_is_in_the_store_when_judge_returns(store):
    model = _model(store)
    model.judge(2)
    other = LabelStore(store.path)  # another connection, as another process would see it
    assert other.to_qrels(annotator="me")[["doc_id", "relevance"]].values.tolist() == [["a", 2]]
    assert other.history()["source"].tolist() == ["widget"]
    assert model.current()["doc_id"] == "b"


def test_skip_sends_a_pair_to_the_end_and_undo_takes_back(store):
    model = _model(store)
    model.skip()
    assert [model.current()["doc_id"]] == ["b"]
    model.judge(1)
    model.judge(0)  # c
    assert model.current()["doc_id"] == "<d>"
    assert model.undo() == "undid the judgement of c for q2"
    assert model.current()["doc_id"] == "c" and store.grade("q2", "c", annotator="me") is None
    assert model.undo().startswith("undid the judgement of b")
    assert model.undo().startswith("undid the skip of a")
    assert model.current()["doc_id"] == "a"
    assert model.undo() is None
    assert len(store.history()) == 4  # two grades and two withdrawals: history is kept


def test_undo_restores_the_grade_given_before(store):
    store.add("q1", "a", 1, annotator="me")
    model = _model(store)
    assert model.progress()["judged"] == 1  # resumed: a counts as done
    model.set_filter(query="q1")
    model.judge(2)  # b
    model.undo()
    assert store.grade("q1", "b", annotator="me") is None and store.grade("q1", "a", annotator="me") == 1


def test_progress_filters_and_resume(store):
    model = _model(store)
    assert model.progress() == {"judged": 0, "total": 5, "queries_done": 0, "queries": 3}
    model.judge(1)
    model.judge(0)
    assert model.progress() == {"judged": 2, "total": 5, "queries_done": 1, "queries": 3}
    model.set_filter(system="y")
    assert model.progress() == {"judged": 1, "total": 3, "queries_done": 1, "queries": 3}
    assert model.current()["doc_id"] == "c"
    model.set_filter(query="q2", system=None)
    assert model.progress()["total"] == 2
    again = _model(LabelStore(store.path))  # a kernel restart: a new store object and model
    assert again.progress()["judged"] == 2 and again.current()["doc_id"] == "c"
    assert (
        render_judge.progress_line(again.progress())
        == '<div class="rankviz-progress">2 of 5 judged, 1 of 3 queries done</div>'
    )


def test_annotators_are_apart(store):
    _model(store).judge(2)
    other = JudgeModel(TODO, store, annotator="someone else")
    assert other.progress()["judged"] == 0 and other.current()["doc_id"] == "a"


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda s: JudgeModel(TODO.drop(columns="doc_id"), s, annotator="me"), "'query_id' and 'doc_id'"),
        (lambda s: JudgeModel(TODO.head(0), s, annotator="me"), "nothing to judge"),
        (lambda s: JudgeModel(TODO, s, annotator=""), "annotator must be"),
        (lambda s: JudgeModel(TODO, s, annotator="me", grades="abc"), "grades must be"),
        (lambda s: JudgeModel(TODO, s, annotator="me").judge(5), "not on the scale"),
        (lambda s: JudgeModel(TODO, s, annotator="me").set_filter(query="q9"), "nothing to judge"),
        (lambda s: JudgeModel(TODO, s, annotator="me").set_filter(system="z"), "no pair retrieved by system 'z'"),
    ],
)
def test_bad_input_is_a_rankviz_error(store, call, match):
    with pytest.raises(rankviz.InputError, match=match):
        call(store)


def test_the_widget_clicks_and_keys(store):
    ui = judge(TODO, store, annotator="me", queries=QUERIES, documents=DOCS)
    assert "refund" in ui.header.value and '<mark class="rankviz-term">refund</mark>' in ui.document.value
    ui.grade_buttons[2].click()
    ui.key_box.value = "1"
    assert ui.key_box.value == ""
    ui.key_box.value = "s"
    ui.key_box.value = "u"
    ui.key_box.value = "0"
    assert store.to_qrels(annotator="me")["relevance"].tolist() == [2, 1, 0]
    assert "3 of 5 judged, 1 of 3 queries done" in ui.progress.value
    ui.key_box.value = "x"
    assert "does nothing" in ui.progress.value
    ui.system_filter.value = "x"
    assert ui.model.system == "x" and ui.model.current()["doc_id"] == "<d>"
    assert "&lt;d&gt;" in ui.document.value and "<d>" not in ui.document.value


def test_user_strings_are_escaped_everywhere(store):
    ui = judge(TODO, store, annotator="me", queries=QUERIES, documents=DOCS)
    ui.model.set_filter(query="q2")
    ui._show()
    snapshot = ui.snapshot_html()
    for html in (ui.header.value, ui.document.value, snapshot):
        assert "<script>" not in html
    assert "&lt;script&gt;" in ui.header.value
    assert "&lt;b&gt;" in render_judge.highlight("Our refund <b>terms</b>", "terms")


def test_the_snapshot_shows_progress_and_counts(store):
    ui = judge(TODO, store, annotator="me", queries=QUERIES, documents=DOCS)
    ui.grade_buttons[1].click()
    bundle = ui._repr_mimebundle_()
    html = bundle["text/html"]
    assert "rankviz-static rankviz-judge" in html and "1 of 5 judged, 0 of 3 queries done" in html
    assert html.count("<tr><td>") == 3 and "1 of 2" in html
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "1 of 5 judged" in repr(ui)


def test_the_todo_frame_is_not_changed(store):
    before = TODO.copy(deep=True)
    ui = judge(TODO, store, annotator="me")
    ui.grade_buttons[0].click()
    pd.testing.assert_frame_equal(TODO, before)
