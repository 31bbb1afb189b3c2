"""The includes of the What changed page (``changes.qmd``): this build's counts and kappas
against the baseline, as the compare stage wrote them."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import (
    MISSING,
    change,
    count,
    dec,
    decimal,
    interval,
    is_missing,
    pct,
    signed,
    yes_no,
)
from analysis.report.generated import callout
from analysis.report.htmlsafe import esc
from analysis.report.pages.base import AG, CP, Include, Inputs, table

STATUS_CLASSES = {"new": "st-exact", "removed": "st-differs", "changed": "st-rounding"}
CHANGE_COLUMNS = ["baseline", "current", "change", "change %"]


def status(s: object) -> str:
    """A row's status (new, removed, changed, unchanged) as a badge."""
    s = str(s)
    return f'<span class="status-badge {STATUS_CLASSES.get(s, "st-none")}">{esc(s)}</span>'


def change_pct(x: object) -> str:
    """A change in percent with its sign: ``+12.5%``."""
    return signed(x, 1) + ("" if is_missing(x) else "%")


def counts_frame(f: pd.DataFrame, key: str, label: str) -> pd.DataFrame:
    """The rows of a change table as shown: the key, status, both counts and the change."""
    return pd.DataFrame({
        label: f[key].astype(str), "status": [status(s) for s in f["status"]],
        "baseline": f["baseline"].map(count), "current": f["current"].map(count),
        "change": f["change"].map(change), "change %": f["change_percent"].map(change_pct)})


def compare_projects(i: Inputs) -> str:
    f = i.csv(CP("projects.csv"))
    f = f.assign(label=[n if isinstance(n, str) and n else p for n, p in zip(
        f["name"], f["project"], strict=True)])
    return table(counts_frame(f, "label", "project"), numeric=CHANGE_COLUMNS,
                 raw=("status",))


def compare_years(i: Inputs) -> str:
    return table(counts_frame(i.csv(CP("years.csv")), "year", "year"),
                 numeric=CHANGE_COLUMNS, classes="table compact", raw=("status",))


def compare_types(i: Inputs) -> str:
    f = i.csv(CP("types.csv"))
    shown = counts_frame(f, "type", "type")
    shown["share, baseline"] = f["baseline_share"].map(pct)
    shown["share, current"] = f["current_share"].map(pct)
    return table(shown, numeric=[*CHANGE_COLUMNS, "share, baseline", "share, current"],
                 classes="table compact", raw=("status",))


def compare_kappa(i: Inputs) -> str:
    k = i.csv(CP("kappa.csv"))
    shown = pd.DataFrame({
        "type": k["type"],
        "baseline κ": k["baseline"].map(dec),
        "baseline analytic interval": [interval(a, b) for a, b in zip(k["baseline_ci_low"],
                                                        k["baseline_ci_high"], strict=True)],
        "current κ": k["current"].map(dec),
        "current analytic interval": [interval(a, b) for a, b in zip(k["current_ci_low"],
                                                       k["current_ci_high"], strict=True)],
        "change": k["change"].map(signed),
        "intervals overlap": k["intervals_overlap"].map(
            lambda x: MISSING if is_missing(x) else yes_no(x))})
    return table(shown, numeric=list(shown.columns[1:-1]), classes="table compact") \
        + study_agreement(i)


def compare_cells(i: Inputs) -> str:
    c = i.csv(CP("cells.csv"))
    changed = c[c["status"] != "unchanged"]
    if changed.empty:
        return (f"None of the {len(c):,} project × year and project × type counts "
                "changed.\n")
    shown = pd.DataFrame({
        "project": changed["project"].astype(str), "by": changed["dimension"],
        "year or type": changed["key"].astype(str),
        "status": [status(s) for s in changed["status"]],
        "baseline": changed["baseline"].map(count), "current": changed["current"].map(count),
        "change": changed["change"].map(change),
        "change %": changed["change_percent"].map(change_pct)})
    body = table(shown, numeric=CHANGE_COLUMNS, raw=("status",))
    return study_additions(i) + callout(
        "note", f"The {len(changed):,} of {len(c):,} counts that changed", body,
        collapse=len(changed) > 15)


# --- a study dump (the release extended with new labels): its tables are optional inputs
# of the includes, shown only when the stages wrote them, so the release's pages are
# unchanged

ADDITIONS, DRIFT, DRIFT_TESTS = CP("additions.csv"), CP("drift.csv"), CP("drift_tests.csv")
BATCHES = AG("batches.csv")


def study_additions(i: Inputs) -> str:
    """The new batches' issues per project and year, as the compare stage counted them."""
    f = i.optional_csv(ADDITIONS)
    if f is None or f.empty:
        return ""
    shown = pd.DataFrame({
        "batch": f["batch"].astype(str),
        "project": [n if isinstance(n, str) and n else p for p, n in
                    zip(f["project"], f["name"], strict=True)],
        "year": f["year"].astype(str), "new issues": f["issues"].map(count)})
    return (f"The new batches ({esc(', '.join(dict.fromkeys(shown['batch'])))}) add "
            f"{int(f['issues'].sum()):,} labelled issues to the release, none removed (a "
            "study only adds):\n\n"
            + table(shown, numeric=["new issues"], classes="table compact") + "\n")


