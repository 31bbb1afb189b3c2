"""Read an issue dump in the upstream layout, keeping line numbers for every record.

Layout (``data/raw/``)::

    Issue Report/<Project>/<Project>.csv         Issue_URL, Label1..LabelN, Final_Label
    Issue Report/<Project>/<Project>_<year>.txt  one issue URL a line
    Issue Report/<Project>/<Project>_excluded.csv  optional: Issue_URL, Created_At, the
                                                   candidates excluded as false positives
                                                   (written by ``analysis.labels merge``)

Projects, years and annotators are discovered here, never listed in code. Reading is
strict about what makes results meaningless (no ``Issue Report`` folder, a project without
a label file, a label file without the key columns, a file that is not UTF-8: one clear
:class:`~analysis.core.errors.InputError`) and lenient, but explicit, about the rest: quirks
are returned as anomalies for the clean stage to rule on.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core.errors import InputError
from analysis.core.paths import DumpLayout

ISSUE_DIR = "Issue Report"
YEAR_FILE_RE = re.compile(r"^(?P<prefix>.+)_(?P<year>\d{4})\.txt$")
LABEL_COL_RE = re.compile(r"^label\s*(\d+)$", re.IGNORECASE)
URL_RE = re.compile(r"^https?://[A-Za-z0-9.-]+(?::\d+)?/\S+$")
UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Quirk:
    """A raw-level observation (encoding, layout) for the clean stage to rule on."""

    kind: str
    file: str
    message: str
    line: int | None = None
    column: str | None = None
    value: str | None = None


@dataclass
class ProjectFiles:
    """The files of one project folder."""

    name: str
    folder: Path
    label_file: Path
    year_files: dict[int, Path]
    other_files: list[Path] = field(default_factory=list)
    excluded_file: Path | None = None  # the excluded candidates, when the dump records them


@dataclass
class LabelFile:
    """A parsed label file: one record per data line, with the header mapping."""

    rel: str
    records: pd.DataFrame  # line, n_fields, raw, fields (list[str])
    url_column: str
    final_column: str
    annotator_columns: dict[str, int]  # header name -> annotator number
    header: list[str]
    quirks: list[Quirk]


def decode(raw: bytes, rel: str) -> tuple[str, list[Quirk]]:
    """Decode a raw file as UTF-8, normalising BOM and line endings (reported as quirks).

    A file that is not UTF-8 stops with a message naming the line and byte.
    """
    quirks: list[Quirk] = []
    if raw.startswith(UTF8_BOM):
        raw = raw[len(UTF8_BOM):]
        quirks.append(Quirk("utf8_bom", rel, "file starts with a UTF-8 byte-order mark"))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            file=rel,
            line=line,
            fix="re-save the file as UTF-8 (e.g. `iconv -f cp1252 -t utf-8`)",
        ) from exc
    if "\r\n" in text:
        quirks.append(Quirk("crlf_line_endings", rel, "Windows (CRLF) line endings"))
        text = text.replace("\r\n", "\n")
    if "\r" in text:
        quirks.append(Quirk("cr_line_endings", rel, "old Mac (CR) line endings"))
        text = text.replace("\r", "\n")
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise InputError(
            "file contains NUL bytes (binary or UTF-16?)",
            file=rel,
            line=line,
            fix="re-save the file as UTF-8 text",
        )
    return text, quirks


def read_text(path: Path, root: Path) -> tuple[str, list[Quirk]]:
    """Read and decode a file; unreadable files stop with one clear message."""
    rel = path.relative_to(root).as_posix()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(
            f"cannot read file ({exc.strerror})", file=rel, fix="check the file's permissions"
        ) from exc
    text, quirks = decode(raw, rel)
    if not raw:
        quirks.append(Quirk("empty_file", rel, "file is empty (0 bytes)"))
    return text, quirks


def discover_projects(raw_dir: Path) -> tuple[list[ProjectFiles], list[Quirk]]:
    """Find every project folder under ``Issue Report/`` with its label and year files."""
    issue_dir = raw_dir / ISSUE_DIR
    if not issue_dir.is_dir():
        raise InputError(
            f"no {ISSUE_DIR!r} folder in the dump",
            file=str(raw_dir),
            fix="point ingest.source at a dump in the upstream layout (see README)",
        )
    projects: list[ProjectFiles] = []
    quirks: list[Quirk] = []
    for folder in sorted(p for p in issue_dir.iterdir() if p.is_dir()):
        name = folder.name
        rel_folder = folder.relative_to(raw_dir).as_posix()
        files = sorted(p for p in folder.iterdir() if p.is_file())
        label = folder / f"{name}.csv"
        if not label.is_file():
            found = ", ".join(p.name for p in files) or "nothing"
            raise InputError(
                f"project folder has no label file {name}.csv (found: {found})",
                file=rel_folder,
                fix=f"add {name}.csv (Issue_URL, Label1..LabelN, Final_Label) or remove the folder",
            )
        years: dict[int, Path] = {}
        others: list[Path] = []
        excluded = folder / DumpLayout.excluded_name(name)
        for f in files:
            if f in (label, excluded):
                continue
            m = YEAR_FILE_RE.match(f.name)
            if not m:
                others.append(f)
                quirks.append(Quirk("unexpected_file", f.relative_to(raw_dir).as_posix(),
                                    "file is neither the label file nor a <project>_<year>.txt"))
                continue
            if m.group("prefix") != name:
                quirks.append(Quirk("year_file_prefix", f.relative_to(raw_dir).as_posix(),
                                    f"year file prefix {m.group('prefix')!r} differs from the "
                                    f"folder name {name!r}"))
            years[int(m.group("year"))] = f
        if not years:
            quirks.append(Quirk("no_year_files", rel_folder, "project folder has no year files"))
        projects.append(ProjectFiles(name, folder, label, dict(sorted(years.items())), others,
                                     excluded if excluded.is_file() else None))
    if not projects:
        raise InputError(
            f"no project folders under {ISSUE_DIR!r}",
            file=str(raw_dir),
            fix="each project needs a folder <Project>/ with <Project>.csv",
        )
    return projects, quirks


# The column of a study dump's label and excluded files naming the batch each row came
# from (written by ``python -m analysis.labels extend``); compared case-insensitively.
BATCH = "batch"


def batch_index(header: list[str]) -> int | None:
    """The position of a header's Batch column, or None (a dump without batches)."""
    return next((i for i, h in enumerate(header) if h.strip().casefold() == BATCH), None)


