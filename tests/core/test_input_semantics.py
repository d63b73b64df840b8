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
        assert renamed.index.tolist() == ["bm25", "dense"] and renamed.index.name == "system"
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


# ------------------------------------------------------------------ issue 27 items 3 and 4: the closed world

MEASURES = ["Judged@3", "Bpref", "RR", "AP", "nDCG@3", "R@3", "P@3"]
LISTS = pd.DataFrame(
    {"query_id": ["q1", "q2"], "retrieved": [["a", "b", "c"], ["d", "e"]], "relevant": [["b", "z"], ["e"]]}
)
VECTORS = pd.DataFrame(
    {"query_id": ["q1", "q2"], "relevance": [[False, True, False], [False, True]], "n_relevant": [2, 1]}
)
LONG = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": list("abcde"), "score": [3.0, 2, 1, 2, 1]})
LONG_QRELS = pd.DataFrame(  # every retrieved id judged: the gold as 1, the rest as 0
    {"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": list("abcz") + list("de"), "relevance": [0, 1, 0, 1, 0, 1]}
)


@pytest.mark.parametrize("judged_only", [False, True])
def test_lists_vectors_and_a_long_frame_with_qrels_agree(judged_only):
    got = {
        name: _quiet(lambda x=x, q=q: rankviz.evaluate(x, MEASURES, q, per_query=True, judged_only=judged_only))
        for name, x, q in (("lists", LISTS, None), ("vectors", VECTORS, None), ("long", LONG, LONG_QRELS))
    }
    want = [[1.0, 0.25, 0.5, 0.25, 0.38685, 0.5, 1 / 3], [1.0, 0.0, 0.5, 0.5, 0.63093, 1.0, 1 / 3]]
    for name, table in got.items():
        assert table[MEASURES].to_numpy() == pytest.approx(np.asarray(want), abs=5e-6), name
    # lists used to give Judged@3 1/3 and 1/2 (ids not in the gold were unjudged) and, judged_only, RR 1 and 1


def test_a_rag_summary_is_fully_judged():
    s = rankviz.summary(LISTS, k=3, confidence_level=None)
    assert s["Judged@3"].item() == 1.0


def test_gold_lists_of_several_systems_do_not_lean_on_each_other():
    two = pd.concat([LISTS.assign(system="a"), LISTS.assign(system="b", retrieved=[["y", "z"], ["e"]])])
    alone = rankviz.evaluate(LISTS, ["Bpref", "R@3", "nDCG@3"])
    both = rankviz.evaluate(two, ["Bpref", "R@3", "nDCG@3"])
    assert both.iloc[0].tolist() == alone.iloc[0].tolist()  # system a's numbers unmoved by system b


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame(
            {"query_id": ["q1", "q2", "q3"], "retrieved": [["a"], ["b"], ["c"]], "relevant": [["a"], [], None]}
        ),
        pd.DataFrame(
            {"query_id": ["q1", "q2", "q3"], "retrieved": [["a"], ["b"], ["c"]], "relevant": [["a"], set(), np.nan]}
        ),
        pd.DataFrame({"query_id": ["q1", "q2", "q3"], "relevance": [[True], None, [np.nan, None]]}),
    ],
    ids=["empty list and None", "empty set and NaN", "vectors"],
)
def test_queries_without_gold_are_unannotated_counted_and_left_out(frame):
    copy = frame.copy(deep=True)
    with pytest.warns(
        rankviz.UnannotatedWarning, match=r"2 queries have no gold ids at all.*'q2', 'q3'.*unannotated='zero'"
    ):
        table = rankviz.evaluate(frame, ["RR"], per_query=True)
    assert table["query_id"].tolist() == ["q1"] and table["RR"].tolist() == [1.0]
    assert table.attrs["rankviz"]["unannotated"] == ("q2", "q3")
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankviz.UnannotatedWarning)
        kept = rankviz.evaluate(frame, ["RR"], per_query=True, unannotated="zero")
    assert kept["RR"].tolist() == [1.0, 0.0, 0.0]
    pd.testing.assert_frame_equal(frame, copy)


def test_the_summary_counts_unannotated_queries():
    frame = pd.DataFrame({"query_id": ["q1", "q2"], "retrieved": [["a"], ["b"]], "relevant": [["a"], []]})
    with pytest.warns(rankviz.UnannotatedWarning, match="1 query has no gold ids"):
        s = rankviz.summary(frame, k=3, confidence_level=None)
    assert s["n_unannotated"].item() == 1 and s["n_queries"].item() == 1 and s["n_unjudged_in_run"].item() == 1
    with pytest.raises(rankviz.InputError, match=r"'unannotated' parameter of evaluate must be one of 'drop', 'zero'"):
        rankviz.evaluate(frame, ["RR"], unannotated="keep")


def test_an_empty_vector_retrieved_nothing_and_counts():
    frame = pd.DataFrame({"query_id": ["q1", "q2"], "relevance": [[True], []]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankviz.UnannotatedWarning)
        assert rankviz.evaluate(frame, ["RR"], per_query=True)["RR"].tolist() == [1.0, 0.0]
