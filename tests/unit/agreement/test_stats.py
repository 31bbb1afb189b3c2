"""Unit tests of the agreement core: published examples, the libraries as oracle, edge cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import stats as ag

# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses (1 depression,
# 2 personality disorder, 3 schizophrenia, 4 neurosis, 5 other).
FLEISS_1971 = np.array([
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
]) - 1

# The worked example of Fleiss' kappa on Wikipedia: 10 subjects, 14 raters, 5 categories,
# given as a subject x category count table; kappa = 0.210.
WIKIPEDIA_COUNTS = np.array([
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
])


def codes_from_counts(counts: np.ndarray) -> np.ndarray:
    return np.array([np.repeat(np.arange(counts.shape[1]), row) for row in counts])


def random_codes(n: int, r: int, k: int, seed: int, missing: float = 0.0) -> np.ndarray:
    """Ratings with a true label per issue and 75 % accuracy, optionally with gaps."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    codes = np.where(rng.random((n, r)) < 0.75, truth[:, None], rng.integers(0, k, (n, r)))
    if missing:
        codes = np.where(rng.random((n, r)) < missing, ag.MISSING, codes)
    return codes.astype(np.int8)


def library_frame(codes: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(np.where(codes >= 0, codes, np.nan).astype(float))


# --------------------------------------------------------------------------- published


def test_fleiss_1971_worked_example():
    est = ag.fleiss_kappa(FLEISS_1971, 5)
    assert round(est.value, 3) == 0.430
    pats, _ = ag.label_patterns(FLEISS_1971, 5)
    per_cat = ag.category_kappa_arrays(pats.weights, pats.features)
    # Fleiss (1971), Table 2: p_j and kappa_j of the five diagnoses
    assert np.round(per_cat["share"][0], 3).tolist() == [0.144, 0.144, 0.167, 0.306, 0.239]
    assert np.round(per_cat["value"][0], 3).tolist() == [0.245, 0.245, 0.520, 0.471, 0.566]


def test_wikipedia_worked_example():
    est = ag.fleiss_kappa(codes_from_counts(WIKIPEDIA_COUNTS), 5)
    assert round(est.value, 3) == 0.210
    assert round(est.observed, 3) == 0.378 and round(est.chance, 3) == 0.213


# --------------------------------------------------------------------------- libraries


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fleiss_matches_statsmodels_and_irrcac(seed):
    from irrCAC.raw import CAC
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    codes = random_codes(400, 5, 6, seed)
    est = ag.fleiss_kappa(codes, 6)
    assert est.value == pytest.approx(fleiss_kappa(aggregate_raters(codes)[0]), abs=1e-12)
    ref = CAC(library_frame(codes), digits=15).fleiss()["est"]
    assert est.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert est.se == pytest.approx(ref["se"], abs=1e-9)
    assert (est.low, est.high) == pytest.approx(ref["confidence_interval"], abs=1e-9)


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_alpha_matches_krippendorff_and_irrcac(missing):
    import krippendorff
    from irrCAC.raw import CAC

    codes = random_codes(300, 6, 5, 7, missing)
    est = ag.krippendorff_alpha(codes, 5)
    data = np.where(codes >= 0, codes, np.nan).T.astype(float)
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert est.value == pytest.approx(ref, abs=1e-9)
    irr = CAC(library_frame(codes), digits=15).krippendorff()["est"]
    assert est.value == pytest.approx(irr["coefficient_value"], abs=1e-9)
    assert est.se == pytest.approx(irr["se"], abs=1e-9)


@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_ac1_matches_irrcac_on_the_whole_scale(missing):
    from irrCAC.raw import CAC

    codes = random_codes(300, 4, 7, 3, missing)
    codes[codes == 6] = 5  # category 6 unused: q still counts it
    est = ag.gwet_ac1(codes, 7)
    irr = CAC(library_frame(codes), categories=list(map(float, range(7))),
              digits=15).gwet()["est"]
    assert est.value == pytest.approx(irr["coefficient_value"], abs=1e-9)
    assert est.se == pytest.approx(irr["se"], abs=1e-9)
    assert est.chance == pytest.approx(irr["pe"], abs=1e-9)


def test_fast_headline_path_equals_patterns_and_statsmodels():
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    codes = random_codes(900, 7, 9, 11)
    groups = np.arange(900) % 3
    fast = ag.fleiss_by_group(codes, groups, 3, 9)
    for g in range(3):
        sub = codes[groups == g]
        assert fast["kappa"][g] == pytest.approx(ag.fleiss_kappa(sub, 9).value, abs=1e-12)
        assert fast["kappa"][g] == pytest.approx(fleiss_kappa(aggregate_raters(sub)[0]),
                                                 abs=1e-12)


def test_cohen_matches_statsmodels():
    from statsmodels.stats.inter_rater import cohens_kappa

    codes = random_codes(500, 3, 4, 5)
    ratings = ag.Ratings(codes, tuple("abcd"), ("annotator_1", "annotator_2", "annotator_3"))
    pw = ag.pairwise_cohen(ratings)
    assert len(pw) == 6  # both orders of three pairs
    table = pd.crosstab(codes[:, 0], codes[:, 2]).to_numpy()
    row = pw[(pw["annotator_a"] == "annotator_1") & (pw["annotator_b"] == "annotator_3")]
    assert row["kappa"].iloc[0] == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    ref = ag.versus_reference(ratings, codes[:, 0])
    assert ref["kappa"].iloc[0] == pytest.approx(1.0)
    assert ref["agreement"].iloc[0] == 1.0


# --------------------------------------------------------------------------- edge cases


def test_perfect_agreement_and_one_category():
    perfect = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [1, 1, 1]])
    assert ag.fleiss_kappa(perfect, 3).value == pytest.approx(1.0)
    assert ag.krippendorff_alpha(perfect, 3).value == pytest.approx(1.0)
    assert ag.gwet_ac1(perfect, 3).value == pytest.approx(1.0)
    one = np.zeros((5, 3), dtype=int)
    for fn in (ag.fleiss_kappa, ag.krippendorff_alpha):
        est = fn(one, 1)
        assert est.value is None and est.note.startswith("not defined")
        assert "one category" in est.note
    assert ag.gwet_ac1(one, 1).value is None  # a one-category scale
    assert ag.gwet_ac1(one, 4).value == pytest.approx(1.0)  # one category used of four


