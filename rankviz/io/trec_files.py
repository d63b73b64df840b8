"""Reading TREC run and qrels files (plain or compressed) and run parquet files.

TREC files are read the way trec_eval 10 reads them (the details, and where rankviz
departs from trec_eval to refuse what it would misread, are in
:mod:`rankviz.io.trec_lines`): fields separated by spaces, tabs or a CRLF line end;
blank lines and lines starting with ``#`` skipped (the comments with one warning);
gzip, bzip2 and xz files read transparently, by their magic bytes.

* runs: ``query_id iteration doc_id rank score tag`` -- six fields; fields after the
  sixth are ignored (trec_eval ignores them too); the iteration field is dropped.
* qrels: ``query_id iteration doc_id relevance`` -- four fields; the relevance must
  be an integer (trec_eval would silently truncate ``1.7`` to 1; rankviz refuses).

Ids are always returned as strings (pandas' ``str`` dtype): ``"01"`` and ``"1"``
are different documents, as they are to trec_eval.

One reader (:mod:`rankviz.io.trec_reader`) parses every TREC file with pyarrow's CSV
parser in blocks: with typed numbers where the lines are written the usual way, and
tidied first (comments, runs of whitespace, extra fields) where they are not; when a
check fails, a locator (:func:`rankviz.io.trec_lines.locate`) names the file, the line
and what was expected. MS MARCO runs are read by it too, with their own shape.
A run saved with ``write_run(..., format="parquet")`` is read back by
:func:`read_run` (recognised by its magic bytes); topic files are read by
:mod:`rankviz.io.topics`.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .._errors import InputError, RankvizWarning, warn
from .label_file import is_sqlite_file, read_store_qrels
from .msmarco import looks_like_msmarco_run, msmarco_run_parts
from .run_frame import (
    RunParts,
    is_parquet,
    parts_from_parsed,
    read_parquet_run,
    run_frame,
    string_series,
)
from .text_files import display_name
from .topics import read_topics
from .trec_lines import MSMARCO_RUN, QRELS, RUN
from .trec_reader import read_trec

__all__ = [
    "read_run",
    "read_runs",
    "read_qrels",
    "read_topics",
]

_FORMATS = ("trec", "msmarco")


def _check_format(format, caller: str) -> None:
    if format is not None and format not in _FORMATS:
        raise InputError(
            f"The 'format' parameter of {caller} must be 'trec', 'msmarco' or None (found from the file). "
            f"Got {format!r} instead."
        )


def _run_parts(path, system: str | None, comments: bool, format: str | None = None) -> RunParts:
    """One run file's columns: parquet, MS MARCO or TREC text (MS MARCO found by the first data line if not said)."""
    name = display_name(path)
    if format is None and is_parquet(path):
        return read_parquet_run(name, path, system)
    if format is None:
        shape_of = lambda line: MSMARCO_RUN if looks_like_msmarco_run(line, comments) else RUN  # noqa: E731
    else:
        shape_of = lambda line: MSMARCO_RUN if format == "msmarco" else RUN  # noqa: E731
    parsed = read_trec(path, shape_of, comments=comments)
    if parsed.shape is MSMARCO_RUN:
        return msmarco_run_parts(name, parsed, system)
    return parts_from_parsed(name, parsed, system)


def _as_one_run(parts: RunParts, system_from: str) -> RunParts:
    """A file of several run tags as one run named by its last line's tag (trec_eval keeps that run id), said once."""
    if system_from == "tag" or len(parts.tags) <= 1:
        return parts
    last = str(parts.tags[int(parts.tag_codes[-1])])
    shown = ", ".join(repr(str(t)) for t in parts.tags[:3]) + (", ..." if len(parts.tags) > 3 else "")
    warn(
        f"{parts.name} holds {len(parts.tags)} run tags ({shown}); it is read as one run named {last!r}, as trec_eval "
        "and `rankviz eval` read it. Pass system_from='tag' to make each tag a system of its own.",
        RankvizWarning,
    )
    return dataclasses.replace(parts, tag_codes=np.zeros(len(parts.tag_codes), dtype=np.int8), tags=[last])


