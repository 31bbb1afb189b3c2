"""The scorecard: every claim beside its reproduced value, statuses, merged stage files."""

from __future__ import annotations

import pytest

from analysis.core.claims import STATUSES, load_claims
from analysis.core.paths import ROOT, Paths
from analysis.findings import outputs
from analysis.findings.scorecard import (
    SCORECARD_COLUMNS,
    compute,
    merge_reproduced,
    scorecard,
    status_counts,
)

CLAIMS = """claims:
  - {id: a.one, value: "1,234", source: Table I, description: one}
  - {id: a.two, value: "0.512", source: III.B, description: two}
  - {id: a.three, value: "5", description: three, reproducible: false, reason: never released}
  - {id: a.four, value: "8", description: over eight, relation: gt}
  - {id: a.five, value: "2", description: nobody computes this}
"""


@pytest.fixture
def claims(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text(CLAIMS)
    return load_claims(path)


def test_scorecard_statuses(claims):
    card = scorecard(claims, {"a.one": {"value": 1234}, "a.two": {"value": 0.52},
                              "a.four": {"value": 7, "note": "7 and 6 years"}})
    assert list(card.columns) == SCORECARD_COLUMNS
    assert list(card["status"]) == ["exact", "differs", "not_reproducible", "differs",
                                    "not_reproducible"]
    assert card.loc[0, "reproduced_value"] == "1,234" and card.loc[2, "reproduced_value"] == ""
    assert card.loc[2, "note"] == "never released"
    assert card.loc[3, "note"] == "7 and 6 years"
    assert "no stage" in card.loc[4, "note"]
    assert status_counts(card) == {"exact": 1, "rounding": 0, "differs": 2,
                                   "not_reproducible": 2}


def test_merge_reproduced_refuses_clashes():
    assert merge_reproduced([{"a": {"value": 1}}, {"b": {"value": 2}}]) == {
        "a": {"value": 1}, "b": {"value": 2}}
    with pytest.raises(ValueError, match="two stages"):
        merge_reproduced([{"a": {"value": 1}}, {"a": {"value": 2}}])


def test_compute_merges_the_stages_files_and_outputs_the_card_and_counts(claims):
    result = compute(claims, [{"a.one": {"value": 1235}}, {"a.two": {"value": 0.512}}, {}])
    assert result.card.set_index("claim_id")["status"].to_dict() == {
        "a.one": "rounding", "a.two": "exact", "a.three": "not_reproducible",
        "a.four": "not_reproducible", "a.five": "not_reproducible"}
    built = outputs.build(result)
    assert set(built.tables) == set(Paths(ROOT).findings.TABLES)
    assert built.tables["scorecard.csv"] is result.card
    assert built.metrics == {"claims": 5, "exact": 1, "rounding": 1, "differs": 0,
                             "not_reproducible": 3}
    assert list(built.metrics)[1:] == list(STATUSES)
    assert built.website_vars is None and built.claim_values is None
    with pytest.raises(ValueError, match="two stages"):
        compute(claims, [{"a.one": {"value": 1}}, {"a.one": {"value": 1}}])
