"""What every statistic over per-query tables shares: reading the table, corrections, small tests.

:func:`wide_by_system` reads a per-query table (refusing
repeated (system, query) rows and missing values, see :func:`check_cells`); Wilson
intervals, Holm and Benjamini-Hochberg corrections and the t-test live here so
that ``stats`` (intervals) and ``paired`` (comparisons) use one copy.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import pandas as pd

from .._core.checks import check_probability, is_real, not_a_number, shown
from .._core.columns import SINGLE_SYSTEM, check_number_cells, is_missing, row_label
from .._errors import DegenerateDataWarning, InputError, warn
from ..io.per_query import PerQueryTable
from .results import ConfidenceInterval

__all__ = [
    "SMALL_N",
    "wilson_interval",
    "holm",
    "benjamini_hochberg",
    "holm_kept_nan",
    "benjamini_hochberg_kept_nan",
    "t_quantile",
    "finite_scores",
    "t_test_p",
    "check_cells",
    "wide_by_system",
    "warn_notes",
    "seed_of",
]

#: below this many queries every bootstrap interval under-covers (a note says so)
SMALL_N = 20


def _count(value, name: str, caller: str = "wilson_interval") -> int:
    """A count given as an int, or as a float or Decimal that equals one (7.0, Decimal('7')); else refused."""
    ok = is_real(value)
    if ok:
        try:
            ok = math.isfinite(value) and value >= 0 and int(value) == value
        except (TypeError, ValueError, ArithmeticError):
            ok = False
    if not ok:
        raise InputError(
            f"The {name!r} parameter of {caller} must be a count: an int >= 0 (or a number equal to one, such as "
            f"7.0). Got {shown(value) + ' instead' if is_real(value) else not_a_number(value)}."
        )
    return int(value)


def wilson_interval(successes: int, n: int, confidence_level: float = 0.95) -> ConfidenceInterval:
    """Wilson score interval of a binomial proportion (Wilson 1927); (nan, nan) when n = 0.

    ``successes`` and ``n`` are counts (ints, or numbers equal to ints); NaN, a fraction, a
    negative count or ``successes > n`` is refused with an :class:`~rankviz.InputError`.

    Parameters
    ----------
    successes : int
        The number of successes.
    n : int
        The number of trials.
    confidence_level : float, default 0.95
        The interval's level, in (0, 1).

    Returns
    -------
    ConfidenceInterval
        ``low`` and ``high``, within [0, 1].

    Examples
    --------
    >>> from rankviz.stats import wilson_interval
    >>> interval = wilson_interval(8, 10)
    >>> round(interval.low, 3), round(interval.high, 3)
    (0.49, 0.943)
    """
    from scipy.special import ndtri

    successes, n = _count(successes, "successes"), _count(n, "n")
    if successes > n:
        raise InputError(
            f"wilson_interval: 'successes' ({successes}) is more than 'n' ({n}); successes count among n trials."
        )
    confidence_level = check_probability(confidence_level, "confidence_level", "wilson_interval")
    if n == 0:
        return ConfidenceInterval(math.nan, math.nan)
    z = float(ndtri(0.5 + confidence_level / 2))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return ConfidenceInterval(max(0.0, centre - half), min(1.0, centre + half))


def _adjusted(p_values, step) -> np.ndarray:
    """Apply a step-wise adjustment to the non-NaN p-values (sorted ascending), keep NaNs, cap at 1."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    values = p[ok]
    if len(values):
        order = np.argsort(values, kind="mergesort")
        result = np.empty(len(values))
        result[order] = np.minimum(step(values[order]), 1.0)
        out[ok] = result
    return out


def holm_kept_nan(p_values) -> np.ndarray:
    """Holm's adjustment of the statistics' own p-values: a NaN (an untestable pair) is left out and kept."""
    return _adjusted(p_values, lambda v: np.maximum.accumulate((len(v) - np.arange(len(v))) * v))


def benjamini_hochberg_kept_nan(p_values) -> np.ndarray:
    """Benjamini-Hochberg's adjustment of the statistics' own p-values: a NaN is left out and kept."""
    return _adjusted(p_values, lambda v: np.minimum.accumulate((v * len(v) / np.arange(1, len(v) + 1))[::-1])[::-1])


