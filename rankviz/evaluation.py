"""Per-query and aggregate evaluation tables.

These functions are the library's entry points; the ``df.rank`` accessor only
delegates to them. They accept any of the three input shapes (see
:mod:`rankviz._frame`) and never modify their inputs.

Common parameters
-----------------
qrels : DataFrame, path or dict, optional
    Judgements: a long frame (query id, doc id, relevance), a TREC qrels file or
    ``{query_id: {doc_id: grade}}``. Without qrels the run's own relevance column
    (or the per-query lists/vectors) are the judgements.
rel : int, default 1
    Minimum grade that counts as relevant (trec_eval ``-l``). nDCG ignores it.
depth : int, optional
    Cut every ranked list to its first ``depth`` items first (trec_eval ``-M``).
missing : {'zero', 'drop', 'error'}, default 'zero'
    A query in the qrels that a system did not retrieve scores 0 and counts in the
    mean (``'zero'``, trec_eval ``-c``), is left out (``'drop'``), or is an error.
duplicates : {'error', 'first'}, default 'error'
    A (query, doc) pair retrieved twice is an error, or only its best-ranked row is
    kept.
ties : {'trec_eval', 'expected', 'optimistic', 'pessimistic'}, default 'trec_eval'
    How items with equal scores are ordered; see :mod:`rankviz.kernels`.
query, doc, score, rank, relevance, system, retrieved, relevant, n_relevant : str, optional
    Column names, when the defaults and aliases do not find them.
order : {'score', 'rank'}, optional
    Rank by score (the default when there is one, as trec_eval does) or by the rank column.
score_dtype : {'float64', 'float32'}, default 'float64'
    ``'float32'`` rounds scores to 32-bit floats first, which reproduces trec_eval 9
    and pytrec_eval (they compare scores as floats).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import kernels
from ._errors import ClosedWorldWarning, InputError, TiesWarning, warn
from ._frame import COLUMN_KEYWORDS, run_arrays
from ._judged import Judged, judge
from ._validation import check_choice, check_cutoff, check_int, check_kwargs
from .measures import Measure, parse_measures

__all__ = [
    "evaluate",
    "mrr",
    "ndcg",
    "mean_average_precision",
    "recall",
    "precision",
    "hit_rate",
    "r_precision",
    "first_relevant_rank",
    "summary",
    "ranked_list",
    "bootstrap",
    "compare",
    "judge_run",
]

_STATS_OPTIONS = ("n_resamples", "confidence_level", "method", "rng", "batch")

_OPTIONS = ("depth", "missing", "duplicates", "ties") + COLUMN_KEYWORDS


def judge_run(run, qrels=None, *, rel_min: int = 1, caller: str = "evaluate", with_arrays: bool = False, **options):
    """Validate the options and build the canonical arrays (shared by every entry point).

    Returns the :class:`Judged` value, or ``(Judged, RunArrays)`` with ``with_arrays=True``.
    """
    check_kwargs(options, _OPTIONS, caller)
    options = dict(options)
    check_choice(options.pop("ties", "trec_eval"), "ties", caller, kernels.TIES)
    return judge(run, qrels, rel_min=rel_min, caller=caller, with_arrays=with_arrays, **options)


def _index_frame(j: Judged) -> pd.DataFrame:
    """The system/query columns of a per-cell table."""
    columns = {}
    if j.systems is not None:
        columns["system"] = pd.array(np.repeat(np.asarray(j.systems, dtype=object), j.n_queries), dtype="str")
    columns["query_id"] = pd.array(np.tile(j.queries, j.n_systems), dtype="str")
    return pd.DataFrame(columns)


def _apply_missing(j: Judged, missing: str, caller: str) -> np.ndarray:
    """Mask of the cells that stay in the table under the missing-query policy."""
    if missing == "zero":
        return np.ones(j.n_cells, dtype=bool)
    absent = ~j.present
    if missing == "error" and absent.any():
        cell = int(np.flatnonzero(absent)[0])
        query = j.queries[cell % j.n_queries]
        who = "the run" if j.systems is None else f"system {j.systems[cell // j.n_queries]!r}"
        raise InputError(
            f"{caller}: {int(absent.sum())} judged (system, query) pair(s) have no retrieved items, e.g. query "
            f"{query!r} in {who}. Pass missing='zero' to score them 0 (trec_eval -c) or missing='drop' to leave them out."
        )
    return j.present.copy()


def _closed_world_warning(j: Judged, measures: list[Measure], caller: str) -> None:
    names = [m.name for m in measures if m.uses_judgement_denominator]
    if j.closed_world and names:
        warn(
            f"{caller}: {', '.join(names)} computed without qrels: their denominators (the number of relevant "
            "items, the ideal DCG) come from the rows given (closed world), so unretrieved relevant items are "
            "invisible. Pass qrels= for trec_eval semantics.",
            ClosedWorldWarning,
        )


def _metadata(j: Judged, measures, options) -> dict:
    systems = j.systems if j.systems is not None else (None,)
    missing = {}
    for s, name in enumerate(systems):
        cells = slice(s * j.n_queries, (s + 1) * j.n_queries)
        missing[name] = tuple(j.queries[~j.present[cells]].tolist())
    return {
        "measures": [m.name for m in measures],
        "closed_world": j.closed_world,
        "n_queries": j.n_queries,
        "missing_from_run": missing,
        "unjudged_in_run": dict(j.unjudged),
        "depth": j.depth,
        "ties": options.get("ties", "trec_eval"),
        "missing": options.get("missing", "zero"),
    }


def evaluate(run, measures, qrels=None, *, per_query: bool = False, **options) -> pd.DataFrame:
    """Evaluate a run on several measures at once.

    Parameters
    ----------
    run : DataFrame or dict
        Any of the three input shapes (long run, per-query lists, relevance vectors).
    measures : str, Measure or list of them
        ir_measures-style names: ``"RR@10"``, ``"nDCG@10"``, ``"AP"``, ``"R@100"``,
        ``"P@5"``, ``"Success@10"``, ``"Rprec"``, ``"RR(rel=2)@10"``,
        ``"nDCG(gain='exp')@10"``.
    qrels : DataFrame, path or dict, optional
    per_query : bool, default False
        One row per system x query instead of one per system.
    **options
        ``depth``, ``missing``, ``duplicates``, ``ties`` and column names; see the module docstring.

    Returns
    -------
    DataFrame
        Columns ``system`` (when the run has several systems), ``query_id`` (when
        ``per_query``) and one float column per measure, named by its canonical name.
        ``DataFrame.attrs["rankviz"]`` records the queries missing from the run,
        the run's queries without judgements, and whether the judgements were
        closed-world.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"],
    ...                     "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> rankviz.evaluate(run, ["RR@10", "P@1"], qrels)
       RR@10  P@1
    0   0.75  0.5
    """
    measures = parse_measures(measures)
    for m in measures:
        m.check_complete()
    missing = options.get("missing", "zero")
    j = judge_run(run, qrels, rel_min=min(m.rel for m in measures), **options)
    ties = options.get("ties", "trec_eval")
    keep = _apply_missing(j, missing, "evaluate")
    _closed_world_warning(j, measures, "evaluate")
    values = {m.name: kernels.compute(j, m, ties) for m in measures}
    table = _index_frame(j)
    for name, column in values.items():
        table[name] = column
    table = table[keep].reset_index(drop=True)
    meta = _metadata(j, measures, options)
    if per_query:
        table.attrs["rankviz"] = meta
        return table
    names = [m.name for m in measures]
    if j.systems is None:
        result = pd.DataFrame([table[names].mean().to_numpy()], columns=names)
    else:
        result = table.groupby("system", sort=False)[names].mean().reindex(list(j.systems)).reset_index()
    result.attrs["rankviz"] = meta
    return result


def _single(run, measure: Measure, qrels, caller: str, options: dict):
    """One measure's mean: a float, or a Series indexed by system."""
    measure.check_complete()
    j = judge_run(run, qrels, rel_min=measure.rel, caller=caller, **options)
    keep = _apply_missing(j, options.get("missing", "zero"), caller)
    _closed_world_warning(j, [measure], caller)
    values = kernels.compute(j, measure, options.get("ties", "trec_eval"))
    if j.systems is None:
        return float(values[keep].mean()) if keep.any() else float("nan")
    per_system = values.reshape(j.n_systems, j.n_queries)
    mask = keep.reshape(j.n_systems, j.n_queries)
    with np.errstate(invalid="ignore"):
        means = (per_system * mask).sum(axis=1) / mask.sum(axis=1)
    return pd.Series(means, index=pd.Index(list(j.systems), name="system", dtype="str"), name=measure.name)


