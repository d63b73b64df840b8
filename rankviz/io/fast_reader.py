"""TREC files written the usual way, read fast by pyarrow's CSV parser; ``None`` for any other ("validate instead").

The fast half of :mod:`rankviz.io`'s readers (layer 3). Most run and qrels files are
written one way: fields separated by single spaces, LF or CRLF line ends, ASCII or
UTF-8 ids, a plain integer rank or grade, a finite decimal score. For those,
:func:`read_fast` streams the (decompressed) file in blocks, checks each block's
bytes and lets ``pyarrow.csv`` parse it into typed columns on all cores, without
holding the file's text in memory. As each block is parsed, its numbers are moved
into NumPy arrays that grow in place and its tags become codes, and what the parse
freed is returned to the system: the ids stay in the parser's buffers, so no column
of the file exists twice.

It gives a table only when the validating reader (:mod:`rankviz.io.validating_reader`) would
give the same values from the same file; on anything else it returns ``None`` and
that reader, which names the file, the line and what was expected, reads the file
from its start. A block is handed to pyarrow only when it has

* no tab, vertical tab, form feed, NUL or C0 file/group/record/unit separator, and a
  CR only right before an LF: pyarrow splits fields at single spaces only, and ends a
  line at a lone CR, where trec_eval does neither;
* no space at the start or end of a line and no two spaces in a row, so that no field
  is empty and every line has as many fields as spaces plus one (two spaces are
  looked for in the bytes; a space at a line's start or end empties the first or
  last field, which is looked for in the parsed columns);
* no line starting with ``#`` (a comment, which the validating reader reports);
* only ASCII, or valid UTF-8 without the Unicode spaces and byte-order marks that
  :mod:`rankviz.io.validating_reader` refuses.

pyarrow then refuses a line with another number of fields, a rank or grade that is
not a plain integer (``2.0`` and ``+2``, which rankviz accepts, go the slow way) and a
score that is not a decimal number; what it accepts beyond rankviz's grammar is
``nan``, ``inf`` and overflowing exponents, caught afterwards as non-finite scores,
as are integers beyond 2**53. Scores are converted by the same correctly rounding
Arrow routine as the validating reader's.
"""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import io
import lzma
import os
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pv

from .._core.long_run import MAX_EXACT
from .._core.memory import POOL, release_memory
from .run_frame import TagCodes
from .validating_reader import FOREIGN

__all__ = ["RUN_COLUMNS", "QRELS_COLUMNS", "Parsed", "read_fast"]

#: the fields of a run line and of a qrels line, in file order
RUN_COLUMNS = ("query_id", "Q0", "doc_id", "rank", "score", "tag")
QRELS_COLUMNS = ("query_id", "iteration", "doc_id", "relevance")

