"""The overview page's includes (:mod:`analysis.report.pages.overview`)."""

from __future__ import annotations

import pandas as pd

from analysis.core.paths import ROOT as PROJECT_ROOT
from analysis.report.pages import overview
from tests.unit.report.pages.conftest import scorecard

CFF = """
cff-version: 1.2.0
title: The package
version: 1.0.0
repository-code: https://example.org/pkg
authors: [{family-names: Doe, given-names: Jo}]
preferred-citation:
  title: The paper
  url: https://arxiv.org/abs/1
  year: 2025
  journal: arXiv
  authors: [{family-names: Mu, given-names: A}]
  identifiers: [{type: other, value: "arXiv:1"}]
references:
  - type: data
    repository-code: https://github.com/o/r
"""


def test_the_claims_that_differ_follow_the_paper():
    card = scorecard(("b", "2", "3", "differs"), ("a", "1", "2", "differs"),
                     ("c", "1", "1", "exact"))
    card.loc[0, "source"] = "Section IV"
    card.loc[1, "source"] = "Abstract"
    out = overview.scorecard_differs(card, {"Abstract": 1, "Section IV": 2})
    assert out.index(">a · Abstract<") < out.index(">b · Section IV<")
    assert ">c ·" not in out
    card.loc[1, "relation"] = ">"
    card.loc[1, "claim_id"] = "t.sub.a"
    # the id is set apart from the text: a space, its own element, a line of its own in
    # the table, breaking only after its dots
    assert ' <span class="claim-id">t.<wbr>sub.<wbr>a · Abstract</span>' in (
        overview.scorecard_differs(card, {}))
    css = (PROJECT_ROOT / "report" / "assets" / "site.css").read_text(encoding="utf-8")
    assert "span.claim-id {" in css and "td span.claim-id { display: block;" in css
    assert ">&gt;1<" in overview.scorecard_differs(card, {}).replace('class="num">', ">")
    assert "No number of the paper differs" in overview.scorecard_differs(card.iloc[2:], {})


def test_differences_are_grouped_by_cause_with_links():
    card = scorecard(("t.a", "6", "7", "differs"), ("examples.ref1", "A.1", "B.2", "differs"),
                     ("x", "1", "1", "exact"))
    card["cause"] = ["subtheme_numbering", "cited_example_label", ""]
    card.loc[1, "note"] = "https://github.com/o/r/issues/9 (2024); annotators: B.2"
    by_cause = pd.DataFrame({"cause": ["subtheme_numbering", "cited_example_label"],
                             "meaning": ["extra sub-theme", "example labels"],
                             "claims": [1, 1], "claim_ids": ["t.a", "examples.ref1"]})
    out = overview.scorecard_differs(card, {}, by_cause)
    assert out.index('id="cause-subtheme_numbering"') < out.index(
        'id="cause-cited_example_label"')
    assert "1 claim differs: extra sub-theme" in out
    assert ('<a class="url" href="https://github.com/o/r/issues/9">'
            "https://github.com/o/r/issues/9</a> (2024)") in out
    card["cause"] = ""  # a card without causes: one group
    assert out.count("<details") == 2 and overview.scorecard_differs(
        card, {}).count("<details") == 1
    summary = overview.differences_summary(by_cause)
    assert summary.count("<li>") == 2 and 'href="#cause-cited_example_label"' in summary


def test_an_unpublished_package_is_not_linked_or_cited():
    cff = overview.citation(CFF.replace("repository-code: https://example.org/pkg\n", ""))
    links = overview.study_links(cff, {})
    assert "This package: not published yet" in links and "example.org" not in links
    cite = overview.how_to_cite(cff)
    assert "Not published yet" in cite and "Doe" not in cite
    assert "@software" not in cite and "@article" in cite
    placeholder = dict(cff, **{"repository-code": "https://github.com/REPLACE-ME/x"})
    assert overview.published_repository(placeholder) == ""
    assert "REPLACE-ME" not in overview.study_links(placeholder, {})
    assert "REPLACE-ME" not in overview.how_to_cite(placeholder)


def test_places_come_from_the_findings_stage():
    by_source = pd.DataFrame({"source": ["Abstract", "Section I"], "place": [1, 2]})
    assert overview.paper_places(by_source) == {"Abstract": 1, "Section I": 2}
    rows = pd.DataFrame({"source": ["Section I", "other", "Abstract", "Section I"]})
    ordered = overview.in_paper_order(rows, overview.paper_places(by_source))
    assert ordered.index.tolist() == [2, 0, 3, 1]  # unknown places last


