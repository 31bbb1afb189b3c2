"""Unit tests of the website machinery: escaping, figure blocks, notebooks, the DAG and the
pandoc preview."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import yaml

from analysis.core.errors import InputError
from analysis.report.blocks import figure_block
from analysis.report.dag import graph_from_dvc_yaml
from analysis.report.htmlsafe import (
    check_template_text,
    esc,
    html_table,
    md_escape,
    raw_html_block,
    sanitize_html,
)
from analysis.report.markdown import markdown_block
from analysis.report.notebooks import notebook_body, notebook_include, notebook_stub, notebook_title
from analysis.report.preview import (
    inline_at_line_start,
    prepare_markdown,
    render_inputs,
    render_site,
    resolve_shortcodes,
)

SCRIPT = "<script>alert('x')</script>"


# -- escaping -------------------------------------------------------------------------

def test_esc_escapes_markup_and_shortcode_braces():
    assert esc(SCRIPT) == "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;"
    assert esc("{{< var a >}}") == "&#123;&#123;&lt; var a &gt;&#125;&#125;"
    assert esc(None) == ""


def test_md_escape_leaves_plain_text_and_escapes_the_rest():
    assert md_escape("12,345 reports (45.67%)") == "12,345 reports (45.67%)"
    escaped = md_escape("a *b* [c](d) <x>")
    assert escaped == r"a \*b\* \[c\]\(d\) \<x\>"
    html = markdown_block(f"Value: {md_escape(SCRIPT)} and {md_escape('**bold**')}")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<strong>" not in html and "**bold**" in html


def test_template_text_refuses_what_could_start_a_shortcode_math_or_raw_block():
    assert check_template_text("Cramér's V = 0.181 (|r| > 2); 69. Sub-themes", "x")
    for bad in ("{{< env HOME >}}", "a $x$", "back\\slash", "`code`", "bidi \u202e x",
                "line\nbreak"):
        with pytest.raises(ValueError, match="template text"):
            check_template_text(bad, "x")


def test_html_table_escapes_cells_and_headers():
    frame = pd.DataFrame({"<b>name</b>": [SCRIPT, "ok"], "n": [1234, 5]})
    html = html_table(frame)
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "1,234" in html
    assert '<td class="num" data-label="n">1,234</td>' in html
    assert html.startswith('<div class="table-wrap">')  # wide tables scroll in their box


def test_sanitize_html_keeps_tables_and_drops_active_content():
    dirty = ('<div><style>td{color:red}</style><table class="dataframe" onclick="x()">'
             '<tr><td onmouseover="evil()">a &amp; b</td><td><a href="javascript:x">l</a>'
             '</td></tr></table><script>alert(1)</script><img src=x onerror=alert(2)></div>')
    clean = sanitize_html(dirty)
    assert "<table" in clean and "<td>" in clean
    for bad in ("onclick", "onmouseover", "<script", "alert(1)", "<img", "javascript:",
                "<style", "color:red", "<a "):
        assert bad not in clean
    assert "a &amp; b" in clean


# -- shortcodes -----------------------------------------------------------------------

def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_includes_and_vars_are_resolved(tmp_path):
    page = write(tmp_path / "p.qmd", "A {{< var n.x >}}\n\n{{< include _g/a.md >}}\n\nend\n")
    write(tmp_path / "_g" / "a.md", "included {{< var n.y >}}\n\n{{< include /_g/b.md >}}\n")
    write(tmp_path / "_g" / "b.md", "nested\n")
    out = resolve_shortcodes(page.read_text(), file=page, project=tmp_path,
                             variables={"n": {"x": "1", "y": "2"}})
    assert out == "A 1\n\nincluded 2\n\nnested\n\nend\n"


def test_escaped_shortcodes_stay_literal(tmp_path):
    page = write(tmp_path / "p.qmd", "show {{{< var n.x >}}} as is\n")
    out = resolve_shortcodes(page.read_text(), file=page, project=tmp_path, variables={})
    assert out == "show {{< var n.x >}} as is\n"


def test_unknown_variable_names_file_and_line(tmp_path):
    page = write(tmp_path / "p.qmd", "one\n\ntwo {{< var nope.key >}}\n")
    with pytest.raises(InputError) as err:
        resolve_shortcodes(page.read_text(), file=page, project=tmp_path, variables={},
                           offset=3)
    assert "nope.key" in str(err.value) and "line 6" in str(err.value)


def test_missing_include_and_inline_include_are_errors(tmp_path):
    page = write(tmp_path / "p.qmd", "x\n\n{{< include _g/none.md >}}\n")
    with pytest.raises(InputError, match="not found"):
        resolve_shortcodes(page.read_text(), file=page, project=tmp_path, variables={})
    page = write(tmp_path / "q.qmd", "text {{< include _g/none.md >}} text\n")
    with pytest.raises(InputError, match="own"):
        resolve_shortcodes(page.read_text(), file=page, project=tmp_path, variables={})
    page = write(tmp_path / "r.qmd", "{{< embed nb.ipynb#cell >}}\n")
    with pytest.raises(InputError, match="not supported"):
        resolve_shortcodes(page.read_text(), file=page, project=tmp_path, variables={})


def test_prepare_markdown_turns_executable_fences_into_classes():
    assert prepare_markdown("```{mermaid}\nA-->B\n```\n") == "```{.mermaid}\nA-->B\n```\n"


def test_render_inputs_follow_quarto_rules(tmp_path):
    for name in ("index.qmd", "b.qmd", "_skip.qmd", "notebooks/n.ipynb", "_g/x.qmd"):
        write(tmp_path / name, "x")
    config = {"project": {"render": ["*.qmd", "notebooks/*.ipynb", "!b.qmd"]}}
    assert render_inputs(tmp_path, config) == ["index.qmd", "notebooks/n.ipynb"]


# -- a small site ---------------------------------------------------------------------

QUARTO_YML = """
project:
  type: website
  render: ["*.qmd", "notebooks/*.qmd"]
  resources: ["files/*"]
