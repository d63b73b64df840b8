"""The analyst's summary table of a run: MRR with the zero problem, hit rate, recall, nDCG, first-hit ranks.

:func:`summary` is one of the public evaluation functions (``rankviz.summary``,
``df.rank.summary``); it lives here so that :mod:`rankviz.evaluation` stays readable.
"""

from __future__ import annotations

from typing import Unpack

import numpy as np
import pandas as pd

from .._core.checks import check_cutoff
from .._core.options import EVAL, EvalOptions, with_options
from .._errors import TiesWarning, warn
from ..measures import Measure
from ..measures import dispatch as kernels
from ..stats.intervals import bootstrap_of
from ..stats.options import EvalSummaryKeywords, StatsGroup, StatsOptions
from . import slices
from .pipeline import evaluated_cells, index_frame, metadata, read_judgements, system_cells, system_names, with_rel
from .provenance import model_share, warn_model_labels
from .tie_effects import tie_spread

__all__ = ["summary"]


def _summary_intervals(j, keep, rr: Measure, values, cfg: StatsOptions, segments=None) -> dict:
    """{system: BootstrapResult of RR@k} (with its zero-share and non-zero intervals), or {} without a level.

    With ``segments`` (the cells' segment columns): the per-query table with them, then one bootstrap,
    which groups by them: {segment key: {system: result}}.
    """
    if cfg.confidence_level is None:
        return {}
    table = index_frame(j)
    table[rr.name] = values
    if segments is not None:
        table = pd.concat([table, segments], axis=1)
    table = table[keep].reset_index(drop=True)
    if segments is not None:
        table.attrs["rankviz"] = {"by": list(segments.columns)}  # the segment columns bootstrap_of groups by
    results = bootstrap_of(table, [rr.name], cfg, "summary")
    if segments is None:
        return {r.system: r for r in results}
    found: dict[tuple, dict] = {}
    for r in results:
        found.setdefault(tuple(v for _, v in r.segment), {})[r.system] = r
    return found


def _interval_columns(name: str, estimate: float, interval) -> dict:
    return {name: estimate, f"{name}_ci_low": interval.low, f"{name}_ci_high": interval.high}


def _summary_row(j, cells, values: dict, first: np.ndarray, measures, result) -> dict:
    rr_measure = measures[0]
    rr = values[rr_measure.name][cells]
    nonzero = rr[rr > 0]
    row = {
        rr_measure.name: rr.mean() if len(rr) else np.nan,
        "zero_share": float(np.mean(rr == 0)) if len(rr) else np.nan,
        "nonzero_mean": nonzero.mean() if len(nonzero) else np.nan,
    }
    if result is not None:
        row = {
            **_interval_columns(rr_measure.name, row[rr_measure.name], result.confidence_interval),
            **_interval_columns("zero_share", row["zero_share"], result.zero_share_interval),
            **_interval_columns("nonzero_mean", row["nonzero_mean"], result.nonzero_interval),
        }
    judged = measures[-1]  # next to the zero share: was the top k even judged?
    row = {
        **{k: v for k, v in row.items() if not k.startswith("nonzero_mean")},
        judged.name: np.nan,
        **{k: v for k, v in row.items() if k.startswith("nonzero_mean")},
    }
    for m in measures[1:]:
        row[m.name] = values[m.name][cells].mean() if len(cells) else np.nan
    found = first[cells][~np.isnan(first[cells])]
    row["mean_first_relevant_rank"] = found.mean() if len(found) else np.nan
    row["median_first_relevant_rank"] = float(np.median(found)) if len(found) else np.nan
    return row


