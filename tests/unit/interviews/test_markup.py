"""Texts for the site: the quotes as HTML, the guideline as Markdown."""

from __future__ import annotations

from analysis.interviews.markup import guideline_markdown, quotes_html


def test_quotes_are_escaped(result):
    html = quotes_html(result.quotes)
    assert "<b>" not in html and "&lt;b&gt;Outdated" in html
    assert 'id="node-C-11"' in html and "not in the taxonomy" in html


def test_guideline(data):
    md = data.guideline_md
    assert md.startswith("<!-- generated from Interview GuideLine.md by "
                         "notebooks/05_interviews.py; do not edit -->")
    assert "<script>" not in md and "&lt;script>" in md
    assert "**Purpose:**\\\n" in md
    assert "**Target Participants:**\n\n- **LLM Users:**" in md  # blank line before a list
    assert "**Questions:**\n\n1. What is your role?\n2. Which" in md
    assert "\n\n\n" not in md and md.endswith("Which are hard?\n")
    assert data.quality["anomaly_counts"]["raw_html"] == 1


def test_guideline_markdown_keeps_words_and_reports_html():
    md, found = guideline_markdown("a  \nb\r\n<i>c</i>\n", "g.md")
    assert md.endswith("a\\\nb\n&lt;i>c&lt;/i>\n")
    assert [(a.kind, a.line) for a in found] == [("raw_html", 3)]
