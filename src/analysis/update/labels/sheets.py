"""Labelling sheets: one blank sheet per annotator, written for a spreadsheet program.

A sheet (``<out>/sheets/annotator_<name>.csv``, or ``.xlsx`` with ``--format xlsx``; for
annotators given by number, ``annotator_<k>``) has one row a candidate and the columns

    project     the project folder the candidate belongs to (do not edit)
    url         the issue's URL, the key that joins the sheets (a link in a workbook)
    created_at  when the issue was opened, as the export gave it (do not edit)
    title       the issue's title, as last seen by select
    body        the start of its description (:data:`SHEET_BODY_CHARS`, on one line)
    labels      its GitHub (or Gitee) labels
    keywords    the study's keywords it matched (its project's filter)
    label       the annotator's answer: a theme code (A.1 ... C.10 of data/taxonomy.yaml,
                defined in the codebook), ``excluded`` or ``unsure``
    excluded    ``x`` (or yes/true/1) for a false positive (Section III.A); a label is
                then optional (writing ``excluded`` as the label is the same)
    confidence  optional: low, medium or high
    minutes     optional: the time spent on the report
    comment     free text
    annotator   the annotator's name (``#k`` for annotators given by number; do not edit)
    selection   the selection's identifier, the same on every row (do not edit): the
                merge refuses sheets of different selections

Each annotator gets the candidates in an order of their own, shuffled with a seed
(``--seed``; ``--seed none`` keeps the selection's order), so that no report is always
labelled first or tired; the record (``sheets/sheets.json``) keeps the seed, and the
digest of each sheet's order. The merge joins rows on the URL, never on their order.

Written for spreadsheet programs: a CSV is UTF-8 with a byte-order mark, CRLF line endings
and every cell a spreadsheet would run as a formula neutralised
(:func:`analysis.update.labels.tables.spreadsheet_csv`); the codebook goes beside it
(``sheets/codebook.csv``: :mod:`analysis.update.labels.codebook`). A workbook (``.xlsx``) holds
every cell as text, the URL as a link, drop-downs of the allowed values in ``label``,
``excluded`` and ``confidence`` (a number of at least 0 in ``minutes``), a frozen header
row with a filter, column widths, the columns not to be edited locked (the sheet is
protected without a password, the answer columns unlocked) and a Codebook tab. The same
candidates give the same bytes (the workbook's times and zip dates are fixed).

Sheets are added to a folder that holds sheets of the same selection: a team labels in
CSV and ``.xlsx`` side by side (``sheets --annotators chen --format xlsx`` beside
``alice`` and ``bob``'s CSV sheets); a sheet already written is replaced only with
``--force``, which replaces the folder whole.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import atomic_folder, to_json_text
from analysis.core.dates import date_problem
from analysis.core.errors import InputError
from analysis.core.paths import SheetPaths
from analysis.core.people import NAME_FIX, name_problem, normal_name
from analysis.core.textsafe import marker, neutralise_cell
from analysis.core.urls import url_problem
from analysis.update.labels.codebook import CONFIDENCE, EXCLUDED, UNSURE, Codebook
from analysis.update.labels.tables import csv_bytes
from analysis.update.select.engine import selection_id

SHEET_COLUMNS = ["project", "url", "created_at", "title", "body", "labels", "keywords",
                 "label", "excluded", "confidence", "minutes", "comment", "annotator",
                 "selection"]
ANSWER_COLUMNS = ["label", "excluded", "confidence", "minutes", "comment"]
REQUIRED_COLUMNS = ["project", "url", "created_at", "label", "excluded", "selection"]
CANDIDATE_COLUMNS = ["project", "url", "created_at", "title"]
OPTIONAL_CANDIDATE_COLUMNS = ["body", "labels", "keywords_title", "keywords_body"]
FORMATS = ("csv", "xlsx")
# The start of an issue's body a sheet shows, on one line: what a spreadsheet cell shows
# of it without a row growing to a page (the candidates keep 4,000 characters; the link
# opens the whole issue).
SHEET_BODY_CHARS = 300
DEFAULT_SEED = 1
NAME_RE = re.compile(r"[^\W_][\w.-]{0,39}")
ANONYMOUS_RE = re.compile(r"#[1-9][0-9]*")
# A workbook's zip entries and document times, fixed so that the same sheet is the same
# bytes (openpyxl stamps the time of saving).
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
CORE_TIME_RE = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")
WIDTHS = {"project": 12, "url": 44, "created_at": 21, "title": 48, "body": 60, "labels": 16,
          "keywords": 14, "label": 30, "excluded": 9, "confidence": 11, "minutes": 9,
          "comment": 36, "annotator": 12, "selection": 17}
CODEBOOK_WIDTHS = {"code": 9, "level": 9, "type": 12, "name": 40, "definition": 60,
                   "details": 80, "examples": 40}


def parse_team(text: str) -> list[str]:
    """The annotators of ``--annotators``: a number (``3``: annotators ``#1`` ... ``#3``,
    people not named) or names separated by commas (``alice,bob,chen``: letters, digits,
    ``.``, ``_`` and ``-``, each once, read in NFKC form; one mixing scripts is refused:
    :mod:`analysis.core.people`). A name is the annotator's identity across batches:
    ``labels extend`` gives the same person the same label column."""
    text = text.strip()
    if text.isdigit():
        n = int(text)
        if n < 1:
            raise InputError("the number of annotators must be at least 1",
                             column="--annotators", fix="give one sheet per annotator")
        return [f"#{k}" for k in range(1, n + 1)]
    names = [normal_name(n) for n in text.split(",")]
    bad = [n for n in names if not NAME_RE.fullmatch(n)]
    if bad:
        raise InputError(f"{bad[0]!r} is not an annotator's name", column="--annotators",
                         fix="give a number, or names of letters, digits, '.', '_' and '-' "
                             "separated by commas (alice,bob,chen)")
    mixed = next((p for p in map(name_problem, names) if p), None)
    if mixed:
        raise InputError(mixed, column="--annotators", fix=NAME_FIX)
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"{twice[0]!r} is named twice", column="--annotators",
                         fix="name each annotator once")
    return names


def file_stem(annotator: str) -> str:
    """The part of a sheet's file name that names its annotator (``#2`` -> ``2``)."""
    return annotator.removeprefix("#")


