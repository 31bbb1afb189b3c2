"""The website built from a synthetic, hostile dump, as the ``report`` stage builds it, under
both renderers: the pandoc preview always, real Quarto when it can be found (CI has none:
those tests skip with the reason).

The project is made once per session by :mod:`sites` (conftest.py's ``site_project``,
which the table-schema tests read too): every stage on a synthetic dump with payloads in
every field (an HTML tag, a Quarto ``env`` shortcode and math in a project folder's name;
include shortcodes, spreadsheet formulas, ``$$`` and a right-to-left override in
annotator labels; a Markdown ``javascript:`` link and a ``kbd`` shortcode in a sub-theme
name; ``<script>`` elements and shortcodes in a URL, a detail, a quote, a codebook node,
the guideline and the keywords). The site is rendered with a canary environment variable
set. Then the checks a reader's browser would make: every variable and include exists,
the variables carry no data text, no link or image is broken, every figure is a numbered
figure with caption and alt text, no Quarto syntax survives, nothing from the data runs,
expands, includes a local file or names a local path, the downloads cannot run in a
spreadsheet, and (with Chromium) every page at 1280 and 390 px opens without a console
error, fetches nothing from outside the site and never scrolls sideways. With
``TEST_ARTIFACTS=<folder>`` set, the browser tests also take a full-page screenshot of every
page at both widths, into ``<folder>/site/<renderer>/``, for a person to look at (not by
default: they make those tests about one and a half times as long).
"""

from __future__ import annotations

import csv
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlencode

import pytest
import yaml

from analysis.core.paths import ROOT as PROJECT_ROOT
from analysis.core.paths import Paths
from analysis.core.textsafe import FORMULA_START, NUMBER_RE
from analysis.report.quarto import find_quarto
from analysis.report.site import RENDER_INCLUDES, render
from analysis.report.variables import lookup, referenced_vars
from tests.support.browser import Browser, find_chromium, serve
from tests.support.docs import doc_block
from tests.support.explorer import (
    dump_rows,
    independent_count,
    links_showing_nothing,
    node,
    site_explorer_links,
    views,
)
from tests.support.sites import (
    CANARY,
    CANARY_ENV,
    EVIL_BY_PAGE,
    EVIL_PROJECT,
    PASSWD_MARK,
    PAYLOADS,
    STAGES,
)

pytestmark = pytest.mark.slow
ROOT = PROJECT_ROOT
# where the browser tests put their screenshots; none are taken when it is not set
ARTIFACTS = (Path(os.environ["TEST_ARTIFACTS"]) / "site"
             if os.environ.get("TEST_ARTIFACTS") else None)
RENDERERS = ("preview", "quarto")
# what any payload of the hostile dump carries; none may reach the generated variables
DATA_MARKERS = ("alert(", "onerror", "onload", "javascript", "<script", "{{<", "$$", "$m$",
                "HYPERLINK", "passwd", "\u202e", CANARY_ENV, "evil", "calc", "```")
SHORTCODE_RE = re.compile(r"\{\{<.*?>\}\}")
# Tables (and preformatted blocks) wider than their box: they scroll or are cut off. (A
# notebook's output, a data frame as the notebook printed it, scrolls in its own box under
# the scroll-sideways line.)
SCROLLING_TABLES = """[...document.querySelectorAll('.table-wrap, pre.params')]
    .filter(e => !e.closest('.nb-output') && e.scrollWidth > e.clientWidth + 1)
    .map(e => (e.querySelector('th') || e).textContent.slice(0, 40))"""
