"""The Reproducibility page's includes (:mod:`analysis.report.pages.reproducibility`)."""

from __future__ import annotations

import pandas as pd

from analysis.findings.compute import totals
from analysis.report.generated import STATUS_LABELS
from analysis.report.pages import reproducibility
from tests.support.scoreboards import scoreboard_counts
from tests.unit.report.pages.conftest import scorecard

TOTALS = {"claims": 4, "exact": 2, "rounding": 0, "differs": 1, "not_reproducible": 1,
          "printed": 3, "printed_exact": 2, "printed_rounding": 0, "printed_differs": 0,
          "printed_not_reproducible": 1, "examples_cited": 1, "examples_exact": 0,
          "examples_rounding": 0, "examples_differs": 1, "examples_not_reproducible": 0}
BY_SOURCE = pd.DataFrame({"source": ["Abstract", "Section I"], "place": [1, 2],
                          "claims": [1, 3], "exact": [1, 1], "rounding": [0, 0],
                          "differs": [0, 1], "not_reproducible": [0, 1]})


def test_summary_two_boards_bars_legends_and_places():
    out = reproducibility.scorecard_summary(TOTALS, BY_SOURCE)
    assert ('aria-label="The numbers the paper prints: 2 exact, 0 within rounding, 0 '
            'differs, 1 not reproducible"') in out
    assert ('aria-label="The example reports the paper cites: 0 exact, 0 within rounding, '
            '1 differs, 0 not reproducible"') in out
    assert 'style="width:66.667%"' in out and "st-rounding\" style" not in out
    assert 'href="reproducibility.html#scorecard-not-reproducible"><strong>1 not ' in out
    assert "1 differs</strong></a>: the release labels the report with another theme" in out
    assert out.index("The numbers the paper prints: 3<") < out.index(
        "The example reports the paper cites: 1<")
    assert ">where in the paper<" in out and ">place<" not in out
    assert "The verdicts per place in the paper (2 places)</summary>" in out
    assert out.index(">Abstract<") < out.index(">Section I<")


def test_the_overviews_two_scoreboards_add_up_to_the_scorecards_rows():
    """The boards the Overview shows, from the findings stage's totals of a card with both
    kinds of claim, read back as printed: together they are the card, status by status."""
    card = scorecard(("t.a", "1", "1", "exact"), ("t.b", "1", "1", "exact"),
                     ("t.c", "2", "3", "differs"), ("t.d", "5", "", "not_reproducible"),
                     ("t.e", "10", "11", "rounding"),
                     ("examples.ref1", "A.1", "A.1", "exact"),
                     ("examples.ref2", "A.1", "B.2", "differs"),
                     ("examples.ref3", "A.1", "B.2", "differs"),
                     ("examples.ref4", "C.3", "", "not_reproducible"))
    out = reproducibility.scorecard_summary(totals(card), BY_SOURCE)
    boards = scoreboard_counts(out)
    assert boards == {
        "printed": {"claims": 5, "exact": 2, "rounding": 1, "differs": 1,
                    "not_reproducible": 1},
        "examples": {"claims": 4, "exact": 1, "rounding": 0, "differs": 2,
                     "not_reproducible": 1}}
    assert sum(b["claims"] for b in boards.values()) == len(card)
    for status in STATUS_LABELS:
        assert sum(b[status] for b in boards.values()) == (card["status"] == status).sum()


def test_full_scorecard_one_section_per_verdict():
    card = scorecard(*[(f"c.{i}", "1", "1", "exact") for i in range(16)],
                     ("d.1", "2", "3", "differs"))
    card.loc[16, "relation"] = ">"
    out = reproducibility.scorecard_full(card)
    assert "### Exact: 16 printed numbers, 0 cited examples {#scorecard-exact}" in out
    assert "### Within rounding: 0 printed numbers, 0 cited examples" in out
    assert "No claims." in out
    assert out.count('collapse="true"') == 2  # every list folded behind its count
    assert "The 16 printed numbers that are exact" in out
    assert "The 1 printed number that differs" in out
    assert ">&gt;2<" in out.replace('class="num">', ">") and "c.<wbr>1" in out


def test_the_verdicts_headings_count_each_kind_as_the_scoreboards_do():
    """The full scorecard's headings give the scoreboards' counts (printed numbers and
    cited examples apart), and each folded list is a sentence in number agreement."""
    card = scorecard(("p.1", "1", "2", "differs"), ("p.2", "1", "3", "differs"),
                     ("examples.ref1", "A.1", "A.2", "differs"),
                     ("p.3", "1", "", "not_reproducible"))
    out = reproducibility.scorecard_full(card)
    assert "### Differs: 2 printed numbers, 1 cited example {#scorecard-differs}" in out
    assert "The 2 printed numbers that differ" in out
    assert "The 1 cited example that differs" in out
    assert "The 1 printed number that cannot be reproduced" in out
    assert "claims differs" not in out


def test_params_and_seeds(project):
    project.write(reproducibility.PARAMS, "agreement:\n  seed: 7  # <b>\nother: {x: 1}\n")
    out = reproducibility.params_include(project.inputs())
    assert "# &lt;b&gt;" in out and "Seeds: <code>agreement.seed</code> = 7." in out
    assert reproducibility.find_seeds({"a": {"b": {"rng_seed": 1}}, "seed": 2}) == {
        "a.b.rng_seed": 1, "seed": 2}
    assert "no seed" in reproducibility.params_block("x: 1\n", {})
