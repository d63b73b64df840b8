"""Every label rankviz prints for a measure parses back to that measure (issue 31).

Over the whole registry: each family with random cutoffs and parameters; its canonical name,
its trec_eval name and its column label all parse to the same :class:`Measure`. ir_measures'
measure objects (and their printed names) parse to the measure they stand for, ``SetRelP`` and
``nDCG(dcg='exp-log2')`` included.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankviz
from rankviz.measures import Measure, families, measure_label, parse_measure


def _param_values(name, param):
    """Values of one declared parameter: its default or a random value of its type."""
    if param.choices is not None:
        return st.sampled_from(param.choices)
    if param.type is int:
        values = st.integers(0, 6) if name == "rel" else st.integers(0, 10**6)
        return st.one_of(st.none(), values) if param.default is None else values
    if param.type is float:
        return st.floats(-1e6, 1e6, allow_nan=False).filter(lambda x: 0 < abs(x) or x == 0) | st.sampled_from(
            [0.1, 0.5, 1 / 3, 2.5e-7, 0.9]
        )
    if param.type is dict:
        return st.none() | st.dictionaries(st.integers(-2, 5), st.integers(-3, 10) | st.floats(0, 10), max_size=4)
    return st.just(param.default)


@st.composite
def measures(draw):
    family = draw(st.sampled_from(families()))
    if family.cutoff_type is None:
        cutoff = None
    else:
        low, high = family.cutoff_range
        if family.cutoff_type is int:
            values = st.integers(max(1, int(low)), int(min(high, 10**6)))
        else:
            values = st.floats(low, high, allow_nan=False) | st.sampled_from([0.1, 0.25, 0.3, 1.0, 0.05])
        cutoff = draw(values if family.needs_cutoff else st.none() | values)
    params = {key: draw(_param_values(key, param)) for key, param in family.params.items()}
    if family.params.get("p") is not None:  # RBP's persistence lies in (0, 1)
        params["p"] = draw(st.floats(0.01, 0.99) | st.just(0.9))
    try:
        return Measure(family.name, cutoff, **params)
    except rankviz.InputError:
        return Measure(family.name, cutoff)  # a parameter the family refuses on its own: the defaults


@settings(max_examples=600, deadline=None)
@given(measures())
def test_every_label_of_every_family_parses_back_to_the_measure(m):
    for label in {m.name, str(m), repr(m), m.trec_name, measure_label(m)}:
        assert parse_measure(label) == m, (label, m)
        assert parse_measure(f" {label} ") == m, label
    assert parse_measure(m) is m


def test_each_family_round_trips_with_its_defaults_and_examples():
    for family in families():
        for example in family.examples:
            m = parse_measure(example)
            assert parse_measure(m.name) == m and parse_measure(m.trec_name) == m
        if not family.needs_cutoff:
            m = Measure(family.name)
            assert parse_measure(m.name) == m and parse_measure(m.trec_name) == m


# ----------------------------------------------------------------------------- ir_measures


def test_ir_measures_set_rel_p_object_is_rankviz_set_rel_p():
    im = pytest.importorskip("ir_measures", reason="ir_measures is in the test extra")
    assert str(im.SetRelP) == "SetP(relative=True)"  # what ir_measures prints, and rankviz labels with
    assert parse_measure(im.SetRelP) == parse_measure("SetRelP") == Measure("SetRelP")
    assert parse_measure("SetP(relative=True)") == Measure("SetRelP")
    assert parse_measure(im.SetRelP(rel=2)) == Measure("SetRelP", rel=2)
    assert parse_measure(im.SetP(relative=False, rel=2)) == Measure("SetP", rel=2)
    assert parse_measure(im.SetP) == Measure("SetP")


def test_the_ndcg_label_rankviz_prints_for_ir_measures_exp_gain_parses():
    im = pytest.importorskip("ir_measures", reason="ir_measures is in the test extra")
    run = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})
    table = rankviz.evaluate(run, [im.nDCG(dcg="exp-log2") @ 10], qrels)
    (label,) = table.columns
    assert label == "nDCG(dcg='exp-log2')@10"
    assert parse_measure(label) == Measure("nDCG", 10, gain="exp")
    assert parse_measure("nDCG(dcg='log2')@10") == Measure("nDCG", 10)
    again = rankviz.evaluate(run, [label], qrels)
    assert again[label].iloc[0] == table[label].iloc[0]
    # exp gain by hand: DCG = (2^1-1)/log2(2) + (2^2-1)/log2(4); ideal = 3/1 + 1/log2(3)
    want = (1 + 3 / 2) / (3 + 1 / math.log2(3))
    assert table[label].iloc[0] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("text", ["nDCG(dcg='exp')@10", "SetP(relative=2)", "nDCG(dcg='exp-log2', gains={0: 1})"])
def test_foreign_spellings_without_an_equivalent_are_refused(text):
    with pytest.raises(rankviz.InputError, match="dcg|relative"):
        parse_measure(text)


def _ir_measures_objects():
    im = pytest.importorskip("ir_measures", reason="ir_measures is in the test extra")
    objects = []
    for m in im.measures.registry.values():
        if "cutoff" in m.SUPPORTED_PARAMS:
            objects += [m @ 5, m @ 100]
        else:
            objects.append(m)
        if "rel" in m.SUPPORTED_PARAMS:
            objects.append(m(rel=2) @ 10 if "cutoff" in m.SUPPORTED_PARAMS else m(rel=2))
    objects += [im.nDCG(dcg=d) @ k for d in ("log2", "exp-log2") for k in (1, 10)]
    objects += [im.IPrec @ r for r in (0.0, 0.1, 0.25, 1.0)] + [im.SetRelP(rel=3), im.RBP(p=0.5) @ 20]
    return objects


def test_ir_measures_objects_and_their_names_parse_alike():
    known = 0
    for obj in _ir_measures_objects():
        try:
            m = parse_measure(obj)
        except rankviz.InputError as error:
            assert "has no rankviz equivalent" in str(error), obj  # refused, never misread
            with pytest.raises(rankviz.InputError):
                parse_measure(str(obj))
            continue
        known += 1
        assert parse_measure(str(obj)) == m, obj
        assert parse_measure(measure_label(obj)) == m, obj
        assert parse_measure(m.name) == m and parse_measure(m.trec_name) == m
        assert m.cutoff == obj.params.get("cutoff", obj.params.get("recall"))
    assert known >= 40
