"""The includes of the Agreement page (``agreement.qmd``): the paper's kappas beside ours,
the coefficients per group with their intervals, how they depend on the grouping, per
theme, project and year, against the final label, the confusions, the audit of the
label columns, and on a study each annotator followed from batch to batch."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import (
    count,
    dec,
    decimal,
    interval,
    is_missing,
    pct,
    pval,
    signed,
    yes_no,
)
from analysis.report.generated import STATUS_MARK, callout
from analysis.report.htmlsafe import details_block, esc, html_table, md_escape, raw_html_block
from analysis.report.pages.base import (
    AG,
    Include,
    Inputs,
    P,
    annotator,
    claims_include,
    intervals,
    rel,
    table,
)


def _intervals(frame: pd.DataFrame, prefix: str, kind: str) -> list[str]:
    """``kind`` ("ci": analytic, "boot": bootstrap) intervals of the coefficient ``prefix``."""
    return intervals(frame, f"{prefix}_{kind}_low", f"{prefix}_{kind}_high")


def agreement_headline(i: Inputs) -> str:
    """Fleiss' kappa per group by both estimators, each with the issues it uses and its
    analytic and bootstrap intervals, named as such."""
    h = i.csv(AG("headline.csv"))
    shown = pd.DataFrame({
        "group (type of the final label)": h["group"], "issues": h["issues"].map(count),
        "paper's κ": h["paper_kappa"].map(dec),
        "Fleiss' κ, complete rows": h["kappa"].map(dec),
        "issues it uses": h["issues_kappa"].map(count),
        "analytic interval": _intervals(h, "kappa", "ci"),
        "bootstrap interval": _intervals(h, "kappa", "boot"),
        "Fleiss' κ, Gwet's generalised": h["kappa_gen"].map(dec),
        "issues it uses ": h["issues_kappa_gen"].map(count),
        "analytic interval ": _intervals(h, "kappa_gen", "ci"),
        "bootstrap interval ": _intervals(h, "kappa_gen", "boot")})
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_coefficients(i: Inputs) -> str:
    """The other coefficients per group, with their bootstrap intervals, and the observed
    and chance agreement behind the complete-rows Fleiss' kappa."""
    h = i.csv(AG("headline.csv"))
    shown = pd.DataFrame({
        "group (type of the final label)": h["group"],
        "Krippendorff's α": h["alpha"].map(dec),
        "α bootstrap interval": _intervals(h, "alpha", "boot"),
        "Gwet's AC1": h["ac1"].map(dec),
        "AC1 bootstrap interval": _intervals(h, "ac1", "boot"),
        "observed agreement": h["observed"].map(dec),
        "chance agreement": h["chance"].map(dec),
        "κ on the type only (complete rows)": h["type_kappa"].map(dec)})
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_grouping(i: Inputs) -> str:
    """The kappas under each way of grouping the issues, against the paper's, with the
    grouping rules as a legend."""
    g = i.csv(AG("grouping.csv"))
    shown = pd.DataFrame({
        "issues grouped by": g["grouping"], "type": g["type"],
        "issues": g["issues"].map(count),
        "observed": g["observed"].map(dec), "chance": g["chance"].map(dec),
        "Fleiss' κ, complete rows": g["kappa"].map(dec),
        "Fleiss' κ, Gwet's generalised": g["kappa_generalised"].map(dec),
        "its issues": g["issues_generalised"].map(count),
        "paper's κ": g["paper_kappa"].map(dec),
        "same as the paper's": [
            f"{STATUS_MARK['exact']} yes" if yes_no(x) == "yes" else f"{STATUS_MARK['differs']} no"
            for x in g["matches_paper"]]})
    rules = g.drop_duplicates("grouping")[["grouping", "rule"]]
    legend = "".join(f"<li><strong>{esc(a)}</strong>: {esc(b)}</li>"
                     for a, b in zip(rules["grouping"], rules["rule"], strict=True))
    return (table(shown, numeric=["issues", "observed", "chance", "Fleiss' κ, complete rows",
                                  "Fleiss' κ, Gwet's generalised", "its issues", "paper's κ"],
                  classes="table compact")
            + raw_html_block(f'<ul class="legend">{legend}</ul>'))


