"""Where each relevant document was lost: the last stage that held it, why it left, and which stage to blame.

For a relevant document ``r`` of a query and the stages ``0..n-1`` (``H[s]`` the ids stage ``s`` holds, cut to
its depth; ``L[s]`` its whole list; ``k[s]`` its depth, by default its list's length):

- held by the last stage: ``"kept"``;
- held by no stage: ``"never retrieved"``, lost at the first stage;
- else ``i``, the last stage that held it, and ``j = i + 1``; it left because

  - ``j`` is unordered (the cited ids): ``"not kept"`` (in the context but not cited), lost at ``j``;
  - ``j`` holds nothing for the query: ``"empty stage"``, lost at ``j``;
  - ``r`` sat inside ``j``'s depth in ``i`` (position ``<= k[j]``) and ``j`` ranked it past its depth or left it
    out: ``"demoted"`` or ``"dropped"``, lost at ``j``;
  - ``r`` sat past ``j``'s depth in ``i``, but inside it in ``i - 1``: ``i`` demoted it past ``j``'s depth
    (the reranker pushed it out of the context budget): ``"demoted"``, lost at ``i``;
  - else ``"below depth"`` (below the reranker's depth, cut by the context budget), lost at ``j``.

Each relevant document has exactly one outcome, so the documents lost at each stage plus those kept add up
to the relevant documents. A query is attributed by its best-ranked relevant document in the first stage
(none there: lost at the first stage); a query with no relevant document is said, not attributed.
"""

from __future__ import annotations

import pandas as pd

from .stage_inputs import StageLists

__all__ = ["REASONS", "attribute_documents", "attribute_queries", "KEPT"]

KEPT = "kept"
REASONS = ("never retrieved", "below depth", "demoted", "dropped", "empty stage", "not kept", KEPT)


def _position(lists: StageLists, s: int, query: str, doc: str) -> int | None:
    return lists.positions[s][query].get(doc)


def _why(lists: StageLists, query: str, doc: str, i: int) -> tuple[str, int, str]:
    """(reason, the stage blamed, the phrase that ends the explanation) for a document stage ``i + 1`` lost."""
    names, j = lists.names, i + 1
    if not lists.ordered[j]:
        return "not kept", j, f"in {names[i]} but not in {names[j]}: lost at {names[j]}"
    if not lists.full[j][query]:
        return "empty stage", j, f"{names[j]} holds nothing: lost at {names[j]}"
    k = lists.depth_of(j, query)
    p = _position(lists, i, query, doc)
    assert p is not None
    if p <= k:
        full = lists.full[j][query]
        if doc in full:
            return "demoted", j, f"{names[j]} ranks it {full.index(doc) + 1}, holds the top {k}: lost at {names[j]}"
        return "dropped", j, f"{names[j]} dropped it: lost at {names[j]}"
    before = _position(lists, i - 1, query, doc) if i >= 1 else None
    if before is not None and before <= k:
        return "demoted", i, f"{names[j]} holds the top {k}: demoted by {names[i]}, lost at {names[i]}"
    return "below depth", j, f"{names[j]} holds the top {k}: lost at the {names[j]} depth"


def _trace(lists: StageLists, query: str, doc: str, last: int) -> str:
    names, parts = lists.names, []
    for s in range(last + 1):
        p = _position(lists, s, query, doc)
        if p is None:
            parts.append(f"not in {names[s]}")
        elif not lists.ordered[s]:
            parts.append(f"in {names[s]}")
        else:
            parts.append(f"{names[s]} at {p}" if s == 0 else f"{names[s]} to {p}")
    return " → ".join(parts)


def _one_document(lists: StageLists, query: str, doc: str) -> dict:
    n = len(lists.names)
    positions = [_position(lists, s, query, doc) for s in range(n)]
    held = [s for s in range(n) if positions[s] is not None]
    row: dict[str, object] = {"query_id": query, "doc_id": doc}
    for name, p, ordered in zip(lists.names, positions, lists.ordered):
        row[f"rank_{name}"] = p if ordered or p is None else 0  # 0: in an unordered stage (no rank)
    last: int | None
    lost: int | None
    if positions[-1] is not None:
        last, lost, reason, end = n - 1, None, KEPT, "kept"
    elif not held:
        last, lost, reason, end = None, 0, "never retrieved", f"lost at {lists.names[0]}"
    else:
        last = held[-1]
        reason, lost, end = _why(lists, query, doc, last)
    trace = f"never in {lists.names[0]}" if last is None else _trace(lists, query, doc, last)
    row.update(
        last_stage=None if last is None else lists.names[last],
        lost_at=KEPT if lost is None else lists.names[lost],
        reason=reason,
        explanation=f"{query}: {doc} {trace}"
        + (f" → {end}." if last is not None and lost is not None else f": {end}."),
    )
    return row


def attribute_documents(lists: StageLists, relevant: dict[str, set]) -> pd.DataFrame:
    """One row per (query, relevant document): its rank at each stage, last stage, where lost and why."""
    rows = [_one_document(lists, q, d) for q in lists.queries for d in sorted(relevant[q])]
    columns = [
        "query_id",
        "doc_id",
        *[f"rank_{n}" for n in lists.names],
        "last_stage",
        "lost_at",
        "reason",
        "explanation",
    ]
    table = pd.DataFrame(rows, columns=columns)
    for name in lists.names:
        table[f"rank_{name}"] = table[f"rank_{name}"].astype("Int64")
    stages = [*lists.names, KEPT]
    table["lost_at"] = pd.Categorical(table["lost_at"], categories=stages, ordered=True)
    table["reason"] = pd.Categorical(table["reason"], categories=list(REASONS))
    return table


def _best_in_first(lists: StageLists, query: str, docs: set) -> str | None:
    first = lists.held[0][query]
    return next((d for d in first if d in docs), None)


def attribute_queries(lists: StageLists, relevant: dict[str, set], documents: pd.DataFrame) -> pd.DataFrame:
    """One row per query: its best-ranked relevant document, where it was lost and the one-line explanation."""
    by_doc = {
        (q, d): row for q, d, row in zip(documents["query_id"], documents["doc_id"], documents.to_dict("records"))
    }
    rows = []
    for q in lists.queries:
        docs = relevant[q]
        row: dict = {"query_id": q, "n_relevant": len(docs)}
        if not docs:
            row.update(
                doc_id=None, lost_at=None, reason=None, explanation=f"{q}: no relevant document: not attributed."
            )
        else:
            best = _best_in_first(lists, q, docs)
            if best is None:
                row.update(
                    doc_id=None,
                    lost_at=lists.names[0],
                    reason="never retrieved",
                    explanation=f"{q}: none of its {len(docs)} relevant document(s) in {lists.names[0]}: "
                    f"lost at {lists.names[0]}.",
                )
            else:
                doc = by_doc[(q, best)]
                row.update(
                    doc_id=best, lost_at=str(doc["lost_at"]), reason=str(doc["reason"]), explanation=doc["explanation"]
                )
        row["n_kept"] = sum(d in lists.held[-1][q] for d in docs)
        rows.append(row)
    table = pd.DataFrame(
        rows, columns=["query_id", "n_relevant", "doc_id", "lost_at", "reason", "n_kept", "explanation"]
    )
    table["doc_id"] = table["doc_id"].astype("str")
    table["lost_at"] = pd.Categorical(table["lost_at"], categories=[*lists.names, KEPT], ordered=True)
    table["reason"] = pd.Categorical(table["reason"], categories=list(REASONS))
    return table
