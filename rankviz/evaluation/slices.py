"""Slices: the evaluation of each segment of the queries (``by=`` on evaluate, bootstrap, compare, summary).

``by`` groups the evaluated (system, query) cells by one or several attributes; each is

- a column of the run (constant within each system x query, as a per-query-list column is);
- a column of the ``queries=`` table (matched on its query id column or index);
- a mapping or a Series from query id to segment (the Series' name names the column; a dict is
  ``"segment"``);
- a built-in attribute, by name, computed from the judgements (a run or ``queries=`` column of that
  name wins over the built-in):

  ``"n_relevant"``
      R, the number of relevant documents of the query in the qrels (grade >= ``rel``);
  ``"query_length"``
      the number of words (``\\w+`` tokens) of the query's text in ``queries=``;
  ``"first_hit"``
      the rank of the first relevant document, at any depth, in buckets ``"1"``, ``"2-3"``,
      ``"4-10"``, ``">10"`` and ``"none"`` (nothing relevant retrieved);
  ``"judged_share"`` (or ``"judged_share@k"``)
      the share of the top k that has a judgement (``Judged@k``; k is the first cutoff of the
      call's measures, else 10).

  ``first_hit`` and ``judged_share`` belong to a system: ``evaluate`` and ``bootstrap`` slice each
  system by its own value; ``compare`` slices each pair by the baseline's, so both systems of a pair
  are compared on the same queries.

A list gives one column per attribute and a segment per combination of their values, as
``DataFrame.groupby`` of several keys does. Numeric attributes with more than 10 distinct values
(``n_relevant``, ``query_length``, ``judged_share``, numeric columns) are cut into 4 quantile bins
(quartiles) of the evaluated cells (order-statistic edges: equal counts, repeated edges merged,
integers compared exactly, ``±inf`` a value like any other), each labelled ``"[lo, hi]"`` by the
smallest and largest value inside; with 10 or fewer distinct values each value is its own segment.
A string attribute stays a string: ``"01"``, ``"1"`` and ``"1.0"`` are three segments, as they are
three ids. Labels are distinct whenever values are (numbers get more digits when 4 significant
ones would merge two). A query without a value (absent from a mapping, NaN) is in the segment
``"(missing)"``; a value that is a list or an array is refused, as is ``by="system"`` or
``by="query_id"`` (already a key of every result). Every segment column is an ordered categorical
of strings (values in their natural order, bins ascending, ``"(missing)"`` last), named after its
attribute. The rule is :mod:`rankviz.stats.attribute_bins`', shared with :func:`rankviz.failure_slices`.

The per-segment numbers are a pandas groupby of the per-query table: ``evaluate(..., by=b,
per_query=True)`` returns that table with the segment columns, and ``evaluate(..., by=b)`` equals
``table.groupby(["system", b])[measure].agg(["size", "mean"])`` exactly. The table names its
segment columns in ``attrs["rankviz"]["by"]``; every statistic (``rankviz.stats.bootstrap``,
``rankviz.stats.compare``) groups by them and returns its usual type with a segment level, so
``bootstrap(..., by=)`` and ``compare(..., by=)`` are this table, then the statistics. The
statistics of one segment are those of the unsliced function on that segment's queries (see
:mod:`rankviz.stats.segments`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._core.columns import columns_text, find_column
from .._core.options import EvalOptions
from .._errors import ColumnError, InputError
from ..io.per_query import query_texts
from ..measures import Measure
from ..measures import dispatch as kernels
from ..stats.attribute_bins import MISSING, attribute_segments, check_scalars
from .pipeline import evaluated_cells, index_frame, metadata, read_run_input, with_rel

__all__ = [
    "BUILT_IN",
    "FIRST_HIT_BUCKETS",
    "MISSING",
    "BINS",
    "extra_measures",
    "cell_segments",
    "segmented_table",
    "aggregate_per_segment",
]

#: the built-in attributes, by name
BUILT_IN = ("n_relevant", "query_length", "first_hit", "judged_share")
#: the first-hit rank buckets, in order
FIRST_HIT_BUCKETS = ("1", "2-3", "4-10", ">10", "none")
#: quantile bins of a numeric attribute with more than 10 distinct values (rankviz.stats.attribute_bins)
BINS = 4

_WORD = re.compile(r"\w+", re.UNICODE)
_JUDGED = re.compile(r"^judged_share(?:@(\d+))?$")


def _items(by) -> list:
    if isinstance(by, (list, tuple)):
        if not by:
            raise InputError("by: the list of attributes is empty; pass a column name, a mapping or a Series.")
        return list(by)
    return [by]


def _judged_cutoff(name: str, measures) -> int | None:
    """k of ``judged_share[@k]`` (None when ``name`` is not that attribute)."""
    match = _JUDGED.match(name)
    if match is None:
        return None
    if match.group(1):
        return int(match.group(1))
    return next((int(m.cutoff) for m in measures if isinstance(m.cutoff, int) and m.cutoff > 0), 10)


def _frame_columns(run, queries) -> set:
    run = read_run_input(run)
    names = set(run.columns) if isinstance(run, pd.DataFrame) else set()
    return names | (set(queries.columns) if isinstance(queries, pd.DataFrame) else set())


def extra_measures(by, measures, options: EvalOptions, run, queries) -> list[Measure]:
    """The measures the built-in attributes of ``by`` need judged with the call (NumRel, Judged@k)."""
    extra, given = [], _frame_columns(run, queries)
    for item in _items(by):
        if not isinstance(item, str) or item in given:
            continue
        if item == "n_relevant":
            extra += with_rel([Measure("NumRel")], options.rel)
        k = _judged_cutoff(item, measures)
        if k is not None:
            extra.append(Measure("Judged", cutoff=k))
    return [m for i, m in enumerate(extra) if m not in extra[:i] and m not in measures]


def _name(item, position: int, taken) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, pd.Series) and item.name is not None:
        return str(item.name)
    return "segment" if "segment" not in taken else f"segment_{position + 1}"


def _mapped(mapping, ids: np.ndarray, what: str) -> pd.Series:
    """The value of every cell's query in ``mapping`` (query id -> segment), matched as strings."""
    if isinstance(mapping, pd.Series):
        if mapping.index.has_duplicates:
            dup = mapping.index[mapping.index.duplicated()][0]
            raise InputError(f"by: {what} has query {str(dup)!r} twice; give each query id one segment.")
        keys, values = mapping.index.astype("str"), mapping.to_numpy(dtype=object)
    else:
        keys, values = pd.Index([str(k) for k in mapping]), _objects(list(mapping.values()))
    lookup = pd.Series(values, index=keys, dtype=object)
    if lookup.index.has_duplicates:
        dup = lookup.index[lookup.index.duplicated()][0]
        raise InputError(f"by: {what} has query {dup!r} twice (as different types); give each query id one segment.")
    found = lookup.reindex(pd.Index(ids))
    return pd.Series(found.to_numpy(dtype=object))


