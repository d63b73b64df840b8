"""JSON-lines retrieval logs on the command line: ``eval``, ``diff`` and ``report`` read them as runs and qrels.

A file is a log when its name ends in ``.jsonl`` or ``.ndjson`` (compressed or not: ``.jsonl.gz``)
or when its first non-blank byte (after decompression) is ``{``; a TREC file never starts so.
It is read with :func:`rankviz.io.read_jsonl`'s default fields (``query_id``, ``retrieved``,
``relevant``, ``scores``): its run is the run, and its gold ids are the qrels wherever the
command is given no qrels file, or is given the log in the qrels' place. A log with other
field names is refused with the conversion that reads it (:data:`CONVERSION`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["is_log", "run_of", "qrels_of", "CONVERSION", "LOG_SUFFIXES", "as_trec_files"]

#: file name endings read as JSON-lines logs (compressed or not)
LOG_SUFFIXES = (".jsonl", ".ndjson")

#: how to turn a log with other field names into TREC files, named in the errors
CONVERSION = (
    "the command line reads a JSONL log with read_jsonl's default fields (query_id, retrieved, relevant, scores); "
    "for other fields convert it first: python -c \"import rankviz; log = rankviz.read_jsonl('LOG', query='...', "
    "retrieved='...', relevant='...', score=None); rankviz.write_run(log.run, 'run.txt'); "
    "rankviz.write_qrels(log.qrels, 'qrels.txt')\""
)

_CACHE: dict[tuple[str, float], object] = {}


def is_log(path) -> bool:
    """Whether ``path`` names a JSON-lines log (by its name, or its first non-blank text opening a JSON object).

    >>> is_log("runs/bm25.jsonl.gz"), is_log("no/such/run.txt")
    (True, False)
    """
    name = os.fspath(path).lower()
    for compressed in ("", ".gz", ".bz2", ".xz"):
        if name.endswith(tuple(s + compressed for s in LOG_SUFFIXES)):
            return True
    if not os.path.isfile(path):
        return False
    from ..io.text_files import open_bytes, opens_json_object

    try:
        _, _, stream = open_bytes(path)
        with stream:
            head = stream.read(4096)
    except Exception:  # noqa: BLE001 - unreadable here: the reader that follows says why
        return False
    return opens_json_object(head.decode("utf-8", "replace"))  # not an id such as '{{x}}q1'


def _log(path):
    """The file's :class:`~rankviz.io.RetrievalLog`, read once per command (the qrels and the run of one log)."""
    from .._errors import InputError, TrecFormatError
    from ..io import read_jsonl

    key = (os.path.abspath(os.fspath(path)), os.path.getmtime(path) if os.path.exists(path) else 0.0)
    if key not in _CACHE:
        try:
            _CACHE[key] = read_jsonl(path)
        except (TrecFormatError, InputError) as exc:
            raise InputError(f"{exc} ({CONVERSION})") from None
    return _CACHE[key]


def run_of(path, system: str | None = None):
    """The run in ``path``: a TREC run file, or a log's run (its ``system`` the file name without extensions)."""
    from ..io import read_run

    if is_log(path):
        run = _log(path).run
        return run if system is None else run.assign(system=system)
    return read_run(path) if system is None else read_run(path, system=system)


def qrels_of(path):
    """The qrels in ``path``: a TREC qrels file, or a log's gold ids (an error naming the fix when it has none)."""
    from .._errors import InputError
    from ..io import read_qrels

    if not is_log(path):
        return read_qrels(path)
    qrels = _log(path).qrels
    if qrels is None:
        raise InputError(
            f"{path}: the log has no gold ids (no 'relevant' field), so it gives no qrels; pass a qrels file"
        )
    return qrels


def as_trec_files(qrels, runs, folder) -> tuple[str, list[str]]:
    """``qrels`` and ``runs`` as TREC files in ``folder`` where they are logs (for the report, which reads files).

    A log's run is written as ``folder/<its system name>`` (the name the report shows, whitespace
    written as ``_``; a second log of the same name gets ``_2``...), its
    gold ids as ``folder/qrels.txt``; TREC files are passed through. ``qrels`` None takes the
    first log's gold ids.
    """
    from .._errors import InputError
    from ..io import write_qrels, write_run

    folder = Path(folder)
    if qrels is None:
        logs = [r for r in runs if is_log(r)]
        if not logs:
            raise InputError("--qrels is required (it may be left out only when a run is a JSONL log with gold ids)")
        qrels = logs[0]
    if is_log(qrels):
        target = folder / "qrels.txt"
        write_qrels(qrels_of(qrels), target)
        qrels = str(target)
    out: list[str] = []
    for path in runs:
        if is_log(path):
            run = _log(path).run
            name = str(run["system"].iloc[0]) if len(run) else Path(path).name
            name = re.sub(r"\s+", "_", name).strip(".") or "log"  # a TREC tag (and the name shown): no whitespace
            target = folder / name
            if target.exists():
                target = folder / f"{name}_{len(out) + 1}"
            write_run(run.drop(columns="system"), target, tag=target.name)
            out.append(str(target))
        else:
            out.append(os.fspath(path))
    return os.fspath(qrels), out
