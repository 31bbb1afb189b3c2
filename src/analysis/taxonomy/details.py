"""The released detail files: themes -> sub-themes -> details (symptoms, intents, expectations).

Each of ``bug_symptoms.csv``, ``question_intents.csv`` and ``requirement_expections.csv``
has a header (``rootcause,subcategory,symptoms``) and one row per sub-theme: the theme's
name, the sub-theme's name, and all its details in one quoted cell, separated by commas.

The files are raw input with real defects, so parsing is defensive and lossless: a record
CSV cannot read as three fields (a detail cell with unescaped inner quotes,
``"...only "cuda" policy..."``) is recovered from its raw line, keeping every character
(:func:`read_records`); details are counted both ways the paper's commas allow
(:func:`split_items`); a theme or sub-theme name that maps to no code of the taxonomy is
kept, reported and shown, never dropped (:func:`map_names`). Every rule is in
:data:`RULES`.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from analysis.core.dump import decode
from analysis.core.errors import InputError
from analysis.core.params import dump_file
from analysis.core.paths import PATHS
from analysis.core.quality import (
    Anomaly,
    Rule,
    make_anomaly,
    quality_report,
    quirk_anomaly,
    stage_rules,
)
from analysis.core.taxonomy import Taxonomy, subtheme_sort_key

EXPECTED_HEADER = ["rootcause", "subcategory", "symptoms"]
OPEN_PARENS = "(（[【"
CLOSE_PARENS = ")）]】"
# How messages name the params file (relative to the project root).
PARAMS_YAML = PATHS.params.relative_to(PATHS.root).as_posix()

RULES: dict[str, Rule] = stage_rules("taxonomy")  # analysis/core/rules.yaml

ROW_COLUMNS = ["type", "file", "line", "theme_raw", "theme_code", "subtheme_raw",
               "subtheme_code", "items_comma", "items_parentheses", "recovery"]
ITEM_COLUMNS = ["type", "file", "line", "theme_code", "subtheme_code", "subtheme_raw",
                "item_no", "detail", "pieces"]


@dataclass
class DetailsResult:
    """Parsed detail files: one row per sub-theme row, one per detail item, and the report."""

    rows: pd.DataFrame  # ROW_COLUMNS
    items: pd.DataFrame  # ITEM_COLUMNS (parenthesis-aware items; ``pieces`` = comma pieces)
    anomalies: list[Anomaly]
    quality: dict


@dataclass(frozen=True)
class RawRow:
    """One record of a detail file: its first line and its three cells as recovered."""

    line: int
    theme: str
    subtheme: str
    details: str
    recovery: str | None = None  # the RULES kind used to recover it, if any


_CELL = r'(?:"(?:[^"]|"")*"|[^,"]*)'
_LENIENT_RE = re.compile(rf"^\s*(?P<theme>{_CELL}),(?P<sub>{_CELL}),(?P<rest>.*)$", re.S)


def _unquote(cell: str) -> str:
    cell = cell.strip()
    if len(cell) >= 2 and cell[0] == '"' and cell[-1] == '"':
        return cell[1:-1].replace('""', '"')
    return cell


def recover_line(text: str) -> tuple[str, str, str, str] | None:
    """Read one raw line leniently as (theme, sub-theme, details, recovery kind).

    The first two cells are ordinary CSV cells (quoted or not); the details cell is the
    rest of the line. A quoted details cell runs to the line's final quote, so unescaped
    quotes inside it are kept as written (``unescaped_quotes``); a missing final quote
    (``unclosed_quote``) or a missing opening quote (``unquoted_details``) is tolerated.
    Returns None when the line has no two leading cells.
    """
    match = _LENIENT_RE.match(text.rstrip("\n"))
    if not match:
        return None
    rest = match["rest"].strip()
    if rest.startswith('"') and rest.endswith('"') and len(rest) >= 2:
        inner = rest[1:-1]
        kind = "unescaped_quotes"
        # properly doubled quotes were meant as escapes; lone ones are kept verbatim
        details = inner.replace('""', '"') if '"' not in inner.replace('""', "") else inner
    elif rest.startswith('"'):
        details, kind = rest[1:], "unclosed_quote"
    else:
        details, kind = rest, "unquoted_details"
    return _unquote(match["theme"]), _unquote(match["sub"]), details, kind


def read_records(text: str, rel: str) -> tuple[list[str], list[RawRow], list[Anomaly]]:
    """The header and the records of one detail file, recovering malformed ones.

    Valid CSV records (even multi-line quoted cells) are taken as they are. A record that
    is not three fields, or that CSV cannot read, is re-read line by line with
    :func:`recover_line` and reported; a line that cannot be recovered stops the stage.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    anomalies: list[Anomaly] = []
    header: list[str] | None = None
    rows: list[RawRow] = []
    reader = csv.reader(io.StringIO("\n".join(lines) + "\n"))
    start = 1
    while True:
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error:
            record = None
        end = reader.line_num
        span = range(start, end + 1)
        if record is not None and not any(cell.strip() for cell in record):
            for ln in span:
                anomalies.append(make_anomaly(RULES, "blank_line", rel, "empty line", ln))
        elif header is None:
            header = record or []
            if len(header) != 3:
                raise InputError(f"header has {len(header)} columns, expected 3 (theme, "
                                 "sub-theme, details)", file=rel, line=start,
                                 fix="restore the header rootcause,subcategory,symptoms")
            if [h.strip().lower() for h in header] != EXPECTED_HEADER:
                anomalies.append(make_anomaly(RULES, "header_names", rel,
                                              f"header {header}; read by position", start))
        elif record is not None and len(record) == 3:
            rows.append(RawRow(start, record[0].strip(), record[1].strip(), record[2]))
        else:
            fields = "unreadable" if record is None else f"{len(record)} fields"
            for ln in span:
                raw = lines[ln - 1]
                if not raw.strip():
                    anomalies.append(make_anomaly(RULES, "blank_line", rel, "empty line", ln))
                    continue
                got = recover_line(raw)
                if got is None:
                    raise InputError(
                        f"cannot read this line as theme,sub-theme,details ({fields} as CSV)",
                        file=rel, line=ln,
                        fix="quote the details cell and double any quote inside it")
                theme, sub, details, kind = got
                anomalies.append(make_anomaly(
                    RULES, kind, rel,
                    f"CSV reads {fields} here; recovered as 3 cells from the raw line "
                    f"({_recovery_detail(raw, kind)})", ln, column="symptoms"))
                rows.append(RawRow(ln, theme.strip(), sub.strip(), details, kind))
        start = end + 1
    if header is None:
        raise InputError("the file is empty (no header)", file=rel,
                         fix="restore the file from the release")
    return header, rows, anomalies


