"""Sheets as spreadsheet programs save them, made on purpose: every line ending (CR alone
too: "CSV (Macintosh)"), UTF-8 with and without a byte-order mark, UTF-16, a code page,
comma, semicolon and tab; an Excel workbook named .xlsx or .csv. Each gives the dump the
plain CSV sheets give, byte for byte. A legacy .xls, an .ods, another zip and a workbook
that would fill the memory are refused in one line, nothing written, an earlier dump
kept."""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import openpyxl
import pytest

from analysis.core.sizes import MiB
from analysis.core.taxonomy import load_taxonomy
from analysis.update.labels import tables as sheets_module
from analysis.update.labels.__main__ import main as labels
from analysis.update.labels.readers import read_sheet
from analysis.update.labels.tables import cell_text, decode_text
from tests.support.bombs import chart_only_workbook, encrypted_workbook, wide_row_workbook
from tests.support.sheets import blank_sheets, candidates_frame, fill, read_rows

CANDIDATES = candidates_frame([
    ("pytorch", "https://github.com/pytorch/pytorch/issues/1", "2024-01-02T10:00:00Z",
     '=HYPERLINK("http://evil") LLM'),
    ("pytorch", "https://github.com/pytorch/pytorch/issues/2", "2024-03-01",
     "llama\nOOM, café"),
    ("pytorch", "https://github.com/pytorch/pytorch/issues/3", "2025-05-06T07:08:09Z", "x"),
    ("MindSpore", "https://gitee.com/mindspore/mindspore/issues/I4", "2024-06-01T08:00:00+08:00",
     "中文 LLM"),
])
URLS = list(CANDIDATES["url"])
# (label, excluded) per annotator: agreement, a split, an exclusion by all, by some
DECISIONS = [
    {URLS[0]: ("C.3", ""), URLS[1]: ("B.2", ""), URLS[2]: ("", "x"), URLS[3]: ("A.1", "")},
    {URLS[0]: ("c.3", ""), URLS[1]: ("A.1", "TRUE"), URLS[2]: ("", "1"), URLS[3]: ("A.1", "")},
    {URLS[0]: ("C.3", ""), URLS[1]: ("C.5", ""), URLS[2]: ("", "yes"), URLS[3]: ("A.2", "")},
]


def filled(folder: Path, taxonomy, **saved) -> list[Path]:
    """Three sheets filled with :data:`DECISIONS`; the second saved as ``saved`` says."""
    paths = blank_sheets(folder, CANDIDATES, 3, taxonomy)
    for k, (path, decisions) in enumerate(zip(paths, DECISIONS, strict=True)):
        fill(path, decisions, **(saved if k == 1 else {}))
    return paths


def dump_bytes(folder: Path) -> dict[str, bytes]:
    """The dump's files, but the record of how the sheets were saved (sources.json)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "sources.json"}


def merge(capfd, out: Path, paths: list[Path], *extra: str) -> tuple[int, str]:
    code = labels(["merge", *map(str, paths), "--out", str(out), *extra])
    return code, capfd.readouterr().err


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    """The dump of three CSV sheets saved as written (UTF-8 with BOM, comma, CRLF), made
    once for the module (the tests compare with it, never change it)."""
    root = tmp_path_factory.mktemp("reference")
    paths = filled(root / "plain", load_taxonomy())
    assert labels(["merge", *map(str, paths), "--out", str(root / "reference")]) == 0
    return dump_bytes(root / "reference")


@pytest.mark.parametrize("encoding, delimiter, line_end", [
    ("utf-8-sig", ",", "\r"),
    ("utf-8", ",", "\r"),
    ("utf-8", ";", "\n"),
    ("utf-8-sig", ",", "\r\n"),
    ("utf-16", "\t", "\r\n"),
    ("utf-16", "\t", "\r"),
    ("utf-16-le", ";", "\r"),
    ("cp1252", ";", "\r"),
])
def test_a_sheet_saved_any_way_gives_the_same_dump(tmp_path, taxonomy, capfd, reference,
                                                   encoding, delimiter, line_end):
    paths = filled(tmp_path / "saved", taxonomy, encoding=encoding, delimiter=delimiter,
                   line_end=line_end)
    text, _ = decode_text(paths[1].read_bytes())
    assert text.count(line_end) >= 5  # the header and 4 rows
    if line_end == "\r":
        assert "\r\n" not in text and text.count("\n") == 1  # the title's own line break
    code, err = merge(capfd, tmp_path / "dump", paths)
    assert code == 0 and err == "", err
    assert dump_bytes(tmp_path / "dump") == reference


def workbook(rows: list[list[str]], path: Path, converted: bool = True) -> Path:
    """The rows saved as an Excel workbook, with what a spreadsheet program turns into
    numbers, truth values and dates turned (when ``converted``)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "annotator"
    for r, row in enumerate(rows, 1):
        for c, value in enumerate(row, 1):
            cell = sheet.cell(r, c)
            if converted and r > 1 and value.endswith("Z") and "T" in value:
                cell.value = dt.datetime.fromisoformat(value.removesuffix("Z"))
                cell.number_format = "yyyy-mm-dd hh:mm:ss"
            elif converted and r > 1 and len(value) == 10 and value[4] == "-":
                cell.value = dt.datetime.fromisoformat(value)
                cell.number_format = "yyyy-mm-dd"
            elif converted and value in ("1", "TRUE"):
                cell.value = 1 if value == "1" else True
            else:
                cell.value = value or None
    book.create_sheet("notes").append(["url", "label", "what the annotator jotted"])
    book.save(path)
    return path


