"""rankviz.failure_slices: planted causes are found, the tests are Fisher's and the correction BH over all candidates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact

import rankviz
from rankviz.stats import benjamini_hochberg
from rankviz.stats.failure_causes import FAILURE_COLUMNS, text_terms


def planted(n=400, seed=0):
    """Queries failing 15% of the time, 70% in segment 'faq' and for texts with 'invoice'."""
    rng = np.random.default_rng(seed)
    segment = rng.choice(["docs", "faq", "blog", "api"], size=n)
    has_term = rng.random(n) < 0.1
    words = ["reset", "password", "shipping", "account", "export", "login", "order", "refund"]
    texts = [" ".join(rng.choice(words, size=4)) + (" invoice" if t else "") for t in has_term]
    p_fail = np.where((segment == "faq") | has_term, 0.7, 0.15)
    rr = np.where(rng.random(n) < p_fail, 0.0, 1.0 / rng.integers(1, 10, size=n))
    ids = [f"q{i:04d}" for i in range(n)]
    per_query = pd.DataFrame({"query_id": ids, "RR@10": rr, "segment": segment, "length": rng.integers(1, 60, n)})
    queries = pd.DataFrame({"query_id": ids, "text": texts})
    return per_query, queries


def test_planted_segment_and_term_come_first():
    per_query, queries = planted()
    table = rankviz.failure_slices(per_query, queries=queries)
    assert list(table.columns) == list(FAILURE_COLUMNS)
    top = set(zip(table["attribute"].head(2), table["value"].head(2)))
    assert top == {("segment", "faq"), ("text", "invoice")}
    assert (table["q_value"].head(2) < 1e-3).all()
    assert table["q_value"].is_monotonic_increasing


def test_fisher_p_values_and_bh_over_every_candidate():
    per_query, queries = planted(n=200, seed=3)
    table = rankviz.failure_slices(per_query, queries=queries, phrases=False)
    failed = per_query["RR@10"].to_numpy() == 0
    row = table[(table["attribute"] == "segment") & (table["value"] == "faq")].iloc[0]
    inside = (per_query["segment"] == "faq").to_numpy()
    a, b = int((inside & failed).sum()), int((inside & ~failed).sum())
    c, d = int((~inside & failed).sum()), int((~inside & ~failed).sum())
    assert row["n"] == a + b and row["n_failures"] == a
    assert row["p_value"] == pytest.approx(fisher_exact([[a, b], [c, d]], alternative="greater")[1], rel=1e-9)
    assert row["failure_share"] == pytest.approx(a / (a + b))
    assert row["failure_share_outside"] == pytest.approx(c / (c + d))
    assert row["lift"] == pytest.approx((a / (a + b)) / (c / (c + d)))
    # q over every candidate tested (under-represented ones too), not only the rows returned
    m = table.attrs["rankviz"]["n_candidates"]
    assert m > len(table)
    smallest = table["p_value"].min()
    assert (
        table["q_value"].min() == pytest.approx(min(1.0, smallest * m), rel=1e-9)
        or table["q_value"].min() <= smallest * m
    )


def test_q_values_equal_benjamini_hochberg_of_all_candidate_p_values():
    per_query, _ = planted(n=300, seed=5)
    table = rankviz.failure_slices(per_query, attributes=["segment"], min_count=1)
    # four segment values: all candidates; recompute the p of the ones not returned from the complement
    from scipy.stats import hypergeom

    failed = per_query["RR@10"].to_numpy() == 0
    p = []
    for value in ["api", "blog", "docs", "faq"]:
        inside = (per_query["segment"] == value).to_numpy()
        p.append(hypergeom.sf((inside & failed).sum() - 1, len(failed), failed.sum(), inside.sum()))
    q = dict(zip(["api", "blog", "docs", "faq"], benjamini_hochberg(np.array(p))))
    for _, row in table.iterrows():
        assert row["q_value"] == pytest.approx(q[row["value"]], rel=1e-9)


def test_numeric_attributes_are_cut_into_quantile_bins():
    per_query, _ = planted()
    table = rankviz.failure_slices(per_query, attributes=["length"], min_count=1)
    everything = rankviz.failure_slices(per_query.assign(RR=0.5), measure="RR@10", attributes=["length"])
    assert set(table["kind"]) <= {"bin"}
    assert all(v.startswith("[") and v.endswith("]") for v in table["value"])
    assert everything.attrs["rankviz"]["n_candidates"] == 4  # quartiles of 59 distinct lengths


def test_few_levels_are_values_and_missing_is_a_slice():
    per_query = pd.DataFrame(
        {"query_id": [f"q{i}" for i in range(60)], "RR@5": [0.0] * 20 + [1.0] * 40, "source": ["a", "b"] * 30,
         "n_rel": [np.nan] * 20 + [1.0, 2.0] * 20}
    )  # fmt: skip
    table = rankviz.failure_slices(per_query)
    assert table.iloc[0][["attribute", "value", "n", "n_failures"]].tolist() == ["n_rel", "(missing)", 20, 20]
    assert table.iloc[0]["lift"] == np.inf


def test_rare_terms_do_not_dominate_the_log_odds_score():
    n = 300
    texts = ["common words here"] * n
    rr = np.ones(n)
    for i in range(40):  # a frequent term failing 60% of the time
        texts[i] = "frequent " + texts[i]
        rr[i] = 0.0 if i < 24 else 1.0
    for i in range(40, 45):  # a rare term failing every time
        texts[i] = "rare " + texts[i]
        rr[i] = 0.0
    rr[100:130] = 0.0
    per_query = pd.DataFrame({"query_id": [f"q{i}" for i in range(n)], "RR@10": rr})
    table = rankviz.failure_slices(per_query, queries=dict(zip(per_query["query_id"], texts))).set_index("value")
    assert table.loc["rare", "lift"] > table.loc["frequent", "lift"]  # lift alone would put the rare term first
    assert table.loc["frequent", "log_odds_z"] > table.loc["rare", "log_odds_z"]


def test_several_systems_need_system_and_the_input_is_not_modified():
    run, qrels, queries = rankviz.datasets.load_example()
    per_query = rankviz.evaluate(run, ["RR@10"], qrels, per_query=True)
    before = per_query.copy()
    with pytest.raises(rankviz.InputError, match="system="):
        rankviz.failure_slices(per_query, queries=queries)
    with pytest.raises(rankviz.InputError, match="unknown system"):
        rankviz.failure_slices(per_query, system="nope")
    table = rankviz.failure_slices(per_query, system="bm25", queries=queries)
    assert table.attrs["rankviz"]["n_failures"] == int((per_query.query("system == 'bm25'")["RR@10"] == 0).sum())
    pd.testing.assert_frame_equal(per_query, before)


def test_bad_inputs_name_the_fix():
    per_query, _ = planted(n=50)
    with pytest.raises(rankviz.ColumnError, match="measure columns"):
        rankviz.failure_slices(per_query, measure="nDCG@10")
    with pytest.raises(rankviz.ColumnError, match="attribute column"):
        rankviz.failure_slices(per_query, attributes=["colour"])
    with pytest.raises(rankviz.InputError, match="missing values"):
        rankviz.failure_slices(per_query.assign(**{"RR@10": np.nan}))
    with pytest.warns(rankviz.DegenerateDataWarning, match="no query fails"):
        assert rankviz.failure_slices(per_query.assign(**{"RR@10": 1.0})).empty


def test_text_terms_words_and_phrases():
    assert text_terms("A b, a") == {"a", "b", "a b", "b a"}
    assert text_terms("A b", phrases=False) == {"a", "b"}


def test_one_signal_is_one_row_and_stopword_phrases_are_not_tested():
    # the topic "endpoint", every word of its queries and their phrases select the same 20 queries
    n = 100
    texts = ["how do i call the payment endpoint" if i < 20 else "where is my invoice" for i in range(n)]
    rr = [0.0 if i < 16 or i % 10 == 0 else 1.0 for i in range(n)]
    per_query = pd.DataFrame(
        {"query_id": [f"q{i}" for i in range(n)], "RR@10": rr,
         "topic": ["endpoint" if i < 20 else "billing" for i in range(n)]}
    )  # fmt: skip
    table = rankviz.failure_slices(per_query, queries=dict(zip(per_query["query_id"], texts)))
    assert table[["attribute", "value", "kind", "n"]].values.tolist() == [["topic", "endpoint", "value", 20]]
    same = table.attrs["rankviz"]["same_queries"]
    words = ["how", "do", "i", "call", "the", "payment", "endpoint"]
    assert sorted(same["topic=endpoint"]) == sorted([f"text:{w}" for w in words] + ["text:payment endpoint"])
    assert sorted(same["topic=billing"]) == sorted(f"text:{w}" for w in ["where", "is", "my", "invoice"])
    assert table.attrs["rankviz"]["n_candidates"] == 2  # BH over the two distinct sets of queries
