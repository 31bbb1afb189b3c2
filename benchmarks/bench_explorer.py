"""The issue explorer (``issues.html``) on the site the pipeline built (``report/_site``).

Measured:

- ``data_bytes`` / ``data_gzip_bytes``: the explorer's data file as the site serves it
  (``_generated/explorer/issues.js``), and gzip-compressed (what a web server that
  compresses would send);
- ``issues``: the labelled issues it holds;
- for the full list and a filtered view (``?project=vllm&theme=C.5``), in headless Chromium
  through a local web server: ``ready_ms``, from the start of navigation until the
  explorer has decoded its data and shown the first page (the page's
  ``issue-explorer-ready`` performance mark), and ``load_ms``, until the load event;
  the best of three loads.

Target: the page is ready in under 2 s. Skipped (reported as such) without a built site or
without Chromium.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "report" / "_site"
DATA = SITE / "_generated" / "explorer" / "issues.js"
TARGET_MS = 2000
VIEWS = {"all": "", "filtered": "?project=vllm&theme=C.5"}
TIMING = """(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const mark = performance.getEntriesByName('issue-explorer-ready')[0];
  return {ready_ms: mark ? mark.startTime : null, load_ms: nav ? nav.loadEventEnd : null,
          count: document.getElementById('issue-count').textContent};
})()"""


def run(results_dir: Path) -> dict:
    from tests.support.browser import Browser, find_chromium, serve

    if not DATA.is_file():
        return {"skipped": "no site with the explorer in report/_site: run `make report`"}
    raw = DATA.read_bytes()
    out: dict = {"data_bytes": len(raw), "data_gzip_bytes": len(gzip.compress(raw, 9)),
                 "issues": json.loads(raw.decode("utf-8").split(" = ", 1)[1].rstrip(";\n"))
                 ["n"], "target_ms": TARGET_MS}
    chromium = find_chromium()
    if chromium is None:
        return {**out, "skipped": "chromium not installed"}
    with serve(SITE) as base, Browser(chromium, width=1280) as browser:
        for name, query in VIEWS.items():
            runs = []
            for _ in range(3):
                browser.open(base + "issues.html" + query)
                runs.append(browser.evaluate(TIMING))
            best = min(runs, key=lambda r: r["ready_ms"] or float("inf"))
            out[name] = {"ready_ms": round(best["ready_ms"] or -1, 1),
                         "load_ms": round(best["load_ms"] or -1, 1), "count": best["count"],
                         "met": bool(best["ready_ms"]) and best["ready_ms"] < TARGET_MS}
    return out
