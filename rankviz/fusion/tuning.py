"""Fusion weights chosen by query-level cross-validation, reported next to the in-sample optimum.

Choosing weights on the queries you then report is optimistic: the best of many
weightings looks better than it will on new queries. :func:`tune` evaluates every
weighting of a grid on every query once, then for each fold picks the weights that
are best on the other folds and scores that fold's queries with them. The mean of
those held-out scores (the cross-validated estimate) is the number to report for
the procedure "tune weights, then fuse"; the in-sample optimum is shown beside it
so the optimism is visible.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Unpack

import numpy as np
import pandas as pd

from .._core.checks import check_int, check_real
from .._core.options import EVAL, EvalKeywords, EvalOptions, with_options
from .._errors import InputError
from ..evaluation.api import per_query_table
from ..stats.inference import seed_of
from ..stats.resampling import call_entropy, query_stream
from .combine import WEIGHTED, check_method, combine, contributions, read_lists, to_run

__all__ = ["TuneResult", "tune", "weight_grid"]

#: at most this many weightings are searched (a finer grid or more systems: coarser grid)
MAX_CANDIDATES = 5000
#: fused rows evaluated per call of rankviz.evaluate (bounds memory)
_ROWS_PER_CALL = 2_000_000


@dataclasses.dataclass(frozen=True, repr=False)
class TuneResult:
    """Weights searched on a grid, with the cross-validated and in-sample estimates.

    Parameters
    ----------
    weights : dict
        The best weights on all queries (what to use on new queries).
    in_sample : float
        The mean measure of those weights on the same queries (optimistic).
    cv_estimate : float
        The mean over queries of each query's score under the weights chosen
        without its fold: the estimate to report.
    uniform : float
        The mean measure with equal weights (nothing tuned).
    fold_weights : tuple of dict
        The weights chosen in each fold.
    per_query : DataFrame
        ``query_id``, ``fold``, ``in_sample``, ``cross_validated``, ``uniform``.
    grid : DataFrame
        One row per weighting: a column per system and ``mean`` (over all queries).
    measure, method, norm : str
        The measure tuned for, the fusion method and the score normalisation (as given to :func:`tune`).
    folds : int
        The number of cross-validation folds.
    rng : int or None
        The seed that assigned queries to folds.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz import fusion
    >>> queries = [f"q{i}" for i in range(6)]
    >>> run = pd.DataFrame({"system": ["a", "a", "b", "b"] * 6, "query_id": [q for q in queries for _ in range(4)],
    ...                     "doc_id": ["x", "y", "y", "x"] * 6, "score": [2.0, 1.0] * 12})
    >>> qrels = pd.DataFrame({"query_id": queries, "doc_id": "x", "relevance": 1})
    >>> result = fusion.tune(run, qrels, measure="RR@10", grid=0.5, folds=3, rng=0)
    >>> result.weights, result.in_sample, result.folds
    ({'a': 1.0, 'b': 0.0}, 1.0, 3)
    """

    weights: dict
    in_sample: float
    cv_estimate: float
    uniform: float
    fold_weights: tuple
    per_query: pd.DataFrame
    grid: pd.DataFrame
    measure: str
    method: str
    norm: str
    folds: int
    rng: int | None

    @property
    def optimism(self) -> float:
        """In-sample minus cross-validated estimate: how much choosing on the same queries flatters."""
        return self.in_sample - self.cv_estimate

    def __repr__(self) -> str:
        shown = ", ".join(f"{s!r}: {w:g}" for s, w in self.weights.items())
        return (
            f"TuneResult({self.method}, norm={self.norm!r}, {self.measure}, {self.folds}-fold CV over queries, rng={self.rng})\n"
            f"  best weights on all queries: {{{shown}}}\n"
            f"  in-sample {self.measure}: {self.in_sample:.4f} (optimistic)\n"
            f"  cross-validated {self.measure}: {self.cv_estimate:.4f} (report this; optimism {self.optimism:+.4f})\n"
            f"  equal weights: {self.uniform:.4f}"
        )


def weight_grid(n_systems: int, step: float, caller: str = "tune") -> np.ndarray:
    """Every weighting of ``n_systems`` on the simplex with the given step (rows sum to 1).

    Parameters
    ----------
    n_systems : int
        The number of systems weighted.
    step : float
        The grid step, dividing 1 into equal parts (0.1, 0.25, ...).
    caller : str, default 'tune'
        The function named in error messages.

    Returns
    -------
    ndarray
        One row per weighting, one column per system; rows in lexicographic order of the weights.

    Examples
    --------
    >>> weight_grid(2, 0.25).tolist()
    [[0.0, 1.0], [0.25, 0.75], [0.5, 0.5], [0.75, 0.25], [1.0, 0.0]]
    """
    n_systems = check_int(n_systems, "n_systems", "weight_grid", low=1)
    step = check_real(step, "grid", caller, low=0, low_open=True, high=1)  # a step in (0, 1], such as 0.1
    parts = round(1 / step)
    if abs(parts * step - 1) > 1e-9:
        raise InputError(
            f"The 'grid' parameter of {caller} must divide 1 into equal steps (0.1, 0.05, 0.25, ...). Got {step!r}."
        )
    count = math.comb(parts + n_systems - 1, n_systems - 1)
    if count > MAX_CANDIDATES:
        raise InputError(
            f"{caller}: a grid step of {step:g} over {n_systems} systems gives {count} weightings (at most "
            f"{MAX_CANDIDATES} are searched); use a coarser grid or fuse fewer systems."
        )
    rows = []
    for bars in itertools.combinations(range(parts + n_systems - 1), n_systems - 1):
        edges = (-1, *bars, parts + n_systems - 1)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(n_systems)])
    return np.array(rows, dtype=np.float64) / parts


def _per_query_values(lists, pairs, method, candidates, measure, qrels, options: EvalOptions) -> pd.DataFrame:
    """The measure per query (columns) for every candidate weighting (rows), evaluated in chunks."""
    pair_q, pair_d, table = pairs
    chunk = max(1, _ROWS_PER_CALL // max(1, len(pair_q)))
    parts = []
    for start in range(0, len(candidates), chunk):
        block = candidates[start : start + chunk]
        fused = combine(table, method, block.T)  # (pairs, candidates)
        runs = [to_run(lists, pair_q, pair_d, fused[:, j], str(start + j)) for j in range(len(block))]
        frame = pd.concat(runs, ignore_index=True)
        table_q = per_query_table(frame, [measure], qrels, options)
        name = table_q.columns[-1]
        wide = table_q.pivot(index="system", columns="query_id", values=name)
        parts.append(wide.loc[[str(start + j) for j in range(len(block))]])
    values = pd.concat(parts)
    values.attrs["measure"] = name
    return values


def _choose(means: np.ndarray, candidates: np.ndarray) -> int:
    """The best weighting; among equal means the one closest to equal weights, then the first."""
    best = np.flatnonzero(means >= means.max() - 1e-12)
    distance = np.abs(candidates[best] - 1 / candidates.shape[1]).sum(axis=1)
    return int(best[np.argmin(distance)])


def _folds(queries, folds: int, entropy) -> np.ndarray:
    """Fold of each (sorted) query: a shuffle drawn from the seed and the query ids only."""
    order = query_stream(entropy, queries).permutation(len(queries))
    fold = np.empty(len(queries), dtype=np.int64)
    fold[order] = np.arange(len(queries)) % folds
    return fold


@with_options(EVAL)
def tune(
    options: EvalOptions,
    run,
    qrels=None,
    *,
    method: str = "wsum",
    measure: str = "nDCG@10",
    grid: float = 0.1,
    folds: int = 5,
    norm: str | None = None,
    rrf_k: float = 60,
    rng=None,
    **_: Unpack[EvalKeywords],
) -> TuneResult:
    """Choose fusion weights on a grid by query-level cross-validation.

    Parameters
    ----------
    run : DataFrame
        A long run with a system column (see :func:`rankviz.fuse`).
    qrels : DataFrame, path or dict, optional
    method : {'wsum', 'rrf', 'combsum', 'combmnz', 'combanz', 'borda'}, default 'wsum'
    measure : str, default 'nDCG@10'
        The measure to maximise (its mean over queries).
    grid : float, default 0.1
        Step of the weights; every weighting with weights in {0, step, ..., 1}
        summing to 1 is tried.
    folds : int, default 5
        Queries are split into this many folds (a shuffle from ``rng`` and the query ids).
    norm : str, optional
        As in :func:`rankviz.fuse`.
    rrf_k : float, default 60
        RRF's constant (as in :func:`rankviz.fuse`).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    TuneResult
        The best weights on all queries, the in-sample and cross-validated
        estimates side by side, the weights of each fold and the per-query values.

    Examples
    --------
    >>> import rankviz
    >>> from rankviz.datasets import load_example
    >>> run, qrels, _ = load_example()
    >>> two = run[run.system.isin(["bm25", "tfidf"]) & (run.query_id < "q0100")]
    >>> result = rankviz.fusion.tune(two, qrels, grid=0.25, folds=3, rng=0, missing="drop")
    >>> result.cv_estimate <= result.in_sample
    True
    """
    caller = "tune"
    method, norm = check_method(method, norm, caller)
    if method not in WEIGHTED:
        raise InputError(f"tune: method={method!r} takes no weights; tune one of {', '.join(WEIGHTED)}.")
    folds = check_int(folds, "folds", caller, low=2)
    lists = read_lists(run, columns=options.columns, caller=caller)
    candidates = np.vstack(
        [weight_grid(len(lists.systems), grid, caller), np.full(len(lists.systems), 1 / len(lists.systems))]
    )
    pairs = contributions(lists, method, norm, float(rrf_k), caller)
    values = _per_query_values(lists, pairs, method, candidates, measure, qrels, options)
    queries = sorted(values.columns, key=str)
    if folds > len(queries):
        raise InputError(
            f"tune: folds={folds} but only {len(queries)} queries were evaluated; use at most {len(queries)} folds."
        )
    v = values[queries].to_numpy(dtype=np.float64)
    searched, uniform = v[:-1], v[-1]
    fold = _folds(queries, folds, call_entropy(rng, caller))
    held_out = np.empty(len(queries))
    chosen = []
    for f in range(folds):
        best = _choose(searched[:, fold != f].mean(axis=1), candidates[:-1])
        held_out[fold == f] = searched[best, fold == f]
        chosen.append(dict(zip(lists.systems, candidates[best].tolist())))
    best = _choose(searched.mean(axis=1), candidates[:-1])
    grid_frame = pd.DataFrame(candidates[:-1], columns=list(lists.systems)).assign(mean=searched.mean(axis=1))
    per_query = pd.DataFrame(
        {
            "query_id": pd.array([str(q) for q in queries], dtype="str"),
            "fold": fold,
            "in_sample": searched[best],
            "cross_validated": held_out,
            "uniform": uniform,
        }
    )
    return TuneResult(
        weights=dict(zip(lists.systems, candidates[best].tolist())),
        in_sample=float(searched[best].mean()),
        cv_estimate=float(held_out.mean()),
        uniform=float(uniform.mean()),
        fold_weights=tuple(chosen),
        per_query=per_query,
        grid=grid_frame,
        measure=values.attrs["measure"],
        method=method,
        norm=norm,
        folds=folds,
        rng=seed_of(rng),
    )
