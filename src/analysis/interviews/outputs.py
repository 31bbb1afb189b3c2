"""What the interviews stage writes (the stage contract of :mod:`analysis.core.stage`): the
cleaned files and their quality report, the tables and figures of the report, the website's
numbers and texts, the values of the Section IV claims, and the metrics.
"""

from __future__ import annotations

import pandas as pd

from analysis.core.formatting import short
from analysis.core.stage import StageOutputs
from analysis.core.table_schemas import stage_schemas
from analysis.interviews import roles
from analysis.interviews.clean import type_counts
from analysis.interviews.compute import Interviews, codebook_table, group_summary
from analysis.interviews.figures import heatmap_figure, theme_counts_figure
from analysis.interviews.markup import quotes_html
from analysis.interviews.read import CODEBOOK_FILE, GUIDELINE_FILE


def processed(result: Interviews) -> dict[str, pd.DataFrame]:
    """The cleaned files, for readers and later use (every column, genders included)."""
    data = result.data
    return {"background.csv": data.background, "codebook.csv": data.codebook,
            "nodes.csv": data.nodes, "rejected.csv": data.rejected}


def tables(result: Interviews) -> dict[str, pd.DataFrame | str]:
    """The report's tables: CSV, with the guideline as Markdown and the quotes as HTML
    (the pages show those two as they are)."""
    return {
        "participants.csv": result.participants,
        "groups.csv": result.groups,
        "codebook.csv": codebook_table(result.data.codebook),
        "matrix.csv": result.matrix.reset_index(),
        "theme_counts.csv": result.theme_counts,
        "quotes.csv": result.quotes,
        "quotes.html": quotes_html(result.quotes),
        "guideline_questions.csv": result.questions,
        "guideline.md": result.data.guideline_md,
        "roles.csv": result.roles,
        "role_mappings.csv": result.role_mappings,
        "role_claims.csv": result.role_claims,
    }


def figures(result: Interviews) -> dict:
    return {"heatmap": lambda: heatmap_figure(result.matrix, result.data.codebook,
                                              result.taxonomy),
            "theme_counts": lambda: theme_counts_figure(result.theme_counts, result.taxonomy)}


