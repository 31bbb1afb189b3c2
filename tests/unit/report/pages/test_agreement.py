"""The Agreement page's includes (:mod:`analysis.report.pages.agreement`)."""

from __future__ import annotations

import pandas as pd

from analysis.report.pages import agreement
from analysis.report.pages.base import AG

HEADLINE = pd.DataFrame([{
    "group": "Bug", "issues": 10, "paper_kappa": 0.512, "kappa": 0.51245,
    "kappa_boot_low": 0.7, "kappa_boot_high": 0.73, "kappa_ci_low": 0.69,
    "kappa_ci_high": 0.74, "issues_kappa": 8, "kappa_gen": 0.5301,
    "kappa_gen_boot_low": 0.71, "kappa_gen_boot_high": 0.75, "kappa_gen_ci_low": 0.6,
    "kappa_gen_ci_high": 0.8, "issues_kappa_gen": 9, "alpha": 0.5125,
    "alpha_boot_low": 0.4, "alpha_boot_high": 0.6, "ac1": 0.744, "ac1_boot_low": 0.7,
    "ac1_boot_high": None, "type_kappa": -0.007, "observed": 0.55, "chance": 0.14}])


def test_headline_and_coefficients_name_their_intervals(project):
    project.write(AG("headline.csv"), HEADLINE)
    head = agreement.agreement_headline(project.inputs())
    assert ">0.512<" in head and ">0.700–0.730<" in head and "0.51245" not in head
    assert "complete rows" in head and "generalised" in head and ">0.530<" in head
    assert "analytic interval" in head and "bootstrap interval" in head
    assert ">0.600–0.800<" in head and ">9<" in head
    coef = agreement.agreement_coefficients(project.inputs())
    assert ">0.400–0.600<" in coef and ">-0.007<" in coef
    assert 'data-label="AC1 bootstrap interval">–<' in coef  # half an interval


def test_leave_one_out_is_one_row_per_column_left_out(project):
    project.write(AG("audit_leave_one_out.csv"), pd.DataFrame({
        "left_out": ["none", "none", "annotator_1", "annotator_1"],
        "type": ["Bug", "all issues"] * 2, "kappa": [0.7, 0.75, 0.68, 0.76],
        "change": [0.0, 0.0, -0.02, 0.01]}))
    out = agreement.agreement_leave_one_out(project.inputs())
    assert ">none (all columns)<" in out and ">annotator 1<" in out
    assert ">0.680 (-0.020)<" in out and ">0.760 (+0.010)<" in out and ">0.700<" in out


def test_audit_final_reshapes_the_stage_rows(project):
    project.write(AG("audit_final_by_project.csv"), pd.DataFrame({
        "stratum": ["all", "all", "p", "p"], "annotator": ["annotator_1", "annotator_2"] * 2,
        "rated": [10, 9, 4, 4], "equal": [9, 9, 4, 3], "share": [0.9, 1.0, 1.0, 0.75],
        "issues": [10, 10, 4, 4]}))
    out = agreement.agreement_audit_final(project.inputs())
    assert ">all projects<" in out and '<tr class="sum">' in out
    assert 'data-label="issues">10<' in out and 'data-label="issues">4<' in out
    assert out.count('<span class="full">100.0%</span>') == 2
    assert '<span class="">75.0%</span>' in out


def test_sensitivity_and_grouping(project):
    project.write(AG("audit_sensitivity.csv"), pd.DataFrame({
        "scenario": ["all columns", "without everywhere"], "type": ["Bug", "Bug"],
        "kappa": [0.7, 0.71], "issues": [10, 10], "change": [None, 0.01],
        "kappa_generalised": [0.7, 0.72], "issues_generalised": [10, 10],
        "change_generalised": [None, 0.02]}))
    sens = agreement.agreement_sensitivity(project.inputs())
    assert ">all label columns<" in sens and ">+0.010<" in sens and ">–<" in sens
    project.write(AG("grouping.csv"), pd.DataFrame({
        "grouping": ["final", "final"], "type": ["Bug", "Question"], "issues": [5, 6],
        "observed": [0.5, 0.6], "chance": [0.1, 0.2], "kappa": [0.4, 0.5],
        "kappa_generalised": [0.4, 0.5], "issues_generalised": [5, 6],
        "paper_kappa": [0.4, 0.6], "matches_paper": [True, False], "rule": ["r <1>", "r <1>"]}))
    grouping = agreement.agreement_grouping(project.inputs())
    assert ">✓ yes<" in grouping and ">✗ no<" in grouping
    assert grouping.count("<li><strong>final</strong>: r &lt;1&gt;</li>") == 1


def test_confusions_collapse_beyond_the_top(project):
    project.write(AG("confusions.csv"), pd.DataFrame({
        "label_a": ["B.1", "C.1", "A.1"], "label_b": ["B.2", "C.2", "C.1"],
        "type_a": ["Requirement", "Bug", "Question"], "type_b": ["Requirement", "Bug", "Bug"],
        "rater_pairs": [100, 60, 5], "issues": [20, 12, 3],
        "share_of_disagreements": [0.6, 0.36, 0.04]}))
    out = agreement.agreement_confusions(project.inputs(), top=2)
    shown, _, more = out.partition("All 3 pairs")
    assert ">B.1 / B.2<" in shown and ">A.1 / C.1<" not in shown
    assert ">Question / Bug<" in more and ">60.0%<" in shown
    project.write(AG("confusions.csv"), pd.DataFrame(columns=["label_a"]))
    assert agreement.agreement_confusions(project.inputs()) == (
        "No two annotators ever disagreed.\n")


