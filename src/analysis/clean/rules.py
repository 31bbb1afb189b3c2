"""The clean stage's rules: every anomaly kind with what is done about it (:data:`RULES`,
from ``core/rules.yaml``), and the checks of label-file rows one by one
(:func:`label_rows`). The rules across rows (years, duplicates, foreign repositories) are
in :mod:`analysis.clean.across`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pandas as pd

from analysis.clean.study import NO_STUDY, Study
from analysis.core import schemas
from analysis.core.dump import batch_index
from analysis.core.quality import Anomaly, Rule, make_anomaly, stage_rules
from analysis.core.taxonomy import Taxonomy

RULES: dict[str, Rule] = stage_rules("clean")  # analysis/core/rules.yaml

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


def label_rows(
    records: pd.DataFrame, header: list[str], url_col: str, final_col: str,
    annotators: dict[str, int], taxonomy: Taxonomy, rel: str, study: Study = NO_STUDY,
) -> tuple[pd.DataFrame, list[Anomaly]]:
    """Validate label-file records row by row: one row per record with ``url``,
    ``final_label``, ``annotator_<n>`` values, the batch (the Batch cell of a study dump,
    else None), the first rejection reason (or None) and the row's flags; plus the
    anomalies.

    In a study dump (``study``, :func:`analysis.clean.study.read_study`): a URL whose final
    label is the adjudicators' decision is not flagged as a majority tie or as a final
    label other than the majority (that is how it was settled), and missing ratings are
    looked for only in the row's own batch's columns (another batch's are empty by
    construction: other people rated it).
    """
    anomalies: list[Anomaly] = []
    ann_cols = {name: f"annotator_{n}" for name, n in sorted(annotators.items(),
                                                                key=lambda kv: kv[1])}
    out = read_fields(records, header, url_col, final_col, ann_cols, rel, anomalies)
    parsed = [r for r in out if r["reason"] is None]
    failed = cell_failures(parsed, ann_cols, taxonomy)
    columns = LabelColumns(url_col, final_col, {col: name for name, col in ann_cols.items()})
    for i, row in enumerate(parsed):
        check_cells(row, failed.get(i, {}), columns, study, rel, anomalies)
        check_majority(row, columns, study, rel, anomalies)
    frame = pd.DataFrame(out)
    for col in ["url", "final_label", "batch", *ann_cols.values()]:
        if col not in frame:
            frame[col] = None
    return frame, anomalies


@dataclass(frozen=True)
class LabelColumns:
    """A label file's columns as its header names them: the URL, the final label, and the
    header name of each ``annotator_<n>`` column."""

    url: str
    final: str
    header_names: dict[str, str]


def read_fields(records: pd.DataFrame, header: list[str], url_col: str, final_col: str,
                ann_cols: dict[str, str], rel: str, anomalies: list[Anomaly]) -> list[dict]:
    """One row per record: a blank record or one whose fields do not match the header is
    set aside with the reason; the others get their stripped fields (URL, final label,
    batch, each annotator's label), flagged when a field had whitespace around it."""
    idx = {name: i for i, name in enumerate(header)}
    batch_i = batch_index(header)
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
    return out


def cell_failures(parsed: list[dict], ann_cols: dict[str, str], taxonomy: Taxonomy
                  ) -> dict[int, dict[str, set[str]]]:
    """Row (position in ``parsed``) -> check -> the columns that fail it: the label-file
    schema (pandera) on every cell at once."""
    frame = pd.DataFrame(parsed, columns=["line", "url", "final_label", *ann_cols.values()])
    frame["line"] = frame["line"].astype("int64")
    failed: dict[int, dict[str, set[str]]] = {}
    for i, check, column in schemas.failures(
            schemas.label_rows_schema(list(ann_cols.values()), taxonomy.codes),
            frame).itertuples(index=False):
        failed.setdefault(int(i), {}).setdefault(str(check), set()).add(str(column))
    return failed


def check_cells(row: dict, bad: dict[str, set[str]], columns: LabelColumns, study: Study,
                rel: str, anomalies: list[Anomaly]) -> None:
    """A row's failed cell checks (``bad``): a bad URL or final label sets it aside (the
    first reason); a missing rating (in the row's own batch's columns) or an unknown label
    flags it."""
    url, final, line = row["url"], row["final_label"], row["line"]
    if "invalid_url" in bad:
        row["reason"] = "invalid_url"
        anomalies.append(make_anomaly(RULES, "invalid_url", rel, "not an issue URL", line,
                                      columns.url, url))
    elif "missing_final_label" in bad:
        row["reason"] = "missing_final_label"
        anomalies.append(make_anomaly(RULES, "missing_final_label", rel,
                                      "Final_Label is empty", line, columns.final))
    elif "unknown_final_label" in bad:
        row["reason"] = "unknown_final_label"
        anomalies.append(make_anomaly(RULES, "unknown_final_label", rel,
                                      f"{final!r} is not a taxonomy code", line,
                                      columns.final, final))
    mine = study.columns_of(row["batch"])
    for col, name in columns.header_names.items():
        if col in bad.get("missing_rating", ()) and (
                mine is None or int(col.split("_")[1]) in mine):
            row["flags"].append("missing_rating")
            anomalies.append(make_anomaly(RULES, "missing_rating", rel,
                                          "empty annotator label", line, name))
        elif col in bad.get("unknown_label", ()):
            row["flags"].append("unknown_label")
            anomalies.append(make_anomaly(RULES, "unknown_label", rel,
                                          f"{row[col]!r} is not a taxonomy code", line, name,
                                          row[col]))


def check_majority(row: dict, columns: LabelColumns, study: Study, rel: str,
                   anomalies: list[Anomaly]) -> None:
    """A row whose annotators tie, or whose final label is not their majority, is flagged
    (not when the adjudicators decided it, on a study)."""
    majority, tie = majority_label([row[c] for c in columns.header_names])
    final = row["final_label"]
    if row["url"] in study.adjudicated:
        return
    if tie:
        row["flags"].append("majority_tie")
        anomalies.append(make_anomaly(RULES, "majority_tie", rel, "annotator labels tie",
                                      row["line"]))
    elif majority is not None and final and majority != final:
        row["flags"].append("final_not_majority")
        anomalies.append(make_anomaly(RULES, "final_not_majority", rel,
                                      f"Final_Label {final} but majority {majority}",
                                      row["line"], columns.final, final))
