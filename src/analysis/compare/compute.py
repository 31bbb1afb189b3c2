"""Compare the current run with the baseline: what changed since the paper's dump.

The baseline is a small committed snapshot of aggregate numbers (issues per project, year
and type; annotators; the kappa per issue type with its interval) taken from a run of this
pipeline on the pinned upstream commit (see :mod:`analysis.compare.snapshot`). This module
sets the current run beside it: projects and years that are new or gone, per-project,
per-year and per-type count changes, and kappa changes with intervals.

Kappas of both runs are the agreement stage's metrics: Fleiss' kappa per issue type (the
type of the final label) with its analytic 95% interval, never recomputed here.

The stage's notebook (``notebooks/06_compare.py``) runs the steps in order:
:func:`count_summary` of this run, then :func:`compare_projects`, :func:`compare_years`,
:func:`compare_types`, :func:`compare_cells` and :func:`compare_kappas` against the
baseline, and a study's batches (:mod:`analysis.compare.batches`), into one
:class:`Comparison`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.core.batches import release_rows
from analysis.core.errors import InputError
from analysis.core.projects import Projects

STATUS_ORDER = ["new", "removed", "changed", "unchanged"]


# --------------------------------------------------------------------------- counts


def count_summary(issues: pd.DataFrame) -> dict:
    """Issues per project (total, by year, by type), per year and per type; annotators
    (of the release's reports: a study's batches have their own, compared per batch)."""
    annotators = [c for c in release_rows(issues).columns if c.startswith("annotator_")]
    projects = {}
    for name, g in issues.groupby("project", sort=True):
        projects[str(name)] = {
            "total": int(len(g)),
            "years": {str(int(y)): int(n) for y, n in g["year"].value_counts().sort_index()
                      .items()},
            "types": {str(t): int(n) for t, n in g["type"].value_counts().sort_index().items()},
        }
    return {
        "issues": int(len(issues)),
        "annotators": len(annotators),
        "projects": projects,
        "years": {str(int(y)): int(n) for y, n in issues["year"].value_counts().sort_index()
                  .items()},
        "types": {str(t): int(n) for t, n in issues["type"].value_counts().sort_index().items()},
    }


def _status(base: int | None, cur: int | None) -> str:
    if base is None:
        return "new"
    if cur is None:
        return "removed"
    return "unchanged" if base == cur else "changed"


def _change_rows(base: dict[str, int], cur: dict[str, int], key: str) -> pd.DataFrame:
    rows = []
    for k in sorted(set(base) | set(cur)):
        b, c = base.get(k), cur.get(k)
        change = (c or 0) - (b or 0)
        rows.append({key: k, "status": _status(b, c), "baseline": b or 0, "current": c or 0,
                     "change": change,
                     "change_percent": round(100.0 * change / b, 2) if b else None})
    return pd.DataFrame(rows, columns=[key, "status", "baseline", "current", "change",
                                       "change_percent"])


def compare_projects(base: dict, cur: dict, projects: Projects) -> pd.DataFrame:
    """One row per project of either run: status, totals, change (Table I order)."""
    frame = _change_rows({p: v["total"] for p, v in base["projects"].items()},
                         {p: v["total"] for p, v in cur["projects"].items()}, "project")
    frame.insert(1, "name", [projects.name(p) for p in frame["project"]])
    rank = {p: i for i, p in enumerate(projects.order(frame["project"]))}
    return frame.assign(_o=frame["project"].map(rank)).sort_values("_o", kind="mergesort") \
        .drop(columns="_o").reset_index(drop=True)


def compare_years(base: dict, cur: dict) -> pd.DataFrame:
    """One row per year of either run."""
    return _change_rows(base["years"], cur["years"], "year")


def compare_types(base: dict, cur: dict) -> pd.DataFrame:
    """One row per issue type, with each run's share of all issues (percent)."""
    frame = _change_rows(base["types"], cur["types"], "type")
    frame["baseline_share"] = (100.0 * frame["baseline"] / max(base["issues"], 1)).round(2)
    frame["current_share"] = (100.0 * frame["current"] / max(cur["issues"], 1)).round(2)
    return frame


