"""What the findings stage writes (the stage contract of :mod:`analysis.core.stage`): the
scorecard as a table, and how many claims have each status as metrics."""

from __future__ import annotations

import pandas as pd

from analysis.core.stage import StageOutputs
from analysis.findings.scorecard import Findings, status_counts


def tables(result: Findings) -> dict[str, pd.DataFrame]:
    return {"scorecard.csv": result.card}


def metrics(result: Findings) -> dict[str, int]:
    """The number of claims, and of claims per status (zeros included)."""
    return {"claims": len(result.card), **status_counts(result.card)}


def build(result: Findings) -> StageOutputs:
    return StageOutputs(tables=tables(result), metrics=metrics(result))
