"""The ``explorer`` stage: every labelled issue for the website's issue explorer, and a few
release examples per theme.

The explorer page (``issues.html``) filters, sorts and pages all labelled issues of the
dump in the reader's browser. It reads one compact file (:func:`explorer_data`: each text
column as indices into a dictionary of its distinct values, so the release's 38,742 issues
fit in well under a megabyte). Everything the page shows is decided here (how many
annotators agreed, whether a report is contested, which URL may become a link); the page
only decodes, filters and formats.

:func:`release_examples` picks, for each theme, a few reports whose annotators all agreed
and a few they disagreed on, in an order fixed by the reports' URLs (SHA-256): the same on
every run, and spread over projects rather than the first rows of one file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd

from analysis.core.batches import release_rows
from analysis.core.examples import safe_issue_url
from analysis.core.projects import Projects
from analysis.core.schemas import annotator_columns
from analysis.core.taxonomy import Taxonomy, theme_sort_key

FORMAT = 1  # the explorer file's layout version (the page checks it)
UNANIMOUS, CONTESTED = "unanimous", "contested"
EXAMPLES_PER_KIND = 3  # unanimous and contested reports shown per theme
RELEASE_EXAMPLE_COLUMNS = ["theme", "name", "type", "agreement", "rank", "issue_url",
                           "project", "year", "final_label", "agreed", "ratings",
                           "annotator_labels"]


def issue_urls(issues: pd.DataFrame) -> pd.Series:
    """The issues' URLs as text (empty where the table has none)."""
    if "issue_url" not in issues:
        return pd.Series([""] * len(issues), index=issues.index, dtype=object)
    return issues["issue_url"].fillna("").astype(str)


def label_text(issues: pd.DataFrame, cols: list[str]) -> list[str]:
    """Each issue's labels in column order, separated by ``, `` (missing ones left out)."""
    return [", ".join(str(v) for v in row if not pd.isna(v))
            for row in issues[cols].to_numpy(dtype=object)]


def agreement(issues: pd.DataFrame) -> pd.DataFrame:
    """Per issue: ``ratings`` (labels given), ``agreed`` (labels equal to the final label)
    and ``contested`` (some annotator chose another label than the final one: the
    agreement audit's dissent)."""
    cols = annotator_columns(issues)
    labels = issues[cols]
    ratings = labels.notna().sum(axis=1).astype("int64")
    agreed = labels.eq(issues["final_label"], axis=0).sum(axis=1).astype("int64")
    return pd.DataFrame({"ratings": ratings, "agreed": agreed,
                         "contested": agreed < ratings}, index=issues.index)


def label_key(label: str) -> tuple:
    """Theme codes in the taxonomy's order (``C.10`` after ``C.9``), any other label after
    its look-alikes by its text: a total order, so the dictionaries never depend on the
    order of a set."""
    return (*theme_sort_key(label), label)


def _codes(values: pd.Series, order: list) -> list[int]:
    index = {v: i for i, v in enumerate(order)}
    return [index[v] for v in values]


# The largest whole number a browser's JavaScript reads exactly from JSON
# (Number.MAX_SAFE_INTEGER): a larger issue number is kept as text, or the page would
# show (and link) another number.
MAX_SAFE_INTEGER = 2**53 - 1


def split_url(url: object) -> tuple[str | None, str | int]:
    """(prefix, last segment) of a linkable issue URL, the segment as a number when it
    reads back the same, in JSON and in the page's JavaScript (shorter in JSON: at most
    :data:`MAX_SAFE_INTEGER`); (None, the text) of any other URL, which the page shows as
    text, never as a link."""
    safe = safe_issue_url(url)
    if not safe:
        return None, str(url)
    prefix, _, last = safe.rpartition("/")
    number = (last.isascii() and last.isdigit() and str(int(last)) == last
              and int(last) <= MAX_SAFE_INTEGER)
    return prefix, int(last) if number else last


def explorer_data(issues: pd.DataFrame, taxonomy: Taxonomy,
                  project_order: list[str], project_names: dict[str, str]) -> dict:
    """The explorer's file: dictionaries, then one list per column (row i of the issues is
    item i of every list).

    ``issues`` is the processed issues table (``project``, ``year``, ``final_label``,
    ``issue_url`` and the ``annotator_*`` columns); ``project_order`` the folder names in
    Table I's order and ``project_names`` their display names. Rows keep the table's
    order. Labels outside the taxonomy are kept as they were given.
    """
    cols = annotator_columns(issues)
    agree = agreement(issues)
    projects = [p for p in project_order if p in set(issues["project"])]
    projects += sorted(set(issues["project"]) - set(projects))
    years = sorted(int(y) for y in issues["year"].unique())
    codes = list(taxonomy.codes)
    extra = sorted(set(issues["final_label"]) - set(codes), key=label_key)
    themes = codes + extra
    names = taxonomy.theme_names
    types = list(taxonomy.type_names)
    type_of = taxonomy.type_by_code
    label_sets = [tuple(None if pd.isna(v) else str(v) for v in row)
                  for row in issues[cols].to_numpy(dtype=object)]
    labels = sorted({v for s in label_sets for v in s if v is not None}, key=label_key)
    label_index = {v: i for i, v in enumerate(labels)}
    encoded = [tuple(None if v is None else label_index[v] for v in s) for s in label_sets]
    distinct_sets = sorted(set(encoded), key=lambda s: [-1 if v is None else v for v in s])
    parts = [split_url(u) for u in issue_urls(issues)]
    prefixes = sorted({p for p, _ in parts if p is not None})
    prefix_index = {p: i for i, p in enumerate(prefixes)}
    return {
        "format": FORMAT,
        "n": len(issues),
        "projects": projects,
        "project_names": [project_names.get(p, p) for p in projects],
        "years": years,
        "types": types,
        "themes": themes,
        "theme_names": [names.get(c, "") for c in themes],
        "theme_types": [types.index(type_of[c]) if c in type_of else -1 for c in themes],
        "annotators": cols,
        "labels": labels,
        "label_sets": [list(s) for s in distinct_sets],
        "url_prefixes": prefixes,
        "rows": {
            "project": _codes(issues["project"], projects),
            "year": _codes(issues["year"].astype(int), years),
            "theme": _codes(issues["final_label"], themes),
            "labels": _codes(pd.Series(encoded, dtype=object), distinct_sets),
            "agreed": agree["agreed"].tolist(),
            "ratings": agree["ratings"].tolist(),
            "url_prefix": [-1 if p is None else prefix_index[p] for p, _ in parts],
            "url_tail": [t for _, t in parts],
        },
        "summary": summary(issues, agree, projects),
    }


