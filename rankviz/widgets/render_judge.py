"""HTML of the judging widget: the query, the document with the query's terms marked, progress, the snapshot.

Like :mod:`rankviz.widgets.render` (whose :func:`~rankviz.widgets.render.escape`
it uses), every user string goes through ``escape`` before it reaches markup: a
document's text is split into words and the text between them, each piece escaped,
and only the words of the query wrapped in ``<mark>``.

Examples
--------
>>> from rankviz.widgets import render_judge
>>> render_judge.highlight("Refund <b>policy</b> for refunds", "refund policy")
'<mark class="rankviz-term">Refund</mark> &lt;b&gt;<mark class="rankviz-term">policy</mark>&lt;/b&gt; for <mark class="rankviz-term">refunds</mark>'
>>> render_judge.progress_line({"judged": 37, "total": 120, "queries_done": 4, "queries": 30})
'<div class="rankviz-progress">37 of 120 judged, 4 of 30 queries done</div>'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .render import escape

__all__ = [
    "query_terms",
    "highlight",
    "judge_header",
    "document_panel",
    "progress_line",
    "judge_snapshot",
    "grade_class",
]

_WORD = re.compile(r"\w+", re.UNICODE)
#: words too common to be worth marking
_STOP = frozenset(
    "the and for with that this from are was were not but you your have has had can into its all any how what when "
    "where which who why does did will would should could there their then than them they our out use used using".split()
)


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ies", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def query_terms(query_text: str) -> set[str]:
    """The words of a query worth marking in a document (3+ characters, not a stop word), stemmed."""
    return {_stem(w) for w in _WORD.findall(str(query_text or "")) if len(w) >= 3 and w.lower() not in _STOP}


def highlight(text, query_text: str) -> str:
    """``text`` as HTML with each word of the query wrapped in ``<mark class="rankviz-term">`` (all of it escaped)."""
    text, terms = str(text or ""), query_terms(query_text)
    out, last = [], 0
    for match in _WORD.finditer(text):
        if _stem(match.group()) in terms:
            out.append(escape(text[last : match.start()]))
            out.append(f'<mark class="rankviz-term">{escape(match.group())}</mark>')
            last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)


def grade_class(grade: int) -> str:
    """The CSS class of a grade's button: ``rankviz-grade-2``, ``rankviz-grade-m1`` for -1."""
    return f"rankviz-grade-{'m' if grade < 0 else ''}{abs(int(grade))}"


def judge_header(item: Mapping | None) -> str:
    """The query of the current pair: its id, its text and the systems that retrieved the document."""
    if item is None:
        return '<div class="rankviz-judge-query"><b>Nothing left to judge</b> with these filters.</div>'
    systems = (
        f'<div style="color:#555;font-size:90%">retrieved by: {escape(item["systems"])}</div>'
        if item.get("systems")
        else ""
    )
    text = (
        f' &mdash; <span class="rankviz-query-text">{escape(item["query_text"])}</span>'
        if item.get("query_text")
        else ""
    )
    return (
        '<div class="rankviz-judge-query" style="font-size:115%;font-family:sans-serif">'
        f'query <b class="rankviz-query-id">{escape(item["query_id"])}</b>{text}{systems}</div>'
    )


def document_panel(item: Mapping | None, current_grade=None) -> str:
    """The document of the current pair: id, title, its text with the query's terms marked, its grade so far."""
    if item is None:
        return '<div class="rankviz-judge-doc"></div>'
    title = (
        f'<div style="font-weight:bold">{highlight(item["title"], item.get("query_text", ""))}</div>'
        if item.get("title")
        else ""
    )
    body = (
        highlight(item["text"], item.get("query_text", ""))
        if item.get("text")
        else "<i>(no text for this document)</i>"
    )
    grade = "" if current_grade is None else f' <span style="color:#555">(judged {escape(current_grade)} before)</span>'
    return (
        '<div class="rankviz-judge-doc" style="border:1px solid #ccc;padding:8px;margin:6px 0;font-family:sans-serif;'
        'max-height:24em;overflow:auto;white-space:pre-wrap;line-height:1.4">'
        f'<div style="color:#555">document <code class="rankviz-doc-id">{escape(item["doc_id"])}</code>{grade}</div>'
        f"{title}<div>{body}</div></div>"
    )


def progress_line(progress: Mapping, note: str = "") -> str:
    """``37 of 120 judged, 4 of 30 queries done`` (and a note: what was just saved or undone)."""
    text = f"{progress['judged']} of {progress['total']} judged, {progress['queries_done']} of {progress['queries']} queries done"
    extra = f' <span class="rankviz-judge-note" style="color:#555">{escape(note)}</span>' if note else ""
    return f'<div class="rankviz-progress">{escape(text)}{extra}</div>'


def judge_snapshot(
    item: Mapping | None,
    grades: Sequence[tuple[int, str]],
    progress: Mapping,
    per_query: Sequence[Mapping],
    more: int = 0,
) -> str:
    """The judging widget as static HTML: the current pair, the grade scale, the progress and a line per query shown.

    ``more`` is the number of queries left out of ``per_query`` (said under the table).
    """
    buttons = "".join(
        f'<button type="button" class="rankviz-grade {grade_class(g)}" disabled>{escape(label)}</button>'
        for g, label in grades
    )
    rows = "".join(
        f'<tr><td><code>{escape(q["query_id"])}</code></td><td style="text-align:right">{int(q["judged"])} of {int(q["total"])}</td></tr>'
        for q in per_query
    )
    return "".join(
        [
            '<div class="rankviz-static rankviz-judge" style="font-family:sans-serif">',
            judge_header(item),
            document_panel(item),
            f'<div class="rankviz-row">{buttons}</div>',
            progress_line(progress),
            '<table class="rankviz-judge-queries" style="border-collapse:collapse;font-size:90%">'
            f"<thead><tr><th>query</th><th>judged</th></tr></thead><tbody>{rows}</tbody></table>",
            f"<div><small>&hellip; and {int(more)} more queries</small></div>" if more > 0 else "",
            '<div class="rankviz-snapshot-note" style="color:#777;font-size:85%">Static copy of the judging widget as executed: '
            "judging needs a running kernel (the labels are in the store).</div>",
            "</div>",
        ]
    )
