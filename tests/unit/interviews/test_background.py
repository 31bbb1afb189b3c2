"""Cleaning the background sheet: roles, merged cells, units, spellings, private gender."""

from __future__ import annotations

import openpyxl
import pytest

from analysis.core.errors import InputError
from analysis.interviews.background import clean_sheet, role_category, split_role
from analysis.interviews.read import read_sheet
from tests.unit.interviews.synthetic import (
    PARAMS,
    anomalies,
    clean,
    write_background,
    write_codebook,
)


def test_role_helpers():
    assert split_role("LLM User-First-year student", PARAMS.groups) == (
        "User", "First-year student")
    assert split_role("DL framework Developer - Release Manager", PARAMS.groups) == (
        "Developer", "Release Manager")
    assert split_role("Researcher", PARAMS.groups) == ("Unknown", "Researcher")
    cats = PARAMS.role_categories
    assert role_category("Release Manager", "Developer", cats) == ("manager", "manager")
    assert role_category("Release Manager", "User", cats) == ("other", "other")
    assert role_category("Open-source maintainer", "Developer", cats)[0] == "community"


def test_background_merged_cells_units_and_spellings(data):
    bg = data.background.set_index("sheet_row")
    # sheet rows 2-5 users, 6 blank, 7-12 others; row 12 (no role) set aside
    assert list(bg.index) == [2, 3, 4, 5, 7, 8, 9, 10, 11]
    assert bg.loc[5, "responsibilities"] == "They study LLMs."  # merged D4:D5
    assert bg.loc[5, "responsibilities_raw"] is None
    assert bg.loc[9, "responsibilities"] == "They optimise training."  # merged D8:D9
    assert bg.loc[3, "experience_years"] == pytest.approx(8 / 12)
    assert bg.loc[5, "experience_years"] == pytest.approx(1.5)
    assert bg.loc[7, "experience_years"] == 9.0  # bare number read as years
    assert bg.loc[9, "experience_years"] == 5.0  # "5 yrs"
    assert bg.loc[10, "experience_raw"] == "about three"
    assert bg.loc[10, "experience_years"] != bg.loc[10, "experience_years"]  # NaN
    assert bg.loc[3, "gender_raw"] == "FeMale" and bg.loc[3, "gender"] == "Female"
    assert bg.loc[3, "role_raw"].endswith("student ")
    assert bg.loc[3, "role_title"] == "First year undergraduate student"
    assert bg.loc[10, "role_title"] == "Community Model Engineer or LLM Support Engineer"
    assert bg.loc[10, "role_category"] == "community"
    assert bg.loc[11, "type"] == "Unknown" and bg.loc[11, "role_category"] == "other"
    assert bg.loc[2, "responsibilities"] == "He builds test generators."  # raw kept here


def test_background_anomalies(data):
    counts = data.quality["anomaly_counts"]
    assert counts["merged_cell_filled"] == 2
    assert counts["experience_months"] == 2
    assert counts["experience_no_unit"] == 1
    assert counts["experience_unparsed"] == 1
    assert counts["bilingual_text"] == 1
    assert counts["unknown_group"] == 1
    assert counts["no_role"] == 1
    assert counts["extra_sheet"] == 1
    assert counts["blank_row"] >= 1
    merged_rows = sorted(a["line"] for a in anomalies(data, "merged_cell_filled"))
    assert merged_rows == [5, 9]
    # gender anomalies are aggregated: no row, no personal value beyond the spelling
    gender = [a for a in data.quality["anomalies"] if a["column"] == "gender"]
    assert len(gender) == 1 and gender[0]["line"] is None and "2 cells" in gender[0]["message"]
    acc = data.quality["accounting"]["background_rows"]
    assert acc == {"input": 10, "kept": 9, "set_aside": 1}
    assert data.quality["summary"]["balanced"]
    assert list(data.rejected["reason"]).count("no_role") == 1


def test_background_header_below_blank_rows(tmp_path, taxonomy):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["B3"], ws["C3"] = "Roles", "Experience"
    ws["B4"], ws["C4"] = "LLM User-Student", "2 years"
    ws["B5"], ws["C5"] = "LLM User-Student", None
    ws.merge_cells("C4:C5")
    path = tmp_path / "b.xlsx"
    wb.save(path)
    data = clean(write_codebook(tmp_path / "c.csv"), path, taxonomy)
    bg = data.background
    assert list(bg["sheet_row"]) == [4, 5]
    assert list(bg["experience_years"]) == [2.0, 2.0]
    assert [a["line"] for a in anomalies(data, "merged_cell_filled")] == [5]
    assert {a["column"] for a in anomalies(data, "missing_column")} == {"gender",
                                                                        "responsibilities"}


def test_a_run_of_empty_rows_is_one_anomaly(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Roles", "Experience"])
    ws.append(["LLM User-Student", "2 years"])
    ws.append([None, None])  # row 3: one empty row
    ws.append(["LLM User-Student", "1 year"])
    # rows 5 to 99,999: empty (a longer run is read row by row the same way; a million
    # rows took some 5 CPU-s to read and clean)
    ws["A100000"] = "LLM User-Engineer"
    wb.save(tmp_path / "b.xlsx")
    _, found, _, accounting = clean_sheet(read_sheet(tmp_path / "b.xlsx"), PARAMS)
    assert [(a.line, a.message) for a in found if a.kind == "blank_row"] == [
        (3, "empty row"), (5, "empty rows 5-99,999 (99,995 rows)")]
    assert accounting["input"] == 3


def test_background_errors(tmp_path, taxonomy):
    cb = write_codebook(tmp_path / "CodeBook.csv")
    bad = write_background(tmp_path / "bad.xlsx", header=["Name", "Gender", "Age", "Notes"])
    with pytest.raises(InputError, match="no column for role, experience"):
        clean(cb, bad, taxonomy)
    empty = tmp_path / "empty.xlsx"
    openpyxl.Workbook().save(empty)
    with pytest.raises(InputError, match="the sheet is empty"):
        clean_sheet(read_sheet(empty), PARAMS)
