"""The explorer's stage view: for the selected query, the relevant documents' positions at each stage.

Positions are checked against a reference computed here in plain Python over the stage lists, on seeded
generated pipelines; the HTML is checked for escaping; bad ``stages=`` is refused with a rankviz error.
"""

from __future__ import annotations

import random
import re
import warnings

import pandas as pd
import pytest

import rankviz
from rankviz import InputError

widgets = pytest.importorskip("rankviz.widgets")
pytest.importorskip("ipywidgets")
from rankviz.widgets import render_stages  # noqa: E402
from rankviz.widgets.explorer_stages import StageView  # noqa: E402

XSS_DOC = "<script>alert('doc')</script>"
XSS_QUERY = "<img src=x onerror=alert(1)>"


def generated_pipeline(seed: int, n_queries: int = 6, depth_context: int = 3):
    """A retrieved -> reranked -> context -> cited pipeline, its qrels, and the first stage as a long run."""
    rnd = random.Random(seed)
    retrieved, reranked, context, cited, gold = {}, {}, {}, {}, {}
    for i in range(n_queries):
        q = f"q{i}"
        docs = [f"d{i}_{j}" for j in range(12)]
        retrieved[q] = rnd.sample(docs, 10)  # two documents never retrieved
        reranked[q] = rnd.sample(retrieved[q], 6)
        context[q] = reranked[q][:depth_context]
        cited[q] = {d for d in context[q] if rnd.random() < 0.5}
        gold[q] = rnd.sample(docs, rnd.randint(1, 4))
    pipeline = {"retrieved": retrieved, "reranked": reranked, "context": context, "cited": cited}
    run = pd.DataFrame(
        [(q, d, float(len(ids) - r)) for q, ids in retrieved.items() for r, d in enumerate(ids)],
        columns=["query_id", "doc_id", "score"],
    )
    qrels = pd.DataFrame(
        [(q, d, 1) for q, ids in gold.items() for d in ids], columns=["query_id", "doc_id", "relevance"]
    )
    return pipeline, gold, run, qrels


def reference_rows(pipeline: dict, gold: dict, query: str) -> dict:
    """{doc: [position per stage, or None; 'in' for the unordered last stage]} in plain Python."""
    rows = {}
    for doc in gold[query]:
        cells = []
        for name, stage in pipeline.items():
            held = stage[query]
            if isinstance(held, set):
                cells.append("in" if doc in held else None)
            else:
                cells.append(held.index(doc) + 1 if doc in held else None)
        rows[doc] = cells
    return rows


