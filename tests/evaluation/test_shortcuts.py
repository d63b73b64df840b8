"""The seven shortcuts are declared once (rankviz.evaluation.shortcuts.SHORTCUTS); every copy agrees with it."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import rankviz
from rankviz.accessor import RankAccessor
from rankviz.evaluation import shortcuts
from rankviz.evaluation.shortcuts import SHORTCUTS, shortcut_measure, shortcut_parameters

NAMES = [s.name for s in SHORTCUTS]


def test_the_declaration_names_the_seven():
    assert NAMES == ["mrr", "ndcg", "mean_average_precision", "recall", "precision", "hit_rate", "r_precision"]


@pytest.mark.parametrize("s", SHORTCUTS, ids=NAMES)
def test_each_typed_function_agrees_with_the_declaration(s):
    function = getattr(shortcuts, s.name)
    params = inspect.signature(function).parameters
    own = [p for p in params.values() if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name in ("k", "gain")]
    expected = shortcut_parameters(s.name)
    assert [(p.name, p.default) for p in own] == [(p.name, p.default) for p in expected]
    assert list(params)[:2] == ["run", "qrels"]
    # the same function everywhere: the package, rankviz.evaluation and df.rank (under its method name)
    assert getattr(rankviz, s.name) is function and getattr(rankviz.evaluation, s.name) is function
    assert s.name in rankviz.__all__ and s.name in rankviz.evaluation.__all__ and s.name in shortcuts.__all__
    method = inspect.signature(getattr(RankAccessor, s.method_name))
    assert list(method.parameters)[1:] == list(params)[1:]
    assert function.__doc__.splitlines()[0].rstrip(".").startswith(s.summary.split(" (")[0].rstrip("."))


@pytest.mark.parametrize("s", SHORTCUTS, ids=NAMES)
def test_each_function_documents_its_parameters(s):
    doc = getattr(shortcuts, s.name).__doc__
    for section in ("Parameters", "Returns", "Examples"):
        assert f"\n    {section}\n    ---" in doc, (s.name, section)
    for p in shortcut_parameters(s.name):
        assert f"\n    {p.name} : " in doc, (s.name, p.name)


def test_the_measures_are_the_ones_each_function_always_evaluated():
    assert [repr(shortcut_measure(n, 10)) for n in NAMES[:-1]] == [
        "RR@10",
        "nDCG@10",
        "AP@10",
        "R@10",
        "P@10",
        "Success@10",
    ]
    assert repr(shortcut_measure("r_precision")) == "Rprec"
    assert shortcut_measure("ndcg", 5, "exponential") == shortcut_measure("ndcg", 5, "exp")
    assert shortcut_measure("mrr") == shortcut_measure("mrr", None)
    with pytest.raises(rankviz.InputError, match="'k' parameter of precision"):
        shortcut_measure("precision", None)
    with pytest.raises(rankviz.InputError, match="'gain' parameter of ndcg"):
        shortcut_measure("ndcg", 0, "log")  # the gain is checked before the cutoff, as ndcg always did
    with pytest.raises(rankviz.InputError, match="'k' parameter of map"):
        rankviz.mean_average_precision(pd.DataFrame({"query": ["a"], "relevance": [[True]]}), k=0)


def test_the_dask_accessor_and_functions_are_made_from_the_declaration():
    dask = pytest.importorskip("rankviz.dask", reason="needs the dask extra")
    for s in SHORTCUTS:
        function = getattr(dask, s.name)
        assert s.name in dask.__all__
        dask_params = [n for n in inspect.signature(function).parameters if n != "progress"]
        assert dask_params == list(inspect.signature(getattr(rankviz, s.name)).parameters), s.name  # and progress
        assert "progress" in inspect.signature(getattr(dask.DaskRankAccessor, s.method_name)).parameters
