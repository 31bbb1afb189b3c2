"""The coefficients from pattern sums: published examples, the libraries as oracle
(statsmodels, krippendorff, irrCAC), and the cases where a coefficient is not defined."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analysis.agreement import estimators as est
from analysis.agreement.ratings import MISSING, label_patterns
from tests.unit.agreement.synthetic import (
    FLEISS_1971,
    WIKIPEDIA_COUNTS,
    coded,
    codes_from_counts,
    library_frame,
    random_codes,
)

# --------------------------------------------------------------------------- published


def test_fleiss_1971_worked_example():
    kappa = est.fleiss_kappa(FLEISS_1971, 5)
    assert round(kappa.value, 3) == 0.430
    pats, _ = label_patterns(FLEISS_1971, 5)
    per_cat = est.category_kappa_arrays(pats.weights, pats.features)
    # Fleiss (1971), Table 2: p_j and kappa_j of the five diagnoses
    assert np.round(per_cat["share"][0], 3).tolist() == [0.144, 0.144, 0.167, 0.306, 0.239]
    assert np.round(per_cat["value"][0], 3).tolist() == [0.245, 0.245, 0.520, 0.471, 0.566]


def test_wikipedia_worked_example():
    kappa = est.fleiss_kappa(codes_from_counts(WIKIPEDIA_COUNTS), 5)
    assert round(kappa.value, 3) == 0.210
    assert round(kappa.observed, 3) == 0.378 and round(kappa.chance, 3) == 0.213


# --------------------------------------------------------------------------- libraries


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fleiss_matches_statsmodels_and_irrcac(seed):
    from irrCAC.raw import CAC
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    codes = random_codes(400, 5, 6, seed)
    kappa = est.fleiss_kappa(codes, 6)
    assert kappa.value == pytest.approx(fleiss_kappa(aggregate_raters(codes)[0]), abs=1e-12)
    ref = CAC(library_frame(codes), digits=15).fleiss()["est"]
    assert kappa.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert kappa.se == pytest.approx(ref["se"], abs=1e-9)
    assert (kappa.low, kappa.high) == pytest.approx(ref["confidence_interval"], abs=1e-9)


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_alpha_matches_krippendorff_and_irrcac(missing):
    import krippendorff
    from irrCAC.raw import CAC

    codes = random_codes(300, 6, 5, 7, missing)
    alpha = est.krippendorff_alpha(codes, 5)
    data = np.where(codes >= 0, codes, np.nan).T.astype(float)
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert alpha.value == pytest.approx(ref, abs=1e-9)
    irr = CAC(library_frame(codes), digits=15).krippendorff()["est"]
    assert alpha.value == pytest.approx(irr["coefficient_value"], abs=1e-9)
    assert alpha.se == pytest.approx(irr["se"], abs=1e-9)


@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_ac1_matches_irrcac_on_the_whole_scale(missing):
    from irrCAC.raw import CAC

    codes = random_codes(300, 4, 7, 3, missing)
    codes[codes == 6] = 5  # category 6 unused: q still counts it
    ac1 = est.gwet_ac1(codes, 7)
    irr = CAC(library_frame(codes), categories=list(map(float, range(7))),
              digits=15).gwet()["est"]
    assert ac1.value == pytest.approx(irr["coefficient_value"], abs=1e-9)
    assert ac1.se == pytest.approx(irr["se"], abs=1e-9)
    assert ac1.chance == pytest.approx(irr["pe"], abs=1e-9)


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
    gen = est.generalised_fleiss_kappa(codes, len(categories))
    ref = CAC(frame, digits=15).fleiss()["est"]
    assert gen.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert gen.value == pytest.approx(generalised, abs=5e-7)
    assert gen.se == pytest.approx(ref["se"], abs=1e-9)
    assert (gen.low, gen.high) == pytest.approx(ref["confidence_interval"], abs=1e-9)
    assert (gen.observed, gen.chance) == pytest.approx((ref["pa"], ref["pe"]), abs=1e-9)
    assert gen.n == int(((codes >= 0).sum(axis=1) >= 2).sum())
    by_group = est.kappas_by_group(codes, np.zeros(len(codes), dtype=int), 1, len(categories))
    assert by_group["generalised"]["value"][0] == gen.value
    full = est.fleiss_kappa(codes, len(categories))
    if complete is None:
        assert full.value is None and full.note.startswith("not defined")
    else:
        assert full.value == pytest.approx(complete, abs=5e-5)
        assert full.n == int((codes >= 0).all(axis=1).sum()) < len(codes)


@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_generalised_fleiss_matches_irrcac_and_equals_fleiss_on_complete_data(missing):
    from irrCAC.raw import CAC

    codes = random_codes(400, 6, 5, 21, missing)
    gen = est.generalised_fleiss_kappa(codes, 5)
    ref = CAC(library_frame(codes), digits=15).fleiss()["est"]
    assert gen.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert gen.se == pytest.approx(ref["se"], abs=1e-9)
    if not missing:
        full = est.fleiss_kappa(codes, 5)
        assert gen.value == pytest.approx(full.value, abs=1e-12)
        assert gen.se == pytest.approx(full.se, abs=1e-12)


@pytest.mark.parametrize(("q", "expected"), [(5, 0.7754), (10, 0.8014)])
def test_ac1_depends_on_the_categories_assumed(q, expected):
    from irrCAC.datasets import raw_4raters
    from irrCAC.raw import CAC

    frame = raw_4raters()
    codes, categories = coded(frame)
    ac1 = est.gwet_ac1(codes, len(categories), assumed_categories=q)
    ref = CAC(frame, categories=[float(c) for c in range(1, q + 1)], digits=15).gwet()["est"]
    assert ac1.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert ac1.se == pytest.approx(ref["se"], abs=1e-9)
    assert round(ac1.value, 4) == expected


# --------------------------------------------------------------------------- edge cases


def test_perfect_agreement_and_one_category():
    perfect = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [1, 1, 1]])
    assert est.fleiss_kappa(perfect, 3).value == pytest.approx(1.0)
    assert est.krippendorff_alpha(perfect, 3).value == pytest.approx(1.0)
    assert est.gwet_ac1(perfect, 3).value == pytest.approx(1.0)
    one = np.zeros((5, 3), dtype=int)
    for fn in (est.fleiss_kappa, est.krippendorff_alpha):
        undefined = fn(one, 1)
        assert undefined.value is None and undefined.note.startswith("not defined")
        assert "one category" in undefined.note
    assert est.gwet_ac1(one, 1).value is None  # a one-category scale
    assert est.gwet_ac1(one, 4).value == pytest.approx(1.0)  # one category used of four


def test_one_issue_is_not_defined():
    kappa = est.fleiss_kappa(np.array([[0, 1, 1]]), 2)
    assert kappa.value is None and "two or more" in kappa.note
    assert est.krippendorff_alpha(np.array([[0, 1, 1]]), 2).value is None


def test_missing_ratings_fleiss_uses_complete_rows_alpha_all():
    codes = random_codes(200, 4, 3, 9)
    holes = codes.copy()
    holes[:20, 0] = MISSING
    fk = est.fleiss_kappa(holes, 3)
    assert fk.n == 180
    assert fk.value == pytest.approx(est.fleiss_kappa(codes[20:], 3).value, abs=1e-12)
    alpha = est.krippendorff_alpha(holes, 3)
    assert alpha.n == 200
    assert alpha.value != pytest.approx(est.krippendorff_alpha(codes[20:], 3).value, abs=1e-9)
    # an issue with a single rating is not pairable
    holes[0, 1:] = MISSING
    assert est.krippendorff_alpha(holes, 3).n == 199


def test_two_annotators():
    import krippendorff

    codes = random_codes(150, 2, 3, 4)
    fk = est.fleiss_kappa(codes, 3)
    alpha = est.krippendorff_alpha(codes, 3)
    n = 2 * len(codes)
    # two raters: Fleiss' kappa is Scott's pi; alpha has the same observed agreement and
    # the small-sample chance term (n sum p^2 - 1) / (n - 1) over n pairable values
    assert alpha.observed == pytest.approx(fk.observed, abs=1e-12)
    assert alpha.chance == pytest.approx((n * fk.chance - 1) / (n - 1), abs=1e-12)
    assert alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=codes.T.astype(float),
                           level_of_measurement="nominal"), abs=1e-9)


def test_no_complete_rows_is_not_defined():
    codes = np.array([[0, 0, MISSING], [1, MISSING, 1]])
    kappa = est.fleiss_kappa(codes, 2)
    assert kappa.value is None and "0 issue(s)" in kappa.note


def test_generalised_fleiss_is_not_defined_without_two_pairable_issues():
    gen = est.generalised_fleiss_kappa(np.array([[0, 1, MISSING], [1, MISSING, MISSING]]), 2)
    assert gen.value is None and "two or more ratings" in gen.note


def features_of(codes: np.ndarray, k: int):
    pats, _ = label_patterns(np.asarray(codes), k)
    return pats.features, pats.weights


@pytest.mark.parametrize(("statistic", "codes", "k", "q", "reason"), [
    ("fleiss_kappa", [[0], [1]], 2, None, "not defined: fewer than two annotators"),
    ("fleiss_kappa_type", [[0, 1], [1, MISSING]], 2, None,
     "not defined: 1 issue(s) rated by all 2 annotators (needs two or more)"),
    ("krippendorff_alpha", [[0, 1], [1, MISSING]], 2, None,
     "not defined: fewer than two issues with two or more ratings"),
    ("fleiss_kappa_generalised", [[0, MISSING], [1, MISSING]], 2, None,
     "not defined: fewer than two issues with two or more ratings"),
    ("gwet_ac1", [[0, 0], [0, 0]], 1, None,
     "not defined: the rating scale has a single category"),
    ("gwet_ac1", [[0, 1], [0, MISSING]], 2, 3,
     "not defined: fewer than two issues with two or more ratings"),
    ("krippendorff_alpha", [[1, 1], [1, 1]], 2, None,
     "not defined: all ratings fall in one category (chance agreement is 1)"),
])
def test_why_undefined_names_the_reason(statistic, codes, k, q, reason):
    assert est.why_undefined(statistic, *features_of(codes, k), q) == reason


def exact_generalised_and_ac1(codes: np.ndarray, k: int) -> tuple[Fraction, Fraction]:
    """Gwet's generalised Fleiss' kappa and AC1 in exact rational arithmetic."""
    rated = [[int(c) for c in row if c >= 0] for row in codes.tolist()]
    one, two = [r for r in rated if r], [r for r in rated if len(r) >= 2]
    pa = sum(Fraction(sum(r.count(c) ** 2 for c in set(r)) - len(r), len(r) * (len(r) - 1))
             for r in two) / len(two)
    pi = [sum(Fraction(r.count(c), len(r)) for r in one) / len(one) for c in range(k)]
    pe_kappa = sum(p * p for p in pi)
    pe_ac1 = sum(p * (1 - p) for p in pi) / (k - 1)
    return (pa - pe_kappa) / (1 - pe_kappa), (pa - pe_ac1) / (1 - pe_ac1)


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_generalised_kappa_and_ac1_are_exact_to_the_last_bits(missing):
    """AC1's sums are whole numbers taken per number of ratings: the per-issue fractions,
    summed pattern by pattern, were 1e-14 off the exact value on 5,000 issues, and the
    generalised estimator differed from Fleiss' kappa on complete data."""
    codes = random_codes(5000, 7, 12, 3, missing)
    kappa, ac1 = exact_generalised_and_ac1(codes, 12)
    assert abs(est.generalised_fleiss_kappa(codes, 12).value - float(kappa)) < 1e-15
    assert abs(est.gwet_ac1(codes, 12).value - float(ac1)) < 1e-15
    if not missing:
        assert abs(est.generalised_fleiss_kappa(codes, 12).value
                   - est.fleiss_kappa(codes, 12).value) < 1e-15


