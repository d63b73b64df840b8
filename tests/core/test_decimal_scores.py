"""Decimal scores (issue 31): read as float64 with a warning when no two values merge or swap, else refused.

pyarrow's decimal128 used to fail inside the conversion of foreign frames, and a
pandas ``ArrowDtype`` decimal was silently rounded to float.
"""

from __future__ import annotations

import decimal
import warnings

import pandas as pd
import pyarrow as pa
import pytest

import rankviz

QRELS = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d2", "d1"], "relevance": [1, 1]})
SCORES = ["2.5", "0.25", "1.10", "1.1"]  # q1: d1 above d2; q2: d1 and d2 tied (1.10 == 1.1)


def table(values, type_):
    return pa.table(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d1", "d2"],
         "score": pa.array([decimal.Decimal(v) for v in values], type=type_)}
    )  # fmt: skip


def shapes(t: pa.Table):
    yield t
    yield t.to_batches()[0]
    yield t.to_pandas(types_mapper=pd.ArrowDtype)
    if pa.types.is_decimal256(t.schema.field("score").type):
        return  # polars has no 256-bit decimals (from_arrow panics)
    try:
        import polars as pl
    except ImportError:  # pragma: no cover - polars is a test dependency
        return
    yield pl.from_arrow(t)


@pytest.mark.parametrize("type_", [pa.decimal128(5, 2), pa.decimal128(38, 10), pa.decimal256(40, 2)], ids=str)
def test_decimals_that_floats_hold_give_the_float_numbers_with_a_warning(type_):
    floats = table(SCORES, type_).to_pandas().astype({"score": "float64"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = rankviz.evaluate(floats, ["RR@10", "AP"], QRELS, per_query=True)
    for shape in shapes(table(SCORES, type_)):
        with pytest.warns(rankviz.RankvizWarning, match="column 'score' holds decimals.*float64"):
            got = rankviz.evaluate(shape, ["RR@10", "AP"], QRELS, per_query=True)
        pd.testing.assert_frame_equal(got, want)


def test_decimals_beyond_float_precision_are_refused_naming_the_column():
    close = table(["0.10000000000000001", "0.1", "1", "2"], pa.decimal128(38, 20))
    for shape in shapes(close):
        with pytest.raises(rankviz.InputError, match=r"column 'score' holds decimals .*cannot hold.*Round them"):
            rankviz.evaluate(shape, ["RR@10"], QRELS)
