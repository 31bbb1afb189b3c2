"""The stage's agreement tables: coefficients per group with their intervals, agreement per
theme, and Fleiss' kappa under candidate groupings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import tables as tb
from analysis.agreement.estimators import (
    STATISTICS,
    category_kappa_arrays,
    fleiss_kappa,
    generalised_fleiss_kappa,
    gwet_ac1,
)
from analysis.agreement.ratings import Ratings, Scale, label_patterns
from tests.unit.agreement.synthetic import random_codes

SCALE = Scale(tuple("abcde"), np.array([0, 0, 1, 1, 1]), ("X", "Y"))


def halves(n: int) -> dict[str, pd.Series]:
    return {"type": pd.Series(np.where(np.arange(n) < n // 2, "g1", "g2"))}


def test_bootstrap_is_seeded_and_covers_the_estimate():
    codes = random_codes(300, 4, 5, 2)
    s1, c1 = tb.agreement_tables(codes, SCALE, halves(300), 200, 7)
    s2, c2 = tb.agreement_tables(codes, SCALE, halves(300), 200, 7)
    pd.testing.assert_frame_equal(s1, s2)
    pd.testing.assert_frame_equal(c1, c2)
    s3, _ = tb.agreement_tables(codes, SCALE, halves(300), 200, 8)
    assert not s1["boot_low"].equals(s3["boot_low"])
    row = s1[(s1["group"] == "all issues") & (s1["statistic"] == "fleiss_kappa")].iloc[0]
    assert row["boot_low"] < row["value"] < row["boot_high"]
    assert row["ci_low"] < row["value"] < row["ci_high"]
    assert set(s1["group"]) == {"all issues", "g1", "g2"}
    assert list(s1.columns) == tb.STAT_COLUMNS
    assert s1["statistic"].tolist()[:5] == [*STATISTICS, "fleiss_kappa_type"]
    sub = s1[(s1["group"] == "g1") & (s1["statistic"] == "fleiss_kappa")].iloc[0]
    assert sub["value"] == pytest.approx(fleiss_kappa(codes[:150], 5).value, abs=1e-12)


def test_tables_carry_both_estimators_and_the_ac1_categories():
    codes = random_codes(300, 4, 5, 2, missing=0.2)
    s, _ = tb.agreement_tables(codes, SCALE, halves(300), 50, 7, ac1_categories=9)
    row = s[(s["group"] == "all issues")].set_index("statistic")
    gen = generalised_fleiss_kappa(codes, 5)
    assert row.loc["fleiss_kappa_generalised", "value"] == pytest.approx(gen.value, abs=1e-12)
    assert row.loc["fleiss_kappa_generalised", "issues_used"] == gen.n
    assert row.loc["fleiss_kappa", "issues_used"] == int((codes >= 0).all(axis=1).sum())
    assert row.loc["gwet_ac1", "value"] == pytest.approx(
        gwet_ac1(codes, 5, assumed_categories=9).value, abs=1e-12)
    low, high = row.loc["fleiss_kappa_generalised", ["boot_low", "boot_high"]]
    assert low < gen.value < high


def test_tables_without_resamples_have_no_bootstrap_interval():
    codes = random_codes(60, 3, 5, 4)
    s, c = tb.agreement_tables(codes, SCALE, halves(60), 0, 1)
    assert s["boot_low"].isna().all() and s["boot_high"].isna().all()
    assert s["ci_low"].notna().all()
    assert c["boot_low"].isna().all() and c["kappa"].notna().all()


def test_an_undefined_coefficient_says_why_and_has_no_interval():
    codes = np.array([[0, 0, 1], [1, 1, 1], [0, 0, 0], [2, 2, 2]])
    groups = {"type": pd.Series(["one", "many", "many", "many"])}
    s, _ = tb.agreement_tables(codes, SCALE, groups, 20, 1)
    one = s[(s["group"] == "one")].set_index("statistic")
    assert one["value"].isna().all()
    assert one.loc["fleiss_kappa", "note"] == (
        "not defined: 1 issue(s) rated by all 3 annotators (needs two or more)")
    assert one[["ci_low", "boot_low"]].isna().all().all()
    assert one.loc["fleiss_kappa", "issues"] == 1


def test_group_rows_count_the_issues_each_coefficient_uses():
    codes = np.array([[0, 0, -1], [0, 0, 0], [1, 1, 1], [1, 0, 1], [2, -1, -1]])
    pats, _ = label_patterns(codes, 5)
    ft = pats.features.collapse(SCALE.type_index, 2)
    rows = tb.group_rows(pats.features, ft, pats.weights, {}, "all", "all issues", 0, 0.95)
    got = {r["statistic"]: (r["issues_used"], r["issues_left_out"]) for r in rows}
    assert got == {"fleiss_kappa": (3, 2), "fleiss_kappa_generalised": (4, 1),
                   "krippendorff_alpha": (4, 1), "gwet_ac1": (5, 0),
                   "fleiss_kappa_type": (3, 2)}
    assert {r["level"] for r in rows if r["statistic"] == "fleiss_kappa_type"} == {"type"}


def test_category_table_is_fleiss_per_category():
    codes = random_codes(200, 4, 5, 6)
    pats, _ = label_patterns(codes, 5)
    table = tb.category_table(pats.features, pats.weights, SCALE, np.empty((0, 5)),
                              names={"a": "Alpha"})
    point = category_kappa_arrays(pats.weights, pats.features)
    assert table["code"].tolist() == list("abcde")
    assert table["type"].tolist() == ["X", "X", "Y", "Y", "Y"]
    assert table["name"].tolist() == ["Alpha", "", "", "", ""]
    assert table["kappa"].tolist() == pytest.approx(point["value"][0].tolist(), abs=1e-15)
    assert table["ratings"].sum() == 800
    assert table["share"].sum() == pytest.approx(1.0)


def test_a_category_nobody_used_is_not_defined():
    codes = np.array([[0, 0, 1], [1, 1, 1], [0, 0, 0]])
    pats, _ = label_patterns(codes, 5)
    table = tb.category_table(pats.features, pats.weights, SCALE, np.empty((0, 5)))
    unused = table.set_index("code").loc["e"]
    assert unused["ratings"] == 0 and np.isnan(unused["kappa"])  # None: NaN in a frame
    assert unused["note"] == "not defined: no rating or every rating in this category"


def test_joint_patterns_split_the_patterns_by_group():
    codes = np.array([[0, 0], [0, 0], [1, 1], [0, 0]])
    joint, parts = tb.joint_patterns(codes, 2, [np.array([0, 1, 1, 0])])
    assert joint.codes.tolist() == [[0, 0], [0, 0], [1, 1]]
    assert joint.weights.tolist() == [2.0, 1.0, 1.0]
    assert parts[0].tolist() == [0, 1, 1]


def test_grouping_candidates():
    codes = np.array([[0, 0, 2], [0, 0, 0], [2, 2, 2], [2, 2, 0], [1, 0, 1], [2, 2, 3]])
    scale = Scale(("a1", "a2", "b1", "b2"), np.array([0, 0, 1, 1]), ("A", "B"))
    ratings = Ratings(codes, scale.categories, ("annotator_1", "annotator_2",
                                                "annotator_3"))
    final = pd.Series(["A", "A", "B", "B", "A", "B"])
    table = tb.grouping_candidates(ratings, scale, final, ["A", "B"])
    got = table.set_index(["grouping", "type"])["issues"].to_dict()
    assert got[("final label", "A")] == 3 and got[("final label", "B")] == 3
    assert got[("unanimous type", "A")] == 2 and got[("unanimous type", "B")] == 2
    assert got[("first annotator", "A")] == 3
    row = table.set_index(["grouping", "type"]).loc[("final label", "A")]
    assert row["kappa"] == pytest.approx(fleiss_kappa(codes[[0, 1, 4]], 4).value, abs=1e-12)