def check_candidates(candidates: pd.DataFrame) -> pd.DataFrame:
    """The candidates as text (the optional columns empty when absent), refusing a frame
    without the columns a sheet needs or with a (project, url) pair twice (the merge
    joins on it)."""
    missing = [c for c in CANDIDATE_COLUMNS if c not in candidates.columns]
    if missing:
        raise InputError(f"candidates lack the column(s) {', '.join(missing)}",
                         fix="give project, url, created_at and title for every candidate")
    columns = CANDIDATE_COLUMNS + [c for c in OPTIONAL_CANDIDATE_COLUMNS
                                   if c in candidates.columns]
    frame = candidates[columns].astype(object).where(candidates[columns].notna(), "")
    frame = frame.astype(str).reset_index(drop=True)
    for column in OPTIONAL_CANDIDATE_COLUMNS:
        if column not in frame:
            frame[column] = ""
    for i, (url, created) in enumerate(zip(frame["url"], frame["created_at"], strict=True)):
        why = url_problem(url.strip())
        if why is None and (when := date_problem(created)) is not None:
            why = f"{url.strip()}: the creation date {when}"
        if why is not None:
            raise InputError(f"candidate {i + 1}: {why}", row=i + 1,
                             fix="give the candidates.csv select wrote (select sets such "
                                 "issues aside)")
    dup = frame.duplicated(["project", "url"], keep="first")
    if dup.any():
        first = frame[dup].iloc[0]
        raise InputError(f"candidate {first['url']} of {first['project']} is listed twice",
                         row=int(frame.index[dup][0]) + 1,
                         fix="list each candidate once per project")
    return frame


def one_line(text: str, limit: int = SHEET_BODY_CHARS) -> str:
    """``text`` on one line (runs of white space as one space), cut to ``limit``
    characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


def keywords_cell(row: pd.Series) -> str:
    """The keywords a candidate matched in its title or body, each once."""
    found = [k for cell in (row["keywords_title"], row["keywords_body"])
             for k in cell.split(";") if k]
    return ";".join(dict.fromkeys(found))


def row_order(n: int, seed: int | None, annotator: str) -> list[int]:
    """The order annotator ``annotator`` gets ``n`` candidates in: shuffled by a generator
    seeded with the seed and the annotator (the same for the same both, on any machine),
    or the selection's order without a seed."""
    order = list(range(n))
    if seed is not None:
        random.Random(f"{seed}/{annotator}").shuffle(order)
    return order


