"""Benchmarks: ``make bench`` runs every ``benchmarks/bench_*.py`` and writes results.

Each benchmark module defines ``run(results_dir: Path) -> dict`` returning a flat-ish
mapping of measurements (seconds, bytes, rates, the target it is held to and whether it
was met), and may define ``summary(result: dict) -> list[str]`` (Markdown lines) for the
summary. The results go to ``bench/results/<name>.json``, stamped with when and on what
machine they were measured, and a summary of every result in the folder (those of
benchmarks not run this time included, with their own time stamps) to
``bench/results/summary.md``. Every number is measured by the run that wrote it; the
command prints the files it wrote. Benchmarks are measurements, not tests: they do not
fail the build, they report.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from analysis.core import runlog
from analysis.core.artifacts import write_json, write_text
from analysis.core.paths import PATHS, ROOT

META = ("measured_at", "machine", "wall_seconds_total")


def load(path: Path):
    """A benchmark module; the project root is importable from it (``tests.support``)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _value(value) -> str:
    return json.dumps(value) if isinstance(value, dict | list) else str(value)


def summary_lines(results: dict[str, dict], formatters: dict | None = None) -> list[str]:
    """A Markdown summary: one section per benchmark, with when and where it was measured,
    then the benchmark's own summary (``formatters[name](result)``) or one line per
    measurement."""
    formatters = formatters or {}
    lines = ["# Benchmark results", "",
             "Written by `make bench` (`python -m analysis.tools.bench`); every number is "
             "measured by the run stamped under its section.", ""]
    for name, result in results.items():
        lines += [f"## {name}", ""]
        machine = result.get("machine") or {}
        if result.get("measured_at") or machine:
            lines += [f"Measured {result.get('measured_at', '?')} on {machine.get('cpu', '?')}"
                      f" ({machine.get('cores', '?')} cores, {machine.get('memory_gib', '?')}"
                      f" GiB, Python {machine.get('python', '?')}); benchmark wall time "
                      f"{result.get('wall_seconds_total', '?')} s.", ""]
        body = {k: v for k, v in result.items() if k not in META}
        formatter = formatters.get(name)
        lines += formatter(body) if formatter else [f"- {k}: {_value(v)}"
                                                    for k, v in body.items()]
        lines.append("")
    return lines


def previous(out: Path, names: list[str]) -> dict[str, dict]:
    """Results already in ``out`` of the benchmarks ``names`` (unreadable ones skipped)."""
    found = {}
    for name in names:
        try:
            found[name] = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.bench")
    parser.add_argument("--out", default=str(PATHS.bench_results.relative_to(PATHS.root)))
    parser.add_argument("--only", nargs="*", help="benchmark names (bench_<name>.py)")
    args = parser.parse_args(argv)
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    modules = {path.stem.removeprefix("bench_"): path
               for path in sorted((ROOT / "benchmarks").glob("bench_*.py"))}
    unknown = sorted(set(args.only or ()) - set(modules))
    if unknown:
        parser.error(f"no benchmark {', '.join(unknown)}; known: {', '.join(modules)}")
    results = previous(out, list(modules))
    formatters = {}
    written = []
    for name, path in modules.items():
        module = load(path)
        if hasattr(module, "summary"):
            formatters[name] = module.summary
        if args.only and name not in args.only:
            continue
        print(f"bench: {name} ...", flush=True)
        start = time.perf_counter()
        result = module.run(out)
        result["wall_seconds_total"] = round(time.perf_counter() - start, 2)
        result["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        result["machine"] = runlog.machine()
        written.append(write_json(out / f"{name}.json", result))
        results[name] = result
        for key, value in result.items():
            print(f"  {key}: {_value(value)}")
    ordered = {name: results[name] for name in modules if name in results}
    written.append(write_text(out / "summary.md", "\n".join(summary_lines(ordered,
                                                                          formatters))))
    for path in written:
        print(f"bench: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