def test_one_issue_is_not_defined():
    est = ag.fleiss_kappa(np.array([[0, 1, 1]]), 2)
    assert est.value is None and "two or more" in est.note
    assert ag.krippendorff_alpha(np.array([[0, 1, 1]]), 2).value is None


def test_missing_ratings_fleiss_uses_complete_rows_alpha_all():
    codes = random_codes(200, 4, 3, 9)
    holes = codes.copy()
    holes[:20, 0] = ag.MISSING
    fk = ag.fleiss_kappa(holes, 3)
    assert fk.n == 180
    assert fk.value == pytest.approx(ag.fleiss_kappa(codes[20:], 3).value, abs=1e-12)
    alpha = ag.krippendorff_alpha(holes, 3)
    assert alpha.n == 200
    assert alpha.value != pytest.approx(ag.krippendorff_alpha(codes[20:], 3).value, abs=1e-9)
    # an issue with a single rating is not pairable
    holes[0, 1:] = ag.MISSING
    assert ag.krippendorff_alpha(holes, 3).n == 199


def test_two_annotators():
    import krippendorff

    codes = random_codes(150, 2, 3, 4)
    fk = ag.fleiss_kappa(codes, 3)
    alpha = ag.krippendorff_alpha(codes, 3)
    n = 2 * len(codes)
    # two raters: Fleiss' kappa is Scott's pi; alpha has the same observed agreement and
    # the small-sample chance term (n sum p^2 - 1) / (n - 1) over n pairable values
    assert alpha.observed == pytest.approx(fk.observed, abs=1e-12)
    assert alpha.chance == pytest.approx((n * fk.chance - 1) / (n - 1), abs=1e-12)
    assert alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=codes.T.astype(float),
                           level_of_measurement="nominal"), abs=1e-9)


