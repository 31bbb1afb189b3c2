"""A study's batches on the What changed page: additions per project and year, and the
drift of the theme shares against the release with its tests."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats

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


def test_drift_tests_each_theme_with_holm_and_all_themes_with_chi_square():
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
    assert by["changed"].all()
    chi2 = stats.chi2_contingency([[60, 40], [5, 25]], correction=False)
    test = tests.iloc[0]
    assert test["chi2"] == pytest.approx(chi2[0], abs=1e-5) and test["dof"] == 1
    assert test["p_value"] == pytest.approx(chi2[1], abs=1e-6)
    assert test["sparse_cells"] == 0 and test["changed_themes"] == 2


def test_no_drift_when_the_mix_is_the_same_and_none_without_a_release():
    rows = ([("vllm", 2025, "C.1", "release")] * 10 + [("vllm", 2025, "A.1", "release")] * 10
            + [("vllm", 2026, "C.1", "b")] * 2 + [("vllm", 2026, "A.1", "b")] * 2)
    table, tests = batches.drift(study(rows))
    assert not table["changed"].any() and tests.iloc[0]["p_value"] == pytest.approx(1.0)
    assert tests.iloc[0]["sparse_cells"] == 2
    only_new = study([("vllm", 2026, "C.1", "b")] * 3)
    assert batches.drift(only_new) is None
    one_theme = study([("vllm", 2025, "C.1", "release"), ("vllm", 2026, "C.1", "b")])
    _, tests = batches.drift(one_theme)
    assert math.isnan(tests.iloc[0]["chi2"]) and tests.iloc[0]["themes"] == 1
