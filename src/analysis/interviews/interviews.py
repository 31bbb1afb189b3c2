"""Interviews (Section IV of the paper): participants, the codebook, and their taxonomy links.

Three released files describe the interviews: ``Interviewee Background.xlsx`` (one row per
participant: role, gender, years of LLM experience, responsibilities), ``CodeBook.csv``
(one row per participant: type, experience level, framework context, a quote, the linked
taxonomy nodes, an insight) and ``Interview GuideLine.md`` (the protocol). This module
cleans the first two into tidy tables, checks every linked node against the taxonomy,
builds the views the report shows, and computes the values that check Section IV.A.

Decisions the data forces:

- The two files share no participant key, and their row order does not line up (the
  codebook calls five users *Beginner*, the sheet lists one user under one year), so they
  are never joined; group sizes are compared instead.
- A node the taxonomy does not have (``C.11``, ``B.5``) is kept and flagged: the paper's
  Section IV.C reports categories the interviewees suggested, and these may be them.
- Gender is normalised in the processed data (nothing is lost) but never published: the
  paper reports no genders, and no claim needs them. Anomalies on that column are reported
  per spelling, without rows, and pronouns in published responsibilities are neutralised.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.core.dump import decode
from analysis.core.errors import InputError
from analysis.core.figures import PAGE_WIDTH_IN, apply_style
from analysis.core.quality import (
    IGNORED,
    KEPT,
    SET_ASIDE,
    Anomaly,
    Rule,
    make_anomaly,
    quality_report,
)
from analysis.core.taxonomy import Taxonomy, theme_sort_key

RULES: dict[str, Rule] = {
    # both files
    "utf8_bom": Rule(KEPT, "info", "The file starts with a UTF-8 byte-order mark; removed."),
    "crlf_line_endings": Rule(KEPT, "info", "Windows (CRLF) line endings; normalised to LF."),
    "cr_line_endings": Rule(KEPT, "info", "Old Mac (CR) line endings; normalised to LF."),
    "whitespace": Rule(KEPT, "info", "Leading or trailing whitespace or line breaks around a "
                       "value, or a run of whitespace inside it; trimmed and collapsed (the "
                       "raw value is kept next to the normalised one)."),
    "missing_column": Rule(KEPT, "warning", "An optional column is absent; its values are "
                           "left empty."),
    "extra_column": Rule(IGNORED, "info", "A column the stage does not use; not read."),
    "blank_row": Rule(IGNORED, "info", "An empty row; not data."),
    "missing_value": Rule(KEPT, "warning", "An empty cell (outside any merged range); left "
                          "empty."),
    # background sheet
    "extra_sheet": Rule(IGNORED, "info", "The workbook has more than one sheet; only the "
                        "configured one (default: the first) is read."),
    "merged_cell_filled": Rule(KEPT, "info", "A cell inside a merged range is empty in the "
                               "file: a merged cell continues the one above, so it takes the "
                               "value of the range's first cell."),
    "spelling_variant": Rule(KEPT, "info", "A value spelled differently from its canonical "
                             "form (letter case, hyphenation); normalised, raw value kept."),
    "bilingual_text": Rule(KEPT, "info", "Non-English (CJK) words in a value; known words are "
                           "translated (interviews.translations), the raw value kept."),
    "untranslated_text": Rule(KEPT, "warning", "CJK text without a known translation; kept "
                              "as it is."),
    "experience_months": Rule(KEPT, "info", "Experience given in months (or years and "
                              "months); converted to years (months / 12)."),
    "experience_no_unit": Rule(KEPT, "warning", "Experience given as a bare number; read as "
                               "years."),
    "experience_unparsed": Rule(KEPT, "warning", "Experience that is not a number with a "
                                "unit; the years are left empty."),
    "unknown_group": Rule(KEPT, "warning", "The role does not start with a known group prefix "
                          "(interviews.groups); the participant's type is 'Unknown'."),
    "unknown_role_category": Rule(KEPT, "warning", "The role matches no pattern of "
                                  "interviews.role_categories; its category is 'other'."),
    "no_role": Rule(SET_ASIDE, "error", "A row with data but no role: the participant cannot "
                    "be placed in a group."),
    # codebook
    "malformed_row": Rule(SET_ASIDE, "error", "A codebook row whose number of fields differs "
                          "from the header's."),
    "missing_participant": Rule(SET_ASIDE, "error", "A codebook row without a participant "
                                "id."),
    "duplicate_participant": Rule(KEPT, "warning", "The same participant id on several rows; "
                                  "every row is kept."),
    "unknown_type": Rule(KEPT, "warning", "A participant type other than User or Developer; "
                         "kept as given."),
    "type_prefix_mismatch": Rule(KEPT, "warning", "The id's letter (U/D) disagrees with the "
                                 "Type column; the Type column is used."),
    "unknown_experience_level": Rule(KEPT, "warning", "An experience level other than "
                                     "Beginner, Intermediate or Advanced; kept as given."),
    "no_nodes": Rule(KEPT, "warning", "A participant linked to no taxonomy node."),
    "node_respelled": Rule(KEPT, "info", "A node code written differently from the taxonomy's "
                           "form (e.g. 'c.3', 'C3'); normalised to 'C.3'."),
    "node_malformed": Rule(SET_ASIDE, "error", "A linked node that is not a code like 'C.3'; "
                           "the link is set aside."),
    "duplicate_node": Rule(SET_ASIDE, "info", "The same node twice in one row; the repeat is "
                           "set aside."),
    "node_not_in_taxonomy": Rule(KEPT, "warning", "A well-formed node code that "
                                 "data/taxonomy.yaml does not have. Kept and shown apart: it may "
                                 "be a category the interviews added (Section IV.C reports "
                                 "new categories suggested by interviewees)."),
    # across files
    "no_shared_key": Rule(KEPT, "info", "The background sheet and the codebook share no "
                          "participant id and their row orders do not line up; the files are "
                          "not joined, only group sizes are compared."),
    "group_size_mismatch": Rule(KEPT, "warning", "The background sheet and the codebook count "
                                "different numbers of participants in a group."),
    # guideline
    "raw_html": Rule(KEPT, "info", "Raw HTML in the guideline; '<' is escaped so it shows as "
                     "text."),
}

TYPES = ("User", "Developer")
LEVELS = ("Beginner", "Intermediate", "Advanced")
GENDERS = ("Female", "Male")
# Columns whose values are personal and unpublished: anomalies name the spelling, not the row.
PRIVATE_COLUMNS = ("gender",)
GROUP_COLOURS = {"User": "#0072B2", "Developer": "#E69F00"}

# canonical name -> accepted header spellings (compared after :func:`header_key`)
BACKGROUND_COLUMNS = {
    "role": ("roles", "role"),
    "gender": ("gender", "sex"),
    "experience": ("experience years for llms", "experience years", "experience",
                   "years of experience"),
    "responsibilities": ("responsibilities", "responsibility"),
}
BACKGROUND_REQUIRED = ("role", "experience")
CODEBOOK_COLUMNS = {
    "participant": ("participant", "participant id", "id"),
    "type": ("type", "participant type"),
    "experience_level": ("experience level", "level"),
    "framework_context": ("framework context", "framework"),
    "prompt_category": ("prompt category", "category"),
    "quote": ("thematic quote", "quote"),
    "nodes": ("linked taxonomy node s", "linked taxonomy nodes", "linked nodes", "nodes"),
    "insight": ("research insight", "insight"),
}
CODEBOOK_REQUIRED = ("participant", "type", "nodes")

CJK_RE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+")
BLOCK_START_RE = re.compile(r"^([-*+]\s|\d+[.)]\s|#|>|---|\*\*\*|___|```)")
LIST_ITEM_RE = re.compile(r"^([-*+]|\d+[.)])\s")
NODE_RE = re.compile(r"^\s*([A-Za-z])\s*[.\-_ ]?\s*(\d+)\s*$")
NODE_SPLIT_RE = re.compile(r"[,;，；、]+")
ORDINAL_HYPHEN_RE = re.compile(
    r"\b(first|second|third|fourth|fifth|sixth)-(year)\b", re.IGNORECASE)
EXPERIENCE_PAIR_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([^\d\s.,]*)")
UNIT_YEARS = {
    "year": 1.0, "years": 1.0, "yr": 1.0, "yrs": 1.0, "y": 1.0, "年": 1.0,
    "month": 1 / 12, "months": 1 / 12, "mo": 1 / 12, "mos": 1 / 12, "m": 1 / 12,
    "个月": 1 / 12, "月": 1 / 12,
}
PRONOUNS = {"he": "the participant", "she": "the participant", "his": "their",
            "her": "their", "him": "them", "himself": "themselves", "herself": "themselves",
            "hers": "theirs"}


@dataclass
class InterviewData:
    """The cleaned interview files and their quality report."""

    background: pd.DataFrame  # one row per participant of the background sheet
    codebook: pd.DataFrame  # one row per participant of the codebook
    nodes: pd.DataFrame  # one row per (participant, linked node)
    rejected: pd.DataFrame  # rows and node links set aside, with the reason
    quality: dict
    guideline_md: str = ""  # the guideline as safe Markdown (report material)
    questions: pd.DataFrame | None = None  # the guideline's questions


# --------------------------------------------------------------------------- text helpers

def header_key(name: object) -> str:
    """Fold a column header for matching: case, punctuation and whitespace do not count."""
    text = unicodedata.normalize("NFKC", str(name or "")).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def clean_text(value: object) -> str:
    """Trim a cell and collapse every run of whitespace (line breaks included) to a space."""
    if value is None:
        return ""
    text = unicodedata.normalize("NFC", str(value))
    return " ".join(text.split())


def whitespace_change(raw: str) -> str:
    """Say what :func:`clean_text` changes in ``raw`` (without repeating the value, which
    may be long or personal): e.g. "trailing line break removed"."""
    parts = []
    lead, trail = raw[: len(raw) - len(raw.lstrip())], raw[len(raw.rstrip()):]
    for where, ws in (("leading", lead), ("trailing", trail)):
        if ws:
            kind = "line break" if ("\n" in ws or "\r" in ws) else "whitespace"
            parts.append(f"{where} {kind} removed")
    inner = raw.strip()
    if inner != " ".join(inner.split()):
        parts.append("whitespace inside collapsed")
    return ", ".join(parts) or "Unicode normalised"


def translate(text: str, translations: dict[str, str]) -> tuple[str, list[str]]:
    """Replace known CJK words (``或`` -> ``or``); return the text and what stays untranslated.

    Why: the roles of the sheet mix English and Chinese ("... Engineer 或 Open-source ...");
    the report is English, so known words are translated and anything else is flagged.
    """
    for word, english in sorted(translations.items(), key=lambda kv: -len(kv[0])):
        text = re.sub(rf"\s*{re.escape(word)}\s*", f" {english} ", text)
    text = " ".join(text.split())
    return text, CJK_RE.findall(text)


def parse_experience(value: object) -> tuple[float | None, str | None]:
    """Years of experience from a cell such as ``"3 years"``, ``"8 Months"``, ``1.5``.

    Returns (years, note) where note is None for a plain value in years, ``"months"`` when
    months were converted, ``"no_unit"`` for a bare number, ``"unparsed"`` when no number
    with a known unit was found (years None). "1 year 6 months" adds up to 1.5.
    """
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None, "unparsed"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value), "no_unit"
    text = clean_text(value).casefold().replace(",", " ")
    text = re.sub(r"\band\b|\+", " ", text)
    pairs = EXPERIENCE_PAIR_RE.findall(text)
    rest = EXPERIENCE_PAIR_RE.sub(" ", text).strip()
    if not pairs or rest:
        return None, "unparsed"
    if len(pairs) == 1 and not pairs[0][1]:
        return float(pairs[0][0]), "no_unit"
    total, months = 0.0, False
    for number, unit in pairs:
        if unit not in UNIT_YEARS:
            return None, "unparsed"
        months |= UNIT_YEARS[unit] != 1.0
        total += float(number) * UNIT_YEARS[unit]
    return total, ("months" if months else None)


def canonical(value: str, choices: tuple[str, ...]) -> str | None:
    """The canonical spelling of ``value`` among ``choices`` ignoring case, or None."""
    folded = {c.casefold(): c for c in choices}
    return folded.get(value.casefold())


def neutral_pronouns(text: str) -> str:
    """Replace gendered pronouns by neutral ones, so published text does not reveal gender.

    "He is responsible" -> "The participant is responsible"; "her work" -> "their work".
    Third-person singular keeps the verbs grammatical.
    """
    def repl(match: re.Match) -> str:
        word = match.group(0)
        new = PRONOUNS[word.casefold()]
        return new[0].upper() + new[1:] if word[0].isupper() else new

    return re.sub(r"\b(" + "|".join(PRONOUNS) + r")\b", repl, text, flags=re.IGNORECASE)


def node_sort_key(code: str) -> tuple[str, int, str]:
    """Sort node codes as the taxonomy does (``C.10`` after ``C.9``), malformed last."""
    letter, number = theme_sort_key(code)
    return (letter, number, code)


def participant_sort_key(pid: str, ptype: str = "") -> tuple[int, bool, str, int, str]:
    """Users first, then developers, then others; ``U2`` before ``U10``; within a type,
    ids with the type's letter (U for users) before others."""
    type_rank = TYPES.index(ptype) if ptype in TYPES else len(TYPES)
    m = re.match(r"^([A-Za-z]*)(\d+)$", pid)
    prefix = m.group(1) if m else pid
    return (type_rank, prefix.upper() != ptype[:1].upper(), prefix,
            int(m.group(2)) if m else 0, pid)


