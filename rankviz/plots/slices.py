"""Slices: :func:`slices`, each segment's mean per system with its interval.

:func:`prepare_slices` reads the per-segment table of ``rankviz.bootstrap(..., by=...)`` (or of
``rankviz.evaluate(..., by=...)``, which has no intervals) and lays out one band per segment with
one dodged row per system (no matplotlib); :func:`draw_slices` draws it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._core.checks import check_choice
from .._core.columns import columns_text
from .._errors import ColumnError, InputError
from ..stats.results import BootstrapResults, Comparison
from . import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["slices", "prepare_slices", "draw_slices"]

#: inches of height per system row inside a segment's band, and the least per band
ROW_INCHES, BAND_INCHES = 0.13, 0.3
_ORDERED = re.compile(r"^(\[.*\]|-?\d+(\.\d+)?|1|2-3|4-10|>10|none|\(missing\))$")
_FIELDS = ("system", "measure", "n", "mean")


def slices(data, *, measure: str | None = None, order: str = "auto", ax=None, **kwargs) -> Axes:
    """Per segment and system: the mean of one measure with its interval, one band per segment.

    Parameters
    ----------
    data : BootstrapResults or DataFrame
        What ``rankviz.bootstrap(run, measures, qrels, by=...)`` returns (means with intervals),
        or the table of ``rankviz.evaluate(..., by=...)`` (means only).
    measure : str, optional
        Which measure (default: the first of the table).
    order : {'auto', 'segment', 'mean'}, default 'auto'
        ``'segment'``: the segments' own order (bins ascending, first-hit buckets); ``'mean'``: by the
        mean over the systems, highest on top; ``'auto'``: the own order when the segments are bins,
        numbers or first-hit buckets, else by mean.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.hlines` (the intervals).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> res = rankviz.bootstrap(run, "RR@10", qrels, by="query_length", queries=queries, n_resamples=200, rng=0)
    >>> ax = rankviz.plots.slices(res)
    """
    frame = prepare_slices(data, measure=measure, order=order)
    return draw_slices(frame, style.axes(ax, "slices"), **kwargs)


def _table(data) -> tuple[pd.DataFrame, list[str], dict]:
    if isinstance(data, Comparison):
        raise InputError("slices plots means per segment: pass rankviz.bootstrap(..., by=...), not a comparison.")
    info: dict[str, Any] = {"level": None, "method": None}
    if isinstance(data, BootstrapResults):
        if not data.by:
            raise InputError(
                "slices plots intervals per segment: these bootstrap results have no segments. Pass by= to "
                "rankviz.bootstrap(...), or plot them with rankviz.plots.ci."
            )
        methods = {r.method for r in data}
        info = {"level": data.results[0].confidence_level, "method": methods.pop() if len(methods) == 1 else "bca"}
        data = data.to_frame().rename(columns={"estimate": "mean", "n_queries": "n"})
        by = list(data.columns[1 : list(data.columns).index("measure")])
    else:
        by = []
    table = data
    if not isinstance(table, pd.DataFrame):
        raise InputError(
            "slices plots the per-segment table of rankviz.bootstrap(..., by=...) or rankviz.evaluate(..., by=...). "
            f"Got {type(data).__name__} instead."
        )
    absent = [c for c in _FIELDS if c not in table.columns]
    if absent:
        raise ColumnError(
            f"slices: the table has no column {absent[0]!r}; its columns are {columns_text(table.columns)}."
        )
    if table.empty:
        raise InputError(
            "slices: the per-segment table is empty (no segment to draw). Slice with by= on queries the run "
            "holds, or check that the table was not filtered to nothing."
        )
    if not by:
        by = list(table.columns[1 : list(table.columns).index("measure")])
    return table, by, info


def prepare_slices(data, *, measure: str | None = None, order: str = "auto") -> pd.DataFrame:
    """The rows :func:`slices` draws: one per segment x system with ``y``, ``color``, ``mean``, ``ci_low``, ``ci_high``.

    ``attrs`` holds the tick positions and labels (one per segment, with its number of queries),
    the systems in legend order and the texts.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.slices import prepare_slices
    >>> table = pd.DataFrame({"system": ["a", "a", "b", "b"], "area": ["faq", "docs", "faq", "docs"],
    ...                       "measure": "RR@10", "n": [10, 30, 10, 30], "mean": [0.2, 0.6, 0.3, 0.5]})
    >>> frame = prepare_slices(table)
    >>> frame.attrs["labels"], frame[["system", "segment"]].values.tolist()
    (['docs (n 30)', 'faq (n 10)'], [['a', 'docs'], ['b', 'docs'], ['a', 'faq'], ['b', 'faq']])
    """
    order = check_choice(order, "order", "slices", ("auto", "segment", "mean"))
    table, by, info = _table(data)
    measures = list(dict.fromkeys(table["measure"].astype(str)))
    measure = measures[0] if measure is None else str(measure)
    if measure not in measures:
        raise InputError(f"slices: no measure {measure!r} in the table; it has {columns_text(measures)}.")
    rows = table[table["measure"].astype(str) == measure].copy()
    rows["segment"] = rows[by].astype(str).agg(", ".join, axis=1) if len(by) > 1 else rows[by[0]].astype(str)
    natural = list(dict.fromkeys(rows.sort_values(by, kind="mergesort")["segment"] if by else rows["segment"]))
    if order == "mean" or (order == "auto" and not all(_ORDERED.match(s) for s in natural)):
        by_mean = rows.groupby("segment", sort=False)["mean"].mean().sort_values(ascending=False, kind="mergesort")
        natural = [str(s) for s in by_mean.index]
    systems = list(dict.fromkeys(rows["system"].astype(str)))
    n_sys = len(systems)
    step = 0.8 / n_sys if n_sys > 1 else 0.0
    band = {s: i for i, s in enumerate(natural)}
    rows["band"] = rows["segment"].map(band)
    rows["color"] = rows["system"].astype(str).map({s: i for i, s in enumerate(systems)})
    rows["y"] = rows["band"] + (rows["color"] - (n_sys - 1) / 2) * step
    for column in ("ci_low", "ci_high"):
        if column not in rows.columns:
            rows[column] = np.nan
    counts = rows.groupby("segment")["n"].agg(["min", "max"])
    low, high = counts["min"].astype(int).to_dict(), counts["max"].astype(int).to_dict()
    labels = [f"{style.shorten(s, 30)} (n {low[s]}" + (f"-{high[s]})" if low[s] != high[s] else ")") for s in natural]
    frame = rows.sort_values(["band", "color"])[["segment", "system", "color", "y", "n", "mean", "ci_low", "ci_high"]]
    frame = frame.reset_index(drop=True)
    has_ci = bool(frame["ci_low"].notna().any())
    level = f"{info['level']:.0%} {info['method']} interval" if has_ci and info["level"] else "no interval"
    frame.attrs = {"ticks": list(range(len(natural))), "labels": labels, "systems": systems, "measure": measure,
                   "by": ", ".join(by), "level": level, "has_ci": has_ci}  # fmt: skip
    return frame


@style.literal_text
def draw_slices(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw :func:`prepare_slices`' rows on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.hlines`."""
    from matplotlib.lines import Line2D

    info = frame.attrs
    n_bands, n_sys = len(info["ticks"]), len(info["systems"])
    width = 3.5 + 0.25 * max(0, 8 - n_bands)
    style.grow_figure(ax, width=width, height=n_bands * max(BAND_INCHES, ROW_INCHES * n_sys) + 0.4)
    palette = style.colors(n_sys)
    colours = [palette[int(i)] for i in frame["color"]]
    for band in range(0, n_bands, 2):
        ax.axhspan(band - 0.5, band + 0.5, color="0.94", zorder=0, linewidth=0)
    if info["has_ci"]:
        ax.hlines(frame["y"], frame["ci_low"], frame["ci_high"],
                  **style.merge({"colors": colours, "linewidth": 2.0, "zorder": 2}, kwargs))  # fmt: skip
    size = 30 if n_sys <= 5 else 14
    ax.scatter(frame["mean"], frame["y"], color=colours, s=size, zorder=3, edgecolors="white", linewidths=0.6)
    ax.set_yticks(info["ticks"], info["labels"], fontsize="small")
    ax.set_ylim(n_bands - 0.5, -0.5)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel(f"{info['measure']} (mean, {info['level']})")
    ax.set_title(f"{info['measure']} by {info['by']}", fontsize="medium")
    if n_sys > 1:
        handles = [
            Line2D([], [], color=palette[i], marker="o", linewidth=2, label=style.shorten(s, 30))
            for i, s in enumerate(info["systems"])
        ]
        style.legend_outside(ax, handles=handles, title="system" + style.colour_note(n_sys))
    return ax