_TYPES = {
    "query_id": pa.large_string(),
    "doc_id": pa.large_string(),
    "iteration": pa.large_string(),
    "rank": pa.int64(),
    "relevance": pa.int64(),
    "score": pa.float64(),
    "tag": pa.dictionary(pa.int32(), pa.large_string()),
}
_KEEP = {RUN_COLUMNS: ["query_id", "doc_id", "rank", "score", "tag"], QRELS_COLUMNS: list(QRELS_COLUMNS)}
_OPENERS = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))
#: the bytes a block may hold without a closer look: printable ASCII, space and LF
_USUAL = bytes(range(0x21, 0x7F)) + b" \n"
#: bytes pyarrow reads differently from trec_eval (it splits at none of them), or that the validating reader refuses
_REFUSED = (b"\t", b"\x0b", b"\x0c", b"\x00", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
#: bytes of text per parse: big enough for pyarrow to use every core, small next to a large run
BLOCK = 1 << 23
#: blocks parsed between two returns of the freed memory to the system (each costs page faults later)
_TRIM_EVERY = 4
#: bytes per window of the checks of a block
_WINDOW = 1 << 20


def _open(path):
    """The file's (decompressed) byte stream, or None for a zip archive."""
    handle = open(path, "rb")  # noqa: SIM115 - returned to the caller, which closes it
    magic = handle.read(6)
    handle.seek(0)
    if magic.startswith(b"PK\x03\x04"):
        handle.close()
        return None
    for prefix, opener in _OPENERS:
        if magic.startswith(prefix):
            handle.close()
            return opener(path, "rb")
    return handle


def _blocks(stream, size: int):
    """The stream in pieces of about ``size`` bytes, each ending at a line end (the last may not).

    A piece is ``size`` bytes and the rest of the line they end in: one copy of the
    data (joining the two), where cutting at the last line end would need two.
    """
    while chunk := stream.read(size):
        line = stream.readline()
        yield chunk + line if line else chunk


def _ahead(blocks, reader: ThreadPoolExecutor | None):
    """``blocks``, each next one read (decompressed) by ``reader`` while the caller works on the current one.

    For compressed files: zlib, bz2 and lzma release the GIL while they decompress, so
    decompressing overlaps the checks and the parse instead of preceding them. One
    block more is held in memory. With no ``reader``, ``blocks`` as they are.
    """
    if reader is None:
        yield from blocks
        return
    ahead = reader.submit(next, blocks, None)
    while (block := ahead.result()) is not None:
        ahead = reader.submit(next, blocks, None)
        yield block


def _windows(block: bytes, overlap: int = 0):
    """``block`` as memoryviews of :data:`_WINDOW` bytes (plus ``overlap`` bytes of the next): the checks' temporary
    arrays are then a window's size, not a block's."""
    view = memoryview(block)
    for start in range(0, len(block), _WINDOW):
        yield view[start : start + _WINDOW + overlap]


def _two_spaces(block: bytes) -> bool:
    """Whether two spaces follow each other somewhere in ``block`` (as 16-bit words at both alignments: 2.5x
    faster than ``b"  " in block``)."""
    for window in _windows(block, overlap=1):
        even = np.frombuffer(window, np.uint16, count=len(window) // 2)
        odd = np.frombuffer(window, np.uint16, count=(len(window) - 1) // 2, offset=1)
        if (even == 0x2020).any() or (odd == 0x2020).any():
            return True
    return False


def _usual_bytes_only(block: bytes) -> bool:
    """Whether ``block`` holds nothing but printable ASCII, spaces and LFs."""
    return not any(window.tobytes().translate(None, _USUAL) for window in _windows(block))


def plain_block(block: bytes) -> bool:
    """Whether pyarrow may read ``block`` (whole lines): the byte checks of the module docstring.

    A space at the start or the end of a line gives an empty first or last field,
    which :func:`_same_as_validating` finds in the parsed columns; two spaces in a
    row are looked for here, as they may empty the iteration field, which is not parsed.

    >>> plain_block(b"q1 Q0 d1 1 2.5 t\\r\\n"), plain_block(b"q1\\tQ0 d1 1 2.5 t\\n"), plain_block(b"# c\\n")
    (True, False, False)
    """
    if b"#" in block and (block.startswith(b"#") or b"\n#" in block):
        return False
    if _two_spaces(block):
        return False
    if _usual_bytes_only(block):
        return True
    if any(b in block for b in _REFUSED) or block.count(b"\r") != block.count(b"\r\n"):
        return False
    if not block.isascii():
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return FOREIGN.search(text) is None
    return True


def _options(names: tuple[str, ...]):
    keep = _KEEP[names]
    return (
        pv.ReadOptions(column_names=list(names), use_threads=True),
        pv.ParseOptions(
            delimiter=" ", quote_char=False, escape_char=False, double_quote=False, newlines_in_values=False
        ),
        pv.ConvertOptions(
            column_types={name: _TYPES[name] for name in keep},
            include_columns=keep,
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            check_utf8=True,
        ),
    )


def _same_as_validating(table: pa.Table) -> bool:
    """Whether the parsed columns are what the validating reader gives: no empty field (a space too many, which
    pyarrow reads as an empty field where trec_eval skips it), finite scores, integers within 2**53."""
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_dictionary(column.type):
            if any(
                pc.min(pc.binary_length(chunk.dictionary, memory_pool=POOL)).as_py() == 0 for chunk in column.chunks
            ):
                return False
        elif pa.types.is_large_string(column.type):
            if len(column) and pc.min(pc.binary_length(column, memory_pool=POOL)).as_py() == 0:
                return False
        elif name == "score":
            if not np.isfinite(column.to_numpy()).all():
                return False
        else:
            values = column.to_numpy()
            if len(values) and np.abs(values).max() > MAX_EXACT:
                return False
    return True


class _Growing:
    """A NumPy array appended to in place: its buffer grows by ``realloc`` (for large arrays the system remaps
    the pages, so the data is not copied and no second array of the whole column exists at any time)."""

    def __init__(self, dtype):
        self.values = np.empty(1 << 16, dtype=dtype)
        self.n = 0

    def reserve(self, n: int) -> None:
        """Room for ``n`` values at once: a fresh array whose pages cost memory only once written (``resize`` would
        zero-fill them), so a guess that is too high costs nothing; :meth:`result` gives back what was not used."""
        if n > len(self.values):
            values = np.empty(n, dtype=self.values.dtype)
            values[: self.n] = self.values[: self.n]
            self.values = values

    def append(self, chunk: np.ndarray) -> None:
        end = self.n + len(chunk)
        if end > len(self.values):
            self.values.resize(max(end, 2 * len(self.values)), refcheck=False)
        self.values[self.n : end] = chunk
        self.n = end

    def result(self) -> np.ndarray:
        self.values.resize(self.n, refcheck=False)
        return self.values


@dataclasses.dataclass(frozen=True)
class Parsed:
    """A file's columns from :func:`read_fast`: ids as Arrow strings (the parser's buffers, as they are), numbers as
    NumPy arrays, and a run's tags as codes into ``tags``."""

    strings: dict[str, pa.ChunkedArray]
    numbers: dict[str, np.ndarray]
    tag_codes: np.ndarray | None = None
    tags: list[str] | None = None


class _Columns:
    """The blocks' columns gathered as they come: the numbers are moved to NumPy and the tags to codes at once, so
    that the file's numeric columns never exist twice (once in Arrow, once in NumPy)."""

    def __init__(self, names: tuple[str, ...], file_size: int | None = None):
        self.file_size = file_size  # bytes of text, when known (a file that is not compressed)
        keep = _KEEP[names]
        self.strings: dict[str, list] = {n: [] for n in keep if pa.types.is_large_string(_TYPES[n])}
        self.numbers = {
            n: _Growing(_TYPES[n].to_pandas_dtype())
            for n in keep
            if pa.types.is_integer(_TYPES[n]) or pa.types.is_floating(_TYPES[n])
        }
        self.tags = TagCodes() if "tag" in keep else None
        self.blocks = 0

    def append(self, table: pa.Table, n_bytes: int) -> None:
        self.blocks += 1
        if self.blocks == 1 and self.file_size and n_bytes:  # the rows to expect, from the first block's lines
            expected = int(table.num_rows * self.file_size / n_bytes * 1.02) + 1024
            for growing in self.numbers.values():
                growing.reserve(expected)
        for name, chunks in self.strings.items():
            chunks.extend(table.column(name).chunks)
        for name, growing in self.numbers.items():
            for chunk in table.column(name).chunks:
                growing.append(chunk.to_numpy())
        if self.tags is not None:
            self.tags.append(table.column("tag"))

    def result(self) -> Parsed | None:
        numbers = {name: growing.result() for name, growing in self.numbers.items()}
        if not len(next(iter(numbers.values()))):
            return None
        strings = {name: pa.chunked_array(chunks, type=_TYPES[name]) for name, chunks in self.strings.items()}
        codes, tags = self.tags.result() if self.tags is not None else (None, None)
        return Parsed(strings, numbers, codes, tags)


def _parsed(pending, columns: _Columns) -> bool:
    """Whether the block's columns are what the validating reader gives; if so they join ``columns``.

    ``pending`` is the parse's future and the block's size in bytes."""
    future, n_bytes = pending
    table = future.result()
    if not _same_as_validating(table):
        return False
    columns.append(table, n_bytes)
    del table
    if columns.blocks % _TRIM_EVERY == 0:
        release_memory()  # what parsing the last blocks freed, before the next ones are parsed
    return True


def read_fast(path, names: tuple[str, ...], *, block_size: int = BLOCK) -> Parsed | None:
    """The columns of a well-formed TREC run or qrels file (``names``: :data:`RUN_COLUMNS` or :data:`QRELS_COLUMNS`).

    Returns a run's ``query_id`` and ``doc_id`` (large strings), ``rank`` (int64),
    ``score`` (float64) and tags (codes); qrels' ``query_id``, ``iteration``,
    ``doc_id`` (large strings) and ``relevance`` (int64). Returns None for a file
    with no data line, or with anything the validating reader should look at (see
    the module docstring), including a missing or unreadable file. While pyarrow
    parses one block (on its own threads), the next is read and checked; a compressed
    file's blocks are decompressed one further ahead, on a thread of their own.
    """
    options = _options(names)
    try:
        stream = _open(path)
        if stream is None:
            return None
        columns = _Columns(names, os.fstat(stream.fileno()).st_size if isinstance(stream, io.BufferedReader) else None)
        with stream, ThreadPoolExecutor(max_workers=1) as parser, ThreadPoolExecutor(max_workers=1) as reader:
            pending = None
            for block in _ahead(_blocks(stream, block_size), reader if columns.file_size is None else None):
                if not plain_block(block):
                    return None
                # POOL, the C library's allocator, not Arrow's default pool: what parsing freed can go back to the system
                future = parser.submit(pv.read_csv, pa.BufferReader(block), *options, memory_pool=POOL)
                if pending is not None and not _parsed(pending, columns):
                    return None
                pending = future, len(block)
            if pending is not None and not _parsed(pending, columns):
                return None
    except (OSError, EOFError, ValueError, TypeError, zlib.error, lzma.LZMAError, pa.ArrowException):
        return None
    return columns.result()
