"""Clean: turn the raw dump into one tidy row per labelled issue, and account for every row.

Every anomaly kind has one rule in :data:`RULES` (kept and flagged, set aside with a
reason, ignored, or stop). The defaults keep the paper's counts reproducible: duplicate
URLs are kept (Table I counts them), quirks of encoding and whitespace are normalised,
and only rows that cannot be placed in Table I (no URL, no usable final label, no year)
are set aside.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core import schemas
from analysis.core.dump import (
    URL_RE,
    ProjectFiles,
    Quirk,
    batch_index,
    discover_projects,
    parse_excluded_file,
    parse_label_file,
    parse_year_file,
    read_text,
)
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, DumpLayout
from analysis.core.projects import Projects
from analysis.core.quality import (
    IGNORED,
    KEPT,
    SET_ASIDE,
    Anomaly,
    Rule,
    make_anomaly,
    quality_report,
)
from analysis.core.taxonomy import Taxonomy

RULES: dict[str, Rule] = {
    # encoding and layout
    "utf8_bom": Rule(KEPT, "info", "The file starts with a UTF-8 byte-order mark; it is "
                     "removed before parsing."),
    "crlf_line_endings": Rule(KEPT, "info", "Windows (CRLF) line endings; normalised to LF."),
    "cr_line_endings": Rule(KEPT, "info", "Old Mac (CR) line endings; normalised to LF."),
    "empty_file": Rule(IGNORED, "warning", "The file is empty; it contributes no rows. (An "
                       "empty year file means no issues in that year.)"),
    "header_only": Rule(IGNORED, "warning", "The label file has a header but no rows."),
    "leading_blank_lines": Rule(IGNORED, "info", "Blank lines before the header; skipped."),
    "unexpected_file": Rule(IGNORED, "warning", "A file in a project folder that is neither "
                            "the label file nor a <project>_<year>.txt year file; not read."),
    "year_file_prefix": Rule(KEPT, "warning", "A year file whose name prefix differs from its "
                             "folder; read as a year file of that folder's project."),
    "no_year_files": Rule(KEPT, "warning", "A project folder without year files: none of its "
                          "rows can be given a year (they are set aside as no_year)."),
    "label_columns_gap": Rule(KEPT, "warning", "The annotator columns are not numbered "
                              "1..N without gaps (e.g. Label1, Label3); each column is read as "
                              "the annotator of its number."),
    "extra_column": Rule(IGNORED, "warning", "A label-file column other than Issue_URL, "
                         "Label1..LabelN and Final_Label; not used."),
    "unknown_project": Rule(KEPT, "warning", "A project folder not described in "
                            "data/projects.yaml; processed under its folder name, kind unknown."),
    "annotator_count_differs": Rule(KEPT, "info", "Projects have different numbers of "
                                    "annotator columns; absent annotators are missing ratings."),
    # label-file rows
    "blank_row": Rule(SET_ASIDE, "info", "An empty line inside a label file."),
    "malformed_row": Rule(SET_ASIDE, "error", "A label-file row whose number of fields "
                          "differs from the header's."),
    "invalid_url": Rule(SET_ASIDE, "error", "Issue_URL is empty or not an http(s) URL."),
    "missing_final_label": Rule(SET_ASIDE, "error", "Final_Label is empty: the issue has no "
                                "type or theme."),
    "unknown_final_label": Rule(SET_ASIDE, "error", "Final_Label is not a theme code of the "
                                "taxonomy (data/taxonomy.yaml): the issue cannot be typed."),
    "no_year": Rule(SET_ASIDE, "error", "The URL is in none of the project's year files: the "
                    "issue's year is unknown, so it cannot be placed in Table I."),
    "whitespace": Rule(KEPT, "info", "Leading or trailing whitespace around a value; trimmed."),
    "missing_rating": Rule(KEPT, "warning", "An annotator cell is empty; treated as a missing "
                           "rating."),
    "unknown_label": Rule(KEPT, "warning", "An annotator label that is not a taxonomy code; "
                          "kept as given (agreement treats it as a category of its own)."),
    "duplicate_url": Rule(KEPT, "warning", "The same URL is on several rows of one label file. "
                          "clean.duplicates=keep (default) keeps every row, as the paper's "
                          "Table I counts them; `first` sets later rows aside."),
    "cross_project_duplicate": Rule(KEPT, "info", "The same URL is labelled in more than one "
                                    "project; each project keeps its row."),
    "foreign_repo_url": Rule(KEPT, "warning", "The URL points to a repository other than the "
                             "project's own (the most common one in its label file)."),
    "final_not_majority": Rule(KEPT, "warning", "Final_Label differs from the annotators' "
                               "majority label (the paper: discussion or majority vote)."),
    "majority_tie": Rule(KEPT, "info", "The annotators' labels tie: no strict majority."),
    "more_rows_than_year_lines": Rule(KEPT, "warning", "A URL has more label rows than lines in "
                                      "the year files; the extra rows reuse its last year."),
    "url_in_multiple_years": Rule(KEPT, "warning", "A URL is listed in more than one year "
                                  "file; each of its rows takes the years in order."),
    # year-file lines
    "year_blank_line": Rule(SET_ASIDE, "info", "An empty line in a year file."),
    "year_line_not_url": Rule(SET_ASIDE, "error", "A year-file line that is not a URL."),
    "unlabelled_year_url": Rule(SET_ASIDE, "warning", "A URL in a year file that has no row "
                                "in the project's label file."),
    "surplus_year_line": Rule(SET_ASIDE, "warning", "A URL listed in the year files more often "
                              "than it has label rows; the surplus lines are not used."),
    "label_row_set_aside": Rule(SET_ASIDE, "info", "A year-file line whose label row was set "
                                "aside (see that row's reason)."),
    # excluded-candidates files (<Project>_excluded.csv, written by analysis.labels merge)
    "excluded_blank_row": Rule(SET_ASIDE, "info", "An empty line in an excluded-candidates "
                               "file."),
    "excluded_invalid_url": Rule(SET_ASIDE, "error", "An excluded candidate whose Issue_URL is "
                                 "empty or not an http(s) URL: it is not counted."),
    "excluded_also_labelled": Rule(SET_ASIDE, "warning", "An excluded candidate that also has "
                                   "a row in the project's label file: it counts as an issue, "
                                   "not as an excluded candidate."),
    "excluded_duplicate_url": Rule(SET_ASIDE, "warning", "An excluded candidate listed more "
                                   "than once: counted once."),
}

# The first failing check decides why a label row is set aside.
REJECTION_ORDER = ["blank_row", "malformed_row", "invalid_url", "missing_final_label",
                   "unknown_final_label", "no_year", "duplicate_url"]


EXCLUDED_COLUMNS = ["project", "issue_url", "created_at", "year", "source_file",
                    "source_line"]
EXCLUSION_COLUMNS = ["project", "recorded", "label_rows", "excluded", "candidates"]


@dataclass
class CleanResult:
    """The tidy issues table, the rows set aside, the quality report, and the excluded
    candidates (false positives) the dump records, with the per-project summary
    Table I computes its false-positive rates from."""

    issues: pd.DataFrame
    rejected: pd.DataFrame
    quality: dict
    annotators: list[str]
    excluded: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=EXCLUDED_COLUMNS))
    exclusions: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=EXCLUSION_COLUMNS))


def repo_of(url: str) -> str:
    """``host/owner/repo`` of an issue URL (the first two path segments)."""
    rest = url.split("://", 1)[-1]
    parts = rest.split("/")
    return "/".join(parts[:3])


def majority_label(labels: list[str]) -> tuple[str | None, bool]:
    """The strict-majority (modal) label of the non-missing labels, and whether it ties."""
    counts = Counter(x for x in labels if x)
    if not counts:
        return None, False
    top = counts.most_common()
    tie = len(top) > 1 and top[0][1] == top[1][1]
    return (None if tie else top[0][0]), tie


# --- study dumps (base + batches, written by `python -m analysis.labels extend`) ---------
RELEASE_BATCH = "release"  # the batch name of rows without a Batch cell


def study_batches(raw_dir: Path) -> list[dict] | None:
    """The batches a study dump records (``labels/batches.json``: name, annotator columns,
    counts, whether the batch records its exclusions), or None for a dump without that
    record (the release: nothing changes for it). An unreadable record is one line."""
    path = DumpLayout(Path(raw_dir)).labels / "batches.json"
    if not path.is_file():
        return None
    try:
        batches = json.loads(path.read_text(encoding="utf-8"))["batches"]
        if not all(isinstance(b, dict) and isinstance(b.get("name"), str) for b in batches):
            raise ValueError("a batch without a name")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"cannot read the study's batches ({exc})",
                         file=path.relative_to(raw_dir).as_posix(),
                         fix="extend the study again (python -m analysis.labels extend)") \
            from exc
    return batches


def batch_columns(batches: list[dict]) -> dict[str, frozenset[int]]:
    """Each batch's annotator numbers (``annotator_columns``: ``Label8``.. -> 8..)."""
    return {b["name"]: frozenset(int(c.removeprefix("Label")) for c in
                                 b.get("annotator_columns") or () if c[5:].isdigit())
            for b in batches}


