"""The hashed duplicate check and qrels join agree with exact, dictionary-based answers.

rankviz finds repeated (query, doc) rows and judged rows through 64-bit hashes of the
doc ids read from a few 8-byte windows (``rankviz._core.hashing``), then confirms every
candidate on the real strings. These tests pin the two promises: a real duplicate is
always found (and reported or dropped exactly as before), and a hash collision never
causes an error or a wrong grade -- including adversarial ids that share their first,
middle and last bytes and their length, and hashes forced to collide outright.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from rankviz._core import hashing as _hashing
from rankviz._core import hit_ranks as _ranks
from rankviz._core import judged as _judged
from rankviz._core import row_hashes as _row_keys
from rankviz._core.options import EvalOptions

# Random runs and qrels may share no judged document at all; that warning is not what these tests are about.
pytestmark = pytest.mark.filterwarnings("ignore::rankviz.UnmatchedIdsWarning")


def _frame(queries, docs, scores, systems=None):
    columns = {}
    if systems is not None:
        columns["system"] = pd.array(systems, dtype="string[pyarrow]")
    columns.update(
        query_id=pd.array(queries, dtype="string[pyarrow]"),
        doc_id=pd.array(docs, dtype="string[pyarrow]"),
        score=np.asarray(scores, dtype=np.float64),
    )
    return pd.DataFrame(columns)


def _reference_keep(run: pd.DataFrame) -> pd.DataFrame:
    """duplicates='first' by the book: per (system, query, doc) the highest score, ties to the first row."""
    keys = [c for c in ("system", "query_id", "doc_id") if c in run.columns]
    ordered = run.assign(_row=np.arange(len(run))).sort_values(
        ["score", "_row"], ascending=[False, True], kind="stable"
    )
    return ordered.drop_duplicates(keys, keep="first").sort_values("_row").drop(columns="_row").reset_index(drop=True)


def _adversarial_ids(n: int, length: int = 48) -> list[str]:
    """Distinct ids of one length that agree on every byte the hash reads for ids longer than 40 bytes.

    Five windows of 8 bytes start at floor(i * (length - 8) / 4); for 48 bytes they cover
    0-7, 10-17, 20-27, 30-37 and 40-47, so bytes 8-9, 18-19, 28-29 and 38-39 are never read.
    """
    assert length == 48
    out = []
    for i in range(n):
        a, b = divmod(i, 100)
        middle = list("x" * 48)
        middle[8:10] = f"{a:02d}"
        middle[18:20] = f"{b:02d}"
        out.append("".join(middle))
    return out


# ---------------------------------------------------------------------------- the hash


def test_equal_strings_get_equal_hashes_whatever_the_array_layout():
    values = [
        "",
        "a",
        "ab",
        "abcdefg",
        "abcdefgh",
        "abcdefghi",
        "é",
        "日本語の文書",
        "x" * 16,
        "y" * 24,
        "z" * 40,
        "w" * 41,
        "q" * 200,
    ]
    plain = _hashing.string_hashes(pa.array(values, pa.string()))
    large = _hashing.string_hashes(pa.array(values, pa.large_string()))
    chunked = _hashing.string_hashes(pa.chunked_array([pa.array(values[:5]), pa.array(values[5:])]))
    sliced = _hashing.string_hashes(pa.array(["pad", "pad"] + values + ["pad"])[2:-1])
    view = _hashing.string_hashes(pa.array(values, pa.string_view()))
    for other in (large, chunked, sliced, view):
        np.testing.assert_array_equal(plain, other)
    assert len(set(plain.tolist())) == len(values)


@pytest.mark.parametrize("length", [1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 39, 40])
def test_strings_up_to_40_bytes_differing_in_any_byte_hash_apart(length):
    base = "a" * length
    variants = [base] + [base[:i] + "b" + base[i + 1 :] for i in range(length)]
    # Mixed lengths in one array select the window count from the longest string.
    for extra in ([], ["c" * 40]):
        hashes = _hashing.string_hashes(pa.array(variants + extra))
        assert len(set(hashes[: len(variants)].tolist())) == len(variants)


def test_adversarial_long_ids_do_collide_in_the_hash():
    ids = _adversarial_ids(50)
    assert len(set(ids)) == 50
    assert len(set(_hashing.string_hashes(pa.array(ids)).tolist())) == 1


@pytest.mark.parametrize("n", [0, 1, 2, 100, 70_000, 300_000])
def test_repeated_candidates_are_exactly_the_repeated_keys(n):
    rng = np.random.default_rng(n)
    groups = rng.integers(0, max(1, n // 1000), size=n)
    keys = _hashing.mix(rng.integers(0, 2**64, size=n, dtype=np.uint64), groups)
    for r in rng.choice(n, size=min(n // 2, 40), replace=False):
        keys[rng.integers(n)] = keys[r]  # a copy of a key in another row (or the same one)
    candidates = _hashing.repeated_candidates(keys)
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    assert candidates.dtype == np.int64
    assert candidates.tolist() == np.flatnonzero(counts[inverse] > 1).tolist()


@settings(max_examples=50, deadline=None)
@given(
    values=st.lists(st.sampled_from(["q1", "q2", "q10", "é", "a b", "x" * 30]), min_size=1, max_size=40),
    cut=st.integers(0, 40),
)
def test_encoding_in_two_halves_equals_one_pass(values, cut):
    """Long id columns are dictionary-encoded in two halves on two threads: the same codes and the same values in
    order of first appearance as one pass, whatever the chunks and whether the halves share values."""
    from rankviz._core import id_codes as _codes

    cut = min(cut, len(values))
    arrays = [
        pa.array(values),
        pa.chunked_array([pa.array(values[:cut], pa.large_string()), pa.array(values[cut:], pa.large_string())]),
    ]
    for arr in arrays:
        one_codes, one_values = _codes._encode_one(arr)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_codes, "_TWO_HALVES", 1)
            codes, found = _codes.encode(arr)
        assert found.tolist() == one_values.tolist() == list(dict.fromkeys(values))
        assert codes.dtype == np.int32 and codes.tolist() == one_codes.tolist()


def test_contiguous_units_refuses_interleaved_groups():
    assert _hashing.contiguous_units(np.array([0, 0, 1, 1, 2]), 3).tolist() == [0, 2, 4, 5]
    assert _hashing.contiguous_units(np.array([0, 1, 0]), 2) is None


# ---------------------------------------------------------------------------- duplicates in runs


@st.composite
def runs_with_repeats(draw):
    n_queries = draw(st.integers(1, 4))
    long_ids = draw(st.booleans())
    pool = _adversarial_ids(12) if long_ids else ["a", "b", "D1", "d10", "x" * 9, "x" * 17, "y" * 30, "é", ""]
    rows = []
    for q in range(n_queries):
        docs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=12))
        for d in docs:
            rows.append((f"q{q}", d, draw(st.integers(0, 4)) / 2.0))
    order = draw(st.permutations(range(len(rows))))
    rows = [rows[i] for i in order]
    queries, docs, scores = zip(*rows)
    return _frame(list(queries), list(docs), list(scores))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=runs_with_repeats())
def test_duplicates_are_found_exactly(run):
    qrels = pd.DataFrame({"query_id": pd.array(sorted(set(run["query_id"])), dtype="str")})
    qrels["doc_id"] = pd.array([run["doc_id"].iloc[0]] * len(qrels), dtype="str")
    qrels["relevance"] = 1
    has_repeat = run.duplicated(["query_id", "doc_id"]).any()
    if has_repeat:
        with pytest.raises(rankviz.DuplicateError, match="same document more than once"):
            rankviz.evaluate(run, ["RR", "nDCG"], qrels)
    else:
        rankviz.evaluate(run, ["RR", "nDCG"], qrels)
    kept = _reference_keep(run)
    got = rankviz.evaluate(run, ["RR", "nDCG", "AP"], qrels, duplicates="first", per_query=True)
    want = rankviz.evaluate(kept, ["RR", "nDCG", "AP"], qrels, per_query=True)
    pd.testing.assert_frame_equal(got, want)


def test_error_names_examples_and_counts_repeated_rows():
    run = _frame(["q1", "q1", "q1", "q2", "q2"], ["a", "b", "a", "c", "c"], [3.0, 2.0, 1.0, 1.0, 1.0])
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "relevance": [1, 1]})
    with pytest.raises(rankviz.DuplicateError) as info:
        rankviz.evaluate(run, ["RR"], qrels)
    message = str(info.value)
    assert "(2 repeated rows)" in message
    assert "query 'q1', doc 'a'" in message and "query 'q2', doc 'c'" in message
    assert isinstance(info.value, ValueError)


def test_first_keeps_highest_score_then_first_occurrence():
    # 'a' twice: the second row scores higher and must win; 'b' twice with equal scores: the first row wins.
    run = _frame(["q"] * 5, ["a", "b", "a", "b", "c"], [1.0, 2.0, 5.0, 2.0, 3.0])
    judged = _judged.judge(
        run, pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]}), EvalOptions(duplicates="first")
    )
    assert judged.num_ret.tolist() == [3]
    assert judged.hit_rank.tolist() == [1]


def test_same_doc_in_two_systems_is_not_a_duplicate():
    run = _frame(["q", "q", "q", "q"], ["a", "b", "a", "b"], [2.0, 1.0, 1.0, 2.0], systems=["s1", "s1", "s2", "s2"])
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    result = rankviz.evaluate(run, ["RR"], qrels)
    assert result["RR"].tolist() == [1.0, 0.5]
    repeated = pd.concat([run, run.iloc[[2]]], ignore_index=True)
    with pytest.raises(rankviz.DuplicateError, match="in system 's2'"):
        rankviz.evaluate(repeated, ["RR"], qrels)


def test_colliding_long_ids_are_not_duplicates_and_real_ones_are_found():
    ids = _adversarial_ids(300)
    rng = np.random.default_rng(0)
    run = _frame(["q"] * 300, ids, rng.permutation(300).astype(float))
    qrels = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": [ids[5], ids[150], ids[299]], "relevance": [1, 2, 3]})
    got = rankviz.evaluate(run, ["RR", "nDCG@10", "AP"], qrels, per_query=True)
    # The same run with short, distinct ids must give the same numbers.
    short = run.assign(doc_id=pd.array([f"d{i}" for i in range(300)], dtype="str"))
    short_qrels = qrels.assign(doc_id=["d5", "d150", "d299"])
    pd.testing.assert_frame_equal(got, rankviz.evaluate(short, ["RR", "nDCG@10", "AP"], short_qrels, per_query=True))
    repeated = pd.concat([run, run.iloc[[42]].assign(score=-1.0)], ignore_index=True).sample(frac=1.0, random_state=1)
    with pytest.raises(rankviz.DuplicateError, match=f"doc '{ids[42]}'"):
        rankviz.evaluate(repeated, ["RR"], qrels)


def test_everything_colliding_still_gives_exact_answers(monkeypatch):
    """With a hash that maps every id to one value, every row is a candidate; answers stay exact."""
    run = _frame(["q1"] * 4 + ["q2"] * 3, ["a", "b", "c", "d", "a", "b", "e"], [4, 3, 2, 1, 3, 2, 1])
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["c", "z", "e"], "relevance": [1, 2, 1]})
    expected = rankviz.evaluate(run, ["RR", "nDCG", "AP", "R@2"], qrels, per_query=True)

    def constant(arr, salts=None):
        zeros = np.zeros(len(arr), dtype=np.uint64)
        return zeros if salts is None else [_hashing.mix(zeros, salt) for salt in salts]

    monkeypatch.setattr(_row_keys, "doc_hashes", constant)
    pd.testing.assert_frame_equal(rankviz.evaluate(run, ["RR", "nDCG", "AP", "R@2"], qrels, per_query=True), expected)
    with pytest.raises(rankviz.DuplicateError, match="1 repeated rows"):
        rankviz.evaluate(pd.concat([run, run.iloc[[1]]], ignore_index=True), ["RR"], qrels)


def test_many_rows_both_orders_and_duplicates_first(tmp_path):
    """Enough rows for the chunked filter and the radix partition; TREC order and shuffled agree."""
    rng = np.random.default_rng(7)
    n_q, depth = 300, 400
    queries = np.repeat([f"q{i}" for i in range(n_q)], depth)
    docs = np.array([f"doc-{i:07d}" for i in rng.integers(0, 10**7, size=n_q * depth)])
    scores = np.round(rng.random(n_q * depth), 3)
    run = _frame(queries, docs, scores)
    run = run[~run.duplicated(["query_id", "doc_id"])].reset_index(drop=True)
    qrels = run.sample(2000, random_state=3)[["query_id", "doc_id"]].assign(relevance=rng.integers(0, 4, 2000))
    base = rankviz.evaluate(run, ["RR@10", "nDCG@10", "AP", "R@100"], qrels, per_query=True)
    shuffled = run.sample(frac=1.0, random_state=5).reset_index(drop=True)
    pd.testing.assert_frame_equal(
        rankviz.evaluate(shuffled, ["RR@10", "nDCG@10", "AP", "R@100"], qrels, per_query=True), base
    )
    extra = run.sample(25, random_state=11).assign(score=-5.0)
    repeated = pd.concat([shuffled, extra], ignore_index=True).sample(frac=1.0, random_state=13).reset_index(drop=True)
    with pytest.raises(rankviz.DuplicateError, match=r"\(25 repeated rows\)"):
        rankviz.evaluate(repeated, ["RR@10"], qrels)
    got = rankviz.evaluate(repeated, ["RR@10", "nDCG@10", "AP", "R@100"], qrels, duplicates="first", per_query=True)
    pd.testing.assert_frame_equal(got, base)


def test_rows_hashed_in_pieces_give_the_same_answers(monkeypatch):
    """Rows grouped by cell are hashed piece by piece (never all hashes at once): any piece size, the same answers,
    with queries left out (unjudged), several systems, and repeats at the first and last row of pieces."""
    rng = np.random.default_rng(11)
    n_q, depth = 60, 50
    queries = np.repeat([f"q{i}" for i in range(n_q)], depth)
    docs = np.array([f"d{i}" for i in rng.permutation(n_q * depth)])
    run = _frame(
        np.tile(queries, 2),
        np.tile(docs, 2),
        rng.random(2 * n_q * depth).round(2),
        systems=np.repeat(["A", "B"], n_q * depth),
    )
    qrels = (
        run[run["system"] == "A"]
        .sample(400, random_state=2)[["query_id", "doc_id"]]
        .assign(relevance=rng.integers(0, 3, 400))
    )
    qrels = qrels[qrels["query_id"] != "q7"]  # q7 unjudged: its rows are left out before the scan
    measures = ["RR@10", "nDCG@10", "AP", "R@20"]
    repeats = run.iloc[[0, depth - 1, 5 * depth, 2 * n_q * depth - 1]].assign(score=-1.0)
    repeated = pd.concat([run, repeats], ignore_index=True).sort_values(
        ["system", "query_id"], kind="stable", ignore_index=True
    )
    whole = rankviz.evaluate(run, measures, qrels, per_query=True)
    first = rankviz.evaluate(repeated, measures, qrels, per_query=True, duplicates="first")
    pd.testing.assert_frame_equal(first, whole)
    for piece in (1, 37, depth, 1000):
        monkeypatch.setattr(_row_keys, "_PIECE_ROWS", piece)
        pd.testing.assert_frame_equal(rankviz.evaluate(run, measures, qrels, per_query=True), whole)
        pd.testing.assert_frame_equal(
            rankviz.evaluate(repeated, measures, qrels, per_query=True, duplicates="first"), whole
        )
        with pytest.raises(rankviz.DuplicateError, match=r"\(4 repeated rows\)"):
            rankviz.evaluate(repeated, measures, qrels)


def test_judging_leaves_the_run_arrays_it_returns_intact():
    """``judge`` renumbers query codes in place only when nobody gets the arrays back (``with_arrays=False``)."""
    run = _frame(["q2", "q2", "q1", "q3"], ["a", "b", "c", "d"], [2.0, 1.0, 1.0, 3.0])
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["c", "b"], "relevance": [1, 1]})
    _, arrays = _judged.judge(run, qrels, EvalOptions(), with_arrays=True)
    assert arrays.q_values[arrays.q_codes].tolist() == ["q2", "q2", "q1", "q3"]
    before = run.copy()
    assert rankviz.evaluate(run, ["RR"], qrels, per_query=True)["RR"].tolist() == [1.0, 0.5]  # qrels order: q1, q2
    pd.testing.assert_frame_equal(run, before)


def test_unevaluated_queries_do_not_take_part():
    """Rows of queries without judgements are left out before the duplicate check, as before."""
    run = _frame(["q1", "q1", "zz", "zz"], ["a", "b", "c", "c"], [2.0, 1.0, 1.0, 1.0])
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    assert rankviz.evaluate(run, ["RR"], qrels)["RR"].tolist() == [0.5]


# ---------------------------------------------------------------------------- the qrels join


def test_join_never_matches_a_colliding_id():
    ids = _adversarial_ids(20)
    run = _frame(["q"] * 19, ids[:19], np.arange(19, 0, -1, dtype=float))
    # ids[19] is judged and hashes like every retrieved id, but was not retrieved.
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": [ids[19]], "relevance": [1]})
    assert rankviz.evaluate(run, ["RR", "R@100"], qrels).iloc[0].tolist() == [0.0, 0.0]


def test_join_with_colliding_judged_ids_falls_back_to_exact():
    ids = _adversarial_ids(20)
    run = _frame(["q"] * 20, ids, np.arange(20, 0, -1, dtype=float))
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": [ids[3], ids[7]], "relevance": [2, 1]})
    table = rankviz.evaluate(run, ["RR", "AP", "nDCG"], qrels, per_query=True)
    assert table["RR"].tolist() == [0.25]
    assert table["AP"].tolist() == pytest.approx([(1 / 4 + 2 / 8) / 2])


def test_join_across_systems_and_queries():
    run = _frame(
        ["q1", "q1", "q2", "q2", "q1", "q2"],
        ["a", "b", "a", "b", "b", "a"],
        [2.0, 1.0, 2.0, 1.0, 1.0, 1.0],
        systems=["s1", "s1", "s1", "s1", "s2", "s2"],
    )
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "a"], "relevance": [1, 3]})
    table = rankviz.evaluate(run, ["RR", "nDCG"], qrels, per_query=True)
    assert table["RR"].tolist() == [0.5, 1.0, 1.0, 1.0]


# ---------------------------------------------------------------------------- layouts and code paths


def test_doc_ids_spread_over_arrow_chunks():
    """pd.concat keeps Arrow chunks apart: hashing, the join, duplicates and tie places read across them."""
    parts = [
        _frame(["q1", "q1", "q2"], ["a", "b", "c"], [1.0, 1.0, 2.0]),
        _frame(["q1", "q2", "q2"], ["c", "d", "a"], [1.0, 2.0, 0.5]),
        _frame(["q2", "q1"], ["e", "d"], [2.0, 3.0]),
    ]
    run = pd.concat(parts, ignore_index=True)
    assert pa.array(run["doc_id"], from_pandas=True).num_chunks == 3
    flat = _frame(run["query_id"].tolist(), run["doc_id"].tolist(), run["score"].tolist())
    qrels = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["b", "c", "e", "a"], "relevance": [1, 2, 1, 3]}
    )
    measures = ["RR", "nDCG", "AP", "R@2"]
    got = rankviz.evaluate(run, measures, qrels, per_query=True)
    pd.testing.assert_frame_equal(got, rankviz.evaluate(flat, measures, qrels, per_query=True))
    repeated = pd.concat([run, parts[0].iloc[[2]]], ignore_index=True)
    with pytest.raises(rankviz.DuplicateError, match="query 'q2', doc 'c'"):
        rankviz.evaluate(repeated, measures, qrels)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=runs_with_repeats(), data=st.data())
def test_rank_search_fallback_agrees_with_the_block_search(run, data):
    """The variable-width search (cells with very many distinct relevant scores) gives the same ranks."""
    run = _reference_keep(run)
    docs = sorted(set(run["doc_id"]))
    judged = data.draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
    qrels = pd.DataFrame(
        [(q, d, data.draw(st.integers(0, 3))) for q in sorted(set(run["query_id"])) for d in judged],
        columns=["query_id", "doc_id", "relevance"],
    )
    blocks = _judged.judge(run, qrels, EvalOptions())
    saved = _ranks._MAX_BLOCK_SLOTS, _ranks._BLOCK_SLOTS_PER_SCORE
    calls = []
    original = _ranks._place_rows_search
    try:
        _ranks._MAX_BLOCK_SLOTS, _ranks._BLOCK_SLOTS_PER_SCORE = -1, 0
        _ranks._place_rows_search = lambda *args: calls.append(1) or original(*args)
        search = _judged.judge(run, qrels, EvalOptions())
    finally:
        _ranks._MAX_BLOCK_SLOTS, _ranks._BLOCK_SLOTS_PER_SCORE = saved
        _ranks._place_rows_search = original
    assert calls or not len(blocks.hit_cell)
    for field in ("hit_cell", "hit_rank", "hit_grade", "hit_above", "hit_tied", "num_ret"):
        np.testing.assert_array_equal(getattr(blocks, field), getattr(search, field), err_msg=field)


@settings(max_examples=200, deadline=None)
@given(
    ids=st.lists(st.text(alphabet="ab0_-:", min_size=0, max_size=40), min_size=1, max_size=12),
    other=st.lists(st.text(alphabet="xyz", min_size=0, max_size=40), min_size=0, max_size=5),
)
def test_a_string_hashes_the_same_whatever_else_is_in_its_array(ids, other):
    """The hash of an id must not depend on the longest id beside it (run and qrels are hashed apart)."""
    alone = [_hashing.string_hashes(pa.array([s], pa.string()))[0] for s in ids]
    together = _hashing.string_hashes(pa.array(ids + other, pa.string()))[: len(ids)]
    assert alone == together.tolist()


def test_long_run_ids_match_short_qrels_ids():
    """A regression: run doc ids over 8 bytes made every short judged id miss (a silent zero)."""
    run = pd.DataFrame(
        {
            "query_id": ["q1"] * 3,
            "doc_id": ["a-very-long-document-id-0001", "b", "mid-length-id"],
            "score": [3.0, 2.0, 1.0],
        }
    )
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "mid-length-id"], "relevance": [1, 2]})
    table = rankviz.evaluate(run, ["RR", "nDCG", "AP"], qrels, per_query=True)
    assert table["RR"].item() == 0.5
    assert table["AP"].item() == pytest.approx((1 / 2 + 2 / 3) / 2)
