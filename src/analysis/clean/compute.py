"""Clean: turn the raw dump into one tidy row per labelled issue, and account for every row.

Every anomaly kind has one rule in :data:`RULES` (:mod:`analysis.clean.rules`: kept and
flagged, set aside with a reason, ignored, or stop); :func:`analysis.clean.scan.scan_dump`
reads the dump and applies them. The defaults keep the paper's counts reproducible:
duplicate URLs are kept (Table I counts them), quirks of encoding and whitespace are
normalised, and only rows that cannot be placed in Table I (no URL, no usable final label,
no year) are set aside.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.clean.rules import RULES
from analysis.clean.scan import EXCLUDED_COLUMNS, scan_dump
from analysis.clean.study import RELEASE_BATCH
from analysis.core import schemas
from analysis.core.projects import Projects
from analysis.core.quality import Anomaly, quality_report
from analysis.core.taxonomy import Taxonomy

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
    excluded: pd.DataFrame
    exclusions: pd.DataFrame


def clean_dump(raw_dir: Path, taxonomy: Taxonomy, projects: Projects,
               duplicates: str = "keep") -> CleanResult:
    """The clean stage's tables from the dump's folder (``raw_dir``), the taxonomy and the
    projects' descriptions; returns one :class:`CleanResult`: one row per labelled issue,
    the rejected rows and the quality report. ``duplicates`` is params.yaml's
    ``clean.duplicates`` (``keep`` or ``first``, checked by
    :class:`~analysis.clean.params.CleanParams`)."""
    anomalies: list[Anomaly] = []
    scan = scan_dump(raw_dir, projects, taxonomy, duplicates, anomalies)
    all_rows = scan.rows
    with_batch = bool(all_rows["batch"].notna().any()) if "batch" in all_rows else False
    issues = tidy_issues(all_rows[all_rows["reason"].isna()], taxonomy, scan.annotators,
                         with_batch)
    schemas.issues_schema(scan.annotators, taxonomy.codes, taxonomy.type_names,
                          with_batch).validate(issues)
    rejected_frame = pd.concat(scan.rejected, ignore_index=True).sort_values(
        ["source_file", "source_line"], kind="mergesort").reset_index(drop=True)
    quality = quality_report(anomalies, RULES, scan.files, scan.summary(duplicates))
    quality["rejected_by_reason"] = dict(sorted(Counter(rejected_frame["reason"]).items()))
    excluded = (pd.concat(scan.excluded, ignore_index=True) if scan.excluded
                else pd.DataFrame(columns=EXCLUDED_COLUMNS))
    if not with_batch:
        excluded = excluded[EXCLUDED_COLUMNS]
    else:
        excluded["batch"] = excluded["batch"].fillna(RELEASE_BATCH).astype(str)
    return CleanResult(issues, rejected_frame, quality, scan.annotators, excluded,
                       exclusion_table(scan.exclusions, projects))


def exclusion_table(summaries: list[dict], projects: Projects) -> pd.DataFrame:
    """The exclusions in Table I's project order, counts as nullable ints; a study's have
    one line per project and batch (a ``batch`` column last, the batches in the study's
    order within a project)."""
    batched = any("batch" in s for s in summaries)
    frame = pd.DataFrame(summaries, columns=[*EXCLUSION_COLUMNS, *(["batch"] * batched)])
    rank = {p: i for i, p in enumerate(projects.order(list(dict.fromkeys(frame["project"]))))}
    frame = (frame.assign(_o=frame["project"].map(rank)).sort_values("_o", kind="mergesort")
             .drop(columns="_o").reset_index(drop=True))
    for col in ("label_rows", "excluded", "candidates"):
        frame[col] = frame[col].astype("Int64")
    frame["recorded"] = frame["recorded"].astype(bool)
    return frame


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
