"""Tests of the built-in example data set (``rankviz.datasets``)."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankviz.datasets import Example, load_example, load_example_documents

SYSTEMS = {"bm25", "tfidf", "rrf", "bm25+rerank"}
DEPTH = 100
DATA = resources.files("rankviz.datasets") / "data"
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_example_dataset.py"
DATA_FILES = ("documents.jsonl.gz", "queries.tsv.gz", "qrels.tsv.gz", "run.tsv.gz", "metadata.json")

# The dtype pandas infers for a column of Python strings: ``str`` on pandas 3,
# ``object`` on pandas 2.  The loaders must not force anything else.
DEFAULT_STRING_DTYPE = pd.Series(["x"]).dtype


@pytest.fixture(scope="module")
def example() -> Example:
    return load_example()


@pytest.fixture(scope="module")
def documents() -> pd.DataFrame:
    return load_example_documents()


@pytest.fixture(scope="module")
def metadata() -> dict:
    return json.loads((DATA / "metadata.json").read_bytes())


def _mrr_at_10(run: pd.DataFrame, qrels: pd.DataFrame) -> float:
    """MRR@10 of the grade-2 targets (tiny, self-contained helper)."""
    targets = qrels.loc[qrels["relevance"] == 2, ["query_id", "doc_id"]]
    hits = run.merge(targets, on=["query_id", "doc_id"])
    rr = np.where(hits["rank"] <= 10, 1.0 / hits["rank"], 0.0)
    return float(rr.sum() / targets["query_id"].nunique())


# -- shapes and types --------------------------------------------------------


def test_example_is_a_named_tuple(example):
    run, qrels, queries = example
    assert example._fields == ("run", "qrels", "queries")
    assert run is example.run and qrels is example.qrels and queries is example.queries


def test_shapes(example):
    run, qrels, queries = example
    assert len(queries) >= 500
    assert set(run["system"]) == SYSTEMS
    sizes = run.groupby(["system", "query_id"]).size()
    assert len(sizes) == len(SYSTEMS) * len(queries)
    assert (sizes == DEPTH).all()
    assert len(run) == len(SYSTEMS) * len(queries) * DEPTH


def test_columns_and_dtypes(example, documents):
    run, qrels, queries = example
    assert list(run.columns) == ["system", "query_id", "doc_id", "rank", "score"]
    assert list(qrels.columns) == ["query_id", "doc_id", "relevance"]
    assert list(queries.columns) == ["query_id", "text"]
    assert list(documents.columns) == ["doc_id", "title", "text"]
    for frame, column in [
        (run, "system"),
        (run, "query_id"),
        (run, "doc_id"),
        (qrels, "query_id"),
        (qrels, "doc_id"),
        (queries, "query_id"),
        (queries, "text"),
        (documents, "doc_id"),
        (documents, "title"),
        (documents, "text"),
    ]:
        assert frame[column].dtype == DEFAULT_STRING_DTYPE, column
        assert frame[column].notna().all(), column
    assert run["rank"].dtype == np.int64
    assert run["score"].dtype == np.float64
    assert qrels["relevance"].dtype == np.int64


def test_sorted_and_unique(example, documents):
    run, qrels, queries = example
    keys = run[["system", "query_id", "rank"]]
    assert keys.equals(keys.sort_values(["system", "query_id", "rank"]))
    assert not run.duplicated(["system", "query_id", "doc_id"]).any()
    assert not qrels.duplicated(["query_id", "doc_id"]).any()
    assert queries["query_id"].is_unique and queries["text"].is_unique
    assert queries["query_id"].str.fullmatch(r"q\d{4}").all()
    assert documents["doc_id"].is_unique
    assert documents["doc_id"].is_monotonic_increasing
    assert (documents["title"] == documents["doc_id"]).all()


# -- relevance judgements ----------------------------------------------------


def test_grades(example):
    _, qrels, queries = example
    assert set(qrels["relevance"]) == {0, 1, 2}
    targets = qrels[qrels["relevance"] == 2].groupby("query_id").size()
    assert set(targets.index) == set(queries["query_id"])
    assert (targets == 1).all()
    # Grade 1 is "a few related entries", not a large share of the corpus.
    related = qrels[qrels["relevance"] == 1].groupby("query_id").size().reindex(queries["query_id"], fill_value=0)
    assert related.max() <= 15
    assert 0.2 < (related > 0).mean() < 0.9


def test_pooled_zero_judgements(example):
    # Every document in the top 5 of bm25 and tfidf is judged (pool depth 5).
    run, qrels, _ = example
    pool = run[run["system"].isin(["bm25", "tfidf"]) & (run["rank"] <= 5)]
    judged = pool.merge(qrels, on=["query_id", "doc_id"], how="left")
    assert judged["relevance"].notna().all()
    assert (qrels["relevance"] == 0).sum() > len(qrels) / 2


def test_ids_consistent(example, documents):
    run, qrels, queries = example
    query_ids = set(queries["query_id"])
    assert set(run["query_id"]) == query_ids
    assert set(qrels["query_id"]) == query_ids
    doc_ids = set(documents["doc_id"])
    assert set(run["doc_id"]) <= doc_ids
    assert set(qrels["doc_id"]) <= doc_ids


def test_target_document_lacks_its_summary(example, documents):
    # Otherwise known-item search would be trivial.
    _, qrels, queries = example
    texts = documents.set_index("doc_id")["text"]
    targets = qrels[qrels["relevance"] == 2].merge(queries, on="query_id")
    for doc_id, query in zip(targets["doc_id"], targets["text"]):
        assert " ".join(query.split()) not in " ".join(texts[doc_id].split())


# -- runs --------------------------------------------------------------------


def test_ranks_follow_scores(example):
    run, _, _ = example
    for _, group in run.groupby(["system", "query_id"], sort=False):
        assert group["rank"].tolist() == list(range(1, DEPTH + 1))
        scores = group["score"].to_numpy()
        assert (np.diff(scores) <= 0).all()
        # trec_eval's tie-breaking: equal scores are ranked by doc_id descending.
        doc_ids = group["doc_id"].to_numpy()
        tied = scores[1:] == scores[:-1]
        assert all(a > b for a, b in zip(doc_ids[:-1][tied], doc_ids[1:][tied]))


def test_scores_rounded_and_in_range(example):
    run, _, _ = example
    assert (np.round(run["score"], 6) == run["score"]).all()
    assert (run["score"] > 0).all()
    by_system = run.groupby("system")["score"]
    assert by_system.max()["tfidf"] <= 1.0
    assert by_system.max()["rrf"] <= 2 / 61 + 1e-6  # rank 1 in both lists


def test_reranker_reorders_the_same_documents(example):
    run, qrels, _ = example
    bm25 = run[run["system"] == "bm25"]
    reranked = run[run["system"] == "bm25+rerank"]
    same_set = bm25.groupby("query_id")["doc_id"].apply(frozenset) == reranked.groupby("query_id")["doc_id"].apply(
        frozenset
    )
    assert same_set.all()
    order_changed = bm25.groupby("query_id")["doc_id"].apply(tuple) != reranked.groupby("query_id")["doc_id"].apply(
        tuple
    )
    assert order_changed.mean() > 0.5
    assert _mrr_at_10(reranked, qrels) > _mrr_at_10(bm25, qrels) + 0.02


def test_difficulty_is_realistic(example):
    run, qrels, queries = example
    mrr = {s: _mrr_at_10(g, qrels) for s, g in run.groupby("system")}
    assert 0.2 < mrr["bm25"] < 0.7
    assert mrr["tfidf"] < mrr["bm25"] < mrr["bm25+rerank"]
    targets = qrels.loc[qrels["relevance"] == 2, ["query_id", "doc_id"]]
    top10 = run[(run["system"] == "bm25") & (run["rank"] <= 10)]
    found = top10.merge(targets, on=["query_id", "doc_id"])["query_id"].nunique()
    assert 0.1 < 1 - found / len(queries) < 0.5


# -- loaders -----------------------------------------------------------------


def test_loaders_return_fresh_frames():
    run, qrels, queries = load_example()
    docs = load_example_documents()
    expected = (run.copy(), qrels.copy(), queries.copy(), docs.copy())
    run.loc[:, "score"] = 0.0
    run.loc[run.index[:10], "doc_id"] = "mutated"
    qrels.loc[:, "relevance"] = -1
    queries.loc[:, "text"] = "mutated"
    del docs["text"]

    again = (*load_example(), load_example_documents())
    for before, after in zip(expected, again):
        pd.testing.assert_frame_equal(before, after)
    assert again[0] is not run and again[3] is not docs


def test_metadata_matches_files(metadata, example):
    _, _, queries = example
    for name, digest in metadata["files"].items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name
    assert metadata["n_queries"] == len(queries)
    assert sorted(metadata["systems"]) == sorted(SYSTEMS)


def test_data_size_under_3_mb():
    assert sum(len((DATA / name).read_bytes()) for name in DATA_FILES) < 3_000_000


# -- regeneration ------------------------------------------------------------


def _generate(out: Path) -> dict[str, bytes]:
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True, capture_output=True, timeout=600)
    return {name: (out / name).read_bytes() for name in DATA_FILES}


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> dict[str, bytes]:
    if not SCRIPT.is_file():
        pytest.skip(f"generator script not found at {SCRIPT}")
    return _generate(tmp_path_factory.mktemp("regenerated"))


def _assert_identical(new: dict[str, bytes], old: dict[str, bytes]) -> None:
    for name in DATA_FILES:
        if name.endswith(".gz"):
            # Compare the content first for a readable failure, then the bytes
            # (gzip header and compression must be deterministic too).
            assert gzip.decompress(new[name]) == gzip.decompress(old[name]), name
        assert new[name] == old[name], name


@pytest.mark.slow
def test_generator_is_deterministic(regenerated, tmp_path):
    _assert_identical(_generate(tmp_path), regenerated)


@pytest.mark.slow
def test_generator_reproduces_shipped_files(regenerated, metadata):
    shipped = tuple(int(v) for v in metadata["python_version"].split(".")[:2])
    if sys.version_info[:2] != shipped:
        pytest.skip(
            f"the data were generated with Python {metadata['python_version']}; "
            f"this is Python {sys.version.split()[0]}, whose standard library "
            "(the source of the documents) differs"
        )
    new_metadata = json.loads(regenerated["metadata.json"])
    if new_metadata["stdlib_sha256"] != metadata["stdlib_sha256"]:
        pytest.skip(
            "the standard library sources differ from those the data were "
            f"generated from (Python {metadata['python_version']}; this is "
            f"{sys.version.split()[0]}), so different files are expected"
        )
    _assert_identical(regenerated, {name: (DATA / name).read_bytes() for name in DATA_FILES})
