"""Escaping for the website (:mod:`analysis.report.htmlsafe`): sanitised fragments keep
their structure and lose active content; raw blocks hold any data."""

from __future__ import annotations

import pandas as pd

from analysis.report.htmlsafe import (
    hash_html,
    html_table,
    linkify,
    raw_html_block,
    rows_table,
    sanitize_html,
)
from analysis.report.markdown import markdown_block

SCRIPT = "<script>alert(1)</script>"


def test_sanitised_fragments_keep_structure_and_drop_active_content():
    fragment = ('<details class="theme" id="theme-A.1" open><summary>A.1 '
                '<small>(2 details)</small></summary><ul><li>&lt;script&gt;x</li>'
                f'<li onclick="alert(1)">{SCRIPT}<a href="javascript:alert(2)">link</a></li>'
                '</ul></details><section id="bad id"><blockquote>q</blockquote></section>'
                '<img src=x onerror=alert(3)>{{< var a >}}<hr>')
    out = sanitize_html(fragment, fragment_tags=True)
    assert '<details class="theme" id="theme-A.1" open="">' in out
    assert "<summary>A.1 <small>(2 details)</small></summary>" in out
    assert "<li>&lt;script&gt;x</li>" in out and "<li>link</li>" in out  # text kept
    assert "<script" not in out and "onclick" not in out and "href" not in out
    assert "<img" not in out and "alert(1)" not in out
    assert '<section><blockquote>q</blockquote></section>' in out  # bad id dropped
    assert "&#123;&#123;&lt; var a &gt;&#125;&#125;" in out and "<hr>" in out
    # without fragment_tags, collapsible markup is not kept (notebook outputs)
    assert "<details" not in sanitize_html(fragment)


def test_raw_html_block_fence_outlasts_backticks_in_the_data():
    block = raw_html_block("<p>```{=html} and ````</p>")
    assert block.startswith("`````{=html}\n") and block.endswith("\n`````\n")
    html = markdown_block("before\n\n" + block + "\nafter\n")
    assert "<p>```&#123;=html&#125; and ````</p>" in html and "after" in html
    # braces are entities inside every raw block: nothing there can form a shortcode
    assert "{" not in block.split("\n", 1)[1]


def test_urls_in_data_text_become_links_and_nothing_else_does():
    out = linkify("see https://github.com/o/r/issues/1, and <b>javascript:alert(1)</b> "
                  "or http://plain.example/x; https://x.org/a?b=1&c={d}.")
    assert ('<a class="url" href="https://github.com/o/r/issues/1">'
            "https://github.com/o/r/issues/1</a>, and &lt;b&gt;") in out
    assert 'href="javascript' not in out and 'href="http://' not in out
    assert 'href="https://x.org/a?b=1&amp;c=&#123;d&#125;"' in out and out.endswith("</a>.")
    assert linkify(None) == "" and linkify("no link") == "no link"


def test_hashes_are_short_and_open_to_the_whole_value():
    digest = "ab" * 32
    out = hash_html(digest)
    assert out.startswith('<details class="hash"><summary><code>abababababab…</code>')
    assert f'<code class="hash">{digest}</code></details>' in out
    assert hash_html("<short>") == '<code class="hash">&lt;short&gt;</code>'


def test_a_table_of_rows_is_the_table_of_the_same_frame():
    """The render step's tables (versions, pins) are built without pandas: the same HTML as
    a frame of the same cells gives."""
    rows = [("pandas", "2.2", "<b>"), ("dvc", "3.5", "a & b")]
    columns = ["package", "version", "note"]
    assert rows_table(columns, rows, classes="table compact") == html_table(
        pd.DataFrame(rows, columns=columns), numeric=[], classes="table compact")
    assert "&lt;b&gt;" in rows_table(columns, rows)


def test_headings_move_under_the_section_keeping_their_distances():
    from analysis.report.htmlsafe import headings_from

    fragment = '<h4 id="x">a</h4><p>t</p><h5>b</h5><h4>c</h4>'
    assert headings_from(fragment, 3) == '<h3 id="x">a</h3><p>t</p><h4>b</h4><h3>c</h3>'
    assert headings_from("<h1>a</h1><h6>b</h6>", 3) == "<h3>a</h3><h6>b</h6>"  # h8 -> h6
    assert headings_from("<p>no heading</p><hr>", 3) == "<p>no heading</p><hr>"


def test_breakable_text_wraps_at_its_separators_only():
    """A path or an identifier may wrap after a slash or an underscore, never inside a word;
    the text is escaped first."""
    from analysis.report.htmlsafe import breakable

    assert breakable("vllm-project/vllm/issues/129") == (
        "vllm-project/<wbr>vllm/<wbr>issues/<wbr>129")
    assert breakable("duplicate_url") == "duplicate_<wbr>url"
    assert breakable("<b>/x") == "&lt;b&gt;/<wbr>x"
    assert breakable("plain") == "plain"
