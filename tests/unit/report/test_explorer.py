"""The explorer's data script and its links (analysis.report.explorer)."""

from __future__ import annotations

import json

from analysis.report.explorer import VARIABLE, explorer_href, explorer_link, explorer_script


def test_the_script_holds_the_data_and_no_text_can_close_it(tmp_path):
    source = tmp_path / "explorer.json"
    source.write_text(json.dumps({"q": "</script><b>&"}), encoding="utf-8")
    script = explorer_script(source)
    assert script.startswith(f"{VARIABLE} = ") and script.endswith(";\n")
    assert "<" not in script and ">" not in script and "&" not in script
    assert json.loads(script.removeprefix(f"{VARIABLE} = ").rstrip(";\n")) == {
        "q": "</script><b>&"}


def test_a_missing_data_file_gives_null(tmp_path):
    assert explorer_script(tmp_path / "none.json") == f"{VARIABLE} = null;\n"


def test_hrefs_keep_the_filters_in_order_and_leave_out_empty_ones():
    assert explorer_href() == "issues.html"
    assert explorer_href(project="vllm", year=2024, theme=None, text="") == \
        "issues.html?project=vllm&year=2024"
    # spaces as %20 (Quarto decodes local links), & and = of data stay encoded
    assert explorer_href(text="a b&c=d+e") == "issues.html?text=a%20b%26c%3Dd%2Be"


def test_a_link_is_escaped_for_its_attribute():
    link = explorer_link("4", project='x"><script>', type="bug")
    assert link.startswith('<a class="explorer-link" href="issues.html?project=x%22%3E%3C')
    assert "<script>" not in link and link.endswith(">4</a>")


def test_a_link_names_the_count_it_shows_when_its_text_is_not_that_count():
    assert 'data-count="12"' in explorer_link("<code>C.5</code>", 12, theme="C.5")
    assert "data-count" not in explorer_link("12", theme="C.5")


def test_a_link_can_filter_on_text():
    link = explorer_link("in the explorer", text="https://github.com/o/r/issues/1")
    assert 'href="issues.html?text=https%3A%2F%2Fgithub.com%2Fo%2Fr%2Fissues%2F1"' in link
    assert link.endswith(">in the explorer</a>")
