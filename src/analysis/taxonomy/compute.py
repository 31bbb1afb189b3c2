"""The taxonomy as the released detail files fill it: Fig. 2's three levels, counted.

The stage's computation. From the parsed detail files (:mod:`analysis.taxonomy.details`),
the curated taxonomy and the processed issues it builds one table per level of the tree
(issue type, theme, sub-theme), the browsable table of every detail, the spellings the
files use for each theme and sub-theme, and the type and theme mix by project and year with
its tests (:mod:`analysis.taxonomy.distribution`). Rows follow the paper's order: types as
in the taxonomy, themes and sub-themes by code; what the taxonomy does not know (an
unmapped theme or sub-theme) is kept, after the known rows of its type, never dropped.

The stage's notebook (``notebooks/03_taxonomy.py``) runs the steps in order on the
release's rows (:func:`analysis.core.batches.release_rows`; a batch of new labels never
moves a taxonomy check): :func:`subtheme_table`, then :func:`theme_table` (which counts a
theme's sub-themes and issues), then :func:`type_table` (whose Total row holds the
taxonomy's counts: :func:`subtheme_count`), the detail and spelling tables, the mix tests
and the paper's cited examples; the result is one :class:`TaxonomyResult`.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import pandas as pd

from analysis.core.taxonomy import Taxonomy, subtheme_sort_key, theme_sort_key
from analysis.taxonomy.details import DetailsResult
from analysis.taxonomy.distribution import MixTests

SUBTHEME_TABLE_COLUMNS = ["type", "theme_code", "theme", "code", "name", "in_paper", "paper",
                          "basis", "note", "spelling", "file", "line", "rows_in_file",
                          "details", "details_parentheses"]


def _type_rank(taxonomy: Taxonomy) -> dict[str, int]:
    return {name: i for i, name in enumerate(taxonomy.type_names)}


def _theme_key(code: str) -> tuple[str, int]:
    """Theme order; an unmapped theme (empty code) after the type's known themes."""
    return theme_sort_key(code) if code else ("~", 0)


def _sorted(frame: pd.DataFrame, key) -> pd.DataFrame:
    """Rows of ``frame`` in the order of ``key(row)`` (stable; empty frames pass through).

    ``key`` reads a row as a mapping of column to value: the rows are read once as
    records, not one Series per row (the detail table has thousands)."""
    rows = frame.to_dict("records")
    order = sorted(range(len(rows)), key=lambda i: key(rows[i]))
    return frame.iloc[order].reset_index(drop=True)


def subtheme_table(taxonomy: Taxonomy, rows: pd.DataFrame) -> pd.DataFrame:
    """One row per sub-theme: the taxonomy's (with or without a detail-file row) and every
    detail-file row that maps to none (``code`` empty), with its detail counts.

    ``rows`` are the parsed detail-file rows (:data:`analysis.taxonomy.details.ROW_COLUMNS`).
    """
    subs = taxonomy.subthemes
    names = taxonomy.theme_names
    agg = (rows[rows["subtheme_code"] != ""].groupby("subtheme_code")
           .agg(rows_in_file=("line", "size"), details=("items_comma", "sum"),
                details_parentheses=("items_parentheses", "sum"),
                file=("file", "first"), line=("line", "first"),
                spelling=("subtheme_raw", "first")))
    out = []
    for sub in subs.itertuples(index=False):
        got = agg.loc[sub.code] if sub.code in agg.index else None
        out.append({
            "type": sub.type, "theme_code": sub.theme_code, "theme": names[sub.theme_code],
            "code": sub.code, "name": sub.name, "in_paper": bool(sub.in_paper),
            "paper": sub.paper, "basis": sub.basis, "note": sub.note,
            "spelling": "" if got is None else got["spelling"],
            "file": "" if got is None else got["file"],
            "line": 0 if got is None else int(got["line"]),
            "rows_in_file": 0 if got is None else int(got["rows_in_file"]),
            "details": 0 if got is None else int(got["details"]),
            "details_parentheses": 0 if got is None else int(got["details_parentheses"]),
        })
    for row in rows[rows["subtheme_code"] == ""].itertuples(index=False):
        out.append({
            "type": taxonomy.type_of(row.theme_code) or row.type,
            "theme_code": row.theme_code, "theme": names.get(row.theme_code, row.theme_raw),
            "code": "", "name": row.subtheme_raw, "in_paper": False, "paper": "",
            "basis": "", "note": "unmapped: the name matches no sub-theme of this theme",
            "spelling": row.subtheme_raw, "file": row.file, "line": int(row.line),
            "rows_in_file": 1, "details": int(row.items_comma),
            "details_parentheses": int(row.items_parentheses),
        })
    rank = _type_rank(taxonomy)
    return _sorted(pd.DataFrame(out, columns=SUBTHEME_TABLE_COLUMNS), lambda r: (
        rank.get(r["type"], 99), _theme_key(r["theme_code"]), r["code"] == "",
        subtheme_sort_key(r["code"]) if r["code"] else (), r["name"]))


