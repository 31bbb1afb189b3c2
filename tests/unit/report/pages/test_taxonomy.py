"""The Taxonomy page's includes (:mod:`analysis.report.pages.taxonomy`)."""

from __future__ import annotations

import pandas as pd

from analysis.report.pages import taxonomy
from analysis.report.pages.base import TX
from tests.unit.report.pages.conftest import scorecard

EXAMPLES = pd.DataFrame({
    "ref": [71, 44], "url": ["https://github.com/p/p/issues/9", "https://github.com/v/v/issues/1"],
    "subthemes": ["C.1.i, C.1.ii", "A.1.i"], "repository": ["p/p", "v/v"],
    "kind": ["issues", "issues"], "number": ["9", "1"],
    "status": ["in_release", "issue_not_in_release"], "final_label": ["B.1", ""],
    "release_url": ["https://github.com/p/q/issues/9", ""], "annotator_labels": ["B.1, C.1", ""],
    "match_note": ["renamed", "absent"], "claim_id": ["examples.ref71", "examples.ref44"]})


def test_issue_links_only_for_github_and_gitee_urls():
    assert taxonomy.issue_link("https://github.com/a/b/issues/1", "a/b#1") == (
        '<a href="https://github.com/a/b/issues/1" rel="noopener">a/<wbr>b#1</a>')
    assert "<a" not in taxonomy.issue_link('javascript:alert("x")', "x")
    assert "<a" not in taxonomy.issue_link('https://github.com/a/b/issues/1" onclick="x', "x")
    assert taxonomy.issue_link("https://evil.example/a/b/issues/1", "<b>") == "&lt;b&gt;"


def test_example_items_per_subtheme():
    items = taxonomy.example_items(EXAMPLES)
    assert set(items) == {"C.1.i", "C.1.ii", "A.1.i"}
    assert "[71]" in items["C.1.ii"] and "final label B.1" in items["C.1.i"]
    assert "not in the release" in items["A.1.i"]


def test_example_verdicts_are_the_scorecard_verdicts():
    card = scorecard(("examples.ref71", "C.1", "B.1", "differs"),
                     ("examples.ref44", "A.1", "", "not_reproducible"))
    badges = taxonomy.example_verdicts(EXAMPLES, card)
    assert "st-differs" in badges[0] and "st-not_reproducible" in badges[1]
    assert taxonomy.example_verdicts(EXAMPLES, card.iloc[:1])[1] == ""


def test_examples_table(project):
    project.write(TX("examples.csv"), EXAMPLES)
    project.write(taxonomy.SCORECARD, scorecard(("examples.ref71", "C.1", "C.1", "exact")))
    out = taxonomy.taxonomy_examples(project.inputs())
    assert "All 2 cited examples" in out and "st-exact" in out
    assert "in the release as" in out and "no (report absent)" in out
    assert '<td data-label="final label">–</td>' in out


def test_types_themes_and_tests(project):
    project.write(TX("types.csv"), pd.DataFrame({
        "type": ["Bug", "Total"], "themes": [2, 2], "themes_with_issues": [1, 1],
        "subthemes_paper": [3, 3], "subthemes_released": [4, 4], "details": [1586, 1586],
        "details_parentheses": [1500, 1500], "issues": [20, 20]}))
    types = taxonomy.taxonomy_types(project.inputs())
    assert ">1,586<" in types and '<tr class="sum">' in types
    project.write(TX("themes.csv"), pd.DataFrame({
        "code": ["C.1", "C.2"], "name": ["One", "Two"], "type": ["Bug", "Bug"],
        "subthemes_released": [3, 1], "subthemes_paper": [2, 1],
        "subthemes_not_in_paper": ["X <y>", ""], "details": [5, 0], "issues": [20, 0],
        "issue_share_of_type": [100.0, 0.0], "issue_share_of_all": [54.63, 0.0]}))
    themes = taxonomy.taxonomy_themes(project.inputs())
    assert ">3 (paper 2)<" in themes and "with X &lt;y&gt;" in themes
    assert ">54.6%<" in themes and '<tr class="muted">' in themes
    project.write(TX("tests.csv"), pd.DataFrame({
        "test": ["type_by_project"], "n": [100], "rows": [3], "columns": [11],
        "chi2": [1234.56], "dof": [20], "p_value": [1e-9], "cramers_v": [0.21234],
        "min_expected": [0.5], "share_expected_below_5": [0.1], "dropped": [None]}))
    tests = taxonomy.taxonomy_tests(project.inputs())
    assert ">issue type × project<" in tests and ">3 × 11<" in tests and ">1,234.6<" in tests
    assert ">&lt; 0.001<" in tests and ">0.212<" in tests and ">10.0%<" in tests


