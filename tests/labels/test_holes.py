"""Holes and bounds: the scenarios are exactly what evaluate gives, and the bounds bound every labelling."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz import labels
from rankviz.datasets import load_example

MEASURES = ["P@5", "P@10", "R@5", "R@10", "R@20", "RR@10", "RR", "Success@3", "nDCG@10", "AP", "Rprec"]
BOUNDED = ("P", "R", "RR", "Success")


def _random_case(seed: int, n_systems: int = 3, n_queries: int = 3, n_docs: int = 8, depth: int = 6):
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_systems):
        for q in range(n_queries):
            docs = rng.choice(n_docs, size=depth, replace=False)
            scores = rng.integers(0, 4, size=depth).astype(float)  # ties: the doc-id tie-break matters
            rows += [(f"s{s}", f"q{q}", f"d{d}", score) for d, score in zip(docs, scores)]
    run = pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])
    judged = [
        (f"q{q}", f"d{d}", int(rng.integers(0, 3)))
        for q in range(n_queries)
        for d in range(n_docs)
        if rng.random() < 0.35
    ]
    judged += [(f"q{q}", "extra", 1) for q in range(n_queries)]  # every query judged and with a relevant item
    qrels = pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"])
    return run, qrels


def _added(qrels: pd.DataFrame, pairs: pd.DataFrame, grades) -> pd.DataFrame:
    extra = pd.DataFrame(
        {"query_id": pairs["query_id"].to_numpy(), "doc_id": pairs["doc_id"].to_numpy(), "relevance": grades}
    )
    return pd.concat([qrels, extra], ignore_index=True)


def test_holes_are_the_unjudged_documents_of_every_top_k():
    run, qrels = _random_case(0)
    found = labels.holes(run, qrels, k=4)
    tops = labels.holes(run, None, k=4)  # nothing judged: every pair of every top 4
    judged = set(zip(qrels["query_id"], qrels["doc_id"]))
    expected = {pair for pair in zip(tops["query_id"], tops["doc_id"]) if pair not in judged}
    assert set(zip(found["query_id"], found["doc_id"])) == expected
    assert len(found) == len(expected)
    assert found["priority"].is_monotonic_decreasing
    assert (found["n_systems"] == found["systems"].str.count(",") + 1).all()
    assert (found["best_rank"] <= 4).all()
    pool = tops.groupby("query_id")["doc_id"].nunique()
    assert (found["pool_size"].to_numpy() == pool.loc[found["query_id"]].to_numpy()).all()


def test_holes_skip_unjudged_queries_unless_asked():
    run, qrels = _random_case(1)
    qrels = qrels[qrels["query_id"] != "q2"]
    assert "q2" not in set(labels.holes(run, qrels, k=3)["query_id"])
    assert "q2" in set(labels.holes(run, qrels, k=3, all_queries=True)["query_id"])


@pytest.mark.parametrize("seed", range(6))
def test_each_scenario_is_exactly_evaluate_with_the_holes_added(seed):
    run, qrels = _random_case(seed)
    found = labels.holes(run, qrels, k=4)
    table = labels.bounds(run, qrels, MEASURES, k=4).set_index(["system", "measure"])
    top = int(qrels["relevance"].max())
    for column, grade in (("if_relevant", top), ("if_nonrelevant", 0)):
        full = rankviz.evaluate(run, MEASURES, _added(qrels, found, grade))
        got = table[column].unstack("measure").loc[full.index, MEASURES]
        assert (got.to_numpy() == full[MEASURES].to_numpy()).all(), column


def test_the_scenarios_on_the_built_in_example():
    run, qrels, _ = load_example()
    measures = ["P@10", "R@10", "RR@10", "nDCG@10", "AP"]
    found = labels.holes(run, qrels, k=10)
    table = labels.bounds(run, qrels, measures, k=10)
    assert table[["system", "measure"]].value_counts().max() == 1 and len(table) == 4 * len(measures)
    full = rankviz.evaluate(run, measures, _added(qrels, found, 2))
    got = table.pivot(index="system", columns="measure", values="if_relevant").loc[full.index, measures]
    assert (got.to_numpy() == full[measures].to_numpy()).all()
    assert (table["if_nonrelevant"] == table["value"]).all()  # unjudged already counts as non-relevant
    assert (table["n_holes"] > 0).all()


@pytest.mark.parametrize("seed", range(4))
def test_the_bounds_bound_every_labelling_and_are_reached(seed):
    run, qrels = _random_case(seed, n_systems=3, n_queries=1, n_docs=9, depth=5)
    found = labels.holes(run, qrels, k=3)
    assert 1 <= len(found) <= 12
    measures = ["P@3", "P@5", "R@3", "R@5", "RR@3", "RR", "Success@2"]
    table = labels.bounds(run, qrels, measures, k=3).set_index(["system", "measure"])
    values = [
        rankviz.evaluate(run, measures, _added(qrels, found, list(grades)))
        for grades in itertools.product((0, 2), repeat=len(found))
    ]  # fmt: skip
    stacked = np.stack([v[measures].to_numpy() for v in values])
    index = values[0].index
    low = table["low"].unstack("measure").loc[index, measures].to_numpy()
    high = table["high"].unstack("measure").loc[index, measures].to_numpy()
    assert np.allclose(stacked.min(axis=0), low, rtol=0, atol=1e-12)
    assert np.allclose(stacked.max(axis=0), high, rtol=0, atol=1e-12)


def test_scenarios_are_not_bounds_for_ap_and_ndcg_and_say_so():
    table = labels.bounds(*_random_case(2), ["AP", "nDCG@10", "P@5"], k=4)
    assert table.loc[table["measure"].isin(["AP", "nDCG@10"]), ["low", "high"]].isna().all().all()
    assert table.loc[table["measure"] == "P@5", ["low", "high"]].notna().all().all()
    assert "scenarios, not bounds" in " ".join(labels.bounds.__doc__.split())


def test_recall_with_several_systems_needs_its_own_extremes():
    # s1 retrieves the hole h1, s2 the hole h2; with both relevant, s1's recall is not its highest
    run = pd.DataFrame({"system": ["s1", "s2"], "query_id": ["q", "q"], "doc_id": ["h1", "h2"], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["r"], "relevance": [1]})
    with pytest.warns(rankviz.UnmatchedIdsWarning):  # nothing retrieved is judged yet: every hole is a hole
        row = labels.bounds(run, qrels, "R@1", k=1).set_index("system").loc["s1"]
    assert (row["if_relevant"], row["high"], row["low"]) == (pytest.approx(1 / 3), 0.5, pytest.approx(0.0))


def test_nothing_the_caller_passed_is_changed():
    run, qrels = _random_case(3)
    run_before, qrels_before = run.copy(deep=True), qrels.copy(deep=True)
    labels.holes(run, qrels, k=3)
    labels.bounds(run, qrels, ["P@3", "R@3", "AP"], k=3)
    pd.testing.assert_frame_equal(run, run_before)
    pd.testing.assert_frame_equal(qrels, qrels_before)


def test_qrels_from_a_label_store(tmp_path):
    run, qrels = _random_case(4)
    store = labels.LabelStore(tmp_path / "labels.sqlite")
    store.import_qrels(qrels, annotator="a")
    direct = labels.holes(run, qrels, k=4)
    via_store = labels.holes(run, str(tmp_path / "labels.sqlite"), k=4)
    pd.testing.assert_frame_equal(direct, via_store)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda run, qrels: labels.holes(run, qrels, k=0), "'k' parameter"),
        (lambda run, qrels: labels.bounds(run, None, "P@5"), "qrels are required"),
        (lambda run, qrels: labels.bounds(run, qrels, "Pfoo@5"), "Pfoo"),
        (lambda run, qrels: labels.holes(run, 42), "qrels must be"),
        (lambda run, qrels: labels.holes(run.assign(relevance=1), None), "own relevance column"),
        (lambda run, qrels: labels.holes(run.drop(columns="doc_id"), qrels), "doc"),
    ],
)
def test_bad_input_names_the_problem_and_the_fix(call, match):
    run, qrels = _random_case(5)
    with pytest.raises(rankviz.InputError, match=match):
        call(run, qrels)
