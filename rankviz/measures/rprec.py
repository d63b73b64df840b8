"""Rprec: R-precision.

``Rprec = |{i <= R : g_i >= rel}| / R``: the relevant items in the top ``R``
divided by ``R``, the number of relevant items in the judgements (Buckley &
Voorhees, "Retrieval evaluation with incomplete information", SIGIR 2004; trec_eval
``Rprec``). A cutoff does not change it; ``depth`` caps the top ``R``.

Under ``ties='expected'`` the numerator is the expected count of relevant items in
the top ``R``, as for P (McSherry & Najork, ECIR 2008).

Examples
--------
>>> import rankviz
>>> qrels = {"q1": {"a": 1, "b": 1}}
>>> run = rankviz.run_from_dict({"q1": {"x": 3.0, "a": 2.0, "b": 1.0}})
>>> rankviz.evaluate(run, ["Rprec"], rankviz.qrels_from_dict(qrels)).to_dict("records")
[{'Rprec': 0.5}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, count_per_cell, divide, expected_count_in_top


def _limit(j, cells, rel) -> np.ndarray:
    """min(R, depth) for each element of ``cells``."""
    return np.minimum(j.relevant_count(rel)[cells].astype(np.float64), cap(None, j.depth))


def kernel(j, hits, m) -> np.ndarray:
    """Relevant hits within the top R, over R, per cell."""
    within = (hits.grade >= m.rel) & (hits.pos <= _limit(j, hits.cell, m.rel))
    return divide(count_per_cell(hits.cell, within, j.n_cells), j.relevant_count(m.rel))


def expected(j, g, m) -> np.ndarray:
    """Expected relevant items within the top R, over R."""
    counts = expected_count_in_top(g, _limit(j, g.cell, m.rel), j.n_cells)
    return divide(counts, j.relevant_count(m.rel))


FAMILY = Family(
    name="Rprec",
    params={"rel": REL},
    aliases=("r-prec", "r_prec", "r_precision"),
    trec_name="Rprec",
    trec_cut_name=None,
    needs_cutoff=False,
    judgement_denominator=True,
    kernel=kernel,
    expected=expected,
    examples=("Rprec",),
    doc=__doc__,
)
