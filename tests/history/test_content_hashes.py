"""Fingerprint hashes (issue 33's speed work): every byte counts, the row order and the id dtypes never do."""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankviz._errors import DuplicateError
from rankviz.history.content_hashes import text_hashes
from rankviz.history.fingerprints import qrels_fingerprints, run_fingerprint

TRICKY = [
    "", "a", "a\x00", "\x00", "\x00a", "01", "1", "001", "1 ", " 1", "abcdefgh", "abcdefgh\x00", "abcdefghi",
    "é", "e\u0301", "漢字", "😀", "aaaaaaaabbbbbbbb", "bbbbbbbbaaaaaaaa",
    "x" * 40 + "a" + "x" * 20, "x" * 40 + "b" + "x" * 20, "y" * 100, "y" * 101,
]  # fmt: skip


def test_distinct_ids_get_distinct_hashes_whatever_their_bytes():
    hashes = text_hashes(pa.array(TRICKY)).tolist()
    assert len(set(hashes)) == len(TRICKY)
    short = [""] + ["".join(p) for k in range(1, 5) for p in itertools.product(["a", "\x00", "é", "1"], repeat=k)]
    assert len(set(text_hashes(pa.array(short)).tolist())) == len(short)


def test_a_string_hashes_the_same_in_any_array_layout():
    alone = [int(text_hashes(pa.array([s]))[0]) for s in TRICKY]
    assert text_hashes(pa.array(TRICKY, pa.large_string())).tolist() == alone
    assert text_hashes(pa.chunked_array([pa.array(TRICKY[:5]), pa.array(TRICKY[5:])])).tolist() == alone
    assert text_hashes(pa.array(["pad"] + TRICKY + ["pad"])[1:-1]).tolist() == alone
    assert text_hashes(pa.array(TRICKY, pa.string_view())).tolist() == alone


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=40), st.lists(st.text(max_size=30), max_size=20))
def test_equal_strings_equal_hashes_and_no_collision_among_small_sets(ids, other):
    hashes = text_hashes(pa.array(ids + other)).tolist()
    by_value = {}
    for value, h in zip(ids + other, hashes):
        by_value.setdefault(value, set()).add(h)
    assert all(len(h) == 1 for h in by_value.values())
    assert len({next(iter(h)) for h in by_value.values()}) == len(by_value)


def _run(n_queries: int, docs: int, doc_id=lambda q, d: f"d{q}-{d}") -> pd.DataFrame:
    rows = [("sys", f"q{q}", doc_id(q, d), float(docs - d)) for q in range(n_queries) for d in range(docs)]
    return pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"]).astype({"system": "str"})


def test_the_run_fingerprint_ignores_order_grouping_and_dtypes_on_a_large_run():
    run = _run(300, 30)  # 9,000 rows grouped by query: the query and system columns are hashed once per run
    fp = run_fingerprint(run)
    shuffled = run.sample(frac=1.0, random_state=3).reset_index(drop=True)  # no runs: every row hashed
    assert run_fingerprint(shuffled) == fp
    assert run_fingerprint(run.astype({"system": "category", "query_id": object})) == fp
    assert run_fingerprint(shuffled.astype({"system": "category", "doc_id": "category"})) == fp
    zero = run.copy()
    zero.loc[4500, "score"] = 0.0
    negative_zero = zero.copy()
    negative_zero.loc[4500, "score"] = -0.0
    assert run_fingerprint(negative_zero) == run_fingerprint(zero) != fp


