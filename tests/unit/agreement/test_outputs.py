"""What the agreement stage writes: tables, figures, website variables, claim values,
metrics, checked on the result of a small synthetic dump."""

from __future__ import annotations

from dataclasses import replace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from analysis.agreement import compute as agreement
from analysis.agreement import outputs
from analysis.clean.issues import clean_dump
from analysis.core.claims import load_claims
from analysis.core.paths import PATHS, AgreementPaths, Paths
from analysis.core.projects import Projects
from analysis.core.stage import StageOutputs, write_outputs
from analysis.core.taxonomy import load_taxonomy
from tests.support.dumps import small_dump


@pytest.fixture(scope="module")
def result(tmp_path_factory) -> agreement.Agreement:
    """The stage's result on the small synthetic dump, computed once for the module (the
    tests only read it)."""
    folder = tmp_path_factory.mktemp("dump")
    small_dump(folder)
    projects = Projects.load(PATHS.projects_file)
    issues = clean_dump(folder, load_taxonomy(), projects).issues
    return agreement.compute(issues, load_taxonomy(), projects, load_claims(), 50, 1)


def test_tables_are_the_listed_files(result):
    t = outputs.tables(result)
    assert set(t) == set(AgreementPaths.TABLES)
    a = result.analysis
    assert t["statistics.csv"] is a.statistics and t["headline.csv"] is result.headline
    assert t["grouping.csv"] is result.grouping and t["audit_spread.csv"] is a.spread
    assert t["method.md"] == outputs.method_note(a) + "\n"
    md = t["headline.md"].splitlines()
    assert md[0].startswith("| Group | Issues | Paper κ | Fleiss' κ, complete rows (95% "
                            "bootstrap) | Issues used | Generalised Fleiss' κ (95% bootstrap)")
    assert len(md) == 2 + len(result.headline) and md[-1].startswith("| all issues |")


def test_figures_are_the_listed_figures_and_draw(result):
    figures = outputs.figures(result)
    assert list(figures) == list(AgreementPaths.FIGURES)
    for draw in figures.values():
        fig = draw()
        assert isinstance(fig, plt.Figure)
        plt.close(fig)


def test_website_vars(result, issues):
    a = result.analysis
    v = outputs.website_vars(result)
    assert all(isinstance(x, str | int | float) for x in v.values())
    assert "method_note_text" in v
    for name in AgreementPaths.FIGURES:  # uniform figure texts
        assert v[f"fig_{name}_caption"] and v[f"fig_{name}_alt"]
    assert not [k for k in v if k.startswith("fig_") and k.removeprefix("fig_").rsplit(
        "_", 1)[0] not in AgreementPaths.FIGURES]
    assert v["kappa_all"] == outputs.fmt(result.headline["kappa"].iloc[-1])
    # the audit's facts for the website: match rates by column, always-equal columns
    shares = a.final_by_project[a.final_by_project["stratum"] == "all"]["share"].tolist()
    assert v["final_share_first"] == outputs.fmt(shares[0])
    assert v["final_share_last"] == outputs.fmt(shares[-1])
    falls = all(x > y for x, y in zip(shares, shares[1:], strict=False))
    assert v["final_share_falls"] == ("yes" if falls else "no")
    assert v["audit_projects"] == issues["project"].nunique()
    assert v["always_final_pairs"] == int(
        ((a.final_by_project["stratum"] != "all") & (a.final_by_project["share"] == 1.0)).sum())


def test_metrics(result):
    m = outputs.metrics(result)
    assert set(m["fleiss_kappa"]) == {"all", "Question", "Requirement", "Bug"}
    assert m["bootstrap_resamples"] == 50 and m["issues"] == result.analysis.facts["issues"]
    assert "ci_low" in m["fleiss_kappa"]["all"]
    assert "ci_low" not in m["fleiss_kappa_type"]["all"]


def test_claim_values(result):
    repro = outputs.claim_values(result)
    assert set(repro) == {"agreement.kappa.bug", "agreement.kappa.requirement",
                          "agreement.kappa.question"}
    bug = agreement.stat(result.analysis, "type", "Bug", "fleiss_kappa")
    assert repro["agreement.kappa.bug"]["value"] == bug["value"]
    assert "theme codes" in repro["agreement.kappa.bug"]["note"]


def test_claim_of_a_type_without_issues(result):
    result = replace(result, paper_kappas={**result.paper_kappas, "other": "0.5"})
    entry = outputs.claim_values(result)["agreement.kappa.other"]
    assert entry == {"value": None, "note": "no Other issues in this dump"}


def test_build_writes_every_listed_output(result, tmp_path):
    out = outputs.build(result)
    assert isinstance(out, StageOutputs)
    written = write_outputs(Paths(tmp_path).agreement, out)
    assert len(written) == len(AgreementPaths.TABLES) + 2 * len(AgreementPaths.FIGURES) + 3
    plt.close("all")


def test_number_texts():
    assert outputs.fmt(None) == outputs.fmt(np.nan) == "—"
    assert outputs.fmt(0.12345) == "0.123" and outputs.fmt(2, 1) == "2.0"
    assert outputs.interval(0.1, None) == outputs.interval(np.nan, 0.2) == "—"
    assert outputs.interval(0.1, 0.25) == "0.100–0.250"
    assert outputs._p(0.0001) == "< 0.001" and outputs._p(0.25) == "0.250"
    assert outputs._p(None) == "—"


