"""rankviz.widgets without a browser: the models' numbers, the widgets' displayed values, escaping.

Widgets are driven the way the front end drives them: by setting their values in
Python, which runs the same observers a click runs. The browser test
(tests/widgets/test_browser.py) checks that the same happens in a real page.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import rankviz
from rankviz import ClosedWorldWarning, IdTypeWarning, InputError
from rankviz.datasets import load_example, load_example_documents

widgets = pytest.importorskip("rankviz.widgets")
ipywidgets = pytest.importorskip("ipywidgets")
from rankviz.widgets import render

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05_interactive.ipynb"

XSS_QUERY = "<img src=x onerror=alert(1)>"
XSS_DOC = "<script>alert('doc')</script>"
XSS_TEXT = "Body with <script>alert(2)</script> & more"


def number(html: str) -> float:
    """The number a measure card shows."""
    match = re.search(r'class="rankviz-number"[^>]*>([^<]+)<', html)
    assert match, html
    return float(match.group(1))


def table_rows(html: str) -> list[str]:
    """The body rows of a ranked-list table."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr [^>]*>.*?</tr>", body)


# ----------------------------------------------------------------------------- playground


def test_playground_model_numbers_are_rankvizs():
    model = widgets.PlaygroundModel(n=10, relevant=[1, 3])
    values = model.measures()
    assert list(values) == ["RR@10", "Success@10", "P@10", "R@10", "AP", "nDCG@10"]
    assert values["RR@10"] == 1.0
    assert values["Success@10"] == 1.0
    assert values["P@10"] == pytest.approx(0.2)
    assert values["R@10"] == 1.0
    assert values["AP"] == pytest.approx((1 + 2 / 3) / 2)
    assert values["nDCG@10"] == pytest.approx((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)))
    # the same numbers as the library on the equivalent relevance vector
    vector = pd.DataFrame({"query": ["q"], "relevance": [[i in (1, 3) for i in range(1, 11)]], "n_relevant": [2]})
    expected = rankviz.evaluate(vector, list(values), per_query=True).iloc[0]
    for name, value in values.items():
        assert value == pytest.approx(expected[name])


def test_playground_model_unretrieved_relevant_items_lower_recall_not_rr():
    model = widgets.PlaygroundModel(n=10, relevant=[1, 3], unretrieved=2)
    values = model.measures()
    assert model.n_relevant == 4
    assert values["RR@10"] == 1.0
    assert values["R@10"] == pytest.approx(0.5)
    assert values["AP"] == pytest.approx((1 + 2 / 3) / 4)
    ideal = sum(1 / math.log2(i + 1) for i in range(1, 5))
    assert values["nDCG@10"] == pytest.approx((1 + 1 / math.log2(4)) / ideal)


def test_playground_model_nothing_relevant_is_all_zero():
    values = widgets.PlaygroundModel(n=5, relevant=[]).measures()
    assert all(v == 0.0 for v in values.values())


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 0}, "'n' parameter of PlaygroundModel"),
        ({"n": 5, "relevant": [6]}, r"'rank' parameter .* range \[1, 5\]"),
        ({"n": 5, "relevant": [0]}, "'rank' parameter"),
        ({"n": 5, "k": 6}, r"'k' parameter .* range \[1, 5\]"),
        ({"n": 5, "k": 0}, "'k' parameter"),
        ({"n": 5, "unretrieved": -1}, "'unretrieved' parameter"),
    ],
)
def test_playground_model_rejects_bad_parameters(kwargs, match):
    with pytest.raises(InputError, match=match):
        widgets.PlaygroundModel(**kwargs)


def test_playground_toggles_update_rr_live():
    ui = widgets.playground(n=10, relevant=[])
    assert isinstance(ui, ipywidgets.VBox)
    assert len(ui.toggles) == 10
    assert number(ui.values["RR"].value) == 0.0
    ui.toggles[0].value = True
    ui.toggles[2].value = True
    assert "1.0000" in ui.values["RR"].value
    assert number(ui.values["RR"].value) == 1.0
    ui.toggles[0].value = False
    assert "0.3333" in ui.values["RR"].value
    assert number(ui.values["RR"].value) == pytest.approx(1 / 3, abs=1e-4)
    assert ui.model.relevant_ranks == [3]
    # the toggle shows its state without icons (which need a web font)
    assert ui.toggles[2].button_style == "success" and "\u2713" in ui.toggles[2].description
    assert ui.toggles[0].button_style == "" and ui.toggles[0].description == "1"


