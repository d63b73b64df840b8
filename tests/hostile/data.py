"""The valid example inputs of the hostile harness: small, hand-made, deterministic.

Two systems (``A``, ``B``) over eight queries, five documents each, with distinct
scores (no ties: renaming ids cannot move a tie-break, so a consistent renaming of
ids is value-equivalent), graded qrels (0, 1, 2) and query attributes. The files
are rendered by this module's own writers (not rankviz's), so a reader's example
does not depend on the writer it could share a bug with.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

SYSTEMS = ("A", "B")
QUERIES = tuple(f"q{i}" for i in range(1, 9))
N_DOCS = 5


def run_frame() -> pd.DataFrame:
    """A long run: system, query_id, doc_id, score (distinct within a ranked list)."""
    rows = []
    for s, system in enumerate(SYSTEMS):
        for q, query in enumerate(QUERIES, start=1):
            for d in range(N_DOCS):
                doc = f"d{(q * 3 + d * (s + 2)) % 17 + 1}"
                # scores with at most 3 decimals (exact in decimal128(18, 6)), distinct per list
                rows.append((system, query, doc, round(10.0 - d * 1.25 - 0.125 * s + 0.001 * q, 3)))
    frame = pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])
    return frame.drop_duplicates(["system", "query_id", "doc_id"]).reset_index(drop=True)


def qrels_frame() -> pd.DataFrame:
    """Graded judgements: for every query two retrieved documents (grades 1 and 2) and one judged non-relevant."""
    run = run_frame()
    rows = []
    for q, query in enumerate(QUERIES):
        docs = list(dict.fromkeys(run.loc[run.query_id == query, "doc_id"]))
        picks = [docs[(q + 1) % len(docs)], docs[(q + 3) % len(docs)], docs[(q + 4) % len(docs)]]
        for doc, grade in zip(dict.fromkeys(picks), (2, 1, 0)):
            rows.append((query, doc, grade))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def single_system_run() -> pd.DataFrame:
    return run_frame().query("system == 'A'").reset_index(drop=True)


def attributes() -> dict[str, str]:
    """A string attribute per query (two segments of four)."""
    return {query: ("short", "long")[i % 2] for i, query in enumerate(QUERIES)}


def queries_frame() -> pd.DataFrame:
    """Query texts and attributes, as rankviz.datasets' ``queries`` (query_id, text, kind)."""
    kinds = attributes()
    return pd.DataFrame(
        {
            "query_id": list(QUERIES),
            "text": [f"how to parse {w} files" for w in ("json", "csv", "xml", "toml", "yaml", "ini", "html", "png")],
            "kind": [kinds[q] for q in QUERIES],
        }
    )


def run_dict() -> dict[str, dict[str, float]]:
    run = single_system_run()
    out: dict[str, dict[str, float]] = {}
    for row in run.itertuples(index=False):
        out.setdefault(row.query_id, {})[row.doc_id] = float(row.score)
    return out


def qrels_dict() -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for row in qrels_frame().itertuples(index=False):
        out.setdefault(row.query_id, {})[row.doc_id] = int(row.relevance)
    return out


# ---------------------------------------------------------------------------------------------- files


@dataclass
class FileInput:
    """A file argument: a logical object rendered to bytes (or a folder of files) when the entry is called.

    Id mutators change ``obj`` (so the file holds the mutated ids); byte mutators set ``damage``
    (applied to the rendered bytes of every file, or of ``damage_file`` in a folder).
    """

    obj: Any
    kind: str  # trec_run, trec_qrels, topics_tsv, jsonl_log, label_studio, beir, notebook_dir
    name: str = "input"
    damage: Any = None
    damage_file: str | None = None
    extra: dict = field(default_factory=dict)


class Pairs(list):
    """A JSON object given as (key, value) pairs, so a rendering can repeat a key."""


@dataclass(frozen=True)
class Deep:
    """A JSON array nested ``depth`` deep (``[[[...]]]``)."""

    depth: int


def dumps(obj: Any) -> str:
    """JSON text of ``obj``, with :class:`Pairs` (repeatable keys) and :class:`Deep` (deep nesting)."""
    if isinstance(obj, Deep):
        return "[" * obj.depth + "]" * obj.depth
    if isinstance(obj, Pairs):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {dumps(v)}" for k, v in obj) + "}"
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {dumps(v)}" for k, v in obj.items()) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ", ".join(dumps(v) for v in obj) + "]"
    if isinstance(obj, float) and obj != obj:
        return "NaN"
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        obj = obj.item()
    try:
        return json.dumps(obj)
    except TypeError:
        return json.dumps(str(obj))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


