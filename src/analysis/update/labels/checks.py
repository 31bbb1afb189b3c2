"""Every problem of the annotations, one message each.

A problem is an :class:`~analysis.core.errors.InputError` (file, line, column, what is
wrong, what to do); the merge writes nothing while there is one. Two kinds:

- a sheet's rows (:func:`row_problems`, run by the sheet reader): a row with more cells
  than the header, a URL that is empty or not http(s), a project that is not a plain
  folder name, a URL twice in a sheet, a label that is not a theme code of the taxonomy,
  ``excluded`` or ``unsure``, an ``excluded`` cell that is not a yes/no, a row neither
  labelled, excluded nor unsure, a confidence that is not low, medium or high, minutes
  that are no number, and a selection or an annotator that differs between rows (a Label
  Studio export's problems are its reader's: :mod:`analysis.update.labels.studio`);
- the inputs together (:func:`table_problems`, run by the merge on the readers' tables):
  the same file twice, one annotator's labels in two inputs, an input of another selection
  (one line, and nothing else said of it: its rows are not compared), a candidate one
  annotator has and another lacks, a candidate given different projects, a candidate
  without an ISO creation date (or with two), and, against the selection's candidates (a
  row deleted from every sheet changes the false-positive denominator), candidates in no
  input and rows that are no candidate, each kind in one line.

Nothing is dropped silently: a row the merge could not use is a problem, not a skip.
Long lists of the same problem in one input are cut after :data:`MAX_LISTED` messages
with a last one saying how many more there are.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd

from analysis.core.dates import date_problem
from analysis.core.errors import InputError
from analysis.core.urls import url_problem
from analysis.update.labels.annotations import (
    Read,
    created_at_by_url,
    normalise_code,
    parse_confidence,
    parse_excluded,
    parse_minutes,
)
from analysis.update.labels.codebook import EXCLUDED, UNSURE
from analysis.update.select.engine import selection_id

MAX_LISTED = 20
PROJECT_RE = re.compile(r"^[A-Za-z0-9._-]+$")
DO_NOT_EDIT = "restore it from the blank sheet (this column is not to be edited)"
LABEL_FIX = ("use a code of sheets/codebook.csv (A.1 ... C.10), excluded or unsure, or leave "
             "it empty and mark the row excluded")


def capped(problems: list[InputError], file: str, what: str) -> list[InputError]:
    """The first :data:`MAX_LISTED` problems of one kind, then one saying how many more."""
    if len(problems) <= MAX_LISTED:
        return problems
    rest = len(problems) - MAX_LISTED
    return problems[:MAX_LISTED] + [InputError(f"{rest:,} more {what}", file=file,
                                               fix="see the messages above")]


def most_common(values: pd.Series) -> str:
    """The value most rows carry (the first in sort order among equals; empty if none)."""
    return most_counted(Counter(values))


def most_counted(counts: Counter) -> str:
    """The non-empty value counted most often in ``counts`` (the first in sort order among
    equals; empty if none): the selection or annotator a sheet's rows, or an export's
    tasks, name."""
    counts = Counter({value: n for value, n in counts.items() if value})
    if not counts:
        return ""
    top = max(counts.values())
    return sorted(v for v, n in counts.items() if n == top)[0]


def cell_problems(rec, codes: set[str]) -> list[tuple[str, str, str | None, str]]:
    """The problems of one sheet row's answer cells: (kind, text, column, fix)."""
    found = []
    label = normalise_code(rec.label)
    excluded = parse_excluded(rec.excluded)
    if label and label not in codes and label not in (EXCLUDED, UNSURE):
        found.append(("label", f"{label!r} is not a theme code of the taxonomy", "label",
                      LABEL_FIX))
    if excluded is None:
        found.append(("excluded", f"{rec.excluded.strip()!r} is not a yes/no", "excluded",
                      "write x (or yes) for a false positive, leave it empty otherwise"))
    elif not excluded and not label:
        found.append(("unlabelled", "the row has no label and is not excluded (nor unsure)",
                      "label", "give a theme code, mark the row excluded (x) if it is a "
                      "false positive, or write unsure"))
    if parse_confidence(rec.confidence) is None:
        found.append(("confidence", f"{rec.confidence.strip()!r} is not a confidence",
                      "confidence", "write low, medium or high, or leave it empty"))
    if parse_minutes(rec.minutes) is False:
        found.append(("minutes", f"{rec.minutes.strip()!r} is not a number of minutes",
                      "minutes", "write the minutes spent (a number, 0 or more), or leave "
                      "it empty"))
    return found


