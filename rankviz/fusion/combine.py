"""Rank fusion of several systems' ranked lists into one run (vectorised over all queries).

Each system's list of a query is ordered as trec_eval orders it (by score, ties by
doc id descending; by rank when there is no score column). Each document of each
list gets a value (its normalised score, or a function of its rank), the values
of one (query, document) across systems are combined, and the fused list is
ordered by the combined value (ties by doc id descending, as trec_eval).

Documents missing from one system's list (it did not retrieve them):

========== ============================================================ ==============================
method     fused value                                                  a system that missed the doc
========== ============================================================ ==============================
rrf        sum of w_s / (k + rank_s)  (Cormack et al. 2009)             adds 0
borda      sum of w_s x points: c - rank + 1 for ``c`` candidates       gets the mean of the points
           (the union of the lists of that query) (Aslam & Montague     left, (c - n_s + 1) / 2 for a
           2001)                                                        list of n_s documents
combsum    sum of w_s x normalised score (Fox & Shaw 1994)              adds 0
wsum       combsum with weights (default: equal weights)                adds 0
combmnz    combsum x the number of systems that retrieved it            adds 0 and does not count
combanz    combsum / the number of systems that retrieved it            adds 0 and does not count
combmax    the largest normalised score                                 is left out of the max
combmin    the smallest normalised score                                is left out of the min
========== ============================================================ ==============================

Normalisations of one system's scores for one query (``norm=``): ``'none'``;
``'min-max'`` (s - min) / (max - min); ``'z-score'`` (s - mean) / sd (population
sd); ``'sum'`` (s - min) / sum(s - min) (Montague & Aslam 2001); ``'max'`` s /
max|s|; ``'rank'`` 1 - (rank - 1) / n. A list whose scores are all equal
normalises to 0 (``rank`` aside). RRF and Borda use ranks only and take no
normalisation. These agree with ranx's ``fuse`` (tested on TREC-COVID runs), with
two deliberate differences: ties are broken by doc id descending (ranx's order
of tied scores is its sort's), and ``'max'`` divides by the largest *absolute*
score, so negative scores keep their order (ranx divides by max(max, 1e-9)).
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np
import pandas as pd

from .._core.checks import check_choice, check_cutoff
from .._core.columns import Columns
from .._core.long_run import key_array, resolve_long_run
from .._errors import ColumnError, DuplicateError, InputError

__all__ = ["METHODS", "NORMS", "WEIGHTED", "Lists", "read_lists", "contributions", "combine", "fuse", "check_method"]

#: fusion methods; the first two use ranks only
METHODS = ("rrf", "borda", "combsum", "wsum", "combmnz", "combanz", "combmax", "combmin")
#: score normalisations
NORMS = ("none", "min-max", "z-score", "sum", "max", "rank")
#: the methods that take weights (a weighted sum of the systems' values)
WEIGHTED = ("rrf", "borda", "combsum", "wsum", "combmnz", "combanz")

_METHOD_ALIASES = {"bordafuse": "borda", "weightedsum": "wsum", "reciprocalrankfusion": "rrf"}
_NORM_ALIASES = {"minmax": "min-max", "zscore": "z-score", "zmuv": "z-score"}


@dataclasses.dataclass(frozen=True)
class Lists:
    """Every system's ranked list of every query, sorted (query, system, then trec_eval order).

    ``value`` is the score (None without a score column); ``rank`` is 1-based;
    ``starts`` are the first rows of each (query, system) list.
    """

    columns: dict  # output column names by role
    systems: tuple[str, ...]
    queries: pd.Index  # unique query ids in order of first appearance (original dtype)
    docs: pd.Index  # unique doc ids (original dtype)
    doc_order: np.ndarray  # per doc code: its position when doc ids are sorted as strings
    q: np.ndarray
    s: np.ndarray
    d: np.ndarray
    value: np.ndarray | None
    rank: np.ndarray
    starts: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(np.append(self.starts, len(self.q)))


def _canonical(value, aliases, choices, name, caller):
    if isinstance(value, str):
        key = value.lower().replace("_", "").replace("-", "").replace(" ", "")
        key = aliases.get(key, key).replace("-", "")
        for choice in choices:
            if choice.replace("-", "") == key:
                return choice
    return check_choice(value, name, caller, choices)


def check_method(method, norm, caller: str) -> tuple[str, str]:
    """(method, norm) in canonical spelling; norm None means the method's default."""
    method = _canonical(method, _METHOD_ALIASES, METHODS, "method", caller)
    if method in ("rrf", "borda"):
        if norm is not None and _canonical(norm, _NORM_ALIASES, NORMS, "norm", caller) != "none":
            raise InputError(
                f"{caller}: method={method!r} combines ranks, not scores, so it takes no normalisation; "
                f"leave norm out (or norm='none'), or use a score method such as 'combsum' with norm={norm!r}."
            )
        return method, "none"
    return method, "min-max" if norm is None else _canonical(norm, _NORM_ALIASES, NORMS, "norm", caller)


