"""Agreement and stability against independent implementations: scikit-learn, krippendorff, a brute-force tau_AP."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz import labels
from rankviz.labels.stability import tau_ap

krippendorff = pytest.importorskip("krippendorff")
sklearn_metrics = pytest.importorskip("sklearn.metrics")


def _labellers(seed: int, n: int = 300, grades=(0, 1, 2, 3), agree: float = 0.6):
    rng = np.random.default_rng(seed)
    a = rng.choice(grades, size=n)
    b = np.where(rng.random(n) < agree, a, rng.choice(grades, size=n))
    pairs = [(f"q{i % 17}", f"d{i}") for i in range(n)]
    frame = pd.DataFrame(pairs, columns=["query_id", "doc_id"])
    return frame.assign(relevance=a), frame.assign(relevance=b), a, b


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_scikit_learn(seed, weights):
    grades = (0, 1, 2, 3) if seed % 2 else (0, 1, 2, 4, 7)  # odd seeds: a scale with gaps
    qa, qb, a, b = _labellers(seed, grades=grades)
    result = labels.agreement(qa, qb)
    field = {None: "cohen_kappa", "linear": "kappa_linear", "quadratic": "kappa_quadratic"}[weights]
    assert getattr(result, field) == pytest.approx(sklearn_metrics.cohen_kappa_score(a, b, weights=weights), abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_alpha_equals_the_krippendorff_package(seed, level):
    qa, qb, a, b = _labellers(seed, grades=(0, 1, 2) if seed % 2 else (0, 1, 3, 4))
    # each side also judged pairs the other did not: alpha uses the pairable ones only
    extra_a = pd.DataFrame({"query_id": ["qx"] * 5, "doc_id": [f"only-a-{i}" for i in range(5)], "relevance": [1] * 5})
    result = labels.agreement(pd.concat([qa, extra_a]), qb)
    data = np.vstack([np.concatenate([a, [1] * 5]), np.concatenate([b, [np.nan] * 5])]).astype(float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert getattr(result, f"alpha_{level}") == pytest.approx(expected, abs=1e-12)
    assert (result.n_both, result.n_only_a, result.n_only_b) == (len(a), 5, 0)


def test_confusion_and_per_query():
    qa, qb, a, b = _labellers(3)
    result = labels.agreement(qa, qb)
    assert result.confusion.to_numpy().sum() == len(a)
    assert int(result.confusion.loc[2, 1]) == int(((a == 2) & (b == 1)).sum())
    per_query = result.per_query.set_index("query_id")
    frame = qa.assign(b=b)
    observed = (frame["relevance"] == frame["b"]).groupby(frame["query_id"]).mean()
    assert np.allclose(per_query.loc[observed.index, "observed"], observed)
    assert per_query["n_both"].sum() == len(a)
    assert set(result.to_frame().columns) >= {"cohen_kappa", "alpha_ordinal", "n_only_b"}
    assert "<table" in result._repr_html_()


def test_confusion_plot_draws_the_matrix():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qa, qb, _, _ = _labellers(4)
    fig, ax = plt.subplots()
    assert labels.agreement(qa, qb).plot(ax=ax) is ax
    assert len(ax.texts) == 16  # a count in every cell of the 4 x 4 matrix


def test_agreement_reads_two_annotators_of_a_store(tmp_path):
    store = labels.LabelStore(tmp_path / "labels.sqlite")
    for doc, (x, y) in enumerate([(1, 1), (0, 0), (2, 1), (0, 0)]):
        store.add("q", f"d{doc}", x, annotator="x")
        store.add("q", f"d{doc}", y, annotator="y")
    result = labels.agreement(store.to_qrels(annotator="x"), store.to_qrels(annotator="y"))
    assert result.n_both == 4 and result.confusion.to_numpy().trace() == 3


def test_perfect_and_degenerate_agreement():
    qa, _, a, _ = _labellers(5)
    assert labels.agreement(qa, qa).cohen_kappa == 1.0
    ones = qa.assign(relevance=1)
    assert np.isnan(labels.agreement(ones, ones).cohen_kappa)  # no expected disagreement: undefined


def test_agreement_refuses_what_is_not_qrels():
    with pytest.raises(rankviz.InputError, match="qrels_b must be|b must be"):
        labels.agreement({"q": {"d": 1}}, 3)


# ----------------------------------------------------------------------------- tau_AP and stability


def _tau_ap_brute_force(reference: dict, other: dict) -> float:
    """Yilmaz et al. 2008, from the definition: for each item below the top of the `other` list, the share of the
    items above it there that the reference also puts above it."""
    by_other = sorted(other, key=lambda s: (-other[s], s))
    above_in_reference = {
        (x, y) for x, y in itertools.permutations(reference, 2) if (-reference[x], x) < (-reference[y], y)
    }
    n = len(by_other)
    total = sum(
        sum((above, item) in above_in_reference for above in by_other[:i]) / i for i, item in enumerate(by_other) if i
    )
    return 2 * total / (n - 1) - 1


@pytest.mark.parametrize("seed", range(20))
def test_tau_ap_equals_the_brute_force_reference(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    names = [f"sys{i}" for i in range(n)]
    a, b = rng.random(n), rng.random(n)
    expected = _tau_ap_brute_force(dict(zip(names, a)), dict(zip(names, b)))
    assert tau_ap(a, b, names) == pytest.approx(expected, abs=1e-12)


def test_tau_ap_extremes():
    names = list("abcde")
    x = np.arange(5.0)
    assert tau_ap(x, x, names) == 1.0
    assert tau_ap(x, -x, names) == -1.0
    swap_top, swap_bottom = np.array([3.0, 4, 2, 1, 0]), np.array([4.0, 3, 2, 0, 1])
    top = np.array([4.0, 3, 2, 1, 0])
    assert tau_ap(top, swap_top, names) < tau_ap(top, swap_bottom, names)  # a swap at the top costs more


def _systems_run(seed: int, n_systems: int = 5, n_queries: int = 30):
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_systems):
        for q in range(n_queries):
            docs = rng.choice(20, size=10, replace=False)
            rows += [(f"s{s}", f"q{q}", f"d{d}", float(10 - r + s * 0.3 * rng.random())) for r, d in enumerate(docs)]
    run = pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])
    qa = pd.DataFrame([(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(n_queries) for d in range(20)],
                      columns=["query_id", "doc_id", "relevance"])  # fmt: skip
    flip = rng.random(len(qa)) < 0.3
    qb = qa.assign(relevance=np.where(flip, rng.integers(0, 3, len(qa)), qa["relevance"]))
    return run, qa, qb


def test_stability_against_itself_is_perfect():
    run, qa, _ = _systems_run(0)
    table = labels.stability(run, qa, qa, ["AP", "nDCG@10"])
    assert list(table["measure"]) == ["AP", "nDCG@10"]
    assert np.allclose(table["kendall_tau"], 1) and (table["tau_ap"] == 1).all()
    assert (table["swapped_pairs"] == 0).all() and (table["flipped_significance"] == 0).all()


def test_stability_counts_swaps_and_flips_from_the_means_and_tests():
    from scipy import stats as sps

    run, qa, qb = _systems_run(1)
    table = labels.stability(run, qa, qb, "AP").iloc[0]
    per_a = rankviz.evaluate(run, "AP", qa, per_query=True).pivot(index="query_id", columns="system", values="AP")
    per_b = rankviz.evaluate(run, "AP", qb, per_query=True).pivot(index="query_id", columns="system", values="AP")
    ma, mb = per_a.mean(), per_b.mean()
    pairs = list(itertools.combinations(per_a.columns, 2))
    swaps = sum((ma[x] - ma[y]) * (mb[x] - mb[y]) < 0 for x, y in pairs)
    assert table["swapped_pairs"] == swaps == len(table["swapped"])
    assert table["kendall_tau"] == pytest.approx(sps.kendalltau(ma, mb).statistic)

    def sig(per, x, y):
        p = sps.ttest_rel(per[x], per[y]).pvalue
        return int(np.sign((per[x] - per[y]).mean())) if p < 0.05 else 0

    flips = sum(sig(per_a, x, y) != sig(per_b, x, y) for x, y in pairs)
    assert (
        table["flipped_significance"]
        == flips
        == table["appeared"] + table["disappeared"] + sum(1 for *_, sa, sb in table["flipped"] if sa and sb)
    )
    assert table["n_systems"] == 5 and table["n_queries"] == 30
    words = {1: "significantly better", -1: "significantly worse", 0: "not significant"}
    expected = [f"{x} vs {y}: {words[a]} → {words[b]}" for x, y, a, b in table["flipped"]]
    assert table["flipped_text"] == "; ".join(expected) and len(expected) == flips
    assert table["swapped_text"].split("; ") == [
        f"{x} ahead of {y} under a, behind under b" for x, y in table["swapped"]
    ]


def test_stability_says_each_flip_in_words():
    run, qa, qb = _systems_run(3)
    table = labels.stability(run, qa, qb, "AP", alpha=0.5).iloc[0]
    assert ("s0", "s2", -1, 1) in table["flipped"]
    parts = table["flipped_text"].split("; ")
    assert len(parts) == len(table["flipped"]) == table["flipped_significance"]
    assert "s0 vs s2: significantly worse → significantly better" in parts
    assert all(p.count(" → ") == 1 for p in parts)


def test_stability_needs_several_systems_and_shared_queries():
    run, qa, qb = _systems_run(2, n_systems=2)
    with pytest.raises(rankviz.InputError, match="one system"):
        labels.stability(run[run["system"] == "s0"].drop(columns="system"), qa, qb, "AP")
    with pytest.raises(rankviz.InputError, match="'alpha' parameter"):
        labels.stability(run, qa, qb, "AP", alpha=5)
    with pytest.raises(rankviz.InputError, match="no query is judged in both"):
        labels.stability(
            run,
            qa[qa["query_id"] == "q0"],
            qb[qb["query_id"] == "q1"],
            "AP",
        )
