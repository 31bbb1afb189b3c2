"""What the agreement stage writes (the stage contract of :mod:`analysis.core.stage`).

From one :class:`~analysis.agreement.compute.Agreement`: the headline, statistics,
grouping, annotator, confusion and audit tables (CSV), the seven figures, the website's
numbers and texts (with the figures' captions and alt texts, and the method note), the
reproduced kappas and the metrics. Numbers are shown by :mod:`analysis.core.formatting`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from analysis.agreement import figures as figs
from analysis.agreement.audit import top_confusions
from analysis.agreement.compute import CLAIM_PREFIX, Agreement, Analysis, stat
from analysis.core.formatting import MISSING, dec, interval, pval
from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas


def tables(result: Agreement) -> dict[str, pd.DataFrame]:
    """Every table of the stage (CSV)."""
    a = result.analysis
    return {
        "headline.csv": result.headline, "statistics.csv": a.statistics,
        "categories.csv": a.categories, "grouping.csv": result.grouping,
        "pairwise.csv": a.pairwise, "annotator_final.csv": a.versus_final,
        "confusions.csv": a.confusions, "top_confusions.csv": top_confusions(a.confusions),
        "audit_final_by_project.csv": a.final_by_project,
        "audit_dissent.csv": a.dissent, "audit_tests.csv": a.dissent_tests,
        "audit_co_dissent.csv": a.co_dissent, "audit_targets.csv": a.targets,
        "audit_spread.csv": a.spread, "audit_leave_one_out.csv": a.leave_one_out,
        "audit_always_final.csv": a.always_final, "audit_sensitivity.csv": a.sensitivity,
        # a study dump only: the agreement of each batch on its own annotators
        **({"batches.csv": result.batches} if result.batches is not None else {}),
        # and each of its annotators, batch by batch, alone and in pairs
        **({"annotators_by_batch.csv": result.persons} if result.persons is not None
           else {}),
        **({"pairs_by_batch.csv": result.pairs} if result.pairs is not None else {}),
    }


def figures(result: Agreement) -> dict:
    """The seven figures, each drawn from the tables when it is saved."""
    a, names = result.analysis, result.project_names
    confidence_level = a.params.confidence_level
    paper = {r.group.lower(): float(r.paper_kappa)
             for r in result.headline.itertuples() if r.paper_kappa}
    types = dict(zip(a.scale.categories, (a.scale.types[i] for i in a.scale.type_index),
                     strict=True))
    return {
        "kappas": lambda: figs.kappas_figure(a.statistics, paper, confidence_level),
        "pairwise": lambda: figs.pairwise_figure(a.pairwise, a.versus_final,
                                                 list(a.ratings.annotators)),
        "categories": lambda: figs.categories_figure(a.categories, confidence_level),
        "groups": lambda: figs.groups_figure(a.statistics, names),
        "audit_final": lambda: figs.audit_final_figure(a.final_by_project, names),
        "audit_dissent": lambda: figs.audit_dissent_figure(a.dissent),
        "audit_targets": lambda: figs.audit_targets_figure(a.targets, types),
    }


def claim_values(result: Agreement) -> dict[str, dict]:
    """Reproduced values of the agreement claims (``agreement.kappa.<type>``): the
    complete-rows Fleiss' kappa, the estimator the paper's data allow (every issue has
    every rating); where ratings are missing the note gives Gwet's generalised value."""
    a = result.analysis
    out = {}
    for key in result.paper_kappas:
        cid = CLAIM_PREFIX + key
        group = key.capitalize()
        r = stat(a, "type", group, "fleiss_kappa")
        if r is None:
            out[cid] = {"value": None, "note": f"no {group} issues in this dump"}
            continue
        note = (f"Fleiss' kappa over {a.facts['categories']} theme codes, "
                f"{int(r['issues_used']):,} issues whose final label is a {group} theme")
        if r["issues_left_out"]:
            gen = stat(a, "type", group, "fleiss_kappa_generalised")
            note += (f" and that every annotator rated (complete rows); "
                     f"{int(r['issues_left_out'])} issues with a missing rating left out; "
                     f"Gwet's generalised Fleiss' kappa over the {int(gen['issues_used']):,} "
                     f"issues with two or more ratings: {dec(gen['value'])}")
        out[cid] = {"value": r["value"], "note": note if r["value"] is not None else r["note"]}
    return out


