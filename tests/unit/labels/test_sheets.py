"""Blank sheets: one per annotator, safe in a spreadsheet, read back however saved."""

from __future__ import annotations

import codecs

import pytest

from analysis.core.errors import InputError
from analysis.core.paths import SheetPaths
from analysis.labels import sheets
from tests.support.sheets import candidates_frame, fill, read_rows

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
    assert sheet.notes == ([f"read as {read_as}"] if read_as == sheets.LATIN1_NOTE else [])


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
