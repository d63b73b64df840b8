"""What a TREC line must look like, and the locator that names the first line that does not.

The small half of :mod:`rankviz.io.trec_reader` (layer 3). :class:`Shape` declares a
kind of line (a run, qrels or MS MARCO run line): its fields, the ones kept, the
numbers among them and how messages name them. The reader checks whole blocks at
once; when a block fails a check, :func:`locate` reads that block again line by line
and names the first bad line: the file, the line number, what is wrong, and the line.

A line, as trec_eval 10 reads it (``get_trec_results.c``, ``get_qrels.c``): fields are
separated by runs of the C locale's ``isspace`` characters (space, tab, CR, LF,
vertical tab, form feed), so tabs, doubled spaces, trailing blanks and CRLF line ends
are separators. rankviz refuses what trec_eval would read differently from how the
file looks: a Unicode space (no-break space, ...), a C0 separator, a NUL byte or a
byte-order mark inside the file, and a CR inside a line (old Mac line ends). An
integer field is written as an integer (``2``, ``+2``, ``-1``, ``2.0``) with
``|value| <= 2**53``, so that it is exact in float64 (trec_eval's ``atol`` would read
``1.7`` as 1); a score is a finite decimal number, correctly rounded (``nan``,
``inf``, ``1e400`` and hexadecimal floats are refused where ``atof`` would take them).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

from .._core.long_run import MAX_EXACT
from .._errors import TrecFormatError

__all__ = [
    "Shape",
    "RUN",
    "QRELS",
    "MSMARCO_RUN",
    "INTEGER",
    "DECIMAL",
    "FOREIGN",
    "SEPARATORS",
    "first_data_line",
    "shown",
    "locate",
]

#: an integer field and a score, as rankviz reads them
INTEGER = r"[+-]?[0-9]+(?:\.0*)?"
DECIMAL = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
SEPARATORS = " \t\n\v\f\r"  # isspace() in the C locale: trec_eval's field separators
#: characters Python's str.split() splits on that C's isspace() does not, a byte-order mark, and NUL
FOREIGN = re.compile("[\x00\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")
#: a CR followed, on the same line, by more than separators: old Mac line ends
INNER_CR = re.compile(r"\r[ \t\v\f\r]*[^ \t\v\f\r\n]")
_INTEGER, _DECIMAL = re.compile(INTEGER), re.compile(DECIMAL)
_LOOKS = {(6, 4): " It looks like a run file.", (4, 6): " It looks like a qrels file, not a run."}


@dataclasses.dataclass(frozen=True)
class Shape:
    """One kind of TREC line: ``names`` its fields in order, ``keep`` those read, ``numbers`` the numeric ones kept
    (name -> label in messages, in the order they are checked), ``extra`` whether more fields may follow (ignored)."""

    what: str
    names: tuple[str, ...]
    keep: tuple[str, ...]
    numbers: dict[str, str]
    expected: str
    extra: bool

    def integer(self, field: str) -> bool:
        return field != "score"


RUN = Shape(
    "run",
    ("query_id", "Q0", "doc_id", "rank", "score", "tag"),
    ("query_id", "doc_id", "rank", "score", "tag"),
    {"score": "score (5th)", "rank": "rank (4th)"},
    "query_id Q0 doc_id rank score tag",
    True,
)
QRELS = Shape(
    "qrels",
    ("query_id", "iteration", "doc_id", "relevance"),
    ("query_id", "iteration", "doc_id", "relevance"),
    {"relevance": "relevance (4th)"},
    "query_id iteration doc_id relevance",
    False,
)
MSMARCO_RUN = Shape(
    "MS MARCO run",
    ("query_id", "doc_id", "rank"),
    ("query_id", "doc_id", "rank"),
    {"rank": "rank (3rd)"},
    "qid<TAB>pid<TAB>rank",
    False,
)


def is_comment(line: str) -> bool:
    """Whether the line's first non-blank character is ``#`` (a comment, as in trec_eval 10)."""
    return line.lstrip(" \t\v\f\r").startswith("#")


