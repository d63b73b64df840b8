"""R: recall at a cutoff.

``R@k = |{i <= k : g_i >= rel}| / R``: the relevant items in the top ``k`` divided
by the number ``R`` of relevant items in the judgements (Manning, Raghavan &
Schütze, "Introduction to Information Retrieval", 2008, section 8.3; trec_eval
``recall``). Only defined at a cutoff: write ``R@100``. Queries with ``R = 0`` score 0.

Under ``ties='expected'`` the numerator is the expected count of relevant items in
the top ``k``, as for P (McSherry & Najork, ECIR 2008).

Examples
--------
>>> import rankviz
>>> qrels = {"q1": {"a": 1, "b": 1, "c": 1, "d": 1}}
>>> run = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}}
>>> rankviz.evaluate(rankviz.run_from_dict(run), ["R@2", "R@10"], rankviz.qrels_from_dict(qrels)).to_dict("records")
[{'R@2': 0.25, 'R@10': 0.5}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, count_per_cell, divide, expected_count_in_top


def kernel(j, hits, m) -> np.ndarray:
    """Relevant hits within the cutoff, over R, per cell."""
    within = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return divide(count_per_cell(hits.cell, within, j.n_cells), j.relevant_count(m.rel))


def expected(j, g, m) -> np.ndarray:
    """Expected relevant items within the cutoff, over R."""
    return divide(expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells), j.relevant_count(m.rel))


FAMILY = Family(
    name="R",
    params={"rel": REL},
    aliases=("recall",),
    trec_name=None,
    trec_cut_name="recall_{k}",
    needs_cutoff=True,
    judgement_denominator=True,
    kernel=kernel,
    expected=expected,
    examples=("R@100", "R@1000"),
    doc=__doc__,
)
