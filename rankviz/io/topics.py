"""Topic files: query texts from TREC topic XML, classic TREC (SGML) topics, or a two-column TSV.

The topic half of :mod:`rankviz.io` (layer 3); :func:`read_topics` is public there.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pandas as pd

from .._errors import TrecFormatError
from .validating_reader import comment_lines, read_text, warn_comments

__all__ = ["read_topics"]

_LABEL = {"num": "number", "title": "topic", "desc": "description", "narr": "narrative"}
_SGML_COLUMN = {"num": "query_id", "title": "text", "desc": "description", "narr": "narrative"}
_SGML_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z]+)\b[^>]*>")
_TOPIC_COLUMNS = ["query_id", "text", "question", "description", "narrative"]


def _topic_field(value: str | None, tag: str) -> str:
    """Whitespace collapsed, and the label TREC topics start the field with dropped ('Number: 301' -> '301')."""
    text = " ".join((value or "").split())
    label = _LABEL.get(tag)
    if label and text[: len(label) + 1].lower() == label + ":":
        text = text[len(label) + 1 :].lstrip()
    return text


def _xml_topics(name: str, text: str) -> list[dict]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise TrecFormatError(f"{name}: not well-formed topic XML ({exc}).") from None
    rows = []
    for topic in root.iter("topic"):
        rows.append(
            {
                "query_id": _topic_field(topic.get("number") or topic.findtext("num"), "num"),
                "text": _topic_field(topic.findtext("query") or topic.findtext("title"), "title"),
                "question": _topic_field(topic.findtext("question"), "question"),
                "description": _topic_field(topic.findtext("desc") or topic.findtext("description"), "desc"),
                "narrative": _topic_field(topic.findtext("narr") or topic.findtext("narrative"), "narr"),
            }
        )
    if not rows:
        raise TrecFormatError(f"{name}: no <topic> elements found.")
    unnamed = [i for i, row in enumerate(rows, start=1) if not row["query_id"]]
    if unnamed:
        raise TrecFormatError(
            f"{name}: <topic> number {unnamed[0]} of the file has no number attribute or <num> (its query id)."
        )
    return rows


def _sgml_topics(name: str, text: str) -> list[dict]:
    """Classic TREC topics: ``<top> <num> Number: 301 <title> ... <desc> Description: ... </top>``, not XML."""
    starts = [m.end() for m in re.finditer(r"<\s*top\s*>", text, flags=re.IGNORECASE)]
    rows = []
    for start, stop in zip(starts, starts[1:] + [len(text)]):
        block = re.split(r"<\s*/\s*top\s*>", text[start:stop], maxsplit=1, flags=re.IGNORECASE)[0]
        tags = list(_SGML_TAG.finditer(block))
        row = {}
        for tag, following in zip(tags, tags[1:] + [None]):
            key = tag.group(2).lower()
            if not tag.group(1) and key in _SGML_COLUMN:
                row[_SGML_COLUMN[key]] = _topic_field(block[tag.end() : following.start() if following else None], key)
        if not row.get("query_id"):
            line = text.count("\n", 0, start) + 1
            raise TrecFormatError(
                f"{name}, line {line}: a <top> topic without a <num> (its query id); add '<num> Number: ...'."
            )
        row.setdefault("text", row.get("description", ""))
        rows.append(row)
    return rows


def _tsv_topics(name: str, text: str, comments: bool) -> list[dict]:
    lines = text.split("\n")
    skipped = comment_lines(text) if comments else []
    comment_set = set(skipped)
    rows = []
    for index, line in enumerate(lines):
        if not line.strip() or index in comment_set:
            continue
        parts = line.split("\t", 1)
        if len(parts) != 2:
            raise TrecFormatError(f"{name}, line {index + 1}: expected 'query_id<TAB>text', found {line.strip()!r}.")
        rows.append({"query_id": parts[0].strip(), "text": parts[1].strip()})
    if skipped and rows:
        warn_comments(name, len(skipped), skipped[0] + 1, lines[skipped[0]])
    return rows


def _tab_separated(text: str) -> bool:
    """Whether a file that starts with '<' is 'query_id<TAB>text' lines (an id such as '<b>q1'), not XML.

    Every non-blank line has a tab, and the first field of the first line is not a whole tag
    (an XML line indented or separated by tabs has '>' before its tab).
    """
    lines = [line for line in text.splitlines() if line.strip()]
    return (
        bool(lines)
        and all("\t" in line for line in lines)
        and not lines[0].strip().split("\t", 1)[0].rstrip().endswith(">")
    )


def read_topics(path, *, comments: bool = True) -> pd.DataFrame:
    """Read query texts: TREC topic XML, classic TREC (SGML) topics, or a two-column TSV.

    Parameters
    ----------
    path : str or path-like
        The topic file, plain or compressed (gzip, bzip2, xz), in one of three forms:

        * XML with ``<topic number="1">`` (or ``<num>``) elements holding ``<query>``
          or ``<title>``, and optionally ``<question>``, ``<desc>``, ``<narr>``;
        * classic TREC topics, ``<top> <num> Number: 301 <title> ... <desc>
          Description: ... <narr> Narrative: ... </top>`` (SGML, not well-formed XML);
        * ``query_id<TAB>text`` lines (blank lines and ``#`` comments skipped as in
          :func:`read_run`; ``comments=False`` reads them as data).
    comments : bool, default True
        In a TSV file, skip blank lines and lines starting with ``#`` (with a
        warning naming them); ``False`` reads them as data.

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str) and ``text`` (str: the query or title, whitespace
        collapsed; a topic without a title gets its description), plus ``question``,
        ``description`` and ``narrative`` when the file has them. Labels that TREC
        topics start a field with (``Number:``, ``Topic:``, ``Description:``,
        ``Narrative:``) are dropped: ``<num> Number: 301`` gives the id ``'301'``.

    Raises
    ------
    TrecFormatError
        For XML that is not well formed (and has no ``<top>`` topics), a topic
        without a query id, or a TSV line without a tab, naming the file and line.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "topics.301")
    >>> _ = open(path, "w").write("<top>\\n<num> Number: 301\\n<title> Organized Crime & Drugs\\n"
    ...                           "<desc> Description:\\nWhich groups?\\n</top>\\n")
    >>> rankviz.read_topics(path)
      query_id                     text    description
    0      301  Organized Crime & Drugs  Which groups?
    """
    name, text = read_text(path)
    if re.search(r"<\s*top\s*>", text, flags=re.IGNORECASE):
        rows = _sgml_topics(name, text)
    elif text.lstrip().startswith("<") and not _tab_separated(text):
        rows = _xml_topics(name, text)
    else:
        rows = _tsv_topics(name, text, comments)
    frame = pd.DataFrame(
        [[row.get(c, "") for c in _TOPIC_COLUMNS] for row in rows], columns=_TOPIC_COLUMNS, dtype=object
    )
    if frame.empty:
        raise TrecFormatError(
            f"{name}: the file has no topics (expected TREC topic XML, <top> topics or 'query_id<TAB>text' lines)."
        )
    extra = [c for c in _TOPIC_COLUMNS[2:] if not frame[c].str.len().any()]
    return frame.drop(columns=extra).astype("str")
