"""The Interviews page's includes (:mod:`analysis.report.pages.interviews`)."""

from __future__ import annotations

import pandas as pd

from analysis.report.pages import interviews
from analysis.report.pages.base import IV


def test_roles_and_the_readings_the_stage_found(project):
    project.write(IV("roles.csv"), pd.DataFrame({
        "type": ["Developer"], "role_raw": ["LLM Inference 或 <b>"],
        "role_title": ["LLM Inference or <b>"], "participants": [2],
        "category": ["inference"], "matching": ["inference, deployment"]}))
    project.write(IV("role_claims.csv"), pd.DataFrame({
        "claim_id": ["interviews.developers.inference.count"], "paper": [">1"], "ours": [2],
        "possible": ["0, 1, 2"], "readings": ["the one used"], "by_reading": ["2; 1; 0"]}))
    project.write(IV("role_mappings.csv"), pd.DataFrame({
        "mapping": [0, 0, 1, 1, 2, 2], "description": ["", "", "X: 1 deployment"] * 2,
        "category": ["inference", "deployment"] * 3, "participants": [2, 0, 1, 1, 0, 2]}))
    project.write(interviews.VARS, {"interviews_role_readings": 3})
    out = interviews.interviews_roles(project.inputs())
    assert "LLM Inference or &lt;b&gt;" in out and ">inference, deployment<" in out
    assert "或" not in out  # the role as translated (interviews.translations)
    assert "the roles allow 3 readings. Every verdict uses reading 1" in out
    # each reading, what it changes, the one the verdicts use; each count under each
    assert ">each role in its first matching category (the one every verdict uses)<" in out
    assert ">X: 1 deployment<" in out and ">reading 3<" in out
    assert ">&gt;1<" in out and ">the one used<" in out
    for reading, n in ((1, 2), (2, 1), (3, 0)):
        assert f'data-label="reading {reading}">{n}</td>' in out
    project.write(IV("role_claims.csv"), pd.DataFrame(columns=[
        "claim_id", "paper", "ours", "possible", "readings", "by_reading"]))
    assert "readings" not in interviews.interviews_roles(project.inputs())


def test_participants_and_groups(project):
    project.write(IV("participants.csv"), pd.DataFrame({
        "sheet_row": [2, 3], "type": ["User", "Developer"], "role": ["Student", "Manager"],
        "responsibilities": ["studies <x>", None], "role_category": ["student", "manager"],
        "experience": ["2 years", None], "experience_years": [2.0, 0.5]}))
    out = interviews.interviews_participants(project.inputs())
    assert 'Student<span class="note">studies &lt;x&gt;</span>' in out
    assert ">2 years<" in out and "> (0.50 years)<" in out
    project.write(IV("groups.csv"), pd.DataFrame({
        "type": ["User"], "label": ["student"], "participants": [3], "years_min": [0.5],
        "years_max": [2.0], "years_mean": [1.25], "roles": ["Student"]}))
    groups = interviews.interviews_groups(project.inputs())
    assert ">0.5–2.0<" in groups and ">1.25<" in groups


def test_theme_counts_mark_nodes_outside_the_taxonomy(project):
    project.write(IV("theme_counts.csv"), pd.DataFrame({
        "node": ["C.1", "X.9"], "theme": ["Crash", None], "issue_type": ["Bug", None],
        "users": [2, 0], "users_percent": [50.0, 0.0], "developers": [1, 0],
        "developers_percent": [12.5, 0.0], "total": [3, 0], "in_taxonomy": [True, False]}))
    out = interviews.interviews_theme_counts(project.inputs())
    assert ">2 (50.0%)<" in out and ">1 (12.5%)<" in out
    assert ">(not in the taxonomy)<" in out and '<tr class="st-differs">' in out


def test_quotes_and_guideline_are_sanitised(project):
    project.write(IV("quotes.html"), "<h3>C.1</h3><p>q<script>x()</script></p>")
    quotes = interviews.interviews_quotes(project.inputs())
    assert '<div class="interview-quotes"><h3>C.1</h3>' in quotes and "<script" not in quotes
    project.write(IV("guideline.md"), "<!-- generated -->\n# Part 1\n\nAsk <b>this</b>.\n")
    guideline = interviews.interviews_guideline(project.inputs())
    assert "generated" not in guideline and "<h3" in guideline and "<b>" not in guideline
