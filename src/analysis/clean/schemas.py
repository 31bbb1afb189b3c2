"""Pandera schemas of the CSVs the clean stage writes: the processed issues, the rows set
aside, the excluded candidates and the exclusions (:data:`SCHEMAS`, checked as they are
written; see :mod:`analysis.core.columns`).
"""

from __future__ import annotations

from analysis.core.columns import (
    TEXT,
    P,
    TableSchemas,
    column,
    count,
    study_batch_column,
    table,
    text,
    yes_no,
)
from analysis.core.schemas import ANNOTATOR_DESCRIPTION, ISSUE_DESCRIPTIONS, ISSUE_URL_PATTERN

# The meanings are :mod:`analysis.core.schemas`' (the parquet schema's); annotators are one
# regex column, as their number comes from the dump.
_ISSUE = ISSUE_DESCRIPTIONS
ISSUES = table(
    P.clean.processed_file("issues.csv"),
    "One row per labelled issue kept by the clean "
    "stage: project, URL, year, the annotators' labels, the final label, its "
    "type and theme, and where the row comes from.", {
        "project": text(_ISSUE["project"]),
        "project_name": text(_ISSUE["project_name"]),
        "kind": text(_ISSUE["kind"]),
        "host": text(_ISSUE["host"]),
        "issue_url": text(_ISSUE["issue_url"], pattern=ISSUE_URL_PATTERN),
        "year": count(_ISSUE["year"], low=1970, high=2100),
        "type": text(_ISSUE["type"]),
        "final_label": text(_ISSUE["final_label"]),
        "theme": text(_ISSUE["theme"]),
        r"^annotator_\d+$": column(TEXT, ANNOTATOR_DESCRIPTION, nullable=True,
                                   regex=True),
        "n_ratings": count(_ISSUE["n_ratings"]),
        "source_file": text(_ISSUE["source_file"]),
        "source_line": count(_ISSUE["source_line"], low=2),
        "flags": text(_ISSUE["flags"], nullable=True),
        **study_batch_column(),
    })


REJECTED = table(
    P.clean.processed_file("rejected.csv"),
    "Every label-file row and year-file line the "
    "clean stage set aside, with the rule that set it aside.", {
        "source_file": text("the file the row or line comes from, relative to "
                            "data/raw: a label file (`<Project>.csv`), a year "
                            "file (`<Project>_<year>.txt`) or an "
                            "excluded-candidates file "
                            "(`<Project>_excluded.csv`)"),
        "source_line": count("its line number in that file (counting from 1)",
                             low=1),
        "reason": text("why it was set aside: the name of a set-aside rule of "
                       "analysis.clean.rules.RULES (e.g. no_year: the URL is in no "
                       "year file; unlabelled_year_url: a year-file URL without "
                       "a label row; label_row_set_aside: the line's label row "
                       "was set aside)"),
        "raw": text("the row or line exactly as written in the file; empty for "
                    "a blank line", nullable=True),
    })


EXCLUDED = table(
    P.clean.processed_file("excluded.csv"),
    "Every candidate the annotators all excluded as a false positive, as the "
    "dump records it (`<Project>_excluded.csv`, written by `python -m "
    "analysis.labels merge`); never counted as an issue. Empty for a dump that "
    "records none (the paper's release).", {
        "project": text("the project's folder name under `Issue Report/`"),
        "issue_url": text("the candidate's URL", pattern=ISSUE_URL_PATTERN),
        "created_at": text("when the issue was opened, as the file gives it",
                           nullable=True),
        "year": count("the year of created_at; empty when it is not a date",
                      nullable=True, low=1970, high=2100),
        "source_file": text("the excluded-candidates file, relative to data/raw"),
        "source_line": count("its line number in that file (counting from 1)",
                             low=2),
        **study_batch_column(),
    })


EXCLUSIONS = table(
    P.clean.processed_file("exclusions.csv"),
    "Per project: whether the dump records its excluded candidates, and the "
    "counts Table I's false-positive rate (excluded / candidates) is computed "
    "from.", {
        "project": text("the project's folder name under `Issue Report/`"),
        "recorded": yes_no("True when the project folder has an "
                           "excluded-candidates file (`<Project>_excluded.csv`); "
                           "False for a dump that does not record exclusions "
                           "(the paper's release: the rate is then the paper's "
                           "own, shown as reported)"),
        "label_rows": count("the label file's rows (blank lines not counted): "
                            "candidates that were not excluded; in a study dump, only "
                            "the rows of the batches that record their exclusions "
                            "(labels/batches.json)"),
        "excluded": count("excluded candidates counted (set-aside lines of the "
                          "file not included); empty when not recorded",
                          nullable=True),
        "candidates": count("label_rows + excluded: every candidate the "
                            "annotators saw; empty when not recorded",
                            nullable=True),
    })


SCHEMAS = TableSchemas.of(
    ISSUES,
    REJECTED,
    EXCLUDED,
    EXCLUSIONS)