def test_residuals_show_the_farthest_cells_of_each_test(project):
    project.write(TX("residuals.csv"), pd.DataFrame({
        "test": ["t1", "t1", "t1", "t2"], "row": ["a", "b", "c", "a"],
        "column": ["x", "x", "x", "y"], "observed": [1, 2, 3, 4],
        "expected": [1.0, 2.5, 1.0, 4.0], "std_residual": [0.5, -3.0, 2.0, 0.0]}))
    out = taxonomy.taxonomy_residuals(project.inputs(), top=2)
    first, second = out.split("</details>")[:2]
    assert "t1: the 2 cells farthest" in first and first.index(">-3.0<") < first.index(">+2.0<")
    assert ">+0.5<" not in first and "t2: the 1 cells" in second


def test_details_get_their_examples(project):
    project.write(TX("details.html"), "<h4>C.1.i Crash</h4><ul><li>x</li></ul>"
                                      "<script>bad()</script>")
    project.write(TX("examples.csv"), EXAMPLES)
    out = taxonomy.taxonomy_details(project.inputs())
    # the sub-theme heading sits under the page's h2 section: h3, no level skipped
    assert "<h3>C.1.i Crash</h3><p class=\"cited-examples\">" in out
    assert "<script" not in out


def test_empty_themes(project):
    project.write(TX("empty_themes.csv"), pd.DataFrame({
        "code": ["A.4"], "name": ["Port"], "type": ["Question"], "label_choices": [12],
        "issues_chosen": [9], "most_on_one_issue": [2], "final_labels_when_chosen": [""],
        "findings": ["F1"], "examples": [""], "rankings": [""]}))
    out = taxonomy.empty_themes_table(project.inputs())
    assert "12 times on 9 reports (at most 2 of the annotators" in out
    assert out.count(">–<") == 3
    project.write(TX("empty_themes.csv"), pd.DataFrame(columns=["code"]))
    assert "Every theme is the final label" in taxonomy.empty_themes_table(project.inputs())


def test_the_tree_as_text_folds_by_type_and_theme():
    themes = pd.DataFrame({"type": ["Bug", "Bug", "Question"], "code": ["C.1", "C.2", "A.1"],
                           "name": ["Crash <b>", "Slow", "Install"], "issues": [3, 1, 0]})
    subs = pd.DataFrame({"theme_code": ["C.1", "C.1", "A.1"],
                         "code": ["C.1.i", "C.1.x1", "A.1.i"],
                         "name": ["Segfault", "Extra", "Deps"], "in_paper": [True, False, True],
                         "details": [5, 1, 2]})
    out = taxonomy.tree_text(themes, subs)
    assert out.count('<details class="tree-type">') == 2
    assert "<strong>Bug</strong> · 2 themes, 4 issues" in out
    assert "Crash &lt;b&gt; · 3 issues, 2 sub-themes" in out
    assert "Slow · 1 issue, 0 sub-themes" in out
    assert "<code>C.1.i</code> Segfault · 5 details</li>" in out
    assert "Extra · 1 detail <span class=\"note-inline\">not in the paper" in out
    assert out.index("Bug") < out.index("Question")  # the stage's order
    assert "No theme" in taxonomy.tree_text(themes.iloc[:0], subs)
