"""Measure what a fresh clone costs, end to end, and record it for the evaluator's page.

``python -m analysis.tools.fresh_clone`` clones this repository at a commit into a new
folder beside it (so that ``ingest.mirror``, a path relative to the project, points where
it points for the project itself), with empty package caches (uv's, pip's and the XDG
cache, in a new temporary folder: a fresh machine has none), and runs the steps of
``make report`` one by one: set-up (``make venv``), Quarto's set-up, fetch, the pipeline
(whose last stage renders the site), the rendering check. Per step it measures the wall
time, the CPU time of its processes and the peak memory of the whole process tree (the
sum of the resident sizes of every process, sampled every 0.1 s); at the end the disk
each part of the clone takes and the size of the package caches. The record
(``data/fresh_clone.json``, in git) names the commit, the date, the machine and how it
was measured; with ``--tests``, the times of ``make test-fast`` and ``make test`` run in
the same clone afterwards; the ``report`` stage shows it, so that no number of it is typed by hand.

What is not cold: the operating system's file cache (dropping it needs the machine to
itself) and the offline mirror, which the fetch copies instead of downloading when it
exists (the record says which ran).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import psutil

from analysis.core import runlog
from analysis.core.artifacts import write_json
from analysis.core.paths import PATHS, ROOT, Paths

# The steps of `make report` after the clone (the Makefile's RUN environment).
STEPS = (("setup", ["make", "venv"]),
         ("quarto_setup", [".venv/bin/python", "-m", "analysis.report", "quarto-setup"]),
         ("fetch", [".venv/bin/python", "-m", "analysis.ingest", "fetch"]),
         ("pipeline", [".venv/bin/python", "-m", "analysis.tools.repro"]),
         ("render", [".venv/bin/python", "-m", "analysis.report", "render", "--if-needed"]))
# The test suite, timed in the same clone after the report with --tests (`make test-fast`,
# then `make test`, as an evaluator runs them).
TEST_STEPS = (("test_fast", ["make", "test-fast"]), ("test", ["make", "test"]))
# Parts of the clone whose size the record gives (paths relative to the clone).
_IN_CLONE = Paths(Path("."))
PARTS = {"environment": ".venv", "release": _IN_CLONE.release.as_posix(), "data": "data",
         "dvc_cache": ".dvc/cache", "site": _IN_CLONE.site.as_posix()}
CACHES = ("UV_CACHE_DIR", "PIP_CACHE_DIR", "XDG_CACHE_HOME")
MIB = 1 << 20


def tree_rss(proc: psutil.Process) -> int:
    """The resident memory of a process and all its descendants, in bytes (0 once gone)."""
    total = 0
    try:
        for p in [proc, *proc.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return total


def run_step(argv: list[str], cwd: Path, env: dict[str, str], log: Path) -> dict:
    """Run one step; its wall and CPU seconds and the peak memory of its process tree."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with log.open("ab") as out:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        watched, peak = psutil.Process(proc.pid), 0
        while proc.poll() is None:
            peak = max(peak, tree_rss(watched))
            time.sleep(0.1)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": round(time.perf_counter() - started, 1), "cpu_seconds": round(cpu, 1),
            "peak_memory_mib": round(peak / MIB), "exit_status": proc.returncode}


RUNS_LINE = re.compile(r"^pipeline runs: (\d+) whole, (\d+) partial; (\d+) notebook stage runs",
                       re.M)


def pipeline_runs_said(output: str) -> dict | None:
    """The pipeline runs the test suite counted, from the line it prints at its end
    (``pipeline runs: 5 whole, 3 partial; 80 notebook stage runs (...)``), the last such
    line of ``output``; None if it printed none."""
    found = RUNS_LINE.findall(output)
    if not found:
        return None
    whole, partial, stages = map(int, found[-1])
    return {"whole": whole, "partial": partial, "notebook_stage_runs": stages}


def written_since(log: Path, start: int) -> str:
    """What the steps wrote to ``log`` after its first ``start`` bytes ("" if none)."""
    try:
        with log.open("rb") as said:
            said.seek(start)
            return said.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


