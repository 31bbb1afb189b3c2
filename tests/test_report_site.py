"""The website built from a synthetic, hostile dump, as the ``report`` stage builds it.

The project is made by :mod:`sites` (every stage on a synthetic dump with an HTML tag as a
project name and ``<script>`` elements in an issue URL, a detail item, an interview quote,
the guideline and a keyword); then the checks a reader's browser would make: every
variable and include a page uses exists, no internal link or image is broken, hostile
text shows as text on the page that shows it, and (with Chromium) every page opens
without a console error, with its figures drawn and the scorecard table present.
Screenshots go to ``test-artifacts/site/`` (or ``$TEST_ARTIFACTS/site/``).
"""

from __future__ import annotations

import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from browser import Browser, find_chromium
from sites import EVIL_BY_PAGE, STAGES, build_project

from analysis.report import build
from analysis.report.layout import Layout
from analysis.report.variables import lookup, referenced_vars

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS", ROOT / "test-artifacts")) / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Layout:
    root = build_project(tmp_path_factory.mktemp("site") / "project")
    messages = []
    label = build(Layout(root), renderer="preview", log=messages.append)
    assert label.startswith("pandoc preview") and "pages rendered" in messages[0]
    return Layout(root)


def pages(layout: Layout) -> list[Path]:
    return sorted(layout.site.rglob("*.html"))


def test_every_variable_and_include_a_page_uses_exists(site):
    variables = yaml.safe_load(site.variables_yml.read_text())
    sources = [*site.site_src.glob("*.qmd"), site.quarto_yml]
    assert len(sources) >= 7
    for source in sources:
        text = source.read_text()
        for key in referenced_vars(text):
            lookup(variables, key)  # KeyError names the missing variable
        for inc in re.findall(r"\{\{<\s*include\s+(\S+)\s*>\}\}", text):
            assert (site.site_src / inc).is_file(), f"{source.name}: {inc}"


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append(a[key])


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
        *(f"notebooks/{stem}.html" for stem in STAGES)}
    checked = 0
    for page in all_pages:
        for ref in parse(page).refs:
            if re.match(r"^[a-z][\w+.-]*:", ref):  # http:, data:, mailto:
                assert not ref.startswith(("http:", "https:")) or "github.com" in ref, ref
                continue
            path, _, anchor = ref.partition("#")
            target = (page.parent / unquote(path)).resolve() if path else page
            assert target.is_file(), f"{page.name}: broken link {ref}"
            if anchor and target.suffix == ".html":
                assert anchor in parse(target).ids, f"{page.name}: no #{anchor} in {path}"
            checked += 1
    assert checked > 50


def test_hostile_text_is_shown_as_text(site):
    for page in pages(site):
        html = page.read_text()
        assert "<script>alert" not in html, page
        assert "<img src=x" not in html, page
        assert "<b onmouseover" not in html and "javascript:" not in html, page
    data = (site.site / "data.html").read_text()
    assert "77&lt;script&gt;alert(2)&lt;/script&gt; is on 2 rows" in data
    table1 = (site.site / "table1.html").read_text()
    assert "&lt;img src=x onerror=alert(1)&gt;" in table1
    index = (site.site / "index.html").read_text()
    assert "&lt;img src=x onerror=alert(1)&gt; alone contributes" in index


@pytest.mark.parametrize("page", sorted(EVIL_BY_PAGE))
def test_hostile_input_reaches_its_page_escaped(site, page):
    """Each kind of hostile input (URL, project, detail item, quote, insight, guideline,
    keyword) is on the page that shows it, as escaped text; data never forms a shortcode."""
    html = (site.site / page).read_text()
    for text in EVIL_BY_PAGE[page]:
        escaped = (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                   .replace("{", "&#123;").replace("}", "&#125;"))
        assert escaped in html, (page, text)
    assert (site.generated / "taxonomy" / "details.md").read_text().startswith("````{=html}")


