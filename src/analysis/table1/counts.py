"""Table I of the paper: issues per project per year and per type, with the Sum row.

Rows are the projects found in the dump (ordered as in the paper when the project is
known, by name otherwise); year columns are the years found in the dump; type columns
follow the paper's order (Question, Bug, Requirement). The false-positive column cannot be
computed from the released data: it is shown as the paper reports it.
"""

from __future__ import annotations

import pandas as pd

from analysis.core.claims import parse_printed

TABLE1_TYPE_ORDER = ["Question", "Bug", "Requirement"]
SUM_ROW = "Sum"


def type_columns(types: list[str]) -> list[str]:
    """Issue types in Table I's order, then any other type found, alphabetically."""
    return [t for t in TABLE1_TYPE_ORDER if t in types] + sorted(
        t for t in types if t not in TABLE1_TYPE_ORDER)


def project_order(issues: pd.DataFrame, projects_meta: dict) -> list[str]:
    """Projects in Table I order: known projects by their ``order``, then unknown by name."""
    names = sorted(issues["project"].unique())
    return sorted(names, key=lambda p: ((projects_meta.get(p) or {}).get("order", 10_000), p))


def table1(issues: pd.DataFrame, projects_meta: dict, types: list[str]) -> pd.DataFrame:
    """Counts per project (rows, plus Sum) by year and by type (columns), plus Total.

    ``types`` are all issue types of the taxonomy, so a type with no issues still gets a
    column of zeros.
    """
    order = project_order(issues, projects_meta)
    years = sorted(int(y) for y in issues["year"].unique())
    by_year = (issues.groupby(["project", "year"]).size().unstack(fill_value=0)
               .reindex(index=order, columns=years, fill_value=0))
    by_year.columns = [str(y) for y in by_year.columns]
    tcols = type_columns(sorted(set(types) | set(issues["type"])))
    by_type = (issues.groupby(["project", "type"]).size().unstack(fill_value=0)
               .reindex(index=order, columns=tcols, fill_value=0))
    table = pd.concat([by_year, by_type], axis=1).astype("int64")
    table["Total"] = by_type.sum(axis=1).astype("int64")
    table.loc[SUM_ROW] = table.sum(axis=0)
    names = {p: (projects_meta.get(p) or {}).get("name", p) for p in order}
    kinds = {p: (projects_meta.get(p) or {}).get("kind", "unknown") for p in order}
    table.insert(0, "kind", [kinds.get(p, "") for p in table.index])
    table.insert(0, "name", [names.get(p, "All projects") for p in table.index])
    table.index.name = "project"
    return table


def type_shares(issues: pd.DataFrame, types: list[str]) -> pd.Series:
    """Percentage of all issues per type (Table I order)."""
    counts = issues["type"].value_counts().reindex(type_columns(types), fill_value=0)
    return (100.0 * counts / counts.sum()).rename("percent")


def reported_false_positives(claims: pd.DataFrame) -> pd.Series:
    """The paper's per-project false-positive rates (percent), keyed by project."""
    rows = claims[claims["claim_id"].str.match(r"^table1\.[^.]+\.false_positive$")]
    return pd.Series(
        {cid.split(".")[1]: float(parse_printed(v)[0])
         for cid, v in zip(rows["claim_id"], rows["paper_value"], strict=True)},
        name="false_positive_reported", dtype="float64")


def table1_reproduced(table: pd.DataFrame, shares: pd.Series, fp: pd.Series,
                      projects_meta: dict) -> dict[str, dict]:
    """Reproduced values keyed by claim id (``table1.<project>.<column>``)."""
    out: dict[str, dict] = {}
    value_cols = [c for c in table.columns if c not in ("name", "kind", "Total")]
    for project, row in table.iterrows():
        key = "sum" if project == SUM_ROW else project
        for col in value_cols:
            out[f"table1.{key}.{col.lower()}"] = {"value": int(row[col])}
    out["table1.total_reports"] = {"value": int(table.loc[SUM_ROW, "Total"])}
    for t, pct in shares.items():
        out[f"table1.share.{t.lower()}"] = {"value": float(pct)}
    projects = [p for p in table.index if p != SUM_ROW]
    kinds = [(projects_meta.get(p) or {}).get("kind", "unknown") for p in projects]
    out["table1.projects"] = {"value": len(projects)}
    out["table1.frameworks"] = {"value": kinds.count("framework")}
    out["table1.toolkits"] = {"value": kinds.count("toolkit")}
    if len(fp):
        out["table1.false_positive.average"] = {
            "value": float(fp.mean()),
            "note": f"mean of the paper's own {len(fp)} per-project rates (an arithmetic "
                    "check); the rates themselves cannot be recomputed from the release",
        }
    return out


