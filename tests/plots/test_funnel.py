"""rankviz.plots.funnel: the layout of several pipelines, literal user strings, refusals."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

import rankviz
import rankviz.plots as rp
from rankviz import InputError
from rankviz.plots.funnel import draw_funnel, prepare_funnel
from tests.plot_layout import collisions
from tests.plots.helpers import generated_stages

NAMES = ("bm25", "dense $x$", "hybrid", "splade", "colbert")


def test_prepare_lays_out_five_systems_by_five_stages_apart_inside_each_stage():
    results = generated_stages(NAMES)
    frame = prepare_funnel(results)
    assert len(frame) == 5 * 5 * 2
    assert frame["stage"].drop_duplicates().tolist() == ["retrieved", "reranked", "context", "top 3", "cited"]
    for _, part in frame.groupby(["stage_index", "measure"]):
        xs = sorted(part["x"])
        assert len(set(xs)) == 5 and all(abs(x - part["stage_index"].iloc[0]) < 0.5 for x in xs)
    funnel = results["hybrid"].funnel().set_index(["stage", "measure"])
    row = frame[(frame["system"] == "hybrid") & (frame["stage"] == "context") & (frame["measure"] == "recall")].iloc[0]
    assert row["estimate"] == funnel.loc[("context", "recall"), "estimate"]
    assert (row["ci_low"], row["ci_high"]) == tuple(funnel.loc[("context", "recall"), ["ci_low", "ci_high"]])


def test_draw_is_readable_and_shows_user_strings_as_written():
    plt.close("all")
    ax = rp.funnel(generated_stages(NAMES))
    assert collisions(ax.figure) == []
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "dense $x$" in labels
    assert all(not t.get_parse_math() for t in ax.get_legend().get_texts())
    assert [t.get_text() for t in ax.get_xticklabels()] == ["retrieved", "reranked", "context", "top 3", "cited"]
    plt.close("all")


def test_draw_takes_the_prepared_frame():
    _, ax = plt.subplots()
    frame = prepare_funnel(generated_stages(("a",))["a"], measures="recall")
    assert draw_funnel(frame, ax) is ax
    assert len(ax.lines) == 1
    plt.close("all")


def test_refusals():
    results = generated_stages(("a",))
    other = rankviz.stages({"one": {"q": ["x"]}, "two": {"q": ["x"]}}, {"q": ["x"]}, n_resamples=100, rng=0)
    with pytest.raises(InputError, match="different stages"):
        prepare_funnel({"a": results["a"], "b": other})
    with pytest.raises(InputError, match="measures must be among"):
        prepare_funnel(results["a"], measures=["MRR"])
    with pytest.raises(InputError, match="funnel plots what rankviz.stages returns"):
        prepare_funnel([1, 2])
