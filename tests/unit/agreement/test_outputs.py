"""What the agreement stage writes: tables, figures, website variables, claim values,
metrics, checked on the result of a small synthetic dump."""

from __future__ import annotations

from dataclasses import replace

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from analysis.agreement import compute as agreement
from analysis.agreement import outputs
from analysis.compare.compute import kappas_from_agreement
from analysis.core.claims import load_claims
from analysis.core.formatting import dec
from analysis.core.paths import PATHS, Paths
from analysis.core.projects import Projects
from analysis.core.stage import StageOutputs, write_outputs
from analysis.core.taxonomy import load_taxonomy
from tests.support.stages import agreement_result
from tests.unit.agreement.synthetic import settings


@pytest.fixture(scope="module")
def result(small_issues) -> agreement.Agreement:
    """The stage's result on the small synthetic dump, computed once for the module (the
    tests only read it)."""
    return agreement_result(small_issues.copy(), load_taxonomy(),
                            Projects.load(PATHS.projects_file), load_claims(), settings(50))


def test_tables_are_the_listed_files(result):
    t = outputs.tables(result)
    assert set(t) == set(PATHS.agreement.TABLES) - set(PATHS.agreement.STUDY_TABLES)
    a = result.analysis
    assert t["statistics.csv"] is a.statistics and t["headline.csv"] is result.headline
    assert t["grouping.csv"] is result.grouping and t["audit_spread.csv"] is a.spread
    assert all(isinstance(x, pd.DataFrame) for x in t.values())  # no Markdown no page reads
    top = t["top_confusions.csv"].set_index("scope")
    first = a.confusions.iloc[0]
    assert top.loc["all", "label_a"] == first["label_a"]
    assert top.loc["all", "rater_pairs"] == a.confusions["rater_pairs"].max()


def test_figures_are_the_listed_figures_and_draw(result):
    figures = outputs.figures(result)
    assert list(figures) == list(PATHS.agreement.FIGURES)
    for draw in figures.values():
        fig = draw()
        assert isinstance(fig, plt.Figure)
        plt.close(fig)


def test_website_vars(result, issues):
    a = result.analysis
    v = outputs.website_vars(result)
    assert all(isinstance(x, str | int | float) for x in v.values())
    assert "method_note_text" in v
    for name in PATHS.agreement.FIGURES:  # uniform figure texts
        assert v[f"fig_{name}_caption"] and v[f"fig_{name}_alt"]
    assert not [k for k in v if k.startswith("fig_") and k.removeprefix("fig_").rsplit(
        "_", 1)[0] not in PATHS.agreement.FIGURES]
    assert v["kappa_all"] == dec(result.headline["kappa"].iloc[-1])
    bug = result.headline.set_index("group").loc["Bug"]
    assert v["kappa_bug"] == f"{bug['kappa']:.3f}" and v["ac1_bug"] == f"{bug['ac1']:.3f}"
    # the audit's facts for the website: match rates by column, always-equal columns
    shares = a.final_by_project[a.final_by_project["stratum"] == "all"]["share"].tolist()
    assert v["final_share_first"] == dec(shares[0])
    assert v["final_share_last"] == dec(shares[-1])
    falls = all(x > y for x, y in zip(shares, shares[1:], strict=False))
    assert v["final_share_falls"] == ("yes" if falls else "no")
    assert v["audit_projects"] == issues["project"].nunique()
    assert v["always_final_pairs"] == int(
        ((a.final_by_project["stratum"] != "all") & (a.final_by_project["share"] == 1.0)).sum())


def test_metrics_are_the_headline_kappas(result):
    m = outputs.metrics(result)
    assert set(m) == {"issues", "annotators", "fleiss_kappa"}
    assert m["issues"] == 58 and m["annotators"] == 7
    assert set(m["fleiss_kappa"]) == set(result.headline["group"]) - {"all issues"}
    bug = agreement.stat(result.analysis, "type", "Bug", "fleiss_kappa")
    assert m["fleiss_kappa"]["Bug"] == {"value": round(bug["value"], 6),
                                        "ci_low": round(bug["ci_low"], 6),
                                        "ci_high": round(bug["ci_high"], 6)}
    # the compare stage reads exactly these
    assert set(kappas_from_agreement(m)) == set(m["fleiss_kappa"])


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
    tables = len(PATHS.agreement.TABLES) - len(PATHS.agreement.STUDY_TABLES)
    assert len(written) == tables + 2 * len(PATHS.agreement.FIGURES) + 3
    plt.close("all")


def test_method_note_names_missing_ratings_and_unknown_labels(issues, taxonomy, projects):
    issues = issues.copy()
    issues["annotator_3"] = issues["annotator_3"].astype(object)
    issues.loc[:4, "annotator_3"] = None
    issues.loc[5, "annotator_2"] = "Z.9"
    a = agreement.analyse(issues, taxonomy, list(projects.described), settings(0))
    note = outputs.method_note(a)
    assert "5 issues lack" in note and "(Z.9)" in note
    assert "No rating is missing" in outputs.method_note(
        agreement.analyse(issues.dropna(subset=["annotator_3"]), taxonomy, [], settings(0)))


