"""``ddf.rankviz`` (and ``ddf.rank``) on Dask DataFrames: the evaluation methods that make sense out of core.

Dask DataFrames have no ``rank`` method (checked by ``tests/dask/test_dask.py``), so
``ddf.rank`` breaks nothing of Dask's API; it does take the place of attribute
access to a column named ``rank`` (TREC runs have one): use ``ddf["rank"]``, as on
pandas, where ``df.rank`` was never the column either. Like the pandas accessor it
holds only the frame; every method is the :mod:`rankviz.dask.evaluation` function
with the frame bound (same signature, same docstring).
"""

from __future__ import annotations

from .._core.methods import bound_method
from ..evaluation.shortcuts import SHORTCUTS
from . import evaluation
from .evaluation import SHORTCUT_FUNCTIONS

__all__ = ["DaskRankAccessor", "register"]


def _bound(func, name: str | None = None):
    return bound_method(func, "DaskRankAccessor", name)


class DaskRankAccessor:
    """rankviz's evaluation methods on a Dask DataFrame (``ddf.rankviz.evaluate(...)``, ``ddf.rank.mrr(...)``).

    Every method returns pandas objects (per-query tables are small), so the
    statistics, plots and reports of rankviz take them unchanged.
    """

    def __init__(self, frame):
        self._frame = frame

    evaluate = _bound(evaluation.evaluate)


for _shortcut in SHORTCUTS:  # mrr, ndcg, map, ...: one method per declared shortcut
    setattr(DaskRankAccessor, _shortcut.method_name, _bound(SHORTCUT_FUNCTIONS[_shortcut.name], _shortcut.method_name))


def register() -> None:
    """Register ``rankviz`` and ``rank`` on Dask DataFrames (idempotent; ``rank`` only while Dask has none)."""
    import dask.dataframe as dd

    for name in ("rankviz", "rank"):
        if getattr(dd.DataFrame, name, None) is None:  # already ours (a re-import), or Dask's own: left as it is
            dd.extensions.register_dataframe_accessor(name)(DaskRankAccessor)