# Tables wider than their box on the page as a reader sees it (every folded section
# open): the first header of each that has no visible "scroll sideways" line just above
# its box. The issue explorer lays out its own rows.
TABLES_WITHOUT_CUE = """[...document.querySelectorAll('main table')]
    .filter(t => t.offsetParent && !t.closest('.issue-explorer')
                 && !(t.parentElement && t.parentElement.closest('table')))
    .filter(t => { const w = t.getBoundingClientRect().width;
        for (let e = t.parentElement; e && e !== document.body; e = e.parentElement)
            if (e.clientWidth + 1 < w) return true;
        return false; })
    .filter(t => { const box = t.closest('.table-wrap');
        const cue = box && box.previousElementSibling;
        return !(cue && cue.classList.contains('scroll-cue') && cue.offsetHeight > 0); })
    .map(t => (t.querySelector('th') || t).textContent.slice(0, 40))"""
# Words of the page's text (letters, underscores, apostrophes: "Requirement",
# "duplicate_url") that a line break cuts in two; hashes, addresses and code blocks may
# break anywhere and are left out, as is text only screen readers read (a 1 px box).
WORDS_BROKEN = r"""(() => {
  const out = [];
  const walker = document.createTreeWalker(document.querySelector('main') || document.body,
                                           NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || !p.offsetParent || p.getBoundingClientRect().width < 2
        || p.closest('pre, .hash, a.url, script, style, .screen-reader-only, .visually-hidden'))
      continue;  // hidden for screen readers only (Quarto's callouts say "Note") or cut
    const re = /[A-Za-z][A-Za-z_'’]{1,23}[A-Za-z]/g;
    for (let m = re.exec(n.data); m; m = re.exec(n.data)) {
      const r = document.createRange();
      r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const lines = new Set([...r.getClientRects()].filter(x => x.width > 0)
                            .map(x => Math.round(x.top)));
      if (lines.size > 1) out.push(m[0]);
    }
  }
  return out; })()"""
OPEN_ALL = """new Promise(done => {
    document.querySelectorAll('details').forEach(d => d.open = true);
    document.querySelectorAll('.callout-collapse, .collapse').forEach(
        d => d.classList.add('show'));
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50))); })"""
# The one event handler of the site's own markup: Quarto's navbar toggle button.
OWN_HANDLERS = {"button.navbar-toggler onclick"}


def validate_package(path: Path) -> dict:
    """``frictionless validate --json`` of a data package: its report."""
    exe = shutil.which("frictionless", path=str(Path(sys.executable).parent))
    run = subprocess.run([exe or "frictionless", "validate", "--json", path.name],
                         cwd=path.parent, capture_output=True, text=True, timeout=1800)
    assert run.stdout, run.stderr[-2000:]
    return json.loads(run.stdout)


def report_errors(report: dict) -> list[str]:
    """The first errors of a frictionless report, one line each."""
    return [f"{t.get('name') or t['resource'].get('name')}: {e.get('message')}"
            for t in report.get("tasks", []) for e in t.get("errors", [])[:5]]


@pytest.fixture(scope="module", params=RENDERERS)
def site(request, rendered_site) -> Paths:
    """The hostile project (conftest.py's ``site_project``) rendered in a copy, once a
    session for each renderer (conftest.py's ``rendered_site``); the tests only read it."""
    if request.param == "quarto" and find_quarto() is None:
        pytest.skip("Quarto not found (CI has none; ../shared/tools/quarto/ assembles one): "
                    "the preview tests cover the same pages")
    return Paths(rendered_site(request.param))


def pages(layout: Paths) -> list[Path]:
    return sorted(p for p in layout.site.rglob("*.html") if "site_libs" not in p.parts)


def site_texts(layout: Paths):
    for path in sorted(layout.site.rglob("*")):
        if path.suffix in (".html", ".json", ".js", ".csv", ".css", ".svg", ".ipynb"):
            yield path, path.read_text(encoding="utf-8", errors="replace")


def test_every_variable_and_include_a_page_uses_exists(site):
    variables = yaml.safe_load(site.variables_yml.read_text())
    variables["build"] = {"commit_short": "x", "renderer": "x"}  # added when rendering
    sources = [*site.site_src.glob("*.qmd"), site.quarto_yml]
    assert len(sources) >= 7
    for source in sources:
        text = source.read_text()
        for key in referenced_vars(text):
            lookup(variables, key)  # KeyError names the missing variable
        for inc in re.findall(r"\{\{<\s*include\s+(\S+)\s*>\}\}", text):
            if inc.removeprefix("_generated/") in RENDER_INCLUDES:
                continue  # written when the site is rendered
            assert (site.site_src / inc).is_file(), f"{source.name}: {inc}"


