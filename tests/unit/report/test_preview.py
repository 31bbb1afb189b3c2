"""Unit tests of the website machinery: escaping, variables, includes and the preview."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import yaml

from analysis.core.errors import InputError
from analysis.core.projects import Project, Projects
from analysis.report import generated as gen
from analysis.report.blocks import figure_block
from analysis.report.dag import (
    graph_from_dvc_yaml,
    layers,
    parse_mermaid,
    reduced_edges,
    to_mermaid,
)
from analysis.report.htmlsafe import check_template_text, esc, html_table, md_escape, sanitize_html
from analysis.report.markdown import markdown_block
from analysis.report.notebooks import notebook_body, notebook_include, notebook_stub, notebook_title
from analysis.report.preview import (
    prepare_markdown,
    render_inputs,
    render_site,
    resolve_shortcodes,
)
from analysis.report.variables import (
    fmt,
    lookup,
    referenced_vars,
    stage_texts,
    stage_vars,
    var_value,
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


# -- variables ------------------------------------------------------------------------

def test_fmt_formats_numbers_like_the_pages():
    assert fmt(12345) == "12,345"
    assert fmt(45.6695) == "45.67"
    assert fmt(True) == "yes" and fmt(None) == "n/a"
    assert var_value("name", "<i>") == r"\<i\>"
    for unsafe in ("{{< env HOME >}}", "$x$", "a\\b", "`code`", "rtl\u202eltr"):
        with pytest.raises(ValueError, match="template text"):
            var_value("name", unsafe)


def test_stage_vars_reads_flat_files_and_rejects_bad_ones(tmp_path):
    d = tmp_path / "vars"
    d.mkdir()
    (d / "taxonomy.json").write_text(json.dumps({
        "themes": 18, "fig_alt": "<x>", "fig_caption": "C.", "top_text": "{{< env X >}}"}))
    assert stage_vars(d) == {"taxonomy": {"themes": "18"}}  # data texts are not variables
    assert stage_texts(d) == {"taxonomy": {"fig_alt": "<x>", "fig_caption": "C.",
                                           "top_text": "{{< env X >}}"}}
    (d / "bad.json").write_text(json.dumps({"nested": {"a": 1}}))
    with pytest.raises(InputError, match="flatten"):
        stage_vars(d)
    (d / "bad.json").unlink()
    (d / "metrics.json").write_text("{}")
    with pytest.raises(InputError, match="reserved"):
        stage_vars(d)


def test_lookup_and_referenced_vars():
    data = {"a": {"b": "1", "c": {"d": "2"}}}
    assert lookup(data, "a.b") == "1" and lookup(data, "a.c.d") == "2"
    for missing in ("a.x", "a.c", "z"):
        with pytest.raises(KeyError):
            lookup(data, missing)
    assert referenced_vars("x {{< var a.b >}} y {{<var c>}}") == ["a.b", "c"]


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
    write(src / "_g" / "table.md", gen.raw_html_block(html_table(pd.DataFrame(
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


# -- generated includes -----------------------------------------------------------------

CARD = pd.DataFrame([
    {"claim_id": "table1.pytorch.2023", "description": "d", "paper_value": "1,234",
     "reproduced_value": "1,234", "status": "exact", "note": "", "source": "Table I"},
    {"claim_id": "table1.pytorch.bug", "description": "d", "paper_value": "3,456",
     "reproduced_value": "3,450", "status": "differs", "note": SCRIPT, "source": "Table I"},
    {"claim_id": "table1.pytorch.false_positive", "description": "d", "paper_value": "12.34%",
     "reproduced_value": "", "status": "not_reproducible", "note": "n", "source": "Table I"},
])


def test_scorecard_includes_link_every_status_and_escape_notes():
    summary = gen.scorecard_summary(CARD)
    for anchor in ("exact", "rounding", "differs", "not-reproducible"):
        assert f'href="reproducibility.html#scorecard-{anchor}"' in summary
        assert f'class="swatch st-{anchor.replace("-", "_")}"' in summary
    full = gen.scorecard_full(CARD)
    assert "{#scorecard-differs}" in full and "&lt;script&gt;" in full
    assert "<script>" not in full


def test_table1_compare_marks_differences():
    table = pd.DataFrame([{"project": "pytorch", "name": "PyTorch", "kind": "framework",
                           "2023": 1234, "Bug": 3450, "Total": 4684},
                          {"project": "Sum", "name": "All projects", "kind": "",
                           "2023": 1234, "Bug": 3450, "Total": 4684}])
    html = gen.table1_compare(table, CARD, Projects({"pytorch": Project(
        "pytorch", "PyTorch", "framework", 1, paper_name="Torch")}))
    assert 'class="num st-exact"' in html and 'class="num st-differs"' in html
    assert "paper 3,456" in html and "(paper: Torch)" in html and "12.34%" in html
    assert "12.34% (reported)" in html and "False positives (paper only)" in html
    assert "does not record the candidates its annotators excluded" in html


def test_table1_compare_shows_computed_false_positives_beside_the_papers():
    table = pd.DataFrame([{"project": p, "name": n, "kind": "", "2023": 1, "Bug": 1,
                           "Total": 1} for p, n in (("pytorch", "PyTorch"), ("new", "<new>"),
                                                    ("Sum", "All projects"))])
    fp = pd.DataFrame({"project": ["pytorch", "new", "Sum"], "excluded": [1, "", 1],
                       "candidates": [8, "", 8], "false_positive_percent": [12.5, "", 12.5],
                       "source": ["computed", "none", "computed"]})
    html = gen.table1_compare(table, CARD, Projects({}), fp)
    assert "False positives</th>" in html and "(paper only)" not in html
    assert ">12.50%<span class=\"paper-value\">paper 12.34%</span>" in html
    assert 'title="computed: 1 excluded of 8 candidates · paper: 12.34%"' in html
    assert "Average: 12.50%" in html and "&lt;new&gt;" in html
    assert "computed for 1 project(s) from the excluded candidates" in html


def test_quality_anomalies_groups_counts_and_escapes():
    quality = {"anomalies": [
        {"kind": "duplicate_url", "file": "a.csv", "line": 3, "column": None,
         "message": f"{SCRIPT} is on 2 rows", "action": "kept"},
        {"kind": "duplicate_url", "file": "a.csv", "line": 4, "column": None,
         "message": "x", "action": "kept"},
        {"kind": "empty_file", "file": "<b>.txt", "line": None, "column": None,
         "message": "empty", "action": "ignored"}],
        "rules": {"duplicate_url": {"severity": "warning", "description": "dup"}}}
    text = gen.quality_anomalies(quality, max_listed=1)
    assert '<summary class="callout-title">duplicate_url: 2</summary>' in text
    assert '<summary class="callout-title">empty_file: 1</summary>' in text
    assert "The first 1 of 2 are listed" in text
    assert "<script>" not in text and "&lt;b&gt;.txt" in text


# -- DAG and notebooks ----------------------------------------------------------------

def test_mermaid_round_trip_and_layers():
    stages = ["clean", "ingest", "report", "table1"]
    edges = [("clean", "table1"), ("ingest", "clean"), ("ingest", "report"),
             ("table1", "report")]
    assert parse_mermaid(to_mermaid(stages, edges)) == (stages, edges)
    assert layers(stages, edges) == [["ingest"], ["clean"], ["table1"], ["report"]]
    assert reduced_edges(stages, edges) == [("clean", "table1"), ("ingest", "clean"),
                                            ("table1", "report")]


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
