"""rankviz.plots: trec covid png."""

from __future__ import annotations

import warnings
from functools import cache

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import pandas as pd
import pytest

import rankviz
import rankviz.plots as rp
from rankviz import DegenerateDataWarning
from tests.conftest import shared_path
from tests.plots.helpers import AT_K, CALL_NAMES

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ----------------------------------------------------------------------------- TREC-COVID rendered to PNG


@cache
def _covid():
    base = shared_path("trec_covid_round1")
    qrels = rankviz.read_qrels(base / "qrels-rnd1.txt")
    topics = rankviz.read_topics(base / "topics.covid-round1.xml")
    runs = pd.concat(
        [rankviz.read_run(base / "runs" / name, system=name) for name in ("smith.bm25", "smith.rm3")], ignore_index=True
    )
    return runs, qrels, topics


def _quartiles_of_30_topics(runs, qrels):
    with pytest.warns(DegenerateDataWarning, match=r"n_relevant=\[\d+, \d+\]: only \d queries"):
        return rankviz.bootstrap(runs, "nDCG@10", qrels, by="n_relevant", n_resamples=500, rng=0)


def _covid_stages(runs, qrels):
    """BM25's ranking, then RM3's as if it reranked it, then RM3's top 10 as the context."""
    bm25, rm3 = (runs[runs["system"] == name].drop(columns="system") for name in ("smith.bm25", "smith.rm3"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.RankvizWarning)  # RM3 adds documents BM25 did not retrieve
        return rankviz.stages(
            {"retrieved": bm25, "reranked": rm3, "context": rm3}, qrels, depths={"context": 10}, n_resamples=500, rng=0
        )


def test_trec_covid_every_plot_renders_to_png(tmp_path):
    runs, qrels, topics = _covid()
    table = rankviz.evaluate(runs, AT_K, qrels, per_query=True)
    assert table["query_id"].nunique() == 30
    single = rankviz.stats.bootstrap(table, "nDCG@10", n_resamples=2000, rng=0)
    several = rankviz.stats.bootstrap(table, ["RR@10", "nDCG@10", "R@100"], n_resamples=2000, rng=0)
    draws = {
        "rr_distribution": lambda ax: rp.rr_distribution(table, k=10, ax=ax),
        "failures": lambda ax: rp.failures(
            table, measure="nDCG@10", system="smith.rm3", baseline="smith.bm25", queries=topics, ax=ax
        ),
        "ci": lambda ax: rp.ci(several, baseline="smith.bm25", ax=ax),
        "bootstrap_distribution": lambda ax: rp.bootstrap_distribution(single["smith.rm3"], ax=ax),
        "paired_differences": lambda ax: rp.paired_differences(
            table, system="smith.rm3", baseline="smith.bm25", measure="nDCG@10", ax=ax
        ),
        "metric_at_k": lambda ax: rp.metric_at_k(table, ax=ax),
        "recall_vs_mrr": lambda ax: rp.recall_vs_mrr(table, per_query=True, ax=ax),
        "failure_causes": lambda ax: rp.failure_causes(
            rankviz.failure_slices(table, system="smith.rm3", measure="nDCG@10", threshold=0.4, queries=topics), ax=ax
        ),
        "changes": lambda ax: rp.changes(
            rankviz.changes(runs, qrels, system="smith.rm3", baseline="smith.bm25", k=10), queries=topics, ax=ax
        ),
        "slices": lambda ax: rp.slices(_quartiles_of_30_topics(runs, qrels), ax=ax),
        "funnel": lambda ax: rp.funnel(_covid_stages(runs, qrels), ax=ax),
    }
    assert set(draws) == set(CALL_NAMES)
    for name, draw in draws.items():
        fig, ax = plt.subplots(figsize=(8, 6))
        assert draw(ax) is ax
        path = tmp_path / f"{name}.png"
        fig.savefig(path, dpi=72, bbox_inches="tight")
        plt.close(fig)
        data = path.read_bytes()
        assert data[:8] == PNG_SIGNATURE
        assert len(data) > 10_000
        image = matplotlib.image.imread(path)
        assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 300
        assert image[..., :3].std() > 0.05  # not a blank canvas
    # the failure labels are the topics' texts
    ax = rp.failures(table, measure="nDCG@10", system="smith.bm25", queries=topics, n=5, ax=plt.subplots()[1])
    texts = set(topics["text"])
    assert all(t.get_text() in texts for t in ax.get_yticklabels())