def parse_header(header: list[str], rel: str) -> tuple[str, str, dict[str, int], list[Quirk]]:
    """Identify the URL, final-label and annotator columns of a label file header."""
    quirks: list[Quirk] = []
    names = [h.strip() for h in header]
    lowered = {n.casefold(): n for n in names}
    if len(lowered) != len(names):
        raise InputError("duplicate column names in the header", file=rel, line=1,
                         fix="give every column a unique name")
    missing = [c for c in ("Issue_URL", "Final_Label") if c.casefold() not in lowered]
    annotators = {n: int(m.group(1)) for n in names if (m := LABEL_COL_RE.match(n))}
    if missing or not annotators:
        what = missing + ([] if annotators else ["Label1..LabelN"])
        raise InputError(
            f"missing column(s) {', '.join(what)} (header: {', '.join(names) or 'empty'})",
            file=rel,
            line=1,
            fix="the header must be Issue_URL, Label1..LabelN, Final_Label",
        )
    numbers = sorted(annotators.values())
    if numbers != list(range(1, len(numbers) + 1)):
        quirks.append(Quirk("label_columns_gap", rel, "annotator columns numbered "
                            + ", ".join(map(str, numbers)) + f", not 1..{len(numbers)}", 1))
    for n in names:
        if n.casefold() not in {"issue_url", "final_label", BATCH} and n not in annotators:
            quirks.append(Quirk("extra_column", rel, f"column {n!r} is not used", 1, n))
    return lowered["issue_url"], lowered["final_label"], annotators, quirks