def read_run(
    path, *, system: str | None = None, system_from: str = "run", comments: bool = True, format: str | None = None
) -> pd.DataFrame:
    """Read a TREC run file, or a run saved as parquet by :func:`write_run`.

    Parameters
    ----------
    path : str or path-like
        A file of ``query_id Q0 doc_id rank score tag`` lines, plain or compressed
        (gzip, bzip2, xz: recognised by their first bytes, whatever the file's name),
        or a parquet file written by ``write_run(..., format="parquet")`` (also
        recognised by its first bytes).
    system : str, optional
        The name to put in the ``system`` column. By default the run's tag (the
        sixth field) is used.
    system_from : {'run', 'tag', 'file'}, default 'run'
        How the ``system`` column is named when ``system`` is not given. ``'run'``:
        the file is one run, as trec_eval and ``rankviz eval`` read it, named by
        its tag; a file holding several tags is named by the tag of its last line
        (the run id trec_eval keeps), with a :class:`~rankviz.RankvizWarning`
        naming the tags. ``'tag'``: one system per tag. ``'file'``: one run named
        by the file's name without its directory (as in :func:`read_runs`).
    comments : bool, default True
        Skip lines whose first non-blank character is ``#``, as trec_eval 10 does,
        with one :class:`~rankviz.RankvizWarning` giving their count and the first
        one. ``False`` reads them as data (query ids starting with ``#``), as
        trec_eval 9 and pytrec_eval do.
    format : {'trec', 'msmarco'}, optional
        ``'msmarco'``: MS MARCO's ``qid<TAB>pid<TAB>rank`` lines (no score, no tag: the
        ``score`` column is ``-rank`` and the system is ``system=`` or the file's name;
        see :mod:`rankviz.io.msmarco`). ``'trec'``: six-field TREC lines only. By
        default parquet is found by its bytes, and a file whose first data line has
        three fields is read as MS MARCO, any other as TREC.

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``rank`` (int64),
        ``score`` (float64) and ``system`` (categorical of str, the tags sorted),
        in file order.

    Raises
    ------
    FileNotFoundError
        When there is no such file.
    TrecFormatError
        Naming the file, the line number and the line, for a line with fewer than
        six fields, a score that is not a finite number (``nan``, ``inf``), a rank
        that is not an integer of magnitude at most 2**53, a no-break space or
        another character trec_eval would read differently (see
        :mod:`rankviz.io.trec_lines`), or a file that is not UTF-8 text.
    ColumnError
        For a parquet file without the columns ``query_id``, ``doc_id``, ``rank``,
        ``score`` and ``system`` (``system`` is not needed when ``system=`` is
        given), or with missing values, non-finite scores or ranks beyond 2**53 in them.

    See Also
    --------
    read_runs : many run files into one frame.
    write_run : write a run as a TREC file or as parquet.

    Notes
    -----
    Like trec_eval, evaluation orders documents by ``score`` (descending, ties by
    doc id descending); the ``rank`` field is kept but not trusted.

    The file is parsed by pyarrow in blocks, in parallel and without holding its
    text in memory. Blocks written the usual way (single spaces between fields, LF or
    CRLF line ends, plain integer ranks, no comment lines) are parsed with typed
    numbers; others are tidied first, and a block with a problem is read again line
    by line to name the line at fault (see :mod:`rankviz.io.trec_reader`).

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> _ = open(path, "w").write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    >>> rankviz.read_run(path)
      query_id doc_id  rank  score system
    0       q1     d1     1    2.5   bm25
    1       q1     d2     2    1.5   bm25
    """
    if system_from not in ("run", "tag", "file"):
        raise InputError(
            f"The 'system_from' parameter of read_run must be 'run', 'tag' or 'file'. Got {system_from!r} instead."
        )
    if system is None and system_from == "file":
        system = os.path.basename(display_name(path))
    _check_format(format, "read_run")
    return run_frame([_as_one_run(_run_parts(path, system, comments, format), system_from)])


_GLOB_CHARACTERS = re.compile(r"[*?[]")


def _run_paths(paths) -> list:
    """The files a read_runs argument names: a glob pattern, a folder (its files), one path or a list of paths."""
    if isinstance(paths, (str, os.PathLike)):
        text = os.fsdecode(paths)
        if _GLOB_CHARACTERS.search(text) and not os.path.exists(text):
            found: list[str | Path] = [p for p in sorted(glob.glob(text)) if not os.path.isdir(p)]
            if not found:
                raise FileNotFoundError(f"read_runs: no file matches {text!r} (relative to {os.getcwd()}).")
            return found
        if os.path.isdir(text):
            found = sorted(p for p in Path(text).iterdir() if p.is_file() and not p.name.startswith("."))
            if not found:
                raise FileNotFoundError(f"read_runs: the folder {text!r} has no files.")
            return found
        return [paths]
    try:
        listed = list(paths)
    except TypeError:
        raise InputError(
            f"read_runs expects a glob pattern, a folder, or a list of paths. Got {type(paths).__name__}."
        ) from None
    if not listed:
        raise InputError("read_runs: the list of paths is empty.")
    missing = [display_name(p) for p in listed if not os.path.exists(p)]
    if missing:
        raise FileNotFoundError(
            f"read_runs: no such file: {', '.join(missing[:5])}"
            + (f" (and {len(missing) - 5} more)" if len(missing) > 5 else "")
        )
    return listed


