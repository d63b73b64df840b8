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

from .._core.columns import is_missing

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
    "playground_states",
    "playground_snapshot",
    "explorer_snapshot",
    "side_by_side",
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
        f'<div style="background:#e5e5e5;height:5px"><div class="rankviz-bar" style="background:{_BAR_COLOR};height:5px;width:{width:.1f}%"></div></div>'
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
    columns += ["moved"] if "moved" in table.columns else []
    out = [
        '<table class="rankviz-ranked-list" style="border-collapse:collapse;font-family:sans-serif;font-size:90%">',
        "<thead><tr>" + "".join(f'<th style="{_CELL_STYLE}">{name}</th>' for name in columns) + "</tr></thead><tbody>",
    ]
    unjudged = 0
    for row in table.to_dict("records"):
        judged = not is_missing(row["relevance"]) and row["relevance"] >= 0
        unjudged += not judged
        classes = ["rankviz-relevant" if row["relevant"] else "rankviz-nonrelevant"] + (
            [] if judged else ["rankviz-unjudged"]
        )
        style = f' style="background:{RELEVANT_COLOR}"' if row["relevant"] else ""
        cells = [str(int(row["rank"])), f"<code>{escape(row['doc_id'])}</code>"]
        if "score" in row:
            cells.append(f"{float(row['score']):.6g}")
        cells.append(str(int(row["relevance"])) if judged else _unjudged_cell(row["relevance"]))
        if "text" in row:
            cells.append(_snippet(row.get("title", ""), row["text"], snippet_length))
        if "moved" in row:
            cells.append(_moved_cell(row["moved"]))
        out.append(
            f'<tr class="{" ".join(classes)}"{style}>'
            + "".join(f'<td style="{_CELL_STYLE}">{c}</td>' for c in cells)
            + "</tr>"
        )
    out.append("</tbody></table>")
    if table.empty:
        out.append("<div><i>This system retrieved nothing for this query.</i></div>")
    elif unjudged:
        verb = "is" if unjudged == 1 else "are"
        out.append(
            f'<div class="rankviz-unjudged-count" style="color:#555">{unjudged} of these {len(table)} items {verb} unjudged.</div>'
        )
    return "".join(out)


def _moved_cell(text: str) -> str:
    """A relevant document's rank in the other list: ▲ moved up, ▼ down, new or gone (class rankviz-moved-*)."""
    if not text:
        return ""
    kind = "up" if text.startswith("\u25b2") else "down" if text.startswith("\u25bc") else "new"
    colour = {"up": "#0173b2", "down": "#de8f05", "new": "#555"}[kind]
    return f'<b class="rankviz-moved rankviz-moved-{kind}" style="color:{colour}">{escape(text)}</b>'


def side_by_side(system_table, baseline_table, system: str, baseline: str, snippet_length: int = 160) -> str:
    """The baseline's ranked list beside the system's (tables from ``ExplorerModel.side_by_side``), moved relevant rows marked."""
    halves = [(baseline, baseline_table, "baseline"), (system, system_table, "system")]
    return (
        '<div class="rankviz-side-by-side" style="display:flex;gap:1.5em;align-items:flex-start">'
        + "".join(
            f'<div class="rankviz-side-{role}"><div><b>{escape(name)}</b> ({role})</div>'
            f"{ranked_list_table(table, snippet_length)}</div>"
            for name, table, role in halves
        )
        + "</div>"
    )


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


# ----------------------------------------------------------------------------- static snapshots
#
# A rendered notebook has no kernel, and rankviz's shared HTML loads nothing from the network,
# so the ipywidgets views cannot render there. Each widget therefore also offers a ``text/html``
# snapshot of its executed state (the notebook renderer keeps it and drops the widget view). The
# snapshot carries the same CSS classes as the live widget, and a few lines of script (no library)
# that replay what was computed in Python: the playground's measures for every toggle state, and
# the explorer's first queries. Nothing is computed in the browser.

_SNAPSHOT_STYLE = (
    "<style>"
    ".rankviz-static{font-family:sans-serif;font-size:14px;line-height:1.35}"
    ".rankviz-static .rankviz-row{display:flex;flex-wrap:wrap;gap:6px;align-items:flex-start;margin:4px 0}"
    ".rankviz-static button{font:inherit;padding:3px 9px;border:1px solid #bbb;border-radius:3px;background:#f5f5f5;cursor:pointer}"
    ".rankviz-static button.rankviz-on{background:#5cb85c;border-color:#4cae4c;color:#fff}"
    ".rankviz-static button:disabled{cursor:default;color:#888}"
    ".rankviz-static .rankviz-control{border:1px solid #ddd;border-radius:3px;padding:2px 8px;background:#fafafa}"
    ".rankviz-static .rankviz-query-list{list-style:none;margin:0;padding:0;min-width:24em;max-width:34em}"
    ".rankviz-static .rankviz-query-list button{display:block;width:100%;text-align:left;border:0;border-bottom:1px solid #eee;"
    "border-radius:0;background:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
    ".rankviz-static .rankviz-query-list button.rankviz-selected{background:#e3ecf7;font-weight:bold}"
    ".rankviz-static .rankviz-snapshot-note{color:#666;font-size:85%;margin-top:4px}"
    "</style>"
)

