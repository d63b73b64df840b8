"""Suites of collections: per-dataset means, the macro average, stratified and two-level intervals,
the random-effects meta-analysis, simultaneous rank intervals and tiers (issue 34)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import rankviz
from rankviz.stats.rank_intervals import intervals_from_resamples, tier_letters
from tests.conftest import shared_path

MEASURES = ["nDCG@10", "RR@10", "P@10"]


@pytest.fixture(scope="module")
def example_suite():
    """The built-in example split into three 'datasets' by query (each with its own qrels)."""
    ex = rankviz.datasets.load_example()
    qs = sorted(ex.qrels["query_id"].unique())
    return {
        name: (ex.run[ex.run["query_id"].isin(qs[i::3])], ex.qrels[ex.qrels["query_id"].isin(qs[i::3])])
        for i, name in enumerate(["alpha", "beta", "gamma"])
    }


def test_per_dataset_means_equal_evaluate_per_dataset_and_the_macro_average_is_their_mean(example_suite):
    table = rankviz.evaluate(example_suite, MEASURES, weighted=True)
    for name, (run, qrels) in example_suite.items():
        alone = rankviz.evaluate(run, MEASURES, qrels)
        got = table.loc[name][MEASURES]
        assert got.equals(alone.loc[got.index]), name  # the same numbers, to the last bit
    per_dataset = table.drop(index=["(macro average)", "(query-weighted average)"], level="dataset")
    macro = table.loc["(macro average)"][MEASURES]
    expected = per_dataset[MEASURES].groupby(level="system").mean()
    pd.testing.assert_frame_equal(macro, expected, check_exact=False, rtol=0, atol=1e-15)
    pooled = rankviz.evaluate(
        pd.concat([r for r, _ in example_suite.values()]), MEASURES, pd.concat([q for _, q in example_suite.values()])
    )
    weighted = table.loc["(query-weighted average)"][MEASURES]
    np.testing.assert_allclose(weighted.to_numpy(), pooled.loc[weighted.index].to_numpy(), rtol=0, atol=1e-12)
    assert (table.loc["(macro average)", "n_queries"] == 600).all()


def test_a_dataset_column_on_run_and_qrels_is_the_same_suite(example_suite):
    run = pd.concat([r.assign(dataset=n) for n, (r, _) in example_suite.items()])
    qrels = pd.concat([q.assign(dataset=n) for n, (_, q) in example_suite.items()])
    pd.testing.assert_frame_equal(rankviz.evaluate(run, MEASURES, qrels), rankviz.evaluate(example_suite, MEASURES))
    per_query = rankviz.evaluate(run, MEASURES, qrels, per_query=True)
    assert list(per_query.columns[:3]) == ["dataset", "system", "query_id"]
    sliced = rankviz.evaluate(example_suite, ["nDCG@10"], by="dataset")
    assert set(sliced["segment"]) == {"alpha", "beta", "gamma"}
    assert sliced["n"].eq(200).all()


def test_a_query_id_shared_by_datasets_needs_the_dataset_column_on_both_sides(example_suite):
    run = pd.concat([r.assign(dataset=n) for n, (r, _) in example_suite.items()])
    qrels = pd.concat([q for _, q in example_suite.values()])
    with pytest.raises(rankviz.InputError, match="qrels have none"):
        rankviz.evaluate(run, MEASURES, qrels)


def test_a_system_missing_from_a_dataset_is_refused_or_dropped_with_a_warning_that_names_it(example_suite):
    suite = dict(example_suite)
    run, qrels = suite["beta"]
    suite["beta"] = (run[run["system"] != "rrf"], qrels)
    with pytest.raises(rankviz.InputError, match=r"'rrf' lacks \['beta'\].*missing='drop'|incomplete"):
        rankviz.evaluate(suite, MEASURES)
    with pytest.warns(rankviz.RankvizWarning, match=r"'rrf' lacks \['beta'\]"):
        table = rankviz.evaluate(suite, MEASURES, incomplete_systems="drop")
    assert "rrf" not in set(table.index.get_level_values("system"))


def test_datasets_with_no_system_in_common_are_refused(example_suite):
    (a_run, a_qrels), (b_run, b_qrels) = example_suite["alpha"], example_suite["beta"]
    suite = {"a": (a_run[a_run["system"] == "bm25"], a_qrels), "b": (b_run[b_run["system"] == "tfidf"], b_qrels)}
    with pytest.raises(rankviz.InputError, match="share no system"):
        rankviz.evaluate(suite, MEASURES, incomplete_systems="drop")


def test_a_suite_of_one_dataset_works_and_says_the_interval_across_datasets_needs_more(example_suite):
    with pytest.warns(rankviz.RankvizWarning, match="suite of one dataset"):
        table = rankviz.evaluate({"alpha": example_suite["alpha"]}, MEASURES, per_query=True)
    with pytest.warns(rankviz.DegenerateDataWarning, match="one dataset cannot say"):
        res = rankviz.stats.suite_intervals(table, "nDCG@10", level="datasets", rng=0, n_resamples=200)
    assert len(res.macro()) == 4


def test_a_suite_with_qrels_given_twice_is_refused(example_suite):
    with pytest.raises(rankviz.InputError, match="leave qrels= out"):
        rankviz.evaluate(example_suite, MEASURES, example_suite["alpha"][1])


def _wide(table, measure):
    return table.pivot_table(index=["dataset", "query_id"], columns="system", values=measure)


def test_stratified_intervals_are_paired_reproducible_and_contain_the_estimate(example_suite):
    table = rankviz.evaluate(example_suite, ["nDCG@10"], per_query=True)
    a = rankviz.stats.suite_intervals(table, "nDCG@10", rng=3, n_resamples=500).to_frame()
    b = rankviz.stats.suite_intervals(table.sample(frac=1, random_state=1), "nDCG@10", rng=3, n_resamples=500)
    pd.testing.assert_frame_equal(a, b.to_frame())  # row order changes nothing
    assert ((a["ci_low"] <= a["estimate"]) & (a["estimate"] <= a["ci_high"])).all()
    two = rankviz.stats.suite_intervals(table, "nDCG@10", rng=3, n_resamples=500, level="datasets").macro()
    one = a[a["dataset"] == "(macro average)"]
    assert ((two["ci_high"].to_numpy() - two["ci_low"].to_numpy()) > 0).all()
    assert "other datasets" in rankviz.stats.suite_intervals(table, "nDCG@10", level="datasets", rng=0).question
    assert np.allclose(one["estimate"].to_numpy(), two["estimate"].to_numpy())


def _dl_reference(y, v, level=0.95):
    """DerSimonian-Laird and the Hartung-Knapp interval, written from the formulas (independently of rankviz)."""
    k = len(y)
    w = [1 / x for x in v]
    fixed = sum(wi * yi for wi, yi in zip(w, y, strict=True)) / sum(w)
    q = sum(wi * (yi - fixed) ** 2 for wi, yi in zip(w, y, strict=True))
    c = sum(w) - sum(wi * wi for wi in w) / sum(w)
    tau2 = max(0.0, (q - (k - 1)) / c)
    ws = [1 / (x + tau2) for x in v]
    mu = sum(wi * yi for wi, yi in zip(ws, y, strict=True)) / sum(ws)
    hk = sum(wi * (yi - mu) ** 2 for wi, yi in zip(ws, y, strict=True)) / (k - 1)
    se = math.sqrt(hk / sum(ws))
    t = sps.t.ppf(0.5 + level / 2, k - 1)
    return mu, tau2, (mu - t * se, mu + t * se), max(0.0, (q - (k - 1)) / q)


@pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")
@settings(max_examples=25, deadline=None)
@given(
    st.integers(3, 9),
    st.integers(5, 40),
    st.floats(0.0, 0.2),
    st.integers(0, 2**31),
)
def test_the_meta_analysis_equals_the_formulas(k, n, spread, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(k):
        shift = rng.normal(0.05, spread)
        for i in range(n):
            base = rng.random()
            rows += [(f"d{d}", "base", f"q{i}", base), (f"d{d}", "new", f"q{i}", base + shift + rng.normal(0, 0.1))]
    table = pd.DataFrame(rows, columns=["dataset", "system", "query_id", "m"])
    meta = rankviz.stats.meta_analysis(table, "new", "base", "m")
    wide = table.pivot_table(index=["dataset", "query_id"], columns="system", values="m")
    diff = (wide["new"] - wide["base"]).groupby(level="dataset")
    y, v = diff.mean().tolist(), (diff.var(ddof=1) / diff.size()).tolist()
    mu, tau2, (low, high), i2 = _dl_reference(y, v)
    assert meta.estimate == pytest.approx(mu, abs=1e-12)
    assert meta.tau2 == pytest.approx(tau2, abs=1e-12)
    assert meta.i2 == pytest.approx(i2, abs=1e-12)
    assert meta.confidence_interval.low == pytest.approx(low, abs=1e-12)
    assert meta.confidence_interval.high == pytest.approx(high, abs=1e-12)
    assert meta.to_frame()["dataset"].iloc[-1] == "(pooled)"


def test_the_meta_analysis_says_when_there_are_too_few_datasets():
    rows = [
        (d, s, f"q{i}", float(i % 3) + (0.1 if s == "new" else 0))
        for d in "ab"
        for i in range(10)
        for s in ("base", "new")
    ]
    table = pd.DataFrame(rows, columns=["dataset", "system", "query_id", "m"])
    with pytest.warns(rankviz.DegenerateDataWarning, match="2 datasets"):
        meta = rankviz.stats.meta_analysis(table, "new", "base", "m")
    assert math.isnan(meta.prediction_interval.low)
    with pytest.raises(rankviz.InputError, match="'baseline' parameter"):
        rankviz.stats.meta_analysis(table, "new", "nope", "m")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=12), st.floats(0, 0.5))
def test_tiers_share_a_letter_exactly_when_the_band_cannot_separate_two_systems(means, width):
    means = np.array(means)
    letters = tier_letters(means, width)
    for i in range(len(means)):
        for j in range(len(means)):
            together = bool(set(letters[i]) & set(letters[j]))
            assert together == (abs(means[i] - means[j]) <= width), (means, width, letters)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(0, 2**31))
def test_rank_intervals_hold_the_point_rank_and_agree_with_the_separations(n_systems, seed):
    rng = np.random.default_rng(seed)
    means = rng.random(n_systems)
    resampled = means + rng.normal(0, 0.05, size=(400, 1)) + rng.normal(0, 0.05, size=(400, n_systems))
    systems = [f"s{i}" for i in range(n_systems)]
    r = intervals_from_resamples(systems, means, resampled, confidence_level=0.9, statistic="x", resampled_what="q")
    frame = r.to_frame()
    assert ((frame["rank_low"] <= frame["rank"]) & (frame["rank"] <= frame["rank_high"])).all()
    assert list(frame["estimate"]) == sorted(means, reverse=True)
    for row in frame.itertuples():
        ahead = sum(m - row.estimate > r.width for m in means)
        behind = sum(row.estimate - m > r.width for m in means)
        assert (row.rank_low, row.rank_high) == (1 + ahead, n_systems - behind)


def test_rank_intervals_are_simultaneous_with_exact_ties_in_the_true_means():
    """Seeded simulation: 5 systems (two pairs tied), 60 queries; all true rank ranges inside at >= 0.95 - MC error."""
    true = np.array([0.60, 0.55, 0.55, 0.45, 0.45])
    true_rank_range = {0: (1, 1), 1: (2, 3), 2: (2, 3), 3: (4, 5), 4: (4, 5)}
    hits, reps = 0, 150
    master = np.random.default_rng(7)
    for rep in range(reps):
        query_effect = master.normal(0, 0.15, size=(60, 1))
        values = np.clip(true + query_effect + master.normal(0, 0.15, size=(60, 5)), 0, 1.5)
        values = values - values.mean(axis=0) + true  # centred on the true means, so the target is exact
        rows = [(f"s{s}", f"q{q}", values[q, s]) for q in range(60) for s in range(5)]
        table = pd.DataFrame(rows, columns=["system", "query_id", "m"])
        values = values + master.normal(0, 0.0, size=values.shape)
        r = rankviz.stats.ranks(table, "m", rng=rep, n_resamples=400).to_frame().set_index("system")
        ok = all(
            r.loc[f"s{s}", "rank_low"] <= lo and hi <= r.loc[f"s{s}", "rank_high"]
            for s, (lo, hi) in true_rank_range.items()
        )
        hits += ok
    assert hits / reps >= 0.95


def test_rank_intervals_of_per_dataset_scores_resample_datasets():
    rng = np.random.default_rng(0)
    scores = pd.DataFrame(
        [(f"d{d}", f"s{s}", 0.3 + 0.05 * s + rng.normal(0, 0.05)) for d in range(40) for s in range(10)],
        columns=["dataset", "system", "score"],
    )
    r = rankviz.stats.ranks(scores, "score", rng=0, n_resamples=1000)
    assert r.resampled == "datasets" and "40 datasets" in r.statistic
    assert r.to_frame()["system"].iloc[0] == "s9"


def test_the_suite_leaderboard_on_the_example_and_its_plot(example_suite):
    import matplotlib

    matplotlib.use("Agg")
    board = rankviz.ranks(example_suite, "nDCG@10", rng=0, n_resamples=500)
    assert "macro average of nDCG@10 over 3 datasets" == board.statistic
    assert board.to_frame()["system"].iloc[0] == "bm25+rerank"
    ax = board.plot()
    assert [t.get_text() for t in ax.get_yticklabels()][0].startswith("bm25+rerank")
    wide = rankviz.ranks(example_suite, "nDCG@10", rng=0, n_resamples=500, level="datasets")
    assert (wide.width >= board.width) and "datasets, then queries" in wide.resampled
    html = board._repr_html_()
    assert "<table" in html


def test_markup_in_names_is_escaped_in_html_and_plain_in_plots():
    import matplotlib

    matplotlib.use("Agg")
    rows = [
        (d, s, f"q{i}", float((i + len(s)) % 4) / 3)
        for d in ("<b>x</b>", "$y$")
        for s in ("<i>a</i>", "$b$")
        for i in range(12)
    ]
    table = pd.DataFrame(rows, columns=["dataset", "system", "query_id", "m"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.DegenerateDataWarning)
        meta = rankviz.stats.meta_analysis(table, "$b$", "<i>a</i>", "m")
    assert "<b>x</b>" not in meta._repr_html_() and "&lt;b&gt;x&lt;/b&gt;" in meta._repr_html_()
    labels = [t.get_text() for t in meta.plot().get_yticklabels()]
    assert r"\$y\$" in labels
    board = rankviz.stats.ranks(table, "m", rng=0, n_resamples=200)
    assert "<i>a</i>" not in board._repr_html_()


def test_a_three_collection_suite_of_real_runs():
    """Cranfield, CACM and TREC-COVID round 1: a BM25 run of each, as one suite."""
    cran = shared_path("cranfield")
    cacm = shared_path("cacm")
    covid = shared_path("trec_covid_round1")
    suite = {
        "cranfield": (
            rankviz.read_run(cran / "runs" / "lucene_EnglishAnalyzer_BM25.run", system="bm25"),
            rankviz.read_qrels(cran / "QRelsCorrectedforTRECeval"),
        ),
        "cacm": (rankviz.read_run(cacm / "cacm-bm25.run", system="bm25"), rankviz.read_qrels(cacm / "qrels.cacm.txt")),
        "trec-covid": (
            rankviz.read_run(covid / "runs" / "smith.bm25", system="bm25"),
            rankviz.read_qrels(covid / "qrels-rnd1.txt"),
        ),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.RankvizWarning)
        table = rankviz.evaluate(suite, ["nDCG@10", "AP"])
        for name, (run, qrels) in suite.items():
            alone = rankviz.evaluate(run, ["nDCG@10", "AP"], qrels)
            assert table.loc[(name, "bm25"), ["nDCG@10", "AP"]].tolist() == alone.iloc[0].tolist()
    per = table.drop(index="(macro average)", level="dataset")
    assert table.loc[("(macro average)", "bm25"), "AP"] == pytest.approx(per["AP"].mean(), abs=1e-15)


def test_compare_of_a_suite_is_the_stratified_comparison_of_its_per_query_table(example_suite):
    got = rankviz.compare(example_suite, "bm25", ["nDCG@10", "RR@10"], rng=5, n_resamples=999)
    table = rankviz.evaluate(example_suite, ["nDCG@10", "RR@10"], per_query=True)
    direct = rankviz.stats.suite_compare(table, baseline="bm25", rng=5, n_resamples=999)
    pd.testing.assert_frame_equal(got.table, direct.table)
    assert got.test == "stratified randomization"
    assert list(got.table["system"]) == ["bm25+rerank", "bm25+rerank", "rrf", "rrf", "tfidf", "tfidf"]
    with pytest.raises(rankviz.InputError, match="stratified"):
        rankviz.compare(example_suite, "bm25", ["nDCG@10"], method="bca")


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(2, 30), min_size=1, max_size=5), st.integers(0, 2**31))
def test_the_suite_difference_and_interval_equal_the_formulas(sizes, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for d, n in enumerate(sizes):
        for i in range(n):
            b = float(rng.random())
            rows += [(f"d{d}", "base", f"q{i}", b), (f"d{d}", "new", f"q{i}", b + float(rng.normal(0.05, 0.2)))]
    table = pd.DataFrame(rows, columns=["dataset", "system", "query_id", "m"])
    res = rankviz.stats.suite_compare(table, baseline="base", rng=0, n_resamples=200).table.iloc[0]
    wide = table.pivot_table(index=["dataset", "query_id"], columns="system", values="m")
    diff = (wide["new"] - wide["base"]).groupby(level="dataset")
    k = len(sizes)
    estimate = diff.mean().mean()
    pieces = diff.var(ddof=1) / diff.size() / k**2
    se = math.sqrt(pieces.sum())
    df = se**4 / (pieces**2 / (diff.size() - 1)).sum()
    half = sps.t.ppf(0.975, df) * se
    assert res["difference"] == pytest.approx(estimate, abs=1e-12)
    assert res["ci_low"] == pytest.approx(estimate - half, abs=1e-9)
    assert res["ci_high"] == pytest.approx(estimate + half, abs=1e-9)
    assert 0 < res["p_value"] <= 1 and res["n_queries"] == sum(sizes)


def test_the_stratified_randomization_test_holds_its_level_under_the_null():
    """Seeded: 200 suites of 3 datasets with no true difference; rejections at 0.05 within Monte Carlo error."""
    master = np.random.default_rng(11)
    rejections = 0
    for rep in range(200):
        rows = []
        for d, n in enumerate((15, 30, 60)):
            difficulty = master.random(n) * (d + 1) / 3
            for s in ("base", "new"):
                values = np.clip(difficulty + master.normal(0, 0.2, n), 0, 1)
                rows += [(f"d{d}", s, f"q{i}", float(v)) for i, v in enumerate(values)]
        table = pd.DataFrame(rows, columns=["dataset", "system", "query_id", "m"])
        p = rankviz.stats.suite_compare(table, baseline="base", rng=rep, n_resamples=500).table["p_value"].iloc[0]
        rejections += p <= 0.05
    assert rejections / 200 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 200)


def test_a_list_of_beir_folders_is_the_suite_s_qrels(example_suite, tmp_path):
    for name, (_, qrels) in example_suite.items():
        folder = tmp_path / name
        (folder / "qrels").mkdir(parents=True)
        (folder / "corpus.jsonl").write_text('{"_id": "x", "title": "", "text": "x"}\n')
        (folder / "queries.jsonl").write_text(
            "".join(f'{{"_id": "{q}", "text": "q"}}\n' for q in sorted(qrels["query_id"].unique()))
        )
        lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{g}" for q, d, g in qrels.itertuples(index=False)]
        (folder / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n")
    run = pd.concat([r.assign(dataset=n) for n, (r, _) in example_suite.items()])
    got = rankviz.evaluate(run, MEASURES, [tmp_path / n for n in example_suite])
    pd.testing.assert_frame_equal(got, rankviz.evaluate(example_suite, MEASURES))
    with pytest.raises(rankviz.InputError, match="BEIR folders or ir_datasets ids"):
        rankviz.evaluate(run, MEASURES, [example_suite["alpha"][1]])
