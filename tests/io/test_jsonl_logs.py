"""RAG logs as JSON lines: repeated grade keys, scores that start late, deep nesting, query attributes, stages."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import rankviz


def _write(tmp_path, text, name="log.jsonl"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _lines(*records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_a_repeated_key_in_a_grades_object_is_refused_naming_line_and_key(tmp_path):
    text = _lines({"query_id": "q0", "retrieved": ["d1"], "relevant": {"d1": 1}})
    text += '{"query_id": "q1", "retrieved": ["d1"], "relevant": {"d2": 2, "d1": 0, "d2": 0}}\n'
    with pytest.raises(rankviz.TrecFormatError, match=r"line 2: .*'d2' appears twice"):
        rankviz.read_jsonl(_write(tmp_path, text))


def test_scores_that_start_after_the_first_record_are_used_and_the_mix_is_said(tmp_path):
    text = _lines(
        {"query_id": "q1", "retrieved": ["a", "b"], "relevant": ["a"]},
        {"query_id": "q2", "retrieved": ["a", "b"], "scores": [1.0, 3.0], "relevant": ["a"]},
    )
    with pytest.warns(rankviz.RankvizWarning, match=r"1 record\(s\) .* no 'scores' \(the first on line 1\)"):
        log = rankviz.read_jsonl(_write(tmp_path, text))
    q2 = log.run[log.run["query_id"] == "q2"].set_index("doc_id")["score"].to_dict()
    assert q2 == {"a": 1.0, "b": 3.0}  # q2's own scores, not its list order
    assert rankviz.evaluate(log.run, ["RR"], log.qrels)["RR"].iloc[0] == pytest.approx((1 + 0.5) / 2)


def test_a_log_whose_records_all_lack_scores_reads_quietly_in_list_order(tmp_path):
    log = rankviz.read_jsonl(_write(tmp_path, _lines({"query_id": "q1", "retrieved": ["a", "b"]})))
    assert log.run["score"].tolist() == [-1.0, -2.0]
    assert log.qrels is None


def test_relevant_ids_that_start_after_the_first_record_are_read(tmp_path):
    text = _lines({"query_id": "q1", "retrieved": ["a"]}, {"query_id": "q2", "retrieved": ["a"], "relevant": ["a"]})
    with pytest.warns(rankviz.RankvizWarning, match="1 record"):
        log = rankviz.read_jsonl(_write(tmp_path, text))
    assert log.qrels[["query_id", "doc_id"]].values.tolist() == [["q2", "a"]]


@pytest.mark.parametrize("where", ["extra", "retrieved", "relevant"])
def test_deep_nesting_is_a_rankviz_error(tmp_path, where):
    deep = "[" * 10000 + "]" * 10000
    record = {
        "extra": '{"query_id": "q1", "retrieved": ["a"], "x": %s}',
        "retrieved": '{"query_id": "q1", "retrieved": %s}',
        "relevant": '{"query_id": "q1", "retrieved": ["a"], "relevant": {"a": %s}}',
    }[where]
    with pytest.raises(rankviz.TrecFormatError, match="line 1"):
        rankviz.read_jsonl(_write(tmp_path, record % deep + "\n"))


def test_other_fields_are_query_attributes_for_by_and_failure_slices(tmp_path):
    records = [
        {
            "query_id": f"q{i}",
            "retrieved": ["a", "b"],
            "relevant": ["a" if i % 2 else "z"],
            "topic": ["billing", "shipping"][i % 2],
            "code": ["01", "1"][i // 2 % 2],
            "n": i,
            "ok": i % 3 == 0,
            "contexts": ["long text"],
        }
        for i in range(8)
    ]
    records[3].pop("topic")
    log = rankviz.read_jsonl(_write(tmp_path, _lines(*records)))
    assert list(log.queries.columns) == ["query_id", "topic", "code", "n", "ok"]  # lists are not attributes
    assert log.queries["code"].tolist() == ["01", "01", "1", "1", "01", "01", "1", "1"]  # strings stay strings
    assert str(log.queries["n"].dtype) == "Int64" and log.queries["topic"].isna().tolist()[3]
    sliced = rankviz.evaluate(log.run, ["RR"], log.qrels, by="topic", queries=log.queries)
    table = rankviz.evaluate(log.run, ["RR"], log.qrels, per_query=True).set_index("query_id")["RR"]
    topics = log.queries.set_index("query_id")["topic"]
    expected = {t: table[topics.index[topics == t]].mean() for t in ("billing", "shipping")}
    got = dict(zip(sliced["topic"].astype(str), sliced["mean"]))
    assert {t: got[t] for t in expected} == pytest.approx(expected)
    per_query = rankviz.evaluate(log, ["RR"], per_query=True)
    failing = rankviz.failure_slices(per_query, measure="RR", queries=log.queries, attributes=["topic"], min_count=1)
    assert isinstance(failing, pd.DataFrame)


def test_the_default_system_name_drops_the_extensions(tmp_path):
    import gzip

    path = tmp_path / "bm25.jsonl.gz"
    path.write_bytes(gzip.compress(_lines({"query_id": "q1", "retrieved": ["a"]}).encode()))
    assert rankviz.read_jsonl(path).run["system"].astype(str).unique().tolist() == ["bm25"]


def test_stages_read_one_run_per_list_field(tmp_path):
    text = _lines(
        {"query_id": "q1", "retrieved": ["a", "b", "c"], "reranked": ["c", "a"], "cited": [], "relevant": ["a"]},
        {"query_id": "q2", "retrieved": ["d"], "reranked": ["d"], "cited": ["d"], "relevant": ["d"]},
    )
    log = rankviz.read_jsonl(_write(tmp_path, text), stages=["retrieved", "reranked", "cited"])
    assert list(log.stages) == ["retrieved", "reranked", "cited"]
    got = {
        name: [tuple(r) for r in run[["query_id", "doc_id", "rank"]].values.tolist()]
        for name, run in log.stages.items()
    }
    assert got["reranked"] == [("q1", "c", 1), ("q1", "a", 2), ("q2", "d", 1)]
    assert got["cited"] == [("q2", "d", 1)]
    with pytest.raises(rankviz.TrecFormatError, match="line 1: the 'cited' field"):
        rankviz.read_jsonl(
            _write(tmp_path, _lines({"query_id": "q1", "retrieved": ["a"]})), stages=["retrieved", "cited"]
        )


def test_evaluate_takes_a_log_where_a_run_and_qrels_are_taken(tmp_path):
    text = _lines(
        {"query_id": "q1", "retrieved": ["a", "b"], "relevant": ["b"], "topic": "x"},
        {"query_id": "q2", "retrieved": ["a", "b"], "relevant": ["a"], "topic": "y"},
    )
    log = rankviz.read_jsonl(_write(tmp_path, text))
    assert rankviz.evaluate(log, ["RR"])["RR"].iloc[0] == pytest.approx(0.75)
    assert rankviz.mrr(log).iloc[0] == pytest.approx(0.75)  # the log's run is one system, named after the file

    sliced = rankviz.evaluate(log, ["RR"], by="topic")
    assert dict(zip(sliced["topic"].astype(str), sliced["mean"])) == {"x": 0.5, "y": 1.0}


def test_a_log_with_question_id_question_and_topic_finds_question_id():
    frame = pd.DataFrame(
        {
            "question_id": ["q1", "q2"],
            "question": ["what?", "why?"],
            "topic": ["a", "b"],
            "retrieved": [["d1"], ["d2"]],
            "relevant": [["d1"], ["d1"]],
        }
    )
    assert rankviz.mrr(frame) == pytest.approx(0.5)


def test_beir_data_given_as_the_qrels_gives_its_qrels_and_queries():
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    beir = rankviz.BeirData(
        qrels=qrels, queries=pd.DataFrame({"query_id": ["q1", "q2"], "text": ["x", "y"]}), documents=None
    )
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "a", "a"], "score": [2.0, 1.0, 1.0]})
    assert rankviz.mrr(run, beir) == pytest.approx(0.75)
    with pytest.raises(rankviz.InputError, match="BeirData, which holds qrels and queries but no run"):
        rankviz.mrr(beir)
