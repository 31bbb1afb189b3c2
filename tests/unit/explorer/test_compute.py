"""The issue explorer's file and the release examples per theme
(:mod:`analysis.explorer.compute`)."""

from __future__ import annotations

import json

import pandas as pd

from analysis.explorer import compute as explorer
from analysis.explorer.outputs import build, explorer_json
from tests.unit.explorer.conftest import PROJECTS

BAD_URL = "https://github.com/org/x/issues/7<script>alert(1)</script>"


def issues() -> pd.DataFrame:
    """Six reports: two unanimous, three contested (one with a missing rating), one whose
    URL is no issue address; a label outside the taxonomy."""
    return pd.DataFrame({
        "project": ["vllm", "pytorch", "vllm", "zeta", "pytorch", "vllm"],
        "issue_url": ["https://github.com/vllm-project/vllm/issues/12",
                      "https://github.com/pytorch/pytorch/issues/5",
                      "https://gitee.com/org/vllm/issues/I7ABC",
                      "https://github.com/org/zeta/issues/007", BAD_URL,
                      "https://github.com/vllm-project/vllm/issues/13"],
        "year": [2023, 2024, 2024, 2023, 2023, 2024],
        "final_label": ["A.1", "A.1", "B.1", "B.1", "A.2", "B.1"],
        "annotator_1": ["A.1", "A.1", "B.1", "B.1", "A.2", "B.1"],
        "annotator_2": ["A.1", "A.2", "B.1", "Z.9", "A.2", "B.1"],
        "annotator_10": ["A.1", "A.1", None, "B.1", "A.2", "A.1"],
    })


def decode(data: dict) -> pd.DataFrame:
    """The rows of the explorer's file read back (as the page's decode does)."""
    r = data["rows"]
    return pd.DataFrame({
        "project": [data["projects"][i] for i in r["project"]],
        "year": [data["years"][i] for i in r["year"]],
        "final_label": [data["themes"][i] for i in r["theme"]],
        "type": [data["types"][data["theme_types"][i]] for i in r["theme"]],
        "labels": [[None if v is None else data["labels"][v] for v in data["label_sets"][i]]
                   for i in r["labels"]],
        "agreed": r["agreed"], "ratings": r["ratings"],
        "url": [None if p < 0 else f"{data['url_prefixes'][p]}/{t}"
                for p, t in zip(r["url_prefix"], r["url_tail"], strict=True)],
    })


def test_agreement_counts_the_annotators_who_chose_the_final_label():
    a = explorer.agreement(issues())
    assert a["ratings"].tolist() == [3, 3, 2, 3, 3, 3]
    assert a["agreed"].tolist() == [3, 2, 2, 2, 3, 2]
    assert a["contested"].tolist() == [False, True, False, True, False, True]


def test_annotator_columns_are_in_numeric_order():
    assert explorer.annotator_columns(issues()) == ["annotator_1", "annotator_2",
                                                    "annotator_10"]


def test_only_issue_addresses_become_links():
    assert explorer.split_url("https://github.com/a/b/issues/12") == (
        "https://github.com/a/b/issues", 12)
    assert explorer.split_url("https://github.com/a/b/issues/012") == (
        "https://github.com/a/b/issues", "012")  # would not read back as a number
    assert explorer.split_url("https://gitee.com/a/b/issues/I7ABC") == (
        "https://gitee.com/a/b/issues", "I7ABC")
    assert explorer.split_url(BAD_URL) == (None, BAD_URL)
    assert explorer.split_url("javascript:alert(1)") == (None, "javascript:alert(1)")


def test_the_file_gives_back_every_row(small):
    frame = issues()
    data = explorer.explorer_data(frame, small, ["pytorch", "vllm"],
                                  PROJECTS.names(["pytorch", "vllm", "zeta"]))
    assert data["n"] == 6 and data["format"] == explorer.FORMAT
    assert data["projects"] == ["pytorch", "vllm", "zeta"]  # Table I's order, then the rest
    assert data["project_names"] == ["PyTorch", "vLLM", "zeta"]
    assert data["themes"][:3] == ["A.1", "A.2", "B.1"]
    assert data["labels"] == ["A.1", "A.2", "B.1", "Z.9"]  # outside the taxonomy: kept
    back = decode(data)
    assert back["project"].tolist() == frame["project"].tolist()
    assert back["year"].tolist() == frame["year"].tolist()
    assert back["final_label"].tolist() == frame["final_label"].tolist()
    assert back["type"].tolist() == ["Question", "Question", "Requirement", "Requirement",
                                     "Question", "Requirement"]
    assert back["labels"][2] == ["B.1", "B.1", None] and back["labels"][3][1] == "Z.9"
    assert back["agreed"].tolist() == [3, 2, 2, 2, 3, 2]
    urls = frame["issue_url"].tolist()
    assert back["url"].tolist() == [*urls[:4], None, urls[5]]
    assert data["rows"]["url_tail"][4] == BAD_URL  # shown as text
    assert data["summary"] == {
        "issues_by_project": {"pytorch": 2, "vllm": 3, "zeta": 1},
        "contested_by_project": {"pytorch": 1, "vllm": 1, "zeta": 1},
        "unanimous_by_project": {"pytorch": 1, "vllm": 2, "zeta": 0}}