def _recovery_detail(raw: str, kind: str) -> str:
    if kind == "unescaped_quotes":
        cell = raw.split(",", 2)[2].strip()[1:-1]
        quoted = re.findall(r'"([^"]*)"', cell)
        shown = ", ".join(f'"{q}"' for q in quoted[:5])
        return f"unescaped quotes around {shown}" if shown else "unescaped quotes"
    return kind.replace("_", " ")


def split_items(details: str) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """Split a details cell into items: [(item, comma pieces)], plus what was noticed.

    Every comma separates pieces (the paper's count is the number of non-empty pieces);
    pieces joined by a comma inside parentheses form one item. Items are trimmed; empty
    pieces are dropped. ``notes`` counts ``empty``, ``whitespace``, ``merged`` (items of
    more than one piece) and ``unbalanced`` (1 if a parenthesis is never closed).
    """
    notes = Counter(empty=0, whitespace=0, merged=0, unbalanced=0)
    items: list[tuple[str, int]] = []
    group: list[str] = []
    depth = 0

    def flush(parts: list[str]) -> None:
        kept = [p for p in parts if p.strip()]
        notes["empty"] += len(parts) - len(kept)
        if not kept:
            return
        text = ",".join(parts).strip()
        notes["whitespace"] += sum(p != p.strip() for p in (parts[0], parts[-1]))
        notes["merged"] += len(kept) > 1
        items.append((text, len(kept)))

    if not details.strip():
        return [], dict(notes)
    for piece in details.split(","):
        group.append(piece)
        for ch in piece:
            if ch in OPEN_PARENS:
                depth += 1
            elif ch in CLOSE_PARENS:
                depth = max(depth - 1, 0)
        if depth == 0:
            flush(group)
            group = []
    if group:
        notes["unbalanced"] = 1
        for piece in group:
            flush([piece])
    return items, dict(notes)


