"""MS MARCO's TSV files: runs of ``qid <TAB> pid <TAB> rank`` lines, qrels of ``qid <TAB> 0 <TAB> pid <TAB> rel``.

MS MARCO distributes its passage and document rankings (``top1000.dev``-style runs
reduced to their ids, the leaderboard's submission format) as three tab-separated fields
per line, with no score and no run tag, and its qrels as TREC qrels separated by tabs.
:func:`rankviz.read_run` and :func:`rankviz.read_qrels` read them (``format='msmarco'``,
or found by the first data line's three fields), by the one TREC reader
(:mod:`rankviz.io.trec_reader`, with :data:`rankviz.io.trec_lines.MSMARCO_RUN` as the
lines' shape): compressed files found by their bytes, ids kept as strings, and any bad
line refused with the file, the line number and the line.

A run's order is its ``rank`` field (1 is best). So that a run read from MS MARCO is the
frame every other reader gives (and evaluates by ``score`` like them), its ``score`` is
``-rank``, the convention :func:`rankviz.write_run` uses for a run without scores; ties
of equal ranks are broken by doc id as trec_eval breaks ties of equal scores.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .._core.columns import Columns
from .._core.long_run import key_array, resolve_long_run, resolve_qrels
from .._errors import InputError
from .run_frame import RunParts, check_writable_ids, parts_from_fields, trec_order

__all__ = [
    "MSMARCO_RUN_FIELDS",
    "msmarco_run_parts",
    "looks_like_msmarco_run",
    "write_msmarco_run",
    "write_msmarco_qrels",
]

MSMARCO_RUN_FIELDS = "qid<TAB>pid<TAB>rank"

_SEPARATORS = " \t\v\f\r"


def looks_like_msmarco_run(text: str, comments: bool = True) -> bool:
    r"""Whether the first data line is MS MARCO's ``qid<TAB>pid<TAB>rank``: three TAB-separated fields, an integer last.

    A TREC run line cut short (``q1 Q0 d1``) has three fields too, but not TABs between them and an integer
    rank: it stays a TREC run, so its error names the TREC fields.

    >>> looks_like_msmarco_run("1\t7\t1\n"), looks_like_msmarco_run("q1 Q0 d1\n")
    (True, False)
    >>> looks_like_msmarco_run("q1 Q0 d1 0 0.0\tbm25\t1\n")  # a TREC line with TABs among its separators
    False
    """
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        line = text[start : None if end < 0 else end].strip(_SEPARATORS)
        if line and not (comments and line.startswith("#")):
            fields = line.split("\t")
            # three fields in all: a TREC line whose last separators happen to be TABs has more than three
            return len(fields) == 3 and len(line.split()) == 3 and fields[2].strip().isdigit()
        if end < 0:
            break
        start = end + 1
    return False


def msmarco_run_parts(name: str, parsed, system: str | None) -> RunParts:
    """The parts of an MS MARCO run from its columns (:class:`rankviz.io.trec_reader.Parsed`); the system is
    ``system``, else the file's base name."""
    rank = parsed.numbers["rank"]
    score = -rank.astype(np.float64)
    tag = system if system is not None else os.path.basename(name) or "run"
    return parts_from_fields(name, parsed.strings["query_id"], parsed.strings["doc_id"], rank, score, [], tag)


def write_msmarco_run(run, path, *, columns=None) -> None:
    """Write a run as ``qid <TAB> pid <TAB> rank`` lines, sorted by query id and ranked as trec_eval orders it.

    The scores are not written (MS MARCO runs have none): reading the file back gives
    the same ranks, and ``score = -rank``.
    """
    cols = resolve_long_run(run, Columns.of(columns, "write_run"), need_doc=True)
    frame = cols.frame
    qid, did = frame[cols.query].astype("str"), frame[cols.doc].astype("str")
    check_writable_ids(qid, did)
    key = -key_array(frame, cols, order=None, score_dtype="float64", caller="write_run")
    if cols.system is not None and frame[cols.system].nunique() > 1:
        raise InputError("write_run writes one system per file; select one system first.")
    order, ranks = trec_order(qid, key, did)
    q, d = qid.to_numpy()[order], did.to_numpy()[order]
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(f"{a}\t{b}\t{r}\n" for a, b, r in zip(q.tolist(), d.tolist(), ranks.tolist()))


def write_msmarco_qrels(qrels, path, *, columns=None) -> None:
    """Write qrels as MS MARCO does: ``qid <TAB> 0 <TAB> pid <TAB> rel`` lines."""
    q = resolve_qrels(qrels, Columns.of(columns, "write_qrels"))
    check_writable_ids(pd.Series(q.query_ids, dtype="str"), pd.Series(q.doc_ids, dtype="str"))
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(f"{a}\t0\t{b}\t{int(g)}\n" for a, b, g in zip(q.query_ids, q.doc_ids, q.grades))
