"""Frames of other libraries (polars, pyarrow, Hugging Face ``datasets``) as pandas frames, through Arrow.

rankviz computes on Arrow strings and NumPy numbers taken from pandas frames. A frame of
another library enters once, at the public boundary (where a run, qrels, a per-query table
or a queries/documents table is first looked at), and becomes a pandas frame whose string
columns are pandas' Arrow-backed ``str`` dtype over the *same* Arrow buffers:

* anything with the Arrow PyCapsule stream interface (``__arrow_c_stream__``: a pyarrow
  ``Table`` or ``RecordBatch``, a polars ``DataFrame``, DuckDB, ...) is read with
  ``pyarrow.table(obj)``; a polars ``LazyFrame`` is collected first;
* a Hugging Face ``datasets.Dataset`` (which has no such interface) is its Arrow table,
  ``dataset.with_format("arrow")[:]`` (with any ``select``/``shuffle`` indices applied).

Then ``Table.to_pandas`` maps every string column to pandas' ``str`` dtype: a ``string`` or
``large_string`` column keeps its character data (only its 32-bit offsets are widened);
polars' ``string_view`` columns are laid out differently from every pandas string and are
converted once, here. Numbers become NumPy columns as pandas would make them; Arrow decimals
become float64 with a warning when every value keeps its order and ties, else they are refused
(:func:`decimals_as_floats`, also applied to a pandas ``ArrowDtype`` decimal score column). Nothing is
imported from polars or datasets: they are recognised by their interfaces and module
names, so rankviz does not need them installed.
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, RankvizWarning, warn

__all__ = ["as_pandas", "is_foreign_frame", "arrow_table", "unpack_bundles", "decimals_as_floats"]


def _root_module(obj) -> str:
    return type(obj).__module__.split(".")[0]


def is_foreign_frame(obj) -> bool:
    """Whether ``obj`` is a table of another library that :func:`as_pandas` converts."""
    if isinstance(obj, (pd.DataFrame, pd.Series, pa.Array, pa.ChunkedArray)) or type(obj).__name__ == "Series":
        return False  # columns (a polars Series too) are not tables: they stay what they are
    if hasattr(obj, "__arrow_c_stream__"):
        return True
    root = _root_module(obj)
    return (root == "polars" and hasattr(obj, "collect")) or (root == "datasets" and hasattr(obj, "with_format"))


def arrow_table(obj, what: str = "frame") -> pa.Table:
    """The Arrow table of a polars DataFrame/LazyFrame, a pyarrow Table/RecordBatch or a ``datasets.Dataset``."""
    if isinstance(obj, pa.Table):
        return obj
    root = _root_module(obj)
    if root == "polars" and hasattr(obj, "collect") and not hasattr(obj, "__arrow_c_stream__"):
        obj = obj.collect()  # a LazyFrame: its query runs here, once
    if root == "datasets" and not hasattr(obj, "__arrow_c_stream__"):
        if not hasattr(obj, "with_format") or type(obj).__name__ != "Dataset":
            raise InputError(
                f"The {what} is a {type(obj).__module__}.{type(obj).__name__}, which has no table to evaluate "
                "(an IterableDataset or a DatasetDict?). Pass one datasets.Dataset, e.g. dataset_dict['test'], "
                "or a streamed dataset materialised with Dataset.from_generator."
            )
        return obj.with_format("arrow")[:]
    try:
        return pa.table(obj)
    except (TypeError, ValueError, pa.ArrowException) as exc:
        raise InputError(
            f"The {what} ({type(obj).__module__}.{type(obj).__name__}) could not be read as an Arrow table: {exc}"
        ) from None


def _string_dtype():
    """pandas' ``str`` dtype when it is Arrow-backed (pandas 3), else None (pandas 2.2: object strings, a copy)."""
    dtype = pd.Series([], dtype="str").dtype
    return dtype if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow" else None


def _pandas_type(arrow_type: pa.DataType, strings=None):
    """``strings`` for Arrow strings; None (pandas' default conversion) for everything else."""
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return strings
    return None


def _is(arrow_type: pa.DataType, test: str) -> bool:
    """``pyarrow.types.<test>(arrow_type)``; False where this pyarrow has no such type (views came in pyarrow 16)."""
    check = getattr(pa.types, test, None)
    return bool(check(arrow_type)) if check is not None else False


