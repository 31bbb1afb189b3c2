"""Rendering only what changed: each page's inputs, the decision, and the site it gives."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from analysis.report.preview import link_or_copy, render_site
from analysis.report.quarto import drop_search_pages, reorder_search
from analysis.report.sources import (
    hash_files,
    make_record,
    page_dependencies,
    page_inputs,
    plan,
    shared_digest,
)

QUARTO_YML = """project:
  type: website
website:
  title: "Site"
  navbar:
    left:
      - href: index.qmd
        text: Home
      - href: other.qmd
  page-footer:
    right: "Built by {{< var build.renderer >}}."
format:
  html:
    css: assets/site.css
"""
VARIABLES = {"a": {"n": "1", "unused": "x"}, "b": {"title": "Other"},
             "build": {"renderer": "preview"}}


def page_digest(project: Path, page: str, variables: dict, made=None) -> str:
    return page_dependencies(project, [page], variables, made)[0][page]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def project(tmp_path) -> Path:
    src = tmp_path / "src"
    write(src / "_quarto.yml", QUARTO_YML)
    write(src / "assets" / "site.css", "body{}\n")
    write(src / "index.qmd", "---\ntitle: Home\n---\n\n## One\n\nN is {{< var a.n >}}.\n\n"
                             "{{< include _g/outer.md >}}\n\n![A picture](files/pic.svg)\n")
    write(src / "_g" / "outer.md", "Outer.\n\n{{< include /_g/inner.md >}}\n")
    write(src / "_g" / "inner.md", "Inner.\n")
    write(src / "other.qmd", '---\ntitle: "{{< var b.title >}}"\n---\n\nSee [home](index.qmd)'
                             ".\n\n{{< include _g/other.md >}}\n")
    write(src / "_g" / "other.md", "Other text.\n")
    write(src / "files" / "pic.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    write(src / "downloads" / "t.csv", "a\n1\n")
    return src


def test_a_page_reads_itself_its_includes_nested_ones_and_its_variables(project):
    files, keys = page_inputs(project, "index.qmd")
    assert files == ["index.qmd", "_g/outer.md", "_g/inner.md"]
    assert keys == ["a.n"]
    assert page_inputs(project, "other.qmd") == (["other.qmd", "_g/other.md"], ["b.title"])


def test_an_include_that_does_not_exist_is_an_input_all_the_same(project):
    write(project / "p.qmd", "{{< include _g/later.md >}}\n")
    before = page_digest(project, "p.qmd", VARIABLES)
    assert page_inputs(project, "p.qmd")[0] == ["p.qmd", "_g/later.md"]
    write(project / "_g" / "later.md", "Now here.\n")
    assert page_digest(project, "p.qmd", VARIABLES) != before


def test_a_page_digest_follows_its_inputs_only(project):
    before = page_digest(project, "index.qmd", VARIABLES)
    assert page_digest(project, "index.qmd", {**VARIABLES, "a": {"n": "1", "unused": "y"}}) \
        == before
    assert page_digest(project, "index.qmd", {**VARIABLES, "a": {"n": "2"}}) != before
    write(project / "_g" / "other.md", "Changed.\n")
    assert page_digest(project, "index.qmd", VARIABLES) == before
    write(project / "_g" / "inner.md", "Changed.\n")
    assert page_digest(project, "index.qmd", VARIABLES) != before


def test_what_every_page_shares(project):
    pages = ["index.qmd", "other.qmd"]

    def shared(variables=VARIABLES, renderer="preview", code="c0de"):
        return shared_digest(project, pages, variables, renderer, code)
    before = shared()
    write(project / "_g" / "inner.md", "A page's body is not shared.\n")
    assert shared() == before
    assert shared(renderer="Quarto 1.8.27") != before
    assert shared(code="other") != before
    assert shared({**VARIABLES, "build": {"renderer": "other"}}) != before  # the footer's
    assert shared({**VARIABLES, "b": {"title": "Renamed"}}) != before     # a page's title
    write(project / "assets" / "site.css", "body{color:red}\n")
    assert shared() != before


def sources(project: Path) -> dict[str, str]:
    rels = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file())
    return hash_files(project, rels)


def decide(project: Path, record: dict, published=lambda rel: True):
    pages = ["index.qmd", "other.qmd"]
    digests, read = page_dependencies(project, pages, VARIABLES)
    return plan(record, sources(project), digests, shared_digest(
        project, pages, VARIABLES, "preview", "c0de"), read, published)


def record_of(project: Path) -> dict:
    pages = ["index.qmd", "other.qmd"]
    digests, _ = page_dependencies(project, pages, VARIABLES)
    return make_record("preview", sources(project), "c0de", digests,
                       shared_digest(project, pages, VARIABLES, "preview", "c0de"))


def test_only_the_pages_whose_inputs_changed_are_rendered(project):
    record = record_of(project)
    assert decide(project, record) == ([], [])
    write(project / "_g" / "inner.md", "Changed.\n")
    assert decide(project, record) == (["index.qmd"], [])


def test_a_published_file_that_changed_is_copied(project):
    record = record_of(project)
    write(project / "downloads" / "t.csv", "a\n2\n")
    assert decide(project, record) == ([], ["downloads/t.csv"])


def test_any_doubt_renders_the_whole_site(project):
    record = record_of(project)
    assert decide(project, None) is None
    assert decide(project, {k: v for k, v in record.items() if k != "pages"}) is None
    write(project / "downloads" / "new.csv", "a\n")           # a file the site never had
    assert decide(project, record) is None
    (project / "downloads" / "new.csv").unlink()
    write(project / "downloads" / "t.csv", "a\n3\n")
    assert decide(project, record, published=lambda rel: False) is None  # read by nothing
    write(project / "assets" / "site.css", "body{color:red}\n")            # shared
    assert decide(project, record) is None
    assert decide(project, {**record, "pages": {"index.qmd": "x"}}) is None  # other pages


def test_the_preview_renders_some_pages_to_the_bytes_of_a_whole_render(project, tmp_path):
    old = tmp_path / "old"
    render_site(project, old, VARIABLES)
    write(project / "_g" / "inner.md", "Changed, with a [link](other.qmd).\n")
    write(project / "files" / "pic.svg", "<svg xmlns='http://www.w3.org/2000/svg' id='2'/>\n")
    some, whole = tmp_path / "some", tmp_path / "whole"
    render_site(project, some, VARIABLES, only={"index.qmd"}, keep=old)
    render_site(project, whole, VARIABLES)
    assert snapshot(some) == snapshot(whole) != snapshot(old)
    # the page not rendered is the previous site's, as it was
    (old / "other.html").write_text("kept", encoding="utf-8")
    render_site(project, some, VARIABLES, only={"index.qmd"}, keep=old)
    assert (some / "other.html").read_text(encoding="utf-8") == "kept"


def test_what_has_not_changed_comes_from_the_previous_site(project, tmp_path):
    """Pages not rendered and files of ``unchanged`` are the previous site's (hard links
    where the file system has them), every other copied file the project's."""
    old = tmp_path / "old"
    render_site(project, old, VARIABLES)
    (old / "files" / "pic.svg").write_text("the previous site's\n", encoding="utf-8")
    some = tmp_path / "some"
    render_site(project, some, VARIABLES, only={"index.qmd"}, keep=old,
                unchanged={"files/pic.svg"})
    assert (some / "files" / "pic.svg").read_text(encoding="utf-8") == "the previous site's\n"
    for rel in ("files/pic.svg", "other.html"):
        assert (some / rel).stat().st_ino == (old / rel).stat().st_ino
    render_site(project, some, VARIABLES, only={"index.qmd"}, keep=old, unchanged=set())
    assert (some / "files" / "pic.svg").read_bytes() == (project / "files" / "pic.svg"
                                                        ).read_bytes()