def data_text_in(text: str) -> list[str]:
    """The markers of the dump's payloads found in ``text``."""
    return [m for m in DATA_MARKERS if m.lower() in text.lower()]


def test_variables_carry_no_data_text(site):
    """Data never reaches a `var` value: the generated variables hold numbers and text
    from fixed templates, none of the payloads the dump carries in every field."""
    found = data_text_in(site.variables_yml.read_text(encoding="utf-8"))
    assert not found, f"_variables.yml holds data text: {found}"


def test_data_scan_finds_every_payload():
    for payload in PAYLOADS:
        assert data_text_in(payload), payload


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()
        self.handlers: list[str] = []
        self.scripts: list[tuple[str | None, str]] = []
        self._in_script: str | None = None
        self._script_src: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append(a[key])
        self.handlers += [f"{tag}.{a.get('class') or ''} {k}" for k in a
                          if k.lower().startswith("on")]
        if tag == "script":
            self._in_script, self._script_src = "", a.get("src")

    def handle_data(self, data):
        if self._in_script is not None:
            self._in_script += data

    def handle_endtag(self, tag):
        if tag == "script" and self._in_script is not None:
            self.scripts.append((self._script_src, self._in_script))
            self._in_script = None


def parse(path: Path) -> _Refs:
    p = _Refs()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_no_broken_internal_link_image_or_anchor(site):
    all_pages = pages(site)
    assert {p.relative_to(site.site).as_posix() for p in all_pages} >= {
        "index.html", "data.html", "table1.html", "taxonomy.html", "agreement.html",
        "interviews.html", "keywords.html", "findings.html", "changes.html",
        "reproducibility.html", "notebooks.html",
        *(f"notebooks/{stem}.html" for stem in STAGES),
        *(f"docs/{page.stem}.html" for page in (ROOT / "docs").glob("*.md"))}
    checked = 0
    for page in all_pages:
        for ref in parse(page).refs:
            if re.match(r"^[a-z][\w+.-]*:", ref):  # http:, data:, mailto:
                assert not ref.startswith(("http:", "https:")) or re.match(
                    r"https://(github\.com|arxiv\.org|gitee\.com|(www|data)\.gharchive\.org"
                    r"|labelstud\.io|archive\.softwareheritage\.org)(/|$)",
                    ref), ref  # the paper, the data and its archived copy, GH Archive hours
                # and the annotation tool
                continue
            path, _, anchor = ref.partition("#")
            path = path.partition("?")[0]
            target = (page.parent / unquote(path)).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            assert target.is_file(), f"{page.name}: broken link {ref}"
            if anchor and target.suffix == ".html":
                assert anchor in parse(target).ids, f"{page.name}: no #{anchor} in {path}"
            checked += 1
    assert checked > 50


def test_every_docs_page_is_linked_from_the_site(site):
    """The Overview links the docs index, which links every other page of docs/; the
    shortcodes the pages quote stay text."""
    assert {"docs/index.html", "./docs/index.html"} & set(parse(site.site / "index.html").refs)
    linked = {ref.partition("#")[0] for ref in parse(site.site / "docs" / "index.html").refs}
    for page in (ROOT / "docs").glob("*.md"):
        assert page.name == "index.md" or f"{page.stem}.html" in linked, page.name
    adding = unescape((site.site / "docs" / "adding-a-stage.html").read_text("utf-8"))
    assert "{{< var <stage>.<key> >}}" in adding


