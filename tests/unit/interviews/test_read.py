"""Reading the interview files: the release's names, merged cells, one error per problem,
and a hostile background workbook (a value at XFD1048576, a merged range of billions of
cells, a chart sheet, a password, shared strings of hundreds of MB, a row of more cells
than Excel has columns) read in bounded time and memory or refused in one line."""

from __future__ import annotations

import time

import openpyxl
import pytest

from analysis.core.dump import Quirk
from analysis.core.errors import InputError
from analysis.core.sizes import MiB
from analysis.core.workbooks import Limits
from analysis.interviews import read
from analysis.interviews.background import clean_sheet
from analysis.interviews.read import (
    BACKGROUND_FILE,
    CODEBOOK_FILE,
    GUIDELINE_FILE,
    read_interviews,
    read_release,
    read_sheet,
)
from tests.support.bombs import (
    BACKGROUND_TABLE,
    chart_only_workbook,
    encrypted_workbook,
    merged_past_workbook,
    strings_bomb_workbook,
    table_workbook,
    wide_row_workbook,
)
from tests.unit.interviews.synthetic import PARAMS, write_background, write_codebook


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


# -- hostile workbooks --------------------------------------------------------------------


def refusal(path) -> str:
    """The one-line message reading the background workbook ``path`` ends with; it takes
    seconds at most."""
    started = time.perf_counter()
    with pytest.raises(InputError) as info:
        read_sheet(path)
    assert time.perf_counter() - started < 20
    message = str(info.value)
    assert "\n" not in message and message.startswith((f"{path}: ", f"{path}, row "))
    return message


def test_a_value_far_from_the_table_is_refused_not_spread_over_billions_of_cells(tmp_path):
    book = table_workbook(tmp_path / "b.xlsx", far_cell="XFD2000")
    assert refusal(book) == (
        f"{book}: the cells holding values span A1:XFD2000 (32,768,000 cells), more than the "
        "limit of 5,000,000 -> delete the values outside the table (far below or right of it) "
        "and save the workbook again")


def test_only_rows_and_columns_holding_values_make_the_sheet(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in BACKGROUND_TABLE:
        ws.append(row)
    ws["H40"].number_format = "0.00"  # formatted, no value: written as a cell of its own
    ws["E2"] = ""
    wb.save(tmp_path / "b.xlsx")
    sheet = read_sheet(tmp_path / "b.xlsx")
    assert sheet.rows == [list(row) for row in BACKGROUND_TABLE]


def test_a_merged_range_past_the_data_is_clipped_and_reported(tmp_path):
    book = merged_past_workbook(tmp_path / "b.xlsx", "A200:XFD1048576")  # 17 billion cells
    assert book.stat().st_size < 10_000
    started = time.perf_counter()
    sheet = read_sheet(book)
    assert time.perf_counter() - started < 20
    assert sheet.rows == [list(row) for row in BACKGROUND_TABLE] and sheet.filled == set()
    assert sheet.quirks == [Quirk(
        "blank_row", "b.xlsx", "merged range A200:XFD1048576 reaches past the cells holding "
        "values (A1:D3): its rows 200-1,048,576 and columns E-XFD hold none and are not read",
        200, value="A200:XFD1048576")]


def test_a_merged_range_reaching_past_the_data_fills_the_data_only(tmp_path):
    book = merged_past_workbook(tmp_path / "b.xlsx", "D2:F9")
    sheet = read_sheet(book)
    assert sheet.filled == {(3, 4)} and sheet.rows[2][3] == "Builds tools."
    assert [(q.kind, q.line, q.message) for q in sheet.quirks] == [(
        "blank_row", 4, "merged range D2:F9 reaches past the cells holding values (A1:D3): "
        "its rows 4-9 and columns E-F hold none and are not read")]
    _, anomalies, _, _ = clean_sheet(sheet, PARAMS)
    clipped = [a for a in anomalies if a.value == "D2:F9"]
    assert [(a.kind, a.file, a.line, a.action) for a in clipped] == [
        ("blank_row", "b.xlsx", 4, "ignored")]
    wide = read_sheet(merged_past_workbook(tmp_path / "c.xlsx", "C2:H3"))
    assert [(q.kind, q.line, q.message.split(": ")[1]) for q in wide.quirks] == [
        ("extra_column", 2, "its columns E-H hold none and are not read")]


def test_a_workbook_of_only_a_chart_sheet_is_one_line(tmp_path):
    book = chart_only_workbook(tmp_path / "b.xlsx")
    assert refusal(book) == (
        f"{book}: the workbook has no worksheet (sheets: 'Chart1' (chart sheet)) -> give the "
        "background table on a worksheet (a chart sheet holds no cells) and save the workbook "
        "as .xlsx")
    with pytest.raises(InputError, match=r"sheet 'Chart1' is a chart sheet, not a worksheet"):
        read_sheet(book, "Chart1")


def test_a_password_protected_workbook_is_named_as_such(tmp_path):
    book = encrypted_workbook(tmp_path / "b.xlsx")
    assert refusal(book) == (
        f"{book}: a password-protected (encrypted) workbook, which cannot be read -> open it "
        "in Excel and save it without a password (File > Info > Protect Workbook > Encrypt "
        "with Password: clear it), as an Excel workbook (.xlsx)")
    legacy = tmp_path / "legacy.xlsx"
    legacy.write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + bytes(4096))
    assert "a legacy Excel workbook (.xls)" in refusal(legacy)


def test_shared_strings_past_the_limit_are_refused_before_they_are_read(tmp_path, monkeypatch):
    book = strings_bomb_workbook(tmp_path / "b.xlsx", 8 * MiB)
    assert book.stat().st_size < MiB
    monkeypatch.setattr(read, "BACKGROUND_LIMITS", Limits(
        max_bytes=4 * MiB, fix="save the background table alone in the workbook",
        save_as="save the background sheet as an Excel .xlsx workbook"))
    assert refusal(book).startswith(f"{book}: the workbook unpacks to 8,")
    assert refusal(book).endswith(" bytes, over the limit of 4 MiB -> save the background "
                                  "table alone in the workbook")


def test_a_row_of_more_cells_than_excel_has_columns_is_refused(tmp_path):
    book = wide_row_workbook(tmp_path / "b.xlsx", 16_385)
    assert refusal(book) == (
        f"{book}, row 10: a row holds more than 16,384 cells (Excel's columns, A to XFD) -> "
        "save the background table alone in the workbook")


def test_cells_past_the_limit_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "BACKGROUND_LIMITS", Limits(max_cells=10))
    assert refusal(table_workbook(tmp_path / "b.xlsx")).startswith(
        f"{tmp_path / 'b.xlsx'}, row 3: the workbook holds more than 10 cells")
