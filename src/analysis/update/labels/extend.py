"""Extend a study dump with a batch of new labels: the study the pipeline runs on next.

    python -m analysis.update.labels extend --base DUMP --batch BATCH --out STUDY
        [--name NAME] [--force]

``DUMP`` is a study dump (the release, or a study an earlier ``extend`` wrote); ``BATCH``
is what ``labels merge`` wrote. ``STUDY`` is the base plus the batch:

- every file of the base that is not a project's label, year or excluded file (the
  codebook, the interview files, ``filter_keywords``, the detail files, anything else)
  is copied byte for byte;
- each project's label file ``Issue Report/<P>/<P>.csv`` is
  ``Issue_URL, Label1..LabelN, Final_Label, Batch``: the base's rows first (their cells
  as they were), then the batch's. The batch's annotators are other people, so they get
  new columns: with a base of 7 annotators and a batch of 3, ``Label1..Label7`` are the
  base's and ``Label8..Label10`` the batch's (empty on the base's rows, and the base's
  empty on the batch's): no column mixes two people. ``Batch`` names the batch each row
  came from: the base's own ``Batch`` cells, or ``release`` for a base without that
  column; the batch's name (``--name``, default the batch folder's name; a name the base
  already uses is refused) on the new rows. Every project has the same columns;
- year files: the base's lines as they were, then the batch's URLs of that year;
- excluded files (``<P>_excluded.csv``): ``Issue_URL, Created_At, Batch``, the base's rows
  then the batch's; written where the base or the batch has one;
- a project new in the batch gets its folder; a project whose candidates were all
  excluded gets its folder, a label file with the header only and its excluded file;
- ``labels/batches.json``: each batch's name, its annotator columns (and their names), its
  counts (label rows, excluded, per project), whether it records its exclusions, and the
  SHA-256 of its inputs (the base's files; the batch's sheets or export, decisions and
  merge record), and ``annotators``: each name's column; the batch's records
  (``labels/merge.json``, ``sources.json``, ``adjudication.csv``, ``annotations.csv``,
  ``comments.csv``) are kept under ``labels/<name>/``, and a base's earlier ones
  carried.

A report in both the base and the batch (the same report by
:func:`analysis.update.select.known.issue_key`: scheme, letter case, default port, doubled and
trailing slashes, leading zeros, issues or pull links, former names) is refused in one
line. The base and the batch are untrusted
and read as ingest reads a dump (:class:`~analysis.core.dumpfiles.DumpFiles`): a symbolic
link (to a file or a folder, anywhere in either), a hard link or a special file is refused
in one line naming it, before anything is written, and each file is opened once, only if
it is still the file that was checked. Their records are checked too: a base's
``labels/batches.json`` (:func:`recorded_batches`) and a batch's ``labels/merge.json``
(:func:`checked_merge_record`) of another shape are one line naming the file and the
field. An ``--out`` that exists is replaced only with ``--force``, and only when it holds
an earlier extend; the study is built aside and moved into place when complete
(:func:`analysis.core.artifacts.atomic_folder`: whatever moment a run is killed at,
``--out`` holds the earlier study or the new one, whole).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from analysis.core.artifacts import recover_folder, to_json_text
from analysis.core.csvtext import csv_text
from analysis.core.dates import ISO_DATE_RE, date_problem, year_problem
from analysis.core.dump import (
    ISSUE_DIR,
    ProjectFiles,
    decode,
    discover_projects,
    parse_excluded_file,
    parse_label_file,
)
from analysis.core.dumpfiles import DumpFiles, walked
from analysis.core.dumpsafety import quoted_name
from analysis.core.errors import InputError
from analysis.core.paths import DumpLayout
from analysis.update.labels.merge import write_folder
from analysis.update.labels.records import (
    MERGE_FIX,
    NAME_RE,
    NAME_RULE,
    RECORD_FIX,
    checked_merge_record,
    parse_json,
    recorded_batches,
)
from analysis.update.select.known import dump_issues

BATCH_COLUMN = "Batch"
RELEASE = "release"
EXCLUDED_HEADER = ["Issue_URL", "Created_At", BATCH_COLUMN]
BATCHES = "batches.json"  # in the study's labels/
READER = "labels extend"  # who reads the dumps, in messages about their files


def batches_file(root: Path) -> Path:
    """A study's record of its batches (``labels/batches.json``)."""
    return DumpLayout(Path(root)).labels / BATCHES