# Replays precomputed states; reads only the JSON next to it and writes text (never markup from data).
_PLAYGROUND_SCRIPT = """<script>(function () {
  var root = document.currentScript.parentElement;
  var data = JSON.parse(root.querySelector("script.rankviz-states").textContent);
  var mask = data.mask;
  function show() {
    var s = data.states[mask], m = data.families.length;
    root.querySelectorAll("button.rankviz-toggle").forEach(function (b, i) {
      var on = (mask >> i) & 1;
      b.classList.toggle("rankviz-on", !!on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.textContent = (i + 1) + (on ? " \\u2713" : "");
    });
    data.families.forEach(function (f, i) {
      var card = root.querySelector(".rankviz-measure-" + f), v = s[i];
      card.querySelector(".rankviz-number").textContent = v === null ? "\u2013" : v.toFixed(4);
      card.querySelector(".rankviz-bar").style.width = (v === null ? 0 : Math.max(0, Math.min(1, v)) * 100).toFixed(1) + "%";
    });
    root.querySelector(".rankviz-relevant-count").textContent = data.counts[s[m]];
    root.querySelector(".rankviz-explanation").textContent = s[m + 1].map(function (j) { return data.sentences[j]; }).join(" ");
  }
  root.querySelectorAll("button.rankviz-toggle").forEach(function (b, i) {
    b.addEventListener("click", function () { mask ^= 1 << i; show(); });
  });
})();</script>"""

_EXPLORER_SCRIPT = """<script>(function () {
  var root = document.currentScript.parentElement;
  var items = root.querySelectorAll(".rankviz-query-list button");
  var panels = root.querySelectorAll(".rankviz-panel");
  var tables = root.querySelectorAll(".rankviz-panel-table");
  var current = 0;
  function show(i) {
    current = i;
    items.forEach(function (b, j) { b.classList.toggle("rankviz-selected", j === i); });
    panels.forEach(function (p, j) { p.hidden = j !== i; });
    tables.forEach(function (p, j) { p.hidden = j !== i; });
  }
  items.forEach(function (b, i) { b.addEventListener("click", function () { show(i); }); });
  var next = root.querySelector("button.rankviz-next-failure");
  if (next) next.addEventListener("click", function () {
    for (var step = 1; step <= items.length; step++) {
      var j = (current + step) % items.length;
      if (items[j].dataset.failure === "1") { show(j); return; }
    }
  });
})();</script>"""


def _json_for_script(value) -> str:
    """JSON that is safe inside a ``<script>`` element (no ``</``, no ``<!--``)."""
    import json

    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")


def playground_states(families: Sequence[str], table: Mapping) -> dict:
    """The JSON the playground snapshot replays, from :meth:`~rankviz.widgets.PlaygroundModel.toggle_states`.

    Per state (bit ``i`` of the index = rank ``i + 1`` relevant): the values rounded
    to the four decimals shown (``null`` when undefined), then an index into the
    shared count lines and the indexes of its sentences in the shared sentence list.
    """
    counts: dict[str, int] = {}
    sentences: dict[str, int] = {}
    states = []
    for values, (n_relevant, in_list, missed), lesson in zip(table["values"], table["counts"], table["sentences"]):
        count = html.unescape(relevant_count(n_relevant, in_list, missed))
        shown = [None if is_missing(v) else round(float(v), 4) for v in values]
        states.append(
            shown + [counts.setdefault(count, len(counts)), [sentences.setdefault(t, len(sentences)) for t in lesson]]
        )
    return {
        "mask": int(table["mask"]),
        "families": list(families),
        "states": states,
        "counts": list(counts),
        "sentences": list(sentences),
    }