def adjudicated_urls(raw_dir: Path, batches: list[dict]) -> frozenset[str]:
    """The URLs whose final label is an adjudicators' decision: the rows of each batch's
    kept adjudication list (``labels/<batch>/adjudication.csv``) with a decision."""
    urls: set[str] = set()
    labels = DumpLayout(Path(raw_dir)).labels
    for batch in batches:
        path = labels / batch["name"] / "adjudication.csv"
        if not path.is_file():
            continue
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = [r for r in csv.reader(handle) if r and not r[0].startswith("#")]
        if not rows or "url" not in rows[0] or "decision" not in rows[0]:
            continue
        u, d = rows[0].index("url"), rows[0].index("decision")
        urls |= {r[u].strip() for r in rows[1:] if len(r) > d and r[d].strip()}
    return frozenset(urls)


def _quirk_to_anomaly(q: Quirk) -> Anomaly:
    return make_anomaly(RULES, q.kind, q.file, q.message, q.line, q.column, q.value)


def label_rows(
    records: pd.DataFrame, header: list[str], url_col: str, final_col: str,
    annotators: dict[str, int], taxonomy: Taxonomy, rel: str,
    adjudicated: frozenset[str] = frozenset(),
    own_columns: dict[str, frozenset[int]] | None = None,
) -> tuple[pd.DataFrame, list[Anomaly]]:
    """Validate label-file records row by row.

    Returns one row per record with ``url``, ``final_label``, ``annotator_<n>`` values,
    the batch (the Batch cell of a study dump, else None), the first rejection reason (or
    None) and the row's flags; plus the anomalies.

    A URL in ``adjudicated`` (:func:`adjudicated_urls`) has its final label from the
    adjudicators' decision, so a tie among its ratings or a final label other than their
    majority is how it was settled, not a majority tie or an error: neither is flagged.
    ``own_columns`` (a study dump: batch -> the annotator numbers of its columns,
    :func:`batch_columns`) limits missing ratings to a row's own batch's columns: another
    batch's are empty by construction (other people rated it), not missing ratings.
    """
    anomalies: list[Anomaly] = []
    idx = {name: i for i, name in enumerate(header)}
    batch_i = batch_index(header)
    ann_cols = {name: f"annotator_{n}" for name, n in sorted(annotators.items(),
                                                                key=lambda kv: kv[1])}
    out = []
    for rec in records.itertuples(index=False):
        row = {"line": rec.line, "raw": rec.raw, "reason": None, "flags": []}
        fields = rec.fields
        if not fields or all(not f.strip() for f in fields):
            row["reason"] = "blank_row"
        elif len(fields) != len(header):
            row["reason"] = "malformed_row"
            anomalies.append(make_anomaly(RULES, "malformed_row", rel,
                                          f"{len(fields)} fields, header has {len(header)}",
                                          rec.line))
        if row["reason"]:
            out.append(row)
            continue
        stripped = [f.strip() for f in fields]
        padded = [name for name, raw, s in zip(header, fields, stripped, strict=True) if raw != s]
        if padded:
            row["flags"].append("whitespace")
            anomalies.append(make_anomaly(RULES, "whitespace", rel,
                                          f"whitespace around {', '.join(padded)}", rec.line))
        row["url"] = stripped[idx[url_col]]
        row["final_label"] = stripped[idx[final_col]]
        row["batch"] = stripped[batch_i] or None if batch_i is not None else None
        for name, col in ann_cols.items():
            row[col] = stripped[idx[name]] or None
        out.append(row)

    # Cell-level checks: the label-file schema (pandera), all failures in one pass.
    parsed = [r for r in out if r["reason"] is None]
    frame = pd.DataFrame(parsed, columns=["line", "url", "final_label", *ann_cols.values()])
    frame["line"] = frame["line"].astype("int64")
    failed: dict[int, dict[str, set[str]]] = {}
    for i, check, column in schemas.failures(
            schemas.label_rows_schema(list(ann_cols.values()), taxonomy.codes),
            frame).itertuples(index=False):
        failed.setdefault(int(i), {}).setdefault(str(check), set()).add(str(column))
    header_name = {col: name for name, col in ann_cols.items()}
    for i, row in enumerate(parsed):
        bad = failed.get(i, {})
        url, final = row["url"], row["final_label"]
        if "invalid_url" in bad:
            row["reason"] = "invalid_url"
            anomalies.append(make_anomaly(RULES, "invalid_url", rel, "not an issue URL",
                                          row["line"], url_col, url))
        elif "missing_final_label" in bad:
            row["reason"] = "missing_final_label"
            anomalies.append(make_anomaly(RULES, "missing_final_label", rel,
                                          "Final_Label is empty", row["line"], final_col))
        elif "unknown_final_label" in bad:
            row["reason"] = "unknown_final_label"
            anomalies.append(make_anomaly(RULES, "unknown_final_label", rel,
                                          f"{final!r} is not a taxonomy code", row["line"],
                                          final_col, final))
        mine = None if own_columns is None else own_columns.get(row["batch"] or RELEASE_BATCH)
        for col in ann_cols.values():
            if col in bad.get("missing_rating", ()) and (
                    mine is None or int(col.split("_")[1]) in mine):
                row["flags"].append("missing_rating")
                anomalies.append(make_anomaly(RULES, "missing_rating", rel,
                                              "empty annotator label", row["line"],
                                              header_name[col]))
            elif col in bad.get("unknown_label", ()):
                row["flags"].append("unknown_label")
                anomalies.append(make_anomaly(RULES, "unknown_label", rel,
                                              f"{row[col]!r} is not a taxonomy code",
                                              row["line"], header_name[col], row[col]))
        labels = [row[c] for c in ann_cols.values()]
        majority, tie = majority_label(labels)
        if url in adjudicated:
            pass
        elif tie:
            row["flags"].append("majority_tie")
            anomalies.append(make_anomaly(RULES, "majority_tie", rel,
                                          "annotator labels tie", row["line"]))
        elif majority is not None and final and majority != final:
            row["flags"].append("final_not_majority")
            anomalies.append(make_anomaly(RULES, "final_not_majority", rel,
                                          f"Final_Label {final} but majority {majority}",
                                          row["line"], final_col, final))
    frame = pd.DataFrame(out)
    for col in ["url", "final_label", "batch", *ann_cols.values()]:
        if col not in frame:
            frame[col] = None
    return frame, anomalies


