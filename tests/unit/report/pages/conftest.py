"""A small project folder for the page modules' includes: write the artifacts an include
reads (tables, JSON, text) at their paths, then read them as the report does."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.report.pages.base import Inputs


class Project:
    """A project root to write stage outputs into, by their relative paths."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, rel: str, content: pd.DataFrame | dict | list | str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, pd.DataFrame):
            content.to_csv(path, index=False)
        elif isinstance(content, dict | list):
            path.write_text(json.dumps(content), encoding="utf-8")
        else:
            path.write_text(content, encoding="utf-8")

    def inputs(self) -> Inputs:
        return Inputs(self.root)


def scorecard(*rows: tuple[str, str, str, str]) -> pd.DataFrame:
    """A scorecard: (claim id, paper value, ours, status) per row."""
    return pd.DataFrame([{"claim_id": c, "description": f"what {c}", "paper_value": p,
                          "reproduced_value": o, "status": s, "note": f"note {c}",
                          "source": "Section I", "relation": "="} for c, p, o, s in rows])


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)
