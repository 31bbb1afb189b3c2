"""The whole pipeline cold, each stage's split, and a no-op `dvc repro`, on the offline mirror.

Each run happens in a throw-away copy of the project (``tests.support.workspace``), so the
working tree's outputs and DVC cache are untouched; copying the project is set-up and is
not timed. Measured:

- ``cold``: one ``dvc repro`` of every stage but ``report`` (ingest .. findings), as a
  user runs it, :data:`REPEATS` times, each in a fresh copy (the machine may be shared:
  the median is held to the target, every run is reported). Each stage's wall time is
  read from when DVC announces it (``Running stage '<name>'``) in its streamed output, so
  it includes DVC's own work for the stage (checking, caching its outputs, updating
  dvc.lock) and the launcher process. ``cold_cpu_seconds`` is the CPU time (user +
  system) of ``dvc repro`` and every process under it;
- the split of each notebook stage, from the run record it wrote
  (``build/runs/<stage>.json``, :mod:`analysis.core.runlog`): kernel start, imports (the
  notebook's import cell), work (the other cells) and ``other`` (the rest of ``nbrun``:
  before the kernel's launch and after the last cell); ``dvc_and_launch`` is the stage's
  wall time minus the run record's total; ``floor`` is what a stage costs whatever its
  notebook does (kernel start, ``other`` and ``dvc_and_launch``: the wall time minus
  imports and work); per stage, the median over the runs;
- ``report``: ``dvc repro report`` after the first cold run (generating and rendering the
  site: outside the pipeline's target, reported separately);
- ``forced``: ``dvc repro -f`` of every stage, the site's ``report`` included (rendered
  with the pandoc preview when Quarto is not on ``PATH``), after each cold run, in the
  same copy; its wall and CPU seconds, the median held to its target;
- ``noop``: ``dvc repro`` with nothing changed, :data:`NOOP_RUNS` times; the median is
  held to the target;
- ``driver``: what ``make report`` runs, ``python -m analysis.tools.repro`` (independent
  stages side by side, as many as there are cores), in another fresh copy: every stage
  cold, the site included, then ``-f`` (every stage again, the site included). Its forced
  run is held to the forced target too; both are set beside the sequential ``dvc repro``
  (cold pipeline + report stage, and ``dvc repro -f``).

Targets on a 2-core machine: the pipeline cold in 18 s or less, a forced repro of every
stage with the site in 22 s or less, a no-op repro under 2 s.
``BENCH_PIPELINE_REPEATS`` sets the number of cold runs; ``BENCH_PIPELINE_ROOT`` names
another checkout to measure instead of this one (e.g. an earlier version, to compare).
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from analysis.core import runlog
from analysis.core.paths import PATHS, ROOT, Paths

MIRROR = (ROOT / ".." / "shared" / "upstream" / "LLMChallengeEmpirical").resolve()
COLD_TARGET_S = 18.0
FORCED_TARGET_S = 22.0
NOOP_TARGET_S = 2.0
REPEATS = int(os.environ.get("BENCH_PIPELINE_REPEATS", "3"))
NOOP_RUNS = 3
SITE_STAGE = "report"
SPLIT = ("kernel_start", "imports", "work", "other")
COLUMNS = ("wall", *SPLIT, "nbrun_total", "dvc_and_launch", "floor")
RUNNING_RE = re.compile(r"^Running stage '([^']+)'")


def stage_order(work: Path) -> list[str]:
    """Stages in an order that respects their dependencies (dvc.yaml order does)."""
    return list(yaml.safe_load((work / "dvc.yaml").read_text(encoding="utf-8"))["stages"])


def source() -> tuple[Path, Path | None] | None:
    """The release to ingest: the offline mirror, else this checkout's fetched copy."""
    if MIRROR.is_dir():
        manifest = MIRROR.with_suffix(".sha256")
        return MIRROR, manifest if manifest.is_file() else None
    if PATHS.release.is_dir():
        return PATHS.release, PATHS.release_manifest
    return None


