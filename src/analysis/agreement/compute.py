"""The agreement stage's statistics and the tables its outputs are made of.

The stage's notebook (``notebooks/04_agreement.py``) runs these steps in order on the
release's rows (:func:`analysis.core.batches.release_rows`): :func:`analyse` codes the
ratings (:mod:`analysis.agreement.ratings`), builds the tables of coefficients and
intervals (:mod:`analysis.agreement.tables`, :mod:`analysis.agreement.pairwise`) and runs
the audit of how the label columns behave (:mod:`analysis.agreement.audit`);
:func:`headline` sets the paper's kappas (:func:`paper_kappas`) beside ours and
:func:`grouping_versus_paper` beside each candidate grouping; the notebook puts them, with
each batch's agreement (:func:`analysis.agreement.batches.batch_agreement`), into one
:class:`Agreement`. Everything here is pure: the inputs come loaded (the notebook reads the
files). The paper's kappa of each type is also taken step by step in
:mod:`analysis.agreement.fleiss`, which the notebook shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.agreement import audit as au
from analysis.agreement.pairwise import confusions, pairwise_cohen, versus_reference
from analysis.agreement.params import AgreementParams
from analysis.agreement.ratings import (
    Ratings,
    Scale,
    collapse_map,
    encode_column,
    encode_ratings,
    group_index,
)
from analysis.agreement.tables import agreement_tables, grouping_candidates
from analysis.core.claims import judge
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.core.taxonomy import Taxonomy

CLAIM_PREFIX = "agreement.kappa."


@dataclass
class Analysis:
    """Every table of the stage, plus the settings and the coded ratings they came from."""

    params: AgreementParams
    ratings: Ratings
    scale: Scale
    final: np.ndarray
    statistics: pd.DataFrame
    categories: pd.DataFrame
    grouping: pd.DataFrame
    pairwise: pd.DataFrame
    versus_final: pd.DataFrame
    confusions: pd.DataFrame
    final_by_project: pd.DataFrame
    dissent: pd.DataFrame
    dissent_tests: pd.DataFrame
    co_dissent: pd.DataFrame
    targets: pd.DataFrame
    spread: pd.DataFrame
    leave_one_out: pd.DataFrame
    always_final: pd.DataFrame
    sensitivity: pd.DataFrame
    facts: dict


@dataclass
class Agreement:
    """What the stage computes: the analysis, the headline table, the candidate groupings
    beside the paper's kappas, the paper's kappas as printed (by lower-case issue type, in
    the claims' order) and the display names of the dump's projects."""

    analysis: Analysis
    headline: pd.DataFrame
    grouping: pd.DataFrame
    paper_kappas: dict[str, str]
    project_names: dict[str, str]
    batches: pd.DataFrame | None = None  # a study dump's agreement per batch
    # a study dump's annotators per batch, and their pairs (analysis.agreement.people)
    persons: pd.DataFrame | None = None
    pairs: pd.DataFrame | None = None


def make_scale(categories: tuple[str, ...], taxonomy: Taxonomy) -> Scale:
    """Themes and their issue types; a label outside the taxonomy is its own 'unknown'."""
    index, types = collapse_map(categories, lambda c: taxonomy.type_of(c) or "unknown",
                                taxonomy.type_names)
    return Scale(categories, index, types)


AC1_DEFAULT = "taxonomy"


def ac1_category_count(ac1_categories: str | int, ratings: Ratings) -> int:
    """The number of categories Gwet's AC1 assumes (params.yaml ``agreement.ac1_categories``,
    checked by :class:`~analysis.agreement.params.AgreementParams`).

    ``taxonomy`` (the default): the rating scale, i.e. the taxonomy's theme codes plus any
    label outside it that the data holds. An integer: that many, which must cover every
    category the annotators used (AC1's chance term divides by ``q - 1``, so the choice
    moves AC1; the method note states it)."""
    if ac1_categories == AC1_DEFAULT:
        return ratings.n_categories
    used = int(np.unique(ratings.codes[ratings.codes >= 0]).size)
    if int(ac1_categories) < used:
        raise InputError(f"agreement.ac1_categories is {ac1_categories!r}: it must be "
                         f"'{AC1_DEFAULT}' or a whole number of at least {used} (the "
                         "categories the annotators used)", file=PATHS.params.name,
                         column="agreement.ac1_categories",
                         fix=f"set agreement.ac1_categories to '{AC1_DEFAULT}' or a larger "
                             "number")
    return int(ac1_categories)


def analyse(issues: pd.DataFrame, taxonomy: Taxonomy, projects_order: Sequence[str],
            params: AgreementParams) -> Analysis:
    """Every agreement statistic of the stage and the audit of the label columns.

    Takes the processed issues (``type``, ``project``, ``year``, ``final_label`` and the
    ``annotator_<n>`` columns; on a study, the release's rows), the taxonomy (its theme
    codes are the rating scale), the projects in Table I's order and the stage's settings;
    returns one :class:`Analysis`. An empty issues table is an :class:`InputError`."""
    if len(issues) == 0:
        raise InputError("the processed issues table has no rows",
                         fix="check the clean stage's quality report")
    ratings = encode_ratings(issues, taxonomy.codes)
    q = ac1_category_count(params.ac1_categories, ratings)
    final = encode_column(issues["final_label"], ratings.categories)
    scale = make_scale(ratings.categories, taxonomy)
    names = dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True))
    types = [t for t in scale.types if t in set(pd.unique(issues["type"]).astype(str))]
    groupings = {"type": issues["type"], "project": issues["project"], "year": issues["year"]}
    orders = {"type": list(scale.types), "project": list(projects_order)}
    statistics, categories = agreement_tables(
        ratings.codes, scale, groupings, bootstrap_resamples=params.bootstrap_resamples,
        seed=params.seed, confidence_level=params.confidence_level, orders=orders,
        names=names, ac1_categories=q)
    grouping = grouping_candidates(ratings, scale, issues["type"], types)
    strata = issues["project"]
    dissent = au.dissent_distribution(ratings.codes, final, strata)
    matrix = au.dissent_targets(ratings.codes, final, ratings.n_categories)
    targets = pd.DataFrame(matrix, index=pd.Index(ratings.categories, name="final_label"),
                           columns=list(ratings.categories)).reset_index()
    spread = au.dissent_spread(matrix, scale, names)
    final_by_project = au.agreement_with_final(ratings, final, strata, projects_order)
    always = au.always_final(final_by_project)
    type_groups, type_names = group_index(issues["type"], scale.types)
    baseline = au.kappa_rows(ratings.codes, type_groups, type_names, ratings.n_categories)
    complete = int((ratings.codes >= 0).all(axis=1).sum())
    rated = (ratings.codes >= 0).sum(axis=1)
    facts = {
        "issues": len(issues), "annotators": ratings.n_raters,
        "categories": ratings.n_categories,
        "unknown_labels": [c for c in ratings.categories if c not in set(taxonomy.codes)],
        "ratings_missing": int((ratings.codes < 0).sum()),
        "issues_complete": complete, "issues_incomplete": len(issues) - complete,
        "issues_two_ratings": int((rated >= 2).sum()),
        "ac1_categories": q,
        "type_disagreement": au.type_disagreement(ratings.codes, scale.type_index),
        "final_is_majority": _final_is_majority(ratings.codes, final),
        "spread": au.spread_summary(spread),
    }
    return Analysis(
        params=params, ratings=ratings, scale=scale, final=final, statistics=statistics,
        categories=categories,
        grouping=grouping,
        pairwise=pairwise_cohen(ratings, params.confidence_level),
        versus_final=versus_reference(ratings, final, params.confidence_level),
        confusions=confusions(ratings.codes, scale),
        final_by_project=final_by_project,
        dissent=dissent, dissent_tests=au.dissent_tests(dissent),
        co_dissent=au.co_dissent(ratings, final, strata),
        targets=targets, spread=spread,
        leave_one_out=au.leave_one_out(ratings, type_groups, type_names, baseline),
        always_final=always,
        sensitivity=au.column_sensitivity(ratings, strata, type_groups, type_names, always,
                                          baseline),
        facts=facts,
    )


def _final_is_majority(codes: np.ndarray, final: np.ndarray) -> int:
    """Issues whose final label is a strict majority of their ratings."""
    votes = ((codes == final[:, None]) & (codes >= 0)).sum(axis=1)
    return int((2 * votes > (codes >= 0).sum(axis=1)).sum())


def paper_kappas(claims: pd.DataFrame) -> dict[str, str]:
    """The paper's kappas as printed, by lower-case issue type (``agreement.kappa.<type>``
    claims), in the claims' order."""
    return {cid.removeprefix(CLAIM_PREFIX): v for cid, v in
            zip(claims["claim_id"], claims["paper_value"], strict=True)
            if cid.startswith(CLAIM_PREFIX)}


