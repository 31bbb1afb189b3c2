"""Pandera schemas of the CSVs the agreement stage writes: the coefficients, the pairwise
and per-category tables, and the audit (:data:`SCHEMAS`, checked as they are written;
see :mod:`analysis.core.columns`).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import pandera.pandas as pa

from analysis.core.columns import (
    ANALYTIC,
    ANALYTIC_HOW,
    BATCH,
    LEVEL,
    STUDY,
    P,
    TableSchemas,
    count,
    decimal,
    share,
    table,
    text,
    yes_no,
)

BOOT_HOW = ("agreement.bootstrap_resamples resamples of all issues, seed agreement.seed; "
            f"{LEVEL}")
BOOT = f"percentile bootstrap interval ({BOOT_HOW})"
COHEN_CI = ("asymptotic normal interval kappa ± z × standard error (statsmodels' standard "
            f"error; {LEVEL})")
EMPTY_UNDEFINED = "empty when not defined (see note)"
CATEGORY = ("a rating category: a theme code of data/taxonomy.yaml (e.g. C.3), or a label "
            "outside the taxonomy found in the data")
ANNOTATOR = ("an annotator column of the issues table (`annotator_<n>`, from the label "
             "files' column Label<n>)")


def _coefficient_columns(short: str, name: str, how: str,
                         analytic: bool = True) -> dict[str, pa.Column]:
    """A coefficient of the headline table (``short``: its column prefix, ``name``: what a
    reader calls it, ``how``: how it is computed) with its bootstrap and, if ``analytic``,
    its analytic interval."""
    cols = {
        short: decimal(f"{name} {how}; empty when not defined"),
        f"{short}_boot_low": decimal(f"lower end of the percentile bootstrap interval of "
                                     f"{name} ({BOOT_HOW})"),
        f"{short}_boot_high": decimal(f"upper end of the same bootstrap interval of {name}"),
    }
    if analytic:
        cols[f"{short}_ci_low"] = decimal(f"lower end of the analytic interval of {name} "
                                          f"({ANALYTIC_HOW})")
        cols[f"{short}_ci_high"] = decimal(f"upper end of the same analytic interval of {name}")
    return cols


HEADLINE = table(
    P.agreement.table("headline.csv"),
    "The paper's Fleiss' kappa per issue "
    "type beside ours (Section III.B), with intervals, Krippendorff's alpha and "
    "Gwet's AC1: one row per issue type and one for all issues.", {
        "group": text("the issues of the row: an issue type (issues whose final "
                      "label is a theme of that type) or `all issues`"),
        "issues": count("issues in the group"),
        "paper_kappa": decimal("the kappa the paper prints for this group "
                               "(data/claims.yaml), as printed; empty when it "
                               "prints none"),
        "issues_kappa": count("issues the complete-rows Fleiss' kappa uses: "
                              "those rated by every annotator"),
        "issues_kappa_gen": count("issues the generalised Fleiss' kappa "
                                  "averages agreement over: those with two or "
                                  "more ratings"),
        **_coefficient_columns("kappa", "Fleiss' kappa", "over all theme "
                               "codes, complete rows (issues with a missing "
                               "rating left out)"),
        **_coefficient_columns("kappa_gen", "Gwet's generalised Fleiss' kappa",
                               "over all theme codes (every issue with two or "
                               "more ratings; the theme shares from every issue "
                               "with a rating; as irrCAC's fleiss())"),
        **_coefficient_columns("alpha", "Krippendorff's alpha", "(nominal; every "
                               "rating used)"),
        **_coefficient_columns("ac1", "Gwet's AC1", "assuming "
                               "agreement.ac1_categories categories (params.yaml; "
                               "every rating used)"),
        **_coefficient_columns("type_kappa", "Fleiss' kappa on the issue type "
                               "alone", "(each label replaced by its type: how "
                               "far annotators agree on Question, Requirement "
                               "or Bug)", analytic=False),
        "observed": decimal("observed agreement behind Fleiss' kappa: the share "
                            "of agreeing annotator pairs on an issue, averaged "
                            "over the issues"),
        "chance": decimal("chance agreement behind Fleiss' kappa: the sum of the "
                          "squared shares of the theme codes in the group "
                          "(kappa = (observed - chance) / (1 - chance))"),
        "left_out": count("issues of the group left out of Fleiss' kappa "
                          "because at least one rating is missing"),
    })


STATISTICS = table(
    P.agreement.table("statistics.csv"),
    "Every agreement coefficient for "
    "all issues and for each issue type, project and year, with analytic and "
    "bootstrap intervals: one row per group and coefficient.", {
        "grouping": text("how the issues are grouped: `all`, `type` (issue type "
                         "of the final label), `project` or `year`",
                         words=("all", "type", "project", "year")),
        "group": text("the group: `all issues`, an issue type, a project's "
                      "folder name or a year"),
        "statistic": text("the coefficient: `fleiss_kappa` (complete rows), "
                          "`fleiss_kappa_generalised` (Gwet's generalised "
                          "estimator, every issue with two or more ratings), "
                          "`krippendorff_alpha` (nominal), `gwet_ac1`, or "
                          "`fleiss_kappa_type` (Fleiss' kappa on the issue type "
                          "alone, complete rows)",
                          words=("fleiss_kappa", "fleiss_kappa_generalised",
                                 "krippendorff_alpha", "gwet_ac1",
                                 "fleiss_kappa_type")),
        "level": text("the scale it is computed on: `theme` (theme codes) or "
                      "`type` (issue types)", words=("theme", "type")),
        "value": decimal(f"the coefficient's value; {EMPTY_UNDEFINED}"),
        "observed": decimal("the observed agreement it is built from "
                            "(coefficient = (observed - chance) / (1 - chance)); "
                            "empty when it cannot be computed"),
        "chance": decimal("the chance agreement it is built from; empty when it "
                          "cannot be computed"),
        "se": decimal("analytic standard error (Gwet's linearised variance, as "
                      "the irrCAC package computes it); empty when not defined"),
        "ci_low": decimal("lower end of the analytic interval: Student t with "
                          "n - 1 degrees of freedom around the value, n the "
                          "issues with a rating (issues_used for Fleiss' kappa) "
                          f"({LEVEL}); empty when not defined"),
        "ci_high": decimal("upper end of the same analytic interval, capped at "
                           "1; empty when not defined"),
        "boot_low": decimal(f"lower end of the {BOOT}; empty when not defined"),
        "boot_high": decimal("upper end of the same bootstrap interval; empty "
                             "when not defined"),
        "issues": count("issues in the group"),
        "issues_used": count("issues the coefficient uses: for Fleiss' kappa "
                             "those rated by every annotator, for the "
                             "generalised Fleiss' kappa and alpha those with two "
                             "or more ratings, for AC1 those with at least one"),
        "issues_left_out": count("issues of the group the coefficient leaves "
                                 "out"),
        "note": text("why the coefficient is not defined, or how many bootstrap "
                     "resamples were not; empty otherwise", nullable=True),
    })


CATEGORIES = table(
    P.agreement.table("categories.csv"),
    "Agreement per rating category: "
    "Fleiss' per-category kappa with a bootstrap interval, the share of ratings "
    "and the specific agreement, over the issues rated by every annotator.", {
        "code": text(f"the category: {CATEGORY}"),
        "type": text("the category's issue type; `unknown` for a label outside "
                     "the taxonomy"),
        "name": text("the theme's name; empty for a label outside the "
                     "taxonomy", nullable=True),
        "ratings": count("ratings of this category on the issues rated by "
                         "every annotator"),
        "share": share("this category's share of all those ratings (0-1)"),
        "kappa": decimal("Fleiss' (1971) kappa of this category; empty when "
                         "not defined (no rating, or every rating, in it)"),
        "boot_low": decimal(f"lower end of the {BOOT}; empty when not defined"),
        "boot_high": decimal("upper end of the same bootstrap interval; empty "
                             "when not defined"),
        "specific_agreement": share("agreeing annotator pairs among the pairs "
                                    "that involve this category (0-1); empty "
                                    "when it has no rating"),
        "note": text("why the kappa is not defined; empty otherwise",
                     nullable=True),
    })


GROUPING = table(
    P.agreement.table("grouping.csv"),
    "Fleiss' kappa per issue type under "
    "three rules for deciding an issue's type, beside the paper's kappas: the "
    "rule that matches all three is the paper's grouping.", {
        "grouping": text("the rule's short name: `final label`, `first "
                         "annotator` or `unanimous type`",
                         words=("final label", "first annotator",
                                "unanimous type")),
        "rule": text("what the rule does, in words"),
        "type": text("the issue type"),
        "issues": count("issues the rule gives this type that every annotator "
                        "rated (Fleiss' kappa uses only those)"),
        "observed": decimal("observed agreement: the share of agreeing "
                            "annotator pairs on an issue, averaged; empty when "
                            "there are no issues"),
        "chance": decimal("chance agreement: the sum of the squared shares of "
                          "the theme codes; empty when there are no issues"),
        "kappa": decimal("Fleiss' kappa over all theme codes for these issues "
                         "(complete rows); empty when not defined"),
        "issues_generalised": count("issues the rule gives this type that have "
                                    "two or more ratings (the generalised "
                                    "estimator averages over those)"),
        "kappa_generalised": decimal("Gwet's generalised Fleiss' kappa over all "
                                     "theme codes for the issues of this type; "
                                     "empty when not defined"),
        "paper_kappa": decimal("the kappa the paper prints for this type "
                               "(data/claims.yaml); empty when it prints none"),
        "matches_paper": yes_no("whether this kappa equals the paper's at the "
                                "paper's printed precision"),
    })


def _cohen_columns() -> dict[str, pa.Column]:
    """Cohen's kappa with its interval and note (pairwise and against the final label)."""
    return {
        "kappa": decimal(f"Cohen's kappa (statsmodels); {EMPTY_UNDEFINED}"),
        "ci_low": decimal(f"lower end of the {COHEN_CI}; empty when not defined"),
        "ci_high": decimal("upper end of the same interval; empty when not defined"),
        "note": text("why the kappa is not defined; empty otherwise", nullable=True),
    }


