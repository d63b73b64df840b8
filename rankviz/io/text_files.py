"""Text files as rankviz reads them: the name messages give, the (decompressed) bytes, the text, comment lines.

The lowest half of :mod:`rankviz.io`'s text readers (layer 3): TREC runs and qrels
(:mod:`rankviz.io.trec_reader`), topics, JSON lines and BEIR folders open their files
here. Compressed files are read transparently: gzip (``run.txt.gz``, as TREC
distributes runs), bzip2 and xz, recognised by their magic bytes whatever the file's
name (trec_eval reads the compressed bytes as text). A byte-order mark at the start
(UTF-8, or UTF-16 as Windows PowerShell writes) is dropped; trec_eval would make it
part of the first query id. The text must be UTF-8 (or UTF-16 with its mark).

A line whose first non-blank character is ``#`` is a comment, as in trec_eval 10
(its CHANGELOG, 6/18/26: "Support for '#' comment lines in TREC-format runs and
qrels files"; ``get_trec_results.c`` skips such lines, ``get_qrels.c`` only when the
``#`` is in column 0, and it reads the second of two consecutive comment lines as
data). Comments are skipped with one warning giving their count and the first one,
so nothing is dropped silently; ``comments=False`` reads them as data (trec_eval 9
and pytrec_eval have no comment syntax: ``#301`` is a query id there).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import zlib
from collections.abc import Callable
from pathlib import Path

from .._errors import InputError, RankvizWarning, TrecFormatError, warn

__all__ = ["CORRUPT", "display_name", "open_bytes", "opens_json_object", "read_text", "comment_lines", "warn_comments"]

_JSON_OBJECT = re.compile(r'\{\s*(?:"|$)')
_SEPARATORS = " \t\n\v\f\r"  # isspace() in the C locale: trec_eval's field separators
_COMMENT = re.compile(r"^[ \t\v\f\r]*#", re.MULTILINE)
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", gzip.decompress),
    (b"BZh", "bzip2", bz2.decompress),
    (b"\xfd7zXZ\x00", "xz", lzma.decompress),
)


def opens_json_object(text: str) -> bool:
    """Whether a file's first non-blank text opens a JSON object: ``{`` then a key's quote (or nothing more).

    A TREC id may start with ``{`` (``{{x}}q1``): only a file that starts with ``{"`` (a JSON key)
    or a lone ``{`` is taken for a JSON-lines log, to be named as one instead of read as TREC.

    >>> opens_json_object('{"query_id": "q1"}'), opens_json_object("{{x}}q1 0 d1 1")
    (True, False)
    """
    return bool(_JSON_OBJECT.match(text.lstrip("\ufeff \t\r\n")))


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
