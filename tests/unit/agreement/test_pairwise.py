"""Agreement between pairs of raters: Cohen's kappa and the confusions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import pairwise as pw
from analysis.agreement.ratings import MISSING, Ratings, Scale
from tests.unit.agreement.synthetic import random_codes


def test_cohen_matches_statsmodels():
    from statsmodels.stats.inter_rater import cohens_kappa

    codes = random_codes(500, 3, 4, 5)
    ratings = Ratings(codes, tuple("abcd"), ("annotator_1", "annotator_2", "annotator_3"))
    pairs = pw.pairwise_cohen(ratings)
    assert len(pairs) == 6  # both orders of three pairs
    assert pairs[["annotator_a", "annotator_b"]].values.tolist() == [
        ["annotator_1", "annotator_2"], ["annotator_1", "annotator_3"],
        ["annotator_2", "annotator_1"], ["annotator_2", "annotator_3"],
        ["annotator_3", "annotator_1"], ["annotator_3", "annotator_2"]]
    table = pd.crosstab(codes[:, 0], codes[:, 2]).to_numpy()
    row = pairs[(pairs["annotator_a"] == "annotator_1") & (pairs["annotator_b"] == "annotator_3")]
    assert row["kappa"].iloc[0] == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    ref = pw.versus_reference(ratings, codes[:, 0])
    assert ref["kappa"].iloc[0] == pytest.approx(1.0)
    assert ref["agreement"].iloc[0] == 1.0
    assert ref["annotator"].tolist() == list(ratings.annotators)


def test_cohen_interval_is_normal_around_the_kappa():
    from scipy import stats
    from statsmodels.stats.inter_rater import cohens_kappa

    table = np.array([[20, 5], [10, 15]])
    res = pw.cohen(table, confidence_level=0.9)
    ref = cohens_kappa(table)
    z = stats.norm.ppf(0.95)
    assert res["n"] == 50 and res["agreement"] == 0.7
    assert (res["ci_low"], res["ci_high"]) == pytest.approx(
        (ref.kappa - z * ref.std_kappa, ref.kappa + z * ref.std_kappa), abs=1e-12)


def test_cohen_not_defined():
    empty = pw.cohen(np.zeros((3, 3)))
    assert empty["kappa"] is None and empty["note"] == "not defined: no issue rated by both"
    one = pw.cohen(np.array([[4, 0], [0, 0]]))
    assert one["kappa"] is None and one["agreement"] == 1.0
    assert one["note"] == "not defined: all labels in one category"


def test_cross_table_leaves_out_missing_ratings():
    x = np.array([0, 1, MISSING, 2, 1], dtype=np.int8)
    y = np.array([0, 2, 1, MISSING, 1], dtype=np.int8)
    assert pw.cross_table(x, y, 3).tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 0]]


def test_one_annotator_has_no_pairs():
    ratings = Ratings(np.array([[0], [1]]), ("a", "b"), ("annotator_1",))
    assert pw.pairwise_cohen(ratings).empty


def test_confusions_count_disagreeing_pairs():
    codes = np.array([[0, 0, 1], [0, 1, 1], [2, 2, 2]])
    scale = Scale(("a", "b", "c"), np.array([0, 0, 1]), ("X", "Y"))
    conf = pw.confusions(codes, scale)
    assert conf[["label_a", "label_b", "rater_pairs", "issues"]].values.tolist() == \
        [["a", "b", 4, 2]]


def test_confusions_most_frequent_first_with_their_share():
    codes = np.array([[0, 1], [0, 1], [1, 2], [0, 2], [2, 2]])
    scale = Scale(("a", "b", "c"), np.array([0, 0, 1]), ("X", "Y"))
    conf = pw.confusions(codes, scale)
    assert conf[["label_a", "label_b", "rater_pairs"]].values.tolist() == [
        ["a", "b", 2], ["a", "c", 1], ["b", "c", 1]]
    assert conf["share_of_disagreements"].tolist() == [0.5, 0.25, 0.25]
    assert conf[["type_a", "type_b"]].values.tolist()[1] == ["X", "Y"]
