"""The "scroll sideways" line over wide tables (``report/assets/scroll-cue.html`` with
``site.css``), in headless Chromium on a small page: a table wider than its box gets
Table I's line, at any width, and only while it overflows; a table's own line is reused;
a collapsed table's line appears when it is shown; a table written in Markdown is put in
a scrolling box; the issue explorer's table is left alone."""

from __future__ import annotations

import shutil

import pytest

from analysis.core.paths import ROOT
from tests.support.browser import Browser, find_chromium, serve

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(find_chromium() is None, reason="chromium not installed")]

WIDE = "<table><tr>" + "<td>Requirement</td>" * 30 + "</tr></table>"
MEDIUM = "<table><tr>" + "<td>Requirement</td>" * 8 + "</tr></table>"
PAGE = f"""<!doctype html><html><head><meta name="viewport" content="width=device-width">
<link rel="stylesheet" href="site.css"><link rel="icon" href="data:,"></head><body><main>
<div id="wide"><div class="table-wrap">{WIDE}</div></div>
<div id="own"><p class="scroll-cue">Table I's own line.</p><div class="table-wrap">{MEDIUM}
</div></div>
<div id="markdown">{MEDIUM}</div>
<div id="folded" style="display: none"><div class="table-wrap">{WIDE}</div></div>
<div id="explorer" class="issue-explorer">{WIDE}</div>
</main>{{script}}</body></html>"""
SEEN = """(() => { const cue = id => [...document.querySelectorAll('#' + id + ' .scroll-cue')]
    .map(c => c.offsetHeight > 0);
  return {wide: cue('wide'), own: cue('own'), markdown: cue('markdown'),
          wrapped: !!document.querySelector('#markdown > .table-wrap > table'),
          folded: cue('folded'), explorer: cue('explorer'),
          explorerWrapped: !!document.querySelector('#explorer .table-wrap'),
          ownText: document.querySelector('#own .scroll-cue').textContent}; })()"""
OPEN = """new Promise(done => { document.getElementById('folded').style.display = 'block';
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50))); })"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cue")
    shutil.copyfile(ROOT / "report" / "assets" / "site.css", folder / "site.css")
    script = (ROOT / "report" / "assets" / "scroll-cue.html").read_text(encoding="utf-8")
    (folder / "page.html").write_text(PAGE.replace("{script}", script), encoding="utf-8")
    return folder


@pytest.mark.parametrize("width", [1280, 390])
def test_a_table_wider_than_its_box_says_it_scrolls(page, width):
    with serve(page) as base, Browser(find_chromium(), width=width) as browser:
        facts = browser.open(base + "page.html")
        assert facts["problems"] == []
        seen = browser.evaluate(SEEN)
        assert seen["wide"] == [True]            # at 1280 px too: it does not fit
        assert seen["own"] == [width == 390]     # its own line, only while it overflows
        assert seen["ownText"] == "Table I's own line."
        assert seen["wrapped"] and seen["markdown"] == [width == 390]
        assert seen["folded"] == [False]         # collapsed: nothing to scroll yet
        browser.evaluate(OPEN)
        assert browser.evaluate(SEEN)["folded"] == [True]
        assert seen["explorer"] == [] and not seen["explorerWrapped"]
