"""Content fingerprints of what an evaluation depended on, and where it ran (git, CI).

A fingerprint is a SHA-256 of a canonical form, so the order of rows and the dtypes
of the columns never change it: ids become strings, grades integers, rows are
sorted. Any change of content does: a grade, a judged pair added or removed, a
query in or out of the evaluated set, an option. The qrels also get one
fingerprint per query (the first 16 hex digits of its own SHA-256), which is what
lets a comparison say *which* queries were relabelled.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._core.columns import Columns
from .._core.long_run import qrels_columns, resolve_long_run, resolve_qrels
from .._errors import RankvizError
from .content_hashes import id_source, run_digest

__all__ = [
    "qrels_fingerprints",
    "queries_fingerprint",
    "run_fingerprint",
    "options_fingerprint",
    "digest",
    "environment_meta",
    "start_environment_meta",
    "CI_VARIABLES",
]

#: CI variables recorded when present (GitHub Actions, GitLab CI, Jenkins, Buildkite, CircleCI, generic)
CI_VARIABLES = (
    "CI", "GITHUB_SHA", "GITHUB_REF", "GITHUB_RUN_ID", "GITHUB_REPOSITORY", "GITHUB_WORKFLOW",
    "GITLAB_CI", "CI_COMMIT_SHA", "CI_COMMIT_REF_NAME", "CI_PIPELINE_ID",
    "JENKINS_URL", "BUILD_ID", "GIT_COMMIT", "BUILDKITE_COMMIT", "BUILDKITE_BRANCH", "CIRCLE_SHA1", "CIRCLE_BRANCH",
)  # fmt: skip


def digest(text: str) -> str:
    """The SHA-256 of a text, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _field(text: str) -> str:
    """A string that can be concatenated unambiguously (length-prefixed)."""
    return f"{len(text)}:{text}"


def qrels_fingerprints(qrels: pd.DataFrame, columns: Columns = Columns()) -> tuple[str, dict[str, str]]:
    """The qrels' fingerprint and one per judged query (``{query id: 16 hex digits}``).

    Rows are read as everywhere in rankviz (the same columns as
    :func:`rankviz._core.long_run.resolve_qrels`, the same refusal of a pair judged
    twice), ids compared as strings and grades as integers, so row order and dtypes
    do not matter. A query's fingerprint is the SHA-256 of its judgements sorted by
    doc id, each as ``{len(doc)}:{doc}={grade};``; the text of all rows is built by
    Arrow in one pass, and each query's slice of it is hashed where it lies.
    """
    _, _, _, query_ids, doc_ids, grade_values = qrels_columns(qrels, columns)
    grades = pa.array(grade_values)
    table = pa.table({"q": query_ids, "d": doc_ids})
    # Arrow orders strings by their UTF-8 bytes, which is Python's order of code points
    order = pc.sort_indices(table, sort_keys=[("q", "ascending"), ("d", "ascending")])
    queries = table["q"].take(order).combine_chunks()
    docs = table["d"].take(order).combine_chunks()
    n = len(docs)
    if n > 1 and pc.any(pc.and_(pc.equal(queries[1:], queries[:-1]), pc.equal(docs[1:], docs[:-1]))).as_py():
        resolve_qrels(qrels, columns)  # raises DuplicateError, naming the pairs judged twice
    docs = docs.cast(pa.large_string())
    parts = [pc.utf8_length(docs), ":", docs, "=", grades.take(order), ";"]
    text = pc.binary_join_element_wise(
        *(pc.cast(p, pa.large_string()) for p in parts), pa.scalar("", pa.large_string())
    )
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + n + 1]
    data = memoryview(text.buffers()[2])  # n >= 1: check_frame refused empty qrels
    change = pc.not_equal(queries[1:], queries[:-1]).to_numpy(zero_copy_only=False)
    starts = np.concatenate([[0], np.flatnonzero(change) + 1]).astype(np.int64)
    bounds = offsets[np.append(starts, n)].tolist()
    names = queries.take(pa.array(starts)).to_pylist()
    per_query = {
        query: hashlib.sha256(data[a:b]).hexdigest()[:16] for query, a, b in zip(names, bounds[:-1], bounds[1:])
    }
    overall = digest("".join(f"{_field(q)}{fp};" for q, fp in sorted(per_query.items())))
    return overall, per_query