def _measure(family: str, k, rel, caller: str, *, needs_k: bool, **params) -> Measure:
    k = check_cutoff(k, caller, allow_none=not needs_k)
    rel = check_int(rel, "rel", caller)
    return Measure(family, cutoff=k, rel=rel, **params)


def mrr(run, k: int | None = None, qrels=None, *, rel: int = 1, **options):
    """Mean reciprocal rank at cutoff ``k`` (``RR@k``; ``k=None`` is trec_eval's ``recip_rank``).

    Returns a float, or a Series indexed by system (named e.g. ``"RR@10"``) when the
    run has a system column.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"query": ["a", "b", "c", "d"],
    ...                       "relevance": [[True], [False, False, True], [False, True], [False]]})
    >>> round(rankviz.mrr(table), 4)
    0.4583
    """
    return _single(run, _measure("RR", k, rel, "mrr", needs_k=False), qrels, "mrr", options)


def ndcg(run, k: int | None = None, qrels=None, *, gain: str = "linear", **options):
    """Mean nDCG at cutoff ``k`` (``nDCG@k``; ``k=None`` is trec_eval's ``ndcg``).

    ``gain='linear'`` (trec_eval) uses the grade as gain; ``'exponential'`` uses 2**grade - 1.
    The ideal DCG comes from all judged grades of the query in the qrels.
    """
    gain = check_choice(gain, "gain", "ndcg", ("linear", "exp", "exponential"))
    gain = "exp" if gain == "exponential" else gain
    k = check_cutoff(k, "ndcg")
    return _single(run, Measure("nDCG", cutoff=k, gain=gain), qrels, "ndcg", options)


