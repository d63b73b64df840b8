"""Which labels to buy next: the plan's probabilities, its unbiasedness, its sizing, its refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz import labels
from rankviz.labels.ppi import design_estimate


def _two_systems(n_queries: int = 60, same: int = 40, seed: int = 0):
    """Systems a and b: identical top 5 on the first ``same`` queries, different orders on the rest."""
    rng = np.random.default_rng(seed)
    rows, truth = [], []
    for q in range(n_queries):
        qid = f"q{q:03d}"
        docs = [f"d{j}" for j in range(8)]
        truth += [(qid, d, int(g)) for d, g in zip(docs, rng.choice([0, 0, 1, 2], size=8))]
        order_a = list(rng.permutation(8))
        order_b = order_a if q < same else list(rng.permutation(8))
        for system, order in (("a", order_a), ("b", order_b)):
            rows += [(system, qid, docs[i], float(8 - r)) for r, i in enumerate(order)]
    run = pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])
    return run, pd.DataFrame(truth, columns=["query_id", "doc_id", "relevance"])


@pytest.fixture(scope="module")
def setting():
    run, truth = _two_systems()
    model = labels.simulate_judge(truth, noise=0.7, leniency=0.4, seed=1)
    plan = labels.plan(run, model, budget=16, target=("a", "b"), measure="nDCG@5", seed=0, n_simulations=10)
    return run, truth, model, plan


def test_inclusion_probabilities_are_positive_sum_to_the_budget_and_favour_differing_queries(setting):
    run, truth, model, plan = setting
    table = plan.to_frame().set_index("query_id")
    assert (table["inclusion_probability"] > 0).all()
    assert table["inclusion_probability"].sum() == pytest.approx(16)
    assert len(plan.queries) == 16 and plan.design.method == "stratified"
    same = table.index < "q040"  # identical top 5: the model's errors cancel in a - b
    assert (table.loc[same, "spread"] == 0).all() and (table.loc[~same, "spread"] > 0).all()
    assert table.loc[~same, "inclusion_probability"].min() > table.loc[same, "inclusion_probability"].max()


def test_pairs_are_the_top_k_of_the_planned_queries_for_the_widget(setting):
    run, truth, model, plan = setting
    pairs = plan.pairs
    assert list(pairs.columns) == ["query_id", "doc_id", "rank"]
    assert set(pairs["query_id"]) == set(plan.queries)
    assert pairs["rank"].max() <= 5
    top = (
        run[run["query_id"].isin(plan.queries)]
        .sort_values("score", ascending=False)
        .groupby(["system", "query_id"])
        .head(5)
    )
    assert set(zip(pairs["query_id"], pairs["doc_id"])) == set(zip(top["query_id"], top["doc_id"]))


def test_the_plan_keeps_the_correction_unbiased(setting):
    run, truth, model, plan = setting
    y = rankviz.evaluate(run, "nDCG@5", truth, per_query=True).pivot(
        index="query_id", columns="system", values="nDCG@5"
    )
    f = rankviz.evaluate(run, "nDCG@5", model, per_query=True).pivot(
        index="query_id", columns="system", values="nDCG@5"
    )
    y_diff, f_diff = y["a"] - y["b"], f["a"] - f["b"]
    target = float(y_diff.mean())
    strata = plan.to_frame().set_index("query_id")["stratum"]
    counts = plan.design.strata_counts()
    # exact expectation over every stratified sample is too many; the design expectation per stratum is its mean,
    # so E[estimate] = naive + sum_h N_h / N * mean_h(d): check that identity, then a seeded simulation
    d = y_diff - f_diff
    by_stratum = d.groupby(strata.reindex(d.index)).mean()
    expected = float(f_diff.mean()) + sum(counts.N_h[h] / len(d) * by_stratum[h] for h in counts.index)
    assert expected == pytest.approx(target, abs=1e-12)
    estimates = [
        design_estimate(f_diff, y_diff, plan.redraw(16, seed=r).design, scope="queries")["estimate"] for r in range(400)
    ]
    spread = np.std(estimates) / np.sqrt(len(estimates))
    assert abs(np.mean(estimates) - target) < 4 * spread + 1e-12
    assert abs(float(f_diff.mean()) - target) > 4 * spread  # the naive difference is off by more


def test_corrected_reads_the_plan_design(setting):
    run, truth, model, plan = setting
    human = truth[truth["query_id"].isin(plan.queries)]
    result = labels.corrected(run, model, human, "nDCG@5", design=plan.design, baseline="b", scope="queries")
    row = result.to_frame().iloc[0]
    assert row["n_human"] == 16 and row["ci_low"] <= row["corrected"] <= row["ci_high"]


def test_size_for_needs_fewer_queries_when_errors_concentrate(setting):
    run, truth, model, plan = setting
    sizes = plan.size_for(0.2).set_index("design")
    assert sizes.loc["plan", "n_queries"] <= sizes.loc["uniform", "n_queries"]
    assert (sizes["n_queries"] >= 2).all() and (sizes["n_queries"] <= 60).all()
    assert set(sizes["source"]) == {"simulated spreads (no pilot)"}
    pilot = labels.sample_queries(run, n=12, seed=3)
    with_pilot = labels.plan(run, model, truth[truth["query_id"].isin(pilot.queries)], budget=16, target=("a", "b"),
                             measure="nDCG@5", seed=0, n_simulations=10)  # fmt: skip
    assert len(with_pilot.pilot) == 12 and with_pilot.size_for(0.3)["source"].iloc[0] == "pilot of 12 queries"
    narrower = plan.size_for(0.1).set_index("design")
    assert (narrower["n_queries"] >= sizes["n_queries"]).all()
    with pytest.raises(rankviz.InputError, match="out of reach"):
        plan.size_for(1e-6)


def test_redraw_keeps_strata_and_changes_the_budget(setting):
    run, truth, model, plan = setting
    bigger = plan.redraw(30, seed=5)
    assert len(bigger.queries) == 30
    pd.testing.assert_series_equal(bigger.to_frame()["stratum"], plan.to_frame()["stratum"])
    assert bigger.to_frame()["inclusion_probability"].sum() == pytest.approx(30)


def test_mean_target_and_refusals(setting):
    run, truth, model, _ = setting
    mean_plan = labels.plan(run, model, budget=10, measure="P@5", seed=1, n_simulations=5)
    assert mean_plan.target == "mean" and (mean_plan.to_frame()["inclusion_probability"] > 0).all()
    with pytest.raises(rankviz.InputError, match="two different systems"):
        labels.plan(run, model, budget=10, target=("a", "zzz"), seed=0)
    with pytest.raises(rankviz.InputError, match="'mean' or a pair"):
        labels.plan(run, model, budget=10, target="median", seed=0)
    with pytest.raises(rankviz.InputError, match="more than the 60"):
        labels.plan(run, model, budget=61, target=("a", "b"), seed=0, n_simulations=2)


def test_sample_queries_designs():
    ids = [f"q{i}" for i in range(20)]
    uniform = labels.sample_queries(ids, 0.25, seed=1)
    assert uniform.method == "srswor" and len(uniform.queries) == 5
    assert np.allclose(uniform.inclusion, 0.25)
    weighted = labels.sample_queries(ids, n=6, seed=1, probabilities={q: 1 + i for i, q in enumerate(ids)})
    assert weighted.method == "pps" and weighted.n == 6
    p = weighted.draw_probabilities
    assert p.sum() == pytest.approx(1) and weighted.inclusion["q19"] == pytest.approx(1 - (1 - p["q19"]) ** 6)
    with pytest.raises(rankviz.InputError, match="positive"):
        labels.sample_queries(ids, n=3, probabilities=dict.fromkeys(ids, 0.0))
    with pytest.raises(rankviz.InputError, match="either fraction"):
        labels.sample_queries(ids, 0.5, n=3)
    assert labels.sample_queries(ids, 0.25, seed=1).queries == uniform.queries  # seeded: repeats exactly
    for a, b in itertools.combinations(range(3), 2):
        assert labels.sample_queries(ids, 0.25, seed=a).queries != labels.sample_queries(ids, 0.25, seed=b).queries