def test_the_run_fingerprint_sees_every_change():
    run = _run(300, 30, doc_id=lambda q, d: "http://example.org/" + "x" * 40 + f"/{q}/{d}")
    fp = run_fingerprint(run)
    changes = []
    a = run.copy()  # a byte deep inside a long doc id (past the 40 bytes the evaluation's hash reads)
    a.loc[10, "doc_id"] = a.loc[10, "doc_id"].replace("x" * 40, "x" * 20 + "y" + "x" * 19)
    changes.append(a)
    b = run.copy()
    b.loc[5000, "score"] += 1e-9
    changes.append(b)
    c = run.copy()
    c.loc[9000 - 1, "query_id"] = "q0"  # a row moves to another query
    changes.append(c)
    d = run.copy()
    d.loc[:4, "system"] = "other"
    changes.append(d)
    changes.append(run.drop(index=7))
    changes.append(pd.concat([run, run.iloc[[7]]], ignore_index=True))  # a row repeated
    e = run.copy()  # two rows swap their scores
    e.loc[[0, 1], "score"] = e.loc[[1, 0], "score"].to_numpy()
    changes.append(e)
    fingerprints = [run_fingerprint(x) for x in changes]
    assert fp not in fingerprints
    assert len(set(fingerprints)) == len(changes)


def test_ids_that_differ_only_as_text_give_different_run_fingerprints():
    base = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    assert run_fingerprint(base) != run_fingerprint(base.assign(query_id=["01", "01"]))
    assert run_fingerprint(base) == run_fingerprint(base.assign(query_id=[1, 1]))  # ints read as their text
    assert run_fingerprint(base) != run_fingerprint(base.assign(doc_id=["a\x00", "b"]))
    assert run_fingerprint(base) != run_fingerprint(base.assign(doc_id=["é", "b"]))
    assert run_fingerprint(base.assign(doc_id=["é", "b"])) != run_fingerprint(base.assign(doc_id=["e\u0301", "b"]))


def _reference_qrels_fingerprints(qrels: pd.DataFrame) -> tuple[str, dict[str, str]]:
    """The definition, in plain Python: per query, SHA-256 of '{len(doc)}:{doc}={grade};' sorted by doc."""
    rows = sorted(zip(qrels["query_id"].map(str), qrels["doc_id"].map(str), qrels["relevance"].astype(int)))
    per_query = {}
    for query, group in itertools.groupby(rows, key=lambda row: row[0]):
        text = "".join(f"{len(doc)}:{doc}={grade};" for _, doc, grade in group)
        per_query[query] = hashlib.sha256(text.encode()).hexdigest()[:16]
    overall = "".join(f"{len(q)}:{q}{fp};" for q, fp in sorted(per_query.items()))
    return hashlib.sha256(overall.encode()).hexdigest(), per_query


ID = st.text(alphabet=st.sampled_from(["a", "b", "\x00", "é", "漢", "😀", "0", "1", " "]), max_size=10)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.tuples(ID, ID), st.integers(-2, 4), min_size=1, max_size=30))
def test_qrels_fingerprints_follow_their_definition(judgements):
    qrels = pd.DataFrame([(q, d, g) for (q, d), g in judgements.items()], columns=["query_id", "doc_id", "relevance"])
    assert qrels_fingerprints(qrels) == _reference_qrels_fingerprints(qrels)
    shuffled = qrels.iloc[::-1].astype({"query_id": object, "relevance": np.float64})
    assert qrels_fingerprints(shuffled) == qrels_fingerprints(qrels)


def test_qrels_with_integer_ids_read_them_as_text_and_refuse_a_pair_judged_twice():
    qrels = pd.DataFrame({"query_id": [1, 2, 2, 10], "doc_id": [5, 7, 70, 1], "relevance": [1, 0, 2, 3]})
    assert qrels_fingerprints(qrels) == qrels_fingerprints(qrels.astype({"query_id": str, "doc_id": str}))
    assert qrels_fingerprints(qrels) != qrels_fingerprints(qrels.assign(query_id=["01", "2", "2", "10"]))
    twice = pd.concat([qrels, qrels.iloc[[1]].assign(relevance=1)], ignore_index=True)
    with pytest.raises(DuplicateError, match=r"\('2', '7'\)"):
        qrels_fingerprints(twice)