@pytest.mark.parametrize("name", ["annotator_2.xlsx", "annotator_2.csv"])
@pytest.mark.parametrize("converted", [True, False], ids=["converted", "text"])
def test_a_workbook_by_any_name_gives_the_same_dump(tmp_path, taxonomy, capfd, reference,
                                                    name, converted):
    paths = filled(tmp_path / "saved", taxonomy)
    rows = read_rows(paths[1])
    rows[2].append("")  # a trailing empty cell, as a spreadsheet keeps its width
    paths[1].unlink()
    paths[1] = workbook(rows, tmp_path / "saved" / name, converted)
    assert paths[1].read_bytes().startswith(b"PK\x03\x04")
    sheet = read_sheet(paths[1])
    assert (sheet.source.facts["encoding"], sheet.source.facts["delimiter"]) == (
        "xlsx workbook", "none (workbook)")
    assert sheet.table["where"].tolist() == ["row 2", "row 3", "row 4", "row 5"]
    code, err = merge(capfd, tmp_path / "dump", paths)
    assert code == 0 and err == "", err
    assert dump_bytes(tmp_path / "dump") == reference


def ole2(path: Path) -> Path:
    """A legacy binary workbook as far as its signature goes (what the refusal reads)."""
    path.write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + bytes(4096))
    return path