def test_no_complete_rows_is_not_defined():
    codes = np.array([[0, 0, ag.MISSING], [1, ag.MISSING, 1]])
    est = ag.fleiss_kappa(codes, 2)
    assert est.value is None and "0 issue(s)" in est.note


# --------------------------------------------------------------------------- patterns


def test_patterns_are_order_free_and_both_paths_agree():
    codes = random_codes(500, 5, 4, 1)
    a, inv = ag.label_patterns(codes, 4)
    assert a.n_issues == 500
    assert np.array_equal(a.codes[inv], codes)
    shuffled = codes[np.random.default_rng(0).permutation(500)]
    b, _ = ag.label_patterns(shuffled, 4)
    assert np.array_equal(a.codes, b.codes) and np.array_equal(a.weights, b.weights)
    wide = np.repeat(codes, 4, axis=1)  # 20 raters x 3 bits > 62: the np.unique path
    c, inv_c = ag.label_patterns(wide, 4)
    assert np.array_equal(c.codes[inv_c], wide)
    assert ag.fleiss_kappa(wide, 4).value is not None


def test_bootstrap_is_seeded_and_covers_the_estimate():
    codes = random_codes(300, 4, 5, 2)
    scale = ag.Scale(tuple("abcde"), np.array([0, 0, 1, 1, 1]), ("X", "Y"))
    groups = {"type": pd.Series(np.where(np.arange(300) < 150, "g1", "g2"))}
    s1, c1 = ag.agreement_tables(codes, scale, groups, 200, 7)
    s2, c2 = ag.agreement_tables(codes, scale, groups, 200, 7)
    pd.testing.assert_frame_equal(s1, s2)
    pd.testing.assert_frame_equal(c1, c2)
    s3, _ = ag.agreement_tables(codes, scale, groups, 200, 8)
    assert not s1["boot_low"].equals(s3["boot_low"])
    row = s1[(s1["group"] == "all issues") & (s1["statistic"] == "fleiss_kappa")].iloc[0]
    assert row["boot_low"] < row["value"] < row["boot_high"]
    assert row["ci_low"] < row["value"] < row["ci_high"]
    assert set(s1["group"]) == {"all issues", "g1", "g2"}


def test_resampled_weights_keep_the_number_of_issues():
    w = np.array([5.0, 1.0, 10.0])
    draws = np.concatenate(list(ag.resample_weights(w, 600, 1, chunk=250)))
    assert draws.shape == (600, 3)
    assert (draws.sum(axis=1) == 16).all()
    assert draws.mean(axis=0) == pytest.approx(w, rel=0.1)


def test_confusions_count_disagreeing_pairs():
    codes = np.array([[0, 0, 1], [0, 1, 1], [2, 2, 2]])
    scale = ag.Scale(("a", "b", "c"), np.array([0, 0, 1]), ("X", "Y"))
    conf = ag.confusions(codes, scale)
    assert conf[["label_a", "label_b", "rater_pairs", "issues"]].values.tolist() == \
        [["a", "b", 4, 2]]


def test_grouping_candidates():
    codes = np.array([[0, 0, 2], [0, 0, 0], [2, 2, 2], [2, 2, 0], [1, 0, 1], [2, 2, 3]])
    scale = ag.Scale(("a1", "a2", "b1", "b2"), np.array([0, 0, 1, 1]), ("A", "B"))
    ratings = ag.Ratings(codes, scale.categories, ("annotator_1", "annotator_2",
                                                   "annotator_3"))
    final = pd.Series(["A", "A", "B", "B", "A", "B"])
    table = ag.grouping_candidates(ratings, scale, final, ["A", "B"])
    got = table.set_index(["grouping", "type"])["issues"].to_dict()
    assert got[("final label", "A")] == 3 and got[("final label", "B")] == 3
    assert got[("unanimous type", "A")] == 2 and got[("unanimous type", "B")] == 2
    assert got[("first annotator", "A")] == 3


