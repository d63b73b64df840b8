"""Tie-aware measures: expected values against brute force over all orderings, bounds and invariance."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankviz

MEASURES = [
    "RR",
    "RR@2",
    "RR(rel=2)@3",
    "AP",
    "AP@3",
    "nDCG",
    "nDCG@2",
    "nDCG(gain='exp')@3",
    "P@2",
    "P@4",
    "R@1",
    "R@3",
    "Success@1",
    "Success@3",
    "Rprec",
    "Rprec(rel=2)",
]

# Random runs and qrels may share no judged document at all; that warning is not what these tests are about.
pytestmark = pytest.mark.filterwarnings("ignore::rankviz.UnmatchedIdsWarning")


def _reference(grades_in_order, judged, measure):
    """One ranked list's value under trec_eval semantics (pure Python, for brute force)."""
    m = rankviz.parse_measure(measure)
    k = m.cutoff or len(grades_in_order)
    top = grades_in_order[:k]
    rel = m.rel
    big_r = sum(1 for g in judged if g >= rel)
    if m.family == "RR":
        return next((1 / (i + 1) for i, g in enumerate(top) if g >= rel), 0.0)
    if m.family == "P":
        return sum(g >= rel for g in top) / m.cutoff
    if m.family == "R":
        return sum(g >= rel for g in top) / big_r if big_r else 0.0
    if m.family == "Success":
        return float(any(g >= rel for g in top))
    if m.family == "Rprec":
        return sum(g >= rel for g in grades_in_order[:big_r]) / big_r if big_r else 0.0
    if m.family == "AP":
        found, total = 0, 0.0
        for i, g in enumerate(top):
            if g >= rel:
                found += 1
                total += found / (i + 1)
        return total / big_r if big_r else 0.0
    gain = (lambda g: max(g, 0)) if m.gain == "linear" else (lambda g: 2 ** max(g, 0) - 1)
    dcg = sum(gain(g) / math.log2(i + 2) for i, g in enumerate(top))
    ideal = sorted((g for g in judged if g > 0), reverse=True)[: (m.cutoff or len(judged))]
    idcg = sum(gain(g) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def _brute_force(scores, grades, judged, measure):
    """Mean, max and min of a measure over every ordering of every tie group."""
    groups = {}
    for s, g in zip(scores, grades):
        groups.setdefault(s, []).append(g)
    ordered = [groups[s] for s in sorted(groups, reverse=True)]
    values = []
    for combo in itertools.product(*(set(itertools.permutations(g)) for g in ordered)):
        # permutations of equal grades are the same list; weight by multiplicity to keep the uniform average
        values.append(_reference([g for part in combo for g in part], judged, measure))
    # set() dedups identical grade sequences; each distinct arrangement of a multiset is equally likely
    return float(np.mean(values)), max(values), min(values)


@st.composite
def tied_runs(draw):
    n = draw(st.integers(1, 7))
    scores = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.sampled_from([0, 0, 1, 2, None]), min_size=n, max_size=n))
    extra = draw(st.lists(st.sampled_from([0, 1, 2]), max_size=3))  # judged but never retrieved
    docs = [f"d{i}" for i in range(n)]
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": scores})
    judged_docs = [(d, g) for d, g in zip(docs, grades) if g is not None] + [(f"x{i}", g) for i, g in enumerate(extra)]
    if not judged_docs:
        judged_docs = [("x9", 1)]
    qrels = pd.DataFrame(
        {"query_id": "q", "doc_id": [d for d, _ in judged_docs], "relevance": [g for _, g in judged_docs]}
    )
    return run, qrels


