"""The one reader of TREC run and qrels files: pyarrow's CSV parser in blocks; a bad line is named by its number.

The reading half of :mod:`rankviz.io.trec_files` (layer 3); what a line must look
like is :mod:`rankviz.io.trec_lines`. :func:`read_trec` streams the (decompressed)
file in blocks of whole lines, without holding its text, and ``pyarrow.csv`` parses
each block into typed columns on all cores. As each block is parsed, its numbers are
moved into NumPy arrays that grow in place and its tags become codes, and what the
parse freed is returned to the system: the ids stay in the parser's buffers, so no
column of the file exists twice.

Most files are written one way: single spaces, LF or CRLF line ends, plain integers,
finite decimal scores. A block of such lines (:func:`plain_block`) is parsed with its
numbers typed. Any other block, or one whose typed parse fails or gives what rankviz
refuses (an empty field, a non-finite score, an integer beyond 2**53), is *tidied*:
comment lines are counted (for one warning) and dropped, runs of whitespace become
one space, fields after a run line's sixth are dropped, and the block is parsed again
with its numbers as text, checked against rankviz's grammar and converted by the
same correctly rounding Arrow routine. When that finds a problem,
:func:`~rankviz.io.trec_lines.locate` reads the block again line by line and names the
first bad line (the lines of the blocks before it are counted by reading the file
again: a line number costs nothing on files that read).

Compressed files are decompressed on a thread of their own, one block ahead. A
byte-order mark at the start is dropped; a UTF-16 file (with its mark, as Windows
PowerShell writes) is decoded whole, then read the same way.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pv

from .._core.long_run import MAX_EXACT
from .._core.memory import POOL, release_memory
from .._errors import InputError, TrecFormatError
from .run_frame import TagCodes
from .text_files import CORRUPT, open_bytes, opens_json_object, warn_comments
from .trec_lines import DECIMAL, FOREIGN, INTEGER, Shape, first_data_line, locate

__all__ = ["Parsed", "plain_block", "read_trec", "BLOCK"]

_TYPES = {
    "query_id": pa.large_string(),
    "doc_id": pa.large_string(),
    "iteration": pa.large_string(),
    "rank": pa.int64(),
    "relevance": pa.int64(),
    "score": pa.float64(),
    "tag": pa.dictionary(pa.int32(), pa.large_string()),
}
#: the bytes a block may hold without a closer look: printable ASCII, space and LF
_USUAL = bytes(range(0x21, 0x7F)) + b" \n"
#: bytes pyarrow reads differently from trec_eval (it splits at none of them), or that rankviz refuses
_REFUSED = (b"\t", b"\x0b", b"\x0c", b"\x00", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
BLOCK = 1 << 23  # bytes of text per parse: big enough for pyarrow to use every core, small next to a large run
_TRIM_EVERY = 4  # blocks parsed between two returns of the freed memory to the system (each costs page faults later)
_WINDOW = 1 << 20  # bytes per window of the checks of a block
_COMMENT = re.compile(rb"^[ \t\v\f\r]*#[^\n]*", re.MULTILINE)
_ASCII_FOREIGN = re.compile(rb"[\x00\x1c-\x1f]")
_INNER_CR = re.compile(rb"\r[ \t\v\f\r]*[^ \t\v\f\r\n]")
_SPACES = re.compile(rb"[ \t\v\f\r]+")
_EDGES = re.compile(rb"^ | $", re.MULTILINE)
_BOM = b"\xef\xbb\xbf"


class _Source:
    """The file's decompressed bytes (without a byte-order mark), as blocks of whole lines."""

    def __init__(self, path):
        self.path = path
        self.name, self.kind, self.stream = open_bytes(path)
        self.size = os.fstat(self.stream.fileno()).st_size if self.kind is None else None  # text bytes, if known
        self.utf8: bytes | None = None  # a UTF-16 file's text as UTF-8
        self.start = 0
        head = self._call(self.stream.peek, 3)[:3]
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            raw = self._call(self.stream.read)
            self.stream.close()
            try:
                text = raw.decode("utf-16")
            except UnicodeDecodeError as exc:
                line = raw[: exc.start].count(b"\n") + 1
                raise TrecFormatError(
                    f"{self.name}, line {line}: the file is not valid UTF-16 (it starts with a UTF-16 byte-order "
                    f"mark) ({exc.reason})."
                ) from None
            self.utf8 = text.removeprefix("\ufeff").encode("utf-8")
            self.stream, self.size = io.BytesIO(self.utf8), len(self.utf8)
        elif head == _BOM:
            self.start = len(self._call(self.stream.read, 3))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stream.close()

    def _call(self, read, *args):
        """``read(*args)``, a read error said as rankviz says it."""
        try:
            return read(*args)
        except CORRUPT as exc:
            if self.kind is None:
                raise InputError(f"{self.name}: cannot read the file ({exc}).") from None
            raise TrecFormatError(
                f"{self.name}: the {self.kind}-compressed data is corrupt or truncated ({exc})."
            ) from None

    def blocks(self, size: int):
        """``(offset, block)``: pieces of about ``size`` bytes, each ending at a line end (the last may not).

        A piece is ``size`` bytes and the rest of the line they end in: one copy of the data (joining the two),
        where cutting at the last line end would need two.
        """
        offset = self.start
        while chunk := self._call(self.stream.read, size):
            line = self._call(self.stream.readline)
            block = chunk + line if line else chunk
            yield offset, block
            offset += len(block)

    def line_of(self, offset: int) -> int:
        """The 1-based number of the line starting at byte ``offset``: the file read again up to it."""
        if self.utf8 is not None:
            return self.utf8.count(b"\n", 0, offset) + 1
        _, _, stream = open_bytes(self.path)
        count = 0
        with stream:
            while offset > 0 and (chunk := self._call(stream.read, min(offset, 1 << 24))):
                count += chunk.count(b"\n")
                offset -= len(chunk)
        return count + 1


