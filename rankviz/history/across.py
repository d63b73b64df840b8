"""Two records side by side: checked comparable (fingerprints), one system each, and what changed per query."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import InputError, RankvizWarning, warn
from .records import Record, qrels_diff, what_changed

__all__ = ["paired", "one_system", "changes"]


def paired(history, a, b, system, relabelled, caller: str) -> tuple[Record, Record, pd.DataFrame, pd.DataFrame]:
    """Two records' per-query tables of one system each, on the queries they may be compared on."""
    if relabelled not in (None, "common"):
        raise InputError(f"{caller}: relabelled must be None or 'common'. Got {relabelled!r} instead.")
    first, second = (r if isinstance(r, Record) else history.get(r) for r in (a, b))
    tables = [one_system(r, system, side, caller) for side, r in enumerate((first, second))]
    per_query = [history.qrels_per_query(r.fingerprints["qrels"]) for r in (first, second)]
    diff = qrels_diff(per_query[0], per_query[1]) if None not in per_query else None
    reasons = what_changed(first, second, diff)
    if not reasons:
        return first, second, tables[0], tables[1]
    head = f"{caller}: {_label(first)} and {_label(second)} are not comparable: " + "; ".join(reasons)
    options_changed = first.fingerprints["options"] != second.fingerprints["options"]
    unknown = diff is None and first.fingerprints["qrels"] != second.fingerprints["qrels"]
    if relabelled is None or options_changed or unknown:
        fix = (
            "Evaluate both with the same options." if options_changed
            else "Record both with their qrels." if unknown
            else "Pass relabelled='common' to compare on the queries both evaluated whose judgements did not change."
        )  # fmt: skip
        raise InputError(f"{head}. {fix}")
    shared = set(tables[0]["query_id"].astype(str)) & set(tables[1]["query_id"].astype(str))
    keep = shared - (diff.relabelled if diff is not None else frozenset())
    if not keep:
        raise InputError(f"{head}; no query is left that both evaluated with unchanged judgements.")
    every = set(tables[0]["query_id"].astype(str)) | set(tables[1]["query_id"].astype(str))
    warn(
        f"{caller}: {'; '.join(reasons)}: compared on the {len(keep)} queries both evaluated whose judgements "
        f"did not change ({len(every) - len(keep)} left out).",
        RankvizWarning,
    )
    tables = [t[t["query_id"].astype(str).isin(keep)].reset_index(drop=True) for t in tables]
    return first, second, tables[0], tables[1]


def changes(history, a, b, measure=None, *, system=None, relabelled=None, top: int = 10) -> pd.DataFrame:
    """What changed per query from record ``a`` to record ``b``: the queries that flipped, and the largest moves.

    A query flips from failure to success when its value goes from 0 to above 0
    (and back). Comparability is checked as in :meth:`compare`.

    Returns
    -------
    DataFrame
        ``query_id``, ``before``, ``after``, ``difference`` (after - before) and
        ``change`` ('failure to success', 'success to failure' or 'moved'): every flipped
        query, then the ``top`` largest other moves, each group by absolute difference.
    """
    first, second, ta, tb = paired(history, a, b, system, relabelled, "History.changes")
    measure = measure or first.measures[0]
    if measure not in ta.columns or measure not in tb.columns:
        raise InputError(f"History.changes: both records need measure {measure!r}; they have {list(first.measures)}.")
    merged = ta[["query_id", measure]].merge(tb[["query_id", measure]], on="query_id", suffixes=("_a", "_b"))
    before = merged[f"{measure}_a"].to_numpy(dtype=np.float64)
    after = merged[f"{measure}_b"].to_numpy(dtype=np.float64)
    out = pd.DataFrame({"query_id": merged["query_id"], "before": before, "after": after, "difference": after - before})
    out["change"] = np.select([(before == 0) & (after > 0), (before > 0) & (after == 0)],
                              ["failure to success", "success to failure"], "moved")  # fmt: skip
    out = out.assign(size=out["difference"].abs()).sort_values("size", ascending=False, kind="mergesort")
    flipped = out[out["change"] != "moved"]
    moved = out[(out["change"] == "moved") & (out["size"] > 0)].head(int(top))
    result = pd.concat([flipped, moved]).drop(columns="size").reset_index(drop=True)
    result.attrs = {"measure": measure, "before": first.id, "after": second.id}
    return result


def one_system(record: Record, system, side: int, caller: str) -> pd.DataFrame:
    """A record's per-query table of one system, without the system column."""
    table = record.table
    if "system" not in table.columns:
        return table
    systems = record.systems
    if system is None and len(systems) == 1:
        wanted = systems[0]
    elif system is None:
        raise InputError(f"{caller}: record #{record.id} has several systems ({systems}); choose one with system=.")
    else:
        wanted = system if isinstance(system, str) else list(system)[side]
    part = table[table["system"].astype(str) == str(wanted)]
    if not len(part):
        raise InputError(f"{caller}: record #{record.id} has no system {wanted!r}; it has {systems}.")
    return part.drop(columns="system").reset_index(drop=True)


def _label(record: Record) -> str:
    return f"record #{record.id}" if record.id else "the new run"
