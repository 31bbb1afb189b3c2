"""The taxonomy as the detail files fill it: the tables of the tree, the details and their
spellings, and the stage's computation."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.taxonomy import compute as tree
from analysis.taxonomy.details import parse_detail_files
from analysis.taxonomy.distribution import MixTests
from tests.support.stages import taxonomy_result
from tests.support.taxonomy_fixtures import small_detail_files, synthetic_issues
from tests.unit.taxonomy.conftest import PROJECTS


def test_counts_on_the_small_taxonomy(built):
    subs, themes, types = built.subthemes, built.themes, built.types
    t = types.set_index("type")
    assert t.loc["Question"].to_dict() == {
        "themes": 2, "themes_released": 2, "themes_with_issues": 1, "subthemes_paper": 3,
        "subthemes_released": 3, "details": 7, "details_parentheses": 6, "issues": 3}
    assert t.loc["Requirement", "subthemes_paper"] == 2
    assert t.loc["Requirement", "subthemes_released"] == 3
    assert t.loc["Total", "details"] == 13
    assert tree.subtheme_count(types) == 6 == t.loc["Total", "subthemes_released"]
    th = themes.set_index("code")
    assert th.loc["B.1", "subthemes_not_in_paper"] == "B.1.x1 Extra Wishes"
    assert th.loc["B.1", "issue_share_of_type"] == pytest.approx(100.0)
    assert th.loc["A.1", "issue_share_of_all"] == pytest.approx(37.5)
    assert subs["code"].tolist() == ["A.1.i", "A.1.ii", "A.2.i", "B.1.i", "B.1.ii", "B.1.x1"]
    assert subs.columns.tolist() == tree.SUBTHEME_TABLE_COLUMNS


def test_tables_from_their_functions_equal_the_result(tmp_path, small, small_issues, built):
    parsed = parse_detail_files(tmp_path, small_detail_files(tmp_path), small)
    subs = tree.subtheme_table(small, parsed.rows)
    themes = tree.theme_table(small, parsed.rows, subs, small_issues)
    pd.testing.assert_frame_equal(subs, built.subthemes)
    pd.testing.assert_frame_equal(themes, built.themes)
    pd.testing.assert_frame_equal(tree.type_table(small, themes), built.types)


def test_subtheme_count_is_the_total_row_of_released_subthemes():
    types = pd.DataFrame({"type": ["Question", "Bug", "Total"],
                          "subthemes_released": [4, 5, 9], "subthemes_paper": [1, 1, 2]})
    assert tree.subtheme_count(types) == 9


def test_detail_table_html_and_spellings(built, small):
    details = built.details
    assert len(details) == 6 + 6 and details["pieces"].sum() == 13
    assert details["subtheme_code"].tolist()[:3] == ["A.1.i", "A.1.i", "A.1.ii"]
    html = tree.details_html(details, built.themes)
    assert html.count("<details") == 3
    assert "&quot;npu&quot;" in html and '"npu"' not in html
    assert "not in the paper" in html
    spell = built.spellings
    row = spell[(spell["spelling"] == "Version Clashes")].iloc[0]
    assert (row["code"], row["match"]) == ("A.1.ii", "alias")
    assert spell.loc[spell["spelling"] == "Extra Wishes", "match"].item() == "not in paper"
    pd.testing.assert_frame_equal(spell, tree.spelling_table(small, built.parsed.rows))


def test_unknown_theme_rows_appear_in_every_table(tmp_path, small):
    from tests.support.taxonomy_fixtures import HEADER, detail_line, write_detail_files

    text = HEADER + detail_line("Mystery", "Thing", ["a", "b"])
    write_detail_files(tmp_path, {"q.csv": text})
    parsed = parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    issues = synthetic_issues({"Question": ["A.1"]}, ["p"], [2024], n=5)
    result = taxonomy_result(parsed, issues, small, PROJECTS)
    subs, themes = result.subthemes, result.themes
    # kept under the file's type, after that type's known themes
    assert subs.iloc[3][["type", "code", "name", "details"]].tolist() == [
        "Question", "", "Thing", 2]
    assert themes.iloc[-1][["code", "name", "details"]].tolist() == ["", "Mystery", 2]
    assert result.details["theme_code"].tolist() == ["", ""]
    assert "unmapped" in tree.details_html(result.details, themes)


def test_the_stage_orders_and_names_the_projects(built, small):
    assert list(built.project_names) == ["pytorch", "vllm", "zeta"]  # Table I order
    assert built.project_names == {"pytorch": "PyTorch", "vllm": "vLLM", "zeta": "zeta"}
    assert isinstance(built.mix, MixTests)
    counts = built.mix.counts["type_by_project"]
    assert counts.columns.tolist() == ["pytorch", "vllm", "zeta"]
    assert counts.index.tolist() == small.type_names
    assert built.mix.table["test"].tolist() == ["type_by_project", "type_by_year",
                                                "theme_by_project", "theme_by_year"]
    assert built.item_split == "comma" and built.taxonomy is small


def test_rows_sorted_by_a_key_of_their_values_stably():
    frame = pd.DataFrame({"code": ["B", "A", "B", "A"], "n": [2, 9, 1, 9],
                          "tag": ["w", "x", "y", "z"]}, index=[7, 5, 3, 1])
    out = tree._sorted(frame, lambda r: (r["code"], r["n"]))
    assert out["tag"].tolist() == ["x", "z", "y", "w"]  # A/9 twice: first-come order kept
    assert out.index.tolist() == [0, 1, 2, 3]
    assert tree._sorted(frame.iloc[:0], lambda r: r["code"]).empty
