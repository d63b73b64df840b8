"""The seven shortcut measures, declared once: ``mrr``, ``ndcg``, ``mean_average_precision``, ``recall``,
``precision``, ``hit_rate`` and ``r_precision``.

Each is one measure's mean: a float for a run without a system column, a Series indexed by ``system``
otherwise. :data:`SHORTCUTS` says, for each, its measure family, whether it takes a cutoff ``k`` (optional,
required or none) and what it computes. From it come the measure a call evaluates
(:func:`shortcut_measure`), the Dask accessor's methods (:mod:`rankviz.dask`), and the checks that the
typed module functions (:mod:`rankviz.evaluation.api`, written out so that static tools see their
parameters) and the ``df.rank`` methods agree with it (``tests/evaluation/test_shortcuts.py``).
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Literal, Unpack

import pandas as pd

from .._core.checks import check_choice, check_cutoff
from .._core.options import EVAL, EvalKeywords, EvalOptions, with_options
from ..measures import Measure, aggregate
from .pipeline import evaluated_cells, system_cells, system_names, with_rel

__all__ = [
    "mrr",
    "ndcg",
    "mean_average_precision",
    "recall",
    "precision",
    "hit_rate",
    "r_precision",
    "Shortcut",
    "SHORTCUTS",
    "shortcut",
    "shortcut_measure",
    "shortcut_parameters",
]


@dataclasses.dataclass(frozen=True)
class Shortcut:
    """One shortcut measure.

    ``name`` is the module function's; ``method`` the ``df.rank`` method's and the name error messages
    give (``map`` for ``mean_average_precision``); ``family`` the measure family; ``cutoff`` whether ``k``
    is ``'optional'`` (None: the whole list), ``'required'`` or ``'none'`` (not taken); ``summary`` what
    it computes, the first line of its docstring.
    """

    name: str
    family: str
    cutoff: Literal["optional", "required", "none"]
    summary: str
    method: str = ""

    @property
    def method_name(self) -> str:
        return self.method or self.name


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("mrr", "RR", "optional", "Mean reciprocal rank at cutoff ``k`` (``RR@k``; ``k=None``: ``recip_rank``)."),
    Shortcut("ndcg", "nDCG", "optional", "Mean nDCG at cutoff ``k`` (``nDCG@k``; ``k=None``: trec_eval's ``ndcg``)."),
    Shortcut(
        "mean_average_precision",
        "AP",
        "optional",
        "Mean average precision (``AP``; with ``k``, ``AP@k`` = trec_eval ``map_cut``).",
        method="map",
    ),
    Shortcut("recall", "R", "required", "Mean recall at ``k`` (``R@k``): relevant items in the top ``k`` over R."),
    Shortcut("precision", "P", "required", "Mean precision at ``k`` (``P@k``): relevant items in the top ``k`` / k."),
    Shortcut("hit_rate", "Success", "required", "Share of queries with a relevant item in the top ``k``."),
    Shortcut("r_precision", "Rprec", "none", "Mean R-precision (``Rprec``): relevant items in the top R over R."),
)

_BY_NAME = {s.name: s for s in SHORTCUTS}

#: the choices of ndcg's gain= ('exponential' is 'exp')
GAINS = ("linear", "exp", "exponential")


def shortcut(name: str) -> Shortcut:
    """The shortcut of a module function's name."""
    return _BY_NAME[name]


def shortcut_measure(name: str, k: int | None = None, gain: str = "linear") -> Measure:
    """The measure a shortcut call evaluates, with its cutoff and (``ndcg``) gain checked."""
    s = _BY_NAME[name]
    if s.cutoff == "none":
        return Measure(s.family)
    if s.family == "nDCG":  # the gain is checked first, then the cutoff
        gain = check_choice(gain, "gain", s.method_name, GAINS)
        cutoff = check_cutoff(k, s.method_name, allow_none=True)
        return Measure(s.family, cutoff=cutoff)(gain="exp" if gain == "exponential" else gain)
    return Measure(s.family, cutoff=check_cutoff(k, s.method_name, allow_none=s.cutoff == "optional"))


def shortcut_parameters(name: str) -> list[inspect.Parameter]:
    """A shortcut's own keyword-only parameters (``k``; ``gain`` for ``ndcg``), as its signature shows them."""
    s = _BY_NAME[name]
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = []
    if s.cutoff != "none":
        default = None if s.cutoff == "optional" else inspect.Parameter.empty
        params.append(
            inspect.Parameter("k", keyword, default=default, annotation="int | None" if default is None else "int")
        )
    if s.family == "nDCG":
        params.append(inspect.Parameter("gain", keyword, default="linear", annotation="str"))
    return params


def _single(run, measure: Measure, qrels, options: EvalOptions, caller: str) -> float | pd.Series:
    """One measure aggregated as its family declares: a float for one run, else a Series per system (NaN if no cell)."""
    (measure,) = with_rel([measure], options.rel)
    j, keep, values = evaluated_cells(run, [measure], qrels, options, caller)
    means = [aggregate(values[measure.name][cells], measure.aggregate) for _, cells in system_cells(j, keep)]
    if j.systems is None:
        return float(means[0])
    return pd.Series(means, index=pd.Index(list(system_names(j)), name="system", dtype="str"), name=measure.name)


# ----------------------------------------------------------------------------- the functions
# Written out (not made from SHORTCUTS at run time) so that static tools see each signature;
# tests/evaluation/test_shortcuts.py checks that they agree with the declaration.


