"""The three input shapes give the same numbers, and the seed examples come out right."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rankviz

SEED = {
    "how do I reset my password": [False, True, False, True],
    "what are your opening hours": [True, True, False, False],
    "do you ship to Canada": [False, False, False, True],
    "refund policy": [False, False, False, False],
    "contact support": [True, False, False, False],
}


@pytest.fixture
def seed():
    return pd.DataFrame({"query": list(SEED), "relevance": list(SEED.values())})


def test_seed_five_queries(seed):
    assert math.isclose(seed.rank.mrr(), 0.55)
    summary = seed.rank.summary(k=10, confidence_level=None)
    assert math.isclose(summary["RR@10"].iloc[0], 0.55)
    assert math.isclose(summary["nonzero_mean"].iloc[0], 0.6875)
    assert math.isclose(summary["zero_share"].iloc[0], 0.20)
    assert summary.attrs["rankviz"]["closed_world"]
    assert summary.T.round(4).dtypes.map(lambda d: d.kind).eq("f").all()  # every column numeric: .T.round(4) rounds
    # MRR = (1 - zero share) x MRR over non-zero queries
    assert math.isclose(0.55, (1 - 0.2) * 0.6875)


def test_seed_first_hits_1_3_2_none():
    table = pd.DataFrame({"relevance": [[True], [False, False, True], [False, True], [False, False, False]]})
    with pytest.warns(rankviz.QueryIdWarning, match="numbered '0', '1'"):  # no query id column: said, not silent
        assert round(table.rank.mrr(), 4) == 0.4583
    table = table.rename_axis("query_id")
    ranks = table.rank.first_relevant_rank()
    assert ranks.tolist()[:3] == [1, 3, 2] and ranks.isna().tolist() == [False, False, False, True]


def test_dict_of_vectors_at_module_level():
    assert math.isclose(rankviz.mrr(SEED), 0.55)
    assert rankviz.evaluate(SEED, ["RR"], per_query=True)["query_id"].tolist() == list(SEED)


def _long_equivalent():
    run = pd.DataFrame(
        {
            "query_id": ["a"] * 4 + ["b"] * 3 + ["c"] * 2,
            "doc_id": ["d1", "d2", "d3", "d4", "e1", "e2", "e3", "f1", "f2"],
            "score": [4.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    qrels = pd.DataFrame(
        {
            "query_id": ["a", "a", "a", "b", "c", "d"],
            "doc_id": ["d2", "d4", "x9", "e3", "f1", "y"],
            "relevance": [2, 1, 1, 1, 0, 1],
        }
    )
    return run, qrels


MEASURES = ["RR", "RR@2", "AP", "nDCG", "nDCG@3", "P@2", "R@2", "Success@1", "Rprec"]


def test_lists_shape_equals_long_shape():
    run, qrels = _long_equivalent()
    long = rankviz.evaluate(run, MEASURES, qrels, per_query=True).set_index("query_id")
    lists = pd.DataFrame(
        {
            "query_id": ["a", "b", "c", "d"],
            "retrieved": [["d1", "d2", "d3", "d4"], ["e1", "e2", "e3"], ["f1", "f2"], []],
            "relevant": [{"d2": 2, "d4": 1, "x9": 1}, {"e3": 1}, {"f1": 0}, ["y"]],
        }
    )
    short = rankviz.evaluate(lists, MEASURES, per_query=True).set_index("query_id")
    pd.testing.assert_frame_equal(long.loc[["a", "b", "c", "d"]], short)


def test_lists_shape_with_sets_and_system_column():
    lists = pd.DataFrame(
        {
            "system": ["x", "x", "y", "y"],
            "qid": ["q1", "q2", "q1", "q2"],
            "results": [["a", "b"], ["c"], ["b", "a"], ["d", "c"]],
            "gold": [{"b"}, {"c"}, {"b"}, {"c"}],
        }
    )
    values = lists.rank.mrr()
    assert values.to_dict() == {"x": pytest.approx(0.75), "y": pytest.approx(0.75)}
    assert values.name == "RR"
    per_query = lists.rank.evaluate("RR@1", per_query=True)
    assert per_query.set_index(["system", "query_id"])["RR@1"].to_dict() == {
        ("x", "q1"): 0.0,
        ("x", "q2"): 1.0,
        ("y", "q1"): 1.0,
        ("y", "q2"): 0.0,
    }


def test_vectors_with_n_relevant_are_not_closed_world():
    table = pd.DataFrame({"query": ["a", "b"], "relevance": [[True, False], [False, True]], "n_relevant": [4, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        recall = table.rank.evaluate(["R@2", "AP", "nDCG@2"], per_query=True).set_index("query_id")
    assert recall.loc["a", "R@2"] == 0.25 and recall.loc["b", "R@2"] == 1.0
    assert math.isclose(recall.loc["a", "AP"], 1 / 4)
    ideal_a = 1 + 1 / math.log2(3)
    assert math.isclose(recall.loc["a", "nDCG@2"], 1 / ideal_a)


def test_closed_world_recall_warns_and_is_labelled():
    table = pd.DataFrame({"query_id": ["q1", "q2"], "relevance": [[True, False], [False, True]]})
    with pytest.warns(rankviz.ClosedWorldWarning, match="closed world"):
        value = table.rank.recall(k=1)
    assert value == 0.5
    with pytest.warns(rankviz.ClosedWorldWarning):
        result = table.rank.evaluate(["R@1"])
    assert result.attrs["rankviz"]["closed_world"] is True


def test_graded_vectors_ndcg_gains():
    table = pd.DataFrame({"query_id": ["q1"], "relevance": [[0, 2, 1]]})
    with pytest.warns(rankviz.ClosedWorldWarning):
        linear = table.rank.ndcg(k=3)
        exp = table.rank.ndcg(k=3, gain="exponential")
    dcg = 2 / math.log2(3) + 1 / math.log2(4)
    assert math.isclose(linear, dcg / (2 + 1 / math.log2(3)))
    dcg_e = 3 / math.log2(3) + 1 / math.log2(4)
    assert math.isclose(exp, dcg_e / (3 + 1 / math.log2(3)))


def test_long_run_with_relevance_column_closed_world():
    run = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "rank": [1, 2, 1], "label": [0, 1, np.nan]})
    assert run.rank.mrr() == 0.25  # q1: 1/2; q2: its only row is unjudged -> 0


def test_multi_system_series_and_evaluate():
    run, qrels = _long_equivalent()
    both = pd.concat([run.assign(system="s1"), run.assign(system="s2", score=-run["score"])], ignore_index=True)
    values = both.rank.mrr(qrels=qrels)
    assert list(values.index) == ["s1", "s2"] and values.index.name == "system"
    # Issue 27.6: evaluate's means are indexed by system like the single-measure Series (they
    # were a 'system' column before), so a column of evaluate() is what mrr() returns.
    table = both.rank.evaluate(["RR", "AP"], qrels=qrels)
    assert list(table.columns) == ["RR", "AP"] and table.index.name == "system"
    pd.testing.assert_series_equal(table["RR"], values, check_names=False)
    assert table.loc["s1", "RR"] == rankviz.mrr(run, qrels=qrels)


def test_int_ids_match_str_ids_with_one_warning():
    run = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 11, 12], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["11", "12"], "relevance": [1, 1]})
    with pytest.warns(rankviz.IdTypeWarning, match="compares ids as strings") as record:
        value = run.rank.mrr(qrels=qrels)
    assert value == 0.75
    assert len(record) == 1


def test_caller_frames_are_not_modified():
    run, qrels = _long_equivalent()
    run_copy, qrels_copy = run.copy(deep=True), qrels.copy(deep=True)
    rankviz.evaluate(run, MEASURES, qrels, per_query=True)
    run.rank.summary(k=2, qrels=qrels, rng=0, confidence_level=None)
    rankviz.write_run(run, "/dev/null")
    pd.testing.assert_frame_equal(run, run_copy)
    pd.testing.assert_frame_equal(qrels, qrels_copy)


def test_depth_cuts_every_list():
    run, qrels = _long_equivalent()
    full = rankviz.evaluate(run, ["RR", "R@10"], qrels, per_query=True).set_index("query_id")
    cut = rankviz.evaluate(run, ["RR", "R@10"], qrels, per_query=True, depth=1).set_index("query_id")
    assert full.loc["a", "RR"] == 0.5 and cut.loc["a", "RR"] == 0.0
    assert cut.loc["c", "R@10"] == 0.0 and cut.loc["b", "RR"] == 0.0


def test_duplicates_first_keeps_best_ranked():
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["b"], "relevance": [1]})
    with pytest.raises(rankviz.DuplicateError, match="duplicates='first'"):
        run.rank.mrr(qrels=qrels)
    # 'a' keeps its score 3.0, so 'b' is second
    assert run.rank.mrr(qrels=qrels, duplicates="first") == 0.5


def test_ranked_list_follows_trec_eval_order():
    run = pd.DataFrame({"query_id": ["q"] * 5, "doc_id": ["a", "D1", "d10", "d2", "d9"], "score": [5.0] * 5})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d10"], "relevance": [2]})
    listed = rankviz.ranked_list(run, "q", qrels)
    assert listed["doc_id"].tolist() == ["d9", "d2", "d10", "a", "D1"]
    assert listed["relevance"].isna().tolist() == [True, True, False, True, True]
    assert listed["relevant"].tolist() == [False, False, True, False, False]
    assert run.rank.mrr(qrels=qrels) == 1 / 3
