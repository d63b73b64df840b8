"""Doc ids of a run and its qrels that name the same documents differently: said, never a silent 0.

Two checks run after the qrels join, on any size of input:

- no retrieved document of any evaluated query is judged at all (every measure is 0);
- some retrieved ids are not in the qrels but equal a judged id once surrounding whitespace
  (no-break spaces included) and zero-width characters are removed (``'doc1 '``,
  ``'doc1\\u200b'`` for ``'doc1'``), or, when such ids are at least as many as those that
  match as they are, once case is folded too (``'DOC1'``).

The second looks at the distinct ids of the first :data:`SAMPLE` rows only, so a run of
millions of rows pays a few milliseconds: a spelling difference between two sources is
systematic and shows in any sample.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import UnmatchedIdsWarning, warn

__all__ = ["look_alikes", "warn_id_spelling", "SAMPLE"]

#: rows of the run whose distinct doc ids are compared in their normalised spelling
SAMPLE = 200_000

# zero-width space, non-joiner, joiner, word joiner, byte-order mark
_INVISIBLE = "[\u200b\u200c\u200d\u2060\ufeff]"


def _stripped(ids: pa.Array) -> pa.Array:
    if pc.all(pc.string_is_ascii(ids)).as_py() is not False:  # no invisible character is ASCII: only trim
        return pc.utf8_trim_whitespace(ids)
    return pc.utf8_trim_whitespace(pc.replace_substring_regex(ids, _INVISIBLE, ""))


def _respelled(unknown: pa.Array, judged: pa.Array, spelt: pa.Array, judged_spelt: pa.Array) -> pa.Array:
    """The ``unknown`` ids (none of them judged) whose respelling ``spelt`` is a judged id's, ``judged_spelt``.

    When the respelling changes no id on either side, the answer is none, without a lookup.
    """
    if _unchanged(spelt, unknown) and _unchanged(judged_spelt, judged):
        return unknown.slice(0, 0)
    return pc.filter(unknown, pc.is_in(spelt, value_set=judged_spelt))


def _unchanged(spelt: pa.Array, ids: pa.Array) -> bool:
    return pc.all(pc.equal(spelt, ids)).as_py() is not False


def _folded(ids: pa.Array) -> pa.Array:
    return pc.utf8_lower(_stripped(ids))


def look_alikes(run_docs: pa.Array | pa.ChunkedArray, judged_docs: np.ndarray) -> tuple | None:
    """What :func:`warn_id_spelling` says about respelled ids, without the warning: ``(count, run id, judged id)``
    of the distinct sampled ids that equal a judged id once respelled, or None. Arrow work only, so it can run
    on another thread while the rows are joined."""
    if not len(judged_docs):
        return None
    judged = pa.array(judged_docs, pa.string())  # repeated values are fine in a value set
    # The sample's rows as they are (their distinct values are almost as many): only the few ids that are judged
    # or respelled are made distinct. The regular expression runs only where an id is not ASCII.
    sample = run_docs.slice(0, SAMPLE)
    if isinstance(sample, pa.ChunkedArray):
        sample = sample.combine_chunks()
    sample = sample.cast(pa.string())
    known = pc.is_in(sample, value_set=judged)
    unknown = pc.filter(sample, pc.invert(known))
    stripped, judged_stripped = _stripped(unknown), _stripped(judged)
    respelled = _respelled(unknown, judged, stripped, judged_stripped)
    if not len(respelled):
        respelled = _respelled(unknown, judged, pc.utf8_lower(stripped), pc.utf8_lower(judged_stripped))
        if len(respelled) and len(pc.unique(respelled)) < max(len(pc.unique(pc.filter(sample, known))), 1):
            respelled = respelled.slice(0, 0)
    respelled = pc.unique(respelled)
    if not len(respelled):
        return None
    first = respelled[0].as_py()
    target = _folded(pa.array([first], pa.string()))[0].as_py()
    return len(respelled), first, judged[_folded(judged).to_pylist().index(target)].as_py()


def warn_id_spelling(
    run_docs: pa.Array | pa.ChunkedArray, judged_docs: np.ndarray, *, any_judged: bool, found=False
) -> None:
    """Warn when the run's doc ids and the qrels' differ in spelling (see the module docstring).

    ``run_docs`` are the run's doc ids (every row), ``judged_docs`` the qrels' doc ids,
    ``any_judged`` whether at least one retrieved row of an evaluated query matched a judgement.
    Ids that differ by spaces or invisible characters are always said; ids that differ only in
    case only when they are at least as many as the ids that match as they are (collections
    with ``inspect.signature`` and ``inspect.Signature`` exist). ``found`` is
    :func:`look_alikes`'s answer when it was computed already.
    """
    if not len(judged_docs):
        return
    if found is False:
        found = look_alikes(run_docs, judged_docs)
    if found is not None:
        count, first, match = found
        warn(
            f"{count} distinct retrieved doc id(s) are not in the qrels but equal a judged id once spaces, "
            f"invisible characters or case are ignored: the run has {first!r} where the qrels have {match!r}. "
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
