"""Table I of the paper: issues per project per year and per type, with the Sum row.

Rows are the projects found in the dump (ordered as in the paper when the project is
known, by name otherwise); year columns are the years found in the dump; type columns
follow the paper's order (Question, Bug, Requirement).

The false-positive column is computed where the dump records its excluded candidates
(``<Project>_excluded.csv``, written by ``python -m analysis.update.labels merge``): excluded /
candidates of the project, in percent. A dump that records none (the paper's release,
whose excluded reports were never published) gets the paper's own rate, marked
``reported``; a project with neither gets none. The Sum row shows the average of the
projects' rates, as the paper does ("Average: 11.19%"): of the computed rates when any
project has one, else of the reported ones.

On a study (the release extended with batches of new labels) Table I is the release's:
its rows and its exclusions (the paper, reproduced: a batch never changes a cell judged
against the paper). :class:`StudyNow` is the study as it stands: the release, each batch
and the total side by side (:func:`study_counts`), and each batch's own false-positive
rates with their n and interval (:func:`batch_false_positives`).

The stage's notebook (``notebooks/02_table1.py``) runs the steps in order: the release's
rows (:func:`analysis.core.batches.release_rows`) and exclusions (:func:`exclusions_of`),
Table I's rows (:func:`project_rows`), its two group-bys (:func:`counts_by_year`,
:func:`counts_by_type`) and their totals (:func:`with_totals`), the type shares
(:func:`type_shares`), the false-positive rates (:func:`false_positive_table`) and, on a
study, :func:`study_now`; the result is one :class:`Table1`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.core import proportions
from analysis.core.batches import RELEASE, batch_names
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


def project_rows(issues: pd.DataFrame, projects: Projects,
                 also: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Table I's rows: the projects of ``issues`` and ``also``, in the paper's order
    (:meth:`~analysis.core.projects.Projects.order`)."""
    return projects.order(list(dict.fromkeys([*issues["project"].unique(), *also])))


def counts_by_year(issues: pd.DataFrame, rows: list[str]) -> pd.DataFrame:
    """Issues per project (``rows``) and year: a group-by on project and year, one
    column per year found (named by the year), zeros where a project has none."""
    years = sorted(int(y) for y in issues["year"].unique())
    by_year = (issues.groupby(["project", "year"]).size().unstack(fill_value=0)
               .reindex(index=rows, columns=years, fill_value=0))
    by_year.columns = [str(y) for y in by_year.columns]
    return by_year


def counts_by_type(issues: pd.DataFrame, rows: list[str], types: list[str]) -> pd.DataFrame:
    """Issues per project (``rows``) and issue type: a group-by on project and type, one
    column per type of ``types`` and any other found (:func:`type_columns`' order)."""
    tcols = type_columns(sorted(set(types) | set(issues["type"])))
    return (issues.groupby(["project", "type"]).size().unstack(fill_value=0)
            .reindex(index=rows, columns=tcols, fill_value=0))


def with_totals(by_year: pd.DataFrame, by_type: pd.DataFrame,
                projects: Projects) -> pd.DataFrame:
    """Table I from its two group-bys: the year and type columns side by side, a Total
    column (the project's issues), the Sum row (every column added up) and each row's
    display name and kind in front."""
    order = list(by_type.index)
    table = pd.concat([by_year, by_type], axis=1).astype("int64")
    table["Total"] = by_type.sum(axis=1).astype("int64")
    table.loc[SUM_ROW] = table.sum(axis=0)
    names = projects.names(order)
    kinds = {p: projects.kind(p) for p in order}
    table.insert(0, "kind", [kinds.get(p, "") for p in table.index])
    table.insert(0, "name", [names.get(p, "All projects") for p in table.index])
    table.index.name = "project"
    return table


def table1(issues: pd.DataFrame, projects: Projects, types: list[str],
           also: list[str] | tuple[str, ...] = ()) -> pd.DataFrame:
    """Counts per project (rows, plus Sum) by year and by type (columns), plus Total:
    :func:`project_rows`, :func:`counts_by_year`, :func:`counts_by_type` and
    :func:`with_totals` in turn.

    ``types`` are all issue types of the taxonomy, so a type with no issues still gets a
    column of zeros; ``also`` are projects to list even without issues (a project whose
    candidates were all excluded: its row of zeros carries its false-positive rate).
    """
    rows = project_rows(issues, projects, also)
    return with_totals(counts_by_year(issues, rows), counts_by_type(issues, rows, types),
                       projects)


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
class StudyNow:
    """A study's Table I as it stands now (:func:`study_counts`) and each batch's
    false-positive rates (:func:`batch_false_positives`)."""

    counts: pd.DataFrame
    false_positives: pd.DataFrame


@dataclass(frozen=True)
class Table1:
    """What the stage computes: the table, the type shares, the false-positive rates
    (:func:`false_positive_table`) and the projects' descriptions, all of the release's
    rows (the paper, reproduced); on a study also :class:`StudyNow`."""

    table: pd.DataFrame
    shares: pd.Series
    false_positives: pd.DataFrame
    projects: Projects
    study: StudyNow | None = None


