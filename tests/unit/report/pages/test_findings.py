"""The Findings page's includes (:mod:`analysis.report.pages.findings`): they format what
the table1, taxonomy, agreement, interviews and findings stages wrote."""

from __future__ import annotations

import pandas as pd

from analysis.report.pages import findings
from analysis.report.pages.base import FD, TX


def test_type_by_project_shows_the_stage_shares():
    counts = pd.DataFrame({"project": ["p", "Sum"], "name": ["P", "All projects"],
                           "kind": ["framework", None], "2023": [4, 4], "Bug": [3, 3],
                           "Question": [1, 1], "Total": [4, 4]})
    shares = pd.DataFrame({"project": ["p", "Sum"], "Bug": [75.0, 75.0],
                           "Question": [25.0, 25.0]})
    out = findings.type_by_project(counts, shares)
    assert out.count(">3 (75.0%)<") == 2 and ">1 (25.0%)<" in out
    assert '<td data-label="kind"></td>' in out and ">2023<" not in out


def test_bug_confusion_reads_the_stage_rows():
    top = pd.DataFrame({"scope": ["all", "Bug"], "label_a": ["B.1", "C.1"],
                        "label_b": ["B.2", "C.9"], "type_a": ["Requirement", "Bug"],
                        "type_b": ["Requirement", "Bug"], "rater_pairs": [1000, 60],
                        "issues": [20, 12]})
    text = findings.bug_confusion(top)
    assert "B.1 and B.2 (1,000 pairs of annotators on 20 reports), two requirement themes" in text
    assert "Among bug themes, the pair confused most often is C.1 and C.9 (60 pairs" in text
    assert "No pair of bug themes was confused." in findings.bug_confusion(top.iloc[:1])
    assert "confused no pair" in findings.bug_confusion(top.iloc[:0])


def test_challenges_and_dominance_as_the_stage_wrote_them():
    cov = pd.DataFrame({"challenge": [1, 2], "title": ["Set-up", "None <b>"],
                        "themes": ["A.1, C.1", "B.9"], "issues": [70, 0],
                        "share_percent": [70.0, 0.0], "highest_project": ["P", None],
                        "highest_share_percent": [100.0, None], "lowest_project": ["Q", None],
                        "lowest_share_percent": [40.0, None]})
    out = findings.findings_challenges(cov)
    assert ">1. Set-up<" in out and ">P (100.0%)<" in out and ">Q (40.0%)<" in out
    assert "None &lt;b&gt;" in out and out.count(">–<") == 2
    d = pd.DataFrame({"challenge": [4], "title": ["Waste"], "theme": ["B.2"],
                      "theme_issues": [60], "total": [100], "share_percent": [60.0],
                      "without": [40]})
    dom = findings.findings_dominant(d, 50.0)
    assert "more than 50% of the challenge" in dom
    assert "4. Waste: B.2 has 60 of its 100 reports (60.0%); without B.2" in dom
    assert "No challenge is dominated" in findings.findings_dominant(d.iloc[:0], 75.0)


def test_includes_read_their_inputs(project):
    project.write(TX("themes.csv"), pd.DataFrame({
        "code": ["C.1"], "name": ["Crash"], "type": ["Bug"], "issues": [5],
        "issue_share_of_type": [100.0], "issue_share_of_all": [50.0],
        "subthemes_released": [2], "details": [9]}))
    project.write(FD("dominant.csv"), pd.DataFrame(columns=["challenge", "title", "theme",
                                                            "theme_issues", "total",
                                                            "share_percent", "without"]))
    project.write(findings.FINDINGS_VARS, {"dominant_share": 60.0})
    out = {inc.name: inc for inc in findings.INCLUDES}
    bugs = out["findings/themes_bug.md"].make(project.inputs())
    assert ">% of bugs<" in bugs and ">Crash<" in bugs
    assert "No question theme" in out["findings/themes_question.md"].make(project.inputs())
    assert "more than 60%" in out["findings/dominant.md"].make(project.inputs())
