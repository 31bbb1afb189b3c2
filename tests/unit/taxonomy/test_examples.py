"""Cited examples against the release, and the themes no report carries."""

from __future__ import annotations

import pandas as pd

from analysis.core.projects import Project, Projects
from analysis.taxonomy.examples import (
    IN_RELEASE,
    NO_ISSUE,
    NO_REPOSITORY,
    empty_themes,
    example_summary,
    match_examples,
)

PROJECTS = Projects({"DeepSpeed": Project("DeepSpeed", "DeepSpeed", "toolkit", 4,
                                          repository="deepspeedai/DeepSpeed",
                                          former_names=("microsoft/DeepSpeed",))})


def issues() -> pd.DataFrame:
    urls = ["https://github.com/deepspeedai/DeepSpeed/issues/6906",
            "https://github.com/pytorch/pytorch/issues/98327",
            "https://github.com/NVIDIA/TensorRT-LLM/issues/52",
            "https://github.com/pytorch/pytorch/issues/200"]
    return pd.DataFrame({
        "issue_url": urls, "project": ["DeepSpeed", "pytorch", "TensorRT-LLM", "pytorch"],
        "year": [2024, 2023, 2023, 2024], "final_label": ["B.1", "B.2", "B.1", "C.1"],
        "annotator_1": ["B.1", "B.2", "B.1", "C.1"], "annotator_2": ["C.1", "B.2", "A.4", "A.4"],
        "annotator_3": ["B.1", "B.2", "B.1", None]})


def examples() -> pd.DataFrame:
    rows = [(73, "https://github.com/microsoft/DeepSpeed/issues/6906", "C.1.v, C.1.vi", "C.1",
             "github.com", "microsoft/DeepSpeed", "issues", "6906"),
            (59, "https://github.com/pytorch/pytorch/pull/98327", "B.2.i", "B.2",
             "github.com", "pytorch/pytorch", "pull", "98327"),
            (70, "https://github.com/NVIDIA/TensorRT-LLM/discussions/52", "B.4.ii", "B.4",
             "github.com", "NVIDIA/TensorRT-LLM", "discussions", "52"),
            (49, "https://github.com/pytorch/pytorch/issues/22", "A.3.i", "A.3",
             "github.com", "pytorch/pytorch", "issues", "22"),
            (61, "https://github.com/huggingface/transformers/issues/9742", "A.4.i", "A.4",
             "github.com", "huggingface/transformers", "issues", "9742")]
    return pd.DataFrame(rows, columns=["ref", "url", "subthemes", "theme", "host",
                                       "repository", "kind", "number"]).assign(source="III.D")


def test_examples_match_across_renames_and_kinds_of_link():
    m = match_examples(examples(), issues(), PROJECTS).set_index("ref")
    assert m.loc[73, "status"] == IN_RELEASE and "former name microsoft/DeepSpeed" in \
        m.loc[73, "match_note"]
    assert m.loc[73, "final_label"] == "B.1" and not m.loc[73, "theme_matches"]
    assert m.loc[73, "annotator_labels"] == "B.1, C.1, B.1"
    assert m.loc[73, "annotators_citing_theme"] == 1
    assert m.loc[59, "theme_matches"] and "cited as pull/98327" in m.loc[59, "match_note"]
    assert m.loc[70, "status"] == IN_RELEASE and "discussions/52" in m.loc[70, "match_note"]
    assert m.loc[49, "status"] == NO_ISSUE and "numbered 200 to 98,327" in m.loc[49,
                                                                                "match_note"]
    assert m.loc[61, "status"] == NO_REPOSITORY
    assert example_summary(m.reset_index()) == {
        "cited": 5, "in_release": 3, "matched_with_note": 3, "theme_matches": 1,
        "theme_differs": 2, "repository_not_in_release": 1, "issue_not_in_release": 1}


def test_a_report_listed_twice_shows_its_first_row_among_many_others():
    """Only the cited numbers are looked up; a report in the release twice shows its first
    row, whatever other reports (and other numbers) surround it."""
    many = issues()
    others = many.iloc[[1] * 50].assign(issue_url=[
        f"https://github.com/pytorch/pytorch/issues/{n}" for n in range(1000, 1050)])
    twice = many.iloc[[0]].assign(final_label="C.1", annotator_1="C.1")
    m = match_examples(examples(), pd.concat([others, many, twice, others]),
                       PROJECTS).set_index("ref")
    assert m.loc[73, "final_label"] == "B.1" and m.loc[73, "annotator_labels"] == \
        "B.1, C.1, B.1"
    assert "2 rows in the release; the first is shown" in m.loc[73, "match_note"]
    assert "numbered 200 to 98,327" in m.loc[49, "match_note"]
    assert m.loc[59, "status"] == IN_RELEASE and m.loc[61, "status"] == NO_REPOSITORY


def test_without_the_rename_the_old_name_is_not_found():
    m = match_examples(examples(), issues(), Projects({})).set_index("ref")
    assert m.loc[73, "status"] == NO_REPOSITORY


def test_empty_themes_count_annotator_choices_and_what_rests_on_them():
    themes = pd.DataFrame({"code": ["A.4", "B.1", "C.1"], "name": ["Cross", "New", "Sys"],
                           "type": ["Question", "Requirement", "Bug"], "issues": [0, 2, 1]})
    findings = pd.DataFrame({"id": ["1.4"], "finding": [1], "source": ["III.D.1"],
                             "themes": ["A.4"], "text": ["x"]})
    rankings = pd.DataFrame({"id": ["d"], "who": ["developers"], "source": ["IV.C.1"],
                             "of": [4], "theme": ["A.4"], "rank": [4]})
    e = empty_themes(themes, issues(), examples(), findings, rankings)
    assert e["code"].tolist() == ["A.4"]
    row = e.iloc[0]
    assert (row["label_choices"], row["issues_chosen"], row["most_on_one_issue"]) == (2, 2, 1)
    assert row["final_labels_when_chosen"] == "B.1 (1), C.1 (1)"
    assert (row["findings"], row["examples"]) == ("Finding 1 (1.4)", "[61]")
    assert row["rankings"] == "developers: 4th of 4 (IV.C.1)"


def test_a_report_listed_twice_shows_its_first_row():
    twice = pd.concat([issues(), issues().iloc[[1]].assign(final_label="C.1")],
                      ignore_index=True)
    m = match_examples(examples(), twice, PROJECTS).set_index("ref")
    assert m.loc[59, "final_label"] == "B.2"
    assert "2 rows in the release; the first is shown" in m.loc[59, "match_note"]
