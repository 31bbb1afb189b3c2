"""The report's views of the paper's statements: issue links, cited examples, dominant
themes of the challenges, the bug confusion, the role readings and the comparators."""

from __future__ import annotations

import pandas as pd

from analysis.report.generated import scorecard_differs
from analysis.report.pages import (
    bug_confusion,
    dominant_themes,
    example_items,
    issue_link,
    role_claim_mappings,
)


class FakeInputs:
    """Just enough of :class:`analysis.report.pages.Inputs` for one include."""

    def __init__(self, tables: dict[str, pd.DataFrame]) -> None:
        self.tables = tables

    def csv(self, rel: str) -> pd.DataFrame:
        return self.tables[rel.rsplit("/", 1)[-1]]


def test_issue_links_only_for_github_and_gitee_urls():
    assert issue_link("https://github.com/a/b/issues/1", "a/b#1") == (
        '<a href="https://github.com/a/b/issues/1" rel="noopener">a/b#1</a>')
    assert "<a" not in issue_link('javascript:alert("x")', "x")
    assert "<a" not in issue_link("https://github.com/a/b/issues/1\" onclick=\"x", "x")
    assert issue_link("https://evil.example/a/b/issues/1", "<b>") == "&lt;b&gt;"


def test_example_items_per_subtheme():
    e = pd.DataFrame({"ref": [71, 44], "url": ["https://github.com/p/p/issues/9",
                                               "https://github.com/v/v/issues/1"],
                      "subthemes": ["C.1.i, C.1.ii", "A.1.i"], "repository": ["p/p", "v/v"],
                      "kind": ["issues", "issues"], "number": ["9", "1"],
                      "status": ["in_release", "issue_not_in_release"],
                      "final_label": ["B.1", ""]})
    items = example_items(e)
    assert set(items) == {"C.1.i", "C.1.ii", "A.1.i"}
    assert "[71]" in items["C.1.ii"] and "final label B.1" in items["C.1.i"]
    assert "not in the release" in items["A.1.i"]


def test_a_theme_dominates_above_half_of_a_challenge():
    themes = pd.DataFrame({"code": ["B.2", "C.2", "C.3", "A.1"], "issues": [60, 30, 10, 0]})
    challenges = [{"number": 4, "title": "Waste", "themes": ["B.2", "C.2", "C.3"]},
                  {"number": 1, "title": "Set-up", "themes": ["C.2", "C.3"]},
                  {"number": 2, "title": "None", "themes": ["A.1"]}]
    d = dominant_themes(themes, challenges)
    assert d["theme"].tolist() == ["B.2", "C.2"]
    assert d.iloc[0][["theme_issues", "total", "without"]].tolist() == [60, 100, 40]
    assert dominant_themes(themes, challenges[:1], threshold=60.0).empty


def test_bug_confusion_reports_the_top_pair_of_bug_themes():
    c = pd.DataFrame({"label_a": ["B.1", "C.1"], "label_b": ["B.2", "C.9"],
                      "type_a": ["Requirement", "Bug"], "type_b": ["Requirement", "Bug"],
                      "rater_pairs": [100, 60], "issues": [20, 12],
                      "share_of_disagreements": [0.1, 0.06]})
    text = bug_confusion(FakeInputs({"confusions.csv": c}))
    assert "B.1 and B.2" in text and "two requirement themes" in text
    assert "Among bug themes, the pair confused most often is C.1 and C.9" in text


def test_role_claims_say_which_readings_give_the_paper_count():
    m = pd.DataFrame({"mapping": [0, 0, 1, 1], "description": ["", "", "X: 1 deployment",
                                                                "X: 1 deployment"],
                      "category": ["inference", "deployment"] * 2,
                      "participants": [2, 0, 1, 1]})
    card = pd.DataFrame({"claim_id": ["interviews.developers.deployment.count",
                                      "interviews.developers.inference.count"],
                         "paper_value": ["1", "1"], "relation": ["=", ">"]})
    r = role_claim_mappings(m, card).set_index("claim")
    # "over one" inference developer: the reading used gives 2, the other 1
    assert r.loc["interviews.developers.inference.count", "paper"] == ">1"
    assert r.loc["interviews.developers.deployment.count", "readings"] == "X: 1 deployment"
    assert r.loc["interviews.developers.deployment.count", "possible"] == "0, 1"
    assert r.loc["interviews.developers.inference.count", "readings"] == "the one used"


def test_pages_show_the_comparator():
    card = pd.DataFrame({"claim_id": ["x"], "description": ["over three"],
                         "paper_value": ["3"], "reproduced_value": ["3"],
                         "status": ["differs"], "note": [""], "source": ["Section IV.A"],
                         "relation": [">"]})
    assert ">&gt;3<" in scorecard_differs(card).replace('class="num">', ">")