def map_names(raw: RawRow, type_name: str, taxonomy: Taxonomy, rel: str,
              ) -> tuple[str, str, list[Anomaly]]:
    """Theme and sub-theme codes of one row ('' when unknown), with what was noticed."""
    anomalies = []
    theme_code = taxonomy.code_for_name(raw.theme) or ""
    names = taxonomy.theme_names
    if not theme_code:
        anomalies.append(make_anomaly(RULES, "unknown_theme", rel,
                                      f"theme {raw.theme!r} is not in the taxonomy", raw.line,
                                      "rootcause", raw.theme))
    else:
        if raw.theme != names[theme_code]:
            anomalies.append(make_anomaly(RULES, "theme_alias", rel,
                                          f"{raw.theme!r} read as {theme_code} "
                                          f"{names[theme_code]!r}", raw.line, "rootcause",
                                          raw.theme))
        theme_type = taxonomy.type_of(theme_code)
        if theme_type != type_name:
            anomalies.append(make_anomaly(RULES, "theme_type_mismatch", rel,
                                          f"{theme_code} is a {theme_type} theme in a "
                                          f"{type_name} file", raw.line, "rootcause",
                                          raw.theme))
    sub_code = taxonomy.subtheme_code_for_name(theme_code, raw.subtheme) if theme_code else None
    if theme_code and not sub_code:
        elsewhere = taxonomy.subtheme_candidates(raw.subtheme)
        kind = "subtheme_theme_mismatch" if elsewhere else "unknown_subtheme"
        where = f"; it names {', '.join(elsewhere)}" if elsewhere else ""
        anomalies.append(make_anomaly(RULES, kind, rel,
                                      f"sub-theme {raw.subtheme!r} is not a sub-theme of "
                                      f"{theme_code}{where}", raw.line, "subcategory",
                                      raw.subtheme))
    if sub_code:
        subs = taxonomy.subthemes.set_index("code")
        if not bool(subs.loc[sub_code, "in_paper"]):
            anomalies.append(make_anomaly(RULES, "subtheme_not_in_paper", rel,
                                          f"{raw.subtheme!r} ({sub_code}) is not among the "
                                          f"sub-themes the paper numbers under {theme_code}",
                                          raw.line, "subcategory", raw.subtheme))
    return theme_code, sub_code or "", anomalies