def size_mib(path: Path) -> float:
    """The disk a file tree takes (its files' sizes, links not followed), in MiB."""
    if not path.exists():
        return 0.0
    files = (p for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return round(sum(p.stat().st_size for p in files) / MIB, 1)


def renderer_of(clone: Path) -> str:
    """The renderer the clone's site names (``report/_site/build.json``)."""
    try:
        build = json.loads((Paths(clone).site / "build.json").read_text("utf-8"))
    except (OSError, ValueError):
        return "unknown"
    return str(build.get("renderer") or "unknown")


def measure(commit: str, clone: Path, caches: Path, log: Path, tests: bool = False) -> dict:
    """Clone at ``commit`` into the empty folder ``clone`` with empty caches (in
    ``caches``), run every step, measure; with ``tests``, then time the test suite there
    too (:data:`TEST_STEPS`, under ``tests`` in the record)."""
    env = {**os.environ, "PYTHONHASHSEED": "0",  # as the Makefile's RUN
           "PATH": f"{clone / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("VIRTUAL_ENV", None)
    for name in CACHES:
        (caches / name).mkdir(parents=True)
        env[name] = str(caches / name)
    steps = {"clone": run_step(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT),
                                str(clone)], clone.parent, env, log)}
    subprocess.run(["git", "checkout", "--quiet", commit], cwd=clone, check=True)
    for name, argv in STEPS:
        steps[name] = run_step(argv, clone, env, log)
        if steps[name]["exit_status"]:
            break
    timed = {}
    if tests and all(s["exit_status"] == 0 for s in steps.values()):
        for name, argv in TEST_STEPS:
            start = log.stat().st_size if log.exists() else 0
            timed[name] = run_step(argv, clone, env, log)
            runs = pipeline_runs_said(written_since(log, start))
            if runs is not None:
                timed[name]["pipeline_runs"] = runs
    return {"commit": commit, "steps": steps, **({"tests": timed} if timed else {}),
            "total_seconds": round(sum(s["seconds"] for s in steps.values()), 1),
            "peak_memory_mib": max(s["peak_memory_mib"] for s in steps.values()),
            "disk_mib": {"clone": size_mib(clone),
                         **{k: size_mib(clone / v) for k, v in PARTS.items()}},
            "downloaded_mib": round(sum(size_mib(caches / n) for n in CACHES), 1),
            "fetched_from_mirror": Paths(clone).release.is_dir()
            and not (clone / "data" / "download").exists(),
            "renderer": renderer_of(clone),
            "ok": all(s["exit_status"] == 0 for s in [*steps.values(), *timed.values()])
            and len(steps) == len(STEPS) + 1 and (not tests or len(timed) == len(TEST_STEPS))}


HOW = ("git clone of the repository at the commit into a new folder beside it, then each "
       "step of make report run alone and timed; uv's, pip's and the XDG caches empty "
       "(set to new folders), so the set-up downloads every wheel from PyPI; the pipeline "
       "from nothing (no DVC cache, no outputs); the operating system's file cache not "
       "dropped; peak memory: the resident memory of the step's whole process tree, "
       "sampled every 0.1 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.fresh_clone",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", default="HEAD", help="the commit to clone (HEAD)")
    parser.add_argument("--out", type=Path, default=PATHS.fresh_clone,
                        help="where to write the record (%(default)s)")
    parser.add_argument("--tests", action="store_true", help="then time make test-fast and "
                        "make test in the clone (the evaluators' page shows them)")
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is "
                        "printed) instead of removing it")
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", args.commit], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.strip()
    clone = Path(tempfile.mkdtemp(prefix=".fresh-clone-", dir=ROOT.parent))
    caches = Path(tempfile.mkdtemp(prefix="fresh-clone-caches-"))
    log = caches / "steps.log"
    try:
        result = measure(commit, clone, caches, log, tests=args.tests)
    finally:
        if not args.keep:
            shutil.rmtree(clone, ignore_errors=True)
    if not result["ok"]:
        print(f"fresh_clone: a step failed ({log} has its output): {result['steps']}",
              file=sys.stderr)
        return 1
    record = {"measured_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "machine": runlog.machine(), "how": HOW, **result}
    write_json(args.out, record)
    print(f"fresh_clone: {result['total_seconds']} s end to end, peak "
          f"{result['peak_memory_mib']} MiB; written to {args.out} (log: {log})")
    if not args.keep:
        shutil.rmtree(caches, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