def stage_walls(lines: list[tuple[float, str]], end: float) -> dict[str, float]:
    """Each stage's wall time from DVC's time-stamped output lines: from ``Running stage
    'X'`` to the next stage's line (or ``end``)."""
    starts = [(t, m.group(1)) for t, line in lines if (m := RUNNING_RE.match(line))]
    ends = [t for t, _ in starts[1:]] + [end] * bool(starts)
    return {name: round(stop - start, 2)
            for (start, name), stop in zip(starts, ends, strict=True)}


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


DVC_REPRO = ("dvc", "repro")
DRIVER = ("python", "-m", "analysis.tools.repro")  # what make report runs


def timed_repro(work: Path, env: dict, *targets: str, command=DVC_REPRO) -> dict:
    """``dvc repro <targets>`` (or another ``command``) in ``work``: its wall and CPU
    seconds, each stage's wall seconds from its streamed output (for :data:`DRIVER`, which
    shows a stage's lines when it ends, only the stages' names mean anything), and its
    output. Raises when it fails."""
    cpu = _cpu_of_children()
    start = time.perf_counter()
    proc = subprocess.Popen([*command, *targets], cwd=work, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1)
    lines = [(time.perf_counter(), line.rstrip("\n")) for line in proc.stdout]
    code = proc.wait()
    end = time.perf_counter()
    text = "\n".join(line for _, line in lines)
    if code:
        raise RuntimeError(f"{' '.join([*command, *targets])} failed ({code}):\n"
                           f"{text[-3000:]}")
    return {"seconds": round(end - start, 2), "cpu_seconds": round(_cpu_of_children() - cpu, 2),
            "stages": stage_walls(lines, end), "log": text}


def split_table(walls: dict[str, float], records: dict[str, dict]) -> dict[str, dict]:
    """Per stage: its wall time in a cold run and, for notebook stages, the split of its
    run record, what DVC and the launcher added, and the floor (the wall time but the
    notebook's imports and work)."""
    table = {}
    for stage, wall in walls.items():
        row: dict = {"wall": wall}
        record = records.get(stage)
        if record:
            row.update({k: record[k] for k in SPLIT if k in record})
            row["nbrun_total"] = record["seconds"]
            row["dvc_and_launch"] = round(wall - record["seconds"], 2)
            row["floor"] = round(wall - record.get("imports", 0.0)
                                 - record.get("work", 0.0), 2)
        table[stage] = row
    return table


def median_table(tables: list[dict[str, dict]]) -> dict[str, dict]:
    """Per stage and column, the median over the runs' tables."""
    out: dict[str, dict] = {}
    for stage in tables[0]:
        rows = [t[stage] for t in tables if stage in t]
        out[stage] = {k: round(statistics.median(r[k] for r in rows if k in r), 2)
                      for k in COLUMNS if any(k in r for r in rows)}
    return out


def notebook_totals(table: dict[str, dict]) -> dict[str, float]:
    """The split summed over the notebook stages."""
    rows = [row for row in table.values() if "nbrun_total" in row]
    return {k: round(sum(row.get(k, 0.0) for row in rows), 2) for k in COLUMNS}


def cold_run(project: Path, dest: Path, release: tuple[Path, Path | None]) -> dict:
    """Copy ``project`` to ``dest`` (not timed) and run the pipeline there cold."""
    from tests.support.workspace import copy_project, pipeline_env, set_params

    work = copy_project(dest, root=project)
    folder, manifest = release
    set_params(work, "ingest", source=folder, manifest=manifest)
    env = {**pipeline_env(work), "PYTHONUNBUFFERED": "1"}
    pipeline = [s for s in stage_order(work) if s != SITE_STAGE]
    run = timed_repro(work, env, *pipeline)
    missing = [s for s in pipeline if s not in run["stages"]]
    if missing:
        raise RuntimeError(f"stages not run cold: {missing}\n{run['log'][-2000:]}")
    records = {r["stage"]: r for r in runlog.read_all(Paths(work).runs_dir)}
    return {**run, "work": work, "env": env, "pipeline": pipeline,
            "table": split_table(run["stages"], records)}


