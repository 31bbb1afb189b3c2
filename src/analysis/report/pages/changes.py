"""The includes of the What changed page (``changes.qmd``): this build's counts and kappas
against the baseline, as the compare stage wrote them."""

from __future__ import annotations

import math

import pandas as pd

from analysis.core.formatting import (
    MISSING,
    change,
    count,
    dec,
    decimal,
    is_missing,
    pct,
    signed,
    yes_no,
)
from analysis.report.generated import callout
from analysis.report.htmlsafe import esc
from analysis.report.pages.base import AG, CP, Include, Inputs, intervals, table

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
        "baseline analytic interval": intervals(k, "baseline_ci_low", "baseline_ci_high"),
        "current κ": k["current"].map(dec),
        "current analytic interval": intervals(k, "current_ci_low", "current_ci_high"),
        "change": k["change"].map(signed),
        "intervals overlap": k["intervals_overlap"].map(
            lambda x: MISSING if is_missing(x) else yes_no(x))})
    return table(shown, numeric=list(shown.columns[1:-1]), classes="table compact")


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
    return callout(
        "note", f"The {len(changed):,} of {len(c):,} counts that changed", body,
        collapse=len(changed) > 15)


# --- a study dump (the release extended with new labels): its tables are optional inputs
# of their own includes, shown only when the stages wrote them (so the release's pages are
# unchanged), each followed by the line that names its own sources

ADDITIONS, DRIFT, DRIFT_TESTS = CP("additions.csv"), CP("drift.csv"), CP("drift_tests.csv")
BATCHES = AG("batches.csv")
COMPARE_NOTEBOOK = "[Source: notebooks/06_compare](notebooks/06_compare.qmd){.source-link}"
AGREEMENT_NOTEBOOK = "[Source: notebooks/04_agreement](notebooks/04_agreement.qmd){.source-link}"


def source_line(notebook: str, *tables: str) -> str:
    """The line under a table: the notebook that wrote it, and the tables' downloads."""
    files = ", ".join(f"[{t.removeprefix('report/')}](downloads/{t.removeprefix('report/')})"
                      for t in tables)
    return f"{notebook}\n({files})"


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
            + table(shown, numeric=["new issues"], classes="table compact") + "\n\n"
            + source_line(COMPARE_NOTEBOOK, ADDITIONS) + "\n")


def p_text(p: object) -> str:
    """A p-value as shown: ``= 0.0315``, or ``< 0.0001`` when it rounds to zero."""
    if is_missing(p):
        return MISSING
    return "< 0.0001" if float(p) < 0.0001 else f"= {float(p):.4f}"


def monte_carlo_p_text(p: object, resamples: object) -> str:
    """A Monte-Carlo p as shown: at its floor, 1 / (1 + resamples) (no resample was as
    extreme as the batch), an upper bound, ``≤ 0.0001`` for 10,000 resamples, since
    more resamples could only lower it; else as :func:`p_text`."""
    if is_missing(p) or is_missing(resamples) or int(resamples) < 1:
        return p_text(p)
    floor = math.ceil(1e4 / (1 + int(resamples))) / 1e4  # the floor, rounded up
    return f"≤ {floor:.4f}" if float(p) <= floor else p_text(p)


def points_interval(low: object, high: object) -> str:
    """An interval of a difference in points: ``[-3.1, +12.4]``."""
    if is_missing(low) or is_missing(high):
        return MISSING
    return f"[{signed(low, 1)}, {signed(high, 1)}]"


def share_with_interval(share: object, low: object, high: object) -> str:
    """A share with its interval: ``21.1% (9.1–43.3)``."""
    if is_missing(low) or is_missing(high):
        return pct(share)
    return f"{pct(share)} ({float(low):.1f}–{float(high):.1f})"


def detectable(low: object, high: object) -> str:
    """The shares a batch could tell from the release's: ``< 2.1% or > 31.0%``. A share
    is within 0-100%: a bound at or beyond either end (no share lies past it, as shown to
    a tenth) is left out, so the page never says ``< 0.0%`` or ``> 100.0%``."""
    parts = [f"< {pct(low)}" if not is_missing(low) and round(float(low), 1) > 0 else "",
             f"> {pct(high)}" if not is_missing(high) and round(float(high), 1) < 100
             else ""]
    return " or ".join(p for p in parts if p) or MISSING


VERDICTS = {"changed": "changed", "no_evidence": "no change shown", "too_few": "too few"}


def overall_sentence(t) -> str:
    """What one batch's test of its whole mix of themes found, and which test ran and why
    (Cochran's rule on the expected counts)."""
    cells = (f"{int(t.expected_under_1)} of {int(t.cells)} expected counts are under 1 and "
             f"{int(t.expected_under_5)} under 5")
    if t.test == "chi_square":
        how = (f"Pearson's chi-square test (Cochran's rule holds: {cells}): "
               f"chi-square {decimal(t.statistic, 2)} on {int(t.dof)} degrees of freedom, "
               f"p {p_text(t.p_value)}")
    elif t.test == "monte_carlo":
        how = (f"a Monte-Carlo permutation test of the chi-square statistic, "
               f"{count(t.resamples)} resamples (Cochran's rule fails: {cells}, so the "
               f"chi-square distribution would misstate p): statistic "
               f"{decimal(t.statistic, 2)}, p {monte_carlo_p_text(t.p_value, t.resamples)}")
    else:
        how = "no test (fewer than two themes)"
    return (f"**Batch {esc(t.batch)}** ({count(t.reports)} reports, {int(t.themes)} themes): "
            f"{how}. {int(t.changed_themes)} theme(s) changed; "
            f"{int(t.too_few_themes)} too rare in the batch to judge.\n\n")