@settings(max_examples=120, deadline=None)
@given(data=tied_runs())
def test_expected_optimistic_pessimistic_match_brute_force(data):
    run, qrels = data
    grade_of = dict(zip(qrels.doc_id, qrels.relevance))
    grades = [grade_of.get(d, 0) for d in run.doc_id]
    judged = qrels.relevance.tolist()
    modes = {
        mode: rankviz.evaluate(run, MEASURES, qrels, ties=mode).iloc[0]
        for mode in ("expected", "optimistic", "pessimistic")
    }
    for measure in MEASURES:
        name = rankviz.parse_measure(measure).name
        mean, best, worst = _brute_force(run.score.tolist(), grades, judged, measure)
        assert math.isclose(modes["expected"][name], mean, abs_tol=1e-12), (measure, modes["expected"][name], mean)
        assert math.isclose(modes["optimistic"][name], best, abs_tol=1e-12), measure
        assert math.isclose(modes["pessimistic"][name], worst, abs_tol=1e-12), measure


@settings(max_examples=80, deadline=None)
@given(data=tied_runs(), seed=st.integers(0, 1000))
def test_expected_is_invariant_to_doc_names_and_bounded(data, seed):
    run, qrels = data
    rng = np.random.default_rng(seed)
    names = {d: f"z{v}" for d, v in zip(run.doc_id, rng.permutation(len(run)))}
    renamed_run = run.assign(doc_id=run.doc_id.map(names))
    renamed_qrels = qrels.assign(doc_id=qrels.doc_id.map(lambda d: names.get(d, d)))
    expected = rankviz.evaluate(run, MEASURES, qrels, ties="expected")
    renamed = rankviz.evaluate(renamed_run, MEASURES, renamed_qrels, ties="expected")
    pd.testing.assert_frame_equal(expected, renamed)
    opt = rankviz.evaluate(run, MEASURES, qrels, ties="optimistic")
    pes = rankviz.evaluate(run, MEASURES, qrels, ties="pessimistic")
    assert (opt.to_numpy() >= expected.to_numpy() - 1e-12).all()
    assert (expected.to_numpy() >= pes.to_numpy() - 1e-12).all()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 8), seed=st.integers(0, 10_000))
def test_without_ties_all_modes_agree(n, seed):
    rng = np.random.default_rng(seed)
    run = pd.DataFrame(
        {"query_id": "q", "doc_id": [f"d{i}" for i in range(n)], "score": rng.permutation(n).astype(float)}
    )
    qrels = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(n)], "relevance": rng.integers(0, 3, n)})
    tables = [
        rankviz.evaluate(run, MEASURES, qrels, ties=mode)
        for mode in ("trec_eval", "expected", "optimistic", "pessimistic")
    ]
    for other in tables[1:]:
        np.testing.assert_allclose(tables[0].to_numpy(dtype=float), other.to_numpy(dtype=float), atol=1e-12)


def test_ndcg_expected_matches_sklearn_tie_averaging():
    sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is a test dependency")
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(2, 12))
        scores = rng.integers(0, 3, n).astype(float)
        grades = rng.integers(0, 4, n)
        run = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(n)], "score": scores})
        qrels = pd.DataFrame({"query_id": "q", "doc_id": run.doc_id, "relevance": grades})
        if grades.sum() == 0:
            continue
        for k in (None, 1, 3, 5):
            ours = rankviz.ndcg(run, qrels, k=k, ties="expected")
            theirs = sklearn_metrics.ndcg_score([grades], [scores], k=k, ignore_ties=False)
            assert math.isclose(ours, theirs, rel_tol=1e-9), (k, ours, theirs)


def test_constant_scorer_cannot_game_mrr():
    """A constant scorer got MRR@10 = 1.0 in a public benchmark when ties broke in its favour."""
    run = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i:02d}" for i in range(20)], "score": 1.0})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d19"], "relevance": [1]})
    assert run.rank.mrr(qrels, k=10) == 1.0  # trec_eval: d19 sorts first (doc id descending)
    assert run.rank.mrr(qrels, k=10, ties="pessimistic") == 0.0
    expected = run.rank.mrr(qrels, k=10, ties="expected")
    assert math.isclose(expected, sum(1 / r for r in range(1, 11)) / 20)


