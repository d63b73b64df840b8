"""Alignment of a model judge with people, and self-consistency of a judge: against scikit-learn and krippendorff."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz import labels
from rankviz.labels.alignment import coincidence_alpha

krippendorff = pytest.importorskip("krippendorff")
sklearn_metrics = pytest.importorskip("sklearn.metrics")


def _pair(seed: int, n: int = 300, grades=(0, 1, 2, 3), agree: float = 0.6):
    rng = np.random.default_rng(seed)
    human = rng.choice(grades, size=n)
    model = np.where(rng.random(n) < agree, human, rng.choice(grades, size=n))
    frame = pd.DataFrame({"query_id": [f"q{i % 13}" for i in range(n)], "doc_id": [f"d{i}" for i in range(n)]})
    return frame.assign(relevance=model), frame.assign(relevance=human), model, human


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_scikit_learn(seed, weights):
    qm, qh, m, h = _pair(seed)
    result = labels.alignment(qm, qh)
    field = {None: "cohen_kappa", "linear": "kappa_linear", "quadratic": "kappa_quadratic"}[weights]
    expected = sklearn_metrics.cohen_kappa_score(m, h, weights=weights)
    assert getattr(result.agreement, field) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_alpha_equals_the_krippendorff_package(seed, level):
    qm, qh, m, h = _pair(seed, grades=(0, 1, 2))
    result = labels.alignment(qm, qh)
    expected = krippendorff.alpha(reliability_data=np.vstack([m, h]).astype(float), level_of_measurement=level)
    assert getattr(result.agreement, f"alpha_{level}") == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_alpha_of_several_coders_with_gaps_equals_the_krippendorff_package(seed, level):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, size=(120, 2 + seed % 3)).astype(float)
    values[rng.random(values.shape) < 0.25] = np.nan
    expected = krippendorff.alpha(reliability_data=values.T, level_of_measurement=level)
    assert coincidence_alpha(values, level) == pytest.approx(expected, abs=1e-12)


def test_leniency_of_a_judge_one_grade_too_generous():
    truth = pd.DataFrame({"query_id": ["q1"] * 6 + ["q2"] * 4, "doc_id": [f"d{i}" for i in range(10)],
                          "relevance": [0, 0, 1, 1, 2, 2, 0, 0, 0, 2]})  # fmt: skip
    model = labels.simulate_judge(truth, noise=0.0, leniency=1.0)
    result = labels.alignment(model, truth)
    assert result.mean_shift == pytest.approx(7 / 10)  # every 0 and 1 goes up one, the 2s stay
    by_grade = result.leniency.set_index("human_grade")
    assert by_grade.loc[0, "over"] == 1.0 and by_grade.loc[2, "over"] == 0.0 and by_grade["under"].eq(0).all()
    assert by_grade.loc[0, "mean_model"] == 1.0 and by_grade.loc[1, "n"] == 2
    per_query = result.per_query.set_index("query_id")
    assert per_query.loc["q1", "mean_shift"] == pytest.approx(4 / 6)
    assert per_query.loc["q2", "mean_shift"] == pytest.approx(3 / 4)
    assert result.confusion.loc[1, 0] == 5  # model said 1 where people said 0
    strict = labels.alignment(labels.simulate_judge(truth, noise=0.0, leniency=-1.0), truth)
    assert strict.mean_shift < 0 and strict.leniency.set_index("human_grade").loc[2, "under"] == 1.0


def test_a_store_is_split_by_kind(tmp_path):
    qm, qh, _, _ = _pair(3, n=60)
    store = labels.LabelStore(tmp_path / "labels.sqlite")
    for q, d, g in qm.itertuples(index=False):
        store.add_model(q, d, int(g), annotator="judge", judge="sim", fingerprint="x")
    store.import_qrels(qh, annotator="alice")
    from_store = labels.alignment(store)
    from_frames = labels.alignment(qm, qh)
    pd.testing.assert_frame_equal(from_store.to_frame(), from_frames.to_frame())
    pd.testing.assert_frame_equal(from_store.confusion, from_frames.confusion)
    store.close()


def test_no_shared_pair_and_missing_human_are_refused():
    qm, qh, _, _ = _pair(0, n=20)
    with pytest.raises(rankviz.InputError, match="no \\(query, doc\\) pair"):
        labels.alignment(qm, qh.assign(doc_id="other-" + qh["doc_id"]))
    with pytest.raises(rankviz.InputError, match="human labels too"):
        labels.alignment(qm)


def test_html_escapes_and_heatmap_is_labelled():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qm, qh, _, _ = _pair(1, n=50)
    qm = qm.assign(query_id="<i>" + qm["query_id"])
    qh = qh.assign(query_id="<i>" + qh["query_id"])
    result = labels.alignment(qm, qh)
    assert "<i>q" not in result._repr_html_()
    ax = result.plot()
    assert ax.get_ylabel() == "grade by the model" and ax.get_xlabel() == "grade by people"
    plt.close("all")


def test_self_consistency_flip_rate_and_alpha():
    truth = pd.DataFrame({"query_id": [f"q{i % 9}" for i in range(200)], "doc_id": [f"d{i}" for i in range(200)],
                          "relevance": np.random.default_rng(0).integers(0, 3, 200)})  # fmt: skip
    runs = {f"try {s}": labels.simulate_judge(truth, noise=0.6, seed=s) for s in range(3)}
    result = labels.self_consistency(runs)
    grades = np.vstack([r["relevance"].to_numpy() for r in runs.values()])
    assert result.flip_rate == pytest.approx(float((grades.max(axis=0) != grades.min(axis=0)).mean()))
    assert result.alpha_ordinal == pytest.approx(
        krippendorff.alpha(reliability_data=grades.astype(float), level_of_measurement="ordinal"), abs=1e-12
    )
    pair = result.pairwise_flip_rate.iloc[0]
    assert pair["flip_rate"] == pytest.approx(float((grades[0] != grades[1]).mean()))
    identical = labels.self_consistency([truth, truth])
    assert identical.flip_rate == 0.0 and identical.alpha_nominal == pytest.approx(1.0)
    with pytest.raises(rankviz.InputError, match="at least 2"):
        labels.self_consistency([truth])
