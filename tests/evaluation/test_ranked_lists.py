"""rankviz.evaluation.ranked_lists: the list a user is shown is the list the measures score.

Regression tests for the options ranked_list advertised and ignored (depth, ties, duplicates) and
for an unknown query, and a property test: on random runs, under every option, the hits and
ranks of ``ranked_list`` give ``evaluate``'s per-query RR, P@k and the number of relevant retrieved.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankviz
from tests.strategies import run_and_qrels


@pytest.fixture
def four():
    run = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3.0, 3.0, 1.0]})
    qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["c", "d"], "relevance": [1, 1]})
    return run, qrels


def test_depth_cuts_the_list(four):
    run, qrels = four
    assert len(rankviz.ranked_list(run, "q1", qrels)) == 4
    assert rankviz.ranked_list(run, "q1", qrels, depth=2)["doc_id"].tolist() == ["a", "c"]


def test_ties_order_a_tie_group_as_the_measures_do(four):
    run, qrels = four
    # b and c tie at 3.0: trec_eval breaks the tie by doc id descending (c before b)
    assert rankviz.ranked_list(run, "q1", qrels)["doc_id"].tolist() == ["a", "c", "b", "d"]
    assert rankviz.ranked_list(run, "q1", qrels, ties="optimistic")["doc_id"].tolist() == ["a", "c", "b", "d"]
    assert rankviz.ranked_list(run, "q1", qrels, ties="pessimistic")["doc_id"].tolist() == ["a", "b", "c", "d"]
    assert rankviz.ranked_list(run, "q1", qrels)["tied"].tolist() == [1, 2, 2, 1]
    pessimistic = rankviz.mrr(run, qrels=qrels, ties="pessimistic")
    listed = rankviz.ranked_list(run, "q1", qrels, ties="pessimistic")
    assert float(np.asarray(pessimistic).ravel()[0]) == 1 / listed.loc[listed["relevant"], "rank"].min()


def test_a_repeated_document_is_refused_as_mrr_refuses_it_and_kept_once_with_first(four):
    run, qrels = four
    twice = pd.concat([run, run.iloc[[3]].assign(score=5.0)], ignore_index=True)  # d again, now ranked first
    with pytest.raises(rankviz.DuplicateError) as listed:
        rankviz.ranked_list(twice, "q1", qrels)
    with pytest.raises(rankviz.DuplicateError) as scored:
        rankviz.mrr(twice, qrels=qrels)
    assert "'d'" in str(listed.value) and "'d'" in str(scored.value)
    kept = rankviz.ranked_list(twice, "q1", qrels, duplicates="first")
    assert kept["doc_id"].tolist() == ["d", "a", "c", "b"]  # the best-ranked copy of d, once


def test_an_unknown_query_is_an_error_with_a_did_you_mean(four):
    run, qrels = four
    with pytest.raises(rankviz.InputError, match=r"no query 'Q1'; did you mean 'q1'\?"):
        rankviz.ranked_list(run, "Q1", qrels)
    with pytest.raises(rankviz.InputError, match=r"no query 'zz'; its queries are 'q1'"):
        rankviz.ranked_list(run, "zz", qrels)


def test_a_judged_query_the_run_did_not_retrieve_is_an_empty_list(four):
    run, qrels = four
    more = pd.concat([qrels, pd.DataFrame({"query_id": ["q2"], "doc_id": ["x"], "relevance": [1]})])
    listed = rankviz.ranked_list(run, "q2", more)
    assert listed.empty and list(listed.columns[:2]) == ["rank", "doc_id"]


def test_judged_only_drops_unjudged_and_negative_rows_after_the_cut(four):
    run, qrels = four
    qrels = pd.concat([qrels, pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [-1]})])
    assert rankviz.ranked_list(run, "q1", qrels, judged_only=True)["doc_id"].tolist() == ["c", "d"]
    assert rankviz.ranked_list(run, "q1", qrels, depth=2, judged_only=True)["doc_id"].tolist() == ["c"]


def _from_lists(run, qrels, k, **options):
    """Per query: RR@k, P@k and relevant retrieved, read off ranked_list alone."""
    rows = {}
    for query in sorted(set(run["query_id"]) & set(qrels["query_id"])):
        listed = rankviz.ranked_list(run, query, qrels, **options)
        ranks = listed.loc[listed["relevant"], "rank"].to_numpy()
        top = ranks[ranks <= k]
        rows[query] = (1 / top.min() if len(top) else 0.0, len(top) / k, float(len(ranks)))
    return pd.DataFrame.from_dict(rows, orient="index", columns=[f"RR@{k}", f"P@{k}", "NumRelRet"])


@settings(max_examples=150, deadline=None)
@given(
    data=run_and_qrels(),
    k=st.integers(1, 6),
    depth=st.one_of(st.none(), st.integers(1, 8)),
    ties=st.sampled_from(["trec_eval", "optimistic", "pessimistic"]),
    judged_only=st.booleans(),
    rel=st.integers(1, 2),
)
def test_the_hits_and_ranks_of_ranked_list_give_the_measures(data, k, depth, ties, judged_only, rel):
    run, qrels = data
    options = {"depth": depth, "ties": ties, "judged_only": judged_only, "rel": rel}
    with warnings.catch_warnings():  # a random run may share no judged document with its qrels: a 0 is right
        warnings.simplefilter("ignore", rankviz.UnmatchedIdsWarning)
        expected = rankviz.evaluate(run, [f"RR@{k}", f"P@{k}", "NumRelRet"], qrels, per_query=True, **options)
    expected = expected.set_index("query_id").iloc[:, -3:]  # RR(rel=2)@k ...: labelled with the call's rel
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankviz.UnmatchedIdsWarning)
        listed = _from_lists(run, qrels, k, **options)
    expected = expected.loc[listed.index].astype(float)
    expected.columns = listed.columns
    pd.testing.assert_frame_equal(listed, expected, check_names=False, check_exact=True)


def test_a_run_file_of_one_system_needs_no_system(tmp_path, trec_eval_dir):
    """read_run gives a system column (the file's tag): one system is chosen by default, several still ask."""
    run = rankviz.read_run(trec_eval_dir / "results.test")
    qrels = rankviz.read_qrels(trec_eval_dir / "qrels.test")
    assert run["system"].nunique() == 1
    got = rankviz.ranked_list(run, "301", qrels)
    named = rankviz.ranked_list(run, "301", qrels, system=str(run["system"].iloc[0]))
    pd.testing.assert_frame_equal(got, named)
    assert len(got) == 500 and got["rank"].tolist() == list(range(1, 501))
    first_relevant = int(got.loc[got["relevant"], "rank"].iloc[0])
    rr = rankviz.evaluate(run, ["RR"], qrels, per_query=True).set_index("query_id").loc["301", "RR"]
    assert rr == pytest.approx(1 / first_relevant)
    two = pd.concat([run, run.assign(system="other")], ignore_index=True)
    with pytest.raises(rankviz.InputError, match="holds 2 systems; choose one with system="):
        rankviz.ranked_list(two, "301", qrels)
    with pytest.raises(rankviz.InputError, match="unknown system"):
        rankviz.ranked_list(run, "301", qrels, system="nope")