PAIRWISE = table(
    P.agreement.table("pairwise.csv"),
    "Cohen's kappa between every pair of "
    "annotators; each pair is listed in both orders (for the heatmap).", {
        "annotator_a": text(f"one annotator: {ANNOTATOR}"),
        "annotator_b": text("the other annotator"),
        "n": count("issues both annotators labelled"),
        "agreement": share("share of those issues on which both gave the same "
                           "label (0-1); empty when there are none"),
        **_cohen_columns(),
    })


ANNOTATOR_FINAL = table(
    P.agreement.table("annotator_final.csv"),
    "Each annotator against the "
    "final label: raw agreement and Cohen's kappa.", {
        "annotator": text(f"the annotator: {ANNOTATOR}"),
        "n": count("issues the annotator labelled"),
        "agreement": share("share of them on which the annotator's label equals "
                           "the final label (0-1); empty when there are none"),
        **_cohen_columns(),
    })


CONFUSIONS = table(
    P.agreement.table("confusions.csv"),
    "Pairs of rating categories that "
    "annotators gave to the same issue, most frequent first (each unordered "
    "pair once).", {
        "label_a": text(f"one category of the pair (the earlier on the rating "
                        f"scale): {CATEGORY}"),
        "label_b": text("the other category"),
        "type_a": text("issue type of label_a (`unknown` outside the "
                       "taxonomy)"),
        "type_b": text("issue type of label_b (`unknown` outside the "
                       "taxonomy)"),
        "rater_pairs": count("pairs of annotators who, on the same issue, gave "
                             "one label_a and the other label_b, summed over "
                             "all issues"),
        "issues": count("issues on which both labels were given"),
        "share_of_disagreements": share("rater_pairs as a share of all "
                                        "disagreeing annotator pairs (0-1)",
                                        nullable=False),
    })