def parse_detail_file(path: Path, rel: str, type_name: str, taxonomy: Taxonomy,
                      ) -> tuple[list[dict], list[dict], list[Anomaly], dict]:
    """Rows, items, anomalies and the accounting entry of one detail file."""
    if not path.is_file():
        missing = make_anomaly(RULES, "missing_file", rel, f"no detail file for {type_name} "
                               "issues in the dump")
        return [], [], [missing], {"file": rel, "role": "detail_rows", "type": type_name,
                                   "input": 0, "kept": 0, "set_aside": 0, "recovered": 0,
                                   "items_comma": 0, "items_parentheses": 0,
                                   "empty_items": 0, "missing": True}
    text, quirks = decode(path.read_bytes(), rel)  # as every dump file is read
    anomalies = [quirk_anomaly(RULES, q) for q in quirks]
    _, raw_rows, found = read_records(text, rel)
    anomalies += found
    rows, items = [], []
    n_empty = 0
    for raw in raw_rows:
        theme_code, sub_code, named = map_names(raw, type_name, taxonomy, rel)
        anomalies += named
        split, notes = split_items(raw.details)
        n_empty += notes["empty"]
        anomalies += _item_anomalies(raw, split, notes, rel)
        rows.append({"type": type_name, "file": rel, "line": raw.line,
                     "theme_raw": raw.theme, "theme_code": theme_code,
                     "subtheme_raw": raw.subtheme, "subtheme_code": sub_code,
                     "items_comma": sum(p for _, p in split),
                     "items_parentheses": len(split), "recovery": raw.recovery or ""})
        for no, (detail, pieces) in enumerate(split, 1):
            items.append({"type": type_name, "file": rel, "line": raw.line,
                          "theme_code": theme_code, "subtheme_code": sub_code,
                          "subtheme_raw": raw.subtheme, "item_no": no, "detail": detail,
                          "pieces": pieces})
    anomalies = collapse_repeats(anomalies, "theme_alias")
    anomalies += _coverage_anomalies(rows, type_name, taxonomy, rel)
    n_comma = sum(r["items_comma"] for r in rows)
    entry = {"file": rel, "role": "detail_rows", "type": type_name, "input": len(rows),
             "kept": len(rows), "set_aside": 0,
             "recovered": sum(bool(r["recovery"]) for r in rows),
             "items_comma": n_comma, "items_parentheses": sum(r["items_parentheses"]
                                                              for r in rows),
             "empty_items": n_empty, "missing": False}
    return rows, items, anomalies, entry


def collapse_repeats(anomalies: list[Anomaly], kind: str) -> list[Anomaly]:
    """One anomaly of ``kind`` per (file, value): the first, naming every line it is on."""
    first: dict[tuple[str, str | None], int] = {}
    lines: dict[tuple[str, str | None], list[int]] = {}
    out: list[Anomaly | None] = []
    for a in anomalies:
        key = (a.file, a.value)
        if a.kind != kind:
            out.append(a)
        elif key in first:
            lines[key].append(a.line)
        else:
            first[key] = len(out)
            lines[key] = [a.line]
            out.append(a)
    for key, pos in first.items():
        a = out[pos]
        if len(lines[key]) > 1:
            out[pos] = replace(a, message=f"{a.message} (on {len(lines[key])} rows: lines "
                                          f"{', '.join(map(str, lines[key]))})")
    return [a for a in out if a is not None]


def _item_anomalies(raw: RawRow, split: list[tuple[str, int]], notes: dict,
                    rel: str) -> list[Anomaly]:
    out = []
    if not split:
        out.append(make_anomaly(RULES, "empty_details", rel, "no details", raw.line,
                                "symptoms"))
    if notes["empty"]:
        out.append(make_anomaly(RULES, "empty_item", rel, f"{notes['empty']} empty item(s) "
                                "between commas", raw.line, "symptoms"))
    if notes["whitespace"]:
        out.append(make_anomaly(RULES, "item_whitespace", rel, f"{notes['whitespace']} "
                                "item edge(s) with surrounding whitespace", raw.line,
                                "symptoms"))
    if notes["merged"]:
        pieces = sum(p for _, p in split)
        merged = [text for text, p in split if p > 1]
        out.append(make_anomaly(
            RULES, "comma_in_parentheses", rel,
            f"{pieces} comma-separated pieces, {len(split)} parenthesis-aware items "
            f"({len(merged)} item(s) contain a comma inside parentheses)", raw.line,
            "symptoms", " | ".join(merged)))
    if notes["unbalanced"]:
        out.append(make_anomaly(RULES, "unbalanced_parentheses", rel,
                                "a parenthesis is never closed", raw.line, "symptoms"))
    dup = sorted(text for text, n in Counter(t for t, _ in split).items() if n > 1)
    if dup:
        out.append(make_anomaly(RULES, "duplicate_item", rel, f"{len(dup)} item(s) appear "
                                "twice", raw.line, "symptoms", " | ".join(dup)))
    return out


