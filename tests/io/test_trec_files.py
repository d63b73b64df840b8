"""TREC run/qrels/topic files and dict-of-dicts interop."""

from __future__ import annotations

import pandas as pd
import pytest

import rankviz
from tests.conftest import shared_path


def _write(tmp_path, name, text, newline="\n"):
    path = tmp_path / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def test_read_run_whitespace_comments_crlf_and_junk(tmp_path):
    text = "# a comment\n1\tQ0  d1 1 \t 2.5 tagA extra junk\n\n   # indented comment\n1 Q0 d2 2 -1e-3 tagA\n"
    # '#' lines are comments, as in trec_eval 10, but never silently: one warning with the count and the first
    with pytest.warns(
        rankviz.RankvizWarning, match=r"run\.txt: skipped 2 line\(s\) starting with '#' .*line 1: '# a comment'"
    ) as caught:
        run = rankviz.read_run(_write(tmp_path, "run.txt", text, newline="\r\n"))
    assert len(caught) == 1
    assert run.columns.tolist() == ["query_id", "doc_id", "rank", "score", "system"]
    assert run["doc_id"].tolist() == ["d1", "d2"]
    assert run["score"].tolist() == [2.5, -0.001]
    assert run["system"].tolist() == ["tagA", "tagA"]
    assert pd.api.types.is_string_dtype(run["query_id"].dtype)  # pandas 3: str; pandas 2: object of str
    with pytest.warns(rankviz.RankvizWarning, match="skipped 2 line"):
        assert rankviz.read_run(_write(tmp_path, "r2.txt", text), system="mine")["system"].tolist() == ["mine", "mine"]


def test_ids_stay_strings(tmp_path):
    run = rankviz.read_run(_write(tmp_path, "run.txt", "01 Q0 NA 1 1.0 t\n1 Q0 nan 2 0.5 t\n"))
    assert run["query_id"].tolist() == ["01", "1"]
    assert run["doc_id"].tolist() == ["NA", "nan"]


def test_read_run_errors_name_file_and_line(tmp_path):
    path = _write(tmp_path, "bad.txt", "# header\n1 Q0 d1 1 2.0 t\n1 Q0 d2 2\n")  # an error, not the comment warning
    with pytest.raises(rankviz.TrecFormatError, match=r"bad\.txt, line 3: expected 6 whitespace-separated fields"):
        rankviz.read_run(path)
    path = _write(tmp_path, "bad2.txt", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 high t\n")
    with pytest.raises(
        rankviz.TrecFormatError,
        match=r"bad2\.txt, line 2: the score \(5th\) field must be a finite number, found 'high'",
    ):
        rankviz.read_run(path)
    path = _write(tmp_path, "bad3.txt", "1 Q0 d1 one 2.0 t\n")
    with pytest.raises(rankviz.TrecFormatError, match=r"line 1: the rank \(4th\) field must be an integer"):
        rankviz.read_run(path)
    with pytest.raises(rankviz.TrecFormatError, match="has no run lines"):
        rankviz.read_run(_write(tmp_path, "empty.txt", "# only a comment\n\n"))
    with pytest.raises(FileNotFoundError, match="no such file"):
        rankviz.read_run(tmp_path / "missing.txt")
    path = tmp_path / "latin1.txt"
    path.write_bytes("1 Q0 caf\xe9 1 1.0 t\n".encode("latin-1"))
    with pytest.raises(rankviz.TrecFormatError, match="line 1: the file is not valid UTF-8"):
        rankviz.read_run(path)


def test_read_qrels_double_space_and_iterations(tmp_path):
    text = "1 0.5  010vptx3 2\n1 1  abc 0\n2 0 x -1\n"
    qrels = rankviz.read_qrels(_write(tmp_path, "q.txt", text, newline="\r\n"))
    assert qrels.columns.tolist() == ["query_id", "iteration", "doc_id", "relevance"]
    assert qrels["doc_id"].tolist() == ["010vptx3", "abc", "x"]
    assert qrels["iteration"].tolist() == ["0.5", "1", "0"]
    assert qrels["relevance"].tolist() == [2, 0, -1]


def test_read_qrels_errors(tmp_path):
    with pytest.raises(
        rankviz.TrecFormatError, match=r"line 2: the relevance \(4th\) field must be an integer, found '1.7'"
    ):
        rankviz.read_qrels(_write(tmp_path, "q.txt", "1 0 a 1\n1 0 b 1.7\n"))
    with pytest.raises(rankviz.TrecFormatError, match=r"line 1: expected 4 .* found 6.*looks like a run file"):
        rankviz.read_qrels(_write(tmp_path, "q2.txt", "1 Q0 a 1 2.0 tag\n"))
    with pytest.raises(rankviz.TrecFormatError, match=r"line 2: expected 4 whitespace-separated fields"):
        rankviz.read_qrels(_write(tmp_path, "q3.txt", "1 0 a 1\n1 0 b\n"))


def test_trec_covid_qrels_parse():
    qrels = rankviz.read_qrels(shared_path("trec_covid_round1", "qrels-rnd1.txt"))
    assert len(qrels) == 8691
    assert qrels["query_id"].nunique() == 30
    assert qrels["relevance"].value_counts().to_dict() == {0: 6339, 2: 1237, 1: 1115}
    assert qrels["iteration"].value_counts().to_dict() == {"1": 6064, "0.5": 2627}


def test_write_run_roundtrip_reranks_like_trec_eval(tmp_path):
    run = pd.DataFrame(
        {"query_id": ["q2", "q1", "q1", "q1"], "doc_id": ["x", "b", "a", "c"], "score": [0.1, 1.0, 1.0, 0.1 + 0.2]}
    )
    path = tmp_path / "out.run"
    rankviz.write_run(run, path, tag="mine")
    lines = path.read_text().splitlines()
    assert lines == [
        "q1 Q0 b 1 1.0 mine",
        "q1 Q0 a 2 1.0 mine",
        "q1 Q0 c 3 0.30000000000000004 mine",
        "q2 Q0 x 1 0.1 mine",
    ]
    back = rankviz.read_run(path)
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "x"], "relevance": [1, 1]})
    assert back.rank.evaluate(["RR", "AP"], qrels=qrels).to_numpy().tolist() == (
        run.rank.evaluate(["RR", "AP"], qrels=qrels).to_numpy().tolist()
    )


