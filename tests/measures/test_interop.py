"""Results that read naturally, and other libraries' measures and inputs (issue 27, items 6-9).

- A frame without a system column is one run: the single-measure shortcuts return a float.
- Results are labelled with the names the caller passed (``MRR@10`` stays ``MRR@10``).
- ``Hits@k`` is ranx's count of relevant items in the top k; ``F1@k`` is ranx's F1.
- ir_measures' measure objects (and its spellings, ``NumRet(rel=k)``) are measures: the cases
  of ir_measures' own pytrec_eval test suite give its expected values through rankviz.
- ranx-style dicts are runs and qrels; a dict of frames is a run of several systems.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import rankviz
from tests.strategies import run_and_qrels

pytestmark = pytest.mark.filterwarnings("ignore::rankviz.UnmatchedIdsWarning")

RUN = pd.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q2", "q2"],
        "doc_id": ["a", "z", "b", "y", "x"],
        "score": [3.0, 2.0, 1.0, 1.0, 0.5],
    }
)
QRELS = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["a", "b", "c", "x"], "relevance": [1, 1, 2, 1]})
TWO = pd.concat([RUN.assign(system="bm25"), RUN.assign(system="dense", score=-RUN["score"])], ignore_index=True)


# ----------------------------------------------------------------------------- 27.6: one run, one float

SHORTCUTS = [
    ("mrr", {"k": 10}, "RR@10"),
    ("ndcg", {"k": 10}, "nDCG@10"),
    ("mean_average_precision", {}, "AP"),
    ("recall", {"k": 2}, "R@2"),
    ("precision", {"k": 2}, "P@2"),
    ("hit_rate", {"k": 2}, "Success@2"),
    ("r_precision", {}, "Rprec"),
]


@pytest.mark.parametrize(("name", "kwargs", "measure"), SHORTCUTS)
def test_a_run_without_a_system_column_gives_a_float(name, kwargs, measure):
    value = getattr(rankviz, name)(RUN, qrels=QRELS, **kwargs)
    assert type(value) is float
    assert float(value) == value == rankviz.evaluate(RUN, [measure], QRELS)[measure].iloc[0]
    several = getattr(rankviz, name)(TWO, qrels=QRELS, **kwargs)
    assert isinstance(several, pd.Series) and several.index.name == "system"
    assert list(several.index) == ["bm25", "dense"] and several["bm25"] == value
    # evaluate's means are indexed by system too: one of its columns is the shortcut's Series
    table = rankviz.evaluate(TWO, [measure], QRELS)
    pd.testing.assert_series_equal(table[measure], several)


def test_the_accessor_gives_a_float_that_float_takes():
    value = RUN.rank.mrr(k=10, qrels=QRELS)
    assert type(value) is float and float(value) == 0.75  # q1: 1; q2: x at rank 2
    assert isinstance(RUN.rank.recall(k=2, qrels=QRELS), float)
    assert RUN.rankviz.ndcg(k=10, qrels=QRELS) == rankviz.ndcg(RUN, qrels=QRELS, k=10)


def test_evaluate_of_one_run_is_one_row_without_a_system():
    table = rankviz.evaluate(RUN, ["RR@10", "AP"], QRELS)
    assert len(table) == 1 and "system" not in table.columns and table.index.name is None
    per_query = rankviz.evaluate(TWO, ["RR@10"], QRELS, per_query=True)
    assert list(per_query.columns) == ["system", "query_id", "RR@10"]  # the tidy table keeps its columns


# ----------------------------------------------------------------------------- 27.7: the names passed


def test_columns_carry_the_names_passed():
    table = rankviz.evaluate(RUN, ["MRR@10", "Recall@5", "RR@10", "hit_rate@5", "hits@5"], QRELS)
    assert list(table.columns) == ["MRR@10", "Recall@5", "RR@10", "hit_rate@5", "hits@5"]
    assert table["MRR@10"].iloc[0] == table["RR@10"].iloc[0] == 0.75
    assert table.attrs["rankviz"]["canonical"] == {
        "MRR@10": "RR@10",
        "Recall@5": "R@5",
        "RR@10": "RR@10",
        "hit_rate@5": "Success@5",
        "hits@5": "Hits@5",
    }
    per_query = rankviz.evaluate(RUN, ["MRR@10"], QRELS, per_query=True)
    assert per_query["MRR@10"].tolist() == [1.0, 0.5]


def test_labels_follow_rel_and_measure_values():
    from rankviz.measures import RR

    table = rankviz.evaluate(RUN, ["MRR@10", RR @ 5, "nDCG@10"], QRELS, rel=2)
    # rel=2 changes MRR@10, so the name written no longer describes it; nDCG takes no rel
    assert list(table.columns) == ["RR(rel=2)@10", "RR(rel=2)@5", "nDCG@10"]
    assert rankviz.evaluate(RUN, ["MRR@10", "MRR@10"], QRELS).columns.tolist() == ["MRR@10"]


@pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")  # two queries
def test_statistics_of_runs_use_the_names_passed():
    res = rankviz.bootstrap(RUN, ["MRR@10"], QRELS, rng=0, n_resamples=50)
    assert res["run", "MRR@10"].estimate == 0.75
    comparison = rankviz.compare(TWO, "bm25", ["Recall@2"], QRELS, rng=0, n_resamples=50)
    assert comparison.table["measure"].tolist() == ["Recall@2"]


# ----------------------------------------------------------------------------- 27.8: Hits@k, F1@k (ranx)

# ranx 0.3 (ranx.evaluate(Qrels(QRELS), Run(RUN), ...)) on RUN and QRELS:
# hits@2 1.0, hits@3 1.5, f1@2 0.5333333333333333, hit_rate@2 1.0.
RANX = {"Hits@2": 1.0, "Hits@3": 1.5, "F1@2": 0.5333333333333333, "HitRate@2": 1.0}


def test_hits_and_f1_are_ranx_measures():
    table = rankviz.evaluate(RUN, list(RANX), QRELS)
    for name, value in RANX.items():
        assert math.isclose(table[name].iloc[0], value, rel_tol=1e-15), name
    # Hits counts: q1 has a and b in its top 3, so 2 there, not the hit rate's 1
    assert rankviz.evaluate(RUN, ["Hits@3"], QRELS, per_query=True)["Hits@3"].tolist() == [2.0, 1.0]
    assert rankviz.parse_measure("hits@5") == rankviz.parse_measure("Hits@5") != rankviz.parse_measure("hit_rate@5")
    with pytest.raises(rankviz.UnknownMeasureError, match=r"'hit@5' is ambiguous: write 'HitRate@5' .* or 'Hits@5'"):
        rankviz.parse_measure("hit@5")


def _f1_by_hand(run, qrels, k):
    grades = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    values = {}
    for q in sorted(set(qrels["query_id"])):
        ranked = run[run["query_id"] == q].sort_values(["score", "doc_id"], ascending=False)
        hits = sum(grades.get((q, d), 0) >= 1 for d in ranked["doc_id"][:k])
        relevant = sum(g >= 1 for (qq, _), g in grades.items() if qq == q)
        p, r = hits / k, (hits / relevant if relevant else 0.0)
        values[q] = 0.0 if p + r == 0 else 2 * p * r / (p + r)
    return values


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels())
def test_f1_and_hits_by_brute_force(data):
    run, qrels = data
    table = rankviz.evaluate(run, ["F1@3", "Hits@3", "P@3", "R@3"], qrels, per_query=True).set_index("query_id")
    for q, value in _f1_by_hand(run, qrels, 3).items():
        assert math.isclose(table.loc[q, "F1@3"], value, abs_tol=1e-12)
        assert table.loc[q, "Hits@3"] == round(table.loc[q, "P@3"] * 3)
    expected = rankviz.evaluate(run, ["F1@3"], qrels, per_query=True, ties="expected")["F1@3"]
    assert ((expected >= 0) & (expected <= 1)).all()


@pytest.mark.slow
def test_hits_and_f1_agree_with_ranx_itself():
    ranx = pytest.importorskip("ranx", reason="ranx is in the test extra")
    qrels = ranx.Qrels(rankviz.qrels_to_dict(QRELS))
    run = ranx.Run(rankviz.run_to_dict(RUN))
    got = ranx.evaluate(qrels, run, ["hits@2", "hits@3", "f1@2", "hit_rate@2"], make_comparable=True)
    assert [float(v) for v in got.values()] == pytest.approx(list(RANX.values()), rel=1e-15)


# ----------------------------------------------------------------------------- 27.9: ir_measures and dicts

_QRELS_A = """0 0 D0 0
0 0 D1 1
0 0 D2 1
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 2
"""
_QRELS_B = _QRELS_A.replace("1 0 D5 2", "1 0 D5 0")
_QRELS_C = _QRELS_B.replace("0 0 D2 1", "0 0 D2 2")
_QRELS_D = _QRELS_C.replace("0 0 D0 0", "0 0 D0 1")
_QRELS_E = """0 0 D0 1
0 0 D1 -1
0 0 D2 0
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D4 -1
1 0 D5 0
"""
_RUN_A = """0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D3 2 0.7 run
1 0 D4 3 0.3 run
1 0 D2 4 0.4 run
"""
_RUN_B = _RUN_A.replace("1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run", "1 0 D4 2 0.7 run\n1 0 D3 3 0.3 run")


def _ir_measures_cases():
    """ir_measures' test/test_pytrec_eval.py (terrierteam/ir_measures): (measure, qrels, run, per query, all)."""
    im = pytest.importorskip("ir_measures", reason="ir_measures is in the test extra")
    a, b, c, d, e = _QRELS_A, _QRELS_B, _QRELS_C, _QRELS_D, _QRELS_E
    return [
        (im.NumRet, a, _RUN_A, (5, 4), 9),
        (im.NumRet(rel=1), a, _RUN_A, (3, 1), 4),
        (im.NumRet(rel=2), a, _RUN_A, (1, 1), 2),
        (im.NumRet(rel=3), a, _RUN_A, (0, 0), 0),
        (im.NumQ, a, _RUN_A, (1, 1), 2),
        (im.NumRel, b, _RUN_A, (3, 2), 5),
        (im.Success @ 2, c, _RUN_B, (1, 0), 0.5),
        (im.Success(rel=2) @ 2, c, _RUN_B, (1, 0), 0.5),
        (im.Success(rel=3) @ 2, c, _RUN_B, (0, 0), 0),
        (im.SetP(rel=1), c, _RUN_B, (0.6, 0.25), 0.425),
        (im.SetP(rel=2), c, _RUN_B, (0.4, 0.25), 0.325),
        (im.SetP(rel=3), c, _RUN_B, (0, 0), 0),
        (im.SetR(rel=1), c, _RUN_B, (1.0, 0.5), 0.75),
        (im.SetR(rel=2), c, _RUN_B, (1.0, 1.0), 1.0),
        (im.SetR(rel=3), c, _RUN_B, (0, 0), 0),
        (im.IPrec @ 0.25, d, _RUN_B, (1.0, 0.25), 0.625),
        (im.IPrec @ 0.5, d, _RUN_B, (1.0, 0.25), 0.625),
        (im.IPrec @ 0.75, d, _RUN_B, (1.0, 0), 0.5),
        (im.IPrec(rel=2) @ 0.1, d, _RUN_B, (0.6666666, 0.25), 0.4583),
        (im.IPrec(rel=2) @ 0.25, d, _RUN_B, (0.6666666, 0.25), 0.4583),
        (im.IPrec(rel=2) @ 0.5, d, _RUN_B, (0.6666666, 0.25), 0.4583),
        (im.IPrec(rel=2) @ 0.75, d, _RUN_B, (0.6666666, 0.25), 0.4583),
        (im.AP, e, _RUN_B, (0.8333, 0.125), 0.47916666666666663),
        (im.infAP, e, _RUN_B, (0.8333, 0.1875), 0.510416),
        (im.AP(rel=2), e, _RUN_B, (0.33333, 0.25), 0.2917),
        (im.infAP(rel=2), e, _RUN_B, (0.33333, 0.375), 0.3542),
    ]


