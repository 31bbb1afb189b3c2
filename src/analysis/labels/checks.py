"""Every problem of a set of filled labelling sheets, one message each.

A problem is an :class:`~analysis.core.errors.InputError` (sheet, line, column, what is
wrong, what to do); the merge writes nothing while there is one. Checked per sheet: a row
with more cells than the header, a URL that is empty or not http(s), a project that is not
a plain folder name, a URL twice in a sheet, a label that is not a theme code of the
taxonomy, an ``excluded`` cell that is not a yes/no, a row neither labelled nor excluded, a
selection id that differs between rows; across sheets: the same file twice, sheets of
different selections, a candidate in one sheet and not in another, a candidate given
different projects, and a candidate without an ISO creation date in any sheet (or with
two different ones); against the selection the sheets name (the candidates select wrote:
:func:`selection_problems`), a selection that is not theirs, a candidate in no sheet (a
row deleted from every sheet, which would change the false-positive denominator) and a
row that is no candidate, each kind in one line.

Nothing is dropped silently: a row the merge could not use is a problem, not a skip.
Long lists of the same problem in one sheet are cut after :data:`MAX_LISTED` messages
with a last one saying how many more there are.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pandas as pd

from analysis.core.dump import URL_RE
from analysis.core.errors import InputError
from analysis.labels.sheets import Sheet, normalise_code, parse_excluded, selection_id

MAX_LISTED = 20
PROJECT_RE = re.compile(r"^[A-Za-z0-9._-]+$")
ISO_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")
DO_NOT_EDIT = "restore it from the blank sheet (this column is not to be edited)"


def capped(problems: list[InputError], file: str, what: str) -> list[InputError]:
    """The first :data:`MAX_LISTED` problems of one kind, then one saying how many more."""
    if len(problems) <= MAX_LISTED:
        return problems
    rest = len(problems) - MAX_LISTED
    return problems[:MAX_LISTED] + [InputError(f"{rest:,} more {what}", file=file,
                                               fix="see the messages above")]


def row_problems(sheet: Sheet, codes: set[str]) -> list[InputError]:
    """The problems of one sheet's rows (see the module docstring)."""
    kinds: dict[str, list[InputError]] = defaultdict(list)
    rows = sheet.rows
    width = rows.attrs.get("header_fields", 0)
    first_line: dict[tuple[str, str], int] = {}
    expected_sel = sheet_selection(sheet)
    for rec in rows.itertuples(index=False):
        def problem(kind: str, text: str, column: str | None, fix: str,
                    rec=rec) -> None:
            kinds[kind].append(InputError(text, file=sheet.name, line=int(rec.line),
                                          column=column, fix=fix))

        if rec.n_fields > width:
            problem("wide", f"{rec.n_fields} cells, the header has {width}", None,
                    "remove the stray cells (or quote a value holding the delimiter)")
        url, project = rec.url.strip(), rec.project.strip()
        if not url:
            problem("url", "the row has no url", "url", DO_NOT_EDIT)
        elif not URL_RE.match(url):
            problem("url", f"{url!r} is not an http(s) URL", "url", DO_NOT_EDIT)
        if not PROJECT_RE.match(project):
            problem("project", f"project {project!r} is not a plain folder name", "project",
                    DO_NOT_EDIT)
        key = (project, url)
        if url and key in first_line:
            problem("duplicate", f"{url} is also on line {first_line[key]}", "url",
                    "keep one row per candidate")
        first_line.setdefault(key, int(rec.line))
        label = normalise_code(rec.label)
        excluded = parse_excluded(rec.excluded)
        if label and label not in codes:
            problem("label", f"{label!r} is not a theme code of the taxonomy", "label",
                    "use a code of sheets/codes.csv (A.1 ... C.10), or leave it empty and "
                    "mark the row excluded")
        if excluded is None:
            problem("excluded", f"{rec.excluded.strip()!r} is not a yes/no", "excluded",
                    "write x (or yes) for a false positive, leave it empty otherwise")
        elif not excluded and not label:
            problem("unlabelled", "the row has no label and is not excluded", "label",
                    "give a theme code, or mark the row excluded (x) if it is a false "
                    "positive")
        sel = rec.selection.strip()
        if sel != expected_sel:
            problem("selection", f"selection {sel or 'empty'!r}, the sheet's other rows "
                    f"say {expected_sel!r}", "selection", DO_NOT_EDIT)
    out: list[InputError] = []
    for kind, found in kinds.items():
        out += capped(found, sheet.name, f"problems of the same kind ({kind})")
    return out


def sheet_selection(sheet: Sheet) -> str:
    """The selection id most rows of a sheet carry (empty if none)."""
    values = sheet.rows["selection"].str.strip()
    modes = values[values != ""].mode()
    return sorted(modes)[0] if len(modes) else ""


def keys_of(sheet: Sheet) -> dict[str, str]:
    """url -> project for a sheet's rows with a URL (first row of a URL wins)."""
    out: dict[str, str] = {}
    for url, project in zip(sheet.rows["url"].str.strip(), sheet.rows["project"].str.strip(),
                            strict=True):
        if url:
            out.setdefault(url, project)
    return out


