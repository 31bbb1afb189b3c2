"""The scorecard: every claim beside its reproduced value, statuses, merged stage files."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core.claims import STATUSES, load_claims
from analysis.core.paths import ROOT, Paths
from analysis.findings import outputs
from analysis.findings.compute import (
    SCORECARD_COLUMNS,
    claim_groups,
    compute,
    differences_by_cause,
    merge_reproduced,
    paper_order,
    scoreboards,
    scorecard,
    status_by_group,
    status_by_source,
    status_counts,
    totals,
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


def test_a_value_computed_from_the_dump_is_judged_although_the_release_cannot_give_it(claims):
    """Table I's false-positive rate of a dump that records its exclusions: the card
    follows Table I instead of saying "not reproducible"."""
    card = scorecard(claims, {"a.three": {"value": 5.0, "computed": True, "note": "1 of 20"}})
    row = card.set_index("claim_id").loc["a.three"]
    assert row["status"] == "exact" and row["note"] == "1 of 20"
    card = scorecard(claims, {"a.three": {"value": 5.0}})
    assert card.set_index("claim_id").loc["a.three", "status"] == "not_reproducible"


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
    # the metrics keep the paper's printed numbers and its cited examples apart
    assert built.metrics == {
        "claims": 5,
        "printed": {"claims": 5, "exact": 1, "rounding": 1, "differs": 0,
                    "not_reproducible": 3},
        "examples": {"claims": 0, "exact": 0, "rounding": 0, "differs": 0,
                     "not_reproducible": 0}}
    assert list(built.metrics["printed"])[1:] == list(STATUSES)
    assert built.website_vars == {"claims": 5, "exact": 1, "rounding": 1, "differs": 0,
                                  "not_reproducible": 3, "checkable": 2, "reproduced": 2,
                                  "reproduced_pct": "100%", "printed": 5,
                                  "printed_checkable": 2, "printed_reproduced": 2,
                                  "printed_reproduced_pct": "100%", "printed_exact": 1,
                                  "printed_rounding": 1, "printed_differs": 0,
                                  "printed_not_reproducible": 3, "examples_cited": 0,
                                  "examples_in_release": 0, "examples_cited_theme": 0,
                                  "examples_exact": 0, "examples_rounding": 0,
                                  "examples_differs": 0, "examples_not_reproducible": 0,
                                  "dominant_share": 50.0}
    assert built.tables["differences_by_cause.csv"].empty
    assert built.claim_values is None
    assert built.tables["challenges.csv"].empty and built.tables["dominant.csv"].empty
    with pytest.raises(ValueError, match="two stages"):
        compute(claims, [{"a.one": {"value": 1}}, {"a.one": {"value": 1}}])


def card_of(*rows: tuple[str, str, str]) -> pd.DataFrame:
    """A scorecard of (claim id, status, source) rows."""
    return pd.DataFrame([{"claim_id": c, "status": st, "source": src} for c, st, src in rows])


def test_totals_say_how_many_the_release_answers():
    card = card_of(("a.x", "exact", ""), ("a.y", "rounding", ""), ("a.z", "differs", ""),
                   ("b.x", "not_reproducible", ""))
    assert totals(card) == {"claims": 4, "exact": 1, "rounding": 1, "differs": 1,
                            "not_reproducible": 1, "checkable": 3, "reproduced": 2,
                            "reproduced_pct": "67%", "printed": 4, "printed_checkable": 3,
                            "printed_reproduced": 2, "printed_reproduced_pct": "67%",
                            "printed_exact": 1, "printed_rounding": 1,
                            "printed_differs": 1, "printed_not_reproducible": 1,
                            "examples_cited": 0, "examples_in_release": 0,
                            "examples_cited_theme": 0, "examples_exact": 0,
                            "examples_rounding": 0, "examples_differs": 0,
                            "examples_not_reproducible": 0}
    assert totals(card.iloc[3:])["reproduced_pct"] is None  # nothing the release answers


def test_printed_numbers_and_cited_examples_are_counted_apart():
    card = card_of(("a.x", "exact", ""), ("a.y", "differs", ""),
                   ("examples.ref1", "exact", ""), ("examples.ref2", "differs", ""),
                   ("examples.ref3", "not_reproducible", ""))
    t = totals(card)
    assert (t["printed"], t["printed_checkable"], t["printed_reproduced"],
            t["printed_differs"]) == (2, 2, 1, 1)
    assert (t["examples_cited"], t["examples_in_release"],
            t["examples_cited_theme"]) == (3, 2, 1)
    assert t["claims"] == 5 and t["differs"] == 2  # the whole card as before
    # each kind its own scoreboard, and the two add up to the card
    assert {k: t[f"examples_{k}"] for k in STATUSES} == {
        "exact": 1, "rounding": 0, "differs": 1, "not_reproducible": 1}
    assert {k: t[f"printed_{k}"] for k in STATUSES} == {
        "exact": 1, "rounding": 0, "differs": 1, "not_reproducible": 0}
    boards = scoreboards(card)
    assert sum(b["claims"] for b in boards.values()) == len(card)
    for s in STATUSES:
        assert sum(b[s] for b in boards.values()) == (card["status"] == s).sum()


def test_differences_are_grouped_by_their_root_cause():
    claims = pd.DataFrame([
        {"claim_id": i, "description": "", "paper_value": v, "source": "S", "relation": "=",
         "kind": k, "reproducible": True, "reason": ""}
        for i, v, k in (("t.sub", "6", "count"), ("i.roles", "3", "count"),
                        ("o.other", "1", "number"), ("examples.ref9", "A.1", "label"),
                        ("t.same", "2", "count"))])
    card = scorecard(claims, {
        "t.sub": {"value": 7, "cause": "subtheme_numbering"},
        "i.roles": {"value": 2, "cause": "interview_roles"},
        "o.other": {"value": 5, "cause": "no such cause"},
        "examples.ref9": {"value": "B.2"},
        "t.same": {"value": 2, "cause": "subtheme_numbering"}})
    assert card.set_index("claim_id")["cause"].to_dict() == {
        "t.sub": "subtheme_numbering", "i.roles": "interview_roles", "o.other": "other",
        "examples.ref9": "cited_example_label", "t.same": ""}  # exact: no cause
    by_cause = differences_by_cause(card)
    assert by_cause["cause"].tolist() == ["subtheme_numbering", "cited_example_label",
                                          "interview_roles", "other"]  # CAUSES' order
    assert by_cause["claims"].tolist() == [1, 1, 1, 1]
    assert by_cause.set_index("cause").loc["subtheme_numbering", "claim_ids"] == "t.sub"
    assert differences_by_cause(card[card["status"] != "differs"]).empty


def test_groups_and_the_claims_their_page_folds():
    card = card_of(("taxonomy.themes", "exact", "S"), ("taxonomy.subthemes.A.1", "exact", "S"),
                   ("taxonomy.subthemes.B.2", "differs", "S"), ("agreement.kappa.bug",
                                                                "rounding", "S"))
    groups = claim_groups(card)
    assert groups["group"].tolist() == ["taxonomy"] * 3 + ["agreement"]
    assert groups["folded"].tolist() == [False, True, False, False]  # exact per-theme claims
    by_group = status_by_group(card, groups).set_index("group")
    assert by_group.loc["taxonomy"].to_dict() == {"claims": 3, "exact": 2, "rounding": 0,
                                                  "differs": 1, "not_reproducible": 0,
                                                  "folded": 1}
    assert by_group.index.tolist() == ["taxonomy", "agreement"]  # the scorecard's order


def test_sources_follow_the_paper():
    assert paper_order("Abstract") < paper_order("Section I") < paper_order("Section III.A")
    assert paper_order("Section III.A") < paper_order("Table I") < paper_order("Section III.B")
    assert paper_order("Section IV.A (roles); Section V") == paper_order("Section IV.A")
    assert paper_order("Section II") < paper_order("somewhere else")
    card = card_of(("a", "exact", "Section II"), ("b", "differs", "Abstract"),
                   ("c", "exact", "Table I"), ("d", "exact", "Section II; Abstract"),
                   ("e", "exact", "Section II"))
    by_source = status_by_source(card)
    assert by_source["source"].tolist() == ["Abstract", "Section II", "Section II; Abstract",
                                            "Table I"]
    assert by_source["place"].tolist() == [1, 2, 2, 3]  # the same place shares a number
    assert by_source.set_index("source").loc["Section II", ["claims", "exact"]].tolist() == [
        2, 2]


def test_compute_counts_the_challenges_at_the_threshold(claims):
    themes = pd.DataFrame({"code": ["A.1", "B.2", "C.1"], "issues": [10, 30, 60]})
    shares = pd.DataFrame({"table": ["theme_by_project"] * 3, "row": ["A.1", "B.2", "C.1"],
                           "column": ["p"] * 3, "issues": [10, 30, 60]})
    challenges = [{"number": 1, "title": "One", "themes": ["A.1", "C.1"]}]
    result = compute(claims, [], themes, shares, challenges, {"p": "P"}, 90.0)
    assert result.coverage["issues"].tolist() == [70]
    assert result.dominant.empty and result.dominant_share == 90.0  # C.1 holds 60 of 70
    assert compute(claims, [], themes, shares, challenges, {}, 85.0).dominant[
        "theme"].tolist() == ["C.1"]


def test_a_dominant_share_in_range_is_taken(claims):
    assert compute(claims, [], dominant_share=66.5).dominant_share == 66.5