def _p_values(p_values, caller: str) -> np.ndarray:
    """The caller's p-values as floats in [0, 1]; a missing, non-numeric or out-of-range one is refused by position."""
    values = p_values.tolist() if isinstance(p_values, (np.ndarray, pd.Series, pd.Index)) else p_values
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise InputError(f"{caller}: 'p_values' must be a list or array of p-values. Got {shown(p_values)} instead.")
    values = list(values) if not isinstance(values, pd.api.extensions.ExtensionArray) else values.tolist()
    out = np.empty(len(values))
    for i, v in enumerate(values):
        ok = is_real(v)
        x = float(v) if ok else math.nan
        if not ok or not 0 <= x <= 1:
            what = "missing" if is_missing(v) else (shown(v) if ok else not_a_number(v))
            raise InputError(
                f"{caller}: p-value {i} is {what}; every p-value must be a number in [0, 1]. Drop the untested "
                "hypotheses before adjusting (an adjustment over fewer tests is another adjustment), or compute "
                "the missing p-value."
            )
        out[i] = x
    return out


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error).

    Every p-value must be a number in [0, 1]: a NaN, None or a text is refused with an
    :class:`~rankviz.InputError` naming its position (adjusting over the others would
    silently change the family).

    Parameters
    ----------
    p_values : sequence of float
        The p-values of a family of tests.

    Returns
    -------
    ndarray
        The adjusted p-values, in the order given (capped at 1).

    Examples
    --------
    >>> from rankviz.stats import holm
    >>> holm([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    return holm_kept_nan(_p_values(p_values, "holm"))


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate).

    Every p-value must be a number in [0, 1]: a NaN, None or a text is refused with an
    :class:`~rankviz.InputError` naming its position.

    Parameters
    ----------
    p_values : sequence of float
        The p-values of a family of tests.

    Returns
    -------
    ndarray
        The adjusted p-values, in the order given (capped at 1).

    Examples
    --------
    >>> from rankviz.stats import benjamini_hochberg
    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    return benjamini_hochberg_kept_nan(_p_values(p_values, "benjamini_hochberg"))


def finite_scores(scores, caller: str) -> np.ndarray:
    """``scores`` (queries x systems [x measures]) as floats; a non-number, an empty array or a NaN/inf is refused."""
    try:
        given = np.asarray(scores) if not isinstance(scores, np.ndarray) else scores
    except (TypeError, ValueError) as exc:
        raise InputError(f"{caller}: 'scores' must be an array of numbers (queries x systems); {exc}.") from None
    if given.dtype.kind not in "iuf":  # an object, text or bool array: each cell must be a number, not read as one
        for where, value in np.ndenumerate(given):
            if not is_real(value) and not is_missing(value):
                raise InputError(
                    f"{caller}: 'scores' must be an array of numbers (queries x systems); the cell at "
                    f"{tuple(int(i) for i in where)} (query, system[, measure]) is {not_a_number(value)}."
                )
    try:
        x = np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{caller}: 'scores' must be an array of numbers (queries x systems); {exc}.") from None
    if x.ndim not in (2, 3) or not x.size:
        raise InputError(
            f"{caller}: 'scores' must be a non-empty array of shape (queries, systems) or (queries, systems, "
            f"measures). Got shape {x.shape}."
        )
    bad = ~np.isfinite(x)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InputError(
            f"{caller}: 'scores' holds {int(bad.sum())} missing or infinite value(s), the first at {where} "
            "(query, system[, measure]); a permutation test needs every system's score on every query. Drop "
            "the queries with a missing score (or score them) first."
        )
    return x


def t_quantile(q: float, df: int) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, q))


def t_test_p(d: np.ndarray) -> float:
    """Two-sided one-sample t-test p-value of mean(d) = 0 (as scipy.stats.ttest_1samp)."""
    from scipy.special import stdtr

    n = len(d)
    t = d.mean() / (d.std(ddof=1) / math.sqrt(n))
    return float(2 * stdtr(n - 1, -abs(t)))


def check_cells(table: PerQueryTable, names: list[str], caller: str) -> None:
    """Refuse what would silently change a statistic: a (system, query) twice, or a missing or infinite value."""
    frame = table.frame
    query = cast(str, table.query)  # the statistics resolve their tables with require_query=True
    keys = [c for c in (table.system, table.query) if c is not None]
    repeated = frame.duplicated(keys, keep=False).to_numpy()
    if repeated.any():
        row = frame[repeated].iloc[0]
        who = f"system {str(row[table.system])!r}, " if table.system is not None else ""
        raise InputError(
            f"{caller}: {who}query {str(row[query])!r} has {int((frame[keys] == row[keys]).all(axis=1).sum())} rows "
            f"in the per-query table ({int(repeated.sum())} rows repeat a (system, query) pair); each pair must appear "
            f"once, or the query would count several times. Drop the repeats, e.g. table.drop_duplicates({keys!r})."
        )

    # a list, a text, a bool or a number beyond any measure's (1e308) in a cell: refused by row and column; a
    # missing or infinite value below, with the system and query it belongs to
    def row_name(i: int) -> str:
        who = f"system {str(frame[table.system].iloc[i])!r}, " if table.system is not None else ""
        return f"{who}query {str(frame[query].iloc[i])!r} (row {i})"

    check_number_cells(frame, names, f"{caller} (per-query table)", missing_ok=names, row_name=row_name)
    for name in names:
        values = frame[name].to_numpy(dtype=np.float64, na_value=np.nan)
        bad = ~np.isfinite(values)
        if bad.any():
            row = frame[bad].iloc[0]
            who = f"system {str(row[table.system])!r}, " if table.system is not None else ""
            raise InputError(
                f"{caller}: {who}query {str(row[query])!r} has no finite value in column {name!r} "
                f"({row_label(frame[name][bad].iloc[0])}; {int(bad.sum())} such rows). Statistics need a value for every "
                "query: evaluate with missing='zero' (trec_eval -c), or drop those queries for every system."
            )


def wide_by_system(table: PerQueryTable, names: list[str], caller: str) -> dict[str, pd.DataFrame]:
    """{system: DataFrame indexed by query id with the measure columns}; one system "run" without a system column.

    Checks the cells first (see :func:`check_cells`).
    """
    check_cells(table, names, caller)
    if table.system is None:
        return {SINGLE_SYSTEM: table.frame.set_index(table.query)[names]}
    return {
        str(name): part.set_index(table.query)[names] for name, part in table.frame.groupby(table.system, sort=False)
    }


def warn_notes(notes: list[str], caller: str) -> None:
    """One warning per call, listing every distinct note."""
    unique = list(dict.fromkeys(notes))
    if unique:
        warn(f"{caller}: " + "; ".join(unique) + ".", DegenerateDataWarning)


def seed_of(rng) -> int | None:
    return int(rng) if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) else None
