"""Fixtures of the agreement stage's unit tests: the projects and a cleaned small dump."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.clean.compute import clean_dump
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from tests.support.dumps import small_dump


@pytest.fixture
def projects() -> Projects:
    return Projects.load(PATHS.projects_file)


@pytest.fixture
def issues(tmp_path, taxonomy, projects) -> pd.DataFrame:
    """The processed issues of the small synthetic dump (three projects, 7 annotators,
    final label the majority)."""
    small_dump(tmp_path / "dump")
    return clean_dump(tmp_path / "dump", taxonomy, projects).issues
