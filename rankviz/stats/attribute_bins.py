"""The segments of one query attribute: its values, or quantile bins of a numeric one; one label per segment.

Both ``by=`` slices (:mod:`rankviz.evaluation.slices`) and :func:`rankviz.failure_slices`
cut an attribute into segments here, by one rule:

- a string attribute stays a string: ``"01"``, ``"1"`` and ``"1.0"`` are three segments
  (the rule of ids), whatever they look like;
- every distinct value is its own segment, unless the attribute is numeric (ints,
  floats, ``Decimal``; not booleans) with more than :data:`MAX_LEVELS` distinct values,
  when it is cut into quantile bins;
- bins have order-statistic edges (the value at each quantile of the values, without
  interpolation: ``numpy.quantile(method="inverted_cdf")``), compared in the values' own
  type, so integers bin exactly (``2**53`` and ``2**53 + 1``, 64-bit hashes) and ``±inf``
  is a value like any other; repeated edges are merged;
- labels are distinct whenever values are: numbers are printed with 4 significant
  digits, widened until no two values share a label (integers in full); values of
  different types that print alike are shown by ``repr``; a value printed as
  :data:`MISSING` is too;
- a missing value (None, NaN, NA) is the segment :data:`MISSING`; a value that is not
  a scalar (a list, an array, a dict) is refused, naming the attribute.
"""

from __future__ import annotations

import decimal
import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._core.checks import check_int, shown
from .._errors import InputError

__all__ = [
    "MAX_LEVELS",
    "MAX_BINS",
    "MISSING",
    "AttributeSegments",
    "attribute_segments",
    "check_bins",
    "check_scalars",
    "number_texts",
]

#: a numeric attribute with more distinct values than this is cut into quantile bins
MAX_LEVELS = 10
#: the most quantile bins an attribute may be cut into
MAX_BINS = 1000
#: the segment of a query without a value
MISSING = "(missing)"

_NOT_SCALAR = (list, tuple, set, frozenset, dict, np.ndarray, pd.Series, pd.DataFrame, pd.Index)


@dataclass(frozen=True)
class AttributeSegments:
    """The segment of every row (an ordered categorical of labels, :data:`MISSING` last) and whether they are bins."""

    labels: pd.Categorical
    binned: bool


def check_bins(bins, caller: str) -> int:
    """``bins`` as an int in [2, :data:`MAX_BINS`], or an InputError naming it."""
    bins = check_int(bins, "bins", caller, low=2)
    if bins > MAX_BINS:
        raise InputError(
            f"The 'bins' parameter of {caller} must be an int in the range [2, {MAX_BINS}]. Got {bins} instead: "
            "a bin per value is what an attribute with few values gets anyway; pass bins=4 (quartiles) or 10 (deciles)."
        )
    return bins


def _is_number(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (numbers.Real, decimal.Decimal))


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