def test_every_include_reads_its_own_table():
    names = {inc.name: inc.inputs for inc in agreement.INCLUDES}
    assert names["agreement/claims.md"][0].endswith("scorecard.csv")
    assert all(len(inputs) >= 1 for inputs in names.values()) and len(names) == 16


def people_tables(project) -> None:
    """A study's people, as the agreement stage writes them: the release (its columns,
    named by column), batch 2026-01 by alice, bob and <chen>, 2026-02 by alice, bob, dana."""
    rows = [("release", "Label1", 1, 0.8, 0.6, 0.9, 9, 0.7, 0.5, 0.9, ""),
            ("release", "Label2", 2, 0.7, 0.5, 0.9, 9, 0.6, 0.4, 0.8, ""),
            ("2026-01", "alice", 8, 0.62, 0.31, 0.93, 10, 0.615, 0.3, 0.93, ""),
            ("2026-01", "bob", 9, 0.5, 0.1, 0.9, 11, 0.4, 0.05, 0.75, ""),
            ("2026-01", "<chen>", 10, None, None, None, 12, None, None, None,
             "final label: not defined: all labels in one category"),
            ("2026-02", "alice", 8, 1.0, 1.0, 1.0, 5, 1.0, 1.0, 1.0, ""),
            ("2026-02", "bob", 9, 0.2, -0.4, 0.8, 5, 0.1, -0.5, 0.7, ""),
            ("2026-02", "dana", 11, 0.3, -0.3, 0.9, 5, 0.2, -0.4, 0.8, "")]
    project.write(AG("annotators_by_batch.csv"), pd.DataFrame([{
        "batch": b, "person": who, "label_column": f"Label{c}",
        "issues": 12 if b == "2026-01" else 9 if b == "release" else 5, "rated": n,
        "final_agreement": 0.9, "final_kappa": fk, "final_ci_low": fl, "final_ci_high": fh,
        "others_issues": n - 1, "others_agreement": 0.75, "others_kappa": ok,
        "others_ci_low": ol, "others_ci_high": oh, "note": note}
        for b, who, c, fk, fl, fh, n, ok, ol, oh, note in rows]))
    project.write(AG("pairs_by_batch.csv"), pd.DataFrame([{
        "batch": "2026-01", "person_a": "alice", "person_b": "<chen>", "label_column_a": "Label8",
        "label_column_b": "Label10", "n": 11, "agreement": 0.8, "kappa": 0.7, "ci_low": 0.4,
        "ci_high": 1.0, "note": ""}]))
    project.write("report/vars/agreement.json", {"confidence": "95%"})


def test_a_study_shows_each_annotator_batch_by_batch(project):
    from analysis.report.pages.base import write_includes
    from tests.support.reads import undeclared_reads

    project.write("report/vars/agreement.json", {"confidence": "95%"})
    assert agreement.agreement_annotators(project.inputs()) == ""  # the release alone
    people_tables(project)
    out = agreement.agreement_annotators(project.inputs())
    assert out.startswith("## Each annotator, batch by batch")
    assert "95% asymptotic interval" in out
    # followed: one row per person of the new batches, a column per batch
    followed = out[:out.index("The release</strong>")]
    assert ">batch 2026-01</th>" in followed and ">batch 2026-02</th>" in followed
    assert ">the release</th>" not in followed and ">Label1<" not in followed
    assert followed.count(">alice<") == 1 and ">dana<" in followed
    assert ">0.615 (0.300–0.930), n = 9<" in followed
    assert 'data-label="batch 2026-02"></td>' in followed  # chen did not label in 2026-02
    # per batch: its people (named; escaped), with intervals and n
    assert "<strong>Batch 2026-01</strong>: 3 annotators, 12 reports" in out
    assert "<strong>The release</strong>: 2 annotators, 9 reports" in out
    part = out[out.index("Batch 2026-01</strong>"):out.index("Batch 2026-02</strong>")]
    assert ">alice<" in part and ">bob<" in part and "&lt;chen&gt;" in part
    assert "<chen>" not in out
    assert ">0.620 (0.310–0.930)<" in part and ">–<" in part and "all labels in one" in part
    assert "Every two annotators of batch 2026-01" in part and ">alice – &lt;chen&gt;<" in part
    assert ">0.400–1.000<" in part
    assert out.rstrip().endswith(
        "[Source: notebooks/04_agreement](notebooks/04_agreement.qmd){.source-link}\n"
        "([tables/agreement/annotators_by_batch.csv]"
        "(downloads/tables/agreement/annotators_by_batch.csv), "
        "[tables/agreement/pairs_by_batch.csv](downloads/tables/agreement/pairs_by_batch.csv))")
    assert undeclared_reads(agreement.INCLUDES, project.root) == {}
    made = write_includes(agreement.INCLUDES, project.root)
    assert made["agreement/annotators_by_batch.md"] == out


def test_the_kappa_of_a_person_says_its_interval_and_n():
    assert agreement.kappa_with_n(0.5, 0.1, 0.9, 12) == "0.500 (0.100–0.900), n = 12"
    assert agreement.kappa_with_n(None, None, None, 0) == "–, n = 0"
    assert agreement.batch_title("release") == "the release"
    assert agreement.batch_title("2026-01") == "batch 2026-01"
