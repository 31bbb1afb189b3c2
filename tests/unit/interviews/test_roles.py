"""Roles to categories, the other readings of the roles, the session length."""

from __future__ import annotations

import pandas as pd

from analysis.core.claims import load_claims
from analysis.interviews.params import RoleCategory
from analysis.interviews.roles import (
    ROLE_CLAIMS,
    compositions,
    matching_categories,
    readings_note,
    role_claims,
    role_mappings,
    role_table,
    session_minutes,
)
from tests.support.stages import interviews_result
from tests.unit.interviews.synthetic import PARAMS

CATEGORIES = [RoleCategory(key=key, type="Developer", pattern=key)
              for key in ("training", "inference", "deployment")]


def test_every_matching_category_in_params_order():
    assert matching_categories("Inference and Deployment Engineer", "Developer",
                               CATEGORIES) == ["inference", "deployment"]
    assert matching_categories("Inference", "User", CATEGORIES) == []


def test_compositions_put_everyone_in_the_first_category_first():
    assert list(compositions(2, 2)) == [(2, 0), (1, 1), (0, 2)]
    assert len(list(compositions(3, 3))) == 10


def test_role_mappings_list_every_reading_and_its_counts():
    bg = pd.DataFrame({"type": ["Developer"] * 3,
                       "role_raw": ["D-Inference and Deployment Engineer"] * 2 + ["D-Training"],
                       "role_title": ["Inference and Deployment Engineer"] * 2 + ["Training"],
                       "role_category": ["inference", "inference", "training"]})
    roles = role_table(bg, CATEGORIES)
    assert roles["participants"].tolist() == [2, 1]
    assert roles["matching"].tolist() == ["inference, deployment", "training"]
    m = role_mappings(roles, ["training", "inference", "deployment"])
    wide = m.pivot(index="mapping", columns="category", values="participants")
    assert wide[["training", "inference", "deployment"]].values.tolist() == [
        [1, 2, 0], [1, 1, 1], [1, 0, 2]]
    assert m.loc[m["mapping"] == 0, "description"].eq("").all()
    assert m.loc[m["mapping"] == 1, "description"].iloc[0] == (
        "Inference and Deployment Engineer: 1 inference, 1 deployment")
    assert role_mappings(roles, ["training"], limit=2)["mapping"].nunique() == 2


def test_a_count_that_depends_on_the_reading_says_each_and_the_one_used():
    m = role_mappings(role_table(pd.DataFrame({
        "type": ["Developer"] * 3,
        "role_raw": ["D-Inference and Deployment Engineer"] * 2 + ["D-Training"],
        "role_title": ["Inference and Deployment Engineer"] * 2 + ["Training"],
        "role_category": ["inference", "inference", "training"]}), CATEGORIES),
        ["training", "inference", "deployment"])
    assert readings_note(m, ("deployment",)) == (
        "the count depends on how the sheet's roles are read (3 readings; the verdict uses "
        "reading 1): reading 1, the verdict's (each role in its first matching category): "
        "0; reading 2, Inference and Deployment Engineer: 1 inference, 1 deployment: 1; "
        "reading 3, Inference and Deployment Engineer: 2 deployment: 2")
    assert readings_note(m, ("training",)) == ""  # the same under every reading


def test_session_minutes_from_the_guideline():
    text = "# Guide\n\nSemi-structured, 30–40 minutes per session.\n"
    assert session_minutes(text) == (30, 40, 3)
    assert session_minutes("about an hour") is None


def claims_of(*rows: tuple[str, str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["claim_id", "paper_value", "relation"])


def test_role_claims_say_which_readings_give_the_paper_count():
    m = pd.DataFrame({"mapping": [0, 0, 1, 1], "description": ["", "", "X: 1 deployment",
                                                                "X: 1 deployment"],
                      "category": ["inference", "deployment"] * 2,
                      "participants": [2, 0, 1, 1]})
    claims = claims_of(("interviews.developers.deployment.count", "1", "="),
                       ("interviews.developers.inference.count", "1", ">"),
                       ("interviews.users.count", "4", "="))
    r = role_claims(m, claims).set_index("claim_id")
    assert list(r.index) == ["interviews.developers.inference.count",
                             "interviews.developers.deployment.count"]  # ROLE_CLAIMS order
    # "over one" inference developer: the reading used gives 2, the other 1
    assert r.loc["interviews.developers.inference.count"].to_dict() == {
        "paper": ">1", "ours": 2, "possible": "1, 2", "readings": "the one used",
        "by_reading": "2; 1"}
    assert r.loc["interviews.developers.deployment.count"].to_dict() == {
        "paper": "1", "ours": 0, "possible": "0, 1", "readings": "X: 1 deployment",
        "by_reading": "0; 1"}
    none = role_claims(m, claims_of(("interviews.developers.training.count", "5", "=")))
    assert none["readings"].tolist() == ["none"] and none["ours"].tolist() == [0]


def test_the_stage_reads_its_role_claims_from_the_claims_file(files, taxonomy):
    claims = load_claims()
    result = interviews_result(files, taxonomy, PARAMS, claims)
    assert set(result.role_claims["claim_id"]) == set(ROLE_CLAIMS)
    used = result.role_mappings[result.role_mappings["mapping"] == 0]
    engineers = result.role_claims.set_index("claim_id").loc[
        "interviews.users.engineers.count"]
    assert engineers["ours"] == int(used.loc[used["category"] == "engineer",
                                             "participants"].sum())
    assert interviews_result(files, taxonomy, PARAMS).role_claims.empty  # without the claims
