"""The tie report: how much score ties can move each measure.

trec_eval breaks score ties by doc id, so two runs that differ only in document
names can get different scores (usnistgov/trec_eval#22), and a constant scorer can
look perfect. :func:`tie_report` shows, per system, how many queries have tied
scores, how many tie groups straddle the cutoff or hold the first relevant item,
and how far each measure can move between the pessimistic and the optimistic
ordering of every tie group (overall and for the worst queries). Pass
``ties="expected"`` to any measure for the exact expectation over all orderings.
"""

from __future__ import annotations

import dataclasses
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.checks import check_cutoff, check_int
from .._core.judged import Judged
from .._core.options import EVAL, EvalOptions, TieFreeKeywords, with_options
from ..measures import dispatch as kernels
from ..measures import parse_measures
from ..stats.results import formatted, html_table
from .pipeline import judge_run, kept_cells, system_cells, system_names, with_rel

__all__ = ["TieReport", "tie_report", "tie_spread"]


@dataclasses.dataclass(frozen=True, repr=False)
class TieReport:
    """Per-system tie statistics (``summary``) and the queries ties can move most (``worst_queries``).

    Parameters
    ----------
    summary : DataFrame
        One row per system: query, tie and tie-group counts, and per measure its value under
        trec_eval's order, the pessimistic, expected and optimistic orders of tied scores, and
        ``<measure>_spread`` (optimistic minus pessimistic).
    worst_queries : DataFrame
        The queries whose measures ties can move most: ``query_id`` (and ``system``), each
        measure's spread and ``n_tied_rows``.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    >>> report = rankviz.tie_report(run, {"q": {"b": 1}}, k=1)
    >>> report.worst_queries[["query_id", "RR@1_spread", "n_tied_rows"]]
      query_id  RR@1_spread  n_tied_rows
    0        q          1.0            2
    """

    summary: pd.DataFrame
    worst_queries: pd.DataFrame

    def __repr__(self) -> str:
        # formatted first: counts stay whole and measures get 4 decimals, also in the transposed summary
        with pd.option_context("display.width", 120, "display.max_columns", 30):
            return (
                f"Tie report\n{formatted(self.summary).T}\n\n"
                f"Queries ties can move most\n{formatted(self.worst_queries).to_string(index=False)}"
            )

    def _repr_html_(self) -> str:
        worst = (
            html_table(
                self.worst_queries, "Queries ties can move most (optimistic minus pessimistic value)", index=False
            )
            if len(self.worst_queries)
            else "<p>No query has tied scores that move a measure.</p>"
        )
        return (
            html_table(self.summary, "Tie report: each measure under every order of tied scores", transpose=True)
            + worst
        )


def tie_spread(j: Judged, measures) -> dict[str, np.ndarray]:
    """Per-cell optimistic minus pessimistic value of each measure."""
    return {m.name: kernels.compute(j, m, "optimistic") - kernels.compute(j, m, "pessimistic") for m in measures}


def _row_ties(run, j: Judged, k: int):
    """Per evaluated cell: rows in tie groups of size > 1, and tie groups straddling rank k."""
    n_cells = j.n_cells
    q_map = pd.Index(j.queries, dtype=object).get_indexer(run.q_values)
    row_q = q_map[run.q_codes]
    sys_codes = run.sys_codes if run.sys_codes is not None else np.zeros(len(row_q), dtype=np.int64)
    keep = row_q >= 0
    cell = sys_codes[keep].astype(np.int64) * j.n_queries + row_q[keep]
    key = run.key[keep]
    order = np.lexsort((-key, cell))
    cell, key = cell[order], key[order]
    new_group = np.ones(len(cell), dtype=bool)
    new_group[1:] = (cell[1:] != cell[:-1]) | (key[1:] != key[:-1])
    group_id = np.cumsum(new_group) - 1
    sizes = np.bincount(group_id)
    tied_rows = np.bincount(cell, weights=(sizes[group_id] > 1).astype(np.float64), minlength=n_cells)
    new_cell = np.ones(len(cell), dtype=bool)
    new_cell[1:] = cell[1:] != cell[:-1]
    starts = np.flatnonzero(new_cell)
    position = np.arange(len(cell)) - np.repeat(starts, np.diff(np.r_[starts, len(cell)]))
    g_first = np.flatnonzero(new_group)
    g_cell, g_start, g_size = cell[g_first], position[g_first], sizes
    straddle = (g_size > 1) & (g_start < k) & (g_start + g_size > k)
    straddling = np.bincount(g_cell[straddle], minlength=n_cells)
    return tied_rows, straddling


def _first_relevant_tied(j: Judged, rel: int) -> np.ndarray:
    """Per cell: the first relevant item sits in a tie group that also holds non-relevant items."""
    out = np.zeros(j.n_cells, dtype=bool)
    relevant = j.hit_grade >= rel
    if not relevant.any():
        return out
    cell, above, tied = j.hit_cell[relevant], j.hit_above[relevant], j.hit_tied[relevant]
    key = pd.MultiIndex.from_arrays([cell, above])
    members = pd.Series(1, index=key).groupby(level=[0, 1]).transform("size").to_numpy()
    order = np.lexsort((above, cell))
    cell, tied, members = cell[order], tied[order], members[order]
    first = np.ones(len(cell), dtype=bool)
    first[1:] = cell[1:] != cell[:-1]
    out[cell[first]] = tied[first] > members[first]
    return out


