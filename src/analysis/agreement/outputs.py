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
from analysis.agreement.analysis import CLAIM_PREFIX, Agreement, Analysis, stat
from analysis.core.stage import StageOutputs


def fmt(x: object, digits: int = 3) -> str:
    """A number for prose; '—' when not defined."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "—"
    return f"{float(x):.{digits}f}"


def interval(low: object, high: object, digits: int = 3) -> str:
    return f"{fmt(low, digits)}–{fmt(high, digits)}"


def headline_markdown(head: pd.DataFrame, level: float) -> str:
    """The headline table as Markdown (values with bootstrap intervals)."""
    pct = f"{level:.0%}"
    lines = [f"| Group | Issues | Paper κ | Fleiss' κ ({pct} bootstrap) | Krippendorff's α | "
             "Gwet's AC1 | κ on type only |",
             "|:--|--:|--:|--:|--:|--:|--:|"]
    for r in head.itertuples(index=False):
        lines.append(
            f"| {r.group} | {r.issues:,} | {r.paper_kappa or '—'} | {fmt(r.kappa)} "
            f"({interval(r.kappa_boot_low, r.kappa_boot_high)}) | {fmt(r.alpha)} "
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
        "audit_spread.csv": a.spread,
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
    """Reproduced values of the agreement claims (``agreement.kappa.<type>``)."""
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
            note += f"; {int(r['issues_left_out'])} issues with a missing rating left out"
        out[cid] = {"value": r["value"], "note": note if r["value"] is not None else r["note"]}
    return out


def _r(x: object) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else round(float(x), 6)


def metrics(result: Agreement) -> dict:
    """Headline values with their intervals, for `dvc metrics show/diff`."""
    a = result.analysis
    out: dict = {"issues": a.facts["issues"], "annotators": a.facts["annotators"],
                 "issues_left_out_fleiss": a.facts["issues_incomplete"],
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
    "kappas": ("Agreement per issue type and overall: Fleiss' kappa, Krippendorff's alpha "
               "and Gwet's AC1 with {pct} bootstrap intervals; diamonds mark the paper's "
               "kappas.",
               "Dot plot of three agreement coefficients for Bug, Requirement, Question and "
               "all issues. Fleiss' kappa is {kappa_bug} for Bug, {kappa_requirement} for "
               "Requirement and {kappa_question} for Question, matching the paper's values; "
               "all coefficients lie between {low} and {high}."),
    "pairwise": ("Cohen's kappa between every pair of annotators, and between each "
                 "annotator and the final label (last column).",
                 "Heatmap of Cohen's kappa for the {annotators} annotators; pairwise values "
                 "range from {pair_min} to {pair_max}; against the final label they range "
                 "from {final_min} to {final_max}."),
    "categories": ("Agreement per theme: Fleiss' per-category kappa with {pct} bootstrap "
                   "intervals, coloured by issue type.",
                   "Dot plot of per-theme kappa for {n_themes} themes, from {cat_min} "
                   "({cat_min_code}) to {cat_max} ({cat_max_code})."),
    "groups": ("Fleiss' kappa over all themes per project and per year, with {pct} "
               "bootstrap intervals.",
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
    for r in head.itertuples(index=False):
        key = "all" if r.group == "all issues" else r.group.lower()
        v[f"kappa_{key}"] = fmt(r.kappa)
        v[f"kappa_{key}_boot"] = interval(r.kappa_boot_low, r.kappa_boot_high)
        v[f"kappa_{key}_ci"] = interval(r.kappa_ci_low, r.kappa_ci_high)
        v[f"alpha_{key}"] = fmt(r.alpha)
        v[f"alpha_{key}_boot"] = interval(r.alpha_boot_low, r.alpha_boot_high)
        v[f"ac1_{key}"] = fmt(r.ac1)
        v[f"ac1_{key}_boot"] = interval(r.ac1_boot_low, r.ac1_boot_high)
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
    cod = a.co_dissent["ratio_majority"].dropna()
    v["co_dissent_ratio_min"] = fmt(cod.min(), 2) if len(cod) else "—"
    v["co_dissent_ratio_max"] = fmt(cod.max(), 2) if len(cod) else "—"
    top = a.confusions.head(1)
    v["top_confusion_text"] = (
        f"The pair of themes annotators confused most often over all reports: "
        f"{top['label_a'].iloc[0]} and {top['label_b'].iloc[0]}." if len(top) else
        "No two annotators gave different themes to the same report.")
    v["method_note_text"] = method_note(a)
    return v


def _p(p: object) -> str:
    if p is None or (isinstance(p, float) and np.isnan(p)):
        return "—"
    return "< 0.001" if float(p) < 0.001 else f"{float(p):.3f}"


def method_note(a: Analysis) -> str:
    """The short method note (plain text) shown next to the agreement tables."""
    f = a.facts
    left = f["issues_incomplete"]
    missing = (f"{left:,} issues lack at least one rating: Fleiss' kappa leaves them out, "
               "alpha and AC1 use every rating." if left else
               "No rating is missing, so every coefficient uses every issue.")
    unknown = (f" Labels outside the taxonomy ({', '.join(f['unknown_labels'])}) are "
               "categories of their own." if f["unknown_labels"] else "")
    return (
        f"Each of the {f['issues']:,} issues carries {f['annotators']} annotators' labels on a "
        f"scale of {f['categories']} theme codes.{unknown} {missing} The paper's three kappas "
        "are reproduced by grouping issues by the type of their final label and computing "
        "Fleiss' kappa over all theme codes within each group. The grouping conditions on "
        "the outcome: the final label is itself the annotators' majority "
        f"(on {f['final_is_majority']:,} of {f['issues']:,} issues), so an issue on whose "
        f"type annotators disagreed ({f['type_disagreement']:,} issues) is placed in the "
        "group its majority chose, and each group's chance agreement is computed from that "
        "group's own theme prevalence. Krippendorff's alpha is nominal; Gwet's AC1 uses "
        f"the whole scale of {f['categories']} categories. Analytic intervals are Gwet's "
        "linearised standard errors with a Student t interval (as in irrCAC); bootstrap "
        f"intervals are percentile intervals over {f['resamples']:,} resamples of the issues "
        f"(seed {f['seed']}) of all issues, shared by every group, so a group's size varies "
        "from resample to resample. Pairwise Cohen's kappas and their "
        "intervals come from statsmodels. A dissenting label is an annotator's label that "
        "differs from the final label; the expected numbers of dissenters assume annotators "
        "err independently at their observed rate in each project (a Poisson-binomial "
        "distribution per issue)."
    )


def build(result: Agreement) -> StageOutputs:
    return StageOutputs(tables=tables(result), figures=figures(result),
                        website_vars=website_vars(result), claim_values=claim_values(result),
                        metrics=metrics(result))
