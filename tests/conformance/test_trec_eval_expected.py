"""Per-query conformance with trec_eval's own regression outputs (../shared/data/trec_eval).

Each expected file was produced by trec_eval 10 (``-m all_trec -q`` plus the flags
below) and prints 4 decimals. Every per-query value and the "all" line of the
measures rankviz defines must agree to 4 decimals.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

import rankviz
from rankviz.measures import parse_measure
from tests.conftest import shared_path

# expected output, qrels, run, evaluation options (trec_eval flags)
CONFIGS = {
    "aq": ("out.test.aq", "qrels.test", "results.test", {}),  # -q -m all_trec
    "aqc": ("out.test.aqc", "qrels.test", "results.trunc", {}),  # -c (our default missing='zero')
    "aqcM": ("out.test.aqcM", "qrels.test", "results.trunc", {"depth": 100}),  # -c -M100
    "aql": ("out.test.aql", "qrels.rel_level", "results.test", {"rel": 2}),  # -l2
}
MEASURES = (
    ["recip_rank", "map", "ndcg", "Rprec"]
    + [f"P_{k}" for k in (5, 10, 15, 20, 30, 100)]
    + [f"recall_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    + [f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    + [f"success_{k}" for k in (1, 5, 10)]
)


@cache
def _expected(name: str) -> dict:
    rows = {}
    for line in shared_path("trec_eval", name).read_text().splitlines():
        measure, qid, value = line.split()
        rows[(measure, qid)] = value
    return rows


@cache
def _evaluated(config: str):
    out, qrels, run, options = CONFIGS[config]
    options = dict(options)
    rel = options.pop("rel", 1)
    measures = []
    for name in MEASURES:
        m = parse_measure(name)
        measures.append(m if m.family == "nDCG" or rel == 1 else m(rel=rel))
    table = rankviz.evaluate(
        rankviz.read_run(shared_path("trec_eval", run)),
        measures,
        shared_path("trec_eval", qrels),
        per_query=True,
        **options,
    )
    return table.set_index("query_id"), {n: m.name for n, m in zip(MEASURES, measures)}


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("trec_name", MEASURES)
def test_matches_trec_eval(config, trec_name):
    expected = _expected(CONFIGS[config][0])
    table, column_of = _evaluated(config)
    column = column_of[trec_name]
    checked = 0
    for (measure, qid), value in expected.items():
        if measure != trec_name:
            continue
        got = table[column].mean() if qid == "all" else table.loc[qid, column]
        assert abs(got - float(value)) <= 0.00005 + 1e-12, (
            f"{trec_name} for query {qid}: trec_eval {value}, rankviz {got!r}"
        )
        checked += 1
    assert checked == 4  # three queries (301-303) and the "all" line


def test_missing_query_counts_like_trec_eval_c(trec_eval_dir):
    """results.trunc lacks query 302: with -c it scores 0 and the mean divides by 3."""
    run = rankviz.read_run(trec_eval_dir / "results.trunc")
    qrels = rankviz.read_qrels(trec_eval_dir / "qrels.test")
    table = rankviz.evaluate(run.drop(columns="system"), ["RR"], qrels, per_query=True)
    assert table.set_index("query_id").loc["302", "RR"] == 0.0
    assert len(table) == 3
    dropped = rankviz.evaluate(run.drop(columns="system"), ["RR"], qrels, per_query=True, missing="drop")
    assert set(dropped["query_id"]) == {"301", "303"}
    meta = table.attrs["rankviz"]
    assert meta["missing_from_run"] == {None: ("302",)}


def test_cacm_known_p30(tmp_path):
    """Anserini's test asserts trec_eval -m P.30 prints 0.1942 on CACM; 12 run queries have no qrels."""
    run = rankviz.read_run(shared_path("cacm", "cacm-bm25.run"))
    qrels = rankviz.read_qrels(shared_path("cacm", "qrels.cacm.txt"))
    value = run.rank.precision(qrels, k=30).item()
    assert round(value, 4) == 0.1942
    summary = run.rank.summary(k=10, qrels=qrels)
    assert summary["n_unjudged_in_run"].iloc[0] == 12
    assert summary["n_queries"].iloc[0] == 52


def test_trec_eval_file_order_is_not_rank_order(trec_eval_dir):
    """results.test is not in rank order and carries ranks that disagree; scores decide."""
    run = rankviz.read_run(trec_eval_dir / "results.test")
    qrels = rankviz.read_qrels(trec_eval_dir / "qrels.test")
    shuffled = run.sample(frac=1.0, random_state=7)
    a = run.rank.evaluate(["AP", "nDCG@10", "RR"], qrels=qrels, per_query=True)
    b = shuffled.rank.evaluate(["AP", "nDCG@10", "RR"], qrels=qrels, per_query=True)
    assert a.equals(b)


def test_measure_names_cover_trec_eval_spelling():
    for name in MEASURES:
        assert re.fullmatch(r"(RR|AP|nDCG|Rprec|P|R|Success)(@\d+)?", parse_measure(name).name)
