"""Compare the current run with the baseline: the reproduction of the paper's dump.

The baseline is a small committed JSON snapshot of aggregate numbers only (issues per
project, year and type; annotators; the three headline kappas with intervals), taken from
a run of this pipeline on the pinned upstream commit::

    python -m analysis.compare snapshot --out data/baseline/upstream-2fba316.json

The compare stage sets the current run beside it: projects and years that are new or
gone, per-project, per-year and per-type count changes, and kappa changes with intervals.

Kappas of both runs are the agreement stage's (``metrics/agreement.json``): Fleiss' kappa
per issue type (the type of the final label) with its analytic 95% interval.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.core.artifacts import flat_vars
from analysis.core.errors import InputError

STATUS_ORDER = ["new", "removed", "changed", "unchanged"]
KAPPA_METHOD = ("Fleiss' kappa per issue type (type of the final label) with its analytic "
                "95% interval, from the agreement stage")


# --------------------------------------------------------------------------- counts


def count_summary(issues: pd.DataFrame) -> dict:
    """Issues per project (total, by year, by type), per year and per type; annotators."""
    annotators = [c for c in issues.columns if c.startswith("annotator_")]
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


def compare_projects(base: dict, cur: dict, projects_meta: dict) -> pd.DataFrame:
    """One row per project of either run: status, totals, change (Table I order)."""
    frame = _change_rows({p: v["total"] for p, v in base["projects"].items()},
                         {p: v["total"] for p, v in cur["projects"].items()}, "project")
    frame.insert(1, "name", [(projects_meta.get(p) or {}).get("name", p)
                             for p in frame["project"]])
    order = [(projects_meta.get(p) or {}).get("order", 10_000) for p in frame["project"]]
    return frame.assign(_o=order).sort_values(["_o", "project"], kind="mergesort") \
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


def kappas_from_agreement(metrics: dict, file: str = "metrics/agreement.json"
                          ) -> dict[str, dict]:
    """Fleiss' kappa per issue type with its analytic 95% interval, as the agreement stage
    wrote them (``{"fleiss_kappa": {"Bug": {"value", "ci_low", "ci_high", ...}, ...}}``);
    the all-issues entry is left out. Undefined values (written as null) become NaN."""
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


# --------------------------------------------------------------------------- baseline


def snapshot(issues: pd.DataFrame, provenance: dict | None, kappas: dict[str, dict],
             label: str) -> dict:
    """The baseline snapshot: aggregate numbers only, never rows."""
    prov = provenance or {}
    return {
        "label": label,
        "commit": prov.get("commit"),
        "source": prov.get("source"),
        "generated_by": "python -m analysis.compare snapshot",
        **count_summary(issues),
        "kappa": {t: {k: round(v, 6) for k, v in e.items()} for t, e in sorted(kappas.items())},
        "kappa_method": KAPPA_METHOD,
    }


def load_baseline(path: str | Path) -> dict:
    """Read and check a baseline snapshot (a user error names what is missing)."""
    from analysis.core.artifacts import read_json

    p = Path(path)
    if not p.is_file():
        raise InputError("baseline snapshot not found", file=str(p),
                         fix="set compare.baseline to a snapshot made by "
                             "`python -m analysis.compare snapshot`")
    data = read_json(p)
    missing = [k for k in ("label", "issues", "projects", "years", "types") if k not in data]
    if missing:
        raise InputError(f"baseline snapshot lacks {', '.join(missing)}", file=str(p),
                         fix="regenerate it with `python -m analysis.compare snapshot`")
    data.setdefault("kappa", {})
    return data


# --------------------------------------------------------------------------- outputs


def _names(frame: pd.DataFrame, status: str, col: str = "project") -> list[str]:
    return [str(x) for x in frame.loc[frame["status"] == status, col]]


def summarise(base: dict, cur: dict, projects: pd.DataFrame, years: pd.DataFrame,
              types: pd.DataFrame, kappa: pd.DataFrame, kappa_source: str) -> tuple[dict,
                                                                                      dict]:
    """Metrics (``dvc metrics diff``-friendly numbers) and report vars (flat strings).

    Text that names projects or the baseline (data and user-chosen names) is under keys
    ending in ``_text`` or ``_alt``, which the report shows only as escaped HTML.
    """
    metrics = {
        "baseline": base["label"],
        "issues": {"baseline": base["issues"], "current": cur["issues"],
                   "change": cur["issues"] - base["issues"]},
        "annotators": {"baseline": base.get("annotators"), "current": cur["annotators"]},
        "projects": {s: int((projects["status"] == s).sum()) for s in STATUS_ORDER},
        "years": {s: int((years["status"] == s).sum()) for s in STATUS_ORDER},
        "by_project_change": {r.project: int(r.change) for r in projects.itertuples()},
        "by_type_change": {r.type: int(r.change) for r in types.itertuples()},
        "kappa": {r.type: {"baseline": r.baseline, "current": r.current, "change": r.change}
                  for r in kappa.itertuples()},
    }
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
        "compare.kappa_source_text": f"Kappas of this build come from {kappa_source}.",
        "compare.fig_counts.caption": (
            "Issues per project in the baseline and in the current run; new and removed "
            "projects are marked."),
        "compare.fig_counts.alt": (
            "Horizontal bar chart of issues per project, two bars per project (baseline and "
            f"current). {summary} {names}"),
        "compare.fig_kappa.caption": (
            "Fleiss' kappa per issue type with 95% intervals, baseline and current run."),
    }
    alt = []
    for r in kappa.itertuples():
        key = f"compare.kappa.{r.type.lower()}"
        variables[f"{key}.baseline"] = _fmt(r.baseline)
        variables[f"{key}.current"] = _fmt(r.current)
        variables[f"{key}.change"] = _fmt(r.change, signed=True)
        variables[f"{key}.baseline_ci"] = _ci(r.baseline_ci_low, r.baseline_ci_high)
        variables[f"{key}.current_ci"] = _ci(r.current_ci_low, r.current_ci_high)
        alt.append(f"{r.type}: baseline {_fmt(r.baseline)}, current {_fmt(r.current)}")
    variables["compare.fig_kappa.alt"] = (
        "Dot plot of Fleiss' kappa per issue type with interval bars, baseline and current. "
        + "; ".join(alt) + ".")
    return metrics, flat_vars(variables)


def _fmt(value: float, signed: bool = False) -> str:
    if value is None or not np.isfinite(value):
        return "n/a"
    value = round(float(value), 3) + 0.0
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _ci(low: float, high: float) -> str:
    if not np.isfinite([low, high]).all():
        return "n/a"
    return f"[{low:.3f}, {high:.3f}]"


def counts_figure(projects: pd.DataFrame, label: str):
    """Issues per project: baseline vs current bars, new/removed marked; project names
    and the baseline's label are drawn as visible text (:mod:`analysis.core.textsafe`)."""
    import matplotlib.pyplot as plt

    from analysis.core.figures import PAGE_WIDTH_IN, apply_style
    from analysis.core.textsafe import visible

    apply_style()
    frame = projects.iloc[::-1].reset_index(drop=True)
    y = np.arange(len(frame))
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.36 * len(frame) + 1.3))
    ax.barh(y + 0.2, frame["baseline"], height=0.38, color="#BBBBBB", label=f"baseline "
            f"({visible(label)})")
    ax.barh(y - 0.2, frame["current"], height=0.38, color="#0072B2", label="current run")
    top = max(frame[["baseline", "current"]].max().max(), 1)
    for i, r in frame.iterrows():
        note = {"new": "  new", "removed": "  removed"}.get(r["status"], "")
        text = f" {int(r['current']):,}" + (f" ({int(r['change']):+,})" if r["change"] else "")
        ax.text(max(r["current"], r["baseline"]), i, text + note, va="center", fontsize=8)
    ax.set_yticks(y, [visible(n) for n in frame["name"]])
    ax.set_xlim(0, top * 1.35)
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{int(v):,}"))
    ax.set_xlabel("issues")
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    ax.set_title("Issues per project: baseline vs current run", loc="left")
    fig.tight_layout()
    return fig


