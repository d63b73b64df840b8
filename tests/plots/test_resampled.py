"""rankviz.plots: resampled."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import pytest

import rankviz.plots as rp
from rankviz import InputError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import _bootstrap, bars

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
