"""The curated taxonomy file: codes, types, spellings, sub-themes and their numbering."""

from __future__ import annotations

import pytest

from analysis.core import taxonomy as tx
from analysis.core.errors import InputError
from analysis.core.taxonomy import load_taxonomy, normalise_name, theme_sort_key
from tests.support.taxonomy_fixtures import SMALL_TAXONOMY, write_small_taxonomy


@pytest.fixture
def small(tmp_path):
    return load_taxonomy(write_small_taxonomy(tmp_path))


def test_project_taxonomy_has_the_papers_structure(taxonomy):
    counts = taxonomy.themes.groupby("type").size().to_dict()
    assert counts == {"Question": 4, "Requirement": 4, "Bug": 10}
    assert taxonomy.type_of("C.10") == "Bug" and taxonomy.type_of("C.11") is None
    assert taxonomy.type_names == ["Question", "Requirement", "Bug"]


def test_the_project_taxonomy_has_the_papers_subthemes(taxonomy):
    subs = taxonomy.subthemes
    assert len(taxonomy.codes) == 18
    assert subs[subs["in_paper"]].groupby("type").size().to_dict() == {
        "Bug": 45, "Question": 9, "Requirement": 15}
    assert subs.loc[~subs["in_paper"], "code"].tolist() == ["B.2.x1"]
    assert taxonomy.type_by_code["C.10"] == "Bug"
    assert taxonomy.code_for_name("Data Pipeline and IO Management") == "C.6"
    assert taxonomy.code_for_name("Code Quality、Logging、Testing and Security") == "C.9"
    assert taxonomy.subtheme_code_for_name(
        "C.1", "Build、 Installation、 and Low-Level Support Failures") == "C.1.i"
    assert taxonomy.subtheme_code_for_name("A.3", "Model Behaviour and Output Verification") \
        == "A.3.iii"


@pytest.mark.parametrize("spelling,code", [
    ("Data Pipeline and IO Management", "C.6"),
    ("Data Pipeline and I/O Management", "C.6"),
    ("Code Quality、Logging、Testing and Security", "C.9"),
    ("Training and Inference Control Logic bugs", "C.5"),
    ("Community and Document Support", "B.4"),
    ("  community and documentation support ", "B.4"),
    ("Something Else", None),
])
def test_aliases(taxonomy, spelling, code):
    assert taxonomy.code_for_name(spelling) == code


def test_normalise_and_sort():
    assert normalise_name("A、B / C") == normalise_name("a, b/c")
    assert sorted(["C.10", "C.9", "C.1"], key=theme_sort_key) == ["C.1", "C.9", "C.10"]


def test_conflicting_alias_is_refused(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("types: [{code: A, name: Q}]\nthemes:\n"
                    "  - {code: A.1, name: X, aliases: [Y]}\n  - {code: A.2, name: Y}\n")
    with pytest.raises(InputError, match="maps to both"):
        load_taxonomy(path)


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
        load_taxonomy(path)


@pytest.mark.parametrize(("code", "theme", "subtheme"), [
    ("C.3", True, False), ("A.12", True, False), ("C.3.ii", False, True),
    ("B.2.iv", False, True), ("D.1", False, False), ("C.", False, False),
    ("c.3", False, False), ("B.2.x1", False, False), ("C.3.ii ", False, False)])
def test_code_patterns_match_whole_theme_and_subtheme_codes(code, theme, subtheme):
    assert bool(tx.THEME_CODE_RE.fullmatch(code)) is theme
    assert bool(tx.SUBTHEME_CODE_RE.fullmatch(code)) is subtheme
