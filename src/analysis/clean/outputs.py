"""What the clean stage writes (the stage contract of :mod:`analysis.core.stage`): the
processed issues (Parquet for the stages, CSV for readers), the rows set aside, the
excluded candidates and the per-project exclusions (Table I's false-positive rates), on a
study its people (who labelled in each batch's columns), the quality report, the website's
numbers of it and the metrics."""

from __future__ import annotations

import pandas as pd

from analysis.clean.compute import CleanResult
from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas


def processed(result: CleanResult) -> dict[str, pd.DataFrame]:
    """The processed files; a study's people only on a study (the release's outputs stay
    the files they were)."""
    return {"issues.parquet": result.issues, "issues.csv": result.issues,
            "rejected.csv": result.rejected, "excluded.csv": result.excluded,
            "exclusions.csv": result.exclusions,
            **({"people.csv": result.people} if result.people is not None else {})}


def website_vars(result: CleanResult) -> dict[str, object]:
    """The quality report in numbers, as the pages quote it: label rows in, kept and set
    aside, whether every file balances, the anomalies and their kinds, the rules, the
    annotators and the duplicates policy."""
    q = result.quality
    labels = q["accounting"].get("labels", {})
    return {
        "rows_input": labels.get("input", 0),
        "rows_kept": labels.get("kept", 0),
        "rows_set_aside": labels.get("set_aside", 0),
        "balanced": bool(q["summary"]["balanced"]),
        "anomalies": sum(q["anomaly_counts"].values()),
        "anomaly_kinds": len(q["anomaly_counts"]),
        "rules": len(q["rules"]),
        "annotators": q["summary"]["annotators"],
        "duplicates_policy": q["summary"]["duplicates_policy"],
    }


def metrics(result: CleanResult) -> dict:
    """Row accounting, annotators and anomalies for ``dvc metrics`` (the anomalies by kind
    are in the quality report)."""
    q = result.quality
    return {**{f"rows_{k}": v for k, v in q["accounting"]["labels"].items()},
            "annotators": len(result.annotators),
            "excluded_candidates": len(result.excluded),
            "anomalies": sum(q["anomaly_counts"].values())}


def build(result: CleanResult) -> StageOutputs:
    return StageOutputs(processed=processed(result), quality=result.quality,
                        website_vars=website_vars(result), metrics=metrics(result),
                        schemas=stage_schemas("clean"))