def _ahead(blocks, reader: ThreadPoolExecutor | None):
    """``blocks``, each next one read by ``reader`` while the caller works on the current one (zlib, bz2 and lzma
    release the GIL while they decompress); with no ``reader``, ``blocks`` as they are."""
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
    """Whether pyarrow may parse ``block`` (whole lines) with its numbers typed: single spaces between fields, LF or
    CRLF line ends, no comment line, only ASCII or UTF-8 that :mod:`rankviz.io.trec_lines` accepts.

    A space at the start or the end of a line gives an empty first or last field,
    which :func:`_exact` finds in the parsed columns; two spaces in a row are looked
    for here, as they may empty the iteration field, which is not parsed.

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


def _options(shape: Shape, typed: bool, size: int | None = None):
    """pyarrow's options for a block of ``shape`` lines; numbers as text unless ``typed``, in one parse block of
    ``size`` bytes if given (any line length then fits)."""
    types = {name: _TYPES[name] if typed or name not in shape.numbers else pa.large_string() for name in shape.keep}
    read = pv.ReadOptions(column_names=list(shape.names), use_threads=True)
    if size is not None:
        read.block_size = max(size + 1, 1 << 20)
    return (
        read,
        pv.ParseOptions(
            delimiter=" ", quote_char=False, escape_char=False, double_quote=False, newlines_in_values=False
        ),
        pv.ConvertOptions(
            column_types=types,
            include_columns=list(shape.keep),
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            check_utf8=True,
        ),
    )


def _exact(table: pa.Table) -> bool:
    """Whether the typed columns are what rankviz reads: no empty field (a space too many, which pyarrow reads as an
    empty field where trec_eval skips it), finite scores, integers within 2**53."""
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
    """A file's columns from :func:`read_trec`: ids as Arrow strings (the parser's buffers, as they are), numbers as
    NumPy arrays, a run's tags as codes into ``tags``, and the shape its lines had."""

    shape: Shape
    strings: dict[str, pa.ChunkedArray]
    numbers: dict[str, np.ndarray]
    tag_codes: np.ndarray | None = None
    tags: list[str] | None = None