def _objects(items: list) -> np.ndarray:
    """A 1-d object array of ``items`` as they are (lists stay lists, to be refused by name, not broadcast)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def _run_column(run, name: str, j, options: EvalOptions) -> pd.Series:
    """A run column's value per cell; it must be one value per system x query."""
    frame = read_run_input(run)
    query = find_column(frame, "query", options.columns.get("query"), required=True, what="run")
    system = find_column(frame, "system", options.columns.get("system"), required=False, what="run")
    keys = [query] if system is None or j.systems is None else [system, query]
    part = frame[keys + [name]].astype(dict.fromkeys(keys, "str"))
    check_scalars(part[name], name, "by", ids=part[query].to_numpy())
    counts = part.groupby(keys, sort=False)[name].nunique(dropna=False)
    if (counts > 1).any():
        where = counts[counts > 1].index[0]
        where = where if isinstance(where, tuple) else (where,)
        label = ", ".join(f"{k} {v!r}" for k, v in zip(keys, where))
        raise InputError(
            f"by: the run column {name!r} has several values for {label}; a segment is one value per query. "
            "Pass a mapping or a queries= column instead, or make the column constant within each query."
        )
    values = part.drop_duplicates(keys).set_index(keys)[name]
    cells = index_frame(j)
    index = pd.MultiIndex.from_frame(cells) if len(keys) > 1 else pd.Index(cells["query_id"])
    return pd.Series(values.reindex(index).to_numpy(dtype=object))


