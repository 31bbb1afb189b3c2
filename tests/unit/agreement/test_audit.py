"""Unit tests of the annotation audit on synthetic ratings with known behaviour."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.agreement import audit as au
from analysis.agreement import stats as ag


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
    co = au.co_dissent(ag.Ratings(codes, tuple("abcdef"), tuple(f"annotator_{i}" for i in
                                                                range(1, 6))),
                       final, pd.Series(["p"] * len(final)))
    assert (co["ratio"] > 1.3).all()


def test_majority_condition_caps_the_dissent():
    codes, final = independent(3000, [0.3] * 5, 4, 3)
    exp = au.expected_dissent(codes, final, np.zeros(len(final)), given_majority=True)
    assert exp[3:].sum() == 0 and exp.sum() == pytest.approx(3000)
    assert au.max_dissent(7) == 3 and au.max_dissent(4) == 1 and au.max_dissent(1) == 0


def test_missing_ratings_are_neither_agreement_nor_dissent():
    codes = np.array([[0, ag.MISSING, 1], [0, 0, 0]])
    final = np.array([0, 0])
    assert au.dissent_matrix(codes, final).sum(axis=1).tolist() == [1, 0]
    ratings = ag.Ratings(codes, ("a", "b"), ("annotator_1", "annotator_2", "annotator_3"))
    table = au.agreement_with_final(ratings, final, pd.Series(["x", "y"]))
    row = table[(table["stratum"] == "all") & (table["annotator"] == "annotator_2")].iloc[0]
    assert row["rated"] == 1 and row["share"] == 1.0
    exp = au.expected_dissent(codes, final, np.zeros(2))
    assert exp.sum() == pytest.approx(2)


def test_even_and_concentrated_spread():
    scale = ag.Scale(tuple("abcde"), np.zeros(5, dtype=int), ("T",))
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