def agreement_categories(i: Inputs) -> str:
    """The kappa and specific agreement of every theme."""
    c = i.csv(AG("categories.csv"))
    shown = pd.DataFrame({
        "code": c["code"], "theme": c["name"], "type": c["type"],
        "ratings": c["ratings"].map(count),
        "κ for the theme (complete rows)": c["kappa"].map(dec),
        "bootstrap interval": intervals(c, "boot_low", "boot_high"),
        "specific agreement": c["specific_agreement"].map(dec),
        "note": c["note"].fillna("").astype(str)})
    return table(shown, numeric=["ratings", "κ for the theme (complete rows)",
                                 "bootstrap interval",
                                 "specific agreement"])


def agreement_groups(i: Inputs) -> str:
    """Fleiss' kappa per project and per year, by both estimators with their issues."""
    s = i.csv(AG("statistics.csv"))
    keys = ["grouping", "group"]
    by = s[s["grouping"].isin(["project", "year"])]
    full = by[by["statistic"] == "fleiss_kappa"]
    gen = by[by["statistic"] == "fleiss_kappa_generalised"][
        [*keys, "value", "issues_used", "ci_low", "ci_high"]]
    s = full.merge(gen, on=keys, how="left", suffixes=("", "_gen"), sort=False)
    shown = pd.DataFrame({
        "by": s["grouping"], "group": s["group"].astype(str),
        "issues": s["issues"].map(count),
        "Fleiss' κ, complete rows": s["value"].map(dec),
        "issues it uses": s["issues_used"].map(count),
        "bootstrap interval": intervals(s, "boot_low", "boot_high"),
        "Fleiss' κ, Gwet's generalised": s["value_gen"].map(dec),
        "issues it uses ": s["issues_used_gen"].map(count),
        "analytic interval": intervals(s, "ci_low_gen", "ci_high_gen"),
        "observed": s["observed"].map(dec), "chance": s["chance"].map(dec),
        "note": s["note"].fillna("").astype(str)})
    return table(shown, numeric=[c for c in shown.columns if c not in ("by", "group", "note")])


def agreement_leave_one_out(i: Inputs) -> str:
    """One row per label column left out, one column per issue type: the complete-rows
    Fleiss' kappa and its change against all columns (the generalised one where ratings
    are missing is in the CSV)."""
    t = i.csv(AG("audit_leave_one_out.csv"))
    types = list(dict.fromkeys(t["type"].astype(str)))
    rows = []
    for left in dict.fromkeys(t["left_out"]):
        part = t[t["left_out"] == left]
        row = {"label column left out": "none (all columns)" if left == "none"
               else annotator(left)}
        cells = dict(zip(part["type"].astype(str), zip(part["kappa"], part["change"],
                                                          strict=True), strict=True))
        for ty in types:
            kappa, change = cells.get(ty, (None, None))
            row[ty] = dec(kappa) if left == "none" or is_missing(change) \
                else f"{dec(kappa)} ({signed(change)})"
        rows.append(row)
    shown = pd.DataFrame(rows)
    return table(shown, numeric=types, classes="table compact")


SCENARIOS = {"all columns": "all label columns",
             "without in those projects": "without the column(s) in those projects only",
             "without everywhere": "without the column(s) in every project"}


def agreement_sensitivity(i: Inputs) -> str:
    """The per-type kappas without the columns that always equal the final label in a
    project: both estimators, with the issues each uses."""
    t = i.csv(AG("audit_sensitivity.csv"))
    if t.empty:
        return "No label column equals the final label on every report of a project.\n"
    shown = pd.DataFrame({
        "label columns": t["scenario"].map(lambda x: SCENARIOS.get(str(x), str(x))),
        "type": t["type"].astype(str),
        "Fleiss' κ, complete rows": t["kappa"].map(dec),
        "issues it uses": t["issues"].map(count),
        "change": t["change"].map(signed),
        "Fleiss' κ, Gwet's generalised": t["kappa_generalised"].map(dec),
        "issues it uses ": t["issues_generalised"].map(count),
        "change ": t["change_generalised"].map(signed)})
    return table(shown, numeric=list(shown.columns[2:]), classes="table compact")


