"""One path for statistics (issue 30 item 1): a per-query table's segment columns give every statistic a segment level.

``rankviz.bootstrap(..., by=)`` is ``rankviz.evaluate(..., by=, per_query=True)`` then ``rankviz.stats.bootstrap``,
and returns the type the unsliced call returns; so does ``compare``.
"""

from __future__ import annotations

import warnings
from functools import cache

import matplotlib
import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz._errors import DegenerateDataWarning, InputError

matplotlib.use("Agg")

MEASURES = ["RR@10", "nDCG@10"]


@cache
def example():
    return rankviz.datasets.load_example()


@cache
def sliced_table() -> pd.DataFrame:
    run, qrels, _ = example()
    return rankviz.evaluate(run, MEASURES, qrels, by="first_hit", per_query=True)


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return function(*args, **kwargs)


def test_the_run_level_call_is_the_table_then_the_statistics():
    run, qrels, _ = example()
    table = sliced_table()
    assert table.attrs["rankviz"]["by"] == ["first_hit"]
    direct = quiet(rankviz.bootstrap, run, MEASURES, qrels, by="first_hit", rng=4, n_resamples=300)
    staged = quiet(rankviz.stats.bootstrap, table, MEASURES, rng=4, n_resamples=300)
    assert type(direct) is type(staged) is rankviz.BootstrapResults
    pd.testing.assert_frame_equal(direct.to_frame(), staged.to_frame(), check_exact=True)
    compared = quiet(rankviz.compare, run, "bm25", MEASURES, qrels, by="first_hit", rng=4, n_resamples=300)
    staged = quiet(rankviz.stats.compare, table, baseline="bm25", measures=MEASURES, rng=4, n_resamples=300)
    assert type(compared) is type(staged) is rankviz.Comparison
    pd.testing.assert_frame_equal(compared.table, staged.table, check_exact=True)
    pd.testing.assert_frame_equal(compared.heterogeneity, staged.heterogeneity, check_exact=True)


def test_bootstrap_results_have_a_segment_level():
    table = sliced_table()
    results = quiet(rankviz.stats.bootstrap, table, MEASURES, rng=0, n_resamples=200)
    frame = results.to_frame()
    assert results.by == ("first_hit",)
    assert list(frame.columns[:3]) == ["system", "first_hit", "measure"]
    assert frame["first_hit"].cat.ordered
    assert list(frame["first_hit"].cat.categories) == list(table["first_hit"].cat.categories)
    # one result per system x segment x measure present in the table, ordered system, segment, measure
    cells = table.groupby(["system", "first_hit"], observed=True, sort=False).size()
    assert len(results) == len(cells) * len(MEASURES)
    systems = list(dict.fromkeys(table["system"]))
    codes = frame["first_hit"].cat.codes
    order = list(zip(frame["system"].map(systems.index), codes, frame["measure"].map(MEASURES.index)))
    assert order == sorted(order)
    # the estimate and zero share are the groupby of the table, to the last bit, for every measure
    grouped = table.groupby(["system", "first_hit"], observed=True)
    means, zeros, sizes = grouped[MEASURES].mean(), table[MEASURES].eq(0).groupby(
        [table["system"], table["first_hit"]], observed=True).sum(), grouped.size()  # fmt: skip
    for r in results:
        cell = (r.system, dict(r.segment)["first_hit"])
        assert r.estimate == means.at[cell, r.measure]
        assert r.zero_share == zeros.at[cell, r.measure] / sizes[cell]
        assert r.n_queries == sizes[cell]
    # indexed by system, segment value, measure
    some = results.results[5]
    assert results[some.system, dict(some.segment)["first_hit"], some.measure] is some
    assert results.segments[0] == (str(frame["first_hit"].iloc[0]),)
    with pytest.raises(KeyError, match=r"index by \(system, first_hit, measure\)"):
        results["bm25", "RR@10"]
    assert "first_hit" in repr(results) and "by first_hit" in results._repr_html_()
    assert "first_hit=" in repr(some)


def test_one_system_and_one_measure_index_by_segment_alone():
    table = sliced_table()
    one = table[table["system"] == "bm25"].drop(columns="system")
    results = quiet(rankviz.stats.bootstrap, one, "RR@10", rng=0, n_resamples=100)
    assert results.systems == ("run",)
    first = results.results[0]
    assert results[dict(first.segment)["first_hit"]] is first