def test_the_file_is_the_same_whatever_the_order_of_sets(small):
    """Two runs give the same bytes, and the dictionaries are sorted, not in set order."""
    frame = issues()
    one = explorer_json(explorer.explorer_data(frame, small, ["vllm"], {}))
    two = explorer_json(explorer.explorer_data(frame.copy(), small, ["vllm"], {}))
    assert one == two and json.loads(one)["url_prefixes"] == sorted(
        json.loads(one)["url_prefixes"])
    assert " " not in one.replace("Install Trouble", "").replace("Usage Gaps", "").replace(
        "Feature Wishes", "")  # compact


def test_a_table_without_urls_or_annotators_still_gives_a_file(small, small_issues):
    data = explorer.explorer_data(small_issues, small, ["pytorch", "vllm"], {})
    assert data["n"] == 8 and data["label_sets"] == [[]]
    assert set(data["rows"]["ratings"]) == {0} and set(data["rows"]["url_prefix"]) == {-1}
    assert explorer.release_examples(small_issues, small).empty


def test_release_examples_pick_unanimous_and_contested_reports_per_theme(small):
    frame = pd.concat([issues()] * 1, ignore_index=True)
    ex = explorer.release_examples(frame, small, per_kind=1)
    assert list(ex.columns) == explorer.RELEASE_EXAMPLE_COLUMNS
    assert set(zip(ex["theme"], ex["agreement"], strict=True)) == {
        ("A.1", "unanimous"), ("A.1", "contested"), ("B.1", "unanimous"),
        ("B.1", "contested")}  # A.2's only report has no issue address
    assert BAD_URL not in set(ex["issue_url"])
    a1 = ex[ex["theme"] == "A.1"].set_index("agreement")
    assert a1.loc["unanimous", "issue_url"].endswith("vllm/issues/12")
    assert a1.loc["contested", "annotator_labels"] == "A.1, A.2, A.1"
    assert ex["theme"].tolist() == ["A.1", "A.1", "B.1", "B.1"]  # taxonomy order
    assert ex["agreement"].tolist()[:2] == ["unanimous", "contested"]


def test_release_examples_follow_a_fixed_order_not_the_file_order(small):
    urls = [f"https://github.com/o/r/issues/{n}" for n in range(1, 21)]
    frame = pd.DataFrame({"project": "vllm", "issue_url": urls, "year": 2024,
                          "final_label": "A.1", "annotator_1": "A.1"})
    ex = explorer.release_examples(frame, small)
    expected = sorted(urls, key=explorer.url_order)[:explorer.EXAMPLES_PER_KIND]
    assert ex["issue_url"].tolist() == expected
    assert ex["rank"].tolist() == [1, 2, 3]
    shuffled = explorer.release_examples(frame.iloc[::-1].reset_index(drop=True), small)
    assert shuffled.equals(ex)


def test_the_stage_writes_the_file_the_examples_and_metrics(small):
    result = explorer.compute(issues(), small, PROJECTS)
    out = build(result)
    assert set(out.tables) == {"explorer.json", "release_examples.csv"}
    assert json.loads(out.tables["explorer.json"])["projects"] == ["pytorch", "vllm", "zeta"]
    assert out.metrics == {"issues": 6, "contested": 3,
                           "release_examples": len(result.release_examples)}


def test_an_issue_number_past_javascripts_exact_integers_is_kept_as_text():
    """JSON numbers past 2**53 - 1 read back as another number in the page's JavaScript
    (9007199254740993 as ...992): such an issue number is written as text, the page
    showing and linking it as written; smaller ones stay numbers (the same bytes)."""
    base = "https://github.com/o/r/issues/"
    assert explorer.split_url(f"{base}{2**53 - 1}") == (base[:-1], 2**53 - 1)
    for number in (2**53, 2**53 + 1, 10**30):
        assert explorer.split_url(f"{base}{number}") == (base[:-1], str(number))
    text = explorer_json({"url_tail": [explorer.split_url(f"{base}{2**53 + 1}")[1], 12]})
    assert text == '{"url_tail":["9007199254740993",12]}'


def test_the_release_examples_of_a_study_are_the_releases_own(small):
    """A study (the release extended with batches, a ``batch`` column, batch annotators in
    columns of their own): the examples the Taxonomy page calls the release's are those of
    the release alone, byte for byte; a batch's report, however early in the fixed order,
    neither appears among them nor displaces one of the release's."""
    release = issues()
    batch = pd.DataFrame({
        "project": "vllm", "year": 2026, "final_label": ["A.1", "A.1", "B.1"],
        "issue_url": [f"https://github.com/vllm-project/vllm/issues/9{n}" for n in range(3)],
        "annotator_1": None, "annotator_2": None, "annotator_10": None,
        "annotator_11": ["A.1", "A.2", "B.2"], "annotator_12": ["A.1", "A.1", "B.1"]})
    study = pd.concat([release.assign(batch="release"), batch.assign(batch="2026-01")],
                      ignore_index=True)
    alone = explorer.release_examples(release, small)
    result = explorer.compute(study, small, PROJECTS)
    assert result.release_examples.to_csv() == alone.to_csv()
    assert not result.release_examples["issue_url"].str.contains("/issues/9").any()
    # the explorer itself shows the whole study
    assert result.explorer["n"] == len(study)
