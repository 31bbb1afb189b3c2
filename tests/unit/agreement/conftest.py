"""Fixtures of the agreement stage's unit tests: the projects and a cleaned small dump."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.clean.compute import clean_dump
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.taxonomy import load_taxonomy
from tests.support.dumps import small_dump


@pytest.fixture
def projects() -> Projects:
    return Projects.load(PATHS.projects_file)


@pytest.fixture(scope="session")
def small_issues(tmp_path_factory) -> pd.DataFrame:
    """The processed issues of the small synthetic dump (three projects, 7 annotators,
    final label the majority), cleaned once for the session: tests take their own copy
    (:func:`issues`)."""
    folder = tmp_path_factory.mktemp("dump")
    small_dump(folder)
    return clean_dump(folder, load_taxonomy(), Projects.load(PATHS.projects_file)).issues


@pytest.fixture
def issues(small_issues) -> pd.DataFrame:
    """The processed issues of the small synthetic dump, the test's own copy."""
    return small_issues.copy()