@with_options(EVAL, StatsGroup(optional_level=True, exclude=("method", "batch")))
def summary(
    options: EvalOptions,
    stats_options: StatsOptions,
    run,
    qrels=None,
    *,
    k: int = 10,
    by=None,
    queries=None,
    **_: Unpack[EvalSummaryKeywords],
) -> pd.DataFrame:
    """The table a careful analyst reports for a run, one row per system.

    Columns (with ``rel=2`` the measure names carry it: ``RR(rel=2)@10``):

    - ``RR@k`` (its mean is the MRR), ``zero_share`` (the share of queries with
      ``RR@k = 0``), ``Judged@k`` (the mean share of the top ``k`` that has a
      judgement: a zero over unjudged items may be an unjudged good answer) and
      ``nonzero_mean`` (MRR over the queries with ``RR@k > 0``), so that
      ``MRR = (1 - zero_share) x nonzero_mean``;
    - ``Success@k``, ``R@k``, ``nDCG@k``;
    - ``mean_first_relevant_rank``, ``median_first_relevant_rank`` (over the
      queries where one was retrieved, at any depth);
    - ``n_queries`` (evaluated), ``n_missing_from_run`` (judged but not retrieved),
      ``n_unjudged_in_run`` (retrieved without judgements), ``n_unannotated``
      (input without qrels: queries with no gold at all, left out unless
      ``unannotated='zero'``);
    - ``model_share@k``, only for qrels with a ``kind`` column (a label store a model
      judged into): the share of the judged documents in the system's top ``k`` that
      a model graded (over all its queries, also in the rows of a ``by`` segment). A :class:`~rankviz.ModelLabelsWarning` says when that is most
      of them for some system and no label is a person's.

    With ``by`` (and ``queries``, as in :func:`rankviz.evaluate`; see
    :mod:`rankviz.evaluation.slices`) one row per system and segment, indexed by ``system`` and
    the segment columns: each row is the summary of that segment's queries (its intervals those of
    the unsliced summary on them); ``n_unjudged_in_run`` and ``n_unannotated`` stay the call's
    (those queries are not evaluated, so they have no segment).

    Every column is numeric, so ``summary(...).T.round(4)`` rounds; the transpose makes the
    ``n_`` counts floats (``600.0``), ``summary(...).round(4).astype(object).T`` keeps them whole. Whether the
    judgements came from qrels or from the rows given (closed world) is recorded in
    ``table.attrs["rankviz"]["closed_world"]``.

    With ``confidence_level`` (default 0.95) the zero problem gets its intervals:
    ``<name>_ci_low``/``<name>_ci_high`` columns for ``RR@k`` (bootstrap, BCa), for
    ``zero_share`` (Wilson) and for ``nonzero_mean`` (bootstrap of the ratio,
    recomputed in every resample). ``confidence_level=None`` leaves them out.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> seed = pd.DataFrame({"query": ["reset password", "opening hours", "ship to Canada", "refund", "contact"],
    ...     "relevance": [[False, True, False, True], [True, True, False, False], [False, False, False, True],
    ...                   [False, False, False, False], [True, False, False, False]]})
    >>> s = rankviz.summary(seed, k=10, confidence_level=None)
    >>> s[["RR@10", "zero_share", "nonzero_mean"]].round(4)
            RR@10  zero_share  nonzero_mean
    system
    run      0.55         0.2        0.6875
    """
    k = check_cutoff(k, "summary", allow_none=False)
    measures = with_rel(
        [Measure("RR", cutoff=k), Measure("Success", cutoff=k), Measure("R", cutoff=k), Measure("nDCG", cutoff=k)],
        options.rel,
    ) + [Measure("Judged", cutoff=k)]
    # attrs["rankviz"]["closed_world"] says whether the judgements were closed-world; no warning on top of it.
    extra = [] if by is None else slices.extra_measures(by, measures, options, run, queries)
    qrels = read_judgements(qrels)  # once: a label store's file is read here, and its kinds kept
    j, keep, values = evaluated_cells(run, measures + extra, qrels, options, "summary", closed_world_warning=False)
    first = kernels.first_relevant_rank(j, measures[0].rel)
    rr = measures[0]
    if by is None:
        intervals = _summary_intervals(j, keep, rr, values[rr.name], stats_options)
        table = _summary_table(j, keep, values, first, measures, intervals)
    else:
        segments = slices.cell_segments(
            by, j, keep, values, run=run, queries=queries, measures=measures, options=options
        )
        per_segment = _summary_intervals(j, keep, rr, values[rr.name], stats_options, segments)
        parts = []
        for key, cells in segments.groupby(list(segments.columns), sort=True, observed=True).indices.items():
            mask = np.zeros(j.n_cells, dtype=bool)
            mask[cells] = True
            key = key if isinstance(key, tuple) else (key,)
            part = _summary_table(j, keep & mask, values, first, measures, per_segment.get(key, {}), within=mask)
            parts.append(part.assign(**dict(zip(segments.columns, key))).set_index(list(segments.columns), append=True))
        table = pd.concat(parts).sort_index(level=0, sort_remaining=False, key=_system_order(j))
    table.attrs["rankviz"] = metadata(j, measures, options)
    share = model_share(run, qrels, k=k, options=options, caller="summary")
    if share is not None:  # qrels with a kind column (a label store a model judged into)
        table[share.name] = table.index.get_level_values("system").map(share.to_dict()).to_numpy(dtype=float)
        warn_model_labels(share, qrels, "summary")
    if options.ties == "trec_eval":
        _warn_if_ties_matter(j, measures[:-1], keep)
    return table


def _system_order(j):
    position = {name: i for i, name in enumerate(system_names(j))}
    return lambda level: level.map(position) if level.name == "system" else level


def _summary_table(j, keep, values, first, measures, intervals: dict, within=None) -> pd.DataFrame:
    """One summary row per system over the ``keep`` cells (``within``: the cells of one segment).

    ``intervals``: {system: BootstrapResult of RR@k}, empty without a confidence level.
    """
    rows, names = [], []
    for s, (name, cells) in enumerate(system_cells(j, keep)):
        own = slice(s * j.n_queries, (s + 1) * j.n_queries)
        if within is not None and not within[own].any():
            continue
        row = _summary_row(j, cells, values, first, measures, intervals.get(name))
        row["n_queries"] = len(cells)
        absent = ~j.present[own] if within is None else ~j.present[own] & within[own]
        row["n_missing_from_run"] = int(absent.sum())
        row["n_unjudged_in_run"] = len(j.unjudged.get(None if j.systems is None else name, ()))
        row["n_unannotated"] = len(j.unannotated)
        rows.append(row)
        names.append(name)
    return pd.DataFrame(rows, index=pd.Index(names, name="system", dtype="str"))


def _warn_if_ties_matter(j, measures, keep) -> None:
    """Warn when the order of tied scores can move a reported mean beyond its 4th decimal."""
    spread = tie_spread(j, measures)
    worst = []
    for name, cells in system_cells(j, keep):
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