def mean_average_precision(run, k: int | None = None, qrels=None, *, rel: int = 1, **options):
    """Mean average precision (``AP``; with ``k``, ``AP@k`` = trec_eval ``map_cut``). The denominator is R from the qrels."""
    return _single(run, _measure("AP", k, rel, "map", needs_k=False), qrels, "map", options)


def recall(run, k: int, qrels=None, *, rel: int = 1, **options):
    """Mean recall at ``k`` (``R@k``): relevant items in the top ``k`` over all relevant items in the qrels."""
    return _single(run, _measure("R", k, rel, "recall", needs_k=True), qrels, "recall", options)


def precision(run, k: int, qrels=None, *, rel: int = 1, **options):
    """Mean precision at ``k`` (``P@k``): relevant items in the top ``k`` divided by ``k``."""
    return _single(run, _measure("P", k, rel, "precision", needs_k=True), qrels, "precision", options)


def hit_rate(run, k: int, qrels=None, *, rel: int = 1, **options):
    """Share of queries with a relevant item in the top ``k`` (``Success@k``)."""
    return _single(run, _measure("Success", k, rel, "hit_rate", needs_k=True), qrels, "hit_rate", options)


def r_precision(run, qrels=None, *, rel: int = 1, **options):
    """Mean R-precision (``Rprec``): relevant items in the top R divided by R."""
    return _single(run, _measure("Rprec", None, rel, "r_precision", needs_k=False), qrels, "r_precision", options)


def first_relevant_rank(run, qrels=None, *, rel: int = 1, **options) -> pd.Series:
    """Rank of the first relevant item per query (trec_eval order), missing where none was retrieved.

    Returns
    -------
    Series
        Nullable ``Int64`` values indexed by ``query_id`` (by ``system`` and
        ``query_id`` when the run has several systems), named ``first_relevant_rank``.
        Queries in the qrels that the run did not retrieve are included (as missing)
        unless ``missing='drop'``.
    """
    rel = check_int(rel, "rel", "first_relevant_rank")
    j = judge_run(run, qrels, rel_min=rel, caller="first_relevant_rank", **options)
    keep = _apply_missing(j, options.get("missing", "zero"), "first_relevant_rank")
    ranks = kernels.first_relevant_rank(j, rel)
    index = _index_frame(j)[keep]
    values = pd.array(np.where(np.isnan(ranks), 0, ranks).astype(np.int64), dtype="Int64")
    values[np.isnan(ranks)] = pd.NA
    series = pd.Series(values[keep], name="first_relevant_rank")
    series.index = pd.MultiIndex.from_frame(index) if j.systems is not None else pd.Index(index["query_id"], name="query_id")
    return series