def test_comparison_has_a_segment_level_and_the_heterogeneity_test():
    table = sliced_table()
    result = quiet(rankviz.stats.compare, table, baseline="bm25", measures=MEASURES, rng=1, n_resamples=200)
    assert result.by == ("first_hit",)
    assert list(result.table.columns[:4]) == ["system", "baseline", "first_hit", "measure"]
    assert list(result.key_columns.columns[:3]) == ["system", "first_hit", "measure"]
    assert "first_hit" in result.to_frame().columns
    assert set(result.heterogeneity["system"]) == set(table["system"]) - {"bm25"}
    assert "Does the difference vary" in repr(result) and "by first_hit" in result._repr_html_()
    # an unsegmented comparison has neither
    plain = quiet(rankviz.stats.compare, table.drop(columns="first_hit"), baseline="bm25", measures=MEASURES,
                  rng=1, n_resamples=200)  # fmt: skip
    assert plain.by == () and plain.heterogeneity is None


def test_segment_labels_are_escaped_in_the_notebook_view():
    table = sliced_table().copy()
    table["first_hit"] = table["first_hit"].cat.rename_categories(lambda c: f"<b>{c}</b>")
    comparison = quiet(rankviz.stats.compare, table, baseline="bm25", measures="RR@10", rng=1, n_resamples=50)
    results = quiet(rankviz.stats.bootstrap, table, "RR@10", rng=1, n_resamples=50)
    for shown in (comparison._repr_html_(), results._repr_html_()):
        assert "<b>1</b>" not in shown and "&lt;b&gt;1&lt;/b&gt;" in shown


def test_a_hand_made_table_names_its_segments_in_attrs():
    rng = np.random.default_rng(0)
    ids = [f"q{i:02d}" for i in range(40)]
    table = pd.DataFrame({"query_id": ids, "area": ["faq", "docs"] * 20, "AP": rng.random(40)})
    assert quiet(rankviz.stats.bootstrap, table, "AP", rng=0, n_resamples=50).by == ()
    table.attrs["rankviz"] = {"by": ["area"]}
    results = quiet(rankviz.stats.bootstrap, table, "AP", rng=0, n_resamples=50)
    assert results.by == ("area",) and results.segments == (("docs",), ("faq",))  # a plain column: sorted values
    assert results["docs"].estimate == table[table["area"] == "docs"]["AP"].mean()
    # measures=None takes the numeric columns, never a segment column
    table.attrs["rankviz"] = {"by": ["area", "n"]}
    numbered = table.assign(n=np.arange(40) % 2)
    assert quiet(rankviz.stats.bootstrap, numbered, rng=0, n_resamples=50).measures == ("AP",)


def test_a_significance_table_of_a_segmented_table_says_what_to_do():
    table = sliced_table()
    with pytest.raises(InputError, match=r"segment column\(s\) 'first_hit'.*table.drop\(columns=\['first_hit'\]\)"):
        rankviz.stats.significance_table(table, "RR@10", rng=0, n_resamples=50)
    result = rankviz.stats.significance_table(table.drop(columns=["first_hit"]), "RR@10", rng=0, n_resamples=50,
                                              confidence_level=None)  # fmt: skip
    assert len(result.systems) == 4


def test_the_plots_read_the_new_types():
    import matplotlib.pyplot as plt

    from rankviz.plots.slices import prepare_slices

    run, qrels, queries = example()
    results = quiet(rankviz.bootstrap, run, "RR@10", qrels, by="query_length", queries=queries, rng=0, n_resamples=100)
    frame = prepare_slices(results)
    assert frame.attrs["by"] == "query_length" and frame.attrs["has_ci"] and frame.attrs["level"] == "95% bca interval"
    expected = results.to_frame()
    assert sorted(frame["mean"]) == sorted(expected["estimate"])
    assert sorted(frame["ci_low"]) == sorted(expected["ci_low"])
    rankviz.plots.slices(results, ax=plt.subplots()[1])
    with pytest.raises(InputError, match="per segment.*plots.slices"):
        rankviz.plots.ci(results)
    with pytest.raises(InputError, match="one per segment"):
        rankviz.plots.bootstrap_distribution(results, system="bm25")
    with pytest.raises(InputError, match="not a comparison"):
        rankviz.plots.slices(quiet(rankviz.compare, run, "bm25", "RR@10", qrels, by="first_hit", n_resamples=50))
    with pytest.raises(InputError, match="no segments"):
        rankviz.plots.slices(quiet(rankviz.bootstrap, run, "RR@10", qrels, n_resamples=50, rng=0))
    plt.close("all")
