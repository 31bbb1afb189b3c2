"""Pandera schemas of the CSVs the table1 stage writes: Table I, the type shares, its
claims and the false-positive rates (:data:`SCHEMAS`, checked as they are written; see
:mod:`analysis.core.columns`).
"""

from __future__ import annotations

from analysis.core.columns import (
    DECIMAL,
    P,
    TableSchemas,
    column,
    count,
    percent,
    range_check,
    table,
    text,
)

# issue types are the capitalised names of data/taxonomy.yaml (Question, Bug, ...)
_TYPE_NAMES = r"^(?!Total$)[A-Z][A-Za-z ]*$"
COUNTS = table(
    P.table1.table("counts.csv"),
    "Table I of the paper: issue reports per project by year and by issue type; "
    "the last row (`Sum`) adds up all projects.", {
        "project": text("the project's folder name under `Issue Report/` in the "
                        "dump; `Sum` on the last row, which adds up all "
                        "projects"),
        "name": text("the project's display name (data/projects.yaml; the "
                     "folder name when not listed there); `All projects` on "
                     "the Sum row"),
        "kind": text("`framework` (a DL framework) or `toolkit` (an LLM "
                     "toolkit), from data/projects.yaml; `unknown` for a "
                     "project not listed there; empty on the Sum row",
                     nullable=True),
        r"^\d{4}$": count("one column per year found in the dump (e.g. 2023): "
                          "the project's issue reports from that year",
                          regex=True),
        _TYPE_NAMES: count("one column per issue type (Question, Bug, "
                          "Requirement): the project's issue reports whose "
                          "final label is a theme of that type", regex=True),
        "Total": count("all the project's issue reports (the sum of its type "
                       "columns, and of its year columns)"),
    })


FALSE_POSITIVES = table(
    P.table1.table("false_positives.csv"),
    "Table I's false-positive column: per project, the share of candidates the "
    "annotators excluded, computed where the dump records its excluded "
    "candidates, else the paper's own rate (reported); the last row (`Sum`) "
    "holds the average of the projects' rates.", {
        "project": text("the project's folder name under `Issue Report/`; "
                        "`Sum` on the last row"),
        "name": text("the project's display name; `All projects` on the Sum "
                     "row"),
        "excluded": count("candidates all annotators excluded as false "
                          "positives (data/processed/clean/exclusions.csv); "
                          "empty when the rate is not computed; on the Sum "
                          "row, the total over the computed projects",
                          nullable=True),
        "candidates": count("every candidate of the project (label rows + "
                            "excluded); empty when the rate is not computed",
                            nullable=True),
        "false_positive_percent": percent(
            "excluded / candidates × 100 when computed; the paper's printed "
            "rate when reported; on the Sum row, the mean of the projects' "
            "rates (computed ones when any, else reported); empty when none",
            nullable=True),
        "source": text("`computed` (from the dump's excluded candidates), "
                       "`reported` (the paper's Table I: the release does not "
                       "record its excluded reports) or `none`",
                       words=("computed", "reported", "none")),
    })


TYPE_SHARES = table(
    P.table1.table("type_shares.csv"),
    "Per row of Table I (the Sum row too): the share of each issue type among "
    "the row's issue reports.", {
        "project": text("the project's folder name; `Sum` on the last row"),
        r"^(?!Total$)[A-Z][A-Za-z ]*$": column(
            DECIMAL, "one column per issue type (Question, Bug, Requirement): "
            "the type's issue reports as a percentage of the row's (0 for a row "
            "without reports)", regex=True, checks=[range_check(0.0, 100.0)]),
    })


CLAIMS = table(
    P.table1.table("claims.csv"),
    "Per cell of Table I that the paper prints: its row, its column and the "
    "scorecard claim that checks it.", {
        "project": text("the row: a project's folder name, or `Sum`"),
        "column": text("the column: a year, an issue type, `Total` (the Sum "
                       "row's total) or `false_positive`"),
        "claim_id": text("the claim's id in data/claims.yaml (e.g. "
                         "table1.pytorch.2023)"),
    })


SCHEMAS = TableSchemas.of(
    COUNTS,
    TYPE_SHARES,
    CLAIMS,
    FALSE_POSITIVES)
