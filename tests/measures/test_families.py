"""The measures added for trec_eval's all_trec set and beyond: brute force, peers, tie modes, real data.

- ERR@k and Judged@k against independent brute-force implementations written here
  (and Judged@k against ir_measures, in the test extra; its ERR provider, gdeval,
  needs a working Perl setup and is not used).
- Every rank-dependent new measure under the three tie modes against brute force over
  all orderings of every tie group: ``expected`` is the mean, ``optimistic`` and
  ``pessimistic`` the orders that put relevant items first or last, which bound
  every measure that only rewards relevant items early (not infAP, where the order
  of unjudged and unpooled items matters too); measures without a closed-form
  expectation refuse ``ties='expected'`` with an error naming the fix.
- TREC-COVID round 1: the leaderboard's bpref and RBP(p=.5) columns for the 10 runs.
- Judged-only evaluation (trec_eval -J) equals evaluating the run with its unjudged
  rows removed first.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from tests.conftest import IN_CI, shared_path
from tests.strategies import run_and_qrels

# Random runs and qrels may share no judged document at all; that warning is not what these tests are about.
pytestmark = pytest.mark.filterwarnings("ignore::rankviz.UnmatchedIdsWarning")


def _trec_order(rows):
    """(doc, score) pairs in trec_eval order: score descending, then doc id descending in byte order."""
    return sorted(rows, key=lambda t: (t[1], t[0].encode()), reverse=True)


def _err(ranked_grades, k, g_max):
    value, keep_going = 0.0, 1.0
    for r, g in enumerate(ranked_grades[:k], start=1):
        stop = (2 ** max(g, 0) - 1) / 2**g_max
        value += keep_going * stop / r
        keep_going *= 1 - stop
    return value


@settings(max_examples=150, deadline=None)
@given(data=run_and_qrels(), k=st.sampled_from([1, 3, 10]))
def test_err_matches_a_brute_force_cascade(data, k):
    run, qrels = data
    g_max = max(qrels.relevance.max(), 0)
    grades = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    table = rankviz.evaluate(run, [f"ERR@{k}"], qrels, per_query=True).set_index("query_id")
    for qid in table.index:
        rows = run[run.query_id == qid]
        ranked = [grades.get((qid, d), 0) for d, _ in _trec_order(zip(rows.doc_id, rows.score))]
        assert math.isclose(table.loc[qid, f"ERR@{k}"], _err(ranked, k, g_max), abs_tol=1e-12)


def test_err_max_grade_is_stated_and_checked():
    qrels = rankviz.qrels_from_dict({"q": {"a": 1, "b": 2}})
    run = rankviz.run_from_dict({"q": {"a": 2.0, "b": 1.0}})
    values = rankviz.evaluate(run, ["ERR@10", "ERR(max_grade=4)@10"], qrels).iloc[0]
    assert values["ERR@10"] == pytest.approx(0.25 + 0.75 * 0.75 / 2)  # g_max = 2, the highest grade in the qrels
    assert values["ERR(max_grade=4)@10"] == pytest.approx(1 / 16 + (15 / 16) * (3 / 16) / 2)
    with pytest.raises(rankviz.InputError, match=r"max_grade=1 but the qrels hold grade 2; raise max_grade"):
        rankviz.evaluate(run, ["ERR(max_grade=1)@10"], qrels)


def _judged_share(run, qrels, k):
    judged = set(zip(qrels.query_id, qrels.doc_id))
    out = {}
    for qid in run.query_id.unique():
        if qid not in set(qrels.query_id):
            continue
        rows = run[run.query_id == qid]
        top = _trec_order(zip(rows.doc_id, rows.score))[:k]
        out[qid] = sum((qid, d) in judged for d, _ in top) / len(top)
    return out


@settings(max_examples=150, deadline=None)
@given(data=run_and_qrels(), k=st.sampled_from([1, 3, 10]))
def test_judged_at_k_matches_brute_force(data, k):
    run, qrels = data
    table = rankviz.evaluate(run, [f"Judged@{k}"], qrels, per_query=True, missing="drop").set_index("query_id")
    expected = _judged_share(run, qrels, k)
    assert set(table.index) == set(expected)
    for qid, value in expected.items():
        assert math.isclose(table.loc[qid, f"Judged@{k}"], value, abs_tol=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels(), k=st.sampled_from([1, 3, 10]))
def test_judged_at_k_matches_ir_measures(data, k):
    try:
        import ir_measures
    except ImportError:
        message = "ir_measures is not installed (it is in the 'test' extra: pip install -e '.[test]')"
        if IN_CI:
            pytest.fail(message + "; CI=true requires it", pytrace=False)
        pytest.skip(message)
    run, qrels = data
    run = run.assign(
        score=np.arange(len(run), 0, -1, dtype=float)
    )  # no ties: ir_measures breaks them by doc id ascending
    expected = {
        m.query_id: m.value
        for m in ir_measures.iter_calc(
            [ir_measures.parse_measure(f"Judged@{k}")],
            [ir_measures.Qrel(q, d, int(g)) for q, d, g in qrels.itertuples(index=False)],
            [ir_measures.ScoredDoc(q, d, float(s)) for q, d, s in run.itertuples(index=False)],
        )
    }
    table = rankviz.evaluate(run, [f"Judged@{k}"], qrels, per_query=True).set_index("query_id")
    assert expected
    for qid, value in expected.items():  # a judged query the run missed: 0 in both (missing='zero')
        assert math.isclose(table.loc[qid, f"Judged@{k}"], value, abs_tol=1e-12)


# ----------------------------------------------------------------------------- tie modes

TIE_MEASURES = [
    "NumRelRet@3",
    "NumNonrelJudgedRet@3",
    "GMAP",
    "RprecMult@0.5",
    "RprecMult@2.0",
    "RelP@3",
    "RBP(p=0.8)",
    "Judged@3",
    "Unj@3",
    "nDCG(gains={0: 0, 1: 1, 2: 3})@3",
    "Utility",
    "SetP",
    "SetRelP",
    "SetR",
    "SetF",
]
NO_CLOSED_FORM = [
    "Bpref",
    "infAP",
    "IPrec@0.5",
    "IPrecAvg",
    "binG",
    "G",
    "nDCGRel",
    "RnDCG",
    "RBPResid",
    "ERR@3",
    "SetAP",
]


@st.composite
def tied_runs(draw):
    n = draw(st.integers(1, 6))
    scores = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=n, max_size=n))
    grades = draw(st.lists(st.sampled_from([0, 1, 2, -1, None]), min_size=n, max_size=n))
    extra = draw(st.lists(st.sampled_from([0, 1, 2]), max_size=3))  # judged but never retrieved
    docs = [f"d{i}" for i in range(n)]
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": scores})
    judged = [(d, g) for d, g in zip(docs, grades) if g is not None] + [(f"x{i}", g) for i, g in enumerate(extra)]
    judged = judged or [("x9", 1)]
    qrels = pd.DataFrame({"query_id": "q", "doc_id": [d for d, _ in judged], "relevance": [g for _, g in judged]})
    return run, qrels


def _every_ordering(run: pd.DataFrame) -> pd.DataFrame:
    """One system per ordering of every tie group, scored strictly in that order."""
    groups = [list(g.doc_id) for _, g in run.groupby("score", sort=True)][::-1]
    systems = []
    for i, combo in enumerate(itertools.product(*(itertools.permutations(g) for g in groups))):
        docs = [d for part in combo for d in part]
        systems.append(
            pd.DataFrame(
                {"system": f"o{i}", "query_id": "q", "doc_id": docs, "score": -np.arange(len(docs), dtype=float)}
            )
        )
    return pd.concat(systems, ignore_index=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tied_runs(), depth=st.sampled_from([None, 2]))
def test_tie_modes_match_brute_force_over_all_orderings(data, depth):
    run, qrels = data
    measures = TIE_MEASURES + NO_CLOSED_FORM
    every = rankviz.evaluate(_every_ordering(run), measures, qrels, depth=depth, per_query=True)
    names = [rankviz.parse_measure(m).name for m in measures]
    modes = {
        mode: rankviz.evaluate(
            run, measures if mode != "expected" else TIE_MEASURES, qrels, ties=mode, depth=depth, per_query=True
        ).iloc[0]
        for mode in ("expected", "optimistic", "pessimistic")
    }
    for measure, name in zip(measures, names):
        values = every[name].to_numpy()
        if measure in TIE_MEASURES:
            assert math.isclose(modes["expected"][name], values.mean(), abs_tol=1e-12), (measure, depth)
        # optimistic and pessimistic are orderings: each is one of the values over all orderings
        for mode in ("optimistic", "pessimistic"):
            assert np.isclose(values, modes[mode][name], atol=1e-12).any(), (measure, mode, depth)
        # Bounds where the measure only rewards relevant items early. Not infAP: where its unjudged and
        # unpooled items fall among the non-relevant ones matters too, so pessimistic is not always its minimum.
        if measure in ("RBP(p=0.8)", "GMAP", "RelP@3", "Judged@3", "NumRelRet@3", "Bpref", "binG", "ERR@3"):
            assert math.isclose(modes["optimistic"][name], values.max(), abs_tol=1e-12), (measure, depth)
            assert math.isclose(modes["pessimistic"][name], values.min(), abs_tol=1e-12), (measure, depth)


@pytest.mark.parametrize("measure", NO_CLOSED_FORM)
def test_no_closed_form_refuses_expected_ties(measure):
    run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a"], "relevance": [1]})
    name = rankviz.parse_measure(measure).name
    with pytest.raises(
        rankviz.InputError, match=rf"{re_escape(name)}: ties='expected' is not available.*'optimistic' or 'pessimistic'"
    ):
        rankviz.evaluate(run, [measure], qrels, ties="expected")


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


# ----------------------------------------------------------------------------- real data


RUNS = [
    "BERT",
    "PL2c1.0",
    "T5R1",
    "Tetralogie0Fr",
    "run1",
    "sab20.1.meta.docs",
    "smith.bm25",
    "smith.ql",
    "smith.rm3",
    "yn-r1-alltext",
]


@pytest.fixture(scope="module")
def covid_bpref():
    base = shared_path("trec_covid_round1")
    board = pd.read_csv(base / "leaderboard-round1.csv").set_index("run")
    qrels = rankviz.read_qrels(base / "qrels-rnd1.txt")
    runs = pd.concat([rankviz.read_run(base / "runs" / name, system=name) for name in RUNS], ignore_index=True)
    measures = ["Bpref", "GMBpref", "RBP(p=0.5)"]
    scores = runs.rank.evaluate(measures, qrels=qrels, depth=1000, score_dtype="float32")
    return board, scores


@pytest.mark.parametrize("run", RUNS)
def test_trec_covid_leaderboard_bpref_and_rbp(covid_bpref, run):
    """The leaderboard's bpref and RBP(p=.5) columns (trec_eval -c -M1000, scores as float32) for all 10 runs."""
    board, scores = covid_bpref
    assert abs(scores.loc[run, "Bpref"] - board.loc[run, "bpref"]) <= 0.00005
    assert abs(scores.loc[run, "RBP(p=0.5)"] - board.loc[run, "RBP(p=.5)"]) <= 0.00005
    assert 0 < scores.loc[run, "GMBpref"] <= scores.loc[run, "Bpref"]  # a geometric mean is at most the mean


