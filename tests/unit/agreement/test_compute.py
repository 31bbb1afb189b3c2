"""The agreement stage's computation on a small synthetic dump: analyse, the headline
and the steps the notebook takes in order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import compute as agreement
from analysis.agreement.estimators import fleiss_kappa
from analysis.agreement.ratings import Ratings
from analysis.core.claims import load_claims
from analysis.core.errors import InputError
from tests.support.stages import agreement_result
from tests.unit.agreement.synthetic import settings


def test_analyse_small_dump(issues, taxonomy, projects):
    a = agreement.analyse(issues, taxonomy, list(projects.described), settings(50))
    head = agreement.headline(a, load_claims())
    claims = load_claims().set_index("claim_id")["paper_value"]
    assert head.set_index("group")["paper_kappa"].to_dict() == {
        "Question": claims["agreement.kappa.question"],
        "Requirement": claims["agreement.kappa.requirement"],
        "Bug": claims["agreement.kappa.bug"], "all issues": ""}
    kappa = a.statistics[(a.statistics["grouping"] == "all")
                         & (a.statistics["statistic"] == "fleiss_kappa")]["value"].iloc[0]
    assert kappa == pytest.approx(fleiss_kappa(a.ratings.codes, 18).value)
    assert a.facts["final_is_majority"] == len(issues)  # the fixture's final is the majority
    assert set(a.statistics["grouping"]) == {"all", "type", "project", "year"}


def test_missing_ratings_are_reported(issues, taxonomy, projects):
    issues.loc[:4, "annotator_3"] = None
    a = agreement.analyse(issues, taxonomy, list(projects.described), settings(0))
    row = agreement.stat(a, "all", "all issues", "fleiss_kappa")
    assert row["issues_left_out"] == 5 and row["issues_used"] == len(issues) - 5
    assert agreement.stat(a, "all", "all issues", "krippendorff_alpha")["issues_used"] == \
        len(issues)
    assert a.facts["issues_incomplete"] == 5 and a.facts["ratings_missing"] == 5
    assert agreement.stat(a, "all", "all issues", "no such statistic") is None


def test_no_issues_is_a_user_error(issues, taxonomy, projects):
    with pytest.raises(InputError, match="no rows"):
        agreement_result(issues.iloc[:0], taxonomy, projects, load_claims(), settings(0))


def test_paper_kappas_in_claims_order():
    claims = pd.DataFrame({"claim_id": ["table1.total_reports", "agreement.kappa.bug",
                                        "agreement.kappa.question"],
                           "paper_value": ["1", "0.717", "0.757"]})
    assert agreement.paper_kappas(claims) == {"bug": "0.717", "question": "0.757"}


def test_grouping_versus_paper_marks_the_matching_rule():
    grouping = pd.DataFrame({"grouping": ["final label", "final label", "majority"],
                             "type": ["Bug", "Other", "Bug"], "kappa": [0.7171, 0.5, 0.71]})
    claims = pd.DataFrame({"claim_id": ["agreement.kappa.bug"], "paper_value": ["0.717"]})
    out = agreement.grouping_versus_paper(grouping, claims)
    assert out["paper_kappa"].tolist() == ["0.717", "", "0.717"]
    assert out["matches_paper"].tolist() == [True, False, False]
    assert "paper_kappa" not in grouping  # the candidates are left as they were


def test_the_stage_orders_and_names_the_projects(issues, taxonomy, projects):
    issues = issues.copy()
    issues["project"] = issues["project"].replace({"MindSpeed": "NewProject"})
    claims = load_claims()
    result = agreement_result(issues, taxonomy, projects, claims, settings(20))
    a = result.analysis
    # Table I's order for the described projects, an undescribed one last
    strata = list(dict.fromkeys(a.final_by_project["stratum"]))
    assert strata == ["all", "pytorch", "vllm", "NewProject"]
    per_project = a.statistics[(a.statistics["grouping"] == "project")
                               & (a.statistics["statistic"] == "fleiss_kappa")]["group"]
    assert per_project.tolist() == ["pytorch", "vllm", "NewProject"]
    assert result.project_names == {"pytorch": "PyTorch", "vllm": "vLLM",
                                    "NewProject": "NewProject"}
    # the views are those of the analysis, beside the paper's kappas
    pd.testing.assert_frame_equal(result.headline, agreement.headline(a, claims))
    pd.testing.assert_frame_equal(result.grouping,
                                  agreement.grouping_versus_paper(a.grouping, claims))
    assert set(result.paper_kappas) == {"bug", "requirement", "question"}
    assert a.params == settings(20)


def test_ac1_category_count_is_the_scale_or_a_number_that_covers_the_labels_used():
    codes = np.array([[0, 1], [2, 2], [1, 1]], dtype=np.int8)
    ratings = Ratings(codes, tuple("abcdef"), ("annotator_1", "annotator_2"))
    assert agreement.ac1_category_count("taxonomy", ratings) == 6
    assert agreement.ac1_category_count(10, ratings) == 10
    assert agreement.ac1_category_count(3, ratings) == 3
    with pytest.raises(InputError, match=r"agreement\.ac1_categories is 2: it must be .* at "
                                         r"least 3 \(the categories the annotators used\)"):
        agreement.ac1_category_count(2, ratings)


def test_ac1_categories_reach_the_statistics(issues, taxonomy, projects):
    default = agreement.analyse(issues, taxonomy, [], settings(0))
    wider = agreement.analyse(issues, taxonomy, [], settings(0, ac1_categories=40))
    assert default.facts["ac1_categories"] == default.ratings.n_categories
    assert wider.facts["ac1_categories"] == 40
    ac1 = [agreement.stat(a, "all", "all issues", "gwet_ac1")["value"]
           for a in (default, wider)]
    assert ac1[1] > ac1[0]
    kappa = [agreement.stat(a, "all", "all issues", "fleiss_kappa")["value"]
             for a in (default, wider)]
    assert kappa[0] == kappa[1]
