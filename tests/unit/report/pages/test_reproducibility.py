"""The Reproducibility page's includes (:mod:`analysis.report.pages.reproducibility`)."""

from __future__ import annotations

import pandas as pd

from analysis.report.pages import reproducibility
from tests.unit.report.pages.conftest import scorecard

TOTALS = {"claims": 4, "exact": 2, "rounding": 0, "differs": 1, "not_reproducible": 1}
BY_SOURCE = pd.DataFrame({"source": ["Abstract", "Section I"], "place": [1, 2],
                          "claims": [1, 3], "exact": [1, 1], "rounding": [0, 0],
                          "differs": [0, 1], "not_reproducible": [0, 1]})


def test_summary_bar_legend_and_places():
    out = reproducibility.scorecard_summary(TOTALS, BY_SOURCE)
    assert 'aria-label="2 exact, 0 within rounding, 1 differs, 1 not reproducible"' in out
    assert 'style="width:50.000%"' in out and "st-rounding\" style" not in out
    assert 'href="reproducibility.html#scorecard-not-reproducible"><strong>1 not ' in out
    assert ">where in the paper<" in out and ">place<" not in out
    assert "The verdicts per place in the paper (2 places)</summary>" in out
    assert out.index(">Abstract<") < out.index(">Section I<")


def test_full_scorecard_one_section_per_verdict():
    card = scorecard(*[(f"c.{i}", "1", "1", "exact") for i in range(16)],
                     ("d.1", "2", "3", "differs"))
    card.loc[16, "relation"] = ">"
    out = reproducibility.scorecard_full(card)
    assert "### Exact: 16 claims {#scorecard-exact}" in out
    assert "### Within rounding: 0 claims" in out and "No claims." in out
    assert out.count('collapse="true"') == 2  # every list folded behind its count
    assert "The 16 claims exact" in out and "The 1 claim differs" in out
    assert ">&gt;2<" in out.replace('class="num">', ">") and "c.<wbr>1" in out


def test_params_and_seeds(project):
    project.write(reproducibility.PARAMS, "agreement:\n  seed: 7  # <b>\nother: {x: 1}\n")
    out = reproducibility.params_include(project.inputs())
    assert "# &lt;b&gt;" in out and "Seeds: <code>agreement.seed</code> = 7." in out
    assert reproducibility.find_seeds({"a": {"b": {"rng_seed": 1}}, "seed": 2}) == {
        "a.b.rng_seed": 1, "seed": 2}
    assert "no seed" in reproducibility.params_block("x: 1\n", {})
