"""Every plot sizes itself to its content: with 1, 5 and 20 systems no text overlaps another text or the data.

The systems are generated (long-ish names, 30 queries), drawn with Agg at a low dpi and
checked with :func:`tests.plot_layout.collisions`, which compares the Agg renderer's
window extents of every text, legend and data artist once the figure is laid out.
"""

from __future__ import annotations

import warnings
from functools import cache

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import rankviz
import rankviz.plots as rp
from rankviz.plots import style
from tests.plot_layout import collisions
from tests.plots.helpers import generated_stages

SIZES = [1, 5, 20]
N_QUERIES = 30
KS = range(1, 21)


def system_name(i: int) -> str:
    return f"system {i + 1:02d} · {['bm25', 'dense retriever', 'hybrid rrf', 'monoT5 reranker'][i % 4]}"


def query_text(i: int) -> str:
    return f"how do I configure the {['cache', 'retry policy', 'logging handler'][i % 3]} for query number {i}"


@cache
def generated_table(n_systems: int) -> pd.DataFrame:
    """A per-query table of RR@k, R@k and nDCG@k (k = 1..20, and R@100) for generated systems.

    The first relevant rank of each (system, query) is drawn at random (None for about a
    quarter), so RR@k is a true reciprocal rank; recall and nDCG grow with k.
    """
    rng = np.random.default_rng(n_systems)
    rows = []
    for s in range(n_systems):
        quality = 0.3 + 0.5 * rng.random()
        for q in range(N_QUERIES):
            first = int(rng.geometric(quality)) if rng.random() < 0.75 else None
            relevant = int(rng.integers(1, 40))
            hits = np.sort(rng.choice(np.arange(1, 101), size=min(relevant, 100), replace=False))
            if first is not None:
                hits = np.unique(np.append(hits[hits > first], first))
            else:
                hits = hits[hits > 100]
            row = {"system": system_name(s), "query_id": f"q{q:02d}"}
            for k in KS:
                row[f"RR@{k}"] = 1.0 / first if first is not None and first <= k else 0.0
                row[f"R@{k}"] = float(np.sum(hits <= k)) / relevant
                gains = 1.0 / np.log2(hits[hits <= k] + 1)
                row[f"nDCG@{k}"] = float(gains.sum() / (1.0 / np.log2(np.arange(2, min(k, relevant) + 2))).sum())
            row["R@100"] = float(np.sum(hits <= 100)) / relevant
            rows.append(row)
    return pd.DataFrame(rows)


@cache
def generated_results(n_systems: int):
    table = generated_table(n_systems)
    return rankviz.stats.bootstrap(
        table, ["RR@10", "nDCG@10", "R@10", "R@100", "nDCG@20"], n_resamples=200, method="percentile", rng=0
    )


@cache
def example_changes(n_queries: int):
    """rankviz.changes on the built-in example, cut to its first ``n_queries`` queries (hurt ones first)."""
    run, qrels, _ = rankviz.datasets.load_example()
    return rankviz.changes(run, qrels, system="bm25+rerank", baseline="bm25", k=10).head(n_queries)


@cache
def generated_slices(n_systems: int, n_segments: int):
    """rankviz.stats.bootstrap of a table with a segment column (what bootstrap(..., by=) returns), generated."""
    table = generated_table(n_systems)
    areas = [f"area {i + 1:02d} · {['billing', 'account settings', 'api'][i % 3]}" for i in range(n_segments)]
    codes = table["query_id"].str[1:].astype(int) % n_segments
    table = table.assign(area=pd.Categorical([areas[c] for c in codes], categories=areas, ordered=True))
    table.attrs["rankviz"] = {"by": ["area"]}  # the segment columns, as evaluate(..., by=, per_query=True) names them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankviz.stats.bootstrap(table, ["RR@10", "nDCG@10"], n_resamples=200, method="percentile", rng=0)


def queries() -> dict:
    return {f"q{q:02d}": query_text(q) for q in range(N_QUERIES)}


def _names(n):
    return [system_name(i) for i in range(n)]