def summary(issues: pd.DataFrame, agree: pd.DataFrame, projects: list[str]) -> dict:
    """Per project (folder name), the issues, the contested and the unanimous ones: what
    the pages that link into the explorer quote beside each link."""
    by = pd.DataFrame({"project": issues["project"], "contested": agree["contested"]})
    grouped = by.groupby("project", sort=False)["contested"]
    total, contested = grouped.size(), grouped.sum()
    return {"issues_by_project": {p: int(total.get(p, 0)) for p in projects},
            "contested_by_project": {p: int(contested.get(p, 0)) for p in projects},
            "unanimous_by_project": {p: int(total.get(p, 0) - contested.get(p, 0))
                                     for p in projects}}


def url_order(url: str) -> str:
    """A fixed pseudo-random order of reports: the SHA-256 of the URL."""
    return hashlib.sha256(str(url).encode("utf-8")).hexdigest()


def release_examples(issues: pd.DataFrame, taxonomy: Taxonomy,
                     per_kind: int = EXAMPLES_PER_KIND) -> pd.DataFrame:
    """Up to ``per_kind`` unanimous and ``per_kind`` contested reports of each theme that
    is some report's final label, linkable ones only, in :func:`url_order` (ties by URL);
    ``rank`` numbers them within theme and agreement."""
    cols = annotator_columns(issues)
    agree = agreement(issues)
    urls = issue_urls(issues)
    frame = issues.assign(
        issue_url=urls, agreed=agree["agreed"], ratings=agree["ratings"],
        agreement=agree["contested"].map({True: CONTESTED, False: UNANIMOUS}),
        _order=urls.map(url_order))
    frame = frame[urls.map(lambda u: bool(safe_issue_url(u)))
                  & frame["final_label"].isin(taxonomy.codes)]
    frame = frame.sort_values(["_order", "issue_url"], kind="mergesort")
    picked = frame.groupby(["final_label", "agreement"], sort=False).head(per_kind)
    picked = picked.assign(rank=picked.groupby(["final_label", "agreement"]).cumcount() + 1)
    labels = label_text(picked, cols)
    out = pd.DataFrame({
        "theme": picked["final_label"].astype(str),
        "name": picked["final_label"].map(taxonomy.theme_names).astype(str),
        "type": picked["final_label"].map(taxonomy.type_by_code).astype(str),
        "agreement": picked["agreement"].astype(str),
        "rank": picked["rank"].astype("int64"),
        "issue_url": picked["issue_url"].astype(str),
        "project": picked["project"].astype(str),
        "year": picked["year"].astype("int64"),
        "final_label": picked["final_label"].astype(str),
        "agreed": picked["agreed"].astype("int64"),
        "ratings": picked["ratings"].astype("int64"),
        "annotator_labels": pd.Series(labels, index=picked.index, dtype=object),
    }, columns=RELEASE_EXAMPLE_COLUMNS)
    key = out["theme"].map(label_key)
    order = sorted(range(len(out)), key=lambda i: (key.iloc[i], out["agreement"].iloc[i]
                                                    != UNANIMOUS, out["rank"].iloc[i]))
    return out.iloc[order].reset_index(drop=True)


@dataclass(frozen=True)
class ExplorerResult:
    """What the stage computes: the explorer's file and the release examples."""

    explorer: dict  # explorer_data
    release_examples: pd.DataFrame  # release_examples


def compute(issues: pd.DataFrame, taxonomy: Taxonomy, projects: Projects) -> ExplorerResult:
    """The explorer stage's tables from the processed issues, the taxonomy and the
    projects' descriptions; returns one :class:`ExplorerResult`: the explorer's file (every
    labelled issue of a study, projects in Table I's order under their display names) and
    the release examples (a few unanimous and contested reports per theme), which come from
    the release's rows only (:func:`~analysis.core.batches.release_rows`), so a batch never
    appears among them or displaces one."""
    order = projects.order(issues["project"].unique())
    return ExplorerResult(explorer=explorer_data(issues, taxonomy, order, projects.names(order)),
                          release_examples=release_examples(release_rows(issues), taxonomy))
