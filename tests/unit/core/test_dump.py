"""Unit tests of ``analysis.core.dump`` (the label files themselves: tests/unit/clean)."""

from __future__ import annotations

import codecs
import io

import pytest

from analysis.core.dump import (
    TextLines,
    chunked,
    csv_records,
    decode,
    iter_csv_records,
    parse_excluded_file,
    parse_label_file,
    read_label_file,
    read_text,
    year_file_chunks,
)
from analysis.core.dumpfiles import DumpFiles
from analysis.core.errors import InputError


def test_csv_records_name_the_first_line_of_a_record_and_skip_the_final_newline():
    lines = 'a,b\n1,"two\nlines"\n3,4\n'.split("\n")
    assert csv_records(lines, "f.csv", fix="-") == [
        (1, 1, ["a", "b"]), (2, 3, ["1", "two\nlines"]), (4, 4, ["3", "4"])]


def test_broken_quoting_is_one_message_at_the_record_s_first_line():
    with pytest.raises(InputError, match="not valid CSV") as err:
        csv_records(['a', '"x', 'y"q'], "f.csv", fix="fix the quoting", strict=True)
    assert err.value.line == 2


def lines_of(raw: bytes, max_line: int | None = None) -> tuple[list[str], list[str]]:
    lines = TextLines(io.BytesIO(raw), "f.txt", max_line)
    return list(lines), [q.kind for q in lines.quirks]


def whole_text(raw: bytes) -> list[str]:
    """What reading the whole file gives: the decoded, normalised text split at LF."""
    text = raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


@pytest.mark.parametrize("raw", [
    b"", b"\n", b"a", b"a\n", b"a\nb", b"a\n\n", b"\n\na\n", b"a\r\nb\r\n", b"a\rb\r",
    b"a\r\n\r\nb\r", b"\r\r\n\n", b"\xef\xbb\xbfa,b\n", b"\xef\xbb\xbf", "caf\u00e9\n".encode(),
    b"x" * 8191 + b"\r\nnext\n", b"x" * 8190 + b"\r\r\n" + b"y" * 9000,
])
def test_lines_are_the_pieces_of_the_whole_text(raw):
    lines, quirks = lines_of(raw)
    assert lines == whole_text(raw)
    assert ("utf8_bom" in quirks) == raw.startswith(b"\xef\xbb\xbf")
    assert ("crlf_line_endings" in quirks) == (b"\r\n" in raw)
    assert ("cr_line_endings" in quirks) == (b"\r" in raw.replace(b"\r\n", b""))
    assert ("empty_file" in quirks) == (raw == b"")
    assert decode(raw, "f.txt")[0] == "\n".join(whole_text(raw))


@pytest.mark.parametrize("raw", [b"ok\nnot \xe9 utf-8\n", b"\xef\xbb\xbfa\r\nb\r\n\xff",
                                 b"a\rb\rc\n\xc3(\n"])
def test_bytes_that_are_not_utf8_are_placed_as_a_whole_read_would(raw):
    body = raw.removeprefix(b"\xef\xbb\xbf")
    with pytest.raises(UnicodeDecodeError) as whole:
        body.decode("utf-8")
    start = whole.value.start
    with pytest.raises(InputError, match="not UTF-8") as err:
        lines_of(raw)
    assert f"byte 0x{body[start]:02x} at offset {start})" in str(err.value)
    assert err.value.line == body[:start].count(b"\n") + 1


def test_a_nul_byte_names_its_line():
    with pytest.raises(InputError, match="NUL") as err:
        lines_of(b"a\r\nb\rc\x00\n")
    assert err.value.line == 3


TEXT = "Issue_URL,Label1,Final_Label\r\nhttps://github.com/a/b/issues/1,A.1,A.1\r\n"


@pytest.mark.parametrize("raw, name, iconv", [
    (TEXT.encode("utf-16"), "UTF-16", "utf-16"),  # Excel's "Unicode Text": a BOM, LE
    (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "UTF-16", "utf-16"),
    (TEXT.encode("utf-16-le"), "UTF-16", "utf-16le"),
    (TEXT.encode("utf-16-be"), "UTF-16", "utf-16be"),
    (TEXT.encode("utf-32"), "UTF-32", "utf-32"),
    (TEXT.encode("utf-32-le"), "UTF-32", "utf-32le"),
])
def test_a_utf16_or_utf32_file_is_named_with_how_to_convert_it(raw, name, iconv):
    with pytest.raises(InputError) as err:
        lines_of(raw)
    assert str(err.value) == (f"f.txt, line 1: file is {name} text, not UTF-8 -> re-save "
                              f"it as UTF-8 (e.g. `iconv -f {iconv} -t utf-8`)")
    with pytest.raises(InputError, match=f"iconv -f {iconv} "):
        decode(raw, "f.txt")  # the whole-file form, as the taxonomy and keywords read


