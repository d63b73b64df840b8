"""Doc ids of a run and its qrels that name the same documents differently: said, never a silent 0.

Two checks run after the qrels join, on any size of input:

- no retrieved document of any evaluated query is judged at all (every measure is 0);
- some retrieved ids are not in the qrels but equal a judged id once surrounding whitespace
  (no-break spaces included) and zero-width characters are removed and case is folded
  (``'doc1 '``, ``'DOC1'``, ``'doc1\\u200b'`` for ``'doc1'``).

The second looks at the distinct ids of the first :data:`SAMPLE` rows only, so a run of
millions of rows pays a few milliseconds: a spelling difference between two sources is
systematic and shows in any sample.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import UnmatchedIdsWarning, warn

__all__ = ["warn_id_spelling", "SAMPLE"]

#: rows of the run whose distinct doc ids are compared in their normalised spelling
SAMPLE = 200_000

# zero-width space, non-joiner, joiner, word joiner, byte-order mark
_INVISIBLE = "[\u200b\u200c\u200d\u2060\ufeff]"


def _normalised(ids: pa.Array) -> pa.Array:
    stripped = pc.utf8_trim_whitespace(pc.replace_substring_regex(ids, _INVISIBLE, ""))
    return pc.utf8_lower(stripped)


def warn_id_spelling(run_docs: pa.Array | pa.ChunkedArray, judged_docs: np.ndarray, *, any_judged: bool) -> None:
    """Warn when the run's doc ids and the qrels' differ in spelling (see the module docstring).

    ``run_docs`` are the run's doc ids (every row), ``judged_docs`` the qrels' doc ids,
    ``any_judged`` whether at least one retrieved row of an evaluated query matched a judgement.
    """
    if not len(judged_docs):
        return
    judged = pc.unique(pa.array(judged_docs, pa.string()))
    sample = pc.unique(run_docs.slice(0, SAMPLE))
    if isinstance(sample, pa.ChunkedArray):
        sample = sample.combine_chunks()
    sample = sample.cast(pa.string())
    unknown = pc.filter(sample, pc.invert(pc.is_in(sample, value_set=judged)))
    respelled = pc.filter(unknown, pc.is_in(_normalised(unknown), value_set=_normalised(judged)))
    if len(respelled):
        norm_judged = _normalised(judged).to_pylist()
        first = respelled[0].as_py()
        match = judged[norm_judged.index(_normalised(pa.array([first], pa.string()))[0].as_py())].as_py()
        warn(
            f"{len(respelled)} distinct retrieved doc id(s) are not in the qrels but equal a judged id once spaces, "
            f"invisible characters and case are ignored: the run has {first!r} where the qrels have {match!r}. "
            "They count as unjudged. If they name the same documents, make the ids match before evaluating "
            "(e.g. run['doc_id'].str.strip(), or the same case on both sides).",
            UnmatchedIdsWarning,
        )
    elif not any_judged:
        run_shown = ", ".join(repr(d) for d in run_docs.slice(0, 3).to_pylist())
        judged_shown = ", ".join(repr(d) for d in judged_docs[:3].tolist())
        warn(
            f"No retrieved document of any evaluated query is judged in the qrels, so every measure is 0. Run doc ids "
            f"look like {run_shown}; judged ones like {judged_shown}. If they name the same documents differently "
            "(a prefix, case, spaces, leading zeros), make them match before evaluating.",
            UnmatchedIdsWarning,
        )