def pair_years(rows: pd.DataFrame, year_lines: pd.DataFrame) -> tuple[pd.Series, pd.Series,
                                                                        dict[int, str]]:
    """Give every label row with a URL a year from the year files (multiset matching).

    The i-th row of a URL (in file order) takes the i-th listing of that URL in the year
    files (by year, then file line); rows beyond the listings reuse the last one. Returns
    the year per row (NA when the URL is in no year file), the flags per row, and the
    status of each year-file line (by its index in ``year_lines``): ``paired:<row index>``,
    ``unlabelled_year_url`` or ``surplus_year_line``.
    """
    urls = rows["url"].where(rows["url"].fillna("").str.match(URL_RE.pattern))
    left = pd.DataFrame({"url": urls, "row": rows.index}).dropna(subset=["url"])
    left["k"] = left.groupby("url", sort=False).cumcount()
    listing = year_lines.sort_values(["year", "file", "line"], kind="mergesort")
    right = pd.DataFrame({"url": listing["url"], "entry": listing.index,
                          "year": listing["year"].astype("int64")})
    right["k"] = right.groupby("url", sort=False).cumcount()
    per_url = right.groupby("url").agg(m=("k", "size"), distinct=("year", "nunique"))
    left = left.join(per_url, on="url")
    left["k_used"] = left[["k", "m"]].min(axis=1) - (left["k"] >= left["m"]).astype(int)
    matched = left.dropna(subset=["m"]).merge(
        right.rename(columns={"k": "k_used"}), on=["url", "k_used"], how="left")
    years = pd.Series(pd.NA, index=rows.index, dtype="Int64")
    years.loc[matched["row"].to_numpy()] = matched["year"].to_numpy()
    flags = pd.Series([[] for _ in range(len(rows))], index=rows.index, dtype=object)
    for row, k, m, distinct in zip(matched["row"], matched["k"], matched["m"],
                                   matched["distinct"], strict=True):
        extra = []
        if k >= m:
            extra.append("more_rows_than_year_lines")
        if distinct > 1:
            extra.append("url_in_multiple_years")
        if extra:
            flags.at[row] = extra
    status = {int(i): "unlabelled_year_url" for i in year_lines.index}
    rows_per_url = left.groupby("url").size()
    for entry, url, k in zip(right["entry"], right["url"], right["k"], strict=True):
        n = rows_per_url.get(url, 0)
        if n and k >= n:
            status[int(entry)] = "surplus_year_line"
    paired = matched[matched["k"] < matched["m"]]
    for entry, row in zip(paired["entry"], paired["row"], strict=True):
        status[int(entry)] = f"paired:{int(row)}"
    return years, flags, status


