"""HTML of the widgets: the one place where what the models return becomes markup.

The models (:class:`~rankviz.widgets.PlaygroundModel`,
:class:`~rankviz.widgets.ExplorerModel`) return numbers, dicts, sentences and
DataFrames; the widgets put what this module makes of them into ``ipywidgets.HTML``
outputs. Every value that reaches markup here goes through :func:`escape` (quotes
too, since values also end up in attributes), so no user string (query id or text,
document id, title or text, system name) can inject markup.

The CSS classes (``rankviz-number``, ``rankviz-ranked-list``, ``rankviz-relevant``,
``rankviz-measure-row``, ...) are what tests and the browser test look for.

Examples
--------
>>> from rankviz.widgets import render
>>> render.escape("<script>alert('x')</script>")
'&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;'
>>> render.format_value(1 / 3), render.format_value(float("nan"))
('0.3333', '–')
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import pandas as pd

from .._columns import is_missing

__all__ = [
    "RELEVANT_COLOR",
    "escape",
    "format_value",
    "shorten",
    "playground_card",
    "explanation",
    "relevant_count",
    "query_option",
    "query_header",
    "measure_table",
    "ranked_list_table",
    "status_line",
]

#: Background of a relevant row in the ranked-list table.
RELEVANT_COLOR = "#d4edda"
_BAR_COLOR = "#4c72b0"
_CELL_STYLE = "padding:2px 8px;border-bottom:1px solid #ddd;vertical-align:top;text-align:left"

#: measure family of the playground -> (label with {k}, tooltip)
_CARD_LABELS = {
    "RR": ("RR@{k}", "reciprocal rank of the first relevant result in the top k; the mean over queries is MRR"),
    "Success": ("Hit@{k}", "Success@k: 1 if any relevant result is in the top k"),
    "P": ("P@{k}", "precision: relevant results in the top k / k"),
    "R": ("R@{k}", "recall: relevant results in the top k / R (all relevant items)"),
    "AP": ("AP", "average precision over the whole list, divided by R"),
    "nDCG": ("nDCG@{k}", "normalised discounted cumulative gain (binary gains)"),
}


# ----------------------------------------------------------------------------- text


def escape(value) -> str:
    """Any value as text safe inside HTML elements and attributes (quotes escaped too)."""
    return html.escape(str(value), quote=True)


def format_value(value) -> str:
    """A measure value as shown: four decimals, an en dash when undefined (None, NaN)."""
    return "\u2013" if is_missing(value) else f"{float(value):.4f}"


def shorten(text, length: int) -> str:
    """``text`` with its whitespace collapsed, cut to ``length`` characters with an ellipsis.

    Examples
    --------
    >>> shorten("a  long\\n text", 8)
    'a long…'
    """
    text = " ".join(str(text).split())
    return text if len(text) <= length else text[: max(length - 1, 0)].rstrip() + "\u2026"


def query_option(value: float, query_id, text: str) -> str:
    """The plain-text label of a query in the explorer's list (a ``Select`` shows text, not HTML)."""
    return shorten(f"{value:.3f}  {query_id}  {text}", 90)


# ----------------------------------------------------------------------------- playground


def playground_card(family: str, value: float, k: int) -> str:
    """A measure card: its label (``RR@k``, ``Hit@k``, ...) with a tooltip, the value and a bar.

    Parameters
    ----------
    family : {'RR', 'Success', 'P', 'R', 'AP', 'nDCG'}
    value : float
        The measure's value in [0, 1] (NaN shows as a dash and an empty bar).
    k : int
        The cutoff named in the label.
    """
    label, note = _CARD_LABELS[family]
    width = 0.0 if is_missing(value) else max(0.0, min(1.0, float(value))) * 100
    return (
        f'<div title="{escape(note)}" style="min-width:7.5em;padding:2px 6px;font-family:sans-serif">'
        f'<div style="font-size:85%;color:#555">{escape(label.format(k=k))}</div>'
        f'<div class="rankviz-number" style="font-size:140%;font-weight:bold">{format_value(value)}</div>'
        f'<div style="background:#e5e5e5;height:5px"><div style="background:{_BAR_COLOR};height:5px;width:{width:.1f}%"></div></div>'
        "</div>"
    )


def explanation(sentences: Sequence[str]) -> str:
    """The playground's lesson: the model's sentences in one escaped block."""
    return f'<div class="rankviz-explanation">{escape(" ".join(sentences))}</div>'


def relevant_count(n_relevant: int, in_list: int, missed: int) -> str:
    """How many items are relevant, and how many of them the list holds."""
    return escape(f"R = {n_relevant} relevant ({in_list} in the list, {missed} missed)")


# ----------------------------------------------------------------------------- explorer


def query_header(query_id, system=None, text: str = "") -> str:
    """The query's id, its system (if any) and its text; a note when no query is selected."""
    if query_id is None:
        return '<div class="rankviz-query-header"><i>No query matches.</i></div>'
    parts = [f"<b>{escape(query_id)}</b>"]
    if system is not None:
        parts.append(f'<span style="color:#555">({escape(system)})</span>')
    if text:
        parts.append(f"&mdash; {escape(text)}")
    return '<div class="rankviz-query-header" style="font-size:110%">' + " ".join(parts) + "</div>"