TOP_CONFUSIONS = table(
    P.agreement.table("top_confusions.csv"),
    "The pair of rating categories annotators confused most often (the first "
    "row of confusions.csv, ties by label): over all reports, and among the "
    "pairs of two themes of each issue type.", {
        "scope": text("`all` (every pair), or an issue type: the pairs whose "
                      "two categories are of that type"),
        "label_a": text(f"one category of the pair: {CATEGORY}"),
        "label_b": text("the other category"),
        "type_a": text("issue type of label_a (`unknown` outside the "
                       "taxonomy)"),
        "type_b": text("issue type of label_b"),
        "rater_pairs": count("pairs of annotators who gave one label_a and the "
                             "other label_b on the same issue, summed over all "
                             "issues"),
        "issues": count("issues on which both labels were given"),
    })


AUDIT_FINAL_BY_PROJECT = table(
    P.agreement.table("audit_final_by_project.csv"),
    "How often each "
    "annotator's label equals the final label, over all issues and per "
    "project.", {
        "stratum": text("`all` (every issue) or a project's folder name"),
        "annotator": text(f"the annotator: {ANNOTATOR}"),
        "rated": count("issues of the stratum the annotator labelled"),
        "equal": count("of those, issues where the label equals the final "
                       "label"),
        "share": share("equal / rated (0-1); empty when rated is 0"),
        "issues": count("issues of the stratum with at least one rating (the "
                        "same on every row of the stratum)"),
    })


