"""How many reports each challenge rests on, and which theme dominates one
(:mod:`analysis.findings.challenges`)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.core.errors import InputError
from analysis.findings import challenges as ch

THEMES = pd.DataFrame({"code": ["A.1", "B.2", "C.1"], "issues": [10, 30, 60]})
SHARES = pd.DataFrame({
    "table": ["theme_by_project"] * 6 + ["type_by_project"],
    "row": ["A.1", "B.2", "C.1", "A.1", "B.2", "C.1", "Bug"],
    "column": ["p", "p", "p", "q", "q", "q", "p"],
    "issues": [10, 0, 40, 0, 30, 20, 99]})
CHALLENGES = [{"number": 1, "title": "One", "themes": ["A.1", "C.1"]},
              {"number": 2, "title": "Two", "themes": ["B.2", "C.1"]}]


def test_challenge_counts_sum_theme_counts_and_may_overlap():
    cov = ch.challenge_coverage(THEMES, SHARES, CHALLENGES, {"p": "P", "q": "Q"})
    assert list(cov.columns) == ch.CHALLENGE_COLUMNS
    assert cov["issues"].tolist() == [70, 90]  # C.1 counts for both
    assert cov["share_percent"].tolist() == [70.0, 90.0]
    one = cov.iloc[0]
    assert (one["highest_project"], one["highest_share_percent"]) == ("P", 100.0)
    assert (one["lowest_project"], one["lowest_share_percent"]) == ("Q", 40.0)
    assert cov.loc[0, "themes"] == "A.1, C.1"


def test_a_challenge_without_projects_or_reports():
    cov = ch.challenge_coverage(THEMES.assign(issues=0), SHARES.iloc[:0],
                                CHALLENGES[:1], {})
    assert cov.loc[0, "issues"] == 0 and math.isnan(cov.loc[0, "share_percent"])
    assert cov.loc[0, "highest_project"] is None


def test_a_theme_dominates_above_the_threshold():
    themes = pd.DataFrame({"code": ["B.2", "C.2", "C.3", "A.1"], "issues": [60, 30, 10, 0]})
    challenges = [{"number": 4, "title": "Waste", "themes": ["B.2", "C.2", "C.3"]},
                  {"number": 1, "title": "Set-up", "themes": ["C.2", "C.3"]},
                  {"number": 2, "title": "None", "themes": ["A.1"]}]
    d = ch.dominant_themes(themes, challenges, 50.0)
    assert d["theme"].tolist() == ["B.2", "C.2"]
    assert d.iloc[0][["theme_issues", "total", "share_percent", "without"]].tolist() == [
        60, 100, 60.0, 40]
    assert ch.dominant_themes(themes, challenges[:1], 60.0).empty  # more than, not equal


def test_load_challenges(tmp_path):
    path = tmp_path / "challenges.yaml"
    path.write_text("challenges:\n  - {number: 1, title: Set-up, themes: [A.1, C.3]}\n")
    assert ch.load_challenges(path) == [{"number": 1, "title": "Set-up",
                                         "themes": ["A.1", "C.3"]}]
    assert ch.load_challenges(tmp_path / "none.yaml") == []
    path.write_text("challenges:\n  - {number: 1, title: x, themes: [A.1]}\n"
                    "  - {number: 2, title: y, themes: [Z9]}\n")
    with pytest.raises(InputError, match="challenge #2 needs") as err:
        ch.load_challenges(path)
    assert "row 2" in str(err.value)
    path.write_text("challenges: {a: 1}\n")
    with pytest.raises(InputError, match="must be a list"):
        ch.load_challenges(path)
