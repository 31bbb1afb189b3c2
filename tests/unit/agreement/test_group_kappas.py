"""Fleiss' kappa per group straight from the codes, against the pattern-based estimators
and statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import group_kappas as gk
from analysis.agreement.estimators import fleiss_kappa, generalised_fleiss_kappa
from analysis.agreement.ratings import MISSING
from tests.unit.agreement.synthetic import random_codes


def test_fast_headline_path_equals_patterns_and_statsmodels():
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    codes = random_codes(900, 7, 9, 11)
    groups = np.arange(900) % 3
    fast = gk.fleiss_by_group(codes, groups, 3, 9)
    for g in range(3):
        sub = codes[groups == g]
        assert fast["kappa"][g] == pytest.approx(fleiss_kappa(sub, 9).value, abs=1e-12)
        assert fast["kappa"][g] == pytest.approx(statsmodels_fleiss(aggregate_raters(sub)[0]),
                                                 abs=1e-12)


def test_fast_path_gives_both_estimators_per_group_with_missing_ratings():
    codes = random_codes(1200, 7, 8, 13, missing=0.1)
    codes[:3] = MISSING  # issues without any rating
    codes[3:6, 1:] = MISSING  # issues with a single rating
    groups = np.arange(1200) % 3
    fast = gk.kappas_by_group(codes, groups, 3, 8)
    for g in range(3):
        sub = codes[groups == g]
        full, gen = fleiss_kappa(sub, 8), generalised_fleiss_kappa(sub, 8)
        assert fast["complete"]["kappa"][g] == pytest.approx(full.value, abs=1e-12)
        assert fast["complete"]["n"][g] == full.n
        assert fast["generalised"]["kappa"][g] == pytest.approx(gen.value, abs=1e-12)
        assert fast["generalised"]["n"][g] == gen.n
        assert fast["generalised"]["rated"][g] == int(((sub >= 0).sum(axis=1) >= 1).sum())
    assert gk.fleiss_by_group(codes, groups, 3, 8).equals(fast["complete"])


def test_fast_path_total_row_is_all_issues():
    codes = random_codes(600, 5, 6, 17, missing=0.15)
    groups = np.arange(600) % 4
    both = gk.kappas_by_group(codes, groups, 4, 6, with_total=True)
    every = gk.kappas_by_group(codes, np.zeros(600, dtype=int), 1, 6)
    for est in ("complete", "generalised"):
        assert len(both[est]) == 5
        # the sums are whole numbers, so adding them over the groups changes no bit
        pd.testing.assert_series_equal(both[est].iloc[-1], every[est].iloc[0],
                                       check_names=False, check_exact=True)


def test_a_group_without_two_complete_issues_is_nan():
    codes = np.array([[0, 0], [1, 1], [0, MISSING]])
    both = gk.kappas_by_group(codes, np.array([0, 0, 1]), 2, 2)
    assert both["complete"]["n"].tolist() == [2, 0]
    assert both["complete"]["kappa"].iloc[0] == 1.0
    assert np.isnan(both["complete"]["kappa"].iloc[1])
    assert both["generalised"]["rated"].tolist() == [2, 1]


def test_missing_counts_and_agreeing_pairs():
    cols = np.array([[0, MISSING, 2, MISSING],
                     [0, MISSING, 1, MISSING],
                     [0, 1, 1, MISSING]], dtype=np.int8)  # annotators x issues
    gaps = gk.missing_counts(cols)
    assert gaps.tolist() == [0, 2, 0, 3]
    pairs = gk.agreeing_pairs(cols)
    assert pairs.tolist() == [3, 0, 1, 0]  # two missing ratings are no agreeing pair
    assert np.array_equal(gk.agreeing_pairs(cols, gaps), pairs)