def _queries_column(queries: pd.DataFrame, name: str, ids: np.ndarray) -> pd.Series:
    qcol = find_column(queries, "query", required=False, what="queries")
    keys = queries[qcol] if qcol is not None and qcol != name else queries.index.to_series()
    return _mapped(pd.Series(queries[name].to_numpy(dtype=object), index=keys.astype("str").to_numpy()), ids,
                   f"the queries column {name!r}")  # fmt: skip


def _built_in(name: str, j, values: dict, options: EvalOptions, measures, queries, ids) -> pd.Series:
    if name == "n_relevant":
        (numrel,) = with_rel([Measure("NumRel")], options.rel)
        return pd.Series(values[numrel.name].astype(np.int64))
    if name == "first_hit":
        rel = 1 if options.rel is None else options.rel
        ranks = kernels.first_relevant_rank(j, rel)
        buckets = np.select(
            [np.isnan(ranks), ranks <= 1, ranks <= 3, ranks <= 10], ["none", "1", "2-3", "4-10"], default=">10"
        )
        return pd.Series(pd.Categorical(buckets, categories=FIRST_HIT_BUCKETS, ordered=True))
    if name == "query_length":
        if queries is None:
            raise InputError(
                "by='query_length' needs the query texts: pass queries= (a frame with query_id and text, as "
                "rankviz.read_topics returns, or {query_id: text})."
            )
        texts = query_texts(queries, "by")
        return _mapped({q: len(_WORD.findall(t)) for q, t in texts.items()}, ids, "queries")
    k = _judged_cutoff(name, measures)
    return pd.Series(values[Measure("Judged", cutoff=k).name])


def _id_columns(run, options: EvalOptions) -> dict[str, str]:
    """The names ``by=`` cannot slice by: the run's id columns (and their canonical names), each with its role."""
    names = {"query_id": "query", "system": "system"}
    if isinstance(run, pd.DataFrame):
        for role in ("query", "system"):
            found = find_column(run, role, options.columns.get(role), required=False, what="run")
            if found is not None:
                names[str(found)] = role
    return names


