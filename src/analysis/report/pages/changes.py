"""The includes of the What changed page (``changes.qmd``): this build's counts and kappas
against the baseline, as the compare stage wrote them."""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import (
    MISSING,
    change,
    count,
    dec,
    interval,
    is_missing,
    pct,
    signed,
    yes_no,
)
from analysis.report.generated import callout
from analysis.report.htmlsafe import esc
from analysis.report.pages.base import CP, Include, Inputs, table

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
    return callout("note", f"The {len(changed):,} of {len(c):,} counts that changed", body,
                   collapse=len(changed) > 15)


INCLUDES: tuple[Include, ...] = (
    Include("compare/projects.md", (CP("projects.csv"),), compare_projects),
    Include("compare/years.md", (CP("years.csv"),), compare_years),
    Include("compare/types.md", (CP("types.csv"),), compare_types),
    Include("compare/kappa.md", (CP("kappa.csv"),), compare_kappa),
    Include("compare/cells.md", (CP("cells.csv"),), compare_cells),
)
