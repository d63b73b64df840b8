"""Slices keep distinct values apart (issue 31): strings stay strings, labels stay distinct, integers bin exactly.

Every case gives each query one of a few values, so the right answer is known: one
segment per distinct value, with exactly the queries holding it.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz._errors import InputError


@cache
def example():
    return rankviz.datasets.load_example()


def segments(mapping) -> dict[str, int]:
    """{segment label: number of bm25 queries in it} of ``evaluate(..., by=mapping)``."""
    run, qrels, _ = example()
    table = rankviz.evaluate(run, ["RR@10"], qrels, by=pd.Series(mapping, name="segment", dtype=object))
    mine = table[table["system"] == "bm25"]
    return dict(zip(mine["segment"].astype(str), mine["n"].astype(int)))


def ids() -> list[str]:
    return sorted(example()[0]["query_id"].unique())


@pytest.mark.parametrize(
    "values",
    [("01", "1"), ("007", "07", "7"), ("1.0", "1"), ("1", 1), ("True", True), ("(missing)", None)],
    ids=["01-1", "007-07-7", "1.0-1", "str-int", "str-bool", "missing-text"],
)
def test_distinct_values_that_print_alike_are_distinct_segments(values):
    q = ids()[:60]
    mapping = {qid: values[i % len(values)] for i, qid in enumerate(q)}
    got = segments(mapping)
    given = [v for v in values if v is not None]
    # each value given is its own segment of 60 / len(values) queries; the rest (540, and None) are "(missing)"
    assert len(got) == len(given) + 1
    assert got["(missing)"] == 540 + 60 - 60 // len(values) * len(given)
    assert sorted(n for label, n in got.items() if label != "(missing)") == [60 // len(values)] * len(given)


@pytest.mark.parametrize(
    "pair",
    [(12345.6, 12345.7), (0.1, 0.1000001), (2**53, 2**53 + 1), (1e300, 1.0000000000000002e300)],
    ids=["5-digits", "7-digits", "2**53", "1e300"],
)
def test_close_numbers_get_distinct_labels(pair):
    mapping = {qid: pair[i % 2] for i, qid in enumerate(ids())}
    got = segments(mapping)
    assert len(got) == 2 and sorted(got.values()) == [300, 300]


def test_64_bit_hashes_bin_exactly_and_nothing_is_missing():
    q = ids()
    got = segments({qid: 2**60 + i for i, qid in enumerate(q)})
    assert "(missing)" not in got and sum(got.values()) == 600 and len(got) == 4
    first = min(got, key=lambda label: int(label.strip("[]").split(", ")[0]))
    assert first == f"[{2**60}, {2**60 + 149}]"  # integers in full, no float rounding
    # just beyond float precision: 2**53 + i, every bin's edges exact
    near = segments({qid: 2**53 + i for i, qid in enumerate(q)})
    assert f"[{2**53}, {2**53 + 149}]" in near


def test_infinite_values_are_values_of_a_binned_attribute():
    values = {qid: [np.inf, -np.inf, float(i)][i % 3] for i, qid in enumerate(ids())}
    got = segments(values)
    assert sum(got.values()) == 600 and "(missing)" not in got
    assert any(label.endswith(", inf]") for label in got) and any(label.startswith("[-inf") for label in got)


def test_failure_slices_keep_strings_and_close_numbers_apart():
    n = 60
    table = pd.DataFrame(
        {"query_id": [f"q{i}" for i in range(n)], "RR@10": [0.0, 1.0, 1.0] * 20,
         "code": ["01", "1"] * 30, "score": [12345.6, 12345.7, 12345.7, 12345.7] * 15, "hash": [2**60 + i for i in range(n)],
         "spread": [[np.inf, -np.inf, float(i)][i % 3] for i in range(n)]}
    )  # fmt: skip
    result = rankviz.failure_slices(table, min_count=1)
    tested = result.attrs["rankviz"]["n_candidates"]
    assert tested >= 2 + 2 + 4 + 2  # two codes, two scores, four hash bins, the spread's bins
    values = set(zip(result["attribute"], result["value"]))
    assert not any(v == "(missing)" for _, v in values)
    everything = rankviz.failure_slices(table.assign(**{"RR@10": [0.0, 1.0] * 30}), min_count=1, attributes=["code"])
    assert set(everything["value"]) == {"01"} and int(everything["n"].iloc[0]) == 30


def test_failure_slices_bad_threshold_and_bins_are_refused_quickly():
    table = pd.DataFrame({"query_id": [f"q{i}" for i in range(40)], "RR@10": [0.0, 1.0] * 20, "x": range(40)})
    for bad in ("0", None, float("nan"), True):
        with pytest.raises(InputError, match="'threshold' parameter of failure_slices must be a number"):
            rankviz.failure_slices(table, threshold=bad)
    with pytest.raises(InputError, match=r"'bins' parameter of failure_slices must be an int in the range \[2, 1000\]"):
        rankviz.failure_slices(table, bins=10**9)


def test_by_system_or_query_id_is_refused_naming_the_fix():
    run, qrels, _ = example()
    for name in ("system", "query_id"):
        with pytest.raises(InputError, match=f"by='{name}'.*already a key of every sliced result.*query attribute"):
            rankviz.evaluate(run, ["RR@10"], qrels, by=name)


@pytest.mark.parametrize("value", [["a", "b"], np.array([1, 2]), {"a": 1}], ids=["list", "array", "dict"])
def test_by_values_that_are_not_scalars_are_refused_naming_the_query(value):
    run, qrels, _ = example()
    q = ids()
    mapping = dict.fromkeys(q, "x")
    mapping[q[3]] = value
    with pytest.raises(InputError, match=f"attribute 'segment' has a .* value of query '{q[3]}'"):
        rankviz.evaluate(run, ["RR@10"], qrels, by=mapping)
    with pytest.raises(InputError, match="attribute 'tags' has a"):
        rankviz.failure_slices(
            pd.DataFrame({"query_id": q[:10], "RR@10": [0.0] * 5 + [1.0] * 5,
                          "tags": pd.Series(["a"] * 9 + [value], dtype=object)})
        )  # fmt: skip


def test_a_query_id_ending_in_nul_keeps_its_segment():
    """numpy's fixed-width str dtype drops a trailing NUL: the ids must stay Python strings (hostile harness, CI profile)."""
    ids = ["q", "q ", " q", "q\xa0", "qqq\x00", "\xa0q", "q\u200b", "\u200bq"]
    run = pd.DataFrame(
        [(q, d, s) for q in ids for d, s in (("d1", 2.0), ("d2", 1.0))], columns=["query_id", "doc_id", "score"]
    )
    qrels = pd.DataFrame(
        [(q, "d1" if i % 2 else "d2", 1) for i, q in enumerate(ids)], columns=["query_id", "doc_id", "relevance"]
    )
    table = rankviz.evaluate(run, ["RR@10"], qrels, by={q: ("a" if i < 4 else "b") for i, q in enumerate(ids)})
    assert dict(zip(table["segment"], table["n"])) == {"a": 4, "b": 4}
