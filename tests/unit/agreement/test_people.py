"""Each annotator of a study, batch by batch (analysis.agreement.people): the majority of
the others, Cohen's kappa against it and against the final label with clipped intervals,
the pairs of a batch, and the people named as the study names them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from analysis.agreement.inputs import load_people
from analysis.agreement.pairwise import cross_table
from analysis.agreement.people import (
    PAIR_COLUMNS,
    PERSON_COLUMNS,
    annotators_by_batch,
    batch_pairs,
    batch_persons,
    batch_ratings,
    clipped_cohen,
    label_column,
    majority_of_others,
    person_names,
    walkthrough,
)
from analysis.agreement.ratings import MISSING, Ratings

M = MISSING

PEOPLE = pd.DataFrame(
    [["release", "Label1", "annotator_1", ""], ["release", "Label2", "annotator_2", ""],
     ["b1", "Label3", "annotator_3", "alice"], ["b1", "Label4", "annotator_4", "bob"],
     ["b1", "Label5", "annotator_5", "chen"], ["b2", "Label3", "annotator_3", "alice"],
     ["b2", "Label4", "annotator_4", ""], ["b2", "Label6", "annotator_6", "dana"]],
    columns=["batch", "label_column", "annotator", "name"])


def study() -> pd.DataFrame:
    """The release in annotator_1..2; batch b1 by alice, bob and chen (3..5); b2 by alice,
    bob (named only in b1) and dana (3, 4, 6)."""
    release = [["A.1", "A.1", None, None, None, None, "A.1", "release"],
               ["B.2", "B.1", None, None, None, None, "B.2", "release"],
               ["C.3", "C.3", None, None, None, None, "C.3", "release"]]
    b1 = [[None, None, "C.3", "C.3", "C.3", None, "C.3", "b1"],
          [None, None, "A.1", "A.1", "A.2", None, "A.1", "b1"],
          [None, None, "B.2", "B.3", "B.2", None, "B.2", "b1"],
          [None, None, "A.1", "A.2", "A.3", None, "A.2", "b1"],   # no majority: decided
          [None, None, "C.1", "C.1", "C.1", None, "C.1", "b1"],
          [None, None, "C.3", "C.1", None, None, "C.3", "b1"]]    # chen left it
    b2 = [[None, None, "A.1", "A.1", None, "A.1", "A.1", "b2"],
          [None, None, "B.2", "B.2", None, "C.1", "B.2", "b2"],
          [None, None, "C.3", "C.3", None, "C.3", "C.3", "b2"]]
    frame = pd.DataFrame(release + b1 + b2,
                         columns=[*(f"annotator_{k}" for k in range(1, 7)), "final_label",
                                  "batch"])
    frame["type"] = frame["final_label"].str[0].map({"A": "Question", "B": "Requirement",
                                                     "C": "Bug"})
    return frame


# --------------------------------------------------------------------------- names


def test_each_column_is_named_as_the_study_names_its_person():
    columns = ["annotator_3", "annotator_4", "annotator_6"]
    assert person_names(PEOPLE, "b2", columns) == {
        "annotator_3": "alice", "annotator_4": "bob",  # bob: his name in another batch
        "annotator_6": "dana"}
    assert person_names(PEOPLE, "release", ["annotator_1"]) == {"annotator_1": "Label1"}
    assert person_names(None, "b1", ["annotator_12"]) == {"annotator_12": "Label12"}
    assert label_column("annotator_10") == "Label10"


def test_the_clean_stages_people_are_read_as_text(tmp_path):
    path = tmp_path / "people.csv"
    PEOPLE.to_csv(path, index=False)
    read = load_people(path)
    assert read["name"].tolist()[:3] == ["", "", "alice"]
    assert load_people(tmp_path / "absent.csv") is None  # the release: no table


# --------------------------------------------------------------------------- the others


def test_the_majority_of_the_others_leaves_out_the_person_and_their_ties():
    codes = np.array([[0, 0, 0],    # the others agree on 0
                      [1, 0, 2],    # the others tie (0 / 2): no majority
                      [2, 1, M],    # one other rated: their label
                      [0, M, M],    # no other rated
                      [3, 3, 1]], dtype=np.int8)
    assert majority_of_others(codes, 0, 4).tolist() == [0, M, 1, M, M]
    # for the second annotator the person's own 3 on the last row counts among the others
    assert majority_of_others(codes, 1, 4).tolist() == [0, M, 2, 0, M]
    with_four = np.array([[0, 0, 1, 1], [0, 1, 2, 1]], dtype=np.int8)
    assert majority_of_others(with_four, 3, 3).tolist() == [0, M]  # 2 of 3; 1 of 3 each
    assert majority_of_others(with_four, 0, 3).tolist() == [1, 1]  # 2 of 3 both times
    assert majority_of_others(np.empty((0, 3), np.int8), 1, 4).tolist() == []


def test_kappa_is_cohens_with_its_interval_clipped():
    x = np.array([0, 0, 1, 1, 2, 2, 0, 1, M], dtype=np.int8)
    y = np.array([0, 0, 1, 1, 2, 0, 0, 1, 2], dtype=np.int8)
    res = clipped_cohen(x, y, 3, 0.95)
    expected = cohens_kappa(cross_table(x, y, 3))
    assert res["n"] == 8 and res["agreement"] == pytest.approx(7 / 8)
    assert res["kappa"] == pytest.approx(expected.kappa)
    assert res["ci_high"] == 1.0  # kappa + 1.96 se is above 1: clipped
    assert res["ci_low"] == pytest.approx(expected.kappa - 1.959964 * expected.std_kappa,
                                          abs=1e-6)
    one = clipped_cohen(np.zeros(4, np.int8), np.zeros(4, np.int8), 3, 0.95)
    assert one["kappa"] is None and "one category" in one["note"]
    none = clipped_cohen(np.array([M], np.int8), np.array([0], np.int8), 3, 0.95)
    assert none["n"] == 0 and none["kappa"] is None


# --------------------------------------------------------------------------- one batch


def test_a_batch_is_coded_on_its_own_columns_with_its_final_labels():
    issues = study()
    b1 = issues[issues["batch"] == "b1"]
    ratings, final = batch_ratings(b1, ["A.1", "A.2", "A.3", "B.2", "B.3", "C.1", "C.3"])
    assert ratings.annotators == ("annotator_3", "annotator_4", "annotator_5")
    assert ratings.codes.shape == (6, 3) and ratings.codes[5, 2] == M
    assert [ratings.categories[c] for c in final] == list(b1["final_label"])
    # a final label no annotator of the batch gave (an adjudicators' decision) is coded too
    odd = b1.assign(final_label=["X.9", *b1["final_label"][1:]])
    ratings, final = batch_ratings(odd, ["A.1"])
    assert ratings.categories[final[0]] == "X.9"


def ratings_of(*columns: list[int], n_categories: int = 3) -> Ratings:
    codes = np.array(columns, dtype=np.int8).T
    return Ratings(codes, tuple("ABCDEFG"[:n_categories]),
                   tuple(f"annotator_{k}" for k in range(1, len(columns) + 1)))


def test_each_person_against_the_others_majority_and_the_final_label():
    r = ratings_of([0, 1, 2, 0, 1], [0, 1, 2, 1, 1], [0, 1, 1, 2, 1])
    final = np.array([0, 1, 2, 1, 1], dtype=np.int8)
    table = batch_persons(r, final, {"annotator_1": "alice"}, "b", 0.95)
    assert list(table.columns) == PERSON_COLUMNS
    assert list(table["person"]) == ["alice", "Label2", "Label3"]
    assert list(table["label_column"]) == ["Label1", "Label2", "Label3"]
    first = table.iloc[0]
    assert (first["issues"], first["rated"]) == (5, 5)
    # the others (2 and 3) agree on issues 0, 1 and 4 only
    assert first["others_issues"] == 3 and first["others_agreement"] == 1.0
    assert first["final_agreement"] == pytest.approx(4 / 5)
    expected = cohens_kappa(cross_table(r.codes[:, 0], final, 3)).kappa
    assert first["final_kappa"] == pytest.approx(expected)
    assert first["final_ci_low"] <= first["final_kappa"] <= first["final_ci_high"] <= 1
    assert first["note"] == ""


def test_a_kappa_that_is_not_defined_says_why():
    r = ratings_of([0, 0, 0], [0, 0, 0], [0, 1, 0])
    table = batch_persons(r, np.array([0, 0, 0], np.int8), {}, "b", 0.95)
    first = table.iloc[0]
    assert first["final_kappa"] is None or pd.isna(first["final_kappa"])
    assert first["note"].startswith("final label: not defined")
    assert "majority of the others: not defined" in first["note"]
    # the third's kappa is 0, one of the two raters (the final label) giving one label
    # throughout: statsmodels' variance is a round-off below zero, that is zero
    third = table.iloc[2]
    assert third["final_kappa"] == pytest.approx(0.0)
    assert third["final_ci_low"] == third["final_ci_high"] == third["final_kappa"]
    assert not third["note"].startswith("final label")


def test_perfect_agreement_has_an_interval_of_no_width_on_every_machine():
    x = np.array([0, 1, 1, 1, 1, 2], dtype=np.int8)  # statsmodels: var_kappa -7e-17
    res = clipped_cohen(x, x.copy(), 4, 0.95)  # (the sqrt of it is NaN)
    assert (res["kappa"], res["ci_low"], res["ci_high"], res["note"]) == (1.0, 1.0, 1.0, "")


def test_a_variance_clearly_below_zero_gives_no_interval(monkeypatch):
    from types import SimpleNamespace

    from analysis.agreement import people

    monkeypatch.setattr(people, "cohen", lambda table, level: {
        "n": 4, "agreement": 0.5, "kappa": 0.2, "ci_low": float("nan"),
        "ci_high": float("nan"), "note": ""})
    monkeypatch.setattr(people, "cohens_kappa", lambda table: SimpleNamespace(var_kappa=-0.1))
    res = people.clipped_cohen(np.zeros(4, np.int8), np.ones(4, np.int8), 2, 0.95)
    assert (res["ci_low"], res["ci_high"]) == (None, None)
    assert res["note"] == "no interval: the variance is negative"


def test_every_two_annotators_of_a_batch_once():
    r = ratings_of([0, 1, 2, 0], [0, 1, 2, 1], [0, 1, M, 2])
    pairs = batch_pairs(r, {"annotator_2": "bob"}, "b", 0.95)
    assert list(pairs.columns) == PAIR_COLUMNS
    assert list(zip(pairs["person_a"], pairs["person_b"], strict=True)) == [
        ("Label1", "bob"), ("Label1", "Label3"), ("bob", "Label3")]
    assert list(pairs["n"]) == [4, 3, 3]
    assert pairs.loc[0, "agreement"] == pytest.approx(3 / 4)
    assert pairs.loc[0, "kappa"] == pytest.approx(
        cohens_kappa(cross_table(r.codes[:, 0], r.codes[:, 1], 3)).kappa)
    assert batch_pairs(ratings_of([0, 1]), {}, "b", 0.95).empty  # one annotator: no pair


# --------------------------------------------------------------------------- a study


def test_every_batch_every_person_the_release_first():
    persons, pairs = annotators_by_batch(study(), PEOPLE, ["A.1", "B.2", "C.3"])
    assert list(dict.fromkeys(persons["batch"])) == ["release", "b1", "b2"]
    by = persons.set_index(["batch", "person"])
    assert list(by.loc["release"].index) == ["Label1", "Label2"]
    assert list(by.loc["b1"].index) == ["alice", "bob", "chen"]
    assert list(by.loc["b2"].index) == ["alice", "bob", "dana"]  # followed: same columns
    assert by.loc[("b2", "alice"), "label_column"] == by.loc[("b1", "alice"),
                                                               "label_column"] == "Label3"
    assert by.loc[("b1", "chen"), "rated"] == 5 and by.loc[("b1", "alice"), "issues"] == 6
    # alice in b1: bob and chen have a majority on 3 of her 6 issues (they tie on three;
    # chen left the last, where bob alone is the others' majority)
    assert by.loc[("b1", "alice"), "others_issues"] == 3
    assert list(pairs.groupby("batch", sort=False).size()) == [1, 3, 3]
    assert list(pairs[pairs["batch"] == "b2"]["person_b"]) == ["bob", "dana", "dana"]
    assert annotators_by_batch(study().drop(columns="batch"), PEOPLE, ["A.1"]) is None
    # without the clean stage's table, each person is named by their column
    persons, _ = annotators_by_batch(study(), None, ["A.1"])
    assert list(persons[persons["batch"] == "b1"]["person"]) == ["Label3", "Label4", "Label5"]


def test_the_first_person_of_the_first_new_batch_step_by_step():
    steps = walkthrough(study(), PEOPLE, ["A.1", "B.2", "C.3"])
    assert (steps.batch, steps.person) == ("b1", "alice")
    assert list(steps.labels.columns) == ["alice", "bob", "chen",
                                          "majority of the others (for alice)", "final label"]
    assert list(steps.labels["majority of the others (for alice)"]) == [
        "C.3", None, None, None, "C.1", "C.1"]  # bob and chen tie thrice; chen left the last
    persons, _ = annotators_by_batch(study(), PEOPLE, ["A.1", "B.2", "C.3"])
    alice = persons[persons["batch"] == "b1"].iloc[0]
    assert steps.kappa["n"] == alice["others_issues"] == 3
    assert steps.kappa["kappa"] == pytest.approx(alice["others_kappa"])
    assert walkthrough(study()[study()["batch"] == "release"], PEOPLE, ["A.1"]) is None
    assert walkthrough(study().drop(columns="batch"), PEOPLE, ["A.1"]) is None