def _r(x: object) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else round(float(x), 6)


def metrics(result: Agreement) -> dict:
    """The headline numbers for ``dvc metrics show/diff``: issues, annotators, and Fleiss'
    kappa per issue type with its analytic interval (what the compare stage reads; every
    other coefficient, interval and group is in the tables)."""
    a = result.analysis
    s = a.statistics
    kappas = s[(s["grouping"] == "type") & (s["statistic"] == "fleiss_kappa")]
    out = {"issues": a.facts["issues"], "annotators": a.facts["annotators"],
           "fleiss_kappa": {r.group: {"value": _r(r.value), "ci_low": _r(r.ci_low),
                                      "ci_high": _r(r.ci_high)}
                            for r in kappas.itertuples(index=False)}}
    if result.batches is not None:
        # a study dump: the kappas above are the release's; each batch's on its own
        # annotators here
        out["batches"] = {str(r.batch): {"issues": int(r.issues),
                                         "annotators": int(r.annotators),
                                         "fleiss_kappa": _r(r.fleiss_kappa),
                                         "fleiss_kappa_generalised":
                                             _r(r.fleiss_kappa_generalised)}
                          for r in result.batches.itertuples(index=False)}
    return out


# Figure name -> (caption, alt text): templates filled by website_vars.
FIGURES = {
    "kappas": ("Agreement per issue type and overall: Fleiss' kappa (complete rows), "
               "Krippendorff's alpha and Gwet's AC1 with {pct} bootstrap intervals; diamonds "
               "mark the paper's kappas.",
               "Dot plot of three agreement coefficients for Bug, Requirement, Question and "
               "all issues. Fleiss' kappa (complete rows) is {kappa_bug} for Bug, "
               "{kappa_requirement} for Requirement and {kappa_question} for Question, where "
               "the paper prints {paper_bug}, {paper_requirement} and {paper_question}; all "
               "coefficients lie between {low} and {high}."),
    "pairwise": ("Cohen's kappa between every pair of annotators, and between each "
                 "annotator and the final label (last column).",
                 "Heatmap of Cohen's kappa for the {annotators} annotators; pairwise values "
                 "range from {pair_min} to {pair_max}; against the final label they range "
                 "from {final_min} to {final_max}."),
    "categories": ("Agreement per theme: Fleiss' per-category kappa with {pct} bootstrap "
                   "intervals, coloured by issue type.",
                   "Dot plot of per-theme kappa for {n_themes} themes, from {cat_min} "
                   "({cat_min_code}) to {cat_max} ({cat_max_code})."),
    "groups": ("Fleiss' kappa (complete rows) over all themes per project and per year, "
               "with {pct} bootstrap intervals.",
               "Two dot plots: per-project kappa from {proj_min} to {proj_max}; per-year "
               "kappa from {year_min} to {year_max}."),
    "audit_final": ("How often each annotator's label equals the final label, per project.",
                    "Heatmap of the share of each annotator's labels equal to the final label "
                    "in each project; overall shares fall from {first_share} for annotator 1 "
                    "to {last_share} for annotator {annotators}."),
    "audit_dissent": ("Issues by the number of annotators dissenting from the final label, "
                      "observed and expected under independent errors at each annotator's "
                      "observed rate per project.",
                      "Bar chart: observed issues with 0 to {max_observed} dissenters next to "
                      "the Poisson-binomial expectation, which also expects about "
                      "{expected_beyond} issues with more dissenters than ever observed."),
    "audit_targets": ("Where dissenting labels go: for each final theme (rows), the share of "
                      "its dissenting labels given to each other theme (columns).",
                      "Heatmap of dissenting labels by final theme; within an issue type the "
                      "shares are close to even (dissent-weighted evenness {evenness})."),
}


TYPE_KEYS = ("bug", "requirement", "question", "all")


def each_type(rows: dict[str, object], show: Callable[[object], str]) -> tuple[str, ...]:
    """``show`` of the row of each issue type, in :data:`TYPE_KEYS` order (bug,
    requirement, question, all): a dump without, say, Question issues has no row for them,
    but the pages name ``kappa_question``; its value then says so."""
    return tuple(show(rows[k]) if k in rows else f"not defined (no {k} issues)"
                 for k in TYPE_KEYS)


