"""The pages of ``docs/`` as pages of the site, rendered by the package itself.

The documentation is written for GitHub (GitHub's Markdown, links between the ``.md``
files) and quotes Quarto's shortcodes and the commands' placeholders as code. Quarto would
expand those shortcodes wherever they stand, so neither renderer sees the Markdown: the
render step converts each page with pandoc's ``gfm`` reader (raw HTML shown as text; the
HTML comments that mark the pages' shell blocks for the tests are dropped) into one raw HTML
block with every brace an entity (:func:`~analysis.report.htmlsafe.raw_html_block`), and
adds a page stub ``docs/<name>.qmd`` that includes it, titled by the page's first heading.

Links are rewritten for the site (:func:`site_href`); one that has no page there becomes
its text, so the site has no dead link. The pages are read at render time, not by the
``report`` stage: they change no output of the pipeline, and the render's record of its
sources (:mod:`.sources`) lists them.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Collection
from pathlib import Path

from analysis.core.artifacts import sha256_file
from analysis.report.htmlsafe import check_template_text, raw_html_block
from analysis.report.markdown import to_html

FOLDER = "docs"  # in the repository and on the site
LUA_FILTER = Path(__file__).with_name("docs.lua")
H1_RE = re.compile(r"\A\s*#\s+(.+?)\s*#*\s*$", re.M)
COMMENT_RE = re.compile(r"^<!--.*?-->[ \t]*\n", re.M | re.S)
ANCHOR_RE = re.compile(r'<a href="([^"]*)"([^>]*)>(.*?)</a>', re.S)
REPORT_PAGE_RE = re.compile(r"\.\./report/([\w-]+)\.qmd$")


def doc_pages(folder: Path) -> list[Path]:
    """The pages of ``folder`` (``docs/``): its visible ``.md`` files, by name."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.md") if p.is_file() and not p.name.startswith("."))


def split_title(text: str, stem: str) -> tuple[str, str]:
    """A page's title (its first line's level-1 heading, else ``stem``) and the rest."""
    m = H1_RE.match(text)
    return (m.group(1), text[m.end():]) if m else (stem, text)


def site_href(target: str, pages: set[str]) -> str | None:
    """Where a link of a docs page goes on the site (the page is at ``docs/<name>.html``),
    or None when it has no page there: ``x.md#a`` -> ``x.html#a`` for a page ``x.md`` of
    ``pages``; ``../report/p.qmd#a`` -> ``../p.html#a``; ``https://`` and ``#a`` as they
    are."""
    target = html.unescape(target)
    if target.startswith(("https://", "#")):
        return target
    path, hash_, anchor = target.partition("#")
    if "/" not in path and path in pages:
        return f"{path.removesuffix('.md')}.html{hash_}{anchor}"
    m = REPORT_PAGE_RE.fullmatch(path)
    if m:
        return f"../{m.group(1)}.html{hash_}{anchor}"
    return None


def rewrite_links(body: str, pages: set[str]) -> str:
    """The links of ``body`` (pandoc's HTML) as :func:`site_href` says: rewritten, or
    replaced by their text."""
    def repl(m: re.Match) -> str:
        href = site_href(m.group(1), pages)
        if href is None:
            return m.group(3)
        return f'<a href="{html.escape(href, quote=True)}"{m.group(2)}>{m.group(3)}</a>'
    return ANCHOR_RE.sub(repl, body)


def gfm_to_html(text: str) -> str:
    """GitHub's Markdown as HTML (pandoc's ``gfm`` reader, GitHub's heading anchors), raw
    HTML shown as text (:data:`LUA_FILTER`)."""
    return to_html(text, "gfm", [
        "--wrap=none", "--syntax-highlighting=none", "--lua-filter", str(LUA_FILTER)])


def wrap_tables(body: str) -> str:
    """Each table of ``body`` styled as the site's tables and in a box that scrolls
    sideways on a narrow screen (the page itself never does)."""
    return (body.replace("<table>", '<div class="table-wrap"><table class="table">')
            .replace("</table>", "</table></div>"))


def doc_include(text: str, stem: str, pages: set[str]) -> tuple[str, str]:
    """A docs page as (title, the include with its body as one raw HTML block)."""
    title, body = split_title(COMMENT_RE.sub("", text), stem)
    return title, raw_html_block(wrap_tables(rewrite_links(gfm_to_html(body), pages)).strip())


def doc_stub(stem: str, title: str) -> str:
    """The page source of one docs page: its title and the include with its body."""
    title = check_template_text(title.replace("`", ""), f"title of {FOLDER}/{stem}.md")
    return (f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n\n"
            f"{{{{< include ../{include_name(stem)} >}}}}\n")


def include_name(stem: str) -> str:
    """Where the converted page ``stem`` is staged, relative to the project."""
    return f"_generated/{FOLDER}/{stem}.md"


def doc_stubs(folder: Path) -> dict[str, str]:
    """The page sources of the pages of ``folder`` (``docs/<name>.qmd``, each titled by its
    page's first heading): relative path -> text. No pandoc: the stubs are staged on every
    render, the pages converted only when they are rendered (:func:`doc_includes`)."""
    files = {}
    for page in doc_pages(folder):
        title, _ = split_title(COMMENT_RE.sub("", page.read_text(encoding="utf-8")), page.stem)
        files[f"{FOLDER}/{page.stem}.qmd"] = doc_stub(page.stem, title)
    return files


# Where the docs pages stand in the navbar: in the menu of the Reproducibility and Notebooks
# pages, after them, their index first.
NAVBAR_ORDER, NAVBAR_MENU = 130, "Reproduce"


def navbar_entries(folder: Path) -> list[tuple[float, str, str | None, str]]:
    """The navbar entries of the pages of ``folder`` (as :func:`.navbar.page_entry` gives
    them): in :data:`NAVBAR_MENU`, the index first as "Documentation: all pages", then each
    page by its title."""
    out = []
    for page in doc_pages(folder):
        title, _ = split_title(COMMENT_RE.sub("", page.read_text(encoding="utf-8")), page.stem)
        first = page.stem == "index"
        out.append((NAVBAR_ORDER if first else NAVBAR_ORDER + 1,
                    "Documentation: all pages" if first else title.replace("`", ""),
                    NAVBAR_MENU,
                    f"{FOLDER}/{page.stem}.qmd"))
    return out


def doc_includes(folder: Path, stems: Collection[str] | None = None) -> dict[str, str]:
    """The pages of ``folder`` converted (:func:`doc_include`), those of ``stems`` only
    (all when None): :func:`include_name` -> text. A page converts in a pandoc run of its
    own, so a render converts only the pages it renders again."""
    pages = doc_pages(folder)
    names = {p.name for p in pages}
    return {include_name(page.stem): doc_include(page.read_text(encoding="utf-8"),
                                                 page.stem, names)[1]
            for page in pages if stems is None or page.stem in stems}


def include_digests(folder: Path, converter: str) -> dict[str, str]:
    """What each converted page (:func:`include_name`) is made of, as one SHA-256: the
    page's bytes, the names of the pages (its links' targets) and the converter
    (``converter``: pandoc's version). Equal digests give the same include, so the
    incremental plan (:mod:`.sources`) can tell which docs pages changed before any is
    converted."""
    pages = doc_pages(folder)
    names = "\n".join(p.name for p in pages)
    return {include_name(page.stem): hashlib.sha256(
                "\n".join([converter, names, sha256_file(page)]).encode("utf-8")).hexdigest()
            for page in pages}
