"""What the table1 stage writes (the stage contract of :mod:`analysis.core.stage`): Table I
with the type shares per project and the claim of each cell, its figure, the website's
numbers, the reproduced claim values and the metrics."""

from __future__ import annotations

import pandas as pd

from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas
from analysis.table1.compute import COMPUTED, REPORTED, SUM_ROW, Table1
from analysis.table1.figures import counts_figure


def tables(result: Table1) -> dict[str, pd.DataFrame | str]:
    """Table I with its project column, the share of each type within each project, the
    claim each cell of Table I is, and the false-positive rates (CSV); on a study also the
    study now (release, each batch, total) and each batch's false-positive rates."""
    study = {} if result.study is None else {
        "study.csv": result.study.counts,
        "false_positives_by_batch.csv": result.study.false_positives}
    return {
        "counts.csv": result.table.reset_index(),
        "type_shares.csv": type_shares_by_project(result.table),
        "claims.csv": cell_claims(result.table),
        "false_positives.csv": result.false_positives,
        **study,
    }


def _columns(table: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The year and the type columns of Table I."""
    years = [c for c in table.columns if str(c).isdigit()]
    return years, [c for c in table.columns if c not in (*years, "name", "kind", "Total")]


def type_shares_by_project(table: pd.DataFrame) -> pd.DataFrame:
    """Per row of Table I (the Sum row too): the share of each type among the row's issues,
    in percent (0 for a row without issues)."""
    _, types = _columns(table)
    total = table["Total"].where(table["Total"] > 0, 1)
    shares = table[types].astype("float64").mul(100).div(total, axis=0)
    return shares.reset_index()


def cell_claims(table: pd.DataFrame) -> pd.DataFrame:
    """The claim of the paper each cell of Table I is (project, column, claim id): the year
    and type counts of every row (``table1.<project>.<column>``, the Sum row's as
    ``table1.sum.<column>``), the Sum row's total (``table1.total_reports``) and every row's
    false-positive rate (``table1.<project>.false_positive``; the Sum row's average
    ``table1.false_positive.average``)."""
    years, types = _columns(table)
    rows = []
    for project in table.index:
        key = "sum" if project == SUM_ROW else project
        rows += [(project, col, f"table1.{key}.{col.lower()}") for col in (*years, *types)]
        if project == SUM_ROW:
            rows.append((project, "Total", "table1.total_reports"))
            rows.append((project, "false_positive", "table1.false_positive.average"))
        else:
            rows.append((project, "false_positive", f"table1.{key}.false_positive"))
    return pd.DataFrame(rows, columns=["project", "column", "claim_id"])


def figures(result: Table1) -> dict:
    return {"counts": lambda: counts_figure(result.table)}


def metrics(result: Table1) -> dict:
    """The headline numbers for ``dvc metrics show``/``diff``: the total, the projects and
    the issues of each type (the rest is in the tables); on a study, the issues of each
    batch and of the whole study too."""
    sums = result.table.loc[SUM_ROW]
    _, types = _columns(result.table)
    out = {"total": int(sums["Total"]), "projects": int(len(result.table) - 1),
           "by_type": {t: int(sums[t]) for t in types}}
    if result.study is not None:  # the release's numbers above; the study's here
        c = result.study.counts
        totals = c[(c["project"] == SUM_ROW) & (c["column"] == "Total")]
        n = {str(b): int(v) for b, v in zip(totals["batch"], totals["issues"], strict=True)}
        out["study"] = {"total": n.pop(""), "batches": n}
    return out


def website_vars(result: Table1) -> dict[str, object]:
    """Numbers, caption and alt text of Table I for the website (``report/vars/table1.json``).

    Counts are integers (the report formats them); shares are strings with the paper's
    precision; the alt text describes what the figure shows, from the data (project names
    are data: the report shows the alt text only as escaped HTML). The number of projects
    with a computed false-positive rate says how the Table I page words that column.
    """
    table, shares, fp = result.table, result.shares, result.false_positives
    body = table.drop(index=SUM_ROW)
    years, types = _columns(table)
    sums = table.loc[SUM_ROW]
    kinds = body["kind"].value_counts()
    top = body[types].idxmax(axis=1) if len(body) else pd.Series(dtype=str)

    def n(t: str) -> int:
        return int(sums[t]) if t in types else 0

    def share(t: str) -> str:
        return f"{float(shares.get(t, 0.0)):.2f}%"

    def mostly(t: str) -> int:
        return int((top == t).sum())

    out: dict[str, object] = {
        "total": int(sums["Total"]),
        "projects": len(body),
        "years": f"{years[0]}–{years[-1]}" if years else "",
        "projects_by_kind": projects_by_kind(kinds),
        "bug": n("Bug"), "requirement": n("Requirement"), "question": n("Question"),
        "bug_share": share("Bug"), "requirement_share": share("Requirement"),
        "question_share": share("Question"),
        "projects_mostly_bug": mostly("Bug"),
        "projects_mostly_requirement": mostly("Requirement"),
        "false_positive_computed_projects": int(
            (fp.loc[fp["project"] != SUM_ROW, "source"] == COMPUTED).sum()),
        "toolkits": int(kinds.get("toolkit", 0)),
        "toolkits_with_false_positives": toolkits_with_false_positives(body, fp),
        "fig_counts_caption": ("Labelled LLM-related issue reports per project, by year "
                               "(left) and by issue type (right), counted from the released "
                               "labels."),
    }
    alt = (f"Two horizontal stacked bar charts, one bar per project ({len(body)} projects). "
           f"Left: reports per year, {out['years']}. Right: reports per type "
           f"({', '.join(types)}).")
    if len(body) and "Bug" in types:
        largest, smallest = body["Total"].idxmax(), body["Total"].idxmin()
        alt += (f" {body.loc[largest, 'name']} has the most reports "
                f"({int(body.loc[largest, 'Total']):,}) and {body.loc[smallest, 'name']} the "
                f"fewest ({int(body.loc[smallest, 'Total']):,}); bugs are the largest type in "
                f"{mostly('Bug')} of {len(body)} projects.")
    out["fig_counts_alt"] = alt
    return out


def toolkits_with_false_positives(body: pd.DataFrame, fp: pd.DataFrame) -> int:
    """The toolkit projects that Table I gives a false-positive rate above zero (the paper
    says it took the toolkits' issues "without filtering": a rate contradicts that)."""
    rates = fp[fp["project"] != SUM_ROW].set_index("project")["false_positive_percent"]
    toolkits = body.index[body["kind"] == "toolkit"]
    return int((rates.reindex(toolkits).fillna(0) > 0).sum())


KIND_NAMES = {"framework": ("framework", "frameworks"),
              "toolkit": ("LLM toolkit", "LLM toolkits"),
              "unknown": ("project not in data/projects.yaml",
                          "projects not in data/projects.yaml")}


def projects_by_kind(kinds: pd.Series) -> str:
    """"3 frameworks and 8 LLM toolkits": the projects per kind (``kinds``: kind -> count),
    frameworks first."""
    order = list(KIND_NAMES)
    parts = [f"{n} {KIND_NAMES.get(k, (k, k))[n != 1]}" for k, n in
             sorted(kinds.items(), key=lambda kv: order.index(kv[0])
                    if kv[0] in KIND_NAMES else len(order))]
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


# What the average false-positive rate is a mean of, by where the per-project rates come
# from ({n}: how many rates)
AVERAGE_NOTES = {
    REPORTED: "the paper's own {n} per-project rates do average {mean:.2f}% (an "
              "arithmetic check of the paper, not a reproduction)",
    COMPUTED: "mean of {n} per-project rates computed from the dump's excluded candidates "
              "(excluded / candidates)",
}


def claim_values(result: Table1) -> dict[str, dict]:
    """Reproduced values keyed by claim id (``table1.<project>.<column>``)."""
    table, shares, fp = result.table, result.shares, result.false_positives
    out: dict[str, dict] = {}
    for r in cell_claims(table).itertuples(index=False):
        if r.column != "false_positive":
            out[r.claim_id] = {"value": int(table.loc[r.project, r.column])}
    for t, pct in shares.items():
        out[f"table1.share.{t.lower()}"] = {"value": float(pct)}
    projects = [p for p in table.index if p != SUM_ROW]
    kinds = [result.projects.kind(p) for p in projects]
    out["table1.projects"] = {"value": len(projects)}
    out["table1.frameworks"] = {"value": kinds.count("framework")}
    out["table1.toolkits"] = {"value": kinds.count("toolkit")}
    for r in fp[(fp["project"] != SUM_ROW) & (fp["source"] == COMPUTED)].itertuples():
        # computed from recorded exclusions: the scorecard judges these, although the
        # release cannot give them (claims.yaml marks them not reproducible)
        out[f"table1.{r.project}.false_positive"] = {
            "value": float(r.false_positive_percent), "computed": True,
            "note": f"computed from the dump's excluded candidates: {int(r.excluded):,} "
                    f"excluded of {int(r.candidates):,} candidates"}
    total = fp.iloc[-1]
    if total["source"] in AVERAGE_NOTES:
        # judged (``computed``) only when averaged from rates the dump records; the mean of
        # the paper's own rates checks the paper's arithmetic, not the data, so the
        # scorecard keeps claims.yaml's verdict (not reproducible) and gives it in the note
        n = int((fp["source"] == total["source"]).sum()) - 1
        mean = float(total["false_positive_percent"])
        note = AVERAGE_NOTES[total["source"]].format(n=n, mean=mean)
        out["table1.false_positive.average"] = (
            {"value": mean, "computed": True, "note": note} if total["source"] == COMPUTED
            else {"value": None, "note": note})
    return out


def build(result: Table1) -> StageOutputs:
    return StageOutputs(tables=tables(result), figures=figures(result),
                        website_vars=website_vars(result), claim_values=claim_values(result),
                        metrics=metrics(result),
                        schemas=stage_schemas("table1"))
