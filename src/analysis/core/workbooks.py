"""Excel workbooks (.xlsx) from untrusted files, opened in bounded memory and time.

Both readers of workbooks, the interviews' background sheet and the labelling sheets,
open them here (:func:`open_workbook`). A password-protected .xlsx (an OLE2 compound file
holding an ``EncryptedPackage`` stream) and a legacy .xls are refused in one line saying
what to do; a zip whose entries declare more than :data:`MAX_WORKBOOK_BYTES` is refused
before anything is unpacked (zipfile never unpacks an entry past its declared size); a
workbook without a worksheet is named as such with its sheets and their kinds.

Before a worksheet's cells are read, its XML is scanned as a stream
(:func:`scan_worksheet`): more than :data:`MAX_WORKBOOK_CELLS` cells, or more cells in one
row than Excel has columns, are refused before openpyxl builds a row (it holds a whole row
in memory); the scan also collects the merged ranges, which openpyxl's read-only mode does
not give. The cells are then read row by row (:meth:`Workbook.rows`), every row counted
against the same limit. Formulas are never run: their cached values are read.
"""

from __future__ import annotations

import io
import warnings
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import ParseError
from xml.parsers import expat

from analysis.core.errors import InputError
from analysis.core.sizes import MAX_CELLS, MAX_COLUMNS, MAX_ROWS, MiB, size_text

MAX_WORKBOOK_BYTES = 256 * MiB  # unpacked, every part; a sheet of 100,000 rows is ~50 MB
MAX_WORKBOOK_CELLS = MAX_CELLS  # 500,000 rows of 10 columns
MAX_ROW_CELLS = MAX_COLUMNS  # Excel's columns, A to XFD: no saved row holds more cells
MAX_SHEET_ROWS = MAX_ROWS  # Excel's rows
ZIP_MAGIC = b"PK\x03\x04"
OLE2_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")  # a compound file: .xls, encrypted .xlsx
ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")
SHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
SHEET_KINDS = {"worksheet": "worksheet", "chartsheet": "chart sheet",
               "dialogsheet": "dialog sheet", "xlMacrosheet": "macro sheet",
               "xlIntlMacrosheet": "macro sheet"}
WORKSHEET = "worksheet"
ENCRYPTED = "a password-protected (encrypted) workbook, which cannot be read"
SAVE_WITHOUT_PASSWORD = ("open it in Excel and save it without a password (File > Info > "
                         "Protect Workbook > Encrypt with Password: clear it)")
LEGACY_XLS = "a legacy Excel workbook (.xls), not a sheet this can read"
# What openpyxl raises on a damaged or malformed workbook.
UNREADABLE = (zipfile.BadZipFile, KeyError, ValueError, TypeError, AttributeError,
              IndexError, ParseError, expat.ExpatError, OSError, EOFError)


@dataclass(frozen=True)
class Limits:
    """What a reader allows a workbook: unpacked bytes and cells, and what to tell the
    user whose workbook passes them (``fix``) or cannot be read at all (``save_as``)."""

    max_bytes: int = MAX_WORKBOOK_BYTES
    max_cells: int = MAX_WORKBOOK_CELLS
    fix: str = "save only the table in the workbook"
    save_as: str = "save the sheet as an Excel workbook (.xlsx)"


@dataclass(frozen=True)
class SheetInfo:
    """One sheet as the workbook lists it: its title, its kind (``worksheet``, ``chart
    sheet``...) and the zip entry of its XML."""

    title: str
    kind: str
    part: str

    def __str__(self) -> str:
        return f"{self.title!r} ({self.kind})"


@dataclass(frozen=True)
class SheetScan:
    """What a scan of a worksheet's XML found: its cells and its merged ranges (as
    ``min_col, min_row, max_col, max_row``, in the file's order)."""

    cells: int
    merged: list[tuple[int, int, int, int]]


def is_encrypted_ooxml(raw: bytes) -> bool:
    """True for a compound file (OLE2) holding an ``EncryptedPackage`` stream: an Office
    Open XML document (.xlsx) saved with a password, as Excel stores one (MS-OFFCRYPTO).
    The name is looked for as a directory entry: 128-byte aligned, its length in bytes
    (with the terminating NUL) at byte 64 of the entry."""
    length = (len(ENCRYPTED_PACKAGE) + 2).to_bytes(2, "little")
    pos = raw.find(ENCRYPTED_PACKAGE)
    while pos != -1:
        if pos % 128 == 0 and raw[pos + 64:pos + 66] == length:
            return True
        pos = raw.find(ENCRYPTED_PACKAGE, pos + 1)
    return False