def excluded_only(issues: pd.DataFrame, exclusions: pd.DataFrame | None) -> list[str]:
    """Projects whose recorded candidates were all excluded: no issue, so no year file,
    but a false-positive rate (100%) that Table I must show."""
    if exclusions is None or not len(exclusions):
        return []
    held = set(issues["project"].astype(str))
    rows = exclusions[exclusions["recorded"].astype(bool)]
    return [str(p) for p, n in zip(rows["project"], rows["excluded"], strict=True)
            if str(p) not in held and not pd.isna(n) and int(n) > 0]


def exclusions_of(exclusions: pd.DataFrame | None, batch: str) -> pd.DataFrame | None:
    """The lines of one batch of a study's exclusions (per project and batch), without
    the batch column; a dump without batches has its exclusions as they are."""
    if exclusions is None or "batch" not in exclusions.columns:
        return exclusions
    mine = exclusions[exclusions["batch"].astype(str) == batch]
    return mine.drop(columns="batch").reset_index(drop=True)


STUDY_TOTAL = ""  # the batch of a study table's line that counts the whole study
STUDY_COLUMNS = ["project", "name", "batch", "column", "issues", "release_year"]


def study_counts(issues: pd.DataFrame, projects: Projects, types: list[str],
                 also: list[str] | tuple[str, ...] = ()) -> pd.DataFrame:
    """A study's Table I, long: per project (Table I's order, then the Sum row) and part
    (each batch, the release first, then the whole study: ``batch`` empty), the part's
    issues per year (the years it holds), per type and in total. A batch's year that the
    release also covers is marked (``release_year``): those reports are the batch's, never
    folded into the release's column."""
    batches = batch_names(issues)
    release_years = set(issues.loc[issues["batch"].astype(str) == RELEASE, "year"]
                        .astype(int))
    order = projects.order(list(dict.fromkeys([*issues["project"].astype(str), *also])))
    names = projects.names(order)
    frames = []
    for part in [*batches, STUDY_TOTAL]:
        mine = issues if part == STUDY_TOTAL else issues[issues["batch"].astype(str) == part]
        table = table1(mine, projects, types, [p for p in order
                                              if p not in set(mine["project"])])
        table = table.reindex([*order, SUM_ROW], fill_value=0)
        years = [c for c in table.columns if str(c).isdigit()]
        long = (table.drop(columns=["name", "kind"]).reset_index()
                .melt(id_vars="project", var_name="column", value_name="issues"))
        long["batch"] = part
        long["release_year"] = [part not in (RELEASE, STUDY_TOTAL) and c in years
                                and int(c) in release_years for c in long["column"]]
        frames.append(long)
    out = pd.concat(frames, ignore_index=True)
    rank = {p: i for i, p in enumerate([*order, SUM_ROW])}
    out = out.assign(_p=out["project"].map(rank)).sort_values("_p", kind="mergesort")
    out["name"] = [names.get(p, "All projects") for p in out["project"]]
    out["issues"] = out["issues"].astype("int64")
    return out[STUDY_COLUMNS].reset_index(drop=True)


BATCH_RATE_COLUMNS = ["batch", "project", "name", "excluded", "candidates",
                      "false_positive_percent", "ci_low", "ci_high"]


def batch_false_positives(exclusions: pd.DataFrame, projects: Projects) -> pd.DataFrame:
    """Per batch that records its exclusions and per project it holds candidates of: the
    false-positive rate (excluded / candidates, percent) with its n and Wilson's 95%
    interval; then the batch's Sum row, the mean of its own projects' rates (as the paper
    averages them), with its excluded and candidates added up. Never a rate of candidates
    of two batches: each was drawn and judged on its own."""
    rows = []
    recorded = exclusions[exclusions["recorded"].astype(bool)
                          & (exclusions["candidates"].fillna(0).astype(int) > 0)]
    for name in dict.fromkeys(recorded["batch"].astype(str)):
        mine = recorded[recorded["batch"].astype(str) == name]
        rates = []
        for r in mine.itertuples(index=False):
            excluded, candidates = int(r.excluded), int(r.candidates)
            low, high = proportions.wilson(excluded, candidates)
            rates.append(100.0 * excluded / candidates)
            rows.append((name, str(r.project), projects.name(str(r.project)), excluded,
                         candidates, rates[-1], 100 * low, 100 * high))
        rows.append((name, SUM_ROW, "All projects", int(mine["excluded"].sum()),
                     int(mine["candidates"].sum()), sum(rates) / len(rates), None, None))
    frame = pd.DataFrame(rows, columns=BATCH_RATE_COLUMNS)
    for col in ("false_positive_percent", "ci_low", "ci_high"):
        frame[col] = frame[col].astype("float64").round(6)
    return frame


def study_now(issues: pd.DataFrame, projects: Projects, types: list[str],
              exclusions: pd.DataFrame | None) -> StudyNow:
    """A study's Table I as it stands (the release, each batch and the whole study side
    by side: :func:`study_counts`) and each batch's false-positive rates
    (:func:`batch_false_positives`), from all its issues and exclusions."""
    every = exclusions if exclusions is not None else pd.DataFrame(
        columns=["project", "recorded", "excluded", "candidates", "batch"])
    return StudyNow(study_counts(issues, projects, types, excluded_only(issues, every)),
                    batch_false_positives(every, projects))


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