@with_options(EVAL)
def mrr(options: EvalOptions, run, qrels=None, *, k: int | None = None, **_: Unpack[EvalKeywords]) -> float | pd.Series:
    """Mean reciprocal rank at cutoff ``k`` (``RR@k``; ``k=None`` is trec_eval's ``recip_rank``).

    Parameters
    ----------
    run : DataFrame or dict
        Any input shape, as for :func:`evaluate`.
    qrels : DataFrame, path or dict, optional
        Judgements, as for :func:`evaluate`.
    k : int, optional
        The cutoff; None reads the whole list.

    Returns
    -------
    float or Series
        A float for a run without a system column (one run); for a run with systems,
        one float per system in a Series indexed by ``system`` and named by the
        measure (``"RR@10"``). Every shortcut (:func:`ndcg`, :func:`recall`, ...) returns the same way.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> table = pd.DataFrame({"query": ["a", "b", "c", "d"],
    ...                       "relevance": [[True], [False, False, True], [False, True], [False]]})
    >>> round(rankviz.mrr(table), 4)
    0.4583
    >>> two = pd.concat([table.assign(system="x"), table.assign(system="y")])
    >>> rankviz.mrr(two, k=1).to_dict()  # a Series indexed by system
    {'x': 0.25, 'y': 0.25}
    """
    return _single(run, shortcut_measure("mrr", k), qrels, options, "mrr")


@with_options(EVAL)
def ndcg(
    options: EvalOptions, run, qrels=None, *, k: int | None = None, gain: str = "linear", **_: Unpack[EvalKeywords]
) -> float | pd.Series:
    """Mean nDCG at cutoff ``k`` (``nDCG@k``; ``k=None`` is trec_eval's ``ndcg``).

    Parameters
    ----------
    run, qrels
        As for :func:`mrr`.
    k : int, optional
        The cutoff; None reads the whole list.
    gain : {'linear', 'exp', 'exponential'}, default 'linear'
        ``'linear'`` (trec_eval) uses the grade as gain; ``'exp'`` (``'exponential'``) uses 2**grade - 1.
        The ideal DCG comes from all judged grades of the query in the qrels.

    Returns
    -------
    float or Series
        As :func:`mrr` returns.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["b"], "relevance": [1]})
    >>> round(rankviz.ndcg(run, qrels, k=10), 4)
    0.6309
    """
    return _single(run, shortcut_measure("ndcg", k, gain), qrels, options, "ndcg")


@with_options(EVAL)
def mean_average_precision(
    options: EvalOptions, run, qrels=None, *, k: int | None = None, **_: Unpack[EvalKeywords]
) -> float | pd.Series:
    """Mean average precision (``AP``; with ``k``, ``AP@k`` = trec_eval ``map_cut``); ``df.rank.map``.

    The denominator is R, the number of relevant items in the qrels.

    Parameters
    ----------
    run, qrels
        As for :func:`mrr`.
    k : int, optional
        The cutoff; None reads the whole list.

    Returns
    -------
    float or Series
        As :func:`mrr` returns.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> round(rankviz.mean_average_precision(run, qrels), 4)  # (1/1 + 2/3) / 2
    0.8333
    """
    return _single(run, shortcut_measure("mean_average_precision", k), qrels, options, "map")


@with_options(EVAL)
def recall(options: EvalOptions, run, qrels=None, *, k: int, **_: Unpack[EvalKeywords]) -> float | pd.Series:
    """Mean recall at ``k`` (``R@k``): relevant items in the top ``k`` over all relevant items.

    Parameters
    ----------
    run, qrels
        As for :func:`mrr`.
    k : int
        The cutoff (required).

    Returns
    -------
    float or Series
        As :func:`mrr` returns.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> rankviz.recall(run, qrels, k=2)
    0.5
    """
    return _single(run, shortcut_measure("recall", k), qrels, options, "recall")


@with_options(EVAL)
def precision(options: EvalOptions, run, qrels=None, *, k: int, **_: Unpack[EvalKeywords]) -> float | pd.Series:
    """Mean precision at ``k`` (``P@k``): relevant items in the top ``k`` divided by ``k``.

    Parameters
    ----------
    run, qrels
        As for :func:`mrr`.
    k : int
        The cutoff (required).

    Returns
    -------
    float or Series
        As :func:`mrr` returns.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> rankviz.precision(run, qrels, k=2)
    0.5
    """
    return _single(run, shortcut_measure("precision", k), qrels, options, "precision")


@with_options(EVAL)
def hit_rate(options: EvalOptions, run, qrels=None, *, k: int, **_: Unpack[EvalKeywords]) -> float | pd.Series:
    """Share of queries with a relevant item in the top ``k`` (``Success@k``).

    Parameters
    ----------
    run, qrels
        As for :func:`mrr`.
    k : int
        The cutoff (required).

    Returns
    -------
    float or Series
        As :func:`mrr` returns.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "x"], "relevance": [1, 1]})
    >>> rankviz.hit_rate(run, qrels, k=2)
    0.5
    """
    return _single(run, shortcut_measure("hit_rate", k), qrels, options, "hit_rate")


@with_options(EVAL)
def r_precision(options: EvalOptions, run, qrels=None, **_: Unpack[EvalKeywords]) -> float | pd.Series:
    """Mean R-precision (``Rprec``): relevant items in the top R divided by R, R the query's relevant items.

    Parameters
    ----------
    run, qrels
        As for :func:`mrr`.

    Returns
    -------
    float or Series
        As :func:`mrr` returns.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> rankviz.r_precision(run, qrels)  # one of the top 2
    0.5
    """
    return _single(run, shortcut_measure("r_precision"), qrels, options, "r_precision")
