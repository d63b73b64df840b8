"""TREC text files: bytes to text, lines to fields, fields to exact numbers.

The reading half of :mod:`rankviz.io` (layer 3). Every problem becomes a
:class:`~rankviz.TrecFormatError` that names the file, the line number and the line.

How a file becomes fields, compared with trec_eval 10 (``get_trec_results.c``,
``get_qrels.c``):

* Compressed files are read transparently: gzip (``run.txt.gz``, as TREC
  distributes runs), bzip2 and xz, recognised by their magic bytes whatever the
  file's name. trec_eval reads the compressed bytes as text.
* A byte-order mark at the start (UTF-8, or UTF-16 as Windows PowerShell writes) is
  dropped; trec_eval would make it part of the first query id. The text must be
  UTF-8 (or UTF-16 with its mark).
* Fields are separated by runs of the C locale's ``isspace`` characters: space, tab,
  CR, LF, vertical tab and form feed, as trec_eval's ``isspace`` splits them. So a
  CRLF line end, trailing whitespace and tabs are separators. A no-break space
  (U+00A0) or any other Unicode space is *not* a separator for trec_eval (it stays
  inside the field, and the id then never matches): rankviz refuses such a line, as
  it refuses a NUL byte, a byte-order mark inside the file and a CR inside a line
  (old Mac line ends, which trec_eval reads as one long line).
* A line whose first non-blank character is ``#`` is a comment, as in trec_eval 10
  (its CHANGELOG, 6/18/26: "Support for '#' comment lines in TREC-format runs and
  qrels files"; ``get_trec_results.c`` skips such lines, ``get_qrels.c`` only when
  the ``#`` is in column 0, and it reads the second of two consecutive comment lines
  as data). Comments are skipped with one warning giving their count and the first
  one, so nothing is dropped silently; ``comments=False`` reads them as data
  (trec_eval 9 and pytrec_eval have no comment syntax: ``#301`` is a query id there).
  Blank lines are skipped (trec_eval 10 refuses them in qrels).
* Numbers: an integer field (a qrels grade, a run's rank) is written as an integer
  (``2``, ``+2``, ``-1``, ``2.0``) with ``|value| <= 2**53``, so that it is exact in
  float64; trec_eval's ``atol`` would read ``1.7`` as 1 and ``1e3`` as 1. A score is a
  finite decimal number (``2.5``, ``-1e-3``, ``.5``) converted with correct rounding,
  as ``strtod`` does; ``nan``, ``inf``, ``1e400`` (overflow) and hexadecimal floats are
  refused, although trec_eval's ``atof`` would give NaN or infinity.
"""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import io
import lzma
import os
import re
import unicodedata
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._core.long_run import MAX_EXACT
from .._errors import InputError, RankvizWarning, TrecFormatError, warn

__all__ = [
    "CORRUPT",
    "FOREIGN",
    "Fields",
    "display_name",
    "open_bytes",
    "opens_json_object",
    "read_text",
    "split_fields",
    "integers",
    "decimals",
    "comment_lines",
    "warn_comments",
]

INTEGER = r"[+-]?[0-9]+(?:\.0*)?"
DECIMAL = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"

_JSON_OBJECT = re.compile(r'\{\s*(?:"|$)')


def opens_json_object(text: str) -> bool:
    """Whether a file's first non-blank text opens a JSON object: ``{`` then a key's quote (or nothing more).

    A TREC id may start with ``{`` (``{{x}}q1``): only a file that starts with ``{"`` (a JSON key)
    or a lone ``{`` is taken for a JSON-lines log, to be named as one instead of read as TREC.

    >>> opens_json_object('{"query_id": "q1"}'), opens_json_object("{{x}}q1 0 d1 1")
    (True, False)
    """
    return bool(_JSON_OBJECT.match(text.lstrip("\ufeff \t\r\n")))


_SEPARATORS = " \t\n\v\f\r"  # isspace() in the C locale: trec_eval's field separators
_IS_SEPARATOR = np.zeros(256, dtype=bool)
_IS_SEPARATOR[list(_SEPARATORS.encode("ascii"))] = True
_COMMENT = re.compile(r"^[ \t\v\f\r]*#", re.MULTILINE)
#: Characters Python's str.split() splits on that C's isspace() does not, a byte-order mark, and NUL
#: (refused here, and never handed to pyarrow by the fast reader, ``_trec_fast``).
FOREIGN = re.compile("[\x00\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")
_INNER_CR = re.compile(r"\r[ \t\v\f\r]*[^ \t\v\f\r\n]")
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", gzip.decompress),
    (b"BZh", "bzip2", bz2.decompress),
    (b"\xfd7zXZ\x00", "xz", lzma.decompress),
)