def _coverage_anomalies(rows: list[dict], type_name: str, taxonomy: Taxonomy,
                        rel: str) -> list[Anomaly]:
    out = []
    seen = Counter(r["subtheme_code"] for r in rows if r["subtheme_code"])
    for code, n in sorted(seen.items(), key=lambda kv: subtheme_sort_key(kv[0])):
        if n > 1:
            lines = [r["line"] for r in rows if r["subtheme_code"] == code]
            out.append(make_anomaly(RULES, "duplicate_subtheme", rel,
                                    f"{code} appears on lines {lines}", lines[1],
                                    "subcategory", code))
    subs = taxonomy.subthemes
    for code in subs.loc[subs["type"] == type_name, "code"]:
        if code not in seen:
            out.append(make_anomaly(RULES, "missing_subtheme", rel,
                                    f"{code} has no row in this file", None, "subcategory",
                                    code))
    return out


def parse_detail_files(raw_dir: Path, files: dict[str, str], taxonomy: Taxonomy,
                       ) -> DetailsResult:
    """Parse every detail file (``files``: issue type name -> path under ``raw_dir``; a
    path that leads outside ``raw_dir`` is refused, see
    :func:`~analysis.core.params.dump_file`)."""
    unknown = sorted(set(files) - set(taxonomy.type_names))
    if unknown:
        raise InputError(f"detail files given for unknown issue types {unknown}",
                         file=PARAMS_YAML, column="taxonomy.detail_files",
                         fix=f"use the type names {taxonomy.type_names}")
    rows, items, anomalies, entries = [], [], [], []
    for type_name in [t for t in taxonomy.type_names if t in files]:
        rel = files[type_name]
        path = dump_file(raw_dir, rel, f"taxonomy.detail_files.{type_name}")
        r, i, a, e = parse_detail_file(path, rel, type_name, taxonomy)
        rows += r
        items += i
        anomalies += a
        entries.append(e)
    row_frame = pd.DataFrame(rows, columns=ROW_COLUMNS)
    item_frame = pd.DataFrame(items, columns=ITEM_COLUMNS)
    summary = {
        "files": len(entries),
        "rows": len(row_frame),
        "rows_recovered": int((row_frame["recovery"] != "").sum()),
        "items_comma": int(row_frame["items_comma"].sum()),
        "items_parentheses": int(row_frame["items_parentheses"].sum()),
        "unmapped_themes": sorted(set(row_frame.loc[row_frame["theme_code"] == "",
                                                    "theme_raw"])),
        "unmapped_subthemes": sorted(set(row_frame.loc[row_frame["subtheme_code"] == "",
                                                       "subtheme_raw"])),
        "missing_types": [e["type"] for e in entries if e["missing"]],
    }
    quality = quality_report(anomalies, RULES, entries, summary)
    return DetailsResult(rows=row_frame, items=item_frame, anomalies=anomalies,
                         quality=quality)


# What a reader must see while the stage runs: a file that is not there, or a name the
# taxonomy does not know (the rows are kept, but shown as unmapped).
WARNED_KINDS = ("missing_file", "unknown_theme", "unknown_subtheme")


def notable_anomalies(quality: dict) -> list[str]:
    """The anomalies of :data:`WARNED_KINDS` in a quality report, as one-line warnings
    (the notebook shows them)."""
    return [f"{a['file']}: {a['message']}" for a in quality["anomalies"]
            if a["kind"] in WARNED_KINDS]
