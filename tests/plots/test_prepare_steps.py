"""rankviz.plots: prepare steps."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.text
import numpy as np
import pandas as pd
import pytest

import rankviz
import rankviz.plots as rp
from rankviz import InputError
from rankviz.plots.curves import prepare_metric_at_k
from rankviz.plots.diagnosis import prepare_recall_vs_mrr
from rankviz.plots.differences import prepare_paired_differences
from rankviz.plots.distributions import prepare_rr_distribution
from rankviz.plots.intervals import prepare_ci
from rankviz.plots.resampled import prepare_bootstrap_distribution
from rankviz.plots.worst_queries import prepare_failures

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import _bootstrap, _example, _expected_first_hits, example_table, one_system, small_table

# ----------------------------------------------------------------------------- prepare steps: what is drawn, without drawing


def test_prepare_rr_distribution_counts_per_rank_and_the_not_found_bar():
    frame = prepare_rr_distribution(example_table(), k=10, stat="count")
    expected = _expected_first_hits(10)
    assert list(pd.unique(frame["group"])) == list(expected.columns)
    for system, part in frame.groupby("group", sort=False):
        assert part["count"].tolist() == expected[system].tolist()
        assert part["tail"].tolist() == [False] * 10 + [True]
        assert part["rank_label"].iloc[-1] == "not in\ntop 10" and part["rr_label"].iloc[-1] == "0"
    assert frame["bar_label"].isna().all()  # several series: no numbers on the bars
    shares = prepare_rr_distribution(one_system(example_table()), k=10)
    assert shares["height"].sum() == pytest.approx(1.0)
    assert shares["bar_label"].tolist() == [rp.style.percent(h) for h in shares["height"]]
    small = prepare_rr_distribution(small_table(), stat="count")
    assert small.loc[small.group == "x", "count"].tolist() == [1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 2]
    uncut = prepare_rr_distribution(small_table().rename(columns={"RR@10": "RR"}), measure="RR", k=3, stat="count")
    y = uncut[uncut.group == "y"]
    assert y["rank_label"].tolist()[-2:] == ["> 3", "none\nfound"]
    assert y["count"].tolist() == [1, 2, 0, 1, 1]  # RR 1, 0.5, 0.5, then 0.1 (rank 10) and 0


def test_prepare_failures_is_the_n_lowest_sorted_with_their_texts():
    table, queries = example_table(), _example()[2]
    frame = prepare_failures(
        table, measure="nDCG@10", system="bm25", baseline="rrf", n=25, queries=queries, zeros="show"
    )
    wide = table.pivot(index="query_id", columns="system", values="nDCG@10")
    order = one_system(table).sort_values(["nDCG@10", "query_id"], kind="mergesort").head(25)["query_id"].tolist()
    mine, other = frame[frame.system == "bm25"], frame[frame.system == "rrf"]
    assert mine["query_id"].tolist() == order and other["query_id"].tolist() == order
    assert mine["position"].tolist() == list(range(25))
    assert mine["value"].tolist() == wide.loc[order, "bm25"].tolist()
    assert other["value"].tolist() == wide.loc[order, "rrf"].tolist()
    texts = dict(zip(queries["query_id"], queries["text"]))
    assert mine["label"].tolist() == [rp.style.shorten(texts[q]) for q in order]
    np.testing.assert_array_equal(mine["delta"], (wide.loc[order, "bm25"] - wide.loc[order, "rrf"]).to_numpy())
    signs = np.sign(mine["delta"].to_numpy())
    assert mine["delta_sign"].tolist() == [{1.0: "win", -1.0: "loss", 0.0: "none"}[x] for x in signs]
    assert frame.attrs["ylabel"] == "query text" and "nDCG@10" in frame.attrs["title"]


def test_prepare_ci_bounds_are_the_results():
    single, several = _bootstrap()
    frame = prepare_ci(several, baseline="bm25")
    intervals = frame[frame.kind == "interval"]
    assert len(intervals) == len(several) == 12
    got = intervals.set_index(["system", "measure"])[["estimate", "ci_low", "ci_high"]].sort_index()
    want = several.set_index(["system", "measure"])[["estimate", "ci_low", "ci_high"]].sort_index()
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    assert frame.loc[frame.kind == "header", "label"].tolist() == ["RR@10", "nDCG@10", "R@100"]
    lines = frame[frame.kind == "baseline"]
    assert lines["estimate"].tolist() == several.loc[several.system == "bm25", "estimate"].tolist()
    assert frame.loc[frame.kind != "baseline", "y"].is_monotonic_increasing  # top to bottom
    for measure, part in intervals.groupby("measure"):
        assert part["estimate"].tolist() == sorted(part["estimate"], reverse=True)
    one = prepare_ci(single)
    assert sorted(zip(one["ci_low"], one["ci_high"])) == sorted(tuple(r.confidence_interval) for r in single.values())
    assert one.attrs["reference"] is None
    comparison = rankviz.stats.compare(example_table(), baseline="bm25", measures=["RR@10"], n_resamples=200, rng=0)
    differences = prepare_ci(comparison)
    assert differences.attrs["reference"] == 0.0
    assert sorted(differences["estimate"]) == sorted(comparison.table["difference"])


def test_prepare_bootstrap_distribution_is_the_resamples_and_the_interval():
    single, _ = _bootstrap()
    result = single["rrf"]
    frame = prepare_bootstrap_distribution(single, system="rrf")
    np.testing.assert_array_equal(frame["value"], result.bootstrap_distribution)
    assert (frame.attrs["ci_low"], frame.attrs["ci_high"]) == tuple(result.confidence_interval)
    assert frame.attrs["estimate"] == result.estimate and "rrf" in frame.attrs["title"]
    with pytest.raises(InputError, match=r"unknown system 'nope'.*'rrf'"):
        prepare_bootstrap_distribution(single, system="nope")
    with pytest.raises(InputError, match="unknown measure 'nDCG@10'"):
        prepare_bootstrap_distribution(single, system="rrf", measure="nDCG@10")


def test_prepare_paired_differences_sorts_and_counts_outcomes():
    table = example_table()
    diffs = rankviz.stats.paired_differences(table, system="bm25+rerank", baseline="bm25", measure="RR@10")
    row = (
        rankviz.stats.compare(table, baseline="bm25", measures="RR@10", n_resamples=200, rng=0)
        .table.set_index("system")
        .loc["bm25+rerank"]
    )
    for data, options in ((diffs, {}), (table, {"system": "bm25+rerank", "baseline": "bm25", "measure": "RR@10"})):
        frame = prepare_paired_differences(data, **options)
        assert frame["difference"].tolist() == sorted(diffs["difference"])
        assert frame["query_id"].tolist() == diffs["query_id"].tolist()
        counts = frame["outcome"].value_counts()
        assert (counts["win"], counts["tie"], counts["loss"]) == (row["wins"], row["ties"], row["losses"])
        assert (frame.attrs["wins"], frame.attrs["ties"], frame.attrs["losses"]) == (
            row["wins"],
            row["ties"],
            row["losses"],
        )
        assert frame.attrs["mean"] == pytest.approx(diffs["difference"].mean(), rel=1e-12)


def test_prepare_metric_at_k_points_are_the_means():
    table = example_table()
    frame = prepare_metric_at_k(table, measures=("RR", "nDCG"))
    means = table.groupby("system").mean(numeric_only=True)
    assert len(frame) == 4 * 2 * 20
    for row in frame.itertuples():
        assert row.value == pytest.approx(means.loc[row.group, row.column], rel=1e-12)
        assert row.column == f"{row.family[:-2]}@{row.k}"
    assert frame.attrs["legend"] == "split" and frame.attrs["unit"]


def test_prepare_recall_vs_mrr_points_and_quadrant_shares():
    table = one_system(example_table())
    frame = prepare_recall_vs_mrr(table, per_query=True)
    system = frame[frame.kind == "system"].iloc[0]
    assert (system["x"], system["y"]) == pytest.approx((table["R@100"].mean(), table["RR@10"].mean()), rel=1e-12)
    assert frame.loc[frame.kind == "query", "count"].sum() == len(table)
    assert frame.attrs["split"] == (table["R@100"].median(), table["RR@10"].median())  # the median query
    assert pd.isna(system["quadrant"])  # one system is not read against its own queries
    shares = frame[frame.kind == "quadrant"].set_index("label")["share"]
    high_r, high_m = table["R@100"] >= table["R@100"].median(), table["RR@10"] >= table["RR@10"].median()
    assert shares["br"] == pytest.approx(np.mean(high_r & ~high_m))  # ordering is the problem
    assert shares.sum() == pytest.approx(1.0)
