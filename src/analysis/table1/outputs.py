"""What the table1 stage writes (the stage contract of :mod:`analysis.core.stage`): Table I
as CSV, Markdown and HTML, its figure, the website's numbers, the reproduced claim values
and the metrics."""

from __future__ import annotations

import pandas as pd

from analysis.core.stage import StageOutputs
from analysis.table1.counts import COMPUTED, REPORTED, SUM_ROW, Table1, table1_display
from analysis.table1.figures import counts_figure


def tables(result: Table1) -> dict[str, pd.DataFrame | str]:
    """Table I with its project column (CSV), and as the paper prints it (Markdown, HTML)."""
    shown = table1_display(result.table, result.false_positives)
    return {
        "counts.csv": result.table.reset_index(),
        "counts.md": shown.to_markdown(index=False, colalign=["left"]
                                       + ["right"] * (shown.shape[1] - 1)),
        "counts.html": shown.to_html(index=False, border=0, escape=True,
                                     classes="table table-sm"),
        "false_positives.csv": result.false_positives,
    }


def figures(result: Table1) -> dict:
    return {"counts": lambda: counts_figure(result.table)}


def metrics(result: Table1) -> dict:
    """Small, flat-ish metrics for ``dvc metrics show``/``diff``."""
    table, shares = result.table, result.shares
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
        **false_positive_metrics(result),
    }


def false_positive_metrics(result: Table1) -> dict:
    """Where the false-positive rates come from, and the computed ones (percent)."""
    fp = result.false_positives
    body = fp[fp["project"] != SUM_ROW]
    computed = body[body["source"] == COMPUTED]
    return {
        "false_positive_source": str(fp["source"].iloc[-1]),
        "false_positive_percent": {p: round(float(v), 4) for p, v in
                                   zip(computed["project"], computed["false_positive_percent"],
                                       strict=True)},
    }


def website_vars(result: Table1) -> dict[str, object]:
    """Numbers, caption and alt text of Table I for the website (``report/vars/table1.json``).

    Counts are integers (the report formats them); shares are strings with the paper's
    precision; the alt text describes what the figure shows, from the data. Text that
    quotes the data (project names) is kept under keys ending in ``_alt`` or ``_text``,
    which the report shows only as escaped HTML (README, "Putting a stage on the website").
    """
    table, shares = result.table, result.shares
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
    out.update(false_positive_vars(result))
    out["fig_counts_caption"] = ("Labelled LLM-related issue reports per project, by year (left) "
                          "and by issue type (right), counted from the released labels.")
    alt = (f"Two horizontal stacked bar charts, one bar per project ({len(body)} projects). "
           f"Left: reports per year, {out['years']}. Right: reports per type "
           f"({', '.join(types)}).")
    if len(body) and "Bug" in types:
        alt += (f" {largest_name} has the most reports "
                f"({out['largest_project_total']:,}) and {smallest_name} the fewest "
                f"({out['smallest_project_total']:,}); bugs are the largest type in "
                f"{out['projects_mostly_bug']} of {len(body)} projects.")
    out["fig_counts_alt"] = alt
    return out


def false_positive_vars(result: Table1) -> dict[str, object]:
    """How the website words the false-positive column: where its rates come from
    (``computed``, ``reported``, ``mixed`` or ``none``), how many projects have a computed
    rate, and the Sum row's average as printed."""
    fp = result.false_positives
    body = fp[fp["project"] != SUM_ROW]
    sources = set(body["source"]) - {"none"}
    source = (next(iter(sources)) if len(sources) == 1 else "mixed" if sources else "none")
    avg = fp["false_positive_percent"].iloc[-1]
    return {"false_positive_source": source,
            "false_positive_computed_projects": int((body["source"] == COMPUTED).sum()),
            "false_positive_average": "" if pd.isna(avg) else f"{float(avg):.2f}%"}


def claim_values(result: Table1) -> dict[str, dict]:
    """Reproduced values keyed by claim id (``table1.<project>.<column>``)."""
    table, shares, fp = result.table, result.shares, result.false_positives
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
    kinds = [result.projects.kind(p) for p in projects]
    out["table1.projects"] = {"value": len(projects)}
    out["table1.frameworks"] = {"value": kinds.count("framework")}
    out["table1.toolkits"] = {"value": kinds.count("toolkit")}
    total = fp.iloc[-1]
    if total["source"] == REPORTED:
        n = int((fp["source"] == REPORTED).sum()) - 1
        out["table1.false_positive.average"] = {
            "value": float(total["false_positive_percent"]),
            "note": f"mean of the paper's own {n} per-project rates (an arithmetic "
                    "check); the rates themselves cannot be recomputed from the release",
        }
    elif total["source"] == COMPUTED:
        n = int((fp["source"] == COMPUTED).sum()) - 1
        out["table1.false_positive.average"] = {
            "value": float(total["false_positive_percent"]),
            "note": f"mean of {n} per-project rates computed from the dump's excluded "
                    "candidates (excluded / candidates)",
        }
    return out


def build(result: Table1) -> StageOutputs:
    return StageOutputs(tables=tables(result), figures=figures(result),
                        website_vars=website_vars(result), claim_values=claim_values(result),
                        metrics=metrics(result))