def summary(
    run,
    k: int = 10,
    qrels=None,
    *,
    rel: int = 1,
    confidence_level: float | None = 0.95,
    n_resamples: int = 10_000,
    rng=None,
    **options,
) -> pd.DataFrame:
    """The table a careful analyst reports for a run, one row per system.

    Columns: ``MRR@k``; the share of queries with ``RR@k = 0``; MRR over the
    queries with ``RR@k > 0`` (so that ``MRR = (1 - zero share) x MRR non-zero``);
    ``Success@k``; ``R@k``; ``nDCG@k``; the mean and median rank of the first
    relevant item (over the queries where one was retrieved, at any depth); and
    the numbers of queries evaluated, judged but missing from the run, and in the
    run without judgements. ``judgements`` says whether they came from qrels or
    from the rows themselves (closed world).

    With ``confidence_level`` (default 0.95) the zero problem gets its intervals:
    ``low``/``high`` columns for MRR (bootstrap, BCa), for the zero share (Wilson)
    and for the MRR over non-zero queries (bootstrap of the ratio, recomputed in
    every resample). ``confidence_level=None`` leaves them out.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> seed = pd.DataFrame({"query": ["reset password", "opening hours", "ship to Canada", "refund", "contact"],
    ...     "relevance": [[False, True, False, True], [True, True, False, False], [False, False, False, True],
    ...                   [False, False, False, False], [True, False, False, False]]})
    >>> s = rankviz.summary(seed, k=10, confidence_level=None)
    >>> s[["MRR@10", "share RR@10 = 0", "MRR@10 over RR > 0"]].round(4)
            MRR@10  share RR@10 = 0  MRR@10 over RR > 0
    system
    run       0.55              0.2              0.6875
    """
    k = check_cutoff(k, "summary", allow_none=False)
    rel = check_int(rel, "rel", "summary")
    measures = [Measure("RR", k, rel), Measure("Success", k, rel), Measure("R", k, rel), Measure("nDCG", k)]
    j = judge_run(run, qrels, rel_min=rel, caller="summary", **options)
    missing = options.get("missing", "zero")
    keep = _apply_missing(j, missing, "summary")
    ties = options.get("ties", "trec_eval")
    values = {m.name: kernels.compute(j, m, ties) for m in measures}
    first = kernels.first_relevant_rank(j, rel)
    rr_name = f"RR@{k}" if rel == 1 else f"RR(rel={rel})@{k}"
    intervals = {}
    if confidence_level is not None:
        from . import stats

        table = _index_frame(j)
        table[rr_name] = values[measures[0].name]
        results = stats.bootstrap(
            table[keep].reset_index(drop=True), rr_name, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng
        )
        intervals = results if isinstance(results, dict) else {None: results}
    rows = []
    names = j.systems if j.systems is not None else ("run",)
    mrr_label, zero_label, nonzero_label = f"MRR@{k}", f"share RR@{k} = 0", f"MRR@{k} over RR > 0"
    for s, name in enumerate(names):
        cells = np.arange(s * j.n_queries, (s + 1) * j.n_queries)
        cells = cells[keep[cells]]
        rr = values[measures[0].name][cells]
        nonzero = rr[rr > 0]
        found = first[cells][~np.isnan(first[cells])]
        system_key = None if j.systems is None else name
        row = {
            mrr_label: rr.mean() if len(rr) else np.nan,
            zero_label: float(np.mean(rr == 0)) if len(rr) else np.nan,
            nonzero_label: nonzero.mean() if len(nonzero) else np.nan,
        }
        if confidence_level is not None:
            res = intervals[system_key]
            row = {
                mrr_label: row[mrr_label],
                f"{mrr_label} low": res.confidence_interval.low,
                f"{mrr_label} high": res.confidence_interval.high,
                zero_label: row[zero_label],
                f"{zero_label} low": res.zero_share_interval.low,
                f"{zero_label} high": res.zero_share_interval.high,
                nonzero_label: row[nonzero_label],
                f"{nonzero_label} low": res.nonzero_interval.low,
                f"{nonzero_label} high": res.nonzero_interval.high,
            }
        row.update(
            {
                f"Success@{k}": values[measures[1].name][cells].mean() if len(cells) else np.nan,
                f"R@{k}": values[measures[2].name][cells].mean() if len(cells) else np.nan,
                f"nDCG@{k}": values[measures[3].name][cells].mean() if len(cells) else np.nan,
                "mean first relevant rank": found.mean() if len(found) else np.nan,
                "median first relevant rank": float(np.median(found)) if len(found) else np.nan,
                "queries evaluated": len(cells),
                "missing from run": int((~j.present[s * j.n_queries : (s + 1) * j.n_queries]).sum()),
                "unjudged in run": len(j.unjudged.get(system_key, ())),
                "judgements": "closed world (rows given)" if j.closed_world else "qrels",
            }
        )
        rows.append(row)
    table = pd.DataFrame(rows, index=pd.Index(list(names), name="system", dtype="str"))
    table.attrs["rankviz"] = _metadata(j, measures, options)
    if ties == "trec_eval":
        _warn_if_ties_matter(j, measures, keep, names)
    return table


