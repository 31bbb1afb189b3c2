"""Unit tests of the result pages' includes (:mod:`analysis.report.pages`) and of the
preview details they rely on: claims beside the paper, sanitised fragments, formatting,
missing inputs, the challenge counts, and values at the start of a source line."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.report import pages
from analysis.report.htmlsafe import raw_html_block, sanitize_html
from analysis.report.markdown import markdown_block
from analysis.report.preview import inline_at_line_start, resolve_shortcodes
from analysis.report.variables import var_value

SCRIPT = "<script>alert(1)</script>"


def card(*rows: tuple[str, str, str, str]) -> pd.DataFrame:
    return pd.DataFrame([{"claim_id": c, "description": f"what {c}", "paper_value": p,
                          "reproduced_value": o, "status": s, "note": f"note {c}",
                          "source": "Section I"} for c, p, o, s in rows])


def test_claims_table_highlights_differences_and_collapses_exact_runs():
    c = card(("x.a", "3", "3", "exact"), ("x.b", "69", "70", "differs"),
             ("x.sub.A.1", "2", "2", "exact"), ("x.sub.A.2", "2", "3", "differs"),
             ("y.c", "1", "1", "exact"))
    out = pages.claims_table(c, ("x.",), ("x.sub.",))
    assert out.startswith("4 numbers of the paper are checked here: 2 exact, 2 differs.")
    shown, _, more = out.partition('collapse="true"')
    assert "x.a" in shown and "x.b" in shown and "x.sub.A.2" in shown  # differs: shown
    assert "x.sub.A.1" not in shown and "x.sub.A.1" in more and "y.c" not in out
    assert shown.count('class="st-differs"') == 2
    assert "1 more, all exact" in more
    assert pages.claims_table(c, ("z.",)) == "No number of the paper is checked here.\n"


def test_claims_table_escapes_every_field():
    c = card(("x.a", SCRIPT, SCRIPT, "differs"))
    c.loc[0, "note"] = c.loc[0, "description"] = "{{< var a.b >}}" + SCRIPT
    out = pages.claims_table(c, ("x.",))
    assert "<script>" not in out and "{{<" not in out and "&lt;script&gt;" in out


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


def test_formatting_helpers():
    assert pages.dec(0.7574668) == "0.757" and pages.dec(float("nan")) == "–"
    assert pages.pct(0.951, fraction=True) == "95.1%" and pages.pct(24.38) == "24.4%"
    assert pages.pval(1e-9) == "< 0.001" and pages.pval(0.0234) == "0.023"
    assert pages.interval(0.7253, 0.7869) == "0.725–0.787"
    assert pages.count(12345.0) == "12,345" and pages.yes_no("True") == "yes"
    assert var_value("seed", 20250613) == "20250613" and var_value("issues", 12345) == "12,345"


def write(path, frame: pd.DataFrame) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)


def test_missing_inputs_give_a_note_and_present_ones_a_table(tmp_path):
    write(tmp_path / "report/tables/agreement/headline.csv", pd.DataFrame([{
        "group": "Bug", "issues": 10, "paper_kappa": 0.512, "kappa": 0.51245,
        "kappa_boot_low": 0.7, "kappa_boot_high": 0.73, "kappa_ci_low": 0.69,
        "kappa_ci_high": 0.74, "issues_kappa": 8, "kappa_gen": 0.5301,
        "kappa_gen_boot_low": 0.71, "kappa_gen_boot_high": 0.75, "kappa_gen_ci_low": 0.6,
        "kappa_gen_ci_high": 0.8, "issues_kappa_gen": 9, "alpha": 0.5125,
        "alpha_boot_low": 0.4, "alpha_boot_high": 0.6, "ac1": 0.744, "ac1_boot_low": 0.7,
        "ac1_boot_high": 0.8, "type_kappa": -0.007, "observed": 0.55, "chance": 0.14}]))
    out = pages.write_all(tmp_path)
    assert set(out) == {inc.name for inc in pages.INCLUDES}
    head = out["agreement/headline.md"]
    assert "0.512" in head and "0.700–0.730" in head and "0.51245" not in head
    # both estimators, each with the issues it uses and intervals named as such
    assert "complete rows" in head and "generalised" in head and "0.530" in head
    assert "analytic interval" in head and "bootstrap interval" in head
    assert "0.600–0.800" in head and ">9<" in head
    assert "0.400–0.600" in out["agreement/coefficients.md"]
    assert "Not available in this build" in out["taxonomy/themes.md"]
    assert "`report/tables/taxonomy/themes.csv`" in out["taxonomy/themes.md"]


def test_challenge_counts_sum_theme_counts_and_may_overlap():
    themes = pd.DataFrame({"code": ["A.1", "B.2", "C.1"], "issues": [10, 30, 60]})
    shares = pd.DataFrame({
        "table": ["theme_by_project"] * 6 + ["type_by_project"],
        "row": ["A.1", "B.2", "C.1", "A.1", "B.2", "C.1", "Bug"],
        "column": ["p", "p", "p", "q", "q", "q", "p"],
        "issues": [10, 0, 40, 0, 30, 20, 99]})
    challenges = [{"number": 1, "title": "One", "themes": ["A.1", "C.1"]},
                  {"number": 2, "title": "Two", "themes": ["B.2", "C.1"]}]
    cov = pages.challenge_coverage(themes, shares, challenges, {"p": "P", "q": "Q"})
    assert cov["issues"].tolist() == [70, 90]  # C.1 counts for both
    assert cov["share"].tolist() == [70.0, 90.0]
    assert cov.loc[0, "highest"] == "P (100.0%)" and cov.loc[0, "lowest"] == "Q (40.0%)"


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