def test_every_figure_is_numbered_with_caption_and_alt_text(site):
    figures = 0
    for page in pages(site):
        html = page.read_text(encoding="utf-8")
        for block in re.findall(r"<figure\b.*?</figure>", html, flags=re.S):
            if "figure-img" not in block:
                continue
            figures += 1
            # numbered by the renderer, or (a figure of the paper) by the paper: Fig. 2
            assert re.search(r"<figcaption[^>]*>\s*(Figure(&nbsp;|\s)\d+|Fig\. \d+):",
                             block), (page.name, block[:300])
            alt = re.search(r'<img [^>]*alt="([^"]+)"', block)
            assert alt and alt.group(1).strip(), (page.name, block[:300])
    assert figures >= 16
    # the rebuilt taxonomy is the paper's Fig. 2, as the page's title says
    assert re.search(r'id="fig-taxonomy-tree"[^>]*>\s*<figure[^>]*>.*?<figcaption>Fig\. 2: ',
                     (site.site / "taxonomy.html").read_text(encoding="utf-8"), flags=re.S)


def docs_source(site: Paths, page: Path) -> str:
    """The Markdown of a page of docs/ (whose text quotes Quarto's syntax as code), or ""
    for any other page."""
    if page.parent != site.site / "docs":
        return ""
    return " ".join((ROOT / "docs" / f"{page.stem}.md").read_text(encoding="utf-8").split())


def test_no_quarto_syntax_survives(site):
    """No attribute block, figure syntax or shortcode of the pages is left as text; the
    only shortcode-like strings are the dump's own payloads and what the pages of docs/
    quote as code, shown as text."""
    for page in pages(site):
        html = page.read_text(encoding="utf-8")
        quoted = docs_source(site, page)
        for syntax in ("{#fig-", "fig-alt="):
            assert syntax not in html or syntax in quoted, page.name
        # text as shown: <wbr> (a place a long path may wrap) is no character of it
        shown = html.replace("<wbr>", "").replace("&lt;", "<").replace("&gt;", ">")
        for found in SHORTCODE_RE.findall(shown):
            quoted_here = bool(quoted) and " ".join(found.split()) in quoted
            assert quoted_here or any(found in p or p in found for p in PAYLOADS), (
                page.name, found)


def test_nothing_from_the_data_runs(site):
    """No element of any page carries an event handler, a javascript: link or a script
    that is not the site's own."""
    own = re.compile(r"(site_libs/|assets/|build-info\.js$|^_generated/explorer/issues\.js$)")
    for page in pages(site):
        refs = parse(page)
        assert set(refs.handlers) <= OWN_HANDLERS, (page.name, refs.handlers)
        assert not [r for r in refs.refs if r.strip().lower().startswith("javascript:")]
        for src, body in refs.scripts:
            assert src is None or own.search(src), (page.name, src)
            assert "alert(" not in body, (page.name, body[:200])


def test_no_canary_local_file_or_local_path_reaches_the_site(site):
    """An `env` shortcode in the data would print the canary; an `include` the machine's
    /etc/passwd; no page, search index or notebook names a folder of this machine."""
    root = str(site.root)
    for path, text in site_texts(site):
        assert CANARY not in text, path
        assert PASSWD_MARK not in text, path
        assert root not in text, path
        assert "site-packages" not in text and "/tmp/ipykernel" not in text, path


def test_hostile_input_reaches_its_page_as_text(site):
    """Each payload is on the page that shows it, as escaped text (braces as entities, a
    right-to-left override as a visible marker)."""
    for page, texts in EVIL_BY_PAGE.items():
        html = (site.site / page).read_text()
        plain = re.sub(r"<[^>]+>", "", html)
        plain = (plain.replace("&#123;", "{").replace("&#125;", "}").replace("&lt;", "<")
                 .replace("&gt;", ">").replace("&quot;", '"').replace("&#x27;", "'")
                 .replace("&#39;", "'").replace("&amp;", "&"))
        for text in texts:
            assert text.replace("\u202e", "⟨U+202E⟩") in plain, (page, text)