def website_vars(result: Interviews) -> dict[str, object]:
    """Numbers and short texts for the website (the stage's ``vars``).

    Text that quotes the codebook (its node codes, participant ids) is under keys ending in
    ``_text`` or ``_alt``, which the report shows only as escaped HTML.
    """
    data, taxonomy = result.data, result.taxonomy
    bg, cb, nodes = data.background, data.codebook, data.nodes
    counts, questions = result.theme_counts, result.questions
    unknown = [c for c in counts["node"] if c not in set(taxonomy.codes)]
    linked = counts[counts["total"] > 0]
    unlinked = [c for c in taxonomy.codes if c not in set(linked["node"])]

    def top(col: str) -> str:
        best = counts[counts[col] == counts[col].max()]
        return ", ".join(best["node"]) if counts[col].max() else ""

    unknown_who = {c: ", ".join(nodes.loc[nodes["node"] == c, "participant"]) for c in unknown}
    levels = cb.groupby(["type", "experience_level"]).size()
    under_one = int(((bg["type"] == "User") & (bg["experience_years"] < 1)).sum())
    out: dict[str, object] = {
        "interviews_users": int((bg["type"] == "User").sum()),
        "interviews_developers": int((bg["type"] == "Developer").sum()),
        "interviews_participants": len(bg),
        "interviews_codebook_users": int((cb["type"] == "User").sum()),
        "interviews_codebook_developers": int((cb["type"] == "Developer").sum()),
        "interviews_node_links": len(nodes),
        "interviews_nodes_linked": int(len(linked)),
        "interviews_themes_unlinked": ", ".join(unlinked) or "none",
        "interviews_nodes_not_in_taxonomy": len(unknown),
        "interviews_nodes_not_in_taxonomy_text": (
            "Codebook nodes that are not in the taxonomy, with the participants linked to "
            "them: " + "; ".join(f"{c} ({w})" for c, w in unknown_who.items()) + "."
            if unknown else "Every codebook node is a theme of the taxonomy."),
        "interviews_top_themes_text": (
            f"Most linked by users: {top('users') or 'none'}; by developers: "
            f"{top('developers') or 'none'}."),
        "interviews_role_readings": int(result.role_mappings["mapping"].nunique()),
        "interviews_users_under_one_year": under_one,
        "interviews_codebook_user_beginners": int(levels.get(("User", "Beginner"), 0)),
        "interviews_guideline_parts": int(questions["part"].nunique()),
        "interviews_guideline_questions": len(questions),
        "interviews_anomalies": int(sum(data.quality["anomaly_counts"].values())),
        "interviews_gender_note": (
            "The background sheet records a gender per participant; the paper publishes "
            "none, and no claim needs it, so the report shows no genders (the processed data "
            "keep the normalised value) and responsibilities are shown with neutral pronouns."),
        "interviews_join_note": (
            f"{CODEBOOK_FILE} and the background sheet share no participant id and their rows "
            "do not line up (the codebook has "
            f"{int(levels.get(('User', 'Beginner'), 0))} Beginner users, the sheet "
            f"{under_one} user(s) under one year), so the two files are not joined."),
        "fig_heatmap_caption": (
            f"Taxonomy themes linked by each interviewee in {CODEBOOK_FILE}: users (blue) and "
            "developers (orange); rows follow the taxonomy, nodes marked * are not in it."),
        "fig_heatmap_alt": (
            f"A grid of {len(counts)} theme rows by {len(cb)} participant columns; filled "
            f"cells are the {len(nodes)} links of the codebook. Most linked by users: "
            f"{top('users')}; by developers: {top('developers')}. Not in the taxonomy: "
            f"{', '.join(unknown) or 'none'}."),
        "fig_theme_counts_caption": (
            "Share of users and of developers whose codebook row links each theme "
            "(numbers at the bar ends are participants)."),
        "fig_theme_counts_alt": (
            "Grouped horizontal bars, one pair per theme, giving the percentage of the "
            f"{int((cb['type'] == 'User').sum())} users and of the "
            f"{int((cb['type'] == 'Developer').sum())} developers who link it."),
    }
    return out


# The claims read from the background sheet's roles and experience years: a difference in
# one of them has that reading as its root cause (``cause: interview_roles``, which the
# findings stage groups differences by).
ROLE_CLAIMS = (*roles.ROLE_CLAIMS, "interviews.users.engineers.min_years",
               "interviews.users.students.mean_years")
# The sheet's column of experience years: years with LLMs, whatever the paper's statement.
YEARS_COLUMN = "Experience Years for LLMs"


def manager_years(managers: pd.DataFrame, years: str) -> dict:
    """The senior managers' years against the paper's "over eight years in framework
    validation": the sheet holds their years of experience with LLMs, another quantity,
    so the value compared is the least of those years and the note names the quantity
    (the verdict is then what the numbers give, with the reason beside it)."""
    return {"value": _years(managers, "min"), "cause": "different_quantity",
            "note": f"a different quantity: the background sheet's years of experience with "
                    f"LLMs ('{YEARS_COLUMN}': {years or 'none'}), the least of them compared; "
                    "the sheet does not record years in framework validation"}