def playground_snapshot(state: Mapping, states: Mapping | None = None) -> str:
    """The playground as static HTML: toggles, k and missed, the measure cards and the explanation.

    Parameters
    ----------
    state : mapping
        The shown state: ``n``, ``relevant_ranks``, ``k``, ``unretrieved``, ``values``
        (family -> value), ``n_relevant`` and ``sentences``.
    states : mapping, optional
        Every toggle state at this ``k`` and ``missed``, from :func:`playground_states`;
        with it the toggles work in the page without a kernel.
    """
    n, k, ranks = int(state["n"]), int(state["k"]), set(state["relevant_ranks"])
    toggles = "".join(
        f'<button type="button" class="rankviz-toggle rankviz-toggle-{r}{" rankviz-on" if r in ranks else ""}" '
        f'aria-pressed="{"true" if r in ranks else "false"}"{"" if states else " disabled"}>'
        f"{r}{' &#x2713;' if r in ranks else ''}</button>"
        for r in range(1, n + 1)
    )
    cards = "".join(
        f'<div class="rankviz-measure rankviz-measure-{escape(family)}{" rankviz-mrr" if family == "RR" else ""}">'
        f"{playground_card(family, value, k)}</div>"
        for family, value in state["values"].items()
    )
    in_list = len(ranks)
    count = relevant_count(state["n_relevant"], in_list, state["unretrieved"])
    works = "the toggles work here; k and missed need a running kernel" if states else "open it in Jupyter to interact"
    parts = [
        '<div class="rankviz-static rankviz-playground">',
        _SNAPSHOT_STYLE,
        "<div><b>Mark the relevant results</b> (rank 1 is the top of the list):</div>",
        f'<div class="rankviz-row">{toggles}</div>',
        f'<div class="rankviz-row"><span class="rankviz-control rankviz-k">k = {k}</span>'
        f'<span class="rankviz-control rankviz-n-relevant">missed = {int(state["unretrieved"])}</span>'
        f'<span class="rankviz-relevant-count">{count}</span></div>',
        f'<div class="rankviz-row">{cards}</div>',
        f'<div class="rankviz-lesson">{explanation(state["sentences"])}</div>',
        f'<div class="rankviz-snapshot-note">Static copy of the widget as executed ({works}).</div>',
    ]
    if states:
        parts.append(f'<script type="application/json" class="rankviz-states">{_json_for_script(states)}</script>')
        parts.append(_PLAYGROUND_SCRIPT)
    parts.append("</div>")
    return "".join(parts)


def explorer_snapshot(controls: Mapping, items: Sequence[Mapping], status: str) -> str:
    """The explorer as static HTML: its controls as executed, the first queries and their ranked lists.

    Parameters
    ----------
    controls : mapping
        ``system``, ``order``, ``k``, ``search`` and ``listed`` (how many queries the live list holds).
    items : sequence of mapping
        The first queries of the list, worst first: ``label`` (plain text), ``failure``
        (bool), ``panel`` (HTML from :func:`query_header` and :func:`measure_table`)
        and ``table`` (HTML from :func:`ranked_list_table`). The first is shown; the
        others show on a click.
    status : str
        HTML from :func:`status_line`.
    """
    buttons = "".join(
        f'<li><button type="button" class="rankviz-query-option{" rankviz-selected" if i == 0 else ""}" '
        f'data-failure="{1 if item["failure"] else 0}" title="{escape(item["label"])}">{escape(item["label"])}</button></li>'
        for i, item in enumerate(items)
    )
    panels = "".join(
        f'<div class="rankviz-panel"{" hidden" if i else ""}>{item["panel"]}</div>' for i, item in enumerate(items)
    )
    tables = "".join(
        f'<div class="rankviz-panel-table"{" hidden" if i else ""}>{item["table"]}</div>'
        for i, item in enumerate(items)
    )
    more = int(controls["listed"]) - len(items)
    more_note = f"<li><small>&hellip; and {more} more queries in the live widget</small></li>" if more > 0 else ""
    search = f" &ldquo;{escape(controls['search'])}&rdquo;" if controls.get("search") else ""
    return "".join(
        [
            '<div class="rankviz-static rankviz-explorer">',
            _SNAPSHOT_STYLE,
            '<div class="rankviz-row">'
            f'<span class="rankviz-control rankviz-system">system: {escape(controls["system"])}</span>'
            f'<span class="rankviz-control rankviz-order">worst by: {escape(controls["order"])}</span>'
            f'<span class="rankviz-control rankviz-k">k = <span class="widget-readout">{int(controls["k"])}</span></span>'
            f'<span class="rankviz-control rankviz-search">search{search or ": (none)"}</span>'
            '<button type="button" class="rankviz-next-failure">next failure &#x25B6;</button></div>',
            f'<div class="rankviz-row"><ol class="rankviz-query-list rankviz-queries">{buttons}{more_note}</ol>'
            f'<div class="rankviz-panels">{panels}</div></div>',
            tables,
            status,
            f'<div class="rankviz-snapshot-note">Static copy of the widget as executed: {len(items)} queries of its list '
            "(worst first, from the one selected) can be read here; system, k, worst by and search need a running "
            "kernel.</div>",
            _EXPLORER_SCRIPT,
            "</div>",
        ]
    )
