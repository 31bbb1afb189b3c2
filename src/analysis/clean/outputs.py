"""What the clean stage writes (the stage contract of :mod:`analysis.core.stage`): the
processed issues (Parquet for the stages, CSV for readers), the rows set aside, the
excluded candidates and the per-project exclusions (Table I's false-positive rates), the
quality report and the metrics."""

from __future__ import annotations

import pandas as pd

from analysis.clean.issues import CleanResult
from analysis.core.stage import StageOutputs


def processed(result: CleanResult) -> dict[str, pd.DataFrame]:
    return {"issues.parquet": result.issues, "issues.csv": result.issues,
            "rejected.csv": result.rejected, "excluded.csv": result.excluded,
            "exclusions.csv": result.exclusions}


def quality(result: CleanResult) -> dict:
    return result.quality


def metrics(result: CleanResult) -> dict:
    """Row accounting and anomaly counts for ``dvc metrics``."""
    q = result.quality
    return {**{f"rows_{k}": v for k, v in q["accounting"]["labels"].items()},
            "annotators": len(result.annotators),
            "excluded_candidates": len(result.excluded),
            "projects_recording_exclusions": int(result.exclusions["recorded"].sum()),
            "anomalies": sum(q["anomaly_counts"].values()),
            "anomaly_counts": q["anomaly_counts"]}


def build(result: CleanResult) -> StageOutputs:
    return StageOutputs(processed=processed(result), quality=quality(result),
                        metrics=metrics(result))