def compare_drift(i: Inputs) -> str:
    """On a study: the theme shares of each new batch against the release's, with their
    intervals, tests and what the batch could detect, and where they come from; nothing on
    the release."""
    f, tests = i.optional_csv(DRIFT), i.optional_csv(DRIFT_TESTS)
    if f is None or tests is None:
        return ""
    minimum = int(tests["min_reports"].iloc[0]) if len(tests) else 5
    out = ["## Drift since the paper: theme shares of the new labels\n\n"
           "Each new batch's share of every theme against the release's. A batch is small, "
           "so every number says how sure it is: the batch's share with Wilson's 95% "
           "interval; the difference with Newcombe's hybrid score interval, simultaneous "
           "over the themes (Bonferroni: each at 1 − 0.05 / themes); Fisher's exact test "
           "with Holm's correction; and the shares a batch of its size could tell from the "
           "release's (80% power at 0.05), which is what *no change shown* is worth. A "
           "theme is flagged *changed* only when its interval excludes 0 and the corrected "
           f"test agrees, and never when the batch holds fewer than {minimum} of its "
           f"reports and would be expected to hold fewer than {minimum} at the release's "
           f"share (or as few of the other themes): one or two reports decide such a share "
           f"(the minimum, {minimum}, is Cochran's bound for an expected count). Over all "
           "themes, the test is Pearson's chi-square where Cochran's rule allows it (no "
           "expected count under 1, at most 20% under 5), else a Monte-Carlo permutation "
           "test of the same statistic (resamples and seed: `compare` in params.yaml).\n\n"]
    out += [overall_sentence(t) for t in tests.itertuples(index=False)]
    shown = pd.DataFrame({
        "batch": f["batch"].astype(str), "theme": [f"{c} {n}" for c, n in zip(
            f["code"], f["theme"], strict=True)],
        "share, release": [f"{pct(s)} ({count(n)})" for s, n in zip(
            f["release_share"], f["release"], strict=True)],
        "share, batch (95%)": [share_with_interval(s, lo, hi) for s, lo, hi in zip(
            f["batch_share"], f["batch_share_low"], f["batch_share_high"], strict=True)],
        "batch issues": f["batch_issues"].map(count),
        "difference, points [simultaneous interval]": [
            f"{signed(d, 1)} {points_interval(lo, hi)}" for d, lo, hi in zip(
                f["difference"], f["difference_low"], f["difference_high"], strict=True)],
        "p (Fisher, Holm)": f["p_holm"].map(p_text),
        "could detect": [detectable(lo, hi) for lo, hi in zip(
            f["detectable_low"], f["detectable_high"], strict=True)],
        "verdict": f["verdict"].map(lambda v: VERDICTS.get(str(v), str(v)))})
    out.append(table(shown, numeric=list(shown.columns[2:-2])))
    out.append(f"\n\n{source_line(COMPARE_NOTEBOOK, DRIFT, DRIFT_TESTS)}\n")
    return "".join(out)


def study_agreement(i: Inputs) -> str:
    """Agreement of each batch on its own annotators, and of all batches together."""
    f = i.optional_csv(BATCHES)
    if f is None:
        return ""
    shown = pd.DataFrame({
        "batch": f["batch"].astype(str), "issues": f["issues"].map(count),
        "annotators": f["annotators"].map(count),
        "Fleiss' κ (complete rows)": f["fleiss_kappa"].map(dec),
        "its interval": intervals(f, "fleiss_kappa_ci_low", "fleiss_kappa_ci_high"),
        "rows complete": f["issues_complete"].map(count),
        "generalised κ": f["fleiss_kappa_generalised"].map(dec),
        "interval": intervals(f, "fleiss_kappa_generalised_ci_low",
                              "fleiss_kappa_generalised_ci_high"),
        "α": f["krippendorff_alpha"].map(dec), "AC1": f["gwet_ac1"].map(dec)})
    return ("### Agreement per batch\n\nEach batch on its own annotators' columns, with "
            "analytic intervals; the last row is all batches together, where no report is "
            "rated by every column, so only Gwet's generalised estimator (irrCAC's Fleiss "
            "for unequal numbers of raters) is defined. The kappas per type above are the "
            "release's annotators', as the paper's are. Each annotator of each batch, by "
            "name, against the others and the final label: "
            "[Agreement](agreement.qmd#each-annotator-batch-by-batch).\n\n"
            + table(shown, numeric=list(shown.columns[1:]), classes="table compact")
            + "\n\n" + source_line(AGREEMENT_NOTEBOOK, BATCHES) + "\n")


INCLUDES: tuple[Include, ...] = (
    Include("compare/projects.md", (CP("projects.csv"),), compare_projects),
    Include("compare/years.md", (CP("years.csv"),), compare_years),
    Include("compare/types.md", (CP("types.csv"),), compare_types),
    Include("compare/drift.md", (DRIFT, DRIFT_TESTS), compare_drift,
            optional=(DRIFT, DRIFT_TESTS)),
    Include("compare/kappa.md", (CP("kappa.csv"),), compare_kappa),
    Include("compare/batches.md", (BATCHES,), study_agreement, optional=(BATCHES,)),
    Include("compare/cells.md", (CP("cells.csv"),), compare_cells),
    Include("compare/additions.md", (ADDITIONS,), study_additions, optional=(ADDITIONS,)),
)