def driver_runs(project: Path, dest: Path, release: tuple[Path, Path | None]) -> dict:
    """The driver cold (every stage and the site) and then forced, in a fresh copy."""
    from tests.support.workspace import copy_project, pipeline_env, set_params

    work = copy_project(dest, root=project)
    if not (work / "src" / "analysis" / "tools" / "repro.py").is_file():
        return {}  # a checkout from before the driver
    folder, manifest = release
    set_params(work, "ingest", source=folder, manifest=manifest)
    env = pipeline_env(work)
    cold = timed_repro(work, env, command=DRIVER)
    forced = timed_repro(work, env, "-f", command=DRIVER)
    runs = {"cold": cold, "forced": forced}
    for run in runs.values():
        if sorted(run["stages"]) != sorted(stage_order(work)):
            raise RuntimeError(f"the driver ran {list(run['stages'])}")
    return runs


def forced_run(cold: dict) -> dict:
    """``dvc repro -f`` of every stage, the site included, in a copy that has run cold."""
    forced = timed_repro(cold["work"], cold["env"], "-f")
    missing = [s for s in [*cold["pipeline"], SITE_STAGE] if s not in forced["stages"]]
    if missing:
        raise RuntimeError(f"stages not forced: {missing}\n{forced['log'][-2000:]}")
    return forced


