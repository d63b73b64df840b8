"""Alpha spending and the non-inferiority margin test (issue 33)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

import rankviz
from rankviz.stats.sequential import margin_p_values, margin_test, spending_alpha


def test_spending_sums_to_alpha_and_decreases():
    levels = np.array([spending_alpha(k, 0.05) for k in range(1, 10_001)])
    assert levels[0] == 0.025 and (np.diff(levels) < 0).all()
    assert levels.sum() == pytest.approx(0.05 * (1 - 1 / 10_001), rel=1e-12)  # telescoping: alpha (1 - 1/(K+1))
    for bad in (0, -1, 1.5, True):
        with pytest.raises(rankviz.InputError, match="check"):
            spending_alpha(bad)
    with pytest.raises(rankviz.InputError, match="alpha"):
        spending_alpha(1, 1.0)


@pytest.mark.parametrize("margin", [0.0, 0.01, 0.05])
def test_margin_test_is_scipy_one_sided_t_test_on_difference_plus_margin(margin):
    rng = np.random.default_rng(3)
    for _ in range(20):
        d = rng.normal(-0.02, 0.1, 60)
        expected = scipy_stats.ttest_1samp(d + margin, 0.0, alternative="less").pvalue
        result = margin_test(d, margin=margin, alpha=0.05)
        assert result.p_value == pytest.approx(expected, rel=1e-10)
        assert result.worse == (expected < 0.05) == (result.upper_bound < -margin)
    matrix = rng.normal(0, 0.1, (5, 30))
    np.testing.assert_allclose(
        margin_p_values(matrix, margin=margin),
        [scipy_stats.ttest_1samp(row + margin, 0.0, alternative="less").pvalue for row in matrix],
        rtol=1e-10,
    )


def test_margin_test_levels_and_degenerate_differences():
    assert margin_test(np.zeros(10), check=3).level == 0.05 / 12
    assert not margin_test(np.zeros(10)).worse  # no difference at all: no drop
    assert margin_test(np.full(10, -0.2), margin=0.1).worse  # every query worse by more than the margin
    assert not margin_test(np.full(10, -0.05), margin=0.1).worse
    with pytest.raises(rankviz.InputError, match="margin"):
        margin_test(np.zeros(10), margin=-0.1)
    with pytest.raises(rankviz.InputError, match="at least 2"):
        margin_test([0.1])
    with pytest.raises(rankviz.InputError, match="missing"):
        margin_test([0.1, np.nan])
