"""Bad and unusual inputs, generated: the exact number, or a rankviz error that names the problem.

The property of every test here: the result equals a reference computed in the test on
the cleaned input (with the documented meaning of each oddity), or a rankviz exception
is raised whose message names the problem; never another exception type, never a
different number. The meanings, consistent across the input shapes:

- a missing entry (None, NaN, pd.NA) inside a retrieved list is an empty slot at its
  rank, never relevant; inside a relevance vector it is an unjudged item at its rank;
- a missing id inside a list of relevant ids names no document;
- float or bool ids inside lists are refused, as in the long shape;
- grades beyond +-2**53 are refused.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from rankviz import stats

MISSING = [None, float("nan"), pd.NA, np.nan]
K = 3


def _reference(lists, relevant, k=K):
    """RR, P@k and R@k per query from the documented semantics, in plain Python."""
    out = []
    for retrieved, gold in zip(lists, relevant):
        gold = {str(g) for g in gold if not _missing(g)}
        ranks = [i + 1 for i, d in enumerate(retrieved) if not _missing(d) and str(d) in gold]
        rr = 1.0 / ranks[0] if ranks else 0.0
        hits = sum(1 for r in ranks if r <= k)
        out.append((rr, hits / k, hits / len(gold) if gold else 0.0))
    return out


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _is_bad_id(value) -> bool:
    return isinstance(value, (bool, np.bool_)) or (isinstance(value, float) and not math.isnan(value))


ids = st.one_of(
    st.sampled_from(["a", "b", "c", "d", "e", "a-long-document-identifier-0001"]),
    st.integers(0, 5),
    st.sampled_from(MISSING),
    st.sampled_from([1.0, 2.0, True]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lists=st.lists(st.lists(ids, max_size=6), min_size=1, max_size=4),
    gold=st.lists(st.lists(ids, min_size=1, max_size=3), min_size=4, max_size=4),
)
def test_per_query_lists_with_missing_float_and_int_entries(lists, gold):
    gold = gold[: len(lists)]
    frame = pd.DataFrame({"query_id": [f"q{i}" for i in range(len(lists))], "retrieved": lists, "relevant": gold})
    copy = frame.copy(deep=True)
    bad = any(_is_bad_id(v) for row in lists + gold for v in row)
    repeated = any(len(kept) != len(set(kept)) for kept in ([str(d) for d in row if not _missing(d)] for row in lists))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)
            # unannotated="zero": a query whose gold ids are all missing scores 0, as the reference says
            table = rankviz.evaluate(frame, ["RR", f"P@{K}", f"R@{K}"], per_query=True, unannotated="zero")
    except rankviz.DuplicateError as exc:
        assert repeated and not bad, f"refused a valid input: {exc}"
        assert "more than once" in str(exc)
        return
    except rankviz.RankvizError as exc:
        assert bad, f"refused a valid input: {exc}"
        assert "float" in str(exc) or "bool" in str(exc)
        return
    assert not bad and not repeated, "accepted a float or bool id, or a repeated one"
    expected = [v for row in _reference(lists, gold) for v in row]
    got = [v for row in table[["RR", f"P@{K}", f"R@{K}"]].itertuples(index=False, name=None) for v in row]
    assert got == pytest.approx(expected)
    pd.testing.assert_frame_equal(frame, copy)


entries = st.one_of(
    st.booleans(), st.integers(0, 3), st.sampled_from(MISSING), st.sampled_from([1.0, 0.0, 1.5, 2.0**60])
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vectors=st.lists(st.lists(entries, max_size=6), min_size=1, max_size=4))
def test_relevance_vectors_with_missing_float_and_huge_entries(vectors):
    frame = pd.DataFrame({"query": [f"q{i}" for i in range(len(vectors))], "relevance": vectors})
    bad = any(
        isinstance(v, float) and not math.isnan(v) and (v != int(v) or abs(v) > 2**53) for row in vectors for v in row
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)
            table = rankviz.evaluate(frame, ["RR", f"P@{K}"], per_query=True, unannotated="zero")
    except rankviz.RankvizError as exc:
        assert bad, f"refused a valid input: {exc}"
        assert "relevance vector" in str(exc)
        return
    assert not bad
    for row, (rr, p) in zip(vectors, table[["RR", f"P@{K}"]].itertuples(index=False, name=None)):
        relevant = [i + 1 for i, v in enumerate(row) if not _missing(v) and float(v) >= 1]
        assert rr == (1.0 / relevant[0] if relevant else 0.0)
        assert p == pytest.approx(sum(1 for r in relevant if r <= K) / K)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(
        st.one_of(st.floats(0, 1), st.sampled_from([float("nan"), float("inf")])), min_size=24, max_size=24
    ),
    repeat=st.booleans(),
)
def test_per_query_tables_with_missing_values_and_repeats(values, repeat):
    table = pd.DataFrame(
        {"system": ["a"] * 12 + ["b"] * 12, "query_id": [f"q{i}" for i in range(12)] * 2, "AP": values}
    )
    if repeat:
        table = pd.concat([table, table.iloc[[3]]], ignore_index=True)
    bad = repeat or not np.isfinite(values).all()
    for call in (
        lambda t: stats.compare(t, baseline="a", n_resamples=100, rng=0),
        lambda t: stats.bootstrap(t, "AP", n_resamples=100, rng=0),
    ):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", rankviz.RankvizWarning)
                result = call(table)
        except rankviz.RankvizError as exc:
            assert bad, f"refused a valid table: {exc}"
            assert "query 'q" in str(exc) and ("rows in the per-query table" in str(exc) or "column 'AP'" in str(exc))
            continue
        assert not bad
        frame = result.to_frame()
        assert frame.select_dtypes("number").notna().any().all()


# ----------------------------------------------------------------------------- one test per example of the issue


def test_missing_entry_keeps_its_rank_and_ranked_list_shows_it():
    frame = pd.DataFrame(
        {"query_id": ["q1", "q2"], "retrieved": [[None, "b", "c"], ["d", "e"]], "relevant": [["b"], ["d"]]}
    )
    table = rankviz.evaluate(frame, ["RR"], per_query=True)
    assert table["RR"].tolist() == [0.5, 1.0]
    listed = rankviz.ranked_list(frame, "q1")
    assert listed["doc_id"].isna().tolist() == [True, False, False]
    assert listed["relevant"].tolist() == [False, True, False]


def test_none_in_relevant_names_no_document():
    frame = pd.DataFrame({"query_id": ["q1"], "retrieved": [["None", "b"]], "relevant": [["b", None]]})
    table = rankviz.evaluate(frame, ["RR", "R@2"], per_query=True)
    assert table["RR"].item() == 0.5 and table["R@2"].item() == 1.0


def test_float_ids_in_lists_are_refused_like_the_long_shape():
    frame = pd.DataFrame({"query_id": ["q1"], "retrieved": [[1.0, 2.0]], "relevant": [[2]]})
    with pytest.raises(rankviz.InputError, match=r"'retrieved' column of row 0 holds a float doc id \(1\.0\)"):
        rankviz.evaluate(frame, "RR")


def test_huge_grades_are_refused_in_frames_and_dicts():
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    frame = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": np.array([2**63], dtype=np.uint64)})
    with pytest.raises(rankviz.InputError, match=r"has the grade 9223372036854775808 \(row 0\), beyond \+-2\*\*53"):
        rankviz.evaluate(run, "RR", frame)
    lists = pd.DataFrame({"query_id": ["q1"], "retrieved": [["a", "b"]], "relevant": [{"b": 2**63}]})
    with pytest.raises(rankviz.InputError, match=r"must be an integer within \+-2\*\*53"):
        rankviz.evaluate(lists, "RR")
    ranked = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [1, 2**60]})
    with pytest.raises(rankviz.InputError, match=r"has the rank 1152921504606846976 \(row 1\), beyond 2\*\*53"):
        rankviz.evaluate(ranked, "RR", {"q1": {"b": 1}})


@pytest.mark.parametrize("grade", [math.inf, -math.inf])
def test_infinite_grades_are_refused_in_lists_and_vectors(grade):
    # int(inf) raised a raw OverflowError before the grade checks (found by mypy: abs() of the number union)
    lists = pd.DataFrame({"query_id": ["q1"], "retrieved": [["a", "b"]], "relevant": [{"b": grade}]})
    with pytest.raises(rankviz.InputError, match=r"grade of doc 'b' .* must be an integer within \+-2\*\*53"):
        rankviz.evaluate(lists, "RR")
    vectors = pd.DataFrame({"query_id": ["q1"], "relevance": [[0.0, grade]]})
    with pytest.raises(rankviz.InputError, match=r"holds -?inf in its relevance vector"):
        rankviz.evaluate(vectors, "RR")


def test_doc_ids_read_as_numbers_warn():
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": [123, 124], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["00123"], "relevance": [1]})
    with pytest.warns(rankviz.UnmatchedIdsWarning, match="No retrieved document"):  # and every measure is 0
        with pytest.warns(
            rankviz.IdTypeWarning, match=r"doc ids are ints in the run and strs in the qrels.*'00123' and 123"
        ):
            rankviz.evaluate(run, "RR", qrels)


def test_run_and_qrels_sharing_no_doc_id_warn():
    run = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 5, "doc_id": [f"doc{i} " for i in range(10)], "score": 1.0})
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["doc1", "doc6"], "relevance": [1, 1]})
    with pytest.warns(
        rankviz.UnmatchedIdsWarning,
        match=r"2 distinct retrieved doc id\(s\) are not in the qrels.*'doc1 ' where the qrels have 'doc1'",
    ):
        assert rankviz.evaluate(run, "RR", qrels)["RR"].item() == 0.0


def test_messages_that_used_to_mislead():
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1"] * 500, "doc_id": [f"d{i}" for i in range(500)], "relevance": 1})
    with pytest.raises(
        rankviz.UnknownOptionError, match=r"'per_query': it returns one mean per system.*rankviz\.evaluate"
    ):
        run.rank.mrr(qrels=qrels, per_query=True)
    # the qrels are the second positional argument (data by position, options by name): the old call is refused
    with pytest.warns(rankviz.UnmatchedIdsWarning):  # no doc of the run is judged: said, whatever the size
        assert run.rank.mrr(qrels) == run.rank.mrr(qrels=qrels)
    with pytest.raises(rankviz.InputError, match=r"Got a pandas\.DataFrame of shape \(500, 3\) instead") as info:
        run.rank.mrr(qrels=qrels, k=qrels)
    assert len(str(info.value)) < 250  # never the whole frame
    with pytest.raises(rankviz.UnknownOptionError, match=r"every option is keyword-only: mrr\(run, qrels, k=\.\.\.\)"):
        rankviz.mrr(run, 10, qrels)
    with pytest.raises(rankviz.InputError, match=r"A cutoff goes by name, after the data: mrr\(run, qrels, k=10\)"):
        rankviz.mrr(run, 10)

    class DataFrame:  # a frame of another library, such as polars
        def to_pandas(self):
            return run

    DataFrame.__module__ = "polars.dataframe.frame"
    with pytest.raises(
        rankviz.InputError,
        match=r"must be a pandas DataFrame\. Got polars\.DataFrame instead\. Convert it first with \.to_pandas\(\)",
    ):
        rankviz.evaluate(DataFrame(), "RR", qrels)


def test_pytrec_eval_style_run_dict_is_a_run():
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "d": 3.0}}
    qrels = {"q1": {"b": 1}, "q2": {"c": 1}}
    assert rankviz.mrr(run, qrels=qrels) == 0.5
    assert rankviz.ranked_list(run, "q2", qrels)["doc_id"].tolist() == ["d", "c"]
    # a dict of lists is still the relevance-vector shape
    assert rankviz.mrr({"q1": [False, True], "q2": [True]}) == 0.75


def test_a_query_id_with_two_texts_is_said_not_silently_overwritten():
    from rankviz.io.per_query import query_texts

    queries = pd.DataFrame({"query_id": ["q1", "q2", "q1"], "text": ["first text", "other", "second text"]})
    with pytest.warns(
        rankviz.DuplicateTextWarning, match=r"query 'q1' has two different texts \('first text' and 'second text'\)"
    ):
        texts = query_texts(queries, "failures")
    assert texts == {"q1": "first text", "q2": "other"}
    same = pd.DataFrame({"query_id": ["q1", "q1"], "text": ["same", "same"]})
    assert query_texts(same, "failures") == {"q1": "same"}  # a plain repeat says nothing


def test_a_dict_of_run_frames_is_several_systems_named_by_the_keys():
    from rankviz.datasets import load_example

    run, qrels, _ = load_example()
    runs = {name: part.reset_index(drop=True) for name, part in run.groupby("system", sort=True)}
    renamed = {f"my {name}": part for name, part in runs.items()}  # each frame keeps its own one-valued tag
    got = rankviz.evaluate(renamed, ["RR@10", "AP"], qrels)
    want = rankviz.evaluate(run, ["RR@10", "AP"], qrels)
    assert got.index.tolist() == [f"my {s}" for s in want.index]
    assert np.array_equal(got[["RR@10", "AP"]].to_numpy(), want[["RR@10", "AP"]].to_numpy())
    # compare takes the same dict (it refused frames carrying their run tag before)
    first, second = sorted(renamed)[:2]
    res = rankviz.compare({k: renamed[k] for k in (first, second)}, first, "RR@10", qrels, rng=0)
    assert res.table["system"].tolist() == [second]
    with pytest.raises(rankviz.InputError, match=r"run 'all' of the dict has \d+ systems in its own 'system' column"):
        rankviz.evaluate({"all": run}, ["AP"], qrels)


# ----------------------------------------------------------------------------- the input semantics of issues 23 and 27

GOLD_IDS = ["a", "b", "c", "z"]


def _gold_container(draw_kind, grades: dict):
    """The same gold in the containers users pass: list, tuple, set, array, Series of ids, Series/dict of grades."""
    ids = list(grades)
    return {
        "list": ids,
        "tuple": tuple(ids),
        "set": set(ids),
        "array": np.asarray(ids, dtype=object),
        "series of ids": pd.Series(ids, dtype=object),
        "dict": dict(grades),
        "series of grades": pd.Series(grades, dtype="int64") if grades else pd.Series([], dtype=object),
    }[draw_kind]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lists=st.lists(
        st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=5, unique=True), min_size=1, max_size=4
    ),
    gold=st.lists(
        st.one_of(st.dictionaries(st.sampled_from(GOLD_IDS), st.integers(0, 3), max_size=3), st.sampled_from(MISSING)),
        min_size=4,
        max_size=4,
    ),
    kind=st.sampled_from(["list", "tuple", "set", "array", "series of ids", "dict", "series of grades"]),
    policy=st.sampled_from(["drop", "zero"]),
)
def test_gold_in_every_container_and_missing_kind_is_a_closed_world(lists, gold, kind, policy):
    gold = gold[: len(lists)]
    graded = kind in ("dict", "series of grades")
    grades = [g if _missing_gold(g) else (g if graded else dict.fromkeys(g, 1)) for g in gold]
    frame = pd.DataFrame(
        {
            "query_id": [f"q{i}" for i in range(len(lists))],
            "retrieved": lists,
            "relevant": [g if _missing_gold(g) else _gold_container(kind, g) for g in grades],
        }
    )
    copy = frame.copy(deep=True)
    unannotated = [f"q{i}" for i, g in enumerate(grades) if _missing_gold(g) or not g]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = rankviz.evaluate(frame, ["RR", "R@3", "Judged@3", "P@3"], per_query=True, unannotated=policy)
    said = [w for w in caught if issubclass(w.category, rankviz.UnannotatedWarning)]
    assert bool(said) == bool(unannotated and policy == "drop")
    assert not [w for w in caught if not issubclass(w.category, rankviz.RankvizWarning)]  # never numpy's own
    expected = []
    for i, (retrieved, g) in enumerate(zip(lists, grades)):
        if f"q{i}" in unannotated and policy == "drop":
            continue
        g = {} if _missing_gold(g) else g
        ranks = [r + 1 for r, d in enumerate(retrieved) if g.get(d, 0) >= 1]
        n_rel = sum(1 for v in g.values() if v >= 1)
        hits = sum(1 for r in ranks if r <= 3)
        judged = 1.0 if retrieved else 0.0  # closed world: every retrieved id is judged
        expected.append((1 / ranks[0] if ranks else 0.0, hits / n_rel if n_rel else 0.0, judged, hits / 3))
    assert table["query_id"].tolist() == [
        f"q{i}" for i in range(len(lists)) if policy == "zero" or f"q{i}" not in unannotated
    ]
    got = table[["RR", "R@3", "Judged@3", "P@3"]].to_numpy().ravel().tolist()
    assert got == pytest.approx([v for row in expected for v in row])
    pd.testing.assert_frame_equal(frame[["query_id", "retrieved"]], copy[["query_id", "retrieved"]])
    for now, before in zip(frame["relevant"], copy["relevant"]):  # pandas' own comparison cannot hold Series cells
        if isinstance(before, (pd.Series, np.ndarray)):
            assert type(now) is type(before) and list(now) == list(before)
            assert not isinstance(before, pd.Series) or list(now.index) == list(before.index)
        else:
            assert (_missing_gold(now) and _missing_gold(before)) or now == before


def _missing_gold(value) -> bool:
    return not isinstance(value, dict) and _missing(value)


SPELLINGS = ["{}", "{} ", " {}", "{}\u00a0", "\u200b{}", "{}\u2060", "{}\r"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run_spelling=st.sampled_from(SPELLINGS),
    qrels_spelling=st.sampled_from(SPELLINGS),
    n_docs=st.integers(1, 6),
    kind=st.sampled_from(["str", "category", "object"]),
)
def test_doc_ids_spelled_differently_are_always_said(run_spelling, qrels_spelling, n_docs, kind):
    docs = [f"d{i}" for i in range(n_docs)]
    run = pd.DataFrame(
        {"query_id": "q1", "doc_id": [run_spelling.format(d) for d in docs], "score": np.arange(n_docs, 0, -1.0)}
    ).astype({"doc_id": kind})
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": [qrels_spelling.format(docs[-1])], "relevance": [1]})
    copy = run.copy(deep=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rr = rankviz.evaluate(run, ["RR"], qrels)["RR"].item()
    said = [str(w.message) for w in caught if issubclass(w.category, rankviz.UnmatchedIdsWarning)]
    if run_spelling == qrels_spelling:
        assert rr == 1 / n_docs and not said
    else:
        assert rr == 0.0 and len(said) == 1 and "not in the qrels but equal a judged id" in said[0]
    pd.testing.assert_frame_equal(run, copy)
