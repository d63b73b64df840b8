"""Static tools see the public signatures: a mypy probe, and the agreement of the typed keywords with the options.

The probe is a small file of calls, type-checked with mypy's API against the package in this checkout: the
correct calls pass, and a misspelt option, a wrong option type or an unknown keyword of a ``df.rank`` method
are type errors. ``df.rank`` itself is pandas' ``DataFrame.rank`` for static tools (pandas-stubs type it as
the method, and a stub cannot add an attribute to it), so the probe reaches the methods through
``rankviz.accessor.RankAccessor(df)``, which is the object ``df.rank`` is at run time.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import sys
import typing
from pathlib import Path

import pytest

import rankviz
from rankviz._core import options as eval_options
from rankviz.stats import options as stats_options

ROOT = Path(__file__).resolve().parents[1]

GOOD = """
import pandas as pd
import rankviz
from rankviz.accessor import RankAccessor

run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
value: float | pd.Series = rankviz.mrr(run, qrels, k=10, rel=2, depth=3, ties="expected")
table: pd.DataFrame = rankviz.evaluate(run, ["RR@10"], qrels, per_query=True, columns={"query": "qid"})
rankviz.ndcg(run, qrels, k=5, gain="exp", missing="drop")
rankviz.recall(run, qrels, k=100, judged_only=True)
rankviz.bootstrap(run, "RR@10", qrels, n_resamples=100, rng=0, depth=10)
rankviz.compare(run, "bm25", "RR@10", qrels, method="t", rel=1)
accessor = RankAccessor(run)
accessor.bootstrap("RR@10", qrels, rng=0, confidence_level=0.9)
accessor.mrr(qrels, k=10, depth=5)
"""

BAD = {
    "rankviz.mrr(run, depht=3)": 'Unexpected keyword argument "depht"',
    'rankviz.mrr(run, missing="zeros")': 'Argument "missing" to "mrr" has incompatible type',
    "RankAccessor(run).bootstrap(measure=1)": 'Unexpected keyword argument "measure"',
    'rankviz.evaluate(run, ["RR@10"], rng=0)': 'Unexpected keyword argument "rng"',
    "rankviz.recall(run, qrels)": 'Missing named argument "k"',
}


def _mypy(tmp_path: Path, body: str) -> tuple[str, int]:
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (pip install 'rankviz[lint]')")
    probe = tmp_path / "probe.py"
    probe.write_text(body)
    # the checkout's rankviz, not an installed copy: mypy finds it on MYPYPATH
    os.environ["MYPYPATH"] = str(ROOT)
    try:
        out, err, status = api.run(
            [
                str(probe),
                "--cache-dir",
                str(tmp_path / ".mypy_cache"),
                "--python-version",
                f"{sys.version_info.major}.{sys.version_info.minor}",
                "--ignore-missing-imports",
                "--follow-imports=silent",
                "--no-error-summary",
                "--hide-error-context",
            ]
        )
    finally:
        del os.environ["MYPYPATH"]
    return out + err, status


@pytest.mark.slow
def test_mypy_sees_public_signatures(tmp_path):
    bad_lines = "\n".join(BAD)
    out, status = _mypy(tmp_path, GOOD + bad_lines + "\n")
    errors = [line for line in out.splitlines() if ": error:" in line]
    first_bad = GOOD.count("\n") + 1
    good_errors = [line for line in errors if int(line.split(":")[1]) < first_bad]
    assert good_errors == [], out
    for number, (call, message) in enumerate(BAD.items(), start=first_bad):
        on_line = [line for line in errors if int(line.split(":")[1]) == number]
        assert any(message in line for line in on_line), f"{call}: expected {message!r}, mypy said {on_line or out}"
    assert status == 1


def _kwargs_keys(func) -> set[str] | None:
    """The keywords a decorated function declares for static tools in ``**_: Unpack[...]`` (None: no ``**_``)."""
    if "_" not in inspect.signature(func.__wrapped__).parameters:
        return None
    hints = typing.get_type_hints(func.__wrapped__, include_extras=True)
    (typed_dict,) = typing.get_args(hints["_"])
    return set(typed_dict.__annotations__)


def test_typed_keywords_agree_with_the_options_each_function_offers():
    import rankviz.dask  # noqa: F401  (its functions register when imported)
    import rankviz.plots  # noqa: F401
    import rankviz.widgets  # noqa: F401

    assert len(eval_options.DECORATED) >= 40, "the public functions use with_options"
    for func in eval_options.DECORATED:
        signature = inspect.signature(func)
        own = inspect.signature(func.__wrapped__).parameters
        offered = {name for name, p in signature.parameters.items() if name not in own}
        typed = _kwargs_keys(func)
        if typed is None:
            # a plot method: its **kwargs (matplotlib's) take the options too, untyped; or a Dask shortcut, made
            # from the shortcuts' declaration at run time (static tools know no Dask accessor anyway)
            plot = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in own.values())
            assert plot or func.__module__ == "rankviz.dask.evaluation", func.__qualname__
        else:
            assert typed == offered, func.__qualname__
        for name in offered:  # every option is keyword-only, after the function's own parameters
            assert signature.parameters[name].kind is inspect.Parameter.KEYWORD_ONLY


def test_typed_keywords_agree_with_the_option_declarations():
    assert set(eval_options.EvalKeywords.__annotations__) == set(eval_options.option_names())
    assert set(stats_options.StatsKeywords.__annotations__) == set(stats_options.OPTION_NAMES)
    defaults = eval_options.EvalOptions()
    for p in eval_options.EVAL.parameters():  # each default is the dataclass's (columns: None, read as no override)
        assert p.default == (None if p.name == "columns" else getattr(defaults, p.name)), p.name


def test_typed_choices_are_the_declared_choices():
    hints = typing.get_type_hints(eval_options.EvalKeywords)
    for field in dataclasses.fields(eval_options.EvalOptions):
        choices = field.metadata["choices"]
        if choices is None or field.name == "judged_only":  # a bool is typed bool
            continue
        hint = hints[field.name]
        arms = [hint] if typing.get_origin(hint) is typing.Literal else typing.get_args(hint)
        literals = set()
        for arm in arms:  # Literal[...] | None
            literals |= set(typing.get_args(arm)) if typing.get_origin(arm) is typing.Literal else {None}
        assert literals == set(choices), field.name


def test_decorated_functions_keep_their_runtime_behaviour():
    run = rankviz.datasets.load_example()[0]
    with pytest.raises(TypeError, match="'depht'.*Did you mean 'depth'"):
        rankviz.mrr(run, depht=3)
