"""The arithmetic of prediction-powered inference over a sample design, with the query as the unit.

The model graded every query of the universe ``U`` (``N`` queries), giving the
per-query measure values ``f_i``; people graded a sample ``S`` drawn by a known
:class:`~rankviz.labels.Design`, giving ``y_i`` there. The corrected mean is

    theta = mean_U(f) + R,    R = an unbiased design estimate of mean_U(y - f)

(Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, "Prediction-powered inference",
*Science* 382, 2023): ``R`` is the mean of ``d = y - f`` over a simple random sample,
the Hansen-Hurwitz mean of ``d / (N p)`` over draws with replacement, or the
Horvitz-Thompson sum ``sum_S d / (N pi)`` over a Poisson sample. Whatever ``f`` is,
``E[theta] = mean_U(y)``: a bad model costs width, never bias.

Its variance, for the mean over the ``N`` queries as people would grade them
(``scope='queries'``), is the design variance of ``R`` (with the finite-population
factor ``1 - n/N`` for a simple random sample, per stratum for a stratified one, where
``R = sum_h (N_h / N) mean_{S_h}(d)``). For the mean over the population
the queries come from (``scope='population'``, the default, as for rankviz's other
intervals) it adds ``s_y^2 / N``: with ``S`` inside ``U`` the PPI variance
``var(f)/N + var(d)/n + 2 cov(f, d)/N`` is exactly ``var(y)/N + var(d) (1/n - 1/N)``.
The interval is ``theta +- t_{n-1} * se`` (Student's t with ``n - 1`` degrees of
freedom, which the normal interval of the paper becomes for large ``n``).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from .._errors import InputError
from .agreement import frame_of
from .design import Design

__all__ = ["DesignEstimate", "Layout", "design_estimate", "labels_frame", "check_scales", "SCOPES"]

SCOPES = ("population", "queries")


class DesignEstimate(dict):
    """What :func:`design_estimate` returns (a dict: estimate, se, human, human_se, rectifier, n, df, ...)."""


def _weighted_var(values: np.ndarray, weights: np.ndarray) -> float:
    n = len(values)
    if n < 2:
        return math.nan
    w = weights / weights.sum()
    mean = float((w * values).sum())
    return float((w * (values - mean) ** 2).sum()) * n / (n - 1)


@dataclasses.dataclass(frozen=True)
class Layout:
    """A design's draws as positions: computed once, used for every system x measure."""

    n_universe: int
    draw_index: np.ndarray  # position in design.queries of each draw (each sampled query once for 'poisson')
    inclusion: np.ndarray  # inclusion probability per draw
    draw_probability: np.ndarray | None  # 'pps': per draw
    strata: np.ndarray | None  # 'stratified': stratum per draw
    strata_sizes: dict | None  # 'stratified': N_h
    method: str

    @classmethod
    def of(cls, design: Design) -> Layout:
        queries = design.queries
        position = {q: i for i, q in enumerate(queries)}
        draws = queries if design.method == "poisson" else list(design.draws)
        inclusion = design.inclusion.reindex(draws).to_numpy(dtype=float)
        p = None
        if design.method == "pps":
            p = pd.Series(design.draw_probabilities).reindex(draws).to_numpy(dtype=float)
        strata = sizes = None
        if design.method == "stratified":
            all_strata = pd.Series(design.strata).reindex(list(design.universe))
            strata = all_strata.reindex(draws).to_numpy()
            sizes = all_strata.value_counts().to_dict()
        index = np.array([position[q] for q in draws], dtype=np.int64)
        return cls(len(design.universe), index, inclusion, p, strata, sizes, design.method)


def _design_terms(v: np.ndarray, layout: Layout) -> tuple[float, float, np.ndarray]:
    """(estimate of mean_U(v), its design variance, weights per draw) from v per draw."""
    n_universe, n = layout.n_universe, len(v)
    if layout.method == "poisson":
        pi = layout.inclusion
        estimate = float((v / pi).sum()) / n_universe
        variance = float(((1.0 - pi) * v**2 / pi**2).sum()) / n_universe**2
        return estimate, variance, 1.0 / pi
    if layout.method == "stratified":
        estimate, variance = 0.0, 0.0
        for stratum, big_n in (layout.strata_sizes or {}).items():
            part = v[layout.strata == stratum]
            share = big_n / n_universe
            estimate += share * float(part.mean())
            variance += share**2 * (1.0 - len(part) / big_n) * float(part.var(ddof=1)) / len(part)
        return estimate, variance, 1.0 / layout.inclusion
    if layout.method == "pps":
        p = np.asarray(layout.draw_probability, dtype=float)
        z = v / (n_universe * p)
        return float(z.mean()), float(z.var(ddof=1)) / n, 1.0 / p
    fpc = 1.0 - n / n_universe
    return float(v.mean()), fpc * float(v.var(ddof=1)) / n, np.ones(n)


