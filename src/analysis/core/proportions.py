"""Shares of small counts, said with how sure they are: intervals, exact tests and the
smallest change a sample could detect (statsmodels and scipy do the arithmetic).

A new batch of labels holds tens of reports, the release tens of thousands: the normal
approximation that a Wald interval or a z-test rests on fails at such counts (a share of
0 of 4 gets the interval [0, 0]). So:

- a share gets Wilson's score interval (:func:`wilson`), which stays inside [0, 1] and
  is honest at 0 of n;
- a difference of two shares gets Newcombe's hybrid score interval (:func:`newcombe`,
  method 10 of Newcombe 1998), built from the two Wilson intervals;
- two shares are tested with Fisher's exact test (:func:`fisher`), exact at any count;
- :func:`detectable_shares` says which shares a sample of that size could tell from the
  release's at 80% power (Cohen's h with statsmodels' ``NormalIndPower``), so that "no
  change found" is read with what the batch could have found;
- a table of counts gets the chi-square test only when its expected counts allow it
  (:func:`cochran_allows`), else a Monte-Carlo permutation test (:func:`monte_carlo_p`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

LEVEL = 0.95  # every interval's level unless a caller corrects it for many at once
ALPHA = 0.05
POWER = 0.8


def wilson(count: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval of ``count`` / ``n`` (NaN, NaN when ``n`` is 0)."""
    if n <= 0:
        return math.nan, math.nan
    low, high = proportion_confint(int(count), int(n), alpha=1 - level, method="wilson")
    return float(low), float(high)


def newcombe(count1: int, n1: int, count2: int, n2: int,
             level: float = LEVEL) -> tuple[float, float]:
    """Newcombe's hybrid score interval of ``count1/n1 - count2/n2`` (NaN, NaN when
    either sample is empty)."""
    if n1 <= 0 or n2 <= 0:
        return math.nan, math.nan
    low, high = confint_proportions_2indep(int(count1), int(n1), int(count2), int(n2),
                                           method="newcomb", compare="diff",
                                           alpha=1 - level)
    return float(low), float(high)


def fisher(count1: int, n1: int, count2: int, n2: int) -> float:
    """Two-sided p of Fisher's exact test of ``count1/n1`` against ``count2/n2`` (NaN
    when either sample is empty)."""
    if n1 <= 0 or n2 <= 0:
        return math.nan
    table = [[int(count1), int(n1 - count1)], [int(count2), int(n2 - count2)]]
    return float(stats.fisher_exact(table)[1])


def detectable_shares(share: float, n: int, n_reference: int, alpha: float = ALPHA,
                      power: float = POWER) -> tuple[float, float]:
    """The shares a sample of ``n`` could tell from ``share`` (a share of a reference
    sample of ``n_reference``) with ``power`` at two-sided ``alpha``: the largest lower
    and the smallest higher share (each NaN when none lies inside [0, 1]). Cohen's h, the
    effect size of two proportions, is what ``NormalIndPower`` solves for; a share is
    ``sin(asin(sqrt(share)) ± h / 2)^2`` away from ``share``."""
    if n <= 0 or n_reference <= 0:
        return math.nan, math.nan
    h = float(NormalIndPower().solve_power(effect_size=None, nobs1=n,
                                           ratio=n_reference / n, alpha=alpha,
                                           power=power, alternative="two-sided"))
    angle = math.asin(math.sqrt(min(max(share, 0.0), 1.0)))
    low_angle, high_angle = angle - h / 2, angle + h / 2
    low = math.sin(low_angle) ** 2 if low_angle >= 0 else math.nan
    high = math.sin(high_angle) ** 2 if high_angle <= math.pi / 2 else math.nan
    return low, high


def cochran_allows(expected: np.ndarray) -> bool:
    """Cochran's rule for the chi-square test of a table: no expected count under 1 and
    at most 20% of them under 5 (below it the chi-square p-value can be far off)."""
    expected = np.asarray(expected, dtype=float)
    return bool(expected.size and (expected >= 1).all()
                and (expected < 5).sum() <= 0.2 * expected.size)


def chi_square(table: np.ndarray) -> float:
    """Pearson's chi-square statistic of each 2 x k table in ``table`` (shape (..., 2,
    k)), against the expected counts of its margins."""
    table = np.asarray(table, dtype=float)
    rows = table.sum(axis=-1, keepdims=True)
    cols = table.sum(axis=-2, keepdims=True)
    expected = rows * cols / table.sum(axis=(-2, -1), keepdims=True)
    return ((table - expected) ** 2 / np.where(expected > 0, expected, 1)).sum(axis=(-2, -1))


def monte_carlo_p(reference: np.ndarray, sample: np.ndarray, resamples: int,
                  seed: int) -> float:
    """The Monte-Carlo p of the chi-square statistic of the 2 x k table ``reference``,
    ``sample`` (counts per category) under homogeneity: the sample's counts are drawn
    ``resamples`` times without replacement from the pooled counts (a permutation of the
    reports between the two samples, with the margins fixed), and p = (1 + draws at least
    as extreme) / (1 + resamples), which is never 0."""
    reference, sample = np.asarray(reference, np.int64), np.asarray(sample, np.int64)
    pooled = reference + sample
    observed = chi_square(np.vstack([reference, sample]))
    draws = np.random.default_rng(seed).multivariate_hypergeometric(
        pooled, int(sample.sum()), size=resamples)
    tables = np.stack([pooled - draws, draws], axis=1)
    extreme = int((chi_square(tables) >= observed - 1e-9 * max(observed, 1)).sum())
    return (1 + extreme) / (1 + resamples)