def test_playground_mrr_swings_while_recall_stays():
    """Moving the one relevant result from rank 1 to rank 3: RR 1 -> 1/3, recall unchanged."""
    ui = widgets.playground(n=10, relevant=[1], unretrieved=1)
    before = {f: number(v.value) for f, v in ui.values.items()}
    ui.toggles[2].value = True
    ui.toggles[0].value = False
    after = {f: number(v.value) for f, v in ui.values.items()}
    assert (before["RR"], after["RR"]) == (1.0, pytest.approx(0.3333, abs=1e-4))
    assert before["R"] == after["R"] == 0.5
    assert before["Success"] == after["Success"] == 1.0
    assert after["nDCG"] < before["nDCG"]


def test_playground_relevant_results_after_the_first_are_invisible_to_rr():
    ui = widgets.playground(n=10, relevant=[2])
    recall = [number(ui.values["R"].value)]
    ap = [number(ui.values["AP"].value)]
    for i in range(4, 10):
        ui.toggles[i].value = True
        assert number(ui.values["RR"].value) == 0.5
        recall.append(number(ui.values["R"].value))
        ap.append(number(ui.values["AP"].value))
    assert number(ui.values["P"].value) == pytest.approx(0.7)
    assert "invisible to RR" in ui.explanation.value
    assert ap != sorted(ap, reverse=True)  # AP reacts to later hits; RR does not


def test_playground_k_slider_and_missed_box():
    ui = widgets.playground(n=10, relevant=[3])
    assert "RR@10" in ui.values["RR"].value
    ui.k.value = 2
    assert ui.model.k == 2
    assert "RR@2" in ui.values["RR"].value and "Hit@2" in ui.values["Success"].value
    assert number(ui.values["RR"].value) == 0.0
    assert number(ui.values["Success"].value) == 0.0
    assert "beyond k = 2" in ui.explanation.value
    ui.k.value = 10
    assert number(ui.values["R"].value) == 1.0
    ui.unretrieved.value = 3
    assert number(ui.values["R"].value) == pytest.approx(0.25)
    assert number(ui.values["RR"].value) == pytest.approx(0.3333, abs=1e-4)
    assert "R = 4" in ui.relevant_count.value


def test_playground_has_findable_classes_and_no_shared_state():
    a = widgets.playground(n=5, relevant=[1])
    b = widgets.playground(n=5, relevant=[1])
    assert "rankviz-playground" in a._dom_classes
    assert "rankviz-mrr" in a.values["RR"]._dom_classes
    assert all("rankviz-toggle" in t._dom_classes for t in a.toggles)
    a.toggles[0].value = False
    assert number(b.values["RR"].value) == 1.0
    assert a.model is not b.model


# ----------------------------------------------------------------------------- explorer fixtures


@pytest.fixture
def small():
    """Two systems, four queries; q4 is judged but system B did not retrieve it."""
    run = pd.DataFrame(
        {
            "system": ["A"] * 9 + ["B"] * 6,
            "query_id": ["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3", "q4"] + ["q1", "q1", "q2", "q2", "q3", "q3"],
            "doc_id": ["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"] + ["d2", "d1", "d5", "d4", "d8", "d7"],
            "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 2.0, 1.0, 1.0] + [2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    qrels = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q2", "q3", "q3", "q4"],
            "doc_id": ["d1", "d2", "d6", "d7", "d8", "d9"],
            "relevance": [2, 0, 1, 0, 0, 1],
        }
    )
    queries = pd.DataFrame(
        {"query_id": ["q1", "q2", "q3", "q4"], "text": ["first query", "second one", "third", "fourth"]}
    )
    documents = pd.DataFrame(
        {
            "doc_id": [f"d{i}" for i in range(1, 10)],
            "title": [f"T{i}" for i in range(1, 10)],
            "text": [f"text of document {i}" for i in range(1, 10)],
        }
    )
    return run, qrels, queries, documents


def test_explorer_model_orders_worst_first(small):
    run, qrels, queries, documents = small
    model = widgets.ExplorerModel(run, qrels, queries=queries, documents=documents, k=10)
    order = model.worst_first("A", 10)
    # RR@10: q1 = 1, q2 = 1/3, q3 = 0, q4 = 1
    assert order["query_id"].tolist() == ["q3", "q2", "q1", "q4"]
    assert order["failure"].tolist() == [True, False, False, False]
    assert order["text"].tolist() == ["third", "second one", "first query", "fourth"]
    b = model.worst_first("B", 10)
    # system B: q1 = 1/2, q2 = 0 (d6 not retrieved), q3 = 0, q4 = 0 (not retrieved, counts as 0)
    assert b["query_id"].tolist()[-1] == "q1"
    assert set(b["query_id"][b["failure"]]) == {"q2", "q3", "q4"}
    ap = model.worst_first("A", 10, order="AP")
    assert ap["value"].is_monotonic_increasing