FORMAT = ("Issue Report/<P>/<P>.csv: Issue_URL, Label1..LabelN, Final_Label, Batch (each "
          "batch's annotators in their own Label columns, listed below); <P>_<year>.txt: "
          "the base's lines, then the batch's URLs; <P>_excluded.csv: Issue_URL, "
          "Created_At, Batch")


@dataclass
class LabelRows:
    """One label file, read: its rows as (url, {annotator number: cell}, final, batch)."""

    rel: str
    rows: list[tuple[str, dict[int, str], str, str]] = field(default_factory=list)
    columns: list[int] = field(default_factory=list)  # the annotator numbers it has
    blank_rows: int = 0


@dataclass
class Part:
    """A project's files in one dump: label rows, year files, excluded rows, and the
    bytes of each file as read (path -> bytes)."""

    labels: LabelRows
    years: dict[int, tuple[str, bytes]] = field(default_factory=dict)  # year -> (rel, bytes)
    excluded: list[tuple[str, str, str]] | None = None  # (url, created_at, batch)
    raw: dict[str, bytes] = field(default_factory=dict)


@dataclass
class Extension:
    """What ``extend`` writes: every file of the study, by path, and the batch record."""

    files: dict[str, bytes]
    copied: list[str]
    record: dict


def read_label_rows(raw: bytes, rel: str, default_batch: str | None) -> LabelRows:
    """A label file's rows (``raw``: its bytes; ``rel``: its path in the dump); a row of
    another width than its header, a column that is neither Issue_URL, Label<n>,
    Final_Label nor Batch, or a row without a batch name (where one is needed) is one
    message naming the file and line."""
    text, _ = decode(raw, rel)
    parsed = parse_label_file(text, rel)
    header = parsed.header
    if not header:
        return LabelRows(rel)
    index = {name: i for i, name in enumerate(header)}
    batch_i = next((i for i, h in enumerate(header) if h.casefold() == "batch"), None)
    known = {parsed.url_column, parsed.final_column, *parsed.annotator_columns}
    others = [h for i, h in enumerate(header) if h not in known and i != batch_i]
    if others:
        raise InputError(f"column(s) {', '.join(map(repr, others))} are neither Issue_URL, "
                         "Label<n>, Final_Label nor Batch", file=rel, line=1,
                         fix="remove them (the pipeline does not read them) and extend again")
    out = LabelRows(rel, columns=sorted(parsed.annotator_columns.values()))
    for rec in parsed.records.itertuples(index=False):
        fields = rec.fields
        if not any(f.strip() for f in fields):
            out.blank_rows += 1
            continue
        if len(fields) != len(header):
            raise InputError(f"{len(fields)} fields, the header has {len(header)}", file=rel,
                             line=int(rec.line), fix="fix the row (python -m "
                             "analysis.tools.validate lists every problem), then extend")
        batch = fields[batch_i].strip() if batch_i is not None else default_batch
        if not batch:
            raise InputError("the row names no batch", file=rel, line=int(rec.line),
                             column=BATCH_COLUMN, fix="write the batch the row came from")
        labels = {n: fields[index[name]] for name, n in parsed.annotator_columns.items()}
        out.rows.append((fields[index[parsed.url_column]], labels,
                         fields[index[parsed.final_column]], batch))
    return out


