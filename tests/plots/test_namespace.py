"""rankviz.plots: namespace."""

from __future__ import annotations

import importlib
import inspect

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import pytest

import rankviz
import rankviz.plots.namespace
from rankviz import InputError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import _example, _expected_first_hits, _segments, bars

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
    assert len(labels) == 7 and not any("RR@10 = 0 for" in label for label in labels)  # the zeros, one by one
    collapsed = run.rank.plot.failures(qrels, system="bm25", queries=queries, n=7, zeros="collapse", ax=axes[1])
    labels = [t.get_text() for t in collapsed.get_yticklabels()]
    assert len(labels) == 8 and labels[0].endswith("queries: RR@10 = 0 for bm25")  # one row, then 7 above 0
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
    namespace = importlib.import_module("rankviz.plots.namespace")
    evaluate, per_query_of = namespace.per_query_table, rankviz.evaluation.per_query_of
    bootstrap_of = namespace.bootstrap_of

    def spy(function):
        def call(*args, **kwargs):
            seen.append((function.__name__, {**dict(enumerate(args)), **kwargs}))
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(namespace, "per_query_table", spy(evaluate))
    monkeypatch.setattr(rankviz.evaluation, "per_query_of", spy(per_query_of))  # the table, then the statistics
    monkeypatch.setattr(namespace, "bootstrap_of", spy(bootstrap_of))
    ax = run.rank.plot.failures(
        qrels, system="bm25", n=5, depth=50, missing="zero", alpha=0.3, lw=2, ax=plt.subplots()[1]
    )
    name, kwargs = seen[-1]  # the per-query table, with the options value as validated once
    assert name == "per_query_table" and (kwargs[3].depth, kwargs[3].missing) == (50, "zero")
    assert all(p.get_alpha() == 0.3 and p.get_linewidth() == 2 for p in ax.containers[0].patches)
    run.rank.plot.ci(qrels, measures="RR@10", n_resamples=100, rng=3, depth=20, linewidth=4, ax=plt.subplots()[1])
    (handed,) = [kwargs for name, kwargs in seen if name == "per_query_of"]
    (statistics,) = [kwargs[2] for name, kwargs in seen if name == "bootstrap_of"]
    options = handed["options"]
    assert (statistics.n_resamples, statistics.seed, options.depth, statistics.method) == (100, 3, 20, "bca")
    signature = inspect.signature(run.rank.plot.ci)
    assert {"depth", "missing", "ties", "columns", "n_resamples", "rng"} <= set(signature.parameters)
    with pytest.raises(TypeError, match="'dpeth'.*Did you mean 'depth'"):
        run.rank.plot.rr_distribution(qrels, dpeth=3)