def _duplicate_check(g: np.ndarray, d: np.ndarray, n_docs: int, lists_of, caller: str) -> None:
    key = g.astype(np.int64) * n_docs + d
    order = np.argsort(key, kind="stable")
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(repeated):
        q, s, doc = lists_of(order[repeated[0]])
        raise DuplicateError(
            f"{caller}: system {s!r} retrieves doc {doc!r} more than once for query {q!r} ({len(repeated)} repeated "
            "rows in all); each system may list a document once per query. Keep the best-ranked row, e.g. "
            "run.sort_values('score', ascending=False).drop_duplicates(['system', 'query_id', 'doc_id'])."
        )


def read_lists(run, *, columns=None, depth=None, caller: str = "fuse") -> Lists:
    """Read a multi-system run frame into sorted ranked lists (see :class:`Lists`)."""
    cols = resolve_long_run(run, Columns.of(columns, caller))
    if cols.system is None:
        raise ColumnError(
            f"{caller} combines several systems: the run needs a system column ('system', 'run' or 'tag', or "
            "columns={'system': ...}), e.g. pd.concat([bm25.assign(system='bm25'), dense.assign(system='dense')])."
        )
    frame = cols.frame
    key = key_array(frame, cols, order=None, score_dtype="float64", caller=caller)
    q, queries = pd.factorize(frame[cols.query])
    s, systems = pd.factorize(frame[cols.system].astype("str"))
    d, docs = pd.factorize(frame[cols.doc])
    if (q < 0).any() or (d < 0).any() or (s < 0).any():
        raise InputError(f"{caller}: the run has rows with a missing query id, doc id or system; drop them first.")
    if len(systems) < 2:
        raise InputError(f"{caller}: the run holds one system ({systems[0]!r}); fusion needs two or more.")
    doc_order = np.empty(len(docs), dtype=np.int64)
    doc_order[np.argsort(np.asarray(docs.astype("str"), dtype=object), kind="stable")] = np.arange(len(docs))
    g = q.astype(np.int64) * len(systems) + s
    labels = lambda i: (queries[q[i]], systems[s[i]], docs[d[i]])  # noqa: E731 - for the message only
    _duplicate_check(g, d, len(docs), labels, caller)
    order = np.lexsort((-doc_order[d], -key, g))
    g, key = g[order], key[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    rank = np.arange(len(g)) - np.repeat(starts, np.diff(np.append(starts, len(g)))) + 1
    keep = slice(None) if depth is None else rank <= check_cutoff(depth, caller, allow_none=False, name="depth")
    q, s, d, rank = q[order][keep], s[order][keep], d[order][keep], rank[keep]
    value = None if cols.score is None else frame[cols.score].to_numpy(dtype=np.float64)[order][keep]
    g = g[keep]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    names = {
        "system": cols.system,
        "query": cols.query,
        "doc": cols.doc,
        "score": cols.score or "score",
        "rank": cols.rank or "rank",
    }
    return Lists(names, tuple(str(x) for x in systems), queries, docs, doc_order, q, s, d, value, rank, starts)


def _normalised(lists: Lists, norm: str, caller: str) -> np.ndarray:
    """Each row's normalised score within its (query, system) list."""
    if norm == "rank":
        return 1.0 - (lists.rank - 1) / np.repeat(lists.sizes, lists.sizes)
    if lists.value is None:
        raise ColumnError(
            f"{caller}: norm={norm!r} needs scores and the run has a rank column only; use norm='rank', or "
            "method='rrf' or 'borda' (they use ranks)."
        )
    v, starts, sizes = lists.value, lists.starts, lists.sizes
    spread = lambda x: np.repeat(x, sizes)  # noqa: E731
    if norm == "none":
        return v.copy()
    if norm == "max":
        top = spread(np.maximum.reduceat(np.abs(v), starts))
        return np.divide(v, top, out=np.zeros_like(v), where=top > 0)
    low = spread(np.minimum.reduceat(v, starts))
    if norm == "min-max":
        width = spread(np.maximum.reduceat(v, starts)) - low
        return np.divide(v - low, width, out=np.zeros_like(v), where=width > 0)
    if norm == "sum":
        total = spread(np.add.reduceat(v - low, starts))
        return np.divide(v - low, total, out=np.zeros_like(v), where=total > 0)
    centred = v - spread(np.add.reduceat(v, starts) / sizes)
    sd = spread(np.sqrt(np.add.reduceat(centred**2, starts) / sizes))
    return np.divide(centred, sd, out=np.zeros_like(v), where=sd > 0)


def contributions(lists: Lists, method: str, norm: str, k: float, caller: str = "fuse"):
    """(pair query codes, pair doc codes, C): C[p, s] is system s's value for (query, doc) pair p.

    Missing entries are NaN, except for Borda, where a system that missed a
    document gives it the mean of the points left (see the module docstring).
    """
    n_docs = len(lists.docs)
    pair_key = lists.q.astype(np.int64) * n_docs + lists.d
    unique, pair = np.unique(pair_key, return_inverse=True)
    pair_q, pair_d = unique // n_docs, unique % n_docs
    if method == "rrf":
        value = 1.0 / (k + lists.rank)
    elif method == "borda":
        candidates = np.bincount(pair_q, minlength=len(lists.queries)).astype(np.float64)
        value = candidates[lists.q] - lists.rank + 1
    else:
        value = _normalised(lists, norm, caller)
    table = np.full((len(unique), len(lists.systems)), np.nan)
    table[pair, lists.s] = value
    if method == "borda":
        lengths = np.zeros((len(lists.queries), len(lists.systems)))
        lengths[lists.q[lists.starts], lists.s[lists.starts]] = lists.sizes
        left = (candidates[:, None] - lengths + 1) / 2  # per query and system
        missing = np.isnan(table)
        table[missing] = np.broadcast_to(left[pair_q], table.shape)[missing]
    return pair_q, pair_d, table


def combine(table: np.ndarray, method: str, weights: np.ndarray) -> np.ndarray:
    """Fused values of every pair (rows of ``table``), one column per weight vector if ``weights`` is 2-D."""
    if method == "combmax":
        return np.nanmax(table, axis=1)
    if method == "combmin":
        return np.nanmin(table, axis=1)
    present = ~np.isnan(table)
    fused = np.where(present, table, 0.0) @ weights
    if method in ("combmnz", "combanz"):
        count = present.sum(axis=1).astype(np.float64)
        count = count[:, None] if fused.ndim == 2 else count
        fused = fused * count if method == "combmnz" else fused / count
    return fused


def check_weights(weights, method: str, systems: tuple[str, ...], caller: str) -> np.ndarray:
    """Weights as an array in system order (equal weights when None)."""
    if weights is None:
        return np.full(len(systems), 1.0 / len(systems) if method == "wsum" else 1.0)
    if method not in WEIGHTED:
        raise InputError(f"{caller}: method={method!r} takes no weights; weighted methods are {', '.join(WEIGHTED)}.")
    if isinstance(weights, dict):
        unknown = [w for w in weights if str(w) not in systems]
        missing = [s for s in systems if s not in {str(w) for w in weights}]
        if unknown or missing:
            problem = f"unknown system {unknown[0]!r}" if unknown else f"no weight for system {missing[0]!r}"
            raise InputError(
                f"{caller}: weights has {problem}; give one weight per system of the run: {list(systems)}."
            )
        weights = [weights[next(w for w in weights if str(w) == s)] for s in systems]
    values = list(weights)
    if len(values) != len(systems) or not all(isinstance(w, numbers.Real) and not isinstance(w, bool) for w in values):
        raise InputError(
            f"{caller}: weights must be {len(systems)} numbers, one per system in the order {list(systems)}, or a dict "
            f"{{system: weight}}. Got {weights!r} instead."
        )
    array = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(array)) or (array < 0).any() or not array.sum() > 0:
        raise InputError(f"{caller}: weights must be finite, >= 0 and not all 0. Got {values!r} instead.")
    return array


