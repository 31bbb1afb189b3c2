"""Fixtures of the ingest tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.ingest.sources import PREVIOUS


@pytest.fixture
def out(tmp_path) -> Path:
    """The parent of the target ``raw/``, which holds the previous run's data."""
    folder = tmp_path / "out"
    (folder / "raw").mkdir(parents=True)
    (folder / "raw" / "keep.txt").write_text(PREVIOUS)
    return folder
