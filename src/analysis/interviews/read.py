"""Reading the three interview files of the release, as they are, for the stage to clean.

``CodeBook.csv`` (one row per participant: the codes of the interviews), ``Interviewee
Background.xlsx`` (one row per participant: role, gender, experience, responsibilities)
and ``Interview GuideLine.md`` (the protocol). Reading does not judge the content: the two
text files are decoded (their BOM and line endings kept as quirks for the quality report)
and the workbook's cells are read with merged ranges filled. A file that cannot be read at
all stops the stage with one clear :class:`~analysis.core.errors.InputError`.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import openpyxl
from openpyxl.utils.exceptions import InvalidFileException

from analysis.core.dump import Quirk, decode
from analysis.core.errors import InputError
from analysis.core.paths import PATHS

# The release's own file names (analysis.core.paths names them in the raw folder).
CODEBOOK_FILE = PATHS.raw_codebook.name
BACKGROUND_FILE = PATHS.raw_background.name
GUIDELINE_FILE = PATHS.raw_guideline.name


@dataclass(frozen=True)
class TextFile:
    """A decoded text file: its name (as anomalies cite it), text, and decoding quirks."""

    name: str
    text: str
    quirks: list[Quirk] = field(default_factory=list)


@dataclass(frozen=True)
class Sheet:
    """The cells of one worksheet, merged ranges filled from their first cell.

    Row r of the sheet (1-based) is ``rows[r - 1]``, column c is ``rows[r - 1][c - 1]``;
    ``filled`` lists the (row, column) cells that were empty inside a merged range and took
    its first cell's value; ``others`` are the workbook's sheets not read.
    """

    name: str  # the file's name
    title: str  # the sheet's name
    rows: list[list[object]]
    filled: set[tuple[int, int]] = field(default_factory=set)
    others: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class InterviewFiles:
    """The three interview files, read: what the stage's computation starts from."""

    codebook: TextFile
    background: Sheet
    guideline: TextFile | None = None  # None: no guideline (its views stay empty)


def read_text_file(path: str | Path, fix: str) -> TextFile:
    """Read and decode a UTF-8 text file; a missing or undecodable file is an InputError."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError("file not found", file=str(path), fix=fix) from exc
    text, quirks = decode(raw, path.name)
    return TextFile(path.name, text, quirks)


def read_sheet(path: str | Path, sheet: str | None = None) -> Sheet:
    """The cells of one sheet of an .xlsx workbook (the first unless ``sheet`` names one).

    Why fill merged ranges here: a merged cell is one value spread over several rows (the
    release merges the responsibilities of participants with the same role); openpyxl
    gives it to the first cell only. The cleaner reports every filled cell.
    """
    path = Path(path)
    try:
        wb = openpyxl.load_workbook(path, data_only=True)
    except FileNotFoundError as exc:
        raise InputError("file not found", file=str(path),
                         fix="run the ingest stage, or check interviews.background") from exc
    except (InvalidFileException, zipfile.BadZipFile, KeyError, OSError) as exc:
        raise InputError(f"not a readable .xlsx workbook ({exc})", file=str(path),
                         fix="save the background sheet as an Excel .xlsx workbook") from exc
    if sheet is not None and sheet not in wb.sheetnames:
        raise InputError(f"no sheet {sheet!r} (sheets: {', '.join(wb.sheetnames)})",
                         file=str(path), fix="set interviews.sheet to one of them, or null")
    ws = wb[sheet] if sheet is not None else wb.worksheets[0]
    # from A1, so that list positions are sheet rows and columns even above blank rows
    rows = [list(r) for r in ws.iter_rows(min_row=1, min_col=1, max_row=ws.max_row,
                                           max_col=ws.max_column, values_only=True)]
    filled: set[tuple[int, int]] = set()
    for rng in sorted(ws.merged_cells.ranges, key=lambda r: (r.min_row, r.min_col)):
        first = rows[rng.min_row - 1][rng.min_col - 1] if rng.min_row <= len(rows) else None
        for r in range(rng.min_row, rng.max_row + 1):
            for c in range(rng.min_col, rng.max_col + 1):
                if (r, c) == (rng.min_row, rng.min_col) or r > len(rows):
                    continue
                if rows[r - 1][c - 1] in (None, ""):
                    rows[r - 1][c - 1] = first
                    filled.add((r, c))
    others = [n for n in wb.sheetnames if n != ws.title]
    return Sheet(path.name, ws.title, rows, filled, others)


def read_interviews(codebook: str | Path, background: str | Path,
                    guideline: str | Path | None = None, sheet: str | None = None
                    ) -> InterviewFiles:
    """Read the codebook, the background workbook (``sheet``: params ``interviews.sheet``)
    and, if given, the guideline."""
    return InterviewFiles(
        read_text_file(codebook, "run the ingest stage, or check interviews.codebook"),
        read_sheet(background, sheet),
        None if guideline is None else read_text_file(
            guideline, "run the ingest stage, or check the guideline path"))


def read_release(raw: Path, sheet: str | None = None) -> InterviewFiles:
    """The interview files of the release in the raw folder ``raw`` (``Paths.raw``, or a
    folder in the upstream layout)."""
    return read_interviews(raw / CODEBOOK_FILE, raw / BACKGROUND_FILE, raw / GUIDELINE_FILE,
                           sheet)