def _match_columns(header: list[str], spec: dict[str, tuple[str, ...]]
                   ) -> tuple[dict[str, int], list[int]]:
    """Map canonical column names to header positions; also return unused positions."""
    keys = [header_key(h) for h in header]
    found: dict[str, int] = {}
    for name, spellings in spec.items():
        for i, key in enumerate(keys):
            if key in spellings and i not in found.values():
                found[name] = i
                break
    extra = [i for i, key in enumerate(keys) if key and i not in found.values()]
    return found, extra


# --------------------------------------------------------------------------- background

def read_sheet(path: Path, sheet: str | None = None
               ) -> tuple[list[list[object]], set[tuple[int, int]], list[str], str]:
    """Cell values of one sheet (merged ranges filled from their first cell).

    Returns the rows (1-based row r is ``rows[r - 1]``), the (row, col) cells filled from a
    merged range because they were empty, the other sheet names, and the sheet read.
    """
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

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
    return rows, filled, others, ws.title


def role_category(title: str, ptype: str, categories: list[dict]) -> tuple[str, str]:
    """(key, label) of the first ``interviews.role_categories`` entry matching the role."""
    for cat in categories:
        if cat.get("type") not in (None, ptype):
            continue
        if re.search(str(cat["pattern"]), title, flags=re.IGNORECASE):
            return str(cat["key"]), str(cat.get("label", cat["key"]))
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