def type_key(group: str) -> str:
    """The key of an issue type in variable names: ``bug``, ..., ``all`` for all issues."""
    return "all" if group == "all issues" else group.lower()


def website_vars(result: Agreement) -> dict:
    """Numbers and texts for the website's prose, figure captions and alt texts
    (``fig_<figure>_caption`` and ``fig_<figure>_alt``, from :data:`FIGURES`).

    Captions and plain values are fixed templates filled with numbers; text that quotes
    the data (project names, labels outside the taxonomy) is kept under keys ending in
    ``_alt`` or ``_text``, which the report shows only as escaped HTML.
    """
    a, head = result.analysis, result.headline
    f, params = a.facts, a.params
    analytic = f"{params.confidence_level:.0%} analytic interval"
    rows = {type_key(r.group): r for r in head.itertuples(index=False)}
    v: dict = {"issues": f["issues"], "annotators": f["annotators"],
               "categories": f["categories"], "resamples": params.bootstrap_resamples,
               "seed": params.seed, "confidence": f"{params.confidence_level:.0%}",
               "type_disagreement_issues": f["type_disagreement"],
               "final_is_majority_issues": f["final_is_majority"],
               "ac1_categories": f["ac1_categories"],
               "kappa_estimator": estimator_phrase(f)}
    (v["kappa_bug"], v["kappa_requirement"], v["kappa_question"],
     v["kappa_all"]) = each_type(rows, lambda r: dec(r.kappa))
    (v["kappa_bug_stated"], v["kappa_requirement_stated"], v["kappa_question_stated"],
     v["kappa_all_stated"]) = each_type(rows, lambda r: kappa_stated(r, f, analytic))
    (v["ac1_bug"], v["ac1_requirement"], v["ac1_question"],
     v["ac1_all"]) = each_type(rows, lambda r: dec(r.ac1))
    v["alpha_all"] = each_type(rows, lambda r: dec(r.alpha))[3]
    v["chance_bug"], v["chance_requirement"], v["chance_question"], _ = each_type(
        rows, lambda r: dec(r.chance))
    v["observed_bug"], v["observed_requirement"], v["observed_question"], _ = each_type(
        rows, lambda r: dec(r.observed))
    (v["type_kappa_bug"], v["type_kappa_requirement"], v["type_kappa_question"],
     v["type_kappa_all"]) = each_type(rows, lambda r: dec(r.type_kappa))
    v.update(audit_vars(a, result.project_names))
    v.update(sensitivity_vars(a, result.project_names))
    v.update(figure_texts(result, v))
    v["method_note_text"] = method_note(a)
    return v


