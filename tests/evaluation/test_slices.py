"""Slices (issue 24 item 1): ``by=`` on evaluate, bootstrap, compare and summary.

The numbers of a segment are a pandas groupby of the per-query table, and its statistics are
those of the unsliced function on the segment's queries.
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz._errors import ColumnError, DegenerateDataWarning, InputError
from rankviz.evaluation.slices import FIRST_HIT_BUCKETS, MISSING
from rankviz.stats import holm
from tests.conftest import shared_path

MEASURES = ["RR@10", "nDCG@10", "R@100", "AP"]
COVID_RUNS = ["BERT", "smith.bm25", "T5R1", "run1"]


@cache
def example():
    return rankviz.datasets.load_example()


@cache
def covid():
    base = shared_path("trec_covid_round1")
    qrels = rankviz.read_qrels(base / "qrels-rnd1.txt")
    runs = pd.concat([rankviz.read_run(base / "runs" / n, system=n) for n in COVID_RUNS], ignore_index=True)
    return runs, qrels


def groupby_table(per_query: pd.DataFrame, by: list[str], names: list[str]) -> pd.DataFrame:
    """What a user would write: the per-query table grouped by system and segment, one row per measure."""
    parts = []
    for name in names:
        grouped = per_query.groupby(["system", *by], observed=True, sort=False)[name]
        part = grouped.agg(["size", "mean"]).rename(columns={"size": "n"})
        part["zero_share"] = (
            per_query[name].eq(0).groupby([per_query[k] for k in ["system", *by]], observed=True).mean()
        )
        parts.append(part.reset_index().assign(measure=name))
    return pd.concat(parts, ignore_index=True)


def assert_equals_groupby(tidy: pd.DataFrame, per_query: pd.DataFrame, by: list[str], names: list[str]) -> None:
    expected = groupby_table(per_query, by, names)
    keys = ["system", *by, "measure"]
    got = tidy.astype(dict.fromkeys(by, str)).set_index(keys).sort_index()
    want = expected.astype(dict.fromkeys(by, str)).set_index(keys).sort_index()
    assert got.index.equals(want.index)
    assert (got["n"].to_numpy() == want["n"].to_numpy()).all()
    assert (got["mean"].to_numpy() == want["mean"].to_numpy()).all()  # exactly, not approximately
    assert (got["zero_share"].to_numpy() == want["zero_share"].to_numpy()).all()


@pytest.mark.parametrize("by", ["n_relevant", "first_hit", "judged_share", "query_length", ["first_hit", "n_relevant"]])
def test_evaluate_by_equals_a_groupby_of_the_per_query_table_on_the_example(by):
    run, qrels, queries = example()
    per_query = rankviz.evaluate(run, MEASURES, qrels, by=by, queries=queries, per_query=True)
    names = [by] if isinstance(by, str) else by
    plain = rankviz.evaluate(run, MEASURES, qrels, per_query=True)
    pd.testing.assert_frame_equal(per_query.drop(columns=names), plain, check_like=False)
    tidy = rankviz.evaluate(run, MEASURES, qrels, by=by, queries=queries)
    assert list(tidy.columns) == ["system", *names, "measure", "n", "mean", "zero_share"]
    assert_equals_groupby(tidy, per_query, names, MEASURES)
    assert tidy.groupby(["system", "measure"])["n"].sum().eq(600).all()  # every query in exactly one segment


@pytest.mark.parametrize("by", ["n_relevant", "first_hit", "judged_share"])
def test_evaluate_by_equals_a_groupby_on_the_trec_covid_runs(by):
    runs, qrels = covid()
    per_query = rankviz.evaluate(runs, MEASURES, qrels, by=by, per_query=True)
    tidy = rankviz.evaluate(runs, MEASURES, qrels, by=by)
    assert_equals_groupby(tidy, per_query, [by], MEASURES)
    assert set(tidy["system"]) == set(COVID_RUNS)


def test_built_in_attributes_mean_what_they_say():
    run, qrels, queries = example()
    per_query = rankviz.evaluate(
        run, ["RR@10", "Judged@10", "NumRel"], qrels, by=["first_hit", "judged_share", "query_length"],
        queries=queries, per_query=True,
    )  # fmt: skip
    first = rankviz.first_relevant_rank(run, qrels).reset_index()
    joined = per_query.merge(first, on=["system", "query_id"])
    rank = joined["first_relevant_rank"]
    expected = np.select(
        [rank.isna().to_numpy(), (rank <= 1).fillna(False), (rank <= 3).fillna(False), (rank <= 10).fillna(False)],
        ["none", "1", "2-3", "4-10"],
        ">10",
    )
    assert (joined["first_hit"].astype(str).to_numpy() == expected).all()
    assert list(per_query["first_hit"].cat.categories) == [c for c in FIRST_HIT_BUCKETS if c in set(expected)]
    # Judged@10 has at most 11 values, so each value is its own segment: the label is the value
    assert (per_query["judged_share"].astype(str) == per_query["Judged@10"].map(lambda v: f"{v:g}")).all()
    # query length: words of the text, cut into quartile bins whose labels hold their values
    words = queries.set_index("query_id")["text"].str.count(r"\w+")
    lengths = per_query["query_id"].map(words)
    for label, part in lengths.groupby(per_query["query_length"], observed=True):
        low, high = (int(v) for v in str(label).strip("[]").split(", "))
        assert part.min() == low and part.max() == high
    assert per_query["query_length"].cat.ordered and len(per_query["query_length"].cat.categories) == 4


def test_numeric_attributes_are_cut_into_quantile_bins_and_few_levels_stay_values():
    run, qrels, _ = example()
    ids = sorted(run["query_id"].unique())
    many = pd.Series(np.arange(len(ids), dtype=float), index=ids, name="age")
    few = {q: i % 3 for i, q in enumerate(ids[:-10])}  # the last 10 queries have no value
    per_query = rankviz.evaluate(run, "RR@10", qrels, by=[many, few], per_query=True)
    ages = per_query.drop_duplicates("query_id").groupby("age", observed=True).size()
    assert len(ages) == 4 and ages.max() - ages.min() <= 1  # equal counts
    assert list(per_query["age"].cat.categories)[0] == "[0, 149]"
    assert list(per_query["segment"].cat.categories) == ["0", "1", "2", MISSING]
    assert (per_query["segment"] == MISSING).sum() == 10 * 4


def test_run_and_queries_columns_and_a_named_series():
    run, qrels, queries = example()
    topics = queries.assign(area=np.where(queries["query_id"] < "q0300", "early", "late"))
    tidy = rankviz.evaluate(run, "RR@10", qrels, by="area", queries=topics)
    assert set(tidy["area"]) == {"early", "late"}
    tagged = run.assign(source=np.where(run["query_id"] < "q0100", "faq", "docs"))
    before = tagged.copy()
    tidy_run = rankviz.evaluate(tagged, "RR@10", qrels, by="source")
    pd.testing.assert_frame_equal(tagged, before)  # the caller's frame is unchanged
    assert tidy_run.set_index(["system", "source"])["n"].loc[("bm25", "faq")] == 99
    # a column of the run that varies within a query is refused, naming it
    tagged.loc[0, "source"] = "blog"
    with pytest.raises(InputError, match="'source' has several values for system 'bm25', query_id 'q0001'"):
        rankviz.evaluate(tagged, "RR@10", qrels, by="source")


def test_bad_by_values_name_the_fix():
    run, qrels, _ = example()
    with pytest.raises(ColumnError, match="not a column of the run or of queries=.*n_relevant, query_length"):
        rankviz.evaluate(run, "RR@10", qrels, by="difficulty")
    with pytest.raises(InputError, match="query_length' needs the query texts: pass queries="):
        rankviz.evaluate(run, "RR@10", qrels, by="query_length")
    with pytest.raises(InputError, match="column name, a built-in name"):
        rankviz.evaluate(run, "RR@10", qrels, by=3)
    with pytest.raises(InputError, match="twice"):
        rankviz.evaluate(run, "RR@10", qrels, by=pd.Series(["a", "b"], index=["q0001", "q0001"]))


def test_bootstrap_by_intervals_equal_the_unsliced_bootstrap_on_each_segment():
    run, qrels, _ = example()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        sliced = rankviz.bootstrap(run, ["RR@10", "nDCG@10"], qrels, by="n_relevant", rng=7, n_resamples=2000)
    assert type(sliced) is rankviz.BootstrapResults and sliced.by == ("n_relevant",)  # one type, a segment level
    table = sliced.to_frame().rename(columns={"estimate": "mean", "n_queries": "n"})
    per_query = rankviz.evaluate(run, ["RR@10", "nDCG@10"], qrels, by="n_relevant", per_query=True)
    assert_equals_groupby(table, per_query, ["n_relevant"], ["RR@10", "nDCG@10"])
    for segment, part in per_query.groupby("n_relevant", observed=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            alone = rankviz.stats.bootstrap(
                part.drop(columns="n_relevant"), ["RR@10", "nDCG@10"], rng=7, n_resamples=2000
            )
        for r in alone:
            row = table[
                (table["system"] == r.system) & (table["n_relevant"] == segment) & (table["measure"] == r.measure)
            ]
            assert (row["ci_low"].item(), row["ci_high"].item()) == tuple(r.confidence_interval)
            assert row["method"].item() == r.method


def test_compare_by_rows_equal_the_unsliced_compare_on_each_segment_corrected_once():
    run, qrels, _ = example()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        sliced = rankviz.compare(run, "bm25", ["RR@10", "nDCG@10"], qrels, by="first_hit", rng=3, n_resamples=2000)
    table = sliced.table
    assert type(sliced) is rankviz.Comparison  # one type, a segment level
    assert sliced.correction == "holm" and sliced.by == ("first_hit",)
    assert (table["p_corrected"].to_numpy() == holm(table["p_value"].to_numpy())).all()
    per_query = rankviz.evaluate(run, ["RR@10", "nDCG@10"], qrels, by="first_hit", per_query=True)
    base = per_query[per_query["system"] == "bm25"].set_index("query_id")["first_hit"]
    for segment in table["first_hit"].unique():
        queries_in = base.index[base == segment]
        part = per_query[per_query["query_id"].isin(queries_in)].drop(columns="first_hit")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            alone = rankviz.stats.compare(part, baseline="bm25", measures=["RR@10", "nDCG@10"], correction=None,
                                          rng=3, n_resamples=2000).table  # fmt: skip
        mine = table[table["first_hit"] == segment].drop(columns=["first_hit", "p_corrected"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone.drop(columns="p_corrected"), check_dtype=False)
        # the difference is the groupby mean of the per-query differences (the baseline's segments)
        wide = part.pivot(index="query_id", columns="system", values="RR@10")
        want = (wide.drop(columns="bm25").sub(wide["bm25"], axis=0)).mean()
        got = mine[mine["measure"] == "RR@10"].set_index("system")["difference"]
        assert np.allclose(got.sort_index(), want.sort_index(), rtol=0, atol=1e-12)


def planted(interaction: bool, n=300, seed=0) -> pd.DataFrame:
    """Per-query RR-like values of two systems; with ``interaction`` the system only helps in segment 'b'."""
    rng = np.random.default_rng(seed)
    base = rng.choice([0.0, 0.25, 0.5, 1.0], size=n)
    segment = np.array(["a", "b", "c"])[np.arange(n) % 3]
    lift = np.where(segment == "b", 0.3, 0.0) if interaction else np.full(n, 0.1)
    system = np.clip(base + lift + rng.normal(0, 0.2, n), 0, 1)
    ids = [f"q{i:03d}" for i in range(n)]
    return pd.DataFrame(
        {"system": ["base"] * n + ["new"] * n, "query_id": ids * 2, "RR@10": np.r_[base, system],
         "segment": pd.Categorical(np.r_[segment, segment], ordered=True)}
    )  # fmt: skip


def segmented(table: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """``table`` marked as carrying the segment columns ``by`` (what evaluate(..., by=, per_query=True) does)."""
    table.attrs["rankviz"] = {"by": by}
    return table


def test_the_heterogeneity_test_finds_an_interaction_and_not_a_constant_shift():
    def heterogeneity(table):
        return rankviz.stats.compare(segmented(table, ["segment"]), baseline="base", measures=["RR@10"], test="t",
                                     correction="holm", rng=1, n_resamples=2000).heterogeneity  # fmt: skip

    varies, shift = heterogeneity(planted(True)), heterogeneity(planted(False))
    assert varies["p_value"].item() < 0.001
    assert shift["p_value"].item() > 0.05
    table = planted(True)
    d = table[table.system == "new"]["RR@10"].to_numpy() - table[table.system == "base"]["RR@10"].to_numpy()
    seg = table[table.system == "base"]["segment"].to_numpy()
    between = sum(len(d[seg == s]) * (d[seg == s].mean() - d.mean()) ** 2 for s in "abc")
    assert varies["statistic"].item() == pytest.approx(between, rel=1e-9)
    assert varies["n_segments"].item() == 3 and varies["test"].item() == "permutation"


def test_summary_by_rows_equal_the_summary_of_each_segment():
    run, qrels, _ = example()
    ids = sorted(run["query_id"].unique())
    half = pd.Series(["first" if i < 300 else "second" for i in range(len(ids))], index=ids, name="half")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sliced = rankviz.summary(run, qrels, by=half, rng=2, n_resamples=1000)
        alone = rankviz.summary(run[run["query_id"].isin(ids[300:])], qrels[qrels["query_id"].isin(ids[300:])],
                                rng=2, n_resamples=1000)  # fmt: skip
    assert sliced.index.names == ["system", "half"]
    got = sliced.xs("second", level="half")
    columns = [c for c in alone.columns if c not in ("n_unjudged_in_run", "n_unannotated")]
    pd.testing.assert_frame_equal(got[columns], alone[columns], check_dtype=False)


def test_the_accessor_takes_by_too():
    run, qrels, queries = example()
    direct = rankviz.evaluate(run, "RR@10", qrels, by="first_hit")
    pd.testing.assert_frame_equal(run.rank.evaluate("RR@10", qrels, by="first_hit"), direct)
    assert "by" in str(__import__("inspect").signature(run.rank.compare))
