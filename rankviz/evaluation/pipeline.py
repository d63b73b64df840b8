"""The evaluation pipeline below the public functions: read judgements, judge, select cells.

Every evaluation entry point (``evaluate``, the single-measure functions,
``summary``, the tie report) runs the same steps, which live here once:

1. :func:`read_judgements` turns qrels given as a path or a dict into a frame
   (so the canonical layer never reads files);
2. :func:`judge_run` builds the canonical :class:`~rankviz._core.judged.Judged` arrays
   under the call's :class:`~rankviz._core.options.EvalOptions`;
3. :func:`kept_cells` applies the missing-query policy, :func:`system_cells`
   walks the cells system by system, :func:`index_frame` labels them.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Iterator, Mapping
from os import PathLike

import numpy as np
import pandas as pd

from .._core.columns import SINGLE_SYSTEM
from .._core.frames import as_pandas, is_foreign_frame
from .._core.judged import Judged, judge
from .._core.options import EvalOptions
from .._errors import ClosedWorldWarning, InputError, warn
from ..io import qrels_from_dict, read_qrels, run_from_dict
from ..measures import Measure, aggregate, labelled_measures
from ..measures import dispatch as kernels

__all__ = [
    "aggregate_per_system",
    "SINGLE_SYSTEM",
    "read_judgements",
    "read_run_input",
    "judge_run",
    "kept_cells",
    "system_cells",
    "system_names",
    "index_frame",
    "metadata",
    "warn_closed_world",
    "with_rel",
    "labelled",
    "unique",
    "relabel",
    "evaluated_cells",
    "runs_from_frames",
]


def read_judgements(qrels):
    """Qrels as a DataFrame (or None): read a TREC qrels path, convert a ``{query: {doc: grade}}`` dict."""
    qrels = as_pandas(qrels, "qrels")
    if qrels is None or isinstance(qrels, pd.DataFrame):
        return qrels
    if isinstance(qrels, (str, PathLike)):
        return read_qrels(qrels)
    if isinstance(qrels, Mapping):
        return qrels_from_dict(qrels)
    cutoff = ""
    if isinstance(qrels, numbers.Integral) and not isinstance(qrels, bool):
        cutoff = f" A cutoff goes by name, after the data: mrr(run, qrels, k={int(qrels)})."
    raise InputError(
        "qrels must be a DataFrame (query_id, doc_id, relevance), a path to a TREC qrels file or a "
        f"{{query_id: {{doc_id: grade}}}} dict. Got {type(qrels).__name__} instead.{cutoff}"
    )


def read_run_input(run):
    """A pytrec_eval-style run dict ``{query: {doc: score}}`` as a run frame; anything else as given.

    (A dict of lists stays the relevance-vector shape: ``{query: [True, False, ...]}``.)
    """
    if isinstance(run, Mapping) and run and all(isinstance(v, Mapping) for v in run.values()):
        return run_from_dict(run)
    if isinstance(run, Mapping) and run and any(is_foreign_frame(v) for v in run.values()):
        run = {name: as_pandas(frame, "run") for name, frame in run.items()}
    if isinstance(run, Mapping) and run and all(isinstance(v, pd.DataFrame) for v in run.values()):
        return runs_from_frames(run)
    return run


def runs_from_frames(runs: Mapping, caller: str = "evaluate") -> pd.DataFrame:
    """``{name: run frame}`` as one run frame with a ``system`` column holding the names.

    A frame's own ``system`` column with one value (the run tag ``read_run`` keeps) gives way to the
    dict's name, which the caller chose; one with several systems is refused, since the name could not
    say which of them it means.
    """
    parts = []
    for name, frame in runs.items():
        if "system" in frame.columns:
            tags = frame["system"].dropna().unique()
            if len(tags) > 1:
                raise InputError(
                    f"{caller}: run {str(name)!r} of the dict has {len(tags)} systems in its own 'system' column "
                    f"({', '.join(map(repr, map(str, tags[:3])))}...); pass one system per dict entry, or the frame "
                    "itself without the dict."
                )
            frame = frame.drop(columns="system")
        parts.append(frame.assign(system=pd.array([str(name)] * len(frame), dtype="str")))
    return pd.concat(parts, ignore_index=True)


def judge_run(run, qrels, options: EvalOptions, *, rel_min: float = 1, caller: str, with_arrays: bool = False):
    """The canonical arrays of ``run`` judged by ``qrels`` (see :func:`rankviz._core.judged.judge`)."""
    return judge(
        read_run_input(run), read_judgements(qrels), options, rel_min=rel_min, caller=caller, with_arrays=with_arrays
    )


def kept_cells(j: Judged, missing: str, caller: str) -> np.ndarray:
    """Mask of the cells that stay in the table under the missing-query policy (``'zero'``, ``'drop'``, ``'error'``)."""
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


def system_names(j: Judged) -> tuple[str, ...]:
    """The systems of ``j``; a run without a system column is called :data:`SINGLE_SYSTEM`."""
    return tuple(j.systems) if j.systems is not None else (SINGLE_SYSTEM,)


def system_cells(j: Judged, keep: np.ndarray | None = None) -> Iterator[tuple[str, np.ndarray]]:
    """``(system name, cell numbers)`` per system, in the run's order, keeping only ``keep`` cells."""
    for s, name in enumerate(system_names(j)):
        cells = np.arange(s * j.n_queries, (s + 1) * j.n_queries)
        yield name, (cells if keep is None else cells[keep[cells]])


