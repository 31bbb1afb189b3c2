"""Pandera schemas of the CSVs the findings stage writes: the scorecard, its verdicts per
place and per group, and the challenges (:data:`SCHEMAS`, checked as they are written;
see :mod:`analysis.core.columns`).
"""

from __future__ import annotations

import pandera.pandas as pa

from analysis.core.claims import CAUSES, STATUSES
from analysis.core.columns import (
    P,
    TableSchemas,
    count,
    percent,
    table,
    text,
    yes_no,
)

SCORECARD = table(
    P.findings.scorecard,
    "Every number the paper prints (data/claims.yaml) beside the value this run "
    "reproduces, with a verdict.", {
        "claim_id": text("the claim's id in data/claims.yaml: where the number "
                         "is from, then what it counts (e.g. "
                         "table1.pytorch.2023)"),
        "description": text("what the number is, in words", nullable=True),
        "paper_value": text("the value exactly as the paper prints it (e.g. "
                            "38,742, 0.757 or 12.34%)"),
        "reproduced_value": text("this run's value, printed with the paper's "
                                 "precision plus two more decimals; empty when "
                                 "not reproduced", nullable=True),
        "status": text("`exact` (equal at the paper's printed precision; for "
                       "an 'over N' claim, satisfied), `rounding` (off by at "
                       "most one unit in the paper's last printed digit), "
                       "`differs`, or `not_reproducible` (the released data "
                       "cannot give this number)", words=STATUSES),
        "note": text("where this run's value comes from, or why it cannot be "
                     "reproduced; empty when there is nothing to add",
                     nullable=True),
        "source": text("where the paper prints the number (e.g. Table I, "
                       "Section III.B)", nullable=True),
        "relation": text("the comparator of the paper's statement: `=` (it "
                         "states the value), `>`, `>=`, `<`, `<=` (a bound, "
                         "e.g. 'over three' is `>` 3) or `~` (about)",
                         words=("=", ">", ">=", "<", "<=", "~")),
        "cause": text("the root cause of a difference (empty unless the verdict is "
                      "`differs`): " + "; ".join(f"`{k}`: {v}" for k, v in CAUSES.items()),
                      nullable=True, words=CAUSES),
    })

DIFFERENCES_BY_CAUSE = table(
    P.findings.table("differences_by_cause.csv"),
    "The scorecard's differences (verdict `differs`) grouped by root cause, in the order "
    "the Overview lists them.", {
        "cause": text("the root cause (the scorecard's cause)", words=CAUSES),
        "meaning": text("what the cause is, in words"),
        "claims": count("claims that differ for this cause", low=1),
        "claim_ids": text("their claim ids, separated by spaces, in the scorecard's order"),
    })


def _status_columns() -> dict[str, pa.Column]:
    """The claims and the claims per verdict, as the findings stage counts them."""
    return {"claims": count("claims"),
            **{s: count(f"claims whose verdict is `{s}`") for s in STATUSES}}


STATUS_BY_SOURCE = table(
    P.findings.table("status_by_source.csv"),
    "The scorecard's verdicts per place in the paper, in the paper's order.", {
        "source": text("where the paper prints the claims (the scorecard's "
                       "source)", nullable=True),
        "place": count("its place in the paper's order (1 first: the Abstract, "
                       "then the sections in order, a table after its "
                       "section's text); places the order cannot tell apart "
                       "share one", low=1),
        **_status_columns(),
    })


STATUS_BY_GROUP = table(
    P.findings.table("status_by_group.csv"),
    "The scorecard's verdicts per claim group (the first part of a claim's id: "
    "the page that lists it).", {
        "group": text("the claim group (e.g. taxonomy, agreement, examples)"),
        **_status_columns(),
        "folded": count("exact claims the group's page folds away (the "
                        "sub-theme count of each theme)"),
    })


CLAIM_GROUPS = table(
    P.findings.table("claim_groups.csv"),
    "Per claim of the scorecard: its group and whether its page folds it.", {
        "claim_id": text("the claim's id in data/claims.yaml"),
        "group": text("the first part of the id: the page that lists the claim"),
        "folded": yes_no("True for an exact claim in a long run of similar ones "
                         "(the sub-theme count of each theme), which the page "
                         "lists in a folded box"),
    })


CHALLENGES = table(
    P.findings.table("challenges.csv"),
    "Per challenge of Section V.A (data/challenges.yaml): the reports whose "
    "final label is one of its themes; a theme may serve several challenges.", {
        "challenge": count("the challenge's number in the paper", low=1),
        "title": text("its title"),
        "themes": text("its themes (our reading of the paper), separated by "
                       "`, `"),
        "issues": count("reports whose final label is one of them"),
        "share_percent": percent("their share of all reports; empty without "
                                 "reports", nullable=True),
        "highest_project": text("the project where that share of its reports "
                                "is highest (display name); empty without "
                                "projects", nullable=True),
        "highest_share_percent": percent("that share", nullable=True),
        "lowest_project": text("the project where it is lowest", nullable=True),
        "lowest_share_percent": percent("that share", nullable=True),
    })


DOMINANT = table(
    P.findings.table("dominant.csv"),
    "The challenges of which one theme holds more than findings.dominant_share "
    "percent of the reports (params.yaml), with what they keep without it.", {
        "challenge": count("the challenge's number in the paper", low=1),
        "title": text("its title"),
        "theme": text("the theme that dominates it"),
        "theme_issues": count("the theme's reports"),
        "total": count("the challenge's reports"),
        "share_percent": percent("theme_issues / total × 100"),
        "without": count("the challenge's reports without the theme"),
    })


SCHEMAS = TableSchemas.of(
    SCORECARD,
    STATUS_BY_SOURCE,
    STATUS_BY_GROUP,
    CLAIM_GROUPS,
    DIFFERENCES_BY_CAUSE,
    CHALLENGES,
    DOMINANT)
