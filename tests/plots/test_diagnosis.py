"""rankviz.plots: diagnosis."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection

import rankviz
import rankviz.plots as rp
from rankviz import ColumnError, InputError
from rankviz.plots.diagnosis import prepare_recall_vs_mrr
from tests.conftest import shared_path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import example_table, one_system, small_table

# ----------------------------------------------------------------------------- recall_vs_mrr


def _legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_recall_vs_mrr_points_are_system_means_and_quadrants_are_read():
    table = example_table()
    ax = rp.recall_vs_mrr(table, k=10, ax=plt.subplots()[1])
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(points) == 4  # one per system, each its own marker
    means = table.groupby("system", sort=False)[["R@100", "RR@10"]].mean()
    np.testing.assert_allclose(np.vstack([p.get_offsets() for p in points]), means.to_numpy(), rtol=1e-12)
    assert len(ax.texts) == 0  # nothing written on the data: the readings are in the legend beside it
    legend = _legend_texts(ax)
    split = means.median()
    for name, (recall, mrr) in means.iterrows():
        (entry,) = [t for t in legend if t.startswith(f"{name} — ")]
        advice = (
            "works"
            if recall >= split["R@100"] and mrr >= split["RR@10"]
            else ("a reranker helps" if recall >= split["R@100"] else "fix retrieval first")
        )
        # the advice only where the paired tests behind it are significant (bm25 and bm25+rerank find the same)
        verdict = prepare_recall_vs_mrr(table, k=10).set_index("label").loc[name, "verdict"]
        assert (advice in entry) if verdict == advice else ("no clear difference" in entry and advice not in entry)
    assert any("median of 4 systems" in t for t in legend)
    assert "R@100" in ax.get_xlabel() and "MRR@10" in ax.get_ylabel()


def test_recall_vs_mrr_the_median_system_of_an_odd_number_is_on_the_split_not_works():
    table = example_table()
    three = table[table["system"].isin(table["system"].unique()[:3])]
    frame = prepare_recall_vs_mrr(three)
    systems = frame[frame["kind"] == "system"].set_index("label")
    split = frame.attrs["split"]
    on_line = systems.index[(systems["x"] == split[0]) | (systems["y"] == split[1])]
    assert len(on_line) >= 1 and (systems.loc[on_line, "quadrant"] == "median").all()
    assert (systems.drop(on_line)["quadrant"].isin(["tr", "br", "tl", "bl"])).all()
    ax = rp.recall_vs_mrr(three, ax=plt.subplots()[1])
    entries = [t for t in _legend_texts(ax) if t.startswith(f"{on_line[0]} — ")]
    assert entries == [f"{on_line[0]} — on the median split, no reading"]


def test_recall_vs_mrr_per_query_cloud_counts_every_query_once():
    table = one_system(example_table())
    ax = rp.recall_vs_mrr(table, recall_k=20, per_query=True, ax=plt.subplots()[1])
    cloud = next(c for c in ax.collections if isinstance(c, PathCollection))
    distinct = table[["R@20", "RR@10"]].round(6).drop_duplicates()
    assert len(cloud.get_offsets()) == len(distinct)
    shares = [t for t in _legend_texts(ax) if "% of queries" in t]
    assert len(shares) == 4
    hi_r, hi_m = table["R@20"] >= table["R@20"].median(), table["RR@10"] >= table["RR@10"].median()
    assert any(t.startswith("↘") and t.endswith(f"({np.mean(hi_r & ~hi_m):.0%} of queries)") for t in shares)


def test_recall_vs_mrr_split_at_a_reference_system_or_at_given_numbers():
    table = example_table()
    means = table.groupby("system")[["R@100", "RR@10"]].mean()
    frame = prepare_recall_vs_mrr(table, split="bm25")
    assert frame.attrs["split"] == pytest.approx(tuple(means.loc["bm25"]), rel=1e-12)
    readings = frame[frame.kind == "system"].set_index("label")["quadrant"]
    assert readings["bm25"] == "reference"
    for name in ("bm25+rerank", "rrf", "tfidf"):
        high = (
            means.loc[name, "R@100"] >= means.loc["bm25", "R@100"],
            means.loc[name, "RR@10"] >= means.loc["bm25", "RR@10"],
        )
        assert (
            readings[name] == {(True, True): "tr", (True, False): "br", (False, True): "tl", (False, False): "bl"}[high]
        )
    assert prepare_recall_vs_mrr(table, split=(0.5, 0.5)).attrs["split"] == (0.5, 0.5)
    with pytest.raises(InputError, match="'split' parameter of recall_vs_mrr must be 'median', a system"):
        prepare_recall_vs_mrr(table, split=(0.5,))
    with pytest.raises(InputError, match="unknown split system 'bm26'"):
        prepare_recall_vs_mrr(table, split="bm26")
    with pytest.raises(TypeError, match="thresholds"):  # the pre-0.1 name of split= is gone, not silently ignored
        prepare_recall_vs_mrr(table, thresholds=(0.5, 0.5))


def test_recall_vs_mrr_one_system_of_means_gets_no_reading_without_a_reference():
    means = one_system(example_table())[["R@100", "RR@10"]].mean().to_frame().T
    frame = prepare_recall_vs_mrr(means)
    assert frame.attrs["split"] is None and "no reference" in frame.attrs["split_text"]
    assert frame.loc[frame.kind == "system", "quadrant"].isna().all()
    assert prepare_recall_vs_mrr(means, split=(0.9, 0.1)).loc[0, "quadrant"] == "tl"


def test_recall_vs_mrr_errors_and_small_data():
    table = example_table()
    with pytest.raises(ColumnError, match=r"no column 'R@50'.*'R@1'.*recall_k="):
        rp.recall_vs_mrr(table, recall_k=50)
    with pytest.raises(ColumnError, match="RR@30"):
        rp.recall_vs_mrr(table, k=30)
    ax = rp.recall_vs_mrr(small_table(), per_query=True, ax=plt.subplots()[1])
    assert ax.has_data()


# ----------------------------------------------------------------------------- recall vs MRR on TREC-COVID


def test_trec_covid_recall_vs_mrr_advice_varies_with_the_data():
    """26-202 relevant per topic: R@100 stays far below 0.5, so a fixed split told every run to fix retrieval."""
    base = shared_path("trec_covid_round1")
    qrels = rankviz.read_qrels(base / "qrels-rnd1.txt")
    runs = pd.concat(
        [rankviz.read_run(path, system=path.name) for path in sorted((base / "runs").iterdir())], ignore_index=True
    )
    table = rankviz.evaluate(runs, ["RR@10", "R@100"], qrels, per_query=True)
    means = table.groupby("system")[["R@100", "RR@10"]].mean()
    assert len(means) == 10 and means["R@100"].max() < 0.5

    def readings(**split):
        frame = prepare_recall_vs_mrr(table, **split)
        return frame[frame.kind == "system"].set_index("label")["quadrant"], frame.attrs["split"]

    fixed, _ = readings(split=(0.5, 0.5))
    assert set(fixed) <= {"tl", "bl"}  # the old default: "fix retrieval first" for every run

    advice, (split_recall, split_mrr) = readings()
    assert (split_recall, split_mrr) == pytest.approx((means["R@100"].median(), means["RR@10"].median()))
    assert len(set(advice)) >= 3
    for name, (recall, mrr) in means.iterrows():
        assert (
            advice[name]
            == {(True, True): "tr", (True, False): "br", (False, True): "tl", (False, False): "bl"}[
                (recall >= split_recall, mrr >= split_mrr)
            ]
        )
    assert advice[means["R@100"].idxmax()] in ("tr", "br")  # the run that finds the most is not told to fix retrieval
    assert advice[means["R@100"].idxmin()] == "bl"
    assert advice[means["RR@10"].idxmax()] in ("tr", "tl")  # nor is the best-ranking run told to rerank
    against_bm25, _ = readings(split="smith.bm25")
    assert (
        against_bm25["smith.bm25"] == "reference" and against_bm25["smith.rm3"] == "tr"
    )  # rm3: more recall, higher MRR
