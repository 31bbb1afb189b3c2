"""Read an issue dump in the upstream layout, keeping line numbers for every record.

Layout (``data/raw/``)::

    Issue Report/<Project>/<Project>.csv         Issue_URL, Label1..LabelN, Final_Label
    Issue Report/<Project>/<Project>_<year>.txt  one issue URL a line
    Issue Report/<Project>/<Project>_excluded.csv  optional: Issue_URL, Created_At, the
                                                   candidates excluded as false positives
                                                   (written by ``analysis.update.labels merge``)

Projects, years and annotators are discovered here, never listed in code. Reading is
strict about what makes results meaningless (no ``Issue Report`` folder, a project without
a label file, a label file without the key columns, a file that is not UTF-8: one clear
:class:`~analysis.core.errors.InputError`) and lenient, but explicit, about the rest: quirks
are returned as anomalies for the stage that reads the dump to rule on. A dump is read as
ingest reads it (:class:`~analysis.core.dumpfiles.DumpFiles`): walked and checked first
(links, hard links and special files refused), each file then opened once, as checked.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from analysis.core.dumpfiles import DumpFiles
from analysis.core.encoding import wide_unicode
from analysis.core.errors import InputError
from analysis.core.paths import DumpLayout

ISSUE_DIR = "Issue Report"
YEAR_FILE_RE = re.compile(r"^(?P<prefix>.+)_(?P<year>\d{4})\.txt$")
LABEL_COL_RE = re.compile(r"^label\s*(\d+)$", re.IGNORECASE)
URL_RE = re.compile(r"^https?://[A-Za-z0-9.-]+(?::\d+)?/\S+$")


@dataclass(frozen=True)
class Quirk:
    """A raw-level observation (encoding, layout) for the reading stage to rule on."""

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
    excluded_file: Path | None = None  # the excluded candidates, when the dump records them
    dump: DumpFiles | None = None  # the walked dump its files are opened through


# How many of a file's first bytes tell a UTF-16 or UTF-32 file (analysis.core.encoding).
HEAD_BYTES = 4096

MAX_LINE = 131_072
"""The longest line a dump file may hold, in characters, and the longest CSV record when a
quoted field spans lines: the csv module's own field limit. A dump's lines are a URL and
a few labels; a longer line is junk (a file without line breaks, a binary), refused in one
message instead of being read whole."""


class TextLines:
    """The lines of a UTF-8 text file, read one at a time, in bounded memory.

    Iterating gives exactly the pieces of ``text.split("\n")``, where ``text`` is the file
    decoded, without its byte-order mark and with CRLF and CR line endings normalised to LF
    (after the last line ending comes one more piece, empty or not). Each normalisation, and
    an empty file, is recorded in :attr:`quirks` once the lines are read. A line longer than
    ``max_line`` characters (None: no limit), bytes that are not UTF-8 and NUL bytes stop
    with one message naming the line. ``source`` is a path (``rel`` names it in messages) or
    an open binary file, or a function opening one (a context manager, such as
    :meth:`DumpFiles.open <analysis.core.dumpfiles.DumpFiles.open>`). Read it once.
    """

    def __init__(self, source: Path | BinaryIO | Callable[[], AbstractContextManager[BinaryIO]],
                 rel: str, max_line: int | None = MAX_LINE):
        self.source = source
        self.rel = rel
        self.max_line = max_line
        self.quirks: list[Quirk] = []
        self.lines = 0  # pieces read so far: the number of the current line
        self.head = bytearray()  # the file's first bytes, to name its encoding in a message

    def __iter__(self) -> Iterator[str]:
        if callable(self.source):
            with self.source() as binary:
                yield from self._pieces(binary)
            return
        if not isinstance(self.source, Path):
            yield from self._pieces(self.source)
            return
        try:
            binary = self.source.open("rb")
        except OSError as exc:
            raise InputError(f"cannot read file ({exc.strerror})", file=self.rel,
                             fix="check the file's permissions") from exc
        with binary:
            yield from self._pieces(binary)

    def _pieces(self, binary: BinaryIO) -> Iterator[str]:
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape",
                                newline="")
        limit = -1 if self.max_line is None else self.max_line + 2  # room for CR LF
        offset = newlines = 0  # bytes and LFs before the current line (for messages)
        endings: set[str] = set()
        piece = self._read(text, limit)
        if not piece:
            self.quirks.append(Quirk("empty_file", self.rel, "file is empty (0 bytes)"))
        elif piece.startswith("\ufeff"):
            piece = piece[1:]
            self.quirks.append(Quirk("utf8_bom", self.rel,
                                     "file starts with a UTF-8 byte-order mark"))
        while piece:  # a line with its ending: LF, CR LF, CR, or none at the end of the file
            body = piece.rstrip("\r\n")
            end = piece[len(body):]
            endings.add(end)
            self.lines += 1
            if len(self.head) < HEAD_BYTES:
                self.head += piece.encode("utf-8", "surrogateescape")
            size = self._check(body, offset, newlines + 1)
            yield body
            if not end:
                break
            offset += size + len(end)
            newlines += end.endswith("\n")
            piece = self._read(text, limit)
        else:
            yield ""  # what follows the last line ending (or an empty file)
        if "\r\n" in endings:
            self.quirks.append(Quirk("crlf_line_endings", self.rel,
                                     "Windows (CRLF) line endings"))
        if "\r" in endings:
            self.quirks.append(Quirk("cr_line_endings", self.rel, "old Mac (CR) line endings"))

    def _read(self, text: io.TextIOWrapper, limit: int) -> str:
        try:
            return text.readline(limit)
        except OSError as exc:
            raise InputError(f"cannot read file ({exc.strerror})", file=self.rel,
                             line=self.lines + 1, fix="check the file and the disk") from exc

    def _check(self, body: str, offset: int, raw_line: int) -> int:
        """The size of a line in bytes; a line too long, not UTF-8 (escaped bytes are lone
        surrogates) or with a NUL is refused, a UTF-16 or UTF-32 file (its first bytes,
        :func:`~analysis.core.encoding.wide_unicode`) named as such with how to convert it.
        ``offset`` and ``raw_line`` (LFs before it + 1) place a bad byte as
        :meth:`bytes.decode` would."""
        if self.max_line is not None and len(body) > self.max_line:
            raise InputError(
                f"line longer than {self.max_line:,} characters (not read further)",
                file=self.rel, line=self.lines,
                fix="a dump's lines are short (a URL and labels): check that this is the "
                    "right file, with line breaks")
        wide = None
        try:
            size = len(body.encode("utf-8"))
        except UnicodeEncodeError as exc:
            wide = wide_unicode(bytes(self.head[:HEAD_BYTES]))
            if wide is None:
                byte = ord(body[exc.start]) - 0xDC00
                at = offset + len(body[:exc.start].encode("utf-8"))
                raise InputError(f"not UTF-8 (byte 0x{byte:02x} at offset {at})",
                                 file=self.rel, line=raw_line,
                                 fix=not_utf8_advice(body)) from None
        if wide is None and "\x00" in body:
            wide = wide_unicode(bytes(self.head[:HEAD_BYTES]))
            if wide is None:
                raise InputError("file contains NUL bytes (not text, or not UTF-8 text)",
                                 file=self.rel, line=self.lines,
                                 fix="give the file as UTF-8 text")
        if wide is not None:
            name = "UTF-32" if "32" in wide else "UTF-16"
            raise InputError(f"file is {name} text, not UTF-8", file=self.rel,
                             line=self.lines,
                             fix=f"re-save it as UTF-8 (e.g. `iconv -f {wide} -t utf-8`)")
        return size


def not_utf8_advice(body: str) -> str:
    """How to convert a line that is not UTF-8 (its bytes escaped as lone surrogates, as
    :class:`TextLines` reads them): from Windows-1252 when its bytes are text in that code
    page (Excel's "CSV" on Western Windows), else from the encoding it was saved in."""
    try:
        body.encode("utf-8", "surrogateescape").decode("cp1252")
    except UnicodeDecodeError:
        return ("re-save the file as UTF-8 from the encoding it was saved in (`file -i` "
                "may tell it; then `iconv -f ENCODING -t utf-8`)")
    return "re-save the file as UTF-8 (e.g. `iconv -f cp1252 -t utf-8`)"


def decode(raw: bytes, rel: str) -> tuple[str, list[Quirk]]:
    """Decode a raw file as UTF-8, normalising BOM and line endings (reported as quirks):
    the whole-text form of :class:`TextLines`. A file that is not UTF-8 stops with a
    message naming the line and byte."""
    lines = TextLines(io.BytesIO(raw), rel, max_line=None)
    text = "\n".join(lines)
    return text, [q for q in lines.quirks if q.kind != "empty_file"]


def open_lines(path: Path, dump: DumpFiles, max_line: int | None = MAX_LINE) -> TextLines:
    """The lines of a file of the walked ``dump``, opened once as checked, named in
    messages by its path in the dump."""
    rel = dump.rel(path)
    return TextLines(partial(dump.open, rel), rel, max_line)


def read_text(path: Path, dump: DumpFiles) -> tuple[str, list[Quirk]]:
    """Read and decode a whole file of the walked ``dump`` (:class:`TextLines` without a
    line limit), for the commands that take a study's files whole; unreadable files stop
    with one clear message."""
    lines = open_lines(path, dump, max_line=None)
    text = "\n".join(lines)
    return text, lines.quirks


def discover_projects(dump: DumpFiles) -> tuple[list[ProjectFiles], list[Quirk]]:
    """Find every project folder under ``Issue Report/`` of the walked ``dump`` with its
    label and year files (plain files only: the walk refused anything else)."""
    raw_dir = dump.root
    if not dump.is_dir(ISSUE_DIR):
        raise InputError(f"no {ISSUE_DIR!r} folder in the dump", file=str(raw_dir),
                         fix="give a dump in the upstream layout: an 'Issue Report' folder "
                             "holding a folder a project (see docs/your-own-dump.md)")
    projects: list[ProjectFiles] = []
    quirks: list[Quirk] = []
    for name in dump.listing(ISSUE_DIR)[0]:
        rel_folder = f"{ISSUE_DIR}/{name}"
        folder = raw_dir / rel_folder
        names = dump.listing(rel_folder)[1]
        if f"{name}.csv" not in names:
            found = ", ".join(names) or "nothing"
            raise InputError(f"project folder has no label file {name}.csv (found: {found})",
                             file=rel_folder, fix=f"add {name}.csv (Issue_URL, Label1..LabelN, "
                                                  "Final_Label) or remove the folder")
        label = folder / f"{name}.csv"
        excluded_name = DumpLayout.excluded_name(name)
        years: dict[int, Path] = {}
        for file_name in names:
            if file_name in (label.name, excluded_name):
                continue
            f = folder / file_name
            m = YEAR_FILE_RE.match(file_name)
            if not m:
                quirks.append(Quirk("unexpected_file", f"{rel_folder}/{file_name}",
                                    "file is neither the label file nor a <project>_<year>.txt"))
                continue
            if m.group("prefix") != name:
                quirks.append(Quirk("year_file_prefix", f"{rel_folder}/{file_name}",
                                    f"year file prefix {m.group('prefix')!r} differs from the "
                                    f"folder name {name!r}"))
            years[int(m.group("year"))] = f
        if not years:
            quirks.append(Quirk("no_year_files", rel_folder, "project folder has no year files"))
        projects.append(ProjectFiles(name, folder, label, dict(sorted(years.items())),
                                     folder / excluded_name if excluded_name in names else None,
                                     dump))
    if not projects:
        raise InputError(f"no project folders under {ISSUE_DIR!r}", file=str(raw_dir),
                         fix="each project needs a folder <Project>/ with <Project>.csv")
    return projects, quirks


# The column of a study dump's label and excluded files naming the batch each row came
# from (written by ``python -m analysis.update.labels extend``); compared case-insensitively.
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
            file=rel, line=1, fix="the header must be Issue_URL, Label1..LabelN, Final_Label")
    numbers = sorted(annotators.values())
    if numbers != list(range(1, len(numbers) + 1)):
        quirks.append(Quirk("label_columns_gap", rel, "annotator columns numbered "
                            + ", ".join(map(str, numbers)) + f", not 1..{len(numbers)}", 1))
    for n in names:
        if n.casefold() not in {"issue_url", "final_label", BATCH} and n not in annotators:
            quirks.append(Quirk("extra_column", rel, f"column {n!r} is not used", 1, n))
    return lowered["issue_url"], lowered["final_label"], annotators, quirks


