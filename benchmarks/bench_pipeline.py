"""Cold and warm `dvc repro` of the whole pipeline on the offline mirror.

Runs in a temporary copy of the project (tracked files only), so the working tree's
outputs and DVC cache are untouched. Target (issue: foundation): cold under 30 s,
warm (nothing changed) under 3 s, on a 2-core machine, set-up excluded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIRROR = (ROOT / ".." / "shared" / "upstream" / "LLMChallengeEmpirical").resolve()
COLD_TARGET_S = 30.0
WARM_TARGET_S = 3.0


def copy_project(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def run(results_dir: Path) -> dict:
    if not MIRROR.is_dir():
        return {"skipped": "offline mirror ../shared absent"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "project"
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
               "PYTHONPATH": str(work / "src")}
        work.mkdir()
        copy_project(work)
        params = (work / "params.yaml").read_text()
        params = params.replace("source: ../shared/upstream/LLMChallengeEmpirical",
                                f"source: {MIRROR}")
        params = params.replace("manifest: ../shared/upstream/LLMChallengeEmpirical.sha256",
                                f"manifest: {MIRROR.with_suffix('.sha256')}")
        (work / "params.yaml").write_text(params)
        (work / "dvc.lock").unlink(missing_ok=True)
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        timings = {}
        for label in ("cold", "warm"):
            start = time.perf_counter()
            proc = subprocess.run(["dvc", "repro"], cwd=work, env=env,
                                  capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(f"dvc repro failed:\n{proc.stdout}\n{proc.stderr}")
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