def test_downloads_cannot_run_in_a_spreadsheet(site):
    csvs = sorted((site.site / "downloads").rglob("*.csv"))
    assert {p.relative_to(site.site / "downloads").as_posix() for p in csvs} >= {
        "data/issues.csv", "data/rejected.csv", "scorecard.csv", "tables/table1/counts.csv"}
    payload_cells = 0
    for path in csvs:
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.reader(f):
                for cell in row:
                    assert not cell.startswith(FORMULA_START) or NUMBER_RE.fullmatch(cell), \
                        (path.name, cell)
                    payload_cells += cell.startswith("'=HYPERLINK")
    assert payload_cells  # the formula label is there, neutralised
    raw = site.clean.processed_file("issues.csv").read_text(encoding="utf-8")
    assert '=HYPERLINK(""https://evil.example""' in raw  # the untouched data keep it


def test_scorecard_and_downloads_are_in_the_site(site):
    repro = (site.site / "reproducibility.html").read_text()
    assert 'id="scorecard-exact"' in repro and "scorecard-table-" in repro
    assert 'href="downloads/scorecard.csv"' in repro
    index = (site.site / "index.html").read_text()
    assert 'href="https://arxiv.org/abs/2506.13114"' in index
    assert "https://github.com/Anony-coding/LLMChallengeEmpirical" in index
    for name in ("data/issues.csv", "data/rejected.csv", "data/quality.json", "scorecard.csv"):
        assert (site.site / "downloads" / name).is_file()
    assert (site.site / "figures" / "table1" / "counts.svg").is_file()
    for stem in STAGES:
        assert (site.site / "notebooks" / f"{stem}.ipynb").is_file()
        nb_page = (site.site / "notebooks" / f"{stem}.html").read_text()
        assert f'href="{stem}.ipynb"' in nb_page


def test_the_downloads_data_package_validates(site):
    """``downloads/datapackage.json``: every download is a resource, and ``frictionless
    validate`` accepts the package (types, constraints, sizes and hashes)."""
    downloads = site.site / "downloads"
    package = json.loads((downloads / "datapackage.json").read_text(encoding="utf-8"))
    files = {p.relative_to(downloads).as_posix() for p in downloads.rglob("*")
             if p.is_file() and p.name != "datapackage.json"}
    assert {r["path"] for r in package["resources"]} == files
    for r in package["resources"]:
        if r["path"].endswith(".csv"):
            assert r["schema"]["fields"] and all(f["description"] for f in
                                                 r["schema"]["fields"]), r["path"]
    report = validate_package(downloads / "datapackage.json")
    assert report["valid"], report_errors(report)
    data = (site.site / "data.html").read_text(encoding="utf-8")
    assert 'href="downloads/datapackage.json"' in data
    assert "a table of the" not in data  # each table described by its schema


def test_no_placeholder_link_and_years_print_as_years(site):
    index = (site.site / "index.html").read_text(encoding="utf-8")
    assert "REPLACE-ME" not in index and "This package: not published yet" in index
    with (site.site / "downloads" / "scorecard.csv").open(encoding="utf-8") as fh:
        rows = {r["claim_id"]: r for r in csv.DictReader(fh)}
    years = [rows[k]["reproduced_value"] for k in ("collection.window.first_year",
                                                   "collection.window.last_year")]
    assert all(re.fullmatch(r"(19|20)\d\d", y) for y in years), years


def test_site_files_are_readable_by_everyone(site):
    for path in site.site.rglob("*"):
        assert path.stat().st_mode & 0o004, path


