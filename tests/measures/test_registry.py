"""Measure families are declared once: a family registered at runtime works everywhere.

The toy family ``RelCount`` (relevant items retrieved in the top ``k``, not divided;
what trec_eval calls ``num_rel_ret`` without a cutoff) is registered by a fixture and used
through the parser, ``rankviz.evaluate``, the ``df.rank`` accessor and the CLI with
no other code touched; its values are checked against a brute-force count and
against trec_eval's own output. The rest pins the registry's errors and the
trec_eval names of the built-in families.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import rankviz
import rankviz.cli
from rankviz.measures import (
    AP,
    RR,
    Family,
    Measure,
    P,
    Param,
    R,
    Rprec,
    Success,
    families,
    get_family,
    nDCG,
    parse_measure,
    parse_measures,
    register_family,
    unregister_family,
)
from tests.conftest import shared_path

BUILT_IN = tuple(f.name for f in families())


def _rel_count(j, hits, m):
    """Relevant hits within min(k, depth), per cell (numpy only, no rankviz helper)."""
    limit = min(v for v in (m.cutoff, j.depth, np.inf) if v is not None)
    use = (hits.grade >= m.rel) & (hits.pos <= limit)
    return np.bincount(hits.cell[use], minlength=j.n_cells).astype(np.float64)


def _toy(name="RelCount", **changes) -> Family:
    declaration = {
        "name": name,
        "params": {"rel": Param(int, 1, "minimum grade that counts as relevant")},
        "aliases": ("RelHits",),
        "trec_name": "rel_count",
        "trec_cut_name": "rel_count_{k}",
        "needs_cutoff": False,
        "judgement_denominator": False,
        "kernel": _rel_count,
        "expected": None,
        "doc": "RelCount@k = |{i <= k : g_i >= rel}| (what trec_eval calls num_rel_ret, Voorhees & Harman, TREC 2005).",
    }
    declaration.update(changes)
    return Family(**declaration)


@pytest.fixture
def rel_count():
    family = register_family(_toy())
    yield family
    unregister_family("RelCount")


@pytest.fixture
def weighted():
    """A family with a float and a str parameter, to show parameters are generic."""
    family = register_family(
        _toy(
            "Weighted",
            params={
                "weight": Param(float, 1.0, "factor applied to the count"),
                "mode": Param(str, "plain", "a choice", choices=("plain", "fancy"), aliases={"nice": "fancy"}),
            },
            aliases=(),
            trec_name=None,
            trec_cut_name=None,
            kernel=lambda j, hits, m: _rel_count(j, hits, m) * dict(m.params)["weight"],
        )
    )
    yield family
    unregister_family("Weighted")


@pytest.fixture
def files(tmp_path):
    """A small TREC run with ties, a query without relevant items and a judged query the run missed."""
    run = pd.DataFrame(
        {
            "query_id": ["q1"] * 6 + ["q2"] * 4 + ["q3"] * 2,
            "doc_id": ["a", "b", "c", "d", "e", "f", "a", "b", "c", "d", "x", "y"],
            "score": [5.0, 4.0, 4.0, 4.0, 3.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.5],
        }
    )
    qrels = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q3", "q4"],
            "doc_id": ["b", "d", "f", "zz", "c", "d", "x", "a"],
            "relevance": [1, 2, 1, 1, 2, 1, 0, 1],
        }
    )
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    rankviz.write_run(run.assign(system="toy"), run_path)
    rankviz.write_qrels(qrels, qrels_path)
    return run, qrels, run_path, qrels_path


def _brute_force(run: pd.DataFrame, qrels: pd.DataFrame, k: int | None, rel: int = 1) -> dict[str, float]:
    """Relevant items in the top k per judged query, ranked as trec_eval does (score, then doc id, descending)."""
    grades = {(q, d): g for q, d, g in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False)}
    out = {}
    for q in pd.unique(qrels["query_id"]):
        rows = run[run["query_id"] == q]
        ranked = sorted(zip(rows["score"], rows["doc_id"]), key=lambda t: (t[0], t[1].encode()), reverse=True)
        top = ranked if k is None else ranked[:k]
        out[q] = float(sum(grades.get((q, d), 0) >= rel for _, d in top))
    return out


# ----------------------------------------------------------------------------- a family added at runtime


def test_toy_family_parses_by_canonical_alias_and_trec_names(rel_count):
    m = rankviz.parse_measure("RelCount@5")
    assert m == Measure("RelCount", cutoff=5)
    assert m.declaration is rel_count
    for name in ("rel_count_5", "rel_count.5", "relhits@5", "RELCOUNT@5"):
        assert rankviz.parse_measure(name) == m
    assert rankviz.parse_measure("rel_count") == Measure("RelCount")
    assert repr(m) == "RelCount@5" and m.trec_name == "rel_count_5"
    assert parse_measure("RelCount(rel=2)@5").trec_name == "RelCount(rel=2)@5"
    assert Measure("RelCount").trec_name == "rel_count"
    assert rel_count in families() and get_family("RelCount") is rel_count


@pytest.mark.parametrize("k, rel", [(1, 1), (3, 1), (5, 1), (5, 2), (None, 1)])
def test_toy_family_evaluates_like_a_brute_force_count(rel_count, files, k, rel):
    run, qrels, _, _ = files
    name = "RelCount" + ("" if rel == 1 else f"(rel={rel})") + ("" if k is None else f"@{k}")
    table = rankviz.evaluate(run, [name, "P@5"], qrels, per_query=True)
    assert dict(zip(table["query_id"], table[name])) == _brute_force(run, qrels, k, rel)


def test_toy_family_through_the_accessor(rel_count, files):
    run, qrels, _, _ = files
    expected = _brute_force(run, qrels, 5)
    per_query = run.rank.evaluate(["RelCount@5", "RR"], qrels=qrels, per_query=True)
    assert dict(zip(per_query["query_id"], per_query["RelCount@5"])) == expected
    means = run.rank.evaluate(["RelCount@5"], qrels=qrels)
    assert means["RelCount@5"].item() == pytest.approx(np.mean(list(expected.values())))


def test_toy_family_through_the_cli(rel_count, files, capsys):
    run, qrels, run_path, qrels_path = files
    assert rankviz.cli.main(["eval", "-m", "RelCount@5", "-m", "RelHits", str(qrels_path), str(run_path)]) == 0
    lines = dict(line.split("\t", 1) for line in capsys.readouterr().out.splitlines())
    lines = {name.strip(): value for name, value in lines.items()}
    assert lines["rel_count_5"] == f"all\t{np.mean(list(_brute_force(run, qrels, 5).values())):.4f}"
    assert lines["rel_count"] == f"all\t{np.mean(list(_brute_force(run, qrels, None).values())):.4f}"
    assert rankviz.cli.trec_name("RelCount@5") == "rel_count_5"


@pytest.mark.parametrize(
    "out, qrels, run, options",
    [
        ("out.test.aq", "qrels.test", "results.test", {}),
        ("out.test.aqc", "qrels.test", "results.trunc", {}),
        ("out.test.aqcM", "qrels.test", "results.trunc", {"depth": 100}),
        ("out.test.aql", "qrels.rel_level", "results.test", {"rel": 2}),
    ],
)
def test_toy_family_matches_trec_eval_num_rel_ret(rel_count, out, qrels, run, options):
    options = dict(options)
    rel = options.pop("rel", 1)
    expected = {}
    for line in shared_path("trec_eval", out).read_text().splitlines():
        name, qid, value = line.split()
        if name == "num_rel_ret" and qid != "all":
            expected[qid] = float(value)
    measure = Measure("RelCount", rel=rel)
    table = rankviz.evaluate(
        rankviz.read_run(shared_path("trec_eval", run)),
        [measure],
        shared_path("trec_eval", qrels),
        per_query=True,
        **options,
    )
    got = dict(zip(table["query_id"], table[measure.name]))
    assert expected and all(got[qid] == value for qid, value in expected.items()), (got, expected)


def test_toy_family_is_gone_after_unregistering():
    register_family(_toy())
    unregister_family("RelCount")
    for name in ("RelCount@5", "rel_count_5", "relhits@5"):
        with pytest.raises(rankviz.UnknownMeasureError):
            parse_measure(name)
    with pytest.raises(rankviz.UnknownMeasureError, match=r"Unknown measure family 'RelCount'"):
        unregister_family("RelCount")
    assert [f.name for f in families()] == list(BUILT_IN)


def test_parameters_are_generic(weighted, files):
    run, qrels, _, _ = files
    m = parse_measure("Weighted(weight=2.5,mode=nice)@3")
    assert m == Measure("Weighted", 3, weight=2.5, mode="fancy")
    assert repr(m) == "Weighted(weight=2.5,mode='fancy')@3"
    assert dict(m.params) == {"weight": 2.5, "mode": "fancy"}
    assert repr(Measure("Weighted", 3, weight=1.0)) == "Weighted@3"  # defaults left out of the name
    assert parse_measure(m.name) == m and parse_measure(m.trec_name) == m
    assert m.rel == 1 and m.gain == "linear"  # readable on every measure
    values = rankviz.evaluate(run, [m], qrels, per_query=True)[m.name]
    assert list(values) == [2.5 * v for v in _brute_force(run, qrels, 3).values()]


# ----------------------------------------------------------------------------- registry errors


@pytest.mark.parametrize(
    "changes, taken",
    [
        ({"name": "MRR", "aliases": (), "trec_name": None, "trec_cut_name": None}, "mrr"),
        ({"name": "Other", "aliases": ("NDCG",), "trec_name": None, "trec_cut_name": None}, "ndcg"),
        ({"name": "Other", "aliases": (), "trec_name": "recip_rank", "trec_cut_name": None}, "recip_rank"),
        ({"name": "Other", "aliases": (), "trec_name": None, "trec_cut_name": "P_{k}"}, "p"),
    ],
)
def test_name_clash_is_refused(changes, taken):
    with pytest.raises(
        rankviz.InputError, match=rf"Cannot register measure family '\w+': the name '{taken}' already belongs to"
    ):
        register_family(_toy(**changes))
    assert [f.name for f in families()] == list(BUILT_IN)


def test_registering_twice_is_refused(rel_count):
    with pytest.raises(rankviz.InputError, match=r"the name '\w+' already belongs to 'RelCount'"):
        register_family(_toy())


def test_unknown_parameter(rel_count):
    with pytest.raises(rankviz.InputError, match=r"RelCount takes no 'gain' parameter \(it takes: rel\)"):
        parse_measure("RelCount(gain='exp')@5")
    with pytest.raises(rankviz.InputError, match=r"RelCount takes no 'depth' parameter \(it takes: rel\)"):
        Measure("RelCount", 5, depth=3)
    with pytest.raises(rankviz.InputError, match=r"RelCount takes no 'gain' parameter"):
        Measure("RelCount", 5)(gain="linear")
    assert Measure("RelCount", 5, gain="linear") == Measure("RelCount", 5)  # the value every measure reads


def test_bad_parameter_type(rel_count, weighted):
    with pytest.raises(
        rankviz.InputError, match=r"Cannot read the parameter value 'two' in measure 'RelCount\(rel=two\)@5'"
    ):
        parse_measure("RelCount(rel=two)@5")
    with pytest.raises(rankviz.InputError, match=r"The 'rel' parameter of RelCount must be an int\. Got '2' instead\."):
        Measure("RelCount", 5, rel="2")
    with pytest.raises(
        rankviz.InputError, match=r"The 'weight' parameter of Weighted must be a float\. Got 'x' instead\."
    ):
        Measure("Weighted", 5, weight="x")
    with pytest.raises(
        rankviz.InputError,
        match=r"The 'mode' parameter of Weighted must be one of 'plain', 'fancy'\. Got 'fanci' instead\. Did you mean 'fancy'\?",
    ):
        parse_measure("Weighted(mode=fanci)@5")


def test_bad_declarations():
    with pytest.raises(TypeError, match=r"Param type must be int, float, str or dict"):
        Param(list, [], "a list")
    with pytest.raises(rankviz.InputError, match=r"The 'rel' parameter of Bad must be an int"):
        _toy("Bad", params={"rel": Param(int, "1", "default of the wrong type")})
    with pytest.raises(rankviz.InputError, match=r"a parameter cannot be named 'cutoff'"):
        _toy("Bad", params={"cutoff": Param(int, 1, "reserved")})
    with pytest.raises(rankviz.InputError, match=r"trec_cut_name must look like 'ndcg_cut_\{k\}'"):
        _toy("Bad", trec_cut_name="bad{k}")
    with pytest.raises(rankviz.InputError, match=r"The name 'Bad@1' of a measure family must match"):
        _toy("Bad@1")
    with pytest.raises(rankviz.InputError, match=r"register_family takes a Family declaration"):
        register_family("RelCount")


def test_expected_ties_need_an_expected_kernel(rel_count, files):
    run, qrels, _, _ = files
    with pytest.raises(
        rankviz.InputError,
        match=r"RelCount@5: ties='expected' is not available, because the RelCount family declares no expected",
    ):
        rankviz.evaluate(run, ["RelCount@5"], qrels, ties="expected")
    for ties in ("trec_eval", "optimistic", "pessimistic"):
        rankviz.evaluate(run, ["RelCount@5"], qrels, ties=ties)


def test_kernel_must_return_one_value_per_cell(files):
    run, qrels, _, _ = files
    register_family(
        _toy("Broken", aliases=(), trec_name=None, trec_cut_name=None, kernel=lambda j, hits, m: np.zeros(1))
    )
    try:
        with pytest.raises(ValueError, match=r"The Broken kernel returned shape \(1,\); expected \(4,\)"):
            rankviz.evaluate(run, ["Broken@5"], qrels)
    finally:
        unregister_family("Broken")


def test_get_family_is_exact():
    assert get_family("nDCG").name == "nDCG"
    with pytest.raises(
        rankviz.UnknownMeasureError,
        match=r"Unknown measure family 'ndcg'; known: RR, nDCG, AP, P, R, Success, Rprec, NumQ, .*, ERR, Hits, F1\.",
    ):
        get_family("ndcg")


# ----------------------------------------------------------------------------- built-in families

TREC_NAMES = {
    RR: "recip_rank",
    RR @ 10: "RR@10",
    RR(rel=2): "RR(rel=2)",
    nDCG: "ndcg",
    nDCG @ 10: "ndcg_cut_10",
    nDCG(gain="exp") @ 10: "nDCG(gain='exp')@10",
    AP: "map",
    AP @ 100: "map_cut_100",
    AP(rel=2) @ 100: "AP(rel=2)@100",
    P @ 5: "P_5",
    P(rel=2) @ 5: "P(rel=2)@5",
    R @ 100: "recall_100",
    Success @ 10: "success_10",
    Rprec: "Rprec",
    Rprec(rel=3): "Rprec(rel=3)",
}


@pytest.mark.parametrize("measure, name", TREC_NAMES.items(), ids=[m.name for m in TREC_NAMES])
def test_trec_names_of_the_built_in_families(measure, name):
    assert measure.trec_name == name
    assert rankviz.cli.trec_name(measure) == name
    assert parse_measure(name) == measure


@pytest.mark.parametrize("family", BUILT_IN)
def test_every_built_in_family_round_trips(family):
    declaration = get_family(family)
    assert declaration.doc.startswith(f"{family}: ") and "20" in declaration.doc  # formula and a dated citation
    cutoffs = (1, 10, 1000) if declaration.needs_cutoff else (None, 1, 10, 1000)
    other = {int: 2, float: 0.5, str: "x", dict: {1: 2}}
    variants = [{}] + [{key: p.choices[-1] if p.choices else other[p.type]} for key, p in declaration.params.items()]
    for k in cutoffs:
        if k is not None and declaration.cutoff_type is float:
            k = min(k, declaration.cutoff_range[1]) / 1000.0 + 0.25  # a real cutoff inside its range
        if k is not None and declaration.cutoff_type is None:
            continue
        for params in variants:
            m = Measure(family, k, **params)
            assert parse_measure(m.trec_name) == m
            assert parse_measure(m.name) == m
            assert parse_measure(f" {m.name} ") == m


@pytest.mark.parametrize(
    "dotted, underscored",
    [
        ("ndcg_cut.10", "ndcg_cut_10"),
        ("P.5", "P_5"),
        ("recall.100", "recall_100"),
        ("success.1", "success_1"),
        ("map_cut.100", "map_cut_100"),
    ],
)
def test_dotted_trec_eval_names(dotted, underscored):
    assert parse_measure(dotted) == parse_measure(underscored)
    assert parse_measure(dotted).trec_name == underscored


def test_rel_is_readable_on_every_measure():
    measures = parse_measures(["nDCG@10", "RR(rel=2)@10", "P(rel=3)@5"])
    assert [m.rel for m in measures] == [1, 2, 3]
    assert min(m.rel for m in measures) == 1
    assert Measure("nDCG", 10, rel=1) == nDCG @ 10  # as callers pass it to every family
    with pytest.raises(rankviz.InputError, match=r"nDCG takes no 'rel' parameter: nDCG uses every grade as its gain"):
        Measure("nDCG", 10, rel=2)


def test_measures_stay_hashable_values():
    m = RR(rel=2) @ 10
    assert hash(m) == hash(parse_measure("RR(rel=2)@10")) and {m: 1}[Measure("RR", 10, 2)] == 1
    assert dataclasses.replace(m, cutoff=None) == RR(rel=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.cutoff = 5