def claim_values(result: Interviews) -> dict[str, dict]:
    """Values for the Section IV claims (``interviews.*`` of the claims file).

    Counts of groups come from the background sheet (the codebook's count is in the note);
    experience statements use the sheet's "Experience Years for LLMs"; the developers'
    role breakdown uses the role categories of params.yaml (each developer in exactly one).
    """
    bg, guideline = result.data.background, result.questions
    cb_counts = type_counts(result.data.codebook)

    def cat(key: str) -> pd.DataFrame:
        return bg[bg["role_category"] == key]

    def years_text(frame: pd.DataFrame) -> str:
        return ", ".join(short(y) for y in sorted(frame["experience_years"].dropna()))

    breakdown = "; ".join(f"{r.label}: {r.participants}" for r in
                          group_summary(bg[bg["type"] == "Developer"]).itertuples())
    out: dict[str, dict] = {}
    for ptype, key in (("User", "users"), ("Developer", "developers")):
        out[f"interviews.{key}.count"] = {
            "value": int((bg["type"] == ptype).sum()),
            "note": f"background sheet: {int((bg['type'] == ptype).sum())}; codebook: "
                    f"{cb_counts.get(ptype, 0)}"}
    eng, stu = cat("engineer"), cat("student")
    out["interviews.users.engineers.count"] = {
        "value": len(eng), "note": "roles: " + "; ".join(sorted(set(eng["role_title"])))}
    out["interviews.users.engineers.min_years"] = {
        "value": _years(eng, "min"),
        "note": f"years of the professional engineers: {years_text(eng)} (the claim bounds "
                "the smallest)"}
    out["interviews.users.students.count"] = {
        "value": len(stu), "note": "the sheet does not say which subject they study"}
    out["interviews.users.students.mean_years"] = {
        "value": _years(stu, "mean"), "note": f"mean of {years_text(stu)} years (months converted)"}
    man = cat("manager")
    out["interviews.developers.managers.count"] = {
        "value": len(man), "note": "roles: " + "; ".join(sorted(set(man["role_title"])))}
    out["interviews.developers.managers.min_years"] = manager_years(man, years_text(man))
    train, infer, deploy = cat("training"), cat("inference"), cat("deployment")
    out["interviews.developers.feature_engineers.count"] = {
        "value": len(train) + len(infer),
        "note": f"training + inference engineers; the sheet's developers: {breakdown}"}
    out["interviews.developers.training.count"] = {"value": len(train), "note": breakdown}
    out["interviews.developers.inference.count"] = {
        "value": len(infer), "note": "roles: " + "; ".join(sorted(set(infer["role_title"])))
        if len(infer) else breakdown}
    out["interviews.developers.deployment.count"] = {
        "value": len(deploy), "note": "developers whose role is deployment only (inference and"
        f" deployment engineers count as inference); {breakdown}"}
    if result.session is not None:
        low, high, line = result.session
        note = f"the guideline plans {low}–{high} minutes ({GUIDELINE_FILE}, line {line})"
        out["interviews.session.min_minutes"] = {"value": low, "note": note}
        out["interviews.session.max_minutes"] = {"value": high, "note": note}
    for key, categories in roles.ROLE_CLAIMS.items():
        readings = roles.readings_note(result.role_mappings, categories)
        if readings:
            out[key]["note"] = f"{out[key]['note']}; {readings}"
    for key in ROLE_CLAIMS:
        if key in out:
            out[key]["cause"] = "interview_roles"
    out["interviews.guideline.parts"] = {
        "value": int(guideline["part"].nunique()),
        "note": f"'## Part' sections of {GUIDELINE_FILE}"}
    return out


def metrics(result: Interviews) -> dict:
    """Headline numbers for ``dvc metrics`` (the anomalies by kind are in the quality
    report)."""
    q, counts = result.data.quality, result.theme_counts
    return {
        "participants": q["summary"]["participants_background"],
        "by_type": q["summary"]["by_type_background"],
        "codebook_participants": q["summary"]["participants_codebook"],
        "node_links": q["summary"]["node_links"],
        "nodes_not_in_taxonomy": len(q["summary"]["nodes_not_in_taxonomy"]),
        "themes_linked": int((counts["total"] > 0).sum()),
        "anomalies": int(sum(q["anomaly_counts"].values())),
        "set_aside": int(sum(f["set_aside"] for f in q["files"])),
    }


def _years(frame: pd.DataFrame, how: str) -> float | None:
    """The ``how`` (``min``, ``mean``) of the participants' years, None without any."""
    years = frame["experience_years"].dropna()
    return float(years.agg(how)) if len(years) else None


def build(result: Interviews) -> StageOutputs:
    return StageOutputs(processed=processed(result), quality=result.data.quality,
                        tables=tables(result), figures=figures(result),
                        website_vars=website_vars(result), claim_values=claim_values(result),
                        metrics=metrics(result),
                        schemas=stage_schemas("interviews"))
