"""The paper's cited examples against the release, and the themes no report carries.

Section III.D illustrates its sub-themes with issue reports it cites. :func:`match_examples`
looks each up among the labelled reports by host, repository and number: a repository
renamed since (``former_names`` in ``data/projects.yaml``) and a ``pull/`` or
``discussions/`` link to what the release lists as ``issues/`` still match (GitHub numbers
issues, pull requests and discussions in one sequence per repository), and the row says so.
It reports the release's final label and the annotators' labels, and whether the final
label's theme is the one the paper cites the report for: a direct check of the taxonomy
against its own labels.

:func:`empty_themes` lists the themes that are no report's final label, how often the
annotators chose them in their own columns, and which of the paper's findings, cited
examples and interview rankings rest on them.
"""

from __future__ import annotations

import pandas as pd

from analysis.core.examples import parse_issue_url
from analysis.core.projects import Projects
from analysis.core.schemas import annotator_columns

IN_RELEASE = "in_release"
NO_REPOSITORY = "repository_not_in_release"
NO_ISSUE = "issue_not_in_release"
EXAMPLE_COLUMNS = ["ref", "url", "subthemes", "theme", "source", "repository", "kind",
                   "number", "status", "release_url", "match_note", "matched_as_printed",
                   "project", "year",
                   "final_label", "theme_matches", "annotator_labels",
                   "annotators_citing_theme", "annotators"]
EMPTY_COLUMNS = ["code", "name", "type", "label_choices", "issues_chosen", "most_on_one_issue",
                 "final_labels_when_chosen", "findings", "examples", "rankings"]
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def release_index(issues: pd.DataFrame) -> pd.DataFrame:
    """Every labelled report with its URL's parts (``host``, ``repo_key`` = repository in
    lower case, ``number``, ``kind``, ``repository``); reports whose URL is not a GitHub or
    Gitee issue address are left out (the clean stage flags them)."""
    urls = issues["issue_url"] if "issue_url" in issues else pd.Series("", index=issues.index)
    refs = [parse_issue_url(u) for u in urls]
    keep = [r is not None for r in refs]
    out = issues.loc[keep].copy()
    kept = [r for r in refs if r is not None]
    out["host"] = [r.host for r in kept]
    out["repository"] = [r.repository for r in kept]
    out["repo_key"] = [r.repository.lower() for r in kept]
    out["kind"] = [r.kind for r in kept]
    out["number"] = [r.number for r in kept]
    return out


def match_examples(examples: pd.DataFrame, issues: pd.DataFrame,
                   projects: Projects) -> pd.DataFrame:
    """One row per cited example (:data:`EXAMPLE_COLUMNS`): whether the release holds it
    (``status``: :data:`IN_RELEASE`, :data:`NO_REPOSITORY`, :data:`NO_ISSUE`), how it
    matched (``match_note``: a rename or another kind of link), the release's final label,
    whether its theme is the cited one, and the annotators' labels."""
    index = release_index(issues)
    annotators = annotator_columns(issues)
    renames = projects.renames()
    # row positions of only the reports whose number an example cites: the examples are a
    # few dozen, the release's reports tens of thousands (a rename changes the repository,
    # never the number)
    cited = index[index["number"].isin(examples["number"])]
    rows_of = cited.groupby(["host", "repo_key", "number"], sort=False).indices
    repos = index.groupby(["host", "repo_key"], sort=False)["number"]
    rows = []
    for ex in examples.itertuples(index=False):
        repo_key = ex.repository.lower()
        notes = []
        if repo_key in renames and (ex.host, repo_key) not in repos.groups:
            notes.append(f"cited under the former name {ex.repository}, now "
                         f"{renames[repo_key]} (data/projects.yaml)")
            repo_key = renames[repo_key].lower()
        row = {c: "" for c in EXAMPLE_COLUMNS}
        row.update(ref=int(ex.ref), url=ex.url, subthemes=ex.subthemes, theme=ex.theme,
                   source=ex.source, repository=ex.repository, kind=ex.kind,
                   number=ex.number, annotators=len(annotators))
        found = rows_of.get((ex.host, repo_key, ex.number))
        if found is None:
            if (ex.host, repo_key) in repos.groups:
                row["status"] = NO_ISSUE
                numbers = pd.to_numeric(repos.get_group((ex.host, repo_key)), errors="coerce")
                if numbers.notna().any():
                    notes.append(f"the release's reports of this repository are numbered "
                                 f"{int(numbers.min()):,} to {int(numbers.max()):,}")
            else:
                row["status"] = NO_REPOSITORY
                notes.append(f"{ex.host}/{ex.repository} is not a repository of the release")
            row["match_note"] = "; ".join(notes)
            rows.append(row)
            continue
        hit = cited.iloc[found]
        first = hit.iloc[0]
        row["matched_as_printed"] = not notes and first["kind"] == ex.kind
        if first["kind"] != ex.kind:
            notes.append(f"cited as {ex.kind}/{ex.number}, listed in the release as "
                         f"{first['kind']}/{first['number']}")
        if len(hit) > 1:
            notes.append(f"{len(hit)} rows in the release; the first is shown")
        labels = [str(first[c]) if pd.notna(first[c]) else "" for c in annotators]
        final = str(first["final_label"])
        row.update(status=IN_RELEASE, release_url=str(first["issue_url"]),
                   match_note="; ".join(notes), project=str(first["project"]),
                   year=int(first["year"]), final_label=final,
                   theme_matches=final == ex.theme,
                   annotator_labels=", ".join(x or "–" for x in labels),
                   annotators_citing_theme=sum(x == ex.theme for x in labels))
        rows.append(row)
    return pd.DataFrame(rows, columns=EXAMPLE_COLUMNS)


