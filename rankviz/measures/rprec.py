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


def _mult_cutoff(j, m) -> np.ndarray:
    """trec_eval's rank for a multiple x of R: ``(long) (x * R + 0.9)`` per cell."""
    return np.floor(m.cutoff * j.relevant_count(m.rel) + 0.9)


def mult_kernel(j, hits, m) -> np.ndarray:
    """Relevant hits within the top ``x * R``, over that rank, per cell."""
    cut = _mult_cutoff(j, m)
    limit = np.minimum(cut, cap(None, j.depth))
    within = (hits.grade >= m.rel) & (hits.pos <= limit[hits.cell])
    return divide(count_per_cell(hits.cell, within, j.n_cells), cut)


def mult_expected(j, g, m) -> np.ndarray:
    """Expected relevant items within the top ``x * R``, over that rank."""
    cut = _mult_cutoff(j, m)
    limit = np.minimum(cut, cap(None, j.depth))
    return divide(expected_count_in_top(g, limit[g.cell], j.n_cells), cut)


MULT = Family(
    name="RprecMult",
    params={"rel": REL},
    aliases=("Rprec_mult",),
    trec_cut_name="Rprec_mult_{k}",
    needs_cutoff=True,
    cutoff_type=float,
    cutoff_range=(0.0, float("inf")),
    judgement_denominator=True,
    kernel=mult_kernel,
    expected=mult_expected,
    examples=("RprecMult@0.5", "RprecMult@2.0"),
    doc=(
        "RprecMult: precision at rank floor(x * R + 0.9), relevant items in that top over the rank, 0 when R = 0 "
        "(trec_eval Rprec_mult_x; Buckley & Voorhees, SIGIR 2004). The cutoff is the multiple x: RprecMult@0.5."
    ),
)

FAMILIES = (FAMILY, MULT)
