"""The interview stage's tables, each from the cleaned files.

From the cleaned files (:mod:`~analysis.interviews.clean`): the published participant
table (no genders), participants per role category (Section IV.A), the node x participant
matrix, how many users and developers link each theme, the quotes under every theme they
are linked to, and the guideline's questions. The stage's notebook
(``notebooks/05_interviews.py``) cleans the files, builds each table in turn and puts them
into one :class:`Interviews`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.core.taxonomy import Taxonomy
from analysis.interviews.clean import InterviewData
from analysis.interviews.codebook import node_order, participant_sort_key
from analysis.interviews.normalise import neutral_pronouns


@dataclass(frozen=True)
class Interviews:
    """What the stage computes: the cleaned files and the views of them."""

    data: InterviewData  # background, codebook, nodes, rejected, quality, guideline Markdown
    taxonomy: Taxonomy
    participants: pd.DataFrame  # participants_table
    groups: pd.DataFrame  # group_summary
    matrix: pd.DataFrame  # node_matrix
    theme_counts: pd.DataFrame  # theme_counts
    quotes: pd.DataFrame  # quotes_by_theme
    questions: pd.DataFrame  # guideline_questions
    roles: pd.DataFrame  # each role and its category (roles.role_table)
    role_mappings: pd.DataFrame  # the counts of every reading of the roles
    session: tuple[int, int, int] | None  # the guideline's session length, its line
    role_claims: pd.DataFrame  # per role claim, the readings that give the paper's count


def participants_table(background: pd.DataFrame) -> pd.DataFrame:
    """The published participant table: no gender, gender-neutral responsibilities.

    Why: the paper publishes roles and experience (Section IV.A) but no genders; the
    responsibilities text uses "He"/"She", which would reveal them.
    """
    t = background.copy()
    idx = sorted(range(len(t)), key=lambda i: (
        participant_sort_key("", t.at[i, "type"])[0], t.at[i, "sheet_row"]))
    t = t.iloc[idx].reset_index(drop=True)
    t["responsibilities"] = t["responsibilities"].map(
        lambda s: neutral_pronouns(s) if isinstance(s, str) else s)
    t["experience_years"] = t["experience_years"].round(2)
    return t[["sheet_row", "type", "role_title", "role_category_label", "experience",
              "experience_years", "responsibilities"]].rename(columns={
                  "role_title": "role", "role_category_label": "role_category"})


def group_summary(background: pd.DataFrame) -> pd.DataFrame:
    """Participants and years of experience per type and role category."""
    rows = []
    for (ptype, key), g in background.groupby(["type", "role_category"], sort=False):
        years = g["experience_years"].dropna()
        rows.append({
            "type": ptype, "role_category": key,
            "label": g["role_category_label"].iloc[0], "participants": len(g),
            "years_min": round(float(years.min()), 4) if len(years) else None,
            "years_mean": round(float(years.mean()), 4) if len(years) else None,
            "years_max": round(float(years.max()), 4) if len(years) else None,
            "roles": "; ".join(sorted(set(g["role_title"]))),
        })
    frame = pd.DataFrame(rows, columns=["type", "role_category", "label", "participants",
                                        "years_min", "years_mean", "years_max", "roles"])
    # types in the usual order; categories in the order the sheet first lists them
    idx = sorted(range(len(frame)), key=lambda i: (
        participant_sort_key("", frame.at[i, "type"])[0], i))
    return frame.iloc[idx].reset_index(drop=True)


def node_labels(codes: list[str], taxonomy: Taxonomy) -> dict[str, str]:
    """``"C.3 Distributed and Parallel Execution"``; ``"C.11 (not in taxonomy)"``."""
    names = dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True))
    return {c: f"{c} {names[c]}" if c in names else f"{c} (not in taxonomy)" for c in codes}


def node_matrix(codebook: pd.DataFrame, nodes: pd.DataFrame, taxonomy: Taxonomy
                ) -> pd.DataFrame:
    """Node x participant 0/1 matrix: every taxonomy theme (rows) and every participant.

    Rows follow the taxonomy (unknown nodes last); columns are users then developers.
    """
    participants = list(dict.fromkeys(codebook["participant"]))
    rows = node_order(list(nodes["node"]), taxonomy)
    matrix = (pd.crosstab(nodes["node"], nodes["participant"])
              .reindex(index=rows, columns=participants, fill_value=0).clip(upper=1)
              .astype("int64"))
    matrix.index.name = "node"
    matrix.columns.name = None
    return matrix


def theme_counts(codebook: pd.DataFrame, nodes: pd.DataFrame, taxonomy: Taxonomy
                 ) -> pd.DataFrame:
    """How many users and developers link each node, and as a share of their group."""
    codes = node_order(list(nodes["node"]), taxonomy)
    names = dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True))
    sizes = codebook.drop_duplicates("participant")["type"].value_counts()
    per = (nodes.drop_duplicates(["participant", "node"]).groupby(["node", "type"]).size()
           .unstack(fill_value=0))
    out = pd.DataFrame({"node": codes})
    out["theme"] = [names.get(c, "") for c in codes]
    out["issue_type"] = [taxonomy.types.get(c[:1], "") for c in codes]
    out["in_taxonomy"] = [c in names for c in codes]
    for ptype, col in (("User", "users"), ("Developer", "developers")):
        n = per[ptype].reindex(codes, fill_value=0) if ptype in per else pd.Series(0, codes)
        out[col] = n.to_numpy().astype("int64")
        size = int(sizes.get(ptype, 0))
        out[f"{col}_percent"] = (100.0 * out[col] / size).round(2) if size else np.nan
    out["total"] = out["users"] + out["developers"]
    return out


def quotes_by_theme(codebook: pd.DataFrame, nodes: pd.DataFrame, taxonomy: Taxonomy
                    ) -> pd.DataFrame:
    """Every quote under every node it is linked to (a quote with three nodes shows three
    times), in taxonomy order, for the website. Text is raw: escape it where it meets HTML.
    """
    labels = node_labels(node_order(list(nodes["node"]), taxonomy), taxonomy)
    info = codebook.drop_duplicates("participant").set_index("participant")
    rows = []
    for rec in nodes.itertuples(index=False):
        p = info.loc[rec.participant]
        rows.append({"node": rec.node, "node_label": labels[rec.node],
                     "in_taxonomy": rec.in_taxonomy, "participant": rec.participant,
                     "type": rec.type, "experience_level": p["experience_level"],
                     "framework_context": p["framework_context"],
                     "prompt_category": p["prompt_category"], "quote": p["quote"],
                     "insight": p["insight"]})
    return pd.DataFrame(rows, columns=["node", "node_label", "in_taxonomy", "participant",
                                       "type", "experience_level", "framework_context",
                                       "prompt_category", "quote", "insight"])


def codebook_table(codebook: pd.DataFrame) -> pd.DataFrame:
    """The codebook as the website shows it (one row per participant, nodes normalised)."""
    return codebook[["participant", "type", "experience_level", "framework_context",
                     "prompt_category", "nodes", "quote", "insight"]].copy()


def guideline_questions(text: str) -> pd.DataFrame:
    """The guideline's questions: part, part title, audience, number and text.

    Parts are ``## Part I. Title`` headings; ``### For LLM Users:`` sets the audience
    (``All`` before any); numbered or bulleted lines are questions, and an indented line
    under one (an example list) is appended to it.
    """
    rows: list[dict] = []
    part = title = None
    audience = "All"
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        m = re.match(r"^#{1,3}\s*Part\s+([IVXLC\d]+)\.?\s*(.*)$", line)
        if m:
            part, title, audience = m.group(1), m.group(2).strip(), "All"
            continue
        m = re.match(r"^#{2,4}\s*For\s+(.+?):?\s*$", line)
        if m and part:
            audience = m.group(1).strip()
            continue
        if part is None or not line:
            continue
        m = re.match(r"^(?:\d+\.|[-*])\s+(.*)$", line)
        if m and raw[:1] not in (" ", "\t"):
            rows.append({"part": part, "part_title": title, "audience": audience,
                         "question": m.group(1).strip()})
        elif raw[:1] in (" ", "\t") and rows and rows[-1]["part"] == part:
            rows[-1]["question"] += " " + line
    frame = pd.DataFrame(rows, columns=["part", "part_title", "audience", "question"])
    frame.insert(3, "number", frame.groupby(["part", "audience"], sort=False).cumcount() + 1)
    return frame