def sheet_cells(candidates: pd.DataFrame, sel: str, annotator: str,
                order: list[int]) -> list[list[str]]:
    """The rows of one annotator's blank sheet (header first), every cell neutralised."""
    rows = [SHEET_COLUMNS]
    for i in order:
        rec = candidates.iloc[i]
        cells = [rec["project"], rec["url"], rec["created_at"], rec["title"],
                 one_line(rec["body"]), rec["labels"], keywords_cell(rec), "", "", "", "",
                 "", annotator, sel]
        rows.append([neutralise_cell(c) for c in cells])
    return rows


def order_digest(candidates: pd.DataFrame, order: list[int]) -> str:
    """The SHA-256 of a sheet's row order (its URLs, one a line)."""
    lines = "".join(f"{candidates['url'].iloc[i]}\n" for i in order)
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


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


def column_letter(columns: list[str], name: str) -> str:
    from openpyxl.utils import get_column_letter

    return get_column_letter(columns.index(name) + 1)


def list_validation(values: list[str], title: str, prompt: str):
    """A drop-down of ``values`` for a column (an error on anything else, a blank
    allowed)."""
    from openpyxl.worksheet.datavalidation import DataValidation

    return DataValidation(type="list", formula1='"' + ",".join(values) + '"',
                          allow_blank=True, showErrorMessage=True, showInputMessage=True,
                          errorTitle=title, error=f"Choose one of: {', '.join(values)}",
                          promptTitle=title, prompt=prompt[:255])


CHOICES_TAB = "Choices"  # a hidden worksheet: the label column's drop-down


def label_choices(codes: list[str], codebook: Codebook | None) -> list[str]:
    """The label column's drop-down: each theme code with its name (``A.1 Unclear
    Installation Guidance``: the merge reads the code, :func:`~analysis.update.labels.
    annotations.normalise_code`), then ``excluded`` and ``unsure``."""
    named = {e.code: e.name for e in codebook.entries} if codebook else {}
    return [f"{code} {named[code]}" if named.get(code) else code for code in codes] + [
        EXCLUDED, UNSURE]


def range_validation(source: str, count: int, title: str, prompt: str):
    """A drop-down of the ``count`` values of column A of the worksheet ``source`` (a list
    longer than the 255 characters a list written in the rule may hold)."""
    from openpyxl.worksheet.datavalidation import DataValidation

    return DataValidation(type="list", formula1=f"'{source}'!$A$1:$A${count}",
                          allow_blank=True, showErrorMessage=True, showInputMessage=True,
                          errorTitle=title, error="Choose a theme of the list, excluded or "
                          "unsure", promptTitle=title, prompt=prompt[:255])


def answer_validations(codes: list[str], codebook: Codebook | None) -> dict:
    """Column -> the validation of an answer column of a workbook sheet."""
    from openpyxl.worksheet.datavalidation import DataValidation

    guide = {e.code: e.definition for e in codebook.entries} if codebook else {}
    minutes = DataValidation(type="decimal", operator="greaterThanOrEqual", formula1="0",
                             allow_blank=True, showErrorMessage=True, errorTitle="minutes",
                             error="A number of minutes (0 or more)")
    return {
        "label": range_validation(CHOICES_TAB, len(label_choices(codes, codebook)), "label",
                                  "A theme (see the Codebook tab), excluded or unsure. "
                                  + guide.get(UNSURE, "")),
        "excluded": list_validation(["x"], "excluded", guide.get(EXCLUDED, "")),
        "confidence": list_validation(list(CONFIDENCE), "confidence", "low, medium or high"),
        "minutes": minutes,
    }


LINE_POINTS = 15  # the height of a line of text in a row, in points
MOST_LINES = 14   # a wrapped row shows at most this many lines (the cell holds the rest)


