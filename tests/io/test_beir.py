"""BEIR folders: read_beir gives qrels, queries and a document lookup, exactly or naming the file and line."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

import rankviz
from tests.conftest import shared_path


def _folder(tmp_path, qrels="query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\t003\t2\n", gz=False):
    (tmp_path / "qrels").mkdir(exist_ok=True)
    corpus = "".join(
        json.dumps(r) + "\n"
        for r in (
            {"_id": "d1", "title": "First", "text": "one", "metadata": {"url": "x"}},
            {"_id": "d2", "text": "two"},
            {"_id": "003", "title": "Third", "text": "três"},
        )
    ).encode()
    if gz:
        (tmp_path / "corpus.jsonl.gz").write_bytes(gzip.compress(corpus))
    else:
        (tmp_path / "corpus.jsonl").write_bytes(corpus)
    (tmp_path / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "what is one"}\n{"_id": "q2", "text": "and three"}\n'
    )
    (tmp_path / "qrels" / "test.tsv").write_text(qrels)
    return tmp_path


@pytest.mark.parametrize("gz", [False, True])
def test_a_beir_folder_reads_into_frames_for_evaluate_and_explore(tmp_path, gz):
    data = rankviz.read_beir(_folder(tmp_path, gz=gz))
    assert data.qrels.values.tolist() == [["q1", "d1", 1], ["q1", "d2", 0], ["q2", "003", 2]]
    assert data.queries.values.tolist() == [["q1", "what is one"], ["q2", "and three"]]
    assert data.documents.values.tolist() == [["d1", "First", "one"], ["d2", "", "two"], ["003", "Third", "três"]]
    from rankviz.widgets.ranked import read_documents

    assert read_documents(data.documents).loc["003", "text"] == "três"  # ids stay strings: '003'
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d2", "d1", "003"], "score": [2.0, 1.0, 1.0]})
    assert rankviz.mrr(run, qrels=data.qrels, k=10) == 0.75
    assert rankviz.read_beir(tmp_path, corpus=False).documents is None


def test_agreement_with_read_qrels_on_trec_covid(tmp_path):
    trec = rankviz.read_qrels(shared_path("trec_covid_round1", "qrels-rnd1.txt"))
    lines = "".join(f"{q}\t{d}\t{r}\n" for q, d, r in zip(trec["query_id"], trec["doc_id"], trec["relevance"]))
    data = rankviz.read_beir(_folder(tmp_path, qrels="query-id\tcorpus-id\tscore\n" + lines))
    pd.testing.assert_frame_equal(data.qrels, trec.drop(columns="iteration"))


BAD = {
    "no header": ("q1\td1\t1\n", "line 1: expected BEIR's header"),
    "grade 1.5": (
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t1.5\n",
        r"line 3: the score \(3rd\) field must be an integer",
    ),
    "two fields": ("query-id\tcorpus-id\tscore\nq1\td1\n", "line 2: expected 3 whitespace-separated fields"),
    "no-break space": ("query-id\tcorpus-id\tscore\nq1\td\u00a01\t1\n", "line 2: the line contains NO-BREAK SPACE"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_qrels_are_refused_naming_the_file_and_line(tmp_path, case):
    _folder(tmp_path, qrels=BAD[case][0])
    with pytest.raises(rankviz.TrecFormatError, match=BAD[case][1]) as caught:
        rankviz.read_beir(tmp_path)
    assert str(caught.value).startswith(str(tmp_path / "qrels" / "test.tsv"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"_id": "d1", "text": "a"}\n{"_id": "d2", "text": \n', "line 2: not a valid JSON object"),
        ('{"_id": "d1", "text": "a"}\n{"text": "b"}\n', "line 2: every record needs an '_id'"),
        ('{"_id": 7, "text": "a"}\n', "line 1: the '_id' is a JSON number"),
        ('{"_id": "d1", "text": ["a"]}\n', "line 1: the 'text' field must be a string"),
        (b'{"_id": "caf\xe9", "text": "a"}\n', "line 1: the file is not valid UTF-8"),
    ],
)
def test_bad_corpus_lines_are_named(tmp_path, content, message):
    _folder(tmp_path)
    (tmp_path / "corpus.jsonl").write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(rankviz.TrecFormatError, match=message) as caught:
        rankviz.read_beir(tmp_path)
    assert str(caught.value).startswith(str(tmp_path / "corpus.jsonl"))


def test_missing_split_lists_the_splits_there_are(tmp_path):
    _folder(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"the splits in .* are \['test'\]"):
        rankviz.read_beir(tmp_path, split="dev")
    with pytest.raises(FileNotFoundError, match="no such folder"):
        rankviz.read_beir(tmp_path / "nowhere")
