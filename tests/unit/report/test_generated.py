"""Blocks the pages share and the includes the site step writes itself
(:mod:`analysis.report.generated`)."""

from __future__ import annotations

import pytest

from analysis.report import generated as gen

SCRIPT = "<script>x()</script>"


def test_callouts_and_badges():
    assert gen.callout("note", "All 3 items", "body", collapse=True) == (
        '::: {.callout-note collapse="true"}\n## All 3 items\n\nbody\n:::\n')
    assert gen.callout("warning", "A title", "b").startswith("::: {.callout-warning}\n")
    with pytest.raises(ValueError, match="template text"):
        gen.callout("note", "{{< env HOME >}}", "b")
    assert gen.status_badge("rounding") == (
        '<span class="status-badge st-rounding">≈ within rounding</span>')
    assert gen.status_badge("<b>") == '<span class="status-badge st-&lt;b&gt;"> &lt;b&gt;</span>'
    assert list(gen.STATUS_LABELS) == list(gen.STATUS_HELP) == list(gen.STATUS_MARK)


def test_build_blocks_escape_what_they_show():
    git = {"commit": "a" * 40, "branch": "main<x>", "dirty": "yes",
           "dirty_files": ["b<c>.py"], "commit_short": "aaaaaaa"}
    out = gen.build_info(git, "Quarto 1.8")
    assert "<code>main&lt;x&gt;</code>" in out and "(1 files)" in out
    assert "<code>b&lt;c&gt;.py</code>" in out and "Renderer: Quarto 1.8" in out
    clean = gen.build_info({**git, "dirty": "no", "dirty_files": []}, "r")
    assert "Modified files" not in clean
    versions = gen.versions_table({"pandas": "2.2", "Python": "3.11"})
    assert versions.index(">pandas<") < versions.index(">Python<")  # by name, any case
    assert 'src="build-info.js"' in gen.build_info_placeholder()
    assert "__DATA__" in gen.BUILD_INFO_JS


def test_dag_and_notebooks_index():
    dag = gen.dag_block('flowchart TD\n\tnode1["a"]\n\tnode1-->node2\n', "dvc dag --mermaid")
    assert dag.startswith("::: {#fig-pipeline-dag}\n```{mermaid}\nflowchart TD\n"
                          "  accTitle: The pipeline's stages\n  accDescr: A flow chart")
    assert '  node1["a"]\n  node1-->node2\n```\n' in dag
    assert "From <code>dvc dag --mermaid</code>" in dag
    with pytest.raises(ValueError):
        gen.dag_block("flowchart TD\n  node1[\"{{< env HOME >}}\"]", "dvc.yaml")
    index = gen.notebooks_index([{"stem": "01_clean", "href": "notebooks/01_clean.qmd",
                                  "title": f"Clean {SCRIPT}", "stage": "clean",
                                  "outs": ["data/processed/clean"]}])
    assert index.startswith("## [01_clean](notebooks/01_clean.qmd)")
    assert "Clean &lt;script&gt;" in index and "<code>data/processed/clean</code>" in index
    assert gen.notebooks_index([]) == "No executed notebook yet: run `dvc repro`.\n"


def test_a_figure_is_shown_on_a_phone_at_the_width_its_smallest_text_needs():
    """8 pt glyphs (``scale(0.08 -0.08)``) in a 500-unit viewBox are 9 px high when the
    figure is 563 px wide: the block asks for that width on a phone and says it scrolls."""
    from analysis.report.blocks import figure_block, readable_width

    svg = ('<svg width="500pt" height="300pt" viewBox="0 0 500 300"><g transform='
           '"translate(1 2) scale(0.1 -0.1)"></g><g transform="translate(3 4) rotate(-90) '
           'scale(0.08 -0.08)"></g><g transform="scale(0.015625)"></g></svg>')
    assert readable_width(svg) == 563
    assert readable_width('<svg viewBox="0 0 500 300"></svg>') is None
    block = figure_block("fig-x", "figures/x.svg", "Caption.", "Alt.", None, 563)
    assert 'style="--readable-width: 563px"' in block and 'class="scroll-cue"' in block
    narrow = figure_block("fig-x", "figures/x.svg", "Caption.", "Alt.", None, 300)
    assert "--readable-width" not in narrow and "scroll-cue" not in narrow


def test_a_figure_of_the_paper_is_captioned_with_the_papers_number():
    """The taxonomy tree is the paper's Fig. 2: its caption says so and it is HTML that
    neither renderer numbers (Quarto would call the page's first figure "Figure 1"); any
    other figure stays a numbered div figure."""
    from analysis.report.blocks import PAPER_FIGURES, figure_block

    assert PAPER_FIGURES["taxonomy/tree"] == 2
    block = figure_block("fig-taxonomy-tree", "figures/t.svg", "The tree <b>.", "Alt.",
                         None, 600, paper_number=2)
    assert "<figcaption>Fig. 2: The tree &lt;b&gt;.</figcaption>" in block
    assert ":::" not in block and 'id="fig-taxonomy-tree"' in block
    assert 'class="scroll-cue"' in block and 'alt="Alt."' in block
    assert block.startswith("```{=html}") and "figure-source" in block
    assert figure_block("fig-x", "figures/x.svg", "C.", "A.", None).startswith("::: {#fig-x}")
