"""Coding the ratings, the scale and groups, and collapsing issues into label patterns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import ratings as rt
from analysis.agreement.estimators import fleiss_kappa
from analysis.core.errors import InputError
from tests.unit.agreement.synthetic import random_codes

# --------------------------------------------------------------------------- encoding


def test_encoding_discovers_annotators_and_unknown_labels():
    frame = pd.DataFrame({
        "annotator_10": ["A.1", "X.9", None], "annotator_2": ["A.1", "A.2", "A.2"],
        "annotator_1": ["A.2", "A.2", "A.1"],
    })
    r = rt.encode_ratings(frame, ["A.1", "A.2", "B.1"])
    assert r.annotators == ("annotator_1", "annotator_2", "annotator_10")
    assert r.categories == ("A.1", "A.2", "B.1", "X.9")
    assert r.codes.tolist() == [[1, 0, 0], [1, 1, 3], [0, 1, -1]]
    assert (r.n_raters, r.n_categories) == (3, 4)
    cat = frame.astype("category")
    assert np.array_equal(rt.encode_ratings(cat, ["A.1", "A.2", "B.1"]).codes, r.codes)


def test_encoding_no_issues_keeps_the_annotators():
    frame = pd.DataFrame({"annotator_1": pd.Series([], dtype=object),
                          "annotator_2": pd.Series([], dtype=object)})
    r = rt.encode_ratings(frame, ["A.1"])
    assert r.codes.shape == (0, 2) and r.categories == ("A.1",)


def test_no_annotator_columns_is_a_user_error():
    with pytest.raises(InputError, match="no annotator"):
        rt.annotator_columns(["project", "final_label"], file="issues.parquet")


def test_category_order_known_codes_first_then_unknown_sorted():
    assert rt.category_order(["Z.1", "A.1", None, np.nan, "B.2"], ["B.1", "A.1"]) == \
        ["B.1", "A.1", "B.2", "Z.1"]


def test_encode_column_and_a_label_outside_the_scale():
    final = pd.Series(["A.2", None, "A.1"])
    assert rt.encode_column(final, ["A.1", "A.2"]).tolist() == [1, rt.MISSING, 0]
    with pytest.raises(ValueError, match="missing from the categories"):
        rt.encode_column(pd.Series(["C.1"]), ["A.1", "A.2"])


def test_collapse_map_puts_the_order_first():
    index, coarse = rt.collapse_map(["A.1", "Q.1", "A.2", "X.9"], lambda c: c[0], ["Q", "A"])
    assert coarse == ("Q", "A", "X")
    assert index.tolist() == [1, 0, 1, 2]


# --------------------------------------------------------------------------- scale and groups


def test_type_columns_and_type_range():
    codes = np.array([[0, 1, rt.MISSING], [2, 3, 2], [rt.MISSING, rt.MISSING, rt.MISSING]])
    tcols = rt.type_columns(codes, np.array([0, 0, 1, 1]))
    assert tcols.tolist() == [[0, 1, -1], [0, 1, -1], [-1, 1, -1]]  # annotators x issues
    assert tcols.dtype == np.int8 and tcols.flags["C_CONTIGUOUS"]
    lo, hi = rt.type_range(tcols)
    assert lo.tolist()[:2] == [0, 1] and hi.tolist() == [0, 1, -1]


def test_group_index_order_first_then_sorted_and_unused_categories_dropped():
    index, names = rt.group_index(pd.Series(["b", "c", "a", "c"]), ["c"])
    assert names == ["c", "a", "b"] and index.tolist() == [2, 0, 1, 0]
    cat = pd.Series(pd.Categorical(["b", "a"], categories=["a", "b", "unused"]))
    index, names = rt.group_index(cat, ["unused", "b"])
    assert names == ["b", "a"] and index.tolist() == [0, 1]


# --------------------------------------------------------------------------- patterns


def test_patterns_are_order_free_and_both_paths_agree():
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    codes = random_codes(500, 5, 4, 1)
    a, inv = rt.label_patterns(codes, 4)
    assert a.n_issues == 500
    assert np.array_equal(a.codes[inv], codes)
    shuffled = codes[np.random.default_rng(0).permutation(500)]
    b, _ = rt.label_patterns(shuffled, 4)
    assert np.array_equal(a.codes, b.codes) and np.array_equal(a.weights, b.weights)
    wide = np.repeat(codes, 4, axis=1)  # 20 raters x 3 bits > 62: the np.unique path
    c, inv_c = rt.label_patterns(wide, 4)
    assert np.array_equal(c.codes[inv_c], wide)
    assert sorted(c.weights) == sorted(a.weights)
    assert fleiss_kappa(wide, 4).value == pytest.approx(
        statsmodels_fleiss(aggregate_raters(wide)[0]), abs=1e-12)


def test_pattern_features_count_the_ratings_and_agreeing_pairs():
    codes = np.array([[0, 0, 1], [0, 0, 1], [2, rt.MISSING, 2]])
    pats, inverse = rt.label_patterns(codes, 3, weights=np.array([1.0, 2.0, 5.0]))
    assert pats.codes.tolist() == [[0, 0, 1], [2, -1, 2]]  # in the order of their content
    assert pats.weights.tolist() == [3.0, 5.0] and inverse.tolist() == [0, 0, 1]
    f = pats.features
    assert f.counts.tolist() == [[2, 1, 0], [0, 0, 2]]
    assert f.m.tolist() == [3, 2] and f.sumsq.tolist() == [5, 4]  # m + 2 * agreeing pairs
    coarse = f.collapse(np.array([0, 0, 1]), 2)
    assert coarse.counts.tolist() == [[3, 0], [0, 2]] and coarse.n_raters == 3
    assert f.take(np.array([1])).counts.tolist() == [[0, 0, 2]]


def test_pattern_counts_skip_missing_ratings():
    counts = rt.pattern_counts(np.array([[1, rt.MISSING, 1], [0, 2, 0]]), 3)
    assert counts.tolist() == [[0, 2, 0], [2, 0, 1]]


def test_no_issues_give_no_patterns():
    pats, inverse = rt.label_patterns(np.empty((0, 3), dtype=np.int8), 4)
    assert pats.n_issues == 0 and len(pats.weights) == 0 and len(inverse) == 0
