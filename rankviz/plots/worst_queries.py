"""The queries a system fails: :func:`failures`.

:func:`prepare_failures` picks the ``n`` lowest queries and labels them (no
matplotlib); :func:`draw_failures` draws them as horizontal bars, worst on top.

(The module is not called ``failures``: that name is the function's, re-exported by
:mod:`rankviz.plots`.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._core.checks import check_choice, check_int
from .._core.columns import columns_text
from .._errors import InputError
from ..io.per_query import is_reciprocal_rank, per_query_table, query_texts
from ..measures import parse_measure
from . import style
from .inputs import check_system, values

if TYPE_CHECKING:
    from matplotlib.axes import Axes

from .failures_drawing import draw_failures

__all__ = ["failures", "prepare_failures", "draw_failures", "distinct_labels"]

_COLUMNS = [
    "position",
    "kind",
    "query_id",
    "label",
    "system",
    "slot",
    "color",
    "series",
    "value",
    "note",
    "delta",
    "delta_text",
    "delta_sign",
]
#: palette positions of the plotted system and of the baseline: the colours paired_differences
#: gives "system better" and "baseline better", so a difference is coloured by who wins
_SYSTEM_COLOR, _BASELINE_COLOR = style.WIN, style.LOSS


def failures(
    data,
    *,
    measure="RR@10",
    n=20,
    system=None,
    baseline=None,
    worst_of="system",
    queries=None,
    hue=None,
    zeros="show",
    ax=None,
    **kwargs,
) -> Axes:
    """The ``n`` queries with the lowest score, worst first, labelled with their text.

    Parameters
    ----------
    data : DataFrame
        A per-query table with ``query_id``, the measure column and, for several
        systems, ``system``.
    measure : str, default 'RR@10'
        The column to sort by (ascending; ties by query id).
    n : int, default 20
        How many queries to show one by one; never more bars or labels than this,
        whatever the number of queries.
    system : str, optional
        The system whose failures are shown; required when the table holds several
        (unless ``hue`` is the system column).
    baseline : str, optional
        Another system of the table, drawn beside ``system`` for each query; the
        per-query difference ``Δ = system − baseline`` (the sign of
        :func:`rankviz.stats.compare` and :func:`paired_differences`) is written on
        the right in the colour of the system that wins.
    worst_of : {'system', 'baseline'}, default 'system'
        Whose lowest scores pick the queries when ``baseline`` is given:
        ``'baseline'`` shows the baseline's failures and whether ``system`` fixes
        them ("did the reranker fix BM25's worst queries?").
    queries : DataFrame, Series or dict, optional
        Query texts: a DataFrame with ``query_id`` and ``text`` columns (as
        :func:`rankviz.read_topics` and the built-in example return), or a mapping
        from query id to text. Labels are cut to 50 characters with '…'; without
        texts the bars are labelled with the query ids.
    hue : str, optional
        The system column, to draw one bar per system for each query; the queries
        are then the worst of ``system`` if given, else those with the lowest mean
        over the systems (the queries every system fails).
    zeros : {'show', 'collapse'}, default 'show'
        Queries on which every system shown scores 0 are the failures: by default
        they are listed one by one, zeros first, with their texts (no bar, a note
        and a cross). ``'collapse'`` makes them one row at the top, "N queries:
        RR@10 = 0 for both", and gives the ``n`` rows to the lowest queries above 0
        (the near misses, or what a reranker fixed).
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.barh` (for every bar series).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ColumnError
        No such measure column.
    InputError
        Several systems and no ``system=``, an unknown system, or ``baseline`` on a
        table without systems.

    Notes
    -----
    The figure grows to give every query row room for its bars and notes, and the
    legend sits beside the Δ column, never on the bars. With ``hue``, colours are
    distinct for up to 20 systems and repeat after that.

    See Also
    --------
    prepare_failures : the bars as a table, without drawing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(8, 7))
    >>> ax = rankviz.plots.failures(table, measure="RR@10", n=15, system="bm25+rerank", baseline="bm25",
    ...                             worst_of="baseline", queries=queries, ax=ax)
    """
    frame = prepare_failures(
        data,
        measure=measure,
        n=n,
        system=system,
        baseline=baseline,
        worst_of=worst_of,
        queries=queries,
        hue=hue,
        zeros=zeros,
    )
    return draw_failures(frame, style.axes(ax, "failures"), **kwargs)


def prepare_failures(
    data,
    *,
    measure="RR@10",
    n=20,
    system=None,
    baseline=None,
    worst_of="system",
    queries=None,
    hue=None,
    zeros="show",
) -> pd.DataFrame:
    """The bars of :func:`failures`: one row per (query shown, system shown), worst query first; nothing drawn.

    Parameters are those of :func:`failures`.

    Returns
    -------
    DataFrame
        ``position`` (0 for the top row), ``kind`` ('query', or 'zeros' for the
        row standing for the queries every system shown scores 0 on), ``query_id``,
        ``label`` (its shortened text, or its id), ``system``, ``slot`` (the bar's
        place beside the query's other bars), ``color`` (a palette position),
        ``series`` (the legend label), ``value`` (NaN where the system lacks the
        query), ``note`` (the text beside the bar, or None), and with ``baseline``:
        ``delta`` (system − baseline), ``delta_text`` and ``delta_sign`` ('win':
        the system is better, 'loss': the baseline is, or 'none'). ``attrs`` holds
        ``title``, ``xlabel``, ``ylabel``, ``legend_title``, ``legend``,
        ``n_colors``, ``x_max``, ``unit_ticks``, ``baseline`` (bool) and
        ``delta_header``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.worst_queries import prepare_failures
    >>> table = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "RR@10": [1.0, 0.0, 0.5]})
    >>> prepare_failures(table, n=2, queries={"q2": "where is   it"}, zeros="show")[["query_id", "label", "value", "note"]]
      query_id        label  value           note
    0       q2  where is it    0.0  not in top 10
    1       q3           q3    0.5         rank 2
    """
    caller = "failures"
    table = per_query_table(data, caller)
    frame, query_col, system_col = table.frame, table.query, table.system
    column = table.measure_column(measure, caller)
    n = check_int(n, "n", caller, low=1)
    zeros = check_choice(zeros, "zeros", caller, ("collapse", "show"))
    worst_of = check_choice(worst_of, "worst_of", caller, ("system", "baseline"))
    systems = table.systems()
    system, baseline = _chosen_systems(system_col, systems, system, baseline, hue, caller)
    wide = _wide(frame, query_col, system_col, column, systems, caller)
    if system_col is None:
        system = "run"
    shown = systems if hue is not None else [system] + ([baseline] if baseline else [])
    ranked_by = baseline if baseline and worst_of == "baseline" else system
    key = wide[ranked_by] if ranked_by is not None else wide[systems].mean(axis=1)
    # Ties (typically the many zeros) keep query-id order: neutral, not picked to flatter either system.
    order = pd.DataFrame({"key": key.to_numpy(), "query": wide.index.to_numpy()})
    order = order[order["key"].notna()].sort_values(["key", "query"], kind="mergesort")
    all_zero = (wide.loc[order["query"], shown] == 0).all(axis=1).to_numpy()
    collapsed = int(all_zero.sum()) if zeros == "collapse" else 0
    picked = order.loc[~all_zero if collapsed else slice(None), "query"].head(n).tolist()
    texts = query_texts(queries, caller)
    rows = _bar_rows(wide, picked, shown, texts, column, system, baseline, systems, hue)
    out = _with_zero_row(rows, collapsed, column, shown, systems, baseline, hue) if collapsed else rows
    high = np.nanmax(wide[shown].to_numpy()) if picked else 1.0
    zero_count = int((order["key"] == 0).sum())
    out.attrs = {
        "title": _title(
            column,
            len(picked),
            system_col,
            _who(ranked_by, baseline),
            len(systems),
            zero_count,
            len(order),
            bool(collapsed) and len(shown) == 1,
        ),
        "xlabel": f"{column} per query"
        + (" (1/rank of the first relevant result)" if is_reciprocal_rank(column) else ""),
        "ylabel": "query text" if texts else "query",
        # hue needs a system column (_chosen_systems)
        "legend_title": (system_col + style.colour_note(len(systems))) if hue is not None and system_col else None,
        "legend": len(shown) > 1,
        "n_colors": len(systems) if hue is not None else max(_SYSTEM_COLOR, _BASELINE_COLOR) + 1,
        "x_max": 1.25 * max(1.0, high if np.isfinite(high) else 1.0),
        "unit_ticks": max(1.0, high) == 1.0,
        "baseline": baseline is not None,
        "delta_header": f"Δ = {system} − {baseline}" if baseline else None,
    }
    return out


def distinct_labels(picked, texts: dict) -> list[str]:
    """Each query's shortened text, or its id; two queries whose texts shorten alike get their ids appended.

    >>> distinct_labels(["q1", "q2", "q3"], {"q1": "Log a message " * 9, "q2": "Log a message " * 8, "q3": "x"})
    ['Log a message Log a message Log a message… (q1)', 'Log a message Log a message Log a message… (q2)', 'x']
    """
    labels = [style.shorten(texts[q]) if texts.get(q) else str(q) for q in picked]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [
        f"{style.shorten(texts[q], width=style.LABEL_WIDTH - len(str(q)) - 3)} ({q})"
        if seen[label] > 1 and texts.get(q)
        else label
        for q, label in zip(picked, labels)
    ]


def _bar_rows(wide, picked, shown, texts, column, system, baseline, systems, hue) -> pd.DataFrame:
    """One row per (picked query, shown system), with the notes and, against a baseline, the differences."""
    labels = distinct_labels(picked, texts)
    notes = _notes(column, len(shown) <= 2)
    rows = []
    for slot, name in enumerate(shown):
        series, color = _series(name, systems, baseline, hue)
        part = wide.loc[picked, name].to_numpy()
        rows.append(
            pd.DataFrame(
                {
                    "position": range(len(picked)),
                    "kind": "query",
                    "query_id": picked,
                    "label": labels,
                    "system": name,
                    "slot": slot,
                    "color": color,
                    "series": series,
                    "value": part,
                    "note": [notes(v) for v in part],
                }
            )
        )
    out = pd.concat(rows, ignore_index=True)
    delta = (
        (wide.loc[picked, system] - wide.loc[picked, baseline]).to_numpy() if baseline else np.full(len(picked), np.nan)
    )
    return out.assign(
        delta=np.tile(delta, len(shown)),
        delta_text=np.tile([_delta_text(d) for d in delta], len(shown)),
        delta_sign=np.tile([_sign(d) for d in delta], len(shown)),
    )[_COLUMNS]


def _series(name, systems, baseline, hue) -> tuple[str, int]:
    """(legend label, palette position) of one system's bars."""
    if hue is not None:
        return name, systems.index(name)
    if name == baseline:
        return f"{name} (baseline)", _BASELINE_COLOR
    return name, _SYSTEM_COLOR


def _with_zero_row(rows: pd.DataFrame, count: int, column, shown, systems, baseline, hue) -> pd.DataFrame:
    """The bars below one row at the top that stands for the ``count`` queries every system shown scores 0 on."""
    who = "every system" if hue is not None else ("both" if baseline else str(shown[0]))
    label = f"{count} {'query' if count == 1 else 'queries'}: {column} = 0 for {who}"
    looks = [_series(name, systems, baseline, hue) for name in shown]
    zero = pd.DataFrame(
        {
            "position": 0,
            "kind": "zeros",
            "query_id": None,
            "label": label,
            "system": list(shown),
            "slot": range(len(shown)),
            "color": [c for _, c in looks],
            "series": [s for s, _ in looks],
            "value": 0.0,
            "note": None,
            "delta": 0.0 if baseline else np.nan,
            "delta_text": "0" if baseline else "n/a",
            "delta_sign": "none",
        }
    )
    parts = [zero, rows.assign(position=rows["position"] + 1)] if len(rows) else [zero]
    return pd.concat(parts, ignore_index=True)[_COLUMNS]


def _chosen_systems(system_col, systems, system, baseline, hue, caller) -> tuple[str | None, str | None]:
    """(system, baseline) checked against the table; system is None only for hue over several systems."""
    if hue is not None and hue not in ("system", system_col):
        raise InputError(
            f"{caller}: hue can only be the system column ({system_col or 'system'!r}), to draw a bar per system; got {hue!r}."
        )
    if hue is not None and system_col is None:
        raise InputError(f"{caller}: hue={hue!r} needs a table with a system column; this table has one system.")
    if hue is not None and baseline is not None:
        raise InputError(f"{caller}: use either hue (a bar per system) or baseline (one other system), not both.")
    if system is not None:
        if system_col is None:
            raise InputError(f"{caller}: system={system!r} given, but the table has no system column.")
        system = check_system(system, systems, caller)
    elif system_col is not None and len(systems) == 1:
        system = systems[0]
    elif system_col is not None and hue is None:
        raise InputError(
            f"{caller}: the table holds {len(systems)} systems; choose one with system=, e.g. system={systems[0]!r} "
            f"(systems: {columns_text(systems)}), or draw them all with hue='system'."
        )
    if baseline is not None:
        if system_col is None:
            raise InputError(f"{caller}: baseline={baseline!r} needs a table with several systems (a system column).")
        baseline = check_system(baseline, systems, caller, "baseline")
        if baseline == system:
            raise InputError(f"{caller}: baseline={baseline!r} is the plotted system itself; choose another system.")
    return system, baseline


def _wide(frame, query_col, system_col, column, systems, caller) -> pd.DataFrame:
    """query x system values of ``column`` (NaN where a system lacks a query); one column 'run' without systems."""
    if system_col is None:
        if frame[query_col].duplicated().any():
            raise InputError(f"{caller}: the table has several rows for the same query; pass a per-query table.")
        return pd.DataFrame({"run": values(frame, column, caller)}, index=frame[query_col].astype(str).to_numpy())
    if frame.duplicated([system_col, query_col]).any():
        raise InputError(f"{caller}: the table has several rows for the same (system, query); pass a per-query table.")
    keys = frame[system_col].astype(str)
    columns = {}
    for name in systems:
        part = frame[keys == name]
        columns[name] = pd.Series(values(part, column, caller), index=part[query_col].astype(str).to_numpy())
    return pd.DataFrame(columns)


def _notes(column: str, shown: bool):
    """The function writing the text beside a bar: the rank for RR measures, else the value; None when not shown."""
    is_rr = is_reciprocal_rank(column)
    cutoff = parse_measure(column).cutoff if is_rr else None

    def note(value: float) -> str | None:
        if not shown:
            return None
        if np.isnan(value):
            return "not evaluated"
        if not is_rr:
            return f"{value:.3f}"
        if value <= 0:
            return f"not in top {cutoff}" if cutoff is not None else "none found"
        return f"rank {round(1 / value)}"

    return note


def _sign(delta: float) -> str:
    """Who wins a query: 'win' (the system), 'loss' (the baseline) or 'none'."""
    return "none" if not np.isfinite(delta) or delta == 0 else ("win" if delta > 0 else "loss")


def _delta_text(delta: float) -> str:
    return "n/a" if not np.isfinite(delta) else ("0" if delta == 0 else f"{delta:+.3f}")


def _who(name, baseline) -> str | None:
    return f"{name} (baseline)" if name is not None and name == baseline else name


def _title(column, m, system_col, system, n_systems, zeros, total, above_zero) -> str:
    above = " above 0" if above_zero else ""
    if system_col is None:
        who, zero_text = "", f"{zeros} of {total} queries have {column} = 0"
    elif system is not None:
        who, zero_text = f" — {system}", f"{zeros} of {total} queries have {column} = 0 for {system}"
    else:
        who = f" — mean over {n_systems} systems"
        zero_text = f"{zeros} of {total} queries have {column} = 0 for every system"
    return f"The {m} queries with the lowest {column}{above}{who}\n{zero_text}"