def _warn_if_ties_matter(j: Judged, measures, keep, names) -> None:
    """Warn when the order of tied scores can move a reported mean beyond its 4th decimal."""
    from .ties import tie_spread

    spread = tie_spread(j, measures)
    worst = []
    for s, name in enumerate(names):
        cells = np.arange(s * j.n_queries, (s + 1) * j.n_queries)
        cells = cells[keep[cells]]
        for measure, values in spread.items():
            moved = float(values[cells].mean()) if len(cells) else 0.0
            if moved > 0.00005:
                worst.append((moved, name, measure, int((values[cells] > 0).sum())))
    if worst:
        moved, name, measure, queries = max(worst)
        others = f" (and {len(worst) - 1} more system/measure pairs)" if len(worst) > 1 else ""
        warn(
            f"summary: score ties can move {measure} of {name!r} by up to {moved:.4f} (pessimistic to optimistic "
            f"order of tied items, {queries} queries affected){others}. See df.rank.ties(...) or pass ties='expected'.",
            TiesWarning,
        )


def _split_options(options: dict, caller: str) -> tuple[dict, dict]:
    stats_options = {key: options.pop(key) for key in list(options) if key in _STATS_OPTIONS}
    check_kwargs(options, _OPTIONS, caller)
    return stats_options, options


def bootstrap(run, measures, qrels=None, **options):
    """Evaluate a run per query, then bootstrap confidence intervals of its mean measures.

    Takes the evaluation options of :func:`evaluate` and the options of
    :func:`rankviz.stats.bootstrap` (``n_resamples``, ``confidence_level``,
    ``method``, ``rng``, ``batch``); returns what the latter returns: one
    :class:`~rankviz.stats.BootstrapResult` (a dict of them by system) for one
    measure, a tidy table for several.

    Examples
    --------
    >>> import rankviz
    >>> from rankviz.datasets import load_example
    >>> run, qrels, _ = load_example()
    >>> res = rankviz.bootstrap(run[run.system == "bm25"].drop(columns="system"), "RR@10", qrels, rng=0)
    >>> round(res.estimate, 4)
    0.5557
    """
    from . import stats

    stats_options, eval_options = _split_options(dict(options), "bootstrap")
    table = evaluate(run, measures, qrels, per_query=True, **eval_options)
    names = [m.name for m in parse_measures(measures)]
    return stats.bootstrap(table, names if len(names) > 1 else names[0], **stats_options)


def compare(runs, *, baseline: str, measures, qrels=None, test: str = "randomization", correction="holm", **options) -> pd.DataFrame:
    """Evaluate several systems per query and compare each with a baseline (paired by query id).

    Parameters
    ----------
    runs : DataFrame or dict of DataFrames
        A run with a ``system`` column, or ``{system name: run frame}``.
    baseline : str
    measures : str or list
    qrels : DataFrame, path or dict, optional
    test, correction
        See :func:`rankviz.stats.compare`.
    **options
        Evaluation options (``depth``, ``missing``, ``ties``, column names) and
        statistics options (``n_resamples``, ``confidence_level``, ``method``, ``rng``, ``batch``).

    Returns
    -------
    DataFrame
        See :func:`rankviz.stats.compare`.
    """
    from . import stats

    stats_options, eval_options = _split_options(dict(options), "compare")
    if isinstance(runs, dict):
        if not runs:
            raise InputError("compare: the dict of runs is empty.")
        tables = []
        for name, frame in runs.items():
            part = evaluate(frame, measures, qrels, per_query=True, **eval_options)
            if "system" in part.columns:
                raise InputError(f"compare: run {name!r} has its own system column; pass one system per dict entry.")
            part.insert(0, "system", pd.array([str(name)] * len(part), dtype="str"))
            tables.append(part)
        table = pd.concat(tables, ignore_index=True)
    else:
        table = evaluate(runs, measures, qrels, per_query=True, **eval_options)
    names = [m.name for m in parse_measures(measures)]
    return stats.compare(table, baseline=baseline, measures=names, test=test, correction=correction, **stats_options)


