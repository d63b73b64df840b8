"""evaluate and summary say how much of each system's top k a model graded (issue 32, item 2)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import rankviz
from rankviz import ModelLabelsWarning
from rankviz.labels import LabelStore, callable_judge, judge_pairs

RUN = pd.DataFrame(
    {"system": ["a"] * 4 + ["b"] * 4, "query_id": ["q1", "q1", "q1", "q2"] * 2,
     "doc_id": ["d1", "d2", "d3", "e1", "d3", "d4", "d1", "e2"], "score": [3.0, 2.0, 1.0, 1.0] * 2}
)  # fmt: skip
TEXTS = {"q1": "fox", "q2": "sky"}
DOCS = {d: f"text of {d}" for d in ["d1", "d2", "d3", "d4", "e1", "e2"]}


def _by_model(store, pairs):
    judge = callable_judge(lambda p: [1] * len(p), name="ones", scale=(0, 1))
    judge_pairs(judge, pairs, store, queries=TEXTS, documents=DOCS, progress=False)


@pytest.fixture
def store(tmp_path):
    with LabelStore(tmp_path / "labels.sqlite") as opened:
        yield opened


def test_a_store_judged_only_by_a_model_is_said_and_warned(store):
    _by_model(store, [("q1", "d1"), ("q1", "d2"), ("q1", "d3"), ("q1", "d4"), ("q2", "e1")])
    with pytest.warns(ModelLabelsWarning, match=r"top 2 of 'a' \(100%\), 'b' \(100%\)"):
        table = rankviz.evaluate(RUN, ["P@2", "RR@1"], store.path)
    assert table.attrs["rankviz"]["model_share"] == {"a": 1.0, "b": 1.0}
    assert table.attrs["rankviz"]["model_share_k"] == 2


def test_human_labels_lower_the_share_and_silence_the_warning(store):
    _by_model(store, [("q1", "d2"), ("q1", "d3"), ("q1", "d4"), ("q2", "e1"), ("q2", "e2")])
    store.add("q1", "d1", 1, annotator="ann")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelLabelsWarning)
        summary = rankviz.summary(RUN, store.to_qrels(resolve="human_first"), k=2, confidence_level=None)
    # a's top 2: q1 d1 (person), d2 (model); q2 e1 (model) -> 2 of 3; b's: d3, d4, e2 all the model's
    assert summary["model_share@2"].round(6).to_dict() == {"a": round(2 / 3, 6), "b": 1.0}


def test_only_the_top_k_counts(store):
    _by_model(store, [("q1", "d3")])  # rank 3 for a, rank 1 for b
    store.add("q1", "d1", 1, annotator="ann")
    qrels = store.to_qrels()
    table = rankviz.evaluate(RUN, ["P@2"], qrels)
    # b's top 2 in q1: d3 (the model's), d4 (unjudged); its d1 (a person's) at rank 3 does not count
    assert table.attrs["rankviz"]["model_share"] == {"a": 0.0, "b": 1.0}
    one = rankviz.evaluate(RUN[RUN["system"] == "a"].drop(columns="system"), ["P@3"], qrels)
    assert one.attrs["rankviz"]["model_share"] == 0.5


def test_qrels_without_kind_say_nothing():
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelLabelsWarning)
        table = rankviz.evaluate(RUN, ["P@2"], qrels)
        summary = rankviz.summary(RUN, qrels, k=2, confidence_level=None)
    assert "model_share" not in table.attrs["rankviz"]
    assert not any(c.startswith("model_share") for c in summary.columns)