def row_problems(rows: pd.DataFrame, name: str, codes: set[str]) -> list[InputError]:
    """The problems of one sheet's rows (see the module docstring); ``rows`` holds the
    sheet's columns as text, the line each row starts on (a workbook's row) and its
    number of cells (``n_fields``), and ``attrs["header_fields"]`` (and ``attrs["kind"]``:
    ``xlsx`` for a workbook, whose problems name rows)."""
    kinds: dict[str, list[InputError]] = defaultdict(list)
    width = rows.attrs.get("header_fields", 0)
    unit = "row" if rows.attrs.get("kind") == "xlsx" else "line"
    first_line: dict[tuple[str, str], int] = {}
    expected = {c: most_common(rows[c].str.strip()) for c in ("selection", "annotator")}
    for rec in rows.itertuples(index=False):
        def problem(kind: str, text: str, column: str | None, fix: str, rec=rec) -> None:
            kinds[kind].append(InputError(text, file=name, **{unit: int(rec.line)},
                                          column=column, fix=fix))

        if rec.n_fields > width:
            problem("wide", f"{rec.n_fields} cells, the header has {width}", None,
                    "remove the stray cells (or quote a value holding the delimiter)")
        url, project = rec.url.strip(), rec.project.strip()
        if not url:
            problem("url", "the row has no url", "url", DO_NOT_EDIT)
        elif (why := url_problem(url)) is not None:
            problem("url", why, "url", DO_NOT_EDIT)
        if not PROJECT_RE.match(project):
            problem("project", f"project {project!r} is not a plain folder name", "project",
                    DO_NOT_EDIT)
        key = (project, url)
        if url and key in first_line:
            problem("duplicate", f"{url} is also on {unit} {first_line[key]}", "url",
                    "keep one row per candidate")
        first_line.setdefault(key, int(rec.line))
        for kind, text, column, fix in cell_problems(rec, codes):
            problem(kind, text, column, fix)
        for column in ("selection", "annotator"):
            value = getattr(rec, column).strip()
            if value != expected[column]:
                problem(column, f"{column} {value or 'empty'!r}, the sheet's other rows say "
                        f"{expected[column]!r}", column, DO_NOT_EDIT)
    out: list[InputError] = []
    for kind, found in kinds.items():
        out += capped(found, name, f"problems of the same kind ({kind})")
    return out


def same_files(paths: list[Path], reads: list[Read]) -> list[InputError]:
    """An input given twice (the same file by another name too)."""
    problems, seen = [], {}
    for path, read in zip(paths, reads, strict=True):
        real = Path(path).resolve()
        if real in seen:
            problems.append(InputError(f"the same file as {seen[real]}", file=read.source.name,
                                       fix="give each annotator's sheet once"))
        seen.setdefault(real, read.source.name)
    return problems


def is_blank(read: Read) -> bool:
    """Whether an input has rows but not one answer (a label, excluded or unsure): a
    sheet as ``labels sheets`` wrote it, never filled."""
    table = read.table
    return len(table) > 0 and not (table["label"].astype(str).str.strip().ne("").any()
                                   or table["excluded"].astype(bool).any()
                                   or table["unsure"].astype(bool).any())


def blank_problems(paths: list[Path], reads: list[Read]) -> list[InputError]:
    """One line for each blank input (:func:`is_blank`), saying whether a filled sheet of
    the same name lies beside it (``annotator_chen.xlsx`` next to the
    ``annotator_chen.csv`` chen saved from it): said first, in place of a line for each of
    its unanswered rows."""
    problems = []
    for path, read in zip(paths, reads, strict=True):
        if not is_blank(read):
            continue
        twins = [Path(q).name for q, r in zip(paths, reads, strict=True)
                 if Path(q) != Path(path) and Path(q).parent == Path(path).parent
                 and Path(q).stem == Path(path).stem and not is_blank(r)]
        fix = (f"it lies beside {twins[0]}, which holds the answers: delete the blank "
               f"{Path(path).name}" if twins else
               "fill it, or take it out of the batch's sheets")
        problems.append(InputError(f"blank: none of its {len(read.table)} rows has a label, "
                                   "excluded or unsure", file=read.source.name, fix=fix))
    return problems


def foreign_problems(reads: list[Read], selection: str, said: str) -> list[InputError]:
    """One line for each input of another selection than ``selection`` (``said``: where
    that selection comes from)."""
    return [InputError(f"a sheet of another selection ({r.source.selection or 'no id'}; "
                       f"{said} is {selection})", file=r.source.name, column="selection",
                       fix="merge the sheets of one selection only (or pass --selection the "
                           "candidates.csv they were made from)")
            for r in reads if r.source.selection != selection]


def twice_problems(reads: list[Read]) -> list[InputError]:
    """One annotator's labels in two inputs."""
    holder: dict[str, str] = {}
    problems = []
    for read in reads:
        for annotator in read.source.annotators:
            if annotator in holder:
                problems.append(InputError(
                    f"the labels of {annotator} are in {holder[annotator]} too",
                    file=read.source.name, column="annotator",
                    fix="give each annotator's labels once"))
            holder.setdefault(annotator, read.source.name)
    return problems


