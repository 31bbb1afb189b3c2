"""Blank sheets: one per annotator, named or numbered, each in a shuffled order of its own
(seeded, recorded), CSV with the codebook beside it or a workbook with drop-downs, links,
widths, a frozen header, locked columns and a Codebook tab; the same bytes for the same
candidates; formats added side by side; read back however saved (Windows-1252 as Excel
writes it on Windows), nothing an annotator wrote dropped."""

from __future__ import annotations

import codecs
import json
import zipfile

import openpyxl
import pytest

from analysis.core.errors import InputError
from analysis.core.paths import SheetPaths
from analysis.update.labels import sheets
from analysis.update.labels.annotations import normalise_code, parse_excluded
from analysis.update.labels.codebook import COLUMNS as CODEBOOK_COLUMNS
from analysis.update.labels.readers import read_sheet
from analysis.update.labels.tables import LATIN1_NOTE, WINDOWS_NOTE, read_candidates
from analysis.update.select.engine import selection_id
from tests.support.sheets import candidates_frame, codebook_of, csv_line, fill, read_rows

CANDIDATES = candidates_frame([
    ("pytorch", "https://github.com/pytorch/pytorch/issues/1", "2024-01-02T10:00:00Z",
     '=HYPERLINK("http://evil") LLM, crash'),
    ("pytorch", "https://github.com/pytorch/pytorch/issues/2", "2025-03-02T00:00:00Z",
     "llama\nOOM"),
    ("vllm", "https://github.com/vllm-project/vllm/issues/3", "2025-03-02T00:00:00Z",
     "-1 tokens café 中文"),
])
TEAM = ["alice", "bob", "chen"]


def write(tmp_path, team=TEAM, taxonomy=None, fmt="csv", seed=None, **kw):
    return sheets.write_blank_sheets(tmp_path, CANDIDATES, team,
                                     codebook_of(taxonomy) if taxonomy else None, fmt, seed,
                                     **kw)


def test_one_sheet_per_annotator_in_an_order_of_its_own(tmp_path, taxonomy):
    written = write(tmp_path, taxonomy=taxonomy, seed=7)
    assert written == [SheetPaths(tmp_path).sheet(n) for n in TEAM]
    data = written[0].read_bytes()
    assert data.startswith(codecs.BOM_UTF8) and b"\r\n" in data
    rows = {n: read_rows(p) for n, p in zip(TEAM, written, strict=True)}
    assert rows["alice"][0] == sheets.SHEET_COLUMNS
    orders = {n: [r[1] for r in body[1:]] for n, body in rows.items()}
    assert all(sorted(o) == sorted(CANDIDATES["url"]) for o in orders.values())
    assert len({tuple(o) for o in orders.values()}) > 1  # not every annotator the same
    alice = {r[1]: r for r in rows["alice"][1:]}
    first = alice[CANDIDATES["url"][0]]
    assert first[3] == "'" + CANDIDATES["title"][0]  # formula neutralised
    assert alice[CANDIDATES["url"][1]][3] == "llama\nOOM"
    assert alice[CANDIDATES["url"][2]][3] == "'-1 tokens café 中文"
    assert {r[-2] for r in rows["alice"][1:]} == {"alice"}
    assert {r[-1] for r in rows["bob"][1:]} == {selection_id(CANDIDATES)}
    assert all(r[7:12] == [""] * 5 for r in rows["chen"][1:])
    codebook = read_rows(SheetPaths(tmp_path).codebook)
    assert codebook[0] == CODEBOOK_COLUMNS
    assert [r[0] for r in codebook[1:] if r[1] == "theme"] == taxonomy.codes
    assert {"C.3.ii", "excluded", "unsure"} <= {r[0] for r in codebook[1:]}
    record = json.loads(SheetPaths(tmp_path).record.read_text())
    assert [a["annotator"] for a in record["annotators"]] == TEAM
    assert record["annotators"][0]["sheets"][0]["seed"] == 7
    # the same candidates, team and seed give the same bytes
    again = write(tmp_path / "again", taxonomy=taxonomy, seed=7)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in written]
    unshuffled = write(tmp_path / "plain", taxonomy=taxonomy, seed=None)
    assert [r[1] for r in read_rows(unshuffled[2])[1:]] == list(CANDIDATES["url"])