class _Columns:
    """The blocks' columns gathered as they come: the numbers are moved to NumPy and the tags to codes at once, so
    that the file's numeric columns never exist twice (once in Arrow, once in NumPy)."""

    def __init__(self, shape: Shape, file_size: int | None = None):
        self.shape, self.file_size = shape, file_size  # bytes of text, when known (a file that is not compressed)
        self.strings: dict[str, list] = {n: [] for n in shape.keep if pa.types.is_large_string(_TYPES[n])}
        self.numbers = {n: _Growing(_TYPES[n].to_pandas_dtype()) for n in shape.numbers}
        self.tags = TagCodes() if "tag" in shape.keep else None
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
        if self.blocks % _TRIM_EVERY == 0:
            release_memory()  # what parsing the last blocks freed, before the next ones are parsed

    def result(self) -> Parsed:
        numbers = {name: growing.result() for name, growing in self.numbers.items()}
        strings = {name: pa.chunked_array(chunks, type=_TYPES[name]) for name, chunks in self.strings.items()}
        codes, tags = self.tags.result() if self.tags is not None else (None, None)
        return Parsed(self.shape, strings, numbers, codes, tags)


class _Reader:
    """One file read: its source, the shape of its lines, its comments, and the columns gathered so far."""

    def __init__(self, source: _Source, shape_of: Callable[[str], Shape], comments: bool):
        self.source, self.shape_of, self.comments = source, shape_of, comments
        self.columns: _Columns | None = None
        self.n_comments = 0
        self.first_comment: tuple[int, str] | None = None

    def error(self, block: bytes, offset: int) -> TrecFormatError:
        """The error naming the block's first bad line (the block failed a check)."""
        first = self.source.line_of(offset)
        shape = self.columns.shape if self.columns is not None else self.shape_of("")
        found = locate(self.source.name, block.decode("utf-8", "replace"), first, shape, self.comments)
        last = first + block.count(b"\n")
        return found or TrecFormatError(
            f"{self.source.name}, lines {first}-{last}: cannot be read as {shape.what} lines '{shape.expected}'."
        )

    def without_comments(self, block: bytes, offset: int) -> bytes:
        """The block checked to be UTF-8, its comment lines (if ``comments``) counted and emptied."""
        if not block.isascii():
            try:
                block.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = self.source.line_of(offset) + block.count(b"\n", 0, exc.start)
                raise TrecFormatError(
                    f"{self.source.name}, line {line}: the file is not valid UTF-8 ({exc.reason})."
                ) from None
        if not self.comments or b"#" not in block:
            return block
        found = list(_COMMENT.finditer(block))
        if found and self.first_comment is None:
            line = self.source.line_of(offset) + block.count(b"\n", 0, found[0].start())
            self.first_comment = (line, found[0].group().decode("utf-8"))
        self.n_comments += len(found)
        return _COMMENT.sub(b"", block) if found else block

    def start(self, block: bytes) -> bool:
        """The shape of the lines, from the file's first data line; False while no data line was seen."""
        first = first_data_line(block, self.comments)
        if first is None:
            return False
        shape = self.shape_of(first)
        if opens_json_object(first):  # a JSON-lines log (an id such as '{{x}}q1' may start a TREC line)
            raise TrecFormatError(
                f"{self.source.name}: the file starts with '{{': it looks like a JSON-lines log, not a {shape.what} "
                "file; read it with rankviz.read_jsonl(path) (its .run and .qrels); rankviz eval, diff and report read "
                "such logs as is."
            )
        self.columns = _Columns(shape, self.source.size)
        return True

    def tidied(self, block: bytes, offset: int) -> pa.Table | None:
        """The block's columns read the careful way (see the module docstring); None for a block without data."""
        assert self.columns is not None
        shape = self.columns.shape
        data = self.without_comments(block, offset)
        foreign = FOREIGN.search(data.decode("utf-8")) if not data.isascii() else _ASCII_FOREIGN.search(data)
        if foreign is not None or (b"\r" in data and _INNER_CR.search(data)):
            raise self.error(block, offset)
        data = _EDGES.sub(b"", _SPACES.sub(b" ", data))
        if shape.extra:  # the fields after the last one read are dropped, as trec_eval ignores them
            data = re.sub(rb"^((?:[^ \n]+ ){%d}[^ \n]+) [^\n]*" % (len(shape.names) - 1), rb"\1", data, flags=re.M)
        if not data.strip(b"\n"):
            return None
        try:
            table = pv.read_csv(pa.BufferReader(data), *_options(shape, typed=False, size=len(data)), memory_pool=POOL)
        except pa.ArrowException:
            raise self.error(block, offset) from None
        for name in shape.numbers:
            column = table.column(name)
            pattern = INTEGER if shape.integer(name) else DECIMAL
            if not pc.all(pc.match_substring_regex(column, f"^(?:{pattern})$")).as_py():
                raise self.error(block, offset)
            values = pc.cast(column, pa.float64()).to_numpy()
            if not np.isfinite(values).all():
                raise self.error(block, offset)
            if shape.integer(name):
                if len(values) and np.abs(values).max() >= MAX_EXACT:  # float64 rounds monotonically: few to look at
                    big = pc.filter(column, pa.array(np.abs(values) >= MAX_EXACT)).to_pylist()
                    if any(abs(int(v.split(".")[0])) > MAX_EXACT for v in big):
                        raise self.error(block, offset)
                values = values.astype(np.int64)
            table = table.set_column(table.column_names.index(name), name, pa.array(values))
        return table

    def add(self, future, block: bytes, offset: int) -> None:
        """The block's columns joined to the file's: the typed parse's (``future``), else the tidied ones."""
        assert self.columns is not None
        table = None
        if future is not None:
            try:
                table = future.result()
            except pa.ArrowException:
                table = None
            if table is not None and not _exact(table):
                table = None
        if table is None:
            table = self.tidied(block, offset)
        if table is not None:
            self.columns.append(table, len(block))

    def result(self) -> Parsed:
        name, shape = self.source.name, self.columns.shape if self.columns is not None else self.shape_of("")
        parsed = self.columns.result() if self.columns is not None else None
        if parsed is None or not len(next(iter(parsed.numbers.values()))):
            also = f" ({self.n_comments} comment line(s) starting with '#')" if self.n_comments else ""
            raise TrecFormatError(f"{name}: the file has no {shape.what} lines{also} (expected '{shape.expected}').")
        if self.first_comment is not None:
            warn_comments(name, self.n_comments, *self.first_comment)
        return parsed