def read_part(project: ProjectFiles, dump: DumpFiles, default_batch: str | None) -> Part:
    """One project's label rows, year files and excluded rows, each file read once (as
    checked: :class:`~analysis.core.dumpfiles.DumpFiles`)."""
    label = dump.rel(project.label_file)
    raw = dump.read_bytes(label)
    part = Part(read_label_rows(raw, label, default_batch), raw={label: raw})
    for year, path in project.year_files.items():
        rel = dump.rel(path)
        if (why := year_problem(year)) is not None:
            raise InputError(f"a year file of {why}", file=rel,
                             fix="name the file for the year its issues were created in, "
                                 "or remove it")
        part.years[year] = (rel, dump.read_bytes(rel))
        part.raw[rel] = part.years[year][1]
    if project.excluded_file is not None:
        rel = dump.rel(project.excluded_file)
        part.raw[rel] = dump.read_bytes(rel)
        part.excluded = read_excluded(part.raw[rel], rel, default_batch)
    return part


def read_excluded(raw: bytes, rel: str, default_batch: str | None
                  ) -> list[tuple[str, str, str]]:
    """An excluded-candidates file's rows as (url, created_at, batch): its own Batch
    cells, else ``default_batch`` (``raw``: its bytes; ``rel``: its path in the dump)."""
    text, _ = decode(raw, rel)
    frame = parse_excluded_file(text, rel)
    header = [h.strip().casefold() for h in next(csv.reader([text.split("\n", 1)[0]]), [])]
    batch_i = header.index("batch") if "batch" in header else None
    rows = []
    for rec in frame.itertuples(index=False):
        cells = next(csv.reader(io.StringIO(rec.raw)), [])
        batch = cells[batch_i].strip() if batch_i is not None and batch_i < len(cells) else ""
        if not batch and not default_batch:
            raise InputError("the row names no batch", file=rel, line=int(rec.line),
                             column=BATCH_COLUMN, fix="write the batch the row came from")
        when = str(rec.created_at).strip()
        if ISO_DATE_RE.match(when) and (why := date_problem(when)) is not None:
            raise InputError(f"the creation date {why}", file=rel, line=int(rec.line),
                             column="Created_At", fix="write the issue's creation date")
        rows.append((rec.url, rec.created_at, batch or default_batch))
    return rows


def csv_bytes(rows: list[list[str]]) -> bytes:
    """Rows as UTF-8 CSV with LF line endings, quoted where needed
    (:func:`~analysis.core.csvtext.csv_text`)."""
    return csv_text(rows).encode("utf-8")


def digest(files: dict[str, bytes]) -> str:
    """SHA-256 over files' paths and SHA-256 (sorted by path)."""
    lines = "".join(f"{rel}\t{hashlib.sha256(data).hexdigest()}\n"
                    for rel, data in sorted(files.items()))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def check_name(name: str, used: set[str]) -> None:
    """A batch name is a plain name the base does not use yet."""
    if not NAME_RE.fullmatch(name):
        raise InputError(f"batch name {quoted_name(name)} is not a plain name", column="--name",
                         fix=f"use {NAME_RULE} (e.g. 2026-05)")
    if name in used:
        raise InputError(f"the base already has a batch named {name!r} "
                         f"(it has: {', '.join(sorted(used))})", column="--name",
                         fix="give the new batch another --name")


def check_folders(base: Path, batch: Path, out: Path, force: bool) -> None:
    """The base must be a dump, the batch a merge's output, ``out`` neither of them nor
    inside or around them, new, or (with ``force``) an earlier extend. An earlier study a
    killed run had moved aside is put back first (:func:`recover_folder`)."""
    recover_folder(out)
    if not (base / ISSUE_DIR).is_dir():
        raise InputError(f"not a study dump (no {ISSUE_DIR!r} folder)", file=str(base),
                         column="--base", fix="give the release or a study extend wrote")
    if not DumpLayout(batch).merge_record.is_file():
        raise InputError("not a batch (no labels/merge.json)", file=str(batch),
                         column="--batch", fix="give the folder labels merge wrote")
    where = out.resolve()
    for other, flag in ((base, "--base"), (batch, "--batch")):
        there = other.resolve()
        if where == there or where in there.parents or there in where.parents:
            raise InputError(f"--out is {flag} or holds it or lies inside it", file=str(out),
                             fix="write the study into a folder of its own")
    if out.exists() and not out.is_dir():
        raise InputError("--out is a file, not a folder", file=str(out),
                         fix="give a folder for the study")
    if out.is_dir() and any(out.iterdir()):
        if not batches_file(out).is_file():
            raise InputError("the folder holds files extend did not write", file=str(out),
                             fix="choose a new or empty folder for the study")
        if not force:
            raise InputError("the folder holds an earlier extend", file=str(out),
                             fix="choose another --out, or pass --force to replace it")


