"""Rendering the site: every page, against only the pages a one-stage change touches.

In a throw-away copy of a project with generated site sources (this checkout after
``make report``, or ``BENCH_RENDER_ROOT``; copying is set-up and not timed), under each
renderer that can be found (the pandoc preview always, Quarto when it is on ``PATH``):

- ``full``: ``python -m analysis.report render --full`` (every page), :data:`REPEATS`
  times;
- ``one_stage``: a one-stage change, then ``python -m analysis.report render``: one byte
  more in the table the ``table1`` stage wrote for its page
  (``_generated/tables/table1/counts.md``), so one page has new inputs; :data:`REPEATS`
  times, each with a new change.

Each run is a fresh process; wall time and CPU time (user + system of the process and its
children: pandoc, Quarto) are measured, and the medians compared: the target is a render
after a one-stage change in a third of a full render's time or less. The machine may be
shared: CPU time is the steadier of the two.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from analysis.core.paths import ROOT, Paths
from analysis.report.quarto import find_quarto

REPEATS = int(os.environ.get("BENCH_RENDER_REPEATS", "3"))
TARGET_RATIO = 1 / 3
CHANGED = "_generated/tables/table1/counts.md"
SKIP = {".git", ".venv", ".dvc", "build", "_site", "bench", "__pycache__"}


def copy_project(root: Path, dest: Path) -> Path:
    """The project without its git, environment, caches, build and rendered site."""
    shutil.copytree(root, dest, ignore=lambda _, names: [n for n in names if n in SKIP])
    return dest


def timed(args: list[str], cwd: Path) -> dict:
    """Run ``args``; its wall and CPU seconds (children's user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {proc.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": round(wall, 2), "cpu": round(cpu, 2), "said": proc.stdout.strip()}


def measure(work: Path, renderer: str) -> dict:
    """Full renders and renders after a one-stage change, under ``renderer``."""
    render = [sys.executable, "-m", "analysis.report", "render", "--renderer", renderer,
              "--root", str(work)]
    timed([*render, "--full"], work)  # the site the first change starts from
    full = [timed([*render, "--full"], work) for _ in range(REPEATS)]
    table = work / "report" / CHANGED
    one = []
    for i in range(REPEATS):
        table.write_text(table.read_text(encoding="utf-8") + f"\n<!-- {i} -->\n",
                         encoding="utf-8")
        one.append(timed(render, work))
    out = {"pages_said": one[-1]["said"]}
    for kind in ("wall", "cpu"):
        out[f"full_{kind}_seconds_runs"] = [r[kind] for r in full]
        out[f"one_stage_{kind}_seconds_runs"] = [r[kind] for r in one]
        f = statistics.median(r[kind] for r in full)
        o = statistics.median(r[kind] for r in one)
        out[f"full_{kind}_seconds"], out[f"one_stage_{kind}_seconds"] = f, o
        out[f"{kind}_ratio"] = round(o / f, 3) if f else None
    out["target_met"] = out["cpu_ratio"] is not None and out["cpu_ratio"] <= TARGET_RATIO
    return out


def run(results_dir: Path) -> dict:
    root = Path(os.environ.get("BENCH_RENDER_ROOT", ROOT)).resolve()
    if not (Paths(root).site_src / CHANGED).is_file():
        return {"skipped": f"{root} has no generated site sources: run `make report` first"}
    renderers = ["preview"] + (["quarto"] if find_quarto() else [])
    result: dict = {"project": str(root), "repeats": REPEATS,
                    "target_ratio": round(TARGET_RATIO, 3), "renderers": {}}
    for renderer in renderers:
        with tempfile.TemporaryDirectory(prefix="bench-render-") as tmp:
            work = copy_project(root, Path(tmp) / "project")
            subprocess.run(["git", "init", "-q"], cwd=work, check=True)
            result["renderers"][renderer] = measure(work, renderer)
            r = result["renderers"][renderer]
            print(f"  {renderer}: full {r['full_cpu_seconds']} s CPU, one stage "
                  f"{r['one_stage_cpu_seconds']} s CPU (ratio {r['cpu_ratio']})", flush=True)
    return result


def summary(result: dict) -> list[str]:
    """Markdown: per renderer, the medians and the ratio against the target."""
    if "skipped" in result:
        return [f"skipped: {result['skipped']}"]
    lines = [f"Rendering the site of `{result['project']}`: every page (`render --full`) "
             f"against the render after a one-stage change (`{CHANGED}`), medians of "
             f"{result['repeats']} runs; target: a ratio of {result['target_ratio']} or less.",
             "", "| renderer | full: wall / CPU (s) | one stage: wall / CPU (s) | ratio "
             "wall / CPU | target |", "|---|---|---|---|---|"]
    for name, r in result["renderers"].items():
        lines.append(f"| {name} | {r['full_wall_seconds']} / {r['full_cpu_seconds']} | "
                     f"{r['one_stage_wall_seconds']} / {r['one_stage_cpu_seconds']} | "
                     f"{r['wall_ratio']} / {r['cpu_ratio']} | "
                     f"{'met' if r['target_met'] else 'missed'} |")
    return lines