def missing_problems(reads: list[Read]) -> list[InputError]:
    """A candidate one annotator has and another lacks, and a candidate under two
    projects (one input's own list of each cut after :data:`MAX_LISTED`)."""
    union: dict[str, str] = {}
    holders: dict[str, list[str]] = defaultdict(list)
    for read in reads:
        for url, project in zip(read.table["url"], read.table["project"], strict=True):
            union.setdefault(url, project)
            if read.source.name not in holders[url]:
                holders[url].append(read.source.name)
    problems = []
    for read in reads:
        for annotator in read.source.annotators:
            mine = read.table[read.table["annotator"] == annotator]
            have = dict(zip(mine["url"], mine["project"], strict=True))
            who = "" if read.source.kind != "label-studio" else f" by {annotator}"
            found = [InputError(f"{url} (in {', '.join(holders[url])}) is missing from this "
                                f"{'export' if who else 'sheet'}{who}", file=read.source.name,
                                fix=("label it in Label Studio and export again" if who else
                                     "restore the row from the blank sheet and label it"))
                     for url in union if url not in have]
            problems += capped(found, read.source.name, "candidates missing")
            moved = [InputError(f"{url} is under project {have[url]!r} here, {union[url]!r} "
                                "in another sheet", file=read.source.name, column="project",
                                fix=DO_NOT_EDIT)
                     for url in have if have[url] != union[url]]
            problems += capped(moved, read.source.name, "candidates under another project")
    return problems


def created_problems(table: pd.DataFrame) -> list[InputError]:
    """Candidates without exactly one ISO creation date across the inputs, or with one a
    study cannot hold (:func:`analysis.core.dates.date_problem`: select sets such issues
    aside, so the date was edited or forged)."""
    found = []
    for url, dates in created_at_by_url(table).items():
        if not dates:
            found.append(InputError(f"{url} has no ISO creation date (YYYY-MM-DD...) in any "
                                    "sheet", column="created_at",
                                    fix="copy created_at from the blank sheet into one sheet"))
        elif len(dates) > 1:
            found.append(InputError(f"{url} has different creation dates in the sheets: "
                                    + ", ".join(sorted(dates)), column="created_at",
                                    fix=DO_NOT_EDIT))
        elif (why := date_problem(next(iter(dates)))) is not None:
            found.append(InputError(f"{url}: the creation date {why}", column="created_at",
                                    fix=DO_NOT_EDIT))
    return capped(found, "sheets", "candidates with a creation-date problem")


def candidate_problems(table: pd.DataFrame, candidates: pd.DataFrame,
                       name: str) -> list[InputError]:
    """The inputs' rows against their selection's candidates (read from ``name``): a
    candidate in no input, or a row that is no candidate, is one line for all of them."""
    rows = set(table["url"])
    wanted = [u.strip() for u in candidates["url"].astype(str)]
    problems = []
    gone = [u for u in wanted if u not in rows]
    if gone:
        problems.append(InputError(
            f"{len(gone):,} candidate(s) of the selection are in no sheet (first: {gone[0]}): "
            "a row deleted from every sheet would change the false-positive denominator",
            file=name, fix="restore the rows from a blank sheet (labels sheets writes them "
                           "again), label them, and merge again"))
    extra = sorted(rows - set(wanted))
    if extra:
        problems.append(InputError(
            f"{len(extra):,} row(s) of the sheets are not candidates of the selection "
            f"(first: {extra[0]})", file=name,
            fix="remove the rows added to the sheets, or pass --selection the candidates.csv "
                "the sheets were made from"))
    return problems


def reference_selection(reads: list[Read], candidates: pd.DataFrame | None,
                        name: str | None) -> tuple[str, str]:
    """The selection the inputs must be of, and where it comes from: the candidates' (when
    given), else the one most inputs carry (the first of them named)."""
    if candidates is not None:
        return selection_id(candidates), name or "the selection"
    chosen = most_common(pd.Series([r.source.selection for r in reads], dtype=object))
    first = next((r.source.name for r in reads if r.source.selection == chosen), "")
    return chosen, first


def table_problems(reads: list[Read], paths: list[Path] | None = None,
                   candidates: pd.DataFrame | None = None,
                   candidates_name: str | None = None) -> list[InputError]:
    """Every problem of the inputs together (see the module docstring), the row problems
    of the inputs of the selection first. An input of another selection is one line:
    neither its rows nor its absence from the others are reported."""
    problems = same_files(paths, reads) if paths else []
    blank = blank_problems(paths, reads) if paths else []
    if blank:  # said first; the blank inputs' rows are not reported one by one
        kept = [(p, r) for p, r in zip(paths, reads, strict=True) if not is_blank(r)]
        return blank + (table_problems([r for _, r in kept], [p for p, _ in kept],
                                                 candidates, candidates_name) if kept else [])
    selection, said = reference_selection(reads, candidates, candidates_name)
    theirs = most_common(pd.Series([r.source.selection for r in reads], dtype=object))
    if candidates is not None and reads and theirs != selection:
        return problems + [InputError(
            f"the sheets are of selection {theirs}, this file is {selection}",
            file=candidates_name or "candidates.csv",
            fix="pass --selection the candidates.csv the sheets were made from (or "
                "--selection none)")]
    problems += foreign_problems(reads, selection, said)
    ours = [r for r in reads if r.source.selection == selection]
    for read in ours:
        problems += read.problems
    problems += twice_problems(ours) + missing_problems(ours)
    table = pd.concat([r.table for r in ours], ignore_index=True)
    problems += created_problems(table)
    if candidates is not None and not problems:
        problems += candidate_problems(table, candidates, candidates_name or "candidates.csv")
    return problems