def overlap_problem(base: DumpFiles, batch: DumpFiles, renames: dict[str, str]
                    ) -> InputError | None:
    """A report in both the base and the batch, as one line (with how many there are)."""
    held = dump_issues(base, renames, "--base")
    new = dump_issues(batch, renames, "--batch")
    both = [key for key in new.where if key in held]
    if not both:
        return None
    first = both[0]
    return InputError(f"{len(both):,} report(s) of the batch are already in the base "
                      f"(first: {new.urls[first]}, also at {held.where[first]})",
                      file=f"{batch.root}/{new.where[first]}",
                      fix="leave them out of the batch (select --known BASE does) and merge "
                          "again, or extend another base")


def base_batches(base: DumpFiles, parts: dict[str, Part]) -> list[dict]:
    """The batches the base holds: its ``labels/batches.json`` (checked:
    :func:`recorded_batches`), or one entry a batch name of its label files (``release``
    without a Batch column)."""
    recorded = batches_file(Path()).as_posix()
    if base.is_file(recorded):
        shown = base.shown(recorded)
        return recorded_batches(parse_json(base.read_bytes(recorded), shown, RECORD_FIX),
                                shown)
    names = sorted({row[3] for p in parts.values() for row in p.labels.rows}
                   | {e[2] for p in parts.values() for e in p.excluded or ()}) or [RELEASE]
    files = {rel: data for p in parts.values() for rel, data in p.raw.items()}
    entries = []
    for name in names:
        counted = batch_counts(parts, name)
        columns = sorted({n for p in parts.values() for row in p.labels.rows
                          if row[3] == name for n, cell in row[1].items() if cell.strip()})
        entries.append({
            "name": name, "annotator_columns": [f"Label{n}" for n in columns],
            **counted, "records_exclusions": all(p.excluded is not None
                                                 for p in parts.values()),
            "inputs": {"base_files_sha256": digest(files), "base_files": len(files)}})
    return entries


def batch_counts(parts: dict[str, Part], name: str) -> dict:
    """Label rows and excluded candidates of batch ``name``, in all and per project."""
    per = {}
    for project, part in sorted(parts.items()):
        rows = sum(1 for row in part.labels.rows if row[3] == name)
        gone = sum(1 for e in part.excluded or () if e[2] == name)
        if rows or gone:
            per[project] = {"label_rows": rows, "excluded": gone}
    return {"label_rows": sum(v["label_rows"] for v in per.values()),
            "excluded": sum(v["excluded"] for v in per.values()), "projects": per}


def read_dump(dump: DumpFiles, default_batch: str | None) -> dict[str, Part]:
    """Every project of a dump, read."""
    projects, _ = discover_projects(dump)
    return {p.name: read_part(p, dump, default_batch) for p in projects}


