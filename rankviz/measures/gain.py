"""binG and G: Buckley's gain measures, between AP and nDCG (trec_eval's experimental ``binG`` and ``G``).

``binG = (1 / R) * sum_{relevant retrieved d} 1 / log2(2 + n_d)``, with ``n_d`` the
non-relevant items above ``d``. ``G = (1 / sum_i I_i) * sum_{retrieved d} g_d /
log2(2 + C_d - S_d)``, where ``g_d`` is the grade of the item at rank ``p``, ``S_d`` the
gain retrieved up to ``p`` and ``C_d = sum_{i <= p} max(I_i, 1)`` the ideal cost up to
``p`` (``I`` the judged grades sorted descending). A retrieved item is worth less the
more it falls behind the ideal (trec_eval 9, ``m_binG.c`` and ``m_G.c``, C. Buckley,
April 2008; cf. Järvelin & Kekäläinen, TOIS 2002). G uses the grades as gains and
ignores ``rel``; binG counts items with grade >= ``rel``.

Both depend on how many items precede each relevant one in a non-linear way:
``ties='expected'`` is refused.

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [0, 1, 2]}, ["binG", "G"]).round(4).to_dict("records")
[{'binG': 0.6309, 'G': 0.5873}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, cumsum_in_cell, divide, rank_within_cell


def ideal_prefix(j, values: np.ndarray):
    """Prefix sums of ``values`` (one per judged grade, in each group's descending order) and each cell's start."""
    prefix = np.r_[0.0, np.cumsum(values, dtype=np.float64)]
    return prefix, j.group_offsets[j.cell_group]


def positive_count(j) -> np.ndarray:
    """Judged items with a positive grade, per cell (grades are integers: grade >= 1)."""
    return j.relevant_count(1)


def bin_g(j, hits, m) -> np.ndarray:
    """Sum of 1 / log2(2 + non-relevant items above) over the relevant hits, over R, per cell."""
    use = (hits.grade >= m.rel) & (hits.pos <= cap(m.cutoff, j.depth))
    cell, pos = hits.cell[use], hits.pos[use]
    nonrel_above = pos - 1 - rank_within_cell(cell)
    sums = np.bincount(cell, weights=1.0 / np.log2(2.0 + nonrel_above), minlength=j.n_cells)
    return divide(sums, j.relevant_count(m.rel))


def g(j, hits, m) -> np.ndarray:
    """Sum of g / log2(2 + ideal cost - gain so far) over the retrieved items with a gain, over the ideal gain."""
    use = (hits.grade > 0) & (hits.pos <= cap(m.cutoff, j.depth))
    cell, pos, gain = hits.cell[use], hits.pos[use], hits.grade[use]
    grades = j.group_grades
    prefix, start = ideal_prefix(j, np.where(grades > 0, grades - 1.0, 0.0))
    n_pos = positive_count(j)
    cost = pos + prefix[start[cell] + np.minimum(pos, n_pos[cell]).astype(np.int64)] - prefix[start[cell]]
    so_far = cumsum_in_cell(cell, gain)
    sums = np.bincount(cell, weights=gain / np.log2(2.0 + cost - so_far), minlength=j.n_cells)
    total, start = ideal_prefix(j, np.where(grades > 0, grades, 0.0))
    ideal = total[start + n_pos] - total[start]
    return divide(sums, ideal)


BIN_G = Family(
    name="binG",
    kernel=bin_g,
    expected=None,
    params={"rel": REL},
    trec_name="binG",
    cutoff_type=None,
    judgement_denominator=True,
    doc=__doc__.replace("binG and G: ", "binG: ", 1),
)

G = Family(
    name="G",
    kernel=g,
    expected=None,
    trec_name="G",
    cutoff_type=None,
    judgement_denominator=True,
    refusals={"rel": "G uses every grade as its gain (as trec_eval does); change the grades in the qrels instead"},
    doc=(
        "G: sum of g_d / log2(2 + C_d - S_d) over retrieved items, over the ideal total gain (trec_eval G, "
        "C. Buckley, 2008; cf. Järvelin & Kekäläinen, TOIS 2002). See rankviz.measures.gain."
    ),
)

FAMILIES = (BIN_G, G)