def clean_background(path: Path, rel: str, params: dict
                     ) -> tuple[pd.DataFrame, list[Anomaly], list[dict], dict]:
    """Clean the background sheet into one row per participant.

    Returns the table (``sheet_row``, ``type``, role, gender, experience and
    responsibilities, each raw and normalised, ``flags``), the anomalies, the rows set
    aside, and the file's row accounting.
    """
    rows, filled, others, sheet = read_sheet(path, params.get("sheet"))
    anomalies: list[Anomaly] = []
    for name in others:
        anomalies.append(make_anomaly(RULES, "extra_sheet", rel, f"sheet {name!r} not read "
                                      f"(read: {sheet!r})", value=name))
    nonblank = [i for i, r in enumerate(rows) if any(clean_text(v) for v in r)]
    if not nonblank:
        raise InputError("the sheet is empty", file=rel, fix="check the background workbook")
    h = nonblank[0]
    header = [clean_text(v) for v in rows[h]]
    cols, extra = _match_columns(header, BACKGROUND_COLUMNS)
    missing = [c for c in BACKGROUND_REQUIRED if c not in cols]
    if missing:
        raise InputError(f"no column for {', '.join(missing)} (header: {header})", file=rel,
                         line=h + 1, fix="name the columns Roles, Gender, Experience Years "
                         "for LLMs, Responsibilities")
    for i in extra:
        anomalies.append(make_anomaly(RULES, "extra_column", rel, f"column {header[i]!r} "
                                      "not used", h + 1, header[i]))
    for name in BACKGROUND_COLUMNS:
        if name not in cols:
            anomalies.append(make_anomaly(RULES, "missing_column", rel, f"no {name} column",
                                          h + 1, name))
    groups = params.get("groups") or {}
    categories = params.get("role_categories") or []
    translations = params.get("translations") or {}
    private: Counter = Counter()  # (kind, raw, new) -> count, reported without rows

    def note(kind: str, line: int, column: str, message: str, value: object,
             flags: list[str]) -> None:
        flags.append(kind)
        if column in PRIVATE_COLUMNS:
            private[(kind, str(value), message)] += 1
        else:
            anomalies.append(make_anomaly(RULES, kind, rel, message, line, column, value))

    out, rejected = [], []
    n_input = 0
    for i in range(h + 1, len(rows)):
        line = i + 1
        raw_row = rows[i] + [None] * (len(header) - len(rows[i]))
        if not any(clean_text(v) for v in raw_row):
            anomalies.append(make_anomaly(RULES, "blank_row", rel, "empty row", line))
            continue
        n_input += 1
        flags: list[str] = []
        rec: dict[str, object] = {"sheet_row": line}
        for name in BACKGROUND_COLUMNS:
            raw = raw_row[cols[name]] if name in cols else None
            rec[f"{name}_raw"] = None if raw is None else str(raw)
            text = clean_text(raw)
            if name in cols and (line, cols[name] + 1) in filled:
                note("merged_cell_filled", line, name, "empty cell in a merged range: "
                     f"takes the value of row {_merge_origin(filled, line, cols[name])}",
                     None, flags)
                rec[f"{name}_raw"] = None
            elif raw is not None and str(raw) != text and not isinstance(raw, int | float):
                note("whitespace", line, name, whitespace_change(str(raw)), None, flags)
            if name in cols and not text and name != "role":
                note("missing_value", line, name, f"empty {name}", None, flags)
            rec[name] = text
        if not rec["role"]:
            anomalies.append(make_anomaly(RULES, "no_role", rel, "row has no role", line,
                                          "role"))
            rejected.append({"file": rel, "line": line, "column": "role", "value": "",
                             "reason": "no_role"})
            continue
        # role: translate, split the group prefix, normalise the spelling, categorise
        role, untranslated = translate(str(rec["role"]), translations)
        if role != rec["role"]:
            note("bilingual_text", line, "role", f"translated to {role!r}", rec["role"], flags)
        if untranslated:
            note("untranslated_text", line, "role", f"no translation for {untranslated}",
                 rec["role"], flags)
        ptype, title = split_role(role, groups)
        if ptype == "Unknown":
            note("unknown_group", line, "role", f"no known group prefix in {role!r}", role,
                 flags)
        fixed = ORDINAL_HYPHEN_RE.sub(lambda m: f"{m.group(1)} {m.group(2)}", title)
        if fixed != title:
            note("spelling_variant", line, "role", f"{title!r} -> {fixed!r}", title, flags)
        key, label = role_category(fixed, ptype, categories)
        if key == "other":
            note("unknown_role_category", line, "role", f"{fixed!r} matches no category",
                 fixed, flags)
        rec.update(type=ptype, role=role, role_title=fixed, role_category=key,
                   role_category_label=label)
        # gender: canonical spelling (never published)
        gender = str(rec["gender"])
        canon = canonical(gender, GENDERS) if gender else None
        if gender and canon and canon != gender:
            note("spelling_variant", line, "gender", f"{gender!r} -> {canon!r}", gender, flags)
        rec["gender"] = canon or gender or None
        # experience in years
        years, how = parse_experience(rec["experience"] or None)
        if how == "months":
            note("experience_months", line, "experience", f"{rec['experience']!r} = "
                 f"{years:.4g} years", rec["experience"], flags)
        elif how == "no_unit":
            note("experience_no_unit", line, "experience", f"{rec['experience']!r} read as "
                 "years", rec["experience"], flags)
        elif how == "unparsed" and rec["experience"]:
            note("experience_unparsed", line, "experience", f"cannot read "
                 f"{rec['experience']!r} as years", rec["experience"], flags)
        rec["experience_years"] = years
        rec["responsibilities"] = rec["responsibilities"] or None
        rec["flags"] = ";".join(sorted(set(flags)))
        out.append(rec)
    for (kind, value, message), n in sorted(private.items()):
        anomalies.append(make_anomaly(RULES, kind, rel, f"{message} ({n} cells; rows not "
                                      "listed: personal data)", None, "gender", value))
    columns = ["sheet_row", "type", "role_raw", "role", "role_title", "role_category",
               "role_category_label", "gender_raw", "gender", "experience_raw", "experience",
               "experience_years", "responsibilities_raw", "responsibilities", "flags"]
    frame = pd.DataFrame(out, columns=columns)
    frame["sheet_row"] = frame["sheet_row"].astype("int64")
    frame["experience_years"] = frame["experience_years"].astype("float64")
    accounting = {"file": rel, "role": "background_rows", "input": n_input,
                  "kept": len(frame), "set_aside": len(rejected)}
    return frame, anomalies, rejected, accounting


def _merge_origin(filled: set[tuple[int, int]], line: int, col: int) -> int:
    """The sheet row a merged value came from (the nearest row above that was not filled)."""
    r = line
    while (r, col + 1) in filled and r > 1:
        r -= 1
    return r


# --------------------------------------------------------------------------- codebook

def parse_node(token: str) -> tuple[str | None, bool]:
    """(code, respelled) for one linked-node token; code None if it is not a node code."""
    m = NODE_RE.match(token)
    if not m:
        return None, False
    code = f"{m.group(1).upper()}.{int(m.group(2))}"
    return code, code != token.strip()


