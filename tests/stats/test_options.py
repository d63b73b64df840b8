"""rankviz.stats.options: one statistics options value, the same parameters, checks and docs everywhere."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz.datasets import load_example
from rankviz.stats.options import OPTION_NAMES, StatsOptions

RESAMPLING = [
    (rankviz.stats.bootstrap, "bca", OPTION_NAMES),
    (rankviz.stats.compare, "t", OPTION_NAMES),
    (rankviz.stats.significance_table, "bca", OPTION_NAMES),
    (rankviz.stats.all_pairs, None, ("n_resamples", "rng", "batch")),
    (rankviz.bootstrap, "bca", OPTION_NAMES),
    (rankviz.compare, "t", OPTION_NAMES),
    (rankviz.table, "bca", OPTION_NAMES),
    (rankviz.summary, None, ("n_resamples", "confidence_level", "rng")),
]


@pytest.mark.parametrize("func, method, names", RESAMPLING, ids=[f.__qualname__ for f, _, _ in RESAMPLING])
def test_every_resampling_function_shows_the_same_options_with_one_description(func, method, names):
    params = inspect.signature(func).parameters
    assert [n for n in OPTION_NAMES if n in params] == list(names)
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in names)
    assert params["n_resamples"].default == 10_000 and params["rng"].default is None
    if method is not None:
        assert params["method"].default == method
    assert "Statistics options (keyword-only, the same for every statistics call)" in func.__doc__
    assert func.__doc__.count("n_resamples : int, default 10000") == 1


def test_the_run_level_plots_take_the_statistics_options_too():
    run, qrels, _ = load_example()
    for method in (run.rank.plot.ci, run.rank.plot.bootstrap_distribution):
        assert set(OPTION_NAMES) <= set(inspect.signature(method).parameters)


def _table():
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "system": ["a"] * 30 + ["b"] * 30 + ["c"] * 30,
            "query_id": [f"q{i}" for i in range(30)] * 3,
            "AP": rng.random(90),
        }
    )


def test_checks_name_the_caller_and_the_parameter():
    table = _table()
    with pytest.raises(rankviz.InputError, match=r"'n_resamples' parameter of significance_table must be at least 40"):
        rankviz.stats.significance_table(table, "AP", n_resamples=10)
    with pytest.raises(rankviz.InputError, match=r"'method' parameter of bootstrap must be one of 'bca', 'percentile'"):
        rankviz.stats.bootstrap(table, "AP", method="t")
    with pytest.raises(rankviz.InputError, match=r"'rng' parameter of compare must be None, an int seed"):
        rankviz.stats.compare(table, baseline="a", rng=-1)
    with pytest.raises(rankviz.UnknownOptionError, match=r"bootstrap\(\).*'n_resample'"):
        rankviz.stats.bootstrap(table, "AP", n_resample=100)


def test_a_generator_is_drawn_once_per_call_and_its_entropy_travels_down():
    table = _table()
    one = rankviz.stats.significance_table(table, "AP", n_resamples=200, rng=np.random.default_rng(5))
    two = rankviz.stats.significance_table(table, "AP", n_resamples=200, rng=np.random.default_rng(5))
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())
    options = StatsOptions.resolve("x", rng=np.random.default_rng(5))
    assert len(options.entropy) == 2 and options.seed is None
    assert StatsOptions.resolve("x", rng=7).entropy == (7,) and StatsOptions.resolve("x", rng=7).seed == 7


def test_an_int_seed_gives_the_intervals_of_the_table_and_of_bootstrap_alike():
    table = _table()
    result = rankviz.stats.significance_table(table, "AP", n_resamples=300, rng=4)
    alone = rankviz.stats.bootstrap(table, "AP", n_resamples=300, rng=4).to_frame().set_index("system")
    assert result.ci_low["AP"].tolist() == alone.loc[list(result.systems), "ci_low"].tolist()


def test_level_is_the_confidence_level_and_refuses_none():
    """``StatsOptions.level`` (what the intervals use) is the checked level; without one it refuses, not 0.95."""
    assert StatsOptions.resolve("x", confidence_level=0.9).level == 0.9
    none = StatsOptions.resolve("x", confidence_level=None, optional_level=True)
    assert none.confidence_level is None
    with pytest.raises(TypeError, match="without a confidence level"):
        _ = none.level
    result = rankviz.stats.bootstrap(_table(), "AP", confidence_level=0.9, n_resamples=200, rng=0)
    assert {r.confidence_level for r in result.results} == {0.9}