# --------------------------------------------------------------------------- encoding


def test_encoding_discovers_annotators_and_unknown_labels():
    frame = pd.DataFrame({
        "annotator_10": ["A.1", "X.9", None], "annotator_2": ["A.1", "A.2", "A.2"],
        "annotator_1": ["A.2", "A.2", "A.1"],
    })
    r = ag.encode_ratings(frame, ["A.1", "A.2", "B.1"])
    assert r.annotators == ("annotator_1", "annotator_2", "annotator_10")
    assert r.categories == ("A.1", "A.2", "B.1", "X.9")
    assert r.codes.tolist() == [[1, 0, 0], [1, 1, 3], [0, 1, -1]]
    cat = frame.astype("category")
    assert np.array_equal(ag.encode_ratings(cat, ["A.1", "A.2", "B.1"]).codes, r.codes)


def test_no_annotator_columns_is_a_user_error():
    from analysis.core.errors import InputError

    with pytest.raises(InputError, match="no annotator"):
        ag.annotator_columns(["project", "final_label"], file="issues.parquet")


# --------------------------------------------------------------------------- missing ratings


def coded(frame: pd.DataFrame) -> tuple[np.ndarray, list]:
    """A library frame (NaN or None for a missing rating) as codes on its sorted values."""
    cells = frame.to_numpy(dtype=object)
    present = pd.notna(cells) & (cells != "")
    categories = sorted({v for v in cells[present]})
    codes = np.full(cells.shape, ag.MISSING, dtype=np.int8)
    for k, value in enumerate(categories):
        codes[present & (cells == value)] = k
    return codes, categories


# irrCAC's example datasets with the generalised Fleiss' kappa irrCAC gives (issue text)
# and the complete-rows kappa (None: no two complete rows).
IRRCAC_DATASETS = [("raw_4raters", 0.761169, 0.6415), ("raw_g1g2", 0.657245, 0.5071),
                   ("raw_5observers", 0.457622, None), ("raw_ben_gerry", 0.649351, 0.6489)]


@pytest.mark.parametrize(("name", "generalised", "complete"), IRRCAC_DATASETS)
def test_generalised_fleiss_matches_irrcac_on_its_datasets(name, generalised, complete):
    from irrCAC import datasets
    from irrCAC.raw import CAC

    frame = getattr(datasets, name)()
    codes, categories = coded(frame)
    est = ag.generalised_fleiss_kappa(codes, len(categories))
    ref = CAC(frame, digits=15).fleiss()["est"]
    assert est.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert est.value == pytest.approx(generalised, abs=5e-7)
    assert est.se == pytest.approx(ref["se"], abs=1e-9)
    assert (est.low, est.high) == pytest.approx(ref["confidence_interval"], abs=1e-9)
    assert (est.observed, est.chance) == pytest.approx((ref["pa"], ref["pe"]), abs=1e-9)
    assert est.n == int(((codes >= 0).sum(axis=1) >= 2).sum())
    fast = ag.kappas_by_group(codes, np.zeros(len(codes), dtype=int), 1, len(categories))
    assert fast["generalised"]["kappa"][0] == pytest.approx(est.value, abs=1e-12)
    full = ag.fleiss_kappa(codes, len(categories))
    if complete is None:
        assert full.value is None and full.note.startswith("not defined")
    else:
        assert full.value == pytest.approx(complete, abs=5e-5)
        assert full.n == int((codes >= 0).all(axis=1).sum()) < len(codes)


@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_generalised_fleiss_matches_irrcac_and_equals_fleiss_on_complete_data(missing):
    from irrCAC.raw import CAC

    codes = random_codes(400, 6, 5, 21, missing)
    est = ag.generalised_fleiss_kappa(codes, 5)
    ref = CAC(library_frame(codes), digits=15).fleiss()["est"]
    assert est.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert est.se == pytest.approx(ref["se"], abs=1e-9)
    if not missing:
        full = ag.fleiss_kappa(codes, 5)
        assert est.value == pytest.approx(full.value, abs=1e-12)
        assert est.se == pytest.approx(full.se, abs=1e-12)


