"""Fingerprints (issue 33): any change of content changes them and the comparison refuses; order and dtypes do not."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankviz
from rankviz.history import History
from rankviz.history.fingerprints import options_fingerprint, qrels_fingerprints, queries_fingerprint, run_fingerprint
from tests.strategies import run_and_qrels

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _mutate(qrels: pd.DataFrame, kind: str, data) -> tuple[pd.DataFrame, dict]:
    """A copy of the qrels with one change of content (or of the options)."""
    out = qrels.copy()
    if kind == "grade":
        row = data.draw(st.integers(0, len(out) - 1))
        old = int(out.loc[row, "relevance"])
        out.loc[row, "relevance"] = data.draw(st.sampled_from([g for g in (0, 1, 2, 3) if g != old]))
    elif kind == "add":
        query = data.draw(st.sampled_from(sorted(set(out["query_id"]))))
        extra = pd.DataFrame(
            {"query_id": [query], "doc_id": ["zz-new-doc"], "relevance": [data.draw(st.integers(0, 3))]}
        )
        out = pd.concat([out, extra], ignore_index=True).astype({"query_id": "str", "doc_id": "str"})
    elif kind == "remove":
        row = data.draw(st.integers(0, len(out) - 1))
        out = out.drop(index=row).reset_index(drop=True)
    return out, ({"depth": 3} if kind == "options" else {})


def _variant(qrels: pd.DataFrame, data) -> pd.DataFrame:
    """The same judgements with rows shuffled and other dtypes."""
    order = data.draw(st.permutations(list(range(len(qrels)))))
    out = qrels.iloc[order].reset_index(drop=True)
    kind = data.draw(st.sampled_from(["object", "category", "int-grades"]))
    if kind == "object":
        return out.astype({"query_id": object, "doc_id": object, "relevance": np.int32})
    if kind == "category":
        return out.astype({"query_id": "category", "doc_id": "category", "relevance": np.float64})
    return out.astype({"relevance": np.int8})


@SETTINGS
@given(run_and_qrels(max_queries=4, max_docs=6, negative=False), st.data())
def test_reordering_rows_or_changing_dtypes_changes_no_fingerprint(pair, data):
    run, qrels = pair
    variant = _variant(qrels, data)
    assert qrels_fingerprints(variant) == qrels_fingerprints(qrels)
    shuffled = run.sample(frac=1.0, random_state=data.draw(st.integers(0, 1000))).astype({"query_id": object})
    assert run_fingerprint(shuffled) == run_fingerprint(run)
    ids = list(qrels["query_id"])
    assert queries_fingerprint(ids[::-1] + ids) == queries_fingerprint(set(ids))
    options = {"depth": None, "ties": "trec_eval"}
    assert options_fingerprint(dict(reversed(list(options.items())))) == options_fingerprint(options)
    with tempfile.TemporaryDirectory() as folder, History(Path(folder) / "h.sqlite") as history:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)  # nothing judged, zero differences, ...
            a = history.record(run, qrels, ["P@3", "AP"])
            b = history.record(shuffled, variant, ["P@3", "AP"])
            assert a.fingerprints == b.fingerprints
            assert len(history.compare(a.id, b.id, test="t")) == 2


@SETTINGS
@given(run_and_qrels(max_queries=4, max_docs=6, negative=False), st.sampled_from(["grade", "add", "remove", "options"]),
       st.data())  # fmt: skip
def test_any_change_of_content_changes_its_fingerprint_and_compare_refuses(pair, kind, data):
    run, qrels = pair
    changed, options = _mutate(qrels, kind, data)
    if kind != "options":
        assert qrels_fingerprints(changed)[0] != qrels_fingerprints(qrels)[0]
    with tempfile.TemporaryDirectory() as folder, History(Path(folder) / "h.sqlite") as history:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)  # unjudged queries, closed world, ...
            a = history.record(run, qrels, ["P@3", "AP"])
            try:
                b = history.record(run, changed, ["P@3", "AP"], **options)
            except rankviz.InputError:  # the change removed the last query the run and qrels shared
                assert kind == "remove"
                return
        which = {"options": "options"}.get(kind, "qrels")
        assert a.fingerprints[which] != b.fingerprints[which]
        with pytest.raises(rankviz.InputError, match="not comparable"):
            history.compare(a.id, b.id)


@SETTINGS
@given(run_and_qrels(max_queries=5, max_docs=6, negative=False), st.data())
def test_a_changed_query_set_changes_its_fingerprint_and_compare_refuses(pair, data):
    run, qrels = pair
    with tempfile.TemporaryDirectory() as folder, History(Path(folder) / "h.sqlite") as history:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankviz.RankvizWarning)
            a = history.record(run, qrels, ["P@3"])
            evaluated = sorted(set(a.table["query_id"]))
            if len(evaluated) < 2:
                return
            kept = data.draw(st.lists(st.sampled_from(evaluated), min_size=1, max_size=len(evaluated) - 1, unique=True))
            try:
                b = history.record(run, qrels, ["P@3"], queries=kept)
            except rankviz.InputError:  # the kept queries are judged but the run has none of them
                assert not set(kept) & set(run["query_id"])
                return
        assert a.fingerprints["queries"] != b.fingerprints["queries"]
        with pytest.raises(rankviz.InputError, match="not comparable"):
            history.compare(a.id, b.id)