def extend(base: Path | DumpFiles, batch: Path | DumpFiles, name: str,
           renames: dict[str, str] | None = None) -> Extension:
    """The study: the base plus the batch (see the module docstring). Both are read as
    ingest reads a dump (:class:`~analysis.core.dumpfiles.DumpFiles`: walked and checked
    first, each file then opened once, as checked); each is a folder or its walk."""
    base, batch = walked(base, READER), walked(batch, READER)
    problem = overlap_problem(base, batch, renames or {})
    if problem is not None:
        raise problem
    has_column = any(_has_batch_column(base, p.label_file)
                     for p in discover_projects(base)[0])
    old = read_dump(base, None if has_column else RELEASE)
    new = read_dump(batch, name)
    for project, part in new.items():
        if part.labels.rows and any(row[3] != name for row in part.labels.rows):
            raise InputError("the batch's label file has a Batch column",
                             file=batch.shown(part.labels.rel),
                             fix="give the folder labels merge wrote")
        folder = f"{ISSUE_DIR}/{project}"
        for file_name in batch.listing(folder)[1]:
            if not _batch_file(file_name, project):
                raise InputError("a file labels merge does not write",
                                 file=batch.shown(f"{folder}/{file_name}"),
                                 fix="move it out of the batch, then extend")
    earlier = base_batches(base, old)
    check_name(name, {e["name"] for e in earlier} | {row[3] for p in old.values()
                                                       for row in p.labels.rows})
    width = max([n for p in old.values() for n in p.labels.columns] or [0])
    layout = DumpLayout(Path())
    records = {file_name: batch.read_bytes(f"{layout.labels.name}/{file_name}")
               for file_name in batch.listing(layout.labels.name)[1]}
    merge_json = layout.merge_record.as_posix()
    if layout.merge_record.name not in records:
        raise InputError("not a batch (no labels/merge.json)", file=str(batch.root),
                         column="--batch", fix="give the folder labels merge wrote")
    shown = batch.shown(merge_json)
    record = checked_merge_record(
        parse_json(records[layout.merge_record.name], shown, MERGE_FIX), shown)
    added = int(record.get("annotators") or max(
        [n for p in new.values() for n in p.labels.columns] or [0]))
    names = list(record.get("annotator_names") or [None] * added)
    known = named_columns(earlier, base.shown(batches_file(Path()).as_posix()))
    columns = study_columns(names, known, width)
    files: dict[str, bytes] = {}
    for project in sorted(set(old) | set(new)):
        files.update(project_files(project, old.get(project), new.get(project), columns,
                                   max([width, *columns]), layout))
    copied = carried_files(base, old, files)
    for file_name, data in sorted(records.items()):
        files[f"{layout.labels.name}/{name}/{file_name}"] = data
    merge_sha256 = hashlib.sha256(records[layout.merge_record.name]).hexdigest()
    entry = {"name": name,
             "annotator_columns": [f"Label{c}" for c in columns],
             "annotator_names": names,
             **batch_counts(new, name), "records_exclusions": True,
             "undecided": record.get("undecided"), "selection": record.get("selection"),
             "inputs": {"sources": batch_sources(records, record),
                        "decisions": (record.get("decisions") or {}).get("sha256"),
                        "merge_record_sha256": merge_sha256},
             "records": f"{layout.labels.name}/{name}/"}
    known.update({n: f"Label{c}" for n, c in zip(names, columns, strict=True) if n})
    study = {"format": FORMAT, "batches": [*earlier, entry],
             "label_columns": max([width, *columns]),
             "annotators": dict(sorted(known.items()))}
    files[batches_file(Path()).as_posix()] = to_json_text(study).encode("utf-8")
    return Extension(files, copied, study)


def _has_batch_column(dump: DumpFiles, label_file: Path) -> bool:
    """Whether a label file's header names a Batch column."""
    with dump.open(label_file) as handle:
        first = handle.readline().decode("utf-8-sig", errors="replace")
    return any(c.strip().casefold() == "batch" for c in next(csv.reader([first]), []))


def _batch_file(name: str, project: str) -> bool:
    """Whether a file of a batch's project folder is one merge writes."""
    return (name in (f"{project}.csv", DumpLayout.excluded_name(project))
            or re.fullmatch(re.escape(project) + r"_\d{4}\.txt", name) is not None)


def project_files(project: str, old: Part | None, new: Part | None, columns: list[int],
                  total: int, layout: DumpLayout) -> dict[str, bytes]:
    """One project's label, year and excluded files in the study: ``columns`` are the
    study's columns of the batch's annotators 1..N, ``total`` the study's number of
    columns."""
    header = ["Issue_URL", *[f"Label{n}" for n in range(1, total + 1)],
              "Final_Label", BATCH_COLUMN]
    rows = [header]
    for part, place in ((old, lambda n: n), (new, lambda n: columns[n - 1])):
        for url, labels, final, batch in part.labels.rows if part else ():
            cells = [""] * total
            for n, cell in labels.items():
                cells[place(n) - 1] = cell
            rows.append([url, *cells, final, batch])
    label_rel = old.labels.rel if old else layout.label_file(project).as_posix()
    files = {label_rel: csv_bytes(rows)}
    years = sorted(set(old.years if old else ()) | set(new.years if new else ()))
    for year in years:
        rel, data = (old.years[year] if old and year in old.years
                     else (layout.year_file(project, year).as_posix(), b""))
        if data and not data.endswith(b"\n"):
            data += b"\n"
        if new and year in new.years:
            data += new.years[year][1]
        files[rel] = data
    if (old and old.excluded is not None) or (new and new.excluded is not None):
        excluded = [EXCLUDED_HEADER] + [list(e) for part in (old, new) if part
                                        for e in part.excluded or ()]
        files[layout.excluded_file(project).as_posix()] = csv_bytes(excluded)
    return files


