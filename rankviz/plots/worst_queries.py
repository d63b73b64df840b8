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

from .._columns import columns_text
from .._errors import InputError
from .._tables import per_query_table, query_texts
from .._validation import check_int
from ..measures import parse_measure
from . import style
from .inputs import check_system, measure_column, system_names, values

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["failures", "prepare_failures", "draw_failures"]

_COLUMNS = ["position", "query_id", "label", "system", "slot", "color", "series", "value", "note", "delta", "delta_text", "delta_sign"]


def failures(data, *, measure="RR@10", n=20, system=None, queries=None, compare=None, hue=None, ax=None, **kwargs) -> Axes:
    """The ``n`` queries with the lowest score, worst first, labelled with their text.

    Parameters
    ----------
    data : DataFrame
        A per-query table with ``query_id``, the measure column and, for several
        systems, ``system``.
    measure : str, default 'RR@10'
        The column to sort by (ascending: zeros first; ties by query id).
    n : int, default 20
        How many queries to show; never more bars or labels than this, whatever the
        number of queries.
    system : str, optional
        The system whose failures are shown; required when the table holds several
        (unless ``hue`` is the system column).
    queries : DataFrame, Series or dict, optional
        Query texts: a DataFrame with ``query_id`` and ``text`` columns (as
        :func:`rankviz.read_topics` and the built-in example return), or a mapping
        from query id to text. Labels are cut to 50 characters with '…'; without
        texts the bars are labelled with the query ids.
    compare : str, optional
        Another system of the table: its bar is drawn beside each query's and the
        per-query delta (``compare - system``) is written on the right, so you can
        see which failures it fixes.
    hue : str, optional
        The system column, to draw one bar per system for each query; the queries
        are then the worst of ``system`` if given, else those with the lowest mean
        over the systems (the queries every system fails).
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
        Several systems and no ``system=``, an unknown system, or ``compare`` on a
        table without systems.

    See Also
    --------
    prepare_failures : the bars as a table, without drawing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> fig, ax = plt.subplots(figsize=(8, 7))
    >>> ax = rankviz.plots.failures(table, measure="RR@10", n=15, system="bm25",
    ...                             compare="bm25+rerank", queries=queries, ax=ax)
    """
    frame = prepare_failures(data, measure=measure, n=n, system=system, queries=queries, compare=compare, hue=hue)
    return draw_failures(frame, style.axes(ax, "failures"), **kwargs)


def prepare_failures(data, *, measure="RR@10", n=20, system=None, queries=None, compare=None, hue=None) -> pd.DataFrame:
    """The bars of :func:`failures`: one row per (query shown, system shown), worst query first; nothing drawn.

    Parameters are those of :func:`failures`.

    Returns
    -------
    DataFrame
        ``position`` (0 for the worst query), ``query_id``, ``label`` (its
        shortened text, or its id), ``system``, ``slot`` (the bar's place beside the
        query's other bars), ``color`` (a palette position), ``series`` (the legend
        label), ``value`` (NaN where the system lacks the query), ``note`` (the text
        beside the bar, or None), and with ``compare``: ``delta`` (compare - system),
        ``delta_text`` and ``delta_sign`` ('win', 'loss' or 'none'). ``attrs`` holds
        ``title``, ``xlabel``, ``ylabel``, ``legend_title``, ``legend``,
        ``n_colors``, ``x_max``, ``unit_ticks`` and ``compare``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.worst_queries import prepare_failures
    >>> table = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "RR@10": [1.0, 0.0, 0.5]})
    >>> prepare_failures(table, n=2, queries={"q2": "where is   it"})[["query_id", "label", "value", "note"]]
      query_id        label  value           note
    0       q2  where is it    0.0  not in top 10
    1       q3           q3    0.5         rank 2
    """
    caller = "failures"
    table = per_query_table(data, caller)
    frame, query_col, system_col = table.frame, table.query, table.system
    column = measure_column(frame, measure, caller, exclude=table.id_columns)
    n = check_int(n, "n", caller, low=1)
    systems = system_names(frame, system_col)
    system, compare = _chosen_systems(system_col, systems, system, compare, hue, caller)
    wide = _wide(frame, query_col, system_col, column, systems, caller)
    if system_col is None:
        system = "run"
    shown = systems if hue is not None else [system] + ([compare] if compare else [])
    key = wide[system] if system is not None else wide[systems].mean(axis=1)
    # Ties (typically the many zeros) keep query-id order: neutral, not picked to flatter either system.
    order = pd.DataFrame({"key": key.to_numpy(), "query": wide.index.to_numpy()})
    order = order[order["key"].notna()]
    zeros, total = int((order["key"] == 0).sum()), len(order)
    picked = order.sort_values(["key", "query"], kind="mergesort").head(n)["query"].tolist()

    texts = query_texts(queries, caller)
    labels = [style.shorten(texts[q]) if texts.get(q) else q for q in picked]
    notes = _notes(column, len(shown) <= 2)
    rows = []
    for slot, name in enumerate(shown):
        series = name if hue is not None or name != compare else f"{compare} (Δ = {compare} − {system})"
        part = wide.loc[picked, name].to_numpy()
        color = systems.index(name) if hue is not None else slot
        rows.append(pd.DataFrame({"position": range(len(picked)), "query_id": picked, "label": labels, "system": name,
                                  "slot": slot, "color": color, "series": series, "value": part,
                                  "note": [notes(v) for v in part]}))
    out = pd.concat(rows, ignore_index=True)
    delta = (wide.loc[picked, compare] - wide.loc[picked, system]).to_numpy() if compare else np.full(len(picked), np.nan)
    out = out.assign(
        delta=np.tile(delta, len(shown)),
        delta_text=np.tile([_delta_text(d) for d in delta], len(shown)),
        delta_sign=np.tile(["none" if not np.isfinite(d) or d == 0 else ("win" if d > 0 else "loss") for d in delta], len(shown)),
    )[_COLUMNS]
    high = np.nanmax(wide[shown].to_numpy()) if picked else 1.0
    out.attrs = {
        "title": _title(column, len(picked), system_col, system, len(systems), zeros, total),
        "xlabel": f"{column} per query" + (" (1/rank of the first relevant result)" if _is_rr(column) else ""),
        "ylabel": "query text" if texts else "query",
        "legend_title": system_col if hue is not None else None,
        "legend": len(shown) > 1,
        "n_colors": len(systems) if hue is not None else 2,
        "x_max": 1.25 * max(1.0, high if np.isfinite(high) else 1.0),
        "unit_ticks": max(1.0, high) == 1.0,
        "compare": compare is not None,
    }
    return out