def test_explorer_model_measures_match_evaluate(small):
    run, qrels, _, _ = small
    model = widgets.ExplorerModel(run, qrels, k=2)
    names = model.display_names(2)
    assert names == ["RR@2", "RR", "AP", "nDCG@2", "P@2", "R@2", "Success@2"]
    expected = rankviz.evaluate(run, names, qrels, per_query=True)
    for row in expected.itertuples(index=False):
        got = model.query_measures(row.system, row.query_id, 2)
        for name in names:
            assert got[name] == pytest.approx(
                expected.loc[(expected.system == row.system) & (expected.query_id == row.query_id), name].iloc[0]
            )


def test_explorer_model_top_is_the_ranked_list_cut_at_k(small):
    run, qrels, queries, documents = small
    model = widgets.ExplorerModel(run, qrels, queries=queries, documents=documents)
    top = model.top("A", "q1", 10)
    assert isinstance(top, pd.DataFrame)
    assert top["doc_id"].tolist() == ["d1", "d2", "d3"]
    assert top["relevant"].tolist() == [True, False, False]
    assert top["relevance"].tolist()[:2] == [2, 0] and pd.isna(top["relevance"].iloc[2])
    assert top["title"].tolist() == ["T1", "T2", "T3"] and top["text"].iloc[0] == "text of document 1"
    assert len(model.top("A", "q1", 2)) == 2 and len(model.top("A", "q1", 1)) == 1
    assert model.first_relevant("A", "q1") == 1 and model.first_relevant("A", "q3") is None
    assert model.top("B", "q4", 10).empty  # judged, but B did not retrieve it
    assert model.ranked("B", "q2")["doc_id"].tolist() == ["d5", "d4"]


def test_ranked_list_table_marks_relevant_rows(small):
    run, qrels, queries, documents = small
    model = widgets.ExplorerModel(run, qrels, queries=queries, documents=documents)
    rows = table_rows(render.ranked_list_table(model.top("A", "q1", 10), model.snippet_length))
    assert len(rows) == 3
    assert 'class="rankviz-relevant"' in rows[0] and render.RELEVANT_COLOR in rows[0]
    assert "rankviz-nonrelevant" in rows[1] and "<td" in rows[1] and ">0<" in rows[1]  # judged non-relevant
    assert "rankviz-unjudged" in rows[2] and "unjudged" in rows[2]
    assert "<code>d1</code>" in rows[0] and "<b>T1</b> text of document 1" in rows[0]
    # a judged query the system did not retrieve: an empty table that says so
    empty = render.ranked_list_table(model.top("B", "q4", 10))
    assert table_rows(empty) == [] and "retrieved nothing" in empty


def test_explorer_model_next_failure_walks_and_wraps():
    run = pd.DataFrame({"query_id": [f"q{i}" for i in range(5)], "doc_id": ["d"] * 5, "score": [1.0] * 5})
    qrels = pd.DataFrame(
        {"query_id": [f"q{i}" for i in range(5)], "doc_id": ["d", "x", "d", "x", "x"], "relevance": [1] * 5}
    )
    model = widgets.ExplorerModel(run, qrels)
    # AP orders the failures (AP 0) first too; failures are q1, q3, q4
    assert model.next_failure(None, 10, after=None) == "q1"
    assert model.next_failure(None, 10, after="q1") == "q3"
    assert model.next_failure(None, 10, after="q3") == "q4"
    assert model.next_failure(None, 10, after="q4") == "q1"  # wraps around
    assert model.next_failure(None, 10, after="q0") == "q1"
    assert model.next_failure(None, 10, after=None, search="q3") == "q3"
    assert model.next_failure(None, 10, after=None, search="q0") is None