@with_options(EVAL.without("ties"))
def tie_report(
    options: EvalOptions,
    run,
    qrels=None,
    *,
    k: int = 10,
    measures=None,
    n_worst: int = 10,
    **_: Unpack[TieFreeKeywords],
) -> TieReport:
    """How much score ties can move each measure, per system and for the worst queries.

    Parameters
    ----------
    run : DataFrame
        Any input shape (long runs are where ties live).
    qrels : DataFrame, path or dict, optional
    k : int, default 10
        The cutoff whose straddling tie groups are counted, and of the default measures.
    measures : list, optional
        Default: ``RR@k``, ``nDCG@k``, ``P@k``, ``R@k``, ``AP``.
    n_worst : int, default 10
        How many queries to list, largest spread first.

    Returns
    -------
    TieReport
        ``summary``: one row per system with ``n_queries``, ``n_queries_with_ties``,
        ``n_tied_rows``, ``n_tie_groups_straddling_<k>``,
        ``n_queries_first_relevant_tied``, and per measure the means under every tie
        mode (``<measure>_trec_eval``, ``_pessimistic``, ``_expected``,
        ``_optimistic``) and their ``<measure>_spread``. ``worst_queries``: the
        (system, query) pairs with the largest spread of any measure.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    >>> report = rankviz.tie_report(run, {"q": {"b": 1}}, k=1)
    >>> float(report.summary.loc["run", "RR@1_spread"])
    1.0
    """
    k = check_cutoff(k, "tie_report", allow_none=False)
    n_worst = check_int(n_worst, "n_worst", "tie_report", low=0)
    rel = 1 if options.rel is None else options.rel
    measures = with_rel(parse_measures(measures or [f"RR@{k}", f"nDCG@{k}", f"P@{k}", f"R@{k}", "AP"]), options.rel)
    j, arrays = judge_run(
        run, qrels, options, rel_min=min(m.hit_min for m in measures), caller="tie_report", with_arrays=True
    )
    keep = kept_cells(j, options.missing, "tie_report")
    tied_rows, straddling = _row_ties(arrays, j, k)
    first_tied = _first_relevant_tied(j, rel)
    values = {mode: {m.name: _values(j, m, mode) for m in measures} for mode in kernels.TIES}

    summary = _tie_summary(j, keep, k, measures, values, tied_rows, straddling, first_tied)
    return TieReport(summary, _worst_queries(j, keep, measures, values, tied_rows, n_worst))


def _values(j: Judged, measure, mode: str) -> np.ndarray:
    """The measure under one tie mode; NaN for ``'expected'`` where its family has no closed form (bpref, ERR, ...)."""
    if mode == "expected" and measure.declaration.expected is None:
        return np.full(j.n_cells, np.nan)
    return kernels.compute(j, measure, mode)


def _tie_summary(j: Judged, keep, k, measures, values, tied_rows, straddling, first_tied) -> pd.DataFrame:
    """One row per system: tie counts, and each measure under every tie mode with its spread."""
    rows = []
    for _, cells in system_cells(j, keep):
        row: dict[str, float] = {
            "n_queries": len(cells),
            "n_queries_with_ties": int((tied_rows[cells] > 0).sum()),
            "n_tied_rows": int(tied_rows[cells].sum()),
            f"n_tie_groups_straddling_{k}": int(straddling[cells].sum()),
            "n_queries_first_relevant_tied": int(first_tied[cells].sum()),
        }
        for m in measures:
            means = {mode: float(values[mode][m.name][cells].mean()) if len(cells) else np.nan for mode in kernels.TIES}
            for mode in ("trec_eval", "pessimistic", "expected", "optimistic"):
                row[f"{m.name}_{mode}"] = means[mode]
            row[f"{m.name}_spread"] = means["optimistic"] - means["pessimistic"]
        rows.append(row)
    return pd.DataFrame(rows, index=pd.Index(list(system_names(j)), name="system", dtype="str"))


def _worst_queries(j: Judged, keep, measures, values, tied_rows, n_worst: int) -> pd.DataFrame:
    """The (system, query) pairs whose measures tie order can move most, largest spread first."""
    worst = pd.DataFrame(
        {
            "system": np.repeat(np.asarray(system_names(j), dtype=object), j.n_queries),
            "query_id": np.tile(j.queries, j.n_systems),
        }
    )
    for m in measures:
        worst[f"{m.name}_spread"] = values["optimistic"][m.name] - values["pessimistic"][m.name]
    worst["n_tied_rows"] = tied_rows.astype(np.int64)
    worst = worst[keep]
    spread_cols = [f"{m.name}_spread" for m in measures]
    worst = worst.assign(_max=worst[spread_cols].max(axis=1))
    worst = worst[worst["_max"] > 0].sort_values(
        ["_max", "system", "query_id"], ascending=[False, True, True], kind="mergesort"
    )
    worst = worst.drop(columns="_max").head(n_worst).reset_index(drop=True)
    if j.systems is None:
        worst = worst.drop(columns="system")
    worst["query_id"] = worst["query_id"].astype("str")
    return worst