def clean_project(
    project: ProjectFiles, raw_dir: Path, taxonomy: Taxonomy, duplicates: str,
    adjudicated: frozenset[str] = frozenset(),
    own_columns: dict[str, frozenset[int]] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, list[Anomaly], list[dict], dict[str, int]]:
    """Clean one project: label rows with years and flags, set-aside rows, accounting
    (``adjudicated``, ``own_columns``: see :func:`label_rows`)."""
    anomalies: list[Anomaly] = []
    text, quirks = read_text(project.label_file, raw_dir)
    rel = project.label_file.relative_to(raw_dir).as_posix()
    parsed = parse_label_file(text, rel)
    anomalies += [_quirk_to_anomaly(q) for q in quirks + parsed.quirks]
    if parsed.header and parsed.records.empty and text:
        anomalies.append(make_anomaly(RULES, "header_only", rel, "no data rows"))
    rows, row_anomalies = label_rows(parsed.records, parsed.header, parsed.url_column,
                                     parsed.final_column, parsed.annotator_columns, taxonomy,
                                     rel, adjudicated, own_columns)
    anomalies += row_anomalies
    if rows.empty:
        rows = pd.DataFrame(columns=["line", "raw", "reason", "flags", "url", "final_label",
                                     "batch"])

    year_frames = []
    for year, path in project.year_files.items():
        ytext, yquirks = read_text(path, raw_dir)
        anomalies += [_quirk_to_anomaly(q) for q in yquirks]
        year_frames.append(schemas.year_line_status(
            parse_year_file(ytext, path.relative_to(raw_dir).as_posix(), year)))
    lines = (pd.concat(year_frames, ignore_index=True) if year_frames else
             pd.DataFrame(columns=["line", "raw", "url", "is_url", "blank", "year", "file"]))
    for r in lines[lines["blank"]].itertuples():
        anomalies.append(make_anomaly(RULES, "year_blank_line", r.file, "empty line", r.line))
    bad = lines[~lines["blank"] & ~lines["is_url"].astype(bool)]
    for r in bad.itertuples():
        anomalies.append(make_anomaly(RULES, "year_line_not_url", r.file, "not a URL", r.line,
                                      value=r.url))
    valid_lines = lines[lines["is_url"].astype(bool)]

    years, year_flags, status = pair_years(rows, valid_lines)
    rows["year"] = years
    rows["flags"] = [f + y for f, y in zip(rows["flags"], year_flags, strict=True)]
    no_year = rows["reason"].isna() & rows["year"].isna()
    rows.loc[no_year, "reason"] = "no_year"
    for r in rows[no_year].itertuples():
        anomalies.append(make_anomaly(RULES, "no_year", rel, "URL in no year file", r.line,
                                      value=r.url))
    for line, url, flags in zip(rows["line"], rows["url"], year_flags, strict=True):
        for flag in flags:
            anomalies.append(make_anomaly(RULES, flag, rel, str(url), int(line), value=url))

    # Duplicate URLs among the rows that are otherwise usable.
    usable = rows["reason"].isna()
    dup_mask = usable & rows["url"].duplicated(keep=False) & rows["url"].notna()
    first_seen = usable & ~rows.loc[usable, "url"].duplicated(keep="first").reindex(
        rows.index, fill_value=True)
    for i in rows.index[dup_mask]:
        later = not bool(first_seen.get(i, False))
        setaside = duplicates == "first" and later
        rows.at[i, "flags"] = rows.at[i, "flags"] + ["duplicate_url"]
        if setaside:
            rows.at[i, "reason"] = "duplicate_url"
        anomalies.append(make_anomaly(
            RULES, "duplicate_url", rel,
            f"{rows.at[i, 'url']} is on {int((rows['url'] == rows.at[i, 'url']).sum())} rows",
            int(rows.at[i, "line"]), value=rows.at[i, "url"],
            action=SET_ASIDE if setaside else KEPT))

    # Foreign repository URLs among kept rows.
    kept = rows["reason"].isna()
    if kept.any():
        repos = rows.loc[kept, "url"].map(repo_of)
        home = repos.value_counts().sort_index().idxmax()
        for i in repos.index[repos != home]:
            rows.at[i, "flags"] = rows.at[i, "flags"] + ["foreign_repo_url"]
            anomalies.append(make_anomaly(RULES, "foreign_repo_url", rel,
                                          f"{repos[i]} is not {home}", int(rows.at[i, "line"]),
                                          value=rows.at[i, "url"]))

    # Year-file line accounting: every line is used (paired with a kept row) or set aside.
    row_reason = rows["reason"]
    line_reason = []
    for i, blank, is_url, file, line, url in zip(lines.index, lines["blank"], lines["is_url"],
                                                 lines["file"], lines["line"], lines["url"],
                                                 strict=True):
        if blank:
            line_reason.append("year_blank_line")
            continue
        if not is_url:
            line_reason.append("year_line_not_url")
            continue
        st = status.get(i, "unlabelled_year_url")
        if st.startswith("paired:"):
            paired = row_reason.at[int(st.split(":", 1)[1])]
            line_reason.append(None if pd.isna(paired) else "label_row_set_aside")
        else:
            line_reason.append(st)
            anomalies.append(make_anomaly(RULES, st, file, str(url), int(line), value=url))
    lines["reason"] = pd.Series(line_reason, index=lines.index, dtype=object)

    files = [{"file": rel, "role": "labels", "input": len(rows),
              "kept": int(rows["reason"].isna().sum()),
              "set_aside": int(rows["reason"].notna().sum())}]
    for path in project.year_files.values():
        yrel = path.relative_to(raw_dir).as_posix()
        sel = lines[lines["file"] == yrel]
        files.append({"file": yrel, "role": "years", "input": len(sel),
                      "kept": int(sel["reason"].isna().sum()),
                      "set_aside": int(sel["reason"].notna().sum())})

    rejected = pd.concat([
        pd.DataFrame({"source_file": rel, "source_line": rows.loc[rows["reason"].notna(), "line"],
                      "reason": rows.loc[rows["reason"].notna(), "reason"],
                      "raw": rows.loc[rows["reason"].notna(), "raw"]}),
        pd.DataFrame({"source_file": lines.loc[lines["reason"].notna(), "file"],
                      "source_line": lines.loc[lines["reason"].notna(), "line"],
                      "reason": lines.loc[lines["reason"].notna(), "reason"],
                      "raw": lines.loc[lines["reason"].notna(), "raw"]}),
    ], ignore_index=True)
    rows["source_file"] = rel
    return rows, rejected, anomalies, files, parsed.annotator_columns


