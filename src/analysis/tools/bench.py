"""Benchmarks: ``make bench`` runs every ``benchmarks/bench_*.py`` and writes results.

Each benchmark module defines ``run(results_dir: Path) -> dict`` returning a flat-ish
mapping of measurements (seconds, bytes, rates, the target it is held to and whether it
was met); the results go to ``bench/results/<name>.json`` and a summary to
``bench/results/summary.md``. Benchmarks are measurements, not tests: they do not fail
the build, they report.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from analysis.core.artifacts import write_json, write_text
from analysis.core.paths import PATHS, ROOT


def discover(folder: Path) -> list[Path]:
    """Benchmark modules, in name order."""
    return sorted(folder.glob("bench_*.py"))


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def summary_lines(results: dict[str, dict]) -> list[str]:
    """A Markdown summary: one section per benchmark, one line per measurement."""
    lines = ["# Benchmark results", ""]
    for name, result in results.items():
        lines += [f"## {name}", ""]
        lines += [f"- {k}: {v}" for k, v in result.items()]
        lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.bench")
    parser.add_argument("--out", default=str(PATHS.bench_results.relative_to(PATHS.root)))
    parser.add_argument("--only", nargs="*", help="benchmark names (bench_<name>.py)")
    args = parser.parse_args(argv)
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    for path in discover(ROOT / "benchmarks"):
        name = path.stem.removeprefix("bench_")
        if args.only and name not in args.only:
            continue
        print(f"bench: {name} ...", flush=True)
        start = time.perf_counter()
        result = load(path).run(out)
        result["wall_seconds_total"] = round(time.perf_counter() - start, 2)
        write_json(out / f"{name}.json", result)
        results[name] = result
        for key, value in result.items():
            print(f"  {key}: {value}")
    write_text(out / "summary.md", "\n".join(summary_lines(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
