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
import itertools
import json
import os
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._core.columns import Columns
from .._core.hashing import mix, string_hashes
from .._core.long_run import id_array, resolve_long_run, resolve_qrels
from .._errors import RankvizError

__all__ = [
    "qrels_fingerprints",
    "queries_fingerprint",
    "run_fingerprint",
    "options_fingerprint",
    "digest",
    "environment_meta",
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

    Rows are read as everywhere in rankviz (:func:`rankviz._core.long_run.resolve_qrels`:
    the same columns, the same refusal of a pair judged twice), ids compared as
    strings and grades as integers, so row order and dtypes do not matter.
    """
    arrays = resolve_qrels(qrels, columns)
    rows = sorted(zip(map(str, arrays.query_ids), map(str, arrays.doc_ids), np.asarray(arrays.grades).tolist()))
    per_query: dict[str, str] = {}
    for query, group in itertools.groupby(rows, key=lambda row: row[0]):
        text = "".join(f"{_field(doc)}={int(grade)};" for _, doc, grade in group)
        per_query[query] = digest(text)[:16]
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
    64-bit hash (rankviz's string hashes of the ids, mixed with the score's bits);
    the rows are combined by their count, sum and sum of squares modulo 2**64, which
    do not depend on the order and take one pass over millions of rows. None for
    anything that is not a long run frame (a per-query table, per-query lists).
    """
    if not isinstance(run, pd.DataFrame):
        return None
    try:
        cols = resolve_long_run(run)
        columns = [(cols.query, "query"), (cols.doc, "doc")]
        hashes = [string_hashes(id_array(cols.frame[c], role=role, what="run")) for c, role in columns if c]
        if cols.system is not None:  # few distinct names: each hashed once, then taken per row
            names = pc.dictionary_encode(id_array(cols.frame[cols.system], role="system", what="run"))
            names = names.combine_chunks() if isinstance(names, pa.ChunkedArray) else names
            hashes.append(string_hashes(names.dictionary)[names.indices.to_numpy(zero_copy_only=False)])
    except RankvizError:  # not a long run (e.g. lists per query): no run fingerprint
        return None
    value = cols.score if cols.score is not None else cols.rank
    values = pd.to_numeric(cols.frame[value], errors="coerce").to_numpy(dtype=np.float64) + 0.0  # -0.0 is 0.0
    row = mix(hashes[0], values.view(np.uint64))
    for more in hashes[1:]:
        row = mix(row, more)
    with np.errstate(over="ignore"):
        total = int(row.sum(dtype=np.uint64))
        squares = int((row * row).sum(dtype=np.uint64))
    kind = "score" if cols.score is not None else "rank"
    return digest(f"{kind};{len(hashes)};{len(row)};{total};{squares}")


def options_fingerprint(options: dict) -> str:
    """The fingerprint of the evaluation options (a JSON-able dict; key order does not matter)."""
    return digest(json.dumps(options, sort_keys=True, default=str))


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], capture_output=True, text=True, timeout=5, check=False, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def environment_meta() -> dict:
    """Where the evaluation ran: the git commit and branch (inside a repository) and the CI variables set."""
    meta: dict = {}
    found = _git("rev-parse", "HEAD", "--abbrev-ref", "HEAD")  # one process: commit, then branch
    lines = found.splitlines() if found else []
    if len(lines) == 2:
        meta["git_commit"], meta["git_branch"] = lines
    ci = {name: os.environ[name] for name in CI_VARIABLES if name in os.environ}
    if ci:
        meta["ci"] = ci
    return meta