DISSENT = ("a dissenting label is an annotator's label that differs from the final label; "
           "a missing rating is neither agreement nor dissent")


_INDEPENDENT = ("expected issues with that many dissenters if annotators erred "
               "independently (a Poisson-binomial distribution per issue), each at")
AUDIT_DISSENT = table(
    P.agreement.table("audit_dissent.csv"),
    "Issues by the number of "
    f"annotators dissenting from the final label, observed and expected under "
    f"independent errors ({DISSENT}).", {
        "dissenters": count("the number of annotators whose label differs from "
                            "the final label (0 up to the number of "
                            "annotators)"),
        "observed": count("issues with exactly that many dissenters"),
        "expected_pooled": decimal(f"{_INDEPENDENT} their dissent rate over all "
                                   "issues", nullable=False, low=0.0),
        "expected_by_project": decimal(f"{_INDEPENDENT} their dissent rate in "
                                       "the issue's project", nullable=False,
                                       low=0.0),
        "expected_by_project_majority": decimal(
            "as expected_by_project, given that the final label is a strict "
            "majority of the issue's ratings (as under a majority vote)",
            nullable=False, low=0.0),
    })


AUDIT_TESTS = table(
    P.agreement.table("audit_tests.csv"),
    "Does dissent behave like "
    "independent errors? One row per independence model: a chi-square test of "
    "the dissent distribution, the variance ratio and the extremes.", {
        "model": text("the independence model, in words"),
        "column": text("the column of agreement_audit_dissent.csv holding the "
                       "model's expected counts",
                       words=("expected_pooled", "expected_by_project",
                              "expected_by_project_majority")),
        "chi2": decimal("Pearson's chi-square of observed against expected "
                        "issues per number of dissenters (tail bins pooled "
                        "until every expected count is at least 5; approximate, "
                        "as the rates come from the same data); empty when "
                        "fewer than two bins remain", low=0.0),
        "dof": count("degrees of freedom: bins - 1 (0 when there is no test)"),
        "p_value": share("p-value of the test (0-1); empty when there is no "
                         "test"),
        "bins": count("bins left after pooling"),
        "variance_observed": decimal("variance of the number of dissenters per "
                                     "issue, observed", low=0.0),
        "variance_expected": decimal("the same variance under the model",
                                     low=0.0),
        "variance_ratio": decimal("variance_observed / variance_expected: above "
                                  "1, dissent gathers on some issues more than "
                                  "independent errors would; empty when the "
                                  "expected variance is 0", low=0.0),
        "no_dissent_observed": count("issues on which every label equals the "
                                     "final label, observed"),
        "no_dissent_expected": decimal("the same, expected under the model",
                                       low=0.0),
        "max_observed": count("the most dissenters observed on one issue"),
        "expected_above_max_observed": decimal("issues the model expects to "
                                               "have more dissenters than ever "
                                               "observed", low=0.0),
    })


AUDIT_CO_DISSENT = table(
    P.agreement.table("audit_co_dissent.csv"),
    "How often two annotators "
    f"dissent from the final label on the same issue, against independence "
    f"({DISSENT}).", {
        "annotator_a": text(f"the first annotator of the pair: {ANNOTATOR}"),
        "annotator_b": text("the second annotator of the pair (a later column)"),
        "both_dissent": count("issues on which both dissent"),
        "expected": decimal("issues on which both would dissent if each erred "
                            "independently at their dissent rate in the issue's "
                            "project", nullable=False, low=0.0),
        "ratio": decimal("both_dissent / expected; empty when expected is 0",
                         low=0.0),
        "expected_majority": decimal("the same expectation, given that the final "
                                     "label is a strict majority of the issue's "
                                     "ratings", nullable=False, low=0.0),
        "ratio_majority": decimal("both_dissent / expected_majority; empty when "
                                  "expected_majority is 0", low=0.0),
    })