def clean_codebook(text: str, rel: str, taxonomy: Taxonomy, params: dict
                   ) -> tuple[pd.DataFrame, pd.DataFrame, list[Anomaly], list[dict], list[dict]]:
    """Clean the codebook: one row per participant and one row per linked node.

    Every node is checked against the taxonomy: a code the taxonomy lacks is kept with
    ``in_taxonomy = False`` (it may be a category the interviews added); a token that is
    not a code at all is set aside. Returns (codebook, nodes, anomalies, rejected,
    accounting).
    """
    anomalies: list[Anomaly] = []
    reader = csv.reader(io.StringIO(text, newline=""))
    records: list[tuple[int, list[str]]] = []
    line = 1
    try:
        for fields in reader:
            records.append((line, fields))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"not valid CSV ({exc})", file=rel, line=reader.line_num,
                         fix="fix the quoting on that line") from exc
    data = [r for r in records if any(x.strip() for x in r[1])]
    blanks = [r[0] for r in records if not any(x.strip() for x in r[1])]
    if not data:
        raise InputError("the codebook is empty", file=rel, fix="check CodeBook.csv")
    header_line, header = data[0]
    header = [clean_text(h) for h in header]
    cols, extra = _match_columns(header, CODEBOOK_COLUMNS)
    missing = [c for c in CODEBOOK_REQUIRED if c not in cols]
    if missing:
        raise InputError(f"no column for {', '.join(missing)} (header: {header})", file=rel,
                         line=header_line, fix="the codebook needs Participant, Type and "
                         "Linked Taxonomy Node(s) columns")
    for i in extra:
        anomalies.append(make_anomaly(RULES, "extra_column", rel, f"column {header[i]!r} "
                                      "not used", header_line, header[i]))
    for name in CODEBOOK_COLUMNS:
        if name not in cols:
            anomalies.append(make_anomaly(RULES, "missing_column", rel, f"no {name} column",
                                          header_line, name))
    for ln in blanks:
        if ln > header_line:
            anomalies.append(make_anomaly(RULES, "blank_row", rel, "empty line", ln))
    type_names = {t.casefold(): t for t in TYPES}
    type_names.update({str(k).casefold(): str(v) for k, v in (params.get("groups") or {})
                       .items()})
    known = set(taxonomy.codes)
    names = dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True))
    type_letters = taxonomy.types
    rows, node_rows, rejected = [], [], []
    seen: Counter = Counter()
    n_tokens = n_links_kept = n_links_aside = 0
    for ln, fields in data[1:]:
        if len(fields) != len(header):
            anomalies.append(make_anomaly(RULES, "malformed_row", rel, f"{len(fields)} fields, "
                                          f"header has {len(header)}", ln))
            rejected.append({"file": rel, "line": ln, "column": None, "value": None,
                             "reason": "malformed_row"})
            continue
        flags: list[str] = []
        rec: dict[str, object] = {"line": ln}
        for name in CODEBOOK_COLUMNS:
            raw = fields[cols[name]] if name in cols else ""
            text_ = clean_text(raw)
            if raw != text_ and name != "nodes":
                flags.append("whitespace")
                anomalies.append(make_anomaly(RULES, "whitespace", rel, whitespace_change(raw),
                                              ln, header[cols[name]]))
            rec[name] = text_
        pid = str(rec["participant"])
        if not pid:
            anomalies.append(make_anomaly(RULES, "missing_participant", rel, "no participant "
                                          "id", ln, "participant"))
            rejected.append({"file": rel, "line": ln, "column": "participant", "value": "",
                             "reason": "missing_participant"})
            continue
        seen[pid] += 1
        if seen[pid] > 1:
            flags.append("duplicate_participant")
            anomalies.append(make_anomaly(RULES, "duplicate_participant", rel,
                                          f"{pid} appears again", ln, "participant", pid))
        ptype = type_names.get(str(rec["type"]).casefold())
        if ptype is None:
            ptype = str(rec["type"]) or "Unknown"
            flags.append("unknown_type")
            anomalies.append(make_anomaly(RULES, "unknown_type", rel, f"type {rec['type']!r}",
                                          ln, "type", rec["type"]))
        letter = pid[:1].upper()
        if ptype in TYPES and letter in ("U", "D") and letter != ptype[0]:
            flags.append("type_prefix_mismatch")
            anomalies.append(make_anomaly(RULES, "type_prefix_mismatch", rel, f"{pid} is a "
                                          f"{ptype}", ln, "type", ptype))
        rec["type"] = ptype
        level = str(rec["experience_level"])
        canon = canonical(level, LEVELS) if level else None
        if level and canon is None:
            flags.append("unknown_experience_level")
            anomalies.append(make_anomaly(RULES, "unknown_experience_level", rel,
                                          f"level {level!r}", ln, "experience_level", level))
        elif canon and canon != level:
            flags.append("spelling_variant")
            anomalies.append(make_anomaly(RULES, "spelling_variant", rel, f"{level!r} -> "
                                          f"{canon!r}", ln, "experience_level", level))
        rec["experience_level"] = canon or level or None
        raw_nodes = fields[cols["nodes"]]
        rec["nodes_raw"] = raw_nodes
        tokens = [t for t in (x.strip() for x in NODE_SPLIT_RE.split(raw_nodes)) if t]
        codes: list[str] = []
        for token in tokens:
            n_tokens += 1
            code, respelled = parse_node(token)
            if code is None:
                n_links_aside += 1
                flags.append("node_malformed")
                anomalies.append(make_anomaly(RULES, "node_malformed", rel, f"{pid}: {token!r} "
                                              "is not a node code", ln, "nodes", token))
                rejected.append({"file": rel, "line": ln, "column": "nodes", "value": token,
                                 "reason": "node_malformed"})
                continue
            if code in codes:
                n_links_aside += 1
                anomalies.append(make_anomaly(RULES, "duplicate_node", rel, f"{pid}: {code} "
                                              "listed twice", ln, "nodes", token))
                rejected.append({"file": rel, "line": ln, "column": "nodes", "value": token,
                                 "reason": "duplicate_node"})
                continue
            if respelled:
                flags.append("node_respelled")
                anomalies.append(make_anomaly(RULES, "node_respelled", rel, f"{pid}: "
                                              f"{token!r} -> {code}", ln, "nodes", token))
            in_tax = code in known
            if not in_tax:
                flags.append("node_not_in_taxonomy")
                anomalies.append(make_anomaly(
                    RULES, "node_not_in_taxonomy", rel, f"{pid}: {code} is not in the "
                    "taxonomy; kept (possibly a category added from the interviews)", ln,
                    "nodes", code))
            codes.append(code)
            n_links_kept += 1
            node_rows.append({
                "participant": pid, "type": ptype, "experience_level": rec["experience_level"],
                "node": code, "node_raw": token, "in_taxonomy": in_tax,
                "theme": names.get(code), "issue_type": type_letters.get(code[:1]),
                "line": ln,
            })
        if not codes:
            flags.append("no_nodes")
            anomalies.append(make_anomaly(RULES, "no_nodes", rel, f"{pid} has no linked node",
                                          ln, "nodes"))
        rec["nodes"] = ", ".join(codes)
        rec["n_nodes"] = len(codes)
        rec["flags"] = ";".join(sorted(set(flags)))
        rows.append(rec)
    cb_cols = ["participant", "type", "experience_level", "framework_context",
               "prompt_category", "quote", "insight", "nodes", "nodes_raw", "n_nodes", "line",
               "flags"]
    codebook = pd.DataFrame(rows, columns=cb_cols)
    order = sorted(range(len(codebook)), key=lambda i: (
        participant_sort_key(codebook.at[i, "participant"], codebook.at[i, "type"]),
        codebook.at[i, "line"]))
    codebook = codebook.iloc[order].reset_index(drop=True)
    nodes = pd.DataFrame(node_rows, columns=["participant", "type", "experience_level", "node",
                                             "node_raw", "in_taxonomy", "theme", "issue_type",
                                             "line"])
    nodes = sort_nodes_long(nodes, taxonomy)
    for col in ("n_nodes", "line"):
        codebook[col] = codebook[col].astype("int64")
    nodes["line"] = nodes["line"].astype("int64")
    nodes["in_taxonomy"] = nodes["in_taxonomy"].astype(bool)
    accounting = [
        {"file": rel, "role": "codebook_rows", "input": len(data) - 1, "kept": len(codebook),
         "set_aside": len(data) - 1 - len(codebook)},
        {"file": rel, "role": "node_links", "input": n_tokens, "kept": n_links_kept,
         "set_aside": n_links_aside},
    ]
    return codebook, nodes, anomalies, rejected, accounting