def test_method_note_names_missing_ratings_and_unknown_labels(issues, taxonomy, projects):
    issues = issues.copy()
    issues["annotator_3"] = issues["annotator_3"].astype(object)
    issues.loc[:4, "annotator_3"] = None
    issues.loc[5, "annotator_2"] = "Z.9"
    a = agreement.analyse(issues, taxonomy, list(projects.described), 0, 1)
    note = outputs.method_note(a)
    assert "5 issues lack" in note and "(Z.9)" in note
    assert "No rating is missing" in outputs.method_note(
        agreement.analyse(issues.dropna(subset=["annotator_3"]), taxonomy, [], 0, 1))


def test_headline_markdown_marks_missing_paper_values():
    head = pd.DataFrame([{"group": "all issues", "issues": 1234, "paper_kappa": "",
                          "issues_kappa": 1000, "issues_kappa_gen": 1200,
                          **{k: 0.5 for k in ("kappa", "kappa_boot_low", "kappa_boot_high",
                                              "kappa_gen", "kappa_gen_boot_low",
                                              "kappa_gen_boot_high",
                                              "alpha", "alpha_boot_low", "alpha_boot_high",
                                              "ac1", "ac1_boot_low", "ac1_boot_high",
                                              "type_kappa")}}])
    line = outputs.headline_markdown(head, 0.9).splitlines()[-1]
    assert line.startswith("| all issues | 1,234 | — | 0.500 (0.500–0.500) | 1,000 | "
                           "0.500 (0.500–0.500) | 1,200 |")
    assert "(90% bootstrap)" in outputs.headline_markdown(head, 0.9)


def test_claim_note_counts_issues_left_out(issues, taxonomy, projects):
    issues = issues.copy()
    issues["annotator_3"] = issues["annotator_3"].astype(object)
    issues.loc[:4, "annotator_3"] = None
    result = agreement.compute(issues, taxonomy, projects, load_claims(), 0, 1)
    notes = {cid: entry["note"] for cid, entry in outputs.claim_values(result).items()}
    left_out = 0
    for cid, note in notes.items():
        group = cid.removeprefix("agreement.kappa.").capitalize()
        n = int(agreement.stat(result.analysis, "type", group, "fleiss_kappa")["issues_left_out"])
        assert (f"; {n} issues with a missing rating left out" in note) == bool(n)
        left_out += n
    assert left_out == 5


def test_every_interval_says_which_it_is(result):
    v = outputs.website_vars(result)
    keys = [k for k in v if k.endswith(("_boot", "_ci"))]
    assert {"kappa_bug_boot", "kappa_bug_ci", "kappa_bug_gen_ci", "alpha_all_boot"} <= set(keys)
    for k in keys:
        kind = "bootstrap" if k.endswith("_boot") else "analytic"
        assert v[k].startswith(f"95% {kind} interval "), (k, v[k])
    # the prose form every page quotes: the analytic interval
    assert v["kappa_bug_stated"] == f"{v['kappa_bug']} ({v['kappa_bug_ci']})"
    assert "give the same value" in v["kappa_estimator"]
    assert v["ac1_categories"] == result.analysis.ratings.n_categories


def test_with_missing_ratings_every_kappa_names_its_estimator(issues, taxonomy, projects):
    issues = issues.copy()
    issues["annotator_3"] = issues["annotator_3"].astype(object)
    issues.loc[:9, "annotator_3"] = None
    result = agreement.compute(issues, taxonomy, projects, load_claims(), 20, 1)
    v = outputs.website_vars(result)
    assert v["kappa_estimator"].startswith("complete-rows Fleiss' kappa")
    for key in ("bug", "requirement", "question", "all"):
        stated = v[f"kappa_{key}_stated"]
        assert "complete-rows estimator" in stated and "generalised estimator" in stated
        assert v[f"kappa_{key}_gen_ci"] in stated
    head = outputs.headline_markdown(result.headline, 0.95)
    assert "Generalised Fleiss' κ" in head
    every = result.headline.set_index("group").loc["all issues"]
    assert (every["issues_kappa"], every["issues_kappa_gen"]) == (len(issues) - 10,
                                                             len(issues))
    notes = outputs.claim_values(result)
    assert any("Gwet's generalised Fleiss' kappa" in e["note"] for e in notes.values())


def test_sensitivity_and_spread_texts(result):
    v = outputs.website_vars(result)
    spread = result.analysis.facts["spread"]
    assert f"for {spread['themes_with_p']} themes" in v["dissent_spread_text"]
    assert {"loo_bug_min", "loo_bug_max", "loo_all_min"} <= set(v)
    assert float(v["loo_bug_min"]) <= float(v["loo_bug_max"])
    if result.analysis.always_final.empty:
        assert v["sensitivity_text"].startswith("No label column")
    else:
        assert "Leaving the column(s) out everywhere" in v["sensitivity_text"]


def test_every_type_has_its_keys_when_a_dump_lacks_one():
    v = outputs.with_every_type({"kappa_bug": "0.7", "kappa_bug_issues": 12, "loo_all_min": "0.6",
                         "issues": 30, "fig_x_caption": "c"})
    assert v["kappa_question"] == "not defined (no question issues)"
    assert v["kappa_requirement_issues"] == 0 and v["loo_bug_min"].startswith("not defined")
    assert v["kappa_bug"] == "0.7" and v["issues"] == 30 and "fig_x_question" not in v