def iter_csv_records(lines: Iterable[str], rel: str, fix: str, max_record: int | None = None,
                     **fmt) -> Iterator[tuple[int, int, list[str], str]]:
    """Every CSV record of ``lines`` (a text split at ``"\n"``, e.g. :class:`TextLines`) as
    (first line, last line, fields, raw text), read as the lines come: a quoted field may
    span lines, and a message should name where the record starts (the csv module's
    ``line_num`` is where it ends). What follows the text's last newline is not a record.
    A record longer than ``max_record`` characters and broken quoting are refused in one
    line. ``fmt``: csv reader options."""
    pending: list[str] = []  # the physical lines of the record being read
    seen = {"lines": 0, "size": -1, "last": None}

    def feed() -> Iterator[str]:
        for line in lines:
            pending.append(line)
            seen["lines"] += 1
            seen["last"] = line
            seen["size"] += len(line) + 1
            if max_record is not None and seen["size"] > max_record:
                raise InputError(f"record longer than {max_record:,} characters (a quoted "
                                 "field that does not end?)", file=rel,
                                 line=seen["lines"] - len(pending) + 1, fix=fix)
            yield line + "\n"

    reader = csv.reader(feed(), **fmt)
    prev = 0
    held = None  # an empty record: the end of the text if nothing follows it
    try:
        for fields in reader:
            record = (prev + 1, reader.line_num, fields, "\n".join(pending))
            pending.clear()
            seen["size"] = -1
            prev = reader.line_num
            if held is not None:
                yield held
                held = None
            if fields:
                yield record
            else:
                held = record
    except csv.Error as exc:
        raise InputError(f"not valid CSV ({exc})", file=rel, line=prev + 1, fix=fix) from exc
    if held is not None and not (held[0] == seen["lines"] and seen["last"] == ""):
        yield held