def wrapped_lines(text: str, width: int) -> int:
    """About how many lines ``text`` takes in a cell ``width`` characters wide, wrapped."""
    return sum(max(1, -(-len(part) // max(width - 2, 1))) for part in text.split("\n"))


def style_sheet(sheet, rows: list[list[str]], widths: dict[str, int], unlocked: list[str],
                wrap: tuple[str, ...] = ()) -> None:
    """Header bold and frozen with a filter, column widths, every cell text, the
    ``unlocked`` columns editable in a sheet protected without a password."""
    from openpyxl.styles import Alignment, Font, PatternFill, Protection

    columns = rows[0]
    for cell in sheet[1]:
        cell.font = Font(bold=True)
        cell.fill = PatternFill("solid", fgColor="DDEBF7")
    sheet.freeze_panes = "A2"
    last = column_letter(columns, columns[-1])
    sheet.auto_filter.ref = f"A1:{last}{len(rows)}"
    for name in columns:
        sheet.column_dimensions[column_letter(columns, name)].width = widths.get(name, 12)
    for row in sheet.iter_rows(min_row=1, max_row=len(rows)):
        for cell in row:
            cell.number_format = "@"
            name = columns[cell.column - 1]
            if cell.row > 1 and name in unlocked:
                cell.protection = Protection(locked=False)
            if cell.row > 1 and wrap:  # rows of wrapped text read from their top
                cell.alignment = Alignment(wrap_text=name in wrap, vertical="top")
    if wrap:  # a spreadsheet program keeps the stored heights: the wrapped text's own
        for number, row in enumerate(rows[1:], 2):
            lines = max(wrapped_lines(str(row[columns.index(name)]), widths.get(name, 12))
                        for name in wrap)
            sheet.row_dimensions[number].height = LINE_POINTS * min(lines, MOST_LINES)
    sheet.page_setup.orientation = "landscape"  # printed or shown as pages: one page wide
    sheet.page_setup.fitToWidth, sheet.page_setup.fitToHeight = 1, 0
    sheet.sheet_properties.pageSetUpPr.fitToPage = True
    sheet.print_title_rows = "1:1"
    protection = sheet.protection
    protection.sheet = True
    protection.formatColumns = protection.formatRows = False  # widths and heights
    protection.autoFilter = protection.sort = False


def workbook_text(cell: object) -> object:
    """A cell as a worksheet can hold it: the control characters the workbook format
    cannot (C0 controls but tab, line feed and carriage return; openpyxl refuses them)
    shown as markers (``⟨U+0001⟩``: :func:`~analysis.core.textsafe.marker`)."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    if not isinstance(cell, str) or not ILLEGAL_CHARACTERS_RE.search(cell):
        return cell
    return ILLEGAL_CHARACTERS_RE.sub(lambda m: marker(m.group()), cell)


def workbook_bytes(rows: list[list[str]], codes: list[str],
                   codebook: Codebook | None = None, title: str = "labels") -> bytes:
    """A sheet as an Excel workbook (see the module docstring), the codebook on a second
    worksheet."""
    import openpyxl
    from openpyxl.styles import Font

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append([workbook_text(c) for c in row])
    style_sheet(sheet, rows, WIDTHS, ANSWER_COLUMNS, wrap=("body",))
    url = column_letter(rows[0], "url")
    for cell in sheet[url][1:]:
        if re.match(r"https?://", str(cell.value or "")):
            cell.hyperlink = cell.value
            cell.font = Font(color="0563C1", underline="single")
    for name, validation in answer_validations(codes, codebook).items():
        if name in rows[0] and len(rows) > 1:
            letter = column_letter(rows[0], name)
            validation.add(f"{letter}2:{letter}{len(rows)}")
            sheet.add_data_validation(validation)
    if codebook is not None:
        tab = book.create_sheet("Codebook")
        book_rows = [[neutralise_cell(c) for c in r] for r in codebook.rows()]
        for row in book_rows:
            tab.append(row)
        style_sheet(tab, book_rows, CODEBOOK_WIDTHS, [], wrap=("definition", "details"))
    choices = book.create_sheet(CHOICES_TAB)
    for value in label_choices(codes, codebook):
        choices.append([value])
    choices.sheet_state = "hidden"
    out = io.BytesIO()
    book.save(out)
    return fixed_zip(out.getvalue())


@dataclass(frozen=True)
class SheetPlan:
    """One sheet to write: its annotator, file, format and row order."""

    annotator: str
    path: Path
    fmt: str
    order: list[int]


def earlier_record(paths: SheetPaths, sel: str, force: bool) -> dict | None:
    """The record of the sheets already in the folder, to add to (None: a new folder, or
    ``force``); sheets of another selection, or a folder without a record, are refused
    (their labels would be lost or mixed)."""
    folder = paths.folder
    if force or not folder.is_dir() or not any(folder.iterdir()):
        return None
    try:
        record = json.loads(paths.record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    if not isinstance(record, dict) or not isinstance(record.get("annotators"), list):
        raise InputError("the folder already holds sheets (they may hold labels)",
                         file=str(folder), fix="choose another --out, or pass --force")
    if record.get("selection") != sel:
        raise InputError(f"the folder holds sheets of another selection "
                         f"({record.get('selection')}; these candidates are {sel})",
                         file=str(folder), fix="choose another --out, or pass --force "
                                               "to replace them (they may hold labels)")
    return record


def plan_sheets(paths: SheetPaths, team: list[str], fmt: str, n: int, seed: int | None,
                earlier: dict | None) -> list[SheetPlan]:
    """The sheets to write; one that exists already is refused (it may hold labels)."""
    plans = [SheetPlan(a, paths.sheet(file_stem(a), fmt), fmt, row_order(n, seed, a))
             for a in team]
    there = [p.path for p in plans if p.path.exists()] if earlier is not None else []
    if there:
        raise InputError(f"{there[0].name} is already written (it may hold labels)",
                         file=str(paths.folder), fix="pass --force to replace every sheet "
                         "of the folder, or write the sheets of other annotators")
    return plans


def sheets_record(earlier: dict | None, plans: list[SheetPlan], frame: pd.DataFrame,
                  sel: str, seed: int | None, data: dict[Path, bytes],
                  codebook: Codebook | None) -> dict:
    """The folder's record: the selection, the seed, each annotator's sheets (file,
    format, SHA-256 of the blank sheet, digest of its row order)."""
    annotators = {a["annotator"]: a for a in (earlier or {}).get("annotators", [])}
    for plan in plans:
        entry = annotators.setdefault(plan.annotator, {"annotator": plan.annotator,
                                                       "sheets": []})
        entry["sheets"].append({"file": plan.path.name, "format": plan.fmt,
                                "sha256": hashlib.sha256(data[plan.path]).hexdigest(),
                                "seed": seed,
                                "order_sha256": order_digest(frame, plan.order)})
    return {"selection": sel, "candidates": len(frame),
            "order": ("each annotator's own, shuffled with the seed and the annotator's "
                      "name (random.Random(f'{seed}/{annotator}'))" if seed is not None
                      else "the selection's"),
            "annotators": list(annotators.values()),
            "codebook": codebook.record if codebook else None}


def write_blank_sheets(out: Path, candidates: pd.DataFrame, team: list[str] | int,
                       codebook: Codebook | None = None, fmt: str = "csv",
                       seed: int | None = DEFAULT_SEED, force: bool = False) -> list[Path]:
    """Write one blank sheet per annotator of ``team`` (names, or a number) into
    ``<out>/sheets/``, the codebook and the record beside them; return the sheets'
    paths. The folder is written whole, aside, and replaces the earlier one (whose sheets
    it keeps, unless ``force``).

    ``candidates`` has at least the columns project, url, created_at, title (and, as
    select writes them, body, labels and the keywords matched). No candidates is a user
    error: there is nothing to label.
    """
    team = parse_team(str(team)) if isinstance(team, int) else team
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}",
                         column="--format", fix="write --format csv or --format xlsx")
    frame = check_candidates(candidates)
    if frame.empty:
        raise InputError("no candidates: there is nothing to label",
                         fix="select again with another window or inputs (select says "
                             "what it read and skipped in selection/selection.json)")
    sel = selection_id(frame)
    paths = SheetPaths(Path(out))
    earlier = earlier_record(paths, sel, force)
    plans = plan_sheets(paths, team, fmt, len(frame), seed, earlier)
    codes = codebook.theme_codes if codebook else []
    data = {}
    for plan in plans:
        rows = sheet_cells(frame, sel, plan.annotator, plan.order)
        data[plan.path] = csv_bytes(rows) if fmt == "csv" else workbook_bytes(rows, codes,
                                                                              codebook)
    record = sheets_record(earlier, plans, frame, sel, seed, data, codebook)
    with atomic_folder(paths.folder, public=False) as staged:
        if earlier is not None:
            for old in sorted(paths.folder.iterdir()):
                if old.is_file() and old.name not in (paths.record.name,
                                                      paths.codebook.name):
                    (staged / old.name).write_bytes(old.read_bytes())
        for path, blob in data.items():
            (staged / path.name).write_bytes(blob)
        if codebook is not None:
            (staged / paths.codebook.name).write_bytes(csv_bytes(
                [[neutralise_cell(c) for c in r] for r in codebook.rows()]))
        (staged / paths.record.name).write_text(to_json_text(record), encoding="utf-8")
    return [plan.path for plan in plans]