def test_explorer_widget_k_slider_shrinks_table_and_recomputes(small):
    run, qrels, queries, documents = small
    ui = widgets.explore(run, qrels, queries=queries, documents=documents, system="A")
    assert isinstance(ui, ipywidgets.VBox) and "rankviz-explorer" in ui._dom_classes
    ui.select("q1")
    assert len(table_rows(ui.table.value)) == 3
    assert 'data-measure="RR@10"' in ui.measures.value
    ui.k.value = 1
    assert len(table_rows(ui.table.value)) == 1
    assert 'data-measure="RR@1"' in ui.measures.value and 'data-measure="P@1"' in ui.measures.value
    ui.select("q2")  # first relevant at rank 3: a failure at k = 1
    assert re.search(r'data-measure="RR@1".*?rankviz-value[^>]*>0\.0000<', ui.measures.value)
    assert "first relevant result: rank 3" in ui.measures.value
    ui.k.value = 3
    assert re.search(r'data-measure="RR@3".*?rankviz-value[^>]*>0\.3333<', ui.measures.value)


def test_explorer_widget_next_failure_button(small):
    run, qrels, queries, _ = small
    ui = widgets.explore(run, qrels, queries=queries, system="B")
    assert ui.query.value == "q2"  # worst first: the failures of B are q2, q3, q4 (RR = 0, ties by id)
    ui.next_failure.click()
    assert ui.query.value == "q3"
    ui.next_failure.click()
    assert ui.query.value == "q4"
    ui.next_failure.click()
    assert ui.query.value == "q2"
    assert all(ui.model.query_measures("B", q, 10)["RR@10"] == 0 for q in ("q2", "q3", "q4"))
    ui.system.value = "A"  # only q3 fails for A
    assert ui.query.value == "q2"  # the selection survives a system switch
    assert ui.show_next_failure() == "q3"
    assert ui.show_next_failure() == "q3"
    assert "only listed query" in ui.status.value
    ui.k.value = 3
    ui.search.value = "first"
    assert [qid for _, qid in ui.query.options] == ["q1"]
    assert ui.show_next_failure() is None
    assert "No listed query" in ui.status.value


def test_explorer_widget_search_filters_and_keeps_selection(small):
    run, qrels, queries, _ = small
    ui = widgets.explore(run, qrels, queries=queries, system="A")
    ui.select("q2")
    ui.search.value = "ONE"  # case-insensitive, on the query text
    assert [qid for _, qid in ui.query.options] == ["q2"]
    assert ui.query.value == "q2"
    ui.search.value = "q1"  # on the id
    assert [qid for _, qid in ui.query.options] == ["q1"] and ui.query.value == "q1"
    ui.search.value = "no such words"
    assert ui.query.options == () and ui.query.value is None
    assert "No query matches" in ui.header.value and ui.table.value == ""
    assert "0 of 4 queries listed" in ui.status.value
    ui.select("q3")  # clears the filter
    assert ui.search.value == "" and ui.query.value == "q3"
    assert "second one" in ui.query.options[1][0]


def test_explorer_order_menu(small):
    run, qrels, _, _ = small
    ui = widgets.explore(run, qrels, measure="nDCG@5")
    assert ui.order.value == "nDCG@k" and ui.k.value == 5
    assert list(ui.order.options) == ["RR@k", "RR", "AP", "nDCG@k", "P@k", "R@k", "Success@k"]
    ui.order.value = "AP"
    values = [float(label.split()[0]) for label, _ in ui.query.options]
    assert values == sorted(values)
    custom = widgets.explore(run, qrels, measure="RR(rel=2)")
    assert custom.order.value == "RR(rel=2)" and custom.k.value == 10
    assert custom.model.worst_first("A", 10)["value"].tolist() == [0.0, 0.0, 0.0, 1.0]  # only q1 has a grade-2 hit


def test_explorer_values_in_query_labels_follow_k(small):
    run, qrels, _, _ = small
    ui = widgets.explore(run, qrels, system="A")
    labels = {qid: label for label, qid in ui.query.options}
    assert labels["q2"].startswith("0.333")
    ui.k.value = 2
    labels = {qid: label for label, qid in ui.query.options}
    assert labels["q2"].startswith("0.000")