def test_a_team_is_names_or_a_number():
    assert sheets.parse_team("3") == ["#1", "#2", "#3"]
    assert sheets.parse_team("alice, bob,Chen.W") == ["alice", "bob", "Chen.W"]
    for bad, said in (("0", "at least 1"), ("alice,alice", "named twice"),
                      ("alice,b/c", "not an annotator's name"), ("alice,", "not an")):
        with pytest.raises(InputError, match=said):
            sheets.parse_team(bad)


@pytest.mark.parametrize("bad, message", [
    (CANDIDATES.drop(columns="title"), "lack the column(s) title"),
    (CANDIDATES.iloc[[0, 0]], "listed twice"),
])
def test_bad_candidates_are_refused(tmp_path, taxonomy, bad, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        sheets.write_blank_sheets(tmp_path, bad, 2, codebook_of(taxonomy))


@pytest.mark.parametrize("encoding, delimiter, line_end, read_as", [
    ("utf-8-sig", ",", "\r\n", "utf-8 with BOM"),
    ("utf-8", ";", "\n", "utf-8"),
    ("utf-16", "\t", "\r\n", "utf-16 with BOM"),
    ("utf-16-le", ",", "\r\n", "utf-16"),
    ("cp1252", ";", "\r\n", "windows-1252"),
])
def test_a_filled_sheet_survives_a_spreadsheet_round_trip(tmp_path, taxonomy, encoding,
                                                          delimiter, line_end, read_as):
    """Saved as any spreadsheet program saves it, Excel's plain CSV on Windows
    (Windows-1252) included: "café – naïve" comes back with its dash (Latin-1 read it as
    U+0096)."""
    path = write(tmp_path, ["alice"], taxonomy)[0]
    urls = list(CANDIDATES["url"])
    fill(path, {urls[0]: ("c.3", ""), urls[1]: ("B.2", "TRUE"), urls[2]: ("", "x")},
         delimiter=delimiter, encoding=encoding, line_end=line_end,
         cells={urls[0]: {"comment": "café – naïve", "confidence": "High",
                          "minutes": "1,5"}})
    read = read_sheet(path, "a.csv", set(taxonomy.codes))
    assert read.problems == []
    source = read.source
    assert source.facts["encoding"] == read_as
    assert source.facts["delimiter"] == {",": "comma", ";": "semicolon",
                                         "\t": "tab"}[delimiter]
    table = read.table
    assert table["url"].tolist() == urls
    assert table["where"].tolist() == ["line 2", "line 3", "line 5"]  # 3-4: one record
    assert table["label"].tolist() == ["C.3", "B.2", ""]
    assert table["excluded"].tolist() == [False, True, True]
    assert table["comment"][0] == "café – naïve"
    assert (table["confidence"][0], table["seconds"][0]) == ("high", 90)
    assert source.notes[-1] == ("1 label(s) written in lower case, read as the code: "
                                "line 2 ('c.3' as C.3)")
    assert source.notes[:-1] == ([f"read as windows-1252: {WINDOWS_NOTE}"]
                                 if encoding == "cp1252" else [])
    assert source.annotators == ["alice"] and read.extras.empty


def test_a_file_windows_1252_leaves_undefined_is_read_as_latin_1(tmp_path, taxonomy):
    path = write(tmp_path, ["alice"], taxonomy)[0]
    text = path.read_bytes().decode("utf-8-sig").replace("vllm,", "vllm\x81,", 0)
    path.write_bytes(text.encode("utf-8")[:-2] + b"\x81\r\n")  # a byte cp1252 lacks
    read = read_sheet(path, "a.csv")
    assert read.source.facts["encoding"] == "latin-1"
    assert read.source.notes[0] == f"read as latin-1: {LATIN1_NOTE}"


def test_xlsx_sheets_are_made_for_labelling(tmp_path, taxonomy):
    """Text cells, the URL a link, drop-downs of the allowed values, widths, a frozen
    header with a filter, the sheet protected with the answer columns unlocked, a
    Codebook tab; the same bytes each time; read back like the CSV."""
    written = write(tmp_path / "a", ["alice", "bob"], taxonomy, "xlsx")
    assert [p.name for p in written] == ["annotator_alice.xlsx", "annotator_bob.xlsx"]
    again = write(tmp_path / "b", ["alice", "bob"], taxonomy, "xlsx")
    assert written[0].read_bytes() == again[0].read_bytes()
    with zipfile.ZipFile(written[0]) as archive:
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    book = openpyxl.load_workbook(written[0])
    assert book.sheetnames == ["labels", "Codebook", "Choices"]
    assert book["Choices"].sheet_state == "hidden"
    ws = book["labels"]
    header = [c.value for c in ws[1]]
    assert header == sheets.SHEET_COLUMNS
    col = {name: openpyxl.utils.get_column_letter(i + 1) for i, name in enumerate(header)}
    assert ws["D2"].value == "'" + CANDIDATES["title"][0] and ws["D2"].data_type == "s"
    assert ws[f"{col['url']}2"].hyperlink.target == CANDIDATES["url"][0]
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref == f"A1:{col['selection']}4"
    assert ws.column_dimensions[col["title"]].width == sheets.WIDTHS["title"]
    lists = {str(dv.sqref): dv.formula1 for dv in ws.data_validations.dataValidation}
    # the drop-down shows each theme with its name, from the hidden Choices tab
    choices = [c.value for c in book["Choices"]["A"]]
    assert lists[f"{col['label']}2:{col['label']}4"] == f"'Choices'!$A$1:$A${len(choices)}"
    assert len(choices) == len(taxonomy.codes) + 2 and choices[-2:] == ["excluded", "unsure"]
    first = taxonomy.themes.iloc[0]
    assert choices[0] == f"{first['code']} {first['name']}"  # e.g. A.1 Unclear Installation...
    # printed: one page wide, the title row on every page, the body wrapped
    assert ws.print_title_rows == "$1:$1" and ws.page_setup.fitToHeight == 0
    assert ws[f"{col['body']}2"].alignment.wrap_text
    assert lists[f"{col['excluded']}2:{col['excluded']}4"] == '"x"'
    assert lists[f"{col['confidence']}2:{col['confidence']}4"] == '"low,medium,high"'
    assert ws.protection.sheet
    assert not ws[f"{col['label']}2"].protection.locked
    assert not ws[f"{col['comment']}3"].protection.locked
    assert ws[f"{col['url']}2"].protection.locked and ws[f"{col['label']}1"].protection.locked
    assert ws.page_setup.orientation == "landscape" and ws.page_setup.fitToWidth == 1
    codebook = [[c.value for c in r] for r in book["Codebook"].iter_rows()]
    assert codebook[0] == CODEBOOK_COLUMNS and len(codebook) > len(taxonomy.codes) + 3
    tab = book["Codebook"]
    heights = [tab.row_dimensions[n].height for n in range(2, len(codebook) + 1)]
    assert all(h and h >= sheets.LINE_POINTS for h in heights)  # wrapped text shown whole
    assert max(heights) > sheets.LINE_POINTS and tab["F3"].alignment.wrap_text
    read = read_sheet(written[0], codes=set(taxonomy.codes))
    assert read.source.facts["encoding"] == "xlsx workbook"
    assert sorted(read.table["url"]) == sorted(CANDIDATES["url"])


def test_formats_are_added_side_by_side_and_no_sheet_is_replaced(tmp_path, taxonomy):
    write(tmp_path, ["alice", "bob"], taxonomy)
    write(tmp_path, ["chen"], taxonomy, "xlsx")
    folder = SheetPaths(tmp_path).folder
    assert sorted(p.name for p in folder.iterdir()) == [
        "annotator_alice.csv", "annotator_bob.csv", "annotator_chen.xlsx", "codebook.csv",
        "sheets.json"]
    record = json.loads(SheetPaths(tmp_path).record.read_text())
    assert [(a["annotator"], [s["format"] for s in a["sheets"]])
            for a in record["annotators"]] == [("alice", ["csv"]), ("bob", ["csv"]),
                                               ("chen", ["xlsx"])]
    write(tmp_path, ["alice"], taxonomy, "xlsx")  # the same person, in the other format
    with pytest.raises(InputError, match="annotator_bob.csv is already written"):
        write(tmp_path, ["bob"], taxonomy)
    with pytest.raises(InputError, match="sheets of another selection"):
        sheets.write_blank_sheets(tmp_path, CANDIDATES.iloc[:2], ["dan"])
    write(tmp_path, ["dan"], taxonomy, force=True)  # replaces the folder whole
    assert sorted(p.name for p in folder.iterdir()) == [
        "annotator_dan.csv", "codebook.csv", "sheets.json"]


def test_no_candidates_is_nothing_to_label(tmp_path, taxonomy):
    with pytest.raises(InputError, match="no candidates: there is nothing to label"):
        sheets.write_blank_sheets(tmp_path, CANDIDATES.iloc[:0], 2, codebook_of(taxonomy))
    assert not (tmp_path / "sheets").exists()
    with pytest.raises(InputError, match="--format 'ods'"):
        sheets.write_blank_sheets(tmp_path, CANDIDATES, 2, None, "ods")


def test_columns_an_annotator_added_are_kept_and_named(tmp_path, taxonomy):
    path = write(tmp_path, ["alice"], taxonomy)[0]
    rows = read_rows(path)
    rows[0] += ["my note", "", "my note"]
    rows[1] += ["dup?", "", "see #12"]
    path.write_text("".join(csv_line(r, ",") + "\r\n" for r in rows), encoding="utf-8")
    read = read_sheet(path)
    assert read.source.facts["extra_columns"] == ["my note", "column 16", "my note (2)"]
    assert read.extras[["column", "text"]].values.tolist() == [["my note", "dup?"],
                                                                ["my note (2)", "see #12"]]
    assert read.source.notes == ["column(s) not of the blank sheet ('my note', 'column 16', "
                                 "'my note (2)'): their cells are kept in labels/comments.csv"]


def test_a_candidates_file_saved_by_a_spreadsheet_program_is_read(tmp_path):
    path = tmp_path / "candidates.csv"
    path.write_bytes(CANDIDATES.to_csv(index=False, sep=";").encode("utf-16"))
    assert read_candidates(path).equals(CANDIDATES.astype(object))
    (tmp_path / "other.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a candidates file header"):
        read_candidates(tmp_path / "other.csv")


@pytest.mark.parametrize("name,data,what", [
    ("header.csv", b"a,b\n1,2\n", "not a sheet header"),
    ("columns.csv", b"project,url,label\nx,y,z\n", "column"),
    ("quoting.csv", b'project,url,created_at,label,excluded,selection\nx,"y\n',
     "not valid CSV"),
])
def test_sheets_that_are_not_sheets_are_refused_in_one_line(tmp_path, name, data, what):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(InputError, match=what) as err:
        read_sheet(tmp_path / name, name)
    assert "\n" not in str(err.value) and str(err.value).startswith(name)


def test_a_missing_sheet_is_refused(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_sheet(tmp_path / "missing.csv")


@pytest.mark.parametrize("value, expected", [
    ("", False), ("x", True), (" X ", True), ("yes", True), ("TRUE", True), ("1", True),
    ("no", False), ("FALSE", False), ("0", False), ("maybe", None)])
def test_parse_excluded(value, expected):
    assert parse_excluded(value) is expected


@pytest.mark.parametrize("value, expected", [
    ("c.3", "C.3"), (" A.10 ", "A.10"), ("Excluded", "excluded"), ("UNSURE", "unsure"),
    ("C.3.ii", "C.3.ii")])
def test_normalise_code(value, expected):
    assert normalise_code(value) == expected


def test_a_theme_chosen_from_the_drop_down_is_read_as_its_code(tmp_path, taxonomy):
    import openpyxl

    from tests.support.sheets import fill_workbook

    written = write(tmp_path, ["alice"], taxonomy, "xlsx")
    choices = [c.value for c in openpyxl.load_workbook(written[0])["Choices"]["A"]]
    named = next(c for c in choices if c.startswith("A.1 "))
    fill_workbook(written[0], {url: (named, "") for url in CANDIDATES["url"]})
    read = read_sheet(written[0], codes=set(taxonomy.codes))
    assert set(read.table["label"]) == {"A.1"} and not read.problems


def test_control_characters_in_a_title_are_shown_in_a_workbook(tmp_path):
    """A workbook cannot hold most C0 controls (openpyxl refused the sheet with a
    traceback): they are shown as markers there; the CSV sheet keeps the text as it is."""
    from tests.support.sheets import blank_sheets

    titles = ["a\x01b\x0bc\x1fd", "tab\tand\nline", "nul\x00x"]
    frame = candidates_frame([("vllm", f"https://github.com/o/r/issues/{i}",
                               "2025-01-01T00:00:00Z", t) for i, t in enumerate(titles, 1)])
    path = blank_sheets(tmp_path, frame, 1, fmt="xlsx")[0]
    rows = read_rows(path)
    shown = {r[rows[0].index("url")]: r[rows[0].index("title")] for r in rows[1:]}
    assert shown["https://github.com/o/r/issues/1"] == "a⟨U+0001⟩b⟨U+000B⟩c⟨U+001F⟩d"
    assert shown["https://github.com/o/r/issues/2"] == "tab\tand\nline"
    assert shown["https://github.com/o/r/issues/3"] == "nul⟨U+0000⟩x"
