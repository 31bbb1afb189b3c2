"""What the explorer stage writes (the stage contract of :mod:`analysis.core.stage`): the
explorer's file and the release examples per theme, and a few numbers for ``dvc metrics``."""

from __future__ import annotations

import json

import pandas as pd

from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas
from analysis.explorer.compute import ExplorerResult


def explorer_json(data: dict) -> str:
    """The explorer's file as compact JSON (sorted keys, no spaces: it is read by the
    page, not by people)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def tables(result: ExplorerResult) -> dict[str, pd.DataFrame | str]:
    return {"explorer.json": explorer_json(result.explorer),
            "release_examples.csv": result.release_examples}


def metrics(result: ExplorerResult) -> dict:
    """Issues in the explorer, the contested ones, and the release examples chosen."""
    contested = result.explorer["summary"]["contested_by_project"]
    return {"issues": result.explorer["n"], "contested": sum(contested.values()),
            "release_examples": len(result.release_examples)}


def build(result: ExplorerResult) -> StageOutputs:
    return StageOutputs(tables=tables(result), metrics=metrics(result),
                        schemas=stage_schemas("explorer"))
