"""Invariants of every measure on generated runs: bounds, monotonicity, ideal orderings, row order."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankviz
from tests.strategies import run_and_qrels

MEASURES = ["RR", "RR@3", "nDCG", "nDCG@3", "AP", "AP@3", "P@3", "R@3", "Success@3", "Rprec"]

# Random runs and qrels may share no judged document at all; that warning is not what these tests are about.
pytestmark = pytest.mark.filterwarnings("ignore::rankviz.UnmatchedIdsWarning")


def _table(run, qrels, **options):
    return rankviz.evaluate(run, MEASURES, qrels, per_query=True, **options).set_index("query_id")


@settings(max_examples=100, deadline=None)
@given(data=run_and_qrels())
def test_values_in_unit_interval(data):
    table = _table(*data)
    values = table.to_numpy()
    assert np.all((values >= 0) & (values <= 1 + 1e-12))


@settings(max_examples=100, deadline=None)
@given(data=run_and_qrels(negative=True))
def test_ideal_ordering_scores_one(data):
    _, qrels = data
    ideal = qrels.rename(columns={"relevance": "score"}).astype({"score": float})
    table = _table(ideal, qrels)
    has_relevant = qrels[qrels.relevance >= 1].groupby("query_id").size()
    for qid in has_relevant.index:
        assert table.loc[qid, "nDCG"] == 1.0
        assert table.loc[qid, "AP"] == 1.0 and table.loc[qid, "RR"] == 1.0 and table.loc[qid, "Rprec"] == 1.0


@settings(max_examples=80, deadline=None)
@given(data=run_and_qrels())
def test_cutoff_monotonicity(data):
    run, qrels = data
    ks = [1, 2, 3, 5, 8, 13]
    measures = [f"{m}@{k}" for m in ("RR", "R", "Success", "P", "AP") for k in ks]
    table = rankviz.evaluate(run, measures, qrels, per_query=True)
    for family in ("RR", "R", "Success", "AP"):
        block = table[[f"{family}@{k}" for k in ks]].to_numpy()
        assert np.all(np.diff(block, axis=1) >= -1e-12), family
    relevant_found = table[[f"P@{k}" for k in ks]].to_numpy() * np.array(ks)
    assert np.all(np.diff(relevant_found, axis=1) >= -1e-9)


@settings(max_examples=80, deadline=None)
@given(data=run_and_qrels(), seed=st.integers(0, 2**32 - 1))
def test_row_order_does_not_matter(data, seed):
    run, qrels = data
    shuffled = run.sample(frac=1.0, random_state=seed % (2**32 - 1))
    pd.testing.assert_frame_equal(_table(run, qrels), _table(shuffled, qrels))


@settings(max_examples=80, deadline=None)
@given(data=run_and_qrels())
def test_renaming_ids_changes_nothing(data):
    run, qrels = data
    # Query ids: any bijection. Doc ids: any order-preserving renaming (trec_eval breaks ties by doc id).
    rename_q = lambda s: "topic-" + s.str[::-1]  # noqa: E731
    rename_d = lambda s: "doc/" + s  # noqa: E731
    renamed = _table(
        run.assign(query_id=rename_q(run.query_id), doc_id=rename_d(run.doc_id)),
        qrels.assign(query_id=rename_q(qrels.query_id), doc_id=rename_d(qrels.doc_id)),
    )
    original = _table(run, qrels)
    renamed.index = renamed.index.str.removeprefix("topic-").str[::-1]
    pd.testing.assert_frame_equal(original, renamed.loc[original.index], check_names=False)


@settings(max_examples=50, deadline=None)
@given(data=run_and_qrels())
def test_inputs_are_never_modified(data):
    run, qrels = data
    run_copy, qrels_copy = run.copy(deep=True), qrels.copy(deep=True)
    _table(run, qrels, ties="expected")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.TiesWarning)  # generated runs are full of ties
        run.rank.summary(k=3, qrels=qrels, confidence_level=None)
    run.rank.first_relevant_rank(qrels=qrels)
    pd.testing.assert_frame_equal(run, run_copy)
    pd.testing.assert_frame_equal(qrels, qrels_copy)


@settings(max_examples=80, deadline=None)
@given(data=run_and_qrels())
def test_mean_is_mean_of_per_query(data):
    run, qrels = data
    per_query = rankviz.evaluate(run, MEASURES, qrels, per_query=True)
    aggregate = rankviz.evaluate(run, MEASURES, qrels)
    np.testing.assert_allclose(aggregate[MEASURES].to_numpy()[0], per_query[MEASURES].mean().to_numpy())
