"""What the findings stage writes (the stage contract of :mod:`analysis.core.stage`): the
scorecard, its verdicts per place in the paper and per claim group (with the group each
claim belongs to), how many reports each challenge rests on and which are dominated by one
theme, the website's numbers of them, and the verdict totals as metrics."""

from __future__ import annotations

import pandas as pd

from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas
from analysis.findings.compute import (
    Findings,
    claim_groups,
    differences_by_cause,
    not_reproducible_by_reason,
    scoreboards,
    status_by_group,
    status_by_source,
    totals,
)


def tables(result: Findings) -> dict[str, pd.DataFrame]:
    groups = claim_groups(result.card)
    return {"scorecard.csv": result.card,
            "status_by_source.csv": status_by_source(result.card),
            "status_by_group.csv": status_by_group(result.card, groups),
            "claim_groups.csv": groups,
            "differences_by_cause.csv": differences_by_cause(result.card),
            "not_reproducible_by_reason.csv": not_reproducible_by_reason(result.card),
            "challenges.csv": result.coverage,
            "dominant.csv": result.dominant}


def website_vars(result: Findings) -> dict[str, object]:
    """The verdicts the pages quote (:func:`~analysis.findings.compute.totals`) and the
    share above which a theme dominates a challenge (percent)."""
    return {**totals(result.card), "dominant_share": float(result.dominant_share)}


def metrics(result: Findings) -> dict[str, object]:
    """The number of claims, and the two scoreboards apart: the paper's printed numbers and
    its cited examples, each with its claims per status (zeros included)."""
    return {"claims": len(result.card), **scoreboards(result.card)}


def build(result: Findings) -> StageOutputs:
    return StageOutputs(tables=tables(result), website_vars=website_vars(result),
                        metrics=metrics(result),
                        schemas=stage_schemas("findings"))
