"""The taxonomy file (types, themes, sub-themes, aliases) and the counts built on it."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core import taxonomy as tx
from analysis.core.claims import judge
from analysis.core.errors import InputError
from analysis.taxonomy.details import parse_detail_files
from tests.support.taxonomy_fixtures import (
    SMALL_TAXONOMY,
    small_detail_files,
    synthetic_issues,
    write_small_taxonomy,
)


@pytest.fixture
def small(tmp_path):
    return tx.load_taxonomy(write_small_taxonomy(tmp_path))


@pytest.fixture
def built(tmp_path, small):
    """Parsed small detail files and the stage's tables over synthetic issues."""
    parsed = parse_detail_files(tmp_path, small_detail_files(tmp_path), small)
    issues = pd.DataFrame({"type": ["Question"] * 3 + ["Requirement"] * 5,
                           "final_label": ["A.1"] * 3 + ["B.1"] * 5})
    subs = tx.subtheme_table(small, parsed.rows)
    themes = tx.theme_table(small, parsed.rows, subs, issues)
    types = tx.type_table(small, themes)
    return parsed, subs, themes, types


def test_the_project_taxonomy_has_the_papers_shape(taxonomy):
    subs = taxonomy.subthemes
    assert len(taxonomy.codes) == 18
    assert subs[subs["in_paper"]].groupby("type").size().to_dict() == {
        "Bug": 45, "Question": 9, "Requirement": 15}
    assert subs.loc[~subs["in_paper"], "code"].tolist() == ["B.2.x1"]
    # the existing API keeps working
    assert taxonomy.type_by_code["C.10"] == "Bug"
    assert taxonomy.code_for_name("Data Pipeline and IO Management") == "C.6"
    assert taxonomy.code_for_name("Code Quality、Logging、Testing and Security") == "C.9"
    assert taxonomy.subtheme_code_for_name(
        "C.1", "Build、 Installation、 and Low-Level Support Failures") == "C.1.i"
    assert taxonomy.subtheme_code_for_name("A.3", "Model Behaviour and Output Verification") \
        == "A.3.iii"


def test_subtheme_numbering_is_consecutive_per_theme(taxonomy):
    subs = taxonomy.subthemes[taxonomy.subthemes["in_paper"]]
    for theme, grp in subs.groupby("theme_code"):
        numbers = [tx.roman_to_int(n) for n in grp["numeral"]]
        assert numbers == list(range(1, len(grp) + 1)), theme


def test_subtheme_aliases_are_scoped_to_their_theme(small):
    assert small.subtheme_code_for_name("A.1", "version clashes") == "A.1.ii"
    assert small.subtheme_code_for_name("B.1", "Version Clash") == "B.1.ii"
    assert small.subtheme_code_for_name("B.1", "Version Clashes") is None
    assert small.subtheme_candidates("Version Clash") == ["A.1.ii", "B.1.ii"]
    assert small.subtheme_code_for_name("A.2", "Nothing") is None


def test_roman_numerals_and_sort_order():
    assert [tx.roman_to_int(x) for x in ("i", "iv", "ix", "xiv")] == [1, 4, 9, 14]
    assert tx.roman_to_int("iiii") is None and tx.roman_to_int("x1") is None
    assert all(tx.roman_to_int(tx.int_to_roman(n)) == n for n in range(1, 60))
    codes = ["C.10.i", "C.2.x1", "C.2.iv", "C.2.ix", "A.1.ii", "C.2.v"]
    assert sorted(codes, key=tx.subtheme_sort_key) == ["A.1.ii", "C.2.iv", "C.2.v", "C.2.ix",
                                                       "C.2.x1", "C.10.i"]


@pytest.mark.parametrize("bad, match", [
    ("- {code: A.1.i, name: Missing Packages", "not valid YAML"),
    ("      - {code: A.2.i, name: Clash}\n", "needs a name and a code"),
    ("      - {code: A.1.vv, name: Odd}\n", "needs a name and a code"),
    ("      - {code: A.1.iii, name: Version Clashes}\n", "maps to both"),
    ("      - {code: A.1.ii, name: Twice}\n", "duplicate sub-theme codes"),
])
def test_bad_subtheme_entries_are_user_errors(tmp_path, bad, match):
    text = SMALL_TAXONOMY
    anchor = ("      - {code: A.1.ii, name: Version Clash, aliases: [Version Clashes], "
              "basis: name}\n")
    if bad.startswith("- "):
        text = text.replace("types:", bad + "\ntypes:")
    else:
        text = text.replace(anchor, anchor + bad)
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=match):
        tx.load_taxonomy(path)


