"""What the plots read from the tables they are handed: measure columns, numbers, systems, groups.

These checks are the plots' part of input resolution; reading the table itself (its
query-id and system columns, query texts) is :mod:`rankviz._core.per_query`' job, shared with
statistics and widgets. Nothing here draws or imports matplotlib.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._core.columns import columns_text
from .._errors import ColumnError, InputError
from ..measures import Measure, parse_measure

__all__ = ["measure_column", "values", "system_names", "check_system", "hue_column", "groups"]


def measure_column(frame: pd.DataFrame, measure, caller: str, exclude=()) -> str:
    """The column holding ``measure``: its exact name, else its canonical name ('MRR@10' finds 'RR@10').

    Raises
    ------
    ColumnError
        No such column; the message lists the table's columns and how to evaluate it.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankviz.plots.inputs import measure_column
    >>> table = pd.DataFrame({"query_id": ["q1"], "RR@10": [1.0]})
    >>> measure_column(table, "MRR@10", "failures")
    'RR@10'
    """
    text = measure.name if isinstance(measure, Measure) else str(measure)
    if text in frame.columns:
        return text
    try:
        name = parse_measure(measure).name
    except InputError:
        name = None
    if name is not None and name in frame.columns:
        return name
    present = [c for c in frame.columns if c not in exclude]
    raise ColumnError(
        f"{caller}: the per-query table has no column for measure {text!r}; it has {columns_text(present)}. "
        f"Evaluate it first, e.g. rankviz.evaluate(run, [{text!r}], qrels, per_query=True)."
    )


def values(frame: pd.DataFrame, column: str, caller: str) -> np.ndarray:
    """A column as float64 (NaN where missing); an InputError when it does not hold numbers."""
    try:
        return frame[column].to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise InputError(
            f"{caller}: the column {column!r} must hold numbers. Got dtype {frame[column].dtype}."
        ) from None


def system_names(frame: pd.DataFrame, system_col: str | None) -> list[str]:
    """The systems of a table, as strings, in order of first appearance ([] without a system column)."""
    if system_col is None:
        return []
    return [str(s) for s in pd.unique(frame[system_col].astype(str))]


def check_system(name, systems: list[str], caller: str, param: str = "system") -> str:
    """``name`` as a string, when it is one of ``systems``."""
    if str(name) not in systems:
        raise InputError(f"{caller}: unknown {param} {name!r}; the table has the systems {columns_text(systems)}.")
    return str(name)


def hue_column(frame: pd.DataFrame, hue, system_col: str | None, caller: str) -> str | None:
    """The column that splits the data into coloured groups: ``hue``, or the system column by default."""
    if hue is None:
        return system_col
    if hue not in frame.columns:
        raise ColumnError(
            f"{caller}: hue={hue!r} is not a column of the table; its columns are {columns_text(frame.columns)}."
        )
    if system_col is not None and hue != system_col and frame[system_col].nunique() > 1:
        raise InputError(
            f"{caller}: the table holds several systems; hue must be the system column ({system_col!r}), "
            f"or select one system first (table[table.{system_col} == 'name'])."
        )
    return hue


def groups(frame: pd.DataFrame, column: str | None) -> list[tuple[str | None, pd.DataFrame]]:
    """[(label, rows)] in order of first appearance (category order for categoricals); [(None, frame)] without a column."""
    if column is None:
        return [(None, frame)]
    keys = frame[column]
    levels = keys.cat.categories if isinstance(keys.dtype, pd.CategoricalDtype) else pd.unique(keys)
    return [(str(level), frame[keys == level]) for level in levels if (keys == level).any()]
