"""Executed notebooks made fit to share: no stderr boxes, no temp paths, no widget views that need a kernel.

:func:`prepare_for_sharing` rewrites an executed notebook node before it is
exported to HTML (:func:`rankviz.report.notebook_to_html` calls it):

* a warning printed on stderr (``/tmp/ipykernel_123/456.py:3: TiesWarning: ...``
  and the source line under it) becomes a short styled note: what happened (the
  message, with any file path cut to its file name) and what to do;
* other stderr text becomes a plain note, paths cut the same way;
* an output that holds both an ipywidgets view and an HTML snapshot (rankviz's
  widgets offer one) keeps the snapshot only, and the saved widget state is
  dropped: the page then needs neither a kernel nor the widget manager's script
  from a CDN;
* the timing metadata nbclient records (execution timestamps) is removed, so that
  the same inputs give the same bytes.

:func:`figure_html` embeds a matplotlib figure as a PNG data URI without the
metadata that would change between builds; :func:`note` is the styled note.
Every user string is escaped.
"""

from __future__ import annotations

import base64
import html
import io
import re

__all__ = ["note", "notes_from_stderr", "prepare_for_sharing", "figure_html", "scrub_paths"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

#: what to do about each rankviz warning, when its message does not say it already
_ADVICE = {
    "TiesWarning": "Report the means with ties='expected', or look at df.rank.ties(...) to see which queries move.",
    "ClosedWorldWarning": "Pass qrels= to count relevant items the run did not retrieve.",
    "IdTypeWarning": "Give the run and the qrels ids of the same type (both str) to silence this.",
    "UnmatchedIdsWarning": "Check that the run and the qrels use the same query and document ids.",
    "DegenerateDataWarning": "Read the interval with care, or evaluate more queries.",
    "DuplicateTextWarning": "Give each query id one text.",
}

_WARNING_LINE = re.compile(
    r"^(?P<where>.*?):(?P<line>\d+): (?P<category>[A-Za-z_][\w.]*(?:Warning|Error)): (?P<message>.*)$"
)
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+@~-]+)+[\\/](?P<name>[\w.+@~-]+)")

_NOTE_STYLE = (
    "border-left:4px solid #d9a400;background:#fff8e1;padding:6px 10px;margin:4px 0;"
    "font-family:sans-serif;font-size:13px;line-height:1.4;color:#333"
)


def scrub_paths(text: str) -> str:
    """``text`` with every absolute file path cut to its file name (``/tmp/x/run.txt`` -> ``run.txt``).

    Examples
    --------
    >>> scrub_paths("/tmp/ipykernel_12/3.py: bad line in /work/data/run.txt")
    '3.py: bad line in run.txt'
    """
    return _PATH.sub(lambda m: m.group("name"), text)


_SAYS_WHAT_TO_DO = re.compile(r"\b(?:see|pass|use|give|report|check|rename|call)\b", re.IGNORECASE)


def note(message: str, *, category: str | None = None, advice: str | None = None) -> str:
    """A short styled note (HTML): what happened and, when the message does not say it, what to do.

    A message that lists the same finding for many systems or measures (parts joined
    by ``"; "``) shows its first part and how many more there are; the whole list
    is one click away (``<details>``).

    Examples
    --------
    >>> "what to do" in note("x <y>", category="ClosedWorldWarning")
    True
    >>> "what to do" in note("ties move it. See df.rank.ties(...)", category="TiesWarning")
    False
    >>> "&lt;y&gt;" in note("x <y>")
    True
    """
    message = scrub_paths(message)
    advice = advice if advice is not None else _ADVICE.get(category or "", "")
    label = "Note" if category is None else f"Note ({category})"
    parts = [p.strip() for p in _top_level_parts(message) if p.strip()]
    if len(message) > 400 and len(parts) > 1:
        more = f" (and {len(parts) - 1} more like it)"
        rest = "".join(f"<li>{html.escape(p)}</li>" for p in parts)
        body = (
            f"<b>{html.escape(label)}:</b> {html.escape(parts[0])}{html.escape(more)}"
            f"<details><summary>all {len(parts)}</summary><ul>{rest}</ul></details>"
        )
    else:
        body = f"<b>{html.escape(label)}:</b> {html.escape(message)}"
    if advice and not _SAYS_WHAT_TO_DO.search(message):
        body += f'<br><span style="color:#555"><i>what to do:</i> {html.escape(advice)}</span>'
    return f'<div class="rankviz-note" style="{_NOTE_STYLE}">{body}</div>'


def _top_level_parts(message: str) -> list[str]:
    """``message`` cut at each ``"; "`` outside brackets: a part's own ``(0.67-0.91 measured; see ...)`` stays whole.

    >>> _top_level_parts("a (x; y); b")
    ['a (x; y)', 'b']
    """
    parts, depth, start = [], 0, 0
    for i, c in enumerate(message):
        depth += c in "([{"
        depth -= c in ")]}"
        if depth <= 0 and message.startswith("; ", i):
            parts.append(message[start:i])
            start = i + 2
    return parts + [message[start:]]


def notes_from_stderr(text: str) -> list[str]:
    """The notes (HTML) for one stderr output: one per warning, one for any other text.

    A warning's source line (indented under it) is dropped: it shows code, not news.
    """
    notes, other = [], []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = _WARNING_LINE.match(lines[i])
        if match:
            message = [match.group("message")]
            i += 1
            while i < len(lines) and lines[i].startswith("  "):
                i += 1  # the source line of the warning
            category = match.group("category").rsplit(".", 1)[-1]
            notes.append(note(" ".join(message), category=category))
            continue
        if lines[i].strip():
            other.append(lines[i].strip())
        i += 1
    if other:
        notes.append(note(" ".join(other)))
    return notes


def _shared_output(output) -> list:
    """The outputs one output becomes in shared HTML."""
    from nbformat.v4 import new_output

    if output.get("output_type") == "stream" and output.get("name") == "stderr":
        return [
            new_output("display_data", data={"text/html": n, "text/plain": scrub_paths(output["text"])})
            for n in notes_from_stderr(output["text"])
        ]
    data = output.get("data")
    if data and WIDGET_VIEW in data and "text/html" in data:
        output["data"] = {key: value for key, value in data.items() if key != WIDGET_VIEW}
    return [output]


def prepare_for_sharing(nb):
    """Rewrite an executed notebook node in place for shared HTML (see the module docstring); returns it."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
        if cell.cell_type != "code":
            continue
        cell.outputs = [shared for output in cell.outputs for shared in _shared_output(output)]
    return nb


def figure_html(fig, *, dpi: int = 96, alt: str = "") -> str:
    """A matplotlib figure as an ``<img>`` with a PNG data URI, the same bytes for the same figure."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt, quote=True)}" src="data:image/png;base64,{data}" style="max-width:100%">'