def kappa_figure(kappa: pd.DataFrame, label: str):
    """Kappa per type with intervals, baseline and current side by side; type names and
    the baseline's label are drawn as visible text (:mod:`analysis.core.textsafe`)."""
    import matplotlib.pyplot as plt

    from analysis.core.figures import PAGE_WIDTH_IN, apply_style
    from analysis.core.textsafe import visible

    apply_style()
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 0.5 * max(len(kappa), 1) + 1.3))
    y = np.arange(len(kappa))
    for offset, prefix, colour, name in ((0.15, "baseline", "#888888",
                                          f"baseline ({visible(label)})"),
                                         (-0.15, "current", "#0072B2", "current run")):
        vals = kappa[prefix].to_numpy(dtype=float)
        low = kappa[f"{prefix}_ci_low"].to_numpy(dtype=float)
        high = kappa[f"{prefix}_ci_high"].to_numpy(dtype=float)
        err = np.vstack([np.where(np.isfinite(low), vals - low, 0),
                         np.where(np.isfinite(high), high - vals, 0)])
        ok = np.isfinite(vals)
        ax.errorbar(vals[ok], (y + offset)[ok], xerr=err[:, ok], fmt="o", color=colour,
                    capsize=3, label=name)
        for v, yy in zip(vals[ok], (y + offset)[ok], strict=True):
            ax.annotate(f"{v:.3f}", (v, yy), xytext=(6, 4), textcoords="offset points",
                        fontsize=8, color=colour)
    ax.set_yticks(y, [visible(t) for t in kappa["type"]])
    ax.set_xlabel("Fleiss' kappa")
    ax.invert_yaxis()
    ax.legend(frameon=False, fontsize=8, loc="best")
    ax.set_title("Agreement per issue type: baseline vs current run", loc="left")
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> int:
    from analysis.core.artifacts import read_json, write_json
    from analysis.core.config import project_path

    parser = argparse.ArgumentParser(prog="python -m analysis.compare",
                                     description="Write a baseline snapshot of a run.")
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot", help="aggregate numbers of the current run as a baseline")
    snap.add_argument("--issues", default="data/processed/issues.parquet")
    snap.add_argument("--provenance", default="data/provenance.json")
    snap.add_argument("--agreement", default="metrics/agreement.json",
                      help="the agreement stage's metrics (the kappas)")
    snap.add_argument("--label", default=None, help="default: upstream-<commit[:7]>")
    snap.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    try:
        issues = pd.read_parquet(project_path(args.issues))
        prov_path = project_path(args.provenance)
        prov = read_json(prov_path) if prov_path.is_file() else {}
        label = args.label or f"upstream-{str(prov.get('commit') or 'unknown')[:7]}"
        agreement = project_path(args.agreement)
        if not agreement.is_file():
            raise InputError("agreement metrics not found", file=args.agreement,
                             fix="run the pipeline first (make report)")
        kappas = kappas_from_agreement(read_json(agreement), args.agreement)
        write_json(project_path(args.out), snapshot(issues, prov, kappas, label))
    except (InputError, FileNotFoundError) as exc:
        print(f"compare: {exc}", file=sys.stderr)
        return 1
    print(f"compare: baseline {label} written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
