"""IPrec and IPrecAvg: interpolated precision at recall levels, and their 11-point average.

``IPrec@x = max_{i >= i_c} P@i``, the best precision at or below the rank ``i_c`` of
the ``c``-th relevant item, ``c = round(x * R)`` (halves up, as trec_eval 10's
``lround``); 0 when fewer than ``c`` relevant items were retrieved, and the best
precision anywhere when ``c = 0`` (Manning, Raghavan & Schütze, "Introduction to
Information Retrieval", 2008, section 8.4; trec_eval ``iprec_at_recall``).
``IPrecAvg`` is their mean at x = 0, 0.1, ..., 1 (the 11-point average, trec_eval
``11pt_avg``). The cutoff of IPrec is the recall level: ``IPrec@0.1``.

The maximum over ranks makes the expectation over tie orders non-linear:
``ties='expected'`` is refused.

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [0, 1, 0, 1]}, ["IPrec@0.5", "IPrec@1.0", "IPrecAvg"]).round(4).to_dict("records")
[{'IPrec@0.5': 0.5, 'IPrec@1.0': 0.5, 'IPrecAvg': 0.5}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, lround, rank_within_cell, suffix_max_in_cell

#: trec_eval's recall levels for iprec_at_recall and 11pt_avg
LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def interpolated(j, hits, rel: int, levels) -> np.ndarray:
    """Interpolated precision at each recall level (rows) for every cell (columns)."""
    use = (hits.grade >= rel) & (hits.pos <= cap(None, j.depth))
    cell, pos = hits.cell[use], hits.pos[use]
    best = suffix_max_in_cell(cell, (rank_within_cell(cell) + 1) / pos)
    start = np.searchsorted(cell, np.arange(j.n_cells))
    found = np.searchsorted(cell, np.arange(j.n_cells), side="right") - start
    relevant = j.relevant_count(rel)
    out = np.zeros((len(levels), j.n_cells))
    for row, level in enumerate(levels):
        c = lround(level * relevant)
        ok = (found > 0) & (c <= found)
        at = np.minimum(start + np.maximum(c, 1) - 1, max(len(best) - 1, 0))
        out[row, ok] = best[at[ok]]
    return out


def kernel(j, hits, m) -> np.ndarray:
    """Interpolated precision at the recall level ``m.cutoff``, per cell."""
    return interpolated(j, hits, m.rel, [m.cutoff])[0]


def average(j, hits, m) -> np.ndarray:
    """The mean of the interpolated precision at the 11 recall levels, per cell.

    Summed as trec_eval's ``11pt_avg`` sums them, from recall 1.0 down to 0.0, then divided
    by 11, so that the last printed digit is trec_eval's too.
    """
    total = np.zeros(j.n_cells)
    for row in interpolated(j, hits, m.rel, LEVELS)[::-1]:
        total = total + row
    return total / len(LEVELS)


IPREC = Family(
    name="IPrec",
    kernel=kernel,
    expected=None,
    params={"rel": REL},
    aliases=("iprec_at_recall", "interpolated_precision"),
    trec_cut_name="iprec_at_recall_{k}",
    needs_cutoff=True,
    cutoff_type=float,
    cutoff_range=(0.0, 1.0),
    judgement_denominator=True,
    examples=("IPrec@0.1", "IPrec@0.5"),
    doc=__doc__.replace("IPrec and IPrecAvg: ", "IPrec: ", 1),
)

IPREC_AVG = Family(
    name="IPrecAvg",
    kernel=average,
    expected=None,
    params={"rel": REL},
    aliases=("11pt", "eleven_point_average"),
    trec_name="11pt_avg",
    cutoff_type=None,
    judgement_denominator=True,
    doc=(
        "IPrecAvg: mean interpolated precision at recall 0, 0.1, ..., 1 (trec_eval 11pt_avg; Manning, Raghavan & "
        "Schütze, Introduction to Information Retrieval, 2008, section 8.4)."
    ),
)

FAMILIES = (IPREC, IPREC_AVG)