def csv_records(lines: list[str], rel: str, fix: str,
                **fmt) -> list[tuple[int, int, list[str]]]:
    """Every CSV record of ``lines`` as (first line, last line, fields): see
    :func:`iter_csv_records`."""
    return [record[:3] for record in iter_csv_records(lines, rel, fix, **fmt)]


@dataclass
class LabelReader:
    """A label file being read: its header (found before the first record is given) and
    its records, given in chunks as they are read."""

    rel: str
    header: list[str]  # stripped names; empty when the file has no header
    url_column: str
    final_column: str
    annotator_columns: dict[str, int]  # header name -> annotator number
    quirks: list[Quirk]
    records: Iterator[tuple[int, int, list[str], str]]
    count: int = 0  # records given so far

    def chunks(self, size: int | None = None) -> Iterator[pd.DataFrame]:
        """The records, ``size`` at a time (all at once when None), as frames of line,
        fields, raw and n_fields; at least one frame, empty when there are no records."""
        for batch in chunked(self.records, size):
            self.count += len(batch)
            frame = pd.DataFrame([{"line": start, "fields": fields, "raw": raw}
                                  for start, _, fields, raw in batch],
                                 columns=["line", "fields", "raw"])
            frame["n_fields"] = frame["fields"].map(len).astype("int64")
            yield frame


