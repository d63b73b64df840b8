"""Property tests: rankviz agrees per query with pytrec_eval on generated runs.

pytrec_eval bundles trec_eval 9.0.8 (scores as float32; only queries present in both
the run and the qrels). The generated scores are multiples of 0.5, exact in float32.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from tests.strategies import run_and_qrels

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval-terrier is a test dependency")

TREC = {
    "recip_rank": "RR",
    "map": "AP",
    "ndcg": "nDCG",
    "Rprec": "Rprec",
    "P_5": "P@5",
    "P_10": "P@10",
    "recall_5": "R@5",
    "recall_10": "R@10",
    "ndcg_cut_5": "nDCG@5",
    "ndcg_cut_10": "nDCG@10",
    "success_1": "Success@1",
    "success_5": "Success@5",
    "map_cut_5": "AP@5",
}

# Random runs and qrels may share no judged document at all; that warning is not what these tests are about.
pytestmark = pytest.mark.filterwarnings("ignore::rankviz.UnmatchedIdsWarning")


def _pytrec(run, qrels, rel):
    evaluator = pytrec_eval.RelevanceEvaluator(
        rankviz.qrels_to_dict(qrels),
        {"recip_rank", "map", "ndcg", "Rprec", "P", "recall", "ndcg_cut", "success", "map_cut"},
        relevance_level=rel,
    )
    return evaluator.evaluate(rankviz.run_to_dict(run))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels(), rel=st.sampled_from([1, 2]))
def test_agrees_with_pytrec_eval_per_query(data, rel):
    run, qrels = data
    expected = _pytrec(run, qrels, rel)
    measures = [rankviz.parse_measure(m) for m in TREC.values()]
    measures = [m if m.family == "nDCG" else m(rel=rel) for m in measures]
    table = rankviz.evaluate(run, measures, qrels, per_query=True).set_index("query_id")
    names = dict(zip(TREC, [m.name for m in measures]))
    for qid, values in expected.items():
        for trec_name, column in names.items():
            got = table.loc[qid, column]
            assert math.isclose(got, values[trec_name], rel_tol=1e-9, abs_tol=1e-12), (
                qid,
                trec_name,
                got,
                values[trec_name],
            )
    # Judged queries the run never retrieved are in the table with zeros (trec_eval -c); pytrec_eval skips them.
    for qid in set(table.index) - set(expected):
        assert (table.loc[qid, list(names.values())] == 0).all()


@settings(max_examples=150, deadline=None)
@given(data=run_and_qrels(grades=(0, 1, 2)))
def test_first_relevant_rank_matches_reciprocal_rank(data):
    run, qrels = data
    rr = rankviz.evaluate(run, ["RR"], qrels, per_query=True).set_index("query_id")["RR"]
    first = rankviz.first_relevant_rank(run, qrels)
    for qid, value in rr.items():
        if value == 0:
            assert first.isna().loc[qid]
        else:
            assert math.isclose(1.0 / first.loc[qid], value)


# Every measure pytrec_eval (trec_eval 9.0.8) computes, but iprec_at_recall and 11pt_avg, whose recall
# cutoffs trec_eval 10 rounds differently (lround instead of adding 0.9; tested against the C program).
PYTREC_ALL = sorted(set(pytrec_eval.supported_measures) - {"runid", "relstring", "iprec_at_recall", "11pt_avg"})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels(), rel=st.sampled_from([1, 2]), judged_only=st.booleans())
def test_every_pytrec_eval_measure_agrees_per_query(data, rel, judged_only):
    """All of pytrec_eval's measures, with its -l and -J, per query (gm_* per query are its logs)."""
    run, qrels = data
    evaluator = pytrec_eval.RelevanceEvaluator(
        rankviz.qrels_to_dict(qrels), set(PYTREC_ALL), relevance_level=rel, judged_docs_only_flag=judged_only
    )
    expected = evaluator.evaluate(rankviz.run_to_dict(run))
    names = sorted({name for values in expected.values() for name in values})
    measures = {name: rankviz.parse_measure(name) for name in names}
    table = rankviz.evaluate(run, list(measures.values()), qrels, per_query=True, rel=rel, judged_only=judged_only)
    table = table.set_index("query_id")
    columns = {
        name: rankviz.measures.Measure(
            m.family, m.cutoff, params={**dict(m.params), **({"rel": rel} if dict(m.params).get("rel") == 1 else {})}
        ).name
        for name, m in measures.items()
    }
    for qid, values in expected.items():
        for name, value in values.items():
            got = table.loc[qid, columns[name]]
            if name.startswith("gm_"):
                got = math.log(max(got, 1e-5))
            assert math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-9), (qid, name, got, value, rel, judged_only)