def test_explorer_escapes_every_user_string():
    run = pd.DataFrame(
        {
            "system": ["<b>sys</b>"] * 2,
            "query_id": ["<q>", "<q>"],
            "doc_id": [XSS_DOC, "plain"],
            "score": [2.0, 1.0],
        }
    )
    qrels = pd.DataFrame({"query_id": ["<q>"], "doc_id": [XSS_DOC], "relevance": [1]})
    queries = pd.DataFrame({"query_id": ["<q>"], "text": [XSS_QUERY]})
    documents = pd.DataFrame(
        {"doc_id": [XSS_DOC, "plain"], "title": ['"quoted" <i>title</i>', "t"], "text": [XSS_TEXT, "x"]}
    )
    ui = widgets.explore(run, qrels, queries=queries, documents=documents)
    shown = ui.header.value + ui.measures.value + ui.table.value + ui.status.value
    assert "&lt;img src=x onerror=alert(1)&gt;" in ui.header.value
    assert "&lt;q&gt;" in ui.header.value and "&lt;b&gt;sys&lt;/b&gt;" in ui.header.value
    assert "&lt;script&gt;alert(&#x27;doc&#x27;)&lt;/script&gt;" in ui.table.value
    assert "&lt;script&gt;alert(2)&lt;/script&gt; &amp; more" in ui.table.value
    assert "&lt;i&gt;title&lt;/i&gt;" in ui.table.value and "&quot;quoted&quot;" in ui.table.value
    for raw in ("<img", "<script", "<q>", "<b>sys", "<i>title"):
        assert raw not in shown, raw
    # the select shows plain text (its labels are not HTML), the value is the id
    assert ui.query.value == "<q>" and XSS_QUERY in ui.query.options[0][0]


def test_playground_model_returns_data_not_html():
    model = widgets.PlaygroundModel(n=10, relevant=[2, 5], unretrieved=1)
    assert all(isinstance(v, float) for v in model.measures().values())
    sentences = model.explanation()
    assert isinstance(sentences, list) and len(sentences) == 3
    assert all(isinstance(t, str) and "<" not in t for t in sentences)
    assert sentences[0] == "The first relevant result is at rank 2, so RR@10 = 1/2 = 0.5000."
    assert "invisible to RR" in sentences[1] and "keep R@10 below 1" in sentences[2]


def test_explorer_model_returns_data_not_html(small):
    run, qrels, queries, documents = small
    model = widgets.ExplorerModel(run, qrels, queries=queries, documents=documents)
    data = [
        model.worst_first("A", 10),
        model.per_query("A", 10),
        model.top("A", "q1", 10),
        model.query_measures("A", "q1", 10),
        model.system_means("A", 10),
        model.status("A", 10),
    ]
    assert [type(d) for d in data] == [pd.DataFrame] * 3 + [dict] * 3
    assert model.system_means("A", 10)["RR@10"] == pytest.approx((0 + 1 / 3 + 1 + 1) / 4)
    assert model.status("A", 10, search="first") == {
        "listed": 1, "total": 4, "failing": 1, "failure_measure": "RR@10", "unjudged": 0, "closed_world": False,
    }  # fmt: skip
    values = [v for d in data[:3] for v in d.to_numpy().ravel()] + [v for d in data[3:] for v in d.values()]
    assert not [v for v in values if isinstance(v, str) and "<" in v]
    assert not [name for name in dir(model) if name.endswith("_html")]


def test_render_escapes_user_strings():
    evil = "<script>alert(1)</script>"
    header = render.query_header(evil, system=evil, text=evil)
    table = pd.DataFrame(
        {"rank": [1], "doc_id": [evil], "relevance": pd.array([1], dtype="Int64"), "relevant": [True],
         "title": [evil], "text": [evil]}
    )  # fmt: skip
    rows = render.ranked_list_table(table)
    measures = render.measure_table({evil: 0.5}, {evil: 0.25}, 1)
    status = render.status_line(
        {"listed": 1, "total": 1, "failing": 0, "failure_measure": evil, "unjudged": 0, "closed_world": False},
        note=evil,
    )
    card = render.explanation([evil]) + render.query_option(0.5, evil, evil)
    for html in (header, rows, measures, status, render.explanation([evil])):
        assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert header.count("&lt;script&gt;") == 3  # query id, system name and query text
    assert rows.count("&lt;script&gt;") == 4  # doc id, title, snippet and its tooltip
    assert render.escape('<a href="x">') == "&lt;a href=&quot;x&quot;&gt;"
    assert evil in card  # a Select's option labels are plain text, not HTML


def test_explore_columns_mapping_is_forwarded(small):
    run, qrels, _, _ = small
    renamed = run.rename(columns={"doc_id": "docno_x", "score": "sim"})
    ui = widgets.explore(renamed, qrels, columns={"doc": "docno_x", "score": "sim"}, system="A")
    expected = widgets.explore(run, qrels, system="A")
    assert ui.model.worst_first("A", 10).equals(expected.model.worst_first("A", 10))
    assert ui.model.ranked("A", "q1")["doc_id"].tolist() == ["d1", "d2", "d3"]
    with pytest.raises(InputError, match="unknown role 'dco'. Did you mean 'doc'"):
        widgets.explore(run, qrels, columns={"dco": "doc_id"})
    # the query and system columns can be named too: query= and system= are values, never column names
    topic = widgets.explore(
        run.rename(columns={"query_id": "topic", "system": "runid"}),
        qrels,
        columns={"query": "topic", "system": "runid"},
        system="A",
    )
    assert topic.model.worst_first("A", 10).equals(expected.model.worst_first("A", 10))
    assert topic.model.ranked("A", "q1")["doc_id"].tolist() == ["d1", "d2", "d3"]