def node_order(codes: list[str], taxonomy: Taxonomy) -> list[str]:
    """Every taxonomy theme plus the other codes found, by type (taxonomy order) and number.

    A code outside the taxonomy sits with its type (``B.5`` after ``B.4``); a code of an
    unknown type comes last.
    """
    letters = list(taxonomy.types)
    every = set(taxonomy.codes) | set(codes)

    def key(code: str) -> tuple[int, tuple[str, int, str]]:
        letter = code.split(".", 1)[0]
        return (letters.index(letter) if letter in letters else len(letters),
                node_sort_key(code))

    return sorted(every, key=key)


def sort_nodes_long(nodes: pd.DataFrame, taxonomy: Taxonomy) -> pd.DataFrame:
    """Node links sorted by node (taxonomy order), then participant."""
    order = {c: i for i, c in enumerate(node_order(list(nodes["node"]), taxonomy))}
    keys = [(order[n], participant_sort_key(p, t)) for n, p, t in
            zip(nodes["node"], nodes["participant"], nodes["type"], strict=True)]
    idx = sorted(range(len(nodes)), key=lambda i: keys[i])
    return nodes.iloc[idx].reset_index(drop=True)


# --------------------------------------------------------------------------- both files

def clean_interviews(codebook_path: str | Path, background_path: str | Path,
                     taxonomy: Taxonomy, params: dict,
                     guideline_path: str | Path | None = None) -> InterviewData:
    """Read and clean the codebook, the background sheet and (if given) the guideline;
    build the quality report."""
    codebook_path, background_path = Path(codebook_path), Path(background_path)
    cb_rel, bg_rel = codebook_path.name, background_path.name
    try:
        raw = codebook_path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError("file not found", file=str(codebook_path),
                         fix="run the ingest stage, or check interviews.codebook") from exc
    text, quirks = decode(raw, cb_rel)
    anomalies = [make_anomaly(RULES, q.kind, q.file, q.message, q.line) for q in quirks
                 if q.kind in RULES]
    codebook, nodes, cb_anoms, cb_rejected, cb_acc = clean_codebook(text, cb_rel, taxonomy,
                                                                    params)
    background, bg_anoms, bg_rejected, bg_acc = clean_background(background_path, bg_rel,
                                                                 params)
    anomalies += cb_anoms + bg_anoms
    anomalies += compare_files(codebook, background, cb_rel, bg_rel)
    guide_md, questions = "", guideline_questions("")
    if guideline_path is not None:
        guideline_path = Path(guideline_path)
        try:
            graw = guideline_path.read_bytes()
        except FileNotFoundError as exc:
            raise InputError("file not found", file=str(guideline_path),
                             fix="run the ingest stage, or check the guideline path") from exc
        gtext, gquirks = decode(graw, guideline_path.name)
        anomalies += [make_anomaly(RULES, q.kind, q.file, q.message, q.line) for q in gquirks
                      if q.kind in RULES]
        guide_md, g_anoms = guideline_markdown(gtext, guideline_path.name)
        anomalies += g_anoms
        questions = guideline_questions(gtext)
    rejected = pd.DataFrame(bg_rejected + cb_rejected,
                            columns=["file", "line", "column", "value", "reason"])
    rejected = rejected.sort_values(["file", "line"], kind="mergesort").reset_index(drop=True)
    unknown = sorted(set(nodes.loc[~nodes["in_taxonomy"], "node"]), key=node_sort_key)
    summary = {
        "participants_background": len(background),
        "participants_codebook": len(codebook),
        "by_type_background": _type_counts(background),
        "by_type_codebook": _type_counts(codebook),
        "node_links": len(nodes),
        "nodes_not_in_taxonomy": unknown,
        "private_columns": list(PRIVATE_COLUMNS),
        "joined": False,
    }
    quality = quality_report(anomalies, RULES, [*cb_acc, bg_acc], summary)
    return InterviewData(background, codebook, nodes, rejected, quality, guide_md, questions)


def _type_counts(frame: pd.DataFrame) -> dict[str, int]:
    """Participants per type (a participant id listed twice counts once)."""
    if "participant" in frame:
        frame = frame.drop_duplicates("participant")
    counts = frame["type"].value_counts()
    return {t: int(counts[t]) for t in sorted(counts.index, key=lambda t: (
        TYPES.index(t) if t in TYPES else len(TYPES), t))}


def compare_files(codebook: pd.DataFrame, background: pd.DataFrame, cb_rel: str,
                  bg_rel: str) -> list[Anomaly]:
    """Cross-file checks: there is no shared key; group sizes should agree."""
    out = [make_anomaly(RULES, "no_shared_key", bg_rel, f"{bg_rel} has no participant id; "
                        f"not joined with {cb_rel}")]
    cb, bg = _type_counts(codebook), _type_counts(background)
    for t in sorted(set(cb) | set(bg)):
        if cb.get(t, 0) != bg.get(t, 0):
            out.append(make_anomaly(RULES, "group_size_mismatch", bg_rel,
                                    f"{t}: {bg.get(t, 0)} in {bg_rel}, {cb.get(t, 0)} in "
                                    f"{cb_rel}", value=t))
    return out


# --------------------------------------------------------------------------- views

def participants_table(background: pd.DataFrame) -> pd.DataFrame:
    """The published participant table: no gender, gender-neutral responsibilities.

    Why: the paper publishes roles and experience (Section IV.A) but no genders; the
    responsibilities text uses "He"/"She", which would reveal them.
    """
    t = background.copy()
    idx = sorted(range(len(t)), key=lambda i: (
        participant_sort_key("", t.at[i, "type"])[0], t.at[i, "sheet_row"]))
    t = t.iloc[idx].reset_index(drop=True)
    t["responsibilities"] = t["responsibilities"].map(
        lambda s: neutral_pronouns(s) if isinstance(s, str) else s)
    t["experience_years"] = t["experience_years"].round(2)
    return t[["sheet_row", "type", "role_title", "role_category_label", "experience",
              "experience_years", "responsibilities"]].rename(columns={
                  "role_title": "role", "role_category_label": "role_category"})