def _chosen_systems(system_col, systems, system, compare, hue, caller) -> tuple[str | None, str | None]:
    """(system, compare) checked against the table; system is None only for hue over several systems."""
    if hue is not None and hue not in ("system", system_col):
        raise InputError(
            f"{caller}: hue can only be the system column ({system_col or 'system'!r}), to draw a bar per system; got {hue!r}."
        )
    if hue is not None and system_col is None:
        raise InputError(f"{caller}: hue={hue!r} needs a table with a system column; this table has one system.")
    if hue is not None and compare is not None:
        raise InputError(f"{caller}: use either hue (a bar per system) or compare (one other system), not both.")
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
    if compare is not None:
        if system_col is None:
            raise InputError(f"{caller}: compare={compare!r} needs a table with several systems (a system column).")
        compare = check_system(compare, systems, caller, "compare system")
        if compare == system:
            raise InputError(f"{caller}: compare={compare!r} is the plotted system itself; choose another system.")
    return system, compare


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


def _is_rr(column: str) -> bool:
    try:
        return parse_measure(column).family == "RR"
    except InputError:
        return False


def _notes(column: str, shown: bool):
    """The function writing the text beside a bar: the rank for RR measures, else the value; None when not shown."""
    is_rr = _is_rr(column)
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


def _delta_text(delta: float) -> str:
    return "n/a" if not np.isfinite(delta) else ("0" if delta == 0 else f"{delta:+.3f}")


def _title(column, m, system_col, system, n_systems, zeros, total) -> str:
    if system_col is None:
        who, zero_text = "", f"{zeros} of {total} queries have {column} = 0"
    elif system is not None:
        who, zero_text = f" — {system}", f"{zeros} of {total} queries have {column} = 0 for {system}"
    else:
        who = f" — mean over {n_systems} systems"
        zero_text = f"{zeros} of {total} queries have {column} = 0 for every system"
    return f"The {m} queries with the lowest {column}{who}\n{zero_text}"


@style.literal_text
def draw_failures(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw the bars of :func:`prepare_failures` on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.barh`."""
    from matplotlib.transforms import blended_transform_factory

    info = frame.attrs
    slots = int(frame["slot"].max()) + 1 if len(frame) else 1
    queries = frame[frame["slot"] == 0]
    m = len(queries)
    height = 0.75 / slots
    palette = style.colors(info["n_colors"])
    for slot, part in frame.groupby("slot", sort=True):
        y = part["position"].to_numpy(dtype=np.float64) + (slot - (slots - 1) / 2) * height
        bar_values = part["value"].to_numpy()
        color = palette[int(part["color"].iloc[0])]
        defaults = {"height": height, "color": color, "label": part["series"].iloc[0]}
        bars = ax.barh(y, np.nan_to_num(bar_values), **style.merge(defaults, kwargs))
        # A zero bar has no length: mark it, so "failed" is visible and not mistaken for "missing".
        zero = bar_values == 0
        if zero.any():
            ax.plot(np.zeros(int(zero.sum())), y[zero], linestyle="none", marker="x", color=color,
                    markersize=max(3.0, min(7.0, 120 / (m * slots))), clip_on=False, zorder=3)
        if part["note"].notna().all():
            ax.bar_label(bars, labels=part["note"].tolist(), padding=6, fontsize="x-small" if slots == 2 else "small", color="0.25")

    ax.set_yticks(queries["position"].tolist(), labels=queries["label"].tolist(), fontsize="small" if m <= 30 else "x-small")
    ax.set_ylim(m - 0.5, -0.5)  # worst on top
    ax.set_xlim(0, info["x_max"])
    if info["unit_ticks"]:
        ax.set_xticks(np.linspace(0, 1, 6))
    if info["compare"]:
        where = blended_transform_factory(ax.transAxes, ax.transData)
        colors = {"win": style.color(style.WIN), "loss": style.color(style.LOSS), "none": "0.45"}
        for y, text, sign in zip(queries["position"], queries["delta_text"], queries["delta_sign"]):
            ax.text(1.02, y, text, transform=where, va="center", ha="left", fontsize="small", color=colors[sign])
        ax.text(1.02, 1.0, "Δ", transform=ax.transAxes, va="bottom", ha="left", fontsize="small", fontweight="bold")
    ax.set_xlabel(info["xlabel"])
    ax.set_ylabel(info["ylabel"])
    ax.set_title(info["title"], fontsize="medium")
    if info["legend"]:
        ax.legend(title=info["legend_title"], fontsize="small", loc="best")
    return ax
