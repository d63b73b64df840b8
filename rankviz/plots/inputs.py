"""What the plots read from the tables they are handed: measure columns, numbers, systems, groups.

These checks are the plots' part of input resolution; reading the table itself (its
query-id and system columns, which column holds a measure, the systems, query texts) is
:mod:`rankviz.io.per_query`'s job, shared with statistics and widgets. Nothing here draws or imports matplotlib.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._core.columns import columns_text
from .._errors import ColumnError, InputError

__all__ = ["values", "check_system", "hue_column", "groups"]


def values(frame: pd.DataFrame, column: str, caller: str) -> np.ndarray:
    """A column as float64 (NaN where missing); an InputError when it does not hold numbers."""
    try:
        return frame[column].to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise InputError(
            f"{caller}: the column {column!r} must hold numbers. Got dtype {frame[column].dtype}."
        ) from None


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