def cell_segments(by, j, keep, values: dict, *, run, queries, measures, options: EvalOptions) -> pd.DataFrame:
    """One ordered-categorical column per attribute of ``by``, one row per cell of ``j`` (see the module docstring)."""
    # ids as Python strings in an object array: numpy's fixed-width str dtype would drop a trailing NUL ('q\x00')
    ids = np.tile(np.array([str(q) for q in j.queries], dtype=object), j.n_systems)
    given = read_run_input(run)
    run_columns = set(given.columns) if isinstance(given, pd.DataFrame) else set()
    own = _id_columns(given, options)
    out: dict[str, pd.Categorical] = {}
    for position, item in enumerate(_items(by)):
        name = _name(item, position, out)
        if name in out:
            raise InputError(f"by: two attributes are both named {name!r}; name the Series differently.")
        if isinstance(item, str) and item in own:
            raise InputError(
                f"by={item!r}: that is the {own[item]} id, already a key of every sliced result (a row per system, "
                "and per query with per_query=True), so it is no segment. Pass a query attribute: a column of the "
                "run or of queries=, a built-in name, or a mapping/Series from query id to segment."
            )
        if isinstance(item, str) and item in run_columns:
            raw = _run_column(given, item, j, options)
        elif isinstance(item, str) and isinstance(queries, pd.DataFrame) and item in queries.columns:
            raw = _queries_column(queries, item, ids)
        elif isinstance(item, str) and (item in BUILT_IN or _JUDGED.match(item)):
            raw = _built_in(item, j, values, options, measures, queries, ids)
        elif isinstance(item, (pd.Series, Mapping)):
            raw = _mapped(item, ids, f"the {type(item).__name__} given as by")
        elif isinstance(item, str):
            where = columns_text(
                sorted(run_columns | (set(queries.columns) if isinstance(queries, pd.DataFrame) else set()))
            )
            raise ColumnError(
                f"by: {item!r} is not a column of the run or of queries= (columns: {where}) nor a built-in "
                f"attribute ({', '.join(BUILT_IN)}). Pass a column name, a mapping or a Series from query id to segment."
            )
        else:
            raise InputError(
                f"by: each attribute must be a column name, a built-in name ({', '.join(BUILT_IN)}), a mapping or a "
                f"Series from query id to segment. Got {type(item).__name__} instead."
            )
        out[name] = attribute_segments(raw, keep, bins=BINS, name=name, caller="by", ids=ids).labels
    return pd.DataFrame(out)


def segmented_table(run, measures, qrels, *, by, queries, options: EvalOptions, caller: str) -> tuple:
    """(per-query table with the segment columns, segment names): what every ``by=`` call starts from."""
    if queries is not None and not isinstance(queries, (pd.DataFrame, pd.Series, Mapping)):
        raise InputError(
            f"{caller}: queries must be a DataFrame (query_id and attribute or text columns), a Series or a dict. "
            f"Got {type(queries).__name__} instead."
        )
    extra = extra_measures(by, measures, options, run, queries)
    j, keep, values = evaluated_cells(run, measures + extra, qrels, options, caller)
    table = index_frame(j)
    for m in measures:
        table[m.name] = values[m.name]
    segments = cell_segments(by, j, keep, values, run=run, queries=queries, measures=measures, options=options)
    clash = [c for c in segments.columns if c in table.columns]
    if clash:
        raise InputError(
            f"{caller}: the segment column {clash[0]!r} has the name of a column of the per-query table; "
            "rename the attribute (a Series' name, or the column)."
        )
    table = pd.concat([table, segments], axis=1)[keep].reset_index(drop=True)
    table.attrs["rankviz"] = {**metadata(j, measures, options), "by": list(segments.columns)}
    return table, list(segments.columns)


def aggregate_per_segment(table: pd.DataFrame, names: list[str], by: list[str]) -> pd.DataFrame:
    """The tidy per-(system, segment, measure) table: ``n``, ``mean``, ``zero_share`` (a groupby of ``table``)."""
    frame = table if "system" in table.columns else table.assign(system="run")
    keys = ["system", *by]
    grouped = frame.groupby(keys, sort=False, observed=True)
    parts = []
    for name in names:
        part = grouped[name].agg(["size", "mean"]).rename(columns={"size": "n"})
        part["zero_share"] = (frame[name] == 0).groupby([frame[k] for k in keys], sort=False, observed=True).mean()
        parts.append(part.reset_index().assign(measure=name))
    result = pd.concat(parts, ignore_index=True)
    result["system"] = pd.Categorical(result["system"], categories=list(dict.fromkeys(frame["system"])))
    result = result.sort_values(keys + ["measure"], key=_measure_order(names), kind="mergesort")
    result["system"] = result["system"].astype("str")
    result = result[[*keys, "measure", "n", "mean", "zero_share"]].reset_index(drop=True)
    result.attrs["rankviz"] = table.attrs.get("rankviz", {})
    return result


def _measure_order(names):
    def key(column: pd.Series):
        return column.map({n: i for i, n in enumerate(names)}) if column.name == "measure" else column

    return key