def clean_excluded(
    project: ProjectFiles, raw_dir: Path, labelled_urls: set[str],
) -> tuple[pd.DataFrame, pd.DataFrame, list[Anomaly], dict]:
    """Read a project's excluded candidates: the rows counted as excluded, the rows set
    aside (blank, no URL, also labelled, listed twice), anomalies and the file's accounting.

    Why set aside a URL that is also labelled: a candidate cannot be both an issue and a
    false positive; the label row wins, so the rate never counts an issue as excluded.
    """
    path = project.excluded_file
    rel = path.relative_to(raw_dir).as_posix()
    text, quirks = read_text(path, raw_dir)
    anomalies = [_quirk_to_anomaly(q) for q in quirks]
    lines = parse_excluded_file(text, rel)
    reasons: list[str | None] = []
    seen: set[str] = set()
    for rec in lines.itertuples(index=False):
        url = rec.url
        if not rec.raw.strip():
            reason, message = "excluded_blank_row", "empty line"
        elif not URL_RE.match(url):
            reason, message = "excluded_invalid_url", "not an issue URL"
        elif url in labelled_urls:
            reason, message = "excluded_also_labelled", f"{url} has a label row"
        elif url in seen:
            reason, message = "excluded_duplicate_url", f"{url} is listed again"
        else:
            reason, message = None, ""
        if reason:
            anomalies.append(make_anomaly(RULES, reason, rel, message, int(rec.line),
                                          "Issue_URL", url or None))
        seen.add(url)
        reasons.append(reason)
    lines["reason"] = pd.Series(reasons, index=lines.index, dtype=object)
    kept = lines[lines["reason"].isna()]
    created = kept["created_at"].astype(str)
    years = pd.to_numeric(created.str.extract(r"^(\d{4})-\d{2}-\d{2}", expand=False),
                          errors="coerce").astype("Int64")
    excluded = pd.DataFrame({"project": project.name, "issue_url": kept["url"].astype(str),
                             "created_at": created, "year": years, "source_file": rel,
                             "source_line": kept["line"].astype("int64"),
                             "batch": kept["batch"]},
                            columns=[*EXCLUDED_COLUMNS, "batch"])
    aside = lines[lines["reason"].notna()]
    rejected = pd.DataFrame({"source_file": rel, "source_line": aside["line"],
                             "reason": aside["reason"], "raw": aside["raw"]})
    files = {"file": rel, "role": "excluded", "input": len(lines), "kept": len(kept),
             "set_aside": len(aside)}
    return excluded.reset_index(drop=True), rejected, anomalies, files


