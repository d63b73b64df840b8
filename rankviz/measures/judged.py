"""Judged and Unj: how much of the top of a ranking has judgements.

``Judged@k = |{i <= k : item i is in the qrels}| / min(k, n)``, the share of the
top ``k`` of the ``n`` retrieved items that has a judgement of any grade
(ir_measures' ``Judged``, after OpenNIR; MacAvaney et al., "Simplified data
wrangling with ir_datasets", SIGIR 2021, used it for TREC-COVID); without a cutoff,
the whole list. ``Unj@k = |{i <= k : item i is unjudged}| / k`` counts as unjudged the
items outside the qrels and those judged with a negative grade, and divides by
``k`` even for shorter lists (trec_eval 10 ``unj``; a "red flag" for a run the pool
did not cover). For sparse judgements (MS MARCO, RAG test sets) read them next to
P@k or RR@k: a low score with a low Judged@k may be an unjudged good answer.

Both are linear in which items fill the top ``k``: ``ties='expected'`` gives the
exact expectation.

Examples
--------
>>> import rankviz
>>> qrels = rankviz.qrels_from_dict({"q1": {"a": 1, "b": 0, "c": -1}})
>>> run = rankviz.run_from_dict({"q1": {"a": 4.0, "x": 3.0, "b": 2.0, "c": 1.0}})
>>> rankviz.evaluate(run, ["Judged@2", "Judged@10", "Unj@2", "Unj@10"], qrels).to_dict("records")
[{'Judged@2': 0.5, 'Judged@10': 0.75, 'Unj@2': 0.5, 'Unj@10': 0.2}]
"""

from __future__ import annotations

import numpy as np

from ._registry import Family
from ._tools import cap, count_per_cell, divide, expected_count_in_top


def _in_top(j, m) -> np.ndarray:
    """min(k, n): the items retrieved in the top k, per cell."""
    return np.minimum(j.num_ret, cap(m.cutoff, j.depth)).astype(np.float64)


def judged_kernel(j, hits, m) -> np.ndarray:
    within = hits.pos <= cap(m.cutoff, j.depth)
    return divide(count_per_cell(hits.cell, within, j.n_cells), _in_top(j, m))


def judged_expected(j, g, m) -> np.ndarray:
    found = expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells, np.ones(len(g.gid), dtype=bool))
    return divide(found, _in_top(j, m))


def unj_kernel(j, hits, m) -> np.ndarray:
    within = (hits.grade >= 0) & (hits.pos <= cap(m.cutoff, j.depth))
    return (_in_top(j, m) - count_per_cell(hits.cell, within, j.n_cells)) / m.cutoff


def unj_expected(j, g, m) -> np.ndarray:
    return (_in_top(j, m) - expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells, g.grade >= 0)) / m.cutoff


JUDGED = Family(
    name="Judged",
    kernel=judged_kernel,
    expected=judged_expected,
    aliases=("judged_share", "judged_rate"),
    rows="pooled",
    examples=("Judged@10",),
    refusals={"rel": "Judged counts every judged item, whatever its grade"},
    doc=__doc__.replace("Judged and Unj: ", "Judged: ", 1),
)

UNJ = Family(
    name="Unj",
    kernel=unj_kernel,
    expected=unj_expected,
    aliases=("unjudged",),
    trec_cut_name="unj_{k}",
    needs_cutoff=True,
    rows="judged",
    examples=("Unj@10",),
    doc=(
        "Unj: unjudged items (not in the qrels, or graded negative) in the top k, over k (trec_eval 10 unj, 2020; "
        "see rankviz.measures.judged)."
    ),
)

FAMILIES = (JUDGED, UNJ)