def read_label_file(lines: Iterable[str], rel: str,
                    max_record: int | None = MAX_LINE) -> LabelReader:
    """Start reading a label file: find its header (the first record that is not blank;
    physical line numbers count from 1) and check it; the records follow in chunks."""
    records = iter_csv_records(lines, rel, fix="fix the quoting on that line",
                               max_record=max_record)
    quirks: list[Quirk] = []
    for record in records:
        if any(f.strip() for f in record[2]):
            break
    else:
        return LabelReader(rel, [], "", "", {}, quirks, iter(()))
    start, _, fields, _ = record
    if start != 1:
        quirks.append(Quirk("leading_blank_lines", rel, "blank lines before the header"))
    url_col, final_col, annotators, header_quirks = parse_header(fields, rel)
    return LabelReader(rel, [h.strip() for h in fields], url_col, final_col, annotators,
                       quirks + header_quirks, records)


@dataclass
class LabelFile:
    """A label file read whole: one record per data line, with the header mapping."""

    rel: str
    records: pd.DataFrame  # line, fields (list[str]), raw, n_fields
    url_column: str
    final_column: str
    annotator_columns: dict[str, int]  # header name -> annotator number
    header: list[str]
    quirks: list[Quirk]


def parse_label_file(text: str, rel: str) -> LabelFile:
    """Parse a label file's text whole into records with physical line numbers (header =
    line 1): :func:`read_label_file` in one chunk, without a record limit."""
    reader = read_label_file(text.split("\n"), rel, max_record=None)
    records = next(reader.chunks())
    return LabelFile(rel, records, reader.url_column, reader.final_column,
                     reader.annotator_columns, reader.header, reader.quirks)