def compare_cells(base: dict, cur: dict) -> pd.DataFrame:
    """Per project, every year and type count of either run (long format)."""
    parts = []
    for dim in ("years", "types"):
        for p in sorted(set(base["projects"]) | set(cur["projects"])):
            b = (base["projects"].get(p) or {}).get(dim, {})
            c = (cur["projects"].get(p) or {}).get(dim, {})
            part = _change_rows(b, c, "key")
            part.insert(0, "dimension", dim[:-1])
            part.insert(0, "project", p)
            if len(part):
                parts.append(part.astype({"change_percent": "float64"}))
    cols = ["project", "dimension", "key", "status", "baseline", "current", "change",
            "change_percent"]
    return (pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols))[cols]


# --------------------------------------------------------------------------- kappas


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else math.nan


def kappas_from_agreement(metrics: dict, file: str = "the agreement metrics"
                          ) -> dict[str, dict]:
    """Fleiss' kappa per issue type with its analytic 95% interval, as the agreement stage
    wrote them in its metrics (``{"fleiss_kappa": {"Bug": {"value", "ci_low", "ci_high",
    ...}, ...}}``); the all-issues entry is left out. Undefined values (written as null)
    become NaN. ``file`` names the metrics in the error message."""
    block = metrics.get("fleiss_kappa") if isinstance(metrics, dict) else None
    if not isinstance(block, dict):
        raise InputError("no fleiss_kappa entry in the agreement metrics", file=file,
                         fix="run the agreement stage first (dvc repro agreement)")
    return {str(t): {k: _number(e.get(k)) for k in ("value", "ci_low", "ci_high")}
            for t, e in sorted(block.items()) if t != "all" and isinstance(e, dict)}


def compare_kappas(base: dict[str, dict], cur: dict[str, dict], source: str) -> pd.DataFrame:
    """Kappa per type in both runs, the change, and whether the intervals overlap."""
    rows = []
    for t in sorted(set(base) | set(cur)):
        b, c = base.get(t) or {}, cur.get(t) or {}
        bv, cv = b.get("value", math.nan), c.get("value", math.nan)
        overlap = None
        if all(np.isfinite([b.get("ci_low", math.nan), b.get("ci_high", math.nan),
                            c.get("ci_low", math.nan), c.get("ci_high", math.nan)])):
            overlap = bool(b["ci_low"] <= c["ci_high"] and c["ci_low"] <= b["ci_high"])
        rows.append({"type": t, "baseline": bv, "baseline_ci_low": b.get("ci_low", math.nan),
                     "baseline_ci_high": b.get("ci_high", math.nan), "current": cv,
                     "current_ci_low": c.get("ci_low", math.nan),
                     "current_ci_high": c.get("ci_high", math.nan),
                     "change": (round(cv - bv, 6) + 0.0) if np.isfinite([bv, cv]).all()
                     else math.nan,
                     "intervals_overlap": overlap, "current_source": source if c else ""})
    cols = ["type", "baseline", "baseline_ci_low", "baseline_ci_high", "current",
            "current_ci_low", "current_ci_high", "change", "intervals_overlap",
            "current_source"]
    frame = pd.DataFrame(rows, columns=cols)
    num = [c for c in cols[1:8]]
    frame[num] = frame[num].astype("float64").round(6)
    return frame


# --------------------------------------------------------------------------- the stage


@dataclass(frozen=True)
class Comparison:
    """What the stage computes: both runs' aggregates and the change tables.

    ``base`` is the baseline snapshot, ``current`` the same aggregates of this run
    (:func:`count_summary`); ``kappa_source`` says where this run's kappas come from.
    """

    base: dict
    current: dict
    projects: pd.DataFrame
    years: pd.DataFrame
    types: pd.DataFrame
    cells: pd.DataFrame
    kappa: pd.DataFrame
    kappa_source: str
    # a study dump only (analysis.compare.batches): the new batches' issues per project
    # and year, and their theme drift against the release (per theme; the tests)
    additions: pd.DataFrame | None = None
    drift: pd.DataFrame | None = None
    drift_tests: pd.DataFrame | None = None
