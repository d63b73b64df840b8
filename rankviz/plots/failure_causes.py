"""Where a system fails: :func:`failure_causes`, the slices of :func:`rankviz.failure_slices` as bars.

:func:`prepare_failure_causes` picks the strongest slices and labels them (no
matplotlib); :func:`draw_failure_causes` draws each slice's failure share as a bar
beside a tick at the share outside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._core.checks import check_int, check_probability
from .._core.columns import check_number_cells
from .._errors import InputError
from . import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["failure_causes", "prepare_failure_causes", "draw_failure_causes"]

_NEEDED = ("attribute", "value", "n", "failure_share", "failure_share_outside", "q_value")


def failure_causes(data, *, n: int = 15, alpha: float = 0.05, ax=None, **kwargs) -> Axes:
    """The slices where a system fails most, strongest evidence on top.

    Parameters
    ----------
    data : DataFrame
        The output of :func:`rankviz.failure_slices`.
    n : int, default 15
        How many slices (the first ``n`` rows: the strongest evidence).
    alpha : float, default 0.05
        Slices with ``q_value < alpha`` are drawn in the loss colour, the others grey.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.barh`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt, rankviz
    >>> run, qrels, queries = rankviz.datasets.load_example()
    >>> table = rankviz.evaluate(run, "RR@10", qrels, per_query=True)
    >>> slices = rankviz.failure_slices(table, system="bm25", queries=queries)
    >>> ax = rankviz.plots.failure_causes(slices, n=8)
    """
    frame = prepare_failure_causes(data, n=n, alpha=alpha)
    return draw_failure_causes(frame, style.axes(ax, "failure_causes"), **kwargs)


def prepare_failure_causes(data, *, n: int = 15, alpha: float = 0.05) -> pd.DataFrame:
    """The rows :func:`failure_causes` draws: ``position`` (0 on top), ``label``, the shares, ``significant``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.failure_causes import prepare_failure_causes
    >>> slices = pd.DataFrame({"attribute": ["text", "source"], "value": ["refund", "faq"], "n": [12, 40],
    ...                        "failure_share": [0.5, 0.4], "failure_share_outside": [0.1, 0.1],
    ...                        "q_value": [0.01, 0.2]})
    >>> prepare_failure_causes(slices)[["label", "significant"]].to_dict("list")
    {'label': ['text: “refund” (n 12, q 0.01)', 'source = faq (n 40, q 0.2)'], 'significant': [True, False]}
    """
    caller = "failure_causes"
    n = check_int(n, "n", caller, low=1)
    alpha = check_probability(alpha, "alpha", caller)
    if not isinstance(data, pd.DataFrame) or any(c not in data.columns for c in _NEEDED):
        raise InputError(
            f"{caller} draws the table rankviz.failure_slices returns (columns {', '.join(_NEEDED)}). "
            f"Got {type(data).__name__} instead."
        )
    rows = data.head(n)
    check_number_cells(
        rows, ["n", "failure_share", "failure_share_outside", "q_value"], f"{caller} (the table of failure_slices)",
        whole=["n"],
    )  # fmt: skip
    labels = [
        (f"text: “{v}”" if a == "text" else f"{a} = {v}") for a, v in zip(rows["attribute"].astype(str), rows["value"])
    ]
    frame = pd.DataFrame(
        {
            "position": np.arange(len(rows)),
            "label": [
                f"{style.shorten(label)} (n {int(k)}, q {q:.2g})"
                for label, k, q in zip(labels, rows["n"], rows["q_value"])
            ],
            "failure_share": rows["failure_share"].to_numpy(dtype=float),
            "failure_share_outside": rows["failure_share_outside"].to_numpy(dtype=float),
            "significant": (rows["q_value"].to_numpy(dtype=float) < alpha),
        }
    )
    meta = data.attrs.get("rankviz", {}) if isinstance(data.attrs.get("rankviz"), dict) else {}
    frame.attrs = {"system": meta.get("system"), "measure": meta.get("measure", "the measure"),
                   "threshold": meta.get("threshold", 0.0), "alpha": alpha, "n_slices": len(data)}  # fmt: skip
    return frame


@style.literal_text
def draw_failure_causes(frame: pd.DataFrame, ax, **kwargs) -> Axes:
    """Draw :func:`prepare_failure_causes`' rows on ``ax``; ``kwargs`` go to :meth:`~matplotlib.axes.Axes.barh`."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    info = frame.attrs
    m = max(len(frame), 1)
    style.grow_figure(ax, width=4.0, height=m * style.LINE_INCHES * 1.6 + 0.3)
    y = frame["position"].to_numpy()
    colours = [style.color(style.LOSS) if s else style.color(style.TIE) for s in frame["significant"]]
    ax.barh(y, frame["failure_share"], **style.merge({"color": colours, "height": 0.7}, kwargs))
    ax.scatter(frame["failure_share_outside"], y, marker="|", s=200, color="0.1", zorder=3, linewidths=2)
    ax.set_yticks(y, frame["label"].tolist(), fontsize="small")
    ax.set_ylim(m - 0.5, -0.5)
    ax.set_xlim(0, 1.0)
    ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    threshold = info.get("threshold", 0.0)
    failing = f"{info['measure']} = 0" if threshold == 0 else f"{info['measure']} <= {threshold:g}"
    ax.set_xlabel(f"share of queries failing ({failing})")
    who = f" of {info['system']}" if info.get("system") else ""
    ax.set_title(f"Where it fails{who}: the {len(frame)} strongest slices", fontsize="medium")
    handles = [
        Patch(color=style.color(style.LOSS), label=f"in the slice, q < {info['alpha']:g}"),
        Patch(color=style.color(style.TIE), label="in the slice, not significant"),
        Line2D([], [], marker="|", linestyle="none", color="0.1", markersize=12, label="outside the slice"),
    ]
    style.legend_outside(ax, handles=handles)
    return ax
