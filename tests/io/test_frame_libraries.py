"""polars, pyarrow and Hugging Face ``datasets`` frames: the same numbers as pandas, through Arrow, ids not copied."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pytest

import rankviz
from rankviz._core.frames import as_pandas
from tests.conftest import IN_CI, ROOT, shared_path


def _library(name: str):
    """The module; skipped when it is absent, except under CI (the [frames] extra is part of [test])."""
    try:
        return __import__(name)
    except ImportError:
        if IN_CI:
            pytest.fail(f"{name} is not installed; CI installs it with the [test] extra", pytrace=False)
        pytest.skip(f"{name} is not installed (pip install 'rankviz[frames]')")


MEASURES = ["RR@10", "nDCG@10", "AP", "R@100", "P@5"]


def _converters():
    pl = _library("polars")
    datasets = _library("datasets")
    return {
        "pyarrow": lambda t: t,
        "polars": pl.from_arrow,
        "polars-lazy": lambda t: pl.from_arrow(t).lazy(),
        "datasets": datasets.Dataset,
    }


@pytest.fixture(scope="module")
def covid():
    covid_dir = shared_path("trec_covid_round1")
    runs = rankviz.read_runs(sorted((covid_dir / "runs").iterdir())[:4])
    qrels = rankviz.read_qrels(covid_dir / "qrels-rnd1.txt")
    return runs, qrels


@pytest.mark.parametrize("library", ["pyarrow", "polars", "polars-lazy", "datasets"])
def test_per_query_tables_equal_pandas_on_trec_covid(covid, library):
    runs, qrels = covid
    convert = _converters()[library]
    expected = rankviz.evaluate(runs, MEASURES, qrels=qrels, per_query=True)
    run_table = pa.Table.from_pandas(runs, preserve_index=False)
    qrels_table = pa.Table.from_pandas(qrels, preserve_index=False)
    got = rankviz.evaluate(convert(run_table), MEASURES, qrels=convert(qrels_table), per_query=True)
    pd.testing.assert_frame_equal(got, expected)
    assert len(got) > 100  # every judged query of four systems, not an empty agreement
    # a pandas run with foreign qrels, and the other way round
    pd.testing.assert_frame_equal(
        rankviz.evaluate(runs, MEASURES, qrels=convert(qrels_table), per_query=True), expected
    )
    mrr = rankviz.mrr(convert(run_table), qrels=qrels, k=10)
    pd.testing.assert_series_equal(mrr, rankviz.mrr(runs, qrels=qrels, k=10))


def test_dict_of_polars_frames_and_bootstrap(covid):
    pl = _library("polars")
    runs, qrels = covid
    names = list(runs["system"].cat.categories[:2])
    frames = {n: runs[runs["system"] == n].drop(columns="system") for n in names}
    expected = rankviz.evaluate(frames, ["nDCG@10"], qrels=qrels, per_query=True)
    as_polars = {n: pl.from_pandas(f) for n, f in frames.items()}
    pd.testing.assert_frame_equal(
        rankviz.evaluate(as_polars, ["nDCG@10"], qrels=pl.from_pandas(qrels), per_query=True), expected
    )
    a = rankviz.bootstrap(pl.from_pandas(runs), ["nDCG@10"], qrels=qrels, n_resamples=200, rng=1).to_frame()
    b = rankviz.bootstrap(runs, ["nDCG@10"], qrels=qrels, n_resamples=200, rng=1).to_frame()
    pd.testing.assert_frame_equal(a, b)


def test_per_query_table_and_write_run_take_polars(covid, tmp_path):
    pl = _library("polars")
    runs, qrels = covid
    table = rankviz.evaluate(runs, ["nDCG@10"], qrels=qrels, per_query=True).reset_index()
    systems = list(runs["system"].cat.categories[:2])
    expected = rankviz.stats.paired_differences(table, system=systems[1], baseline=systems[0], measure="nDCG@10")
    got = rankviz.stats.paired_differences(
        pl.from_pandas(table), system=systems[1], baseline=systems[0], measure="nDCG@10"
    )
    pd.testing.assert_frame_equal(got, expected)
    one = runs[runs["system"] == systems[0]]
    rankviz.write_run(pl.from_pandas(one), tmp_path / "a.txt")
    rankviz.write_run(one, tmp_path / "b.txt")
    assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()


def test_per_query_lists_shape_from_polars():
    pl = _library("polars")
    frame = pd.DataFrame(
        {"question": ["a", "b"], "retrieved": [["d1", "d2", "d3"], ["d4", "d5"]], "relevant": [["d2"], ["d9"]]}
    )
    expected = rankviz.evaluate(frame, ["RR@10", "R@10"], per_query=True)
    got = rankviz.evaluate(pl.from_pandas(frame), ["RR@10", "R@10"], per_query=True)
    pd.testing.assert_frame_equal(got, expected)
    assert got["RR@10"].tolist() == [0.5, 0.0]


@pytest.mark.parametrize("library", ["pyarrow", "datasets"])
def test_id_columns_share_the_arrow_buffers(library):
    convert = _converters()[library]
    table = pa.table({"query_id": ["q1", "q2", "q3"], "doc_id": ["d1", "d2", "d3"], "score": [1.0, 2.0, 3.0]})
    frame = as_pandas(convert(table))
    if not isinstance(frame["doc_id"].dtype, pd.StringDtype) or frame["doc_id"].dtype.storage != "pyarrow":
        pytest.skip("pandas < 3 holds strings as Python objects: the conversion copies them")
    for column in ("query_id", "doc_id"):
        source = table.column(column).chunk(0).buffers()[2]
        kept = pa.array(frame[column].array).buffers()[2]
        assert kept.address == source.address  # the same characters, not a copy
    assert frame["score"].tolist() == [1.0, 2.0, 3.0]


def test_polars_string_views_and_integer_ids():
    pl = _library("polars")
    run = pl.DataFrame({"query_id": [1, 1, 2], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": [1, 2], "doc_id": ["b", "c"], "relevance": [1, 2]})
    expected = rankviz.evaluate(run.to_pandas(), ["RR"], qrels=qrels.to_pandas(), per_query=True)
    got = rankviz.evaluate(run, ["RR"], qrels=qrels, per_query=True)
    pd.testing.assert_frame_equal(got, expected)
    assert got["RR"].tolist() == [0.5, 1.0]
    # a column (a polars Series, an Arrow array) is not a table: it is left for the caller's checks
    assert as_pandas(run["doc_id"]) is run["doc_id"] or isinstance(as_pandas(run["doc_id"]), pl.Series)
    assert isinstance(as_pandas(pa.array(["a"])), pa.Array)


def test_dataset_dict_and_iterable_dataset_are_refused_with_the_fix():
    datasets = _library("datasets")
    data = datasets.Dataset.from_dict({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(rankviz.InputError, match=r"dataset_dict\['test'\]"):
        rankviz.mrr(datasets.DatasetDict({"test": data}), qrels={"q1": {"d1": 1}}, k=10)
    with pytest.raises(rankviz.InputError, match="IterableDataset"):
        rankviz.mrr(data.to_iterable_dataset(), qrels={"q1": {"d1": 1}}, k=10)


def test_selected_dataset_rows_are_the_selected_ones():
    datasets = _library("datasets")
    data = datasets.Dataset.from_dict(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3"], "score": [3.0, 2, 1]}
    )
    picked = data.select([1, 2])  # an indices mapping over the same Arrow table
    assert as_pandas(picked)["doc_id"].tolist() == ["d2", "d3"]
    with pytest.warns(rankviz.UnmatchedIdsWarning):  # d1, the one judged document, is not among the picked rows
        assert rankviz.mrr(picked, qrels={"q1": {"d1": 1}}, k=10) == 0.0


def test_polars_namespace_gives_the_pandas_numbers(covid):
    pl = _library("polars")
    runs, qrels = covid
    frame = pl.from_pandas(runs)
    pd.testing.assert_series_equal(frame.rankviz.mrr(k=10, qrels=qrels), runs.rank.mrr(k=10, qrels=qrels))
    pd.testing.assert_frame_equal(
        frame.lazy().rankviz.evaluate(["nDCG@10"], qrels=pl.from_pandas(qrels), per_query=True),
        runs.rank.evaluate(["nDCG@10"], qrels=qrels, per_query=True),
    )


def _python(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_polars_namespace_is_registered_by_import_rankviz_only():
    _library("polars")
    out = _python(
        "import polars as pl; before = hasattr(pl.DataFrame, 'rankviz'); import rankviz; "
        "print(before, hasattr(pl.DataFrame, 'rankviz'), hasattr(pl.LazyFrame, 'rankviz'))"
    )
    assert out == "False True True"
    # rankviz without polars importable: import works and registers nothing
    assert _python("import sys; sys.modules['polars'] = None; import rankviz; print(rankviz.mrr.__name__)") == "mrr"
