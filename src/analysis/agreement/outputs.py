"""What the agreement stage writes (the stage contract of :mod:`analysis.core.stage`).

From one :class:`~analysis.agreement.analysis.Agreement`: the headline, statistics,
grouping, annotator and audit tables (CSV; the headline and the method note also as
Markdown), the seven figures, the website's numbers and texts (with the figures' captions
and alt texts), the reproduced kappas and the metrics.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.agreement import figures as figs
from analysis.agreement.compute import CLAIM_PREFIX, Agreement, Analysis, stat
from analysis.core.stage import StageOutputs


def fmt(x: object, digits: int = 3) -> str:
    """A number for prose; '—' when not defined."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "—"
    return f"{float(x):.{digits}f}"


def interval(low: object, high: object, digits: int = 3) -> str:
    """``low–high``; '—' when either end is not defined (half an interval says nothing)."""
    ends = fmt(low, digits), fmt(high, digits)
    return "—" if "—" in ends else "–".join(ends)


def headline_markdown(head: pd.DataFrame, level: float) -> str:
    """The headline table as Markdown (values with bootstrap intervals; both Fleiss' kappa
    estimators with the issues each uses)."""
    pct = f"{level:.0%}"
    lines = [f"| Group | Issues | Paper κ | Fleiss' κ, complete rows ({pct} bootstrap) | "
             f"Issues used | Generalised Fleiss' κ ({pct} bootstrap) | Issues used | "
             "Krippendorff's α | Gwet's AC1 | κ on type only |",
             "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in head.itertuples(index=False):
        lines.append(
            f"| {r.group} | {r.issues:,} | {r.paper_kappa or '—'} | {fmt(r.kappa)} "
            f"({interval(r.kappa_boot_low, r.kappa_boot_high)}) | {r.issues_kappa:,} | "
            f"{fmt(r.kappa_gen)} ({interval(r.kappa_gen_boot_low, r.kappa_gen_boot_high)}) | "
            f"{r.issues_kappa_gen:,} | {fmt(r.alpha)} "
            f"({interval(r.alpha_boot_low, r.alpha_boot_high)}) | {fmt(r.ac1)} "
            f"({interval(r.ac1_boot_low, r.ac1_boot_high)}) | {fmt(r.type_kappa)} |")
    return "\n".join(lines) + "\n"


def tables(result: Agreement) -> dict[str, pd.DataFrame | str]:
    """Every table of the stage (CSV), the headline as Markdown and the method note."""
    a = result.analysis
    return {
        "headline.csv": result.headline, "statistics.csv": a.statistics,
        "categories.csv": a.categories, "grouping.csv": result.grouping,
        "pairwise.csv": a.pairwise, "annotator_final.csv": a.versus_final,
        "confusions.csv": a.confusions, "audit_final_by_project.csv": a.final_by_project,
        "audit_dissent.csv": a.dissent, "audit_tests.csv": a.dissent_tests,
        "audit_co_dissent.csv": a.co_dissent, "audit_targets.csv": a.targets,
        "audit_spread.csv": a.spread, "audit_leave_one_out.csv": a.leave_one_out,
        "audit_always_final.csv": a.always_final, "audit_sensitivity.csv": a.sensitivity,
        "headline.md": headline_markdown(result.headline, a.facts["level"]),
        "method.md": method_note(a) + "\n",
    }


def figures(result: Agreement) -> dict:
    """The seven figures, each drawn from the tables when it is saved."""
    a, names = result.analysis, result.project_names
    level = a.facts["level"]
    paper = {r.group.lower(): float(r.paper_kappa)
             for r in result.headline.itertuples() if r.paper_kappa}
    types = dict(zip(a.scale.categories, (a.scale.types[i] for i in a.scale.type_index),
                     strict=True))
    return {
        "kappas": lambda: figs.kappas_figure(a.statistics, paper, level),
        "pairwise": lambda: figs.pairwise_figure(a.pairwise, a.versus_final,
                                                 list(a.ratings.annotators)),
        "categories": lambda: figs.categories_figure(a.categories, level),
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
                     f"issues with two or more ratings: {fmt(gen['value'])}")
        out[cid] = {"value": r["value"], "note": note if r["value"] is not None else r["note"]}
    return out


def _r(x: object) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else round(float(x), 6)


def metrics(result: Agreement) -> dict:
    """Headline values with their intervals, for `dvc metrics show/diff`."""
    a = result.analysis
    out: dict = {"issues": a.facts["issues"], "annotators": a.facts["annotators"],
                 "issues_left_out_fleiss": a.facts["issues_incomplete"],
                 "issues_two_ratings": a.facts["issues_two_ratings"],
                 "ac1_categories": a.facts["ac1_categories"],
                 "bootstrap_resamples": a.facts["resamples"]}
    s = a.statistics[a.statistics["grouping"].isin(["all", "type"])]
    for r in s.itertuples(index=False):
        key = "all" if r.grouping == "all" else r.group
        out.setdefault(r.statistic, {})[key] = {
            "value": _r(r.value), "boot_low": _r(r.boot_low), "boot_high": _r(r.boot_high),
            **({"ci_low": _r(r.ci_low), "ci_high": _r(r.ci_high)}
               if r.statistic != "fleiss_kappa_type" else {})}
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


def website_vars(result: Agreement) -> dict:
    """Numbers and texts for the website's prose, figure captions and alt texts
    (``fig_<figure>_caption`` and ``fig_<figure>_alt``, from :data:`FIGURES`).

    Captions and plain values are fixed templates filled with numbers; text that quotes
    the data (project names, labels outside the taxonomy) is kept under keys ending in
    ``_alt`` or ``_text``, which the report shows only as escaped HTML.
    """
    a, head = result.analysis, result.headline
    f = a.facts
    pct = f"{f['level']:.0%}"
    v: dict = {"issues": f["issues"], "annotators": f["annotators"],
               "categories": f["categories"], "resamples": f["resamples"],
               "seed": f["seed"], "confidence": pct,
               "issues_left_out_fleiss": f["issues_incomplete"],
               "ratings_missing": f["ratings_missing"],
               "type_disagreement_issues": f["type_disagreement"],
               "final_is_majority_issues": f["final_is_majority"]}
    v["ac1_categories"] = f["ac1_categories"]
    v["issues_two_ratings"] = f["issues_two_ratings"]
    v["kappa_estimator"] = estimator_phrase(f)
    boot, analytic = f"{pct} bootstrap interval", f"{pct} analytic interval"
    for r in head.itertuples(index=False):
        key = "all" if r.group == "all issues" else r.group.lower()
        v[f"kappa_{key}"] = fmt(r.kappa)
        v[f"kappa_{key}_boot"] = f"{boot} {interval(r.kappa_boot_low, r.kappa_boot_high)}"
        v[f"kappa_{key}_ci"] = f"{analytic} {interval(r.kappa_ci_low, r.kappa_ci_high)}"
        v[f"kappa_{key}_issues"] = r.issues_kappa
        v[f"kappa_{key}_gen"] = fmt(r.kappa_gen)
        v[f"kappa_{key}_gen_boot"] = (f"{boot} "
                                      f"{interval(r.kappa_gen_boot_low, r.kappa_gen_boot_high)}")
        v[f"kappa_{key}_gen_ci"] = (f"{analytic} "
                                    f"{interval(r.kappa_gen_ci_low, r.kappa_gen_ci_high)}")
        v[f"kappa_{key}_gen_issues"] = r.issues_kappa_gen
        v[f"kappa_{key}_stated"] = kappa_stated(r, f, analytic)
        v[f"alpha_{key}"] = fmt(r.alpha)
        v[f"alpha_{key}_boot"] = f"{boot} {interval(r.alpha_boot_low, r.alpha_boot_high)}"
        v[f"ac1_{key}"] = fmt(r.ac1)
        v[f"ac1_{key}_boot"] = f"{boot} {interval(r.ac1_boot_low, r.ac1_boot_high)}"
        v[f"chance_{key}"] = fmt(r.chance)
        v[f"observed_{key}"] = fmt(r.observed)
        v[f"type_kappa_{key}"] = fmt(r.type_kappa)
    values = head[["kappa", "alpha", "ac1"]].to_numpy(float)
    pair = a.pairwise["kappa"].dropna()
    vf = a.versus_final
    cats = a.categories.dropna(subset=["kappa"])
    s = a.statistics

    def span(grouping: str) -> tuple[str, str]:
        x = s[(s["grouping"] == grouping) & (s["statistic"] == "fleiss_kappa")]["value"]
        x = x.dropna()
        return (fmt(x.min()), fmt(x.max())) if len(x) else ("—", "—")

    proj, year = span("project"), span("year")
    share = a.final_by_project[a.final_by_project["stratum"] == "all"]["share"]
    always = a.final_by_project[(a.final_by_project["stratum"] != "all")
                                & (a.final_by_project["share"] == 1.0)]
    by_ann = always.groupby("annotator", sort=False)["stratum"].apply(list)
    tests = a.dissent_tests.set_index("column")
    spread = f["spread"]
    fill = {
        "pct": pct, "kappa_bug": v.get("kappa_bug", "—"),
        "kappa_requirement": v.get("kappa_requirement", "—"),
        "kappa_question": v.get("kappa_question", "—"),
        "low": fmt(np.nanmin(values)), "high": fmt(np.nanmax(values)),
        **{f"paper_{t}": result.paper_kappas.get(t) or "—"
           for t in ("bug", "requirement", "question")},
        "annotators": f["annotators"],
        "pair_min": fmt(pair.min()) if len(pair) else "—",
        "pair_max": fmt(pair.max()) if len(pair) else "—",
        "final_min": fmt(vf["kappa"].min()), "final_max": fmt(vf["kappa"].max()),
        "n_themes": len(cats),
        "cat_min": fmt(cats["kappa"].min()) if len(cats) else "—",
        "cat_min_code": cats.loc[cats["kappa"].idxmin(), "code"] if len(cats) else "—",
        "cat_max": fmt(cats["kappa"].max()) if len(cats) else "—",
        "cat_max_code": cats.loc[cats["kappa"].idxmax(), "code"] if len(cats) else "—",
        "proj_min": proj[0], "proj_max": proj[1], "year_min": year[0], "year_max": year[1],
        "first_share": fmt(share.iloc[0]), "last_share": fmt(share.iloc[-1]),
        "max_observed": int(tests.loc["expected_by_project", "max_observed"]),
        "expected_beyond":
            f"{tests.loc['expected_by_project', 'expected_above_max_observed']:,.0f}",
        "evenness": fmt(spread.get("evenness_weighted")),
    }
    for name, (caption, alt) in FIGURES.items():
        v[f"fig_{name}_caption"] = caption.format(**fill)
        v[f"fig_{name}_alt"] = alt.format(**fill)
    for r in vf.itertuples(index=False):
        v[f"{r.annotator}_final_share"] = fmt(r.agreement)
        v[f"{r.annotator}_final_kappa"] = fmt(r.kappa)
    shares = [float(x) for x in share]
    v["final_share_first"] = fmt(shares[0]) if shares else "—"
    v["final_share_last"] = fmt(shares[-1]) if shares else "—"
    v["final_share_falls"] = ("yes" if len(shares) > 1 and all(
        x > y for x, y in zip(shares, shares[1:], strict=False)) else "no")
    v["audit_projects"] = int(a.final_by_project.loc[
        a.final_by_project["stratum"] != "all", "stratum"].nunique())
    v["always_final_pairs"] = int(len(always))
    v["always_final_text"] = ("Where a column always equals the final label: " + "; ".join(
        f"{ann.replace('annotator_', 'annotator ')}: {', '.join(map(str, projs))}"
        for ann, projs in by_ann.items()) + "." if len(by_ann) else
        "No column equals the final label on every report of a project.")
    for col, key in (("expected_pooled", "pooled"), ("expected_by_project", "by_project"),
                     ("expected_by_project_majority", "majority")):
        t = tests.loc[col]
        v[f"dissent_{key}_chi2"] = fmt(t["chi2"], 1)
        v[f"dissent_{key}_dof"] = int(t["dof"])
        v[f"dissent_{key}_p"] = _p(t["p_value"])
        v[f"dissent_{key}_variance_ratio"] = fmt(t["variance_ratio"])
        v[f"dissent_{key}_expected_above_max"] = f"{t['expected_above_max_observed']:,.0f}"
    v["dissent_max_observed"] = fill["max_observed"]
    v["dissent_none_observed"] = int(a.dissent["observed"].iloc[0])
    v["dissent_evenness"] = fill["evenness"]
    v["dissent_within_type_share"] = fmt(spread.get("within_type_share"))
    v["dissent_themes_tested"] = spread.get("themes_tested", 0)
    v["dissent_themes_uneven"] = spread.get("themes_uneven_5pct", 0)
    v["dissent_spread_text"] = spread_sentence(spread)
    v.update(sensitivity_vars(a))
    cod = a.co_dissent["ratio_majority"].dropna()
    v["co_dissent_ratio_min"] = fmt(cod.min(), 2) if len(cod) else "—"
    v["co_dissent_ratio_max"] = fmt(cod.max(), 2) if len(cod) else "—"
    top = a.confusions.head(1)
    v["top_confusion_text"] = (
        f"The pair of themes annotators confused most often over all reports: "
        f"{top['label_a'].iloc[0]} and {top['label_b'].iloc[0]}." if len(top) else
        "No two annotators gave different themes to the same report.")
    v["method_note_text"] = method_note(a)
    return with_every_type(v)


TYPE_KEYS = ("bug", "requirement", "question", "all")


def with_every_type(v: dict) -> dict:
    """``v`` with every per-type key for every issue type: a dump without, say, Question
    issues has no row for them, but the pages name ``kappa_question`` and its kin. A
    missing count is 0, a missing value "not defined (no ... issues)"."""
    out = dict(v)
    for key in v:
        parts = key.split("_")
        for i, part in enumerate(parts):
            if part not in TYPE_KEYS:
                continue
            for other in TYPE_KEYS:
                twin = "_".join([*parts[:i], other, *parts[i + 1:]])
                if twin not in out:
                    out[twin] = (0 if isinstance(v[key], int) and not isinstance(
                        v[key], bool) else f"not defined (no {other} issues)")
    return out


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
    main = f"{fmt(r.kappa)} ({analytic} {interval(r.kappa_ci_low, r.kappa_ci_high)})"
    if not facts["issues_incomplete"]:
        return main
    return (f"{fmt(r.kappa)} with the complete-rows estimator over {r.issues_kappa:,} "
            f"reports ({analytic} {interval(r.kappa_ci_low, r.kappa_ci_high)}) and "
            f"{fmt(r.kappa_gen)} with Gwet's generalised estimator over {r.issues_kappa_gen:,} "
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


def sensitivity_vars(a: Analysis) -> dict:
    """Numbers and texts of the sensitivity analysis: leave-one-annotator-out ranges per
    type, and the kappas without a column that equals the final label on every report of
    a project."""
    loo = a.leave_one_out
    out: dict = {}
    left = loo[loo["left_out"] != "none"]
    for t, rows in left.groupby("type", sort=False):
        key = "all" if t == "all issues" else str(t).lower()
        kappas = rows["kappa"].dropna()
        out[f"loo_{key}_min"] = fmt(kappas.min()) if len(kappas) else "—"
        out[f"loo_{key}_max"] = fmt(kappas.max()) if len(kappas) else "—"
    pairs = a.always_final
    out["always_final_columns"] = int(pairs["annotator"].nunique()) if len(pairs) else 0
    sens = a.sensitivity
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
            f"{t} {fmt(k)} over {n:,} reports (complete rows), {fmt(g)} over {ng:,} "
            f"(generalised)" for t, k, n, g, ng in zip(
                rows["type"], rows["kappa"], rows["issues"], rows["kappa_generalised"],
                rows["issues_generalised"], strict=True)) + ".")
    by_col = pairs.groupby("annotator", sort=False)["project"].apply(list)
    where = "; ".join(f"{c.replace('annotator_', 'column ')} in {', '.join(p)}"
                      for c, p in by_col.items())
    out["sensitivity_text"] = (f"Equal to the final label on every report of a project: "
                               f"{where}. " + " ".join(parts))
    return out


def _p(p: object) -> str:
    if p is None or (isinstance(p, float) and np.isnan(p)):
        return "—"
    return "< 0.001" if float(p) < 0.001 else f"{float(p):.3f}"


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
              if f["ac1_categories_setting"] == "taxonomy" else "set explicitly)")
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
        f"intervals are percentile intervals over {f['resamples']:,} resamples of the issues "
        f"(seed {f['seed']}) of all issues, shared by every group, so a group's size varies "
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
                        metrics=metrics(result))
