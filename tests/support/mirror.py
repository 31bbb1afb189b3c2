"""Where the offline mirror of the release is (tests on it skip when it is absent), and
the paper's printed numbers, read from the claims file (the one place that holds them)."""

from __future__ import annotations

import pytest

from analysis.core.paths import ROOT

MIRROR = (ROOT / ".." / "shared" / "upstream" / "LLMChallengeEmpirical").resolve()
MIRROR_MANIFEST = MIRROR.with_suffix(".sha256")
needs_mirror = pytest.mark.skipif(not MIRROR.is_dir(), reason="offline mirror ../shared absent")


def paper(claim_id: str) -> float:
    """A number as the paper prints it, so tests on the mirror compare against it, never
    retype it."""
    from analysis.core.claims import load_claims, parse_printed

    claims = load_claims().set_index("claim_id")["paper_value"]
    return float(parse_printed(claims[claim_id])[0])
