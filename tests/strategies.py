"""Hypothesis strategies shared by the property tests: random runs and qrels."""

from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

# Doc ids that exercise byte order in tie-breaking (upper before lower case, '10' before '9') and hashing
# (ids of every length class, long ones alike but for a few bytes, so run and qrels hash at different widths).
DOC_POOL = [
    "a",
    "b",
    "D1",
    "d10",
    "d2",
    "d9",
    "X",
    "x",
    "e5",
    "E5",
    "f",
    "g",
    "h1",
    "h10",
    "h2",
    "z",
    "doc-00000001",
    "doc-00000010",
    "clueweb12-0000tw-00-00001",
    "clueweb12-0000tw-00-00010",
    "MSMARCO_passage_collection_id_7000001",
    "MSMARCO_passage_collection_id_7000010",
]


@st.composite
def run_and_qrels(draw, max_queries: int = 5, max_docs: int = 12, grades=(0, 1, 2, 3), negative: bool = True):
    """A long run (ties, short lists, queries without judgements) and qrels (missing queries, no relevant items).

    Scores are multiples of 0.5, so float32 rounding (pytrec_eval) changes nothing.
    """
    n_queries = draw(st.integers(1, max_queries))
    run_rows, qrels_rows = [], []
    for q in range(n_queries):
        qid = f"q{q}"
        # q0 is in both, so the run and qrels always share a query; the others may be in one only.
        in_run = draw(st.booleans()) if q > 0 else True
        in_qrels = (draw(st.booleans()) if in_run else True) if q > 0 else True
        pool = draw(st.permutations(DOC_POOL))
        if in_run:
            n_docs = draw(st.integers(1, max_docs))
            for doc in pool[:n_docs]:
                run_rows.append((qid, doc, draw(st.integers(0, 6)) / 2.0))
        if in_qrels:
            judged = draw(st.integers(1, len(pool)))
            grade_choices = list(grades) + ([-1] if negative else [])
            for i, doc in enumerate(draw(st.permutations(pool))[:judged]):
                # The first judgement is never negative: pytrec_eval hangs when the first query's
                # judgements are all negative (trec_eval 9 cannot size its relevance levels).
                choices = list(grades) if i == 0 else grade_choices
                qrels_rows.append((qid, doc, draw(st.sampled_from(choices))))
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    run["query_id"] = run["query_id"].astype("str")
    run["doc_id"] = run["doc_id"].astype("str")
    qrels["query_id"] = qrels["query_id"].astype("str")
    qrels["doc_id"] = qrels["doc_id"].astype("str")
    return run, qrels


@st.composite
def relevance_vectors(draw, max_queries: int = 6, max_len: int = 10, graded: bool = False):
    """Per-query relevance vectors in rank order (input shape 3)."""
    n = draw(st.integers(1, max_queries))
    values = st.integers(0, 3) if graded else st.booleans()
    vectors = [draw(st.lists(values, min_size=0, max_size=max_len)) for _ in range(n)]
    return pd.DataFrame({"query": [f"query {i}" for i in range(n)], "relevance": vectors})
