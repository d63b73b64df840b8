"""nDCGRel and RnDCG: nDCG averaged over relevant items and over R-levels (trec_eval's ``ndcg_rel``, ``Rndcg``).

With ``DCG(p)`` the DCG of the top ``p`` retrieved items and ``IDCG(p)`` that of the
top ``p`` of the ideal ordering of all judged grades (``npos`` of them positive):

- ``nDCGRel = (1 / npos) * (sum_{retrieved d with a gain} DCG(p_d) / IDCG(min(p_d, npos))
  + (npos - npos_ret) * DCG(end) / IDCG(npos))``: nDCG at each relevant item, an
  unretrieved one counting the nDCG at the end of the list;
- ``RnDCG`` is the mean of ``DCG(min(c, n)) / IDCG(c)`` over the R-levels ``c`` (the
  ranks where the ideal gain drops: the cumulative counts of each positive grade),
  plus the nDCG of the whole list when it is longer than ``npos + 1``; 0 when no
  item has grade >= ``rel``.

Both are experimental measures of trec_eval 9 (``m_ndcg_rel.c``, ``m_Rndcg.c``,
C. Buckley, 2008) built on nDCG (Järvelin & Kekäläinen, "Cumulated gain-based
evaluation of IR techniques", TOIS 2002). Grades are the gains.

The ratios at data-dependent ranks make the expectation over tie orders non-linear:
``ties='expected'`` is refused.

Examples
--------
>>> import rankviz
>>> rankviz.evaluate({"q1": [0, 2, 1, 0]}, ["nDCGRel", "RnDCG"]).round(4).to_dict("records")
[{'nDCGRel': 0.5746, 'RnDCG': 0.3831}]
"""

from __future__ import annotations

import numpy as np

from ._registry import REL, Family
from ._tools import cap, cumsum_in_cell, divide, sum_up_to
from .gain import ideal_prefix, positive_count


def _dcg_parts(j, hits, m):
    """The hits with a gain within the cutoff (cell, pos, their DCG terms) and the cells' ideal DCG prefix sums."""
    use = (hits.grade > 0) & (hits.pos <= cap(m.cutoff, j.depth))
    cell, pos, gain = hits.cell[use], hits.pos[use], hits.grade[use]
    terms = gain / np.log2(pos + 1.0)
    grades = j.group_grades
    rank = np.arange(len(grades)) - np.repeat(j.group_offsets[:-1], np.diff(j.group_offsets))
    prefix, start = ideal_prefix(j, np.where(grades > 0, grades / np.log2(rank + 2.0), 0.0))
    return cell, pos, terms, prefix, start


def ndcg_rel(j, hits, m) -> np.ndarray:
    """nDCG at every retrieved item with a gain, and at the end for the ones not retrieved, averaged over npos."""
    cell, pos, terms, prefix, start = _dcg_parts(j, hits, m)
    n_pos = positive_count(j)
    ideal_at = prefix[start[cell] + np.minimum(pos, n_pos[cell]).astype(np.int64)] - prefix[start[cell]]
    at_items = np.bincount(cell, weights=cumsum_in_cell(cell, terms) / ideal_at, minlength=j.n_cells)
    dcg = np.bincount(cell, weights=terms, minlength=j.n_cells)
    ideal = prefix[start + n_pos] - prefix[start]
    missed = n_pos - np.bincount(cell, minlength=j.n_cells)
    total = at_items + missed * divide(dcg, ideal)
    return np.where(total > 0, divide(total, n_pos.astype(np.float64)), 0.0)


def _r_levels(j):
    """(cell, c) for every R-level of every cell: the ranks where the ideal gain drops."""
    grades = j.group_grades
    last = np.ones(len(grades), dtype=bool)
    last[:-1] = grades[1:] != grades[:-1]
    last[j.group_offsets[1:][np.diff(j.group_offsets) > 0] - 1] = True
    last &= grades > 0
    ends = np.flatnonzero(last)
    group = np.searchsorted(j.group_offsets, ends, side="right") - 1
    levels = ends - j.group_offsets[group] + 1
    per_group = np.bincount(group, minlength=len(j.group_offsets) - 1)
    counts = per_group[j.cell_group]
    cell = np.repeat(np.arange(j.n_cells), counts)
    first = np.r_[0, np.cumsum(per_group)][j.cell_group]
    within = np.arange(len(cell)) - np.repeat(np.cumsum(counts) - counts, counts)
    return cell, levels[np.repeat(first, counts) + within].astype(np.float64)


def r_ndcg(j, hits, m) -> np.ndarray:
    """The mean nDCG at the R-levels (and at the end of a longer list), per cell."""
    cell, pos, terms, prefix, start = _dcg_parts(j, hits, m)
    level_cell, c = _r_levels(j)
    n_ret = np.minimum(j.num_ret, cap(m.cutoff, j.depth)).astype(np.float64)
    dcg_at = sum_up_to(cell, pos, terms, level_cell, np.minimum(c, n_ret[level_cell]))
    ideal_at = prefix[start[level_cell] + c.astype(np.int64)] - prefix[start[level_cell]]
    sums = np.bincount(level_cell, weights=dcg_at / ideal_at, minlength=j.n_cells).astype(np.float64)
    counts = np.bincount(level_cell, minlength=j.n_cells).astype(np.float64)
    n_pos = positive_count(j)
    longer = n_ret > n_pos + 1
    ideal = prefix[start + n_pos] - prefix[start]
    sums += np.where(longer, divide(np.bincount(cell, weights=terms, minlength=j.n_cells), ideal), 0.0)
    counts += longer & (ideal > 0)
    return np.where(j.relevant_count(m.rel) > 0, divide(sums, counts), 0.0)


NDCG_REL = Family(
    name="nDCGRel",
    kernel=ndcg_rel,
    expected=None,
    trec_name="ndcg_rel",
    cutoff_type=None,
    judgement_denominator=True,
    refusals={
        "rel": "nDCGRel uses every grade as its gain (as trec_eval does); change the grades in the qrels instead"
    },
    doc=__doc__.replace("nDCGRel and RnDCG: ", "nDCGRel: ", 1),
)

R_NDCG = Family(
    name="RnDCG",
    kernel=r_ndcg,
    expected=None,
    params={"rel": REL},
    trec_name="Rndcg",
    cutoff_type=None,
    judgement_denominator=True,
    doc=(
        "RnDCG: mean nDCG at the R-levels of the ideal ordering (trec_eval Rndcg, C. Buckley, 2008; Järvelin & "
        "Kekäläinen, TOIS 2002); 0 when R = 0 at the rel threshold. See rankviz.measures.ndcg_variants."
    ),
)

FAMILIES = (NDCG_REL, R_NDCG)
