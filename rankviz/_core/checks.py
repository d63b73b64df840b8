"""Argument checks with one message format.

Every parameter error reads like scikit-learn's: "The 'k' parameter of mrr must be
an int in the range [1, inf) or None. Got 0 instead." Data errors live next to the
code that reads the data.
"""

from __future__ import annotations

import decimal
import difflib
import math
import numbers
from collections.abc import Iterable
from typing import Literal, TypeVar, overload

from .._errors import DuplicateError, InputError

__all__ = [
    "check_cutoff",
    "check_int",
    "check_rel",
    "check_choice",
    "check_probability",
    "repeated_documents",
    "check_real",
    "is_real",
    "not_a_number",
    "shown",
]

_T = TypeVar("_T")


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


@overload
def check_int(value, name: str, caller: str, *, low: int | None = None, allow_none: Literal[False] = False) -> int: ...
@overload
def check_int(value, name: str, caller: str, *, low: int | None = None, allow_none: bool) -> int | None: ...
def check_int(value, name: str, caller: str, *, low: int | None = None, allow_none: bool = False) -> int | None:
    """Return ``value`` as a Python int, or raise naming the parameter and the caller."""
    if value is None and allow_none:
        return None
    if not _is_int(value) or (low is not None and value < low):
        rng = f" in the range [{low}, inf)" if low is not None else ""
        none = " or None" if allow_none else ""
        raise InputError(f"The {name!r} parameter of {caller} must be an int{rng}{none}. Got {shown(value)} instead.")
    return int(value)


def shown(value) -> str:
    """A value as a message shows it: scalars by repr, tables and arrays by their type and size (never whole)."""
    size = getattr(value, "shape", None)
    if size is not None and getattr(value, "ndim", None):
        return f"a {type(value).__module__.split('.')[0]}.{type(value).__name__} of shape {tuple(size)}"
    if isinstance(value, (dict, list, tuple, set)) and len(value) > 5:
        return f"a {type(value).__name__} of {len(value)} items"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@overload
def check_cutoff(k, caller: str, *, allow_none: Literal[False], name: str = "k") -> int: ...
@overload
def check_cutoff(k, caller: str, *, allow_none: bool = True, name: str = "k") -> int | None: ...
def check_cutoff(k, caller: str, *, allow_none: bool = True, name: str = "k") -> int | None:
    """A rank cutoff: an int >= 1, or None for the whole list."""
    return check_int(k, name, caller, low=1, allow_none=allow_none)


def check_rel(value, caller: str, *, name: str = "rel") -> int:
    """A relevance threshold: an int >= 0 (trec_eval ``-l``); negative levels are refused, saying why.

    trec_eval's ``-l -1`` counts every retrieved document that is not in the qrels as
    relevant (its code for "not in the pool" is -1), and ``-l -2`` also those judged
    with a negative grade, while R still counts only grades >= 0; rankviz does not
    reproduce that, and never silently reads a negative level as another one.
    """
    level = check_int(value, name, caller)
    if level < 0:
        raise InputError(
            f"The {name!r} parameter of {caller} must be an int >= 0. Got {level} instead: trec_eval's -l {level} "
            f"counts every retrieved document {'absent from the qrels' if level == -1 else 'without a judgement >= 0'} "
            "as relevant, which rankviz does not reproduce. Pass rel=0 to count every judged document (grade >= 0) "
            "as relevant."
        )
    return level


def check_choice(value, name: str, caller: str, choices: Iterable[_T]) -> _T:
    """``value`` must be one of ``choices``; suggest the closest one when it is a near miss."""
    choices = tuple(choices)
    try:
        if any(value is c or (type(value) is type(c) and value == c) for c in choices):
            return value
    except (TypeError, ValueError):  # an array or a frame given where a choice belongs
        pass
    choices_text = ", ".join(repr(c) for c in choices if c is not None) + (" or None" if None in choices else "")
    hint = ""
    if isinstance(value, str):
        close = difflib.get_close_matches(value, [c for c in choices if isinstance(c, str)], n=1)
        if close:
            hint = f" Did you mean {close[0]!r}?"
    raise InputError(
        f"The {name!r} parameter of {caller} must be one of {choices_text}. Got {shown(value)} instead.{hint}"
    )


