"""What the compare stage writes (the stage contract of :mod:`analysis.core.stage`): the
change tables, the two figures, the website's numbers and texts, and the metrics."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.compare.changes import STATUS_ORDER, Comparison
from analysis.compare.figures import counts_figure, kappa_figure
from analysis.core.artifacts import flat_vars
from analysis.core.stage import StageOutputs


def tables(result: Comparison) -> dict[str, pd.DataFrame]:
    return {"projects.csv": result.projects, "years.csv": result.years,
            "types.csv": result.types, "cells.csv": result.cells, "kappa.csv": result.kappa}


def figures(result: Comparison) -> dict:
    label = result.base["label"]
    return {"counts": lambda: counts_figure(result.projects, label),
            "kappa": lambda: kappa_figure(result.kappa, label)}


def metrics(result: Comparison) -> dict:
    """Numbers for ``dvc metrics diff``: issues, annotators, how many projects and years
    have each status, and the count and kappa changes."""
    base, cur = result.base, result.current
    return {
        "baseline": base["label"],
        "issues": {"baseline": base["issues"], "current": cur["issues"],
                   "change": cur["issues"] - base["issues"]},
        "annotators": {"baseline": base.get("annotators"), "current": cur["annotators"]},
        "projects": {s: int((result.projects["status"] == s).sum()) for s in STATUS_ORDER},
        "years": {s: int((result.years["status"] == s).sum()) for s in STATUS_ORDER},
        "by_project_change": {r.project: int(r.change) for r in result.projects.itertuples()},
        "by_type_change": {r.type: int(r.change) for r in result.types.itertuples()},
        "kappa": {r.type: {"baseline": r.baseline, "current": r.current, "change": r.change}
                  for r in result.kappa.itertuples()},
    }


def _names(frame: pd.DataFrame, status: str, col: str = "project") -> list[str]:
    return [str(x) for x in frame.loc[frame["status"] == status, col]]


def _fmt(value: float, signed: bool = False) -> str:
    if value is None or not np.isfinite(value):
        return "n/a"
    value = round(float(value), 3) + 0.0
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _ci(low: float, high: float) -> str:
    if not np.isfinite([low, high]).all():
        return "n/a"
    return f"[{low:.3f}, {high:.3f}]"


def website_vars(result: Comparison) -> dict[str, object]:
    """Numbers and sentences for the website (flat names, see
    :func:`~analysis.core.artifacts.flat_vars`).

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
    names = (f"New projects: {', '.join(new_p) or 'none'}; removed projects: "
             f"{', '.join(gone_p) or 'none'}; projects whose counts changed: "
             f"{', '.join(changed_p) or 'none'}.")
    variables: dict[str, object] = {
        "compare.baseline_text": (f"The baseline is {base['label']}, from upstream commit "
                                  f"{base.get('commit') or 'unknown'}."),
        "compare.issues.baseline": base["issues"],
        "compare.issues.current": cur["issues"],
        "compare.issues.change": f"{change:+,}",
        "compare.annotators.baseline": base.get("annotators"),
        "compare.annotators.current": cur["annotators"],
        "compare.projects_text": names,
        "compare.projects.new_count": len(new_p),
        "compare.projects.removed_count": len(gone_p),
        "compare.projects.changed_count": len(changed_p),
        "compare.years.new": ", ".join(new_y) or "none",
        "compare.years.removed": ", ".join(gone_y) or "none",
        "compare.identical": "yes" if identical else "no",
        "compare.summary": summary,
        "compare.kappa_source_text": f"Kappas of this build come from {result.kappa_source}.",
        "compare.fig_counts_caption": (
            "Issues per project in the baseline and in the current run; new and removed "
            "projects are marked."),
        "compare.fig_counts_alt": (
            "Horizontal bar chart of issues per project, two bars per project (baseline and "
            f"current). {summary} {names}"),
        "compare.fig_kappa_caption": (
            "Fleiss' kappa per issue type with 95% analytic intervals (Gwet's linearised "
            "standard error), baseline and current run."),
    }
    alt = []
    for r in result.kappa.itertuples():
        key = f"compare.kappa.{r.type.lower()}"
        variables[f"{key}.baseline"] = _fmt(r.baseline)
        variables[f"{key}.current"] = _fmt(r.current)
        variables[f"{key}.change"] = _fmt(r.change, signed=True)
        variables[f"{key}.baseline_ci"] = _ci(r.baseline_ci_low, r.baseline_ci_high)
        variables[f"{key}.current_ci"] = _ci(r.current_ci_low, r.current_ci_high)
        alt.append(f"{r.type}: baseline {_fmt(r.baseline)}, current {_fmt(r.current)}")
    variables["compare.fig_kappa_alt"] = (
        "Dot plot of Fleiss' kappa per issue type with interval bars, baseline and current. "
        + "; ".join(alt) + ".")
    return flat_vars(variables)


def build(result: Comparison) -> StageOutputs:
    return StageOutputs(tables=tables(result), figures=figures(result),
                        website_vars=website_vars(result), metrics=metrics(result))
