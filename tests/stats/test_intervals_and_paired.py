"""Bootstrap intervals, paired tests, corrections and the zero problem."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import rankviz
from rankviz import stats


def _rr_sample(n, zero_share, rng):
    ranks = rng.integers(1, 11, n)
    return np.where(rng.random(n) < zero_share, 0.0, 1.0 / ranks)


def _table(values, measure="RR@10", system=None):
    frame = pd.DataFrame({"query_id": [f"q{i}" for i in range(len(values))], measure: values})
    if system is not None:
        frame.insert(0, "system", system)
    return frame


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("zero_share", [0.15, 0.6])
def test_interval_agrees_with_scipy_bootstrap(method, zero_share):
    rng = np.random.default_rng(11)
    x = _rr_sample(200, zero_share, rng)
    ours = stats.bootstrap(_table(x), "RR@10", n_resamples=10_000, method=method, rng=1)["RR@10"]
    theirs = sps.bootstrap((x,), np.mean, n_resamples=10_000, method=method, rng=2)
    width = theirs.confidence_interval.high - theirs.confidence_interval.low
    # Monte Carlo SD of an endpoint at 10,000 resamples is about 0.7% of the width; allow ~5 SD of the difference.
    assert abs(ours.confidence_interval.low - theirs.confidence_interval.low) < 0.05 * width
    assert abs(ours.confidence_interval.high - theirs.confidence_interval.high) < 0.05 * width
    assert math.isclose(ours.standard_error, theirs.standard_error, rel_tol=0.05)
    assert ours.method == method and ours.n_resamples == 10_000 and ours.n_queries == 200
    assert ours.estimate == pytest.approx(x.mean())


def test_randomization_p_agrees_with_scipy_permutation_test():
    rng = np.random.default_rng(5)
    base = _rr_sample(120, 0.4, rng)
    better = np.clip(base + rng.normal(0.03, 0.2, 120) * (rng.random(120) < 0.5), 0, 1)
    table = pd.concat([_table(base, system="a"), _table(better, system="b")], ignore_index=True)
    ours = stats.compare(table, baseline="a", test="randomization", correction=None, n_resamples=10_000, rng=3)
    theirs = sps.permutation_test(
        (better, base),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=10_000,
        rng=4,
        vectorized=True,
    )
    assert abs(ours.table["p_value"].iloc[0] - theirs.pvalue) < 0.012  # p-value Monte Carlo SE ~0.003 at these values


def test_exact_randomization_for_small_n_equals_scipy_exact():
    d_base = np.array([0.0, 0.5, 1.0, 0.25, 0.0, 1.0, 0.2, 0.1])
    d_sys = np.array([1.0, 0.5, 1.0, 0.5, 0.2, 0.33, 1.0, 0.5])
    table = pd.concat([_table(d_base, system="a"), _table(d_sys, system="b")], ignore_index=True)
    with pytest.warns(rankviz.DegenerateDataWarning):
        ours = stats.compare(table, baseline="a", correction=None, n_resamples=10_000, rng=0)
    theirs = sps.permutation_test(
        (d_sys, d_base),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=10_000,
        vectorized=True,
    )
    assert ours.table["p_value"].iloc[0] == pytest.approx(theirs.pvalue, abs=1e-12)


def test_t_test_and_interval_match_scipy():
    rng = np.random.default_rng(8)
    a, b = rng.random(60), rng.random(60)
    table = pd.concat([_table(a, "AP", "a"), _table(b, "AP", "b")], ignore_index=True)
    res = stats.compare(table, baseline="a", test="t", correction=None, n_resamples=2000, rng=0).table.iloc[0]
    t = sps.ttest_rel(b, a)
    ci = t.confidence_interval(0.95)
    assert res["p_value"] == pytest.approx(t.pvalue, rel=1e-9)
    assert (res["ci_low"], res["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)  # method='t', the default
    with pytest.warns(rankviz.DegenerateDataWarning, match="bca interval of a mean difference covers less"):
        boot = stats.compare(table, baseline="a", test="t", method="bca", n_resamples=2000, rng=0).table.iloc[0]
    assert (boot["t_ci_low"], boot["t_ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)
    w = stats.compare(table, baseline="a", test="wilcoxon", correction=None, n_resamples=2000, rng=0).table.iloc[0]
    assert w["p_value"] == pytest.approx(sps.wilcoxon(b - a).pvalue, rel=1e-9)
    assert res["effect_size"] == pytest.approx((b - a).mean() / (b - a).std(ddof=1))
    assert res["wins"] + res["ties"] + res["losses"] == 60


def test_holm_and_bh():
    p = [0.01, 0.04, 0.03, 0.005]
    np.testing.assert_allclose(stats.holm(p), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(stats.benjamini_hochberg(p), sps.false_discovery_control(p))
    # the public functions refuse a missing p-value (adjusting over the others changes the family in silence);
    # the statistics' own untestable pairs (NaN) are left out by the internal variant
    with pytest.raises(rankviz.InputError, match="p-value 1 is missing"):
        stats.holm([0.01, np.nan, 0.04])
    from rankviz.stats.inference import holm_kept_nan

    with_nan = holm_kept_nan([0.01, np.nan, 0.04])
    assert np.isnan(with_nan[1]) and with_nan[0] == pytest.approx(0.02)


def test_wilson_interval_known_values():
    assert stats.wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert stats.wilson_interval(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert all(math.isnan(v) for v in stats.wilson_interval(0, 0))


def test_zero_problem_identity_and_intervals():
    rng = np.random.default_rng(2)
    x = _rr_sample(300, 0.3, rng)
    res = stats.bootstrap(_table(x), "RR@10", rng=0)["RR@10"]
    assert res.zero_share == pytest.approx((x == 0).mean())
    assert res.nonzero_estimate == pytest.approx(x[x > 0].mean())
    assert res.estimate == pytest.approx((1 - res.zero_share) * res.nonzero_estimate)
    low, high = res.zero_share_interval
    assert (low, high) == pytest.approx(stats.wilson_interval(int((x == 0).sum()), 300))
    assert res.nonzero_interval.low < res.nonzero_estimate < res.nonzero_interval.high
    assert res.confidence_interval.low < res.estimate < res.confidence_interval.high
    assert "bootstrap_distribution" not in repr(res) and "zero_share" in repr(res)
    assert len(res.bootstrap_distribution) == 10_000


def test_paired_bootstrap_uses_same_resamples_for_all_systems():
    rng = np.random.default_rng(4)
    x = _rr_sample(100, 0.3, rng)
    table = pd.concat([_table(x, system="a"), _table(x, system="b")], ignore_index=True)
    res = stats.bootstrap(table, "RR@10", rng=0, n_resamples=2000)
    np.testing.assert_array_equal(res["a"].bootstrap_distribution, res["b"].bootstrap_distribution)


def test_several_measures_give_tidy_table():
    rng = np.random.default_rng(6)
    table = pd.DataFrame(
        {"query_id": [f"q{i}" for i in range(50)], "RR@10": _rr_sample(50, 0.3, rng), "nDCG@10": rng.random(50)}
    )
    tidy = stats.bootstrap(table, ["RR@10", "nDCG@10"], rng=0, n_resamples=2000).to_frame()
    assert list(tidy["measure"]) == ["RR@10", "nDCG@10"]
    assert {"estimate", "ci_low", "ci_high", "standard_error", "method", "n_queries", "n_resamples"} <= set(
        tidy.columns
    )


def test_pairing_is_by_query_id_not_row_order():
    rng = np.random.default_rng(9)
    a, b = rng.random(80), rng.random(80)
    table = pd.concat([_table(a, "AP", "a"), _table(b, "AP", "b")], ignore_index=True)
    shuffled = table.sample(frac=1.0, random_state=1).reset_index(drop=True)
    first = stats.compare(table, baseline="a", rng=0, n_resamples=3000)
    second = stats.compare(
        shuffled.sort_values("query_id", key=lambda s: s.str.len()), baseline="a", rng=0, n_resamples=3000
    )
    assert first.table["difference"].iloc[0] == pytest.approx(second.table["difference"].iloc[0])
    assert first.table["wins"].iloc[0] == second.table["wins"].iloc[0]


def test_compare_on_runs_dict_equals_frame_with_system_column():
    from rankviz.datasets import load_example

    run, qrels, _ = load_example()
    runs = {name: part.drop(columns="system") for name, part in run.groupby("system") if name in ("bm25", "tfidf")}
    both = run[run.system.isin(["bm25", "tfidf"])]
    a = rankviz.compare(runs, baseline="bm25", measures=["RR@10", "nDCG@10"], qrels=qrels, rng=0, n_resamples=2000)
    b = both.rank.compare("bm25", ["RR@10", "nDCG@10"], qrels=qrels, rng=0, n_resamples=2000)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert (a.table["p_corrected"] >= a.table["p_value"]).all()
    assert set(a.table["measure"]) == {"RR@10", "nDCG@10"}
    assert (a.test, a.correction, a.rng, a.baseline) == ("randomization", "holm", 0, "bm25")


def test_degenerate_all_zero():
    with pytest.warns(rankviz.DegenerateDataWarning, match="every query has RR = 0"):
        res = stats.bootstrap(_table(np.zeros(40)), "RR@10", rng=0)["RR@10"]
    assert res.estimate == 0 and tuple(res.confidence_interval) == (0.0, 0.0)
    assert res.method == "percentile" and res.zero_share == 1.0


def test_constant_sample_falls_back_to_percentile():
    with pytest.warns(rankviz.DegenerateDataWarning, match="BCa is undefined"):
        res = stats.bootstrap(_table(np.full(30, 0.5), "AP"), "AP", rng=0)["AP"]
    assert res.method == "percentile" and tuple(res.confidence_interval) == (0.5, 0.5)
    assert any("same AP" in note for note in res.notes)


def test_small_n_warns():
    with pytest.warns(rankviz.DegenerateDataWarning, match="only 8 queries"):
        stats.bootstrap(_table(np.linspace(0, 1, 8), "AP"), "AP", rng=0)["AP"]


def test_tied_paired_scores_get_the_t_interval_and_a_bootstrap_interval_says_it_under_covers():
    """The coverage benchmark chose the paired t-interval (0.934-0.959 on tied IR data; the bootstraps 0.83-0.95)."""
    rng = np.random.default_rng(1)
    a = rng.random(40)
    b = a.copy()
    b[:10] += 0.1
    table = pd.concat([_table(a, "AP", "a"), _table(b, "AP", "b")], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = stats.compare(table, baseline="a", rng=0, n_resamples=2000)
    row = res.table.iloc[0]
    assert row["ties"] == 30 and row["ci_method"] == "t" and res.method == "t"
    assert "t_ci_low" not in res.table.columns and "t_ci_high" not in res.table.columns  # ci_low/ci_high are it
    with pytest.warns(
        rankviz.DegenerateDataWarning, match=r"a bca interval of a mean difference covers less than its level"
    ):
        bca = stats.compare(table, baseline="a", rng=0, n_resamples=2000, method="bca")
    assert bca.table["ci_method"].iloc[0] == "bca"
    # said once per call, not once per system x measure
    three = pd.concat([table, _table(b + 0.01, "AP", "c")], ignore_index=True)
    with pytest.warns(rankviz.DegenerateDataWarning) as caught:
        stats.compare(three, baseline="a", rng=0, n_resamples=2000, method="bca")
    assert sum(str(w.message).count("a bca interval of a mean difference") for w in caught) == 1


def test_few_non_zero_queries_warn_as_calibrated():
    """Fewer than 15 non-zero queries and >= 80% zeros: the rule benchmarks/coverage.py calibrated."""
    sparse = np.zeros(60)
    sparse[:6] = [1.0, 0.5, 0.25, 1.0, 0.2, 0.5]
    with pytest.warns(
        rankviz.DegenerateDataWarning, match=r"non-zero on only 6 of 60 queries.*Report the share of zero"
    ):
        stats.bootstrap(_table(sparse), "RR@10", rng=0, n_resamples=500)
    moderate = np.zeros(25)
    moderate[:12] = 0.5  # 13 zeros of 25 (52%): its interval holds, no warning
    moderate[:12] += np.linspace(0, 0.4, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stats.bootstrap(_table(moderate), "RR@10", rng=0, n_resamples=500)


def test_no_warnings_on_healthy_data():
    rng = np.random.default_rng(12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stats.bootstrap(_table(_rr_sample(200, 0.3, rng)), "RR@10", rng=0, n_resamples=2000)["RR@10"]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"measures": "nDCG@5"}, rankviz.ColumnError, r"no column for measure 'nDCG@5'; it has 'AP'"),
        (
            {"n_resamples": 0},
            rankviz.InputError,
            r"The 'n_resamples' parameter of bootstrap must be an int in the range \[1, inf\)",
        ),
        (
            {"confidence_level": 1.0},
            rankviz.InputError,
            r"The 'confidence_level' parameter of bootstrap must be a float in the open interval \(0, 1\)\. Got 1\.0",
        ),
        ({"confidence_level": 0}, rankviz.InputError, r"open interval \(0, 1\)\. Got 0 instead"),
        (
            {"method": "basic"},
            rankviz.InputError,
            r"The 'method' parameter of bootstrap must be one of 'bca', 'percentile'",
        ),
    ],
)
def test_bootstrap_errors(kwargs, error, message):
    table = _table(np.linspace(0, 1, 30), "AP")
    with pytest.raises(error, match=message):
        stats.bootstrap(table, **kwargs)


def test_compare_errors():
    table = pd.concat(
        [_table(np.linspace(0, 1, 30), "AP", "a"), _table(np.linspace(0, 1, 30), "AP", "b")], ignore_index=True
    )
    with pytest.raises(rankviz.InputError, match=r"unknown baseline 'bm25'; the systems are 'a', 'b'"):
        stats.compare(table, baseline="bm25")
    other = table.assign(query_id=np.where(table.system == "b", "x" + table.query_id, table.query_id))
    with pytest.raises(rankviz.InputError, match=r"system 'b' has no queries in common with the baseline 'a'"):
        stats.compare(other, baseline="a")
    with pytest.raises(
        rankviz.InputError, match=r"'n_resamples' parameter of compare must be an int in the range \[1, inf\)"
    ):
        stats.compare(table, baseline="a", n_resamples=0)
    with pytest.raises(
        rankviz.InputError, match=r"'confidence_level' parameter of compare must be a float in the open interval"
    ):
        stats.compare(table, baseline="a", confidence_level=95)
    with pytest.raises(rankviz.ColumnError, match=r"no column for measure 'RR@10'"):
        stats.compare(table, baseline="a", measures="RR@10")
    with pytest.raises(
        rankviz.InputError, match=r"The 'test' parameter of compare must be one of 'randomization', 't', 'wilcoxon'"
    ):
        stats.compare(table, baseline="a", test="sign")
    with pytest.raises(rankviz.ColumnError, match="compare needs several systems"):
        stats.compare(_table(np.linspace(0, 1, 30), "AP"), baseline="a")


def test_bootstrap_is_reproducible_with_rng():
    x = _table(np.random.default_rng(0).random(50), "AP")
    a = stats.bootstrap(x, "AP", rng=42, n_resamples=1000)["AP"]
    b = stats.bootstrap(x, "AP", rng=42, n_resamples=1000)["AP"]
    assert a.confidence_interval == b.confidence_interval


# ----------------------------------------------------------------------------- independent of the rest of the call


def _systems(n_systems, n_queries, seed):
    rng = np.random.default_rng(seed)
    base = rng.random(n_queries)
    frames = []
    for s in range(n_systems):
        values = np.clip(base + rng.normal(0, 0.2, n_queries), 0, 1) * (rng.random(n_queries) > 0.4)
        frame = pd.DataFrame(
            {
                "system": f"s{s}",
                "query_id": [f"q{i:03d}" for i in range(n_queries)],
                "RR@10": values,
                "nDCG@10": np.clip(values + 0.1, 0, 1),
            }
        )
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_same_seed_same_interval_alone_with_others_reordered_and_with_missing_queries():
    table = _systems(51, 40, seed=1)
    alone = stats.bootstrap(table[table.system == "s0"], ["RR@10", "nDCG@10"], rng=11, n_resamples=2000)
    shuffled = table.sample(frac=1.0, random_state=3).reset_index(drop=True)
    # others in another row order, and some of them missing a query (so they form other groups)
    gappy = shuffled[~((shuffled.system.isin(["s3", "s7", "s9"])) & (shuffled.query_id == "q005"))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.DegenerateDataWarning)
        crowd = stats.bootstrap(gappy, ["RR@10", "nDCG@10"], rng=11, n_resamples=2000)
    for measure in ("RR@10", "nDCG@10"):
        mine, theirs = alone["s0", measure], crowd["s0", measure]
        assert mine.confidence_interval == theirs.confidence_interval, measure
        np.testing.assert_array_equal(mine.bootstrap_distribution, theirs.bootstrap_distribution)
    # systems with the same queries are still paired (the same resamples), whatever their rows' order
    assert (
        crowd["s1", "RR@10"].confidence_interval
        == stats.bootstrap(table[table.system == "s1"], "RR@10", rng=11, n_resamples=2000)["RR@10"].confidence_interval
    )


def test_compare_pair_does_not_depend_on_the_other_systems():
    table = _systems(8, 60, seed=2)
    pair = table[table.system.isin(["s0", "s1"])]
    alone = stats.compare(pair, baseline="s0", rng=5, n_resamples=2000).table.set_index(["system", "measure"])
    crowd = stats.compare(table.iloc[::-1], baseline="s0", rng=5, n_resamples=2000).table.set_index(
        ["system", "measure"]
    )
    # everything but the corrected p-value (its family is the whole call) is the same
    pd.testing.assert_frame_equal(
        alone.loc[["s1"]].drop(columns="p_corrected"), crowd.loc[["s1"]].drop(columns="p_corrected")
    )


@pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")
def test_interval_does_not_move_with_summation_order():
    """Mostly-zero data: many resample means equal the estimate; rounding must not decide their side."""
    values = np.r_[np.zeros(25), [0.1, 0.2, 1 / 3, 0.05, 0.0625]]
    one = stats.bootstrap(_table(values, "RR@10"), "RR@10", rng=0, n_resamples=4000)["RR@10"]
    table = _table(values, "RR@10").assign(other=values[::-1].copy(), third=np.sqrt(values))
    many = stats.bootstrap(table, ["RR@10", "other", "third"], rng=0, n_resamples=4000)["run", "RR@10"]
    assert one.confidence_interval == many.confidence_interval


# ----------------------------------------------------------------------------- bad per-query tables refused


def test_duplicate_and_missing_cells_are_refused_naming_system_query_and_column():
    table = pd.concat(
        [_table(np.linspace(0, 1, 30), "AP", "a"), _table(np.linspace(0, 1, 30), "AP", "b")], ignore_index=True
    )
    doubled = pd.concat([table, table.iloc[[0]]], ignore_index=True)
    for call in (lambda t: stats.compare(t, baseline="a"), lambda t: stats.bootstrap(t, "AP")):
        with pytest.raises(rankviz.InputError, match=r"system 'a', query 'q0' has 2 rows in the per-query table"):
            call(doubled)
    holed = table.copy()
    holed.loc[35, "AP"] = np.nan
    for call in (
        lambda t: stats.compare(t, baseline="a"),
        lambda t: stats.bootstrap(t, "AP"),
        lambda t: stats.paired_differences(t, system="b", baseline="a", measure="AP"),
    ):
        with pytest.raises(
            rankviz.InputError, match=r"system 'b', query 'q5' has no finite value in column 'AP' \(nan; 1 such rows\)"
        ):
            call(holed)


def test_too_few_resamples_for_the_level_are_refused():
    table = _table(np.linspace(0, 1, 30), "AP")
    with pytest.raises(
        rankviz.InputError, match=r"'n_resamples' parameter of bootstrap must be at least 40 for a 95% interval"
    ):
        stats.bootstrap(table, "AP", n_resamples=1)
    with pytest.raises(rankviz.InputError, match=r"at least 200 for a 99% interval"):
        stats.bootstrap(table, "AP", n_resamples=100, confidence_level=0.99)
    assert stats.bootstrap(table, "AP", n_resamples=40, rng=0)["AP"].n_resamples == 40


def test_zero_variance_difference_gives_a_defined_p_and_a_note():
    base = np.linspace(0, 0.5, 10)
    table = pd.concat([_table(base, "AP", "a"), _table(base + 0.1, "AP", "b")], ignore_index=True)
    with pytest.warns(
        rankviz.DegenerateDataWarning,
        match=r"every query changes by the same amount \(\+0\.1\), so the t-test is undefined",
    ):
        result = stats.compare(table, baseline="a", test="t", n_resamples=1000, rng=0)
    assert math.isnan(result.table["p_value"].iloc[0]) and math.isnan(result.table["p_corrected"].iloc[0])
    with pytest.warns(rankviz.DegenerateDataWarning):
        exact = stats.compare(table, baseline="a", test="randomization", n_resamples=2000, rng=0)
    assert exact.table["p_value"].iloc[0] == pytest.approx(2 / 2**10)  # exact: only all + or all - flips reach it


# ----------------------------------------------------------------------------- power and topic-set size


@pytest.mark.parametrize("n, difference", [(20, 0.05), (50, 0.03), (100, 0.02)])
def test_power_matches_a_simulation_of_the_paired_t_test(n, difference):
    sd, replicates = 0.12, 4000
    predicted = stats.power(difference=difference, sd=sd, n_queries=n).power
    rng = np.random.default_rng(n)
    d = rng.normal(difference, sd, size=(replicates, n))
    rejected = sps.ttest_1samp(d, 0.0, axis=1).pvalue < 0.05
    se = math.sqrt(predicted * (1 - predicted) / replicates)
    assert abs(rejected.mean() - predicted) < 4 * se + 0.002


def test_topic_set_size_is_the_smallest_n_reaching_the_target():
    result = stats.power(difference=0.02, sd=0.1, target_power=0.8)
    assert result.power >= 0.8
    assert stats.power(difference=0.02, sd=0.1, n_queries=result.n_queries - 1).power < 0.8
    # four times the queries for half the difference (the noncentrality grows with sqrt(n))
    half = stats.power(difference=0.01, sd=0.1, target_power=0.8)
    assert 3.8 < half.n_queries / result.n_queries < 4.2


def test_power_from_a_per_query_table():
    rng = np.random.default_rng(3)
    base = rng.random(60)
    table = pd.concat(
        [_table(base, "AP", "a"), _table(np.clip(base + rng.normal(0.02, 0.1, 60), 0, 1), "AP", "b")], ignore_index=True
    )
    d = stats.paired_differences(table, system="b", baseline="a", measure="AP")["difference"]
    result = stats.power(table, system="b", baseline="a", measure="AP")
    assert result.n_queries == 60 and result.sd == pytest.approx(d.std(ddof=1))
    assert result.difference == pytest.approx(d.mean())
    more = stats.power(table, system="b", baseline="a", measure="AP", n_queries=240)
    assert more.power > result.power
    with pytest.raises(rankviz.InputError, match="name the system=, the baseline= and the measure="):
        stats.power(table)
    with pytest.raises(rankviz.InputError, match="non-zero number"):
        stats.power(difference=0.0, sd=0.1, n_queries=10)


@pytest.mark.parametrize("call", ["bootstrap", "compare", "randomization", "tukey"])
def test_a_resample_count_that_cannot_finish_is_refused_saying_why(call):
    table = pd.DataFrame({"query_id": [f"q{i}" for i in range(40)], "RR@10": [1.0, 0.5, 0.0, 0.25] * 10})
    two = pd.concat([table.assign(system="a"), table.assign(system="b", **{"RR@10": table["RR@10"][::-1].to_numpy()})])
    calls = {
        "bootstrap": lambda: rankviz.stats.bootstrap(table, "RR@10", n_resamples=10**12, rng=0),
        "compare": lambda: rankviz.stats.compare(two, baseline="a", n_resamples=10**12, rng=0),
        "randomization": lambda: rankviz.stats.all_pairs(two, "RR@10", test="randomization", n_resamples=10**12),
        "tukey": lambda: rankviz.stats.all_pairs(two, "RR@10", n_resamples=10**12),
    }
    why = "TiB of resampled values" if call in ("bootstrap", "compare") else "random draws"
    with pytest.raises(rankviz.InputError, match=rf"'n_resamples' parameter of \w+ is too large: .*{why}.*Use at most"):
        calls[call]()


def test_comparison_view_shows_the_key_columns_first_and_the_rest_on_demand():
    rng = np.random.default_rng(3)
    a = rng.random(50)
    table = pd.concat(
        [_table(a, "AP", "a"), _table(np.clip(a + 0.1, 0, 1), "AP", "b"), _table(a[::-1], "AP", "c")],
        ignore_index=True,
    )
    comparison = stats.compare(table, baseline="a", n_resamples=500, rng=0)
    assert list(comparison.key_columns.columns) == list(stats.Comparison.KEY_COLUMNS)
    page = comparison._repr_html_()
    shown, hidden = page.split("<details>")
    headers = re.findall(r"<th>([^<]*)</th>", shown)
    assert headers == ["system", "measure", "difference", "95% interval", "p", "p corrected", "effect size",
                       "wins / ties / losses"]  # fmt: skip
    assert all(h in hidden for h in ("baseline_mean", "system_mean", "n_queries", "ci_method"))
    assert set(comparison.to_frame().columns) >= set(comparison.table.columns)  # every number stays available
    assert list(comparison.to_frame(all_columns=False).columns)[:11] == list(stats.Comparison.KEY_COLUMNS)
