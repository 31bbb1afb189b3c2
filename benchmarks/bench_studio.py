"""Reading a Label Studio export (``analysis.update.labels.studio.read_export``, what ``labels
merge`` and the merge stage read a batch's ``studio/export.json`` with) at the limits it
accepts: a million annotations (333,333 tasks of three annotators each, about 360 MB),
and the refusals of exports past them.

Each case runs in a fresh process; its time and peak memory (``VmHWM``) are measured
there. Input: synthetic exports (``tests/support/exports.py``: the tasks and annotations
``studio export`` downloads, one theme each), written once per run into a temporary
folder. Targets, on a 2-core machine: the million annotations read in under 60 s and
1.5 GB; a refused export (more than 500,000 tasks, a task over 16 MiB, nesting a hundred
thousand deep) ends in one line, within seconds of what it read, under 1.5 GB.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANNOTATIONS = 999_999  # three annotators: 333,333 tasks
TARGET_S = 60.0
TARGET_MB = 1536
CHILD = r"""
import json, re, sys, time
from pathlib import Path
from analysis.core.errors import InputError
from analysis.update.labels.studio_export import read_export
start = time.perf_counter()
try:
    read = read_export(Path(sys.argv[1]), codes={"C.3"})
    said = f"{len(read.table):,} annotations, {len(read.problems)} problem(s)"
except InputError as exc:
    said = str(exc)
seconds = time.perf_counter() - start
hwm = re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text()).group(1)
print(json.dumps({"seconds": round(seconds, 2), "peak_rss_mb": round(int(hwm) / 1024),
                  "said": said}))
"""


def write_cases(folder: Path) -> dict[str, Path]:
    """The exports measured: the million annotations, one task too many, a task of 20 MiB,
    ``[`` a hundred thousand times."""
    sys.path.insert(0, str(ROOT))
    from tests.support.exports import export_tasks, write_export, write_large_export

    cases = {"million_annotations": write_large_export(folder / "million.json",
                                                       ANNOTATIONS // 3)}
    alone = [{"name": "alice", "email": "alice@localhost", "id": 1}]
    cases["too_many_tasks"] = write_large_export(folder / "tasks.json", 500_001, alone)
    big = export_tasks(1)
    big[0]["data"]["body"] = "x" * (20 << 20)
    cases["task_of_20_mib"] = write_export(folder / "big.json", big)
    cases["nested_100k"] = write_export(folder / "nested.json", "[" * 100_000)
    return cases


def measure(path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True,
                          text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    if proc.returncode:
        return {"exit_status": proc.returncode, "said": proc.stderr.strip()[-300:],
                "wall_seconds": round(wall, 2)}
    return {**json.loads(proc.stdout), "exit_status": 0, "wall_seconds": round(wall, 2),
            "bytes": path.stat().st_size}


def run(results_dir: Path) -> dict:
    cases = {}
    with tempfile.TemporaryDirectory(prefix="bench-studio-") as tmp:
        for case, path in write_cases(Path(tmp)).items():
            cases[case] = measure(path)
            c = cases[case]
            c["target_met"] = c["exit_status"] == 0 and c.get("peak_rss_mb", 1e9) <= \
                TARGET_MB and (case != "million_annotations" or c["seconds"] <= TARGET_S)
            print(f"  {case}: {c.get('seconds')} s, {c.get('peak_rss_mb')} MB: "
                  f"{c['said'][:120]}", flush=True)
    return {"annotations": ANNOTATIONS, "target_seconds": TARGET_S,
            "target_peak_rss_mb": TARGET_MB, "cases": cases,
            "target_met": all(c["target_met"] for c in cases.values())}


def summary(result: dict) -> list[str]:
    """Markdown: a row per case (file size, time, peak memory, what the reader said)."""
    lines = [f"`read_export` on synthetic exports; targets: {result['annotations']:,} "
             f"annotations in {result['target_seconds']:g} s, every case under "
             f"{result['target_peak_rss_mb']:,} MB.", "",
             "| case | export (MB) | seconds | peak RSS (MB) | target met | said |",
             "|---|---:|---:|---:|---|---|"]
    for case, c in result["cases"].items():
        lines.append(f"| {case} | {c.get('bytes', 0) / 1e6:,.0f} | {c.get('seconds', '-')} | "
                     f"{c.get('peak_rss_mb', '-')} | {'yes' if c['target_met'] else 'NO'} | "
                     f"{c['said'][:100]} |")
    return lines