def read_trec(
    path,
    shape_of: Callable[[str], Shape],
    *,
    comments: bool = True,
    header: Callable[[str], None] | None = None,
    block_size: int = BLOCK,
) -> Parsed:
    """The columns of a TREC run or qrels file, every problem a :class:`~rankviz.TrecFormatError` naming the line.

    Parameters
    ----------
    path : str or path-like
        The file, plain or compressed (gzip, bzip2, xz: found by their magic bytes).
    shape_of : callable
        The :class:`~rankviz.io.trec_lines.Shape` of the file's lines, from its first data line (``""`` for a file
        without one): :data:`~rankviz.io.trec_lines.RUN`, :data:`~rankviz.io.trec_lines.QRELS`, ...
    comments : bool, default True
        Skip lines whose first non-blank character is ``#``, with one warning giving their count and the first.
    header : callable, optional
        For a file whose first line is a header (BEIR's qrels): called with that line (it raises if the line is not
        the header), which is then skipped.
    block_size : int
        Bytes of text per parse.

    Returns
    -------
    Parsed
        A run's ``query_id`` and ``doc_id`` (large strings), ``rank`` (int64), ``score`` (float64) and tags
        (codes); qrels' ``query_id``, ``iteration``, ``doc_id`` (large strings) and ``relevance`` (int64).
    """
    with _Source(path) as source, ThreadPoolExecutor(max_workers=1) as parser, ThreadPoolExecutor(1) as reader:
        file = _Reader(source, shape_of, comments)
        pending = None
        for offset, block in _ahead(source.blocks(block_size), reader if source.kind is not None else None):
            if header is not None:  # the header line checked, then left blank
                end = block.find(b"\n")
                header(block[: None if end < 0 else end].decode("utf-8", "replace"))
                block, header = block[end:] if end >= 0 else b"", None
            if file.columns is None and not file.start(block):
                file.without_comments(block, offset)  # no data line yet: comments to count, the encoding to check
                continue
            assert file.columns is not None
            future = None
            if plain_block(block):
                # POOL, the C library's allocator, not Arrow's default pool: what parsing freed can go back to the system
                options = _options(file.columns.shape, typed=True)
                future = parser.submit(pv.read_csv, pa.BufferReader(block), *options, memory_pool=POOL)
            if pending is not None:
                file.add(*pending)
            pending = future, block, offset
        if pending is not None:
            file.add(*pending)
    if header is not None:  # an empty file
        header("")
    return file.result()
