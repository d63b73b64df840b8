"""Exception and warning classes.

Every error rankviz raises for bad input is a subclass of a built-in exception
(``ValueError`` for data problems, ``TypeError`` for wrong argument types), so
``except ValueError`` keeps working for callers who do not know about rankviz.
"""

from __future__ import annotations

import inspect
import os
import warnings

__all__ = [
    "warn",
    "RankvizError",
    "InputError",
    "ColumnError",
    "DuplicateError",
    "TrecFormatError",
    "UnknownMeasureError",
    "UnknownOptionError",
    "RankvizWarning",
    "IdTypeWarning",
    "UnmatchedIdsWarning",
    "DuplicateTextWarning",
    "ClosedWorldWarning",
    "DegenerateDataWarning",
    "TiesWarning",
    "QueryIdWarning",
    "UnannotatedWarning",
    "ModelLabelsWarning",
]


class RankvizError(Exception):
    """Base class of every exception raised by rankviz."""


class InputError(RankvizError, ValueError):
    """The data handed in cannot be evaluated as it is (a bad value, shape or type)."""


class ColumnError(InputError):
    """A needed column is missing, or several columns could play the same role."""


class DuplicateError(InputError):
    """The same (query, document) pair appears more than once in a run or in qrels."""


class TrecFormatError(InputError):
    """A TREC run or qrels file has a line that cannot be read."""


class UnknownMeasureError(InputError):
    """A measure name that rankviz does not know."""


class UnknownOptionError(RankvizError, TypeError):
    """A keyword argument that the function does not take (the message names the closest one)."""


class RankvizWarning(UserWarning):
    """Base class of every warning emitted by rankviz."""


class IdTypeWarning(RankvizWarning):
    """Run and qrels ids had different dtypes and were compared as strings."""


class UnmatchedIdsWarning(RankvizWarning):
    """No retrieved document is judged at all: the run's and the qrels' doc ids probably differ in form."""


class DuplicateTextWarning(RankvizWarning):
    """A query id was given two different texts (the first is kept)."""


class ClosedWorldWarning(RankvizWarning):
    """A recall-like measure was computed without qrels: its denominator comes from the rows given."""


class DegenerateDataWarning(RankvizWarning):
    """A statistic was computed on data where it is undefined or unreliable."""


class TiesWarning(RankvizWarning):
    """Score ties can move a reported measure."""


class QueryIdWarning(RankvizWarning):
    """No query-id column was found: the rows (or the index labels) were taken as the query ids."""


class UnannotatedWarning(RankvizWarning):
    """Queries with no gold ids at all (NaN, an empty list) were left out of the evaluation."""


class ModelLabelsWarning(RankvizWarning):
    """A model graded most of a system's judged top k, and no label is a person's to check it against."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def warn(message: str, category: type[Warning]) -> None:
    """Emit a warning attributed to the first caller outside rankviz (like pandas' find_stack_level)."""
    frame = inspect.currentframe()
    level = 0
    try:
        while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
            frame = frame.f_back
            level += 1
    finally:
        del frame
    warnings.warn(message, category, stacklevel=max(level, 1) + 1)
