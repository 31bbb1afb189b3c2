"""Cold and warm `dvc repro` of the whole pipeline on the offline mirror.

Runs in a throw-away copy of the project (analysis.workspace), so the working tree's
outputs and DVC cache are untouched. Target: cold under 30 s, warm (nothing changed)
under 3 s, on a 2-core machine, set-up excluded.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from analysis.config import ROOT
from analysis.workspace import copy_project, dvc, set_params

MIRROR = (ROOT / ".." / "shared" / "upstream" / "LLMChallengeEmpirical").resolve()
COLD_TARGET_S = 30.0
WARM_TARGET_S = 3.0


def run(results_dir: Path) -> dict:
    if not MIRROR.is_dir():
        return {"skipped": "offline mirror ../shared absent"}
    with tempfile.TemporaryDirectory() as tmp:
        work = copy_project(Path(tmp) / "project")
        set_params(work, "ingest", source=MIRROR, manifest=MIRROR.with_suffix(".sha256"))
        timings = {}
        for label in ("cold", "warm"):
            start = time.perf_counter()
            dvc(work, "repro")
            timings[label] = round(time.perf_counter() - start, 2)
    return {
        "cold_seconds": timings["cold"],
        "warm_seconds": timings["warm"],
        "cold_target_seconds": COLD_TARGET_S,
        "warm_target_seconds": WARM_TARGET_S,
        "cold_target_met": timings["cold"] < COLD_TARGET_S,
        "warm_target_met": timings["warm"] < WARM_TARGET_S,
        "cpus": os.cpu_count(),
    }
