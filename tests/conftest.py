"""Shared fixtures: synthetic dumps, the taxonomy, and where the mirror is."""

from __future__ import annotations

import pytest


@pytest.fixture
def taxonomy():
    from analysis.core.taxonomy import load_taxonomy

    return load_taxonomy()


@pytest.fixture
def projects_meta():
    from analysis.core.config import PROJECTS_FILE, load_yaml

    return load_yaml(PROJECTS_FILE)["projects"]


@pytest.fixture
def dump(tmp_path):
    """A small synthetic dump; returns (root, written rows)."""
    from tests.support.dumps import small_dump

    root = tmp_path / "dump"
    written = small_dump(root)
    return root, written
