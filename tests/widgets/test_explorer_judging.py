"""Judging in the explorer (``explore(..., store=, annotator=)``), driven in Python as the front end drives it."""

from __future__ import annotations

import pandas as pd
import pytest

from rankviz import InputError

widgets = pytest.importorskip("rankviz.widgets")
pytest.importorskip("ipywidgets")
from rankviz.labels import LabelStore  # noqa: E402
from rankviz.widgets.explorer import explore  # noqa: E402

XSS_DOC = "<script>alert('doc')</script>"


def frames():
    run = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q2", "q2"],
            "doc_id": ["u", "b", "c", "x", XSS_DOC],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "c", "x"], "relevance": [0, 2, 1]})
    return run, qrels


def test_judging_the_unjudged_top_document_makes_rr_one_and_is_stored(tmp_path):
    run, qrels = frames()
    run_before, qrels_before = run.copy(), qrels.copy()
    path = tmp_path / "labels.sqlite"
    ui = explore(run, qrels, store=path, annotator="ann", k=3)
    ui.select("q1")
    assert ui.model.query_measures(None, "q1", 3)["RR@3"] == pytest.approx(1 / 3)
    assert ui.judge_row.document.options == (("1. u", "u"),)
    assert "first relevant result: rank 3" in ui.measures.value
    assert [b.description for b in ui.judge_row.buttons] == ["0", "1", "2"]
    ui.judge_row.document.value = "u"
    ui.judge_row.buttons[2].click()  # what a click on the grade-2 button runs
    assert ui.model.query_measures(None, "q1", 3)["RR@3"] == 1.0
    assert "first relevant result: rank 1" in ui.measures.value  # the view shows the new numbers
    assert "rankviz-unjudged" not in ui.table.value  # u is judged now, with its grade in the table
    assert ui.judge_row.document.options == ()
    assert all(b.disabled for b in ui.judge_row.buttons)
    assert "Stored grade 2 for u" in ui.judge_row.message.value
    ui.judging.store.close()
    reopened = LabelStore(path, create=False)
    history = reopened.history()
    assert history[["query_id", "doc_id", "grade", "annotator", "source"]].values.tolist() == [
        ["q1", "u", 2, "ann", "explorer"]
    ]
    reopened.close()
    pd.testing.assert_frame_equal(run, run_before)
    pd.testing.assert_frame_equal(qrels, qrels_before)


def test_a_store_opened_again_is_merged_over_the_qrels_and_the_latest_wins(tmp_path):
    run, qrels = frames()
    store = LabelStore(tmp_path / "labels.sqlite")
    store.add("q1", "u", 1, annotator="other")
    store.add("q1", "c", 0, annotator="other")  # over the qrels' 2
    ui = explore(run, qrels, store=store, annotator="ann", k=3)
    assert ui.model.query_measures(None, "q1", 3)["RR@3"] == 1.0
    assert ui.model.top(None, "q1", 3)["relevance"].tolist() == [1, 0, 0]
    ui.select("q1")
    ui.judge("u", 0)  # a judged document of the list may be judged again
    assert ui.model.query_measures(None, "q1", 3)["RR@3"] == 0.0
    assert store.grade("q1", "u", annotator="ann") == 0


def test_without_a_store_there_are_no_judge_widgets():
    run, qrels = frames()
    ui = explore(run, qrels, k=3)
    assert ui.judging is None and ui.judge_row is None
    classes = [c for child in ui.children for c in getattr(child, "_dom_classes", ())]
    assert "rankviz-explorer-judge" not in classes
    assert len(ui.children) == 5
    with pytest.raises(InputError, match="no label store"):
        ui.judge("u", 1)


def test_with_a_store_the_judge_row_sits_above_the_status_line(tmp_path):
    run, qrels = frames()
    ui = explore(run, qrels, store=str(tmp_path / "labels.sqlite"), annotator="ann", k=3)
    assert ui.children[-2] is ui.judge_row and ui.children[-1] is ui.status


@pytest.mark.parametrize("grade", [3, -1, True, 1.5, "1", None])
def test_a_grade_off_the_scale_is_refused_and_nothing_is_stored(tmp_path, grade):
    run, qrels = frames()
    ui = explore(run, qrels, store=tmp_path / "labels.sqlite", annotator="ann", k=3)
    ui.select("q1")
    with pytest.raises(InputError, match=r"not on the scale \[0, 1, 2\]"):
        ui.judge("u", grade)
    assert len(ui.judging.store) == 0
    assert ui.model.query_measures(None, "q1", 3)["RR@3"] == pytest.approx(1 / 3)


def test_a_document_not_in_the_list_is_refused(tmp_path):
    run, qrels = frames()
    ui = explore(run, qrels, store=tmp_path / "labels.sqlite", annotator="ann", k=1)
    ui.select("q1")
    with pytest.raises(InputError, match="'x' is not in the top 1"):
        ui.judge("x", 1)  # a document of another query
    with pytest.raises(InputError, match="'b' is not in the top 1"):
        ui.judge("b", 1)  # in the list, below the k shown
    assert len(ui.judging.store) == 0


def test_a_refused_click_shows_the_reason_escaped_not_a_traceback(tmp_path):
    run, qrels = frames()
    ui = explore(run, qrels, store=tmp_path / "labels.sqlite", annotator="ann", k=3)
    ui.select("q2")
    assert ui.judge_row.document.options == (("2. " + XSS_DOC, XSS_DOC),)
    ui.judge_row.buttons[1].click()
    assert XSS_DOC not in ui.judge_row.message.value
    assert "&lt;script&gt;" in ui.judge_row.message.value
    assert ui.model.query_measures(None, "q2", 3)["P@3"] == pytest.approx(2 / 3)
    ui.k.value = 1  # the document chosen is no longer in the list shown
    ui.judge_row.document.options = [("2. " + XSS_DOC, XSS_DOC)]
    ui.judge_row.document.value = XSS_DOC
    ui.judge_row.buttons[1].click()
    assert "is not in the top 1" in ui.judge_row.message.value
    assert XSS_DOC not in ui.judge_row.message.value


def test_a_store_needs_an_annotator_and_a_store_type(tmp_path):
    run, qrels = frames()
    with pytest.raises(InputError, match="needs annotator="):
        explore(run, qrels, store=tmp_path / "labels.sqlite")
    with pytest.raises(InputError, match="store must be a rankviz.labels.LabelStore"):
        explore(run, qrels, store=3, annotator="ann")


def test_the_grade_scale_follows_the_highest_grade_seen(tmp_path):
    run, _ = frames()
    binary = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [0]})
    ui = explore(run, binary, store=tmp_path / "a.sqlite", annotator="ann", k=3)
    assert ui.judging.grades == [0, 1]
    graded = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [3]})
    ui = explore(run, graded, store=tmp_path / "b.sqlite", annotator="ann", k=3)
    assert [b.description for b in ui.judge_row.buttons] == ["0", "1", "2", "3"]