def design_estimate(
    model_all, human, design: Design, *, scope: str = "population", confidence: float = 0.95, layout=None,
    model_sampled=None,
) -> DesignEstimate:  # fmt: skip
    """The naive, corrected and human-only means of one per-query quantity, with standard errors and intervals.

    ``model_all`` holds ``f`` for every query of the universe, ``human`` holds ``y`` for
    (at least) the sampled queries; both Series indexed by query id. (Arrays work too when
    ``human`` and ``model_sampled`` are in ``design.queries`` order and ``layout`` is given.)
    """
    layout = Layout.of(design) if layout is None else layout
    n_universe = layout.n_universe
    sampled = design.queries
    if isinstance(human, pd.Series):
        y_sampled = human.reindex(sampled).to_numpy(dtype=float)
        f_sampled = model_all.reindex(sampled).to_numpy(dtype=float)
    else:
        y_sampled, f_sampled = np.asarray(human, dtype=float), np.asarray(model_sampled, dtype=float)
    f_all = np.asarray(model_all, dtype=float)
    naive = float(f_all.mean())
    d_draws = (y_sampled - f_sampled)[layout.draw_index]
    y_draws = y_sampled[layout.draw_index]
    rectifier, var_rectifier, weights = _design_terms(d_draws, layout)
    human_mean, var_human, _ = _design_terms(y_draws, layout)
    spread_y = _weighted_var(y_draws, weights)
    if scope == "population":
        var_rectifier += spread_y / n_universe
        var_human += spread_y / n_universe
    n = len(d_draws)
    df = max(n - (len(layout.strata_sizes or {}) if layout.method == "stratified" else 1), 1)
    quantile = float(sps.t.ppf(0.5 + confidence / 2, df))
    se, se_h = math.sqrt(max(var_rectifier, 0.0)), math.sqrt(max(var_human, 0.0))
    estimate = naive + rectifier
    sd_f = float(f_all.std(ddof=1)) if n_universe > 1 else 0.0
    naive_half = float(sps.t.ppf(0.5 + confidence / 2, max(n_universe - 1, 1))) * sd_f / math.sqrt(n_universe)
    n_distinct = len(sampled)
    if se == 0:
        ess = float(n_universe) if se_h > 0 else float(n_distinct)
    else:
        ess = n_distinct * var_human / var_rectifier
    ess = float(min(max(ess, 1.0), n_universe))
    return DesignEstimate(
        naive=naive, naive_low=naive - naive_half, naive_high=naive + naive_half,
        estimate=estimate, se=se, low=estimate - quantile * se, high=estimate + quantile * se,
        human=human_mean, human_se=se_h, human_low=human_mean - quantile * se_h, human_high=human_mean + quantile * se_h,
        rectifier=rectifier, n_universe=n_universe, n_human=n_distinct, n_draws=n, df=df,
        effective_sample_size=ess,
        nonzero_differences=int(np.count_nonzero(np.abs(y_sampled - f_sampled) > 1e-12)),
    )  # fmt: skip


def labels_frame(labels, kind: str, name: str, caller: str) -> pd.DataFrame:
    """``query_id``, ``doc_id``, ``relevance`` of qrels in any form; a LabelStore gives its ``kind`` labels."""
    from .store import LabelStore

    if isinstance(labels, LabelStore):
        qrels = labels.to_qrels(kind=kind)
        if len(qrels) == 0:
            raise InputError(
                f"{caller}: the label store {labels.path!r} has no {kind} labels for {name}. "
                f"Judge with {'labels.judge_pairs' if kind == 'model' else 'widgets.judge'} first, or pass qrels."
            )
        labels = qrels
    frame = frame_of(labels, "relevance", caller)
    if len(frame) == 0:
        raise InputError(f"{caller}: {name} has no labels; pass the qrels the {kind} graded.")
    return frame


def check_scales(model: pd.DataFrame, human: pd.DataFrame, scale, caller: str) -> tuple[int, int]:
    """The shared grade scale of the two.

    Refused when the top grades differ (0..1 against 0..3 are different scales), or when one
    side uses negative grades the other does not; unless ``scale`` states the shared scale
    and both sides keep within it. A lowest grade one side never used (a lenient model that
    never says 0) is not a different scale.
    """
    m_low, m_high = int(model["relevance"].min()), int(model["relevance"].max())
    h_low, h_high = int(human["relevance"].min()), int(human["relevance"].max())
    if scale is not None:
        low, high = int(scale[0]), int(scale[1])
        for side, lo, hi in (("model", m_low, m_high), ("human", h_low, h_high)):
            if lo < low or hi > high:
                raise InputError(
                    f"{caller}: the {side} labels use grades {lo}..{hi}, outside scale=({low}, {high}). "
                    "Map both sides to one scale before correcting."
                )
        return low, high
    if m_high != h_high or (m_low != h_low and min(m_low, h_low) < 0):
        raise InputError(
            f"{caller}: the model grades on {m_low}..{m_high} but people on {h_low}..{h_high}: the correction "
            "subtracts one from the other, so both must use one scale. Map the model's grades to the people's "
            f"scale (e.g. model.replace({{{m_high}: {h_high}}})); or, if they share a scale and the sample simply "
            f"lacks a grade, say so with scale=({min(m_low, h_low)}, {max(m_high, h_high)})."
        )
    return m_low, m_high
