"""TREC run files and parquet datasets as Dask DataFrames.

``read_run`` splits a plain TREC run file into blocks of about ``blocksize`` bytes,
each starting at the beginning of a line, and reads every block with
:func:`rankviz.read_run` itself, so the validation and the messages are the pandas
reader's. A compressed file (gzip, bzip2, xz) or a UTF-16 one cannot be split: it
is one partition, read whole. A parquet dataset (a folder, ``*.parquet`` or a list
of such files) is read with :func:`dask.dataframe.read_parquet`.

What a block reader can and cannot say, compared with the pandas reader:

* a bad line names the file and its line number in the *file* (the block counts
  the lines before it when, and only when, it has an error to report);
* a block holding only comment lines or blank lines is an empty partition; a whole
  file without run lines is refused only when it is read as one block;
* the warning about skipped comment lines is given per block, on the worker that
  read it (in its log), not once per file on the client.
"""

from __future__ import annotations

import glob
import os
import re
import tempfile
import warnings
from pathlib import Path

import pandas as pd

from .._errors import InputError, TrecFormatError
from ..io import read_run as read_trec_run

__all__ = ["read_run", "write_run", "DEFAULT_BLOCKSIZE"]

DEFAULT_BLOCKSIZE = 64 * 2**20
_UNSPLITTABLE = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\xff\xfe", b"\xfe\xff", b"PK\x03\x04")
_LINE = re.compile(r"^(?P<name>.*?), line (?P<line>\d+)")


def _paths(path) -> list[str]:
    """The files a path, a glob pattern or a list of them name, sorted within each pattern."""
    items = list(path) if isinstance(path, (list, tuple)) else [path]
    if not items:
        raise InputError("read_run: the list of paths is empty; pass a path, a glob pattern or a list of paths.")
    found = []
    for item in items:
        text = os.fspath(item)
        matches = sorted(glob.glob(text)) if glob.has_magic(text) else [text]
        if not matches:
            raise FileNotFoundError(f"{text}: no file matches this pattern")
        found.extend(matches)
    return found


def _is_parquet(paths: list[str]) -> bool:
    return all(p.endswith((".parquet", ".pq")) or os.path.isdir(p) for p in paths)


def _blocks(path: str, blocksize: int) -> list[tuple[int, int]]:
    """Byte ranges of a file; one range for a compressed or UTF-16 file (which cannot be split)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a TREC file (a parquet dataset's files end in .parquet)")
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
    if head.startswith(_UNSPLITTABLE) or size <= blocksize:
        return [(0, -1)]
    return [(start, min(start + blocksize, size)) for start in range(0, size, blocksize)]


def _block_bytes(path: str, start: int, stop: int) -> tuple[bytes, int]:
    """The lines that start in ``[start, stop)`` and the byte position of the first one."""
    with open(path, "rb") as f:
        if start > 0:
            f.seek(start - 1)
            f.readline()  # the line under way at `start` belongs to the previous block
        begin = f.tell()
        if begin >= stop:
            return b"", begin
        data = f.read(stop - begin)
        if data and not data.endswith(b"\n"):
            data += f.readline()
    return data, begin


def _lines_before(path: str, position: int) -> int:
    count, done = 0, 0
    with open(path, "rb") as f:
        while done < position:
            chunk = f.read(min(2**24, position - done))
            if not chunk:
                break
            count += chunk.count(b"\n")
            done += len(chunk)
    return count


def _renamed(message: str, temp: str, name: str, offset: int) -> str:
    """A message about a block's temporary file, about the real file and its own line numbers."""
    message = message.replace(temp, name)
    if offset:
        message = _LINE.sub(lambda m: f"{m['name']}, line {int(m['line']) + offset}", message, count=1)
        message = re.sub(r"\(the first is line (\d+)", lambda m: f"(the first is line {int(m[1]) + offset}", message)
    return message


def read_block(path: str, start: int, stop: int, system, comments: bool) -> pd.DataFrame:
    """One block of a TREC run file read by :func:`rankviz.read_run` (``stop == -1``: the whole file)."""
    if stop == -1:
        return read_trec_run(path, system=system, comments=comments)
    data, begin = _block_bytes(path, start, stop)
    if begin > 0 and not data.strip():
        return _empty()
    fd, temp = tempfile.mkstemp(suffix=".run")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                frame = read_trec_run(temp, system=system, comments=comments)
            except TrecFormatError as exc:
                offset = _lines_before(path, begin) if begin else 0
                raise TrecFormatError(_renamed(str(exc), temp, path, offset)) from None
        for w in caught:  # comment lines skipped: said on the worker, with the file's own line numbers
            offset = _lines_before(path, begin) if begin else 0
            warnings.warn(_renamed(str(w.message), temp, path, offset), w.category, stacklevel=2)
        return frame
    finally:
        os.unlink(temp)


def _empty() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query_id": pd.Series([], dtype="str"),
            "doc_id": pd.Series([], dtype="str"),
            "rank": pd.Series([], dtype="int64"),
            "score": pd.Series([], dtype="float64"),
            "system": pd.Series([], dtype="str"),
        }
    )


def read_run(path, *, blocksize: int | None = DEFAULT_BLOCKSIZE, system: str | None = None, comments: bool = True):
    """Read TREC run files or a parquet dataset as a Dask DataFrame.

    Parameters
    ----------
    path : str, path-like, glob pattern or list of them
        TREC run files (plain or gzip/bzip2/xz), or a parquet dataset: a folder, or
        files ending in ``.parquet``.
    blocksize : int or None, default 64 MiB
        Bytes per partition of a plain TREC file; None reads each file as one
        partition. Compressed files are always one partition each.
    system, comments
        As for :func:`rankviz.read_run` (TREC files only).

    Returns
    -------
    dask.dataframe.DataFrame
        For TREC files the columns of :func:`rankviz.read_run`: ``query_id``,
        ``doc_id``, ``rank``, ``score``, ``system``.

    Raises
    ------
    FileNotFoundError
        A path or pattern that names no file (when called).
    TrecFormatError
        The pandas reader's message, naming the file and its line (when computed).
    """
    import dask.dataframe as dd
    from dask import delayed

    paths = _paths(path)
    if _is_parquet(paths):
        return dd.read_parquet(paths if len(paths) > 1 else paths[0])
    if blocksize is not None and (not isinstance(blocksize, int) or isinstance(blocksize, bool) or blocksize < 1):
        raise InputError(
            f"The 'blocksize' parameter of read_run must be an int >= 1 or None. Got {blocksize!r} instead."
        )
    parts = [
        delayed(read_block, pure=True)(p, start, stop, system, comments)
        for p in paths
        for start, stop in (_blocks(p, blocksize) if blocksize is not None else [(0, -1)])
    ]
    return dd.from_delayed(parts, meta=_empty(), verify_meta=False)


def write_run(run, path, **kwargs) -> None:
    """Write a Dask (or pandas) run as a parquet dataset (a folder of ``.parquet`` files) for :func:`read_run`.

    ``kwargs`` go to :meth:`dask.dataframe.DataFrame.to_parquet` (``compression=``, ...).
    """
    import dask.dataframe as dd

    if isinstance(run, pd.DataFrame):
        run = dd.from_pandas(run, npartitions=1)
    if not hasattr(run, "to_parquet"):
        raise InputError(f"write_run: run must be a Dask or pandas DataFrame. Got {type(run).__name__} instead.")
    Path(path).mkdir(parents=True, exist_ok=True)
    run.to_parquet(path, write_index=False, **kwargs)
