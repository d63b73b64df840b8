"""df.rank is both pandas' DataFrame.rank and rankviz's namespace; df.rankviz is the same namespace."""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz.accessor import RankAccessor

PANDAS_RANK = pd.core.generic.NDFrame.rank


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"a": rng.integers(0, 5, 20), "b": rng.random(20), "g": list("xy") * 10})


def test_instance_call_is_pandas_rank(frame):
    pd.testing.assert_frame_equal(frame.rank(method="min"), PANDAS_RANK(frame, method="min"))
    pd.testing.assert_frame_equal(
        frame[["a", "b"]].rank(axis=1, pct=True), PANDAS_RANK(frame[["a", "b"]], axis=1, pct=True)
    )


def test_class_access_is_pandas_function(frame):
    assert pd.DataFrame.rank is PANDAS_RANK
    pd.testing.assert_frame_equal(pd.DataFrame.rank(frame), PANDAS_RANK(frame))
    pd.testing.assert_frame_equal(frame.pipe(pd.DataFrame.rank), PANDAS_RANK(frame))


def test_groupby_and_series_rank_untouched(frame):
    expected = frame.groupby("g")[["a", "b"]].transform(lambda s: PANDAS_RANK(s))
    pd.testing.assert_frame_equal(frame.groupby("g")[["a", "b"]].rank(), expected)
    assert pd.Series.rank is PANDAS_RANK
    pd.testing.assert_series_equal(frame["a"].rank(), PANDAS_RANK(frame["a"]))


def test_signature_and_namespace(frame):
    assert isinstance(frame.rank, RankAccessor)
    params = list(inspect.signature(frame.rank).parameters)
    assert params == list(inspect.signature(PANDAS_RANK).parameters)[1:]
    assert isinstance(frame.rankviz, RankAccessor)
    # pandas 3 rebuilds accessors on every access: nothing is cached or stored
    assert frame.rank is not frame.rank
    assert vars(frame.rank) == {"_frame": frame}
    assert "rankviz" in dir(frame)
    assert "rankviz" not in dir(frame.groupby("g"))


def test_rankviz_accessor_is_same_namespace():
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 1]})
    assert run.rank.mrr(qrels=qrels) == run.rankviz.mrr(qrels=qrels) == 0.75
    assert run.rank.evaluate(["RR", "P@1"], qrels=qrels).equals(rankviz.evaluate(run, ["RR", "P@1"], qrels))


def test_accessor_methods_stay_few():
    public = [name for name in vars(RankAccessor) if not name.startswith("_")]
    assert len(public) <= 17, public  # 17th: changes (issue 24 asks for df.rank.changes)


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_import_has_no_side_effects():
    # Nothing heavy or global: no pyplot, seaborn, ipywidgets; no logging handlers; no warnings.
    assert (
        _run(
            "import sys, warnings, logging; warnings.simplefilter('error'); import rankviz;"
            "print(sorted(m for m in ('matplotlib.pyplot', 'seaborn', 'ipywidgets') if m in sys.modules),"
            " logging.getLogger().handlers, logging.getLogger('rankviz').handlers)"
        )
        == "[] [] []"
    )
    # matplotlib's rcParams are untouched (read without resolving the backend, which would import pyplot).
    assert (
        _run(
            "import matplotlib; raw = lambda: {k: dict.__getitem__(matplotlib.rcParams, k) for k in dict.keys(matplotlib.rcParams)};"
            "before = raw(); import rankviz; print(raw() == before)"
        )
        == "True"
    )


@pytest.mark.slow
def test_pandas_own_rank_and_groupby_api_tests_pass_with_rankviz_imported(tmp_path):
    """The accessor keeps pandas intact (docs/architecture.md, "The accessor"): pandas' own tests still pass."""
    code = (
        "import rankviz, pytest, sys;"
        "sys.exit(pytest.main(['--pyargs', 'pandas.tests.frame.methods.test_rank',"
        " 'pandas.tests.series.methods.test_rank', 'pandas.tests.groupby.test_api',"
        " 'pandas.tests.groupby.methods.test_rank', 'pandas.tests.test_register_accessor',"
        " '-q', '-p', 'no:cacheprovider', '-x']))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=900)
    tail = result.stdout[-2000:]
    assert result.returncode == 0, tail
    assert " passed" in tail and "failed" not in tail
