"""The trend plot of a history (issue 33): intervals, significance marks against the accepted record, qrels rules."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz.history import History
from rankviz.history.trend import TREND_COLUMNS, prepare_trend
from tests.plot_layout import collisions

N_QUERIES = 50
NAMES = ["main", "nightly", "branch <x>", "$dense$", "a rather long system name of twenty-nine"]


def _qrels(version: int) -> pd.DataFrame:
    queries = [f"q{j:02d}" for j in range(N_QUERIES)]
    return pd.DataFrame({"query_id": queries, "doc_id": [f"d{version}"] * N_QUERIES, "relevance": [1] * N_QUERIES})


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    """200 records, 5 names, one day apart per name; qrels relabelled at day 20; 'main' drops at day 30."""
    history = History(tmp_path_factory.mktemp("trend") / "history.sqlite")
    rng = np.random.default_rng(1)
    start = pd.Timestamp("2026-01-01", tz="UTC")
    base = rng.uniform(0.2, 0.8, N_QUERIES)
    for day in range(40):
        for k, name in enumerate(NAMES):
            level = base + 0.01 * k - (0.15 if name == "main" and day == 30 else 0.0)
            values = np.clip(level + rng.normal(0, 0.01, N_QUERIES), 0, 1)
            table = pd.DataFrame({"query_id": [f"q{j:02d}" for j in range(N_QUERIES)], "nDCG@10": values})
            record = history.record(table, _qrels(1 if day >= 20 else 0), name=name,
                                    time=start + pd.Timedelta(days=day, hours=k))  # fmt: skip
            if day in (0, 25):
                history.accept(record.id)
    yield history
    history.close()


def test_prepare_trend_marks_the_drop_and_the_relabelling(busy):
    frame = prepare_trend(busy, "nDCG@10", n_resamples=300)
    assert list(frame.columns) == list(TREND_COLUMNS) and len(frame) == 200
    assert (frame["ci_low"] <= frame["mean"]).all() and (frame["mean"] <= frame["ci_high"]).all()
    assert frame["qrels_changed"].sum() == 1  # one rule: the first record after the relabelling
    assert frame.loc[frame["qrels_changed"], "time"].iloc[0] == pd.Timestamp("2026-01-21", tz="UTC")
    main = frame[frame["name"] == "main"].reset_index(drop=True)
    dropped = main.loc[30]
    assert dropped["significant"] and dropped["difference"] < -0.1 and dropped["baseline"] == main.loc[25, "id"]
    # records after the relabelling and before the next accept are not compared (their qrels differ)
    assert main.loc[20:25, "baseline"].isna().all()
    assert main.drop(index=30).loc[26:, "significant"].sum() <= 1  # no drift: at most a chance alarm
    one = prepare_trend(busy, "nDCG@10", name="nightly", n_resamples=300)
    assert set(one["name"]) == {"nightly"} and len(one) == 40
    with pytest.raises(rankviz.InputError, match="no records named"):
        prepare_trend(busy, "nDCG@10", name="nope")
    with pytest.raises(rankviz.InputError, match="has a column 'AP'"):
        prepare_trend(busy, "AP")


def test_plot_is_readable_with_200_records_and_5_names(busy):
    ax = busy.plot("nDCG@10", n_resamples=300)
    fig = ax.figure
    assert len(ax.get_lines()) == 5 + 1  # one line per name, one rule (axvline is a line)
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert "branch <x>" in texts and "$dense$" in texts  # user text kept literal, not mathtext
    assert "qrels changed" in texts
    assert collisions(fig) == []
    plt.close(fig)