def read_runs(paths, *, system_from: str = "tag", comments: bool = True, format: str | None = None) -> pd.DataFrame:
    """Read many run files into one frame, one system per run (the "all submissions in a folder" case).

    Parameters
    ----------
    paths : str, path-like or list of them
        A glob pattern (``"runs/*.txt"``, ``"runs/**/*.gz"`` does not recurse), a
        folder (every file in it but hidden ones, sorted by name), or a list of paths.
        Each file is read as by :func:`read_run`: TREC text, plain or compressed, or
        parquet.
    system_from : {'tag', 'file'}, default 'tag'
        Name each run's rows by its tag (the sixth field), or by the file's name
        without its directory (``runs/bm25.txt.gz`` -> ``'bm25.txt.gz'``).
    comments, format : optional
        As for :func:`read_run` (MS MARCO runs have no tag: each is named by its file).

    Returns
    -------
    DataFrame
        The columns of :func:`read_run`, the files' rows one after the other in
        the order of ``paths``; ``system`` is categorical (the names sorted).

    Raises
    ------
    FileNotFoundError
        For a pattern that matches no file, an empty folder, or a listed path that
        does not exist (all are checked before any file is read).
    InputError
        When two files give the same system name (two runs with one tag: read them
        with ``system_from='file'``), for an empty list, or an unknown ``system_from``.
    TrecFormatError, ColumnError
        As for :func:`read_run`, naming the file at fault.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> for tag in ("bm25", "dense"):
    ...     _ = open(os.path.join(folder, tag + ".txt"), "w").write(f"q1 Q0 d1 1 2.5 {tag}\\n")
    >>> runs = rankviz.read_runs(os.path.join(folder, "*.txt"))
    >>> runs["system"].tolist(), runs["system"].dtype.name
    (['bm25', 'dense'], 'category')
    """
    if system_from not in ("tag", "file"):
        raise InputError(
            f"The 'system_from' parameter of read_runs must be 'tag' or 'file'. Got {system_from!r} instead."
        )
    _check_format(format, "read_runs")
    files = _run_paths(paths)
    parts: list[RunParts] = []
    owner: dict[str, str] = {}
    for path in files:
        name = display_name(path)
        part = _run_parts(path, os.path.basename(name) if system_from == "file" else None, comments, format)
        for tag in part.tags:
            if tag in owner:
                raise InputError(
                    f"read_runs: the runs {owner[tag]} and {name} both name their rows {tag!r}, which would merge them "
                    "into one system. Read them with system_from='file' (each file's name), or rename a tag."
                )
            owner[tag] = name
        parts.append(part)
    return run_frame(parts)


def read_qrels(
    path,
    *,
    comments: bool = True,
    format: str | None = None,
    annotator=None,
    kind: str | None = None,
    resolve: str = "latest",
) -> pd.DataFrame:
    """Read a TREC qrels file (or a label store).

    Parameters
    ----------
    path : str or path-like
        A file of ``query_id iteration doc_id relevance`` lines (any whitespace),
        plain or compressed (gzip, bzip2, xz); or a label store
        (:class:`rankviz.labels.LabelStore`, recognised by its first 16 bytes).
    comments : bool, default True
        Skip lines starting with ``#`` (with one warning), or read them as data; as
        for :func:`read_run`.
    format : {'trec', 'msmarco'}, optional
        MS MARCO's qrels (``qid<TAB>0<TAB>pid<TAB>rel``) are TREC qrels separated by
        tabs: both names read the same four fields, and give the same frame.
    annotator : str or list of str, optional
        A label store only: whose judgements (default: every annotator's).
    kind : {'human', 'model'}, optional
        A label store only: people's judgements or a model's (default: both).
    resolve : {'latest', 'majority', 'mean', 'human_first'}, default 'latest'
        A label store only: how several annotators' grades of one pair become one
        (see :meth:`rankviz.labels.LabelStore.to_qrels`); ``'human_first'`` takes a
        person's grade where there is one and fills the rest from the model.

    Returns
    -------
    DataFrame
        Columns ``query_id`` (str), ``iteration`` (str, ignored by evaluation),
        ``doc_id`` (str) and ``relevance`` (int64), in file order. From a label store
        whose labels came partly from a model, a ``kind`` column too (``human``,
        ``model``, ``mixed``): evaluation reads it to say how much a model graded.

    Raises
    ------
    FileNotFoundError
        When there is no such file.
    TrecFormatError
        Naming the file, the line number and the line, for a line without exactly
        four fields (six fields suggest a run file given as qrels), a relevance
        that is not an integer of magnitude at most 2**53 (``1.7``, ``1e3`` and
        ``9223372036854775808`` are refused: trec_eval's ``atol`` would read the
        first two as 1), or a character trec_eval would read differently.

    Examples
    --------
    >>> import rankviz, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("q1 0 d1 2\\r\\nq1 0.5  d2 0\\r\\n")
    >>> rankviz.read_qrels(path)
      query_id iteration doc_id  relevance
    0       q1         0     d1          2
    1       q1       0.5     d2          0
    """
    _check_format(format, "read_qrels")
    if is_sqlite_file(path):  # a label store; any other SQLite file is refused there, untouched
        return read_store_qrels(path, annotator=annotator, kind=kind, resolve=resolve)
    if annotator is not None or kind is not None or resolve != "latest":
        raise InputError(
            f"read_qrels: annotator=, kind= and resolve= apply to a label store (rankviz.labels.LabelStore); "
            f"{display_name(path)} is a TREC qrels file. Leave them out."
        )
    parsed = read_trec(path, lambda line: QRELS, comments=comments)
    columns: dict[str, pd.Series | np.ndarray] = {
        c: string_series(parsed.strings[c]) for c in ("query_id", "iteration", "doc_id")
    }
    columns["relevance"] = parsed.numbers["relevance"]
    return pd.DataFrame(columns, copy=False)
