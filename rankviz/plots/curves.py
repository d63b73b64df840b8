"""Measures as the cutoff grows: :func:`metric_at_k` (the recall-vs-MRR view is in :mod:`~rankviz.plots.diagnosis`).

The ``prepare_*`` steps average the per-query columns for display and lay out what is
drawn, without matplotlib; the ``draw_*`` steps draw it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import pandas as pd

from .._errors import ColumnError, InputError
from ..io.per_query import per_query_table
from ..measures import Measure, parse_measure
from . import style
from .inputs import hue_column

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "metric_at_k",
    "prepare_metric_at_k",
    "draw_metric_at_k",
    "measure_family",
]

#: line styles and markers told apart in black and white, in order of use
LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P")


# ----------------------------------------------------------------------------- metric_at_k


def measure_family(spec, caller: str) -> Measure:
    """A measure family with its parameters and no cutoff: 'RR', 'R', 'nDCG', "nDCG(gain='exp')", 'RR(rel=2)'.

    Examples
    --------
    >>> from rankviz.plots.curves import measure_family
    >>> measure_family("RR(rel=2)", "metric_at_k").name
    'RR(rel=2)'
    """
    if isinstance(spec, Measure):
        return dataclasses.replace(spec, cutoff=None)
    text = str(spec)
    if "@" in text:
        raise InputError(f"{caller}: give measure families without a cutoff, e.g. 'RR' or 'nDCG'. Got {text!r}.")
    return dataclasses.replace(parse_measure(f"{text}@1"), cutoff=None)


def metric_at_k(data, *, measures=("RR", "R", "nDCG"), hue=None, ax=None, **kwargs) -> Axes:
    """Measures as the cutoff k grows: RR@k, R@k, nDCG@k, one line per system and measure.

    Parameters
    ----------
    data : DataFrame
        A per-query table (means are taken per system for display) or an aggregate
        table (one row per system), with columns such as ``RR@1`` .. ``RR@20``,
        ``R@1`` .., ``nDCG@1`` ..; the cutoffs are read from the column names.
    measures : str or sequence of str, default ('RR', 'R', 'nDCG')
        Measure families, without a cutoff (``"P"``, ``"Success"``, ``"AP"``,
        ``"RR(rel=2)"`` work as well). Each needs at least one ``family@k`` column.
    hue : str, optional
        Column whose groups get a colour each; default the system column when there
        is one. With several groups, colour = group and line style = measure.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` (every line).

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    prepare_metric_at_k : the points of the lines as a table, without drawing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> names = [f"{m}@{k}" for m in ("RR", "R", "nDCG") for k in range(1, 21)]
    >>> table = rankviz.evaluate(run, names, qrels)
    >>> fig, ax = plt.subplots(figsize=(8, 5))
    >>> ax = rankviz.plots.metric_at_k(table, ax=ax)
    """
    frame = prepare_metric_at_k(data, measures=measures, hue=hue)
    return draw_metric_at_k(frame, style.axes(ax, "metric_at_k"), **kwargs)


def prepare_metric_at_k(data, *, measures=("RR", "R", "nDCG"), hue=None) -> pd.DataFrame:
    """The points of :func:`metric_at_k`'s lines: one row per (group, family, cutoff); nothing drawn.

    Parameters are those of :func:`metric_at_k`.

    Returns
    -------
    DataFrame
        ``group`` (None without groups), ``family`` (e.g. 'RR@k'), ``k``,
        ``column``, ``value`` (the mean over queries, or the aggregate's value),
        ``label``, ``color`` (a palette position), ``linestyle`` and ``marker``.
        ``attrs`` holds ``hue``, ``n_colors``, ``ylabel``, ``title``, ``unit``
        (values within [0, 1]) and ``legend`` ('split': colour = group, style =
        family; else 'plain').

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.curves import prepare_metric_at_k
    >>> table = pd.DataFrame({"query_id": ["q1", "q2"], "RR@1": [1.0, 0.0], "RR@5": [1.0, 0.5]})
    >>> prepare_metric_at_k(table, measures="RR")[["family", "k", "value"]]
      family  k  value
    0   RR@k  1   0.50
    1   RR@k  5   0.75
    """
    caller = "metric_at_k"
    table = per_query_table(data, caller, require_query=False)
    frame = table.frame
    templates = [measure_family(m, caller) for m in ([measures] if isinstance(measures, (str, Measure)) else measures)]
    if not templates:
        raise InputError(f"{caller}: give at least one measure family, e.g. measures=('RR', 'nDCG').")
    hue_col = hue_column(frame, hue, table.system, caller)
    found = _cutoff_columns(frame, table.id_columns | {hue_col}, templates, caller)
    columns = sorted({c for t in templates for _, c in found[t]}, key=list(frame.columns).index)
    means = _means(frame, columns, table.query, hue_col, caller)
    names = [str(g) for g in means.index] if hue_col is not None else [None]
    several = len(names) > 1
    markers = len({c for t in templates for c, _ in found[t]}) <= 30
    rows = []
    for g, (group, (_, row)) in enumerate(zip(names, means.iterrows())):
        for t, template in enumerate(templates):
            family = f"{template.name}@k"
            for k, column in sorted(found[template]):
                rows.append(
                    {
                        "group": group,
                        "family": family,
                        "k": k,
                        "column": column,
                        "value": float(row[column]),
                        "label": family if group is None else f"{group} · {family}",
                        "color": g if several else t,
                        "linestyle": LINESTYLES[t % len(LINESTYLES)] if several else "-",
                        "marker": MARKERS[t % len(MARKERS)] if markers else None,
                    }
                )
    out = pd.DataFrame(rows)
    families = [f"{t.name}@k" for t in templates]
    joined = families[0] if len(families) == 1 else ", ".join(families[:-1]) + " and " + families[-1]
    finite = out["value"].dropna()
    out.attrs = {
        "hue": hue_col,
        "n_colors": len(names) if several else len(templates),
        "ylabel": "mean over queries" if table.query is not None else "value",
        "title": f"{joined} as k grows",
        "unit": bool(len(finite)) and finite.min() >= 0 and finite.max() <= 1,
        "legend": "split" if several and len(templates) > 1 else "plain",
        "several": several,
    }
    return out


def _cutoff_columns(frame, skip, templates, caller) -> dict[Measure, list[tuple[int | float, str]]]:
    """{family: [(k, column)]} of the columns named family@k, checked to cover every template."""
    found: dict[Measure, list[tuple[int | float, str]]] = {}
    for column in frame.columns:
        if column in skip or not isinstance(column, str):
            continue
        try:
            parsed = parse_measure(column)
        except InputError:
            continue
        if parsed.cutoff is not None and parsed.name == column:
            found.setdefault(dataclasses.replace(parsed, cutoff=None), []).append((parsed.cutoff, column))
    for template in templates:
        if template not in found:
            available = (
                ", ".join(f"{t.name}@{min(c for c, _ in v)}..{max(c for c, _ in v)}" for t, v in found.items())
                or "none"
            )
            raise ColumnError(
                f"{caller}: the table has no {template.name}@k columns (measures at cutoffs found: {available}). "
                f"Evaluate them, e.g. rankviz.evaluate(run, [f'{template.name}@{{k}}' for k in range(1, 21)], qrels)."
            )
    return found


def _means(frame, columns, query_col, hue_col, caller) -> pd.DataFrame:
    """One row per group: the mean over queries of a per-query table, or the aggregate table's own row."""
    if query_col is not None:
        if hue_col is not None:
            return frame.groupby(hue_col, sort=False, observed=True)[columns].mean()
        return frame[columns].mean().to_frame().T
    if hue_col is not None:
        if frame[hue_col].duplicated().any():
            raise InputError(f"{caller}: the aggregate table has several rows per {hue_col}; pass a per-query table.")
        return frame.set_index(hue_col)[columns]
    if len(frame) > 1:
        raise InputError(
            f"{caller}: the table has {len(frame)} rows but neither a query id nor a system column; "
            "pass a per-query table or one row per system."
        )
    return frame[columns]


@style.literal_text
def draw_metric_at_k(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw :func:`prepare_metric_at_k`'s lines on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.plot`."""
    from matplotlib import ticker
    from matplotlib.lines import Line2D

    info = frame.attrs
    palette = style.colors(info["n_colors"])
    for label, line in frame.groupby("label", sort=False):
        first = line.iloc[0]
        look = {
            "color": palette[first["color"]],
            "linestyle": first["linestyle"],
            "marker": first["marker"],
            "markersize": 4,
            "label": label,
        }
        ax.plot(line["k"].tolist(), line["value"].to_numpy(), **style.merge(look, kwargs))
    ks = sorted(set(frame["k"]))
    if ks[-1] / ks[0] > 50:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    elif len(ks) <= 20:
        ax.set_xticks(ks)
    else:
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    if info["unit"]:
        ax.set_ylim(0, 1.02)
    ax.set_xlabel("cutoff k")
    ax.set_ylabel(info["ylabel"])
    ax.set_title(info["title"])
    ax.grid(alpha=0.3)
    # The legend goes beside the Axes: curves fill the plot, so every corner inside can hold data.
    n_groups = info["n_colors"] if info["several"] else 1
    title = (info["hue"] or "") + style.colour_note(n_groups) if info["several"] else None
    if info["legend"] == "split":
        colours = frame.drop_duplicates("group")
        looks = frame.drop_duplicates("family")
        handles = [
            Line2D([], [], color=palette[c], linewidth=2, label=str(g))
            for g, c in zip(colours["group"], colours["color"])
        ]
        handles += [
            Line2D([], [], color="0.3", linestyle=s, marker=m, label=f)
            for f, s, m in zip(looks["family"], looks["linestyle"], looks["marker"])
        ]
        style.legend_outside(ax, handles=handles, title=title)
    elif frame["label"].nunique() > 1:  # one line needs no legend: the title names it
        style.legend_outside(ax, title=title)
    return ax