def _calls(n: int) -> dict:
    table = generated_table(n)
    names = _names(n)
    two = generated_table(max(n, 2))
    calls = {
        "rr_distribution": lambda ax: rp.rr_distribution(table, k=10, ax=ax),
        "failures": lambda ax: rp.failures(table, system=names[-1], queries=queries(), ax=ax),
        "ci": lambda ax: rp.ci(generated_results(n), baseline=names[0] if n > 1 else None, ax=ax),
        "bootstrap_distribution": lambda ax: rp.bootstrap_distribution(
            generated_results(n), system=names[-1], measure="RR@10", ax=ax
        ),
        "paired_differences": lambda ax: rp.paired_differences(
            two, system=system_name(1), baseline=system_name(0), measure="RR@10", ax=ax
        ),
        "metric_at_k": lambda ax: rp.metric_at_k(table, ax=ax),
        "metric_at_k one measure": lambda ax: rp.metric_at_k(table, measures="RR", ax=ax),
        "recall_vs_mrr": lambda ax: rp.recall_vs_mrr(table, ax=ax),
        "recall_vs_mrr per query": lambda ax: rp.recall_vs_mrr(table, per_query=True, ax=ax),
    }
    calls["failure_causes"] = lambda ax: rp.failure_causes(
        rankviz.failure_slices(table, system=names[-1], queries=queries(), min_count=3), ax=ax
    )
    calls["slices"] = lambda ax: rp.slices(generated_slices(n, 6), ax=ax)
    calls["slices 20 segments"] = lambda ax: rp.slices(generated_slices(n, 20), measure="nDCG@10", ax=ax)
    calls["changes"] = lambda ax: rp.changes(example_changes(n * 30), n=min(n * 4, 40), queries=queries(), ax=ax)
    calls["funnel"] = lambda ax: rp.funnel(generated_stages(tuple(names)), ax=ax)
    wins_everywhere = two.assign(**{"RR@10": np.where(two["system"] == system_name(1), 1.0, 0.0)})
    calls["paired_differences, every query won"] = lambda ax: rp.paired_differences(
        wins_everywhere, system=system_name(1), baseline=system_name(0), measure="RR@10", ax=ax
    )
    if n > 1:
        calls["failures against a baseline"] = lambda ax: rp.failures(
            two, system=system_name(1), baseline=system_name(0), queries=queries(), ax=ax
        )
        calls["failures by system"] = lambda ax: rp.failures(table, hue="system", n=8, queries=queries(), ax=ax)
    return calls


CASES = [(name, n) for n in SIZES for name in _calls(n)]


def test_every_public_plot_is_covered():
    covered = {name.split(" ")[0].rstrip(",") for name in _calls(5)}
    assert covered == set(rp.__all__) - {"RunPlots"}


@pytest.mark.parametrize(("name", "n"), CASES, ids=[f"{name}-{n}" for name, n in CASES])
def test_no_text_overlaps_text_or_data(name, n):
    plt.close("all")
    ax = _calls(n)[name](None)  # no Axes given: the plot makes its figure and grows it until its texts fit
    assert collisions(ax.figure) == []


@pytest.mark.parametrize("n", SIZES)
def test_the_figure_grows_with_the_rows_of_ci(n):
    plt.close("all")
    ax = rp.ci(generated_results(n))
    fig = ax.figure
    rows = 5 * n + (5 if n > 1 else 0)
    assert ax.get_window_extent().height / fig.dpi >= 0.2 * rows
    assert tuple(fig.get_size_inches()) >= tuple(plt.rcParams["figure.figsize"])  # never shrunk


@pytest.mark.parametrize("name", sorted(_calls(5)))
def test_a_figure_the_caller_passed_or_made_current_is_never_resized(name):
    fig, ax = plt.subplots(figsize=(4, 3), dpi=50)
    assert _calls(5)[name](ax) is ax
    assert tuple(fig.get_size_inches()) == (4, 3)
    plt.close("all")
    current = plt.figure(figsize=(5, 2)).add_subplot()  # the caller's current Axes, drawn on when ax=None
    assert _calls(5)[name](None) is current and tuple(current.figure.get_size_inches()) == (5, 2)


def test_a_figure_that_is_big_enough_is_left_alone():
    fig, ax = plt.subplots(figsize=(14, 12), dpi=50)
    rp.metric_at_k(generated_table(5), ax=ax)
    assert tuple(fig.get_size_inches()) == (14, 12)


def test_twenty_systems_get_twenty_distinct_colours_and_repeat_beyond():
    colours = style.colors(20)
    assert len({tuple(np.round(c, 4)) for c in colours}) == 20
    assert style.colors(25)[20:] == colours[:5]
    assert style.colors(10) == colours[:10]
    fig, ax = plt.subplots(dpi=50)
    rp.metric_at_k(generated_table(20), measures="RR", ax=ax)
    line_colours = {tuple(np.round(matplotlib.colors.to_rgb(line.get_color()), 4)) for line in ax.get_lines()}
    assert len(line_colours) == 20