def index_frame(j: Judged) -> pd.DataFrame:
    """The ``system`` (when the run has several) and ``query_id`` columns of a per-cell table."""
    columns = {}
    if j.systems is not None:
        columns["system"] = pd.array(np.repeat(np.asarray(j.systems, dtype=object), j.n_queries), dtype="str")
    columns["query_id"] = pd.array(np.tile(j.queries, j.n_systems), dtype="str")
    return pd.DataFrame(columns)


def metadata(j: Judged, measures, options: EvalOptions) -> dict:
    """What a table's ``attrs['rankviz']`` records: queries missing from the run, unjudged queries, options."""
    keys = j.systems if j.systems is not None else (None,)
    missing = {key: tuple(j.queries[~j.present[cells]].tolist()) for key, (_, cells) in zip(keys, system_cells(j))}
    return {
        "measures": [m.name for m in measures],
        "closed_world": j.closed_world,
        "n_queries": j.n_queries,
        "missing_from_run": missing,
        "unjudged_in_run": dict(j.unjudged),
        "unannotated": j.unannotated,
        "depth": j.depth,
        "ties": options.ties,
        "missing": options.missing,
    }


def warn_closed_world(j: Judged, measures, caller: str) -> None:
    """Warn when measures with judgement denominators were computed from the rows given (no qrels)."""
    names = [m.name for m in measures if m.uses_judgement_denominator]
    if j.closed_world and names:
        warn(
            f"{caller}: {', '.join(names)} computed without qrels: their denominators (the number of relevant "
            "items, the ideal DCG) come from the rows given (closed world), so unretrieved relevant items are "
            "invisible. Pass qrels= for trec_eval semantics.",
            ClosedWorldWarning,
        )


def with_rel(measures, rel: int | None) -> list:
    """Apply the call's ``rel=`` to every measure that takes one and kept the default (trec_eval ``-l``)."""
    if rel is None:
        return list(measures)
    out = []
    for m in measures:
        if dict(m.params).get("rel", 1) == 1:  # NumRet's rel=None (every retrieved item) stays
            try:
                m = m(rel=rel)
            except InputError:  # a family without a relevance threshold (nDCG uses every grade)
                pass
        if m not in out:
            out.append(m)
    return out


def labelled(measures, rel: int | None) -> list[tuple[str, Measure]]:
    """``(label, measure)`` per measure given, under the call's ``rel=`` (see :func:`with_rel`).

    The label is the name the caller wrote (``MRR@10``), or the canonical name of a Measure
    given as a value; when ``rel=`` changes a measure, the label is the changed measure's
    canonical name (``RR(rel=2)@10``), since the name written no longer describes it.
    """
    out: dict[str, Measure] = {}
    for label, m in labelled_measures(measures):
        (applied,) = with_rel([m], rel)
        out.setdefault(label if applied == m else applied.name, applied)
    return list(out.items())


def unique(pairs: list[tuple[str, Measure]]) -> list[Measure]:
    """The distinct measures of ``(label, measure)`` pairs, in order (each is computed once)."""
    return list(dict.fromkeys(m for _, m in pairs))


def relabel(table: pd.DataFrame, pairs: list[tuple[str, Measure]]) -> pd.DataFrame:
    """``table`` with one column per label (from its canonical column) after its id columns.

    ``attrs["rankviz"]`` gains ``"canonical"``: ``{label: canonical name}``, and its
    ``"measures"`` lists the labels, the columns of the measures.
    """
    measure_names = {m.name for _, m in pairs}
    ids = [c for c in table.columns if c not in measure_names]
    out = table[ids].copy()
    for label, m in pairs:
        out[label] = table[m.name].to_numpy(copy=True)
    meta = dict(table.attrs.get("rankviz", {}))
    meta["measures"] = [label for label, _ in pairs]
    meta["canonical"] = {label: m.name for label, m in pairs}
    out.attrs["rankviz"] = meta
    return out


def evaluated_cells(run, measures: list, qrels, options: EvalOptions, caller: str, *, closed_world_warning=True):
    """Judge the run and compute every measure per cell: (Judged, kept-cell mask, {name: values})."""
    for m in measures:
        m.check_complete()
    j = judge_run(run, qrels, options, rel_min=min(m.hit_min for m in measures), caller=caller)
    keep = kept_cells(j, options.missing, caller)
    if closed_world_warning:
        warn_closed_world(j, measures, caller)
    return j, keep, {m.name: kernels.compute(j, m, options.ties) for m in measures}


def aggregate_per_system(table: pd.DataFrame, measures: list[Measure], systems) -> pd.DataFrame:
    """One row per system of a per-query table: each measure aggregated as its family declares.

    (mean, trec_eval's geometric mean, sum); ``systems`` in the order of the rows, or None for a
    table without a system column (then one row); indexed by ``system`` when there are systems. The
    pandas and the Dask evaluation share it, so their means agree.
    """
    names = [m.name for m in measures]
    if systems is None:
        return pd.DataFrame([[aggregate(table[m.name].to_numpy(), m.aggregate) for m in measures]], columns=names)
    grouped = table.groupby("system", sort=False)[names]
    if all(m.aggregate == "mean" for m in measures):
        result = grouped.mean()
    else:
        result = grouped.agg({m.name: functools.partial(_aggregate_series, how=m.aggregate) for m in measures})
    result = result.reindex(list(systems))
    result.index = pd.Index(list(systems), name="system", dtype="str")
    return result


def _aggregate_series(values: pd.Series, how: str) -> float:
    return aggregate(values.to_numpy(), how)
