"""Files people save from spreadsheet programs, read back: labelling sheets, decisions
files, candidates.

Read however a spreadsheet program saved them: UTF-8 with or without a byte-order mark,
UTF-16 (Excel's "Unicode Text", with or without a byte-order mark), or Windows-1252 (what
Excel writes as plain "CSV" on Windows in Western locales: ``café – naïve`` comes back
with its dash; a file that is not Windows-1252 either is read as Latin-1, which keeps every
ASCII byte, and the record says so); comma, semicolon (spreadsheets in locales with a
decimal comma) or tab delimited; any line endings (LF, CRLF, and CR alone: "CSV
(Macintosh)"). The encoding is sniffed by the package's one sniffer
(:func:`~analysis.core.encoding.sniff_encoding`).

An Excel workbook (``.xlsx``) is read too, whatever its file is named: it is recognised by
its content (a zip holding ``xl/workbook.xml``), and its first worksheet's cells come back
as the text the CSV held (:func:`cell_text`), so a sheet gives the same batch from either.
An untrusted workbook is read defensively: formulas are never run (their cached values are
read), and one that unpacks to more than :data:`MAX_WORKBOOK_BYTES` or holds more than
:data:`MAX_WORKBOOK_CELLS` cells is refused (it is opened by
:func:`analysis.core.workbooks.open_workbook`, as the interviews' background sheet is). A
legacy ``.xls``, an OpenDocument ``.ods`` or any other zip is refused in one line saying to
save the file as ``.xlsx`` or CSV; a password-protected workbook in one line saying to save
it without a password.

Written for spreadsheet programs (:func:`spreadsheet_csv`): UTF-8 with a byte-order mark
(so Excel reads the titles right), CRLF line endings, fields quoted where needed, every
cell a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``...: titles are
untrusted text) prefixed with an apostrophe, the rule of :mod:`analysis.report.downloads`.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import hashlib
import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.core.batchfiles import read_record_file
from analysis.core.csvtext import csv_text
from analysis.core.encoding import sniff_encoding
from analysis.core.errors import InputError
from analysis.core.sizes import MAX_CELLS, MAX_COLUMNS, MAX_RECORD_BYTES, MAX_ROWS, over_limit
from analysis.core.textsafe import neutralise_cell
from analysis.core.workbooks import (
    ENCRYPTED,
    LEGACY_XLS,
    MAX_WORKBOOK_BYTES,
    MAX_WORKBOOK_CELLS,
    OLE2_MAGIC,
    SAVE_WITHOUT_PASSWORD,
    ZIP_MAGIC,
    Limits,
    is_encrypted_ooxml,
    open_workbook,
)

DELIMITERS = (",", ";", "\t")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}
WINDOWS = "windows-1252"
WINDOWS_NOTE = ("not UTF-8 or UTF-16: read as Windows-1252 (Excel's plain CSV on Windows); "
                "text in another script would be garbled -> save as CSV UTF-8")
LATIN1_NOTE = ("not UTF-8, UTF-16 or Windows-1252: read as Latin-1 (only the ASCII columns "
               "are used)")
LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")
MAX_HEADER_CHARS = 1 << 20  # a header of 16,384 columns of 64 characters fits
XLSX_PART = "xl/workbook.xml"
ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"
WORKBOOK_ENCODING = "xlsx workbook"
WORKBOOK_DELIMITER = "none (workbook)"
SAVE_AS = "save the sheet as an Excel workbook (.xlsx) or as CSV UTF-8"
SHEET_FIX = ("give the sheet written by analysis.update.labels sheets, saved as CSV or .xlsx, its "
             "columns kept")


def decode_text(raw: bytes) -> tuple[str, str]:
    """The text of a file saved by a spreadsheet program and the encoding it was read as
    (see the module docstring): a byte-order mark or UTF-16's NUL bytes
    (:func:`~analysis.core.encoding.sniff_encoding`), else UTF-8, else Windows-1252, else
    Latin-1 (which never fails)."""
    encoding = sniff_encoding(raw[:4096])
    readings = {"utf-8-sig": (raw[len(codecs.BOM_UTF8):], "utf-8", "utf-8 with BOM"),
                "utf-16": (raw, "utf-16", "utf-16 with BOM")}
    if encoding in readings:
        data, codec, said = readings[encoding]
        try:
            return data.decode(codec), said
        except UnicodeDecodeError:
            return _eight_bit(raw)
    if encoding != "utf-8" and len(raw) % 2 == 0:
        try:
            return raw.decode(encoding), "utf-16"
        except UnicodeDecodeError:
            pass
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return _eight_bit(raw)


def _eight_bit(raw: bytes) -> tuple[str, str]:
    """An 8-bit file: Windows-1252, or Latin-1 for bytes Windows-1252 leaves undefined."""
    try:
        return raw.decode("cp1252"), WINDOWS
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "latin-1"


ENCODING_NOTES = {WINDOWS: WINDOWS_NOTE, "latin-1": LATIN1_NOTE}


def sniff_delimiter(first_line: str, keys: tuple[str, ...] = ("url", "label")) -> str | None:
    """The delimiter whose split of the header names the ``keys`` columns."""
    for delim in DELIMITERS:
        names = {c.strip().casefold() for c in next(csv.reader([first_line], delimiter=delim))}
        if set(keys) <= names:
            return delim
    return None

def sheet_lines(text: str) -> list[str]:
    """The lines of a sheet's text, split at any line ending (LF, CRLF, or CR alone as
    "CSV (Macintosh)" writes them), without the line breaks; a quoted cell holding a line
    break spans lines, and the CSV reader joins them."""
    return LINE_BREAK_RE.split(text)

def workbook_kind(raw: bytes) -> str | None:
    """What kind of workbook ``raw`` is, by its content whatever the file is named:
    ``xlsx`` (a zip holding ``xl/workbook.xml``), ``encrypted`` (a password-protected
    .xlsx: an OLE2 compound file), ``xls`` (the legacy OLE2 format), ``ods``
    (OpenDocument), ``zip`` (another zip: Numbers, .xlsb, a damaged file), or None for
    text."""
    if raw.startswith(OLE2_MAGIC):
        return "encrypted" if is_encrypted_ooxml(raw) else "xls"
    if not raw.startswith(ZIP_MAGIC):
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            names = set(archive.namelist())
            if XLSX_PART in names:
                return "xlsx"
            if "mimetype" in names and archive.getinfo("mimetype").file_size < 256 \
                    and archive.read("mimetype").strip() == ODS_MIMETYPE:
                return "ods"
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError):
        pass
    return "zip"


REFUSED_WORKBOOKS = {
    "encrypted": ENCRYPTED,
    "xls": LEGACY_XLS,
    "ods": "an OpenDocument spreadsheet (.ods), not a sheet this can read",
    "zip": "a zip file that is not an Excel workbook (.xlsx)",
}


def cell_text(value: object, number_format: str = "General") -> str:
    """A workbook cell as the text the CSV sheet held: what a spreadsheet program turned
    into a number, a truth value or a date comes back as the sheet wrote it (``1`` not
    ``1.0``, ``TRUE``, ``2024-01-02T10:00:00Z`` as GitHub writes a time, a date alone as
    ``2024-01-02``); text stays as it is."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time() and "h" not in number_format.lower():
            return value.date().isoformat()
        text = value.replace(tzinfo=None).isoformat(timespec="seconds" if not
                                                    value.microsecond else "microseconds")
        return text + "Z"
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)