def test_links_citation_and_licence(project):
    cff = overview.citation(CFF)
    commit = "a" * 40
    links = overview.study_links(cff, {"commit": commit})
    assert f'href="https://github.com/o/r/tree/{commit}"' in links
    assert "(arXiv:1)" in links and "<code>aaaaaaa</code>" in links
    cite = overview.how_to_cite(cff)
    assert "Mu, A (2025). The paper. arXiv arXiv:1. https://arxiv.org/abs/1" in cite
    assert "@software&#123;reproduction_package" in cite
    assert overview.how_to_cite({}) == "No `CITATION.cff` in this build.\n"
    licence = overview.licence_block("MIT License\n\nText <b>\n")
    assert "under the MIT License." in licence and "Text &lt;b&gt;" in licence
    assert 'href="javascript' not in overview.study_links(
        {"repository-code": "javascript:alert(1)"}, {})


def test_includes_read_their_inputs(project):
    project.write(overview.CITATION, CFF)
    project.write(overview.LICENCE, "MIT License\n")
    project.write(overview.PROVENANCE, {"commit": "b" * 40})
    project.write(overview.SCORECARD, scorecard(("a", "1", "2", "differs")))
    project.write(overview.BY_SOURCE, pd.DataFrame({"source": ["Section I"], "place": [1]}))
    project.write(overview.BY_CAUSE, pd.DataFrame({
        "cause": ["other"], "meaning": ["no common <cause>"], "claims": [1],
        "claim_ids": ["a"]}))
    out = {inc.name: inc.make(project.inputs()) for inc in overview.INCLUDES}
    assert set(out) == {"scorecard_differs.md", "links.md", "cite.md", "licence.md",
                        "differences_by_cause.md", "overview/study_now.md"}
    assert out["overview/study_now.md"] == ""  # the release alone: no study section
    assert "This build's data" not in out["links.md"]
    assert ">a · Section I<" in out["scorecard_differs.md"]
    assert 'href="#cause-other"><strong>1</strong></a> differs: no common &lt;cause&gt;' \
        in out["differences_by_cause.md"]
    assert "<code>bbbbbbb</code>" in out["links.md"]


def study_counts() -> pd.DataFrame:
    """The table1 stage's study table of a release + batch ``<b>`` (a name is data)."""
    rows = []
    for batch, years in (("release", {"2024": 8, "2025": 2}), ("<b>", {"2025": 1, "2026": 3}),
                         ("", {"2024": 8, "2025": 3, "2026": 3})):
        for column, n in [*years.items(), ("Total", sum(years.values()))]:
            rows.append(("Sum", "All projects", batch or None, column, n,
                         batch == "<b>" and column == "2025"))
    return pd.DataFrame(rows, columns=["project", "name", "batch", "column", "issues",
                                       "release_year"])


def test_the_study_now_names_each_part_its_annotators_and_the_data(project):
    project.write(overview.STUDY, study_counts())
    project.write(overview.BATCHES, pd.DataFrame({
        "batch": ["release", "<b>", "all batches"], "annotators": [7, 3, 10],
        "fleiss_kappa": [0.8, 0.5, None], "fleiss_kappa_ci_low": [0.7, 0.2, None],
        "fleiss_kappa_ci_high": [0.9, 0.8, None]}))
    project.write(overview.BATCH_RATES, pd.DataFrame({
        "batch": ["<b>", "<b>"], "project": ["vllm", "Sum"], "name": ["vLLM", "All"],
        "excluded": [1, 1], "candidates": [5, 5], "false_positive_percent": [20.0, 20.0],
        "ci_low": [3.6, None], "ci_high": [62.4, None]}))
    now = overview.study_now(project.inputs())
    assert now.startswith("## The study now") and "the release + 1 batch of" in now
    assert ">batch &lt;b&gt;<" in now and "<b>" not in now  # escaped
    assert ">7<" in now and ">3<" in now  # each part's own annotators
    assert "0.500 (0.200–0.800)" in now and "20.00%; 5 candidates" in now
    assert "2025–2026 (2025 also in the release)" in now
    assert "the release's 10 reports alone" in now
    parts = overview.study_parts(study_counts())
    assert overview.data_phrase(parts) == "the release + 1 batch"
    links = overview.study_links({}, {}, parts)
    assert "This build's data: the release + 1 batch, 14 reports" in links
    assert "&lt;b&gt;: 4" in links


def test_the_data_is_cited_with_its_swhids_beside_the_repository():
    ref = {"type": "data", "repository-code": "https://github.com/o/r", "commit": "c" * 40,
           "identifiers": [{"type": "swh", "value": "swh:1:rev:" + "c" * 40},
                           {"type": "swh", "value": "swh:1:dir:" + "d" * 40},
                           {"type": "swh", "value": "swh:1:dir:<script>"}]}
    cited = overview.release_citation(ref)
    assert f'<a href="https://github.com/o/r/tree/{"c" * 40}">' in cited
    for swhid in ("swh:1:rev:" + "c" * 40, "swh:1:dir:" + "d" * 40):
        assert f'<a href="https://archive.softwareheritage.org/{swhid}">{swhid}</a>' in cited
    assert "script" not in cited
    cite = overview.how_to_cite({"preferred-citation": {"title": "T"}, "references": [ref]})
    assert "<strong>The data</strong>" in cite and "swh:1:rev:" in cite
    assert overview.release_citation({}) == ""