def csv_records(lines: list[str], rel: str, fix: str,
                **fmt) -> list[tuple[int, int, list[str]]]:
    """Every CSV record of ``lines`` (a text split at ``"\n"``) as (first line, last line,
    fields): a quoted field may span lines, and a message should name where the record
    starts (the csv module's ``line_num`` is where it ends). ``fmt``: csv reader options.
    Broken quoting is refused in one line."""
    reader = csv.reader((line + "\n" for line in lines), **fmt)
    records: list[tuple[int, int, list[str]]] = []
    prev = 0
    try:
        for fields in reader:
            records.append((prev + 1, reader.line_num, fields))
            prev = reader.line_num
    except csv.Error as exc:
        raise InputError(f"not valid CSV ({exc})", file=rel, line=prev + 1, fix=fix) from exc
    if records and lines and lines[-1] == "" and records[-1] == (len(lines), len(lines), []):
        records.pop()  # what follows the text's last newline is not a record
    return records


def parse_label_file(text: str, rel: str) -> LabelFile:
    """Parse a label file into records with physical line numbers (header = line 1)."""
    quirks: list[Quirk] = []
    lines = text.split("\n")
    rows: list[dict] = []
    header: list[str] | None = None
    for start, end, fields in csv_records(lines, rel, fix="fix the quoting on that line"):
        raw = "\n".join(lines[start - 1: end])
        if header is None:
            if not fields or all(not f.strip() for f in fields):
                continue
            header = fields
            header_line = start
            continue
        rows.append({"line": start, "fields": fields, "raw": raw})
    if header is None:
        return LabelFile(rel, _records(rows), "", "", {}, [], quirks)
    if header_line != 1:
        quirks.append(Quirk("leading_blank_lines", rel, "blank lines before the header"))
    url_col, final_col, annotators, header_quirks = parse_header(header, rel)
    return LabelFile(rel, _records(rows), url_col, final_col, annotators,
                     [h.strip() for h in header], quirks + header_quirks)


def _records(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["line", "fields", "raw"])
    frame["n_fields"] = frame["fields"].map(len).astype("int64")
    return frame


def parse_year_file(text: str, rel: str, year: int) -> pd.DataFrame:
    """Every line of a year file: its number, raw and stripped text (validated in
    :func:`analysis.core.schemas.year_line_status`)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    frame = pd.DataFrame({"line": pd.Series(range(1, len(lines) + 1), dtype="int64"),
                          "raw": pd.Series(lines, dtype=object)})
    frame["url"] = frame["raw"].str.strip()
    frame["year"] = year
    frame["file"] = rel
    return frame


def parse_excluded_file(text: str, rel: str) -> pd.DataFrame:
    """Every data line of an excluded-candidates file: line, raw text, ``url`` and
    ``created_at`` (stripped; empty when the column is absent), ``batch`` (stripped; None
    without a Batch column) and the number of fields.

    The header must name ``Issue_URL`` (any case); other columns are not used. Rows are
    validated by the clean stage.
    """
    lines = text.split("\n")
    header: list[str] | None = None
    rows: list[dict] = []
    for start, end, fields in csv_records(lines, rel, fix="fix the quoting on that line"):
        if header is None:
            header = [h.strip().casefold() for h in fields]
            continue
        rows.append({"line": start, "raw": "\n".join(lines[start - 1: end]),
                     "fields": fields})
    if not header or "issue_url" not in header:
        raise InputError("the header has no Issue_URL column", file=rel, line=1,
                         fix="the excluded-candidates file's header is Issue_URL,Created_At")
    url_i = header.index("issue_url")
    created_i = header.index("created_at") if "created_at" in header else None
    batch_i = batch_index(header)

    def cell(fields: list[str], i: int | None) -> str:
        return fields[i].strip() if i is not None and i < len(fields) else ""

    return pd.DataFrame({
        "line": pd.Series([r["line"] for r in rows], dtype="int64"),
        "raw": pd.Series([r["raw"] for r in rows], dtype=object),
        "url": pd.Series([cell(r["fields"], url_i) for r in rows], dtype=object),
        "created_at": pd.Series([cell(r["fields"], created_i) for r in rows], dtype=object),
        "batch": pd.Series([cell(r["fields"], batch_i) if batch_i is not None else None
                            for r in rows], dtype=object),
        "n_fields": pd.Series([len(r["fields"]) for r in rows], dtype="int64"),
    })
