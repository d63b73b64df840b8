"""Plots: artists checked against independently computed numbers, never pixels."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import warnings
from functools import cache
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.container import BarContainer
from matplotlib.patches import Rectangle, StepPatch

import rankviz
import rankviz.plots as rp
from rankviz import ColumnError, DegenerateDataWarning, InputError
from rankviz.datasets import load_example
from rankviz.plots.curves import prepare_metric_at_k
from rankviz.plots.diagnosis import prepare_recall_vs_mrr
from rankviz.plots.differences import prepare_paired_differences
from rankviz.plots.distributions import prepare_rr_distribution
from rankviz.plots.intervals import interval_frame, prepare_ci
from rankviz.plots.resampled import prepare_bootstrap_distribution
from rankviz.plots.worst_queries import prepare_failures

from .conftest import shared_path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
AT_K = [f"{m}@{k}" for m in ("RR", "R", "nDCG") for k in range(1, 21)] + ["R@100"]
PLOT_MODULES = [
    "style",
    "inputs",
    "distributions",
    "worst_queries",
    "intervals",
    "differences",
    "curves",
    "diagnosis",
    "namespace",
    "failure_causes",
    "changes",
    "slices",
]


# ----------------------------------------------------------------------------- data


@cache
def _example():
    run, qrels, queries = load_example()
    table = rankviz.evaluate(run, AT_K, qrels, per_query=True)
    return run, qrels, queries, table


def example_table() -> pd.DataFrame:
    return _example()[3].copy()


def one_system(table: pd.DataFrame, name: str = "bm25") -> pd.DataFrame:
    return table[table["system"] == name].drop(columns="system").reset_index(drop=True)


@cache
@cache
def _changes():
    run, qrels, _, _ = _example()
    return rankviz.changes(run, qrels, system="bm25+rerank", baseline="bm25", k=10)


@cache
def _slices():
    table, queries = _example()[3], _example()[2]
    return rankviz.failure_slices(table, system="bm25", measure="RR@10", queries=queries)


@cache
def _by_first_hit():
    run, qrels, _, _ = _example()
    with warnings.catch_warnings():  # RR@10 is constant in the buckets 1, >10 and none: said, and beside the point
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return rankviz.bootstrap(run, "RR@10", qrels, by="first_hit", n_resamples=500, rng=0)


def _bootstrap():
    """(one measure's results by system, the tidy table of three measures)."""
    table = _example()[3]
    single = rankviz.stats.bootstrap(table, "RR@10", n_resamples=2000, rng=0)
    several = rankviz.stats.bootstrap(table, ["RR@10", "nDCG@10", "R@100"], n_resamples=2000, rng=0)
    return {r.system: r for r in single}, several.to_frame()


def big_table(n_queries: int = 7000, systems=("a", "b"), seed: int = 0) -> pd.DataFrame:
    """A generated per-query table: RR@10 values are 0 or 1/rank, R@100 in [0, 1]."""
    gen = np.random.default_rng(seed)
    parts = []
    for name in systems:
        ranks = gen.integers(1, 16, size=n_queries)
        rr = np.where(ranks <= 10, 1.0 / ranks, 0.0)
        parts.append(
            pd.DataFrame(
                {
                    "system": name,
                    "query_id": [f"q{i:05d}" for i in range(n_queries)],
                    "RR@10": rr,
                    "R@100": gen.integers(0, 5, size=n_queries) / 4,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def small_table() -> pd.DataFrame:
    """Five queries, two systems."""
    return pd.DataFrame(
        {
            "system": ["x"] * 5 + ["y"] * 5,
            "query_id": ["q1", "q2", "q3", "q4", "q5"] * 2,
            "RR@10": [1.0, 0.5, 0.0, 0.25, 0.0, 0.5, 0.5, 1.0, 0.0, 0.1],
            "R@100": [1.0, 0.5, 0.0, 1.0, 0.0, 1.0, 0.5, 1.0, 0.0, 1.0],
        }
    )


def steps(ax) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{label: (values, edges)} of the step patches (paired_differences draws losses, ties, wins)."""
    out = {}
    for patch in ax.patches:
        if isinstance(patch, StepPatch):
            values, edges, _ = patch.get_data()
            out[patch.get_label()] = (np.asarray(values), np.asarray(edges))
    return out


def step_heights(ax) -> list[float]:
    parts = steps(ax)
    return [float(v) for label in ("losses", "ties", "wins") if label in parts for v in parts[label][0]]


def bars(ax) -> list[Rectangle]:
    return [patch for container in ax.containers if isinstance(container, BarContainer) for patch in container.patches]


# ----------------------------------------------------------------------------- every plot


def _calls():
    """(name, plot) pairs drawing every plot on the example data."""
    table = _example()[3]
    queries = _example()[2]
    single, several = _bootstrap()
    return [
        ("rr_distribution", lambda ax: rp.rr_distribution(table, k=10, ax=ax)),
        (
            "failures",
            lambda ax: rp.failures(
                table, system="bm25+rerank", baseline="bm25", worst_of="baseline", queries=queries, ax=ax
            ),
        ),
        ("ci", lambda ax: rp.ci(several, baseline="bm25", ax=ax)),
        ("bootstrap_distribution", lambda ax: rp.bootstrap_distribution(single["bm25"], ax=ax)),
        (
            "paired_differences",
            lambda ax: rp.paired_differences(table, system="bm25+rerank", baseline="bm25", measure="RR@10", ax=ax),
        ),
        ("metric_at_k", lambda ax: rp.metric_at_k(table, ax=ax)),
        ("recall_vs_mrr", lambda ax: rp.recall_vs_mrr(table, k=10, per_query=True, ax=ax)),
        ("failure_causes", lambda ax: rp.failure_causes(_slices(), ax=ax)),
        ("changes", lambda ax: rp.changes(_changes(), queries=queries, ax=ax)),
        ("slices", lambda ax: rp.slices(_by_first_hit(), ax=ax)),
    ]


CALL_NAMES = [
    "rr_distribution",
    "failures",
    "ci",
    "bootstrap_distribution",
    "paired_differences",
    "metric_at_k",
    "recall_vs_mrr",
    "failure_causes",
    "changes",
    "slices",
]


def _call(name):
    return dict(_calls())[name]


@pytest.mark.parametrize("name", CALL_NAMES)
def test_returns_the_axes_passed_in(name):
    _, (left, right) = plt.subplots(1, 2)
    assert _call(name)(right) is right
    assert not left.has_data()
    assert len(plt.get_fignums()) == 1  # no figure of its own


def test_rr_distribution_hue_by_another_column_of_one_system():
    table = one_system(example_table()).assign(half=lambda t: np.where(t.index < 200, "first", "rest"))
    ax = rp.rr_distribution(table, hue="half", stat="count", ax=plt.subplots()[1])
    assert [c.get_label() for c in ax.containers] == ["first", "rest"]
    assert [sum(p.get_height() for p in c.patches) for c in ax.containers] == [200, 400]
    assert ax.get_legend().get_title().get_text() == "half"
    with pytest.raises(InputError, match="hue must be the system column"):
        rp.rr_distribution(example_table().assign(half="x"), hue="half")


@pytest.mark.parametrize("name", CALL_NAMES)
def test_draws_on_the_current_axes_without_ax(name):
    _, ax = plt.subplots()
    table = _example()[3]
    funcs = {
        "rr_distribution": lambda: rp.rr_distribution(table),
        "failures": lambda: rp.failures(table, system="bm25"),
        "ci": lambda: rp.ci(_bootstrap()[1]),
        "bootstrap_distribution": lambda: rp.bootstrap_distribution(_bootstrap()[0]["bm25"]),
        "paired_differences": lambda: rp.paired_differences(table, system="rrf", baseline="bm25", measure="RR@10"),
        "metric_at_k": lambda: rp.metric_at_k(table),
        "recall_vs_mrr": lambda: rp.recall_vs_mrr(table),
        "failure_causes": lambda: rp.failure_causes(_slices()),
        "changes": lambda: rp.changes(_changes()),
        "slices": lambda: rp.slices(_by_first_hit()),
    }
    assert funcs[name]() is ax


def test_every_function_is_on_the_accessor_with_the_same_name():
    public = set(rp.__all__) - {"RunPlots"}
    assert public == set(CALL_NAMES)
    assert all(callable(getattr(rp.RunPlots, name)) for name in public)


def test_no_global_state_changed_and_no_show(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a plot called plt.show()")

    monkeypatch.setattr(plt, "show", forbidden)
    monkeypatch.setattr(matplotlib.figure.Figure, "show", forbidden)
    calls = _calls()  # bootstraps etc. before the snapshot
    before = dict(matplotlib.rcParams)
    for _, draw in calls:
        fig, ax = plt.subplots()
        draw(ax)
        fig.canvas.draw()
    after = dict(matplotlib.rcParams)
    assert before.keys() == after.keys()
    changed = [key for key in before if not _same(before[key], after[key])]
    assert changed == []


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple, np.ndarray)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return repr(a) == repr(b)


def test_import_rankviz_does_not_import_matplotlib():
    code = "import sys, rankviz; import pandas as pd; assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_inputs_are_not_modified():
    table = example_table()
    copy = table.copy()
    results = _bootstrap()[1]
    results_copy = results.copy()
    for draw in (
        lambda ax: rp.rr_distribution(table, ax=ax),
        lambda ax: rp.failures(table, system="rrf", baseline="bm25", ax=ax),
        lambda ax: rp.paired_differences(table, system="rrf", baseline="bm25", measure="RR@10", ax=ax),
        lambda ax: rp.metric_at_k(table, ax=ax),
        lambda ax: rp.recall_vs_mrr(table, per_query=True, ax=ax),
        lambda ax: rp.ci(results, ax=ax),
    ):
        draw(plt.subplots()[1])
    pd.testing.assert_frame_equal(table, copy)
    pd.testing.assert_frame_equal(results, results_copy)


def _code_lines(node: ast.FunctionDef, source: str) -> int:
    """Lines of a function's body that are neither its docstring, blank nor comments."""
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    if not body:
        return 0
    lines = source.splitlines()[body[0].lineno - 1 : node.end_lineno]
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def test_prepare_steps_run_without_matplotlib():
    code = """
import sys
import warnings
import pandas as pd
import rankviz
from rankviz.plots import curves, diagnosis, differences, distributions, intervals, resampled, worst_queries
table = pd.DataFrame({"system": ["x"] * 40 + ["y"] * 40, "query_id": [f"q{i}" for i in range(40)] * 2,
                      "RR@10": [1.0, 0.5, 0.0, 0.25] * 20, "R@100": [1.0, 0.5] * 40})
distributions.prepare_rr_distribution(table)
worst_queries.prepare_failures(table, system="y", baseline="x", queries={"q1": "text"})
differences.prepare_paired_differences(table, system="y", baseline="x", measure="RR@10")
diagnosis.prepare_recall_vs_mrr(table, per_query=True)
curves.prepare_metric_at_k(table.rename(columns={"R@100": "RR@100"}), measures="RR")
results = rankviz.stats.bootstrap(table, "RR@10", n_resamples=50, rng=0)
intervals.prepare_ci(results)
resampled.prepare_bootstrap_distribution(results, system="x")
assert "matplotlib" not in sys.modules, "a prepare step imported matplotlib"
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(rankviz.__file__).parents[1])


# ----------------------------------------------------------------------------- rr_distribution


def _expected_first_hits(k: int) -> pd.DataFrame:
    """Counts per system of first-relevant ranks 1..k and 'not in top k', from first_relevant_rank (not RR)."""
    run, qrels, _, _ = _example()
    ranks = rankviz.first_relevant_rank(run, qrels)
    out = {}
    for system, part in ranks.groupby(level="system", sort=False):
        values = part.astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
        counts = [int(np.sum(values == r)) for r in range(1, k + 1)]
        counts.append(int(np.sum(np.isnan(values) | (values > k))))
        out[system] = counts
    return pd.DataFrame(out)


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


# ----------------------------------------------------------------------------- failures


def test_failures_bars_are_the_n_lowest_sorted_with_query_text():
    table = example_table()
    queries = _example()[2]
    ax = rp.failures(table, measure="nDCG@10", system="bm25", n=25, queries=queries, zeros="show", ax=plt.subplots()[1])
    container = ax.containers[0]
    widths = [p.get_width() for p in container.patches]
    part = one_system(table).sort_values(["nDCG@10", "query_id"], kind="mergesort").head(25)
    assert widths == part["nDCG@10"].tolist()
    assert widths == sorted(widths)
    texts = dict(zip(queries["query_id"], queries["text"]))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 25
    for label, query in zip(labels, part["query_id"]):
        full = " ".join(texts[query].split())
        assert len(label) <= 50
        assert label == full or (label.endswith("…") and full.startswith(label[:-1]))
    assert ax.get_ylim()[0] > ax.get_ylim()[1]  # worst on top
    assert "nDCG@10" in ax.get_xlabel() and "nDCG@10" in ax.get_title()


def test_failures_zeros_come_first_and_are_marked():
    table = one_system(example_table())
    ax = rp.failures(table, n=20, zeros="show", ax=plt.subplots()[1])
    zeros = int((table["RR@10"] == 0).sum())
    assert zeros >= 20
    assert all(p.get_width() == 0 for p in ax.containers[0].patches)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == sorted(table.loc[table["RR@10"] == 0, "query_id"])[:20]  # ids when no texts
    assert f"{zeros} of 600" in ax.get_title()
    markers = [line for line in ax.get_lines() if line.get_marker() == "x"]
    assert sum(len(line.get_xdata()) for line in markers) == 20
    notes = [t.get_text() for t in ax.texts]
    assert notes.count("not in top 10") == 20


def test_failures_zero_rows_collapse_into_one_and_the_n_rows_go_above_zero():
    table = one_system(example_table())
    zeros = int((table["RR@10"] == 0).sum())
    ax = rp.failures(table, n=10, ax=plt.subplots()[1])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == f"{zeros} queries: RR@10 = 0 for run"
    above = table[table["RR@10"] > 0].sort_values(["RR@10", "query_id"], kind="mergesort").head(10)
    assert labels[1:] == above["query_id"].tolist()
    assert [p.get_width() for p in ax.containers[0].patches] == [0.0, *above["RR@10"]]
    assert "above 0" in ax.get_title() and f"{zeros} of 600" in ax.get_title()


def test_failures_delta_is_system_minus_baseline_coloured_by_who_wins():
    # Before: failures(system=A, compare=B) wrote B - A in A's colour (the opposite of compare()).
    table = example_table()
    ax = rp.failures(table, system="bm25+rerank", baseline="bm25", worst_of="baseline", n=10, ax=plt.subplots()[1])
    first, second = ax.containers[0], ax.containers[1]
    assert first.get_label() == "bm25+rerank" and second.get_label() == "bm25 (baseline)"
    wide = table.pivot(index="query_id", columns="system", values="RR@10")
    both_zero = (wide["bm25"] == 0) & (wide["bm25+rerank"] == 0)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == f"{int(both_zero.sum())} queries: RR@10 = 0 for both"
    picked = (
        wide[~both_zero].reset_index().sort_values(["bm25", "query_id"], kind="mergesort").head(10)["query_id"].tolist()
    )
    assert labels[1:] == picked  # the baseline's worst queries
    assert [p.get_width() for p in first.patches][1:] == wide.loc[picked, "bm25+rerank"].tolist()
    delta = (wide.loc[picked, "bm25+rerank"] - wide.loc[picked, "bm25"]).tolist()
    shown = [t for t in ax.texts if t.get_text() == "0" or t.get_text()[:1] in ("+", "-")]
    assert [t.get_text() for t in shown] == ["0"] + ["0" if d == 0 else f"{d:+.3f}" for d in delta]
    system_colour, baseline_colour = first.patches[1].get_facecolor(), second.patches[1].get_facecolor()
    for text, d in zip(shown[1:], delta):
        if d != 0:
            assert matplotlib.colors.to_rgba(text.get_color()) == (system_colour if d > 0 else baseline_colour)
    assert any(t.get_text() == "Δ = bm25+rerank − bm25" for t in ax.texts)


def test_failures_compare_keyword_is_refused_with_the_call_to_use():
    table = example_table()
    with pytest.raises(TypeError, match=r"system='bm25\+rerank', baseline='bm25', worst_of='baseline'"):
        rp.failures(table, system="bm25", compare="bm25+rerank")
    run, qrels, _, _ = _example()
    with pytest.raises(TypeError, match="compare= was replaced by baseline="):
        run.rank.plot.failures(qrels, system="bm25", compare="rrf")


def test_failures_hue_draws_every_system_for_the_same_queries():
    table = example_table()
    ax = rp.failures(table, hue="system", n=8, zeros="show", ax=plt.subplots()[1])
    assert len(ax.containers) == 4
    assert all(len(c.patches) == 8 for c in ax.containers)
    assert len(ax.get_yticklabels()) == 8
    assert "every system" in ax.get_title()


@pytest.mark.parametrize("n", [1, 5, 20])
def test_failures_five_queries_never_more_bars_than_queries(n):
    table = small_table()
    ax = rp.failures(table, system="x", n=n, zeros="show", ax=plt.subplots()[1])
    assert len(ax.containers[0].patches) == min(n, 5)
    assert len(ax.get_yticklabels()) == min(n, 5)


def test_failures_seven_thousand_queries_show_n_labels():
    table = big_table(7000)
    ax = rp.failures(table, system="a", n=20, zeros="show", ax=plt.subplots()[1])
    assert len(ax.containers[0].patches) == 20
    assert len(ax.get_yticklabels()) == 20
    ax = rp.failures(table, system="b", baseline="a", n=30, zeros="show", ax=plt.subplots()[1])
    assert len(ax.get_yticklabels()) == 30
    assert sum(len(c.patches) for c in ax.containers) == 60


def test_failures_long_texts_are_shortened():
    table = small_table()
    queries = {"q3": "word " * 40, "q5": "short text"}
    ax = rp.failures(table, system="x", queries=queries, n=3, zeros="show", ax=plt.subplots()[1])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].endswith("…") and len(labels[0]) <= 50 and "  " not in labels[0]
    assert labels[1] == "short text"
    assert labels[2] == "q4"  # no text for q4: its id


def test_failures_errors():
    table = example_table()
    with pytest.raises(InputError, match=r"4 systems; choose one with system=.*'bm25'"):
        rp.failures(table)
    with pytest.raises(InputError, match=r"unknown system 'bm26'.*'bm25'"):
        rp.failures(table, system="bm26")
    with pytest.raises(InputError, match="unknown baseline"):
        rp.failures(table, system="bm25", baseline="nope")
    with pytest.raises(InputError, match="baseline=.*needs a table with several systems"):
        rp.failures(one_system(table), baseline="rrf")
    with pytest.raises(InputError, match="'worst_of' parameter"):
        rp.failures(table, system="bm25", baseline="rrf", worst_of="rrf")
    with pytest.raises(ColumnError, match=r"'AP'.*'RR@1'"):
        rp.failures(table, measure="AP", system="bm25")
    with pytest.raises(InputError, match="'n' parameter"):
        rp.failures(table, system="bm25", n=0)
    with pytest.raises(
        ColumnError, match=r"text column \('text'"
    ):  # the message of rankviz._core.per_query.query_texts
        rp.failures(table, system="bm25", queries=pd.DataFrame({"query_id": ["q1"], "body": ["x"]}))


# ----------------------------------------------------------------------------- ci


def _segments(ax) -> list[tuple[float, float, float]]:
    """(y, low, high) of every interval whisker."""
    out = []
    for collection in ax.collections:
        if isinstance(collection, LineCollection):
            for segment in collection.get_segments():
                (x0, y0), (x1, y1) = segment
                if y0 == y1:
                    out.append((y0, x0, x1))
    return out


def test_ci_whiskers_are_exactly_the_result_bounds():
    single, several = _bootstrap()
    ax = rp.ci(single, ax=plt.subplots()[1])
    got = sorted((low, high) for _, low, high in _segments(ax))
    assert got == sorted(tuple(r.confidence_interval) for r in single.values())
    ax = rp.ci(several, ax=plt.subplots()[1])
    got = sorted((low, high) for _, low, high in _segments(ax))
    assert got == sorted(zip(several["ci_low"], several["ci_high"]))
    assert len(got) == 12


def test_ci_rows_match_labels_and_are_sorted_best_first():
    _, several = _bootstrap()
    ax = rp.ci(several, ax=plt.subplots()[1])
    ticks = dict(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels())))
    headers = [label for label in ticks.values() if label in ("RR@10", "nDCG@10", "R@100")]
    assert headers == ["RR@10", "nDCG@10", "R@100"]
    measure = None
    rows = []
    for y in sorted(ticks):
        if ticks[y] in headers:
            measure = ticks[y]
            continue
        low, high = next((lo, hi) for yy, lo, hi in _segments(ax) if yy == y)
        row = several[(several.system == ticks[y]) & (several.measure == measure)].iloc[0]
        assert (low, high) == (row["ci_low"], row["ci_high"])
        rows.append((measure, row["estimate"]))
    for m in headers:
        estimates = [e for mm, e in rows if mm == m]
        assert estimates == sorted(estimates, reverse=True)
    # points are the estimates
    offsets = np.concatenate([c.get_offsets() for c in ax.collections if isinstance(c, PathCollection)])
    assert sorted(offsets[:, 0]) == sorted(several["estimate"])


def test_ci_baseline_line_per_measure():
    _, several = _bootstrap()
    ax = rp.ci(several, baseline="tfidf", ax=plt.subplots()[1])
    lines = [c for c in ax.collections if isinstance(c, LineCollection) and c.get_linestyle()[0][1] is not None]
    xs = sorted(seg[0][0] for c in lines for seg in c.get_segments())
    assert xs == sorted(several.loc[several.system == "tfidf", "estimate"])
    assert ax.get_legend() is None  # no legend over the intervals: the x label says what the line is
    assert "dashed line: tfidf's estimate (baseline)" in ax.get_xlabel()


def test_ci_accepts_one_result_a_list_and_a_compare_table():
    single, _ = _bootstrap()
    one = single["rrf"]
    ax = rp.ci(one, ax=plt.subplots()[1])
    assert _segments(ax) == [(0.0, *one.confidence_interval)]
    assert "RR@10" in ax.get_xlabel() and "95%" in ax.get_xlabel()
    ax = rp.ci(list(single.values()), sort=False, ax=plt.subplots()[1])
    assert [t.get_text() for t in ax.get_yticklabels()] == list(single)
    comparison = rankviz.stats.compare(_example()[3], baseline="bm25", measures=["RR@10"], n_resamples=500, rng=0)
    ax = rp.ci(comparison, ax=plt.subplots()[1])
    assert sorted((lo, hi) for _, lo, hi in _segments(ax)) == sorted(
        zip(comparison.table["ci_low"], comparison.table["ci_high"])
    )
    assert 0.0 in [line.get_xdata()[0] for line in ax.get_lines()]


def test_ci_errors():
    _, several = _bootstrap()
    with pytest.raises(InputError, match=r"unknown baseline 'bm2'.*'bm25'"):
        rp.ci(several, baseline="bm2")
    with pytest.raises(ColumnError, match="lacks the columns"):
        rp.ci(several.drop(columns=["ci_low"]))
    with pytest.raises(InputError, match="BootstrapResult"):
        rp.ci(0.5)
    anonymous = rankviz.stats.bootstrap(one_system(_example()[3]), "RR@10", n_resamples=200, rng=0)
    assert anonymous["RR@10"].system == "run"
    with pytest.raises(InputError, match=r"unknown baseline 'bm25'; the table has the systems 'run'"):
        rp.ci(anonymous, baseline="bm25")


# ----------------------------------------------------------------------------- bootstrap_distribution


def test_bootstrap_distribution_histogram_interval_and_estimate():
    single, _ = _bootstrap()
    result = single["bm25"]
    ax = rp.bootstrap_distribution(result, bins=40, ax=plt.subplots()[1])
    patches = bars(ax)
    assert len(patches) == 40
    assert sum(p.get_height() for p in patches) == result.n_resamples
    span = [p for p in ax.patches if not any(p in c.patches for c in ax.containers)]
    assert len(span) == 1
    corners = span[0].get_patch_transform().transform(span[0].get_path().vertices)[:, 0]
    assert min(corners) == pytest.approx(result.confidence_interval.low, abs=0, rel=1e-12)
    assert max(corners) == pytest.approx(result.confidence_interval.high, abs=0, rel=1e-12)
    assert [line.get_xdata()[0] for line in ax.get_lines()] == [result.estimate]
    assert "RR@10" in ax.get_xlabel() and "bm25" in ax.get_title()


def test_bootstrap_distribution_errors():
    single, several = _bootstrap()
    with pytest.raises(InputError, match=r"got 4 results.*results\['bm25'\]"):
        rp.bootstrap_distribution(single)
    with pytest.raises(InputError, match="keeps the resampled means"):
        rp.bootstrap_distribution(several)
    ax = rp.bootstrap_distribution({"bm25": single["bm25"]}, ax=plt.subplots()[1])
    assert ax.has_data()


# ----------------------------------------------------------------------------- paired_differences


def test_paired_differences_bars_counts_and_colours():
    table = example_table()
    diffs = rankviz.stats.paired_differences(table, system="bm25+rerank", baseline="bm25", measure="RR@10")
    comparison = rankviz.stats.compare(table, baseline="bm25", measures="RR@10", n_resamples=200, rng=0)
    row = comparison.table.set_index("system").loc["bm25+rerank"]
    for data, options in ((diffs, {}), (table, {"system": "bm25+rerank", "baseline": "bm25", "measure": "RR@10"})):
        ax = rp.paired_differences(data, **options, ax=plt.subplots()[1])
        heights = step_heights(ax)
        assert heights == sorted(diffs["difference"])
        assert len(heights) == 600
        parts = steps(ax)
        assert [len(parts[k][0]) for k in ("wins", "ties", "losses")] == [row["wins"], row["ties"], row["losses"]]
        assert all(v > 0 for v in parts["wins"][0]) and all(v < 0 for v in parts["losses"][0])
        assert parts["losses"][1][0] == -0.5 and parts["wins"][1][-1] == 599.5
        text = f"wins {row['wins']} · ties {row['ties']} · losses {row['losses']}"
        assert text in [t.get_text() for t in ax.texts]
        colours = {tuple(p.get_facecolor()) for p in ax.patches if isinstance(p, StepPatch)}
        assert len(colours) == 3
        assert "RR@10" in ax.get_ylabel() and "bm25+rerank" in ax.get_ylabel() and "bm25" in ax.get_title()


def test_paired_differences_infers_the_other_of_two_systems_and_handles_sizes():
    ax = rp.paired_differences(small_table().drop(columns="R@100"), baseline="x", ax=plt.subplots()[1])
    assert step_heights(ax) == [-0.5, -0.25, 0.0, 0.1, 1.0]
    assert "wins 2 · ties 1 · losses 2" in [t.get_text() for t in ax.texts]
    big = big_table(7000)
    ax = rp.paired_differences(big, system="b", baseline="a", measure="RR@10", ax=plt.subplots()[1])
    assert len(step_heights(ax)) == 7000
    assert len(ax.get_xticklabels()) < 15


def test_paired_differences_errors():
    table = example_table()
    with pytest.raises(InputError, match="system= and baseline="):
        rp.paired_differences(table, measure="RR@10")
    with pytest.raises(InputError, match="choose the measure"):
        rp.paired_differences(table, system="rrf", baseline="bm25")
    with pytest.raises(InputError, match=r"unknown baseline 'nope'"):
        rp.paired_differences(table, system="rrf", baseline="nope", measure="RR@10")
    with pytest.raises(ColumnError, match="system column"):
        rp.paired_differences(one_system(table), system="a", baseline="b", measure="RR@10")


# ----------------------------------------------------------------------------- metric_at_k


def test_metric_at_k_lines_are_the_means_per_system():
    table = example_table()
    ax = rp.metric_at_k(table, ax=plt.subplots()[1])
    lines = {line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")}
    assert len(lines) == 12
    means = table.groupby("system").mean(numeric_only=True)
    for system in means.index:
        for family in ("RR", "R", "nDCG"):
            line = lines[f"{system} · {family}@k"]
            ks = list(line.get_xdata())
            expected = [means.loc[system, f"{family}@{k}"] for k in ks]
            assert ks == (list(range(1, 21)) + ([100] if family == "R" else []))
            np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
    assert "RR@k" in ax.get_title() and "nDCG@k" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"bm25", "RR@k", "nDCG@k"} <= set(legend)


def test_metric_at_k_aggregate_table_single_system_and_one_family():
    run, qrels, _, _ = _example()
    aggregate = rankviz.evaluate(run, [f"nDCG@{k}" for k in (1, 5, 10)], qrels)
    ax = rp.metric_at_k(aggregate, measures="nDCG", ax=plt.subplots()[1])
    rows = aggregate.set_index("system")
    for line in ax.get_lines():
        system = line.get_label().split(" · ")[0]
        assert list(line.get_ydata()) == rows.loc[system, ["nDCG@1", "nDCG@5", "nDCG@10"]].tolist()
    one = one_system(example_table())
    ax = rp.metric_at_k(one, ax=plt.subplots()[1])
    assert sorted(line.get_label() for line in ax.get_lines()) == ["R@k", "RR@k", "nDCG@k"]


def test_metric_at_k_errors():
    table = example_table()
    with pytest.raises(ColumnError, match=r"no P@k columns.*RR@1\.\.20"):
        rp.metric_at_k(table, measures=("RR", "P"))
    with pytest.raises(InputError, match="without a cutoff"):
        rp.metric_at_k(table, measures=("RR@10",))


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
        assert advice in entry
    assert any("median of 4 systems" in t for t in legend)
    assert "R@100" in ax.get_xlabel() and "MRR@10" in ax.get_ylabel()


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
    assert prepare_recall_vs_mrr(table, thresholds=(0.4, 0.6)).attrs["split"] == (0.4, 0.6)  # the old name
    with pytest.raises(InputError, match="'split' parameter of recall_vs_mrr must be 'median', a system"):
        prepare_recall_vs_mrr(table, split=(0.5,))
    with pytest.raises(InputError, match="unknown split system 'bm26'"):
        prepare_recall_vs_mrr(table, split="bm26")
    with pytest.raises(InputError, match="not both"):
        prepare_recall_vs_mrr(table, split="bm25", thresholds=(0.5, 0.5))


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


# ----------------------------------------------------------------------------- results in every form


def _tidy(results, low: str, high: str) -> pd.DataFrame:
    """A tidy results table with the bounds under the given names (today's 'low'/'high', the coming 'ci_low'/'ci_high')."""
    rows = [
        {
            "system": r.system,
            "measure": r.measure,
            "estimate": r.estimate,
            low: r.confidence_interval.low,
            high: r.confidence_interval.high,
            "method": r.method,
            "n_queries": r.n_queries,
        }
        for r in results
    ]
    return pd.DataFrame(rows)


def test_interval_frame_reads_every_form_of_results_alike():
    single, several = _bootstrap()
    results = list(single.values())
    forms = {
        "dict": single,
        "list": results,
        "collection": rankviz.BootstrapResults(tuple(results)),
        "tidy ci_low/ci_high": _tidy(results, "ci_low", "ci_high"),
        "tidy low/high": _tidy(results, "low", "high"),
    }
    columns = ["system", "measure", "estimate", "ci_low", "ci_high"]
    expected = interval_frame(results[0], "ci")
    assert expected[["measure", "ci_low", "ci_high"]].iloc[0].tolist() == ["RR@10", *results[0].confidence_interval]
    frames = {name: interval_frame(form, "ci")[columns] for name, form in forms.items()}
    for name, frame in frames.items():
        pd.testing.assert_frame_equal(frame.reset_index(drop=True), frames["dict"], check_dtype=False, obj=name)
    drawn = {}
    for name, form in forms.items():
        ax = rp.ci(form, baseline="bm25", ax=plt.subplots()[1])
        drawn[name] = (_segments(ax), [t.get_text() for t in ax.get_yticklabels()])
    assert all(value == drawn["dict"] for value in drawn.values())
    assert (
        interval_frame(several, "ci")[["ci_low", "ci_high"]].to_numpy().tolist()
        == several[["ci_low", "ci_high"]].to_numpy().tolist()
    )


def test_bootstrap_distribution_picks_one_result_of_a_collection():
    single, _ = _bootstrap()
    collection = rankviz.BootstrapResults(tuple(single.values()))
    frame = prepare_bootstrap_distribution(collection, system="bm25")
    np.testing.assert_array_equal(frame["value"], collection["bm25", "RR@10"].bootstrap_distribution)
    ax = rp.bootstrap_distribution(collection, system="bm25", ax=plt.subplots()[1])
    assert [line.get_xdata()[0] for line in ax.get_lines()] == [single["bm25"].estimate]
    with pytest.raises(InputError, match="got 4 results; choose one with system="):
        rp.bootstrap_distribution(collection)


# ----------------------------------------------------------------------------- df.rank.plot


def test_accessor_methods_evaluate_and_draw():
    run, qrels, queries, _ = _example()
    _, axes = plt.subplots(2, 4)
    axes = axes.ravel()
    assert run.rank.plot.rr_distribution(qrels, k=5, stat="count", ax=axes[0]) is axes[0]
    expected = _expected_first_hits(5)
    for container in axes[0].containers:
        assert [p.get_height() for p in container.patches] == expected[container.get_label()].tolist()
    assert run.rank.plot.failures(qrels, system="bm25", queries=queries, n=7, ax=axes[1]) is axes[1]
    labels = [t.get_text() for t in axes[1].get_yticklabels()]
    assert len(labels) == 8 and labels[0].endswith(
        "queries: RR@10 = 0 for bm25"
    )  # the zeros in one row, then 7 above 0
    assert (
        run.rank.plot.ci(qrels, measures=["RR@10", "nDCG@10"], n_resamples=300, rng=1, baseline="bm25", ax=axes[2])
        is axes[2]
    )
    assert len(_segments(axes[2])) == 8
    bm25 = run[run.system == "bm25"]
    assert bm25.rank.plot.bootstrap_distribution(qrels, n_resamples=300, rng=1, bins=20, ax=axes[3]) is axes[3]
    assert run.rank.plot.bootstrap_distribution(qrels, system="rrf", n_resamples=300, rng=1, ax=axes[4]) is axes[4]
    assert "rrf" in axes[4].get_title()
    assert run.rank.plot.paired_differences(qrels, system="bm25+rerank", baseline="bm25", ax=axes[5]) is axes[5]
    assert run.rank.plot.metric_at_k(qrels, k=[1, 5, 10], ax=axes[6], linewidth=3) is axes[6]
    assert all(line.get_linewidth() == 3 for line in axes[6].get_lines())
    assert run.rank.plot.recall_vs_mrr(qrels, k=10, depth=50, ax=axes[7]) is axes[7]
    with pytest.raises(InputError, match="choose one with system="):
        run.rank.plot.bootstrap_distribution(qrels)


def test_accessor_bootstrap_matches_rankviz_bootstrap_with_the_same_seed():
    run, qrels, _, _ = _example()
    expected = rankviz.bootstrap(run, "RR@10", qrels, n_resamples=400, rng=7)["rrf"]
    ax = run.rank.plot.bootstrap_distribution(qrels, system="rrf", n_resamples=400, rng=7, ax=plt.subplots()[1])
    assert sum(p.get_height() for p in bars(ax)) == 400
    assert ax.get_lines()[0].get_xdata()[0] == expected.estimate
    assert (
        f"[{expected.confidence_interval.low:.4f}, {expected.confidence_interval.high:.4f}]"
        in ax.get_legend().get_texts()[0].get_text()
    )
    expected = rankviz.bootstrap(run, ["RR@10", "nDCG@10"], qrels, n_resamples=400, rng=7)
    ax = run.rank.plot.ci(qrels, measures=["RR@10", "nDCG@10"], n_resamples=400, rng=7, ax=plt.subplots()[1])
    assert sorted((lo, hi) for _, lo, hi in _segments(ax)) == sorted(
        zip(expected.to_frame()["ci_low"], expected.to_frame()["ci_high"])
    )


def test_accessor_passes_evaluation_options_and_matplotlib_kwargs():
    run, qrels, _, _ = _example()
    ax = run.rank.plot.rr_distribution(qrels, k=10, depth=3, stat="count", alpha=0.5, ax=plt.subplots()[1])
    for container in ax.containers:
        heights = [p.get_height() for p in container.patches]
        assert heights[3:10] == [0] * 7  # depth=3: nothing found below rank 3
        assert all(p.get_alpha() == 0.5 for p in container.patches)


def test_accessor_hands_options_unchanged_to_evaluation_and_matplotlib_keywords_to_the_plot(monkeypatch):
    run, qrels, _, _ = _example()
    seen = []
    evaluate, bootstrap = rankviz.evaluation.evaluate, rankviz.evaluation.bootstrap_with

    def spy(function):
        def call(*args, **kwargs):
            seen.append((function.__name__, kwargs))
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(rankviz.evaluation, "evaluate", spy(evaluate))
    monkeypatch.setattr(rankviz.evaluation, "bootstrap_with", spy(bootstrap))
    ax = run.rank.plot.failures(
        qrels, system="bm25", n=5, depth=50, missing="zero", alpha=0.3, lw=2, ax=plt.subplots()[1]
    )
    name, kwargs = seen[-1]
    assert name == "evaluate" and kwargs["per_query"] is True and (kwargs["depth"], kwargs["missing"]) == (50, "zero")
    assert all(p.get_alpha() == 0.3 and p.get_linewidth() == 2 for p in ax.containers[0].patches)
    run.rank.plot.ci(qrels, measures="RR@10", n_resamples=100, rng=3, depth=20, linewidth=4, ax=plt.subplots()[1])
    (handed,) = [kwargs for name, kwargs in seen if name == "bootstrap_with"]
    statistics, options = handed["stats_options"], handed["options"]
    assert (statistics.n_resamples, statistics.seed, options.depth, statistics.method) == (100, 3, 20, "bca")
    signature = inspect.signature(run.rank.plot.ci)
    assert {"depth", "missing", "ties", "columns", "n_resamples", "rng"} <= set(signature.parameters)
    with pytest.raises(TypeError, match="'dpeth'.*Did you mean 'depth'"):
        run.rank.plot.rr_distribution(qrels, dpeth=3)


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


# ----------------------------------------------------------------------------- user text is never read as math


def test_dollar_signs_and_invalid_math_in_user_text_are_shown_as_written(tmp_path):
    table = pd.DataFrame(
        {
            "system": ["costs $5 to $10"] * 3 + ["b"] * 3,
            "query_id": ["q1", "q2", "q3"] * 2,
            "RR@10": [0.0, 0.5, 1.0, 0.25, 0.5, 0.0],
            "R@100": [0.2, 0.5, 1.0, 0.5, 0.5, 0.1],
        }
    )
    texts = {"q1": "prove that $\\sum_{i}^{n$ diverges", "q2": "costs $5 to $10", "q3": "plain"}
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    rp.failures(table, system="costs $5 to $10", queries=texts, n=3, zeros="show", ax=axes[0, 0])
    rp.rr_distribution(table, hue="system", ax=axes[0, 1])
    rp.paired_differences(table, system="costs $5 to $10", baseline="b", measure="RR@10", ax=axes[1, 0])
    rp.recall_vs_mrr(table, k=10, recall_k=100, ax=axes[1, 1])
    fig.savefig(tmp_path / "dollars.png")  # invalid math would raise here
    labels = [t.get_text() for t in axes[0, 0].get_yticklabels()]
    assert any("$\\sum_{i}^{n$" in label for label in labels)
    assert any("costs $5 to $10" in label for label in labels)
    shown = [t.get_text() for ax in axes.flat for t in ax.findobj(matplotlib.text.Text) if "$" in t.get_text()]
    assert shown and all(not t.get_parse_math() for ax in axes.flat for t in ax.findobj(matplotlib.text.Text))


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
