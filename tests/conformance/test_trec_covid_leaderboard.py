"""The official TREC-COVID round 1 leaderboard (trec_eval -c -M1000) for 10 real runs."""

from __future__ import annotations

from functools import cache

import pandas as pd
import pytest

import rankviz
from tests.conftest import shared_path

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
COLUMNS = {"nDCG@10": "ndcg@10", "P@5": "p@5", "AP": "MAP"}


@cache
def _data():
    base = shared_path("trec_covid_round1")
    board = pd.read_csv(base / "leaderboard-round1.csv").set_index("run")
    qrels = rankviz.read_qrels(base / "qrels-rnd1.txt")
    runs = pd.concat([rankviz.read_run(base / "runs" / name, system=name) for name in RUNS], ignore_index=True)
    return board, qrels, runs


@cache
def _scores(score_dtype: str) -> pd.DataFrame:
    board, qrels, runs = _data()
    return runs.rank.evaluate(list(COLUMNS), qrels=qrels, depth=1000, score_dtype=score_dtype)


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("measure", list(COLUMNS))
def test_leaderboard_float32_compatibility(run, measure):
    """trec_eval 9 compared scores as 32-bit floats; score_dtype='float32' reproduces every figure."""
    board, _, _ = _data()
    assert abs(_scores("float32").loc[run, measure] - board.loc[run, COLUMNS[measure]]) <= 0.00005


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("measure", list(COLUMNS))
def test_leaderboard_float64_default(run, measure):
    """The default (trec_eval 10, float64) agrees everywhere except run BERT's nDCG@10 and MAP."""
    board, _, _ = _data()
    got = _scores("float64").loc[run, measure]
    published = board.loc[run, COLUMNS[measure]]
    if run == "BERT" and measure in ("nDCG@10", "AP"):
        # BERT's scores differ only in the 7th digit: float64 separates what float32 tied,
        # which changes the 4th decimal (nDCG@10 0.1736 vs 0.1731, MAP 0.0652 vs 0.0653).
        assert round(got, 4) == {"nDCG@10": 0.1736, "AP": 0.0652}[measure]
        assert round(got, 4) != published
    else:
        assert abs(got - published) <= 0.00005


def test_rank_and_score_disagree_score_wins():
    """yn-r1-alltext's scores increase with rank; trec_eval sorts by score and so do we."""
    _, qrels, runs = _data()
    run = runs[runs["system"] == "yn-r1-alltext"]
    by_score = run.rank.ndcg(qrels, k=10).iloc[0]
    by_rank = run.rank.ndcg(qrels, k=10, order="rank").iloc[0]
    assert round(by_score, 4) == 0.0205
    assert by_rank > by_score + 0.1
