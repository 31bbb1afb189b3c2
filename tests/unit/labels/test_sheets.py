"""Blank sheets: one per annotator, CSV or .xlsx, safe in a spreadsheet, the same bytes
for the same candidates, read back however saved, nothing an annotator wrote dropped."""

from __future__ import annotations

import codecs
import zipfile

import openpyxl
import pytest

from analysis.core.errors import InputError
from analysis.core.paths import SheetPaths
from analysis.labels import sheets
from tests.support.sheets import candidates_frame, csv_line, fill, read_rows

CANDIDATES = candidates_frame([
    ("pytorch", "https://github.com/pytorch/pytorch/issues/1", "2024-01-02T10:00:00Z",
     '=HYPERLINK("http://evil") LLM, crash'),
    ("pytorch", "https://github.com/pytorch/pytorch/issues/2", "2025-03-02T00:00:00Z",
     "llama\nOOM"),
    ("vllm", "https://github.com/vllm-project/vllm/issues/3", "2025-03-02T00:00:00Z",
     "-1 tokens café 中文"),
])


def test_one_identical_blank_sheet_per_annotator(tmp_path, taxonomy):
    written = sheets.write_blank_sheets(tmp_path, CANDIDATES, 3, taxonomy)
    assert written == [SheetPaths(tmp_path).sheet(k) for k in (1, 2, 3)]
    data = written[0].read_bytes()
    assert all(p.read_bytes() == data for p in written)
    assert data.startswith(codecs.BOM_UTF8) and b"\r\n" in data
    rows = read_rows(written[0])
    assert rows[0] == sheets.SHEET_COLUMNS
    assert [r[1] for r in rows[1:]] == list(CANDIDATES["url"])  # the order given
    assert rows[1][3] == "'" + CANDIDATES["title"][0]  # formula neutralised
    assert rows[2][3] == "llama\nOOM" and rows[3][3] == "'-1 tokens café 中文"
    assert {r[7] for r in rows[1:]} == {sheets.selection_id(CANDIDATES)}
    assert all(r[4] == r[5] == "" for r in rows[1:])
    codes = read_rows(SheetPaths(tmp_path).codes)
    assert codes[0] == ["code", "type", "theme"] and len(codes) == len(taxonomy.codes) + 1
    # the same candidates give the same bytes
    again = sheets.write_blank_sheets(tmp_path / "again", CANDIDATES, 1, taxonomy)
    assert again[0].read_bytes() == data


def test_selection_id_depends_on_the_candidates_not_their_order():
    a = sheets.selection_id(CANDIDATES)
    assert a == sheets.selection_id(CANDIDATES.iloc[::-1])
    assert a != sheets.selection_id(CANDIDATES.iloc[:2])


