"""Column roles: which column of a frame holds the query ids, the doc ids, the scores, ...

This is the one place that knows the default names and aliases of every column role
and how a caller overrides them (``columns={"query": "qid"}``). Run frames, qrels,
per-query tables, query-text and document frames are all resolved through
:func:`find_column`, so one rule and one message hold everywhere.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from typing import Literal, overload

import numpy as np
import pandas as pd

from .._errors import ColumnError, InputError
from .checks import is_real, not_a_number, shown

__all__ = [
    "SINGLE_SYSTEM",
    "ALIASES",
    "FALLBACK_ALIASES",
    "TEXT_COLUMNS",
    "Columns",
    "find_column",
    "columns_text",
    "row_label",
    "is_listlike",
    "is_missing",
    "SCALAR_ROLES",
    "check_scalar_cells",
    "check_number_cells",
    "LARGEST_VALUE",
    "check_key_cells",
]

#: the label of a run without a system column, wherever a system is named (tables, results, Series)
SINGLE_SYSTEM = "run"

#: column role -> names looked for, in order
ALIASES: dict[str, tuple[str, ...]] = {
    "query": ("query_id", "qid", "query", "question_id"),
    "doc": ("doc_id", "docid", "docno"),
    "score": ("score",),
    "rank": ("rank",),
    "relevance": ("relevance", "rel", "label", "grade"),
    "system": ("system", "run", "tag"),
    "retrieved": ("retrieved", "retrieved_ids", "results"),
    "relevant": ("relevant", "relevant_ids", "gold", "gold_ids"),
    "n_relevant": ("n_relevant", "num_rel", "n_rel"),
    "text": ("text", "query_text", "question", "title"),
}

#: column role -> names looked for only when no name of ``ALIASES`` is present: the names of real RAG logs that
#: also mean something else (``question`` is a query's text beside a ``query_id``; ``model`` may be a generator)
FALLBACK_ALIASES: dict[str, tuple[str, ...]] = {
    "query": ("question", "topic"),
    "system": ("retriever", "retriever_name", "model"),
}

#: columns that hold a query's text, in the order they are looked for
TEXT_COLUMNS = ALIASES["text"]


@dataclasses.dataclass(frozen=True)
class Columns:
    """Column-name overrides for the roles rankviz looks up (None = use the defaults and aliases).

    Build it from the ``columns=`` mapping every public function takes:
    ``Columns.of({"query": "qid", "doc": "docno"}, "evaluate")``.
    """

    query: str | None = None
    doc: str | None = None
    score: str | None = None
    rank: str | None = None
    relevance: str | None = None
    system: str | None = None
    retrieved: str | None = None
    relevant: str | None = None
    n_relevant: str | None = None
    text: str | None = None

    @classmethod
    def of(cls, columns, caller: str) -> Columns:
        """Validate a ``columns=`` mapping (or pass a :class:`Columns` through)."""
        if columns is None:
            return cls()
        if isinstance(columns, Columns):
            return columns
        if not isinstance(columns, Mapping):
            raise InputError(
                f"The 'columns' parameter of {caller} must be a dict from role to column name, such as "
                f"{{'query': 'qid', 'doc': 'docno'}}. Got {type(columns).__name__} instead."
            )
        roles = [f.name for f in dataclasses.fields(cls)]
        for role, name in columns.items():
            if role not in roles:
                close = difflib.get_close_matches(str(role), roles, n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise InputError(
                    f"The 'columns' parameter of {caller} has an unknown role {role!r}.{hint} "
                    f"Roles: {', '.join(roles)}."
                )
            if name is not None and not isinstance(name, str):
                raise InputError(
                    f"The 'columns' parameter of {caller} maps {role!r} to {name!r}; column names must be strings."
                )
        return cls(**dict(columns))

    def get(self, role: str) -> str | None:
        return getattr(self, role)


def columns_text(names) -> str:
    """Up to 12 column names, quoted, for messages."""
    if isinstance(names, pd.DataFrame):
        names = names.columns
    shown = [repr(str(n)) for n in names]
    return (", ".join(shown[:12]) + (", ..." if len(shown) > 12 else "")) if shown else "none"


def row_label(label) -> str:
    """A row label as users wrote it: numpy scalars (pandas 2 index values) shown as plain Python values."""
    return repr(label.item() if isinstance(label, np.generic) else label)


def is_listlike(value) -> bool:
    """True for the containers rankviz reads as per-query lists."""
    return isinstance(value, (list, tuple, set, frozenset, np.ndarray, pd.Series))


def is_missing(value) -> bool:
    """None, NaN, pd.NA or NaT (a scalar that stands for "no value")."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, (float, np.floating)) and bool(np.isnan(value))


