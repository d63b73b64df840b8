"""HTML of the explorer's stage view: the selected query's relevant documents, their position at each stage.

What :class:`~rankviz.widgets.explorer_stages.StageView` returns becomes one table: a row per relevant
document, a column per stage (its position there, ``in`` for an unordered stage that holds it, ``—`` where
the stage does not hold it) and where it was lost. Like :mod:`rankviz.widgets.render` (whose
:func:`~rankviz.widgets.render.escape` it uses), every user string (document ids, stage names, the
explanation) is escaped.

Examples
--------
>>> import pandas as pd
>>> from rankviz.widgets import render_stages
>>> table = pd.DataFrame({"doc_id": ["<d>"], "retrieved": pd.array([3], dtype="Int64"),
...                       "context": pd.array([None], dtype="Int64"), "lost_at": ["context"], "reason": ["below depth"]})
>>> html = render_stages.stage_table(table, ("retrieved", "context"), (True, True), "q1: ...")
>>> "<code>&lt;d&gt;</code>" in html, "<td" in html and "\u2014" in html, "context (below depth)" in html
(True, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .render import RELEVANT_COLOR, escape

__all__ = ["stage_table", "position_cell", "NOT_HELD"]

#: what a stage that does not hold the document shows
NOT_HELD = "\u2014"
_CELL = "padding:2px 8px;border-bottom:1px solid #ddd;vertical-align:top;text-align:left"
_LOST_COLOR = "#f8d7da"


def position_cell(value, ordered: bool) -> str:
    """A document's place in one stage: its position, ``in`` (an unordered stage holds it) or an em dash."""
    if value is None or pd.isna(value):
        return NOT_HELD
    return str(int(value)) if ordered else "in"


def stage_table(
    table: pd.DataFrame, names: Sequence[str], ordered: Sequence[bool], sentence: str, best: str | None = None
) -> str:
    """The stage view of one query as HTML.

    Parameters
    ----------
    table : DataFrame
        :meth:`StageView.table <rankviz.widgets.explorer_stages.StageView.table>`: ``doc_id``, a column per
        stage, ``lost_at``, ``reason``.
    names, ordered : sequence
        The stages in pipeline order, and whether each is ranked.
    sentence : str
        The query's one-line explanation, shown above the table.
    best : str, optional
        The document the query is attributed by (marked ``rankviz-stage-best``, in bold).

    Returns
    -------
    str
        ``<div class="rankviz-stages">``: the sentence and the table (``rankviz-stage-table``), rows
        ``rankviz-stage-kept`` (green) or ``rankviz-stage-lost`` (red); a sentence when the query has no
        relevant document.
    """
    out = [
        '<div class="rankviz-stages" style="margin-top:6px;font-family:sans-serif;font-size:90%">',
        f'<div class="rankviz-stage-sentence"><b>stages:</b> {escape(sentence)}</div>',
    ]
    if table.empty:
        out.append("<div><i>No relevant document for this query in the stages.</i></div></div>")
        return "".join(out)
    heads = ["doc id", *names, "lost at"]
    out.append(
        '<table class="rankviz-stage-table" style="border-collapse:collapse">'
        + "<thead><tr>"
        + "".join(f'<th style="{_CELL}">{escape(h)}</th>' for h in heads)
        + "</tr></thead><tbody>"
    )
    for row in table.to_dict("records"):
        kept = row["lost_at"] == "kept"
        classes = ["rankviz-stage-kept" if kept else "rankviz-stage-lost"]
        doc = f"<code>{escape(row['doc_id'])}</code>"
        if best is not None and str(row["doc_id"]) == best:
            classes.append("rankviz-stage-best")
            doc = f"<b>{doc}</b>"
        cells = [doc, *(position_cell(row[n], o) for n, o in zip(names, ordered))]
        cells.append("kept" if kept else f"{escape(row['lost_at'])} ({escape(row['reason'])})")
        color = RELEVANT_COLOR if kept else _LOST_COLOR
        out.append(
            f'<tr class="{" ".join(classes)}" style="background:{color}">'
            + "".join(f'<td style="{_CELL}">{c}</td>' for c in cells)
            + "</tr>"
        )
    out.append("</tbody></table></div>")
    return "".join(out)