@pytest.mark.parametrize("bad, message", [
    (CANDIDATES.drop(columns="title"), "lack the column(s) title"),
    (CANDIDATES.iloc[[0, 0]], "listed twice"),
])
def test_bad_candidates_are_refused(tmp_path, taxonomy, bad, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        sheets.write_blank_sheets(tmp_path, bad, 2, taxonomy)
    with pytest.raises(InputError, match="at least 1"):
        sheets.write_blank_sheets(tmp_path, CANDIDATES, 0, taxonomy)


@pytest.mark.parametrize("encoding, delimiter, line_end, read_as", [
    ("utf-8-sig", ",", "\r\n", "utf-8 with BOM"),
    ("utf-8", ";", "\n", "utf-8"),
    ("utf-16", "\t", "\r\n", "utf-16 with BOM"),
    ("utf-16-le", ",", "\r\n", "utf-16"),
    ("cp1252", ";", "\r\n", sheets.LATIN1_NOTE),
])
def test_a_filled_sheet_survives_a_spreadsheet_round_trip(tmp_path, taxonomy, encoding,
                                                          delimiter, line_end, read_as):
    path = sheets.write_blank_sheets(tmp_path, CANDIDATES, 1, taxonomy)[0]
    urls = list(CANDIDATES["url"])
    fill(path, {urls[0]: ("c.3", ""), urls[1]: ("B.2", "TRUE"), urls[2]: ("", "x")},
         delimiter=delimiter, encoding=encoding, line_end=line_end)
    sheet = sheets.read_sheet(path, "a.csv")
    assert sheet.encoding == read_as
    assert sheet.delimiter == {",": "comma", ";": "semicolon", "\t": "tab"}[delimiter]
    rows = sheet.rows
    assert rows["url"].tolist() == urls
    assert rows["line"].tolist() == [2, 3, 5]  # the second record spans lines 3-4
    assert [sheets.normalise_code(x) for x in rows["label"]] == ["C.3", "B.2", ""]
    assert [sheets.parse_excluded(x) for x in rows["excluded"]] == [False, True, True]
    assert sheet.notes[-1] == ("1 label(s) written in lower case (as c.3), read as the "
                               "code")
    assert sheet.notes[:-1] == ([f"read as {read_as}"] if read_as == sheets.LATIN1_NOTE
                                else [])
    assert sheet.lowercase_codes == 1 and sheet.extras.empty


def test_xlsx_sheets_hold_text_neutralised_and_are_the_same_bytes_each_time(tmp_path,
                                                                           taxonomy):
    written = sheets.write_blank_sheets(tmp_path / "a", CANDIDATES, 2, taxonomy, "xlsx")
    assert [p.name for p in written] == ["annotator_1.xlsx", "annotator_2.xlsx"]
    again = sheets.write_blank_sheets(tmp_path / "b", CANDIDATES, 2, taxonomy, "xlsx")
    assert written[0].read_bytes() == written[1].read_bytes() == again[0].read_bytes()
    with zipfile.ZipFile(written[0]) as archive:
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    book = openpyxl.load_workbook(written[0])
    rows = [[c.value for c in r] for r in book.worksheets[0].iter_rows()]
    assert rows[0] == sheets.SHEET_COLUMNS
    assert rows[1][3] == "'" + CANDIDATES["title"][0] and book.worksheets[0]["D2"].data_type == "s"
    assert book.sheetnames == ["labels", "codes"]
    read = sheets.read_sheet(written[0])
    assert read.encoding == "xlsx workbook" and read.rows["url"].tolist() == list(
        CANDIDATES["url"])
    assert (tmp_path / "a" / "sheets" / "codes.csv").is_file()


def test_a_second_format_replaces_the_sheets_folder_whole(tmp_path, taxonomy):
    sheets.write_blank_sheets(tmp_path, CANDIDATES, 2, taxonomy)
    sheets.write_blank_sheets(tmp_path, CANDIDATES, 1, taxonomy, "xlsx")
    assert sorted(p.name for p in SheetPaths(tmp_path).folder.iterdir()) == [
        "annotator_1.xlsx", "codes.csv"]


def test_no_candidates_is_nothing_to_label(tmp_path, taxonomy):
    with pytest.raises(InputError, match="no candidates: there is nothing to label"):
        sheets.write_blank_sheets(tmp_path, CANDIDATES.iloc[:0], 2, taxonomy)
    assert not (tmp_path / "sheets").exists()
    with pytest.raises(InputError, match="--format 'ods'"):
        sheets.write_blank_sheets(tmp_path, CANDIDATES, 2, taxonomy, "ods")


def test_columns_an_annotator_added_are_kept_and_named(tmp_path, taxonomy):
    path = sheets.write_blank_sheets(tmp_path, CANDIDATES, 1, taxonomy)[0]
    rows = read_rows(path)
    rows[0] += ["my note", "", "my note"]
    rows[1] += ["dup?", "", "see #12"]
    path.write_text("".join(csv_line(r, ",") + "\r\n" for r in rows), encoding="utf-8")
    sheet = sheets.read_sheet(path)
    assert list(sheet.extras.columns) == ["my note", "column 10", "my note (2)"]
    assert sheet.extras.iloc[0].tolist() == ["dup?", "", "see #12"]
    assert sheet.extras.iloc[1].tolist() == ["", "", ""]
    assert sheet.notes == ["column(s) not of the blank sheet ('my note', 'column 10', "
                           "'my note (2)'): their cells are kept in labels/comments.csv"]


def test_a_candidates_file_saved_by_a_spreadsheet_program_is_read(tmp_path):
    path = tmp_path / "candidates.csv"
    path.write_bytes(CANDIDATES.to_csv(index=False, sep=";").encode("utf-16"))
    assert sheets.read_candidates(path).equals(CANDIDATES.astype(object))
    (tmp_path / "other.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a candidates file header"):
        sheets.read_candidates(tmp_path / "other.csv")


@pytest.mark.parametrize("name,data,what", [
    ("header.csv", b"a,b\n1,2\n", "not a sheet header"),
    ("columns.csv", b"project,url,label\nx,y,z\n", "column"),
    ("quoting.csv", b'project,url,created_at,label,excluded,selection\nx,"y\n',
     "not valid CSV"),
])
def test_sheets_that_are_not_sheets_are_refused_in_one_line(tmp_path, name, data, what):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(InputError, match=what) as err:
        sheets.read_sheet(tmp_path / name, name)
    assert "\n" not in str(err.value) and str(err.value).startswith(name)


def test_a_missing_sheet_is_refused(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        sheets.read_sheet(tmp_path / "missing.csv")


@pytest.mark.parametrize("value, expected", [
    ("", False), ("x", True), (" X ", True), ("yes", True), ("TRUE", True), ("1", True),
    ("no", False), ("FALSE", False), ("0", False), ("maybe", None)])
def test_parse_excluded(value, expected):
    assert sheets.parse_excluded(value) is expected
