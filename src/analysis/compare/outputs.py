"""What the compare stage writes (the stage contract of :mod:`analysis.core.stage`): the
change tables, the two figures, the website's numbers and texts, and the metrics."""

from __future__ import annotations

import pandas as pd

from analysis.compare.compute import STATUS_ORDER, Comparison
from analysis.compare.figures import counts_figure, kappa_figure
from analysis.core.formatting import MISSING, dec, is_missing, signed
from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas


def tables(result: Comparison) -> dict[str, pd.DataFrame]:
    """The change tables; on a study dump also the additions and the drift."""
    study = {name: frame for name, frame in (("additions.csv", result.additions),
                                             ("drift.csv", result.drift),
                                             ("drift_tests.csv", result.drift_tests))
             if frame is not None}
    return {"projects.csv": result.projects, "years.csv": result.years,
            "types.csv": result.types, "cells.csv": result.cells, "kappa.csv": result.kappa,
            **study}


def figures(result: Comparison) -> dict:
    label = result.base["label"]
    return {"counts": lambda: counts_figure(result.projects, label),
            "kappa": lambda: kappa_figure(result.kappa, label)}


def metrics(result: Comparison) -> dict:
    """The headline numbers for ``dvc metrics diff``: the baseline, the issues in both runs,
    how many projects have each status and the change of each type's kappa (the changes
    per project, year and type are in the tables)."""
    base, cur = result.base, result.current
    return {
        "baseline": base["label"],
        "issues": {"baseline": base["issues"], "current": cur["issues"],
                   "change": cur["issues"] - base["issues"]},
        "projects": {s: int((result.projects["status"] == s).sum()) for s in STATUS_ORDER},
        "kappa_change": {r.type: r.change for r in result.kappa.itertuples()},
    }


def _names(frame: pd.DataFrame, status: str, col: str = "project") -> list[str]:
    return [str(x) for x in frame.loc[frame["status"] == status, col]]


def _kappa(value: float) -> str:
    """A kappa rounded to three decimals (a change of -0.0001 reads +0.000, not -0.000)."""
    return dec(value if is_missing(value) else round(float(value), 3) + 0.0)


def _change(value: float) -> str:
    return signed(value if is_missing(value) else round(float(value), 3) + 0.0)


def projects_sentence(new: list[str], removed: list[str], changed: list[str]) -> str:
    """The projects that came, went or changed their counts, in one sentence; when none
    did, a sentence that says so, not three lists of "none"."""
    if not (new or removed or changed):
        return "No project was added or removed, and every project has the baseline's counts."
    return (f"New projects: {', '.join(new) or 'none'}; removed projects: "
            f"{', '.join(removed) or 'none'}; projects whose counts changed: "
            f"{', '.join(changed) or 'none'}.")


def website_vars(result: Comparison) -> dict[str, object]:
    """Numbers and sentences for the website.

    Text that names projects or the baseline (data and user-chosen names) is under keys
    ending in ``_text`` or ``_alt``, which the report shows only as escaped HTML.
    """
    base, cur = result.base, result.current
    projects, years, types = result.projects, result.years, result.types
    new_p, gone_p = _names(projects, "new", "name"), _names(projects, "removed", "name")
    changed_p = _names(projects, "changed", "name")
    new_y, gone_y = _names(years, "new", "year"), _names(years, "removed", "year")
    identical = not (new_p or gone_p or changed_p or new_y or gone_y) and \
        cur["issues"] == base["issues"] and bool((types["change"] == 0).all())
    change = cur["issues"] - base["issues"]
    summary = ("The current dump has the same projects, years and counts as the baseline."
               if identical else
               f"The current dump has {cur['issues']:,} issues ({change:+,} against the "
               f"baseline's {base['issues']:,}), {len(new_p)} new and {len(gone_p)} removed "
               f"projects, {len(new_y)} new and {len(gone_y)} removed years.")
    names = projects_sentence(new_p, gone_p, changed_p)
    kappa = {r.type.lower(): r for r in result.kappa.itertuples()}

    def k(kind: str, what: str) -> str:
        r = kappa.get(kind)
        if r is None:
            return MISSING
        return _change(r.change) if what == "change" else _kappa(getattr(r, what))

    variables: dict[str, object] = {
        "baseline_text": (f"The baseline is {base['label']}, from upstream commit "
                          f"{base.get('commit') or 'unknown'}."),
        "issues_baseline": base["issues"],
        "issues_current": cur["issues"],
        "issues_change": f"{change:+,}",
        "annotators_baseline": base.get("annotators"),
        "annotators_current": cur["annotators"],
        "projects_text": names,
        "projects_new_count": len(new_p),
        "projects_removed_count": len(gone_p),
        "projects_changed_count": len(changed_p),
        "years_new": ", ".join(new_y) or "none",
        "years_removed": ", ".join(gone_y) or "none",
        "summary": summary,
        "kappa_source_text": f"Kappas of this build come from {result.kappa_source}."
                             + (" On a study they are the release's annotators' (the "
                                "paper's); each batch's own are under Agreement per batch."
                                if result.drift is not None else ""),
        "kappa_bug_baseline": k("bug", "baseline"),
        "kappa_bug_current": k("bug", "current"),
        "kappa_bug_change": k("bug", "change"),
        "kappa_requirement_baseline": k("requirement", "baseline"),
        "kappa_requirement_current": k("requirement", "current"),
        "kappa_requirement_change": k("requirement", "change"),
        "kappa_question_baseline": k("question", "baseline"),
        "kappa_question_current": k("question", "current"),
        "kappa_question_change": k("question", "change"),
        "fig_counts_caption": (
            "Issues per project in the baseline and in the current run; new and removed "
            "projects are marked."),
        "fig_counts_alt": (
            "Horizontal bar chart of issues per project, two bars per project (baseline and "
            f"current). {summary} {names}"),
        "fig_kappa_caption": (
            "Fleiss' kappa per issue type with 95% analytic intervals (Gwet's linearised "
            "standard error), baseline and current run."),
        "fig_kappa_alt": (
            "Dot plot of Fleiss' kappa per issue type with interval bars, baseline and "
            "current. " + "; ".join(
                f"{r.type}: baseline {_kappa(r.baseline)}, current {_kappa(r.current)}"
                for r in result.kappa.itertuples()) + "."),
    }
    return variables


def build(result: Comparison) -> StageOutputs:
    return StageOutputs(tables=tables(result), figures=figures(result),
                        website_vars=website_vars(result), metrics=metrics(result),
                        schemas=stage_schemas("compare"))