def test_trec_eval_issue_22_doc_names_change_ndcg():
    """usnistgov/trec_eval#22: runs that differ only in doc names got nDCG 1.0 and 0.63."""
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "z"], "relevance": [1, 0]})
    first = pd.DataFrame({"query_id": "q", "doc_id": ["a", "0"], "score": [1.0, 1.0]})
    second = pd.DataFrame({"query_id": "q", "doc_id": ["a", "z"], "score": [1.0, 1.0]})
    assert first.rank.ndcg(qrels=qrels) == 1.0
    assert round(second.rank.ndcg(qrels=qrels), 4) == 0.6309
    assert first.rank.ndcg(qrels=qrels, ties="expected") == second.rank.ndcg(qrels=qrels, ties="expected")


def test_tie_report_counts_and_spread():
    run = pd.DataFrame(
        {
            "query_id": ["q1"] * 4 + ["q2"] * 3,
            "doc_id": ["a", "b", "c", "d", "e", "f", "g"],
            "score": [3.0, 2.0, 2.0, 1.0, 3.0, 2.0, 1.0],
        }
    )
    qrels = {"q1": {"c": 1}, "q2": {"f": 1}}
    report = rankviz.tie_report(run, qrels, k=2, measures=["RR@2", "P@2"])
    row = report.summary.loc["run"]
    assert row["n_queries"] == 2 and row["n_queries_with_ties"] == 1 and row["n_tied_rows"] == 2
    assert row["n_tie_groups_straddling_2"] == 1
    assert row["n_queries_first_relevant_tied"] == 1
    # q1: c ties with b at ranks 2-3 -> RR@2 is 1/2 (optimistic) or 0 (pessimistic); q2 is untied (1/2)
    assert row["RR@2_optimistic"] == 0.5 and row["RR@2_pessimistic"] == 0.25 and row["RR@2_expected"] == 0.375
    assert row["RR@2_spread"] == 0.25
    assert report.worst_queries["query_id"].tolist() == ["q1"]
    page = report._repr_html_()
    assert "Tie report" in repr(report) and "Tie report" in page
    # counts as integers, measures to 4 decimals (not 2.000000e+00 or 2.0000)
    assert "<td>2</td>" in page and "<td>0.2500</td>" in page and "e+0" not in page and "2.0000" not in page


def test_summary_warns_only_when_ties_matter():
    qrels = {"q": {"b": 1}}
    tied = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    with pytest.warns(rankviz.TiesWarning, match=r"score ties can move MRR|score ties can move RR@10|by up to 0\.5000"):
        tied.rank.summary(k=10, qrels=qrels, confidence_level=None)
    untied = tied.assign(score=[2.0, 1.0])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        untied.rank.summary(k=10, qrels=qrels, confidence_level=None)
        tied.rank.summary(k=10, qrels=qrels, confidence_level=None, ties="expected")


@pytest.mark.parametrize(
    "path, tied_rows",
    [(("trec_covid_round1", "runs", "PL2c1.0"), 12152), (("cranfield", "runs", "lucene_myRun.run"), 31969)],
)
def test_real_tied_runs(path, tied_rows):
    from tests.conftest import shared_path

    qrels_path = (
        shared_path("trec_covid_round1", "qrels-rnd1.txt")
        if path[0] == "trec_covid_round1"
        else shared_path("cranfield", "QRelsCorrectedforTRECeval")
    )
    run = rankviz.read_run(shared_path(*path))
    report = run.rank.ties(qrels=qrels_path, k=10)
    row = report.summary.iloc[0]
    assert row["n_tied_rows"] == tied_rows
    for m in ("RR@10", "nDCG@10", "AP"):
        assert row[f"{m}_pessimistic"] <= row[f"{m}_expected"] <= row[f"{m}_optimistic"]
