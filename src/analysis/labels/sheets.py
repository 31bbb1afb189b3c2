"""Labelling sheets: one blank sheet per annotator, and the reading of filled ones.

A sheet (``<out>/sheets/annotator_<k>.csv``, or ``.xlsx`` with ``--format xlsx``) has one
row a candidate and the columns

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

Written for spreadsheet programs: a CSV is UTF-8 with a byte-order mark (so Excel reads
the titles right), CRLF line endings, fields quoted where needed; an ``.xlsx`` holds every
cell as text (its second worksheet lists the codes). In both, every cell that a
spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``...: titles are untrusted
text) is prefixed with an apostrophe, the rule of :mod:`analysis.report.downloads`. The
same candidates give the same bytes (the workbook's times and zip dates are fixed).

Read back as any spreadsheet program saves them: UTF-8 with or without a byte-order mark,
UTF-16 (Excel's "Unicode Text", with or without a byte-order mark), or a legacy 8-bit code
page (then read as Latin-1: only the ASCII columns url, label, excluded, selection and
project are used, so the result is right; the merge record says so); comma, semicolon
(spreadsheets in locales with a decimal comma) or tab delimited; any line endings (LF,
CRLF, and CR alone: "CSV (Macintosh)"); rows sorted or filtered in the spreadsheet (the
merge joins on the URL, never on the row order). A label written in lower case (``c.3``)
is read as its code and counted (a note); columns an annotator added are kept (the merge
writes their cells to ``labels/comments.csv``, beside the comments) and named in a note;
fully blank rows are skipped and counted.

An Excel workbook (``.xlsx``) is read too, whatever its file is named: it is recognised by
its content (a zip holding ``xl/workbook.xml``), and its first worksheet's cells come back
as the text the CSV sheet held (:func:`cell_text`), so the merge gives the same dump from
either. An untrusted workbook is read defensively: formulas are never run (their cached
values are read), and one that unpacks to more than :data:`MAX_WORKBOOK_BYTES` or holds
more than :data:`MAX_WORKBOOK_CELLS` cells is refused (it is opened by
:func:`analysis.core.workbooks.open_workbook`, as the interviews' background sheet is). A
legacy ``.xls``, an OpenDocument ``.ods`` or any other zip is refused in one line saying
to save the sheet as ``.xlsx`` or CSV; a password-protected workbook in one line saying
to save it without a password.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import hashlib
import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import atomic_folder
from analysis.core.dump import csv_records
from analysis.core.dumpfiles import read_plain_file
from analysis.core.encoding import sniff_encoding
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, SheetPaths
from analysis.core.taxonomy import Taxonomy, load_taxonomy
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

SHEET_COLUMNS = ["project", "url", "created_at", "title", "label", "excluded", "comment",
                 "selection"]
REQUIRED_COLUMNS = ["project", "url", "created_at", "label", "excluded", "selection"]
CANDIDATE_COLUMNS = ["project", "url", "created_at", "title"]
DELIMITERS = (",", ";", "\t")
TRUE_WORDS = frozenset({"x", "yes", "y", "true", "1", "excluded"})
FALSE_WORDS = frozenset({"", "no", "n", "false", "0"})
LATIN1_NOTE = "not UTF-8 or UTF-16: read as Latin-1 (only the ASCII columns are used)"
LINE_BREAK_RE = re.compile(r"\r\n|\r|\n")
XLSX_PART = "xl/workbook.xml"
ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"
WORKBOOK_ENCODING = "xlsx workbook"
WORKBOOK_DELIMITER = "none (workbook)"
SAVE_AS = "save the sheet as an Excel workbook (.xlsx) or as CSV UTF-8"
FORMATS = ("csv", "xlsx")
LOWER_CODE_RE = re.compile(r"[a-z]\.\d+")
# A workbook's zip entries and document times, fixed so that the same sheet is the same
# bytes (openpyxl stamps the time of saving).
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
CORE_TIME_RE = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")


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


def read_candidates(path: Path, reader: str = "labels merge") -> pd.DataFrame:
    """A candidates CSV (what select writes; opened and saved by a spreadsheet program,
    still), as text; one clear message when it cannot be read. It lies in a selection's
    folder, so it is read as a dump's files are (``plain``: a link or a special file is
    refused; ``reader`` names the command in that message)."""
    table = read_table(path, str(path), keys=("project", "url"), what="candidates file",
                       fix="give the candidates.csv select wrote (selection/candidates.csv)",
                       plain=reader)
    columns = table.columns
    rows = [fields + [""] * max(0, len(columns) - len(fields)) for _, fields in table.body]
    return pd.DataFrame([row[:len(columns)] for row in rows], columns=columns, dtype=object)


def sheet_cells(candidates: pd.DataFrame, sel: str) -> list[list[str]]:
    """The rows of a blank sheet (header first), every cell neutralised."""
    rows = [SHEET_COLUMNS]
    for rec in candidates.itertuples(index=False):
        cells = [rec.project, rec.url, rec.created_at, rec.title, "", "", "", sel]
        rows.append([neutralise_cell(c) for c in cells])
    return rows


def csv_bytes(rows: list[list[str]]) -> bytes:
    """Rows as a CSV for a spreadsheet program: BOM, CRLF, quoted where needed."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return codecs.BOM_UTF8 + out.getvalue().encode("utf-8")


