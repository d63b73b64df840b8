"""rankviz.plots: differences."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.image
import matplotlib.pyplot as plt
import matplotlib.text
import pytest
from matplotlib.patches import StepPatch

import rankviz
import rankviz.plots as rp
from rankviz import ColumnError, InputError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


from tests.plots.helpers import big_table, example_table, one_system, small_table, step_heights, steps

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