def workbook_rows(raw: bytes, name: str) -> list[tuple[int, list[str]]]:
    """The rows of a workbook's first worksheet as (row number, cells as text), trailing
    empty cells dropped. Formulas are not run (data_only: their cached values); a workbook
    that unpacks to more than :data:`MAX_WORKBOOK_BYTES` or holds more than
    :data:`MAX_WORKBOOK_CELLS` cells is refused before it fills the memory
    (:func:`~analysis.core.workbooks.open_workbook`)."""
    limits = Limits(MAX_WORKBOOK_BYTES, MAX_WORKBOOK_CELLS, save_as=SAVE_AS,
                    fix="give the annotator's own sheet, saved as .xlsx or CSV UTF-8")
    rows: list[tuple[int, list[str]]] = []
    with open_workbook(raw, name, limits) as book:
        for number, row in book.rows(book.sheet(None, SAVE_AS)):
            fields = [cell_text(c.value, getattr(c, "number_format", "General")) for c in row]
            while fields and fields[-1] == "":
                fields.pop()
            rows.append((number, fields))
    return rows

@dataclass
class Table:
    """A file saved from a spreadsheet program (a sheet, a decisions file), read: its
    header as written, its rows that are not blank (first line, cells) and how it was
    saved."""

    name: str
    sha256: str
    encoding: str
    delimiter: str
    kind: str  # csv or xlsx
    header: list[str]
    body: list[tuple[int, list[str]]]
    blank_rows: int
    width: int  # a CSV's header width; a workbook's widest row

    @property
    def columns(self) -> list[str]:
        """The header's names as matched: stripped, case folded."""
        return [h.strip().casefold() for h in self.header]

