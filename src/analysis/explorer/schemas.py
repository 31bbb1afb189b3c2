"""Pandera schema of the CSV the explorer stage writes: a few reports of the release per
theme (:data:`SCHEMAS`, checked as it is written; see :mod:`analysis.core.columns`). The
explorer's data file (``explorer.json``) is not a table."""

from __future__ import annotations

from analysis.core.columns import P, TableSchemas, count, table, text

RELEASE_EXAMPLES = table(
    P.explorer.table("release_examples.csv"),
    "For each theme that is some report's final label, up to three reports on which every "
    "annotator chose the final label and up to three on which some annotator chose another, "
    "in the order of the SHA-256 of their URL.", {
        "theme": text("the theme code (the reports' final label)"),
        "name": text("the theme's name"),
        "type": text("the theme's issue type"),
        "agreement": text("`unanimous` (every annotator who labelled the report chose the "
                          "final label) or `contested`", words=("unanimous", "contested")),
        "rank": count("the report's place among the theme's reports of this agreement "
                      "(1 = shown first)"),
        "issue_url": text("the report's URL"),
        "project": text("the project folder of the release"),
        "year": count("the report's year"),
        "final_label": text("the final label (the theme code)"),
        "agreed": count("annotators whose label is the final label"),
        "ratings": count("annotators who gave a label"),
        "annotator_labels": text("the annotators' labels in column order, separated by `, `",
                                 nullable=True),
    })

SCHEMAS = TableSchemas.of(RELEASE_EXAMPLES)
