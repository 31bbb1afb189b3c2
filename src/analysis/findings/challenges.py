"""How many reports each challenge of Section V.A rests on, and whether one theme carries it.

The paper names findings, not themes, for its five challenges; ``data/challenges.yaml``
gives each challenge the taxonomy themes it speaks of (our reading). From the taxonomy
stage's counts (``themes.csv``: issues per theme; ``shares.csv``: issues per theme and
project) :func:`challenge_coverage` counts the reports whose final label is one of a
challenge's themes, their share of all reports, and the projects where that share is
highest and lowest; :func:`dominant_themes` finds the challenges whose count rests mostly
on one theme (more than ``findings.dominant_share`` percent of its reports, params.yaml),
with what the challenge keeps without it. A theme may serve several challenges, so the
counts overlap.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.taxonomy import THEME_CODE_RE

CHALLENGE_COLUMNS = ["challenge", "title", "themes", "issues", "share_percent",
                     "highest_project", "highest_share_percent", "lowest_project",
                     "lowest_share_percent"]
DOMINANT_COLUMNS = ["challenge", "title", "theme", "theme_issues", "total", "share_percent",
                    "without"]


def load_challenges(path: Path) -> list[dict]:
    """The challenges of ``data/challenges.yaml``: ``number``, ``title`` and ``themes`` (theme
    codes) of each; a missing file has none. A malformed entry is an InputError naming it."""
    data = (load_yaml(path) or {}) if path.is_file() else {}
    entries = data.get("challenges") if isinstance(data, dict) else None
    if data and not isinstance(entries, list):
        raise InputError("challenges must be a list", file=str(path),
                         fix="write challenges: as a list of {number, title, themes}")
    out = []
    for i, entry in enumerate(entries or [], 1):
        themes = entry.get("themes") if isinstance(entry, dict) else None
        codes = [str(t) for t in themes] if isinstance(themes, list) else []
        if not isinstance(entry, dict) or "number" not in entry or not codes or not all(
                THEME_CODE_RE.fullmatch(c) for c in codes):
            raise InputError(f"challenge #{i} needs a number, a title and a list of theme "
                             "codes", file=str(path), row=i,
                             fix="write {number: 1, title: ..., themes: [A.1, C.3]}")
        out.append({"number": entry["number"], "title": str(entry.get("title", "")),
                    "themes": codes})
    return out


def challenge_coverage(themes: pd.DataFrame, shares: pd.DataFrame, challenges: list[dict],
                       names: dict[str, str]) -> pd.DataFrame:
    """Per challenge (:data:`CHALLENGE_COLUMNS`): its themes, the issues whose final label is
    one of them, their share of all issues (percent), and the projects (display names from
    ``names``) where the share of their issues is highest and lowest (first in the
    projects' order on a tie)."""
    total = int(themes["issues"].sum())
    tp = shares[shares["table"] == "theme_by_project"]
    per_project = tp.groupby("column")["issues"].sum()
    rows = []
    for ch in challenges:
        codes = [str(c) for c in ch["themes"]]
        n = int(themes.loc[themes["code"].isin(codes), "issues"].sum())
        by_p = (tp[tp["row"].isin(codes)].groupby("column")["issues"].sum()
                .reindex(per_project.index, fill_value=0))
        share_p = (100 * by_p / per_project.where(per_project > 0)).dropna()
        hi = share_p.sort_values(ascending=False, kind="mergesort")
        rows.append({
            "challenge": ch["number"], "title": ch["title"], "themes": ", ".join(codes),
            "issues": n, "share_percent": 100 * n / total if total else float("nan"),
            "highest_project": names.get(hi.index[0], hi.index[0]) if len(hi) else None,
            "highest_share_percent": float(hi.iloc[0]) if len(hi) else float("nan"),
            "lowest_project": names.get(hi.index[-1], hi.index[-1]) if len(hi) else None,
            "lowest_share_percent": float(hi.iloc[-1]) if len(hi) else float("nan")})
    return pd.DataFrame(rows, columns=CHALLENGE_COLUMNS)


def dominant_themes(themes: pd.DataFrame, challenges: list[dict],
                    threshold: float) -> pd.DataFrame:
    """Per challenge, the theme that holds more than ``threshold`` percent of the challenge's
    reports (at most one can when the threshold is 50 or more), with the challenge's total
    without it (:data:`DOMINANT_COLUMNS`): how much the challenge's count rests on one
    theme."""
    issues = themes.set_index("code")["issues"]
    rows = []
    for ch in challenges:
        codes = [str(c) for c in ch["themes"]]
        counts = issues.reindex(codes).fillna(0).astype(int)
        total = int(counts.sum())
        if not total:
            continue
        top = counts.sort_values(ascending=False, kind="mergesort")
        share = 100 * top.iloc[0] / total
        if share > threshold:
            rows.append({"challenge": ch["number"], "title": ch["title"],
                         "theme": top.index[0], "theme_issues": int(top.iloc[0]),
                         "total": total, "share_percent": float(share),
                         "without": total - int(top.iloc[0])})
    return pd.DataFrame(rows, columns=DOMINANT_COLUMNS)