# ----------------------------------------------------------------------------- judged-only evaluation


@settings(max_examples=100, deadline=None)
@given(data=run_and_qrels(), depth=st.sampled_from([None, 3]))
def test_judged_only_is_evaluating_the_judged_rows(data, depth):
    """-J drops unjudged items after the depth cut and closes the ranks; ties keep trec_eval's order."""
    run, qrels = data
    measures = ["RR", "AP", "nDCG@5", "P@3", "Bpref", "NumRet", "RBP(p=0.5)", "ERR@5"]
    condensed = rankviz.evaluate(run, measures, qrels, per_query=True, judged_only=True, depth=depth)
    judged = {(q, d) for q, d, g in qrels.itertuples(index=False) if g >= 0}
    kept = []
    for qid, rows in run.groupby("query_id"):
        ranked = _trec_order(zip(rows.doc_id, rows.score))[: depth or len(rows)]
        kept += [(qid, d, -i) for i, (d, _) in enumerate(ranked) if (qid, d) in judged]
    by_hand = pd.DataFrame(kept, columns=["query_id", "doc_id", "score"]).astype({"query_id": "str", "doc_id": "str"})
    if by_hand.empty:
        return
    plain = rankviz.evaluate(by_hand, measures, qrels, per_query=True).set_index("query_id")
    condensed = condensed.set_index("query_id")
    for qid in plain.index:
        for m in measures:
            name = rankviz.parse_measure(m).name
            assert math.isclose(condensed.loc[qid, name], plain.loc[qid, name], abs_tol=1e-12), (qid, m)


