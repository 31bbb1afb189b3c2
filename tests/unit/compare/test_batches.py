"""A study's batches on the What changed page: additions per project and year, and the
drift of the theme shares against the release with its tests."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from analysis.compare import batches
from analysis.core.projects import Project, Projects

PROJECTS = Projects({"pytorch": Project("pytorch", "PyTorch", "framework", 1),
                     "vllm": Project("vllm", "vLLM", "toolkit", 6)})


def study(rows: list[tuple[str, int, str, str]]) -> pd.DataFrame:
    """Issues (project, year, final label, batch), types and themes from the code."""
    frame = pd.DataFrame(rows, columns=["project", "year", "final_label", "batch"])
    frame["type"] = frame["final_label"].str[0].map({"A": "Question", "B": "Requirement",
                                                     "C": "Bug"})
    frame["theme"] = "theme " + frame["final_label"]
    return frame


def test_additions_count_the_new_batches_per_project_and_year():
    issues = study([("vllm", 2025, "C.1", "release"), ("vllm", 2026, "C.1", "b"),
                    ("vllm", 2026, "C.2", "b"), ("pytorch", 2026, "A.1", "b"),
                    ("pytorch", 2027, "A.1", "c")])
    added = batches.additions(issues, PROJECTS)
    assert added.values.tolist() == [["b", "pytorch", "PyTorch", 2026, 1],
                                     ["b", "vllm", "vLLM", 2026, 2],
                                     ["c", "pytorch", "PyTorch", 2027, 1]]
    assert batches.additions(issues.drop(columns="batch"), PROJECTS) is None
    assert batches.drift(issues.drop(columns="batch")) is None


def test_drift_flags_a_theme_only_when_its_interval_and_its_exact_test_agree():
    rows = ([("vllm", 2025, "C.1", "release")] * 60 + [("vllm", 2025, "A.1", "release")] * 40
            + [("vllm", 2026, "C.1", "b")] * 5 + [("vllm", 2026, "A.1", "b")] * 25)
    table, tests = batches.drift(study(rows))
    by = table.set_index("code")
    assert by.loc["C.1", "release_share"] == pytest.approx(60.0)
    assert by.loc["C.1", "batch_share"] == pytest.approx(100 * 5 / 30, abs=1e-6)
    assert by.loc["A.1", "difference"] == pytest.approx(100 * 25 / 30 - 40, abs=1e-6)
    fisher = stats.fisher_exact([[5, 25], [60, 40]])[1]
    assert by.loc["C.1", "p_value"] == pytest.approx(fisher, abs=1e-6)
    assert by.loc["C.1", "p_holm"] == pytest.approx(min(1.0, 2 * fisher), abs=1e-6)
    # the difference's interval is simultaneous over the 2 themes: each at 97.5%
    low, high = confint_proportions_2indep(5, 30, 60, 100, method="newcomb",
                                           alpha=0.05 / 2)
    assert by.loc["C.1", "difference_low"] == pytest.approx(100 * low, abs=1e-5)
    assert by.loc["C.1", "difference_high"] == pytest.approx(100 * high, abs=1e-5)
    low, high = proportion_confint(5, 30, method="wilson")
    assert by.loc["C.1", "batch_share_low"] == pytest.approx(100 * low, abs=1e-5)
    assert by["changed"].all() and set(by["verdict"]) == {"changed"}
    chi2 = stats.chi2_contingency([[60, 40], [5, 25]], correction=False)
    test = tests.iloc[0]
    assert test["test"] == "chi_square" and test["resamples"] == 0  # Cochran's rule holds
    assert test["statistic"] == pytest.approx(chi2[0], abs=1e-5) and test["dof"] == 1
    assert test["p_value"] == pytest.approx(chi2[1], abs=1e-6)
    assert test["expected_under_5"] == 0 and test["changed_themes"] == 2


def test_no_theme_is_flagged_from_one_report_against_none():
    """The batch's only A.1 report against the release's none: 100% of a difference, and
    Fisher's p is small on a large release, but it is too few to judge."""
    rows = ([("vllm", 2025, "C.1", "release")] * 3000
            + [("vllm", 2026, "C.1", "b")] * 18 + [("vllm", 2026, "A.1", "b")])
    table, tests = batches.drift(study(rows), resamples=500, seed=1)
    a1 = table.set_index("code").loc["A.1"]
    assert a1["p_holm"] < 0.05 and a1["difference_low"] > 0  # what used to flag it
    assert a1["verdict"] == "too_few" and not a1["changed"]
    assert a1["expected"] == 0 and batches.MIN_REPORTS == 5
    # C.1's drop from 100% to 95% is the same one report, seen from the other side
    assert table.set_index("code").loc["C.1", "verdict"] == "too_few"
    assert not table["changed"].any() and tests.iloc[0]["too_few_themes"] == 2
    # an expected count of 0 fails Cochran's rule: the Monte-Carlo test ran instead
    test = tests.iloc[0]
    assert test["test"] == "monte_carlo" and test["resamples"] == 500
    assert test["expected_under_1"] == 2  # the A.1 column: 0.99 and 0.01
    assert 0 < test["p_value"] <= 1