website:
  title: "Mini <site>"
  navbar:
    left:
      - href: index.qmd
        text: Home
      - other.qmd
      - text: More
        menu:
          - href: notebooks/nb.qmd
            text: The notebook
  page-footer:
    right: "Commit {{< var build.commit >}}"
format:
  html:
    css: assets/site.css
    include-after-body: assets/after.html
"""

INDEX = """---
title: "Home page"
subtitle: "A test"
---

## First

Total: {{< var s.total >}}; name: {{< var s.name >}}.

::: {.callout-note collapse="true"}
## Hidden details

Inside the callout, see [other](other.qmd#second) and [nb](notebooks/nb.ipynb).
:::

::: {.callout-warning}
Plain warning.
:::

![A caption](files/pic.svg){#fig-pic fig-alt="A fixed alt text"}

{{< include _g/figure.md >}}

{{< include _g/table.md >}}

```{mermaid}
flowchart TD
  a-->b
```
"""

OTHER = """---
title: "Other page"
---

## Second

Back [home](index.qmd).
"""


@pytest.fixture
def mini_site(tmp_path):
    src = tmp_path / "src"
    write(src / "_quarto.yml", QUARTO_YML)
    write(src / "index.qmd", INDEX)
    write(src / "other.qmd", OTHER)
    write(src / "assets" / "site.css", "body{}")
    write(src / "assets" / "after.html", "<!-- after body -->")
    write(src / "files" / "pic.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="10" '
                                     'height="10"></svg>')
    write(src / "_g" / "table.md", raw_html_block(html_table(pd.DataFrame(
        {"what": [SCRIPT], "n": [3]}))))
    write(src / "_g" / "figure.md", figure_block(
        "fig-data", "files/pic.svg", "A div figure.", f'An "alt" {SCRIPT}', ("nb", "nb.html")))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# A notebook\n\nText."),
                nbformat.v4.new_code_cell("print(1)", outputs=[
                    nbformat.v4.new_output("stream", name="stdout", text=SCRIPT)])]
    (src / "notebooks").mkdir()
    nbformat.write(nb, src / "notebooks" / "nb.ipynb")
    write(src / "_generated" / "notebooks" / "nb.md", notebook_include(nb, "nb"))
    write(src / "notebooks" / "nb.qmd", notebook_stub("nb", "A notebook"))
    variables = {"s": {"total": "1,234", "name": md_escape("<i>name</i>")},
                 "build": {"commit": "abc1234"}}
    out = tmp_path / "site"
    pages = render_site(src, out, variables)
    return out, pages


def test_preview_writes_every_page_with_the_navbar(mini_site):
    out, pages = mini_site
    assert pages == ["index.html", "notebooks/nb.html", "other.html"]
    for page in pages:
        html = (out / page).read_text()
        assert 'class="site-nav"' in html
        assert "Mini &lt;site&gt;" in html
        assert html.count('aria-current="page"') == 1
        assert "Commit abc1234" in html and "<!-- after body -->" in html
    index = (out / "index.html").read_text()
    assert '<a href="index.html" aria-current="page" class="active">Home</a>' in index
    assert '<a href="other.html">Other page</a>' in index  # text from the page title
    nb_page = (out / "notebooks" / "nb.html").read_text()
    assert 'href="../assets/site.css"' in nb_page and 'href="../index.html"' in nb_page
    assert (out / "assets" / "site.css").is_file() and (out / "files" / "pic.svg").is_file()


def test_preview_resolves_quarto_syntax(mini_site):
    out, _ = mini_site
    html = (out / "index.html").read_text()
    assert "Total: 1,234" in html
    assert re.search(r'<details class="callout callout-note"><summary class="callout-title">'
                     r"Hidden details</summary>", html)
    assert '<div class="callout callout-warning"><div class="callout-title">Warning' in html
    assert 'href="other.html#second"' in html and 'href="notebooks/nb.html"' in html
    assert 'alt="A fixed alt text"' in html and "Figure 1: A caption" in html
    assert "Figure 2: A div figure." in html and 'id="fig-data"' in html
    assert 'alt="An &quot;alt&quot; &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;"' in html
    assert "{{<" not in html and "data-fig-alt" not in html
    assert '<pre class="mermaid">' in html


def test_preview_escapes_data_text(mini_site):
    out, _ = mini_site
    for page in ("index.html", "notebooks/nb.html"):
        html = (out / page).read_text()
        assert "<script>alert" not in html
        assert "&lt;script&gt;alert" in html


# -- DAG and notebooks ----------------------------------------------------------------

def test_graph_from_dvc_yaml_matches_outs_to_deps(tmp_path):
    dvc = {"stages": {
        "a": {"cmd": "x", "outs": ["data/raw"]},
        "b": {"cmd": "x", "deps": ["data/raw/file.csv"], "outs": ["b.json"],
              "metrics": [{"m.json": {"cache": False}}]},
        "c": {"cmd": "x", "deps": ["b.json", "m.json", "data/raw"]}}}
    path = write(tmp_path / "dvc.yaml", yaml.safe_dump(dvc))
    assert graph_from_dvc_yaml(path) == (["a", "b", "c"], [("a", "b"), ("a", "c"),
                                                           ("b", "c")])


def test_notebook_body_escapes_and_sanitises_outputs():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title here\n\nIntro."),
        nbformat.v4.new_code_cell("x = '<b>'", metadata={"tags": ["injected-parameters"]},
                                  outputs=[nbformat.v4.new_output(
                                      "execute_result", execution_count=1,
                                      data={"text/html": f"<table><tr><td>{SCRIPT}</td>"
                                                         "</tr></table><script>bad()</script>",
                                            "text/plain": "t"})]),
    ]
    assert notebook_title(nb) == "Title here"
    body = notebook_body(nb, markdown_block)
    assert "Title here" not in body  # the page title, not repeated
    assert "Parameters injected by the pipeline" in body
    assert "x = &#x27;&lt;b&gt;&#x27;" in body
    assert "<table>" in body and "bad()" not in body and "<script>" not in body


# -- a value at the start of a source line --------------------------------------------

@pytest.mark.parametrize("value,following,expected", [
    ("69", ". Sub", "69\\"), ("12) b", "", "12\\) b"), ("+0", "", "\\+0"),
    ("0.757", ". ", "0.757"), ("69", " x", "69"), ("text", ". ", "text")])
def test_values_at_the_start_of_a_line_stay_inline(value, following, expected):
    assert inline_at_line_start(value, following) == expected


def test_preview_keeps_a_number_at_line_start_in_its_paragraph(tmp_path):
    page = tmp_path / "p.qmd"
    text = "The paper numbers\n{{< var a.n >}}. Then\n{{< var a.d >}} more.\n"
    body = resolve_shortcodes(text, file=page, project=tmp_path,
                              variables={"a": {"n": "69", "d": "+0"}})
    html = markdown_block(body)
    assert "<ol" not in html and "<ul" not in html
    assert "69. Then" in html and "+0 more" in html



def test_every_class_of_the_page_template_is_styled():
    """The preview's page frame (navbar, contents beside the page, footer) is laid out by
    the site stylesheet: a class of the template that no rule names leaves the page
    unstyled (the contents above the text instead of beside it)."""
    import re

    from analysis.core.paths import ROOT
    from analysis.report.preview import PAGE

    css = (ROOT / "report" / "assets" / "site.css").read_text(encoding="utf-8")
    classes = {c for attr in re.findall(r'class="([^"{]+)', PAGE) for c in attr.split()}
    assert "page-layout" in classes
    assert [c for c in sorted(classes) if not re.search(rf"\.{c}\b", css)] == []
