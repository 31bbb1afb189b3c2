"""Pandera schemas of the CSVs the compare stage writes: the changes against the baseline
(:data:`SCHEMAS`, checked as they are written; see :mod:`analysis.core.columns`).
"""

from __future__ import annotations

import pandera.pandas as pa

from analysis.core.columns import (
    ANALYTIC,
    BATCH,
    STUDY,
    P,
    TableSchemas,
    count,
    decimal,
    integer,
    percent,
    share,
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


# --- study dumps only (analysis.compare.batches) -----------------------------------------
ADDITIONS = table(
    P.compare.table("additions.csv"),
    f"The issues each new batch of {STUDY} adds, per project and year (written on a study "
    "only).", {
        "batch": text(BATCH),
        "project": text("the project's folder name under `Issue Report/`"),
        "name": text("the project's display name (data/projects.yaml)"),
        "year": count("the year the issues were opened", low=1970, high=2100),
        "issues": count("the batch's labelled issues of that project and year", low=1),
    })

DRIFT = table(
    P.compare.table("drift.csv"),
    f"Per new batch of {STUDY} and theme: its share of the batch against its share of the "
    "release, with Fisher's exact test and Holm's correction over the themes (written on a "
    "study only).", {
        "batch": text(BATCH),
        "code": text("the theme code (final label)"),
        "theme": text("the theme's name (data/taxonomy.yaml)"),
        "type": text("the theme's issue type"),
        "release": count("the release's issues of the theme"),
        "release_share": percent("their share of the release's issues"),
        "batch_issues": count("the batch's issues of the theme"),
        "batch_share": percent("their share of the batch's issues"),
        "difference": decimal("batch_share - release_share, in points"),
        "p_value": share("two-sided p of Fisher's exact test on (this theme or another) x "
                         "(release or batch)"),
        "p_holm": share("the p-value after Holm's correction over the themes"),
        "changed": yes_no("True when p_holm < 0.05"),
    })

DRIFT_TESTS = table(
    P.compare.table("drift_tests.csv"),
    f"Per new batch of {STUDY}: Pearson's chi-square test of homogeneity of the theme "
    "shares, batch against release (written on a study only).", {
        "batch": text(BATCH),
        "themes": count("themes with an issue in the release or the batch"),
        "chi2": decimal("the chi-square statistic; empty when not defined", low=0.0),
        "dof": count("its degrees of freedom (themes - 1)"),
        "p_value": share("its p-value; empty when not defined"),
        "sparse_cells": count("expected counts under 5 (the p-value is then approximate)"),
        "changed_themes": count("themes whose Holm-corrected Fisher p is under 0.05 "
                                "(drift.csv)"),
    })


SCHEMAS = TableSchemas.of(
    PROJECTS,
    YEARS,
    TYPES,
    CELLS,
    KAPPA,
    ADDITIONS,
    DRIFT,
    DRIFT_TESTS)