@pytest.mark.parametrize(("q", "expected"), [(5, 0.7754), (10, 0.8014)])
def test_ac1_depends_on_the_categories_assumed(q, expected):
    from irrCAC.datasets import raw_4raters
    from irrCAC.raw import CAC

    frame = raw_4raters()
    codes, categories = coded(frame)
    est = ag.gwet_ac1(codes, len(categories), assumed_categories=q)
    ref = CAC(frame, categories=[float(c) for c in range(1, q + 1)], digits=15).gwet()["est"]
    assert est.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert est.se == pytest.approx(ref["se"], abs=1e-9)
    assert round(est.value, 4) == expected


def test_fast_path_gives_both_estimators_per_group_with_missing_ratings():
    codes = random_codes(1200, 7, 8, 13, missing=0.1)
    codes[:3] = ag.MISSING  # issues without any rating
    codes[3:6, 1:] = ag.MISSING  # issues with a single rating
    groups = np.arange(1200) % 3
    fast = ag.kappas_by_group(codes, groups, 3, 8)
    for g in range(3):
        sub = codes[groups == g]
        full, gen = ag.fleiss_kappa(sub, 8), ag.generalised_fleiss_kappa(sub, 8)
        assert fast["complete"]["kappa"][g] == pytest.approx(full.value, abs=1e-12)
        assert fast["complete"]["n"][g] == full.n
        assert fast["generalised"]["kappa"][g] == pytest.approx(gen.value, abs=1e-12)
        assert fast["generalised"]["n"][g] == gen.n
        assert fast["generalised"]["rated"][g] == int(((sub >= 0).sum(axis=1) >= 1).sum())
    assert ag.fleiss_by_group(codes, groups, 3, 8).equals(fast["complete"])


def test_generalised_fleiss_is_not_defined_without_two_pairable_issues():
    est = ag.generalised_fleiss_kappa(np.array([[0, 1, ag.MISSING], [1, ag.MISSING,
                                                                     ag.MISSING]]), 2)
    assert est.value is None and "two or more ratings" in est.note


def test_tables_carry_both_estimators_and_the_ac1_categories():
    codes = random_codes(300, 4, 5, 2, missing=0.2)
    scale = ag.Scale(tuple("abcde"), np.array([0, 0, 1, 1, 1]), ("X", "Y"))
    groups = {"type": pd.Series(np.where(np.arange(300) < 150, "g1", "g2"))}
    s, _ = ag.agreement_tables(codes, scale, groups, 50, 7, ac1_categories=9)
    row = s[(s["group"] == "all issues")].set_index("statistic")
    gen = ag.generalised_fleiss_kappa(codes, 5)
    assert row.loc["fleiss_kappa_generalised", "value"] == pytest.approx(gen.value, abs=1e-12)
    assert row.loc["fleiss_kappa_generalised", "issues_used"] == gen.n
    assert row.loc["fleiss_kappa", "issues_used"] == int((codes >= 0).all(axis=1).sum())
    assert row.loc["gwet_ac1", "value"] == pytest.approx(
        ag.gwet_ac1(codes, 5, assumed_categories=9).value, abs=1e-12)
    low, high = row.loc["fleiss_kappa_generalised", ["boot_low", "boot_high"]]
    assert low < gen.value < high


def test_fast_path_total_row_is_all_issues():
    codes = random_codes(600, 5, 6, 17, missing=0.15)
    groups = np.arange(600) % 4
    both = ag.kappas_by_group(codes, groups, 4, 6, with_total=True)
    every = ag.kappas_by_group(codes, np.zeros(600, dtype=int), 1, 6)
    for est in ("complete", "generalised"):
        assert len(both[est]) == 5
        pd.testing.assert_series_equal(both[est].iloc[-1], every[est].iloc[0],
                                       check_names=False, rtol=1e-12)
