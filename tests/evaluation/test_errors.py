"""Bad input gets a clear error naming the column, value or row and the fix: one test per message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz.measures import parse_measure


@pytest.fixture
def run():
    return pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})


@pytest.fixture
def qrels():
    return pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 1]})


def test_missing_query_column(qrels):
    run = pd.DataFrame({"qnum": ["q1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(
        rankviz.ColumnError,
        match=r"no query column: looked for 'query_id', 'qid', 'query', 'question_id', 'question', 'topic'; its columns are 'qnum', 'doc_id', 'score'\. Name it with columns=\{'query': 'your_column'\}",
    ):
        run.rank.mrr(qrels=qrels)


def test_override_column_must_exist(run, qrels):
    with pytest.raises(
        rankviz.ColumnError, match=r"The column 'sc' given as columns=\{'score': 'sc'\} is not in the run"
    ):
        run.rank.mrr(qrels=qrels, columns={"score": "sc"})


def test_old_style_column_keyword_points_to_columns(run, qrels):
    with pytest.raises(
        rankviz.UnknownOptionError,
        match=r"unexpected keyword argument 'score'\. Column names go in one mapping: columns=\{'score': 'your_column'\}",
    ):
        run.rank.mrr(qrels=qrels, score="sc")


def test_unknown_column_role(run, qrels):
    with pytest.raises(
        rankviz.InputError,
        match=r"The 'columns' parameter of mrr has an unknown role 'querry'\. Did you mean 'query'\?",
    ):
        run.rank.mrr(qrels=qrels, columns={"querry": "q"})


def test_ambiguous_columns(qrels):
    run = pd.DataFrame({"query_id": ["q1"], "qid": ["q1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(
        rankviz.ColumnError,
        match=r"several columns that could be the query column: 'query_id', 'qid'\. Say which one with columns=\{'query': 'query_id'\}",
    ):
        run.rank.mrr(qrels=qrels)


def test_no_score_or_rank(qrels):
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"]})
    with pytest.raises(rankviz.ColumnError, match="neither a score nor a rank column"):
        run.rank.mrr(qrels=qrels)


def test_no_judgements(run):
    with pytest.raises(rankviz.InputError, match=r"needs judgements: pass qrels="):
        run.rank.mrr()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_or_infinite_scores(run, qrels, bad):
    run = run.assign(score=[2.0, bad, 1.0])
    with pytest.raises(
        rankviz.InputError, match=r"The score column 'score' has 1 value\(s\) that are NaN or infinite, first at row 1"
    ):
        run.rank.mrr(qrels=qrels)


def test_non_numeric_score(run, qrels):
    with pytest.raises(
        rankviz.InputError,
        match=r"The score column 'score' must be numeric; it has dtype (str|object), first not a number in row 0 "
        r"\('2'\)\. Convert it with pd.to_numeric",
    ):
        run.assign(score=["2", "1", "1"]).rank.mrr(qrels=qrels)


def test_non_numeric_relevance(run):
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": ["yes"]})
    with pytest.raises(
        rankviz.InputError, match=r"must hold integer grades; it has dtype (str|object) \(e\.g\. 'yes'\)"
    ):
        run.rank.mrr(qrels=qrels)


def test_float_grade_says_what_happens_to_1_5(run):
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1.5]})
    with pytest.raises(
        rankviz.InputError, match=r"found 1\.5 \(row 0\)\. trec_eval would truncate 1\.5 to 1; rankviz refuses to guess"
    ):
        run.rank.mrr(qrels=qrels)


def test_integral_float_grades_are_fine(run):
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "x"], "relevance": [1.0, 0.0]})
    assert run.rank.mrr(qrels=qrels) == 0.25


def test_missing_grade_in_qrels(run):
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [np.nan]})
    with pytest.raises(rankviz.InputError, match=r"has a missing grade \(row 0\)"):
        run.rank.mrr(qrels=qrels)


@pytest.mark.parametrize("k", [0, -3])
def test_k_below_one(run, qrels, k):
    with pytest.raises(
        rankviz.InputError,
        match=rf"The 'k' parameter of mrr must be an int in the range \[1, inf\) or None\. Got {k} instead\.",
    ):
        run.rank.mrr(k=k, qrels=qrels)


@pytest.mark.parametrize("k", [1.5, "10", True])
def test_k_not_an_integer(run, qrels, k):
    with pytest.raises(
        rankviz.InputError, match=r"The 'k' parameter of recall must be an int in the range \[1, inf\)\. Got"
    ):
        run.rank.recall(qrels, k=k)


def test_empty_frame(qrels):
    with pytest.raises(rankviz.InputError, match=r"The run is empty \(0 rows\)"):
        pd.DataFrame({"query_id": [], "doc_id": [], "score": []}).rank.mrr(qrels=qrels)


def test_empty_qrels(run):
    with pytest.raises(rankviz.InputError, match=r"The qrels is empty"):
        run.rank.mrr(qrels=pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}))


def test_run_and_qrels_share_no_query_int_vs_str():
    run = pd.DataFrame({"query_id": [1, 2], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    with pytest.warns(rankviz.IdTypeWarning):
        with pytest.raises(
            rankviz.InputError,
            match=r"share no query id \(run: '1', '2', \.\.\.; qrels: 'q1', 'q2', \.\.\.\)\. The run's query ids are ints and the qrels' are strs",
        ):
            run.rank.mrr(qrels=qrels)


def test_float_ids_refused(qrels):
    run = pd.DataFrame({"query_id": [1.0, 2.0], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    with pytest.raises(
        rankviz.InputError, match=r"are floats \(float64\); ids must be strings or integers.*astype\('int64'\)"
    ):
        run.rank.mrr(qrels=qrels)


def test_missing_id(qrels):
    run = pd.DataFrame({"query_id": ["q1", None], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    with pytest.raises(rankviz.InputError, match=r"has a missing query id \(row 1\)"):
        run.rank.mrr(qrels=qrels)


def test_unknown_measure_suggests_closest(run, qrels):
    with pytest.raises(rankviz.UnknownMeasureError, match=r"Unknown measure 'nDGC@10'\. Did you mean 'nDCG@10'\?"):
        run.rank.evaluate(["nDGC@10"], qrels=qrels)
    with pytest.raises(rankviz.UnknownMeasureError, match=r"Did you mean 'recall'"):
        parse_measure("recal@10")


def test_measure_needs_cutoff(run, qrels):
    with pytest.raises(rankviz.InputError, match=r"P needs a cutoff: write it as P@k, for example 'P@10'"):
        run.rank.evaluate(["P"], qrels=qrels)


def test_measure_bad_parameter():
    with pytest.raises(rankviz.InputError, match=r"nDCG takes no 'rel' parameter"):
        parse_measure("nDCG(rel=2)@10")
    with pytest.raises(rankviz.InputError, match=r"RR takes no 'gain' parameter \(it takes: rel\)"):
        parse_measure("RR(gain='exp')")


def test_duplicate_run_rows_named(qrels):
    run = pd.DataFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(
        rankviz.DuplicateError,
        match=r"same document more than once for a query \(1 repeated rows\): query 'q1', doc 'a'\. trec_eval refuses",
    ):
        run.rank.mrr(qrels=qrels)


def test_duplicate_qrels_rows_named(run):
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "b"], "relevance": [1, 0]})
    with pytest.raises(
        rankviz.DuplicateError, match=r"judge the same \(query, doc\) pair more than once: \('q1', 'b'\)"
    ):
        run.rank.mrr(qrels=qrels)


def test_unknown_keyword_suggests(run, qrels):
    with pytest.raises(TypeError, match=r"mrr\(\) got an unexpected keyword argument 'dept'\. Did you mean 'depth'\?"):
        run.rank.mrr(qrels=qrels, dept=10)


@pytest.mark.parametrize(
    "option, value, message",
    [
        (
            "missing",
            "skip",
            r"The 'missing' parameter of mrr must be one of 'zero', 'drop', 'error'\. Got 'skip' instead\.",
        ),
        ("duplicates", "last", r"The 'duplicates' parameter of mrr must be one of 'error', 'first'"),
        (
            "ties",
            "random",
            r"The 'ties' parameter of mrr must be one of 'trec_eval', 'expected', 'optimistic', 'pessimistic'",
        ),
        ("depth", 0, r"The 'depth' parameter of mrr must be an int in the range \[1, inf\) or None\. Got 0"),
        ("order", "docid", r"The 'order' parameter of mrr must be one of 'score', 'rank' or None\. Got 'docid'"),
        ("score_dtype", "float16", r"The 'score_dtype' parameter of mrr must be one of 'float64', 'float32'"),
    ],
)
def test_bad_options(run, qrels, option, value, message):
    with pytest.raises(rankviz.InputError, match=message):
        run.rank.mrr(qrels=qrels, **{option: value})


def test_missing_error_policy_names_query(qrels):
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "score": [1.0]})
    with pytest.raises(
        rankviz.InputError, match=r"query 'q2' in the run\. Pass missing='zero' to score them 0 \(trec_eval -c\)"
    ):
        run.rank.mrr(qrels=qrels, missing="error")


def test_lists_shape_with_qrels_refused(qrels):
    lists = pd.DataFrame({"query_id": ["q1"], "retrieved": [["a"]], "relevant": [["a"]]})
    with pytest.raises(rankviz.InputError, match="do not also pass qrels="):
        lists.rank.mrr(qrels=qrels)


def test_lists_shape_bad_cells():
    lists = pd.DataFrame({"query_id": ["q1"], "retrieved": ["a"], "relevant": [["a"]]})
    with pytest.raises(
        rankviz.InputError, match=r"The 'retrieved' column must hold lists of retrieved ids; row 0 holds str 'a'"
    ):
        lists.rank.mrr()
    unordered = pd.DataFrame({"query_id": ["q1"], "retrieved": [{"a", "b"}], "relevant": [["a"]]})
    with pytest.raises(rankviz.InputError, match="is a set, which has no order"):
        unordered.rank.mrr()


def test_vectors_n_relevant_too_small():
    table = pd.DataFrame({"query_id": ["q1"], "relevance": [[True, True]], "n_relevant": [1]})
    with pytest.raises(rankviz.InputError, match=r"has n_relevant=1 but 2 relevant items in its vector"):
        table.rank.recall(k=2)


def test_ranked_list_needs_system_only_when_the_run_holds_several():
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 1.0], "system": ["s", "t"]})
    with pytest.raises(rankviz.InputError, match=r"holds 2 systems; choose one with system=, e\.g\. system='s'"):
        rankviz.ranked_list(run, "q", {"q": {"a": 1}})
    assert rankviz.ranked_list(run[run["system"] == "s"], "q", {"q": {"a": 1}})["doc_id"].tolist() == ["a"]


def test_non_dataframe_run():
    with pytest.raises(rankviz.InputError, match=r"The run must be a pandas DataFrame\. Got list instead\."):
        rankviz.mrr([1, 2, 3])
