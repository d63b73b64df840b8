"""P: precision at a cutoff.

``P@k = |{i <= k : g_i >= rel}| / k``: the relevant items in the top ``k`` divided by
``k``, even when fewer than ``k`` items were retrieved (Manning, Raghavan &
Schütze, "Introduction to Information Retrieval", 2008, section 8.4; trec_eval
``P``). Only defined at a cutoff: write ``P@10``.

Under ``ties='expected'`` a tie group (``n`` members, ``s`` items above it, ``r``
relevant members) puts ``r * t / n`` relevant items in the top ``k`` on average,
``t = clip(k - s, 0, n)`` (McSherry & Najork, ECIR 2008).

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [1, 0, 1]}, ["P@2", "P@5"]).round(4).to_dict("records")
[{'P@2': 0.5, 'P@5': 0.4}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, count_per_cell, divide, expected_count_in_top


def kernel(j, hits, m) -> np.ndarray:
    """Relevant hits within the cutoff, over the cutoff, per cell."""
    within = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return count_per_cell(hits.cell, within, j.n_cells) / m.cutoff


def expected(j, g, m) -> np.ndarray:
    """Expected relevant items within the cutoff, over the cutoff."""
    return expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells) / m.cutoff


FAMILY = Family(
    name="P",
    params={"rel": REL},
    aliases=("precision",),
    trec_name=None,
    trec_cut_name="P_{k}",
    needs_cutoff=True,
    judgement_denominator=False,
    kernel=kernel,
    expected=expected,
    examples=("P@5", "P@10"),
    doc=__doc__,
)


def relative_kernel(j, hits, m) -> np.ndarray:
    """Relevant hits within the cutoff, over min(k, R), per cell (0 when R = 0)."""
    within = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    return divide(count_per_cell(hits.cell, within, j.n_cells), np.minimum(j.relevant_count(m.rel), m.cutoff))


def relative_expected(j, g, m) -> np.ndarray:
    """Expected relevant items within the cutoff, over min(k, R)."""
    found = expected_count_in_top(g, cap(m.cutoff, j.depth), j.n_cells)
    return divide(found, np.minimum(j.relevant_count(m.rel), m.cutoff))


RELATIVE = Family(
    name="RelP",
    params={"rel": REL},
    aliases=("relative_P", "relative_precision"),
    trec_name=None,
    trec_cut_name="relative_P_{k}",
    needs_cutoff=True,
    judgement_denominator=True,
    kernel=relative_kernel,
    expected=relative_expected,
    examples=("RelP@10",),
    doc=(
        "RelP: relevant items in the top k over min(k, R), the best P@k possible; precision up to R, recall after it "
        "(trec_eval relative_P; Voorhees & Harman, TREC, MIT Press 2005)."
    ),
)

FAMILIES = (FAMILY, RELATIVE)
