"""Shared fixtures: synthetic dumps, the taxonomy, and where the mirror is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))

MIRROR = (ROOT / ".." / "shared" / "upstream" / "LLMChallengeEmpirical").resolve()
MIRROR_MANIFEST = MIRROR.with_suffix(".sha256")
needs_mirror = pytest.mark.skipif(not MIRROR.is_dir(), reason="offline mirror ../shared absent")


def paper(claim_id: str) -> float:
    """A number as the paper prints it, read from the claims file (the one place that holds
    the paper's numbers), so tests on the mirror compare against it, never retype it."""
    from analysis.claims import load_claims, parse_printed

    claims = load_claims().set_index("claim_id")["paper_value"]
    return float(parse_printed(claims[claim_id])[0])


@pytest.fixture
def taxonomy():
    from analysis.taxonomy import load_taxonomy

    return load_taxonomy()


@pytest.fixture
def projects_meta():
    from analysis.config import PROJECTS_FILE, load_yaml

    return load_yaml(PROJECTS_FILE)["projects"]


@pytest.fixture
def dump(tmp_path):
    """A small synthetic dump; returns (root, written rows)."""
    from dumps import small_dump

    root = tmp_path / "dump"
    written = small_dump(root)
    return root, written