def run(results_dir: Path) -> dict:
    release = source()
    if release is None:
        return {"skipped": "no release to ingest: offline mirror ../shared absent and "
                           "data/release not fetched"}
    project = Path(os.environ.get("BENCH_PIPELINE_ROOT") or ROOT).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        runs, forced, drivers = [], [], []
        for i in range(max(REPEATS, 1)):
            runs.append(cold_run(project, Path(tmp) / f"project-{i}", release))
            if i == 0:  # the site and the no-op repro, on the first copy
                first = runs[0]
                site = timed_repro(first["work"], first["env"], SITE_STAGE)
                noops = []
                for _ in range(NOOP_RUNS):
                    noop_run = timed_repro(first["work"], first["env"])
                    if noop_run["stages"]:
                        raise RuntimeError(f"a no-op dvc repro ran stages "
                                           f"{list(noop_run['stages'])}:\n{noop_run['log']}")
                    noops.append(noop_run["seconds"])
            forced.append(forced_run(runs[-1]))
            drivers.append(driver_runs(project, Path(tmp) / f"driver-{i}", release))
    colds = [r["seconds"] for r in runs]
    cold = round(statistics.median(colds), 2)
    noop = round(statistics.median(noops), 2)
    table = median_table([r["table"] for r in runs])
    forced_walls = [r["seconds"] for r in forced]
    forced_median = round(statistics.median(forced_walls), 2)
    driver = driver_summary([d for d in drivers if d])
    held = driver.get("driver_forced_seconds", forced_median)
    return {
        "project": "this checkout" if project == ROOT else str(project),
        "stages": runs[0]["pipeline"],
        "cold_seconds": cold,
        "cold_seconds_runs": colds,
        "cold_cpu_seconds_runs": [r["cpu_seconds"] for r in runs],
        "cold_seconds_by_stage": table,
        "cold_notebook_stage_totals": notebook_totals(table),
        "report_stage_seconds": site["seconds"],
        "forced_seconds": forced_median,
        "forced_seconds_runs": forced_walls,
        "forced_cpu_seconds_runs": [r["cpu_seconds"] for r in forced],
        "forced_target_seconds": FORCED_TARGET_S,
        "forced_target_met": held <= FORCED_TARGET_S,
        **driver,
        "noop_repro_seconds": noop,
        "noop_repro_runs": noops,
        "cold_target_seconds": COLD_TARGET_S,
        "noop_target_seconds": NOOP_TARGET_S,
        "cold_target_met": cold <= COLD_TARGET_S,
        "noop_target_met": noop < NOOP_TARGET_S,
        "source": "offline mirror" if release[0] == MIRROR else "data/release",
        "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def driver_summary(drivers: list[dict]) -> dict:
    """The driver's medians, wall and CPU (nothing for a checkout without it)."""
    if not drivers:
        return {}
    out = {}
    for kind in ("cold", "forced"):
        if not all(kind in d for d in drivers):
            continue
        walls = [d[kind]["seconds"] for d in drivers]
        out[f"driver_{kind}_seconds"] = round(statistics.median(walls), 2)
        out[f"driver_{kind}_seconds_runs"] = walls
        out[f"driver_{kind}_cpu_seconds_runs"] = [d[kind]["cpu_seconds"] for d in drivers]
    return out


def summary(result: dict) -> list[str]:
    """The result as Markdown: the targets, then one row per stage."""
    if "skipped" in result:
        return [f"skipped: {result['skipped']}"]
    ok = {True: "met", False: "missed"}
    stages = result["stages"]
    lines = [
        f"- pipeline cold ({stages[0]} .. {stages[-1]}, {len(stages)} stages, "
        f"{result.get('project', 'this checkout')}): **{result['cold_seconds']} s**, median "
        f"of {result['cold_seconds_runs']} (target <= {result['cold_target_seconds']:g} s: "
        f"{ok[result['cold_target_met']]}); CPU time {result.get('cold_cpu_seconds_runs')} s",
        *forced_lines(result),
        f"- no-op `dvc repro`: **{result['noop_repro_seconds']} s**, median of "
        f"{result['noop_repro_runs']} (target < {result['noop_target_seconds']:g} s: "
        f"{ok[result['noop_target_met']]})",
        f"- report stage (site generated and rendered; not in the pipeline's target): "
        f"{result['report_stage_seconds']} s",
        f"- load average when done: {result.get('load_average')} ({result['cpus']} cores)",
        "",
        "Seconds per stage in the cold runs (medians; wall: inside `dvc repro`; the split: "
        "the stage's run record; dvc+launch: wall minus the run record's total; floor: "
        "kernel start + other + dvc+launch, what the stage costs whatever its notebook "
        "does):",
        "",
        "| stage | wall | kernel start | imports | work | other (nbrun) | nbrun total "
        "| dvc+launch | floor |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def cells(row: dict) -> str:
        return " | ".join(f"{row[k]:.2f}" if k in row else "-" for k in COLUMNS)

    rows = result["cold_seconds_by_stage"]
    for stage in stages:
        lines.append(f"| {stage} | {cells(rows.get(stage, {}))} |")
    lines.append(f"| notebook stages | {cells(result['cold_notebook_stage_totals'])} |")
    return lines


def forced_lines(result: dict) -> list[str]:
    """The summary's lines for the forced repro with the site, and for the driver (none in
    older results). The target is held to the driver's forced run when there is one."""
    if "forced_seconds" not in result:
        return []
    met = "met" if result["forced_target_met"] else "missed"
    driver = "driver_forced_seconds" in result
    lines = [f"- forced `dvc repro -f` incl. site (every stage and `{SITE_STAGE}`, one at a "
             f"time): **{result['forced_seconds']} s**, median of "
             f"{result['forced_seconds_runs']}"
             + ("" if driver else f" (target <= {result['forced_target_seconds']:g} s: {met})")
             + f"; CPU time {result['forced_cpu_seconds_runs']} s"]
    if driver:
        sequential = round(result["cold_seconds"] + result["report_stage_seconds"], 2)
        lines += [
            f"- `make report`'s driver (`python -m analysis.tools.repro`, stages side by side "
            f"on {result['cpus']} cores), cold incl. site: **{result['driver_cold_seconds']} "
            f"s**, median of {result['driver_cold_seconds_runs']} (one at a time: "
            f"{sequential} s, the cold pipeline + the report stage); CPU time "
            f"{result['driver_cold_cpu_seconds_runs']} s",
            f"- the driver forced (`-f`) incl. site: **{result['driver_forced_seconds']} s**, "
            f"median of {result['driver_forced_seconds_runs']} (target <= "
            f"{result['forced_target_seconds']:g} s: {met}); CPU time "
            f"{result['driver_forced_cpu_seconds_runs']} s"]
    return lines
