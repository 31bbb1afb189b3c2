"""Reading the three interview files of the release, as they are, for the stage to clean.

``CodeBook.csv`` (one row per participant: the codes of the interviews), ``Interviewee
Background.xlsx`` (one row per participant: role, gender, experience, responsibilities)
and ``Interview GuideLine.md`` (the protocol). Reading does not judge the content: the two
text files are decoded (their BOM and line endings kept as quirks for the quality report)
and the workbook's cells are read with merged ranges filled. A file that cannot be read at
all stops the stage with one clear :class:`~analysis.core.errors.InputError`.

The workbook is untrusted like the rest of the dump: it is opened within the limits the
labelling sheets have (:mod:`analysis.core.workbooks`), and only the rows and columns up
to the last that hold a value make the sheet (:func:`read_sheet`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from openpyxl.utils.cell import get_column_letter

from analysis.core.dump import Quirk, decode
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.core.workbooks import Limits, open_workbook, read_workbook_file

# The release's own file names (analysis.core.paths names them in the raw folder).
CODEBOOK_FILE = PATHS.raw_codebook.name
BACKGROUND_FILE = PATHS.raw_background.name
GUIDELINE_FILE = PATHS.raw_guideline.name
BACKGROUND_LIMITS = Limits(fix="save the background table alone in the workbook",
                           save_as="save the background sheet as an Excel .xlsx workbook")
SHEET_FIX = "set interviews.sheet to the worksheet of the background table, or null"
NO_WORKSHEET_FIX = ("give the background table on a worksheet (a chart sheet holds no "
                    "cells) and save the workbook as .xlsx")
Bounds = tuple[int, int, int, int]  # min_col, min_row, max_col, max_row (from 1)


@dataclass(frozen=True)
class TextFile:
    """A decoded text file: its name (as anomalies cite it), text, and decoding quirks."""

    name: str
    text: str
    quirks: list[Quirk]


@dataclass(frozen=True)
class Sheet:
    """The cells of one worksheet, merged ranges filled from their first cell.

    Row r of the sheet (1-based) is ``rows[r - 1]``, column c is ``rows[r - 1][c - 1]``,
    up to the last row and column holding a value; ``filled`` lists the (row, column)
    cells that were empty inside a merged range and took its first cell's value;
    ``others`` are the workbook's sheets not read; ``quirks`` the merged ranges that
    reached past the rows and columns holding values, clipped to them.
    """

    name: str  # the file's name
    title: str  # the sheet's name
    rows: list[list[object]]
    filled: set[tuple[int, int]]
    others: list[str]
    quirks: list[Quirk]


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


def data_extent(rows: list[tuple]) -> tuple[int, int]:
    """The last row and the last column (from 1) of ``rows`` that hold a value (neither
    empty nor ``""``); (0, 0) for rows holding none. Cells that are only formatted do not
    count: Excel writes them wherever a format was applied."""
    height = width = 0
    for number, row in enumerate(rows, 1):
        last = next((i for i in range(len(row), 0, -1) if row[i - 1] not in (None, "")), 0)
        if last:
            height, width = number, max(width, last)
    return height, width


def range_text(bounds: Bounds) -> str:
    """A range as Excel writes it: ``D6:D9``."""
    min_col, min_row, max_col, max_row = bounds
    return f"{get_column_letter(min_col)}{min_row}:{get_column_letter(max_col)}{max_row}"


def clip_quirk(bounds: Bounds, height: int, width: int, name: str) -> Quirk:
    """The report of a merged range clipped to the sheet's ``height`` rows and ``width``
    columns holding values: the rows or columns it reached past hold none, so they are
    not read (the rules of empty rows and unused columns)."""
    min_col, min_row, max_col, max_row = bounds
    past = []
    if max_row > height:
        past.append(f"rows {max(min_row, height + 1):,}-{max_row:,}")
    if max_col > width:
        past.append(f"columns {get_column_letter(max(min_col, width + 1))}-"
                    f"{get_column_letter(max_col)}")
    data = range_text((1, 1, width, height)) if height and width else "none"
    message = (f"merged range {range_text(bounds)} reaches past the cells holding values "
               f"({data}): its {' and '.join(past)} hold none and are not read")
    if max_row > height:
        return Quirk("blank_row", name, message, max(min_row, height + 1),
                     value=range_text(bounds))
    return Quirk("extra_column", name, message, min_row, value=range_text(bounds))


def fill_merged(rows: list[list[object]], merged: list[Bounds], max_cells: int, name: str
                ) -> tuple[set[tuple[int, int]], list[Bounds]]:
    """Fill the merged ranges of a sheet in place: every cell of a range but its first
    takes the first cell's value. Return the cells filled (row, column) and the ranges
    that reached past ``rows`` (clipped to them: never filled past the data).

    As openpyxl does when it loads a workbook for editing, the other cells of a range are
    blanked first, in the file's order (a merged cell holds nothing of its own), then the
    ranges are filled from the top left. Ranges covering more than ``max_cells`` cells in
    all (they may overlap) are refused.
    """
    height = len(rows)
    width = len(rows[0]) if rows else 0
    inside: list[Bounds] = []
    clipped: list[Bounds] = []
    covered = 0
    for bounds in dict.fromkeys(merged):  # a range listed twice is one range
        min_col, min_row, max_col, max_row = bounds
        kept = (min_col, min_row, min(max_col, width), min(max_row, height))
        if kept != bounds:
            clipped.append(bounds)
        if kept[0] > kept[2] or kept[1] > kept[3]:
            continue  # wholly past the data
        covered += (kept[2] - kept[0] + 1) * (kept[3] - kept[1] + 1)
        if covered > max_cells:
            raise InputError(f"the merged ranges cover more than {max_cells:,} cells",
                             file=name, fix=BACKGROUND_LIMITS.fix)
        inside.append(kept)
        for r in range(kept[1], kept[3] + 1):
            for c in range(kept[0], kept[2] + 1):
                if (r, c) != (kept[1], kept[0]):
                    rows[r - 1][c - 1] = None
    filled: set[tuple[int, int]] = set()
    for min_col, min_row, max_col, max_row in sorted(inside, key=lambda b: (b[1], b[0])):
        first = rows[min_row - 1][min_col - 1]
        for r in range(min_row, max_row + 1):
            for c in range(min_col, max_col + 1):
                if (r, c) != (min_row, min_col) and rows[r - 1][c - 1] in (None, ""):
                    rows[r - 1][c - 1] = first
                    filled.add((r, c))
    return filled, clipped


def read_sheet(path: str | Path, sheet: str | None = None) -> Sheet:
    """The cells of one worksheet of an .xlsx workbook (the first unless ``sheet`` names
    one), from A1 to the last row and column holding a value.

    Why fill merged ranges here: a merged cell is one value spread over several rows (the
    release merges the responsibilities of participants with the same role); the file
    holds it in the first cell only. The cleaner reports every filled cell.
    """
    path = Path(path)
    name, limits = str(path), BACKGROUND_LIMITS
    try:
        raw = read_workbook_file(path, name, limits)
    except FileNotFoundError as exc:
        raise InputError("file not found", file=name,
                         fix="run the ingest stage, or check interviews.background") from exc
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", file=name,
                         fix="check the file and its permissions") from exc
    with open_workbook(raw, name, limits) as book:
        info = book.sheet(sheet, SHEET_FIX if sheet is not None else NO_WORKSHEET_FIX)
        merged = book.scan(info).merged
        values = [tuple(cell.value for cell in row) for _, row in book.rows(info)]
        others = [s.title for s in book.sheets if s.title != info.title]
    height, width = data_extent(values)
    if height * width > limits.max_cells:
        raise InputError(f"the cells holding values span {range_text((1, 1, width, height))} "
                         f"({height * width:,} cells), more than the limit of "
                         f"{limits.max_cells:,}", file=name,
                         fix="delete the values outside the table (far below or right of "
                             "it) and save the workbook again")
    # from A1, so that list positions are sheet rows and columns even above blank rows
    rows = [list(row[:width]) + [None] * (width - len(row[:width])) for row in values[:height]]
    del values
    filled, clipped = fill_merged(rows, merged, limits.max_cells, name)
    quirks = [clip_quirk(bounds, height, width, path.name) for bounds in clipped]
    return Sheet(path.name, info.title, rows, filled, others, quirks)


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
