"""The ``df.rank`` namespace, which is also pandas' own ``DataFrame.rank``.

``import rankviz`` makes ``df.rank`` an object that

* calls through to pandas: ``df.rank(method="min")`` is exactly ``DataFrame.rank``;
* carries rankviz's evaluation methods: ``df.rank.mrr(k=10, qrels=qrels)``.

A plain ``register_dataframe_accessor("rank")`` is not enough: it warns about
overriding an existing attribute and replaces the class attribute, so
``pd.DataFrame.rank(df)`` and ``df.pipe(pd.DataFrame.rank)`` would break. Instead a
small descriptor returns pandas' function on class access and a callable accessor
on instance access. The same accessor is registered through pandas' public API as
``df.rankviz``. Accessors hold nothing but the frame (pandas 3 rebuilds them on
every access); every method delegates to a module function.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.util
import inspect
import sys
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

import pandas as pd

from . import evaluation
from ._core.methods import BoundMethod, bound_method
from .evaluation import tie_effects as ties

__all__ = ["RankAccessor", "PolarsNamespace", "register"]


P = ParamSpec("P")
R = TypeVar("R")


def _delegate(func: Callable[Concatenate[Any, P], R], name: str | None = None) -> BoundMethod[P, R]:
    return bound_method(func, "RankAccessor", name)


class _LazyMethod:
    """Like :func:`bound_method` for a presentation-layer function, imported on first use (no ipywidgets at import)."""

    def __init__(self, module: str, attribute: str):
        self.module, self.attribute = module, attribute

    def target(self):
        return getattr(importlib.import_module(self.module), self.attribute)

    @property
    def __signature__(self):
        return inspect.signature(self.target())

    @property
    def __doc__(self):  # type: ignore[override]  # read-only on purpose: the target's docstring, looked up lazily
        return self.target().__doc__

    def __call__(self, frame, *args, **kwargs):
        return self.target()(frame, *args, **kwargs)

    def __get__(self, obj, cls=None):
        return self if obj is None else functools.partial(self, obj._frame)


class _RunMethods:
    """The evaluation methods shared by ``df.rank`` (pandas) and ``pl_df.rankviz`` (polars); ``self._frame`` is the run."""

    _frame: Any = None  # the run: a pandas or a polars DataFrame

    # evaluation: each method is the module function with this frame -----------
    mrr = _delegate(evaluation.mrr)
    ndcg = _delegate(evaluation.ndcg)
    map = _delegate(evaluation.mean_average_precision, "map")
    recall = _delegate(evaluation.recall)
    precision = _delegate(evaluation.precision)
    hit_rate = _delegate(evaluation.hit_rate)
    r_precision = _delegate(evaluation.r_precision)
    evaluate = _delegate(evaluation.evaluate)
    first_relevant_rank = _delegate(evaluation.first_relevant_rank)
    summary = _delegate(evaluation.summary)
    bootstrap = _delegate(evaluation.bootstrap)
    compare = _delegate(evaluation.compare)
    changes = _delegate(evaluation.changes)
    table = _delegate(evaluation.table)
    ties = _delegate(ties.tie_report, "ties")
    explore = _LazyMethod("rankviz.widgets", "explore")

    @property
    def plot(self):
        """Plots of this run (``df.rank.plot.failures(...)``); see :mod:`rankviz.plots`."""
        return importlib.import_module("rankviz.plots").RunPlots(self._frame)


class RankAccessor(_RunMethods):
    """rankviz's evaluation methods on a DataFrame, callable as pandas' ``DataFrame.rank``.

    ``df.rank(...)`` computes pandas' numerical data ranks (see
    :meth:`pandas.DataFrame.rank`); ``df.rank.<method>(...)`` evaluates the frame as
    a ranked run. The same namespace is available as ``df.rankviz``. Every method
    is the module function of the same name called with this frame (same
    signature, same docstring); plots live under ``df.rank.plot``.

    Examples
    --------
    >>> import pandas as pd, rankviz
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> run.rank.mrr(k=10, qrels=qrels)
    0.5
    >>> run.rank(method="min")["score"].tolist()
    [2.0, 1.0]
    """

    def __init__(self, frame: pd.DataFrame):
        if not isinstance(frame, pd.DataFrame):
            raise AttributeError("The rankviz accessor works on DataFrames only.")
        self._frame = frame

    # pandas' DataFrame.rank -------------------------------------------------
    def __call__(self, *args, **kwargs):
        return _PANDAS_RANK(self._frame, *args, **kwargs)

    @property
    def __signature__(self):
        parameters = list(inspect.signature(_PANDAS_RANK).parameters.values())[1:]
        return inspect.Signature(parameters)


class PolarsNamespace(_RunMethods):
    """``pl_df.rankviz``: rankviz's evaluation methods on a polars DataFrame or LazyFrame.

    Registered by ``import rankviz`` when polars is installed. Each method is the module
    function of the same name called with this frame (see :class:`RankAccessor`), which
    reads it through Arrow once (``rankviz._core.frames``): the numbers are those of the
    same run as a pandas frame.

    Examples
    --------
    >>> import polars as pl, rankviz
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> run.rankviz.mrr(k=10, qrels=qrels)
    0.5
    """

    def __init__(self, frame):
        self._frame = frame


class _RankDescriptor:
    """``DataFrame.rank``: pandas' function on the class, a :class:`RankAccessor` on instances."""

    _rankviz = True

    def __init__(self, pandas_rank):
        self.pandas_rank = pandas_rank
        functools.update_wrapper(cast(Any, self), pandas_rank)  # a descriptor, not a function: its name and doc

    def __get__(self, obj, cls=None):
        if obj is None:
            return self.pandas_rank
        return RankAccessor(obj)