def test_summary_shows_the_judged_share_next_to_the_zero_share():
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    run = pd.DataFrame(
        {"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": ["a", "b", "x", "y", "c"], "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
    )
    table = rankviz.summary(run, k=2, qrels=qrels, confidence_level=None)
    columns = list(table.columns)
    assert columns.index("Judged@2") == columns.index("zero_share") + 1
    assert table["Judged@2"].item() == pytest.approx((2 / 2 + 1 / 2) / 2)
    with pytest.warns(rankviz.DegenerateDataWarning):  # two queries
        with_ci = rankviz.summary(run, k=2, qrels=qrels, n_resamples=100, rng=0)
    assert list(with_ci.columns).index("Judged@2") == list(with_ci.columns).index("zero_share_ci_high") + 1


def test_tie_report_leaves_expected_empty_where_there_is_no_closed_form():
    run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 0]})
    report = rankviz.tie_report(run, qrels, measures=["Bpref", "RR"])
    row = report.summary.iloc[0]
    assert math.isnan(row["Bpref_expected"]) and row["RR_expected"] == pytest.approx(0.75)
    assert row["Bpref_optimistic"] == 1.0 and row["Bpref_pessimistic"] == 1.0


def test_ranked_list_judged_only_drops_unjudged_items():
    run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "x", "b", "c"], "score": [4.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "relevance": [1, -1, 0]})
    table = rankviz.ranked_list(run, "q", qrels, judged_only=True)
    assert table["doc_id"].tolist() == ["a", "c"] and table["rank"].tolist() == [1, 2]
    assert len(rankviz.ranked_list(run, "q", qrels)) == 4
