"""Intervals and tests of small counts (analysis.core.proportions), each checked against
a published example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from analysis.core import proportions as pr


# Newcombe RG (1998). Two-sided confidence intervals for the single proportion: comparison
# of seven methods. Statistics in Medicine 17:857-872, Table I, method 3 (Wilson's score
# interval without continuity correction).
@pytest.mark.parametrize(("count", "n", "low", "high"), [
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718)])
def test_wilson_matches_newcombe_1998_and_statsmodels(count, n, low, high):
    got = pr.wilson(count, n)
    assert got == pytest.approx((low, high), abs=5e-5)
    assert got == pytest.approx(proportion_confint(count, n, method="wilson"))


def test_wilson_matches_the_textbook_formula():
    """Agresti A, Coull BA (1998), The American Statistician 52:119-126, eq. (2): the score
    interval (p + z²/2n ± z √(p(1-p)/n + z²/4n²)) / (1 + z²/n)."""
    count, n = 7, 19
    z, p = stats.norm.ppf(0.975), count / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert pr.wilson(count, n) == pytest.approx(((centre - half) / (1 + z * z / n),
                                                 (centre + half) / (1 + z * z / n)))
    assert all(math.isnan(x) for x in pr.wilson(0, 0))


# Newcombe RG (1998). Interval estimation for the difference between independent
# proportions: comparison of eleven methods. Statistics in Medicine 17:873-890, Table II,
# method 10 (the hybrid score interval without continuity correction).
@pytest.mark.parametrize(("m", "n", "x", "y", "low", "high"), [
    (56, 70, 48, 80, 0.0524, 0.3339), (9, 10, 3, 10, 0.1705, 0.8090),
    (6, 7, 2, 7, 0.0582, 0.8062), (5, 56, 0, 29, -0.0381, 0.1926),
    (0, 10, 0, 20, -0.1611, 0.2775), (0, 10, 0, 10, -0.2775, 0.2775),
    (10, 10, 0, 20, 0.6791, 1.0000), (10, 10, 0, 10, 0.6075, 1.0000)])
def test_newcombe_matches_the_hybrid_score_examples_of_newcombe_1998(m, n, x, y, low, high):
    assert pr.newcombe(m, n, x, y) == pytest.approx((low, high), abs=5e-5)


def test_newcombe_at_a_corrected_level_is_wider():
    assert pr.newcombe(9, 10, 3, 10, 0.99)[0] < pr.newcombe(9, 10, 3, 10)[0]


def test_fisher_matches_r_tea_tasting_example():
    """R's ``?fisher.test``, Agresti (1990) p. 61: the tea-tasting lady, 3 of 4 cups right.
    ``fisher.test(TeaTasting, alternative = "greater")`` prints p-value = 0.2429; the
    two-sided p is twice that, 0.4857."""
    assert pr.fisher(3, 4, 1, 4) == pytest.approx(0.4857, abs=5e-5)
    assert stats.fisher_exact([[3, 1], [1, 3]], alternative="greater")[1] == pytest.approx(
        0.2429, abs=5e-5)
    assert math.isnan(pr.fisher(1, 0, 1, 4))


def test_detectable_shares_follow_cohens_h():
    """Cohen J (1988), Statistical power analysis, Table 6.4.1: at 80% power and a
    two-sided 0.05, two samples of 100 detect h = 0.40 (0.396 exactly)."""
    low, high = pr.detectable_shares(0.5, 100, 100)
    h = 2 * math.asin(math.sqrt(high)) - 2 * math.asin(math.sqrt(0.5))
    assert h == pytest.approx(0.396, abs=5e-3)
    assert low == pytest.approx(1 - high)
    # a share of 0 can only rise
    low, high = pr.detectable_shares(0.0, 19, 38_742)
    assert math.isnan(low) and 0.05 < high < 0.2


def test_cochrans_rule():
    assert pr.cochran_allows(np.array([[5, 6], [7, 8.0]]))
    assert not pr.cochran_allows(np.array([[5, 6], [7, 0.9]]))  # one under 1
    assert not pr.cochran_allows(np.array([[4, 4], [7, 8.0]]))  # half under 5
    assert pr.cochran_allows(np.array([[4, *[6] * 4], [6] * 5]))  # 1 in 10 under 5


def test_chi_square_statistic_is_pearsons():
    table = np.array([[60, 40, 3], [5, 25, 1]])
    assert pr.chi_square(table) == pytest.approx(
        stats.chi2_contingency(table, correction=False)[0])


def test_monte_carlo_p_is_never_zero_and_close_to_the_exact_p():
    # the tea-tasting table as a permutation test: the exact two-sided p is Fisher's
    p = pr.monte_carlo_p(np.array([3, 1]), np.array([1, 3]), 20_000, 1)
    assert p == pytest.approx(0.4857, abs=0.02)
    assert pr.monte_carlo_p(np.array([100, 0]), np.array([0, 100]), 99, 1) == 0.01