def stat(a: Analysis, grouping: str, group: str, statistic: str) -> pd.Series | None:
    """One row of the statistics table, or None."""
    s = a.statistics
    sel = s[(s["grouping"] == grouping) & (s["group"] == group) & (s["statistic"] == statistic)]
    return None if sel.empty else sel.iloc[0]


def headline(a: Analysis, claims: pd.DataFrame) -> pd.DataFrame:
    """Per issue type and overall: the paper's kappa next to ours (both estimators: the
    complete-rows Fleiss' kappa and Gwet's generalised one, with the issues each uses),
    with intervals, alpha and AC1 (one row per group)."""
    paper = paper_kappas(claims)
    groups = [("type", t) for t in a.scale.types if stat(a, "type", t, "fleiss_kappa")
              is not None] + [("all", "all issues")]
    rows = []
    for grouping, group in groups:
        fk = stat(a, grouping, group, "fleiss_kappa")
        gen = stat(a, grouping, group, "fleiss_kappa_generalised")
        row = {"group": group, "issues": int(fk["issues"]),
               "paper_kappa": paper.get(group.lower(), ""),
               "issues_kappa": int(fk["issues_used"]),
               "issues_kappa_gen": int(gen["issues_used"])}
        for name, short in (("fleiss_kappa", "kappa"), ("fleiss_kappa_generalised", "kappa_gen"),
                            ("krippendorff_alpha", "alpha"), ("gwet_ac1", "ac1"),
                            ("fleiss_kappa_type", "type_kappa")):
            r = stat(a, grouping, group, name)
            row[short] = r["value"]
            row[f"{short}_boot_low"], row[f"{short}_boot_high"] = r["boot_low"], r["boot_high"]
            if name != "fleiss_kappa_type":
                row[f"{short}_ci_low"], row[f"{short}_ci_high"] = r["ci_low"], r["ci_high"]
        r = stat(a, grouping, group, "fleiss_kappa")
        row["observed"], row["chance"], row["left_out"] = r["observed"], r["chance"], \
            r["issues_left_out"]
        rows.append(row)
    return pd.DataFrame(rows)


def grouping_versus_paper(grouping: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """The candidate groupings with the paper's kappa beside each and whether ours equals
    it at the paper's precision: the rule that matches all three is the paper's."""
    paper = paper_kappas(claims)
    out = grouping.copy()
    out["paper_kappa"] = [paper.get(t.lower(), "") for t in out["type"]]
    out["matches_paper"] = [bool(p) and judge(p, k) == "exact"
                            for p, k in zip(out["paper_kappa"], out["kappa"], strict=True)]
    return out