def test_write_run_refuses_several_systems_and_whitespace(tmp_path):
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["a b"], "score": [1.0]})
    with pytest.raises(rankviz.InputError, match="contains whitespace"):
        rankviz.write_run(run, tmp_path / "x")
    two = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 2.0], "system": ["s", "t"]})
    with pytest.raises(rankviz.InputError, match="one system per file"):
        rankviz.write_run(two, tmp_path / "x")


def test_write_and_read_qrels(tmp_path):
    qrels = pd.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "grade": [2, 0]})
    rankviz.write_qrels(qrels, tmp_path / "q")
    assert (tmp_path / "q").read_text() == "1 0 a 2\n1 0 b 0\n"
    assert rankviz.read_qrels(tmp_path / "q")["relevance"].tolist() == [2, 0]


def test_dict_conversions_roundtrip():
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 0.5}}
    qrels = {"q1": {"b": 1}, "q2": {"c": 2, "d": 0}}
    run_frame = rankviz.run_from_dict(run)
    qrels_frame = rankviz.qrels_from_dict(qrels)
    assert rankviz.run_to_dict(run_frame) == run
    assert rankviz.qrels_to_dict(qrels_frame) == qrels
    assert all(type(v) is int for docs in rankviz.qrels_to_dict(qrels_frame).values() for v in docs.values())
    # dicts work directly as qrels
    assert rankviz.mrr(run_frame, qrels=qrels) == rankviz.mrr(run_frame, qrels=qrels_frame) == 0.75
    by_system = rankviz.run_to_dict(run_frame.assign(system="s"))
    assert by_system == {"s": run}


def test_run_to_dict_refuses_duplicates():
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(rankviz.DuplicateError, match="appears more than once"):
        rankviz.run_to_dict(run)


def test_qrels_path_accepted(tmp_path):
    path = _write(tmp_path, "q.txt", "q1 0 b 1\n")
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    assert run.rank.mrr(qrels=path) == 0.5
    assert run.rank.mrr(qrels=str(path)) == 0.5


def test_read_topics_xml_and_tsv(tmp_path):
    topics = rankviz.read_topics(shared_path("trec_covid_round1", "topics.covid-round1.xml"))
    assert len(topics) == 30 and topics["query_id"].iloc[0] == "1"
    assert topics["text"].iloc[0] == "coronavirus origin"
    tsv = rankviz.read_topics(_write(tmp_path, "t.tsv", "q1\tfirst query\nq2\t<b>bold</b>\n"))
    assert tsv["text"].tolist() == ["first query", "<b>bold</b>"]
    with pytest.raises(rankviz.TrecFormatError, match=r"line 1: expected 'query_id<TAB>text'"):
        rankviz.read_topics(_write(tmp_path, "bad.tsv", "no tab here\n"))