def compound_file_problem(raw: bytes) -> tuple[str, str] | None:
    """What an OLE2 compound file given as a workbook is, and what to do; None for any
    other file."""
    if not raw.startswith(OLE2_MAGIC):
        return None
    if is_encrypted_ooxml(raw):
        return ENCRYPTED, f"{SAVE_WITHOUT_PASSWORD}, as an Excel workbook (.xlsx)"
    return LEGACY_XLS, "open it in Excel and save it as an Excel workbook (.xlsx)"


def sheet_kind(relationship_type: str) -> str:
    """A sheet's kind from the type of the workbook's relationship to it."""
    last = relationship_type.rstrip("/").rsplit("/", 1)[-1]
    return SHEET_KINDS.get(last, last)


def unreadable(exc: BaseException, name: str, fix: str) -> InputError:
    """A workbook that cannot be read, in one message with openpyxl's reason."""
    return InputError(f"cannot read the workbook ({type(exc).__name__}: {exc})", file=name,
                      fix=fix)


def cell_limit(name: str, limits: Limits, row: int | None) -> InputError:
    """The refusal of a sheet with more than ``limits.max_cells`` cells."""
    return InputError(f"the workbook holds more than {limits.max_cells:,} cells", file=name,
                      row=row, fix=limits.fix)


def merged_bounds(ref: str) -> tuple[int, int, int, int]:
    """A merged range's ``min_col, min_row, max_col, max_row``; a whole row or column
    (``A:B``, ``3:4``) reaches the sheet's last column or row."""
    from openpyxl.utils.cell import range_boundaries

    min_col, min_row, max_col, max_row = range_boundaries(ref)
    return (min_col or 1, min_row or 1, max_col or MAX_ROW_CELLS, max_row or MAX_SHEET_ROWS)


def scan_worksheet(source, name: str, limits: Limits) -> SheetScan:
    """Count the cells of a worksheet's XML (``source``, a binary file) and collect its
    merged ranges, reading it as a stream (expat: nothing is kept but the counts and the
    ranges); more than ``limits.max_cells`` cells or merged ranges, or a row of more cells
    than Excel has columns, are refused (see the module docstring)."""
    cells = in_row = row = 0
    merged: list[tuple[int, int, int, int]] = []
    cell, row_tag, merge = f"{SHEET_NS} c", f"{SHEET_NS} row", f"{SHEET_NS} mergeCell"

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal cells, in_row, row
        if tag == cell:
            cells += 1
            in_row += 1
            if in_row > MAX_ROW_CELLS:
                raise InputError(f"a row holds more than {MAX_ROW_CELLS:,} cells (Excel's "
                                 "columns, A to XFD)", file=name, row=row, fix=limits.fix)
            if cells > limits.max_cells:
                raise cell_limit(name, limits, row)
        elif tag == row_tag:
            in_row = 0
            number = attrs.get("r", "")
            row = int(number) if number.isdigit() and len(number) < 10 else row + 1
        elif tag == merge:
            merged.append(merged_bounds(attrs.get("ref", "")))
            if len(merged) > limits.max_cells:
                raise InputError(f"the workbook holds more than {limits.max_cells:,} merged "
                                 "ranges", file=name, fix=limits.fix)

    parser = expat.ParserCreate(namespace_separator=" ")
    parser.StartElementHandler = start
    parser.ParseFile(source)
    return SheetScan(cells, merged)


