"""rankviz.plots: curves."""

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


from tests.plots.helpers import _example, example_table, one_system

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
    rows = aggregate  # indexed by system
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
