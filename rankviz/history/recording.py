"""What :meth:`History.record <rankviz.history.History.record>` computes before it writes: names, means, JSON values."""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
from collections.abc import Iterable

import numpy as np
import pandas as pd

from .._core.columns import find_column
from .._core.frames import as_pandas, is_foreign_frame, unpack_bundles
from .._core.options import EvalOptions, option_names, unknown_keyword
from .._errors import InputError, RankvizError
from ..evaluation.api import per_query_table
from ..evaluation.pipeline import read_judgements, read_run_input
from ..measures import aggregate, parse_measure
from .file import RECORD_COLUMNS
from .fingerprints import (
    options_fingerprint,
    qrels_fingerprints,
    queries_fingerprint,
    run_fingerprint,
    start_environment_meta,
)
from .records import Record, record_from_values, table_bytes

__all__ = [
    "now",
    "version",
    "check_name",
    "jsonable",
    "means_of",
    "query_ids",
    "given_table",
    "utc_time",
    "RESERVED",
    "Prepared",
    "prepare",
]

#: refs that are not names
RESERVED = ("last", "accepted")
#: the options a per-query table's ``attrs["rankviz"]`` records (they override the defaults of a table recorded as is)
ATTR_OPTIONS = ("depth", "ties", "missing")


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")


@functools.cache
def version() -> str:
    """The installed rankviz's version (looked up once: the code running does not change under a process)."""
    from importlib import metadata

    try:
        return metadata.version("rankviz")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree that is not installed
        return "unknown"


def check_name(value, caller: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{caller}: name must be a non-empty string. Got {value!r} instead.")
    if value in RESERVED or value.isdigit():
        raise InputError(
            f"{caller}: {value!r} cannot be a name: 'last', 'accepted' and numbers are refs to records. "
            "Choose another, e.g. 'nightly' or the system's name."
        )
    return value


def jsonable(value):
    """attrs and meta as JSON values (tuples to lists, numpy scalars to numbers, anything else to text)."""
    return json.loads(json.dumps(value, default=lambda v: v.item() if isinstance(v, np.generic) else str(v)))


def means_of(table: pd.DataFrame, measures: list[str]) -> pd.DataFrame:
    """Each measure aggregated as its family declares (the mean, trec_eval's geometric mean, ...), per system."""

    def how(label: str) -> str:
        try:
            return parse_measure(label).aggregate
        except RankvizError:
            return "mean"

    if "system" not in table.columns:
        row = [aggregate(table[m].to_numpy(dtype=np.float64), how(m)) for m in measures]
        return pd.DataFrame([row], columns=measures, index=pd.Index(["run"], name="system"))
    grouped = table.groupby("system", sort=False, observed=True)[measures]
    if all(how(m) == "mean" for m in measures):
        means = grouped.mean()
    else:
        hows = {m: how(m) for m in measures}

        def one(values: pd.Series) -> float:
            return aggregate(values.to_numpy(dtype=np.float64), hows[str(values.name)])

        means = grouped.agg(dict.fromkeys(measures, one))
    means.index = pd.Index([str(s) for s in means.index], name="system")
    return means


def query_ids(queries, caller: str) -> list[str]:
    if isinstance(queries, pd.DataFrame):
        column = find_column(queries, "query", required=True, what="queries")
        return [str(q) for q in queries[column]]
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Iterable):
        raise InputError(
            f"{caller}: queries must be a list of query ids (or a frame with a query_id column). Got {queries!r}."
        )
    return [str(q) for q in queries]


def given_table(table: pd.DataFrame, measures, caller: str) -> pd.DataFrame:
    if "query_id" not in table.columns:
        raise InputError(
            f"{caller}: the per-query table needs a 'query_id' column (as rankviz.evaluate(..., per_query=True) "
            f"returns); its columns are {list(map(str, table.columns))}."
        )
    keep = ["system"] if "system" in table.columns else []
    numeric = [c for c in table.columns if c not in ("system", "query_id") and pd.api.types.is_numeric_dtype(table[c])]
    if measures is not None:
        asked = [measures] if isinstance(measures, str) else list(measures)
        missing = [m for m in asked if m not in numeric]
        if missing:
            raise InputError(f"{caller}: the per-query table has no column {missing[0]!r}; it has {numeric}.")
        numeric = asked
    if not numeric:
        raise InputError(f"{caller}: the per-query table has no numeric measure columns.")
    out = table[keep + ["query_id"] + numeric].copy()
    out.attrs = {"rankviz": dict(table.attrs.get("rankviz", {}))}
    return out.reset_index(drop=True)


