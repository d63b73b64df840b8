"""What each tool's user writes to get mean RR@10, nDCG@10, AP and R@100 from two DataFrames.

Each ``evaluate_*`` function is the timed unit of ``benchmarks/run.py``: it starts
from the loaded frames (``query_id``, ``doc_id`` as pandas' default ``str`` dtype,
``score`` float64; qrels ``query_id``, ``doc_id``, ``relevance`` int64) and returns
``{measure: mean}``. For pytrec_eval and ranx that includes building the nested
dicts / ``Qrels`` and ``Run`` objects from the frames, the cost a pandas user pays.
The ``per_query_*`` variants return ``{query_id: {measure: value}}`` for the
agreement check.
"""

from __future__ import annotations

import numpy as np

MEASURES = ["RR@10", "nDCG@10", "AP", "R@100"]

# pytrec_eval (trec_eval 9.0.8) names; it has no RR@k, so RR@10 is recip_rank where the
# first relevant item is within rank 10 (recip_rank >= 1/10), else 0 -- exact.
PYTREC_MEASURES = {"recip_rank", "ndcg_cut.10", "map", "recall.100"}
PYTREC_NAMES = {"RR@10": "recip_rank", "nDCG@10": "ndcg_cut_10", "AP": "map", "R@100": "recall_100"}
RANX_NAMES = {"RR@10": "mrr@10", "nDCG@10": "ndcg@10", "AP": "map", "R@100": "recall@100"}


# ----------------------------------------------------------------------------- rankviz


def evaluate_rankviz(run, qrels):
    import rankviz

    means = rankviz.evaluate(run, MEASURES, qrels)
    return {m: float(means[m].iloc[0]) for m in MEASURES}


def per_query_rankviz(run, qrels):
    import rankviz

    table = rankviz.evaluate(run, MEASURES, qrels, per_query=True).set_index("query_id")
    return {q: {m: float(row[m]) for m in MEASURES} for q, row in table.iterrows()}


# ----------------------------------------------------------------------------- pytrec_eval


def _nested(queries, docs, values) -> dict:
    """{query: {doc: value}} in one pass over Python lists (the fastest plain-Python way)."""
    out: dict = {}
    for q, d, v in zip(queries.tolist(), docs.tolist(), values.tolist()):
        inner = out.get(q)
        if inner is None:
            out[q] = inner = {}
        inner[d] = v
    return out


def _pytrec_per_query(run, qrels):
    import pytrec_eval

    qrels_dict = _nested(qrels["query_id"], qrels["doc_id"], qrels["relevance"].astype("int64"))
    run_dict = _nested(run["query_id"], run["doc_id"], run["score"])
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, PYTREC_MEASURES)
    return evaluator.evaluate(run_dict)


def _pytrec_values(result: dict) -> dict:
    rr = result["recip_rank"]
    return {
        "RR@10": rr if rr >= 0.1 else 0.0,
        "nDCG@10": result["ndcg_cut_10"],
        "AP": result["map"],
        "R@100": result["recall_100"],
    }


def evaluate_pytrec_eval(run, qrels):
    per_query = _pytrec_per_query(run, qrels)
    values = [_pytrec_values(r) for r in per_query.values()]
    return {m: float(np.mean([v[m] for v in values])) for m in MEASURES}


def per_query_pytrec_eval(run, qrels):
    return {q: _pytrec_values(r) for q, r in _pytrec_per_query(run, qrels).items()}


# ----------------------------------------------------------------------------- ranx


def _ranx_objects(run, qrels):
    from ranx import Qrels, Run

    # ranx's from_df asserts object dtype for ids, which pandas 3's default str dtype is not.
    qrels_obj = qrels.astype({"query_id": object, "doc_id": object})
    run_obj = run.astype({"query_id": object, "doc_id": object})
    return (
        Qrels.from_df(qrels_obj, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance"),
        Run.from_df(run_obj, q_id_col="query_id", doc_id_col="doc_id", score_col="score"),
    )


def evaluate_ranx(run, qrels):
    from ranx import evaluate

    qrels_r, run_r = _ranx_objects(run, qrels)
    means = evaluate(qrels_r, run_r, [RANX_NAMES[m] for m in MEASURES])
    return {m: float(means[RANX_NAMES[m]]) for m in MEASURES}


def per_query_ranx(run, qrels):
    from ranx import evaluate

    qrels_r, run_r = _ranx_objects(run, qrels)
    scores = evaluate(qrels_r, run_r, [RANX_NAMES[m] for m in MEASURES], return_mean=False)
    ids = list(run_r.keys())
    return {q: {m: float(scores[RANX_NAMES[m]][i]) for m in MEASURES} for i, q in enumerate(ids)}


EVALUATE = {"rankviz": evaluate_rankviz, "pytrec_eval": evaluate_pytrec_eval, "ranx": evaluate_ranx}
PER_QUERY = {"rankviz": per_query_rankviz, "pytrec_eval": per_query_pytrec_eval, "ranx": per_query_ranx}