def _one_text(value, digits: int) -> str:
    value = _python(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value.is_integer() and abs(value) < 2**63:
            return str(int(value))
        return f"{value:.{digits}g}"
    return str(value)


def number_texts(values) -> list[str]:
    """Texts of distinct numbers, distinct whenever the numbers are: 4 significant digits, widened as needed.

    Examples
    --------
    >>> number_texts([12345.6, 12345.7]), number_texts([0.5, 3.0, 2**53 + 1])
    (['12345.6', '12345.7'], ['0.5', '3', '9007199254740993'])
    """
    values = list(values)
    for digits in (4, 6, 8, 10, 12, 15, 17):
        texts = [_one_text(v, digits) for v in values]
        if len(set(texts)) == len(texts):
            return texts
    return _distinct([repr(_python(v)) for v in values])


def _distinct(texts: list[str]) -> list[str]:
    """The texts, with a number appended to any that repeats (the last resort of distinct labels)."""
    seen: dict[str, int] = {}
    out = []
    for text in texts:
        seen[text] = seen.get(text, 0) + 1
        out.append(text if seen[text] == 1 else f"{text} #{seen[text]}")
    return out


def _value_texts(values: list) -> list[str]:
    """Labels of distinct non-numeric values: ``str``, or ``repr`` when two print alike or one prints as MISSING."""
    texts = [str(v) for v in values]
    if len(set(texts)) == len(texts) and MISSING not in texts:
        return texts
    return _distinct([repr(_python(v)) for v in values])


def check_scalars(values: pd.Series, name: str, caller: str, ids=None) -> None:
    """Refuse, naming the attribute and the query (or row), a value that is a list, an array, a dict or a frame."""
    if values.dtype != object:
        return
    for i, value in enumerate(values.tolist()):
        if isinstance(value, _NOT_SCALAR):
            where = f"query {str(ids[i])!r}" if ids is not None else f"row {i}"
            raise InputError(
                f"{caller}: the attribute {name!r} has a {type(value).__name__} as the value of {where} "
                f"({shown(value)}); a segment "
                "is one value per query (a string, a number, a boolean). Join the items into one string, or give each "
                "item its own attribute (a list of by= attributes)."
            )


def _missing(values: pd.Series) -> np.ndarray:
    missing = values.isna().to_numpy(dtype=bool, copy=True)
    if values.dtype == object:  # Decimal('NaN') and other values unequal to themselves
        missing |= np.array([v != v if _is_number(v) else False for v in values.tolist()], dtype=bool)
    return missing


def _numbers(present: pd.Series):
    """The present values as an exact array (int64, uint64, float64, or object of Python numbers), or None."""
    kind = getattr(present.dtype, "kind", "O")
    if isinstance(present.dtype, pd.CategoricalDtype):
        return None
    if kind in "iuf":
        array = present.to_numpy()
        return array.astype(np.float64) if kind == "f" else array
    if kind != "O":
        return None
    items = [_python(v) for v in present.tolist()]
    if not items or not all(_is_number(v) for v in items):
        return None
    if all(isinstance(v, int) for v in items):
        for dtype in (np.int64, np.uint64):
            try:
                return np.array(items, dtype=dtype)
            except OverflowError:
                continue
    elif all(isinstance(v, float) or (isinstance(v, int) and abs(v) <= 2**53) for v in items):
        return np.array(items, dtype=np.float64)
    return np.array(items, dtype=object)  # big ints with floats, Decimal, Fraction: compared exactly by Python


def _codes(array: np.ndarray) -> tuple[list, np.ndarray]:
    """(sorted distinct values, the index of each element's value among them), exactly."""
    if array.dtype != object:
        unique, inverse = np.unique(array, return_inverse=True)
        return unique.tolist(), inverse.reshape(-1)
    first: dict = {}
    for v in array:
        first.setdefault(v, v)  # 1, 1.0 and Decimal(1) are one value (equal, with equal hashes)
    distinct: list = sorted(first)
    position = {v: i for i, v in enumerate(distinct)}
    return distinct, np.array([position[v] for v in array], dtype=np.int64)


def _bins(inverse: np.ndarray, kept: np.ndarray, n_distinct: int, bins: int) -> np.ndarray:
    """The bin of each distinct value: order-statistic edges of the kept values, repeated edges merged."""
    counts = np.bincount(inverse[kept], minlength=n_distinct)
    cumulative = np.cumsum(counts)
    total = int(cumulative[-1])
    targets = -(-np.arange(1, bins, dtype=np.int64) * total // bins)  # ceil(i * N / bins), the i-th quantile's rank
    edges = np.unique(np.searchsorted(cumulative, targets, side="left"))
    last = int(np.flatnonzero(counts)[-1])
    edges = edges[edges < last]  # a bin above the largest kept value would be empty
    return np.searchsorted(edges, np.arange(n_distinct), side="left")


def attribute_segments(values, keep=None, *, bins: int = 4, name: str = "attribute", caller: str = "by",
                       ids=None) -> AttributeSegments:  # fmt: skip
    """The segment of every row of one attribute (see the module docstring for the rule).

    Parameters
    ----------
    values : Series or array-like
        The attribute's value of each row.
    keep : boolean array, optional
        The rows whose values set the bins' edges and labels (default: every row);
        the other rows are placed in the bins of those.
    bins : int, default 4
        Quantile bins of a numeric attribute with more than :data:`MAX_LEVELS` distinct kept values.
    name, caller : str
        The attribute and the function, for messages.
    ids : array-like, optional
        The query of each row, for messages.

    Returns
    -------
    AttributeSegments

    Examples
    --------
    >>> cut = attribute_segments(pd.Series(["01", "1", "1.0", None]))
    >>> list(cut.labels), cut.binned
    (['01', '1', '1.0', '(missing)'], False)
    >>> hashes = pd.Series([2**60 + i for i in range(12)])
    >>> list(attribute_segments(hashes, bins=2).labels.categories)
    ['[1152921504606846976, 1152921504606846981]', '[1152921504606846982, 1152921504606846987]']
    """
    values = (
        pd.Series(values).reset_index(drop=True) if not isinstance(values, pd.Series) else values.reset_index(drop=True)
    )
    keep = np.ones(len(values), dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    check_scalars(values, name, caller, ids)
    missing = _missing(values)
    labels = np.full(len(values), MISSING, dtype=object)
    tail = [MISSING] if missing.any() else []
    if isinstance(values.dtype, pd.CategoricalDtype):
        categories = list(values.cat.categories)
        texts = _value_texts(categories)
        codes = values.cat.codes.to_numpy()
        labels[~missing] = np.asarray(texts, dtype=object)[codes[~missing]]
        return AttributeSegments(pd.Categorical(labels, categories=texts + tail, ordered=True), False)
    present = values[~missing]
    array = _numbers(present)
    if array is None:
        inverse, uniques = pd.factorize(present.to_numpy(dtype=object), use_na_sentinel=False)
        texts = _value_texts(list(uniques))
        order = _value_order(list(uniques), texts)
        labels[~missing] = np.asarray(texts, dtype=object)[inverse]
        return AttributeSegments(pd.Categorical(labels, categories=[texts[i] for i in order] + tail, ordered=True),
                                 False)  # fmt: skip
    distinct, inverse = _codes(array)
    kept = keep[~missing]
    if len(np.unique(inverse[kept])) <= MAX_LEVELS:
        texts = number_texts(distinct)
        labels[~missing] = np.asarray(texts, dtype=object)[inverse]
        return AttributeSegments(pd.Categorical(labels, categories=texts + tail, ordered=True), False)
    where = _bins(inverse, kept, len(distinct), bins)
    n_bins = int(where.max()) + 1
    low, high = [], []
    for b in range(n_bins):
        inside = np.flatnonzero((where == b) & (np.bincount(inverse[kept], minlength=len(distinct)) > 0))
        low.append(distinct[inside[0]])
        high.append(distinct[inside[-1]])
    ends = sorted(set(low) | set(high))
    text = dict(zip(ends, number_texts(ends)))
    names = [f"[{text[lo]}, {text[hi]}]" for lo, hi in zip(low, high)]
    labels[~missing] = np.asarray(names, dtype=object)[where[inverse]]
    return AttributeSegments(pd.Categorical(labels, categories=names + tail, ordered=True), True)


def _value_order(uniques: list, texts: list[str]) -> list[int]:
    """The distinct values in their natural order (by their labels when they cannot be compared)."""
    try:
        return sorted(range(len(uniques)), key=lambda i: uniques[i])
    except TypeError:
        return sorted(range(len(uniques)), key=lambda i: texts[i])