def chunked(items: Iterable, size: int | None) -> Iterator[list]:
    """``items`` in lists of ``size`` (one list of all when None); at least one list,
    empty when there are no items."""
    batch: list = []
    given = False
    for item in items:
        batch.append(item)
        if size is not None and len(batch) >= size:
            yield batch
            batch, given = [], True
    if batch or not given:
        yield batch


def _without_final_empty(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Numbered lines (from 1), but not an empty piece after the last line ending."""
    held: tuple[int, str] | None = None
    for numbered in enumerate(lines, 1):
        if held is not None:
            yield held
        held = numbered
    if held is not None and held[1]:
        yield held


def year_file_chunks(lines: Iterable[str], rel: str, year: int,
                     size: int | None = None) -> Iterator[pd.DataFrame]:
    """Every line of a year file, ``size`` lines a frame (all in one when None): its
    number, raw and stripped text (validated in
    :func:`analysis.core.schemas.year_line_status`)."""
    for batch in chunked(_without_final_empty(lines), size):
        frame = pd.DataFrame({"line": pd.Series([n for n, _ in batch], dtype="int64"),
                              "raw": pd.Series([t for _, t in batch], dtype=object)})
        frame["url"] = frame["raw"].str.strip()
        frame["year"] = year
        frame["file"] = rel
        yield frame


def excluded_file_chunks(lines: Iterable[str], rel: str, size: int | None = None,
                         max_record: int | None = MAX_LINE) -> Iterator[pd.DataFrame]:
    """Every data line of an excluded-candidates file, ``size`` a frame (all in one when
    None): line, raw text, ``url`` and ``created_at`` (stripped; empty when the column is
    absent), ``batch`` (stripped; None without a Batch column) and the number of fields.

    The header must name ``Issue_URL`` (any case); other columns are not used. Rows are
    validated by the stage that reads them.
    """
    records = iter_csv_records(lines, rel, fix="fix the quoting on that line",
                               max_record=max_record)
    header = [h.strip().casefold() for h in next(records, (0, 0, [], ""))[2]]
    if "issue_url" not in header:
        raise InputError("the header has no Issue_URL column", file=rel, line=1,
                         fix="the excluded-candidates file's header is Issue_URL,Created_At")
    url_i = header.index("issue_url")
    created_i = header.index("created_at") if "created_at" in header else None
    batch_i = batch_index(header)

    def cell(fields: list[str], i: int | None) -> str:
        return fields[i].strip() if i is not None and i < len(fields) else ""

    for rows in chunked(records, size):
        yield pd.DataFrame({
            "line": pd.Series([r[0] for r in rows], dtype="int64"),
            "raw": pd.Series([r[3] for r in rows], dtype=object),
            "url": pd.Series([cell(r[2], url_i) for r in rows], dtype=object),
            "created_at": pd.Series([cell(r[2], created_i) for r in rows], dtype=object),
            "batch": pd.Series([cell(r[2], batch_i) if batch_i is not None else None
                                for r in rows], dtype=object),
            "n_fields": pd.Series([len(r[2]) for r in rows], dtype="int64"),
        })


def parse_excluded_file(text: str, rel: str) -> pd.DataFrame:
    """Every data line of an excluded-candidates file's text, in one frame:
    :func:`excluded_file_chunks` without a record limit."""
    return next(excluded_file_chunks(text.split("\n"), rel, max_record=None))