def figure_texts(result: Agreement, v: dict) -> dict[str, str]:
    """The captions and alt texts of the figures (:data:`FIGURES`), filled with the
    numbers they show (``v``: the prose variables, for the kappas)."""
    a, head = result.analysis, result.headline
    values = head[["kappa", "alpha", "ac1"]].to_numpy(float)
    pair = a.pairwise["kappa"].dropna()
    vf = a.versus_final
    cats = a.categories.dropna(subset=["kappa"])
    s = a.statistics

    def span(grouping: str) -> tuple[str, str]:
        x = s[(s["grouping"] == grouping) & (s["statistic"] == "fleiss_kappa")]["value"]
        x = x.dropna()
        return (dec(x.min()), dec(x.max())) if len(x) else (MISSING, MISSING)

    proj, year = span("project"), span("year")
    share = a.final_by_project[a.final_by_project["stratum"] == "all"]["share"]
    tests = a.dissent_tests.set_index("column")
    fill = {
        "pct": f"{a.params.confidence_level:.0%}", "kappa_bug": v["kappa_bug"],
        "kappa_requirement": v["kappa_requirement"], "kappa_question": v["kappa_question"],
        "low": dec(np.nanmin(values)), "high": dec(np.nanmax(values)),
        "paper_bug": result.paper_kappas.get("bug") or MISSING,
        "paper_requirement": result.paper_kappas.get("requirement") or MISSING,
        "paper_question": result.paper_kappas.get("question") or MISSING,
        "annotators": a.facts["annotators"],
        "pair_min": dec(pair.min()) if len(pair) else MISSING,
        "pair_max": dec(pair.max()) if len(pair) else MISSING,
        "final_min": dec(vf["kappa"].min()), "final_max": dec(vf["kappa"].max()),
        "n_themes": len(cats),
        "cat_min": dec(cats["kappa"].min()) if len(cats) else MISSING,
        "cat_min_code": cats.loc[cats["kappa"].idxmin(), "code"] if len(cats) else MISSING,
        "cat_max": dec(cats["kappa"].max()) if len(cats) else MISSING,
        "cat_max_code": cats.loc[cats["kappa"].idxmax(), "code"] if len(cats) else MISSING,
        "proj_min": proj[0], "proj_max": proj[1], "year_min": year[0], "year_max": year[1],
        "first_share": dec(share.iloc[0]), "last_share": dec(share.iloc[-1]),
        "max_observed": int(tests.loc["expected_by_project", "max_observed"]),
        "expected_beyond":
            f"{tests.loc['expected_by_project', 'expected_above_max_observed']:,.0f}",
        "evenness": dec(a.facts["spread"].get("evenness_weighted")),
    }
    out = {}
    for name, (caption, alt) in FIGURES.items():
        out[f"fig_{name}_caption"] = caption.format(**fill)
        out[f"fig_{name}_alt"] = alt.format(**fill)
    return out


def audit_vars(a: Analysis, names: dict[str, str] | None = None) -> dict:
    """The audit of the label columns in numbers: how often each equals the final label,
    the columns that always do in a project (projects by their display ``names``), the
    tests of the dissent counts (the pooled model's is in the tests table), the spread of
    dissenting labels and how often two columns dissent together."""
    names = names or {}
    fbp = a.final_by_project
    shares = [float(x) for x in fbp.loc[fbp["stratum"] == "all", "share"]]
    always = fbp[(fbp["stratum"] != "all") & (fbp["share"] == 1.0)]
    by_ann = {ann: list(always.loc[always["annotator"] == ann, "stratum"])
              for ann in dict.fromkeys(always["annotator"])}
    tests = a.dissent_tests.set_index("column")
    by_project = tests.loc["expected_by_project"]
    majority = tests.loc["expected_by_project_majority"]
    spread = a.facts["spread"]
    cod = a.co_dissent["ratio_majority"].dropna()
    return {
        "final_share_first": dec(shares[0]) if shares else MISSING,
        "final_share_last": dec(shares[-1]) if shares else MISSING,
        "final_share_falls": ("yes" if len(shares) > 1 and all(
            x > y for x, y in zip(shares, shares[1:], strict=False)) else "no"),
        "audit_projects": int(fbp.loc[fbp["stratum"] != "all", "stratum"].nunique()),
        "always_final_pairs": int(len(always)),
        "always_final_text": ("Where a column always equals the final label: " + "; ".join(
            f"{ann.replace('annotator_', 'annotator ')}: "
            f"{', '.join(names.get(str(p), str(p)) for p in projs)}"
            for ann, projs in by_ann.items()) + "." if by_ann else
            "No column equals the final label on every report of a project."),
        "dissent_by_project_chi2": dec(by_project["chi2"], 1),
        "dissent_by_project_dof": int(by_project["dof"]),
        "dissent_by_project_p": pval(by_project["p_value"]),
        "dissent_by_project_expected_above_max":
            f"{by_project['expected_above_max_observed']:,.0f}",
        "dissent_majority_chi2": dec(majority["chi2"], 1),
        "dissent_majority_dof": int(majority["dof"]),
        "dissent_majority_p": pval(majority["p_value"]),
        "dissent_majority_variance_ratio": dec(majority["variance_ratio"]),
        "dissent_max_observed": int(by_project["max_observed"]),
        "dissent_none_observed": int(a.dissent["observed"].iloc[0]),
        "dissent_evenness": dec(spread.get("evenness_weighted")),
        "dissent_within_type_share": dec(spread.get("within_type_share")),
        "dissent_spread_text": spread_sentence(spread),
        "co_dissent_ratio_min": dec(cod.min(), 2) if len(cod) else MISSING,
        "co_dissent_ratio_max": dec(cod.max(), 2) if len(cod) else MISSING,
    }


