"""F1: the harmonic mean of precision and recall at a cutoff (ranx's ``f1``).

``F1@k = 2 P R / (P + R)`` with ``P = h / k`` and ``R = h / |Rel|``, ``h`` the relevant
items (grade >= ``rel``) in the top ``k`` and ``|Rel|`` the relevant items in the
judgements; 0 when ``P + R = 0`` or the query has no relevant item (van Rijsbergen,
"Information Retrieval", 2nd ed., 1979, ch. 7; as ranx computes it, Bassani, ECIR
2022). ``P`` divides by ``k`` even when fewer items were retrieved, as ``P@k`` does.
Only defined at a cutoff: over the whole retrieved set it is trec_eval's
``set_F`` (``SetF``).

Under ``ties='expected'``: ``F1@k = 2 h / (k + |Rel|)`` is linear in ``h``, so its
expectation is ``2 E[h] / (k + |Rel|)`` with ``E[h]`` the expected relevant items in the
top ``k`` (McSherry & Najork, ECIR 2008).

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [1, 0, 1, 0]}, ["F1@2", "P@2", "R@2"]).round(4).to_dict("records")
[{'F1@2': 0.5, 'P@2': 0.5, 'R@2': 0.5}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, count_per_cell, divide, expected_count_in_top


def _f1(h: np.ndarray, k: int, relevant: np.ndarray) -> np.ndarray:
    """``2 P R / (P + R)`` from the hits ``h``, in ranx's order of operations (0 where P + R = 0)."""
    precision = h / k
    recall = divide(h, relevant)
    total = precision + recall
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 2 * ((precision * recall) / total)
    return np.where(total > 0, value, 0.0)


def kernel(j, hits, m) -> np.ndarray:
    """F1 from the relevant hits within the cutoff, per cell."""
    within = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return _f1(count_per_cell(hits.cell, within, j.n_cells), m.cutoff, j.relevant_count(m.rel).astype(np.float64))


def expected(j, g, m) -> np.ndarray:
    """``2 E[h] / (k + |Rel|)``, 0 for a query without relevant items."""
    relevant = j.relevant_count(m.rel).astype(np.float64)
    h = expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells)
    return np.where(relevant > 0, divide(2 * h, m.cutoff + relevant), 0.0)


FAMILY = Family(
    name="F1",
    params={"rel": REL},
    aliases=("f1_score",),
    needs_cutoff=True,
    judgement_denominator=True,
    kernel=kernel,
    expected=expected,
    examples=("F1@10",),
    doc=__doc__,
)