def test_explore_order_and_score_dtype_reach_evaluate():
    run = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [1.0, 2.0], "rank": [1, 2]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    by_score = widgets.ExplorerModel(run, qrels)
    by_rank = widgets.ExplorerModel(run, qrels, order="rank", score_dtype="float32")
    assert by_score.query_measures(None, "q", 10)["RR@10"] == 0.5
    assert by_rank.query_measures(None, "q", 10)["RR@10"] == 1.0
    assert by_rank.ranked(None, "q")["doc_id"].tolist() == ["a", "b"]


def test_explore_reads_query_texts_by_the_shared_rules(small):
    run, qrels, _, _ = small
    indexed = pd.DataFrame({"question": ["why first", "why second"]}, index=pd.Index(["q1", "q2"], name="query_id"))
    model = widgets.ExplorerModel(run, qrels, queries=indexed)
    assert model.query_text("q1") == "why first" and model.query_text("q3") == ""


def test_explorer_leaves_inputs_unchanged(small):
    run, qrels, queries, documents = small
    copies = [frame.copy(deep=True) for frame in small]
    ui = widgets.explore(run, qrels, queries=queries, documents=documents, system="A")
    ui.k.value = 2
    ui.system.value = "B"
    ui.next_failure.click()
    ui.search.value = "third"
    for before, after in zip(copies, small):
        pd.testing.assert_frame_equal(before, after)


def test_explorers_share_no_state(small):
    run, qrels, _, _ = small
    a = widgets.explore(run, qrels, system="A")
    b = widgets.explore(run, qrels, system="A")
    a.k.value = 1
    a.search.value = "q1"
    assert b.k.value == 10 and len(b.query.options) == 4
    assert a.model is not b.model


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"system": "C"}, InputError, r"unknown system 'C'; the run has 'A', 'B'"),
        ({"measure": "RR@5", "k": 10}, InputError, r"measure=.RR@5. and k=10 disagree.*measure=.RR@k. with k=10"),
        ({"measure": "MRRR@10"}, InputError, "Unknown measure"),
        # a real cutoff is not a rank: it was passed on as the slider's k ("'k' parameter ... Got 0.5")
        ({"measure": "IPrec@0.5"}, InputError, r"measure='IPrec@0\.5' has a cutoff that is not a rank \(0\.5\)"),
        ({"k": 0}, InputError, "'k' parameter of explore"),
        (
            {"queries": pd.DataFrame({"id": ["q1"], "words": ["x"]})},
            InputError,
            "queries must be a DataFrame with a query id",
        ),
        ({"queries": ["q1"]}, InputError, "queries must be a DataFrame"),
        ({"documents": pd.DataFrame({"doc_id": ["d1"]})}, InputError, "documents needs .* a 'text' column"),
        ({"documents": {"d1": "x"}}, InputError, "documents must be a DataFrame"),
        ({"colour": "red"}, TypeError, "unexpected keyword argument 'colour'"),
    ],
)
def test_explore_rejects_bad_input(small, kwargs, error, match):
    run, qrels, _, _ = small
    with pytest.raises(error, match=match):
        widgets.explore(run, qrels, **kwargs)


def test_explore_rejects_empty_or_non_frame_run(small):
    _, qrels, _, _ = small
    with pytest.raises(InputError, match="the run is empty"):
        widgets.explore(pd.DataFrame({"query_id": [], "doc_id": [], "score": []}), qrels)
    with pytest.raises(InputError, match="must be a pandas DataFrame"):
        widgets.explore([("q1", "d1", 1.0)], qrels)
    single = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(InputError, match="no system column"):
        widgets.explore(single, qrels, system="A")


