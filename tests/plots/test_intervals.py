"""rankviz.plots: intervals."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import numpy as np
import pytest
from matplotlib.collections import LineCollection, PathCollection

import rankviz
import rankviz.plots as rp
from rankviz import ColumnError, InputError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import _bootstrap, _example, _segments, one_system

# ----------------------------------------------------------------------------- ci


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
