"""A history record logged to MLflow (optional extra ``rankviz[mlflow]``): :func:`log_record`.

MLflow is the tracker many teams already run; it logs retrieval metrics but has no
qrels, no pairing and no per-query values. This logs one record as an MLflow run:

- metrics: each measure's mean (exactly the value :func:`rankviz.evaluate` gives) and
  its bootstrap interval bounds (``<metric>.ci_low``, ``<metric>.ci_high``);
- params: the evaluation options (``option.depth``, ...), the measures, the number of
  queries, the record's id and name, the rankviz version;
- tags: the content fingerprints (``rankviz.fingerprint.qrels``, ...), git commit and
  branch, and the mapping from MLflow metric names back to rankviz's measure names;
- artifact: the per-query table as ``rankviz/per_query.parquet``.

MLflow's metric names allow no ``@`` or parentheses, so ``nDCG@10`` is logged as
``nDCG_at_10`` (``RR(rel=2)@10`` as ``RR_rel_2__at_10``); the tag
``rankviz.metric_names`` maps each back. Records of several systems get one metric per
system, prefixed ``<system>/``.
"""

from __future__ import annotations

import json
import os
import re
import tempfile

from .. import stats
from .._errors import InputError
from .records import Record, table_bytes

__all__ = ["log_record", "metric_name"]

_UNSAFE = re.compile(r"[^0-9A-Za-z_\-. :/]")


def metric_name(measure: str) -> str:
    """A measure's name as MLflow accepts it: ``@`` becomes ``_at_``, anything else not allowed ``_``.

    Examples
    --------
    >>> from rankviz.history.mlflow_export import metric_name
    >>> metric_name("nDCG@10"), metric_name("RR(rel=2)@10")
    ('nDCG_at_10', 'RR_rel_2__at_10')
    """
    return _UNSAFE.sub("_", str(measure).replace("@", "_at_"))


def _client(tracking_uri):
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise InputError(
            "History.to_mlflow needs MLflow: pip install 'rankviz[mlflow]' (or mlflow-skinny, or mlflow)."
        ) from None
    return MlflowClient(tracking_uri=tracking_uri)


def log_record(
    record: Record, *, tracking_uri=None, experiment: str = "rankviz", run_name: str | None = None,
    n_resamples: int = 2000, confidence_level: float = 0.95, client=None,
) -> str:  # fmt: skip
    """Log one history record as an MLflow run; return the run's id.

    Parameters
    ----------
    record : Record
        What :meth:`History.get <rankviz.history.History.get>` returns.
    tracking_uri : str, optional
        MLflow's tracking URI (default: MLflow's own default, ``MLFLOW_TRACKING_URI``).
    experiment : str, default 'rankviz'
        The experiment (created when missing).
    run_name : str, optional
        Default ``'<name> #<id>'``.
    n_resamples, confidence_level
        Of the bootstrap interval of each mean (seed 0).
    client : mlflow.tracking.MlflowClient, optional
        Use this client instead of making one.

    Returns
    -------
    str
        The MLflow run id.
    """
    from mlflow.entities import Metric, Param, RunTag

    client = client or _client(tracking_uri)
    found = client.get_experiment_by_name(experiment)
    experiment_id = found.experiment_id if found is not None else client.create_experiment(experiment)
    run = client.create_run(experiment_id, run_name=run_name or f"{record.name} #{record.id}")
    run_id = run.info.run_id
    stamp = int(record.time.timestamp() * 1000)
    results = stats.bootstrap(record.table, list(record.measures), n_resamples=n_resamples,
                              confidence_level=confidence_level, rng=0)  # fmt: skip
    several = len(record.means) > 1
    metrics, names = [], {}
    for system, means in record.means.iterrows():
        for measure, mean in means.items():
            key = (f"{metric_name(str(system))}/" if several else "") + metric_name(str(measure))
            names[key] = str(measure) if not several else f"{system}/{measure}"
            interval = results[str(system), str(measure)].confidence_interval
            metrics += [
                Metric(key, float(mean), stamp, 0),
                Metric(f"{key}.ci_low", float(interval.low), stamp, 0),
                Metric(f"{key}.ci_high", float(interval.high), stamp, 0),
            ]
    params = [Param(f"option.{k}", json.dumps(v)) for k, v in sorted(record.options.items())]
    params += [
        Param("measures", json.dumps(list(record.measures))),
        Param("n_queries", str(int(record.table["query_id"].nunique()))),
        Param("rankviz.record_id", str(record.id)),
        Param("rankviz.name", record.name),
        Param("rankviz.version", record.rankviz_version),
        Param("confidence_level", str(confidence_level)),
    ]
    tags = [RunTag(f"rankviz.fingerprint.{k}", str(v)) for k, v in record.fingerprints.items() if v is not None]
    tags += [
        RunTag("rankviz.metric_names", json.dumps(names, sort_keys=True)),
        RunTag("rankviz.time", str(record.time)),
    ]
    tags += [RunTag(f"rankviz.{k}", str(record.meta[k])) for k in ("git_commit", "git_branch") if record.meta.get(k)]
    try:
        client.log_batch(run_id, metrics=metrics, params=params, tags=tags)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "per_query.parquet")
            with open(path, "wb") as handle:
                handle.write(table_bytes(record.table))
            client.log_artifact(run_id, path, "rankviz")
    except BaseException:
        client.set_terminated(run_id, status="FAILED")
        raise
    client.set_terminated(run_id)
    return run_id