def queries_fingerprint(query_ids) -> str:
    """The fingerprint of a set of query ids (as strings; order and repeats do not matter)."""
    values = query_ids if isinstance(query_ids, (pd.Series, pd.Index, np.ndarray, list)) else list(query_ids)
    ids = pd.unique(pd.Series(values).astype("str"))  # distinct first (a per-query table repeats them per system)
    return digest("".join(_field(q) + ";" for q in sorted(map(str, ids))))


def run_fingerprint(run) -> str | None:
    """The fingerprint of a long run frame: its (system, query, doc, score or rank) rows as a multiset.

    Ids are read as strings (integers as their decimal text, as everywhere in rankviz)
    and scores as float64, so row order and id dtypes do not matter. Each row gets a
    64-bit hash of every byte of its ids and of its score's bits
    (:mod:`rankviz.history.content_hashes`, which also says how collision-resistant
    this is); the rows are combined by their count, sum and sum of squares modulo
    2**64, which do not depend on the order and take one pass over millions of rows
    in cache-sized blocks. None for anything that is not a long run frame (a
    per-query table, per-query lists).
    """
    if not isinstance(run, pd.DataFrame):
        return None
    try:
        cols = resolve_long_run(run)
        roles = [(cols.query, "query"), (cols.doc, "doc"), (cols.system, "system")]
        sources = [id_source(cols.frame[c], role=role, what="run") for c, role in roles if c is not None]
    except RankvizError:  # not a long run (e.g. lists per query): no run fingerprint
        return None
    column = cols.frame[cols.score if cols.score is not None else cols.rank]
    if column.dtype != np.float64:
        column = pd.to_numeric(column, errors="coerce")
    values = column.to_numpy(dtype=np.float64)
    total, squares = run_digest(sources, values)
    kind = "score" if cols.score is not None else "rank"
    return digest(f"{kind};{len(sources)};{len(values)};{total};{squares}")


def options_fingerprint(options: dict) -> str:
    """The fingerprint of the evaluation options (a JSON-able dict; key order does not matter)."""
    return digest(json.dumps(options, sort_keys=True, default=str))


def start_environment_meta():
    """Start looking up where the evaluation runs; call what this returns for :func:`environment_meta`'s dict.

    The git process starts now and is read when the result is asked for, so that
    ``History.record`` does not wait for it: it runs while the evaluation does. The CI
    variables are read when the result is asked for.
    """
    try:
        process = subprocess.Popen(  # one process: the commit, then the branch
            ["git", "rev-parse", "HEAD", "--abbrev-ref", "HEAD"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        process = None

    found: list[str | None] = []

    def finish() -> dict:
        if not found:  # the process is read once; later calls give the same answer
            found.append(_git_output(process))
        meta: dict = {}
        out = found[0]
        lines = out.splitlines() if out else []
        if len(lines) == 2:
            meta["git_commit"], meta["git_branch"] = lines
        ci = {name: os.environ[name] for name in CI_VARIABLES if name in os.environ}
        if ci:
            meta["ci"] = ci
        return meta

    return finish


def _git_output(process) -> str | None:
    if process is None:
        return None
    try:
        out, _ = process.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None
    except (OSError, subprocess.SubprocessError):
        return None
    out = out.strip()
    return out if process.returncode == 0 and out else None


def environment_meta() -> dict:
    """Where the evaluation ran: the git commit and branch (inside a repository) and the CI variables set."""
    return start_environment_meta()()