#: roles whose cells are one value each (ids, numbers, texts); ``retrieved``/``relevant`` hold per-query lists and
#: ``relevance`` a list in the per-query vector shape, so they are checked where their shape is known
SCALAR_ROLES = frozenset({"query", "doc", "score", "rank", "system", "n_relevant", "text"})

#: what :func:`pandas.api.types.infer_dtype` says of a column without containers (no cell needs a look)
_PLAIN_KINDS = frozenset(
    {"string", "bytes", "floating", "integer", "mixed-integer-float", "decimal", "complex", "categorical",
     "boolean", "datetime64", "datetime", "date", "timedelta64", "timedelta", "time", "period", "interval", "empty"}
)  # fmt: skip


def _is_container(value) -> bool:
    return isinstance(value, (list, tuple, set, frozenset, dict, Mapping, np.ndarray, pd.Series, pd.DataFrame))


def check_scalar_cells(frame: pd.DataFrame, name, role: str, what: str) -> None:
    """Refuse a list, tuple, set, dict or array in a cell of a one-value column, naming its row and the fix.

    Only an object column with mixed contents is looked at cell by cell (``infer_dtype`` runs in C),
    so a column of strings or numbers costs one pass of pandas' type inference.
    """
    column = frame[name]
    if column.dtype != object or pd.api.types.infer_dtype(column, skipna=True) in _PLAIN_KINDS:
        return
    for position, value in enumerate(column.array):
        if _is_container(value):
            count = sum(1 for v in column.array if _is_container(v))
            shown = repr(value)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise InputError(
                f"The {what}'s {role} column {str(name)!r} holds a {type(value).__name__} in row "
                f"{row_label(frame.index[position])} ({shown}){f' and {count - 1} other rows' if count > 1 else ''}; "
                f"each cell of it must be one value. Keep one value per row (e.g. frame.explode({str(name)!r}) "
                "for one row per element), or fix the rows that were built wrongly."
            )


#: no per-query value, count or statistic rankviz computes reaches 2**53: a bigger number in a result table is a
#: damaged cell (its sums would lose units or overflow to inf), refused like an infinity
LARGEST_VALUE = 2.0**53


def _cell_problem(value, missing_ok: bool, whole: bool) -> str | None:
    """What is wrong with one cell of a number column (for a message), or None when it is a usable number."""
    if is_missing(value):
        return None if missing_ok else f"{shown(value)} (a missing value)"
    if not is_real(value):
        return not_a_number(value, fix=False)
    x = float(value)
    if not np.isfinite(x):
        return f"{shown(value)} (not finite)"
    if abs(x) > LARGEST_VALUE:
        return f"{shown(value)} (beyond 2**53, larger than any value rankviz computes)"
    if whole and x != np.floor(x):
        return f"{shown(value)} (not a whole number)"
    return None


def check_number_cells(
    frame: pd.DataFrame,
    names,
    what: str,
    *,
    missing_ok=(),
    whole=(),
    fix: str = "",
    missing_fix: str | None = None,
    row_name=None,
) -> None:
    """Refuse a cell of a number column that is not one finite number, naming its row, its column and the fix.

    This is the one check of the number columns of a table rankviz made (a per-query table, the tables of
    ``failure_slices``, ``changes`` and ``bootstrap(by=...)``) that a user may have edited since: a list in a
    cell, a number as text (``'0.5'``, ``'0,5'``), a bool, a missing value, an infinity or a number beyond
    :data:`LARGEST_VALUE` is refused; so is a fraction in a ``whole`` column (counts). Columns in
    ``missing_ok`` may hold missing values (an interval that was not computed). A column of a numeric dtype
    costs one vectorized pass; only object, text and bool columns are looked at cell by cell. ``row_name``
    (position -> text, e.g. "system 'a', query 'q3'") names the row when given.
    """
    for name in names:
        column = frame[name]
        missing_allowed, is_whole = name in missing_ok, name in whole
        numeric = pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype)
        if numeric:
            x = column.to_numpy(dtype=np.float64, na_value=np.nan)
            with np.errstate(invalid="ignore"):
                bad = ~np.isfinite(x) | (np.abs(x) > LARGEST_VALUE)
                if is_whole:
                    bad |= np.isfinite(x) & (x != np.floor(x))
            if missing_allowed:
                bad &= ~np.isnan(x)
            positions = np.flatnonzero(bad)
        else:
            positions = np.array(
                [i for i, v in enumerate(column.array) if _cell_problem(v, missing_allowed, is_whole) is not None],
                dtype=np.intp,
            )
        if not len(positions):
            continue
        first = positions[0]
        value = column.array[first]
        problem = _cell_problem(value, missing_allowed, is_whole) or shown(value)
        others = f" (and {len(positions) - 1} other rows)" if len(positions) > 1 else ""
        kind = "one finite whole number" if is_whole else "one finite number"
        remedy = missing_fix if missing_fix is not None and is_missing(value) else fix
        raise InputError(
            f"{what}: column {str(name)!r} holds {problem} in "
            f"{row_name(first) if row_name is not None else f'row {row_label(frame.index[first])}'}{others}; each cell "
            f"of it must be {kind}{' or missing' if missing_allowed else ''}. "
            + (remedy or "Fix those rows, or make the table again with rankviz rather than editing it.")
        )