def theme_table(taxonomy: Taxonomy, rows: pd.DataFrame, subthemes: pd.DataFrame,
                issues: pd.DataFrame) -> pd.DataFrame:
    """One row per theme: sub-themes (paper / released), details, issues and shares.

    Issues per theme come from the final labels (``issues.final_label``); shares are
    percentages of the type's issues and of all issues. Themes of the detail files that
    match no taxonomy theme are appended with an empty ``code``.
    """
    counts = issues["final_label"].value_counts()
    type_totals = issues["type"].value_counts()
    spell = rows[rows["theme_code"] != ""].groupby("theme_code")["theme_raw"].first()
    out = []
    for theme in taxonomy.themes.itertuples(index=False):
        subs = subthemes[subthemes["theme_code"] == theme.code]
        released = subs[subs["rows_in_file"] > 0]
        n = int(counts.get(theme.code, 0))
        out.append({
            "type": theme.type, "code": theme.code, "name": theme.name,
            "spelling": spell.get(theme.code, ""),
            "subthemes_paper": int(subs["in_paper"].sum()),
            "subthemes_released": int(len(released)),
            "subthemes_not_in_paper": "; ".join(f"{r.code} {r.name}" for r in
                                                released.itertuples() if not r.in_paper),
            "details": int(released["details"].sum()),
            "details_parentheses": int(released["details_parentheses"].sum()),
            "issues": n,
            "issue_share_of_type": _pct(n, int(type_totals.get(theme.type, 0))),
            "issue_share_of_all": _pct(n, len(issues)),
        })
    for name, grp in rows[rows["theme_code"] == ""].groupby("theme_raw", sort=True):
        out.append({
            "type": grp["type"].iloc[0], "code": "", "name": name, "spelling": name,
            "subthemes_paper": 0, "subthemes_released": int(len(grp)),
            "subthemes_not_in_paper": "", "details": int(grp["items_comma"].sum()),
            "details_parentheses": int(grp["items_parentheses"].sum()), "issues": 0,
            "issue_share_of_type": 0.0, "issue_share_of_all": 0.0,
        })
    return pd.DataFrame(out)


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


TOTAL_ROW = "Total"


def type_table(taxonomy: Taxonomy, themes: pd.DataFrame) -> pd.DataFrame:
    """One row per issue type (and a Total row): themes, sub-themes, details, issues."""
    out = []
    for name in taxonomy.type_names:
        t = themes[themes["type"] == name]
        known = t[t["code"] != ""]
        out.append({
            "type": name,
            "themes": int(len(known)),
            "themes_released": int(((t["subthemes_released"] > 0)).sum()),
            "themes_with_issues": int((known["issues"] > 0).sum()),
            "subthemes_paper": int(t["subthemes_paper"].sum()),
            "subthemes_released": int(t["subthemes_released"].sum()),
            "details": int(t["details"].sum()),
            "details_parentheses": int(t["details_parentheses"].sum()),
            "issues": int(t["issues"].sum()),
        })
    frame = pd.DataFrame(out)
    total = frame.drop(columns="type").sum().astype("int64")
    frame.loc[len(frame)] = {"type": TOTAL_ROW, **total.to_dict()}
    return frame


def subtheme_count(types: pd.DataFrame) -> int:
    """The taxonomy's sub-themes as the released detail files fill it: the Total row of
    :func:`type_table`'s ``subthemes_released`` (the number the paper's "69 sub-themes"
    is judged against)."""
    return int(types.loc[types["type"] == TOTAL_ROW, "subthemes_released"].iloc[0])



def detail_table(taxonomy: Taxonomy, items: pd.DataFrame, subthemes: pd.DataFrame,
                 ) -> pd.DataFrame:
    """The browsable table: every detail with its type, theme and sub-theme (sorted).

    One row per parenthesis-aware item; ``pieces`` is how many comma-separated pieces it
    counts as in the paper's count.
    """
    names = taxonomy.theme_names
    sub_names = dict(zip(subthemes["code"], subthemes["name"], strict=True))
    in_paper = dict(zip(subthemes["code"], subthemes["in_paper"], strict=True))
    frame = pd.DataFrame({
        "type": items["type"],
        "theme_code": items["theme_code"],
        "theme": [names.get(c, "") for c in items["theme_code"]],
        "subtheme_code": items["subtheme_code"],
        "subtheme": [sub_names.get(c, raw) if c else raw
                     for c, raw in zip(items["subtheme_code"], items["subtheme_raw"],
                                       strict=True)],
        "in_paper": [bool(in_paper.get(c, False)) for c in items["subtheme_code"]],
        "item_no": items["item_no"].astype("int64"),
        "detail": items["detail"],
        "pieces": items["pieces"].astype("int64"),
        "source": [f"{f}:{ln}" for f, ln in zip(items["file"], items["line"], strict=True)],
    })
    rank = _type_rank(taxonomy)
    return _sorted(frame, lambda r: (
        rank.get(r["type"], 99), _theme_key(r["theme_code"]), r["subtheme_code"] == "",
        subtheme_sort_key(r["subtheme_code"]) if r["subtheme_code"] else (), r["source"],
        r["item_no"]))