def check_probability(value, name: str, caller: str) -> float:
    """A number strictly between 0 and 1 (confidence levels, alphas)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        raise InputError(
            f"The {name!r} parameter of {caller} must be a float in the open interval (0, 1). Got {value!r} instead."
        )
    return float(value)


#: the fix a caller that takes ``duplicates=`` gives for a repeated document
KEEP_FIRST = "pass duplicates='first' to keep the best-ranked row of each pair"


def repeated_documents(
    count: int, examples: list[str], *, what: str = "The run", fix: str = KEEP_FIRST
) -> DuplicateError:
    """The error for a run that retrieves a document twice for one query: the one message of every caller.

    ``examples`` name up to three repeats (``"query 'q1', doc 'd3' in system 'bm25'"``).

    >>> print(repeated_documents(1, ["query 'q1', doc 'd3'"]))
    The run retrieves the same document more than once for a query (1 repeated rows): query 'q1', doc 'd3'. \
trec_eval refuses such runs; pass duplicates='first' to keep the best-ranked row of each pair.
    """
    return DuplicateError(
        f"{what} retrieves the same document more than once for a query ({count} repeated rows): "
        f"{'; '.join(examples[:3])}. trec_eval refuses such runs; {fix}."
    )


def is_real(value) -> bool:
    """True for one real number given as a number: Python, numpy and Decimal numbers; not a bool, a text or NA."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return False
    return isinstance(value, (numbers.Real, decimal.Decimal))


def not_a_number(value, *, fix: bool = True) -> str:
    """What a value that should have been a number is (``'0.5' (a text)``), and how to fix it unless ``fix=False``."""
    missing = value is None or type(value).__name__ in ("NAType", "NaTType")
    missing = missing or (is_real(value) and math.isnan(float(value)))
    if missing:
        kind, remedy = "a missing value", "give a number"
    elif isinstance(value, (str, bytes)):
        kind, remedy = "a text", "give the number itself, e.g. 0.5 rather than '0.5'"
    elif isinstance(value, bool) or type(value).__name__ == "bool_":
        kind, remedy = "a bool", "give the number itself, e.g. 1 rather than True"
    elif is_real(value):
        kind, remedy = "not finite", ""
    else:
        kind, remedy = f"a {type(value).__name__}", "give one number"
    return f"{shown(value)} ({kind})" + (f": {remedy}" if fix and remedy else "")


def check_real(
    value,
    name: str,
    caller: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """One finite real number (numpy scalars and Decimals too) in the given range, as a float; else raise naming it.

    A bool, a text, None, NaN, pd.NA, an infinity or a container is refused with an :class:`InputError`
    that names the parameter, the caller, what was given and the fix: every scalar numeric argument of
    rankviz goes through here (or :func:`check_int`, :func:`check_probability`), so they agree.
    """
    ok = is_real(value)
    x = float(value) if ok else math.nan
    ok = ok and math.isfinite(x)
    in_range = ok and (
        (low is None or (x > low if low_open else x >= low))
        and (high is None or (x < high if high_open else x <= high))
    )
    if not in_range:
        bounds = ""
        if low is not None or high is not None:
            left = ("(" if low_open else "[") + ("-inf" if low is None else f"{low:g}")
            right = ("inf" if high is None else f"{high:g}") + (")" if high_open else "]")
            bounds = f" in the range {left}, {right}"
        got = f"{shown(value)} instead" if ok else not_a_number(value)
        raise InputError(f"The {name!r} parameter of {caller} must be a finite number{bounds}. Got {got}.")
    return x
