"""Shared fixtures: synthetic dumps, the taxonomy and the projects' descriptions."""

from __future__ import annotations

import pytest

from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.taxonomy import load_taxonomy
from tests.support.dumps import small_dump


@pytest.fixture
def taxonomy():
    return load_taxonomy()


@pytest.fixture
def projects() -> Projects:
    """The projects as data/projects.yaml describes them."""
    return Projects.load(PATHS.projects_file)


@pytest.fixture
def projects_meta(projects) -> Projects:
    """The same, under the name older tests use."""
    return projects


@pytest.fixture
def dump(tmp_path):
    """A small synthetic dump; returns (root, written rows)."""
    root = tmp_path / "dump"
    written = small_dump(root)
    return root, written
