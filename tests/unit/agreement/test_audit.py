"""Unit tests of the annotation audit on synthetic ratings with known behaviour."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.agreement import audit as au
from analysis.agreement.estimators import fleiss_kappa, generalised_fleiss_kappa
from analysis.agreement.ratings import MISSING, Ratings, Scale


def independent(n: int, rates: list[float], k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Issues with a true label; each annotator errs independently at its rate, choosing a
    wrong label uniformly. The final label is the true label."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    err = rng.random((n, len(rates))) < np.array(rates)
    wrong = (truth[:, None] + rng.integers(1, k, (n, len(rates)))) % k
    return np.where(err, wrong, truth[:, None]).astype(np.int8), truth


def test_poisson_binomial():
    assert au.poisson_binomial([0.3] * 5) == pytest.approx(stats.binom.pmf(range(6), 5, 0.3))
    pmf = au.poisson_binomial([0.1, 0.5, 0.9])
    assert pmf.sum() == pytest.approx(1) and len(pmf) == 4
    assert pmf[0] == pytest.approx(0.9 * 0.5 * 0.1)


def test_independent_errors_fit_the_poisson_binomial():
    codes, final = independent(20000, [0.05, 0.1, 0.15, 0.2, 0.25], 6, 0)
    dist = au.dissent_distribution(codes, final, pd.Series(["p"] * len(final)))
    assert dist["expected_pooled"].sum() == pytest.approx(20000)
    tests = au.dissent_tests(dist).set_index("column")
    assert tests.loc["expected_pooled", "p_value"] > 0.001
    assert tests.loc["expected_pooled", "variance_ratio"] == pytest.approx(1, abs=0.05)


def test_concentrated_dissent_is_detected():
    # half the issues are hard (everyone errs often), half easy: dissent concentrates
    a, fa = independent(10000, [0.4] * 5, 6, 1)
    b, fb = independent(10000, [0.02] * 5, 6, 2)
    codes, final = np.vstack([a, b]), np.concatenate([fa, fb])
    dist = au.dissent_distribution(codes, final, pd.Series(["p"] * len(final)))
    tests = au.dissent_tests(dist).set_index("column")
    assert tests.loc["expected_pooled", "p_value"] < 1e-6
    assert tests.loc["expected_pooled", "variance_ratio"] > 1.5
    co = au.co_dissent(Ratings(codes, tuple("abcdef"), tuple(f"annotator_{i}" for i in
                                                                range(1, 6))),
                       final, pd.Series(["p"] * len(final)))
    assert (co["ratio"] > 1.3).all()


def test_majority_condition_caps_the_dissent():
    codes, final = independent(3000, [0.3] * 5, 4, 3)
    exp = au.expected_dissent(codes, final, np.zeros(len(final)), given_majority=True)
    assert exp[3:].sum() == 0 and exp.sum() == pytest.approx(3000)
    assert au.max_dissent(7) == 3 and au.max_dissent(4) == 1 and au.max_dissent(1) == 0


def test_missing_ratings_are_neither_agreement_nor_dissent():
    codes = np.array([[0, MISSING, 1], [0, 0, 0]])
    final = np.array([0, 0])
    assert au.dissent_matrix(codes, final).sum(axis=1).tolist() == [1, 0]
    ratings = Ratings(codes, ("a", "b"), ("annotator_1", "annotator_2", "annotator_3"))
    table = au.agreement_with_final(ratings, final, pd.Series(["x", "y"]))
    row = table[(table["stratum"] == "all") & (table["annotator"] == "annotator_2")].iloc[0]
    assert row["rated"] == 1 and row["share"] == 1.0
    # the issues of each stratum with a rating, on every row of the stratum
    assert table.groupby("stratum")["issues"].unique().map(list).to_dict() == {
        "all": [2], "x": [1], "y": [1]}
    exp = au.expected_dissent(codes, final, np.zeros(2))
    assert exp.sum() == pytest.approx(2)


def test_even_and_concentrated_spread():
    scale = Scale(tuple("abcde"), np.zeros(5, dtype=int), ("T",))
    even = np.zeros((5, 5))
    even[0, 1:] = 250
    conc = np.zeros((5, 5))
    conc[0, 1:] = [900, 50, 25, 25]
    s_even = au.dissent_spread(even, scale).iloc[0]
    s_conc = au.dissent_spread(conc, scale).iloc[0]
    assert s_even["evenness"] == pytest.approx(1.0) and s_even["p_value"] == pytest.approx(1)
    assert s_conc["evenness"] < 0.5 and s_conc["p_value"] < 1e-6
    assert s_conc["top_alternative"] == "b" and s_conc["top_share"] == pytest.approx(0.9)
    assert au.dissent_spread(np.zeros((5, 5)), scale)["evenness"].isna().all()


def test_dissent_targets_and_type_disagreement():
    codes = np.array([[0, 1, 2], [2, 2, 2], [0, 0, 3]])
    final = np.array([0, 2, 0])
    m = au.dissent_targets(codes, final, 4)
    assert m[0].tolist() == [0, 1, 1, 1] and m.sum() == 3
    assert au.type_disagreement(codes, np.array([0, 0, 1, 1])) == 2


def test_merge_small_bins():
    obs, exp = au.merge_small_bins(np.array([50, 30, 4, 1, 0]), np.array([48, 31, 4, 1.5, 0.5]))
    assert obs.tolist() == [50, 30, 5] and exp.tolist() == [48, 31, 6]


def test_the_model_that_can_fit_comes_first():
    codes, final = independent(2000, [0.2] * 5, 4, 5)
    dist = au.dissent_distribution(codes, final, pd.Series(["p"] * len(final)))
    assert list(dist.columns[2:]) == list(au.MODELS)
    assert list(dist.columns[2:])[0] == "expected_by_project_majority"
    tests = au.dissent_tests(dist)
    assert tests["column"].tolist() == list(au.MODELS)
    assert tests["model"].tolist() == list(au.MODELS.values())


def test_spread_summary_counts_every_p_value_and_the_well_tested_ones():
    spread = pd.DataFrame({"within_type": [500, 150, 20, 0],
                           "dissenting_labels": [600, 150, 25, 3],
                           "evenness": [0.9, 0.8, 0.5, None],
                           "p_value": [0.01, 0.5, 0.03, None]})
    s = au.spread_summary(spread, min_labels=100)
    assert s["themes_with_p"] == 3 and s["themes_with_p_uneven_5pct"] == 2
    assert s["themes_tested"] == 2 and s["themes_uneven_5pct"] == 1
    assert s["evenness_weighted"] == pytest.approx((0.9 * 500 + 0.8 * 150) / 650)


def always_final_ratings() -> tuple[Ratings, np.ndarray, pd.Series]:
    """Project p: column 1 always equals the final label; project q: it does not."""
    codes, final = independent(600, [0.2, 0.25, 0.3, 0.2, 0.25], 5, 9)
    project = pd.Series(np.where(np.arange(600) < 300, "p", "q"))
    codes[:300, 0] = final[:300]
    codes[300, 0] = (final[300] + 1) % 5
    ratings = Ratings(codes, tuple("abcde"), tuple(f"annotator_{i}" for i in range(1, 6)))
    return ratings, final, project


def test_always_final_finds_the_column_and_masks_it_in_its_project():
    ratings, final, project = always_final_ratings()
    table = au.agreement_with_final(ratings, final, project, ["p", "q"])
    pairs = au.always_final(table)
    assert pairs.to_dict("records") == [{"project": "p", "annotator": "annotator_1",
                                         "issues": 300}]
    masked = au.mask_cells(ratings.codes, project, ratings.annotators, pairs)
    assert (masked[:300, 0] == MISSING).all()
    assert np.array_equal(masked[300:], ratings.codes[300:])
    assert np.array_equal(masked[:, 1:], ratings.codes[:, 1:])


def test_kappa_rows_per_group_and_over_all_issues():
    ratings, _, _ = always_final_ratings()
    codes = ratings.codes.copy()
    codes[:50, 2] = MISSING
    groups = np.arange(600) % 2
    rows = au.kappa_rows(codes, groups, ["g1", "g2"], 5)
    assert [r["type"] for r in rows] == ["g1", "g2", "all issues"]
    for row, sub in zip(rows, [codes[groups == 0], codes[groups == 1], codes], strict=True):
        full, gen = fleiss_kappa(sub, 5), generalised_fleiss_kappa(sub, 5)
        assert row["kappa"] == pytest.approx(full.value, abs=1e-12)
        assert row["issues"] == full.n
        assert row["kappa_generalised"] == pytest.approx(gen.value, abs=1e-12)
        assert row["issues_generalised"] == gen.n
    assert rows[-1]["issues"] == 550 and rows[-1]["issues_generalised"] == 600
    empty = au.kappa_rows(codes[:1], groups[:1], ["g1"], 5)
    assert empty[0]["kappa"] is None and empty[0]["kappa_generalised"] is None


def test_leave_one_out_recomputes_each_kappa_without_the_column():
    ratings, _, _ = always_final_ratings()
    groups = np.arange(600) % 2
    baseline = au.kappa_rows(ratings.codes, groups, ["g1", "g2"], 5)
    loo = au.leave_one_out(ratings, groups, ["g1", "g2"], baseline)
    assert len(loo) == (1 + ratings.n_raters) * 3
    row = loo[(loo["left_out"] == "annotator_2") & (loo["type"] == "g2")].iloc[0]
    sub = np.delete(ratings.codes, 1, axis=1)[groups == 1]
    assert row["kappa"] == pytest.approx(fleiss_kappa(sub, 5).value, abs=1e-12)
    assert row["annotators"] == 4 and row["issues"] == 300
    base = loo[(loo["left_out"] == "none") & (loo["type"] == "g2")].iloc[0]
    assert row["change"] == pytest.approx(row["kappa"] - base["kappa"])
    assert (loo.loc[loo["left_out"] == "none", "change"] == 0).all()
    # the rows with all columns are the baseline passed in, not computed again
    none = loo[loo["left_out"] == "none"]
    assert none[["type", "issues", "kappa", "issues_generalised",
                 "kappa_generalised"]].to_dict("records") == baseline


def test_column_sensitivity_two_ways():
    ratings, final, project = always_final_ratings()
    pairs = au.always_final(au.agreement_with_final(ratings, final, project))
    groups = np.zeros(600, dtype=int)
    baseline = au.kappa_rows(ratings.codes, groups, ["all"], 5)
    sens = au.column_sensitivity(ratings, project, groups, ["all"], pairs,
                                 baseline).set_index(["scenario", "type"])
    masked = au.mask_cells(ratings.codes, project, ratings.annotators, pairs)
    local = sens.loc[("without in those projects", "all")]
    assert local["issues"] == 300 and local["issues_generalised"] == 600
    assert local["kappa_generalised"] == pytest.approx(
        generalised_fleiss_kappa(masked, 5).value, abs=1e-12)
    everywhere = sens.loc[("without everywhere", "all")]
    assert everywhere["kappa"] == pytest.approx(
        fleiss_kappa(ratings.codes[:, 1:], 5).value, abs=1e-12)
    assert sens.loc[("all columns", "all"), "change"] == 0
    assert sens.loc[("all columns", "all"), "kappa"] == baseline[0]["kappa"]
    assert everywhere["change"] == pytest.approx(everywhere["kappa"] - baseline[0]["kappa"])
    assert everywhere["columns"] == "annotator_1"
    none = au.column_sensitivity(ratings, project, groups, ["all"], pairs.iloc[:0], baseline)
    assert none.empty and "change_generalised" in none.columns


def test_top_confusions_over_all_reports_and_within_each_type():
    confusions = pd.DataFrame({
        "label_a": ["B.1", "A.1", "C.1", "C.2", "A.2"],
        "label_b": ["B.2", "C.1", "C.9", "C.3", "A.3"],
        "type_a": ["Requirement", "Question", "Bug", "Bug", "Question"],
        "type_b": ["Requirement", "Bug", "Bug", "Bug", "Question"],
        "rater_pairs": [100, 100, 60, 60, 5], "issues": [20, 30, 12, 10, 1],
        "share_of_disagreements": [0.3, 0.3, 0.18, 0.18, 0.04]})
    top = au.top_confusions(confusions).set_index("scope")
    assert top.index.tolist() == ["all", "Bug", "Question", "Requirement"]
    # ties broken by the labels: A.1/C.1 before B.1/B.2, C.1/C.9 before C.2/C.3
    assert top.loc["all", ["label_a", "label_b"]].tolist() == ["A.1", "C.1"]
    assert top.loc["Bug", ["label_a", "label_b", "issues"]].tolist() == ["C.1", "C.9", 12]
    assert top.loc["Question", "rater_pairs"] == 5
    assert au.top_confusions(confusions.iloc[:0]).empty