def spelling_table(taxonomy: Taxonomy, rows: pd.DataFrame) -> pd.DataFrame:
    """Every theme and sub-theme spelling of the detail files, and what it maps to."""
    names = taxonomy.theme_names
    subs = taxonomy.subthemes.set_index("code")
    out = []
    for r in rows.itertuples(index=False):
        out.append({"level": "theme", "file": r.file, "line": int(r.line),
                    "spelling": r.theme_raw, "code": r.theme_code,
                    "canonical": names.get(r.theme_code, ""),
                    "match": _match(r.theme_raw, names.get(r.theme_code))})
        sub_name = subs.loc[r.subtheme_code, "name"] if r.subtheme_code else None
        match = _match(r.subtheme_raw, sub_name)
        if r.subtheme_code and not bool(subs.loc[r.subtheme_code, "in_paper"]):
            match = "not in paper"
        out.append({"level": "subtheme", "file": r.file, "line": int(r.line),
                    "spelling": r.subtheme_raw, "code": r.subtheme_code,
                    "canonical": sub_name or "", "match": match})
    frame = pd.DataFrame(out, columns=["level", "file", "line", "spelling", "code",
                                       "canonical", "match"])
    return (frame.drop_duplicates(["level", "spelling", "code"])
            .sort_values(["level", "file", "line"], kind="mergesort").reset_index(drop=True))


def _match(spelling: str, canonical: str | None) -> str:
    if canonical is None:
        return "unknown"
    return "canonical" if spelling == canonical else "alias"


def details_html(details: pd.DataFrame, themes: pd.DataFrame) -> str:
    """The detail table as HTML: one collapsed ``<details>`` per theme, sub-themes inside,
    every detail a list item. All text from the release is escaped."""
    parts = ['<div class="taxonomy-details">']
    order = themes["code"].tolist()
    groups = dict(tuple(details.groupby("theme_code", sort=False)))
    for code in [*order, *sorted(set(groups) - set(order))]:
        if code not in groups:
            continue
        grp = groups[code]
        theme = grp["theme"].iloc[0] or "(unmapped theme)"
        n_sub = grp["subtheme"].nunique()
        parts.append(f'<details class="theme" id="theme-{escape(code or "unmapped")}">'
                     f"<summary><strong>{escape(code)}</strong> {escape(theme)} "
                     f"<small>({escape(grp['type'].iloc[0])}; {n_sub} sub-themes, "
                     f"{int(grp['pieces'].sum()):,} details)</small></summary>")
        for (sub_code, sub_name), sgrp in grp.groupby(["subtheme_code", "subtheme"],
                                                      sort=False):
            mark = "" if bool(sgrp["in_paper"].iloc[0]) else (
                ' <em class="not-in-paper">(not in the paper\'s numbering)</em>')
            parts.append(f"<h4>{escape(sub_code or 'unmapped')} {escape(sub_name)}{mark} "
                         f"<small>({int(sgrp['pieces'].sum())} details)</small></h4><ul>")
            parts += [f"<li>{escape(text)}</li>" for text in sgrp["detail"]]
            parts.append("</ul>")
        parts.append("</details>")
    parts.append("</div>")
    return "\n".join(parts) + "\n"


@dataclass(frozen=True)
class TaxonomyResult:
    """What the stage computes: the parsed detail files, the tables of the tree, the type
    and theme mix tests, and what the outputs need to name things."""

    taxonomy: Taxonomy
    parsed: DetailsResult  # rows, items and quality report of the detail files
    subthemes: pd.DataFrame  # subtheme_table
    themes: pd.DataFrame  # theme_table
    types: pd.DataFrame  # type_table (with its Total row)
    details: pd.DataFrame  # detail_table
    spellings: pd.DataFrame  # spelling_table
    mix: MixTests  # type and theme by project and year, with chi-square tests
    project_names: dict[str, str]  # folder name -> display name, in Table I's order
    item_split: str  # params.yaml taxonomy.item_split: comma or parentheses
    examples: pd.DataFrame  # the paper's cited examples against the release
    empty_themes: pd.DataFrame  # themes that are no report's final label
    years: tuple[int, ...]  # the years of the labelled reports, ascending
