"""Cleaning the interviewees' background sheet (``Interviewee Background.xlsx``) into one
row per participant: role split into group and title, role category of Section IV.A,
gender spelling, years of experience.

Why each step: the roles mix a group prefix with the title ("LLM User-Software
Engineer") and, in places, Chinese words; experience is written in years or months, in
words; merged cells carry one value over several rows. Every change is reported as an
anomaly of :data:`~analysis.interviews.rules.RULES`. Gender is normalised but never
published; its anomalies are counted per spelling, without rows.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

import pandas as pd

from analysis.core.errors import InputError
from analysis.core.quality import Anomaly, quirk_anomaly
from analysis.interviews.normalise import (
    canonical,
    clean_text,
    match_columns,
    parse_experience,
    translate,
    whitespace_change,
)
from analysis.interviews.params import InterviewsParams, RoleCategory
from analysis.interviews.read import Sheet
from analysis.interviews.rules import (
    BACKGROUND_COLUMNS,
    BACKGROUND_REQUIRED,
    GENDERS,
    PRIVATE_COLUMNS,
    RULES,
    Findings,
)

ORDINAL_HYPHEN_RE = re.compile(
    r"\b(first|second|third|fourth|fifth|sixth)-(year)\b", re.IGNORECASE)


def role_category(title: str, ptype: str, role_categories: list[RoleCategory]
                  ) -> tuple[str, str]:
    """(key, label) of the first ``interviews.role_categories`` entry matching the role."""
    for cat in role_categories:
        if cat.type not in (None, ptype):
            continue
        if re.search(cat.pattern, title, flags=re.IGNORECASE):
            return cat.key, cat.shown
    return "other", "other"


def split_role(role: str, groups: dict[str, str]) -> tuple[str, str]:
    """(type, title) of a role such as ``"LLM User-Software Engineer"``.

    The group prefix ends at the first ``-`` or ``:`` after it; "First-year ..." keeps its
    own hyphen because only the prefix is split off.
    """
    for prefix, ptype in sorted(groups.items(), key=lambda kv: -len(kv[0])):
        m = re.match(rf"^\s*{re.escape(prefix)}\s*[-:–—]\s*(.*)$", role, flags=re.IGNORECASE)
        if m:
            return str(ptype), m.group(1).strip()
    return "Unknown", role


BACKGROUND_TABLE_COLUMNS = [
    "sheet_row", "type", "role_raw", "role", "role_title", "role_category",
    "role_category_label", "gender_raw", "gender", "experience_raw", "experience",
    "experience_years", "responsibilities_raw", "responsibilities", "flags"]


@dataclass
class SheetFindings(Findings):
    """The sheet's findings, and the changes to its private cells (genders), counted per
    spelling without their rows."""

    private: Counter = field(default_factory=Counter)

    def cell(self, kind: str, line: int, column: str, message: str, value: object,
             flags: list[str]) -> None:
        """A change to one cell: the row is flagged with it; in a private column it is
        counted by spelling, without the row."""
        flags.append(kind)
        if column in PRIVATE_COLUMNS:
            self.private[(kind, str(value), message)] += 1
        else:
            self.note(kind, message, line, column, value)

    def private_anomalies(self) -> None:
        """The private cells' changes as anomalies, one per spelling with its count."""
        for (kind, value, message), n in sorted(self.private.items()):
            self.note(kind, f"{message} ({n} cells; rows not listed: personal data)", None,
                      "gender", value)


def clean_sheet(sheet: Sheet, params: InterviewsParams
                ) -> tuple[pd.DataFrame, list[Anomaly], list[dict], dict]:
    """Clean the background sheet into one row per participant: the table
    (:data:`BACKGROUND_TABLE_COLUMNS`: role, gender, experience and responsibilities, each
    raw and normalised), the anomalies, the rows set aside, and the file's row accounting.
    ``params`` is the params.yaml section ``interviews``."""
    found = SheetFindings(sheet.name)
    found.anomalies += [quirk_anomaly(RULES, replace(q, file=sheet.name))
                        for q in sheet.quirks]
    for name in sheet.others:
        found.note("extra_sheet", f"sheet {name!r} not read (read: {sheet.title!r})",
                   value=name)
    h, header, cols = sheet_header(sheet.rows, found)
    out, n_input = [], 0
    blank_from = 0  # the first line of the empty rows just read (0: none)
    for i in range(h + 1, len(sheet.rows)):
        line = i + 1
        raw_row = sheet.rows[i] + [None] * (len(header) - len(sheet.rows[i]))
        if not any(clean_text(v) for v in raw_row):
            blank_from = blank_from or line
            continue
        if blank_from:
            found.note("blank_row", blank_rows(blank_from, line - 1), blank_from)
            blank_from = 0
        n_input += 1
        flags: list[str] = []
        rec = read_cells(raw_row, line, cols, sheet.filled, found, flags)
        if not rec["role"]:
            found.note("no_role", "row has no role", line, "role")
            found.set_aside(line, "role", "", "no_role")
            continue
        clean_role(rec, line, params, found, flags)
        clean_gender(rec, line, found, flags)
        clean_experience(rec, line, found, flags)
        rec["responsibilities"] = rec["responsibilities"] or None
        rec["flags"] = ";".join(sorted(set(flags)))
        out.append(rec)
    if blank_from:
        found.note("blank_row", blank_rows(blank_from, len(sheet.rows)), blank_from)
    found.private_anomalies()
    frame = pd.DataFrame(out, columns=BACKGROUND_TABLE_COLUMNS)
    frame["sheet_row"] = frame["sheet_row"].astype("int64")
    frame["experience_years"] = frame["experience_years"].astype("float64")
    accounting = {"file": sheet.name, "role": "background_rows", "input": n_input,
                  "kept": len(frame), "set_aside": len(found.rejected)}
    return frame, found.anomalies, found.rejected, accounting


