"""Labelling sheets: one blank CSV per annotator, and the reading of filled ones.

A sheet (``<out>/sheets/annotator_<k>.csv``) has one row a candidate and the columns

    project     the project folder the candidate belongs to (do not edit)
    url         the issue's URL, the key that joins the sheets (do not edit)
    created_at  when the issue was opened, as the export gave it (do not edit)
    title       the issue's title, to read (not used by the merge)
    label       the annotator's theme code: A.1 ... C.10 of data/taxonomy.yaml, listed
                with their names in ``sheets/codes.csv``
    excluded    mark ``x`` (or yes/true/1) when the report is a false positive (Section
                III.A: not LLM-specific); a label is then optional
    comment     free text for the annotator (not used by the merge)
    selection   the selection's identifier, the same on every row (do not edit): the
                merge refuses sheets of different selections

Written for spreadsheet programs: UTF-8 with a byte-order mark (so Excel reads the
titles right), CRLF line endings, fields quoted where needed, and every cell that a
spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``...: titles are untrusted
text) prefixed with an apostrophe, the rule of :mod:`analysis.report.downloads`.

Read back as any spreadsheet program saves them: UTF-8 with or without a byte-order mark,
UTF-16 (Excel's "Unicode Text", with or without a byte-order mark), or a legacy 8-bit code
page (then read as Latin-1: only the ASCII columns url, label, excluded, selection and
project are used, so the result is right; the merge record says so); comma, semicolon
(spreadsheets in locales with a decimal comma) or tab delimited; any line endings (LF,
CRLF, and CR alone: "CSV (Macintosh)"); rows sorted or filtered in the spreadsheet (the
merge joins on the URL, never on the row order). Extra columns are ignored; fully blank
rows are skipped and counted.

An Excel workbook (``.xlsx``) is read too, whatever its file is named: it is recognised by
its content (a zip holding ``xl/workbook.xml``), and its first worksheet's cells come back
as the text the CSV sheet held (:func:`cell_text`), so the merge gives the same dump from
either. An untrusted workbook is read defensively: formulas are never run (their cached
values are read), and one that unpacks to more than :data:`MAX_WORKBOOK_BYTES` or holds
more than :data:`MAX_WORKBOOK_CELLS` cells is refused. A legacy ``.xls``, an OpenDocument
``.ods`` or any other zip is refused in one line saying to save the sheet as ``.xlsx`` or
CSV.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import hashlib
import io
import re
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import ParseError

import pandas as pd

from analysis.core.artifacts import atomic_path
from analysis.core.dump import csv_records
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, SheetPaths
from analysis.core.sizes import MiB, size_text
from analysis.core.taxonomy import Taxonomy, load_taxonomy
from analysis.core.textsafe import neutralise_cell

SHEET_COLUMNS = ["project", "url", "created_at", "title", "label", "excluded", "comment",
                 "selection"]
REQUIRED_COLUMNS = ["project", "url", "created_at", "label", "excluded", "selection"]
CANDIDATE_COLUMNS = ["project", "url", "created_at", "title"]
DELIMITERS = (",", ";", "\t")
TRUE_WORDS = frozenset({"x", "yes", "y", "true", "1", "excluded"})
FALSE_WORDS = frozenset({"", "no", "n", "false", "0"})
LATIN1_NOTE = "not UTF-8 or UTF-16: read as Latin-1 (only the ASCII columns are used)"
LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")
ZIP_MAGIC = b"PK\x03\x04"
OLE2_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")  # a legacy .xls (and .doc, .msg...)
XLSX_PART = "xl/workbook.xml"
ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"
MAX_WORKBOOK_BYTES = 256 * MiB   # unpacked, every part; a sheet of 100,000 rows is ~50 MB
MAX_WORKBOOK_CELLS = 5_000_000   # 500,000 candidates in 10 columns
WORKBOOK_ENCODING = "xlsx workbook"
WORKBOOK_DELIMITER = "none (workbook)"
SAVE_AS = "save the sheet as an Excel workbook (.xlsx) or as CSV UTF-8"


def selection_id(candidates: pd.DataFrame) -> str:
    """The identifier of a selection: a digest of its (project, url) pairs, sorted.

    Why: every row of every sheet carries it, so a sheet of another selection (another
    run of select, another window) is recognised even when its rows look alike.
    """
    pairs = sorted(zip(candidates["project"].astype(str), candidates["url"].astype(str),
                       strict=True))
    digest = hashlib.sha256("".join(f"{p}\t{u}\n" for p, u in pairs).encode("utf-8"))
    return "sel-" + digest.hexdigest()[:12]


def check_candidates(candidates: pd.DataFrame) -> pd.DataFrame:
    """The candidates as text, refusing a frame without the columns a sheet needs or with
    a (project, url) pair twice (the merge joins on it)."""
    missing = [c for c in CANDIDATE_COLUMNS if c not in candidates.columns]
    if missing:
        raise InputError(f"candidates lack the column(s) {', '.join(missing)}",
                         fix="give project, url, created_at and title for every candidate")
    frame = candidates[CANDIDATE_COLUMNS].astype(object).where(
        candidates[CANDIDATE_COLUMNS].notna(), "").astype(str)
    dup = frame.duplicated(["project", "url"], keep="first")
    if dup.any():
        first = frame[dup].iloc[0]
        raise InputError(f"candidate {first['url']} of {first['project']} is listed twice",
                         row=int(frame.index[dup][0]) + 1,
                         fix="list each candidate once per project")
    return frame.reset_index(drop=True)


def sheet_bytes(candidates: pd.DataFrame, sel: str) -> bytes:
    """A blank sheet for ``candidates`` (checked): BOM, CRLF, neutralised cells."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(SHEET_COLUMNS)
    for rec in candidates.itertuples(index=False):
        cells = [rec.project, rec.url, rec.created_at, rec.title, "", "", "", sel]
        writer.writerow([neutralise_cell(c) for c in cells])
    return codecs.BOM_UTF8 + out.getvalue().encode("utf-8")