def test_explore_closed_world_warns_once_and_says_so():
    run = pd.DataFrame(
        {"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "z"], "score": [2.0, 1.0, 1.0], "relevance": [0, 1, 0]}
    )
    with pytest.warns(ClosedWorldWarning):
        ui = widgets.explore(run)
    # later recomputations do not warn again (the suite turns rankviz warnings into errors)
    ui.k.value = 1
    ui.next_failure.click()
    assert "closed world" in ui.status.value
    assert ui.system.disabled


def test_explore_relevance_vectors_shape():
    table = pd.DataFrame(
        {
            "query": ["refund policy", "opening hours"],
            "relevance": [[False, False, True], [True, False, False]],
            "n_relevant": [1, 1],
        }
    )
    ui = widgets.explore(table, k=3)
    assert ui.query.value == "refund policy"
    assert len(table_rows(ui.table.value)) == 3
    assert "rankviz-relevant" in table_rows(ui.table.value)[2]
    assert ui.k.max == 3


def test_explore_integer_ids_warn_once():
    run = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["b", "c"], "relevance": [1, 1]})
    with pytest.warns(IdTypeWarning):
        ui = widgets.explore(run, qrels)
    ui.select("1")
    assert len(table_rows(ui.table.value)) == 2
    assert "rankviz-relevant" in table_rows(ui.table.value)[1]


def test_accessor_explore_on_the_builtin_example():
    run, qrels, queries = load_example()
    documents = load_example_documents()
    ui = run.rank.explore(qrels=qrels, queries=queries, documents=documents, system="bm25")
    assert isinstance(ui, widgets.Explorer)
    assert ui.system.options == ("bm25", "bm25+rerank", "rrf", "tfidf")
    assert len(ui.query.options) == 600
    assert len(table_rows(ui.table.value)) == 10
    ui.k.value = 5
    assert len(table_rows(ui.table.value)) == 5
    first = ui.query.value
    assert ui.model.query_measures("bm25", first, 5)["RR@5"] == 0.0
    visited = [ui.show_next_failure() for _ in range(3)]
    assert first not in visited and len(set(visited)) == 3
    assert all(ui.model.query_measures("bm25", q, 5)["RR@5"] == 0.0 for q in visited)
    mrr = rankviz.mrr(run[run.system == "bm25"].drop(columns="system"), qrels, k=5)
    assert f">{mrr:.4f}<" in ui.measures.value  # the system's mean next to the query's value
    assert ui.k.max == 100


def test_import_rankviz_does_not_import_widgets():
    code = "import sys, rankviz; print('rankviz.widgets' in sys.modules, 'ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


# ----------------------------------------------------------------------------- the notebook


def test_notebook_is_committed_without_outputs():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)
    assert "from rankviz.widgets import playground" in "".join(c.source for c in code)
    assert not any("rankviz._" in c.source for c in code)  # public API only


def test_reprs_say_what_the_widgets_show(small):
    """The text/plain fallback of a notebook rendered without a kernel (the HTML reports)."""
    run, qrels, _, _ = small
    assert repr(widgets.playground(n=5, relevant=[2])) == "Playground(n=5, relevant=[2], k=5, unretrieved=0)"
    ui = widgets.explore(run, qrels, system="B", k=3)
    assert repr(ui) == "Explorer(system='B', query='q2', k=3, worst by 'RR@k', 4 queries listed)"
    assert ui._repr_mimebundle_()["text/plain"] == repr(ui)


def test_sorting_the_run_in_place_after_explore_changes_nothing_shown(small):
    """A regression: cached row positions pointed into the caller's frame, which the user then re-ordered in place."""
    run, qrels, _, _ = small
    frame = run.copy()
    model = widgets.ExplorerModel(frame, qrels)
    reference = widgets.ExplorerModel(run.copy(), qrels)
    frame.iloc[:, :] = frame.iloc[::-1].to_numpy()  # the caller re-orders their own frame in place
    for system in reference.systems or (None,):
        for query in reference.worst_first(system, 10)["query_id"]:
            expected = reference.ranked(system, query)[["rank", "doc_id"]]
            pd.testing.assert_frame_equal(model.ranked(system, query)[["rank", "doc_id"]], expected)


def test_ranked_list_marks_and_counts_unjudged_items():
    """Items outside the qrels and items judged with a negative grade (trec_eval: unjudged) are marked and counted."""
    from rankviz.widgets.render import ranked_list_table

    table = pd.DataFrame(
        {
            "rank": [1, 2, 3, 4],
            "doc_id": ["a", "b", "c", "d"],
            "relevance": pd.array([None, -1, 1, 0], dtype="Int64"),
            "relevant": [False, False, True, False],
        }
    )
    html = ranked_list_table(table)
    assert html.count('class="rankviz-nonrelevant rankviz-unjudged"') == 2
    assert "unjudged (-1)" in html and "2 of these 4 items are unjudged." in html
    assert "unjudged" not in ranked_list_table(table.iloc[2:])