def group_summary(background: pd.DataFrame) -> pd.DataFrame:
    """Participants and years of experience per type and role category."""
    rows = []
    for (ptype, key), g in background.groupby(["type", "role_category"], sort=False):
        years = g["experience_years"].dropna()
        rows.append({
            "type": ptype, "role_category": key,
            "label": g["role_category_label"].iloc[0], "participants": len(g),
            "years_min": round(float(years.min()), 4) if len(years) else None,
            "years_mean": round(float(years.mean()), 4) if len(years) else None,
            "years_max": round(float(years.max()), 4) if len(years) else None,
            "roles": "; ".join(sorted(set(g["role_title"]))),
        })
    frame = pd.DataFrame(rows, columns=["type", "role_category", "label", "participants",
                                        "years_min", "years_mean", "years_max", "roles"])
    # types in the usual order; categories in the order the sheet first lists them
    idx = sorted(range(len(frame)), key=lambda i: (
        participant_sort_key("", frame.at[i, "type"])[0], i))
    return frame.iloc[idx].reset_index(drop=True)


def node_labels(codes: list[str], taxonomy: Taxonomy) -> dict[str, str]:
    """``"C.3 Distributed and Parallel Execution"``; ``"C.11 (not in taxonomy)"``."""
    names = dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True))
    return {c: f"{c} {names[c]}" if c in names else f"{c} (not in taxonomy)" for c in codes}


def node_matrix(codebook: pd.DataFrame, nodes: pd.DataFrame, taxonomy: Taxonomy
                ) -> pd.DataFrame:
    """Node x participant 0/1 matrix: every taxonomy theme (rows) and every participant.

    Rows follow the taxonomy (unknown nodes last); columns are users then developers.
    """
    participants = list(dict.fromkeys(codebook["participant"]))
    rows = node_order(list(nodes["node"]), taxonomy)
    matrix = (pd.crosstab(nodes["node"], nodes["participant"])
              .reindex(index=rows, columns=participants, fill_value=0).clip(upper=1)
              .astype("int64"))
    matrix.index.name = "node"
    matrix.columns.name = None
    return matrix


def theme_counts(codebook: pd.DataFrame, nodes: pd.DataFrame, taxonomy: Taxonomy
                 ) -> pd.DataFrame:
    """How many users and developers link each node, and as a share of their group."""
    codes = node_order(list(nodes["node"]), taxonomy)
    names = dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True))
    sizes = codebook.drop_duplicates("participant")["type"].value_counts()
    per = (nodes.drop_duplicates(["participant", "node"]).groupby(["node", "type"]).size()
           .unstack(fill_value=0))
    out = pd.DataFrame({"node": codes})
    out["theme"] = [names.get(c, "") for c in codes]
    out["issue_type"] = [taxonomy.types.get(c[:1], "") for c in codes]
    out["in_taxonomy"] = [c in names for c in codes]
    for ptype, col in (("User", "users"), ("Developer", "developers")):
        n = per[ptype].reindex(codes, fill_value=0) if ptype in per else pd.Series(0, codes)
        out[col] = n.to_numpy().astype("int64")
        size = int(sizes.get(ptype, 0))
        out[f"{col}_percent"] = (100.0 * out[col] / size).round(2) if size else np.nan
    out["total"] = out["users"] + out["developers"]
    return out


def quotes_by_theme(codebook: pd.DataFrame, nodes: pd.DataFrame, taxonomy: Taxonomy
                    ) -> pd.DataFrame:
    """Every quote under every node it is linked to (a quote with three nodes shows three
    times), in taxonomy order, for the website. Text is raw: escape it where it meets HTML.
    """
    labels = node_labels(node_order(list(nodes["node"]), taxonomy), taxonomy)
    info = codebook.drop_duplicates("participant").set_index("participant")
    rows = []
    for rec in nodes.itertuples(index=False):
        p = info.loc[rec.participant]
        rows.append({"node": rec.node, "node_label": labels[rec.node],
                     "in_taxonomy": rec.in_taxonomy, "participant": rec.participant,
                     "type": rec.type, "experience_level": p["experience_level"],
                     "framework_context": p["framework_context"],
                     "prompt_category": p["prompt_category"], "quote": p["quote"],
                     "insight": p["insight"]})
    return pd.DataFrame(rows, columns=["node", "node_label", "in_taxonomy", "participant",
                                       "type", "experience_level", "framework_context",
                                       "prompt_category", "quote", "insight"])


def codebook_table(codebook: pd.DataFrame) -> pd.DataFrame:
    """The codebook as the website shows it (one row per participant, nodes normalised)."""
    return codebook[["participant", "type", "experience_level", "framework_context",
                     "prompt_category", "nodes", "quote", "insight"]].copy()


def to_markdown(frame: pd.DataFrame) -> str:
    """A pipe table; '|' inside cells is escaped so text cannot break the table."""
    shown = frame.copy()
    for col in shown.columns:
        if shown[col].dtype == object:
            shown[col] = shown[col].map(lambda v: v.replace("|", "\\|") if isinstance(v, str)
                                        else v)
    return shown.to_markdown(index=False) + "\n"


def quotes_html(quotes: pd.DataFrame) -> str:
    """Quotes grouped by theme as an HTML fragment; every text is escaped."""
    from html import escape

    parts = []
    for node, g in quotes.groupby("node", sort=False):
        label = escape(str(g["node_label"].iloc[0]))
        extra = "" if bool(g["in_taxonomy"].iloc[0]) else (
            ' <span class="not-in-taxonomy">(not in the taxonomy: possibly a category added '
            "from the interviews)</span>")
        items = []
        for r in g.itertuples(index=False):
            who = ", ".join(escape(str(x)) for x in (r.type, r.experience_level,
                                                      r.framework_context) if x == x and x)
            items.append(f'  <li><blockquote>{escape(str(r.quote))}</blockquote>\n'
                         f'  <p class="who">{escape(str(r.participant))} ({who}). '
                         f'{escape(str(r.insight))}</p></li>')
        anchor = "node-" + re.sub(r"[^A-Za-z0-9]+", "-", str(node))
        parts.append(f'<section class="interview-theme" id="{anchor}">\n<h4>{label}{extra}'
                     f'</h4>\n<ul>\n' + "\n".join(items) + "\n</ul>\n</section>")
    return "\n".join(parts) + "\n"


# --------------------------------------------------------------------------- guideline

def guideline_markdown(text: str, source: str) -> tuple[str, list[Anomaly]]:
    """The interview guideline as report material: same words, safe Markdown.

    Unicode NFC, LF endings, trailing spaces removed (a two-space hard break inside a
    paragraph becomes a backslash break), a blank line before a list that follows a
    paragraph (Pandoc needs it), runs of blank lines collapsed, '<' escaped so raw HTML
    shows as text.
    """
    anomalies: list[Anomaly] = []
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    raw_lines = text.split("\n")
    lines = []
    for i, line in enumerate(raw_lines, 1):
        following = raw_lines[i].strip() if i < len(raw_lines) else ""
        # a break only inside a paragraph: before a blank line or a new block (list item,
        # heading, rule, quote) a backslash would show as a character
        hard_break = (line.endswith("  ") and line.strip() and following
                      and not BLOCK_START_RE.match(following))
        line = line.rstrip()
        if "<" in line:
            anomalies.append(make_anomaly(RULES, "raw_html", source, "'<' escaped", i))
            line = line.replace("<", "&lt;")
        # Pandoc (and so Quarto) needs a blank line between a paragraph and a list
        previous = lines[-1] if lines else ""
        if (LIST_ITEM_RE.match(line) and previous.strip() and not LIST_ITEM_RE.match(previous)
                and not previous.startswith((" ", "\t"))):
            lines.append("")
        lines.append(line + ("\\" if hard_break else ""))
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    header = (f"<!-- generated from {source} by notebooks/05_interviews.py; do not edit -->"
              "\n\n")
    return header + body + "\n", anomalies