def test_scorecard_and_downloads_are_in_the_site(site):
    repro = (site.site / "reproducibility.html").read_text()
    assert 'id="scorecard-exact"' in repro and "scorecard-table-" in repro
    for name in ("issues.csv", "rejected.csv", "quality.json"):
        assert (site.site / "downloads" / name).is_file()
    assert (site.site / "figures" / "table1.svg").is_file()


def test_quarto_renders_when_it_is_on_path(site, tmp_path, monkeypatch):
    """With `quarto` on PATH the stage runs `quarto render report` (here a stand-in)."""
    root = tmp_path / "copy"
    shutil.copytree(site.root, root, ignore=shutil.ignore_patterns("_site"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "quarto"
    fake.write_text('#!/bin/sh\n'
                    'if [ "$1" = "--version" ]; then echo 9.9.9; exit 0; fi\n'
                    'echo "$@" > "$2/../quarto-args.txt"\n'
                    'mkdir -p "$2/_site" && echo "<html></html>" > "$2/_site/index.html"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    messages = []
    label = build(Layout(root), log=messages.append)
    assert label == "Quarto 9.9.9" and "by Quarto 9.9.9" in messages[0]
    assert (root / "quarto-args.txt").read_text().split() == ["render", str(root / "report")]
    assert "renderer: Quarto 9.9.9" in (root / "report" / "_variables.yml").read_text()
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert build(Layout(root), renderer="preview", log=messages.append).startswith("pandoc")


@pytest.mark.skipif(find_chromium() is None,
                    reason="chromium not installed (Debian package `chromium`; .ci/run "
                           "installs it)")
def test_every_page_in_a_browser(site):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with Browser(find_chromium()) as browser:
        for page in pages(site):
            rel = page.relative_to(site.site).as_posix()
            facts = browser.open(page.as_uri())
            browser.screenshot(ARTIFACTS / rel.replace("/", "_").replace(".html", ".png"))
            assert facts["problems"] == [], f"{rel}: {facts['problems']}"
            assert facts["navbar"], rel
            external = [u for u in facts["requests"] if not u.startswith(("file:", "data:"))]
            assert external == [], f"{rel} fetched {external}"
            for img in facts["imgs"]:
                assert img["complete"] and img["w"] > 0 and img["h"] > 0, f"{rel}: {img}"
                assert img["shownW"] > 0 and img["shownH"] > 0, f"{rel}: {img}"
                assert img["alt"], f"{rel}: image without alt text {img['src']}"
            for fig in facts["figures"]:
                assert fig["w"] > 0 and fig["h"] > 0, f"{rel}: empty figure"
            for img in facts["imgs"]:  # figures scale with the text column, never wider
                assert img["shownW"] <= browser.width, f"{rel}: {img}"
            assert browser.evaluate("document.documentElement.scrollWidth") <= browser.width, \
                f"{rel} scrolls sideways"
            if rel == "reproducibility.html":
                assert any(t["id"].startswith("scorecard-table-") for t in facts["tables"])
            if rel in EVIL_BY_PAGE:  # hostile text is there, shown as text
                shown = browser.evaluate("""(() => {
                    document.querySelectorAll('details').forEach(d => d.open = true);
                    return document.body.innerText; })()""")
                for text in EVIL_BY_PAGE[rel]:
                    assert text in shown, (rel, text)
                browser.screenshot(ARTIFACTS / rel.replace(".html", "_open.png"))
        # sorting works: click a header of a sortable table
        browser.open((site.site / "data.html").as_uri())
        order = browser.evaluate("""(() => {
            const t = document.querySelector('table.anomalies');
            const th = t.tHead.rows[0].cells[1];
            th.click(); const up = [...t.tBodies[0].rows].map(r => r.cells[1].textContent);
            th.click(); const down = [...t.tBodies[0].rows].map(r => r.cells[1].textContent);
            return {up, down};
        })()""")
        nums = [int(x.replace(",", "")) for x in order["up"]]
        assert nums == sorted(nums) and order["down"] == order["up"][::-1]
    assert len(list(ARTIFACTS.glob("*.png"))) >= 19