def estimator_phrase(facts: dict) -> str:
    """Which Fleiss' kappa estimator the pages' kappas are, in a few words: the
    complete-rows one, and whether that left issues out (then the generalised one differs)."""
    if not facts["issues_incomplete"]:
        return (f"Fleiss' kappa; every report has all {facts['annotators']} ratings, so the "
                "complete-rows and Gwet's generalised estimator give the same value")
    return (f"complete-rows Fleiss' kappa: the {facts['issues_complete']:,} of "
            f"{facts['issues']:,} reports rated by all {facts['annotators']} annotators; "
            "Gwet's generalised estimator, over every report with two or more ratings, is "
            "given beside it")


def kappa_stated(r: object, facts: dict, analytic: str) -> str:
    """A kappa of the headline table as a page states it in prose: its value and analytic
    interval, and where ratings are missing which estimator it is, with the generalised
    estimator's value beside it (the same wording on every page)."""
    main = f"{dec(r.kappa)} ({analytic} {interval(r.kappa_ci_low, r.kappa_ci_high)})"
    if not facts["issues_incomplete"]:
        return main
    return (f"{dec(r.kappa)} with the complete-rows estimator over {r.issues_kappa:,} "
            f"reports ({analytic} {interval(r.kappa_ci_low, r.kappa_ci_high)}) and "
            f"{dec(r.kappa_gen)} with Gwet's generalised estimator over {r.issues_kappa_gen:,} "
            f"reports ({analytic} {interval(r.kappa_gen_ci_low, r.kappa_gen_ci_high)})")


def spread_sentence(spread: dict) -> str:
    """The chi-square tests of "dissent spreads evenly", counted as the spread table
    shows them: over every theme with a p-value, and over those with enough dissenting
    labels for the test's approximation."""
    with_p, uneven = spread.get("themes_with_p", 0), spread.get("themes_with_p_uneven_5pct", 0)
    tested, uneven_big = spread.get("themes_tested", 0), spread.get("themes_uneven_5pct", 0)
    return (f"The table gives a chi-square test of an exactly even spread for {with_p} "
            f"themes (those with dissenting labels on two or more other themes of their "
            f"type); it rejects an even spread at 5% for {uneven} of them. Of the {tested} "
            f"themes with at least {spread.get('min_labels', 100)} dissenting labels within "
            f"their type, where the test's approximation holds well, it rejects for "
            f"{uneven_big}; the evenness above weighs those {tested} themes by their "
            "dissenting labels.")


def sensitivity_vars(a: Analysis, names: dict[str, str] | None = None) -> dict:
    """Numbers and texts of the sensitivity analysis: leave-one-annotator-out ranges per
    type, and the kappas without a column that equals the final label on every report of
    a project (projects by their display ``names``)."""
    names = names or {}
    left = a.leave_one_out[a.leave_one_out["left_out"] != "none"]
    kappas = {type_key(str(t)): left.loc[left["type"] == t, "kappa"].dropna()
              for t in dict.fromkeys(left["type"])}

    def low(k: pd.Series) -> str:
        return dec(k.min()) if len(k) else MISSING

    def high(k: pd.Series) -> str:
        return dec(k.max()) if len(k) else MISSING

    out: dict = {}
    out["loo_bug_min"], out["loo_requirement_min"], out["loo_question_min"], _ = each_type(
        kappas, low)
    out["loo_bug_max"], out["loo_requirement_max"], out["loo_question_max"], _ = each_type(
        kappas, high)
    pairs, sens = a.always_final, a.sensitivity
    if sens.empty:
        out["sensitivity_text"] = ("No label column equals the final label on every report "
                                   "of a project, so there is nothing to leave out.")
        return out
    parts = []
    for scenario, words in (("without in those projects", "Setting those ratings missing "
                             "in those projects only"),
                            ("without everywhere", "Leaving the column(s) out everywhere")):
        rows = sens[(sens["scenario"] == scenario) & (sens["type"] != "all issues")]
        parts.append(words + ": " + "; ".join(
            f"{t} {dec(k)} over {n:,} reports (complete rows), {dec(g)} over {ng:,} "
            f"(generalised)" for t, k, n, g, ng in zip(
                rows["type"], rows["kappa"], rows["issues"], rows["kappa_generalised"],
                rows["issues_generalised"], strict=True)) + ".")
    where = "; ".join(
        f"{c.replace('annotator_', 'column ')} in "
        f"{', '.join(names.get(p, p) for p in pairs.loc[pairs['annotator'] == c, 'project'])}"
        for c in dict.fromkeys(pairs["annotator"]))
    out["sensitivity_text"] = (f"Equal to the final label on every report of a project: "
                               f"{where}. " + " ".join(parts))
    return out