def example_summary(matched: pd.DataFrame) -> dict[str, int]:
    """Counts of the examples: cited, in the release (and how many only through a rename or
    another kind of link), with the cited theme as final label, with another, and not in
    the release (repository not studied; repository studied but the report absent)."""
    inside = matched[matched["status"] == IN_RELEASE]
    same = inside["theme_matches"].astype(bool)
    return {
        "cited": len(matched), "in_release": len(inside),
        "matched_with_note": int((~inside["matched_as_printed"].astype(bool)).sum()),
        "theme_matches": int(same.sum()), "theme_differs": int((~same).sum()),
        "repository_not_in_release": int((matched["status"] == NO_REPOSITORY).sum()),
        "issue_not_in_release": int((matched["status"] == NO_ISSUE).sum()),
    }


def _ordinal(n: int) -> str:
    return ORDINALS.get(n, f"{n}th")


def _counts_text(values: pd.Series, top: int = 5) -> str:
    counts = values.value_counts()
    counts = counts.iloc[sorted(range(len(counts)), key=lambda i: (-counts.iloc[i],
                                                                  str(counts.index[i])))]
    return ", ".join(f"{k} ({int(v):,})" for k, v in counts.head(top).items())


def empty_themes(themes: pd.DataFrame, issues: pd.DataFrame, examples: pd.DataFrame,
                 findings: pd.DataFrame, rankings: pd.DataFrame) -> pd.DataFrame:
    """One row per theme that is no report's final label (:data:`EMPTY_COLUMNS`): how often
    annotators chose it in their own columns (label cells, reports, the most annotators on
    one report), the final labels of the reports where they chose it, and what of the
    paper rests on it: findings' points, cited examples ([ref] numbers), interview
    rankings ("developers: 2nd of 4")."""
    known = themes[themes["code"].astype(str) != ""]
    empty = known[known["issues"] == 0]
    cols = annotator_columns(issues)
    labels = issues[cols].astype("string") if cols else pd.DataFrame(index=issues.index)
    rows = []
    for t in empty.itertuples(index=False):
        chosen = (labels == t.code).sum(axis=1) if cols else pd.Series(0, index=issues.index)
        on = chosen > 0
        finds = [f"Finding {f.finding} ({f.id})" for f in findings.itertuples(index=False)
                 if t.code in [x.strip() for x in f.themes.split(",")]]
        refs = [f"[{e.ref}]" for e in examples.itertuples(index=False) if e.theme == t.code]
        ranks = [f"{r.who}: {_ordinal(int(r.rank))} of {int(r.of)} ({r.source})"
                 for r in rankings.itertuples(index=False) if r.theme == t.code]
        rows.append({
            "code": t.code, "name": t.name, "type": t.type,
            "label_choices": int(chosen.sum()), "issues_chosen": int(on.sum()),
            "most_on_one_issue": int(chosen.max()) if len(chosen) else 0,
            "final_labels_when_chosen": _counts_text(issues.loc[on, "final_label"]),
            "findings": "; ".join(finds), "examples": " ".join(refs),
            "rankings": "; ".join(ranks)})
    return pd.DataFrame(rows, columns=EMPTY_COLUMNS)