def display_name(path) -> str:
    """The file's name as messages show it: the path as given."""
    return os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)


def read_text(path) -> tuple[str, str]:
    """The display name and the decoded text of a TREC file (decompressed, without a byte-order mark).

    Raises
    ------
    FileNotFoundError
        When there is no such file.
    InputError
        For a folder or a file that cannot be read.
    TrecFormatError
        For corrupt compressed data or text that is not UTF-8, naming the line.

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")  # no .gz suffix: the magic bytes decide
    >>> _ = open(path, "wb").write(gzip.compress("\\ufeffq1 Q0 d1 1 2.5 t\\n".encode()))
    >>> read_text(path)[1]
    'q1 Q0 d1 1 2.5 t\\n'
    """
    name = display_name(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a TREC file") from None
    except (OSError, ValueError, TypeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"{name}: cannot read the file ({reason}).") from None
    return name, _decode(_decompress(raw, name), name)


_STREAMS: dict[str, Callable[..., io.BufferedIOBase]] = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}


def open_bytes(path):
    """``(name, kind, stream)``: the file's decompressed bytes as a binary stream, compression found by its magic bytes.

    ``kind`` is ``'gzip'``, ``'bzip2'``, ``'xz'`` or ``None`` (plain). For the readers that
    stream a file instead of decoding it whole (JSON lines); errors as :func:`read_text`.
    A stream of corrupt compressed data raises ``OSError``, ``EOFError`` or
    ``lzma.LZMAError`` when read: see :data:`CORRUPT`.
    """
    name = display_name(path)
    try:
        handle = open(path, "rb")  # noqa: SIM115 - returned to the caller, which closes it
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a file") from None
    except (OSError, ValueError, TypeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"{name}: cannot read the file ({reason}).") from None
    magic = handle.read(6)
    handle.seek(0)
    if magic.startswith(b"PK\x03\x04"):
        handle.close()
        raise TrecFormatError(f"{name}: is a zip archive; unpack it and read the file inside.")
    for prefix, kind, _ in _COMPRESSED:
        if magic.startswith(prefix):
            handle.close()
            return name, kind, _STREAMS[kind](path, "rb")
    return name, None, handle


#: what reading a stream of corrupt or truncated compressed data raises
CORRUPT = (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError)


def _decompress(raw: bytes, name: str) -> bytes:
    if raw.startswith(b"PK\x03\x04"):
        raise TrecFormatError(f"{name}: is a zip archive; unpack it and read the file inside.")
    for magic, kind, decompress in _COMPRESSED:
        if raw.startswith(magic):
            try:
                return decompress(raw)
            except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
                raise TrecFormatError(f"{name}: the {kind}-compressed data is corrupt or truncated ({exc}).") from None
    return raw


def _decode(raw: bytes, name: str) -> str:
    encoding = "utf-16" if raw.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8"
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        what = "UTF-8" if encoding == "utf-8" else "UTF-16 (it starts with a UTF-16 byte-order mark)"
        raise TrecFormatError(f"{name}, line {line}: the file is not valid {what} ({exc.reason}).") from None
    return text.removeprefix("\ufeff")


@dataclasses.dataclass(frozen=True)
class Fields:
    """The first fields of every data line of a file, column by column, with the line number of each row."""

    name: str
    text: str
    columns: list[list[str]]
    line_numbers: np.ndarray
    #: (count, first line number, first line) of the comment lines skipped, if any
    skipped: tuple[int, int, str] | None = None

    def warn_skipped(self) -> None:
        """The one warning for the comment lines skipped, once the whole file has been read."""
        if self.skipped:
            warn_comments(self.name, *self.skipped)

    def line(self, row: int) -> tuple[int, str]:
        """The 1-based file line number of ``row`` and that line without its surrounding whitespace."""
        number = int(self.line_numbers[row])
        return number, _nth_line(self.text, number)

    def error(self, row: int, message: str) -> TrecFormatError:
        """A TrecFormatError '<file>, line <n>: <message>: <the line>'."""
        number, line = self.line(row)
        return TrecFormatError(f"{self.name}, line {number}: {message}: {line!r}")


def _nth_line(text: str, number: int) -> str:
    start = 0
    for _ in range(number - 1):
        start = text.index("\n", start) + 1
    end = text.find("\n", start)
    line = text[start : None if end < 0 else end].strip(_SEPARATORS)
    return line if len(line) <= 200 else line[:200] + "..."