def shown_rows(html: str) -> dict:
    """{doc id: [cell texts after the doc id]} of a rendered stage table."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = {}
    for row in re.findall(r"<tr [^>]*>(.*?)</tr>", body):
        cells = re.findall(r"<td [^>]*>(.*?)</td>", row)
        doc = re.sub(r"<[^>]+>", "", cells[0])
        rows[doc] = cells[1:]
    return rows


def explorer(pipeline, run, qrels, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # closed-world notes of the small generated run
        result = rankviz.stages(pipeline, qrels, n_resamples=100, rng=0)
        return widgets.explore(run, qrels, stages=result, k=5, **kwargs), result


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stage_view_positions_equal_the_reference(seed):
    pipeline, gold, run, qrels = generated_pipeline(seed)
    ui, result = explorer(pipeline, run, qrels)
    seen = 0
    for _, qid in ui.query.options:
        ui.select(qid)
        shown = shown_rows(ui.stages.value)
        expected = reference_rows(pipeline, gold, qid)
        assert set(shown) == set(expected)
        for doc, cells in expected.items():
            positions = shown[doc][: len(pipeline)]
            assert positions == [render_stages.NOT_HELD if c is None else str(c) for c in cells], (qid, doc)
            lost = shown[doc][-1]
            attributed = result.documents.set_index(["query_id", "doc_id"]).loc[(qid, doc)]
            # kept exactly when the last stage (the cited set) holds it
            assert (lost == "kept") == (cells[-1] == "in")
            if lost != "kept":
                assert lost == f"{attributed['lost_at']} ({attributed['reason']})"
        seen += 1
    assert seen == len(ui.query.options) > 0


def test_stage_view_sentence_is_the_querys_explanation_and_best_document_is_marked():
    pipeline, gold, run, qrels = generated_pipeline(3)
    ui, result = explorer(pipeline, run, qrels)
    qid = ui.query.value
    row = result.queries.set_index("query_id").loc[qid]
    assert render_stages.escape(row["explanation"]) in ui.stages.value
    best = next((d for d in pipeline["retrieved"][qid] if d in gold[qid]), None)
    assert StageView(result).best(qid) == best
    if best is not None:
        marked = re.findall(r'<tr class="[^"]*rankviz-stage-best[^"]*"[^>]*><td [^>]*>(.*?)</td>', ui.stages.value)
        assert [re.sub(r"<[^>]+>", "", m) for m in marked] == [best]


def test_stage_view_follows_the_selected_query():
    pipeline, gold, run, qrels = generated_pipeline(4)
    ui, _ = explorer(pipeline, run, qrels)
    ids = [qid for _, qid in ui.query.options]
    views = {}
    for qid in ids[:3]:
        ui.select(qid)
        views[qid] = ui.stages.value
        assert set(shown_rows(ui.stages.value)) == set(gold[qid])
    assert len(set(views.values())) == len(views)  # each query its own table
    assert ui.stages in ui.children


def test_without_stages_there_is_no_stage_view():
    pipeline, gold, run, qrels = generated_pipeline(5)
    ui = widgets.explore(run, qrels, k=5)
    assert ui.stage_view is None and ui.stages.value == "" and ui.stages not in ui.children
    assert "rankviz-stage-table" not in ui.snapshot_html()


def test_snapshot_holds_the_stage_view_of_each_listed_query():
    pipeline, gold, run, qrels = generated_pipeline(6)
    ui, _ = explorer(pipeline, run, qrels)
    page = ui.snapshot_html()
    assert page.count('class="rankviz-stage-table"') == len(ui.query.options)


def test_query_not_in_the_stages_and_query_without_relevant_documents_are_said():
    run = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"], "score": [2.0, 1.0, 2, 1]}
    )
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "relevance": [1, 1]})
    pipeline = {"retrieved": {"q1": ["a", "b"], "q3": ["x"]}, "context": {"q1": ["b"], "q3": ["x"]}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rankviz.stages(pipeline, {"q1": ["a"], "q3": ["zz"], "q9": ["a"]}, n_resamples=100, rng=0)
        ui = widgets.explore(run, qrels, stages=result, k=2)
    ui.select("q2")
    assert "q2: not in the pipeline" in ui.stages.value and "rankviz-stage-table" not in ui.stages.value
    ui.select("q1")
    # a sat at 1 in retrieved, inside the context's depth (1), and the context left it out
    assert shown_rows(ui.stages.value) == {"a": ["1", render_stages.NOT_HELD, "context (dropped)"]}
    view = StageView(result)
    assert view.table("q2").empty and view.best("q2") is None


def test_stage_view_escapes_user_strings():
    stage = "<b>retrieved</b>"
    pipeline = {stage: {XSS_QUERY: [XSS_DOC, "plain"]}, "context": {XSS_QUERY: ["plain"]}}
    qrels = pd.DataFrame({"query_id": [XSS_QUERY], "doc_id": [XSS_DOC], "relevance": [1]})
    run = pd.DataFrame({"query_id": [XSS_QUERY] * 2, "doc_id": [XSS_DOC, "plain"], "score": [2.0, 1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rankviz.stages(pipeline, qrels, n_resamples=100, rng=0)
        ui = widgets.explore(run, qrels, stages=result, k=2)
    for html in (ui.stages.value, ui.snapshot_html()):
        stage_part = html[html.index("rankviz-stages") :] if "rankviz-stages" in html else html
        for raw in ("<script>alert", "<img", "<b>retrieved"):
            assert raw not in stage_part, raw
        assert "&lt;b&gt;retrieved&lt;/b&gt;" in stage_part and "&lt;script&gt;" in stage_part


@pytest.mark.parametrize("bad", [{"retrieved": {"q1": ["a"]}}, pd.DataFrame({"a": [1]}), "stages"])
def test_stages_that_are_not_a_stages_result_are_refused(bad):
    pipeline, gold, run, qrels = generated_pipeline(7)
    with pytest.raises(InputError, match=r"stages= must be what rankviz\.stages\(\.\.\.\) returns"):
        widgets.explore(run, qrels, stages=bad)


def test_stage_view_reads_the_stages_without_changing_them():
    pipeline, gold, run, qrels = generated_pipeline(8)
    _, result = explorer(pipeline, run, qrels)
    before = (result.documents.copy(), result.queries.copy())
    view = StageView(result)
    for q in result.lists.queries:
        view.table(q)
    pd.testing.assert_frame_equal(result.documents, before[0])
    pd.testing.assert_frame_equal(result.queries, before[1])