def exclusion_summary(project: str, rows: pd.DataFrame, excluded: pd.DataFrame | None,
                      recording: frozenset[str] | None = None) -> dict:
    """One project's line of the exclusions table: whether the dump records its excluded
    candidates, its label rows (every non-blank row: each is a candidate that was not
    excluded, even one set aside for want of a final label), the excluded count and the
    candidates (label rows + excluded); the last two empty when nothing is recorded.

    In a study dump (``recording``: the batches that record their exclusions, from
    :func:`study_batches`) only the rows of those batches count: the release records none,
    so an excluded file holding only a new batch's rows must not turn the release's label
    rows into candidates with no exclusions, which would understate the rate."""
    if recording is not None:
        rows = rows[rows["batch"].isin(recording)] if len(rows) else rows
        excluded = None if excluded is None else excluded[excluded["batch"].isin(recording)]
        if excluded is not None and not len(excluded) and not len(rows):
            excluded = None
    label_rows = int((rows["reason"] != "blank_row").sum()) if len(rows) else 0
    if excluded is None:
        return {"project": project, "recorded": False, "label_rows": label_rows,
                "excluded": None, "candidates": None}
    return {"project": project, "recorded": True, "label_rows": label_rows,
            "excluded": len(excluded), "candidates": label_rows + len(excluded)}


