"""rankviz.datasets.from_ir_datasets on a real ir_datasets dataset built from local files (no network, no mock)."""

from __future__ import annotations

import uuid

import pandas as pd
import pytest

import rankviz
from rankviz.datasets import from_ir_datasets
from tests.conftest import IN_CI

try:
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecScoredDocs, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload
except ImportError:  # pragma: no cover - the [frames] extra installs it
    if IN_CI:
        raise
    pytest.skip("ir_datasets is not installed (pip install 'rankviz[frames]')", allow_module_level=True)

RUN = "q1 Q0 d3 1 5.0 bm25\nq1 Q0 d1 2 4.0 bm25\nq2 Q0 d2 1 1.5 bm25\nq2 Q0 d1 2 1.5 bm25\nq3 Q0 d9 1 0.5 bm25\n"
QRELS = "q1 0 d1 2\nq1 0 d3 0\nq2 0 d2 1\nq4 0 d4 1\n"


@pytest.fixture
def local(tmp_path):
    """A dataset made of local files with ir_datasets' own components, registered under a fresh id."""
    (tmp_path / "docs.tsv").write_text("d1\tfirst doc\nd2\tsecond doc\nd3\tthird\n", encoding="utf-8")
    (tmp_path / "queries.tsv").write_text("q1\tfind first\nq2\tfind second\n", encoding="utf-8")
    (tmp_path / "qrels.txt").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run.txt").write_text(RUN, encoding="utf-8")
    dataset = Dataset(
        TsvDocs(LocalDownload(tmp_path / "docs.tsv")),
        TsvQueries(LocalDownload(tmp_path / "queries.tsv")),
        TrecQrels(LocalDownload(tmp_path / "qrels.txt"), {0: "not relevant", 1: "relevant", 2: "very"}),
        TrecScoredDocs(LocalDownload(tmp_path / "run.txt")),
    )
    name = f"rankviz-test/{uuid.uuid4().hex[:8]}"
    ir_datasets.registry.register(name, dataset)
    return name, tmp_path


def test_qrels_queries_documents_and_run_from_a_registered_id(local):
    name, folder = local
    data = from_ir_datasets(name)
    assert data.name == name
    pd.testing.assert_frame_equal(data.qrels, rankviz.read_qrels(folder / "qrels.txt"))
    assert data.queries.values.tolist() == [["q1", "find first"], ["q2", "find second"]]
    assert data.documents["doc_id"].tolist() == ["d1", "d2", "d3"]
    assert data.documents["text"].tolist() == ["first doc", "second doc", "third"]
    expected = rankviz.read_run(folder / "run.txt", system=name)
    pd.testing.assert_frame_equal(data.run, expected)
    measures = ["RR@10", "nDCG@10", "AP"]
    pd.testing.assert_frame_equal(
        rankviz.evaluate(data.run, measures, qrels=data.qrels, per_query=True),
        rankviz.evaluate(expected, measures, qrels=folder / "qrels.txt", per_query=True),
    )


def test_the_dataset_object_and_no_documents(local):
    name, _ = local
    data = from_ir_datasets(ir_datasets.load(name), documents=False)
    assert data.documents is None and len(data.qrels) == 4 and len(data.run) == 5


def test_a_dataset_without_scored_docs_has_no_run(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS, encoding="utf-8")
    dataset = ir_datasets.create_dataset(qrels_trec=str(tmp_path / "qrels.txt"))
    data = from_ir_datasets(dataset)
    assert data.run is None and data.queries is None and data.documents is None
    assert data.qrels["relevance"].tolist() == [2, 0, 1, 1]


def test_unknown_id_names_the_closest(local):
    name, _ = local
    with pytest.raises(rankviz.InputError, match=f"Did you mean '{name}'"):
        from_ir_datasets(name[:-1] + "x")
    with pytest.raises(rankviz.InputError, match="dataset id"):
        from_ir_datasets(42)