def test_without_hard_links_the_file_is_copied(tmp_path, monkeypatch):
    def no_links(*_):
        raise OSError(errno.EXDEV, "Invalid cross-device link")
    monkeypatch.setattr(os, "link", no_links)
    write(tmp_path / "a.txt", "text\n")
    link_or_copy(tmp_path / "a.txt", tmp_path / "b.txt")
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "text\n"
    assert (tmp_path / "b.txt").stat().st_ino != (tmp_path / "a.txt").stat().st_ino


def test_a_file_made_later_counts_by_what_it_is_made_of(project):
    """A converted docs page is written only when its page is rendered: its digest (what
    it is made of) stands for its bytes, whether it is there yet or not."""
    write(project / "d.qmd", "---\ntitle: D\n---\n\n{{< include _g/made.md >}}\n")
    made = {"_g/made.md": "sha-of-the-doc"}
    before = page_digest(project, "d.qmd", VARIABLES, made)
    write(project / "_g" / "made.md", "Converted.\n")
    assert page_digest(project, "d.qmd", VARIABLES, made) == before
    assert page_digest(project, "d.qmd", VARIABLES, {"_g/made.md": "another"}) != before
    assert page_digest(project, "d.qmd", VARIABLES) != before


def test_a_changed_docs_page_renders_its_page_alone(project):
    """A page of docs/ is a source outside the project (``../docs/<name>.md``): when it
    changes, the page whose converted include it makes is rendered again, and no other."""
    write(project / "docs" / "d.qmd", "---\ntitle: D\n---\n\n{{< include ../_g/d.md >}}\n")
    pages = ["docs/d.qmd", "index.qmd", "other.qmd"]

    def state(doc_sha: str):
        made = {"_g/d.md": f"made of {doc_sha}"}
        digests, read = page_dependencies(project, pages, VARIABLES, made)
        files = {**sources(project), "../docs/d.md": doc_sha}
        return files, digests, read
    files, digests, _ = state("sha-1")
    shared = shared_digest(project, pages, VARIABLES, "preview", "c0de")
    record = make_record("preview", files, "c0de", digests, shared)
    files, digests, read = state("sha-2")
    assert plan(record, files, digests, shared, read, lambda rel: True) == (["docs/d.qmd"], [])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def entries(*ids: str) -> list[dict]:
    return [{"objectID": i, "href": i, "text": f"text of {i}"} for i in ids]


def test_the_search_index_keeps_a_whole_renders_order(tmp_path):
    site = tmp_path / "_site"
    site.mkdir()
    (site / "search.json").write_text(json.dumps(entries(
        "b.html", "b.html#old", "a.html", "c.html"), indent=2), encoding="utf-8")
    order = drop_search_pages(site, {"b.html"})
    assert order == ["b.html", "a.html", "c.html"]
    assert [e["objectID"] for e in json.loads((site / "search.json").read_text())] == [
        "a.html", "c.html"]
    # Quarto appends the page it rendered alone (without the section it no longer has)
    (site / "search.json").write_text(json.dumps(entries("a.html", "c.html", "b.html",
                                                         "b.html#new"), indent=2))
    assert reorder_search(site, order)
    text = (site / "search.json").read_text(encoding="utf-8")
    assert text == json.dumps(entries("b.html", "b.html#new", "a.html", "c.html"), indent=2)
    (site / "search.json").write_text(json.dumps(entries("d.html"), indent=2))
    assert not reorder_search(site, order)           # a page the order does not know
    shutil.rmtree(site)
    site.mkdir()
    assert drop_search_pages(site, {"b.html"}) is None  # no index: nothing to keep in order