def test_the_cases_of_ir_measures_own_suite_give_its_values(tmp_path):
    cases = _ir_measures_cases()
    assert len(cases) == 26  # every assertion pair of the file, NumRet(rel=k) included
    for i, (measure, qrels_text, run_text, per_query, total) in enumerate(cases):
        (tmp_path / f"q{i}").write_text(qrels_text)
        (tmp_path / f"r{i}").write_text(run_text)
        run, qrels = rankviz.read_run(tmp_path / f"r{i}"), rankviz.read_qrels(tmp_path / f"q{i}")
        table = rankviz.evaluate(run.drop(columns="system"), [measure], qrels, per_query=True)
        label = str(measure)
        assert table["query_id"].tolist() == ["0", "1"], label
        for got, want in zip(table[label], per_query):
            assert got == pytest.approx(want, abs=1e-4), (label, table[label].tolist())
        aggregate = rankviz.evaluate(run.drop(columns="system"), [measure], qrels)[label].iloc[0]
        assert aggregate == pytest.approx(total, abs=1e-4), (label, aggregate)


@pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")  # two queries
def test_ir_measures_objects_are_measures_wherever_one_is_taken():
    im = pytest.importorskip("ir_measures", reason="ir_measures is in the test extra")
    table = rankviz.evaluate(RUN, [im.nDCG @ 10, im.RR(rel=2), im.nDCG(dcg="exp-log2") @ 10], QRELS)
    assert list(table.columns) == ["nDCG@10", "RR(rel=2)", "nDCG(dcg='exp-log2')@10"]
    assert table.attrs["rankviz"]["canonical"]["nDCG(dcg='exp-log2')@10"] == "nDCG(gain='exp')@10"
    assert table["nDCG@10"].iloc[0] == rankviz.ndcg(RUN, qrels=QRELS, k=10)
    assert table["RR(rel=2)"].iloc[0] == 0.0  # the only grade-2 item (q1's c) is not retrieved
    res = rankviz.bootstrap(RUN, im.RR @ 10, QRELS, rng=0, n_resamples=50)
    assert res["run", "RR@10"].estimate == 0.75
    with pytest.raises(rankviz.InputError, match=r"ir_measures measure nDCG\(judged_only=True\)@10 has no rankviz"):
        rankviz.evaluate(RUN, [im.nDCG(judged_only=True) @ 10], QRELS)


