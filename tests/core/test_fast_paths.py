"""The shortcuts of issue 36 give exactly what the general paths give.

- query ids encoded from their runs of equal values equal a dictionary encoding of every row;
- the look-alike id check without the regular expression (ASCII ids) and without lookups (no
  respelling changes an id) says what the full check says;
- string hashes keep their values from one version to the next (run fingerprints are made of them);
- the per-row steps split over threads (hash pieces, rank-search halves) give the answers of one thread.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankviz
from rankviz._core import hashing as _hashing
from rankviz._core import hit_ranks as _ranks
from rankviz._core import id_codes as _codes
from rankviz._core import id_spelling as _spelling
from rankviz._core import row_hashes as _row_keys

# ids that differ only by a trailing NUL, leading zeros or in unicode must stay apart
_IDS = ["q1", "q10", "01", "1", "q\x00", "q", "é", "e\u0301", "日本", "x" * 30, ""]


@settings(max_examples=100, deadline=None)
@given(
    runs=st.lists(st.tuples(st.sampled_from(_IDS), st.integers(1, 5)), min_size=1, max_size=30),
    cuts=st.lists(st.integers(0, 200), max_size=4),
    large=st.booleans(),
)
def test_encoding_from_runs_equals_encoding_every_row(runs, cuts, large):
    values = [v for v, n in runs for _ in range(n)]
    bounds = sorted({min(c, len(values)) for c in cuts} | {0, len(values)})
    kind = pa.large_string() if large else pa.string()
    chunked = pa.chunked_array([pa.array(values[a:b], kind) for a, b in zip(bounds[:-1], bounds[1:])], type=kind)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_codes, "_RUNS_MIN", 1)
        patch.setattr(_codes, "_PROBE", 4)
        patch.setattr(_codes, "_ROWS_PER_RUN", 1)  # runs taken whenever there are any
        for arr in (pa.array(values, kind), chunked):
            starts = _codes._run_starts(arr)
            assert starts is not None
            codes, found = _codes.encode(arr)
            want_codes, want = _codes._encode_one(arr)
            assert found.tolist() == want.tolist() == list(dict.fromkeys(values))
            assert codes.dtype == np.int32 and codes.tolist() == want_codes.tolist()


def test_rows_in_any_order_are_encoded_row_by_row():
    rng = np.random.default_rng(3)
    values = [f"q{i}" for i in rng.integers(0, 5000, size=200_000)]
    arr = pa.array(values)
    assert _codes._run_starts(arr) is None  # the probe sees no runs: no comparison of every row
    codes, found = _codes.encode(arr)
    assert found[codes].tolist() == values
    grouped = pa.array(sorted(values, key=lambda v: int(v[1:])))
    assert _codes._run_starts(grouped) is not None
    codes, found = _codes.encode(grouped)
    assert found[codes].tolist() == grouped.to_pylist()


def _reference_spelling(run_docs, judged_docs, any_judged):
    """The look-alike check as it was before its shortcuts: distinct sample ids, the regular expression on all."""

    def stripped(ids):
        return pc.utf8_trim_whitespace(pc.replace_substring_regex(ids, _spelling._INVISIBLE, ""))

    def respelled(unknown, judged, spell):
        return pc.filter(unknown, pc.is_in(spell(unknown), value_set=spell(judged)))

    judged = pc.unique(pa.array(judged_docs, pa.string()))
    sample = pc.unique(run_docs.slice(0, _spelling.SAMPLE)).cast(pa.string())
    known = pc.is_in(sample, value_set=judged)
    unknown = pc.filter(sample, pc.invert(known))
    found = respelled(unknown, judged, stripped)
    if not len(found):
        found = respelled(unknown, judged, lambda ids: pc.utf8_lower(stripped(ids)))
        if len(found) < max(pc.sum(known).as_py() or 0, 1):
            found = found.slice(0, 0)
    return found.to_pylist()


_SPELLINGS = ["doc1", "doc1 ", " doc1", "DOC1", "Doc1", "doc1\u200b", "\ufeffdoc1", "doc1\u00a0", "doc2", "d\u00e9"]


@settings(max_examples=150, deadline=None)
@given(
    run=st.lists(st.sampled_from(_SPELLINGS), min_size=1, max_size=12),
    judged=st.lists(st.sampled_from(_SPELLINGS), min_size=1, max_size=6),
)
def test_look_alike_check_says_what_the_full_check_says(run, judged):
    judged_docs = np.asarray(judged, dtype=object)
    docs = pa.array(run, pa.large_string())
    want = _reference_spelling(docs, judged_docs, True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _spelling.warn_id_spelling(docs, judged_docs, any_judged=True)
    said = [str(w.message) for w in caught if issubclass(w.category, rankviz.UnmatchedIdsWarning)]
    if want:
        assert len(said) == 1
        assert said[0].startswith(f"{len(want)} distinct retrieved doc id(s)")
        assert f"the run has {want[0]!r}" in said[0]
    else:
        assert said == []


def test_string_hashes_keep_their_values():
    """Run fingerprints in a history are made of these values: they must not change with the implementation."""
    values = ["", "a", "1", "01", "doc1", "abcdefgh", "abcdefghi", "q\x00", "q", "é", "日本語の文書"]
    values += ["x" * 17, "y" * 25, "z" * 100]
    expected = [
        0,
        15143833964645876833,
        8264684129764357508,
        16370954496504417989,
        5574738375907448907,
        5327449186645555121,
        14152399974041902900,
        7719333768165217858,
        192809296340340423,
        5176862955871070858,
        1831110802776051140,
        2690283584602832825,
        7193105730849201037,
        1704390579745762492,
    ]
    for kind in (pa.string(), pa.large_string()):
        assert _hashing.string_hashes(pa.array(values, kind)).tolist() == expected
    assert _hashing.fmix(_hashing.doc_hashes(pa.array(values))).tolist() == expected


def _run_and_qrels(n_q=120, depth=300, seed=5):
    rng = np.random.default_rng(seed)
    queries = np.repeat([f"q{i}" for i in range(n_q)], depth)
    docs = np.array([f"d{i}" for i in rng.integers(0, 40_000, size=n_q * depth)])
    run = pd.DataFrame({"query_id": pd.array(queries, dtype="str"), "doc_id": pd.array(docs, dtype="str")}).assign(
        score=np.round(rng.random(n_q * depth), 2)
    )
    run = run[~run.duplicated(["query_id", "doc_id"])].reset_index(drop=True)
    qrels = run.sample(1500, random_state=1)[["query_id", "doc_id"]].assign(relevance=rng.integers(0, 4, 1500))
    return run, qrels


def test_threads_and_one_thread_give_the_same_answers(monkeypatch):
    run, qrels = _run_and_qrels()
    shuffled = run.sample(frac=1.0, random_state=2).reset_index(drop=True)
    repeated = pd.concat([run, run.iloc[[7, 900, 3000]].assign(score=-1.0)], ignore_index=True)
    measures = ["RR@10", "nDCG@10", "AP", "R@100"]

    def answers():
        out = [rankviz.evaluate(frame, measures, qrels, per_query=True) for frame in (run, shuffled)]
        out.append(rankviz.evaluate(repeated, measures, qrels, per_query=True, duplicates="first"))
        with pytest.raises(rankviz.DuplicateError, match=r"\(3 repeated rows\)"):
            rankviz.evaluate(repeated, measures, qrels)
        return out

    monkeypatch.setattr(_row_keys, "_THREADS", 1)
    monkeypatch.setattr(_ranks, "_PARALLEL_ROWS", 1 << 40)
    alone = answers()
    pd.testing.assert_frame_equal(alone[0], alone[1])
    pd.testing.assert_frame_equal(alone[0], alone[2])
    monkeypatch.setattr(_row_keys, "_THREADS", 2)
    monkeypatch.setattr(_row_keys, "_PIECE_ROWS", 1000)  # many pieces
    monkeypatch.setattr(_ranks, "_PARALLEL_ROWS", 1000)  # rank search in two halves
    monkeypatch.setattr(_ranks, "_CHUNK", 777)
    for got, want in zip(answers(), alone):
        pd.testing.assert_frame_equal(got, want)
