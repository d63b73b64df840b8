"""Counts: NumQ, NumRet, NumRel, NumRelRet and NumNonrelJudgedRet (trec_eval's ``num_*``).

Not evaluation measures in themselves but the figures a TREC table starts with
(Voorhees & Harman, "TREC: Experiment and Evaluation in Information Retrieval",
MIT Press 2005, ch. 3). Their aggregate over queries is the sum, as trec_eval prints
it (``num_ret all 1500``); per query:

- ``NumQ = 1``: the aggregate is the number of queries evaluated (trec_eval ``num_q``);
- ``NumRet = min(|retrieved|, depth)`` (``num_ret``), at a cutoff ``min(k, NumRet)``;
  ``NumRet(rel=r)`` counts only the retrieved items with grade >= ``r`` (ir_measures'
  spelling: ``NumRet(rel=1)`` is trec_eval's ``num_rel_ret``);
- ``NumRel = R``, the judged items with grade >= ``rel`` (``num_rel``);
- ``NumRelRet = |{i <= k : g_i >= rel}|`` (``num_rel_ret``);
- ``NumNonrelJudgedRet = |{i <= k : 0 <= g_i < rel}|`` (``num_nonrel_judged_ret``).

Order does not change them (except a cutoff inside a tie group), so
``ties='expected'`` is the expected count.

Examples
--------
>>> import rankviz
>>> qrels = rankviz.qrels_from_dict({"q1": {"a": 1, "b": 0, "c": 2}})
>>> run = rankviz.run_from_dict({"q1": {"a": 3.0, "b": 2.0, "x": 1.0}})
>>> rankviz.evaluate(run, ["NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonrelJudgedRet"], qrels).to_dict("records")
[{'NumQ': 1.0, 'NumRet': 3.0, 'NumRel': 2.0, 'NumRelRet': 1.0, 'NumNonrelJudgedRet': 1.0}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family, Param
from ._tools import cap, count_per_cell, expected_count_in_top


def _num_q(j, hits, m) -> np.ndarray:
    return np.ones(j.n_cells)


def _ret_rel(m):
    """NumRet's own ``rel``: None (every retrieved item) unless given."""
    return dict(m.params)["rel"]


def _num_ret(j, hits, m) -> np.ndarray:
    if _ret_rel(m) is not None:
        return _num_rel_ret(j, hits, m)
    return np.minimum(j.num_ret, cap(m.cutoff, j.depth)).astype(np.float64)


def _num_ret_expected(j, g, m) -> np.ndarray:
    if _ret_rel(m) is not None:
        return _num_rel_ret_expected(j, g, m)
    return _num_ret(j, None, m)


def _num_rel(j, hits, m) -> np.ndarray:
    return j.relevant_count(m.rel).astype(np.float64)


def _num_rel_ret(j, hits, m) -> np.ndarray:
    within = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return count_per_cell(hits.cell, within, j.n_cells)


def _num_rel_ret_expected(j, g, m) -> np.ndarray:
    return expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells)


def _num_nonrel(j, hits, m) -> np.ndarray:
    within = (hits.grade >= 0) & (hits.grade < m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return count_per_cell(hits.cell, within, j.n_cells)


def _num_nonrel_expected(j, g, m) -> np.ndarray:
    return expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells, (g.grade >= 0) & (g.grade < m.rel))


def _unchanged(kernel):
    """The expected kernel of a count that no order of tied items changes."""
    return lambda j, g, m: kernel(j, None, m)


NUM_Q = Family(
    name="NumQ",
    kernel=_num_q,
    expected=_unchanged(_num_q),
    aliases=("num_queries",),
    trec_name="num_q",
    cutoff_type=None,
    aggregate="sum",
    trec_per_query=False,
    doc="NumQ: 1 per evaluated query, summed: the number of queries (trec_eval num_q; Voorhees & Harman 2005).",
)

NUM_RET = Family(
    name="NumRet",
    kernel=_num_ret,
    expected=_num_ret_expected,
    params={"rel": Param(int, None, "count only the retrieved items with grade >= rel (ir_measures' NumRet(rel=))")},
    aliases=("num_retrieved",),
    trec_name="num_ret",
    aggregate="sum",
    doc=(
        "NumRet: min(|retrieved|, k), summed over queries (trec_eval num_ret; Voorhees & Harman 2005); "
        "NumRet(rel=r): the retrieved items with grade >= r (ir_measures' spelling of num_rel_ret)."
    ),
)

NUM_REL = Family(
    name="NumRel",
    kernel=_num_rel,
    expected=_unchanged(_num_rel),
    params={"rel": REL},
    aliases=("num_relevant",),
    trec_name="num_rel",
    cutoff_type=None,
    judgement_denominator=True,
    aggregate="sum",
    doc="NumRel: R, the judged items with grade >= rel, summed over queries (trec_eval num_rel; Voorhees & Harman 2005).",
)

NUM_REL_RET = Family(
    name="NumRelRet",
    kernel=_num_rel_ret,
    expected=_num_rel_ret_expected,
    params={"rel": REL},
    aliases=("num_rel_retrieved",),
    trec_name="num_rel_ret",
    aggregate="sum",
    doc="NumRelRet: |{i <= k : g_i >= rel}|, summed over queries (trec_eval num_rel_ret; Voorhees & Harman 2005).",
)

NUM_NONREL_JUDGED_RET = Family(
    name="NumNonrelJudgedRet",
    kernel=_num_nonrel,
    expected=_num_nonrel_expected,
    params={"rel": REL},
    trec_name="num_nonrel_judged_ret",
    aggregate="sum",
    rows="judged",
    doc=(
        "NumNonrelJudgedRet: |{i <= k : 0 <= g_i < rel}|, the judged non-relevant items retrieved, summed over "
        "queries (trec_eval num_nonrel_judged_ret; Voorhees & Harman 2005)."
    ),
)

FAMILIES = (NUM_Q, NUM_RET, NUM_REL, NUM_REL_RET, NUM_NONREL_JUDGED_RET)