def utc_time(value, caller: str) -> str:
    """A time as the ISO 8601 UTC text records keep (a naive time is UTC)."""
    try:
        stamp = pd.Timestamp(value)
    except (TypeError, ValueError):
        raise InputError(f"{caller}: time must be a datetime or an ISO 8601 text. Got {value!r} instead.") from None
    if stamp is pd.NaT:
        raise InputError(f"{caller}: time must be a datetime or an ISO 8601 text. Got {value!r} instead.")
    stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
    return stamp.to_pydatetime().isoformat(timespec="microseconds")


@dataclasses.dataclass(frozen=True)
class Prepared:
    """An evaluation ready to be written: the ``records`` row, the qrels' fingerprints, and the Record it reads as."""

    row: tuple
    qrels_fp: str | None
    per_query_fp: dict | None

    @functools.cached_property
    def record(self) -> Record:
        """The record as it will read back (built when asked: ``History.record`` reads it back from the file)."""
        return record_from_values(dict(zip(RECORD_COLUMNS[1:], self.row)), 0, accepted=False)


def prepare(run, qrels, measures, *, name, queries, meta, time, options: dict, caller: str) -> Prepared:
    """Evaluate (or take the per-query table), fingerprint and serialise one record; nothing is written."""
    environment = start_environment_meta()  # git runs while the run is evaluated
    try:
        return _prepare(run, qrels, measures, name=name, queries=queries, meta=meta, time=time, options=options,
                        caller=caller, environment=environment)  # fmt: skip
    finally:
        environment()  # the git process is waited for even when the input was refused


def _prepare(run, qrels, measures, *, name, queries, meta, time, options: dict, caller: str, environment) -> Prepared:
    for key in options:
        if key not in option_names():
            raise unknown_keyword(caller, key, option_names())
    resolved = EvalOptions.resolve(caller, **options)
    given = {"run": run, "qrels": qrels}  # what evaluate's boundary does with its data, done here once
    unpack_bundles(given, ("run", "qrels"), caller)
    run, qrels = (as_pandas(v, k) if is_foreign_frame(v) else v for k, v in given.items())
    qrels = read_judgements(qrels)
    run = read_run_input(run)
    wanted = None if queries is None else query_ids(queries, caller)
    if qrels is not None and wanted is not None:
        column = find_column(qrels, "query", resolved.columns.get("query") if resolved.columns else None,
                             required=True, what="qrels")  # fmt: skip
        qrels = qrels[qrels[column].astype(str).isin(set(wanted))]
    is_table = isinstance(run, pd.DataFrame) and find_column(run, "doc", required=False, what="run") is None
    if is_table:
        table, run_fp = given_table(run, measures, caller), None
    else:
        if measures is None:
            raise InputError(f"{caller}: name the measures to evaluate, e.g. ['nDCG@10', 'RR@10'].")
        table = per_query_table(run, measures, qrels, resolved)
        run_fp = run_fingerprint(run)
    if wanted is not None:
        table = table[table["query_id"].astype(str).isin(set(wanted))].reset_index(drop=True)
        if not len(table):
            raise InputError(f"{caller}: none of the {len(set(wanted))} queries given is in the evaluation.")
    names = [c for c in table.columns if c not in ("system", "query_id") and pd.api.types.is_numeric_dtype(table[c])]
    attrs = jsonable(table.attrs.get("rankviz", {}))
    stored_options = jsonable({**resolved.as_record(), **{k: attrs[k] for k in ATTR_OPTIONS if k in attrs}})
    systems = [str(s) for s in pd.unique(table["system"].astype(str))] if "system" in table.columns else []
    if name is None:
        name = systems[0] if len(systems) == 1 else "run"
    name = check_name(name, caller)
    qrels_fp, per_query_fp = (None, None) if qrels is None else qrels_fingerprints(qrels, resolved.columns)
    means = means_of(table, names)
    user = {} if meta is None else meta
    if not isinstance(user, dict):
        raise InputError(f"{caller}: meta must be a dict of JSON-able values. Got {type(user).__name__}.")
    row = (
        name, now() if time is None else utc_time(time, caller), version(), json.dumps(names), json.dumps(systems), int(table["query_id"].nunique()),
        json.dumps([{"system": s, **{m: float(v) for m, v in r.items()}} for s, r in means.iterrows()]), json.dumps(stored_options, sort_keys=True),
        qrels_fp, queries_fingerprint(table["query_id"]), run_fp, options_fingerprint(stored_options),
        json.dumps(jsonable({**environment(), **user}), sort_keys=True), json.dumps(attrs), table_bytes(table),
    )  # fmt: skip
    return Prepared(row, qrels_fp, per_query_fp)
