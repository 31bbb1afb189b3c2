"""Table I of the paper: issues per project per year and per type, with the Sum row.

Rows are the projects found in the dump (ordered as in the paper when the project is
known, by name otherwise); year columns are the years found in the dump; type columns
follow the paper's order (Question, Bug, Requirement). The false-positive column cannot be
computed from the released data: it is shown as the paper reports it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.core.claims import parse_printed
from analysis.core.projects import Projects

TABLE1_TYPE_ORDER = ["Question", "Bug", "Requirement"]
SUM_ROW = "Sum"


def type_columns(types: list[str]) -> list[str]:
    """Issue types in Table I's order, then any other type found, alphabetically."""
    return [t for t in TABLE1_TYPE_ORDER if t in types] + sorted(
        t for t in types if t not in TABLE1_TYPE_ORDER)


def table1(issues: pd.DataFrame, projects: Projects, types: list[str]) -> pd.DataFrame:
    """Counts per project (rows, plus Sum) by year and by type (columns), plus Total.

    ``types`` are all issue types of the taxonomy, so a type with no issues still gets a
    column of zeros.
    """
    order = projects.order(issues["project"].unique())
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
    names = projects.names(order)
    kinds = {p: projects.kind(p) for p in order}
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


@dataclass(frozen=True)
class Table1:
    """What the stage computes: the table, the type shares, the paper's false-positive
    rates and the projects' descriptions."""

    table: pd.DataFrame
    shares: pd.Series
    false_positives: pd.Series
    projects: Projects


def compute(issues: pd.DataFrame, projects: Projects, types: list[str],
            claims: pd.DataFrame) -> Table1:
    """Table I from the processed issues (see the module docstring)."""
    return Table1(table1(issues, projects, types), type_shares(issues, types),
                  reported_false_positives(claims), projects)


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


