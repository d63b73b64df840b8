"""rankviz.plots: distributions."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import numpy as np
import pytest

import rankviz
import rankviz.plots as rp
from rankviz import ColumnError, InputError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import _example, _expected_first_hits, big_table, example_table, one_system, small_table

# ----------------------------------------------------------------------------- rr_distribution


@pytest.mark.parametrize("k", [5, 10])
def test_rr_distribution_bar_heights_are_the_first_hit_counts(k):
    table = rankviz.evaluate(_example()[0], f"RR@{k}", _example()[1], per_query=True)
    expected = _expected_first_hits(k)
    ax = rp.rr_distribution(table, k=k, stat="count", ax=plt.subplots()[1])
    assert len(ax.containers) == 4
    for container in ax.containers:
        system = container.get_label()
        assert [p.get_height() for p in container.patches] == expected[system].tolist()
    # percent: shares of each system's queries
    ax = rp.rr_distribution(table, k=k, ax=plt.subplots()[1])
    for container in ax.containers:
        heights = np.array([p.get_height() for p in container.patches])
        np.testing.assert_allclose(heights, expected[container.get_label()].to_numpy() / 600)
        assert heights.sum() == pytest.approx(1.0)
    assert isinstance(ax.yaxis.get_major_formatter(), matplotlib.ticker.PercentFormatter)


def test_rr_distribution_labels_ranks_reciprocal_ranks_and_not_found():
    ax = rp.rr_distribution(one_system(example_table()), k=10, ax=plt.subplots()[1])
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[:10] == [str(r) for r in range(1, 11)]
    assert labels[10].replace("\n", " ") == "not in top 10"
    top = ax.child_axes[0]
    top_labels = [t.get_text() for t in top.get_xticklabels()]
    assert top_labels == ["1"] + [f"1/{r}" for r in range(2, 11)] + ["0"]
    assert "RR@10" in ax.get_title() and "RR@10" in top.get_xlabel()
    assert len(ax.containers) == 1 and len(ax.containers[0].patches) == 11


def test_rr_distribution_uncut_rr_splits_deeper_hits_from_none_found():
    run, qrels, _, _ = _example()
    table = rankviz.evaluate(run, "RR", qrels, per_query=True)
    ranks = rankviz.first_relevant_rank(run, qrels).xs("tfidf", level="system")
    values = ranks.astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
    ax = rp.rr_distribution(table[table.system == "tfidf"], measure="RR", k=10, stat="count", ax=plt.subplots()[1])
    heights = [p.get_height() for p in ax.containers[0].patches]
    expected = [np.sum(values == r) for r in range(1, 11)] + [np.sum(values > 10), np.sum(np.isnan(values))]
    assert heights == expected
    assert [t.get_text() for t in ax.get_xticklabels()][-2:] == ["> 10", "none\nfound"]


def test_rr_distribution_measure_cutoff_wins_and_aliases_resolve():
    table = example_table()
    ax = rp.rr_distribution(table, measure="MRR@5", ax=plt.subplots()[1])
    assert len(ax.containers[0].patches) == 6  # ranks 1..5 and "not in top 5"
    assert "RR@5" in ax.get_title()


def test_rr_distribution_many_ranks_keeps_ticks_readable():
    run, qrels, _, _ = _example()
    table = rankviz.evaluate(run, "RR@100", qrels, per_query=True)
    ax = rp.rr_distribution(table[table.system == "bm25"], k=100, ax=plt.subplots()[1])
    assert len(ax.containers[0].patches) == 101
    assert len(ax.get_xticklabels()) <= 12


def test_rr_distribution_five_and_seven_thousand_queries():
    ax = rp.rr_distribution(small_table(), stat="count", ax=plt.subplots()[1])
    x = [p.get_height() for p in ax.containers[0].patches]
    assert x == [1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 2]
    big = big_table()
    ax = rp.rr_distribution(big, stat="count", ax=plt.subplots()[1])
    for container in ax.containers:
        part = big[big.system == container.get_label()]
        expected = [int((part["RR@10"] == 1 / r).sum()) for r in range(1, 11)] + [int((part["RR@10"] == 0).sum())]
        assert [p.get_height() for p in container.patches] == expected


def test_rr_distribution_errors():
    table = example_table()
    with pytest.raises(ColumnError, match=r"RR@30.*'RR@1'"):
        rp.rr_distribution(table, k=30)
    with pytest.raises(InputError, match="RR measure"):
        rp.rr_distribution(table, measure="nDCG@10")
    means = table.groupby("system", as_index=False)[["RR@10"]].mean().assign(query_id="all")
    with pytest.raises(InputError, match="not reciprocal ranks"):
        rp.rr_distribution(means)
    with pytest.raises(ColumnError, match="query id column"):
        rp.rr_distribution(table.drop(columns="query_id"))
    with pytest.raises(InputError, match="'stat' parameter"):
        rp.rr_distribution(table, stat="share")
    with pytest.raises(InputError, match="must be a matplotlib Axes"):
        rp.rr_distribution(table, ax="left")
    with pytest.raises(InputError, match="per-query table"):
        rp.rr_distribution({"RR@10": [1.0]})
