"""rankviz.plots: result inputs."""

from __future__ import annotations

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
from rankviz.plots.intervals import interval_frame
from rankviz.plots.resampled import prepare_bootstrap_distribution

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import _bootstrap, _segments

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
