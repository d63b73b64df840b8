"""Prediction-powered corrected means: exact unbiasedness by enumeration, coverage by simulation, refusals."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rankviz
from rankviz import labels
from rankviz.labels.corrected import TINY_SAMPLE, TINY_SAMPLE_RR
from rankviz.labels.design import Design
from rankviz.labels.ppi import design_estimate


def _study(n_queries: int = 80, seed: int = 0, docs: int = 8):
    """A two-system run and its true grades (0..2) on every retrieved pair."""
    rng = np.random.default_rng(seed)
    rows, truth = [], []
    for q in range(n_queries):
        qid = f"q{q:03d}"
        pool = [f"d{j}" for j in range(docs + 3)]
        grades = rng.choice([0, 0, 0, 1, 2], size=len(pool))
        truth += [(qid, d, int(g)) for d, g in zip(pool, grades)]
        for system in ("a", "b"):
            order = rng.permutation(len(pool))[:docs]
            rows += [(system, qid, pool[i], float(docs - r)) for r, i in enumerate(order)]
    run = pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])
    return run, pd.DataFrame(truth, columns=["query_id", "doc_id", "relevance"])


@pytest.fixture(scope="module")
def study():
    run, truth = _study()
    model = labels.simulate_judge(truth, noise=0.7, leniency=0.5, seed=3)
    return run, truth, model


# ----------------------------------------------------------------------------- exact arithmetic


def test_naive_and_human_only_are_rankviz_evaluations(study):
    run, truth, model = study
    design = labels.sample_queries(run, n=20, seed=1)
    human = truth[truth["query_id"].isin(design.queries)]
    result = (
        labels.corrected(run, model, human, ["nDCG@5", "P@5"], design=design)
        .to_frame()
        .set_index(["system", "measure"])
    )
    naive = rankviz.evaluate(run, ["nDCG@5", "P@5"], model)
    human_only = rankviz.evaluate(run, ["nDCG@5", "P@5"], human)
    for system in ("a", "b"):
        for measure in ("nDCG@5", "P@5"):
            assert result.loc[(system, measure), "naive"] == pytest.approx(naive.loc[system, measure], abs=1e-12)
            assert result.loc[(system, measure), "human_only"] == pytest.approx(
                human_only.loc[system, measure], abs=1e-12
            )


def test_corrected_is_naive_plus_mean_difference_with_the_srs_variance(study):
    run, truth, model = study
    design = labels.sample_queries(run, n=25, seed=2)
    human = truth[truth["query_id"].isin(design.queries)]
    out = labels.corrected(run, model, human, "P@5", design=design, scope="queries").to_frame()
    f = rankviz.evaluate(run, "P@5", model, per_query=True).pivot(index="query_id", columns="system", values="P@5")
    y = rankviz.evaluate(run, "P@5", human, per_query=True).pivot(index="query_id", columns="system", values="P@5")
    d = y["a"] - f["a"].loc[y.index]
    row = out[out["system"] == "a"].iloc[0]
    assert row["corrected"] == pytest.approx(f["a"].mean() + d.mean(), abs=1e-12)
    n, big_n = 25, len(f)
    assert row["standard_error"] == pytest.approx(math.sqrt((1 - n / big_n) * d.var(ddof=1) / n), rel=1e-10)
    population = labels.corrected(run, model, human, "P@5", design=design).to_frame()
    se_pop = population[population["system"] == "a"]["standard_error"].iloc[0]
    assert se_pop**2 == pytest.approx(row["standard_error"] ** 2 + y["a"].var(ddof=1) / big_n, rel=1e-10)


def test_paired_difference_is_the_difference_of_corrected_means(study):
    run, truth, model = study
    design = labels.sample_queries(run, n=20, seed=4)
    human = truth[truth["query_id"].isin(design.queries)]
    means = labels.corrected(run, model, human, "nDCG@5", design=design).to_frame().set_index("system")
    paired = labels.corrected(run, model, human, "nDCG@5", design=design, baseline="b").to_frame()
    assert list(paired["system"]) == ["a"] and list(paired["baseline"]) == ["b"]
    expected = means.loc["a", "corrected"] - means.loc["b", "corrected"]
    assert paired["corrected"].iloc[0] == pytest.approx(expected, abs=1e-12)


def _enumerate(design_of, f: pd.Series, y: pd.Series, outcomes):
    """Sum of P(sample) * corrected estimate over every possible sample."""
    total, mass = 0.0, 0.0
    for probability, design in outcomes:
        total += probability * design_estimate(f, y, design_of(design), scope="queries")["estimate"]
        mass += probability
    return total, mass


@pytest.mark.parametrize("seed", range(3))
def test_every_design_is_exactly_unbiased_by_enumeration(seed):
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(6)]
    f = pd.Series(rng.random(6), index=ids)
    y = pd.Series(rng.random(6) + 0.3, index=ids)
    truth = float(y.mean())
    # Poisson sampling with unequal inclusion probabilities (Horvitz-Thompson)
    pi = pd.Series([0.2, 0.5, 0.9, 0.35, 0.6, 0.75], index=ids)
    outcomes = []
    for mask in itertools.product([0, 1], repeat=6):
        p = float(np.prod([pi[q] if m else 1 - pi[q] for q, m in zip(ids, mask)]))
        outcomes.append((p, [q for q, m in zip(ids, mask) if m]))
    total, mass = _enumerate(lambda s: Design.poisson(s, pi), f, y, outcomes)
    assert mass == pytest.approx(1.0) and total == pytest.approx(truth, abs=1e-12)
    # draws with replacement (Hansen-Hurwitz)
    p = pd.Series([0.05, 0.1, 0.15, 0.2, 0.2, 0.3], index=ids)
    inclusion = 1 - (1 - p) ** 3
    outcomes = [(float(np.prod([p[q] for q in draw])), draw) for draw in itertools.product(ids, repeat=3)]
    total, mass = _enumerate(lambda s: Design(tuple(ids), tuple(s), "pps", inclusion, p), f, y, outcomes)
    assert mass == pytest.approx(1.0) and total == pytest.approx(truth, abs=1e-12)
    # stratified simple random samples: 2 of strata {q0..q2} and 2 of {q3..q5}
    strata = pd.Series([0, 0, 0, 1, 1, 1], index=ids)
    combos = [a + b for a in itertools.combinations(ids[:3], 2) for b in itertools.combinations(ids[3:], 2)]
    outcomes = [(1 / len(combos), list(c)) for c in combos]
    stratified = pd.Series(2 / 3, index=ids)
    total, mass = _enumerate(
        lambda s: Design(tuple(ids), tuple(s), "stratified", stratified, None, None, strata), f, y, outcomes
    )
    assert mass == pytest.approx(1.0) and total == pytest.approx(truth, abs=1e-12)


def test_interval_coverage_by_simulation():
    """The 95% interval of the all-human mean covers at about 95% (1000 seeded samples, per-query values)."""
    rng = np.random.default_rng(7)
    big_n, n = 400, 40
    ids = [f"q{i}" for i in range(big_n)]
    y = pd.Series(rng.beta(0.7, 1.2, big_n), index=ids)
    f = (y + 0.15 + rng.normal(0, 0.2, big_n)).clip(0, 1)  # a biased, noisy model
    truth = float(y.mean())
    covered, estimates = 0, []
    for r in range(1000):
        design = labels.sample_queries(ids, n=n, seed=r)
        e = design_estimate(f, y, design, scope="queries")
        covered += e["low"] <= truth <= e["high"]
        estimates.append(e["estimate"])
    assert 0.93 <= covered / 1000 <= 0.97
    naive_bias = abs(float(f.mean()) - truth)
    assert abs(np.mean(estimates) - truth) < naive_bias / 4


def test_corrected_is_unbiased_and_covers_on_evaluated_runs(study):
    run, truth, _ = study
    target = rankviz.evaluate(run, "nDCG@5", truth)["nDCG@5"]
    estimates, naive, covered = [], [], 0
    for r in range(40):
        model = labels.simulate_judge(truth, noise=0.7, leniency=0.5, seed=100 + r)
        design = labels.sample_queries(run, n=30, seed=r)
        human = truth[truth["query_id"].isin(design.queries)]
        row = labels.corrected(run, model, human, "nDCG@5", design=design, scope="queries").to_frame()
        row = row[row["system"] == "a"].iloc[0]
        estimates.append(row["corrected"])
        naive.append(row["naive"])
        covered += row["ci_low"] <= target["a"] <= row["ci_high"]
    assert abs(np.mean(naive) - target["a"]) > 0.03  # the lenient judge is biased
    assert abs(np.mean(estimates) - target["a"]) < abs(np.mean(naive) - target["a"]) / 4
    assert covered >= 34  # of 40: about 0.95 expected; 34 is below 0.85


def test_effective_sample_size_stays_within_one_and_all_queries(study):
    run, truth, model = study
    design = labels.sample_queries(run, n=20, seed=5)
    human = truth[truth["query_id"].isin(design.queries)]
    perfect = labels.corrected(run, truth, human, "P@5", design=design).to_frame()
    assert (perfect["effective_sample_size"] == perfect["n_queries"]).all()  # no error: as good as all queries
    noisy = labels.corrected(run, model, human, ["P@5", "RR@5"], design=design).to_frame()
    assert ((noisy["effective_sample_size"] >= 1) & (noisy["effective_sample_size"] <= noisy["n_queries"])).all()


# ----------------------------------------------------------------------------- refusals


@pytest.mark.filterwarnings("ignore:corrected.*differ on only:rankviz.DegenerateDataWarning")
def test_a_sample_without_a_design_is_refused_as_possibly_hand_picked(study):
    run, truth, model = study
    human = truth[truth["query_id"].isin(["q000", "q001", "q002"])]
    with pytest.raises(rankviz.InputError, match="hand-picked"):
        labels.corrected(run, model, human, "P@5")
    with pytest.raises(rankviz.InputError, match="hand-picked"):
        labels.corrected(run, model, human, "P@5", design="chosen by me")
    with pytest.warns(rankviz.DegenerateDataWarning, match="only 3 human-judged queries"):
        result = labels.corrected(run, model, human, "P@5", design="random", scope="queries")
    assert set(result.to_frame()["n_human"]) == {3}


def test_fewer_than_two_human_queries_are_refused(study):
    run, truth, model = study
    with pytest.raises(rankviz.InputError, match="at least 2"):
        labels.corrected(run, model, truth[truth["query_id"] == "q005"], "P@5", design="random")


@pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")
def test_different_scales_and_no_overlap_are_refused(study):
    run, truth, model = study
    design = labels.sample_queries(run, n=10, seed=0)
    human = truth[truth["query_id"].isin(design.queries)]
    binary = human.assign(relevance=(human["relevance"] > 0).astype(int))
    with pytest.raises(rankviz.InputError, match="one scale"):
        labels.corrected(run, model, binary, "P@5", design=design)
    elsewhere = human.assign(query_id="other-" + human["query_id"])
    with pytest.raises(rankviz.InputError, match="no query has both"):
        labels.corrected(run, model, elsewhere, "P@5", design=design)
    missing_top = model[model["relevance"] < 2]
    with pytest.raises(rankviz.InputError, match="scale"):
        labels.corrected(run, missing_top, human, "P@5", design=design)
    labels.corrected(run, missing_top, human, "P@5", design=design, scale=(0, 2))  # stated: accepted


def test_holes_only_and_unlabelled_sampled_queries_are_refused(study):
    run, truth, model = study
    design = labels.sample_queries(run, n=10, seed=0)
    holes = pd.DataFrame({"query_id": design.queries, "doc_id": "never-graded-by-the-model", "relevance": 2})
    with pytest.raises(rankviz.InputError, match="holes"):
        labels.corrected(run, model, holes, "P@5", design=design)
    partial = truth[truth["query_id"].isin(design.queries[:-1])]
    with pytest.raises(rankviz.InputError, match="no human label"):
        labels.corrected(run, model, partial, "P@5", design=design)
    with pytest.raises(rankviz.InputError, match="baseline 'zzz'"):
        labels.corrected(
            run, model, truth[truth["query_id"].isin(design.queries)], "P@5", design=design, baseline="zzz"
        )


def test_tiny_samples_warn(study):
    run, truth, model = study
    design = labels.sample_queries(run, n=TINY_SAMPLE - 1, seed=0)
    human = truth[truth["query_id"].isin(design.queries)]
    with pytest.warns(rankviz.DegenerateDataWarning, match="under|less often"):
        labels.corrected(run, model, human, "P@5", design=design)
    design = labels.sample_queries(run, n=TINY_SAMPLE_RR - 2, seed=0)
    human = truth[truth["query_id"].isin(design.queries)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankviz.DegenerateDataWarning)
        labels.corrected(run, model, human, "nDCG@5", design=design)  # enough for nDCG
    with pytest.warns(rankviz.DegenerateDataWarning, match="interval of RR@5 covers"):
        labels.corrected(run, model, human, ["nDCG@5", "RR@5"], design=design)  # not for RR
    design = labels.sample_queries(run, n=TINY_SAMPLE_RR, seed=0)
    human = truth[truth["query_id"].isin(design.queries)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankviz.DegenerateDataWarning)
        labels.corrected(run, model, human, "RR@5", design=design)


# ----------------------------------------------------------------------------- inputs and outputs


def test_a_label_store_gives_its_model_and_human_labels(study, tmp_path):
    run, truth, model = study
    design = labels.sample_queries(run, n=15, seed=6)
    human = truth[truth["query_id"].isin(design.queries)]
    store = labels.LabelStore(tmp_path / "labels.sqlite")
    for q, d, g in model.itertuples(index=False):
        store.add_model(q, d, int(g), annotator="sim", judge="simulated", fingerprint="f0")
    store.import_qrels(human, annotator="alice")
    from_store = labels.corrected(run, store, store, "P@5", design=design).to_frame()
    from_frames = labels.corrected(run, model, human, "P@5", design=design).to_frame()
    pd.testing.assert_frame_equal(from_store, from_frames)
    store.close()


@pytest.mark.filterwarnings("ignore::rankviz.DegenerateDataWarning")
def test_result_object_html_escapes_and_plots(study):
    import matplotlib

    matplotlib.use("Agg")
    run, truth, model = study
    run = run.replace({"system": {"a": "<b>a$x$</b>"}})
    design = labels.sample_queries(run, n=15, seed=6)
    human = truth[truth["query_id"].isin(design.queries)]
    result = labels.corrected(run, model, human, ["P@5", "RR@5"], design=design)
    page = result._repr_html_()
    assert "&lt;b&gt;a$x$&lt;/b&gt;" in page and "<b>a$" not in page
    assert "Corrected(means" in repr(result)
    frame = result.prepare_plot()
    assert set(frame["estimator"]) == {"naive", "corrected", "human-only"} and len(frame) == 2 * 2 * 3
    axes = result.plot()
    labels_shown = [t.get_text() for t in axes[0].get_yticklabels()]
    assert r"<b>a\$x\$</b>" in labels_shown
    import matplotlib.pyplot as plt

    plt.close("all")
