"""The pipeline on the release and on dumps 10 and 100 times as large: is each stage linear?

The dumps are written at bench time into a temporary folder by
:func:`analysis.tools.scale.scale_dump` from the offline mirror (else ``data/release``):
every issue repeated under N issue numbers (new URLs, the same labels, in the year files
too), so every stage that reads issues sees N times the rows; the interview files, detail
files and keyword lists are as released. The release itself runs the same way (factor 1,
a plain copy), and no run verifies a manifest, so the runs differ only in their rows.

For each size, in a throw-away copy of the project (``tests.support.workspace``; copying
and writing the dump are set-up, not timed), every stage but ``report`` runs on its own,
``dvc repro --single-item <stage>`` in the pipeline's order, and each is measured: its
wall seconds, its CPU seconds (user + system, of the stage's processes) and its peak memory
(the resident set of its largest process), all three from ``wait4`` on the ``dvc``
process. Wall time includes DVC's own work for the stage (starting, hashing its
dependencies and outputs). The release and 10x run :data:`REPEATS` times, each in a fresh
copy (the machine may be shared: medians are reported, and every run's pipeline total);
100x runs once, each stage under :data:`LIMIT_S` seconds and :data:`LIMIT_GIB` GiB of
address space per process: a stage over either limit ends the 100x run (reported as
such), as the later stages read its outputs. ``report`` (the site) runs once per size
after the pipeline, unless ``BENCH_SCALE_SITE=0``; at 100x it is not run.

Targets: no stage above 12x its release time at 10x the data, and the 10x pipeline (the
sum of its stages) within 3x of the release's. Settings (environment):
``BENCH_SCALE_FACTORS`` (default ``10,100``), ``BENCH_SCALE_REPEATS`` (default 3),
``BENCH_SCALE_LIMIT_S`` (default 300), ``BENCH_SCALE_LIMIT_GIB`` (default 8).
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from analysis.core.paths import ROOT

FACTORS = [int(f) for f in os.environ.get("BENCH_SCALE_FACTORS", "10,100").split(",") if f]
REPEATS = max(int(os.environ.get("BENCH_SCALE_REPEATS", "3")), 1)
LIMIT_S = float(os.environ.get("BENCH_SCALE_LIMIT_S", "300"))
LIMIT_GIB = float(os.environ.get("BENCH_SCALE_LIMIT_GIB", "8"))
SITE = os.environ.get("BENCH_SCALE_SITE", "1") != "0"
ONCE_FROM = 100  # factors from this one up run once, under the limits
STAGE_TARGET_RATIO = 12.0  # per stage, at 10x the data
PIPELINE_TARGET_RATIO = 3.0  # the whole pipeline, at 10x the data
TARGET_FACTOR = 10
SITE_STAGE = "report"


def measured(cmd: list[str], cwd: Path, env: dict, limit_s: float | None = None,
             limit_bytes: int | None = None) -> dict:
    """Run ``cmd``: its wall seconds, CPU seconds and peak resident bytes (of its largest
    process, children included, from ``wait4``), its exit code and output. With limits,
    the command is killed after ``limit_s`` seconds (``timed_out``) and each of its
    processes may map at most ``limit_bytes``."""
    def limits() -> None:
        if limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=limits if limit_bytes else None)
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(limit_s, kill) if limit_s else None
    if timer:
        timer.start()
    output = proc.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if timer:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    return {"seconds": round(wall, 2), "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_bytes": usage.ru_maxrss * 1024, "code": proc.returncode,
            "timed_out": timed_out.is_set(), "log": output}


def stage_order(work: Path) -> list[str]:
    """The pipeline's stages in dvc.yaml's order (it respects their dependencies)."""
    import yaml

    return list(yaml.safe_load((work / "dvc.yaml").read_text(encoding="utf-8"))["stages"])


def run_size(project: Path, dump: Path, dest: Path, limited: bool, site: bool) -> dict:
    """Copy the project to ``dest`` (not timed), point it at ``dump`` and run each stage on
    its own; per stage the :func:`measured` numbers, or where the run stopped and why."""
    from tests.support.workspace import copy_project, pipeline_env, set_params

    work = copy_project(dest, root=project)
    set_params(work, "ingest", source=dump, manifest=None)
    env = {**pipeline_env(work), "PYTHONUNBUFFERED": "1"}
    stages: dict[str, dict] = {}
    stopped = None
    order = [s for s in stage_order(work) if s != SITE_STAGE] + [SITE_STAGE] * site
    for stage in order:
        result = measured(["dvc", "repro", "--single-item", stage], work, env,
                          LIMIT_S if limited else None,
                          int(LIMIT_GIB * 1024 ** 3) if limited else None)
        log = result.pop("log")
        if result["code"]:
            why = (f"over {LIMIT_S:g} s" if result["timed_out"] else
                   f"failed ({result['code']}), last line: "
                   f"{(log.strip().splitlines() or [''])[-1][:200]}")
            if not limited:
                raise RuntimeError(f"dvc repro {stage} failed on {dump}:\n{log[-3000:]}")
            stopped = {"stage": stage, "why": why, "seconds": result["seconds"]}
            break
        stages[stage] = {k: result[k] for k in ("seconds", "cpu_seconds", "peak_rss_bytes")}
    return {"stages": stages, "stopped": stopped}


def label_rows(dump: Path) -> int:
    """Data rows of the dump's label files (lines after the header, blank ones excluded)."""
    return sum(sum(1 for line in path.read_bytes().splitlines()[1:] if line.strip())
               for path in (dump / "Issue Report").glob("*/*.csv")
               if path.stem == path.parent.name)