def _no_views(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with every ``string_view`` in it (also inside lists) as ``large_string``."""
    if _is(arrow_type, "is_string_view"):
        return pa.large_string()
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or _is(arrow_type, "is_list_view"):
        return pa.large_list(_no_views(arrow_type.value_type))
    return arrow_type


def _without_string_views(table: pa.Table) -> pa.Table:
    """``string_view`` columns (polars' strings) cast to ``large_string``, the layout pandas' strings share."""
    for i, field in enumerate(table.schema):
        wanted = _no_views(field.type)
        if wanted != field.type:
            table = table.set_column(i, field.name, table.column(i).cast(wanted))
    return table


def decimals_as_floats(column, name, what: str = "frame") -> pa.ChunkedArray:
    """An Arrow decimal column as float64 when every value survives the trip (with a warning), else an InputError.

    rankviz computes on float64. A decimal converts without loss of order or ties when
    each distinct value is the shortest decimal of its float (``repr(float(d)) == d``:
    distinct decimals stay distinct floats, in the same order); a decimal with more
    significant digits than a float holds is refused, naming the column and the fix.
    """
    column = column if isinstance(column, pa.ChunkedArray) else pa.chunked_array([column])
    try:
        floats = pc.cast(column, pa.float64())
    except pa.ArrowException as exc:
        floats, bad = None, f"({exc})"
    else:
        bad = ""
        for value in pc.unique(column).to_pylist():
            if value is not None and decimal.Decimal(repr(float(value))) != value:
                bad = f"({value} would become {float(value)!r})"
                break
    if floats is None or bad:
        raise InputError(
            f"The {what}'s column {name!r} holds decimals ({column.type}) that float64, what rankviz computes on, "
            f"cannot hold without merging or reordering values {bad}. Round them to at most 15 significant digits, "
            "or cast the column to float64 yourself if that rounding is what you mean "
            "(pyarrow: table.cast(...); polars: pl.col(name).cast(pl.Float64); pandas: series.astype('float64'))."
        )
    warn(
        f"The {what}'s column {name!r} holds decimals ({column.type}); rankviz reads it as float64, where every value "
        "keeps its order and ties (each is the shortest decimal of its float). Cast it to float64 to silence this.",
        RankvizWarning,
    )
    return floats


def _without_decimals(table: pa.Table, what: str) -> pa.Table:
    for i, field in enumerate(table.schema):
        if pa.types.is_decimal(field.type):
            table = table.set_column(i, field.name, decimals_as_floats(table.column(i), field.name, what))
    return table


def as_pandas(data, what: str = "frame"):
    """``data`` as a pandas DataFrame when it is a table of another library; anything else as it is.

    Parameters
    ----------
    data : object
        A polars DataFrame or LazyFrame, a pyarrow Table or RecordBatch, a ``datasets.Dataset``, any
        object with ``__arrow_c_stream__``; or anything else (returned unchanged, for the caller to check).
    what : str
        What the table is (``'run'``, ``'qrels'``), for messages.

    Returns
    -------
    DataFrame or object
        A new frame with a default index, string columns Arrow-backed over the table's buffers.

    Raises
    ------
    InputError
        For a table that cannot be read as Arrow (an ``IterableDataset``, a ``DatasetDict``).

    Examples
    --------
    >>> import pyarrow as pa
    >>> frame = as_pandas(pa.table({"query_id": ["q1"], "score": [1.5]}))
    >>> frame.dtypes.astype(str).tolist()
    ['str', 'float64']
    """
    if not is_foreign_frame(data):
        return data
    table = _without_decimals(_without_string_views(arrow_table(data, what)), what)
    strings = _string_dtype()
    return table.to_pandas(types_mapper=functools.partial(_pandas_type, strings=strings), split_blocks=True)


def _is_bundle(value) -> bool:
    """A reader's result holding qrels and queries (``RetrievalLog``, ``BeirData``): a dataclass instance."""
    return (
        dataclasses.is_dataclass(value)
        and not isinstance(value, type)
        and hasattr(value, "qrels")
        and hasattr(value, "queries")
    )


def unpack_bundles(arguments: dict[str, Any], parameters, caller: str) -> None:
    """Open a ``RetrievalLog`` given as the run (its run, and its qrels and queries where none were given)
    or a log or ``BeirData`` given as the qrels (its qrels, and its queries), in place in ``arguments``."""
    run: Any = arguments.get("run")
    if _is_bundle(run):
        if not isinstance(getattr(run, "run", None), pd.DataFrame):
            raise InputError(
                f"{caller}: the run is a {type(run).__name__}, which holds qrels and queries but no run; pass it "
                f"as the qrels: {caller}(run, ..., qrels=data)."
            )
        arguments["run"] = run.run
        if "qrels" in parameters and arguments.get("qrels") is None and run.qrels is not None:
            arguments["qrels"] = run.qrels
        if "queries" in parameters and arguments.get("queries") is None and run.queries is not None:
            arguments["queries"] = run.queries
    qrels: Any = arguments.get("qrels")
    if _is_bundle(qrels):
        arguments["qrels"] = qrels.qrels
        if "queries" in parameters and arguments.get("queries") is None and qrels.queries is not None:
            arguments["queries"] = qrels.queries