def check_key_cells(frame: pd.DataFrame, name, role: str, what: str) -> None:
    """Refuse a container or a missing value (None, NaN, NA) in a key column (ids, systems, datasets), naming rows.

    A missing key would be dropped by a groupby or read as the text 'nan': either changes a number in silence.
    """
    check_scalar_cells(frame, name, role, what)
    missing = frame[name].isna().to_numpy()
    if missing.any():
        rows = ", ".join(row_label(label) for label in frame.index[missing][:5])
        more = f" (and {int(missing.sum()) - 5} more)" if missing.sum() > 5 else ""
        raise InputError(
            f"The {what}'s {role} column {str(name)!r} is missing in row(s) {rows}{more}; every row needs its "
            f"{role}. Fill it in, or drop those rows (e.g. frame.dropna(subset=[{str(name)!r}]))."
        )


def _single(columns: list, name: str, role: str, what: str, frame: pd.DataFrame | None = None) -> str:
    """``name``, unless the frame has several columns of that name (``frame[name]`` would be a frame).

    A one-value role (:data:`SCALAR_ROLES`) is also checked for containers in its cells.
    """
    count = sum(1 for c in columns if c == name)
    if count > 1:
        raise ColumnError(
            f"The {what} has {count} columns named {name!r} (the {role} column); keep one, e.g. "
            f"frame.loc[:, ~frame.columns.duplicated()], or rename the others."
        )
    if frame is not None and role in SCALAR_ROLES:
        check_scalar_cells(frame, name, role, what)
    return name


@overload
def find_column(
    frame: pd.DataFrame, role: str, given: str | None = None, *, required: Literal[True], what: str
) -> str: ...
@overload
def find_column(
    frame: pd.DataFrame, role: str, given: str | None = None, *, required: bool, what: str
) -> str | None: ...
def find_column(frame: pd.DataFrame, role: str, given: str | None = None, *, required: bool, what: str) -> str | None:
    """The column of ``frame`` that plays ``role``: the ``given`` name, else the one alias present.

    Raises
    ------
    ColumnError
        When the given column is absent, when several aliases are present, or when a
        required role has no column; the message lists the columns and names the fix.
    """
    columns = list(frame.columns)
    if given is not None:
        if given not in columns:
            raise ColumnError(
                f"The column {given!r} given as columns={{{role!r}: {given!r}}} is not in the {what}; "
                f"its columns are {columns_text(columns)}."
            )
        return _single(columns, given, role, what, frame)
    for names in (ALIASES[role], FALLBACK_ALIASES.get(role, ())):
        found = [name for name in names if name in columns]
        if len(found) > 1:
            ids = [name for name in found if name not in TEXT_COLUMNS] if role == "query" else found
            raise ColumnError(
                f"The {what} has several columns that could be the {role} column: {', '.join(map(repr, found))}. "
                f"Say which one with columns={{{role!r}: {(ids or found)[0]!r}}}"
                + (" (a query id, not its text)." if role == "query" else ".")
            )
        if found:
            return _single(columns, found[0], role, what, frame)
    if required:
        looked = ", ".join(repr(a) for a in ALIASES[role] + FALLBACK_ALIASES.get(role, ()))
        raise ColumnError(
            f"The {what} has no {role} column: looked for {looked}; its columns are {columns_text(columns)}. "
            f"Name it with columns={{{role!r}: 'your_column'}}."
        )
    return None