# ----------------------------------------------------------------------------- static snapshots

VIEW = "application/vnd.jupyter.widget-view+json"


def test_playground_bundle_has_the_view_and_a_static_snapshot():
    ui = widgets.playground(n=10, relevant=[3])
    bundle = ui._repr_mimebundle_()
    assert VIEW in bundle and "text/html" in bundle  # a live kernel shows the view, a rendered page the snapshot
    page = bundle["text/html"]
    assert re.search(r'rankviz-mrr">.*?class="rankviz-number"[^>]*>0\.3333<', page)
    assert 'rankviz-toggle-3 rankviz-on" aria-pressed="true"' in page and "k = 10" in page
    assert "<script src" not in page and "http" not in page  # nothing loaded from anywhere


def test_playground_states_are_the_models_numbers():
    model = widgets.PlaygroundModel(n=4, relevant=[2], k=3, unretrieved=1)
    table = model.toggle_states()
    assert table["mask"] == 0b10 and len(table["values"]) == 16
    for mask in (0, 0b1, 0b101, 0b1111):
        probe = widgets.PlaygroundModel(n=4, relevant=[i + 1 for i in range(4) if mask >> i & 1], k=3, unretrieved=1)
        assert table["values"][mask] == pytest.approx(list(probe.measures().values()))
        assert table["sentences"][mask] == probe.explanation()
    states = render.playground_states(model.FAMILIES, table)
    first = states["states"][0b1]  # rank 1 relevant: RR = 1
    assert first[0] == 1.0 and states["sentences"][first[-1][0]].startswith("The first relevant result is at rank 1")
    assert widgets.PlaygroundModel(n=11).toggle_states() is None


def test_playground_snapshot_script_data_cannot_close_the_script():
    assert "</" not in render._json_for_script({"a": "</script><b>"})


def test_explorer_bundle_has_a_static_snapshot_of_the_shown_query(small):
    run, qrels, queries, documents = small
    ui = widgets.explore(run, qrels, queries=queries, documents=documents, system="A", k=2)
    bundle = ui._repr_mimebundle_()
    assert VIEW in bundle
    page = bundle["text/html"]
    first = page.index('class="rankviz-panel"')
    assert ui.query.value in page[first : first + 400]  # the selected query is the first, visible panel
    assert page.count('class="rankviz-panel"') == page.count('class="rankviz-panel-table"') == len(ui.query.options)
    assert "system: A" in page and '<span class="widget-readout">2</span>' in page
    assert len(re.findall(r"<tr class=\"rankviz-(?:non)?relevant", page)) <= 2 * len(
        ui.query.options
    )  # top k = 2 rows each
    assert 'data-failure="1"' in page and "next failure" in page


def test_explorer_snapshot_escapes_every_user_string():
    run = pd.DataFrame(
        {"system": ["<b>sys</b>"] * 2, "query_id": ["<q>", "<q>"], "doc_id": [XSS_DOC, "plain"], "score": [2.0, 1.0]}
    )
    qrels = pd.DataFrame({"query_id": ["<q>"], "doc_id": [XSS_DOC], "relevance": [1]})
    queries = pd.DataFrame({"query_id": ["<q>"], "text": [XSS_QUERY]})
    documents = pd.DataFrame({"doc_id": [XSS_DOC, "plain"], "title": ['"t" <i>x</i>', "t"], "text": [XSS_TEXT, "x"]})
    page = widgets.explore(run, qrels, queries=queries, documents=documents).snapshot_html()
    for raw in ("<img", "<script>alert", "<q>", "<b>sys", "<i>x"):
        assert raw not in page, raw
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;b&gt;sys&lt;/b&gt;" in page


def test_explore_takes_the_evaluation_options_and_its_lists_follow_them():
    run, qrels, _ = load_example()
    ui = run.rank.explore(qrels=qrels, depth=5, system="bm25")  # was a TypeError: explore took no depth
    query = ui.model.worst_first("bm25", 10)["query_id"].iloc[0]
    listed = ui.model.ranked("bm25", query)
    assert len(listed) <= 5
    expected = rankviz.evaluate(run[run.system == "bm25"], ["RR@10"], qrels, per_query=True, depth=5)
    value = expected.set_index("query_id").loc[query, "RR@10"]
    assert ui.model.query_measures("bm25", query, 10)["RR@10"] == value
    with pytest.raises(rankviz.UnknownOptionError, match="'dpeth'.*Did you mean 'depth'"):
        run.rank.explore(qrels=qrels, dpeth=5)
