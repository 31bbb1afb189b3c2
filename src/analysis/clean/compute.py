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
from analysis.clean.scan import EXCLUDED_COLUMNS, DumpScan, scan_dump
from analysis.clean.study import RELEASE_BATCH, people_frame
from analysis.core import schemas
from analysis.core.projects import Projects
from analysis.core.quality import Anomaly, quality_report
from analysis.core.taxonomy import Taxonomy

EXCLUSION_COLUMNS = ["project", "recorded", "label_rows", "excluded", "candidates"]


@dataclass
class CleanResult:
    """The tidy issues table, the rows set aside, the quality report, and the excluded
    candidates (false positives) the dump records, with the per-project summary
    Table I computes its false-positive rates from; on a study, who labelled in each
    batch's columns (:func:`people_table`)."""

    issues: pd.DataFrame
    rejected: pd.DataFrame
    quality: dict
    annotators: list[str]
    excluded: pd.DataFrame
    exclusions: pd.DataFrame
    people: pd.DataFrame | None = None  # a study's: who labelled in each batch's columns


def has_batches(scan: DumpScan) -> bool:
    """Whether the dump is a study: its label files name a batch on some row."""
    rows = scan.rows
    return bool(rows["batch"].notna().any()) if "batch" in rows else False


def issues_table(scan: DumpScan, taxonomy: Taxonomy) -> pd.DataFrame:
    """The processed issues table: the kept label rows of the scan (no reason to set them
    aside) in their tidy form (:func:`tidy_issues`), checked against the issues schema
    (:func:`analysis.core.schemas.issues_schema`)."""
    with_batch = has_batches(scan)
    issues = tidy_issues(scan.rows[scan.rows["reason"].isna()], taxonomy, scan.annotators,
                         with_batch)
    schemas.issues_schema(scan.annotators, taxonomy.codes, taxonomy.type_names,
                          with_batch).validate(issues)
    return issues


def rejected_table(scan: DumpScan) -> pd.DataFrame:
    """The rows set aside, every project's, in the order of their files and lines."""
    return pd.concat(scan.rejected, ignore_index=True).sort_values(
        ["source_file", "source_line"], kind="mergesort").reset_index(drop=True)


def quality_of(scan: DumpScan, anomalies: list[Anomaly], rejected: pd.DataFrame,
               duplicates: str) -> dict:
    """The quality report: every anomaly with the rule applied (:data:`RULES`), each
    file's rows accounted for, the scan's summary and the rows set aside by reason."""
    quality = quality_report(anomalies, RULES, scan.files, scan.summary(duplicates))
    quality["rejected_by_reason"] = dict(sorted(Counter(rejected["reason"]).items()))
    return quality


def excluded_table(scan: DumpScan) -> pd.DataFrame:
    """The excluded candidates (false positives) the dump records, every project's; a
    study's with the batch of each (the release's where none is named)."""
    excluded = (pd.concat(scan.excluded, ignore_index=True) if scan.excluded
                else pd.DataFrame(columns=EXCLUDED_COLUMNS))
    if not has_batches(scan):
        return excluded[EXCLUDED_COLUMNS]
    excluded["batch"] = excluded["batch"].fillna(RELEASE_BATCH).astype(str)
    return excluded


def people_table(scan: DumpScan) -> pd.DataFrame | None:
    """On a study, its people: one row per batch and label column, with the name the study
    gives the annotator of that column (``labels/batches.json``), so that the agreement
    stage can name each person; None for a dump without batches (nothing is written)."""
    return people_frame(scan.people)


def clean_dump(raw_dir: Path, taxonomy: Taxonomy, projects: Projects,
               duplicates: str = "keep") -> CleanResult:
    """The clean stage's tables from the dump's folder (``raw_dir``), the taxonomy and the
    projects' descriptions; returns one :class:`CleanResult`: one row per labelled issue,
    the rejected rows and the quality report. ``duplicates`` is params.yaml's
    ``clean.duplicates`` (``keep`` or ``first``, checked by
    :class:`~analysis.clean.params.CleanParams`).

    The steps the stage's notebook (``notebooks/01_clean.py``) takes one cell at a time,
    in one call: :func:`~analysis.clean.scan.scan_dump`, :func:`issues_table`,
    :func:`rejected_table`, :func:`quality_of`, :func:`excluded_table`,
    :func:`exclusion_table` and :func:`people_table` (the tests, benchmarks and checks run
    a whole dump through it)."""
    anomalies: list[Anomaly] = []
    scan = scan_dump(raw_dir, projects, taxonomy, duplicates, anomalies)
    issues = issues_table(scan, taxonomy)
    rejected = rejected_table(scan)
    return CleanResult(issues, rejected, quality_of(scan, anomalies, rejected, duplicates),
                       scan.annotators, excluded_table(scan),
                       exclusion_table(scan.exclusions, projects), people_table(scan))


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
