"""Reading the interview files: the release's names, merged cells, one error per problem."""

from __future__ import annotations

import openpyxl
import pytest

from analysis.core.errors import InputError
from analysis.interviews.read import (
    BACKGROUND_FILE,
    CODEBOOK_FILE,
    GUIDELINE_FILE,
    read_interviews,
    read_release,
    read_sheet,
)
from tests.unit.interviews.synthetic import write_background, write_codebook


def test_read_release_reads_the_three_files_by_their_names(files, inputs):
    assert (files.codebook.name, files.background.name, files.guideline.name) == (
        CODEBOOK_FILE, BACKGROUND_FILE, GUIDELINE_FILE)
    assert {q.kind for q in files.codebook.quirks} == {"utf8_bom", "crlf_line_endings"}
    assert files.codebook.text.startswith("Participant,") and "\r" not in files.codebook.text
    assert files.background.title == "Sheet1" and files.background.others == ["Notes"]
    assert files.guideline.text.count("## Part") == 2


def test_read_sheet_fills_merged_cells(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["B3"], ws["C3"] = "Roles", "Experience"
    ws["B4"], ws["C4"] = "LLM User-Student", "2 years"
    ws["B5"] = "LLM User-Student"
    ws.merge_cells("C4:C5")
    wb.save(tmp_path / "b.xlsx")
    sheet = read_sheet(tmp_path / "b.xlsx")
    assert sheet.rows[4][2] == "2 years" and sheet.filled == {(5, 3)}
    assert sheet.rows[0] == [None, None, None]  # rows and columns from A1


def test_read_errors(tmp_path):
    cb = write_codebook(tmp_path / "CodeBook.csv")
    with pytest.raises(InputError, match="file not found"):
        read_interviews(tmp_path / "missing.csv", write_background(tmp_path / "b.xlsx"))
    notxlsx = tmp_path / "fake.xlsx"
    notxlsx.write_text("Roles,Gender\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a readable .xlsx"):
        read_interviews(cb, notxlsx)
    with pytest.raises(InputError, match="file not found"):
        read_interviews(cb, tmp_path / "missing.xlsx")
    good = write_background(tmp_path / "good.xlsx")
    with pytest.raises(InputError, match="no sheet 'Other'"):
        read_interviews(cb, good, sheet="Other")
    assert read_interviews(cb, good, sheet="Notes").background.title == "Notes"
    with pytest.raises(InputError, match="file not found"):
        read_interviews(cb, good, tmp_path / "missing.md")
    with pytest.raises(InputError, match="file not found"):
        read_release(tmp_path / "empty")
    latin1 = tmp_path / "latin1.csv"
    latin1.write_bytes("Participant\nR\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_interviews(latin1, good)
