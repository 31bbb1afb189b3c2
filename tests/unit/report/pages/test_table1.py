"""The Table I page's includes (:mod:`analysis.report.pages.table1`)."""

from __future__ import annotations

import re

import pandas as pd

from analysis.core.projects import Project, Projects
from analysis.report.pages import table1
from tests.unit.report.pages.conftest import scorecard

COUNTS = pd.DataFrame({"project": ["pytorch", "Sum"], "name": ["PyTorch", "All projects"],
                       "kind": ["framework", ""], "2023": [10, 10], "Bug": [6, 6],
                       "Question": [4, 4], "Total": [10, 10]})
CLAIMS = pd.DataFrame({"project": ["pytorch", "pytorch", "Sum", "Sum", "pytorch", "Sum"],
                       "column": ["2023", "Bug", "Bug", "Total", "false_positive",
                                  "false_positive"],
                       "claim_id": ["t.p.2023", "t.p.bug", "t.sum.bug", "t.total", "t.p.fp",
                                    "t.fp.avg"]})
CARD = scorecard(("t.p.2023", "10", "10", "exact"), ("t.p.bug", "7", "6", "differs"),
                 ("t.sum.bug", "6", "6", "exact"), ("t.total", "10", "10", "exact"),
                 ("t.p.fp", "8.33%", "", "not_reproducible"),
                 ("t.fp.avg", "8.33%", "", "not_reproducible"))
PROJECTS = Projects({"pytorch": Project("pytorch", "PyTorch", "framework", 1, "Pytorch")})


def fps(source: str) -> pd.DataFrame:
    computed = source == "computed"
    return pd.DataFrame({"project": ["pytorch", "Sum"], "name": ["PyTorch", "All projects"],
                         "excluded": [1, 1] if computed else [None, None],
                         "candidates": [12, 12] if computed else [None, None],
                         "false_positive_percent": [100 / 12, 100 / 12] if computed
                         else [8.33, 8.33], "source": [source, source]})


def test_every_cell_is_marked_against_the_claim_the_stage_names():
    html = table1.table1_compare(COUNTS, CARD, PROJECTS, fps("reported"),
                                 table1.claim_ids(CLAIMS), computed=0)
    assert "(paper: Pytorch)" in html
    assert 'class="num st-differs"' in html and "paper 7" in html  # t.p.bug
    assert html.count('class="num st-exact"') == 3  # pytorch 2023, Sum Bug, Sum Total
    assert ('title="no printed value in the paper"><a class="explorer-link" '
            'href="issues.html?project=pytorch&amp;type=question">4</a><') in html
    assert '8.33%<span class="reported-mark">(reported)</span>' in html
    assert "False positives (paper only)" in html
    assert "the paper's own rates" in html


def test_every_count_opens_its_issues_in_the_explorer():
    html = table1.table1_compare(COUNTS, CARD, PROJECTS, fps("reported"),
                                 table1.claim_ids(CLAIMS), computed=0)
    hrefs = re.findall(r'href="([^"]+)"', html)
    assert hrefs == ["issues.html?project=pytorch&amp;year=2023",
                     "issues.html?project=pytorch&amp;type=bug",
                     "issues.html?project=pytorch&amp;type=question",
                     "issues.html?project=pytorch",
                     "issues.html?year=2023", "issues.html?type=bug",
                     "issues.html?type=question", "issues.html"]


def test_computed_false_positive_rates_show_the_paper_under_them():
    html = table1.table1_compare(COUNTS, CARD, PROJECTS, fps("computed"),
                                 table1.claim_ids(CLAIMS), computed=1)
    # the rate with its n (excluded of candidates), the paper's under it
    assert ("8.33%<span class=\"rate-n\">1 of 12</span><span class=\"paper-value\">paper "
            "8.33%</span>") in html
    assert "Average: 8.33%" in html and "computed for 1 project(s)" in html
    assert "computed: 1 excluded of 12 candidates · paper: 8.33%" in html


def test_includes_read_their_inputs(project):
    project.write(table1.COUNTS, COUNTS)
    project.write(table1.FALSE_POSITIVES, fps("reported"))
    project.write(table1.CLAIMS, CLAIMS)
    project.write(table1.VARS, {"false_positive_computed_projects": 0})
    project.write(table1.SCORECARD, CARD)
    project.write(table1.PROJECTS, "projects:\n  pytorch: {name: PyTorch, kind: framework}\n")
    out = {inc.name: inc.make(project.inputs()) for inc in table1.INCLUDES}
    assert set(out) == {"table1_compare.md", "tables/table1/counts.md", "table1/study.md"}
    assert out["table1/study.md"] == ""  # the release alone: no study section
    assert "st-differs" in out["table1_compare.md"]
    assert '<td class="num" data-label="Total">10</td>' in out["tables/table1/counts.md"]


def test_the_studys_table_says_it_scrolls_sideways_when_it_is_wider_than_its_box():
    """The study's Table I (the release, each batch and the study side by side) sits in a
    box that scrolls, under Table I's line (shown while the table overflows it)."""
    counts = pd.DataFrame({
        "project": ["pytorch"] * 4, "name": ["PyTorch"] * 4,
        "batch": ["release", "release", "2026-01", ""],
        "column": ["2023", "Total", "2026", "Total"], "issues": [3, 3, 2, 5],
        "release_year": [False] * 4})
    html = table1.study_table(counts)
    assert html.startswith('<p class="scroll-cue">The table is wider than the screen: scroll '
                           "sideways in it")
    assert '<div class="table-wrap"><table class="table compare study wide">' in html