def test_two_renders_are_byte_identical(site, tmp_path):
    """The same outputs render to the same bytes (search index and run record included)."""
    renderer = "quarto" if site.site.joinpath("site_libs").is_dir() else "preview"
    first, again = site.site, Paths(tmp_path / "project")  # the shared render, and a copy
    shutil.copytree(site.root, again.root)
    render(again, renderer=renderer, log=lambda _: None, full=True)
    cmp = filecmp.dircmp(first, again.site)
    diffs: list[str] = []

    def walk(c: filecmp.dircmp, prefix: str = "") -> None:
        diffs.extend(prefix + n for n in c.left_only + c.right_only + c.diff_files)
        for name, sub in c.subdirs.items():
            walk(sub, f"{prefix}{name}/")
    walk(cmp)
    # The run record of the build (build.json, build-info.js) holds run times, the render's
    # own among them, which differ between two renders: documented as the only files that
    # do (docs/website.md). Everything else, search index and sources.json included, is the
    # same bytes.
    assert sorted(set(diffs) - {"build.json", "build-info.js"}) == []
    # ... and in its times alone: the commit, the renderer and the machine are the same
    records = [json.loads((folder / "build.json").read_text(encoding="utf-8"))
               for folder in (first, again.site)]
    untimed = [{k: v for k, v in r.items() if k in ("commit", "dirty", "renderer", "machine")}
               for r in records]
    assert untimed[0] == untimed[1] and len(untimed[0]) == 4


def site_differences(one: Path, other: Path) -> list[str]:
    """Files that differ between two sites, apart from the run record (times)."""
    diffs: list[str] = []

    def walk(c: filecmp.dircmp, prefix: str = "") -> None:
        diffs.extend(prefix + n for n in c.left_only + c.right_only + c.diff_files)
        for name, sub in c.subdirs.items():
            walk(sub, f"{prefix}{name}/")
    walk(filecmp.dircmp(one, other))
    return sorted(set(diffs) - {"build.json", "build-info.js"})


def test_rendering_the_changed_pages_gives_the_whole_render(site, tmp_path):
    """After a change to two pages (a heading renamed: a section of the search index goes,
    an include changed), only they are rendered, and the site is the bytes of a whole
    render of the same sources (Quarto's search index included)."""
    renderer = "quarto" if site.site.joinpath("site_libs").is_dir() else "preview"
    work = Paths(tmp_path / "project")
    shutil.copytree(site.root, work.root)
    before = tmp_path / "before"
    shutil.copytree(work.site, before)
    page = work.site_src / "table1.qmd"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "## Notes on reading Table I", "## How to read Table I"), encoding="utf-8")
    include = work.generated / "table1_compare.md"
    assert "table1_compare.md" in (work.site_src / "table1.qmd").read_text(encoding="utf-8")
    agreement = work.site_src / "agreement.qmd"
    agreement.write_text(agreement.read_text(encoding="utf-8") + "\n## An added section\n\n"
                         "Added text.\n", encoding="utf-8")
    include.write_text(include.read_text(encoding="utf-8") + "\nOne more line.\n",
                       encoding="utf-8")
    said: list[str] = []
    render(work, renderer=renderer, log=said.append)
    assert said[-1].startswith("report: 2 pages rendered by ")
    assert "had not changed" in said[-1]
    some = tmp_path / "some"
    shutil.copytree(work.site, some)
    assert site_differences(before, some)  # the change is on the site
    command = doc_block("website/render-full").text.strip().replace(
        ".venv/bin/python", sys.executable)  # render every page, as docs/website.md says
    done = subprocess.run(f"{command} --renderer {renderer} --root {work.root}", shell=True,
                          cwd=work.root, capture_output=True, text=True, check=True)
    assert "had not changed" not in done.stdout
    assert site_differences(some, work.site) == []


def test_a_changed_docs_page_is_rendered_again_alone(site, tmp_path):
    """A page of docs/ changed: its page alone is rendered again (its Markdown the only one
    converted), shows the change, and the site is the bytes of a whole render."""
    renderer = "quarto" if site.site.joinpath("site_libs").is_dir() else "preview"
    work = Paths(tmp_path / "project")
    shutil.copytree(site.root, work.root)
    doc = work.docs / "data.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\nA sentence added to this page.\n",
                   encoding="utf-8")
    said: list[str] = []
    render(work, renderer=renderer, log=said.append)
    assert said[-1].startswith("report: 1 page rendered by ")
    page = (work.site / "docs" / "data.html").read_text(encoding="utf-8")
    assert "A sentence added to this page." in page
    some = tmp_path / "some"
    shutil.copytree(work.site, some)
    render(work, renderer=renderer, log=said.append, full=True)
    assert "had not changed" not in said[-1]
    assert site_differences(some, work.site) == []


