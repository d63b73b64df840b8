"""Rank fusion: combine several systems' ranked lists into one run, and tune its weights honestly.

- :func:`fuse` -- RRF, Borda, CombSUM, weighted sum, CombMNZ, CombANZ, CombMAX,
  CombMIN over normalised scores (none, min-max, z-score, sum, max, rank); how a
  document missing from one system's list counts is set out per method in
  :mod:`rankviz.fusion.combine`.
- :func:`tune` -- weights on a grid by query-level cross-validation, with the
  cross-validated estimate next to the in-sample one (:class:`TuneResult`).

RRF and MRR both use 1/rank, for different things: RRF *combines* rankings (a
document's fused score is the sum over systems of 1/(k + its rank there)); MRR
*scores* one ranking (the mean over queries of 1/rank of the first relevant item).
"""

from __future__ import annotations

from .combine import METHODS, NORMS, WEIGHTED, fuse
from .tuning import TuneResult, tune, weight_grid

__all__ = ["METHODS", "NORMS", "WEIGHTED", "fuse", "tune", "TuneResult", "weight_grid"]