def numbered(reader, name: str, fix: str) -> Iterator[tuple[int, list[str]]]:
    """The records of a ``csv.reader`` over text whose lines end in LF, as (the line each
    starts on, fields); broken quoting is one :class:`InputError` naming the line."""
    prev = 0
    try:
        for fields in reader:
            yield prev + 1, fields
            prev = reader.line_num
    except csv.Error as exc:
        raise InputError(f"not valid CSV ({exc})", file=name, line=prev + 1, fix=fix) from exc


def bounded_records(records: Iterable[tuple[int, list[str]]], name: str, what: str
                    ) -> Iterator[tuple[int, list[str]]]:
    """The ``records`` as (first line, fields), refused in one line past the limits of a
    file of a batch's records (:mod:`analysis.core.sizes`): a record of more than
    :data:`MAX_COLUMNS` fields, more than :data:`MAX_ROWS` records or :data:`MAX_CELLS`
    fields in all (the bounds of the .xlsx the file could be saved as)."""
    fix = f"give the {what} the team wrote (at most {MAX_ROWS:,} rows of {MAX_COLUMNS:,} " \
          "columns, as a spreadsheet holds)"
    cells = 0
    for count, (start, fields) in enumerate(records, 1):
        if len(fields) > MAX_COLUMNS:
            raise InputError(f"a row of {len(fields):,} cells, more than {MAX_COLUMNS:,} "
                             "columns (a spreadsheet's)", file=name, line=start, fix=fix)
        cells += len(fields)
        if count > MAX_ROWS:
            raise over_limit(name, "rows", MAX_ROWS, fix)
        if cells > MAX_CELLS:
            raise over_limit(name, "cells", MAX_CELLS, fix)
        yield start, fields


def text_rows(raw: bytes, name: str, keys: tuple[str, ...] = ("url", "label"),
              what: str = "sheet", fix: str | None = None
              ) -> tuple[list[tuple[int, list[str]]], str, str]:
    """The records of a CSV file as (first line, fields), with the encoding and the
    delimiter it was saved with; a first line that does not name the ``keys`` columns
    in any delimiter is refused, and so is a file past the limits of
    :func:`bounded_records`."""
    text, encoding = decode_text(raw)
    # every line ending as LF, as the lines of sheet_lines are joined: a quoted cell's line
    # breaks read the same from a file saved with CRLF, CR or LF
    text = LINE_BREAK_RE.sub("\n", text.lstrip("\ufeff"))
    delim = sniff_delimiter(text[:MAX_HEADER_CHARS].partition("\n")[0], keys)
    if delim is None:
        raise InputError(f"not a {what} header (no {' and '.join(keys)} columns)",
                         file=name, line=1, fix=fix or SHEET_FIX)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim, strict=True)
    records = list(bounded_records(numbered(
        reader, name, f"fix the quoting on that line, or save the {what} again"), name, what))
    return records, encoding, DELIMITER_NAMES[delim]