@pytest.mark.skipif(node() is None, reason="node not installed")
def test_every_explorer_link_shows_issues_counted_from_the_data(site, tmp_path):
    """Every link of the site to a view of the explorer (the explorer page's example
    too) shows at least one issue, or the number it prints, counted from the explorer's
    data by the page's own filters (under node)."""
    assert len(site_explorer_links(site.site)) > 20
    assert links_showing_nothing(site.site, site.explorer.table("explorer.json"),
                                 tmp_path) == []


@pytest.mark.skipif(find_chromium() is None,
                    reason="chromium not installed (Debian package `chromium`; .ci/run "
                           "installs it)")
@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_in_a_browser(site, width):
    renderer = "quarto" if site.site.joinpath("site_libs").is_dir() else "preview"
    with serve(site.site) as base, Browser(find_chromium(), width=width) as browser:
        for page in pages(site):
            rel = page.relative_to(site.site).as_posix()
            facts = browser.open(base + rel)
            if ARTIFACTS:
                browser.screenshot(ARTIFACTS / renderer
                                   / f"{rel.replace('/', '_')[:-5]}_{width}.png")
            assert facts["problems"] == [], f"{rel}: {facts['problems']}"
            assert facts["navbar"], rel
            external = [u for u in facts["requests"]
                        if not u.startswith((base, "data:", "about:"))]
            assert external == [], f"{rel} fetched {external}"
            assert set(facts["handlers"]) <= OWN_HANDLERS and not facts["jsLinks"], rel
            for img in facts["imgs"]:
                assert img["complete"] and img["w"] > 0 and img["h"] > 0, f"{rel}: {img}"
                assert img["alt"], f"{rel}: image without alt text {img['src']}"
            for fig in facts["figures"]:
                assert fig["w"] > 0 and fig["h"] > 0, f"{rel}: empty figure"
            assert browser.evaluate("document.documentElement.scrollWidth") <= width, \
                f"{rel} scrolls sideways at {width} px"
            if width == 1280:
                assert facts["brandCut"] is False, f"{rel}: the site title is cut"
                assert facts["navHeight"] < 80, f"{rel}: the navbar wraps"
                # no table is cut off or scrolls inside its box at 1280 px
                assert browser.evaluate(SCROLLING_TABLES) == [], rel
                if rel == "reproducibility.html":  # its lists folded behind their counts
                    assert facts["height"] < 9000, facts["height"]
                # no word is broken inside ("Questio n", "duplicat e_url")
                browser.evaluate(OPEN_ALL)
                assert browser.evaluate(WORDS_BROKEN) == [], rel
            else:  # a phone: every hash is one short line until opened
                assert browser.evaluate("""[...document.querySelectorAll(
                    'details.hash > summary')].every(s => s.offsetHeight < 40)"""), rel
                # every table wider than the phone says it scrolls sideways, folded or not
                assert browser.evaluate(TABLES_WITHOUT_CUE) == [], rel
                browser.evaluate(OPEN_ALL)
                assert browser.evaluate(TABLES_WITHOUT_CUE) == [], rel
            if rel in EVIL_BY_PAGE:  # hostile text is there, shown as text
                shown = browser.evaluate("""(() => {
                    document.querySelectorAll('details').forEach(d => d.open = true);
                    document.querySelectorAll('.callout-collapse, .collapse').forEach(
                        d => d.classList.add('show'));
                    return document.body.innerText; })()""")
                for text in EVIL_BY_PAGE[rel]:
                    assert text.replace("\u202e", "⟨U+202E⟩") in shown, (rel, text)
        # sorting works: click a header of a sortable table
        browser.open(base + "data.html")
        order = browser.evaluate("""(() => {
            const t = document.querySelector('table.anomalies');
            const th = t.tHead.rows[0].cells[1];
            th.click(); const up = [...t.tBodies[0].rows].map(r => r.cells[1].textContent);
            th.click(); const down = [...t.tBodies[0].rows].map(r => r.cells[1].textContent);
            return {up, down};
        })()""")
        nums = [int(x.replace(",", "")) for x in order["up"]]
        assert nums == sorted(nums) and order["down"] == order["up"][::-1]
        # the run record fills the Reproducibility page
        browser.open(base + "reproducibility.html")
        assert "took" in browser.evaluate("document.getElementById('build-info').innerText")
    if ARTIFACTS:
        shots = ARTIFACTS / renderer
        shot_names = {f"{p.relative_to(site.site).as_posix().replace('/', '_')[:-5]}"
                      f"_{width}.png" for p in pages(site)}
        assert shot_names <= {p.name for p in shots.glob(f"*_{width}.png")}