def method_note(a: Analysis) -> str:
    """The short method note (plain text) shown next to the agreement tables."""
    f = a.facts
    left = f["issues_incomplete"]
    missing = (f"{left:,} issues lack at least one rating: the complete-rows Fleiss' kappa "
               f"leaves them out (it uses the {f['issues_complete']:,} issues rated by every "
               "annotator), Gwet's generalised Fleiss' kappa, alpha and AC1 use every rating."
               if left else
               "No rating is missing, so every coefficient uses every issue and the two "
               "Fleiss' kappa estimators give the same value.")
    unknown = (f" Labels outside the taxonomy ({', '.join(f['unknown_labels'])}) are "
               "categories of their own." if f["unknown_labels"] else "")
    q = f["ac1_categories"]
    ac1 = (f"Gwet's AC1 assumes {q} categories (params.yaml agreement.ac1_categories: "
           + ("the rating scale, i.e. the taxonomy's theme codes and any label outside it)"
              if a.params.ac1_categories == "taxonomy" else "set explicitly)")
           + "; its chance term divides by the number of categories less one, so another "
           "number gives another AC1.")
    return (
        f"Each of the {f['issues']:,} issues carries {f['annotators']} annotators' labels on a "
        f"scale of {f['categories']} theme codes.{unknown} {missing} The paper's three kappas "
        "are reproduced by grouping issues by the type of their final label and computing "
        "Fleiss' kappa over all theme codes within each group. The grouping conditions on "
        "the outcome: the final label is itself the annotators' majority "
        f"(on {f['final_is_majority']:,} of {f['issues']:,} issues), so an issue on whose "
        f"type annotators disagreed ({f['type_disagreement']:,} issues) is placed in the "
        "group its majority chose, and each group's chance agreement is computed from that "
        "group's own theme prevalence. Fleiss' kappa comes in two estimators: the classic "
        "one needs the same number of ratings on every issue and uses only the issues rated "
        "by every annotator (complete rows); Gwet's generalised Fleiss' kappa (Handbook of "
        "Inter-Rater Reliability, chapter 2, as the irrCAC package computes it) averages "
        f"observed agreement over the issues with two or more ratings ({f['issues_two_ratings']:,}"
        " here) and takes the theme shares from every issue with a rating. Krippendorff's "
        f"alpha is nominal. {ac1} Analytic intervals are Gwet's "
        "linearised standard errors with a Student t interval (as in irrCAC); bootstrap "
        f"intervals are percentile intervals over {a.params.bootstrap_resamples:,} "
        f"resamples of the issues (seed {a.params.seed}) of all issues, shared by every "
        "group, so a group's size varies "
        "from resample to resample; every interval shown says which of the two it is, and "
        "the pages' prose quotes the analytic one. Pairwise Cohen's kappas and their "
        "intervals come from statsmodels. A dissenting label is an annotator's label that "
        "differs from the final label; the expected numbers of dissenters assume annotators "
        "err independently at their observed rate in each project (a Poisson-binomial "
        "distribution per issue), first given that the final label is a strict majority of "
        "the issue's ratings (at most half the annotators, less one, can then dissent), "
        "then without that condition. The sensitivity analysis recomputes the per-type "
        "kappas with each label column left out, and without a column wherever it equals "
        "the final label on every report of a project."
    )


def build(result: Agreement) -> StageOutputs:
    return StageOutputs(tables=tables(result), figures=figures(result),
                        website_vars=website_vars(result), claim_values=claim_values(result),
                        metrics=metrics(result),
                        schemas=stage_schemas("agreement"))
