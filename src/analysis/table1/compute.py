"""Table I of the paper: issues per project per year and per type, with the Sum row.

Rows are the projects found in the dump (ordered as in the paper when the project is
known, by name otherwise); year columns are the years found in the dump; type columns
follow the paper's order (Question, Bug, Requirement).

The false-positive column is computed where the dump records its excluded candidates
(``<Project>_excluded.csv``, written by ``python -m analysis.labels merge``): excluded /
candidates of the project, in percent. A dump that records none (the paper's release,
whose excluded reports were never published) gets the paper's own rate, marked
``reported``; a project with neither gets none. The Sum row shows the average of the
projects' rates, as the paper does ("Average: 11.19%"): of the computed rates when any
project has one, else of the reported ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.core.claims import parse_printed
from analysis.core.formatting import MISSING, is_missing
from analysis.core.projects import Projects

TABLE1_TYPE_ORDER = ["Question", "Bug", "Requirement"]
SUM_ROW = "Sum"
COMPUTED, REPORTED, NONE = "computed", "reported", "none"


def type_columns(types: list[str]) -> list[str]:
    """Issue types in Table I's order, then any other type found, alphabetically."""
    return [t for t in TABLE1_TYPE_ORDER if t in types] + sorted(
        t for t in types if t not in TABLE1_TYPE_ORDER)


def table1(issues: pd.DataFrame, projects: Projects, types: list[str],
           also: list[str] | tuple[str, ...] = ()) -> pd.DataFrame:
    """Counts per project (rows, plus Sum) by year and by type (columns), plus Total.

    ``types`` are all issue types of the taxonomy, so a type with no issues still gets a
    column of zeros; ``also`` are projects to list even without issues (a project whose
    candidates were all excluded: its row of zeros carries its false-positive rate).
    """
    order = projects.order(list(dict.fromkeys([*issues["project"].unique(), *also])))
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


def false_positive_table(table: pd.DataFrame, exclusions: pd.DataFrame | None,
                         reported: pd.Series) -> pd.DataFrame:
    """The false-positive rate of every project of ``table`` (see the module docstring),
    then the Sum row's average: project, name, excluded, candidates,
    false_positive_percent, source (computed, reported or none).

    Why a rate only from recorded exclusions: a project whose dump does not list its
    excluded candidates has no denominator to compute from, and zero would be a claim.
    """
    ex = (exclusions.set_index("project") if exclusions is not None and len(exclusions)
          else pd.DataFrame(columns=["recorded", "excluded", "candidates"]))
    rows = []
    for project in [p for p in table.index if p != SUM_ROW]:
        rec = ex.loc[project] if project in ex.index else None
        if rec is not None and bool(rec["recorded"]) and int(rec["candidates"]) > 0:
            excluded, candidates = int(rec["excluded"]), int(rec["candidates"])
            rows.append((project, excluded, candidates, 100.0 * excluded / candidates,
                         COMPUTED))
        elif project in reported.index:
            rows.append((project, None, None, float(reported[project]), REPORTED))
        else:
            rows.append((project, None, None, None, NONE))
    frame = pd.DataFrame(rows, columns=["project", "excluded", "candidates",
                                        "false_positive_percent", "source"])
    computed = frame[frame["source"] == COMPUTED]
    shown = computed if len(computed) else frame[frame["source"] == REPORTED]
    source = COMPUTED if len(computed) else (REPORTED if len(shown) else NONE)
    frame.loc[len(frame)] = [
        SUM_ROW,
        int(computed["excluded"].sum()) if len(computed) else None,
        int(computed["candidates"].sum()) if len(computed) else None,
        float(shown["false_positive_percent"].mean()) if len(shown) else None, source]
    frame.insert(1, "name", [table.loc[p, "name"] for p in frame["project"]])
    for col in ("excluded", "candidates"):
        frame[col] = frame[col].astype("Int64")
    frame["false_positive_percent"] = frame["false_positive_percent"].astype("float64")
    return frame


@dataclass(frozen=True)
class Table1:
    """What the stage computes: the table, the type shares, the false-positive rates
    (:func:`false_positive_table`) and the projects' descriptions."""

    table: pd.DataFrame
    shares: pd.Series
    false_positives: pd.DataFrame
    projects: Projects


def excluded_only(issues: pd.DataFrame, exclusions: pd.DataFrame | None) -> list[str]:
    """Projects whose recorded candidates were all excluded: no issue, so no year file,
    but a false-positive rate (100%) that Table I must show."""
    if exclusions is None or not len(exclusions):
        return []
    held = set(issues["project"].astype(str))
    rows = exclusions[exclusions["recorded"].astype(bool)]
    return [str(p) for p, n in zip(rows["project"], rows["excluded"], strict=True)
            if str(p) not in held and not pd.isna(n) and int(n) > 0]


def compute(issues: pd.DataFrame, projects: Projects, types: list[str],
            claims: pd.DataFrame, exclusions: pd.DataFrame | None = None) -> Table1:
    """Table I from the processed issues and the clean stage's exclusions (see the module
    docstring); without ``exclusions`` every rate is the paper's."""
    table = table1(issues, projects, types, excluded_only(issues, exclusions))
    return Table1(table, type_shares(issues, types),
                  false_positive_table(table, exclusions, reported_false_positives(claims)),
                  projects)


def false_positive_text(rate: float | None, source: str, total: bool = False) -> str:
    """A false-positive cell as printed: ``8.33%``, ``23.93% (reported)``, the missing mark;
    the Sum row's with ``Average:`` in front, as the paper prints it."""
    if is_missing(rate):
        return MISSING
    text = f"{rate:.2f}%" + (" (reported)" if source == REPORTED else "")
    return f"Average: {text}" if total else text


def table1_display(table: pd.DataFrame, fp: pd.DataFrame) -> pd.DataFrame:
    """Table I as printed: display names, counts with thousands separators, and the
    false-positive column (computed rates plain, the paper's marked ``(reported)``)."""
    shown = table.drop(columns=["kind"]).copy()
    shown = shown.rename(columns={"name": "DL Frameworks and LLM Toolkit"})
    for col in shown.columns[1:]:
        shown[col] = shown[col].map(lambda v: f"{int(v):,}")
    rates = fp.set_index("project")
    shown["False Positive"] = [
        false_positive_text(rates.at[p, "false_positive_percent"], rates.at[p, "source"],
                            total=(p == SUM_ROW)) for p in table.index]
    return shown.reset_index(drop=True)


