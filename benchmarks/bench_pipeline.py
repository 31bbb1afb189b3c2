"""Cold and warm `dvc repro` of the whole pipeline on the offline mirror.

Runs in a throw-away copy of the project (analysis.workspace), so the working tree's
outputs and DVC cache are untouched. The cold run goes stage by stage (`dvc repro -s`, in
pipeline order) so that each stage's time is reported. Targets on a 2-core machine,
set-up excluded: the foundation stages (ingest, clean, table1) under 30 s cold; a warm
`dvc repro` (nothing changed) under 3 s. The whole pipeline's cold time is reported too.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import yaml
from analysis.workspace import copy_project, dvc, set_params

from analysis.core.paths import ROOT

MIRROR = (ROOT / ".." / "shared" / "upstream" / "LLMChallengeEmpirical").resolve()
FOUNDATION = ("ingest", "clean", "table1")
COLD_TARGET_S = 30.0
WARM_TARGET_S = 3.0


def stage_order(work: Path) -> list[str]:
    """Stages in an order that respects their dependencies (dvc.yaml order does)."""
    return list(yaml.safe_load((work / "dvc.yaml").read_text())["stages"])


def run(results_dir: Path) -> dict:
    if not MIRROR.is_dir():
        return {"skipped": "offline mirror ../shared absent"}
    with tempfile.TemporaryDirectory() as tmp:
        work = copy_project(Path(tmp) / "project")
        set_params(work, "ingest", source=MIRROR, manifest=MIRROR.with_suffix(".sha256"))
        stages = {}
        for stage in stage_order(work):
            start = time.perf_counter()
            dvc(work, "repro", "-s", stage)
            stages[stage] = round(time.perf_counter() - start, 2)
        start = time.perf_counter()
        dvc(work, "repro")
        warm = round(time.perf_counter() - start, 2)
    foundation = round(sum(stages[s] for s in FOUNDATION), 2)
    return {
        "cold_seconds_by_stage": stages,
        "cold_seconds_foundation": foundation,
        "cold_seconds_all_stages": round(sum(stages.values()), 2),
        "warm_seconds": warm,
        "cold_target_seconds_foundation": COLD_TARGET_S,
        "warm_target_seconds": WARM_TARGET_S,
        "cold_target_met_foundation": foundation < COLD_TARGET_S,
        "warm_target_met": warm < WARM_TARGET_S,
        "cpus": os.cpu_count(),
    }