def test_headline_sums_equal_each_coefficient():
    codes = random_codes(250, 5, 4, 8, missing=0.1)
    f, w = features_of(codes, 4)
    ft = f.collapse(np.array([0, 0, 1, 1]), 2)
    W = np.vstack([w, w[::-1], np.ones_like(w)])  # three sets of pattern weights
    got = est.HeadlineSums(f, ft, q=6)(W)
    assert got["fleiss_kappa"] == pytest.approx(est.fleiss_arrays(W, f)["value"], abs=1e-15)
    assert got["fleiss_kappa_generalised"] == pytest.approx(
        est.generalised_fleiss_arrays(W, f)["value"], abs=1e-15)
    assert got["krippendorff_alpha"] == pytest.approx(est.alpha_arrays(W, f)["value"],
                                                      abs=1e-15)
    assert got["gwet_ac1"] == pytest.approx(est.ac1_arrays(W, f, 6)["value"], abs=1e-15)
    assert got["fleiss_kappa_type"] == pytest.approx(est.fleiss_arrays(W, ft)["value"],
                                                     abs=1e-15)
    assert got["gwet_ac1"][0] == pytest.approx(
        est.gwet_ac1(codes, 4, assumed_categories=6).value, abs=1e-12)


def test_estimate_interval_is_irrcacs_t_interval_capped_at_one():
    from scipy import stats

    codes = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [1, 1, 0], [0, 0, 0]])
    kappa = est.fleiss_kappa(codes, 3, confidence_level=0.9)
    low, high = stats.t.interval(0.9, df=4, loc=kappa.value, scale=kappa.se)
    assert kappa.low == pytest.approx(low, abs=1e-12)
    assert kappa.high == min(1.0, high) == 1.0  # the upper end is capped
    assert kappa.n == 5 and kappa.defined and kappa.note == ""


def test_ratio_or_nan_and_finite_or_none():
    got = est.ratio_or_nan(np.array([1.0, 2.0, 0.0]), np.array([2.0, 0.0, 0.0]))
    assert got[0] == 0.5 and np.isnan(got[1:]).all()
    assert est.finite_or_none(None) is None
    assert est.finite_or_none(np.nan) is None and est.finite_or_none(np.inf) is None
    value = est.finite_or_none(np.float64(0.25))
    assert value == 0.25 and type(value) is float
