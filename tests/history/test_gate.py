"""History.gate (issue 33): exit 0 on an unchanged run, 1 on a planted regression, 2 with one line when refused."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz.history import History
from rankviz.stats.sequential import spending_alpha


@pytest.fixture(scope="module")
def example():
    return rankviz.datasets.load_example()


@pytest.fixture
def history(tmp_path, example):
    run, qrels, _ = example
    with History(tmp_path / "history.sqlite") as h:
        h.accept(h.record(run[run["system"] == "bm25+rerank"], qrels, ["nDCG@10", "RR@10"], name="prod").id)
        yield h


def _regressed(run, share: float, seed: int = 0) -> pd.DataFrame:
    """The reranked run with the first-ranked document of a share of queries moved to the end."""
    rerank = run[run["system"] == "bm25+rerank"].copy()
    queries = sorted(set(rerank["query_id"]))
    hit = set(np.random.default_rng(seed).choice(queries, int(share * len(queries)), replace=False))
    top = rerank.groupby("query_id")["score"].transform("max") == rerank["score"]
    rerank.loc[top & rerank["query_id"].isin(hit), "score"] = -1e9
    return rerank


def test_unchanged_passes_planted_regression_fails(history, example):
    run, qrels, _ = example
    same = history.gate(run[run["system"] == "bm25+rerank"], qrels)
    assert same.exit_code == 0 and same.passed and same.regressions == []
    assert same.baseline == 1 and same.record is None and "no regression against record #1" in same.message
    assert (same.table["difference"] == 0).all()
    worse = history.gate(_regressed(run, 0.3), qrels)
    assert worse.exit_code == 1 and worse.regressions == ["nDCG@10", "RR@10"]
    assert "one-sided paired t-test" in worse.rule and "Bonferroni over 2 measures: 0.025 each" in worse.rule
    assert (worse.table["upper_bound"] < 0).all()
    assert json.loads(json.dumps(worse.to_dict()))["regressions"] == ["nDCG@10", "RR@10"]
    assert len(history) == 1  # nothing recorded without record=True


def test_margin_lets_a_small_drop_through(history, example):
    run, qrels, _ = example
    small = _regressed(run, 0.05)
    plain = history.gate(small, qrels, measures="nDCG@10")
    drop = -float(plain.table["difference"].iloc[0])
    assert 0 < drop < 0.05
    within = history.gate(small, qrels, measures="nDCG@10", margin=0.05)
    assert within.exit_code == 0 and "non-inferiority margin" in within.rule and within.margin == 0.05
    assert within.table["statistic"].iloc[0] > plain.table["statistic"].iloc[0]


def test_sequential_checks_are_counted_and_spend_alpha(history, example):
    run, qrels, _ = example
    rerank = run[run["system"] == "bm25+rerank"]
    decisions = [history.gate(rerank, qrels, sequential=True, alpha=0.1) for _ in range(3)]
    assert [d.check for d in decisions] == [1, 2, 3]
    for k, decision in enumerate(decisions, start=1):
        assert decision.table["level"].tolist() == [spending_alpha(k, 0.1) / 2] * 2
        assert f"sequential: check {k}, alpha_k = alpha / (k (k + 1))" in decision.rule
    other = history.gate(rerank, qrels, sequential=True, name="prod", against=1)
    assert other.check == 4  # same baseline, same name
    stored = history.gate(_regressed(run, 0.3), qrels, sequential=True, record=True)
    assert stored.exit_code == 1 and stored.check == 5 and stored.record == 2
    assert history.get(2).name == "prod" and history.get(2).options == history.get(1).options


def test_refusals_are_exit_2_with_one_line(history, example, tmp_path):
    run, qrels, _ = example
    rerank = run[run["system"] == "bm25+rerank"]
    relabelled = qrels.assign(relevance=np.where(qrels["query_id"] == qrels["query_id"].iloc[0], 0, qrels["relevance"]))
    cases = [
        (history.gate(rerank, qrels, against="nope"), "no record matches 'nope'"),
        (history.gate(rerank, None), "give the qrels"),
        (history.gate(rerank, relabelled), "judgements changed for 1 queries"),
        (history.gate(rerank, qrels, margin=-1), "margin must be"),
        (History(tmp_path / "empty.sqlite").gate(rerank, qrels), "no record has been accepted"),
    ]
    for decision, match in cases:
        assert decision.exit_code == 2 and match in decision.message
        assert "\n" not in decision.message and decision.table.empty
    with pytest.warns(rankviz.RankvizWarning, match="compared on the 599 queries"):
        common = history.gate(rerank, relabelled, relabelled="common", margin=0.0)
    assert common.exit_code == 0 and "599 queries" in common.message