#: pandas' own DataFrame.rank (register() finds it again when the descriptor is already installed)
_PANDAS_RANK: Callable[..., Any] = pd.DataFrame.rank


def register() -> None:
    """Install ``df.rank`` (keeping pandas' ``DataFrame.rank``) and ``df.rankviz``. Idempotent."""
    global _PANDAS_RANK
    current = pd.DataFrame.__dict__.get("rank")
    if current is not None and getattr(current, "_rankviz", False):
        _PANDAS_RANK = current.pandas_rank  # already installed (e.g. by a reload)
    else:
        _PANDAS_RANK = pd.DataFrame.rank
        # replacing a pandas method is the point here
        pd.DataFrame.rank = _RankDescriptor(_PANDAS_RANK)  # type: ignore[method-assign, misc, assignment]
    if "rankviz" not in pd.DataFrame.__dict__:
        pd.api.extensions.register_dataframe_accessor("rankviz")(RankAccessor)
        # pandas lists a frame's registered accessors in dir() of its GroupBy objects too
        # (GroupBy._dir_additions delegates to the frame), although ``df.groupby(...).rankviz``
        # does not exist; that also breaks pandas' own test_tab_completion. ``dir(df)`` still
        # shows ``rankviz``: it is a class attribute.
        accessors = getattr(pd.DataFrame, "_accessors", None)
        if isinstance(accessors, set):
            accessors.discard("rankviz")
    _register_polars()


def _register_polars() -> None:
    """``pl_df.rankviz`` on polars DataFrames and LazyFrames, when polars is installed (else nothing). Idempotent.

    ``import rankviz`` never imports polars (about 0.1 s): when polars is already imported the
    namespace is registered now, otherwise when polars is first imported, by a finder on
    ``sys.meta_path`` that lets polars' own module run, registers, and takes itself off the path.
    The namespace goes through polars' public API (``polars.api.register_dataframe_namespace``) and
    registering changes nothing else.
    """
    if "polars" in sys.modules:  # imported (or None: marked unimportable)
        if sys.modules["polars"] is not None:
            _add_polars_namespace(sys.modules["polars"])
    elif not any(isinstance(finder, _PolarsFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PolarsFinder())


def _add_polars_namespace(polars) -> None:
    for frame_type, register_namespace in (
        (polars.DataFrame, polars.api.register_dataframe_namespace),
        (polars.LazyFrame, polars.api.register_lazyframe_namespace),
    ):
        if "rankviz" not in frame_type.__dict__:  # already ours (a reload), or another package's: left alone
            register_namespace("rankviz")(PolarsNamespace)


class _PolarsFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: on the first ``import polars`` it takes itself off ``sys.meta_path`` and hands out
    polars' own spec with a loader that registers the namespace once polars' module has run."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "polars":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _ThenRegister(spec.loader)
        return spec


class _ThenRegister(importlib.abc.Loader):
    """Another loader, which registers the polars namespace after it ran the module (its other methods are the
    loader's own)."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        try:
            _add_polars_namespace(module)
        except Exception:  # noqa: BLE001 -- a polars without this API: no namespace, and polars still imports
            pass

    def __getattr__(self, name):
        return getattr(self._loader, name)
