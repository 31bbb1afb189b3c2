"""The readers of the merge's inputs: each turns one file into the table of annotations
(:mod:`analysis.update.labels.annotations`).

- a filled sheet (:func:`read_sheet`; CSV or ``.xlsx``, however a spreadsheet program
  saved it: :func:`analysis.update.labels.tables.read_table`): one annotator, named by the
  sheet's ``annotator`` column (a sheet of an earlier version, without one, is annotator
  ``#k`` by its place among the inputs). Its rows are checked
  (:func:`analysis.update.labels.checks.row_problems`). A label written in lower case (``c.3``)
  is read as its code, and the note names the lines; columns an annotator added are kept
  (the merge writes their cells to ``labels/comments.csv``) and named in a note; fully
  blank rows are skipped and counted;
- a Label Studio export (:func:`analysis.update.labels.studio.read_export`), recognised by its
  content (JSON), whatever the file is named.

:func:`read_input` picks the reader. A file that cannot be read at all is one problem;
problems of rows are the read's, reported with the others.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.core.errors import InputError
from analysis.core.people import normal_name
from analysis.update.labels.annotations import (
    COLUMNS,
    EXTRA_COLUMNS,
    LOWER_CODE_RE,
    Read,
    Source,
    answer,
    normalise_code,
    parse_confidence,
    parse_excluded,
    parse_minutes,
)
from analysis.update.labels.checks import most_common, row_problems
from analysis.update.labels.sheets import REQUIRED_COLUMNS, SHEET_COLUMNS
from analysis.update.labels.studio_export import is_export, looks_like_json, read_export
from analysis.update.labels.tables import ENCODING_NOTES, read_table

SHOWN_LINES = 3  # lines a note names before "and N more"


def extra_names(header: list[str], known: list[str]) -> dict[int, str]:
    """Column index -> name of the header's columns that are not ``known`` (an annotator's
    own), a blank name shown as ``column N``, a repeated one numbered."""
    names: dict[int, str] = {}
    taken: set[str] = set()  # the names given so far: a set, so a wide header costs no more
    for i, h in enumerate(header):
        if h.casefold() in known:
            continue
        name = h or f"column {i + 1}"
        n = 1
        while name in taken:
            n += 1
            name = f"{h or f'column {i + 1}'} ({n})"
        names[i] = name
        taken.add(name)
    return names


def lowercase_note(rows: pd.DataFrame) -> str | None:
    """The note on labels written in lower case, naming their lines (the first
    :data:`SHOWN_LINES`)."""
    lower = rows[rows["label"].str.strip().str.fullmatch(LOWER_CODE_RE.pattern)]
    if lower.empty:
        return None
    unit = "row" if rows.attrs.get("kind") == "xlsx" else "line"
    shown = [f"{unit} {line} ({cell.strip()!r} as {normalise_code(cell)})"
             for line, cell in zip(lower["line"][:SHOWN_LINES], lower["label"], strict=False)]
    more = len(lower) - SHOWN_LINES
    return (f"{len(lower):,} label(s) written in lower case, read as the code: "
            + ", ".join(shown) + (f" and {more:,} more" if more > 0 else ""))


def sheet_rows(path: Path, name: str | None, raw: bytes | None = None
               ) -> tuple[pd.DataFrame, dict[int, str], list, object]:
    """A sheet's rows as text (the line each starts on, its number of cells, every
    column of :data:`SHEET_COLUMNS`), the added columns and their cells by row, and the
    table read; missing or repeated columns are one :class:`InputError`."""
    table = read_table(path, name, raw=raw)
    header = table.columns
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(f"the header lacks the column(s) {', '.join(missing)}",
                         file=table.name, line=1, fix="keep the columns of the blank sheet ("
                         + ", ".join(SHEET_COLUMNS) + ")")
    dupes = sorted({h for h in header if h in SHEET_COLUMNS and header.count(h) > 1})
    if dupes:
        raise InputError(f"the header names {', '.join(dupes)} twice", file=table.name,
                         line=1, fix="keep one column of each name")
    index = {h: header.index(h) for h in SHEET_COLUMNS if h in header}
    extras = extra_names(table.header, SHEET_COLUMNS)
    rows, added = [], []
    for start, fields in table.body:
        row = {"line": start, "n_fields": len(fields) if table.kind != "xlsx" else table.width}
        fields = fields + [""] * max(0, len(header) - len(fields))
        row.update({col: fields[i] for col, i in index.items()})
        rows.append(row)
        added.append([fields[i] for i in extras])
    frame = pd.DataFrame(rows, columns=["line", "n_fields", *index], dtype=object)
    for col in SHEET_COLUMNS:
        if col not in frame:
            frame[col] = ""
    frame.attrs["header_fields"] = table.width
    frame.attrs["kind"] = table.kind
    return frame, extras, added, table


def annotations_of(rows: pd.DataFrame, annotator: str) -> pd.DataFrame:
    """A checked sheet's rows as annotations
    (:data:`~analysis.update.labels.annotations.COLUMNS`)."""
    unit = "row" if rows.attrs.get("kind") == "xlsx" else "line"
    out = []
    for rec in rows.itertuples(index=False):
        if not rec.url.strip():
            continue  # a problem of the row (checks.row_problems), no candidate
        seconds = parse_minutes(rec.minutes)
        out.append({"url": rec.url.strip(), "project": rec.project.strip(),
                    "created_at": rec.created_at.strip(), "title": rec.title,
                    "annotator": annotator,
                    **answer(normalise_code(rec.label), bool(parse_excluded(rec.excluded))),
                    "confidence": parse_confidence(rec.confidence) or "",
                    "comment": rec.comment,
                    "seconds": None if seconds is None or seconds is False else seconds,
                    "selection": rec.selection.strip(), "where": f"{unit} {rec.line}"})
    return pd.DataFrame(out, columns=COLUMNS, dtype=object)


def read_sheet(path: Path, name: str | None = None, codes: set[str] | None = None,
               place: int = 1, raw: bytes | None = None) -> Read:
    """A filled sheet as annotations (see the module docstring); ``place``: its place
    among the inputs (the annotator of a sheet without an ``annotator`` column); ``raw``:
    its bytes, when read already."""
    rows, extras, added, table = sheet_rows(Path(path), name, raw)
    rows["annotator"] = rows["annotator"].map(normal_name)  # one person, one name
    annotator = most_common(rows["annotator"].str.strip()) or f"#{place}"
    selection = most_common(rows["selection"].str.strip())
    problems = row_problems(rows, table.name, codes) if codes is not None else []
    notes = [f"read as {table.encoding}: {ENCODING_NOTES[table.encoding]}"] \
        if table.encoding in ENCODING_NOTES else []
    lower = lowercase_note(rows)
    if lower:
        notes.append(lower)
    if extras:
        notes.append("column(s) not of the blank sheet ("
                     + ", ".join(repr(n) for n in extras.values())
                     + "): their cells are kept in labels/comments.csv")
    cells = [{"project": r.project.strip(), "url": r.url.strip(), "annotator": annotator,
              "column": column, "text": text}
             for r, row in zip(rows.itertuples(index=False), added, strict=True)
             for column, text in zip(extras.values(), row, strict=True) if str(text).strip()]
    facts = {"encoding": table.encoding, "delimiter": table.delimiter, "rows": len(rows),
             "blank_rows": table.blank_rows,
             "lowercase_codes": int(rows["label"].str.strip().str.fullmatch(
                 LOWER_CODE_RE.pattern).sum()),
             "extra_columns": list(extras.values())}
    source = Source(table.name, table.kind, table.sha256, [annotator], selection, facts, notes)
    return Read(source, annotations_of(rows, annotator),
                pd.DataFrame(cells, columns=EXTRA_COLUMNS, dtype=object), problems)


def read_input(path: Path, name: str | None = None, codes: set[str] | None = None,
               place: int = 1, raw: bytes | None = None) -> Read:
    """One input of the merge, read by its reader: a Label Studio export (JSON) or a
    sheet (``raw``: its bytes, when read already)."""
    if is_export(Path(path)) if raw is None else looks_like_json(raw[:64]):
        return read_export(Path(path), name, codes)  # read task by task, from the file
    return read_sheet(Path(path), name, codes, place, raw)