def test_counts_on_the_small_taxonomy(built):
    _, subs, themes, types = built
    t = types.set_index("type")
    assert t.loc["Question"].to_dict() == {
        "themes": 2, "themes_released": 2, "themes_with_issues": 1, "subthemes_paper": 3,
        "subthemes_released": 3, "details": 7, "details_parentheses": 6, "issues": 3}
    assert t.loc["Requirement", "subthemes_paper"] == 2
    assert t.loc["Requirement", "subthemes_released"] == 3
    assert t.loc["Total", "details"] == 13
    th = themes.set_index("code")
    assert th.loc["B.1", "subthemes_not_in_paper"] == "B.1.x1 Extra Wishes"
    assert th.loc["B.1", "issue_share_of_type"] == pytest.approx(100.0)
    assert th.loc["A.1", "issue_share_of_all"] == pytest.approx(37.5)
    assert subs["code"].tolist() == ["A.1.i", "A.1.ii", "A.2.i", "B.1.i", "B.1.ii", "B.1.x1"]


def test_reproduced_values_say_why_they_differ(built):
    parsed, subs, themes, types = built
    rep = tx.taxonomy_reproduced(types, themes, subs, parsed.rows)
    assert rep["taxonomy.subthemes.requirement"]["value"] == 3
    assert "'Extra Wishes' (B.1.x1, under B.1) is not in the paper's numbering" in \
        rep["taxonomy.subthemes.requirement"]["note"]
    assert "Extra Wishes" in rep["taxonomy.subthemes.B.1"]["note"]
    assert "Extra" not in rep["taxonomy.subthemes.A.1"]["note"]
    assert rep["taxonomy.details.question"]["value"] == 7
    assert "parenthesis-aware split gives 6" in rep["taxonomy.details.question"]["note"]
    assert "line 2 of r.csv is not valid CSV" in rep["taxonomy.details.requirement"]["note"]
    assert "A.2" in rep["taxonomy.themes"]["note"]  # a theme without issues is named
    gone = tx.taxonomy_reproduced(types, themes, subs, parsed.rows,
                                  missing_types=["Question"])
    assert gone["taxonomy.details.question"] == {
        "value": None, "note": "no detail file for Question issues in the dump"}
    assert gone["taxonomy.subthemes.A.2"]["value"] is None
    assert gone["taxonomy.themes"]["value"] is None
    assert gone["taxonomy.details.requirement"]["value"] == 6
    alt = tx.taxonomy_reproduced(types, themes, subs, parsed.rows, item_split="parentheses")
    assert alt["taxonomy.details.question"]["value"] == 6
    with pytest.raises(InputError, match="item_split"):
        tx.taxonomy_reproduced(types, themes, subs, item_split="semicolon")
    # a count off by one is a difference, not rounding
    assert judge("15", 16, kind="count") == "differs"
    assert judge("15", 15, kind="count") == "exact"


def test_taxonomy_claims_are_exact_counts():
    from analysis.core.claims import load_claims, scorecard

    claims = load_claims()
    ours = claims[claims["claim_id"].str.startswith("taxonomy.")]
    assert len(ours) == 30 and (ours["kind"] == "count").all()
    card = scorecard(ours, {"taxonomy.subthemes": {"value": 70, "note": "extra"}})
    row = card[card["claim_id"] == "taxonomy.subthemes"].iloc[0]
    assert (row["status"], row["note"]) == ("differs", "extra")


def test_detail_table_html_and_spellings(built, small):
    parsed, subs, themes, _ = built
    details = tx.detail_table(small, parsed.items, subs)
    assert len(details) == 6 + 6 and details["pieces"].sum() == 13
    assert details["subtheme_code"].tolist()[:3] == ["A.1.i", "A.1.i", "A.1.ii"]
    html = tx.details_html(details, themes)
    assert html.count("<details") == 3
    assert "&quot;npu&quot;" in html and '"npu"' not in html
    assert "not in the paper" in html
    spell = tx.spelling_table(small, parsed.rows)
    row = spell[(spell["spelling"] == "Version Clashes")].iloc[0]
    assert (row["code"], row["match"]) == ("A.1.ii", "alias")
    assert spell.loc[spell["spelling"] == "Extra Wishes", "match"].item() == "not in paper"


def test_unknown_theme_rows_appear_in_every_table(tmp_path, small):
    from tests.support.taxonomy_fixtures import HEADER, detail_line, write_detail_files

    text = HEADER + detail_line("Mystery", "Thing", ["a", "b"])
    write_detail_files(tmp_path, {"q.csv": text})
    parsed = parse_detail_files(tmp_path, {"Question": "q.csv"}, small)
    issues = synthetic_issues({"Question": ["A.1"]}, ["p"], [2024], n=5)
    subs = tx.subtheme_table(small, parsed.rows)
    themes = tx.theme_table(small, parsed.rows, subs, issues)
    # kept under the file's type, after that type's known themes
    assert subs.iloc[3][["type", "code", "name", "details"]].tolist() == [
        "Question", "", "Thing", 2]
    assert themes.iloc[-1][["code", "name", "details"]].tolist() == ["", "Mystery", 2]
    details = tx.detail_table(small, parsed.items, subs)
    assert details["theme_code"].tolist() == ["", ""]
    assert "unmapped" in tx.details_html(details, themes)