def codes_bytes(taxonomy: Taxonomy) -> bytes:
    """The theme codes an annotator chooses from (code, type, theme), for the sheets'
    folder, in the same spreadsheet-friendly form as the sheets."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["code", "type", "theme"])
    for rec in taxonomy.themes.sort_values("order", kind="mergesort").itertuples():
        writer.writerow([rec.code, rec.type, rec.name])
    return codecs.BOM_UTF8 + out.getvalue().encode("utf-8")


def write_blank_sheets(out: Path, candidates: pd.DataFrame, annotators: int,
                       taxonomy: Taxonomy | None = None) -> list[Path]:
    """Write one blank sheet per annotator, ``<out>/sheets/annotator_<k>.csv`` (k = 1..N),
    and ``<out>/sheets/codes.csv``; return the sheets' paths.

    ``candidates`` has at least the columns project, url, created_at, title, in the order
    the sheets list them. The sheets are identical (same rows, same selection id): each
    annotator labels independently (Section III.B).
    """
    if annotators < 1:
        raise InputError("the number of annotators must be at least 1",
                         column="--annotators", fix="give one sheet per annotator")
    frame = check_candidates(candidates)
    data = sheet_bytes(frame, selection_id(frame))
    paths = SheetPaths(Path(out))
    written = []
    for k in range(1, annotators + 1):
        with atomic_path(paths.sheet(k)) as tmp:
            tmp.write_bytes(data)
        written.append(paths.sheet(k))
    with atomic_path(paths.codes) as tmp:
        tmp.write_bytes(codes_bytes(taxonomy or load_taxonomy(PATHS.taxonomy_file)))
    return written


# --------------------------------------------------------------------------- reading


@dataclass
class Sheet:
    """A filled sheet as read: its rows (with the line each starts on) and how it was
    saved."""

    name: str  # the file as named to the user
    sha256: str
    encoding: str
    delimiter: str
    rows: pd.DataFrame  # line + the SHEET_COLUMNS present, as text
    blank_rows: int = 0
    notes: list[str] = field(default_factory=list)


def decode_sheet(raw: bytes) -> tuple[str, str]:
    """The text of a sheet and the encoding it was read as (see the module docstring).

    UTF-16 without a byte-order mark is recognised by its NUL bytes (every ASCII character
    has one); a file that is neither UTF-8 nor UTF-16 is read as Latin-1, which never
    fails and keeps every ASCII byte (the columns the merge reads are ASCII).
    """
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
        try:
            return raw.decode("utf-8"), "utf-8 with BOM"
        except UnicodeDecodeError:
            return raw.decode("latin-1"), LATIN1_NOTE
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return raw.decode("utf-16"), "utf-16 with BOM"
        except UnicodeDecodeError:
            return raw.decode("latin-1"), LATIN1_NOTE
    head = raw[:4096]
    if b"\x00" in head and len(raw) % 2 == 0:
        odd = head[1::2].count(0) > head[0::2].count(0)
        try:
            return raw.decode("utf-16-le" if odd else "utf-16-be"), "utf-16"
        except UnicodeDecodeError:
            pass
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), LATIN1_NOTE


def sniff_delimiter(first_line: str) -> str | None:
    """The delimiter whose split of the header names the url and label columns."""
    for delim in DELIMITERS:
        names = {c.strip().casefold() for c in next(csv.reader([first_line], delimiter=delim))}
        if {"url", "label"} <= names:
            return delim
    return None


def parse_excluded(value: str) -> bool | None:
    """An ``excluded`` cell as a yes/no (case and spaces ignored); None if unreadable."""
    word = value.strip().casefold()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None


def normalise_code(value: str) -> str:
    """A label cell as a theme code: spaces trimmed, the type letter upper-case (``c.3``
    is ``C.3``); anything else is kept as written for the checks to judge."""
    code = value.strip()
    return code[:1].upper() + code[1:] if re.fullmatch(r"[A-Za-z]\.\d+", code) else code


def sheet_lines(text: str) -> list[str]:
    """The lines of a sheet's text, split at any line ending (LF, CRLF, or CR alone as
    "CSV (Macintosh)" writes them), without the line breaks; a quoted cell holding a line
    break spans lines, and the CSV reader joins them."""
    return LINE_BREAK_RE.split(text)


def workbook_kind(raw: bytes) -> str | None:
    """What kind of workbook ``raw`` is, by its content whatever the file is named:
    ``xlsx`` (a zip holding ``xl/workbook.xml``), ``xls`` (the legacy OLE2 format), ``ods``
    (OpenDocument), ``zip`` (another zip: Numbers, .xlsb, a damaged file), or None for
    text."""
    if raw.startswith(OLE2_MAGIC):
        return "xls"
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
    "xls": "a legacy Excel workbook (.xls), not a sheet this can read",
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
    :data:`MAX_WORKBOOK_CELLS` cells is refused before it fills the memory."""
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"cannot read the workbook ({exc})", file=name, fix=SAVE_AS) from exc
    if unpacked > MAX_WORKBOOK_BYTES:
        raise InputError(f"the workbook unpacks to {size_text(unpacked)}, over the limit of "
                         f"{size_text(MAX_WORKBOOK_BYTES)} (a sheet of 100,000 candidates is "
                         f"about 50 MB)", file=name,
                         fix="give the annotator's own sheet, saved as .xlsx or CSV UTF-8")
    rows: list[tuple[int, list[str]]] = []
    cells = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl's notes on styles it does not read
            book = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
            try:
                if not book.worksheets:
                    raise InputError("the workbook has no worksheet", file=name, fix=SAVE_AS)
                sheet = book.worksheets[0]
                sheet.reset_dimensions()  # the declared size is not trusted: read the cells
                for number, row in enumerate(sheet.iter_rows(), 1):
                    cells += max(len(row), 1)
                    if cells > MAX_WORKBOOK_CELLS:
                        raise InputError(f"the workbook holds more than "
                                         f"{MAX_WORKBOOK_CELLS:,} cells", file=name,
                                         row=number, fix="give the annotator's own sheet, "
                                                         "saved as .xlsx or CSV UTF-8")
                    fields = [cell_text(c.value, getattr(c, "number_format", "General"))
                              for c in row]
                    while fields and fields[-1] == "":
                        fields.pop()
                    rows.append((number, fields))
            finally:
                book.close()
    except InputError:
        raise
    except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, TypeError,
            AttributeError, IndexError, ParseError, OSError) as exc:
        raise InputError(f"cannot read the workbook ({type(exc).__name__}: {exc})",
                         file=name, fix=SAVE_AS) from exc
    return rows