def test_the_monte_carlo_test_is_seeded_and_agrees_with_the_chi_square_on_a_large_table():
    rows = ([("vllm", 2025, "C.1", "release")] * 300 + [("vllm", 2025, "A.1", "release")] * 200
            + [("vllm", 2026, "C.1", "b")] * 3 + [("vllm", 2026, "A.1", "b")] * 4)
    _, tests = batches.drift(study(rows), resamples=2000, seed=7)
    _, again = batches.drift(study(rows), resamples=2000, seed=7)
    assert tests.equals(again)  # the seed of params.yaml makes it repeatable
    assert tests.iloc[0]["test"] == "monte_carlo"  # 2 of 4 expected counts under 5
    # the exact p of this 2 x 2 table, for comparison: Fisher's
    fisher = stats.fisher_exact([[300, 200], [3, 4]])[1]
    assert tests.iloc[0]["p_value"] == pytest.approx(fisher, abs=0.05)


def test_the_batch_says_which_shares_it_could_tell_apart():
    rows = ([("vllm", 2025, "C.1", "release")] * 500 + [("vllm", 2025, "A.1", "release")] * 500
            + [("vllm", 2026, "C.1", "b")] * 10 + [("vllm", 2026, "A.1", "b")] * 10)
    table, _ = batches.drift(study(rows))
    c1 = table.set_index("code").loc["C.1"]
    # 20 reports against 1,000: h solved by NormalIndPower at 80% power, alpha 0.05
    h = NormalIndPower().solve_power(nobs1=20, ratio=50, alpha=0.05, power=0.8)
    assert c1["detectable_high"] == pytest.approx(100 * math.sin(math.pi / 4 + h / 2) ** 2,
                                                  abs=1e-4)
    assert c1["detectable_low"] == pytest.approx(100 - c1["detectable_high"], abs=1e-4)
    assert c1["verdict"] == "no_evidence"  # the same share: nothing to see


def test_no_drift_without_a_release_and_no_test_of_one_theme():
    only_new = study([("vllm", 2026, "C.1", "b")] * 3)
    assert batches.drift(only_new) is None
    one_theme = study([("vllm", 2025, "C.1", "release"), ("vllm", 2026, "C.1", "b")])
    _, tests = batches.drift(one_theme)
    assert math.isnan(tests.iloc[0]["statistic"]) and tests.iloc[0]["themes"] == 1
    assert tests.iloc[0]["test"] == ""


def test_the_themes_are_in_their_natural_order():
    rows = ([("vllm", 2025, code, "release") for code in ("C.10", "C.2", "A.1", "C.1")]
            + [("vllm", 2026, "C.10", "b"), ("vllm", 2026, "C.2", "b")])
    table, _ = batches.drift(study(rows))
    assert list(table["code"]) == ["A.1", "C.1", "C.2", "C.10"]