def _kappa_pair_columns(what: str) -> dict[str, pa.Column]:
    """Both Fleiss' kappa estimators of a sensitivity table, with the issues each uses and
    the change against all columns."""
    return {
        "type": text("the issue type of the final label, or `all issues`"),
        "issues": count(f"issues rated by every remaining annotator ({what}; the "
                        "complete-rows kappa uses those)"),
        "kappa": decimal("Fleiss' kappa over all theme codes, complete rows; empty when not "
                         "defined"),
        "issues_generalised": count("issues with two or more remaining ratings (the "
                                    "generalised kappa averages over those)"),
        "kappa_generalised": decimal("Gwet's generalised Fleiss' kappa; empty when not "
                                     "defined"),
        "change": decimal("kappa minus the complete-rows kappa with all columns; empty when "
                          "either is not defined"),
        "change_generalised": decimal("kappa_generalised minus the generalised kappa with "
                                      "all columns; empty when either is not defined"),
    }


AUDIT_LEAVE_ONE_OUT = table(
    P.agreement.table("audit_leave_one_out.csv"),
    "Fleiss' kappa per issue type "
    "and over all issues with every label column, then with each column left "
    "out in turn: how much each kappa depends on each column.", {
        "left_out": text(f"the label column left out ({ANNOTATOR}), or `none`"),
        "annotators": count("label columns used"),
        **_kappa_pair_columns("after leaving the column out"),
    })


AUDIT_ALWAYS_FINAL = table(
    P.agreement.table("audit_always_final.csv"),
    "Label columns whose label "
    "equals the final label on every report of a project they rated: one row per "
    "project and column (no row when there is none).", {
        "project": text("the project's folder name"),
        "annotator": text(f"the label column: {ANNOTATOR}"),
        "issues": count("reports of the project the column rated (all equal to "
                        "the final label)", low=1),
    })


AUDIT_SENSITIVITY = table(
    P.agreement.table("audit_sensitivity.csv"),
    "Fleiss' kappa per issue type "
    "without the label columns that equal the final label on every report of a "
    "project (audit_always_final.csv): with all columns, with those ratings set "
    "missing in those projects only, and with the columns left out everywhere; "
    "empty when no column does.", {
        "scenario": text("`all columns`, `without in those projects` or "
                         "`without everywhere`",
                         words=("all columns", "without in those projects",
                                "without everywhere")),
        "columns": text("the label columns left out (comma-separated); empty "
                        "for `all columns`", nullable=True),
        **_kappa_pair_columns("in the scenario"),
    })


def categories_match_rows(frame: pd.DataFrame) -> bool:
    """The category columns of the targets table are its rows' final labels, in order
    (both are the rating scale), so no other column can pass as a category."""
    return [str(c) for c in frame.columns[1:]] == [str(v) for v in frame["final_label"]]


def audit_targets(categories: Iterable[str] | None = None) -> pa.DataFrameSchema:
    """``report/tables/agreement/audit_targets.csv``: where dissenting labels go.

    The category columns are named by the data: every label found, including labels
    outside the taxonomy, which may be any text. Given the ``categories`` (the table's
    ``final_label`` values, as :func:`schema_for` passes them) each is a column of its own,
    so any other column is undocumented; without them one pattern takes every name but
    ``final_label``, and a table-wide check ties the columns to the rows.
    """
    about = ("one column per rating category (theme codes such as A.1 to C.10, then any "
             "label outside the taxonomy), in the order of the rows: annotators' labels "
             "naming this category on issues whose final label is the row's, i.e. "
             "dissenting labels given instead of it (0 on the diagonal)")
    if categories is None:
        columns = {r"^(?!final_label$).+$": count(about, regex=True)}
    else:
        columns = {str(c): count(about) for c in categories}
    return table(P.agreement.table("audit_targets.csv"),
                 "Where dissenting labels go: "
                 "for each final label (rows), how many dissenting labels named each "
                 "category (columns).", {
                     "final_label": text(f"the final label: {CATEGORY}"),
                     **columns,
                 }, checks=[pa.Check(categories_match_rows, name="columns_are_the_rows",
                                     error="the category columns differ from the rows")])


