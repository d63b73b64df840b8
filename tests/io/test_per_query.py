"""rankviz.io.per_query: the one reader of per-query tables that statistics, plots and widgets share."""

from __future__ import annotations

import pandas as pd
import pytest

import rankviz
from rankviz.io.per_query import is_reciprocal_rank, per_query_table


def _table(column: str) -> pd.DataFrame:
    return pd.DataFrame(
        {"system": ["a"] * 40, "query_id": [f"q{i}" for i in range(40)], column: [1.0, 0.5, 0.0, 0.25] * 10}
    )


@pytest.mark.parametrize("column", ["RR@10", "MRR@10", "recip_rank", "RR(rel=2)@5"])
def test_a_reciprocal_rank_column_is_one_whatever_its_spelling(column):
    assert is_reciprocal_rank(column)
    result = rankviz.stats.bootstrap(_table(column), column, n_resamples=200, rng=0)["a", column]
    assert result.zero_share == 0.25  # the zero problem is reported for every spelling of RR, not only 'RR...'


@pytest.mark.parametrize("column", ["nDCG@10", "R@100", "AP", "not a measure", "RRF score"])
def test_other_columns_are_not(column):
    assert not is_reciprocal_rank(column)


def test_measure_columns_and_systems_are_read_one_way():
    table = per_query_table(pd.concat([_table("RR@10"), _table("RR@10").assign(system="b")]), "x")
    assert table.systems() == ["a", "b"]
    assert table.measure_column("MRR@10", "x") == "RR@10" and table.measure_columns(None, "x") == ["RR@10"]
    with pytest.raises(rankviz.ColumnError, match=r"x: the per-query table has no column for measure 'AP'"):
        table.measure_columns(["AP"], "x")
    with pytest.raises(rankviz.ColumnError, match=r"failures: the per-query table has no column for measure 'AP'"):
        rankviz.plots.failures(table.frame, measure="AP", system="a")
    with pytest.raises(rankviz.ColumnError, match=r"bootstrap: the per-query table has no column for measure 'AP'"):
        rankviz.stats.bootstrap(table.frame, "AP")
