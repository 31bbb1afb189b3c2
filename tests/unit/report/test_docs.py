"""The pages of docs/ as pages of the site (analysis.report.docs)."""

from __future__ import annotations

import re

import pytest

from analysis.report.docs import (
    doc_include,
    doc_includes,
    doc_pages,
    doc_stub,
    doc_stubs,
    include_digests,
    rewrite_links,
    site_href,
    split_title,
)

PAGES = {"index.md", "update-loop.md"}


@pytest.mark.parametrize("target, href", [
    ("update-loop.md", "update-loop.html"),
    ("update-loop.md#in-the-pipeline", "update-loop.html#in-the-pipeline"),
    ("../report/agreement.qmd", "../agreement.html"),
    ("../report/data.qmd#the-cleaning-rules", "../data.html#the-cleaning-rules"),
    ("https://arxiv.org/abs/2506.13114", "https://arxiv.org/abs/2506.13114"),
    ("#a-worked-example", "#a-worked-example"),
    ("update-tutorial.md", None),             # a page that does not exist (yet)
    ("../README.md", None),                   # a file of the repository
    ("../src/analysis/update/select/engine.py", None),
    ("http://example.org/", None),
    ("javascript:alert(1)", None),
    ("../report/../../etc/passwd.qmd", None),
])
def test_links_go_to_the_sites_pages_or_become_text(target, href):
    assert site_href(target, PAGES) == href


def test_a_link_without_a_page_keeps_its_text():
    body = ('<p><a href="../README.md">README</a> and <a href="update-loop.md#x" '
            'title="t">the <code>loop</code></a></p>')
    assert rewrite_links(body, PAGES) == (
        '<p>README and <a href="update-loop.html#x" title="t">the <code>loop</code></a></p>')


def test_the_title_is_the_first_heading():
    assert split_title("# The data\n\nText\n", "data") == ("The data", "\nText\n")
    assert split_title("Text\n# Late\n", "x") == ("x", "Text\n# Late\n")


def test_a_page_is_escaped_html_without_its_markers():
    text = ("# Adding a stage\n\n<!-- doc-test: a/b -->\n```bash\necho '{{< var x.y >}}'\n```\n\n"
            "A `{{< include _generated/x.md >}}` and <script>alert(1)</script>, "
            "[loop](update-loop.md), [readme](../README.md).\n\n## In the pipeline\n")
    title, include = doc_include(text, "adding-a-stage", PAGES)
    assert title == "Adding a stage"
    assert include.startswith("```{=html}\n") and include.endswith("\n```\n")
    assert "{" not in include[len("```{=html}"):] and "}" not in include[len("```{=html}"):]
    assert "doc-test" not in include and "<script>" not in include
    assert "&lt;script&gt;" in include
    assert '<a href="update-loop.html">loop</a>' in include and "readme" in include
    assert "README.md" not in include
    assert '<h2 id="in-the-pipeline">' in include


def test_tables_scroll_in_their_box():
    _, include = doc_include("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", "t", PAGES)
    assert '<div class="table-wrap"><table class="table">' in include
    assert include.count("</table></div>") == 1


def test_the_stub_includes_the_page(tmp_path):
    assert doc_stub("data", "The `data`") == (
        '---\ntitle: "The data"\n---\n\n{{< include ../_generated/docs/data.md >}}\n')
    with pytest.raises(ValueError, match="docs/x.md"):
        doc_stub("x", "A $ title")


def test_every_visible_page_becomes_a_stub_and_an_include(tmp_path):
    assert doc_pages(tmp_path / "none") == [] and doc_stubs(tmp_path / "none") == {}
    assert doc_includes(tmp_path / "none") == {}
    (tmp_path / "index.md").write_text("# Docs\n\n[Data](data.md)\n", encoding="utf-8")
    (tmp_path / "data.md").write_text("# The data\n\nText.\n", encoding="utf-8")
    (tmp_path / ".hidden.md").write_text("# Hidden\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a page\n", encoding="utf-8")
    assert doc_stubs(tmp_path) == {"docs/data.qmd": doc_stub("data", "The data"),
                                   "docs/index.qmd": doc_stub("index", "Docs")}
    includes = doc_includes(tmp_path)
    assert sorted(includes) == ["_generated/docs/data.md", "_generated/docs/index.md"]
    assert re.search(r'<a href="data.html">Data</a>', includes["_generated/docs/index.md"])


def test_only_the_pages_asked_for_are_converted(tmp_path):
    """A render converts the docs pages it renders again, and no other (each conversion
    is a run of pandoc); what it converts is what converting them all gives."""
    (tmp_path / "index.md").write_text("# Docs\n\n[Data](data.md)\n", encoding="utf-8")
    (tmp_path / "data.md").write_text("# The data\n\nText.\n", encoding="utf-8")
    assert doc_includes(tmp_path, set()) == {}
    some = doc_includes(tmp_path, {"index"})
    assert some == {"_generated/docs/index.md": doc_includes(tmp_path)["_generated/docs/index.md"]}


def test_what_a_converted_page_is_made_of(tmp_path):
    """One digest per page: its bytes, the names of the pages (its links' targets) and the
    converter; a change to any of them is a new digest, to another page none."""
    (tmp_path / "index.md").write_text("# Docs\n\n[Data](data.md)\n", encoding="utf-8")
    (tmp_path / "data.md").write_text("# The data\n\nText.\n", encoding="utf-8")
    before = include_digests(tmp_path, "pandoc 3.9")
    assert sorted(before) == ["_generated/docs/data.md", "_generated/docs/index.md"]
    assert include_digests(tmp_path, "pandoc 3.9") == before
    assert include_digests(tmp_path, "pandoc 3.10").keys() == before.keys()
    assert not set(include_digests(tmp_path, "pandoc 3.10").values()) & set(before.values())
    (tmp_path / "data.md").write_text("# The data\n\nOther text.\n", encoding="utf-8")
    after = include_digests(tmp_path, "pandoc 3.9")
    assert after["_generated/docs/data.md"] != before["_generated/docs/data.md"]
    assert after["_generated/docs/index.md"] == before["_generated/docs/index.md"]
    (tmp_path / "new.md").write_text("# New\n", encoding="utf-8")
    assert include_digests(tmp_path, "pandoc 3.9")["_generated/docs/index.md"] != (
        after["_generated/docs/index.md"])