AUDIT_SPREAD = table(
    P.agreement.table("audit_spread.csv"),
    "For each final label: do its "
    "dissenting labels gather on a few themes of the same issue type, or spread "
    "evenly over them?", {
        "final_label": text(f"the final label: {CATEGORY}"),
        "type": text("its issue type (`unknown` outside the taxonomy)"),
        "name": text("the theme's name; empty outside the taxonomy",
                     nullable=True),
        "dissenting_labels": count("annotators' labels that differ from this "
                                   "final label, on the issues that have it"),
        "within_type": count("of those, labels naming another theme of the "
                             "same issue type"),
        "within_type_share": share("within_type / dissenting_labels (0-1); "
                                   "empty when there is no dissent"),
        "alternatives": count("the other themes of the same type (the possible "
                              "alternatives)"),
        "top_alternative": text("the alternative that dissenting labels name "
                                "most often; empty when none does",
                                nullable=True),
        "top_share": share("its share of the within-type dissenting labels "
                           "(0-1); empty when none"),
        "even_share": share("the share each alternative would get if dissent "
                            "were spread evenly, 1 / alternatives (0-1); empty "
                            "when there is no alternative"),
        "evenness": decimal("normalised Shannon entropy of the within-type "
                            "dissenting labels over the alternatives (1 = "
                            "perfectly even, 0 = all on one); empty with fewer "
                            "than two alternatives or no dissent", low=0.0),
        "chi2": decimal("chi-square statistic of the test that every alternative "
                        "is equally likely; empty when there is no within-type "
                        "dissent or fewer than two alternatives", low=0.0),
        "p_value": share("p-value of that test (0-1); empty when there is no "
                         "test"),
    })


def targets_from_frame(frame: pd.DataFrame) -> pa.DataFrameSchema | None:
    """The exact targets schema for a targets table at hand (None without its rows)."""
    if "final_label" not in frame.columns:
        return None
    return audit_targets(frame["final_label"].astype(str))


AUDIT_TARGETS = audit_targets()

# --- study dumps only (analysis.agreement.batches) ---------------------------------------
_BATCH_COEFFICIENTS = {
    "fleiss_kappa": "Fleiss' kappa on the rows every one of the batch's annotators rated",
    "fleiss_kappa_generalised": "Gwet's generalised Fleiss' kappa (every row with two or "
                                "more ratings)",
    "krippendorff_alpha": "Krippendorff's alpha (nominal)",
    "gwet_ac1": "Gwet's AC1"}
BATCHES = table(
    P.agreement.table("batches.csv"),
    f"Agreement of each batch of {STUDY} on its own annotators, and of all batches "
    "together (written on a study only).", {
        "batch": text(f"{BATCH}; `all batches` for every row together"),
        "issues": count("the batch's issues"),
        "annotators": count("the label columns holding the batch's ratings"),
        "label_columns": text("those columns (Label<n> of the study's label files)"),
        "issues_complete": count("issues rated in every one of those columns"),
        **{key: col for name, what in _BATCH_COEFFICIENTS.items() for key, col in (
            (name, decimal(f"{what}; {EMPTY_UNDEFINED}")),
            (f"{name}_ci_low", decimal(f"lower end of its {ANALYTIC}")),
            (f"{name}_ci_high", decimal(f"upper end of its {ANALYTIC}")))},
        "note": text("why a coefficient is not defined; empty when all are", nullable=True),
    })


SCHEMAS = TableSchemas.of(
    HEADLINE,
    STATISTICS,
    CATEGORIES,
    GROUPING,
    PAIRWISE,
    ANNOTATOR_FINAL,
    CONFUSIONS,
    TOP_CONFUSIONS,
    AUDIT_FINAL_BY_PROJECT,
    AUDIT_DISSENT,
    AUDIT_TESTS,
    AUDIT_CO_DISSENT,
    AUDIT_TARGETS,
    AUDIT_SPREAD,
    AUDIT_LEAVE_ONE_OUT,
    AUDIT_ALWAYS_FINAL,
    AUDIT_SENSITIVITY,
    BATCHES,
    from_frame={AUDIT_TARGETS.name: targets_from_frame})
