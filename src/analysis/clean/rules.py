"""The clean stage's rules: every anomaly kind with what is done about it (:data:`RULES`),
and the checks of label-file rows one by one (:func:`label_rows`).

Every anomaly kind has one rule (kept and flagged, set aside with a reason, ignored, or
stop). The defaults keep the paper's counts reproducible: duplicate URLs are kept (Table I
counts them), quirks of encoding and whitespace are normalised, and only rows that cannot
be placed in Table I (no URL, no usable final label, no year) are set aside. The rules
across rows (years, duplicates, foreign repositories) are in :mod:`analysis.clean.scan`.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from analysis.clean.study import NO_STUDY, Study
from analysis.core import schemas
from analysis.core.dump import Quirk, batch_index
from analysis.core.quality import IGNORED, KEPT, SET_ASIDE, Anomaly, Rule, make_anomaly
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


def quirk_anomaly(q: Quirk) -> Anomaly:
    """A raw-level quirk of :mod:`analysis.core.dump` as an anomaly under its rule."""
    return make_anomaly(RULES, q.kind, q.file, q.message, q.line, q.column, q.value)


def label_rows(
    records: pd.DataFrame, header: list[str], url_col: str, final_col: str,
    annotators: dict[str, int], taxonomy: Taxonomy, rel: str, study: Study = NO_STUDY,
) -> tuple[pd.DataFrame, list[Anomaly]]:
    """Validate label-file records row by row.

    Returns one row per record with ``url``, ``final_label``, ``annotator_<n>`` values,
    the batch (the Batch cell of a study dump, else None), the first rejection reason (or
    None) and the row's flags; plus the anomalies.

    In a study dump (``study``, :func:`analysis.clean.study.read_study`): a URL whose final
    label is the adjudicators' decision is not flagged as a majority tie or as a final
    label other than the majority (that is how it was settled), and missing ratings are
    looked for only in the row's own batch's columns (another batch's are empty by
    construction: other people rated it).
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
        row["batch"] = (stripped[batch_i] or None) if batch_i is not None else None
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
        mine = study.columns_of(row["batch"])
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
        if url in study.adjudicated:
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