def named_columns(batches: list[dict], shown: str) -> dict[str, str]:
    """Each annotator's name -> the study column of their labels, from the base's
    batches (their ``annotator_names`` beside ``annotator_columns``); a name in two
    columns, or a column of two names, is one message."""
    found: dict[str, str] = {}
    for entry in batches:
        names = entry.get("annotator_names") or []
        for column, name in zip(entry["annotator_columns"], names, strict=False):
            if not isinstance(name, str):
                continue
            if found.get(name, column) != column or any(
                    c == column and n != name for n, c in found.items()):
                raise InputError(f"batch {entry['name']!r} gives {name} the column {column}, "
                                 "which another batch gives another person", file=shown,
                                 fix=RECORD_FIX)
            found[name] = column
    return found


def study_columns(names: list[str | None], known: dict[str, str], width: int) -> list[int]:
    """The study's column of each of the batch's annotators: a known name's own, else a
    new one after the base's ``width`` columns (in the batch's order)."""
    columns, next_free = [], width
    for name in names:
        if name in known:
            columns.append(int(known[name].removeprefix("Label")))
        else:
            next_free += 1
            columns.append(next_free)
    return columns


def batch_sources(records: dict[str, bytes], record: dict) -> list[dict]:
    """The files a batch was merged from (file, kind, SHA-256): its ``sources.json``, or,
    for a batch of an earlier version, its merge record's ``sheets``."""
    try:
        sources = json.loads(records["sources.json"].decode("utf-8"))["sources"]
    except (KeyError, ValueError, TypeError):
        sources = record.get("sheets") or []
    return [{"file": s.get("file"), "kind": s.get("kind", "csv"), "sha256": s.get("sha256")}
            for s in sources if isinstance(s, dict)]


def carried_files(base: DumpFiles, parts: dict[str, Part], written: dict[str, bytes]
                  ) -> list[str]:
    """The base's other files, to copy byte for byte: every plain file (as the walk found
    them: operating-system junk is left out, as ingest leaves it) but the projects' label,
    year and excluded files and the base's batch record (written anew)."""
    layout = DumpLayout(Path())
    skip = set(written) | {batches_file(Path()).as_posix()}
    for project, part in parts.items():
        skip |= {part.labels.rel, *(rel for rel, _ in part.years.values()),
                 layout.excluded_file(project).as_posix()}
    return sorted(rel for rel in base.files if rel not in skip)


def write_study(extension: Extension, base: Path | DumpFiles, out: Path) -> None:
    """Write the study into ``out``, aside and moved into place when complete; the base's
    other files are copied as checked (:meth:`DumpFiles.copy
    <analysis.core.dumpfiles.DumpFiles.copy>`)."""
    base = walked(base, READER)
    write_folder({**{rel: partial(base.copy, rel) for rel in extension.copied},
                  **extension.files}, out, "study")


def extend_dump(base: Path, batch: Path, out: Path, name: str | None = None,
                force: bool = False, renames: dict[str, str] | None = None) -> Extension:
    """Check, extend and write: the whole ``extend`` command."""
    base, batch, out = Path(base), Path(batch), Path(out)
    check_folders(base, batch, out, force)
    base_files = DumpFiles.walk(base, READER)
    extension = extend(base_files, DumpFiles.walk(batch, READER),
                       name or batch.resolve().name, renames)
    write_study(extension, base_files, out)
    return extension
