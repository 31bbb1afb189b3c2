"""Fixtures of the taxonomy stage's tests: the small taxonomy, its detail files parsed, and
the stage's result over a few synthetic issues."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core.projects import Project, Projects
from analysis.core.taxonomy import load_taxonomy
from analysis.taxonomy.details import parse_detail_files
from tests.support.stages import taxonomy_result
from tests.support.taxonomy_fixtures import small_detail_files, write_small_taxonomy

PROJECTS = Projects({"pytorch": Project("pytorch", "PyTorch", "framework", 1),
                     "vllm": Project("vllm", "vLLM", "toolkit", 6)})


@pytest.fixture
def small(tmp_path):
    return load_taxonomy(write_small_taxonomy(tmp_path))


@pytest.fixture
def small_issues() -> pd.DataFrame:
    """3 Question issues labelled A.1, 5 Requirement issues labelled B.1, over three
    projects (one not described) and two years."""
    return pd.DataFrame({
        "project": ["vllm", "zeta", "pytorch", "vllm", "pytorch", "zeta", "vllm", "pytorch"],
        "year": [2023, 2024, 2024, 2023, 2023, 2024, 2024, 2023],
        "type": ["Question"] * 3 + ["Requirement"] * 5,
        "final_label": ["A.1"] * 3 + ["B.1"] * 5})


@pytest.fixture
def built(tmp_path, small, small_issues):
    """The stage's result on the small detail files and the synthetic issues."""
    parsed = parse_detail_files(tmp_path, small_detail_files(tmp_path), small)
    return taxonomy_result(parsed, small_issues, small, PROJECTS)