def test_windows_1252_is_told_so_and_other_bytes_are_not():
    with pytest.raises(InputError, match=r"\(e\.g\. `iconv -f cp1252 -t utf-8`\)$"):
        lines_of("Issue_URL\ncaf\u00e9 \u2013 na\u00efve\n".encode("cp1252"))
    with pytest.raises(InputError) as err:
        lines_of(b"Issue_URL\n\x81\x8d\x8f\x90\n")  # no characters in Windows-1252
    assert "cp1252" not in str(err.value) and "iconv -f ENCODING -t utf-8" in str(err.value)


def test_a_line_over_the_limit_is_refused_without_reading_it_whole():
    class Endless(io.RawIOBase):
        """A file of 'x' without end: reading it whole would never finish."""

        read_bytes = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            buffer[:] = b"x" * len(buffer)
            self.read_bytes += len(buffer)
            return len(buffer)

    source = Endless()
    with pytest.raises(InputError) as err:
        list(TextLines(io.BufferedReader(source), "big.csv", max_line=1000))
    assert str(err.value).startswith("big.csv, line 1: line longer than 1,000 characters")
    assert source.read_bytes < 100_000
    assert lines_of(b"a" * 10 + b"\r\n", max_line=10)[0] == ["a" * 10, ""]
    with pytest.raises(InputError, match="line 2: line longer than 10"):
        lines_of(b"ok\n" + b"a" * 11 + b"\n", max_line=10)


def test_records_are_read_as_the_lines_come_with_their_raw_text():
    lines = 'h\n1,"two\nlines"\n\n3\n'.split("\n")
    records = list(iter_csv_records(iter(lines), "f.csv", fix="-"))
    assert records == [(1, 1, ["h"], "h"), (2, 3, ["1", "two\nlines"], '1,"two\nlines"'),
                       (4, 4, [], ""), (5, 5, ["3"], "3")]
    with pytest.raises(InputError, match="line 2: record longer than 20 characters"):
        list(iter_csv_records(['a', '"open', "x" * 10, "y" * 10], "f.csv", fix="-",
                              max_record=20))


def test_label_file_chunks_keep_their_lines():
    lines = "\n\nIssue_URL,Label1,Final_Label\nu1,a,a\n\nu2,b,b\n".split("\n")
    reader = read_label_file(iter(lines), "p.csv")
    assert reader.header == ["Issue_URL", "Label1", "Final_Label"]
    assert [q.kind for q in reader.quirks] == ["leading_blank_lines"]
    chunks = list(reader.chunks(2))
    assert [c["line"].tolist() for c in chunks] == [[4, 5], [6]]
    assert reader.count == 3
    header_only = read_label_file(iter(["Issue_URL,Label1,Final_Label", ""]), "p.csv")
    assert [len(c) for c in header_only.chunks(2)] == [0]


def test_year_files_in_chunks_drop_only_the_final_empty_piece():
    frames = list(year_file_chunks(iter(["u1", "", "u2", ""]), "p_2024.txt", 2024, 2))
    assert [f["line"].tolist() for f in frames] == [[1, 2], [3]]
    assert frames[0]["url"].tolist() == ["u1", ""]
    assert list(chunked([], 3)) == [[]] and list(chunked(range(4), 3)) == [[0, 1, 2], [3]]


def test_read_text_decodes_a_whole_file_with_its_quirks(tmp_path):
    (tmp_path / "a.csv").write_bytes(b"\xef\xbb\xbfx\r\n" + b"y" * 200_000)
    (tmp_path / "b.csv").write_bytes(b"")
    dump = DumpFiles.walk(tmp_path, "a test")
    text, quirks = read_text(tmp_path / "a.csv", dump)
    assert text == "x\n" + "y" * 200_000  # no line limit: the whole file
    assert [q.kind for q in quirks] == ["utf8_bom", "crlf_line_endings"]
    assert read_text(tmp_path / "b.csv", dump) == ("", [quirks[0].__class__(
        "empty_file", "b.csv", "file is empty (0 bytes)")])


def test_parse_label_file_gives_every_record_in_one_frame():
    parsed = parse_label_file('\nIssue_URL,Label1,Final_Label\nu,"A.1\nx",B\n\n', "p.csv")
    assert parsed.header == ["Issue_URL", "Label1", "Final_Label"]
    assert parsed.annotator_columns == {"Label1": 1} and parsed.url_column == "Issue_URL"
    assert parsed.records["line"].tolist() == [3, 5]
    assert parsed.records["fields"].tolist() == [["u", "A.1\nx", "B"], []]
    assert [q.kind for q in parsed.quirks] == ["leading_blank_lines"]
    assert parse_label_file("", "p.csv").records.empty


def test_parse_excluded_file_reads_the_columns_it_knows():
    frame = parse_excluded_file("Created_At,Issue_URL\n2024-01-02, u \nx\n", "e.csv")
    assert frame[["line", "url", "created_at", "n_fields"]].values.tolist() == [
        [2, "u", "2024-01-02", 2], [3, "", "x", 1]]
    with pytest.raises(InputError, match="no Issue_URL column"):
        parse_excluded_file("", "e.csv")