def guideline_questions(text: str) -> pd.DataFrame:
    """The guideline's questions: part, part title, audience, number and text.

    Parts are ``## Part I. Title`` headings; ``### For LLM Users:`` sets the audience
    (``All`` before any); numbered or bulleted lines are questions, and an indented line
    under one (an example list) is appended to it.
    """
    rows: list[dict] = []
    part = title = None
    audience = "All"
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        m = re.match(r"^#{1,3}\s*Part\s+([IVXLC\d]+)\.?\s*(.*)$", line)
        if m:
            part, title, audience = m.group(1), m.group(2).strip(), "All"
            continue
        m = re.match(r"^#{2,4}\s*For\s+(.+?):?\s*$", line)
        if m and part:
            audience = m.group(1).strip()
            continue
        if part is None or not line:
            continue
        m = re.match(r"^(?:\d+\.|[-*])\s+(.*)$", line)
        if m and raw[:1] not in (" ", "\t"):
            rows.append({"part": part, "part_title": title, "audience": audience,
                         "question": m.group(1).strip()})
        elif raw[:1] in (" ", "\t") and rows and rows[-1]["part"] == part:
            rows[-1]["question"] += " " + line
    frame = pd.DataFrame(rows, columns=["part", "part_title", "audience", "question"])
    frame.insert(3, "number", frame.groupby(["part", "audience"], sort=False).cumcount() + 1)
    return frame


# --------------------------------------------------------------------------- claims

def interviews_reproduced(background: pd.DataFrame, codebook: pd.DataFrame,
                          guideline: pd.DataFrame) -> dict[str, dict]:
    """Values for the Section IV claims (``interviews.*`` in data/claims.yaml).

    Counts of groups come from the background sheet (the codebook's count is in the note);
    experience statements use the sheet's "Experience Years for LLMs"; the developers'
    role breakdown uses the role categories of params.yaml (each developer in exactly one).
    """
    bg = background
    cb_counts = _type_counts(codebook)

    def cat(key: str) -> pd.DataFrame:
        return bg[bg["role_category"] == key]

    def years_text(frame: pd.DataFrame) -> str:
        return ", ".join(_fmt_years(y) for y in sorted(frame["experience_years"].dropna()))

    breakdown = "; ".join(f"{r.label}: {r.participants}" for r in
                          group_summary(bg[bg["type"] == "Developer"]).itertuples())
    out: dict[str, dict] = {}
    for ptype, key in (("User", "users"), ("Developer", "developers")):
        out[f"interviews.{key}.count"] = {
            "value": int((bg["type"] == ptype).sum()),
            "note": f"background sheet: {int((bg['type'] == ptype).sum())}; codebook: "
                    f"{cb_counts.get(ptype, 0)}"}
    eng, stu = cat("engineer"), cat("student")
    out["interviews.users.engineers.count"] = {
        "value": len(eng), "note": "roles: " + "; ".join(sorted(set(eng["role_title"])))}
    out["interviews.users.engineers.min_years"] = {
        "value": _min(eng), "note": f"years of the professional engineers: {years_text(eng)} "
        "(the smallest must be over three)"}
    out["interviews.users.students.count"] = {
        "value": len(stu), "note": "the sheet does not say which subject they study"}
    out["interviews.users.students.mean_years"] = {
        "value": _mean(stu), "note": f"mean of {years_text(stu)} years (months converted)"}
    man = cat("manager")
    out["interviews.developers.managers.count"] = {
        "value": len(man), "note": "roles: " + "; ".join(sorted(set(man["role_title"])))}
    out["interviews.developers.managers.min_years"] = {
        "value": _min(man), "note": f"years of the managers: {years_text(man)} (the sheet's "
        "'Experience Years for LLMs'; it gives no separate years in framework validation)"}
    train, infer, deploy = cat("training"), cat("inference"), cat("deployment")
    out["interviews.developers.feature_engineers.count"] = {
        "value": len(train) + len(infer),
        "note": f"training + inference engineers; the sheet's developers: {breakdown}"}
    out["interviews.developers.training.count"] = {"value": len(train), "note": breakdown}
    out["interviews.developers.inference.count"] = {
        "value": len(infer), "note": "roles: " + "; ".join(sorted(set(infer["role_title"])))
        if len(infer) else breakdown}
    out["interviews.developers.deployment.count"] = {
        "value": len(deploy), "note": "developers whose role is deployment only (inference and"
        f" deployment engineers count as inference); {breakdown}"}
    out["interviews.guideline.parts"] = {
        "value": int(guideline["part"].nunique()),
        "note": "'## Part' sections of Interview GuideLine.md"}
    return out


def _fmt_years(y: float) -> str:
    return f"{y:.2f}".rstrip("0").rstrip(".")


def _min(frame: pd.DataFrame) -> float | None:
    years = frame["experience_years"].dropna()
    return float(years.min()) if len(years) else None


def _mean(frame: pd.DataFrame) -> float | None:
    years = frame["experience_years"].dropna()
    return float(years.mean()) if len(years) else None


# --------------------------------------------------------------------------- figures

