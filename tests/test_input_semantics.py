"""Input semantics: one regression test per item of issues 23 ("Trust, second round") and 27 ("A newcomer's
first hour") about how rankviz reads what it is given."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankviz

# The reproducer of issue 23 item 1: x unjudged, b 0, a 1, c -1, z 2 unretrieved.
RUN = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["x", "b", "a", "c"], "score": [4.0, 3.0, 2.0, 1.0]})
QRELS = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["b", "a", "c", "z"], "relevance": [0, 1, -1, 2]})


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.RankvizWarning)
        return call()


# ------------------------------------------------------------------ issue 23


@pytest.mark.parametrize("level", [-1, -2, -7])
def test_negative_rel_is_refused_not_read_as_rel_0(level):
    # trec_eval -c -l -1 gives RR 1.0, P@5 0.6, R@5 1.0 here (the unjudged x counts as relevant) and -l -2 a
    # recall of 1.33; rankviz gave the rel=0 numbers (0.5, 0.4, 0.667) under the label RR(rel=-1).
    with pytest.raises(rankviz.InputError, match=rf"'rel' parameter of evaluate must be an int >= 0\. Got {level}"):
        rankviz.evaluate(RUN, ["RR", "P@5", "R@5"], QRELS, rel=level)
    with pytest.raises(rankviz.InputError, match=r"'rel' parameter of RR must be an int >= 0.*Pass rel=0"):
        rankviz.evaluate(RUN, [f"RR(rel={level})"], QRELS)
    with pytest.raises(rankviz.InputError, match=r"must be an int >= 0"):
        rankviz.Measure("P", cutoff=5, rel=level)


def test_rel_0_stays_trec_eval_l_0():
    got = rankviz.evaluate(RUN, ["RR", "P@5", "R@5"], QRELS, rel=0)
    assert got.iloc[0].tolist() == pytest.approx([0.5, 0.4, 2 / 3])  # trec_eval -c -l 0


def test_relevant_as_a_series_of_grades_indexed_by_doc_id():
    frame = pd.DataFrame({"query_id": ["q"], "retrieved": [["a", "b", "c"]], "relevant": [pd.Series({"b": 1, "c": 2})]})
    got = rankviz.evaluate(frame, ["RR", "nDCG"], per_query=True)
    as_dict = rankviz.evaluate(frame.assign(relevant=[{"b": 1, "c": 2}]), ["RR", "nDCG"], per_query=True)
    assert got["RR"].item() == 0.5
    pd.testing.assert_frame_equal(got, as_dict)
    # a Series of ids (default index) is still a list of ids
    ids = pd.DataFrame({"query_id": ["q"], "retrieved": [["a", "b", "c"]], "relevant": [pd.Series(["c"])]})
    assert rankviz.evaluate(ids, ["RR"])["RR"].item() == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "make",
    [
        lambda: (RUN, QRELS.assign(relevance=QRELS["relevance"].astype(complex))),
        lambda: (RUN.assign(relevance=np.array([1 + 5j, 0, 0, 0])), None),
        lambda: (RUN.assign(score=RUN["score"].astype(complex)), QRELS),
        lambda: (RUN.assign(doc_id=np.array([1j, 2j, 3j, 4j])), QRELS),
        lambda: (pd.DataFrame({"query_id": ["q"], "retrieved": [["a", "b"]], "relevant": [{"b": 1 + 5j}]}), None),
        lambda: (pd.DataFrame({"query_id": ["q"], "relevance": [[0, 1 + 5j]]}), None),
    ],
    ids=["qrels grades", "run grades", "scores", "doc ids", "relevant dict", "vector"],
)
def test_complex_values_are_refused(make):
    run, qrels = make()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's ComplexWarning was all the user got
        with pytest.raises(rankviz.InputError, match=r"complex|\(1\+5j\)"):
            rankviz.evaluate(run, ["RR"], qrels)


def test_two_columns_named_score_is_a_column_error():
    run = pd.concat([RUN, RUN[["score"]]], axis=1)
    with pytest.raises(rankviz.ColumnError, match=r"The run has 2 columns named 'score' \(the score column\)"):
        rankviz.evaluate(run, ["RR"], QRELS)
    lists = pd.DataFrame({"query_id": ["q"], "retrieved": [["a"]], "relevant": [["a"]]})
    lists = pd.concat([lists, lists[["retrieved"]]], axis=1)
    with pytest.raises(rankviz.ColumnError, match=r"2 columns named 'retrieved'"):
        rankviz.evaluate(lists, ["RR"])


@pytest.mark.parametrize("grade", [float("inf"), float("-inf"), np.float64("inf")])
def test_infinite_grade_in_a_relevant_dict(grade):
    frame = pd.DataFrame({"query_id": ["q"], "retrieved": [["a", "b"]], "relevant": [{"b": grade}]})
    with pytest.raises(
        rankviz.InputError, match=r"grade of doc 'b' in the 'relevant' column of row 0 must be an integer"
    ):
        rankviz.evaluate(frame, ["RR"])


@pytest.mark.parametrize("measures", [None, 10, 10.0, {"RR": 10}])
def test_measures_that_are_not_measures(measures):
    with pytest.raises(rankviz.InputError, match=r"measures must be a measure name such as 'RR@10'.*evaluate\(run"):
        rankviz.evaluate(RUN, measures, QRELS)


# ------------------------------------------------------------------ issue 27 item 5: column names of real logs


def test_column_names_of_real_rag_logs():
    log = pd.DataFrame(
        {
            "question": ["how", "why", "how", "why"],
            "retriever": ["bm25", "bm25", "dense", "dense"],
            "retrieved": [["a", "b"], ["c"], ["b"], ["d", "c"]],
            "gold_ids": [["b"], ["c"], ["b"], ["c"]],
        }
    )
    got = rankviz.evaluate(log, ["RR"], per_query=True)
    assert got["system"].tolist() == ["bm25", "bm25", "dense", "dense"]
    assert got["query_id"].tolist() == ["how", "why", "how", "why"]
    assert got["RR"].tolist() == [0.5, 1.0, 1.0, 0.5]
    for name in ("model", "retriever_name"):
        renamed = rankviz.evaluate(log.rename(columns={"retriever": name}), ["RR"])
        assert renamed["system"].tolist() == ["bm25", "dense"]
    # 'question' beside a query id column stays the text; two candidate system columns are ambiguous
    with_id = log.assign(query_id=["q1", "q2", "q1", "q2"])
    assert rankviz.evaluate(with_id, ["RR"], per_query=True)["query_id"].tolist() == ["q1", "q2", "q1", "q2"]
    with pytest.raises(
        rankviz.ColumnError, match=r"several columns that could be the system column.*columns=\{'system'"
    ):
        rankviz.evaluate(log.assign(model="gpt"), ["RR"])


def test_no_query_id_column_is_said_not_silent():
    frame = pd.DataFrame({"retrieved": [["a"], ["b"]], "relevant": [["a"], ["c"]]})
    with pytest.warns(rankviz.QueryIdWarning, match=r"no query-id column.*its 2 rows are numbered '0', '1'"):
        got = rankviz.evaluate(frame, ["RR"], per_query=True)
    assert got["query_id"].tolist() == ["0", "1"]
    vectors = pd.DataFrame({"relevance": [[True], [False, True]]}, index=["q1", "q2"])
    with pytest.warns(rankviz.QueryIdWarning, match=r"the labels of its index \('q1', \.\.\.\) are the query ids"):
        assert rankviz.evaluate(vectors, ["RR"], per_query=True)["query_id"].tolist() == ["q1", "q2"]
    named = vectors.rename_axis("query_id")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rankviz.evaluate(named, ["RR"])["RR"].item() == 0.75


def test_several_systems_without_a_system_column_suggest_columns_system():
    log = pd.DataFrame(
        {"query_id": ["q1", "q1"], "engine": ["bm25", "dense"], "retrieved": [["a"], ["b"]], "relevant": [["a"], ["a"]]}
    )
    with pytest.raises(rankviz.DuplicateError, match=r"columns=\{'system': 'your_column'\}.*'engine'"):
        rankviz.evaluate(log, ["RR"])
    assert rankviz.evaluate(log, ["RR"], columns={"system": "engine"})["RR"].tolist() == [1.0, 0.0]


# ------------------------------------------------------------------ issue 23 item 6: ids spelled differently


@pytest.mark.parametrize("spelling", ["{} ", " {}", "{}\u00a0", "\u200b{}", "{}\ufeff", "{}\t"], ids=repr)
def test_ids_that_match_only_without_spaces_or_invisible_characters(spelling):
    run = RUN.assign(doc_id=[spelling.format(d) for d in RUN["doc_id"]])
    with pytest.warns(
        rankviz.UnmatchedIdsWarning, match=r"3 distinct retrieved doc id\(s\) are not in the qrels but equal"
    ):
        assert rankviz.evaluate(run, ["RR"], QRELS)["RR"].item() == 0.0


def test_ids_that_match_only_ignoring_case_even_when_some_match():
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["x", "B", "a"], "score": [3.0, 2.0, 1.0]})
    with pytest.warns(rankviz.UnmatchedIdsWarning, match=r"the run has 'B' where the qrels have 'b'"):
        assert rankviz.evaluate(run, ["RR"], QRELS)["RR"].item() == pytest.approx(1 / 3)  # 'a' still matches


def test_a_small_run_sharing_no_doc_id_with_the_qrels_warns():
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    with pytest.warns(rankviz.UnmatchedIdsWarning, match=r"No retrieved document of any evaluated query is judged"):
        assert rankviz.evaluate(run, ["RR"], QRELS)["RR"].item() == 0.0


def test_ids_spelled_alike_say_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rankviz.evaluate(RUN, ["RR"], QRELS)["RR"].item() == pytest.approx(1 / 3)


# ------------------------------------------------------------------ issue 23 item 2: a run file with two tags


def test_a_run_file_with_two_tags_is_one_run_as_in_trec_eval_and_the_cli(tmp_path, capsys):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 other\nq1 Q0 c 3 1 other\n")
    qrels = {"q1": {"c": 1}}
    with pytest.warns(
        rankviz.RankvizWarning, match=r"holds 2 run tags \('t', 'other'\); it is read as one run named 'other'"
    ):
        run = rankviz.read_run(path)
    assert run["system"].unique().tolist() == ["other"]
    assert rankviz.mrr(run, qrels=qrels).item() == pytest.approx(1 / 3)  # trec_eval: recip_rank 0.3333
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("q1 0 c 1\n")
    from rankviz.cli import main

    main(["eval", "-m", "recip_rank", str(qrels_path), str(path)])
    printed = capsys.readouterr()
    assert "recip_rank            \tall\t0.3333" in printed.out  # the same reading on both sides
    assert "2 run tags" in printed.err
    split = rankviz.read_run(path, system_from="tag")  # each tag a system, when asked
    assert rankviz.mrr(split, qrels=qrels).to_dict() == {"other": 0.5, "t": 0.0}
    named = rankviz.read_run(path, system_from="file")
    assert named["system"].unique().tolist() == ["run.txt"]
    with pytest.raises(rankviz.InputError, match=r"'system_from' parameter of read_run must be 'run', 'tag' or 'file'"):
        rankviz.read_run(path, system_from="tags")


def test_a_run_file_with_one_tag_says_nothing(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 a 1 3 bm25\nq1 Q0 b 2 2 bm25\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rankviz.read_run(path)["system"].unique().tolist() == ["bm25"]
