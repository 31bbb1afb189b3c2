"""Pandera schemas of the CSVs the compare stage writes: the changes against the baseline
(:data:`SCHEMAS`, checked as they are written; see :mod:`analysis.core.columns`).
"""

from __future__ import annotations

import pandera.pandas as pa

from analysis.core.columns import (
    ANALYTIC,
    P,
    TableSchemas,
    count,
    decimal,
    integer,
    percent,
    table,
    text,
    yes_no,
)

COMPARE_STATUSES = ("new", "removed", "changed", "unchanged")


BASELINE = ("the baseline: the committed snapshot of this pipeline's run on the paper's dump "
            "(compare.baseline in params.yaml)")


def _change_columns(thing: str) -> dict[str, pa.Column]:
    """Status, both runs' counts and the change, for one row of a compare table."""
    return {
        "status": text(f"`new` (only in the current run), `removed` (only in the baseline), "
                       f"`changed` or `unchanged` ({BASELINE})", words=COMPARE_STATUSES),
        "baseline": count(f"{thing} in the baseline (0 when new)"),
        "current": count(f"{thing} in the current run (0 when removed)"),
        "change": integer("current - baseline (negative when the current run has fewer)"),
        "change_percent": decimal("the change as a percentage of the baseline, rounded to 2 "
                                  "decimals; empty when the baseline has none"),
    }


PROJECTS = table(
    P.compare.table("projects.csv"),
    "The current run against the baseline: "
    "issues per project (Table I order).", {
        "project": text("the project's folder name under `Issue Report/`"),
        "name": text("the project's display name (data/projects.yaml; the "
                     "folder name when not listed there)"),
        **_change_columns("the project's issues"),
    })


YEARS = table(
    P.compare.table("years.csv"),
    "The current run against the baseline: "
    "issues per year.", {
        "year": count("a year of either run", low=1970, high=2100),
        **_change_columns("issues from that year"),
    })


TYPES = table(
    P.compare.table("types.csv"),
    "The current run against the baseline: "
    "issues per issue type, with each run's shares.", {
        "type": text("the issue type (of the final label)"),
        **_change_columns("issues of that type"),
        "baseline_share": percent("the type's share of all issues of the "
                                  "baseline, in percent rounded to 2 decimals "
                                  "(0-100)"),
        "current_share": percent("the type's share of all issues of the current "
                                 "run, in percent rounded to 2 decimals "
                                 "(0-100)"),
    })


CELLS = table(
    P.compare.table("cells.csv"),
    "The current run against the baseline, "
    "cell by cell: per project, every year and issue-type count of either run.", {
        "project": text("the project's folder name under `Issue Report/`"),
        "dimension": text("`year` or `type`: what the key is",
                          words=("year", "type")),
        "key": text("the year (e.g. 2024) or the issue type (e.g. Bug)"),
        **_change_columns("the project's issues of that year or type"),
    })


KAPPA = table(
    P.compare.table("kappa.csv"),
    "The current run against the baseline: "
    "Fleiss' kappa per issue type with its analytic interval, both from the "
    "agreement stage.", {
        "type": text("the issue type (of the final label)"),
        "baseline": decimal("Fleiss' kappa of the type in the baseline snapshot "
                            "(6 decimals); empty when it has none"),
        "baseline_ci_low": decimal("lower end of its analytic interval in the "
                                   "baseline snapshot"),
        "baseline_ci_high": decimal("upper end of that interval"),
        "current": decimal("Fleiss' kappa of the type in this run, from the "
                           "agreement stage (metrics/agreement.json; 6 "
                           "decimals); empty when not defined or absent"),
        "current_ci_low": decimal(f"lower end of its {ANALYTIC}"),
        "current_ci_high": decimal("upper end of that interval"),
        "change": decimal("current - baseline (6 decimals); empty when either "
                          "is missing"),
        "intervals_overlap": yes_no("whether the two runs' intervals overlap; "
                                    "empty when an interval is missing",
                                    nullable=True),
        "current_source": text("where this run's kappa comes from; empty when "
                               "the type is not in this run", nullable=True),
    })


SCHEMAS = TableSchemas.of(
    PROJECTS,
    YEARS,
    TYPES,
    CELLS,
    KAPPA)