def test_a_measure_of_another_type_is_refused_with_what_is_taken():
    with pytest.raises(rankviz.InputError, match="a rankviz Measure or an ir_measures measure object. Got int 10"):
        rankviz.evaluate(RUN, [10], QRELS)


def test_ranx_style_dicts_are_runs_and_qrels():
    run = rankviz.run_to_dict(RUN)
    qrels = rankviz.qrels_to_dict(QRELS)
    assert run == {"q1": {"a": 3.0, "z": 2.0, "b": 1.0}, "q2": {"y": 1.0, "x": 0.5}}
    assert rankviz.mrr(run, qrels=qrels, k=10) == rankviz.mrr(RUN, qrels=QRELS, k=10) == 0.75
    assert rankviz.evaluate(run, ["AP"], qrels)["AP"].iloc[0] == rankviz.evaluate(RUN, ["AP"], QRELS)["AP"].iloc[0]


def test_a_dict_of_frames_is_a_run_of_several_systems():
    runs = {"bm25": RUN, "dense": RUN.assign(score=-RUN["score"])}
    table = rankviz.evaluate(runs, ["MRR@10", "nDCG@10"], QRELS)
    assert table.index.tolist() == ["bm25", "dense"] and table.index.name == "system"
    want = rankviz.evaluate(TWO, ["MRR@10", "nDCG@10"], QRELS)
    assert np.array_equal(table.to_numpy(), want.to_numpy())
    assert rankviz.mrr(runs, qrels=QRELS, k=10).to_dict() == want["MRR@10"].to_dict()
    assert "system" not in RUN.columns  # the caller's frames are not modified