def median_stages(runs: list[dict]) -> dict[str, dict]:
    """Per stage and measurement, the median over the runs."""
    out: dict[str, dict] = {}
    for stage in runs[0]["stages"]:
        rows = [r["stages"][stage] for r in runs if stage in r["stages"]]
        out[stage] = {k: round(statistics.median(row[k] for row in rows), 2)
                      for k in rows[0]}
    return out


def pipeline_total(stages: dict[str, dict], key: str = "seconds") -> float:
    """The pipeline's total (every stage but the site)."""
    return round(sum(row[key] for name, row in stages.items() if name != SITE_STAGE), 2)


def ratios(base: dict[str, dict], scaled: dict[str, dict], key: str) -> dict[str, float]:
    """Per stage run in both, ``scaled / base`` of ``key``."""
    return {stage: round(row[key] / base[stage][key], 2) for stage, row in scaled.items()
            if stage in base and base[stage][key] > 0}


def targets(sizes: dict[str, dict]) -> dict:
    """The 10x targets: stages above 12x the release's wall time, and the pipeline's ratio."""
    key = f"x{TARGET_FACTOR}"
    if key not in sizes or "x1" not in sizes:
        return {}
    ratio = sizes[key]["ratio_seconds"]
    over = {s: r for s, r in ratio.items() if s != SITE_STAGE and r > STAGE_TARGET_RATIO}
    pipe = round(sizes[key]["pipeline_seconds"] / sizes["x1"]["pipeline_seconds"], 2)
    return {"stages_over_target": over, "stage_target_met": not over,
            "pipeline_ratio": pipe, "pipeline_target_met": pipe <= PIPELINE_TARGET_RATIO}


