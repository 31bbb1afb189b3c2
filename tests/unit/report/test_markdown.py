"""Markdown to HTML through pandoc (analysis.report.markdown), as the preview uses it."""

from __future__ import annotations

from analysis.report.markdown import markdown_block, markdown_inline, pandoc_version


def test_inline_markdown_has_no_paragraph_around_it():
    assert markdown_inline("a **b** `c`") == "a <strong>b</strong> <code>c</code>"


def test_a_block_keeps_its_paragraphs_and_lists():
    html = markdown_block("one\n\n- x\n- y\n")
    assert "<p>one</p>" in html and "<li>x</li>" in html and "<li>y</li>" in html


def test_pandoc_names_its_version():
    assert pandoc_version()[0].isdigit()