def sheet_bytes(candidates: pd.DataFrame, sel: str) -> bytes:
    """A blank CSV sheet for ``candidates`` (checked): BOM, CRLF, neutralised cells."""
    return csv_bytes(sheet_cells(candidates, sel))


def codes_rows(taxonomy: Taxonomy) -> list[list[str]]:
    """The theme codes an annotator chooses from (code, type, theme), header first."""
    return [["code", "type", "theme"]] + [
        [rec.code, rec.type, rec.name]
        for rec in taxonomy.themes.sort_values("order", kind="mergesort").itertuples()]


def codes_bytes(taxonomy: Taxonomy) -> bytes:
    """The theme codes, for the sheets' folder, in the same form as the CSV sheets."""
    return csv_bytes(codes_rows(taxonomy))


def fixed_zip(raw: bytes) -> bytes:
    """A zip (an ``.xlsx``) rewritten with fixed entry dates and fixed document times, so
    the same content is the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                data = CORE_TIME_RE.sub(rb"\g<1>1980-01-01T00:00:00Z\g<2>", data)
            entry = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, data)
    return out.getvalue()


def workbook_bytes(rows: list[list[str]], codes: list[list[str]] | None = None,
                   title: str = "labels") -> bytes:
    """Rows as an Excel workbook: every cell text (a spreadsheet program converts nothing
    on opening it), the header bold and frozen, the codes on a second worksheet."""
    import openpyxl
    from openpyxl.styles import Font

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "A2"
    for column in sheet.iter_cols():
        for cell in column:
            cell.number_format = "@"
    if codes:
        extra = book.create_sheet("codes")
        for row in codes:
            extra.append(row)
    out = io.BytesIO()
    book.save(out)
    return fixed_zip(out.getvalue())


def write_blank_sheets(out: Path, candidates: pd.DataFrame, annotators: int,
                       taxonomy: Taxonomy | None = None, fmt: str = "csv") -> list[Path]:
    """Write one blank sheet per annotator, ``<out>/sheets/annotator_<k>.csv`` (or
    ``.xlsx``; k = 1..N), and ``<out>/sheets/codes.csv``; return the sheets' paths. The
    folder is written whole, aside, and replaces an earlier one.

    ``candidates`` has at least the columns project, url, created_at, title, in the order
    the sheets list them. The sheets are identical (same rows, same selection id): each
    annotator labels independently (Section III.B). No candidates is a user error: there
    is nothing to label.
    """
    if annotators < 1:
        raise InputError("the number of annotators must be at least 1",
                         column="--annotators", fix="give one sheet per annotator")
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}",
                         column="--format", fix="write --format csv or --format xlsx")
    frame = check_candidates(candidates)
    if frame.empty:
        raise InputError("no candidates: there is nothing to label",
                         fix="select again with another window or inputs (select says "
                             "what it read and skipped in selection/selection.json)")
    codes = codes_rows(taxonomy or load_taxonomy(PATHS.taxonomy_file))
    rows = sheet_cells(frame, selection_id(frame))
    data = csv_bytes(rows) if fmt == "csv" else workbook_bytes(rows, codes)
    paths = SheetPaths(Path(out))
    names = [paths.sheet(k).with_suffix(f".{fmt}").name for k in range(1, annotators + 1)]
    with atomic_folder(paths.folder, public=False) as staged:
        for name in names:
            (staged / name).write_bytes(data)
        (staged / paths.codes.name).write_bytes(csv_bytes(codes))
    return [paths.folder / name for name in names]


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
    extras: pd.DataFrame = field(default_factory=pd.DataFrame)  # added columns, by row
    lowercase_codes: int = 0


def decode_sheet(raw: bytes) -> tuple[str, str]:
    """The text of a sheet and the encoding it was read as (see the module docstring).

    The encoding is sniffed (:func:`~analysis.core.encoding.sniff_encoding`: a byte-order
    mark, or UTF-16's NUL bytes); a file that is neither UTF-8 nor UTF-16 is read as
    Latin-1, which never fails and keeps every ASCII byte (the columns the merge reads
    are ASCII).
    """
    encoding = sniff_encoding(raw[:4096])
    readings = {"utf-8-sig": (raw[len(codecs.BOM_UTF8):], "utf-8", "utf-8 with BOM"),
                "utf-16": (raw, "utf-16", "utf-16 with BOM")}
    if encoding in readings:
        data, codec, said = readings[encoding]
        try:
            return data.decode(codec), said
        except UnicodeDecodeError:
            return raw.decode("latin-1"), LATIN1_NOTE
    if encoding != "utf-8" and len(raw) % 2 == 0:
        try:
            return raw.decode(encoding), "utf-16"
        except UnicodeDecodeError:
            pass
    return _utf8_or_latin1(raw)


def _utf8_or_latin1(raw: bytes) -> tuple[str, str]:
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), LATIN1_NOTE


def sniff_delimiter(first_line: str, keys: tuple[str, ...] = ("url", "label")) -> str | None:
    """The delimiter whose split of the header names the ``keys`` columns."""
    for delim in DELIMITERS:
        names = {c.strip().casefold() for c in next(csv.reader([first_line], delimiter=delim))}
        if set(keys) <= names:
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


def text_rows(raw: bytes, name: str, keys: tuple[str, ...] = ("url", "label"),
              what: str = "sheet", fix: str | None = None
              ) -> tuple[list[tuple[int, list[str]]], str, str]:
    """The records of a CSV file as (first line, fields), with the encoding and the
    delimiter it was saved with; a first line that does not name the ``keys`` columns
    in any delimiter is refused."""
    text, encoding = decode_sheet(raw)
    lines = sheet_lines(text.lstrip("\ufeff"))
    delim = sniff_delimiter(lines[0], keys)
    if delim is None:
        raise InputError(f"not a {what} header (no {' and '.join(keys)} columns)",
                         file=name, line=1, fix=fix or SHEET_FIX)
    records = [(start, fields) for start, _, fields in csv_records(
        lines, name, delimiter=delim, strict=True,
        fix=f"fix the quoting on that line, or save the {what} again")]
    return records, encoding, {",": "comma", ";": "semicolon", "\t": "tab"}[delim]


SHEET_FIX = ("give the sheet written by analysis.labels sheets, saved as CSV or .xlsx, its "
             "columns kept")


def read_table(path: Path, name: str | None = None, keys: tuple[str, ...] = ("url", "label"),
               what: str = "sheet", fix: str | None = None, plain: str | None = None) -> Table:
    """Read a CSV or an Excel workbook (recognised by its content) whose header names the
    ``keys`` columns; a file that cannot be one at all raises one :class:`InputError`
    (unreadable, another kind of workbook, no such header, broken quoting). Fully blank
    rows are counted, not kept. ``plain``: the command reading, when the file must be a
    single-named regular file, opened without following links
    (:func:`~analysis.core.dumpfiles.read_plain_file`)."""
    name = name or str(path)
    try:
        raw = read_plain_file(Path(path), plain) if plain else Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the {what} ({exc.strerror})", file=name,
                         fix="check the path and the file's permissions") from exc
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


def extra_names(header: list[str], known: list[str]) -> dict[int, str]:
    """Column index -> name of the header's columns that are not ``known`` (an annotator's
    own), a blank name shown as ``column N``, a repeated one numbered."""
    names: dict[int, str] = {}
    for i, h in enumerate(header):
        if h.casefold() in known:
            continue
        name = h or f"column {i + 1}"
        n = 1
        while name in names.values():
            n += 1
            name = f"{h or f'column {i + 1}'} ({n})"
        names[i] = name
    return names


def lowercase_codes(labels: pd.Series) -> int:
    """How many label cells hold a code written in lower case (``c.3``)."""
    return int(labels.str.strip().str.fullmatch(LOWER_CODE_RE.pattern).sum())


def read_sheet(path: Path, name: str | None = None) -> Sheet:
    """Read a filled sheet, a CSV or an Excel workbook (:func:`read_table`); missing or
    repeated columns are one :class:`InputError`. Row-level problems are left to
    :mod:`analysis.labels.checks`."""
    table = read_table(path, name)
    name = table.name
    header = table.columns
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
    extras = extra_names(table.header, SHEET_COLUMNS)
    rows, added = [], []
    for start, fields in table.body:
        row = {"line": start, "n_fields": len(fields) if table.kind != "xlsx" else table.width}
        fields = fields + [""] * max(0, len(header) - len(fields))
        row.update({col: fields[i] for col, i in index.items()})
        rows.append(row)
        added.append([fields[i] for i in extras])
    frame = pd.DataFrame(rows, columns=["line", "n_fields", *index])
    for col in SHEET_COLUMNS:
        if col not in frame:
            frame[col] = ""
    frame.attrs["header_fields"] = table.width
    notes = [f"read as {table.encoding}"] if table.encoding == LATIN1_NOTE else []
    lower = lowercase_codes(frame["label"])
    if lower:
        notes.append(f"{lower:,} label(s) written in lower case (as c.3), read as the code")
    if extras:
        notes.append("column(s) not of the blank sheet ("
                     + ", ".join(repr(n) for n in extras.values())
                     + "): their cells are kept in labels/comments.csv")
    return Sheet(name=name, sha256=table.sha256, encoding=table.encoding,
                 delimiter=table.delimiter, rows=frame, blank_rows=table.blank_rows,
                 notes=notes, extras=pd.DataFrame(added, columns=list(extras.values()),
                                                  dtype=object),
                 lowercase_codes=lower)