def run(results_dir: Path) -> dict:
    from analysis.tools.scale import scale_dump
    from benchmarks.bench_pipeline import source

    release = source()
    if release is None:
        return {"skipped": "no release: offline mirror ../shared absent and data/release "
                           "not fetched"}
    sizes: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for factor in [1, *FACTORS]:
            dump = Path(tmp) / f"dump-x{factor}"
            scale_dump(release[0], dump, factor)
            limited = factor >= ONCE_FROM
            runs = []
            for i in range(1 if limited else REPEATS):
                work = Path(tmp) / f"project-x{factor}-{i}"
                runs.append(run_size(ROOT, dump, work, limited,
                                     SITE and not limited and i == 0))
                shutil.rmtree(work)
            stages = median_stages(runs)
            sizes[f"x{factor}"] = {
                "factor": factor, "label_rows": label_rows(dump), "runs": len(runs),
                "stages": stages, "stopped": runs[0]["stopped"],
                "pipeline_seconds": pipeline_total(stages),
                "pipeline_cpu_seconds": pipeline_total(stages, "cpu_seconds"),
                "pipeline_seconds_runs": [pipeline_total(r["stages"]) for r in runs],
                "peak_rss_bytes": max((row["peak_rss_bytes"] for row in stages.values()),
                                      default=0)}
            shutil.rmtree(dump)
    for size in sizes.values():
        if size["factor"] > 1:
            size["ratio_seconds"] = ratios(sizes["x1"]["stages"], size["stages"], "seconds")
            size["ratio_cpu_seconds"] = ratios(sizes["x1"]["stages"], size["stages"],
                                               "cpu_seconds")
    return {"sizes": sizes, **targets(sizes),
            "stage_target_ratio": STAGE_TARGET_RATIO,
            "pipeline_target_ratio": PIPELINE_TARGET_RATIO,
            "limits_100x": {"seconds_per_stage": LIMIT_S, "gib_per_process": LIMIT_GIB},
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def summary(result: dict) -> list[str]:
    """Targets, then one row per stage: seconds (wall, CPU), ratios and peak memory."""
    if "skipped" in result:
        return [f"skipped: {result['skipped']}"]
    sizes = result["sizes"]
    ok = {True: "met", False: "missed"}
    lines = []
    if "pipeline_ratio" in result:
        over = result["stages_over_target"]
        lines += [
            f"- pipeline at {TARGET_FACTOR}x the data: **{result['pipeline_ratio']}x** the "
            f"release's time (target <= {result['pipeline_target_ratio']:g}x: "
            f"{ok[result['pipeline_target_met']]})",
            f"- stages above {result['stage_target_ratio']:g}x at {TARGET_FACTOR}x: "
            f"{', '.join(f'{s} ({r}x)' for s, r in over.items()) or 'none'} "
            f"({ok[result['stage_target_met']]})"]
    for name, size in sizes.items():
        stop = size.get("stopped")
        lines.append(
            f"- {name}: {size['label_rows']:,} label rows, pipeline {size['pipeline_seconds']} s "
            f"wall, {size['pipeline_cpu_seconds']} s CPU (median of {size['runs']}: "
            f"{size['pipeline_seconds_runs']})"
            + (f"; stopped at {stop['stage']}: {stop['why']}" if stop else ""))
    lines += [f"- load average when done: {result.get('load_average')}", "",
              "Per stage (medians; wall s / CPU s; ratio: wall against the release; "
              "peak: the largest process, MiB):", ""]
    names = list(sizes)
    lines.append("| stage | " + " | ".join(
        f"{n} wall / CPU | {n} peak" + (f" | {n} ratio" if n != "x1" else "")
        for n in names) + " |")
    lines.append("|---|" + "|".join("---:|---:" + ("|---:" if n != "x1" else "")
                                    for n in names) + "|")
    for stage in sizes["x1"]["stages"]:
        cells = []
        for n in names:
            row = sizes[n]["stages"].get(stage)
            cells += ([f"{row['seconds']:.1f} / {row['cpu_seconds']:.1f}",
                       f"{row['peak_rss_bytes'] / 2 ** 20:.0f}"] if row else ["-", "-"])
            if n != "x1":
                ratio = sizes[n].get("ratio_seconds", {}).get(stage)
                cells.append(f"{ratio:.1f}x" if ratio is not None else "-")
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    return lines
