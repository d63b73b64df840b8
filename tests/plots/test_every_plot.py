"""rankviz.plots: every plot."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import numpy as np
import pandas as pd
import pytest

import rankviz
import rankviz.plots as rp
from rankviz import InputError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import (
    CALL_NAMES,
    _bootstrap,
    _by_first_hit,
    _changes,
    _example,
    _slices,
    example_table,
    generated_stages,
    one_system,
)

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
        ("funnel", lambda ax: rp.funnel(generated_stages(("bm25", "rrf")), ax=ax)),
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
        "funnel": lambda: rp.funnel(generated_stages(("bm25",))["bm25"]),
    }
    assert funcs[name]() is ax


def test_every_function_is_on_the_accessor_with_the_same_name():
    public = set(rp.__all__) - {"RunPlots"}
    assert public == set(CALL_NAMES)
    # the funnel draws rankviz.stages' result, a pipeline of several runs, not one run frame
    assert all(callable(getattr(rp.RunPlots, name)) for name in public - {"funnel"})


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
