"""The recall-vs-MRR reading made honest (issue 35): a verdict only where the paired test behind it is significant."""

from __future__ import annotations

import numpy as np
import pandas as pd

import rankviz
from rankviz.evaluation.changes import pair_reading
from rankviz.plots.diagnosis import prepare_recall_vs_mrr
from tests.plots.helpers import example_table


def _two_systems(recall_gap: float, mrr_gap: float, n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    recall = rng.uniform(0.3, 0.9, n)
    rr = rng.uniform(0.1, 0.9, n)
    noise = rng.normal(0, 0.1, n)
    return pd.DataFrame(
        {
            "system": ["a"] * n + ["b"] * n,
            "query_id": [f"q{i}" for i in range(n)] * 2,
            "R@100": np.r_[recall, np.clip(recall + recall_gap + noise, 0, 1)],
            "RR@10": np.r_[rr, np.clip(rr + mrr_gap + noise, 0, 1)],
        }
    )


def test_recall_differing_by_less_than_its_interval_half_width_gets_no_clear_difference():
    table = _two_systems(recall_gap=0.004, mrr_gap=-0.3)
    comparison = rankviz.stats.compare(table, baseline="a", measures="R@100", test="t", correction=None, rng=0)
    row = comparison.table.iloc[0]
    half_width = (row["ci_high"] - row["ci_low"]) / 2
    assert abs(row["difference"]) < half_width  # the recall difference is inside its own interval
    frame = prepare_recall_vs_mrr(table, k=10)
    systems = frame[frame["kind"] == "system"].set_index("label")
    # geometrically b is right of the split (a reranker would help) and a left of it (fix retrieval first) ...
    assert systems.loc["b", "quadrant"] == "br" and systems.loc["a", "quadrant"] == "tl"
    # ... but neither side of the recall line is significant: no verdict
    assert (systems["verdict"] == "no clear difference").all()
    assert systems.loc["b", "recall_p"] >= 0.05 and systems.loc["b", "mrr_p"] < 0.05
    reading = pair_reading(row["difference"], -0.3, k=10, significant=(False, True))
    assert reading.startswith("R@10 no clear difference") and "fix recall" not in reading


def test_a_significant_difference_keeps_its_verdict():
    table = _two_systems(recall_gap=0.15, mrr_gap=-0.3)
    systems = prepare_recall_vs_mrr(table, k=10).query("kind == 'system'").set_index("label")
    assert systems.loc["b", "verdict"] == "a reranker helps"
    assert systems.loc["a", "verdict"] == "fix retrieval first"


def test_the_example_no_longer_tells_rrf_a_reranker_helps():
    """rrf's R@100 is 0.003 above bm25's: the old median split told it "a reranker helps"."""
    systems = prepare_recall_vs_mrr(example_table(), k=10).query("kind == 'system'").set_index("label")
    assert systems.loc["rrf", "quadrant"] == "br"
    assert systems.loc["rrf", "verdict"] == "no clear difference"
    assert systems.loc["tfidf", "verdict"] == "fix retrieval first"  # its recall is clearly lower


def test_a_table_of_means_is_untested_not_read():
    means = example_table().groupby("system")[["R@100", "RR@10"]].mean()
    systems = prepare_recall_vs_mrr(means, k=10).query("kind == 'system'")
    assert (systems["verdict"] == "untested").all()


def test_changes_reads_only_significant_differences():
    run, qrels, _ = rankviz.datasets.load_example()
    reranked = rankviz.changes(run, qrels, system="bm25+rerank", baseline="bm25").attrs["rankviz"]["reading"]
    assert reranked.endswith("the reranker is working.")
    rrf = rankviz.changes(run, qrels, system="rrf", baseline="bm25").attrs["rankviz"]["reading"]
    assert rrf.startswith("recall no clear difference (+0.0031)")