def first_data_line(block: bytes, comments: bool) -> str | None:
    """The block's first line that is neither blank nor (with ``comments``) a comment, decoded; None if none.

    >>> first_data_line(b"# c\\n\\n  q1 0 d1 1\\n", True)
    'q1 0 d1 1'
    """
    start = 0
    while start < len(block):
        end = block.find(b"\n", start)
        line = block[start : None if end < 0 else end].decode("utf-8", "replace").strip(SEPARATORS)
        if line and not (comments and line.startswith("#")):
            return line
        if end < 0:
            break
        start = end + 1
    return None


def shown(line: str) -> str:
    """The line as messages quote it: without its surrounding whitespace, at most 200 characters."""
    line = line.strip(SEPARATORS)
    return line if len(line) <= 200 else line[:200] + "..."


def _character(line: str) -> str | None:
    """What is wrong with the line's characters (see the module docstring), or None."""
    found, inner_cr = FOREIGN.search(line), INNER_CR.search(line)
    if inner_cr is not None and (found is None or inner_cr.start() < found.start()):
        return (
            "a carriage return (CR) inside the line, as old Mac files end their lines; trec_eval reads a CR as a "
            "space, so the lines around it would run together. Save the file with LF or CRLF line ends"
        )
    if found is None:
        return None
    char = found.group()
    if char == "\x00":
        what = "a NUL byte (a binary file, or UTF-16 text without a byte-order mark?)"
    elif char == "\ufeff":
        what = "a byte-order mark (U+FEFF) inside the file (were files concatenated?); delete it"
    else:
        what = (
            f"{unicodedata.name(char, 'a control character')} (U+{ord(char):04X}), which trec_eval does not read as "
            "a field separator, so it would become part of a field; replace it with a space"
        )
    return f"the line contains {what}"


def _number(value: str, label: str, integer: bool) -> str | None:
    """What is wrong with a numeric field's text, or None."""
    if integer:
        if not _INTEGER.fullmatch(value):
            return f"the {label} field must be an integer, found {value!r}"
        if abs(int(value.split(".")[0])) > MAX_EXACT:
            return (
                f"the {label} field must be an integer within +-2**53 (+-{MAX_EXACT}, where float64 stops being "
                f"exact), found {value!r}"
            )
        return None
    if not _DECIMAL.fullmatch(value):
        word = value.lower().lstrip("+-")
        hint = (
            f" (trec_eval's atof would read it as {'NaN' if word == 'nan' else 'infinity'}, which ranks nowhere; "
            "give every document a finite score)"
            if word in ("nan", "inf", "infinity")
            else ""
        )
        return f"the {label} field must be a finite number, found {value!r}{hint}"
    if abs(float(value)) == float("inf"):
        return f"the {label} field must be a finite number, found {value!r} (too large for a float64)"
    return None


def line_problem(line: str, shape: Shape) -> str | None:
    """What is wrong with one line (not a comment, not blank), as the message says it; None for a good line."""
    problem = _character(line)
    if problem is not None:
        return problem
    fields = line.split()  # after _character, str.split() splits exactly at the C locale's isspace()
    n = len(shape.names)
    if len(fields) < n or (len(fields) > n and not shape.extra):
        found = len(fields)
        hint = "." + _LOOKS[found, n] if (found, n) in _LOOKS else ("" if found < n else ".")
        # the line is appended by the caller: the hint goes after it
        return f"expected {n} whitespace-separated fields '{shape.expected}', found {found}\0{hint}"
    for field, label in shape.numbers.items():
        problem = _number(fields[shape.names.index(field)], label, shape.integer(field))
        if problem is not None:
            return problem
    return None


def locate(name: str, text: str, first_line: int, shape: Shape, comments: bool) -> TrecFormatError | None:
    """The error naming the first bad line of ``text`` (lines ``first_line``, ``first_line + 1``, ... of the file).

    None when every line is good. Comment lines (when ``comments``) and blank lines are skipped.

    >>> str(locate("r.txt", "q1 Q0 d1 1 2.5 t\\n\\nq1 Q0 d2 2 nan t\\n", 7, RUN, True))[:75]
    "r.txt, line 9: the score (5th) field must be a finite number, found 'nan' ("
    """
    for number, line in enumerate(text.split("\n"), start=first_line):
        if (comments and is_comment(line)) or not line.strip(SEPARATORS):
            continue
        problem = line_problem(line, shape)
        if problem is not None:
            message, _, hint = problem.partition("\0")
            return TrecFormatError(f"{name}, line {number}: {message}: {shown(line)!r}{hint}")
    return None
