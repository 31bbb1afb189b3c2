"""The website as a reader meets it, under both renderers (the pandoc preview always, real
Quarto when it can be found: Quarto's own scripts run on its pages, so the explorer's
filters are checked where Quarto's search could take them), in headless Chromium:

- every link into the issue explorer opens a view whose count is the one printed beside
  the link (its text, or ``data-count`` when the text is a theme or a word);
- the text filter works from ``text=`` and from the older ``q=`` (which Quarto's search
  deletes from the address), filters ignore case, the pager above the list and the one
  below it agree and a page step brings the list's start into view, and a view's address
  can be copied;
- at 390 px, no figure shows text smaller than 9 CSS pixels (the SVG's rendered width over
  its viewBox width, times its smallest glyph size);
- headings never skip a level, and a skip link leads to the content.

The site is conftest.py's hostile project rendered in a copy (as ``test_site.py`` does).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pytest

from analysis.core.paths import Paths
from analysis.report.quarto import find_quarto
from tests.e2e.test_site import RENDERERS, pages
from tests.support.browser import Browser, find_chromium, serve
from tests.support.explorer import dump_rows, independent_count

pytestmark = pytest.mark.skipif(find_chromium() is None,
                                reason="chromium not installed (Debian package `chromium`)")

MIN_TEXT_PX = 9
EXPLORER_LINKS = """[...document.querySelectorAll('a.explorer-link')].map(a => ({
    href: a.href, text: a.textContent.trim(),
    shows: a.getAttribute('data-count')}))"""
SHOWN = """(() => ({
    count: Number(document.getElementById('issue-count').textContent.replace(/,/g, '')),
    box: document.querySelector('#issue-explorer input[type=search]').value,
    pages: [...document.querySelectorAll('#issue-explorer .explorer-page')]
      .map(e => e.textContent),
    urls: [...document.querySelectorAll('#issue-explorer tbody td.issue a')]
      .map(a => a.getAttribute('href'))}))()"""
HEADINGS = """[...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
    .filter(h => !h.closest('[hidden]')).map(h => [Number(h.tagName[1]),
      h.textContent.trim().slice(0, 50)])"""
FIGURES = """[...document.querySelectorAll('img.figure-img')].map(i => ({
    src: i.getAttribute('src'), width: i.getBoundingClientRect().width}))"""
GLYPH_SCALE = re.compile(r"scale\(([0-9.]+) -\1\)")  # a glyph group of matplotlib's SVG
VIEWBOX = re.compile(r'viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) [0-9.]+"')


@pytest.fixture(scope="module", params=RENDERERS)
def site(request, rendered_site) -> Paths:
    if request.param == "quarto" and find_quarto() is None:
        pytest.skip("Quarto not found (CI has none; ../shared/tools/quarto/ assembles one): "
                    "the preview tests cover the same pages")
    return Paths(rendered_site(request.param))


def printed_count(link: dict) -> int | None:
    """The number of issues a link's page prints for it: its text when that is a number,
    else its ``data-count``; None when the page prints none (a word such as "in the
    explorer")."""
    text = link["text"].replace(",", "")
    if text.isdigit():
        return int(text)
    return int(link["shows"]) if link["shows"] else None


def test_every_explorer_link_opens_the_count_printed_beside_it(site):
    top = sorted(p.name for p in site.site.glob("*.html"))
    with serve(site.site) as base, Browser(find_chromium(), width=1280) as browser:
        links: dict[str, list[tuple[str, dict]]] = {}
        for name in top:
            browser.open(base + name)
            for link in browser.evaluate(EXPLORER_LINKS):
                links.setdefault(link["href"], []).append((name, link))
        assert {n for found in links.values() for n, _ in found} >= {
            "table1.html", "taxonomy.html", "agreement.html"}
        checked = 0
        for href, found in sorted(links.items()):
            facts = browser.open(href)  # absolute: as the browser resolved it
            assert facts["problems"] == [], (href, facts["problems"])
            shown = browser.evaluate(SHOWN)
            for page, link in found:
                want = printed_count(link)
                if want is None:
                    assert shown["count"] > 0, (page, href)
                else:
                    assert shown["count"] == want, (page, href, link["text"])
                    checked += 1
        assert checked > 20


def test_the_explorer_reads_its_filters_from_the_address(site):
    """``q`` (Quarto's search deletes it from the address on load) and ``text`` filter the
    same; ``?project=VLLM`` and ``?theme=c.1`` are vllm's and C.1's reports."""
    rows = dump_rows(site.raw)
    url = next(r["url"] for r in rows if r["project"] == "vllm")
    same = sum(r["url"] == url for r in rows)
    with serve(site.site) as base, Browser(find_chromium(), width=1280) as browser:
        for key in ("text", "q"):
            browser.open(f"{base}issues.html?{key}={quote(url, safe='')}")
            shown = browser.evaluate(SHOWN)
            assert shown["count"] == same and shown["box"] == url, key
            assert set(shown["urls"]) == {url}, key
        for query, spelled in (("?project=VLLM", "?project=vllm"), ("?theme=c.1", "?theme=C.1"),
                               ("?type=BUG&agreement=Contested",
                                "?type=bug&agreement=contested")):
            browser.open(base + "issues.html" + query)
            assert browser.evaluate(SHOWN)["count"] == independent_count(rows, spelled) > 0
            assert "not in the data" not in browser.evaluate(
                "document.querySelector('#issue-explorer form').innerText"), query
        # typing keeps the view in the address under the key Quarto leaves alone
        search = browser.evaluate("""new Promise(done => {
            const box = document.querySelector('#issue-explorer input[name=text]');
            box.value = 'vllm'; box.dispatchEvent(new Event('input'));
            setTimeout(() => done(location.search), 600); })""")
        assert "text=vllm" in search


def test_the_pager_and_the_copy_link_on_a_phone(site):
    with serve(site.site) as base, Browser(find_chromium(), width=390) as browser:
        browser.open(base + "issues.html")
        first = browser.evaluate(SHOWN)
        assert first["pages"] == ["page 1 of 2", "page 1 of 2"]  # above and below the list
        after = browser.evaluate("""(() => {
            const pagers = document.querySelectorAll('#issue-explorer .explorer-pager');
            const next = pagers[pagers.length - 1].querySelector("[data-step='1']");
            next.scrollIntoView(); const before = window.scrollY; next.click();
            const top = document.querySelector('#issue-explorer .explorer-status')
              .getBoundingClientRect().top;
            return {before, top, search: location.search}; })()""")
        assert after["before"] > 1000 and 0 <= after["top"] < 390, after
        assert after["search"] == "?page=2"
        assert browser.evaluate(SHOWN)["pages"] == ["page 2 of 2", "page 2 of 2"]
        said = browser.evaluate("""new Promise(done => {
            document.querySelector('#issue-explorer .explorer-copy').click();
            setTimeout(() => {
              const field = document.querySelector('#issue-explorer .explorer-link-field');
              done({said: document.querySelector('.explorer-copy-said').textContent,
                    field: field.hidden ? null : field.value, href: location.href}); }, 500);
            })""")
        assert said["said"] == "Link copied." or said["field"] == said["href"], said


def smallest_text(svg: Path) -> tuple[float, float]:
    """(viewBox width, smallest glyph size in viewBox units) of a matplotlib SVG."""
    text = svg.read_text(encoding="utf-8")
    sizes = [float(s) * 100 for s in GLYPH_SCALE.findall(text)]
    return float(VIEWBOX.search(text).group(1)), min(sizes)


def test_figure_text_is_readable_on_a_phone(site):
    measured = 0
    with serve(site.site) as base, Browser(find_chromium(), width=390) as browser:
        for page in pages(site):
            rel = page.relative_to(site.site)
            browser.open(base + rel.as_posix())
            for fig in browser.evaluate(FIGURES):
                if not fig["src"].endswith(".svg"):
                    continue
                box, smallest = smallest_text((site.site / rel).parent / fig["src"])
                px = fig["width"] / box * smallest
                assert px >= MIN_TEXT_PX - 0.01, (rel.as_posix(), fig["src"], round(px, 2))
                measured += 1
    assert measured >= 10


def test_headings_never_skip_a_level_and_a_skip_link_leads_to_the_content(site):
    with serve(site.site) as base, Browser(find_chromium(), width=1280) as browser:
        for page in pages(site):
            rel = page.relative_to(site.site).as_posix()
            browser.open(base + rel)
            levels = browser.evaluate(HEADINGS)
            skips = [(a, b) for a, b in zip(levels, levels[1:], strict=False)
                     if b[0] > a[0] + 1]
            assert skips == [], (rel, skips[:3])
            first = browser.evaluate(r"""(() => {
                const first = document.querySelector('a[href], button, input, select');
                // Quarto's script writes every link out in full, .../index.html as .../
                const page = u => u.origin + u.pathname.replace(/\/index\.html$/, '/');
                const url = first ? new URL(first.href) : null;
                const here = url && page(url) === page(location);
                const target = here && url.hash && document.getElementById(url.hash.slice(1));
                return {skip: !!first && first.classList.contains('skip-link'),
                        target: target ? target.tagName : null,
                        html: first ? first.outerHTML.slice(0, 120) : null}; })()""")
            assert first["skip"] and first["target"] == "MAIN", (rel, first)