def _line_at(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def comment_lines(text: str) -> list[int]:
    """0-based indices of the lines whose first non-blank character is ``#``.

    >>> comment_lines("# a\\nq1 0 d 1\\n  #b 0 d 1\\n")
    [0, 2]
    """
    if "#" not in text:
        return []
    indices, last, line = [], 0, 0
    for match in _COMMENT.finditer(text):
        start = match.end() - 1
        line += text.count("\n", last, start)
        last = start
        indices.append(line)
    return indices


def warn_comments(name: str, count: int, first: int, line: str) -> None:
    """One warning for the ``count`` comment lines skipped in a file, the first being line ``first``."""
    warn(
        f"{name}: skipped {count} line(s) starting with '#' as comments, as trec_eval 10 does (the first is "
        f"line {first}: {line.strip(_SEPARATORS)!r}). trec_eval 9 and pytrec_eval read such lines as data, as "
        "read_run/read_qrels/read_topics(..., comments=False) do; delete the lines to silence this warning.",
        RankvizWarning,
    )


def _without_comments(text: str) -> tuple[str, list[int], list[str]]:
    """The text with its comment lines emptied (line numbers stay), their indices, and the original lines."""
    indices = comment_lines(text)
    if not indices:
        return text, [], []
    lines = text.split("\n")
    kept = list(lines)
    for index in indices:
        kept[index] = ""
    return "\n".join(kept), indices, lines


def _check_characters(name: str, text: str) -> None:
    """Refuse what trec_eval would read differently from how the file looks: see the module docstring."""
    found = FOREIGN.search(text)
    inner_cr = _INNER_CR.search(text) if "\r" in text else None
    if inner_cr is not None and (found is None or inner_cr.start() < found.start()):
        number = _line_at(text, inner_cr.start())
        raise TrecFormatError(
            f"{name}, line {number}: a carriage return (CR) inside the line, as old Mac files end their lines; "
            "trec_eval reads a CR as a space, so the lines around it would run together. Save the file with LF "
            f"or CRLF line ends: {_nth_line(text, number)!r}"
        )
    if found is None:
        return
    char, number = found.group(), _line_at(text, found.start())
    if char == "\x00":
        what = "a NUL byte (a binary file, or UTF-16 text without a byte-order mark?)"
    elif char == "\ufeff":
        what = "a byte-order mark (U+FEFF) inside the file (were files concatenated?); delete it"
    else:
        label = unicodedata.name(char, "a control character")
        what = (
            f"{label} (U+{ord(char):04X}), which trec_eval does not read as a field separator, so it would "
            "become part of a field; replace it with a space"
        )
    raise TrecFormatError(f"{name}, line {number}: the line contains {what}: {_nth_line(text, number)!r}")


def _fields_per_line(text: str) -> np.ndarray:
    """The number of fields on every line of ``text`` (lines split at LF), counted on its UTF-8 bytes."""
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    line_starts = np.concatenate(([0], np.flatnonzero(data == 10) + 1))
    counts = np.zeros(len(line_starts), dtype=np.int64)
    if data.size:
        separator = _IS_SEPARATOR[data]
        field_start = ~separator
        field_start[1:] &= separator[:-1]
        inside = line_starts < data.size
        counts[inside] = np.add.reduceat(field_start, line_starts[inside], dtype=np.int64)
    return counts


def split_fields(
    name: str, text: str, n: int, *, what: str, expected: str, extra: bool, comments: bool = True
) -> Fields:
    """The first ``n`` fields of every data line of a TREC file's text.

    Parameters
    ----------
    name : str
        The file's name, for messages.
    text : str
        The decoded text (:func:`read_text`).
    n : int
        The number of fields a line needs.
    what, expected : str
        The kind of file (``'run'``) and its fields (``'query_id Q0 doc_id rank score tag'``), for messages.
    extra : bool
        Whether a line may have more than ``n`` fields (ignored, as trec_eval ignores them in runs).
    comments : bool, default True
        Skip lines whose first non-blank character is ``#`` (with one warning).

    Returns
    -------
    Fields

    Examples
    --------
    >>> fields = split_fields("q.txt", "q1 0 d1 2\\r\\n\\nq2\\t0 d2 -1  \\n", 4, what="qrels", expected="...", extra=False)
    >>> fields.columns[2], fields.line_numbers.tolist()
    (['d1', 'd2'], [1, 3])
    """
    text, skipped, original = _without_comments(text) if comments else (text, [], [])
    if opens_json_object(text):  # a JSON-lines log (an id such as '{{x}}q1' may start a TREC line)
        raise TrecFormatError(
            f"{name}: the file starts with '{{': it looks like a JSON-lines log, not a {what} file; read it "
            "with rankviz.read_jsonl(path) (its .run and .qrels); rankviz eval, diff and report read such logs as is."
        )
    _check_characters(name, text)
    counts = _fields_per_line(text)
    rows = np.flatnonzero(counts)
    if rows.size == 0:
        also = f" ({len(skipped)} comment line(s) starting with '#')" if skipped else ""
        raise TrecFormatError(f"{name}: the file has no {what} lines{also} (expected '{expected}').")
    per_row = counts[rows]
    wrong = np.flatnonzero((per_row < n) | ((per_row > n) & (not extra)))
    if wrong.size:
        row, found = int(wrong[0]), int(per_row[wrong[0]])
        line = _nth_line(text, int(rows[row]) + 1)
        looks = {(6, 4): " It looks like a run file.", (4, 6): " It looks like a qrels file, not a run."}
        hint = "." + looks[found, n] if (found, n) in looks else ("" if found < n else ".")
        raise TrecFormatError(
            f"{name}, line {int(rows[row]) + 1}: expected {n} whitespace-separated fields '{expected}', "
            f"found {found}: {line!r}{hint}"
        )
    tokens = text.split()
    if (per_row == n).all():
        columns = [tokens[i::n] for i in range(n)]
    else:
        starts = np.cumsum(per_row) - per_row
        table = np.asarray(tokens, dtype=object)
        columns = [table[starts + i].tolist() for i in range(n)]
    first = (len(skipped), skipped[0] + 1, original[skipped[0]]) if skipped else None
    return Fields(name=name, text=text, columns=columns, line_numbers=rows + 1, skipped=first)


def _matching(fields: Fields, i: int, pattern: str, label: str, kind: str, hint=None) -> pa.Array:
    values = pa.array(fields.columns[i], type=pa.large_string())
    ok = pc.match_substring_regex(values, f"^(?:{pattern})$").to_numpy(zero_copy_only=False)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        value = fields.columns[i][row]
        raise fields.error(row, f"the {label} field must be {kind}, found {value!r}{hint(value) if hint else ''}")
    return values


def _non_finite_hint(value: str) -> str:
    word = value.lower().lstrip("+-")
    if word in ("nan", "inf", "infinity"):
        return f" (trec_eval's atof would read it as {'NaN' if word == 'nan' else 'infinity'}, which ranks nowhere; give every document a finite score)"
    return ""


def decimals(fields: Fields, i: int, label: str) -> np.ndarray:
    """Field ``i`` as float64, correctly rounded; a value that is not a finite decimal number is refused.

    >>> decimals(split_fields("r", "q Q0 d 1 -1e-3 t\\nq Q0 e 2 .5 t\\n", 6, what="run", expected="", extra=True), 4, "score")
    array([-0.001,  0.5  ])
    """
    values = _matching(fields, i, DECIMAL, label, "a finite number", _non_finite_hint)
    numbers = pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False)
    overflow = ~np.isfinite(numbers)
    if overflow.any():
        row = int(np.flatnonzero(overflow)[0])
        raise fields.error(
            row,
            f"the {label} field must be a finite number, found {fields.columns[i][row]!r} (too large for a float64)",
        )
    return numbers


def integers(fields: Fields, i: int, label: str) -> np.ndarray:
    """Field ``i`` as int64; a value that is not an integer, or whose magnitude exceeds 2**53, is refused.

    >>> integers(split_fields("q", "q 0 d 2\\nq 0 e -1\\nq 0 f 3.0\\n", 4, what="qrels", expected="", extra=False), 3, "relevance")
    array([ 2, -1,  3])
    """
    values = _matching(fields, i, INTEGER, label, "an integer")
    numbers = pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False)
    # float64 rounds monotonically, so only an integer that converts to 2**53 or beyond can be out of range
    # (2**53 + 1 converts to 2**53): those few are checked exactly
    for row in np.flatnonzero(np.abs(numbers) >= MAX_EXACT):
        if abs(int(fields.columns[i][row].split(".")[0])) > MAX_EXACT:
            raise fields.error(
                int(row),
                f"the {label} field must be an integer within +-2**53 (+-{MAX_EXACT}, where float64 stops being "
                f"exact), found {fields.columns[i][row]!r}",
            )
    return numbers.astype(np.int64)
