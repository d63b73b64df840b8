"""The funnel of a multi-stage pipeline: :func:`funnel`, what is still present at each stage, with intervals.

:func:`prepare_funnel` reads one or several :class:`~rankviz.Stages` (``{system: stages}``) and lays out
one point per system x stage x measure, dodged within each stage (no matplotlib); :func:`draw_funnel`
draws it: stages left to right, the share of queries whose first relevant document is still there (solid)
and the recall of the relevant documents (dashed), each system in its colour, with its interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from .._errors import InputError
from . import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["funnel", "prepare_funnel", "draw_funnel"]

#: what each measure of the funnel is called on the plot, and how its line is drawn
LABELS = {"first_kept": "queries: first relevant document kept", "recall": "relevant documents kept (recall)"}
LINESTYLES = {"first_kept": "-", "recall": "--"}
#: inches of width per stage, and the share of a stage's slot the dodged systems spread over
STAGE_INCHES, SPREAD = 1.3, 0.5


def funnel(data, *, measures=("first_kept", "recall"), ax=None, **kwargs) -> Axes:
    """Stages left to right: the share of queries and of relevant documents still present, with intervals.

    Parameters
    ----------
    data : Stages, dict of Stages, or DataFrame
        What :func:`rankviz.stages` returns; ``{system name: Stages}`` to draw several pipelines (they
        need the same stage names); or a funnel table (``stage``, ``measure``, ``estimate``, ``ci_low``,
        ``ci_high``, optionally ``system``).
    measures : sequence of {'first_kept', 'recall'}, default both
        The share of queries whose first relevant document survives, and the recall of the relevant
        documents.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` (the lines).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import rankviz
    >>> pipeline = {"retrieved": {"q1": ["a", "b"], "q2": ["c", "d"]}, "context": {"q1": ["b"], "q2": ["c"]}}
    >>> result = rankviz.stages(pipeline, {"q1": ["a"], "q2": ["c"]}, n_resamples=100, rng=0)
    >>> ax = rankviz.plots.funnel(result)
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['retrieved', 'context']
    """
    frame = prepare_funnel(data, measures=measures)
    return draw_funnel(frame, style.axes(ax, "funnel"), **kwargs)


def _tables(data) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        table = data.copy()
        if "system" not in table.columns:
            table["system"] = "pipeline"
        return table
    if hasattr(data, "funnel") and hasattr(data, "names"):
        return data.funnel().assign(system="pipeline")
    if isinstance(data, Mapping) and data and all(hasattr(v, "funnel") for v in data.values()):
        names = {tuple(v.names) for v in data.values()}
        if len(names) > 1:
            raise InputError(
                "funnel: the pipelines have different stages ("
                + "; ".join(f"{k!r}: {' → '.join(v.names)}" for k, v in data.items())
                + "); name the stages alike to draw them on one plot."
            )
        return pd.concat([v.funnel().assign(system=str(k)) for k, v in data.items()], ignore_index=True)
    raise InputError(
        "funnel plots what rankviz.stages returns, a dict {system: rankviz.stages(...)} or a funnel table. "
        f"Got {type(data).__name__} instead."
    )


def prepare_funnel(data, *, measures=("first_kept", "recall")) -> pd.DataFrame:
    """The points of :func:`funnel`: one row per system x stage x measure.

    Returns
    -------
    DataFrame
        ``system``, ``stage``, ``measure``, ``label`` (the measure's legend text), ``estimate``,
        ``ci_low``, ``ci_high``, ``stage_index`` (0, 1, ... left to right), ``x`` (dodged by system),
        ``color`` (the system's palette position) and ``linestyle``.
    """
    measures = [measures] if isinstance(measures, str) else list(measures)
    unknown = [m for m in measures if m not in LABELS]
    if unknown or not measures:
        raise InputError(f"funnel: measures must be among {list(LABELS)}; got {measures!r}.")
    table = _tables(data)
    table = table[table["measure"].isin(measures)]
    stages = list(dict.fromkeys(table["stage"].astype(str)))
    systems = list(dict.fromkeys(table["system"].astype(str)))
    n = len(systems)
    offsets = np.linspace(-SPREAD / 2, SPREAD / 2, n) if n > 1 else np.zeros(1)
    out = pd.DataFrame(
        {
            "system": table["system"].astype(str).to_numpy(),
            "stage": table["stage"].astype(str).to_numpy(),
            "measure": table["measure"].astype(str).to_numpy(),
            "estimate": table["estimate"].to_numpy(dtype=float),
            "ci_low": table["ci_low"].to_numpy(dtype=float),
            "ci_high": table["ci_high"].to_numpy(dtype=float),
        }
    )
    out["label"] = out["measure"].map(LABELS)
    out["stage_index"] = out["stage"].map({s: i for i, s in enumerate(stages)}).astype(int)
    system_index = out["system"].map({s: i for i, s in enumerate(systems)}).astype(int)
    out["x"] = out["stage_index"] + offsets[system_index.to_numpy()]
    out["color"] = system_index
    out["linestyle"] = out["measure"].map(LINESTYLES)
    order = {m: i for i, m in enumerate(measures)}
    return out.sort_values(
        ["color", "measure", "stage_index"], key=lambda c: c.map(order) if c.name == "measure" else c, kind="stable"
    ).reset_index(drop=True)


@style.literal_text
def draw_funnel(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw the points of :func:`prepare_funnel` on ``ax``."""
    from matplotlib.lines import Line2D

    stages = frame.drop_duplicates("stage_index").sort_values("stage_index")["stage"].tolist()
    systems = frame.drop_duplicates("color").sort_values("color")["system"].tolist()
    palette = style.colors(len(systems))
    style.grow_figure(ax, width=max(4.0, STAGE_INCHES * len(stages)))
    for (color, _measure), part in frame.groupby(["color", "measure"], sort=False):
        rgb = palette[int(cast(int, color))]
        options = style.merge(
            {"color": rgb, "linestyle": part["linestyle"].iloc[0], "marker": "o", "markersize": 4, "linewidth": 1.3},
            kwargs,
        )
        ax.plot(part["x"], part["estimate"], **options)
        ax.vlines(part["x"], part["ci_low"], part["ci_high"], color=rgb, linewidth=1.0, alpha=0.8)
    ax.set_xticks(range(len(stages)))
    ax.set_xticklabels([style.shorten(s, 18) for s in stages])
    ax.set_xlim(-0.5, len(stages) - 0.5)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("share still present")
    ax.set_xlabel("stage")
    ax.grid(axis="y", alpha=0.3)
    handles = (
        [
            Line2D([], [], color=palette[i], marker="o", linestyle="-", label=style.shorten(s))
            for i, s in enumerate(systems)
        ]
        if len(systems) > 1
        else []
    )
    handles += [
        Line2D([], [], color="0.3", linestyle=cast(Any, LINESTYLES[m]), label=LABELS[m])
        for m in dict.fromkeys(frame["measure"])
    ]
    title = "systems and measures" + style.colour_note(len(systems)) if len(systems) > 1 else None
    style.legend_outside(ax, handles=handles, title=title)
    return ax