def sheet_header(rows: list[list], found: Findings) -> tuple[int, list[str], dict[str, int]]:
    """The header row (the first that is not blank): its index, its cleaned names and each
    known column's position; a required one missing is one message, an extra or a missing
    optional one an anomaly."""
    nonblank = [i for i, r in enumerate(rows) if any(clean_text(v) for v in r)]
    if not nonblank:
        raise InputError("the sheet is empty", file=found.rel,
                         fix="check the background workbook")
    h = nonblank[0]
    header = [clean_text(v) for v in rows[h]]
    cols, extra = match_columns(header, BACKGROUND_COLUMNS)
    missing = [c for c in BACKGROUND_REQUIRED if c not in cols]
    if missing:
        raise InputError(f"no column for {', '.join(missing)} (header: {header})",
                         file=found.rel, line=h + 1, fix="name the columns Roles, Gender, "
                         "Experience Years for LLMs, Responsibilities")
    for i in extra:
        found.note("extra_column", f"column {header[i]!r} not used", h + 1, header[i])
    for name in BACKGROUND_COLUMNS:
        if name not in cols:
            found.note("missing_column", f"no {name} column", h + 1, name)
    return h, header, cols


def read_cells(raw_row: list, line: int, cols: dict[str, int], filled: set[tuple[int, int]],
               found: SheetFindings, flags: list[str]) -> dict[str, object]:
    """A row's cells, raw and cleaned, by column: a cell a merged range filled, one with
    stray whitespace and an empty one are noted."""
    rec: dict[str, object] = {"sheet_row": line}
    for name in BACKGROUND_COLUMNS:
        raw = raw_row[cols[name]] if name in cols else None
        rec[f"{name}_raw"] = None if raw is None else str(raw)
        text = clean_text(raw)
        if name in cols and (line, cols[name] + 1) in filled:
            found.cell("merged_cell_filled", line, name, "empty cell in a merged range: "
                       f"takes the value of row {_merge_origin(filled, line, cols[name])}",
                       None, flags)
            rec[f"{name}_raw"] = None
        elif raw is not None and str(raw) != text and not isinstance(raw, int | float):
            found.cell("whitespace", line, name, whitespace_change(str(raw)), None, flags)
        if name in cols and not text and name != "role":
            found.cell("missing_value", line, name, f"empty {name}", None, flags)
        rec[name] = text
    return rec


def clean_role(rec: dict, line: int, params: InterviewsParams, found: SheetFindings,
               flags: list[str]) -> None:
    """The role: translated (``params.translations``), its group prefix split off
    (``params.groups``), its spelling normalised and its category found
    (``params.role_categories``)."""
    role, untranslated = translate(str(rec["role"]), params.translations)
    if role != rec["role"]:
        found.cell("bilingual_text", line, "role", f"translated to {role!r}", rec["role"],
                   flags)
    if untranslated:
        found.cell("untranslated_text", line, "role", f"no translation for {untranslated}",
                   rec["role"], flags)
    ptype, title = split_role(role, params.groups)
    if ptype == "Unknown":
        found.cell("unknown_group", line, "role", f"no known group prefix in {role!r}", role,
                   flags)
    fixed = ORDINAL_HYPHEN_RE.sub(lambda m: f"{m.group(1)} {m.group(2)}", title)
    if fixed != title:
        found.cell("spelling_variant", line, "role", f"{title!r} -> {fixed!r}", title, flags)
    key, label = role_category(fixed, ptype, params.role_categories)
    if key == "other":
        found.cell("unknown_role_category", line, "role", f"{fixed!r} matches no category",
                   fixed, flags)
    rec.update(type=ptype, role=role, role_title=fixed, role_category=key,
               role_category_label=label)


def clean_gender(rec: dict, line: int, found: SheetFindings, flags: list[str]) -> None:
    """The gender in its canonical spelling (normalised, never published)."""
    gender = str(rec["gender"])
    canon = canonical(gender, GENDERS) if gender else None
    if gender and canon and canon != gender:
        found.cell("spelling_variant", line, "gender", f"{gender!r} -> {canon!r}", gender,
                   flags)
    rec["gender"] = canon or gender or None


def clean_experience(rec: dict, line: int, found: SheetFindings, flags: list[str]) -> None:
    """The experience in years (written in years or months, in words)."""
    written = rec["experience"]
    years, how = parse_experience(written or None)
    if how == "months":
        found.cell("experience_months", line, "experience", f"{written!r} = {years:.4g} years",
                   written, flags)
    elif how == "no_unit":
        found.cell("experience_no_unit", line, "experience", f"{written!r} read as years",
                   written, flags)
    elif how == "unparsed" and written:
        found.cell("experience_unparsed", line, "experience",
                   f"cannot read {written!r} as years", written, flags)
    rec["experience_years"] = years


def blank_rows(first: int, last: int) -> str:
    """What the empty rows ``first`` to ``last`` are called: one anomaly for a run, so that
    a value a million rows below the table makes one line of the report, not a million."""
    return "empty row" if first == last else (
        f"empty rows {first:,}-{last:,} ({last - first + 1:,} rows)")


def _merge_origin(filled: set[tuple[int, int]], line: int, col: int) -> int:
    """The sheet row a merged value came from (the nearest row above that was not filled)."""
    r = line
    while (r, col + 1) in filled and r > 1:
        r -= 1
    return r
