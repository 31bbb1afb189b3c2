"""The README and the pages of ``docs/``: a README that fits on a screen, every page
linked from the README and the docs index (and so from the site, whose Overview links the
index), no dead link or anchor, and every fenced shell block either run by a test or
marked as not runnable with the reason (:mod:`tests.support.docs`). A block marked
``doc-test: NAME`` is run by a test that names it (``"NAME"``, literally), most in
``tests/unit/test_doc_commands.py``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analysis.core.paths import ROOT
from tests.support.docs import (
    DOCS,
    PENDING,
    README,
    anchors,
    blocks,
    links,
    pages,
    slug,
)

README_LIMIT = 10 * 1024
TESTS = ROOT / "tests"
PAGES = [p.relative_to(ROOT).as_posix() for p in pages()]


def test_the_readme_fits_on_a_screen():
    assert README.stat().st_size <= README_LIMIT


def test_the_pages_asked_for_are_there():
    names = {p.name for p in DOCS.glob("*.md")}
    assert names >= {"index.md", "your-own-dump.md", "update-loop.md", "adding-a-stage.md",
                     "guarantees.md", "layout.md", "methods.md"}


def linked_docs(page: Path) -> set[str]:
    """The pages of ``docs/`` that ``page`` links (by file name)."""
    found = set()
    for target in links(page):
        path = (page.parent / target.partition("#")[0]).resolve()
        if path.parent == DOCS.resolve() and path.suffix == ".md":
            found.add(path.name)
    return found


@pytest.mark.parametrize("index", [README, DOCS / "index.md"], ids=lambda p: p.name)
def test_every_docs_page_is_linked(index):
    on_disk = {p.name for p in DOCS.glob("*.md")} - {index.name}
    missing = on_disk - linked_docs(index)
    assert not missing, f"{index.relative_to(ROOT)} does not link {sorted(missing)}"


def test_the_site_links_the_docs_index():
    """The site's Overview links the docs index; the render makes every page of docs/ a
    page of the site (tests/unit/report/test_docs.py, tests/e2e/test_site.py)."""
    assert "(docs/index.qmd)" in (ROOT / "report" / "index.qmd").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES)
def test_no_dead_link_or_anchor(page):
    source = ROOT / page
    for target in links(source):
        if re.match(r"^[a-z][\w+.-]*:", target):  # https:, mailto:
            assert target.startswith("https://"), (page, target)
            continue
        path, _, anchor = target.partition("#")
        file = (source.parent / path).resolve() if path else source
        if not file.exists():
            assert file.name in PENDING and file.parent == DOCS.resolve(), (page, target)
            continue
        assert file.is_relative_to(ROOT), (page, target)
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file), (page, target)


@pytest.fixture(scope="module")
def test_sources() -> str:
    """The code of the tests, where a test that runs a block names it (literally)."""
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(TESTS.rglob("test_*.py")))


@pytest.mark.parametrize("page", PAGES)
def test_every_fence_names_its_language(page):
    assert all(b.lang for b in blocks(ROOT / page)), page


@pytest.mark.parametrize("page", PAGES)
def test_every_shell_block_is_run_or_marked_not_runnable(page, test_sources):
    for block in blocks(ROOT / page):
        if not block.shell:
            continue
        assert block.kind, f"{block.where()}: a shell block without doc-test or not-run"
        assert block.name, f"{block.where()}: {block.kind} without a name or reason"
        if block.kind == "doc-test":
            assert f'"{block.name}"' in test_sources, f"{block.where()}: no test names {block.name}"


def test_doc_test_names_are_unique():
    names = [b.name for p in pages() for b in blocks(p) if b.kind == "doc-test"]
    assert len(names) == len(set(names)) and len(names) >= 6


def test_the_readme_make_targets_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    shown = [re.findall(r"^make (\S+)", b.text, re.M) for b in blocks(README) if b.shell]
    assert [t for group in shown for t in group] == ["report", "test"]
    for target in ("report", "test"):
        assert re.search(rf"^{target}:", makefile, re.M), target


def test_slugs_are_githubs():
    assert slug("In the pipeline") == "in-the-pipeline"
    assert slug("The taxonomy (Fig. 2)") == "the-taxonomy-fig-2"
    assert slug("`--known` and [links](x.md)") == "--known-and-links"


def test_a_block_is_found_with_its_marker(tmp_path, monkeypatch):
    page = tmp_path / "p.md"
    page.write_text("text\n\n<!-- doc-test: a/b -->\n```bash\necho 1\n```\n\n"
                    "<!-- not-run: needs\n  the network -->\n```sh\ncurl x\n```\n\n"
                    "<!-- doc-test: lost -->\n\n```bash\necho 2\n```\n\n```text\nx\n```\n",
                    encoding="utf-8")
    found = blocks(page)
    assert [(b.kind, b.name, b.lang, b.text) for b in found] == [
        ("doc-test", "a/b", "bash", "echo 1\n"), ("not-run", "needs the network", "sh",
                                                  "curl x\n"),
        ("", "", "bash", "echo 2\n"), ("", "", "text", "x\n")]
    assert found[0].line == 4