class Workbook:
    """An open workbook (see :func:`open_workbook`): its name for messages, its sheets as
    listed, and its cells read on demand within ``limits``."""

    def __init__(self, raw: bytes, name: str, limits: Limits) -> None:
        from openpyxl.reader.excel import ExcelReader

        self.name, self.limits = name, limits
        self.archive = zipfile.ZipFile(io.BytesIO(raw))
        unpacked = sum(info.file_size for info in self.archive.infolist())
        if unpacked > limits.max_bytes:
            raise InputError(f"the workbook unpacks to {size_text(unpacked)}, over the limit "
                             f"of {size_text(limits.max_bytes)}", file=name, fix=limits.fix)
        self._reader = ExcelReader(io.BytesIO(raw), read_only=True, data_only=True,
                                   keep_links=False)
        self._reader.read_manifest()
        self._reader.read_workbook()
        self.sheets = [SheetInfo(sheet.name, sheet_kind(rel.Type), rel.target)
                       for sheet, rel in self._reader.parser.find_sheets()]
        self._scans: dict[str, SheetScan] = {}
        self._book = None

    def sheet(self, title: str | None, fix: str) -> SheetInfo:
        """The worksheet named ``title``, or the first worksheet; a workbook without one,
        or a ``title`` that names no worksheet, is one message listing the sheets and
        their kinds (``fix`` says what to do)."""
        listed = ", ".join(map(str, self.sheets)) or "none"
        worksheets = [s for s in self.sheets if s.kind == WORKSHEET]
        if title is None and not worksheets:
            raise InputError(f"the workbook has no worksheet (sheets: {listed})",
                             file=self.name, fix=fix)
        if title is None:
            return worksheets[0]
        found = next((s for s in self.sheets if s.title == title), None)
        if found is None:
            raise InputError(f"no sheet {title!r} (sheets: {listed})", file=self.name, fix=fix)
        if found.kind != WORKSHEET:
            raise InputError(f"sheet {title!r} is a {found.kind}, not a worksheet (sheets: "
                             f"{listed})", file=self.name, fix=fix)
        return found

    def scan(self, sheet: SheetInfo) -> SheetScan:
        """The cells and merged ranges of ``sheet`` (:func:`scan_worksheet`), scanned
        once."""
        if sheet.part not in self._scans:
            try:
                with self.archive.open(sheet.part) as source:
                    self._scans[sheet.part] = scan_worksheet(source, self.name, self.limits)
            except KeyError as exc:
                raise InputError(f"the workbook lists the sheet {sheet.title!r} without its "
                                 f"data ({sheet.part})", file=self.name,
                                 fix=self.limits.save_as) from exc
        return self._scans[sheet.part]

    def rows(self, sheet: SheetInfo) -> Iterator[tuple[int, tuple]]:
        """The rows of ``sheet`` as (row number, openpyxl's read-only cells), from row 1 to
        the last row the file holds (its declared dimension is not trusted), an empty row
        as ``()``. Its XML is scanned first (:meth:`scan`); every row counts its cells, at
        least one, against the limit (rows the file skips come back empty, and count)."""
        self.scan(sheet)
        if self._book is None:
            self._reader.read()
            self._book = self._reader.wb
        worksheet = self._book[sheet.title]
        worksheet.reset_dimensions()
        cells = 0
        for number, row in enumerate(worksheet.iter_rows(), 1):
            cells += max(len(row), 1)
            if cells > self.limits.max_cells:
                raise cell_limit(self.name, self.limits, number)
            yield number, row

    def close(self) -> None:
        if self._book is not None:
            self._book.close()
        self._reader.archive.close()
        self.archive.close()


def read_workbook_file(path: Path, name: str, limits: Limits) -> bytes:
    """The bytes of the workbook file ``path``; a file larger than ``limits.max_bytes`` is
    refused before it is read. OSError (a missing file...) is the caller's to word."""
    size = path.stat().st_size
    if size > limits.max_bytes:
        raise InputError(f"the file is {size_text(size)}, over the limit of "
                         f"{size_text(limits.max_bytes)} for a workbook", file=name,
                         fix=limits.fix)
    return path.read_bytes()


@contextmanager
def open_workbook(raw: bytes, name: str, limits: Limits) -> Iterator[Workbook]:
    """The workbook of the file content ``raw`` (``name`` names it in messages), closed on
    leaving; what cannot be read, also while the caller reads rows inside the ``with``
    block, is one :class:`InputError` naming the file."""
    problem = compound_file_problem(raw)
    if problem:
        raise InputError(problem[0], file=name, fix=problem[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # openpyxl's notes on parts it does not read
        try:
            book = Workbook(raw, name, limits)
        except zipfile.BadZipFile as exc:
            raise InputError(f"not a readable .xlsx workbook ({exc})", file=name,
                             fix=limits.save_as) from exc
        except UNREADABLE as exc:
            raise unreadable(exc, name, limits.save_as) from exc
        try:
            yield book
        except UNREADABLE as exc:
            raise unreadable(exc, name, limits.save_as) from exc
        finally:
            book.close()
