"""Drawing the per-query failures plot from the tidy frame ``prepare_failures`` returns."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from . import style

if TYPE_CHECKING:
    from collections.abc import Iterable

    from matplotlib.axes import Axes

__all__ = ["draw_failures"]


def _row_inches(slots: int, notes: bool) -> float:
    """Height of one query's row: its bars, and room for the note beside each bar when they are written."""
    return (0.3 if slots == 1 else 0.21 * slots) if notes else max(0.3, 0.05 * slots + 0.15)


@style.literal_text
def draw_failures(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw the bars of :func:`prepare_failures` on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.barh`.

    The figure grows until each query row has room for its bars and notes and the
    title fits over the Axes; the legend goes beside the Δ column.
    """
    info = frame.attrs
    slots = int(frame["slot"].max()) + 1 if len(frame) else 1
    queries = frame[frame["slot"] == 0]
    m = len(queries)
    notes = bool(frame["note"].notna().any())
    style.grow_figure(
        ax, width=max(4.5, style.text_inches(info["title"].split("\n"))), height=m * _row_inches(slots, notes) + 0.2
    )
    height = 0.75 / slots
    palette = style.colors(info["n_colors"])
    for slot, part in cast("Iterable[tuple[int, pd.DataFrame]]", frame.groupby("slot", sort=True)):
        y = part["position"].to_numpy(dtype=np.float64) + (slot - (slots - 1) / 2) * height
        bar_values = part["value"].to_numpy()
        color = palette[int(part["color"].iloc[0])]
        defaults = {"height": height, "color": color, "label": part["series"].iloc[0]}
        bars = ax.barh(y, np.nan_to_num(bar_values), **style.merge(defaults, kwargs))
        # A zero bar has no length: mark it, so "failed" is visible and not mistaken for "missing".
        zero = bar_values == 0
        if zero.any():
            ax.plot(
                np.zeros(int(zero.sum())),
                y[zero],
                linestyle="none",
                marker="x",
                color=color,
                markersize=max(3.0, min(7.0, 120 / (m * slots))),
                clip_on=False,
                zorder=3,
            )
        if notes:
            texts = ["" if pd.isna(note) else note for note in part["note"]]
            ax.bar_label(bars, labels=texts, padding=6, fontsize="x-small" if slots == 2 else "small", color="0.25")

    ax.set_yticks(
        queries["position"].tolist(), labels=queries["label"].tolist(), fontsize="small" if m <= 30 else "x-small"
    )
    for label, kind in zip(ax.get_yticklabels(), queries["kind"]):
        if kind == "zeros":
            label.set_fontstyle("italic")
    ax.set_ylim(m - 0.5, -0.5)  # worst on top
    ax.set_xlim(0, info["x_max"])
    if info["unit_ticks"]:
        ax.set_xticks(np.linspace(0, 1, 6))
    gap = _delta_column(ax, queries, info["delta_header"]) if info["baseline"] else 0.02
    ax.set_xlabel(info["xlabel"])
    ax.set_ylabel(info["ylabel"])
    ax.set_title(info["title"], fontsize="medium")
    if info["legend"]:
        style.legend_outside(ax, title=info["legend_title"], gap=gap)
    return ax


def _delta_column(ax, queries: pd.DataFrame, header: str) -> float:
    """Write each query's Δ right of the Axes, coloured by who wins, under ``header``; return the column's width in Axes widths."""
    from matplotlib.transforms import blended_transform_factory

    where = blended_transform_factory(ax.transAxes, ax.transData)
    colors = {"win": style.color(style.WIN), "loss": style.color(style.LOSS), "none": "0.45"}
    for y, text, sign in zip(queries["position"], queries["delta_text"], queries["delta_sign"]):
        ax.text(1.02, y, text, transform=where, va="center", ha="left", fontsize="small", color=colors[sign])
    ax.annotate(
        header,
        (1.02, 1.0),
        xycoords="axes fraction",
        xytext=(0, 4),
        textcoords="offset points",
        va="bottom",
        ha="left",
        fontsize="small",
        fontweight="bold",
    )
    axes_inches = ax.get_position().width * ax.get_figure().get_size_inches()[0]
    return 0.02 + (style.text_inches(queries["delta_text"], size=8.33) + 0.2) / axes_inches
