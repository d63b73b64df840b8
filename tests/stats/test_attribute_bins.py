"""The one attribute-to-segments rule of ``by=`` and ``failure_slices`` (issue 31), as properties.

Whatever the values (strings that look like numbers, 64-bit and larger integers,
floats a few ulps apart, infinities, missing values), equal values share a segment,
distinct values get distinct labels unless the attribute is binned, and bins keep
the values' order.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankviz._errors import InputError
from rankviz.stats.attribute_bins import MISSING, attribute_segments, check_bins, number_texts

LOOKALIKE = ["01", "1", "1.0", "007", "07", "7", "(missing)", " 1", "1 ", "True", "nan"]
CLOSE_FLOATS = [0.1, 0.1000001, 12345.6, 12345.7, 1e300, math.nextafter(1e300, 2e300), -math.inf, math.inf, 2.0**53]
BIG_INTS = [2**53, 2**53 + 1, 2**60 + 3, 2**63 - 1, -(2**63), 2**64 - 1, 2**70]

strings = st.one_of(st.sampled_from(LOOKALIKE), st.text(max_size=3))
numbers = st.one_of(
    st.integers(-(2**70), 2**70), st.sampled_from(BIG_INTS), st.sampled_from(CLOSE_FLOATS), st.floats(allow_nan=False)
)
missing = st.sampled_from([None, float("nan")])
columns = st.one_of(
    st.lists(st.one_of(strings, missing), min_size=1, max_size=40),
    st.lists(st.one_of(numbers, missing), min_size=1, max_size=40),
    st.lists(st.one_of(strings, numbers, missing), min_size=1, max_size=40),
)


def is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def same(a, b) -> bool:
    """Equal as segment values: both strings and equal, or both numbers and equal (1 == 1.0, "1" != 1)."""
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return a == b


@settings(max_examples=150, deadline=None)
@given(columns, st.integers(2, 6))
def test_equal_values_share_a_segment_and_distinct_ones_are_apart_unless_binned(values, bins):
    cut = attribute_segments(pd.Series(values, dtype=object), bins=bins)
    labels = list(cut.labels)
    assert len(labels) == len(values)
    for i, a in enumerate(values):
        assert (labels[i] == MISSING) == is_missing(a)
        for j in range(i):
            b = values[j]
            if is_missing(a) or is_missing(b):
                continue
            if same(a, b):
                assert labels[i] == labels[j]
            elif not cut.binned:
                assert labels[i] != labels[j], (a, b, labels[i])
    if cut.binned:  # bins keep the order of the values
        order = {c: k for k, c in enumerate(cut.labels.categories)}
        present = [(v, order[lab]) for v, lab in zip(values, labels) if lab != MISSING]
        for v, k in present:
            for w, m in present:
                if v < w:
                    assert k <= m
    if all(isinstance(v, str) or is_missing(v) for v in values) and not cut.binned:
        shown = {v for v in values if isinstance(v, str)}
        if MISSING not in shown and len({str(v) for v in shown}) == len(shown):
            assert {lab for lab in labels if lab != MISSING} == shown  # a string is its own label


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from(BIG_INTS + CLOSE_FLOATS), st.floats(allow_nan=False)),
        min_size=1,
        max_size=30,
        unique=True,
    )
)
def test_number_texts_are_distinct_for_distinct_numbers(values):
    texts = number_texts(sorted(values))
    assert len(set(texts)) == len(texts)


def test_integers_beyond_float_precision_bin_exactly():
    values = pd.Series([2**60 + i for i in range(40)], dtype="int64")
    cut = attribute_segments(values, bins=4)
    assert cut.binned and list(cut.labels.categories) == [f"[{2**60 + 10 * k}, {2**60 + 10 * k + 9}]" for k in range(4)]
    assert pd.Series(cut.labels).value_counts().eq(10).all()


def test_keep_sets_the_bins_and_the_other_rows_fall_in_them():
    values = pd.Series(np.arange(100, dtype=float))
    keep = values.to_numpy() >= 50  # the bins come from 50..99 alone
    cut = attribute_segments(values, keep, bins=2)
    assert list(cut.labels.categories) == ["[50, 74]", "[75, 99]"]
    assert (np.asarray(cut.labels)[:50] == "[50, 74]").all()


@pytest.mark.parametrize("bins", [1, 1001, 10**9, 2.5, "4", None])
def test_bins_are_bounded(bins):
    with pytest.raises(InputError, match="'bins' parameter of f"):
        check_bins(bins, "f")