def text_rows(raw: bytes, name: str) -> tuple[list[tuple[int, list[str]]], str, str]:
    """The records of a CSV sheet as (first line, fields), with the encoding and the
    delimiter it was saved with."""
    text, encoding = decode_sheet(raw)
    lines = sheet_lines(text.lstrip("\ufeff"))
    delim = sniff_delimiter(lines[0])
    if delim is None:
        raise InputError("not a sheet header (no url and label columns)",
                         file=name, line=1,
                         fix="give the sheet written by select (or analysis.labels sheets), "
                             "saved as CSV or .xlsx")
    records = [(start, fields) for start, _, fields in csv_records(
        lines, name, delimiter=delim, strict=True,
        fix="fix the quoting on that line, or save the sheet again")]
    return records, encoding, {",": "comma", ";": "semicolon", "\t": "tab"}[delim]


def read_sheet(path: Path, name: str | None = None) -> Sheet:
    """Read a filled sheet, a CSV or an Excel workbook (recognised by its content); a file
    that cannot be a sheet at all raises one :class:`InputError` (unreadable, another
    kind of workbook, no header with url and label, missing columns, broken quoting).
    Row-level problems are left to :mod:`analysis.labels.checks`."""
    name = name or str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the sheet ({exc.strerror})", file=name,
                         fix="check the path and the file's permissions") from exc
    kind = workbook_kind(raw)
    if kind in REFUSED_WORKBOOKS:
        raise InputError(REFUSED_WORKBOOKS[kind], file=name, fix=SAVE_AS)
    if kind == "xlsx":
        records = workbook_rows(raw, name)
        encoding, delimiter = WORKBOOK_ENCODING, WORKBOOK_DELIMITER
        if not records or not {"url", "label"} <= {c.strip().casefold()
                                                   for c in records[0][1]}:
            raise InputError("not a sheet header (no url and label columns in the first "
                             "row of the first worksheet)", file=name, row=1,
                             fix="give the sheet written by select (or analysis.labels "
                                 "sheets), its columns kept")
    else:
        records, encoding, delimiter = text_rows(raw, name)
    notes = [f"read as {encoding}"] if encoding == LATIN1_NOTE else []
    header: list[str] | None = None
    body: list[tuple[int, list[str]]] = []
    blank = 0
    for start, fields in records:
        if header is None:
            header = [h.strip().casefold() for h in fields]
            continue
        if not any(f.strip() for f in fields):
            blank += 1
            continue
        body.append((start, fields))
    header = header or []
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(f"the header lacks the column(s) {', '.join(missing)}", file=name,
                         line=1, fix="keep the columns of the blank sheet (" +
                         ", ".join(SHEET_COLUMNS) + ")")
    dupes = sorted({h for h in header if h in SHEET_COLUMNS and header.count(h) > 1})
    if dupes:
        raise InputError(f"the header names {', '.join(dupes)} twice", file=name, line=1,
                         fix="keep one column of each name")
    index = {h: header.index(h) for h in SHEET_COLUMNS if h in header}
    # A workbook has no delimiter to miscount: its width is its widest row, as a
    # spreadsheet program's CSV of it would be.
    width = (max(len(f) for _, f in records) if kind == "xlsx" else len(header))
    rows = []
    for start, fields in body:
        row = {"line": start, "n_fields": len(fields) if kind != "xlsx" else width}
        fields = fields + [""] * max(0, len(header) - len(fields))
        row.update({col: fields[i] for col, i in index.items()})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["line", "n_fields", *index])
    for col in SHEET_COLUMNS:
        if col not in frame:
            frame[col] = ""
    frame.attrs["header_fields"] = width
    return Sheet(name=name, sha256=hashlib.sha256(raw).hexdigest(), encoding=encoding,
                 delimiter=delimiter, rows=frame, blank_rows=blank, notes=notes)