def measure_table(values: Mapping[str, float], means: Mapping[str, float], first_relevant: int | None) -> str:
    """A query's measures next to its system's means, and the rank of its first relevant result.

    Parameters
    ----------
    values : mapping
        Measure name -> this query's value (the rows, in order).
    means : mapping
        Measure name -> the system's mean.
    first_relevant : int or None
        The rank of the first relevant result (None: none in the list).
    """
    first = "none in the ranked list" if first_relevant is None else f"rank {int(first_relevant)}"
    rows = "".join(
        f'<tr class="rankviz-measure-row" data-measure="{escape(name)}"><th style="text-align:left;padding-right:1em">{escape(name)}</th>'
        f'<td class="rankviz-value" style="text-align:right;padding-right:1em">{format_value(value)}</td>'
        f'<td style="text-align:right;color:#777">{format_value(means[name])}</td></tr>'
        for name, value in values.items()
    )
    return (
        '<table class="rankviz-measure-table" style="border-collapse:collapse;font-family:sans-serif">'
        '<thead><tr><th></th><th style="text-align:right;padding-right:1em">this query</th>'
        '<th style="text-align:right;color:#777">mean</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
        f'<div style="margin-top:4px">first relevant result: {escape(first)}</div>'
    )


def ranked_list_table(table: pd.DataFrame, snippet_length: int = 160) -> str:
    """A ranked list (as :func:`rankviz.ranked_list` returns it) as an HTML table.

    Rows carry the class ``rankviz-relevant`` (and a green background) when
    relevant, ``rankviz-nonrelevant`` otherwise, and ``rankviz-unjudged`` when the
    item has no judgement (not in the qrels, or judged with a negative grade, which
    trec_eval counts as unjudged); a line under the table counts them, since a low
    score over unjudged items may hide relevant ones. A ``score`` column adds a score
    cell; ``text`` (and ``title``) columns add a snippet of ``snippet_length``
    characters, the longer text in its tooltip.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"rank": [1], "doc_id": ["<d>"], "relevance": pd.array([None], dtype="Int64"),
    ...                       "relevant": [False]})
    >>> html = ranked_list_table(table)
    >>> "<code>&lt;d&gt;</code>" in html, "rankviz-unjudged" in html, "1 of these 1 items is unjudged" in html
    (True, True, True)
    """
    columns = ["rank", "doc id"] + (["score"] if "score" in table.columns else []) + ["relevance"]
    columns += ["snippet"] if "text" in table.columns else []
    out = [
        '<table class="rankviz-ranked-list" style="border-collapse:collapse;font-family:sans-serif;font-size:90%">',
        "<thead><tr>" + "".join(f'<th style="{_CELL_STYLE}">{name}</th>' for name in columns) + "</tr></thead><tbody>",
    ]
    unjudged = 0
    for row in table.to_dict("records"):
        judged = not is_missing(row["relevance"]) and row["relevance"] >= 0
        unjudged += not judged
        classes = ["rankviz-relevant" if row["relevant"] else "rankviz-nonrelevant"] + ([] if judged else ["rankviz-unjudged"])
        style = f' style="background:{RELEVANT_COLOR}"' if row["relevant"] else ""
        cells = [str(int(row["rank"])), f"<code>{escape(row['doc_id'])}</code>"]
        if "score" in row:
            cells.append(f"{float(row['score']):.6g}")
        cells.append(str(int(row["relevance"])) if judged else _unjudged_cell(row["relevance"]))
        if "text" in row:
            cells.append(_snippet(row.get("title", ""), row["text"], snippet_length))
        out.append(f'<tr class="{" ".join(classes)}"{style}>' + "".join(f'<td style="{_CELL_STYLE}">{c}</td>' for c in cells) + "</tr>")
    out.append("</tbody></table>")
    if table.empty:
        out.append("<div><i>This system retrieved nothing for this query.</i></div>")
    elif unjudged:
        verb = "is" if unjudged == 1 else "are"
        out.append(f'<div class="rankviz-unjudged-count" style="color:#555">{unjudged} of these {len(table)} items {verb} unjudged.</div>')
    return "".join(out)


def _unjudged_cell(grade) -> str:
    """The relevance cell of an unjudged item: not in the qrels, or judged with a negative grade."""
    if is_missing(grade):
        return '<span title="not judged" style="color:#999">unjudged</span>'
    return f'<span title="judged {int(grade)}: in the pool but unjudged (trec_eval)" style="color:#999">unjudged ({int(grade)})</span>'


def _snippet(title, text, length: int) -> str:
    shown = (f"<b>{escape(title)}</b> " if title else "") + escape(shorten(text, length))
    return f'<span title="{escape(shorten(text, 1000))}">{shown}</span>'


def status_line(status: Mapping, note: str = "") -> str:
    """One line under the explorer: what is listed, what fails, what the numbers cannot see.

    Parameters
    ----------
    status : mapping
        As :meth:`rankviz.widgets.ExplorerModel.status` returns it: ``listed``,
        ``total``, ``failing``, ``failure_measure``, ``unjudged``, ``closed_world``.
    note : str, default ''
        A sentence to add (e.g. what the *next failure* button found).
    """
    name = status["failure_measure"]
    parts = [f"{status['listed']} of {status['total']} queries listed; {status['failing']} with {name} = 0."]
    if status["unjudged"]:
        parts.append(f"{status['unjudged']} queries of the run have no judgements and are not listed.")
    if status["closed_world"]:
        parts.append("Judgements come from the rows given (closed world): unretrieved relevant items are invisible.")
    if note:
        parts.append(note)
    return '<div class="rankviz-status" style="color:#555">' + escape(" ".join(parts)) + "</div>"
