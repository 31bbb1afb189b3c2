"""Normalising one cell: whitespace, headers, translations, experience, pronouns."""

from __future__ import annotations

import pytest

from analysis.interviews.normalise import (
    canonical,
    clean_text,
    header_key,
    match_columns,
    neutral_pronouns,
    parse_experience,
    translate,
    whitespace_change,
)
from analysis.interviews.rules import BACKGROUND_COLUMNS, LEVELS


@pytest.mark.parametrize("text,years,note", [
    ("3 years", 3.0, None),
    ("1.5 years", 1.5, None),
    ("8 Months", 8 / 12, "months"),
    ("1 year 6 months", 1.5, "months"),
    ("2", 2.0, "no_unit"),
    (2.5, 2.5, "no_unit"),
    ("3年", 3.0, None),
    ("6个月", 0.5, "months"),
    ("about three", None, "unparsed"),
    ("3 parsecs", None, "unparsed"),
    (None, None, "unparsed"),
])
def test_parse_experience(text, years, note):
    got, how = parse_experience(text)
    assert how == note
    assert got == pytest.approx(years) if years is not None else got is None


def test_translate_and_neutral_pronouns():
    assert translate("A 或 B", {"或": "or"}) == ("A or B", [])
    assert translate("A 和 B", {"或": "or"})[1] == ["和"]
    assert neutral_pronouns("He is here. She said her work is his.") == (
        "The participant is here. The participant said their work is their.")
    assert neutral_pronouns("The theme helps") == "The theme helps"


def test_text_cells_and_headers():
    assert clean_text(None) == ""
    assert clean_text("  a \n b\t") == "a b"
    assert whitespace_change("a\n") == "trailing line break removed"
    assert whitespace_change(" a  b") == "leading whitespace removed, whitespace inside collapsed"
    assert header_key("Linked Taxonomy Node(s)") == "linked taxonomy node s"
    assert canonical("intermediate", LEVELS) == "Intermediate"
    assert canonical("Expert", LEVELS) is None
    found, extra = match_columns(["ROLES", "Notes", "Experience Years for LLMs"],
                                 BACKGROUND_COLUMNS)
    assert found == {"role": 0, "experience": 2} and extra == [1]
