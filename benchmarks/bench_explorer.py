"""The issue explorer (``issues.html``) on the site the pipeline built (``report/_site``),
with the release's issues and with ten times as many.

Measured, for each size:

- ``data_bytes`` / ``data_gzip_bytes``: the explorer's data file as the site serves it
  (``_generated/explorer/issues.js``), and gzip-compressed (what a web server that
  compresses would send);
- ``issues``: the labelled issues it holds;
- for the full list and a filtered view (``?project=vllm&theme=C.5``), in headless Chromium
  through a local web server: ``ready_ms``, from the start of navigation until the
  explorer has decoded its data and shown the first page (the page's
  ``issue-explorer-ready`` performance mark), and ``load_ms``, until the load event;
  the best of three loads.

The release is the site as built. Ten times the release (``x10``) is the dump that
``python -m analysis.tools.scale SOURCE DEST --times 10`` writes from the offline mirror
(else ``data/release``), cleaned and encoded as the clean and explorer stages do
(:func:`analysis.clean.compute.clean_dump`, :func:`analysis.explorer.compute.compute`),
its data script put in a copy of the site in place of the release's; building it is
set-up, not timed. ``BENCH_EXPLORER_X10=0`` leaves it out.

Targets: the first rows shown in 1 s or less, the data 3 MB or less gzipped, at both
sizes. Skipped (reported as such) without a built site or without Chromium.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "report" / "_site"
DATA = SITE / "_generated" / "explorer" / "issues.js"
TARGET_MS = 1000
TARGET_GZIP_BYTES = 3_000_000
TIMES = 10
X10 = os.environ.get("BENCH_EXPLORER_X10", "1") != "0"
VIEWS = {"all": "", "filtered": "?project=vllm&theme=C.5"}
TIMING = """(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const mark = performance.getEntriesByName('issue-explorer-ready')[0];
  return {ready_ms: mark ? mark.startTime : null, load_ms: nav ? nav.loadEventEnd : null,
          count: document.getElementById('issue-count').textContent};
})()"""


def data_facts(raw: bytes) -> dict:
    """The data script's size, gzipped size (level 9) and issues, against the size target."""
    gz = len(gzip.compress(raw, 9))
    return {"data_bytes": len(raw), "data_gzip_bytes": gz,
            "issues": json.loads(raw.decode("utf-8").split(" = ", 1)[1].rstrip(";\n"))["n"],
            "gzip_target_bytes": TARGET_GZIP_BYTES, "gzip_met": gz <= TARGET_GZIP_BYTES}


def timings(chromium: str, site: Path) -> dict:
    """Per view, the best of three loads of ``issues.html`` served from ``site``."""
    from tests.support.browser import Browser, serve

    out = {}
    with serve(site) as base, Browser(chromium, width=1280) as browser:
        for name, query in VIEWS.items():
            runs = []
            for _ in range(3):
                browser.open(base + "issues.html" + query)
                runs.append(browser.evaluate(TIMING))
            best = min(runs, key=lambda r: r["ready_ms"] or float("inf"))
            out[name] = {"ready_ms": round(best["ready_ms"] or -1, 1),
                         "load_ms": round(best["load_ms"] or -1, 1), "count": best["count"],
                         "met": bool(best["ready_ms"]) and best["ready_ms"] <= TARGET_MS}
    return out


def scaled_script(times: int, tmp: Path) -> bytes | None:
    """The explorer's data script for the release repeated ``times`` times (as the scale
    benchmark's dumps are), or None without a release to scale."""
    from analysis.clean.compute import clean_dump
    from analysis.core.paths import PATHS
    from analysis.core.projects import Projects
    from analysis.core.taxonomy import load_taxonomy
    from analysis.explorer.compute import compute
    from analysis.explorer.outputs import explorer_json
    from analysis.report.explorer import explorer_script
    from analysis.tools.scale import scale_dump
    from benchmarks.bench_pipeline import source

    release = source()
    if release is None:
        return None
    dump = tmp / f"dump-x{times}"
    scale_dump(release[0], dump, times)
    taxonomy, projects = load_taxonomy(PATHS.taxonomy_file), Projects.load(PATHS.projects_file)
    issues = clean_dump(dump, taxonomy, projects).issues
    (tmp / "explorer.json").write_text(explorer_json(compute(issues, taxonomy, projects)
                                                     .explorer), encoding="utf-8")
    return explorer_script(tmp / "explorer.json").encode("utf-8")


def run(results_dir: Path) -> dict:
    from tests.support.browser import find_chromium

    if not DATA.is_file():
        return {"skipped": "no site with the explorer in report/_site: run `make report`"}
    out: dict = {**data_facts(DATA.read_bytes()), "target_ms": TARGET_MS}
    chromium = find_chromium()
    if chromium is None:
        return {**out, "skipped": "chromium not installed"}
    out.update(timings(chromium, SITE))
    if not X10:
        return out
    with tempfile.TemporaryDirectory() as tmp:
        script = scaled_script(TIMES, Path(tmp))
        if script is None:
            out[f"x{TIMES}"] = {"skipped": "no release to scale: offline mirror ../shared "
                                           "absent and data/release not fetched"}
            return out
        site = Path(tmp) / "site"
        shutil.copytree(SITE, site)
        (site / DATA.relative_to(SITE)).write_bytes(script)
        out[f"x{TIMES}"] = {**data_facts(script), **timings(chromium, site)}
    return out


def summary(result: dict) -> list[str]:
    """The release and ten times the release side by side."""
    sizes = [("release", result), *([(f"x{TIMES}", result[f"x{TIMES}"])]
                                    if isinstance(result.get(f"x{TIMES}"), dict) else [])]
    lines = ["| size | issues | data | gzipped | ready (all) | ready (filtered) |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, r in sizes:
        if "issues" not in r:
            continue
        lines.append(f"| {name} | {r['issues']:,} | {r['data_bytes'] / 1e6:.2f} MB | "
                     f"{r['data_gzip_bytes'] / 1e6:.2f} MB | "
                     f"{(r.get('all') or {}).get('ready_ms', '–')} ms | "
                     f"{(r.get('filtered') or {}).get('ready_ms', '–')} ms |")
    return lines