def agreement_versus_final(i: Inputs) -> str:
    """Each label column against the final label: how often equal, and Cohen's kappa."""
    a = i.csv(AG("annotator_final.csv"))
    shown = pd.DataFrame({
        "label column": a["annotator"].map(annotator), "issues": a["n"].map(count),
        "equal to the final label": a["agreement"].map(lambda x: pct(x, fraction=True)),
        "Cohen's κ with the final label": a["kappa"].map(dec),
        "asymptotic interval": intervals(a, "ci_low", "ci_high")})
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_confusions(i: Inputs, top: int = 12) -> str:
    """The pairs of themes annotators confused most often; all of them collapsed below."""
    c = i.csv(AG("confusions.csv"))
    if c.empty:
        return "No two annotators ever disagreed.\n"

    def frame(rows: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame({
            "themes": [f"{a} / {b}" for a, b in zip(rows["label_a"], rows["label_b"],
                                                    strict=True)],
            "types": [a if a == b else f"{a} / {b}" for a, b in zip(
                rows["type_a"], rows["type_b"], strict=True)],
            "annotator pairs": rows["rater_pairs"].map(count),
            "issues": rows["issues"].map(count),
            "share of all disagreeing pairs": rows["share_of_disagreements"].map(
                lambda x: pct(x, fraction=True))})

    num = ["annotator pairs", "issues", "share of all disagreeing pairs"]
    out = table(frame(c.head(top)), numeric=num)
    if len(c) > top:
        out += callout("note", f"All {len(c):,} pairs of themes annotators confused",
                       table(frame(c), numeric=num), collapse=True)
    return out


def agreement_audit_final(i: Inputs) -> str:
    """The share of each label column equal to the final label, over all projects and per
    project (a full column marked), with the issues of each."""
    f = i.csv(AG("audit_final_by_project.csv"))
    strata = list(dict.fromkeys(f["stratum"]))
    order = ["all"] + [s for s in strata if s != "all"]
    issues = dict(zip(f["stratum"], f["issues"], strict=True))
    shown = pd.DataFrame({"project": ["all projects" if s == "all" else s for s in order],
                          "issues": [count(issues[s]) for s in order]})
    cells = {}
    for col in dict.fromkeys(f["annotator"]):
        share = dict(zip(f.loc[f["annotator"] == col, "stratum"],
                         f.loc[f["annotator"] == col, "share"], strict=True))
        cells[annotator(col)] = [
            f'<span class="{"full" if share.get(s) == 1.0 else ""}">'
            f"{esc(pct(share.get(s), fraction=True))}</span>" for s in order]
    shown = pd.concat([shown, pd.DataFrame(cells)], axis=1)
    cls = ["sum" if s == "all" else "" for s in order]
    return table(shown, numeric=list(shown.columns[1:]), raw=tuple(cells),
                 classes="table sortable compact audit", row_classes=cls)


def agreement_audit_dissent(i: Inputs) -> str:
    """Issues by the number of dissenting annotators, observed and expected."""
    d = i.csv(AG("audit_dissent.csv"))
    shown = pd.DataFrame({
        "annotators dissenting": d["dissenters"].map(count),
        "issues observed": d["observed"].map(count),
        "expected, rates per project, final label a majority":
            d["expected_by_project_majority"].map(decimal),
        "expected, rates per project": d["expected_by_project"].map(decimal),
        "expected, one rate per annotator": d["expected_pooled"].map(decimal)})
    return table(shown, numeric=list(shown.columns), classes="table compact")


def agreement_audit_tests(i: Inputs) -> str:
    """The tests of the dissent counts against independent annotators."""
    t = i.csv(AG("audit_tests.csv"))
    shown = pd.DataFrame({
        "model of independent annotators": t["model"],
        "χ²": t["chi2"].map(decimal), "df": t["dof"].map(count),
        "p": t["p_value"].map(pval),
        "variance observed / expected": t["variance_ratio"].map(dec),
        "issues without dissent, observed": t["no_dissent_observed"].map(count),
        "expected": t["no_dissent_expected"].map(decimal),
        "issues expected beyond the most dissent observed":
            t["expected_above_max_observed"].map(decimal)})
    return table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_audit_spread(i: Inputs) -> str:
    """Where each final theme's dissenting labels go, and how evenly."""
    s = i.csv(AG("audit_spread.csv"))
    shown = pd.DataFrame({
        "final theme": s["final_label"], "type": s["type"],
        "dissenting labels": s["dissenting_labels"].map(count),
        "within the type": s["within_type_share"].map(lambda x: pct(x, fraction=True)),
        "most frequent other theme": s["top_alternative"].fillna("").astype(str),
        "its share": s["top_share"].map(lambda x: pct(x, fraction=True)),
        "even share": s["even_share"].map(lambda x: pct(x, fraction=True)),
        "evenness": s["evenness"].map(dec),
        "χ² p (even within the type)": s["p_value"].map(pval)})
    return table(shown, numeric=["dissenting labels", "within the type", "its share",
                                 "even share", "evenness", "χ² p (even within the type)"])


def agreement_audit_co_dissent(i: Inputs) -> str:
    """How often two label columns dissent together, against independence."""
    c = i.csv(AG("audit_co_dissent.csv"))
    shown = pd.DataFrame({
        "label columns": [f"{annotator(a)} & {annotator(b)}" for a, b in zip(
            c["annotator_a"], c["annotator_b"], strict=True)],
        "issues both dissent": c["both_dissent"].map(count),
        "expected (independent)": c["expected"].map(decimal),
        "ratio": c["ratio"].map(lambda x: dec(x, 2)),
        "expected (final label a majority)": c["expected_majority"].map(decimal),
        "ratio ": c["ratio_majority"].map(lambda x: dec(x, 2))})
    return table(shown, numeric=list(shown.columns[1:]))


# --- a study (the release extended with batches of new labels): each annotator, batch by
# batch; the tables are optional inputs, written on a study only, so the release's page is
# unchanged

PERSONS, PAIRS = AG("annotators_by_batch.csv"), AG("pairs_by_batch.csv")
AGREEMENT_VARS = rel(P.agreement.vars)
RELEASE = "release"
AGREEMENT_SOURCE = ("[Source: notebooks/04_agreement](notebooks/04_agreement.qmd)"
                    "{.source-link}")


def batch_title(batch: object) -> str:
    """A part of the study as its tables name it: ``the release`` or ``batch 2026-01``."""
    return "the release" if str(batch) == RELEASE else f"batch {batch}"


def kappa_with_n(kappa: object, low: object, high: object, n: object) -> str:
    """A kappa, its interval and the reports it is computed on: ``0.615 (0.310–0.920),
    n = 12``; the mark of a missing value where the kappa is not defined."""
    shown = dec(kappa) if is_missing(kappa) else f"{dec(kappa)} ({interval(low, high)})"
    return f"{shown}, n = {count(n)}"


def persons_followed(persons: pd.DataFrame) -> str:
    """Each person of the new batches, one row, and per batch their kappa with the
    majority of the others (a person keeps their label column from batch to batch)."""
    new = persons[persons["batch"].astype(str) != RELEASE]
    if new.empty:
        return ""
    batches = list(dict.fromkeys(new["batch"].astype(str)))
    order = sorted(dict.fromkeys(new["label_column"].astype(str)),
                   key=lambda c: int(c.removeprefix("Label")))
    cells = {(str(r.label_column), str(r.batch)): kappa_with_n(
        r.others_kappa, r.others_ci_low, r.others_ci_high, r.others_issues)
        for r in new.itertuples(index=False)}
    names = dict(zip(new["label_column"].astype(str), new["person"].astype(str),
                     strict=True))
    shown = pd.DataFrame([{"person": names[c], "label column": c,
                           **{batch_title(b): cells.get((c, b), "") for b in batches}}
                          for c in order])
    return ("Cohen's κ of each person with the majority of the others, batch by batch "
            "(empty where the person did not label):\n\n"
            + table(shown, numeric=list(shown.columns[2:]), classes="table compact"))



def kappas_with_intervals(rows: pd.DataFrame, against: str) -> list[str]:
    """Each row's kappa against ``against`` (``others`` or ``final``: the columns
    ``<against>_kappa``, ``_ci_low``, ``_ci_high``) with its interval in brackets; the
    kappa's missing mark alone where it is not defined."""
    return [dec(k) if is_missing(k) else f"{dec(k)} ({interval(lo, hi)})"
            for k, lo, hi in zip(rows[f"{against}_kappa"], rows[f"{against}_ci_low"],
                                 rows[f"{against}_ci_high"], strict=True)]

def persons_of_batch(rows: pd.DataFrame) -> str:
    """One batch's people: the reports each rated, their kappa with the majority of the
    others and with the final label, each with its interval, n and the raw agreement."""
    shown = pd.DataFrame({
        "person": rows["person"].astype(str), "label column": rows["label_column"],
        "reports rated": rows["rated"].map(count),
        "κ with the others' majority (interval)": kappas_with_intervals(rows, "others"),
        "n": rows["others_issues"].map(count),
        "equal to it": rows["others_agreement"].map(lambda x: pct(x, fraction=True)),
        "κ with the final label (interval)": kappas_with_intervals(rows, "final"),
        "equal to the final label": rows["final_agreement"].map(
            lambda x: pct(x, fraction=True))})
    notes = rows["note"].fillna("").astype(str)
    if notes.str.strip().any():
        shown["note"] = notes.to_numpy()
    return table(shown, numeric=list(shown.columns[2:8]), classes="table compact")


def pairs_of_batch(rows: pd.DataFrame) -> str:
    """Cohen's kappa between every two annotators of one batch, as HTML."""
    shown = pd.DataFrame({
        "pair": [f"{a} – {b}" for a, b in zip(rows["person_a"].astype(str),
                                               rows["person_b"].astype(str), strict=True)],
        "reports both rated": rows["n"].map(count),
        "equal labels": rows["agreement"].map(lambda x: pct(x, fraction=True)),
        "Cohen's κ": rows["kappa"].map(dec),
        "interval": intervals(rows, "ci_low", "ci_high")})
    return html_table(shown, numeric=list(shown.columns[1:]), classes="table compact")


def agreement_annotators(i: Inputs) -> str:
    """On a study: each annotator followed from batch to batch, then per batch its people
    and its pairs of annotators; nothing on the release alone."""
    persons = i.optional_csv(PERSONS)
    if persons is None:
        return ""
    pairs = i.optional_csv(PAIRS)
    level = i.json(AGREEMENT_VARS).get("confidence", "")
    out = ["## Each annotator, batch by batch\n\n"
           "This build reads a study: the release and batches of new labels, each labelled "
           "by its own annotators. A person keeps their label column from batch to batch, "
           "and is named as the study names them (the release names nobody: its label "
           "columns stand for its annotators). Each person is compared with the majority "
           "of the batch's *other* annotators (the label more than half of those who rated "
           "the report gave; reports on which they tie are left out) and with the final "
           "label (the majority of all, the person included, or the adjudicators' "
           "decision, so it reads higher): Cohen's κ with its "
           f"{md_escape(level)} asymptotic interval, clipped to [-1, 1], and n, the "
           "reports it is computed on. A batch of tens of reports gives wide intervals; the "
           "asymptotic interval of two who agree on every report has no width.\n\n",
           persons_followed(persons)]
    for batch in dict.fromkeys(persons["batch"].astype(str)):
        mine = persons[persons["batch"].astype(str) == batch]
        title = batch_title(batch)
        out.append(raw_html_block(
            f'<p class="batch-people"><strong>{esc(title[0].upper() + title[1:])}</strong>: '
            f"{count(len(mine))} annotators, {count(mine['issues'].iloc[0])} reports</p>"))
        out.append(persons_of_batch(mine))
        theirs = None if pairs is None else pairs[pairs["batch"].astype(str) == batch]
        if theirs is not None and len(theirs):
            out.append(details_block(f"Every two annotators of {title}: Cohen's κ",
                                     pairs_of_batch(theirs)))
        out.append("\n")
    files = ", ".join(f"[{t.removeprefix('report/')}](downloads/{t.removeprefix('report/')})"
                      for t in (PERSONS, PAIRS))
    out.append(f"{AGREEMENT_SOURCE}\n({files})\n")
    return "\n".join(out)


INCLUDES: tuple[Include, ...] = (
    claims_include("agreement", "agreement"),
    Include("agreement/headline.md", (AG("headline.csv"),), agreement_headline),
    Include("agreement/coefficients.md", (AG("headline.csv"),), agreement_coefficients),
    Include("agreement/leave_one_out.md", (AG("audit_leave_one_out.csv"),),
            agreement_leave_one_out),
    Include("agreement/sensitivity.md", (AG("audit_sensitivity.csv"),),
            agreement_sensitivity),
    Include("agreement/grouping.md", (AG("grouping.csv"),), agreement_grouping),
    Include("agreement/categories.md", (AG("categories.csv"),), agreement_categories),
    Include("agreement/groups.md", (AG("statistics.csv"),), agreement_groups),
    Include("agreement/versus_final.md", (AG("annotator_final.csv"),),
            agreement_versus_final),
    Include("agreement/confusions.md", (AG("confusions.csv"),), agreement_confusions),
    Include("agreement/audit_final.md", (AG("audit_final_by_project.csv"),),
            agreement_audit_final),
    Include("agreement/audit_dissent.md", (AG("audit_dissent.csv"),),
            agreement_audit_dissent),
    Include("agreement/audit_tests.md", (AG("audit_tests.csv"),), agreement_audit_tests),
    Include("agreement/audit_spread.md", (AG("audit_spread.csv"),), agreement_audit_spread),
    Include("agreement/audit_co_dissent.md", (AG("audit_co_dissent.csv"),),
            agreement_audit_co_dissent),
    Include("agreement/annotators_by_batch.md", (PERSONS, PAIRS, AGREEMENT_VARS),
            agreement_annotators, optional=(PERSONS, PAIRS)),
)