def heatmap_figure(matrix: pd.DataFrame, codebook: pd.DataFrame, taxonomy: Taxonomy
                   ) -> plt.Figure:
    """Participants (columns, users then developers) x themes (rows): a filled cell is a
    link in the codebook, coloured by group; nodes outside the taxonomy are marked *.
    Participant ids and theme names are drawn as visible text (:mod:`analysis.core.textsafe`)."""
    from analysis.core.textsafe import visible

    apply_style()
    types = codebook.drop_duplicates("participant").set_index("participant")["type"]
    labels = node_labels(list(matrix.index), taxonomy)
    n_rows, n_cols = matrix.shape
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.24 * n_rows + 1.3))
    image = np.ones((n_rows, n_cols, 3))
    for j, p in enumerate(matrix.columns):
        colour = matplotlib_rgb(GROUP_COLOURS.get(types.get(p, ""), "#555555"))
        for i in range(n_rows):
            if matrix.iat[i, j]:
                image[i, j] = colour
    ax.imshow(image, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(n_cols), [visible(p) for p in matrix.columns], fontsize=8,
                  rotation=90)
    ax.set_yticks(range(n_rows), [visible(labels[c]) + ("" if c in set(taxonomy.codes)
                                                        else " *") for c in matrix.index],
                  fontsize=8)
    ax.xaxis.tick_top()
    ax.set_xticks(np.arange(-0.5, n_cols, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, n_rows, 1), minor=True)
    ax.grid(which="minor", color="#dddddd", linewidth=0.6)
    ax.tick_params(which="minor", length=0)
    ax.tick_params(which="major", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    users = [j for j, p in enumerate(matrix.columns) if types.get(p) == "User"]
    if users and len(users) < n_cols:
        ax.axvline(max(users) + 0.5, color="#333333", linewidth=1.2)
    # separators between issue types
    letters = [c[:1] for c in matrix.index]
    for i in range(1, n_rows):
        if letters[i] != letters[i - 1]:
            ax.axhline(i - 0.5, color="#333333", linewidth=0.8)
    for ptype, colour in GROUP_COLOURS.items():
        cols = [j for j, p in enumerate(matrix.columns) if types.get(p) == ptype]
        if cols:
            ax.text((min(cols) + max(cols)) / 2, n_rows - 0.5 + 0.9,
                    f"{ptype}s ({len(cols)})", ha="center", va="top", fontsize=9,
                    color=colour, fontweight="bold")
    unknown = [c for c in matrix.index if c not in set(taxonomy.codes)]
    if unknown:
        fig.text(0.01, 0.005, "* not in data/taxonomy.yaml: possibly a category added from "
                 "the interviews (Section IV.C)", fontsize=8, ha="left", va="bottom")
    fig.suptitle("Taxonomy themes linked by each interviewee (CodeBook.csv)", x=0.01,
                 ha="left", fontsize=11)
    fig.tight_layout()
    return fig


def matplotlib_rgb(colour: str) -> tuple[float, float, float]:
    """An ``#rrggbb`` colour as an RGB triple in [0, 1]."""
    from matplotlib.colors import to_rgb

    return to_rgb(colour)


def theme_counts_figure(counts: pd.DataFrame, taxonomy: Taxonomy) -> plt.Figure:
    """Share of users and of developers linking each theme (grouped horizontal bars);
    theme names are drawn as visible text (:mod:`analysis.core.textsafe`)."""
    from analysis.core.textsafe import visible

    apply_style()
    labels = node_labels(list(counts["node"]), taxonomy)
    n = len(counts)
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.27 * n + 1.2))
    y = np.arange(n)
    h = 0.4
    for k, (ptype, col) in enumerate((("User", "users"), ("Developer", "developers"))):
        values = counts[f"{col}_percent"].fillna(0).to_numpy()
        ax.barh(y - h / 2 + k * h, values, height=h, color=GROUP_COLOURS[ptype],
                label=f"{ptype}s")
        for yy, v, c in zip(y - h / 2 + k * h, values, counts[col], strict=True):
            if c:
                ax.text(v, yy, f" {int(c)}", va="center", fontsize=7)
    ax.set_yticks(y, [visible(labels[c]) + ("" if ok else " *") for c, ok in
                      zip(counts["node"], counts["in_taxonomy"], strict=True)], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("share of the group linking the theme (%); numbers are participants")
    top = float(np.nanmax(counts[["users_percent", "developers_percent"]].to_numpy()))
    ax.set_xlim(0, max(top * 1.15, 10))
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    fig.suptitle("Themes linked by users and by developers (CodeBook.csv)", x=0.01, ha="left",
                 fontsize=11)
    if not counts["in_taxonomy"].all():
        fig.text(0.01, 0.005, "* not in data/taxonomy.yaml: possibly a category added from "
                 "the interviews (Section IV.C)", fontsize=8, ha="left", va="bottom")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- report numbers

def interviews_vars(data: InterviewData, counts: pd.DataFrame, groups: pd.DataFrame,
                    questions: pd.DataFrame, taxonomy: Taxonomy) -> dict[str, object]:
    """Numbers and short texts for the website (``report/vars/interviews.json``).

    Text that quotes the codebook (its node codes, participant ids) is under keys ending in
    ``_text`` or ``_alt``, which the report shows only as escaped HTML.
    """
    bg, cb, nodes = data.background, data.codebook, data.nodes
    unknown = [c for c in counts["node"] if c not in set(taxonomy.codes)]
    linked = counts[counts["total"] > 0]
    unlinked = [c for c in taxonomy.codes if c not in set(linked["node"])]

    def top(col: str) -> str:
        best = counts[counts[col] == counts[col].max()]
        return ", ".join(best["node"]) if counts[col].max() else ""

    def years(key: str, how: str) -> str:
        g = groups[groups["role_category"] == key]
        return "" if g.empty or g[how].isna().all() else _fmt_years(float(g[how].iloc[0]))

    unknown_who = {c: ", ".join(nodes.loc[nodes["node"] == c, "participant"]) for c in unknown}
    levels = cb.groupby(["type", "experience_level"]).size()
    under_one = int(((bg["type"] == "User") & (bg["experience_years"] < 1)).sum())
    out: dict[str, object] = {
        "interviews_users": int((bg["type"] == "User").sum()),
        "interviews_developers": int((bg["type"] == "Developer").sum()),
        "interviews_participants": len(bg),
        "interviews_codebook_users": int((cb["type"] == "User").sum()),
        "interviews_codebook_developers": int((cb["type"] == "Developer").sum()),
        "interviews_node_links": len(nodes),
        "interviews_nodes_linked": int(len(linked)),
        "interviews_themes_unlinked": ", ".join(unlinked) or "none",
        "interviews_nodes_not_in_taxonomy": len(unknown),
        "interviews_nodes_not_in_taxonomy_text": (
            "Codebook nodes that are not in the taxonomy, with the participants linked to "
            "them: " + "; ".join(f"{c} ({w})" for c, w in unknown_who.items()) + "."
            if unknown else "Every codebook node is a theme of the taxonomy."),
        "interviews_top_themes_text": (
            f"Most linked by users: {top('users') or 'none'}; by developers: "
            f"{top('developers') or 'none'}."),
        "interviews_students_mean_years": years("student", "years_mean"),
        "interviews_engineers_min_years": years("engineer", "years_min"),
        "interviews_managers_max_years": years("manager", "years_max"),
        "interviews_users_under_one_year": under_one,
        "interviews_codebook_user_beginners": int(levels.get(("User", "Beginner"), 0)),
        "interviews_guideline_parts": int(questions["part"].nunique()),
        "interviews_guideline_questions": len(questions),
        "interviews_anomalies": int(sum(data.quality["anomaly_counts"].values())),
        "interviews_gender_note": (
            "The background sheet records a gender per participant; the paper publishes "
            "none, and no claim needs it, so the report shows no genders (the processed data "
            "keep the normalised value) and responsibilities are shown with neutral pronouns."),
        "interviews_join_note": (
            "CodeBook.csv and the background sheet share no participant id and their rows do "
            "not line up (the codebook has "
            f"{int(levels.get(('User', 'Beginner'), 0))} Beginner users, the sheet "
            f"{under_one} user(s) under one year), so the two files are not joined."),
        "fig_heatmap_caption": (
            "Taxonomy themes linked by each interviewee in CodeBook.csv: users (blue) and "
            "developers (orange); rows follow the taxonomy, nodes marked * are not in it."),
        "fig_heatmap_alt": (
            f"A grid of {len(counts)} theme rows by {len(cb)} participant columns; filled "
            f"cells are the {len(nodes)} links of the codebook. Most linked by users: "
            f"{top('users')}; by developers: {top('developers')}. Not in the taxonomy: "
            f"{', '.join(unknown) or 'none'}."),
        "fig_theme_counts_caption": (
            "Share of users and of developers whose codebook row links each theme "
            "(numbers at the bar ends are participants)."),
        "fig_theme_counts_alt": (
            "Grouped horizontal bars, one pair per theme, giving the percentage of the "
            f"{int((cb['type'] == 'User').sum())} users and of the "
            f"{int((cb['type'] == 'Developer').sum())} developers who link it."),
    }
    return out


def interviews_metrics(data: InterviewData, counts: pd.DataFrame) -> dict:
    """Headline numbers for ``dvc metrics``."""
    q = data.quality
    return {
        "participants": q["summary"]["participants_background"],
        "by_type": q["summary"]["by_type_background"],
        "codebook_participants": q["summary"]["participants_codebook"],
        "node_links": q["summary"]["node_links"],
        "nodes_not_in_taxonomy": len(q["summary"]["nodes_not_in_taxonomy"]),
        "themes_linked": int((counts["total"] > 0).sum()),
        "anomalies": int(sum(q["anomaly_counts"].values())),
        "anomaly_counts": q["anomaly_counts"],
        "set_aside": int(sum(f["set_aside"] for f in q["files"])),
    }