def cross_sheet_problems(sheets: list[Sheet], paths: list[Path] | None = None
                         ) -> list[InputError]:
    """The problems between sheets (see the module docstring); ``paths`` (as given) find
    the same file named twice."""
    problems: list[InputError] = []
    if paths:
        seen: dict[Path, str] = {}
        for path, sheet in zip(paths, sheets, strict=True):
            real = Path(path).resolve()
            if real in seen:
                problems.append(InputError(f"the same file as {seen[real]}", file=sheet.name,
                                           fix="give each annotator's sheet once"))
            seen.setdefault(real, sheet.name)
    selections = [sheet_selection(s) for s in sheets]
    if len(set(selections)) > 1:
        for sheet, sel in zip(sheets[1:], selections[1:], strict=True):
            if sel != selections[0]:
                problems.append(InputError(
                    f"a sheet of another selection ({sel or 'no id'}; {sheets[0].name} is "
                    f"{selections[0] or 'no id'})", file=sheet.name, column="selection",
                    fix="merge the sheets of one selection only"))
    keys = [keys_of(s) for s in sheets]
    union: dict[str, str] = {}
    for k in keys:
        for url, project in k.items():
            union.setdefault(url, project)
    holders: dict[str, list[str]] = defaultdict(list)
    for sheet, k in zip(sheets, keys, strict=True):
        for url in k:
            holders[url].append(sheet.name)
    for sheet, k in zip(sheets, keys, strict=True):
        found = [InputError(f"{url} (in {', '.join(holders[url])}) is missing from this "
                            "sheet", file=sheet.name,
                            fix="restore the row from the blank sheet and label it")
                 for url in union if url not in k]
        problems += capped(found, sheet.name, "candidates missing from this sheet")
        moved = [InputError(f"{url} is under project {k[url]!r} here, {union[url]!r} in "
                            "another sheet", file=sheet.name, column="project",
                            fix=DO_NOT_EDIT)
                 for url in k if k[url] != union[url]]
        problems += capped(moved, sheet.name, "candidates under another project")
    problems += created_problems(sheets)
    return problems


def created_at_by_url(sheets: list[Sheet]) -> dict[str, set[str]]:
    """url -> the ISO creation dates the sheets give it (a spreadsheet program may have
    reformatted the column in some sheets; those values are not ISO and are not used)."""
    found: dict[str, set[str]] = defaultdict(set)
    for sheet in sheets:
        for url, created in zip(sheet.rows["url"].str.strip(),
                                sheet.rows["created_at"].str.strip(), strict=True):
            if url:
                found[url]  # noqa: B018 (every URL gets an entry, even without a date)
                if ISO_DATE_RE.match(created):
                    found[url].add(created)
    return dict(found)


def created_problems(sheets: list[Sheet]) -> list[InputError]:
    """Candidates without exactly one ISO creation date across the sheets."""
    found = []
    for url, dates in created_at_by_url(sheets).items():
        if not dates:
            found.append(InputError(f"{url} has no ISO creation date (YYYY-MM-DD...) in any "
                                    "sheet", column="created_at",
                                    fix="copy created_at from the blank sheet into one sheet"))
        elif len(dates) > 1:
            found.append(InputError(f"{url} has different creation dates in the sheets: "
                                    + ", ".join(sorted(dates)), column="created_at",
                                    fix=DO_NOT_EDIT))
    return capped(found, "sheets", "candidates with a creation-date problem")


def check_sheets(sheets: list[Sheet], codes: set[str],
                 paths: list[Path] | None = None) -> list[InputError]:
    """Every problem of the sheets, per sheet then across them."""
    problems: list[InputError] = []
    for sheet in sheets:
        problems += row_problems(sheet, codes)
    return problems + cross_sheet_problems(sheets, paths)


def labels_frame(sheet: Sheet) -> pd.DataFrame:
    """A checked sheet's decisions: url (index), project, label (normalised code or
    empty), excluded (bool)."""
    rows = sheet.rows
    return pd.DataFrame({
        "project": rows["project"].str.strip().to_numpy(),
        "label": rows["label"].map(normalise_code).to_numpy(),
        "excluded": rows["excluded"].map(parse_excluded).astype(bool).to_numpy(),
    }, index=pd.Index(rows["url"].str.strip(), name="url"))


def selection_problems(sheets: list[Sheet], candidates: pd.DataFrame,
                       name: str) -> list[InputError]:
    """The sheets against their selection (``candidates``, read from ``name``): the
    selection must be the one the sheets name, and its candidates the sheets' rows; a
    candidate in no sheet, or a row that is no candidate, is one line for all of them."""
    expected, found = sheet_selection(sheets[0]), selection_id(candidates)
    if expected and expected != found:
        return [InputError(f"the sheets are of selection {expected}, this file is {found}",
                           file=name, fix="pass --selection the candidates.csv the sheets "
                                          "were made from (or --selection none)")]
    rows = {url for sheet in sheets for url in keys_of(sheet)}
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