def clean_dump(
    raw_dir: Path, taxonomy: Taxonomy, projects: Projects, duplicates: str = "keep",
) -> CleanResult:
    """Clean a whole dump: one tidy row per labelled issue, rejected rows, quality report."""
    if duplicates not in {"keep", "first"}:
        raise InputError(f"clean.duplicates must be 'keep' or 'first', not {duplicates!r}",
                         file=PATHS.params.name, column="clean.duplicates",
                         fix="set clean.duplicates to keep or first")
    raw_dir = Path(raw_dir)
    found, quirks = discover_projects(raw_dir)
    anomalies = [_quirk_to_anomaly(q) for q in quirks]
    batches = study_batches(raw_dir)
    recording = None if batches is None else frozenset(
        b["name"] for b in batches if b.get("records_exclusions"))
    adjudicated = adjudicated_urls(raw_dir, batches or [])
    own_columns = None if batches is None else batch_columns(batches)
    frames, rejected, files, n_annotators = [], [], [], {}
    excluded_frames, exclusions = [], []
    for project in found:
        rows, rej, anom, acc, annot = clean_project(project, raw_dir, taxonomy, duplicates,
                                                    adjudicated, own_columns)
        gone = None
        if project.excluded_file is not None:
            gone, ex_rej, ex_anom, ex_acc = clean_excluded(
                project, raw_dir, set(rows["url"].dropna().astype(str)))
            excluded_frames.append(gone)
            rej = pd.concat([rej, ex_rej], ignore_index=True)
            anom += ex_anom
            acc.append(ex_acc)
        exclusions.append(exclusion_summary(project.name, rows, gone, recording))
        described = projects.get(project.name)
        if not projects.is_described(project.name):
            anomalies.append(make_anomaly(RULES, "unknown_project", f"Issue Report/{project.name}",
                                          "not in data/projects.yaml"))
        rows = rows.assign(project=project.name, project_name=described.name,
                           kind=described.kind, host=described.host or "unknown",
                           order=described.order)
        frames.append(rows)
        rejected.append(rej)
        anomalies += anom
        files += acc
        n_annotators[project.name] = len(annot)
    if len(set(n_annotators.values())) > 1:
        anomalies.append(make_anomaly(RULES, "annotator_count_differs", "Issue Report",
                                      ", ".join(f"{k}: {v}" for k, v in n_annotators.items())))
    all_rows = pd.concat(frames, ignore_index=True)
    annotators = sorted({c for c in all_rows.columns if c.startswith("annotator_")},
                        key=lambda c: int(c.split("_")[1]))

    # Same URL in several projects (among kept rows).
    kept = all_rows[all_rows["reason"].isna()]
    per_url = kept.groupby("url")["project"].nunique()
    multi = set(per_url[per_url > 1].index)
    for i in kept.index[kept["url"].isin(multi)]:
        all_rows.at[i, "flags"] = all_rows.at[i, "flags"] + ["cross_project_duplicate"]
        anomalies.append(make_anomaly(RULES, "cross_project_duplicate",
                                      all_rows.at[i, "source_file"], all_rows.at[i, "url"],
                                      int(all_rows.at[i, "line"]), value=all_rows.at[i, "url"]))

    with_batch = bool(all_rows["batch"].notna().any()) if "batch" in all_rows else False
    issues = tidy_issues(all_rows[all_rows["reason"].isna()], taxonomy, annotators,
                         with_batch)
    schemas.issues_schema(annotators, taxonomy.codes, taxonomy.type_names,
                          with_batch).validate(issues)
    rejected_frame = pd.concat(rejected, ignore_index=True).sort_values(
        ["source_file", "source_line"], kind="mergesort").reset_index(drop=True)
    summary = {
        "projects": sorted(n_annotators),
        "annotators": len(annotators),
        "years": sorted(int(y) for y in issues["year"].unique()),
        "issues": len(issues),
        "duplicates_policy": duplicates,
    }
    quality = quality_report(anomalies, RULES, files, summary)
    quality["rejected_by_reason"] = dict(sorted(Counter(rejected_frame["reason"]).items()))
    excluded = (pd.concat(excluded_frames, ignore_index=True) if excluded_frames
                else pd.DataFrame(columns=EXCLUDED_COLUMNS))
    if not with_batch:
        excluded = excluded[EXCLUDED_COLUMNS]
    else:
        excluded["batch"] = excluded["batch"].fillna(RELEASE_BATCH).astype(str)
    return CleanResult(issues, rejected_frame, quality, annotators, excluded,
                       exclusion_table(exclusions, projects))


