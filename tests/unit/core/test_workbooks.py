"""The bounded workbook opener both workbook readers share: what a compound file is, the
sheets and their kinds, the scan of a worksheet's cells and merged ranges, the limits."""

from __future__ import annotations

import io

import pytest

from analysis.core.errors import InputError
from analysis.core.workbooks import (
    MAX_WORKBOOK_BYTES,
    MAX_WORKBOOK_CELLS,
    Limits,
    compound_file_problem,
    is_encrypted_ooxml,
    open_workbook,
    scan_worksheet,
    sheet_kind,
)
from tests.support.bombs import (
    SHEET_NS,
    SHEET_PART,
    chart_only_workbook,
    encrypted_workbook,
    merged_past_workbook,
    table_workbook,
)


def test_a_compound_file_is_an_encrypted_workbook_only_with_an_encrypted_package(tmp_path):
    encrypted = encrypted_workbook(tmp_path / "e.xlsx").read_bytes()
    assert is_encrypted_ooxml(encrypted)
    assert compound_file_problem(encrypted)[0].startswith("a password-protected")
    legacy = bytes.fromhex("d0cf11e0a1b11ae1") + bytes(4096)
    assert not is_encrypted_ooxml(legacy)
    assert compound_file_problem(legacy)[0].startswith("a legacy Excel workbook (.xls)")
    # the name elsewhere than in a directory entry (in a cell of a legacy workbook, say)
    assert not is_encrypted_ooxml(legacy + b"x" + "EncryptedPackage".encode("utf-16-le"))
    assert compound_file_problem(b"PK\x03\x04") is None


@pytest.mark.parametrize("rel_type, kind", [
    ("http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet",
     "worksheet"),
    ("http://schemas.openxmlformats.org/officeDocument/2006/relationships/chartsheet",
     "chart sheet"),
    ("http://schemas.microsoft.com/office/2006/relationships/xlMacrosheet", "macro sheet"),
    ("http://example.com/relationships/other", "other"),
])
def test_sheet_kinds(rel_type, kind):
    assert sheet_kind(rel_type) == kind


def test_the_sheets_are_listed_with_their_kinds(tmp_path):
    with open_workbook(chart_only_workbook(tmp_path / "c.xlsx").read_bytes(), "c.xlsx",
                       Limits()) as book:
        assert [(s.title, s.kind) for s in book.sheets] == [("Chart1", "chart sheet")]
    with open_workbook(table_workbook(tmp_path / "t.xlsx").read_bytes(), "t.xlsx",
                       Limits()) as book:
        sheet = book.sheet(None, "fix")
        assert (sheet.title, sheet.kind, sheet.part) == ("Sheet1", "worksheet",
                                                         "xl/worksheets/sheet1.xml")
        assert [n for n, _ in book.rows(sheet)] == [1, 2, 3]
        with pytest.raises(InputError, match=r"no sheet 'Other' \(sheets: 'Sheet1' "
                                             r"\(worksheet\)\) -> fix"):
            book.sheet("Other", "fix")


def test_the_scan_counts_cells_and_collects_merged_ranges_in_the_files_order(tmp_path):
    book = merged_past_workbook(tmp_path / "m.xlsx", "B2:C3")
    with open_workbook(book.read_bytes(), "m.xlsx", Limits()) as opened:
        scan = opened.scan(opened.sheet(None, "fix"))
    assert scan.cells == 12 and scan.merged == [(2, 2, 3, 3)]
    xml = (f'<worksheet xmlns="{SHEET_NS}"><sheetData/><mergeCells><mergeCell ref="C1:D1"/>'
           '<mergeCell ref="A:B"/><mergeCell ref="3:4"/></mergeCells></worksheet>')
    assert scan_worksheet(io.BytesIO(xml.encode()), "x", Limits()).merged == [
        (3, 1, 4, 1), (1, 1, 2, 1_048_576), (1, 3, 16_384, 4)]


def test_the_scan_stops_at_the_cell_limit(tmp_path):
    row = "".join(f'<c r="A{r}"/>' for r in range(1, 6))
    xml = f'<worksheet xmlns="{SHEET_NS}"><sheetData><row r="7">{row}</row></sheetData></worksheet>'
    with pytest.raises(InputError, match=r"^x, row 7: the workbook holds more than 4 cells"):
        scan_worksheet(io.BytesIO(xml.encode()), "x", Limits(max_cells=4))


def test_a_file_that_is_not_a_zip_is_one_line():
    with pytest.raises(InputError, match=r"^x.xlsx: not a readable .xlsx workbook \(File is "
                                         r"not a zip file\) -> save the sheet"):
        with open_workbook(b"Roles,Gender\n", "x.xlsx", Limits()):
            pass


def test_the_limits_are_the_documented_ones():
    assert MAX_WORKBOOK_BYTES == 256 * 2**20 and MAX_WORKBOOK_CELLS == 5_000_000
    assert Limits().max_bytes == MAX_WORKBOOK_BYTES
    assert Limits().max_cells == MAX_WORKBOOK_CELLS


def test_a_part_is_read_no_further_than_its_declared_size(tmp_path):
    """The unpacked size is checked from the zip's declared sizes, and zipfile unpacks no
    entry past its declared size: one that holds more ends in a CRC error, one line."""
    book = table_workbook(tmp_path / "t.xlsx")
    data = bytearray(book.read_bytes())
    entry = data.find(b"PK\x01\x02", data.find(b"PK\x01\x02"))
    while data[entry + 46:entry + 46 + len(SHEET_PART)] != SHEET_PART.encode():
        entry = data.find(b"PK\x01\x02", entry + 4)
    data[entry + 24:entry + 28] = (100).to_bytes(4, "little")  # declares 100 bytes unpacked
    with pytest.raises(InputError, match=r"^t.xlsx: cannot read the workbook \(BadZipFile: "
                                         r"Bad CRC-32"):
        with open_workbook(bytes(data), "t.xlsx", Limits()) as opened:
            list(opened.rows(opened.sheet(None, "fix")))
