"""Fleiss' kappa per group (:func:`analysis.agreement.estimators.kappas_by_group`, what the
grouping and audit tables use): the headline's estimators, one row of pattern weights per
group, against statsmodels and the estimators on each group's issues alone."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.agreement.estimators import (
    fleiss_kappa,
    generalised_fleiss_kappa,
    kappas_by_group,
)
from analysis.agreement.ratings import MISSING
from tests.unit.agreement.synthetic import random_codes


def test_complete_rows_kappa_per_group_equals_statsmodels():
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    codes = random_codes(900, 7, 9, 11)
    groups = np.arange(900) % 3
    both = kappas_by_group(codes, groups, 3, 9)
    for g in range(3):
        sub = codes[groups == g]
        assert both["complete"]["value"][g] == pytest.approx(
            statsmodels_fleiss(aggregate_raters(sub)[0]), abs=1e-12)
        # no rating is missing: the generalised estimator is Fleiss' kappa
        assert both["generalised"]["value"][g] == pytest.approx(both["complete"]["value"][g],
                                                                abs=1e-15)


def test_both_estimators_per_group_with_missing_ratings():
    codes = random_codes(1200, 7, 8, 13, missing=0.1)
    codes[:3] = MISSING  # issues without any rating
    codes[3:6, 1:] = MISSING  # issues with a single rating
    groups = np.arange(1200) % 3
    both = kappas_by_group(codes, groups, 3, 8)
    for g in range(3):
        sub = codes[groups == g]
        full, gen = fleiss_kappa(sub, 8), generalised_fleiss_kappa(sub, 8)
        assert both["complete"]["value"][g] == full.value
        assert both["complete"]["n"][g] == full.n
        assert both["generalised"]["value"][g] == gen.value
        assert both["generalised"]["n"][g] == gen.n
        assert both["generalised"]["rated"][g] == int(((sub >= 0).sum(axis=1) >= 1).sum())


def test_the_total_row_is_all_issues():
    codes = random_codes(600, 5, 6, 17, missing=0.15)
    groups = np.arange(600) % 4
    both = kappas_by_group(codes, groups, 4, 6, with_total=True)
    every = kappas_by_group(codes, np.zeros(600, dtype=int), 1, 6)
    for est in ("complete", "generalised"):
        assert len(both[est]["value"]) == 5
        # the sums are whole numbers, so adding them over the groups changes no bit
        for key, values in every[est].items():
            assert both[est][key][-1] == values[0], key


def test_a_group_without_two_complete_issues_is_nan():
    codes = np.array([[0, 0], [1, 1], [0, MISSING]])
    both = kappas_by_group(codes, np.array([0, 0, 1]), 2, 2)
    assert both["complete"]["n"].tolist() == [2, 0]
    assert both["complete"]["value"][0] == 1.0
    assert np.isnan(both["complete"]["value"][1])
    assert both["generalised"]["rated"].tolist() == [2, 1]


def test_a_group_of_issues_without_annotator_columns_has_no_kappa():
    """A selection of no label column (an annotator left out of a one-annotator group, a
    batch's columns on the release's rows) gives no kappa, not an error."""
    out = kappas_by_group(np.zeros((5, 0), dtype=np.int16), np.array([0, 0, 1, 1, 1]), 2, 3,
                          with_total=True)
    for estimator in ("complete", "generalised"):
        assert np.isnan(out[estimator]["value"]).all()