def test_claim_note_counts_issues_left_out(issues, taxonomy, projects):
    issues = issues.copy()
    issues["annotator_3"] = issues["annotator_3"].astype(object)
    issues.loc[:4, "annotator_3"] = None
    result = agreement_result(issues, taxonomy, projects, load_claims(), settings(0))
    notes = {cid: entry["note"] for cid, entry in outputs.claim_values(result).items()}
    left_out = 0
    for cid, note in notes.items():
        group = cid.removeprefix("agreement.kappa.").capitalize()
        n = int(agreement.stat(result.analysis, "type", group, "fleiss_kappa")["issues_left_out"])
        assert (f"; {n} issues with a missing rating left out" in note) == bool(n)
        left_out += n
    assert left_out == 5


def test_the_stated_kappa_names_its_interval(result):
    v = outputs.website_vars(result)
    bug = result.headline.set_index("group").loc["Bug"]
    # the prose form every page quotes: the analytic interval
    assert v["kappa_bug_stated"] == (f"{v['kappa_bug']} (95% analytic interval "
                                     f"{bug['kappa_ci_low']:.3f}–{bug['kappa_ci_high']:.3f})")
    assert "give the same value" in v["kappa_estimator"]
    assert v["ac1_categories"] == result.analysis.ratings.n_categories


def test_with_missing_ratings_every_kappa_names_its_estimator(issues, taxonomy, projects):
    issues = issues.copy()
    issues["annotator_3"] = issues["annotator_3"].astype(object)
    issues.loc[:9, "annotator_3"] = None
    result = agreement_result(issues, taxonomy, projects, load_claims(), settings(20))
    v = outputs.website_vars(result)
    assert v["kappa_estimator"].startswith("complete-rows Fleiss' kappa")
    head = result.headline.set_index("group")
    for key, group in (("bug", "Bug"), ("requirement", "Requirement"),
                       ("question", "Question"), ("all", "all issues")):
        stated = v[f"kappa_{key}_stated"]
        assert "complete-rows estimator" in stated and "generalised estimator" in stated
        r = head.loc[group]
        assert (f"{r['kappa_gen']:.3f} with Gwet's generalised estimator over "
                f"{r['issues_kappa_gen']:,} reports") in stated
    assert (result.headline["issues_kappa"] < result.headline["issues_kappa_gen"]).any()
    notes = outputs.claim_values(result)
    assert any("Gwet's generalised Fleiss' kappa" in e["note"] for e in notes.values())


def test_sensitivity_and_spread_texts(result):
    v = outputs.website_vars(result)
    spread = result.analysis.facts["spread"]
    assert f"for {spread['themes_with_p']} themes" in v["dissent_spread_text"]
    loo = result.analysis.leave_one_out
    bug = loo[(loo["left_out"] != "none") & (loo["type"] == "Bug")]["kappa"]
    assert v["loo_bug_min"] == dec(bug.min()) and v["loo_bug_max"] == dec(bug.max())
    if result.analysis.always_final.empty:
        assert v["sensitivity_text"].startswith("No label column")
    else:
        assert "Leaving the column(s) out everywhere" in v["sensitivity_text"]


def test_every_type_has_its_keys_when_a_dump_lacks_one():
    rows = {"bug": 0.7, "all": 0.75}
    assert outputs.each_type(rows, lambda r: f"{r:.1f}") == (
        "0.7", "not defined (no requirement issues)", "not defined (no question issues)", "0.8")
    assert outputs.type_key("all issues") == "all" and outputs.type_key("Bug") == "bug"


def test_the_pages_keys_are_all_written(result):
    v = outputs.website_vars(result)
    for key in ("kappa", "kappa_{}_stated", "ac1", "type_kappa"):
        for t in ("bug", "requirement", "question", "all"):
            name = f"{key}_{t}" if "{}" not in key else key.format(t)
            assert name in v and v[name], name
    assert not [k for k in v if k.startswith("annotator_")]  # one per annotator: in tables


def test_a_studys_annotators_by_batch_are_written_checked(result, tmp_path):
    from analysis.agreement.people import annotators_by_batch
    from tests.unit.agreement.test_people import PEOPLE, study

    persons, pairs = annotators_by_batch(study(), PEOPLE, load_taxonomy().codes)
    tables = outputs.tables(replace(result, persons=persons, pairs=pairs))
    assert tables["annotators_by_batch.csv"] is persons and tables["pairs_by_batch.csv"] is pairs
    paths = Paths(tmp_path).agreement
    written = write_outputs(paths, StageOutputs(tables=tables,
                                                schemas=outputs.build(result).schemas))
    assert {"report/tables/agreement/annotators_by_batch.csv",
            "report/tables/agreement/pairs_by_batch.csv"} <= set(written)
    back = pd.read_csv(paths.table("annotators_by_batch.csv"), keep_default_na=False)
    assert list(back["person"][2:5]) == ["alice", "bob", "chen"]
    assert set(PATHS.agreement.STUDY_TABLES) >= {"annotators_by_batch.csv",
                                                  "pairs_by_batch.csv"}
