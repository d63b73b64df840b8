"""History.to_mlflow (issue 33): a record logged to a real local MLflow store, read back with MLflow's own client."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

import rankviz
from rankviz.history import History
from rankviz.history.mlflow_export import metric_name
from tests.conftest import IN_CI

try:
    from mlflow.tracking import MlflowClient
except ImportError:  # the optional extra rankviz[mlflow]; the test extra installs it
    if IN_CI:
        pytest.fail("mlflow is not importable; CI=true requires it (pip install -e '.[test]')", pytrace=False)
    pytest.skip("mlflow is not installed: pip install 'rankviz[mlflow]'", allow_module_level=True)


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A file tracking store in a temporary folder (no server, no network)."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 keeps the file store behind this switch
    return (tmp_path / "mlruns").as_uri()


def test_metrics_equal_evaluate_and_the_table_reads_back(tmp_path, store):
    run, qrels, _ = rankviz.datasets.load_example()
    measures = ["nDCG@10", "RR@10", "AP"]
    bm25 = run[run["system"] == "bm25"]
    with History(tmp_path / "history.sqlite") as history:
        record = history.record(bm25, qrels, measures, name="bm25", depth=100)
        run_id = history.to_mlflow(record.id, tracking_uri=store, experiment="nightly", n_resamples=500)
    client = MlflowClient(tracking_uri=store)
    logged = client.get_run(run_id)
    assert logged.info.status == "FINISHED" and logged.info.run_name == f"bm25 #{record.id}"
    assert client.get_experiment(logged.info.experiment_id).name == "nightly"
    means = rankviz.evaluate(bm25, measures, qrels, depth=100)
    metrics = logged.data.metrics
    names = json.loads(logged.data.tags["rankviz.metric_names"])
    assert names == {"nDCG_at_10": "nDCG@10", "RR_at_10": "RR@10", "AP": "AP"}
    for key, measure in names.items():
        assert metrics[key] == float(means[measure].iloc[0])  # exactly evaluate's mean
        assert metrics[f"{key}.ci_low"] < metrics[key] < metrics[f"{key}.ci_high"]
    assert logged.data.params["option.depth"] == "100" and logged.data.params["rankviz.record_id"] == str(record.id)
    assert logged.data.tags["rankviz.fingerprint.qrels"] == record.fingerprints["qrels"]
    assert logged.data.tags["rankviz.fingerprint.run"] == record.fingerprints["run"]
    assert [a.path for a in client.list_artifacts(run_id, "rankviz")] == ["rankviz/per_query.parquet"]
    local = client.download_artifacts(run_id, "rankviz/per_query.parquet", str(tmp_path))
    pd.testing.assert_frame_equal(pd.read_parquet(local), record.table, check_exact=True)
    assert os.path.exists(tmp_path / "mlruns")


def test_several_systems_get_one_metric_each(tmp_path, store):
    run, qrels, _ = rankviz.datasets.load_example()
    with History(tmp_path / "history.sqlite") as history:
        record = history.record(run, qrels, "nDCG@10")
        run_id = history.to_mlflow(tracking_uri=store, n_resamples=300)
    metrics = MlflowClient(tracking_uri=store).get_run(run_id).data.metrics
    means = rankviz.evaluate(run, "nDCG@10", qrels)["nDCG@10"]
    logged = {k for k in metrics if "." not in k}
    assert logged == {f"{metric_name(s)}/nDCG_at_10" for s in record.systems} and "bm25_rerank/nDCG_at_10" in logged
    for system, mean in means.items():
        assert metrics[f"{metric_name(system)}/nDCG_at_10"] == float(mean)