def p_text(p: object) -> str:
    """A p-value as shown: ``= 0.0315``, or ``< 0.0001`` when it rounds to zero."""
    if is_missing(p):
        return MISSING
    return "< 0.0001" if float(p) < 0.0001 else f"= {float(p):.4f}"


def compare_drift(i: Inputs) -> str:
    """On a study: the theme shares of each new batch against the release's, with the
    tests, and where they come from; nothing on the release."""
    f, tests = i.optional_csv(DRIFT), i.optional_csv(DRIFT_TESTS)
    if f is None or tests is None:
        return ""
    out = ["\n### Drift since the paper: theme shares of the new labels\n\n"
           "Each new batch's share of every theme against the release's. Per theme, "
           "Fisher's exact test (exact for a small batch) with Holm's correction over the "
           "themes (no false *changed* among them at 5%, whatever their dependence); over "
           "all themes, Pearson's chi-square test of homogeneity.\n\n"]
    for t in tests.itertuples(index=False):
        sparse = (f" {int(t.sparse_cells)} of {2 * int(t.themes)} expected counts are under "
                  "5, so its p-value is approximate." if t.sparse_cells else "")
        out.append(f"Batch {esc(t.batch)}: chi-square {decimal(t.chi2, 2)} on "
                   f"{int(t.dof)} degrees of freedom, p {p_text(t.p_value)}; "
                   f"{int(t.changed_themes)} theme(s) changed after Holm's correction."
                   f"{sparse}\n\n")
    shown = pd.DataFrame({
        "batch": f["batch"].astype(str), "theme": [f"{c} {n}" for c, n in zip(
            f["code"], f["theme"], strict=True)],
        "release": f["release"].map(count), "share, release": f["release_share"].map(pct),
        "batch issues": f["batch_issues"].map(count),
        "share, batch": f["batch_share"].map(pct),
        "difference (points)": f["difference"].map(lambda x: signed(x, 1)),
        "p (Fisher)": f["p_value"].map(p_text),
        "p (Holm)": f["p_holm"].map(p_text),
        "changed": f["changed"].map(yes_no)})
    out.append(table(shown, numeric=list(shown.columns[2:-1])))
    out.append(f"\n\n{source_line(DRIFT, DRIFT_TESTS)}\n")
    return "".join(out)


def source_line(*tables: str) -> str:
    """The page's line under a table: the compare notebook, and the tables' downloads."""
    files = ", ".join(f"[{t.removeprefix('report/')}](downloads/{t.removeprefix('report/')})"
                      for t in tables)
    return (f"[Source: notebooks/06_compare](notebooks/06_compare.qmd){{.source-link}}\n"
            f"({files})")


def study_agreement(i: Inputs) -> str:
    """Agreement of each batch on its own annotators, and of all batches together."""
    f = i.optional_csv(BATCHES)
    if f is None:
        return ""
    shown = pd.DataFrame({
        "batch": f["batch"].astype(str), "issues": f["issues"].map(count),
        "annotators": f["annotators"].map(count),
        "Fleiss' κ (complete rows)": f["fleiss_kappa"].map(dec),
        "rows complete": f["issues_complete"].map(count),
        "generalised κ": f["fleiss_kappa_generalised"].map(dec),
        "interval": [interval(a, b) for a, b in zip(f["fleiss_kappa_generalised_ci_low"],
                                                     f["fleiss_kappa_generalised_ci_high"],
                                                     strict=True)],
        "α": f["krippendorff_alpha"].map(dec), "AC1": f["gwet_ac1"].map(dec)})
    return ("\n### Agreement per batch\n\nEach batch on its own annotators' columns; "
            "the last row is all batches together, where no report is rated by every "
            "column, so only Gwet's generalised estimator (irrCAC's Fleiss for unequal "
            "numbers of raters) is defined. The kappas per type above are that estimator's "
            "too on a study.\n\n"
            + table(shown, numeric=list(shown.columns[1:]), classes="table compact"))


INCLUDES: tuple[Include, ...] = (
    Include("compare/projects.md", (CP("projects.csv"),), compare_projects),
    Include("compare/years.md", (CP("years.csv"),), compare_years),
    Include("compare/types.md", (CP("types.csv"),), compare_types),
    Include("compare/drift.md", (DRIFT, DRIFT_TESTS), compare_drift,
            optional=(DRIFT, DRIFT_TESTS)),
    Include("compare/kappa.md", (CP("kappa.csv"), BATCHES), compare_kappa,
            optional=(BATCHES,)),
    Include("compare/cells.md", (CP("cells.csv"), ADDITIONS), compare_cells,
            optional=(ADDITIONS,)),
)