def exclusion_table(summaries: list[dict], projects: Projects) -> pd.DataFrame:
    """The per-project exclusions in Table I's project order, counts as nullable ints."""
    frame = pd.DataFrame(summaries, columns=EXCLUSION_COLUMNS)
    order = projects.order(frame["project"].tolist())
    frame = frame.set_index("project").reindex(order).reset_index()
    for col in ("label_rows", "excluded", "candidates"):
        frame[col] = frame[col].astype("Int64")
    frame["recorded"] = frame["recorded"].astype(bool)
    return frame


ISSUE_COLUMNS = ["project", "project_name", "kind", "host", "issue_url", "year", "type",
                 "final_label", "theme"]


def unknown_projects(quality: dict) -> list[str]:
    """The anomalies naming a project that data/projects.yaml does not describe, as
    one-line warnings (the notebook shows them)."""
    return [f"{a['file']}: {a['message']}" for a in quality["anomalies"]
            if a["kind"] == "unknown_project"]


def tidy_issues(rows: pd.DataFrame, taxonomy: Taxonomy, annotators: list[str],
                with_batch: bool = False) -> pd.DataFrame:
    """Shape kept label rows into the processed issues table (stable order and types).

    ``with_batch`` (a study dump, whose label files name each row's batch) adds the
    ``batch`` column last; a row without a Batch cell is the release's."""
    names = dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True))
    out = pd.DataFrame({
        "project": rows["project"].astype(str),
        "project_name": rows["project_name"].astype(str),
        "kind": rows["kind"].astype(str),
        "host": rows["host"].astype(str),
        "issue_url": rows["url"].astype(str),
        "year": rows["year"].astype("int64"),
        "type": rows["final_label"].map(taxonomy.type_by_code).astype(str),
        "final_label": rows["final_label"].astype(str),
        "theme": rows["final_label"].map(names).astype(str),
    })
    for col in annotators:
        out[col] = rows[col].astype(object).where(rows[col].notna(), None) if col in rows \
            else None
    out["n_ratings"] = out[annotators].notna().sum(axis=1).astype("int64")
    out["source_file"] = rows["source_file"].astype(str)
    out["source_line"] = rows["line"].astype("int64")
    out["flags"] = rows["flags"].map(lambda f: ";".join(sorted(set(f))))
    if with_batch:
        out["batch"] = rows["batch"].fillna(RELEASE_BATCH).astype(str)
    out["_order"] = rows["order"].astype("int64")
    out = out.sort_values(["_order", "project", "source_line"], kind="mergesort")
    return out.drop(columns="_order").reset_index(drop=True)