def ods(path: Path) -> Path:
    """An OpenDocument spreadsheet's container (mimetype first, stored), as LibreOffice
    writes it."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet",
                         compress_type=zipfile.ZIP_STORED)
        archive.writestr("content.xml", "<office:document-content/>")
    return path


def other_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("Index/Document.iwa", b"\x00" * 64)
    return path


@pytest.mark.parametrize("make, name, what", [
    (ole2, "annotator_2.xls", "a legacy Excel workbook (.xls)"),
    (ole2, "annotator_2.csv", "a legacy Excel workbook (.xls)"),
    (ods, "annotator_2.ods", "an OpenDocument spreadsheet (.ods)"),
    (ods, "annotator_2.csv", "an OpenDocument spreadsheet (.ods)"),
    (other_zip, "annotator_2.numbers", "a zip file that is not an Excel workbook (.xlsx)"),
])
def test_other_workbooks_are_refused_in_one_line_and_the_earlier_dump_kept(
        tmp_path, taxonomy, capfd, make, name, what):
    out = tmp_path / "dump"
    paths = filled(tmp_path / "saved", taxonomy)
    assert merge(capfd, out, paths)[0] == 0
    before = dump_bytes(out)
    paths[1] = make(tmp_path / "saved" / name)
    code, err = merge(capfd, out, paths, "--force")
    lines = err.strip().splitlines()
    assert code == 1 and "Traceback" not in err
    assert lines == [f"merge: {paths[1]}: {what}, not a sheet this can read -> save the sheet "
                     f"as an Excel workbook (.xlsx) or as CSV UTF-8"
                     if "zip file" not in what else
                     f"merge: {paths[1]}: {what} -> save the sheet as an Excel workbook "
                     f"(.xlsx) or as CSV UTF-8",
                     "merge: 1 problem(s); nothing written"]
    assert dump_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dump", "saved"]


def test_a_password_protected_workbook_is_named_as_such_and_the_earlier_dump_kept(
        tmp_path, taxonomy, capfd):
    out = tmp_path / "dump"
    paths = filled(tmp_path / "saved", taxonomy)
    assert merge(capfd, out, paths)[0] == 0
    before = dump_bytes(out)
    paths[1] = encrypted_workbook(tmp_path / "saved" / "annotator_2.xlsx")
    code, err = merge(capfd, out, paths, "--force")
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        f"merge: {paths[1]}: a password-protected (encrypted) workbook, which cannot be read "
        "-> open it in Excel and save it without a password (File > Info > Protect Workbook > "
        "Encrypt with Password: clear it), as .xlsx or CSV UTF-8",
        "merge: 1 problem(s); nothing written"]
    assert dump_bytes(out) == before


@pytest.mark.parametrize("make, problem", [
    (chart_only_workbook, "the workbook has no worksheet (sheets: 'Chart1' (chart sheet)) -> "
                          "save the sheet as an Excel workbook (.xlsx) or as CSV UTF-8"),
    (lambda path: wide_row_workbook(path, 16_385),
     "row 10: a row holds more than 16,384 cells (Excel's columns, A to XFD) -> give the "
     "annotator's own sheet, saved as .xlsx or CSV UTF-8"),
], ids=["chart-sheet", "wide-row"])
def test_a_workbook_without_a_worksheet_or_with_a_row_too_wide_is_one_line(tmp_path, make,
                                                                           problem):
    book = make(tmp_path / "book.xlsx")
    with pytest.raises(sheets_module.InputError) as info:
        read_sheet(book, "book.xlsx")
    assert str(info.value) == f"book.xlsx{',' if problem.startswith('row') else ':'} {problem}"


def test_a_workbook_bomb_is_refused_before_it_is_unpacked(tmp_path, taxonomy, monkeypatch):
    paths = filled(tmp_path / "saved", taxonomy)
    book = workbook(read_rows(paths[1]), tmp_path / "bomb.xlsx")
    with zipfile.ZipFile(book, "a", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=9) as archive, \
            archive.open("xl/media/image1.bin", "w", force_zip64=True) as part:
        for _ in range(16):
            part.write(bytes(MiB))
    assert book.stat().st_size < MiB
    monkeypatch.setattr(sheets_module, "MAX_WORKBOOK_BYTES", 8 * MiB)
    with pytest.raises(sheets_module.InputError,
                       match=r"bomb.xlsx: the workbook unpacks to .* over the limit of 8 MiB"):
        read_sheet(book, "bomb.xlsx")


def test_a_workbook_of_too_many_cells_is_refused(tmp_path, taxonomy, monkeypatch):
    paths = filled(tmp_path / "saved", taxonomy)
    book = workbook(read_rows(paths[1]), tmp_path / "wide.xlsx")
    monkeypatch.setattr(sheets_module, "MAX_WORKBOOK_CELLS", 24)
    with pytest.raises(sheets_module.InputError,
                       match=r"wide.xlsx, row 3: the workbook holds more than 24 cells"):
        read_sheet(book, "wide.xlsx")


def test_the_workbook_limits_are_the_documented_ones():
    assert sheets_module.MAX_WORKBOOK_BYTES == 256 * MiB
    assert sheets_module.MAX_WORKBOOK_CELLS == 5_000_000
    doc = " ".join(sheets_module.__doc__.split())
    assert ":data:`MAX_WORKBOOK_BYTES`" in doc and ":data:`MAX_WORKBOOK_CELLS`" in doc


def test_a_damaged_or_headless_workbook_is_one_line(tmp_path, taxonomy):
    paths = filled(tmp_path / "saved", taxonomy)
    book = workbook(read_rows(paths[1]), tmp_path / "book.xlsx")
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(book) as src, zipfile.ZipFile(damaged, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            dst.writestr(item, data[:len(data) // 2] if item.filename.endswith(
                "sheet1.xml") else data)
    with pytest.raises(sheets_module.InputError, match=r"damaged.xlsx: cannot read the "
                                                       r"workbook \(.*\) -> save the sheet"):
        read_sheet(damaged, "damaged.xlsx")
    headless = workbook([["a", "b"], ["1", "2"]], tmp_path / "headless.xlsx")
    with pytest.raises(sheets_module.InputError, match="headless.xlsx, row 1: not a sheet "
                                                       "header"):
        read_sheet(headless, "headless.xlsx")


@pytest.mark.parametrize("value, number_format, text", [
    (None, "General", ""),
    ("C.3", "General", "C.3"),
    ("'=SUM(A1)", "General", "'=SUM(A1)"),
    (True, "General", "TRUE"),
    (False, "General", "FALSE"),
    (1, "General", "1"),
    (1.0, "General", "1"),
    (2.5, "General", "2.5"),
    (dt.datetime(2024, 1, 2, 10, 0), "yyyy-mm-dd hh:mm:ss", "2024-01-02T10:00:00Z"),
    (dt.datetime(2024, 1, 2, 0, 0), "yyyy-mm-dd hh:mm", "2024-01-02T00:00:00Z"),
    (dt.datetime(2024, 1, 2, 0, 0), "mm-dd-yy", "2024-01-02"),
    (dt.datetime(2024, 1, 2, 3, 4, 5, 600000), "General", "2024-01-02T03:04:05.600000Z"),
    (dt.date(2024, 1, 2), "General", "2024-01-02"),
    (dt.time(3, 4, 5), "h:mm:ss", "03:04:05"),
])
def test_cells_come_back_as_the_csv_sheet_held_them(value, number_format, text):
    assert cell_text(value, number_format) == text


def test_cr_only_sheets_keep_their_line_numbers(tmp_path, taxonomy):
    path = blank_sheets(tmp_path, CANDIDATES, 1, taxonomy)[0]
    fill(path, {URLS[0]: ("Z.9", "")}, line_end="\r")
    sheet = read_sheet(path, "a.csv")
    # the second candidate's title holds a line break: its record spans lines 3-4
    assert sheet.table["where"].tolist() == ["line 2", "line 3", "line 5", "line 6"]
    assert "\r\n" not in decode_text(path.read_bytes())[0]