def table1_display(table: pd.DataFrame, fp: pd.Series) -> pd.DataFrame:
    """Table I as printed: display names, counts with thousands separators, FP column."""
    shown = table.drop(columns=["kind"]).copy()
    shown = shown.rename(columns={"name": "DL Frameworks and LLM Toolkit"})
    for col in shown.columns[1:]:
        shown[col] = shown[col].map(lambda v: f"{int(v):,}")
    fp_text = [f"{fp[p]:.2f}%" if p in fp.index else "n/a" for p in table.index[:-1]]
    fp_text.append(f"Average: {fp.mean():.2f}%" if len(fp) else "n/a")
    shown["False Positive (reported only)"] = fp_text
    return shown.reset_index(drop=True)


def table1_metrics(table: pd.DataFrame, shares: pd.Series) -> dict:
    """Small, flat-ish metrics for ``dvc metrics show``/``diff``."""
    sums = table.loc[SUM_ROW]
    years = [c for c in table.columns if c.isdigit()]
    types = [c for c in table.columns if c not in (*years, "name", "kind", "Total")]
    return {
        "total": int(sums["Total"]),
        "projects": int(len(table) - 1),
        "by_year": {y: int(sums[y]) for y in years},
        "by_type": {t: int(sums[t]) for t in types},
        "share_percent": {t: round(float(v), 4) for t, v in shares.items()},
        "by_project": {p: int(table.loc[p, "Total"]) for p in table.index if p != SUM_ROW},
    }


def table1_vars(table: pd.DataFrame, shares: pd.Series) -> dict[str, object]:
    """Numbers, caption and alt text of Table I for the website (``report/vars/table1.json``).

    Counts are integers (the report formats them); shares are strings with the paper's
    precision; the alt text describes what the figure shows, from the data. Text that
    quotes the data (project names) is kept under keys ending in ``_alt`` or ``_text``,
    which the report shows only as escaped HTML (README, "Putting a stage on the website").
    """
    body = table.drop(index=SUM_ROW)
    years = [c for c in table.columns if c.isdigit()]
    types = [c for c in table.columns if c not in (*years, "name", "kind", "Total")]
    sums = table.loc[SUM_ROW]
    kinds = body["kind"].value_counts()
    out: dict[str, object] = {
        "total": int(sums["Total"]),
        "projects": len(body),
        "frameworks": int(kinds.get("framework", 0)),
        "toolkits": int(kinds.get("toolkit", 0)),
        "unknown_projects": int(kinds.get("unknown", 0)),
        "year_first": years[0] if years else "",
        "year_last": years[-1] if years else "",
        "years": f"{years[0]}–{years[-1]}" if years else "",
    }
    names = {"framework": ("framework", "frameworks"),
             "toolkit": ("LLM toolkit", "LLM toolkits"),
             "unknown": ("project not in data/projects.yaml",
                         "projects not in data/projects.yaml")}
    parts = [f"{n} {names.get(k, (k, k))[n != 1]}" for k, n in
             sorted(kinds.items(), key=lambda kv: list(names).index(kv[0])
                    if kv[0] in names else len(names))]
    out["projects_by_kind"] = (" and ".join(parts) if len(parts) < 3
                               else ", ".join(parts[:-1]) + " and " + parts[-1])
    for t in types:
        out[t.lower()] = int(sums[t])
        out[f"{t.lower()}_share"] = f"{float(shares.get(t, 0.0)):.2f}%"
    for y in years:
        out[f"year_{y}"] = int(sums[y])
    if len(body):
        largest = body["Total"].idxmax()
        smallest = body["Total"].idxmin()
        largest_name, smallest_name = body.loc[largest, "name"], body.loc[smallest, "name"]
        out.update({"largest_project_total": int(body.loc[largest, "Total"]),
                    "smallest_project_total": int(body.loc[smallest, "Total"])})
        out["extremes_text"] = (f"{largest_name} contributes the most reports "
                                f"({out['largest_project_total']:,}), {smallest_name} the "
                                f"fewest ({out['smallest_project_total']:,}).")
        top = body[types].idxmax(axis=1)
        for t in types:
            out[f"projects_mostly_{t.lower()}"] = int((top == t).sum())
    out["fig_caption"] = ("Labelled LLM-related issue reports per project, by year (left) "
                          "and by issue type (right), counted from the released labels.")
    alt = (f"Two horizontal stacked bar charts, one bar per project ({len(body)} projects). "
           f"Left: reports per year, {out['years']}. Right: reports per type "
           f"({', '.join(types)}).")
    if len(body) and "Bug" in types:
        alt += (f" {largest_name} has the most reports "
                f"({out['largest_project_total']:,}) and {smallest_name} the fewest "
                f"({out['smallest_project_total']:,}); bugs are the largest type in "
                f"{out['projects_mostly_bug']} of {len(body)} projects.")
    out["fig_alt"] = alt
    return out