def ranked_list(run, query, qrels=None, *, system=None, rel: int = 1, documents=None, **columns) -> pd.DataFrame:
    """One query's ranked list in trec_eval order, joined with its judgements.

    Parameters
    ----------
    run : DataFrame or dict
        Any input shape.
    query : str
        The query id.
    qrels : DataFrame, path or dict, optional
    system : str, optional
        Which system, when the run has several (required then).
    rel : int, default 1
        Grade from which an item counts as relevant (the ``relevant`` column).
    documents : DataFrame, optional
        ``doc_id`` and ``text`` (and optionally ``title``) columns; adds them to the list.
    **columns
        Column-name overrides, ``order`` and ``score_dtype``, as for :func:`evaluate`.

    Returns
    -------
    DataFrame
        ``rank`` (1-based), ``doc_id``, ``score`` (when ranked by score), ``relevance``
        (nullable Int64, missing = unjudged), ``relevant`` (bool), plus document columns.
    """
    check_kwargs(columns, COLUMN_KEYWORDS, "ranked_list")
    rel = check_int(rel, "rel", "ranked_list")
    arrays, judged = run_arrays(run, qrels, caller="ranked_list", **columns)
    query = str(query)
    codes = np.flatnonzero(arrays.q_values == query)
    mask = arrays.q_codes == codes[0] if len(codes) else np.zeros(len(arrays.q_codes), dtype=bool)
    if arrays.systems is not None:
        if system is None:
            raise InputError(
                f"ranked_list: the run holds {len(arrays.systems)} systems; choose one with system=, "
                f"e.g. system={arrays.systems[0]!r}."
            )
        if str(system) not in arrays.systems:
            raise InputError(f"ranked_list: unknown system {system!r}; the run has {', '.join(map(repr, arrays.systems))}.")
        mask &= arrays.sys_codes == arrays.systems.index(str(system))
    rows = np.flatnonzero(mask)
    docs = np.asarray(arrays.docs.take(rows).to_pylist(), dtype=object) if len(rows) else np.zeros(0, dtype=object)
    key = arrays.key[rows]
    order = sorted(range(len(rows)), key=lambda i: (-key[i], _Descending(docs[i])))
    docs, key = docs[order], key[order]
    if judged is not None:
        own = judged.query_ids == query
        grades = dict(zip(judged.doc_ids[own].tolist(), judged.grades[own].tolist()))
        relevance = [grades.get(d) for d in docs]
    else:
        relevance = [None if np.isnan(g) else int(g) for g in arrays.grade[rows][order]]
    table = pd.DataFrame({"rank": np.arange(1, len(docs) + 1), "doc_id": pd.array(docs.tolist(), dtype="str")})
    if arrays.ordered_by == "score":
        table["score"] = key
    table["relevance"] = pd.array(relevance, dtype="Int64")
    table["relevant"] = (table["relevance"].fillna(-(10**9)) >= rel).to_numpy(dtype=bool)
    if documents is not None:
        docs_frame = documents.drop_duplicates("doc_id").assign(doc_id=lambda d: d["doc_id"].astype("str"))
        table = table.merge(docs_frame, on="doc_id", how="left")
    return table


class _Descending:
    """Sort key that orders strings descending (trec_eval's doc-id tie-break)."""

    __slots__ = ("value",)

    def __init__(self, value: str):
        self.value = value

    def __lt__(self, other: _Descending) -> bool:
        return self.value > other.value

    def __eq__(self, other) -> bool:
        return self.value == other.value
