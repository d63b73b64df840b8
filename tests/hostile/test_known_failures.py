"""Deterministic repros of the failure classes the hostile harness found, kept as regression tests.

Each test states the promise (a rankviz error naming the argument/row, the unmutated result, no
crash). A class found later is added here first as an ``xfail(strict=True)`` test, with its harness
cases listed in :data:`known_failures.KNOWN_FAILURES`; when the library is fixed the marker and the
entry go, and the test stays.
"""

from __future__ import annotations

import decimal
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz import RankvizError, RankvizWarning

from . import data as D

ROOT = Path(__file__).resolve().parents[2]


def _outcome(call):
    """('error', exc) for a rankviz error, ('warned', result) for a new rankviz warning, ('result', result)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except RankvizError as exc:
            return "error", exc
    if any(issubclass(w.category, RankvizWarning) for w in caught):
        return "warned", result
    return "result", result


def _refused_or_warned(call) -> None:
    kind, _ = _outcome(call)  # a raw exception propagates and fails the test
    assert kind in ("error", "warned"), "accepted in silence"


def test_read_jsonl_null_line_does_not_crash(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('null\n{"query_id": "q1", "retrieved": ["d1"]}\n', encoding="utf-8")
    code = (
        f"import rankviz\ntry:\n    rankviz.read_jsonl({str(log)!r})\nexcept rankviz.RankvizError as exc:\n"
        "    assert 'line 1' in str(exc) and 'JSON object' in str(exc), exc\nelse:\n    raise SystemExit(3)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-300:]}"


@pytest.mark.parametrize("values", [("01", "1"), (2**53, 2**53 + 1), ("1.0", "1"), (0.1, 0.1000001)])
def test_distinct_attribute_values_are_distinct_segments(values):
    by = {q: values[i % 2] for i, q in enumerate(D.QUERIES)}
    table = rankviz.evaluate(D.run_frame(), ["RR@10"], D.qrels_frame(), by=by)
    assert table["segment"].nunique() == 2


@pytest.mark.parametrize("by", ["system", "query_id"])
def test_by_a_key_column_is_sliced_or_refused(by):
    _outcome(lambda: rankviz.evaluate(D.run_frame(), ["RR@10"], D.qrels_frame(), by=by))


def _run_with_list_system():
    run = D.run_frame()
    run["system"] = run["system"].astype(object)
    run.iat[0, 0] = ["A", "A"]
    return run


def test_list_in_run_cell_is_refused_by_evaluate():
    _refused_or_warned(lambda: rankviz.evaluate(_run_with_list_system(), ["nDCG@10"], D.qrels_frame()))


def test_list_in_run_cell_is_refused_by_run_to_dict():
    _refused_or_warned(lambda: rankviz.run_to_dict(_run_with_list_system()))


def _table():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankviz.evaluate(D.run_frame(), ["RR@10", "nDCG@10"], D.qrels_frame(), per_query=True)


def test_list_in_table_cell_is_refused_by_compare():
    table = _table()
    table["system"] = table["system"].astype(object)
    table.iat[0, 0] = ["A", "A"]
    _refused_or_warned(lambda: rankviz.stats.compare(table, baseline="A", measures=["RR@10"], n_resamples=200, rng=0))


def test_missing_system_in_table_is_flagged_by_paired_differences():
    table = _table()
    table["system"] = table["system"].astype(object)
    table.iat[0, 0] = np.nan
    _refused_or_warned(lambda: rankviz.stats.paired_differences(table, system="B", baseline="A", measure="RR@10"))


@pytest.mark.parametrize("name", ["holm", "benjamini_hochberg"])
def test_nan_p_value_is_refused(name):
    _refused_or_warned(lambda: getattr(rankviz.stats, name)([np.nan, 0.04, 0.03, 0.2]))


def test_wilson_interval_takes_or_refuses_decimals():
    _outcome(lambda: rankviz.stats.wilson_interval(decimal.Decimal(7), decimal.Decimal(20)))


def test_weight_grid_refuses_nan():
    _outcome(lambda: rankviz.fusion.weight_grid(float("nan"), 0.25))


@pytest.mark.parametrize("form", ["utf-16", "binary", "gzip"])
def test_label_studio_foreign_file_is_a_rankviz_error(tmp_path, form):
    import gzip

    text = D.dumps(D.label_studio_tasks())
    path = tmp_path / "export.json"
    data = {"utf-16": text.encode("utf-16"), "binary": b"\x89PNG\r\n\x1a\n\x00\x00"}.get(form)
    path.write_bytes(data if data is not None else gzip.compress(text.encode("utf-8")))
    store = rankviz.labels.LabelStore(tmp_path / "labels.sqlite")
    try:
        _outcome(lambda: store.import_label_studio(str(path), grades=D.LABEL_STUDIO_GRADES))
    finally:
        store.close()


def test_label_studio_repeated_key_is_refused(tmp_path):
    tasks = D.label_studio_tasks()
    first = tasks[0]
    tasks[0] = D.Pairs([*first.items(), ("annotations", None)])
    path = tmp_path / "export.json"
    path.write_text(D.dumps(tasks), encoding="utf-8")
    store = rankviz.labels.LabelStore(tmp_path / "labels.sqlite")
    try:
        _refused_or_warned(lambda: store.import_label_studio(str(path), grades=D.LABEL_STUDIO_GRADES))
    finally:
        store.close()


@pytest.mark.parametrize("name", ["changes", "slices"])
def test_empty_tables_in_plots(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "changes":
            data = rankviz.changes(D.run_frame(), D.qrels_frame(), system="B", baseline="A", k=5).iloc[:0]
        else:
            data = rankviz.evaluate(D.run_frame(), ["RR@10"], D.qrels_frame(), by=D.attributes()).iloc[:0]
    with pytest.raises(RankvizError, match="empty"):
        getattr(rankviz.plots, name)(data)


def test_tukey_refuses_nan_scores():
    scores = np.array([[0.5, 0.2, 0.4], [0.9, 0.4, 0.5], [0.3, 0.3, 0.2], [0.8, 0.1, 0.6]])
    scores[0, 0] = np.nan
    _refused_or_warned(lambda: rankviz.stats.tukey_hsd_p(scores, 100, np.random.default_rng(0)))


def test_diff_hurt_queries_keep_ids_apart(tmp_path):
    from .registry import cli

    run, qrels = D.run_frame(), D.qrels_frame()
    long_id = "<script>alert(1)</script>q0"
    rename = {"q1": long_id}
    run["query_id"] = run["query_id"].replace(rename)
    qrels["query_id"] = qrels["query_id"].replace(rename)
    paths = {}
    for name, frame, kind in (("a", run[run.system == "A"], "trec_run"), ("b", run[run.system == "B"], "trec_run")):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_bytes(D.render(D.FileInput(frame, kind)))
    paths["qrels"] = tmp_path / "qrels.txt"
    paths["qrels"].write_bytes(D.render(D.FileInput(qrels, "trec_qrels")))
    code, out, err = cli(["diff", str(paths["qrels"]), str(paths["a"]), str(paths["b"]), "--n-resamples", "200"])
    assert code == 0, err
    lines = [line for line in out.splitlines() if long_id in line]
    assert lines, out
    assert all(f"{long_id} " in line for line in lines), lines


def test_topics_tsv_with_markup_id(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text(
        "<script>alert(1)</script>q0\thow to parse json files\nq2\thow to parse csv files\n", encoding="utf-8"
    )
    topics = rankviz.read_topics(str(path))
    assert list(topics["query_id"]) == ["<script>alert(1)</script>q0", "q2"]


def test_judge_with_missing_query_id(tmp_path):
    pytest.importorskip("ipywidgets")
    todo = D.qrels_frame()[["query_id", "doc_id"]]
    todo["query_id"] = todo["query_id"].astype(object)
    todo.iat[0, 0] = np.nan
    store = rankviz.labels.LabelStore(tmp_path / "labels.sqlite")
    try:
        with pytest.raises(RankvizError, match=r"query column 'query_id' is missing in row\(s\) 0"):
            rankviz.widgets.judge(todo, store, annotator="me", queries=D.queries_frame())
    finally:
        store.close()


def test_p_value_refusals_name_the_position():
    for name in ("holm", "benjamini_hochberg"):
        fn = getattr(rankviz.stats, name)
        for bad in (np.nan, None, "x", 1.5, -0.1):
            with pytest.raises(RankvizError, match=r"p-value 1 is"):
                fn([0.01, bad, 0.03])
        assert fn(np.array([0.01, 0.04, 0.03, 0.2])).tolist() == fn([0.01, 0.04, 0.03, 0.2]).tolist()


def test_wilson_interval_counts():
    clean = rankviz.stats.wilson_interval(7, 20)
    assert rankviz.stats.wilson_interval(decimal.Decimal(7), decimal.Decimal(20)) == clean
    assert rankviz.stats.wilson_interval(np.int64(7), 20.0) == clean
    for successes, n in ((7, float("nan")), (7.5, 20), (-1, 20), (21, 20), ("7", 20)):
        with pytest.raises(RankvizError):
            rankviz.stats.wilson_interval(successes, n)


def test_tukey_and_weight_grid_refuse_damaged_numbers():
    with pytest.raises(RankvizError, match=r"first at \(0, 0\)"):
        rankviz.stats.tukey_hsd_p(np.array([[np.nan, 0.2], [0.9, 0.4]]), 100, np.random.default_rng(0))
    for bad in (float("nan"), 2.5, 0, None):
        with pytest.raises(RankvizError, match="n_systems"):
            rankviz.fusion.weight_grid(bad, 0.25)


_DAMAGED = [pd.NA, None, float("nan"), float("inf"), True, np.bool_(False), "0.5", [0.5]]


@pytest.mark.parametrize("bad", _DAMAGED, ids=repr)
@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("grid", lambda v: rankviz.fusion.weight_grid(3, v)),
        ("n", lambda v: rankviz.stats.wilson_interval(7, v)),
        ("successes", lambda v: rankviz.stats.wilson_interval(v, 20)),
        ("p-value 1", lambda v: rankviz.stats.holm([0.01, v, 0.2])),
        ("p-value 0", lambda v: rankviz.stats.benjamini_hochberg([v, 0.04])),
        ("fraction", lambda v: rankviz.labels.sample_queries(D.QUERIES, v, seed=0)),
        ("'scores'", lambda v: rankviz.stats.tukey_hsd_p(np.array([[v, 0.2], [0.9, 0.4]], dtype=object), 100,
                                                       np.random.default_rng(0))),
        ("scale", lambda v: rankviz.labels.parse_grade("2", (0, 1, v, 3))),
    ],
)  # fmt: skip
def test_damaged_scalar_numbers_are_refused_by_name(name, call, bad):
    """pd.NA, None, NaN, inf, a bool (Python or numpy), a number as text or a list: one rankviz error naming it."""
    with pytest.raises(rankviz.InputError, match=re.escape(name)) as caught:
        call(bad)
    assert "Traceback" not in str(caught.value)


def test_scalar_number_check_says_what_was_given_and_the_fix():
    with pytest.raises(rankviz.InputError, match=r"'grid' parameter of tune .*Got <NA> \(a missing value\)"):
        rankviz.fusion.weight_grid(3, pd.NA)
    with pytest.raises(rankviz.InputError, match=r"Got '0.25' \(a text\): give the number itself"):
        rankviz.fusion.weight_grid(3, "0.25")
    with pytest.raises(rankviz.InputError, match=r"the cell at \(1, 0\) .* is True \(a bool\)"):
        rankviz.stats.tukey_hsd_p(np.array([[0.5, 0.2], [True, 0.4]], dtype=object), 100, np.random.default_rng(0))
    assert rankviz.fusion.weight_grid(2, np.float32(0.5)).tolist() == [[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]


def test_parse_grade_refuses_a_non_text_answer_and_keeps_none_as_empty():
    for bad in (1.5, float("nan"), pd.NA, 2, ["2"]):
        with pytest.raises(rankviz.InputError, match=r"parse_grade: 'text' must be the model's answer as a str"):
            rankviz.labels.parse_grade(bad, (0, 1, 2, 3))
    assert rankviz.labels.parse_grade(None, (0, 1, 2, 3)) == (None, "unparsable answer: empty")
    assert rankviz.labels.parse_grade(" 2", [0, 1, 2, 3]) == (2, None)


def _entry(name):
    from .registry import entry_points

    return next(e for e in entry_points() if e.name == name)


def _damaged_call(name, key, column, value, tmp_path, row=0):
    entry = _entry(name)
    inputs = entry.build()
    holder = inputs[key]
    table = getattr(holder, "table", holder).copy()
    table[column] = table[column].astype(object)
    table.iat[row, table.columns.get_loc(column)] = value
    if hasattr(holder, "table") and not isinstance(holder, pd.DataFrame):
        import copy

        holder = copy.copy(holder)
        object.__setattr__(holder, "table", table)
        inputs[key] = holder
    else:
        inputs[key] = table
    return lambda: entry.call(inputs, tmp_path)


@pytest.mark.parametrize(
    ("name", "key", "column", "value"),
    [
        ("rankviz.stats.compare", "table", "RR@10", 1.348269851146737e308),  # finite, beyond any measure
        ("rankviz.stats.compare", "table", "RR@10", "0.5"),
        ("rankviz.stats.ranks", "table", "nDCG@10", "0,6433"),
        ("rankviz.stats.meta_analysis", "table", "nDCG@10", [0.64, 0.64]),
        ("rankviz.plots.failure_causes", "slices", "q_value", None),
        ("rankviz.plots.failure_causes", "slices", "n", [4, 4]),
        ("rankviz.plots.failure_causes", "slices", "q_value", "1.0"),
        ("rankviz.plots.changes", "moved", "delta", [-0.33, -0.33]),
        ("rankviz.plots.slices", "sliced", "n", float("inf")),
        ("rankviz.plots.slices", "sliced", "n", [4, 4]),
        ("rankviz.plots.slices", "sliced", "mean", "0.63"),
    ],
    ids=repr,
)
def test_damaged_result_table_cell_names_row_and_column(name, key, column, value, tmp_path):
    """A per-query, failure_slices, changes or slices table edited by hand: one rankviz error naming row and column."""
    call = _damaged_call(name, key, column, value, tmp_path)
    pattern = rf"column '{re.escape(column)}' holds .* in (system '[^']*', )?(query '[^']*' \()?row 0\b"
    with pytest.raises(rankviz.InputError, match=pattern):  # a per-query table names the system and query too
        call()


def test_missing_key_in_slices_table_is_named(tmp_path):
    call = _damaged_call("rankviz.plots.slices", "sliced", "measure", float("nan"), tmp_path)
    with pytest.raises(rankviz.InputError, match=r"measure column 'measure' is missing in row\(s\) 0"):
        call()


def test_list_in_any_key_column_names_row_and_column():
    qrels = D.qrels_frame()
    qrels["doc_id"] = qrels["doc_id"].astype(object)
    qrels.iat[3, 1] = ("d1",)
    with pytest.raises(RankvizError, match=r"doc column 'doc_id' holds a tuple in row 3"):
        rankviz.evaluate(D.run_frame(), ["nDCG@10"], qrels)
    table = _table()
    table["query_id"] = table["query_id"].astype(object)
    table.iat[2, 1] = {"q": 1}
    with pytest.raises(RankvizError, match=r"holds a dict in row 2"):
        rankviz.stats.paired_differences(table, system="B", baseline="A", measure="RR@10")


def test_suite_table_key_cells_are_checked():
    from .registry import suite_table

    table = suite_table()
    table["dataset"] = table["dataset"].astype(object)
    table.iat[0, table.columns.get_loc("dataset")] = np.nan
    with pytest.raises(RankvizError, match=r"dataset column 'dataset' is missing in row\(s\) 0"):
        rankviz.stats.suite_compare(table, baseline="A", measures=["RR@10"], n_resamples=200, rng=0)


def test_topics_xml_with_tabs_is_still_xml(tmp_path):
    path = tmp_path / "topics.xml"
    path.write_text(
        '\t<topics>\t\n\t<topic number="1"><query>red fox</query></topic>\t\n\t</topics>\t\n', encoding="utf-8"
    )
    topics = rankviz.read_topics(str(path))
    assert list(topics["query_id"]) == ["1"] and list(topics["text"]) == ["red fox"]


@pytest.mark.parametrize("cell", [None, "deep"])
def test_notebooks_damaged_cell_is_one_error_line(tmp_path, cell):
    import json

    from .registry import MINIMAL_NOTEBOOK, cli

    folder = tmp_path / "nbs"
    folder.mkdir()
    if cell is None:  # a null cell
        text = json.dumps({**MINIMAL_NOTEBOOK, "cells": [None]})
    else:  # a cell nested 3000 deep
        text = '{"cells": [' + '{"x": ' * 3000 + "1" + "}" * 3000 + "]}"
    (folder / "a.ipynb").write_text(text, encoding="utf-8")
    code, out, err = cli(["notebooks", str(folder), "-o", str(tmp_path / "build"), "--quiet"])
    assert code == 2 and "a.ipynb" in err and "Traceback" not in err, err