def read_bytes(path: Path, name: str, what: str, reader: str) -> bytes:
    """The bytes of a sheet, decisions or candidates file named by a path: read as a
    dump's files are (a single-named regular file, opened once without following links:
    :func:`~analysis.core.dumpfiles.plain_file`), at most
    :data:`~analysis.core.sizes.MAX_RECORD_BYTES`."""
    try:
        raw = read_record_file(Path(path), reader, MAX_RECORD_BYTES, name)
    except OSError as exc:
        raise InputError(f"cannot read the {what} ({exc.strerror})", file=name,
                         fix="check the path and the file's permissions") from exc
    if raw is None:
        raise over_limit(name, "bytes", MAX_RECORD_BYTES, f"give the {what} the team wrote")
    return raw


def read_table(path: Path, name: str | None = None, keys: tuple[str, ...] = ("url", "label"),
               what: str = "sheet", fix: str | None = None, plain: str | None = None,
               raw: bytes | None = None) -> Table:
    """Read a CSV or an Excel workbook (recognised by its content) whose header names the
    ``keys`` columns; a file that cannot be one at all raises one :class:`InputError`
    (unreadable, another kind of workbook, no such header, broken quoting). Fully blank
    rows are counted, not kept. The file is read as a batch's records are
    (:func:`read_bytes`; ``plain``: the command reading, in messages), unless its bytes
    are given (``raw``: read so already, :func:`analysis.core.batchfiles.read_record`)."""
    name = name or str(path)
    if raw is None:
        raw = read_bytes(Path(path), name, what, plain or "labels")
    kind = workbook_kind(raw)
    if kind in REFUSED_WORKBOOKS:
        raise InputError(REFUSED_WORKBOOKS[kind], file=name, fix=(
            f"{SAVE_WITHOUT_PASSWORD}, as .xlsx or CSV UTF-8" if kind == "encrypted"
            else SAVE_AS))
    if kind == "xlsx":
        records = workbook_rows(raw, name)
        encoding, delimiter = WORKBOOK_ENCODING, WORKBOOK_DELIMITER
        if not records or not set(keys) <= {c.strip().casefold() for c in records[0][1]}:
            raise InputError(f"not a {what} header (no {' and '.join(keys)} columns in the "
                             "first row of the first worksheet)", file=name, row=1,
                             fix=fix or SHEET_FIX)
    else:
        records, encoding, delimiter = text_rows(raw, name, keys, what, fix)
    header = [h.strip() for h in records[0][1]] if records else []
    body = [(start, fields) for start, fields in records[1:] if any(f.strip() for f in fields)]
    # A workbook has no delimiter to miscount: its width is its widest row, as a
    # spreadsheet program's CSV of it would be.
    width = max(len(f) for _, f in records) if kind == "xlsx" else len(header)
    return Table(name, hashlib.sha256(raw).hexdigest(), encoding, delimiter,
                 kind or "csv", header, body, len(records) - 1 - len(body), width)

def read_candidates(path: Path, reader: str = "labels merge", raw: bytes | None = None
                    ) -> pd.DataFrame:
    """A candidates CSV (what select writes; opened and saved by a spreadsheet program,
    still), as text; one clear message when it cannot be read. It lies in a selection's
    folder, so it is read as a dump's files are (``plain``: a link or a special file is
    refused; ``reader`` names the command in that message)."""
    table = read_table(path, str(path), keys=("project", "url"), what="candidates file",
                       fix="give the candidates.csv select wrote (selection/candidates.csv)",
                       plain=reader, raw=raw)
    columns = table.columns
    rows = [fields + [""] * max(0, len(columns) - len(fields)) for _, fields in table.body]
    return pd.DataFrame([row[:len(columns)] for row in rows], columns=columns, dtype=object)


def csv_bytes(rows: list[list[str]]) -> bytes:
    """Rows as a CSV for a spreadsheet program: BOM, CRLF, quoted where needed (cells as
    given: :func:`spreadsheet_csv` neutralises them)."""
    return codecs.BOM_UTF8 + csv_text(rows, lineterminator="\r\n").encode("utf-8")


def spreadsheet_csv(frame: pd.DataFrame) -> bytes:
    """A record for people to open in a spreadsheet program: BOM, CRLF, every cell
    neutralised."""
    return csv_bytes([list(frame.columns)]
                     + [[neutralise_cell(str(c)) for c in row] for row in frame.values])