@pytest.mark.skipif(find_chromium() is None,
                    reason="chromium not installed (Debian package `chromium`)")
@pytest.mark.parametrize("width", [1280, 390])
def test_the_issue_explorer_in_a_browser(site, width):
    """issues.html with a query in its address shows in #issue-count what an independent
    count of the dump's files gives, for each filter alone and combined; rows link to
    their issues; the address follows the filters; nothing is fetched from elsewhere."""
    renderer = "quarto" if site.site.joinpath("site_libs").is_dir() else "preview"
    rows = dump_rows(site.raw)
    queries = views(rows)
    queries = queries if width == 1280 else queries[:1] + queries[-3:]
    count = "document.getElementById('issue-count').textContent.replace(/,/g, '')"
    with serve(site.site) as base, Browser(find_chromium(), width=width) as browser:
        for query in queries:
            facts = browser.open(base + "issues.html" + query)
            assert facts["problems"] == [], (query, facts["problems"])
            external = [u for u in facts["requests"]
                        if not u.startswith((base, "data:", "about:"))]
            assert external == [], f"issues.html{query} fetched {external}"
            assert int(browser.evaluate(count)) == independent_count(rows, query), query
            assert browser.evaluate("document.documentElement.scrollWidth") <= width, query
        browser.open(base + "issues.html?project=vllm&agreement=contested&sort=-year")
        if ARTIFACTS:
            browser.screenshot(ARTIFACTS / renderer / f"issues_filtered_{width}.png")
        links = browser.evaluate("""[...document.querySelectorAll('#issue-explorer tbody a')]
            .map(a => a.getAttribute('href'))""")
        assert links and all(u.startswith("https://github.com/vllm-project/vllm/issues/")
                              for u in links)
        years = browser.evaluate("""[...document.querySelectorAll(
            '#issue-explorer tbody td[data-label=year]')].map(td => td.textContent)""")
        assert years == sorted(years, reverse=True)
        # the address follows the filters: choose a year in the form
        search = browser.evaluate("""(() => {
            const s = document.querySelector('#issue-explorer select[name=year]');
            s.value = s.options[1].value; s.dispatchEvent(new Event('change'));
            return location.search; })()""")
        assert search.startswith("?project=vllm&year=") and "agreement=contested" in search
        # every sort control is a button (reachable with the keyboard)
        assert browser.evaluate(
            "document.querySelectorAll('#issue-explorer th[data-sort] > button').length") == 6
        # a project named with markup is filtered and shown as text
        browser.open(base + "issues.html" + "?" + urlencode({"project": EVIL_PROJECT}))
        assert int(browser.evaluate(count)) == independent_count(
            rows, "?" + urlencode({"project": EVIL_PROJECT})) > 0
        assert EVIL_PROJECT in browser.evaluate(
            "document.querySelector('#issue-explorer tbody').innerText")