def render(spec: FileInput) -> bytes | dict[str, bytes]:
    """The bytes of a file input (a dict name -> bytes for a folder)."""
    obj, kind = spec.obj, spec.kind
    if kind == "trec_run":
        lines = []
        for _, part in obj.groupby("system", sort=False) if "system" in obj else [(None, obj)]:
            part = part.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
            rank = part.groupby("query_id", sort=False).cumcount() + 1
            for row, r in zip(part.itertuples(index=False), rank):
                system = getattr(row, "system", "run")
                lines.append(f"{_fmt(row.query_id)} Q0 {_fmt(row.doc_id)} {r} {_fmt(row.score)} {_fmt(system)}")
        return ("\n".join(lines) + "\n").encode("utf-8")
    if kind == "trec_qrels":
        lines = [f"{_fmt(r.query_id)} 0 {_fmt(r.doc_id)} {_fmt(r.relevance)}" for r in obj.itertuples(index=False)]
        return ("\n".join(lines) + "\n").encode("utf-8")
    if kind == "topics_tsv":
        lines = [f"{_fmt(r.query_id)}\t{_fmt(r.text)}" for r in obj.itertuples(index=False)]
        return ("\n".join(lines) + "\n").encode("utf-8")
    if kind in ("jsonl_log", "jsonl_lines"):
        return ("\n".join(dumps(record) for record in obj) + "\n").encode("utf-8")
    if kind == "label_studio":
        return dumps(obj).encode("utf-8")
    if kind == "beir":
        qrels = obj["qrels"]
        tsv = "query-id\tcorpus-id\tscore\n" + "".join(
            f"{_fmt(r.query_id)}\t{_fmt(r.doc_id)}\t{_fmt(r.relevance)}\n" for r in qrels.itertuples(index=False)
        )
        return {
            "corpus.jsonl": ("\n".join(dumps(d) for d in obj["corpus"]) + "\n").encode("utf-8"),
            "queries.jsonl": ("\n".join(dumps(q) for q in obj["queries"]) + "\n").encode("utf-8"),
            "qrels/test.tsv": tsv.encode("utf-8"),
        }
    if kind == "notebook_dir":
        return {name: dumps(nb).encode("utf-8") for name, nb in obj.items()}
    raise ValueError(f"unknown file kind {kind}")


def jsonl_log_records() -> list:
    """One record per query: query_id, question, retrieved (best first), scores, relevant {doc: grade}, topic."""
    run, qrels, queries = single_system_run(), qrels_frame(), queries_frame()
    records = []
    for q in QUERIES:
        part = run[run.query_id == q].sort_values("score", ascending=False)
        judged = qrels[(qrels.query_id == q) & (qrels.relevance > 0)]
        records.append(
            {
                "query_id": q,
                "question": queries.loc[queries.query_id == q, "text"].item(),
                "retrieved": list(part.doc_id),
                "scores": [float(s) for s in part.score],
                "relevant": dict(zip(judged.doc_id, (int(g) for g in judged.relevance))),
                "topic": attributes()[q],
            }
        )
    return records


def label_studio_tasks() -> list:
    """A Label Studio JSON export: one task per judged pair, a choice mapped by grades={'bad': 0, 'ok': 1, 'great': 2}."""
    names = {0: "bad", 1: "ok", 2: "great"}
    tasks = []
    for i, row in enumerate(qrels_frame().itertuples(index=False), start=1):
        tasks.append(
            {
                "id": i,
                "data": {"query_id": row.query_id, "doc_id": row.doc_id},
                "annotations": [
                    {
                        "id": 100 + i,
                        "completed_by": 7,
                        "was_cancelled": False,
                        "created_at": "2024-01-02T10:00:00Z",
                        "updated_at": "2024-01-02T10:00:00Z",
                        "result": [{"type": "choices", "value": {"choices": [names[int(row.relevance)]]}}],
                    }
                ],
            }
        )
    return tasks


LABEL_STUDIO_GRADES = {"bad": 0, "ok": 1, "great": 2}


def beir_data() -> dict:
    queries = queries_frame()
    docs = sorted(set(run_frame().doc_id), key=lambda d: int(d[1:]))
    return {
        "qrels": qrels_frame(),
        "queries": [{"_id": r.query_id, "text": r.text} for r in queries.itertuples(index=False)],
        "corpus": [{"_id": d, "title": f"title {d}", "text": f"text of {d}"} for d in docs],
    }


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)