def to_run(lists: Lists, pair_q, pair_d, fused, name: str) -> pd.DataFrame:
    """The fused run: one row per (query, doc), by query then rank (fused value, ties by doc id descending)."""
    order = np.lexsort((-lists.doc_order[pair_d], -fused, pair_q))
    pair_q, pair_d, fused = pair_q[order], pair_d[order], fused[order]
    starts = np.flatnonzero(np.r_[True, pair_q[1:] != pair_q[:-1]])
    rank = np.arange(len(pair_q)) - np.repeat(starts, np.diff(np.append(starts, len(pair_q)))) + 1
    c = lists.columns
    return pd.DataFrame(
        {
            c["system"]: pd.array([name] * len(pair_q), dtype="str"),
            c["query"]: lists.queries.take(pair_q).to_numpy(),
            c["doc"]: lists.docs.take(pair_d).to_numpy(),
            c["score"]: fused,
            c["rank"]: rank,
        }
    )


def fuse(
    run,
    method: str = "rrf",
    *,
    norm: str | None = None,
    weights=None,
    rrf_k: float = 60,
    name: str | None = None,
    depth: int | None = None,
    columns=None,
) -> pd.DataFrame:
    """Fuse the ranked lists of several systems into one run.

    Parameters
    ----------
    run : DataFrame
        A long run with a system column (query id, doc id, score and/or rank).
    method : {'rrf', 'borda', 'combsum', 'wsum', 'combmnz', 'combanz', 'combmax', 'combmin'}, default 'rrf'
        See :mod:`rankviz.fusion` for each definition and how a document missing
        from a system's list counts.
    norm : {'none', 'min-max', 'z-score', 'sum', 'max', 'rank'}, optional
        Score normalisation per system and query before combining (default
        'min-max' for the score methods). RRF and Borda use ranks and take none.
    weights : dict or sequence, optional
        One non-negative weight per system (``{'bm25': 0.3, 'dense': 0.7}``), for
        rrf, borda, combsum, wsum, combmnz and combanz. ``wsum`` defaults to equal weights.
    rrf_k : float, default 60
        RRF's constant: a document at rank r adds w / (rrf_k + r). (``k`` always means a rank cutoff in
        rankviz, so the constant has its own name.)
    name : str, optional
        The fused system's name (default ``'<method>(<a>+<b>...)'``).
    depth : int, optional
        Cut every input list to its first ``depth`` documents first.
    columns : dict, optional
        Column names by role, as in every rankviz function (``{'query': 'qid'}``).

    Returns
    -------
    DataFrame
        A run with the input's column names: system (the fused name), query id,
        doc id, score (the fused value) and rank, one row per document retrieved by
        any system, ordered by query (first appearance) and rank.

    Notes
    -----
    A document that one system did not retrieve adds 0 to RRF, CombSUM and the
    weighted sum; it is not counted by CombMNZ (sum x systems that retrieved it) and
    CombANZ (sum / those systems), and is left out of CombMAX and CombMIN; in Borda
    it gets that system's leftover points, (c - n + 1) / 2 for c candidates and a
    list of n. Lists are ordered as trec_eval orders them (score, then doc id
    descending), and so is the fused list.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"system": ["a", "a", "b", "b"], "query_id": "q1",
    ...                     "doc_id": ["d1", "d2", "d2", "d3"], "score": [2.0, 1.0, 5.0, 4.0]})
    >>> fused = rankviz.fuse(run, "rrf", rrf_k=60)
    >>> fused[["system", "doc_id", "rank"]]
           system doc_id  rank
    0  rrf(a+b)     d2     1
    1  rrf(a+b)     d1     2
    2  rrf(a+b)     d3     3
    >>> bool(abs(fused["score"].iloc[0] - (1 / 62 + 1 / 61)) < 1e-12)
    True
    """
    caller = "fuse"
    method, norm = check_method(method, norm, caller)
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, numbers.Real) or not rrf_k >= 0:
        raise InputError(
            f"The 'rrf_k' parameter of fuse must be a number >= 0 (RRF's constant, 60 by default). Got {rrf_k!r} instead."
        )
    lists = read_lists(run, columns=columns, depth=depth, caller=caller)
    w = check_weights(weights, method, lists.systems, caller)
    pair_q, pair_d, table = contributions(lists, method, norm, float(rrf_k), caller)
    fused = combine(table, method, w)
    return to_run(lists, pair_q, pair_d, fused, name if name is not None else f"{method}({'+'.join(lists.systems)})")
