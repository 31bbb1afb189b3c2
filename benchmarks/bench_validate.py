"""Peak memory of ``python -m analysis.tools.validate`` on ~300 MB label files.

Three generated dumps, one project each, the label file about :data:`SIZE_MB` MB:

- ``junk_header``: the label file is junk without a single newline (its "header" is the
  whole file);
- ``junk_rows``: a valid header over lines of junk (every row set aside or refused by
  the row rules);
- ``valid``: well-formed rows (seven annotators, as in the released data) whose URLs are
  all listed in three year files.

Each dump is checked in a fresh process; its peak resident size is ``ru_maxrss`` of the
finished child (``resource.getrusage(RUSAGE_CHILDREN)`` read in a launcher process that
does nothing else, so it is the child's own peak). The target: 1.5 GB at most, whatever the
file holds. The exit status, the wall time and the first lines validate printed are
reported with it. ``BENCH_VALIDATE_MB`` sets the size (e.g. 30 for a quick look);
``BENCH_VALIDATE_ROOT`` names another checkout to measure instead of this one (e.g. an
earlier version, to compare).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE_MB = float(os.environ.get("BENCH_VALIDATE_MB", "300"))
TARGET_MB = 1536
CASES = ("junk_header", "junk_rows", "valid")
PROJECT = "pytorch"
THEMES = ["A.1", "A.2", "A.3", "B.1", "B.2", "C.1", "C.3", "C.5", "C.7"]
HEADER = "Issue_URL," + ",".join(f"Label{i}" for i in range(1, 8)) + ",Final_Label\n"
OUTPUT_LINES = 40  # of what validate printed, kept in the results
LAUNCHER = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"peak_rss_mb": round(peak, 1), "seconds": round(seconds, 1),
                  "exit_status": proc.returncode,
                  "output": (proc.stdout + proc.stderr).splitlines()}))
"""


def _write_repeated(path: Path, head: str, pieces, size: int) -> int:
    """Write ``head`` then pieces (cycled) until ``size`` bytes; the bytes written."""
    written = 0
    with path.open("w", encoding="utf-8", newline="") as f:
        f.write(head)
        written += len(head)
        while written < size:
            block = "".join(next(pieces) for _ in range(10_000))
            f.write(block)
            written += len(block)
    return written


def junk_pieces(rng: random.Random, newline: bool):
    """Endless junk text: words, commas, quotes-free; lines when ``newline``."""
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "x" * 17, "C.3", "http:", "//",
             "github.com", ";", "", "zz"]
    while True:
        n = rng.randint(3, 14)
        text = rng.choice([",", " ", "|"]).join(rng.choice(words) for _ in range(n))
        yield text + ("\n" if newline else " ")


def write_case(root: Path, case: str, size: int, seed: int = 0) -> dict:
    """Write one dump of the given case under ``root``; what was written."""
    folder = root / "Issue Report" / PROJECT
    folder.mkdir(parents=True, exist_ok=True)
    label = folder / f"{PROJECT}.csv"
    rng = random.Random(f"{case}-{seed}")
    years = [2023, 2024, 2025]
    if case in ("junk_header", "junk_rows"):
        head = "" if case == "junk_header" else HEADER
        written = _write_repeated(label, head, junk_pieces(rng, case == "junk_rows"), size)
        (folder / f"{PROJECT}_2024.txt").write_text(
            "https://github.com/pytorch/pytorch/issues/1\n", encoding="utf-8")
        return {"label_bytes": written}
    rows = 0
    year_files = {y: (folder / f"{PROJECT}_{y}.txt").open("w", encoding="utf-8")
                  for y in years}
    try:
        with label.open("w", encoding="utf-8", newline="") as f:
            f.write(HEADER)
            written = len(HEADER)
            while written < size:
                lines, by_year = [], {y: [] for y in years}
                for _ in range(10_000):
                    rows += 1
                    url = f"https://github.com/pytorch/pytorch/issues/{100_000 + rows}"
                    final = rng.choice(THEMES)
                    labels = [final] * 4 + [rng.choice(THEMES) for _ in range(3)]
                    rng.shuffle(labels)
                    lines.append(f"{url},{','.join(labels)},{final}\n")
                    by_year[years[rows % 3]].append(url + "\n")
                block = "".join(lines)
                f.write(block)
                written += len(block)
                for y, urls in by_year.items():
                    year_files[y].write("".join(urls))
    finally:
        for handle in year_files.values():
            handle.close()
    return {"label_bytes": written, "rows": rows}


def measure(dump: Path, root: Path = ROOT) -> dict:
    """Validate ``dump`` in a fresh process (the code of checkout ``root``): its peak
    resident size, wall time, exit status and the first lines it printed."""
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, sys.executable, "-m",
                           "analysis.tools.validate", str(dump)], capture_output=True,
                          text=True, env=env, check=True, cwd=root)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["output"] = result["output"][:OUTPUT_LINES]
    return result


def run(results_dir: Path) -> dict:
    root = Path(os.environ.get("BENCH_VALIDATE_ROOT", ROOT)).resolve()
    size = int(SIZE_MB * 1_000_000)
    cases = {}
    for case in CASES:
        with tempfile.TemporaryDirectory(prefix=f"bench-validate-{case}-") as tmp:
            written = write_case(Path(tmp), case, size)
            cases[case] = {**written, **measure(Path(tmp), root)}
            cases[case]["target_met"] = cases[case]["peak_rss_mb"] <= TARGET_MB
            print(f"  {case}: {cases[case]['peak_rss_mb']} MB peak, "
                  f"{cases[case]['seconds']} s", flush=True)
    return {"code": str(root), "label_file_mb": SIZE_MB, "target_peak_rss_mb": TARGET_MB,
            "cases": cases, "peak_rss_mb_max": max(c["peak_rss_mb"] for c in cases.values()),
            "target_met": all(c["target_met"] for c in cases.values())}


def summary(result: dict) -> list[str]:
    """Markdown: a row per case (file size, peak memory against the target, time, exit
    status), then what validate printed for each."""
    lines = [f"Peak memory of `python -m analysis.tools.validate` (code: "
             f"`{result['code']}`) on ~{result['label_file_mb']:g} MB label files; target "
             f"{result['target_peak_rss_mb']:,} MB at most.", "",
             "| case | label file (MB) | rows | peak RSS (MB) | target met | seconds | exit |",
             "|---|---:|---:|---:|---|---:|---:|"]
    for case, c in result["cases"].items():
        lines.append(f"| {case} | {c['label_bytes'] / 1e6:,.0f} | {c.get('rows', '-')} | "
                     f"{c['peak_rss_mb']:,.0f} | {'yes' if c['target_met'] else 'NO'} | "
                     f"{c['seconds']:g} | {c['exit_status']} |")
    for case, c in result["cases"].items():
        lines += ["", f"What validate printed on `{case}` (first {OUTPUT_LINES} lines):", "",
                  "```text", *c["output"], "```"]
    return lines
