"""How long each stage took, and on what machine: the run record the website shows.

Each stage writes ``build/runs/<stage>.json`` when it finishes (wall seconds, and the
machine: CPU, cores, memory, operating system, Python), a notebook stage also where its
seconds went (:func:`analysis.tools.nbrun.stage_timings`). The folder is outside git and
outside DVC's outputs, because these numbers change from run to run while the outputs
must not; the site shows them from a separate file (``build-info.js``), so every page
stays byte-identical.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

from analysis.core.paths import ROOT

RUNS_DIR = ROOT / "build" / "runs"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / (1 << 20), 1)
    except (OSError, ValueError, IndexError):
        pass
    return None


def machine() -> dict:
    """The hardware and software a run used, as a reader would describe it."""
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    return {"cpu": _cpu_model(), "cores": len(cores) if cores else os.cpu_count(),
            "memory_gib": _memory_gib(),
            "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
            "python": sys.version.split()[0]}


# The steps of a build from a fresh clone, end to end (``make report``): setting up the
# environment, fetching the release, verifying and copying it (the pipeline's first
# stage), the analysis stages, rendering.
PHASES = ("setup", "fetch", "ingest", "stages", "render")


def record(stage: str, seconds: float, runs_dir: Path = RUNS_DIR, phase: str = "stages",
           **parts: float) -> Path:
    """Write the run record of ``stage``, a step of ``phase`` (:data:`PHASES`; ``parts``:
    named sub-durations in seconds)."""
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}; one of {PHASES}")
    runs_dir.mkdir(parents=True, exist_ok=True)
    path = runs_dir / f"{stage}.json"
    data = {"stage": stage, "phase": phase, "seconds": round(seconds, 2),
            **{k: round(v, 2) for k, v in parts.items()}, "machine": machine()}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_all(runs_dir: Path = RUNS_DIR) -> list[dict]:
    """Every stage's last run record, by stage name (unreadable records are skipped)."""
    out = []
    for path in sorted(runs_dir.glob("*.json")) if runs_dir.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "seconds" in data:
            out.append(data)
    return out


def phase_seconds(runs: list[dict]) -> dict[str, float]:
    """Seconds per phase of the build (:data:`PHASES`, in order; phases without a record
    left out): a record without a phase is an analysis stage's."""
    totals: dict[str, float] = {}
    for run in runs:
        phase = run.get("phase") or "stages"
        totals[phase] = totals.get(phase, 0.0) + float(run["seconds"])
    return {p: round(totals[p], 1) for p in PHASES if p in totals}


def main(argv: list[str] | None = None, runs_dir: Path = RUNS_DIR) -> int:
    """``python -m analysis.core.runlog NAME PHASE STARTED``: record a step that began at
    ``STARTED`` (seconds since the epoch, as ``date +%s.%N`` prints them) and ends now
    (the Makefile records the environment's set-up this way)."""
    import time

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3:
        print("usage: python -m analysis.core.runlog NAME PHASE STARTED", file=sys.stderr)
        return 2
    name, phase, started = args
    try:
        record(name, max(0.0, time.time() - float(started)), runs_dir, phase=phase)
    except ValueError as exc:
        print(f"runlog: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
