"""The agreement stage: loading, the report views, the mirror, and the notebook end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import outputs as rep
from analysis.agreement import stats as ag
from analysis.core import artifacts
from analysis.core.claims import judge, load_claims
from analysis.core.errors import InputError
from tests.support.dumps import small_dump
from tests.support.mirror import needs_mirror


def clean_issues(root, taxonomy, projects_meta) -> pd.DataFrame:
    from analysis.clean.issues import clean_dump

    return clean_dump(root, taxonomy, projects_meta).issues


def test_load_issues_errors(tmp_path):
    with pytest.raises(InputError, match="not found"):
        rep.load_issues(tmp_path / "nope.parquet")
    path = tmp_path / "bad.parquet"
    artifacts.write_parquet(path, pd.DataFrame({"project": ["p"], "annotator_1": ["A.1"]}))
    with pytest.raises(InputError, match="missing columns"):
        rep.load_issues(path)


def test_load_issues_reads_labels_as_categories(tmp_path, taxonomy, projects_meta):
    small_dump(tmp_path / "d")
    issues = clean_issues(tmp_path / "d", taxonomy, projects_meta)
    path = tmp_path / "issues.parquet"
    artifacts.write_parquet(path, issues)
    loaded = rep.load_issues(path)
    assert isinstance(loaded["annotator_1"].dtype, pd.CategoricalDtype)
    a = ag.encode_ratings(loaded, taxonomy.codes)
    b = ag.encode_ratings(issues, taxonomy.codes)
    assert np.array_equal(a.codes, b.codes)


def test_analyse_small_dump(tmp_path, taxonomy, projects_meta):
    small_dump(tmp_path / "d")
    issues = clean_issues(tmp_path / "d", taxonomy, projects_meta)
    a = rep.analyse(issues, taxonomy, list(projects_meta), 50, 1)
    head = rep.headline(a, load_claims())
    assert head["group"].iloc[-1] == "all issues"
    claims = load_claims().set_index("claim_id")["paper_value"]
    assert head["paper_kappa"].iloc[0] in set(claims.filter(like="agreement.kappa."))
    kappa = a.statistics[(a.statistics["grouping"] == "all")
                         & (a.statistics["statistic"] == "fleiss_kappa")]["value"].iloc[0]
    assert kappa == pytest.approx(ag.fleiss_kappa(a.ratings.codes, 18).value)
    assert a.facts["final_is_majority"] == len(issues)  # the fixture's final is the majority
    v = rep.report_vars(a, head)
    assert all(isinstance(x, str | int | float) for x in v.values())
    assert "method_note_text" in v and "fig_kappas_alt" in v
    # the audit's facts for the website: match rates by column, always-equal columns
    shares = a.final_by_project[a.final_by_project["stratum"] == "all"]["share"].tolist()
    assert v["final_share_first"] == rep.fmt(shares[0])
    assert v["final_share_last"] == rep.fmt(shares[-1])
    falls = all(x > y for x, y in zip(shares, shares[1:], strict=False))
    assert v["final_share_falls"] == ("yes" if falls else "no")
    assert v["audit_projects"] == issues["project"].nunique()
    assert v["always_final_pairs"] == int(
        ((a.final_by_project["stratum"] != "all") & (a.final_by_project["share"] == 1.0)).sum())
    m = rep.metrics(a)
    assert set(m["fleiss_kappa"]) >= {"all"}
    repro = rep.reproduced(a, load_claims())
    assert set(repro) == {"agreement.kappa.bug", "agreement.kappa.requirement",
                          "agreement.kappa.question"}


def test_missing_ratings_are_reported(tmp_path, taxonomy, projects_meta):
    small_dump(tmp_path / "d")
    issues = clean_issues(tmp_path / "d", taxonomy, projects_meta)
    issues.loc[:4, "annotator_3"] = None
    a = rep.analyse(issues, taxonomy, list(projects_meta), 0, 1)
    row = rep.stat(a, "all", "all issues", "fleiss_kappa")
    assert row["issues_left_out"] == 5 and row["issues_used"] == len(issues) - 5
    assert rep.stat(a, "all", "all issues", "krippendorff_alpha")["issues_used"] == len(issues)
    assert "5 issues lack" in rep.method_note(a)


@needs_mirror
@pytest.mark.mirror
@pytest.mark.slow
def test_mirror_reproduces_the_paper_and_matches_the_libraries(taxonomy, projects_meta):
    import krippendorff
    from irrCAC.raw import CAC
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    from tests.support.mirror import MIRROR

    issues = clean_issues(MIRROR, taxonomy, projects_meta)
    a = rep.analyse(issues, taxonomy, list(projects_meta), 20, 1)
    claims = load_claims()
    versus = rep.grouping_versus_paper(a.grouping, claims)
    assert versus.groupby("grouping")["matches_paper"].all().to_dict()["final label"]
    for cid, entry in rep.reproduced(a, claims).items():
        paper = claims.set_index("claim_id").loc[cid, "paper_value"]
        assert judge(paper, entry["value"]) == "exact", (cid, entry)
    cols = list(a.ratings.annotators)
    for t, group in issues.groupby("type"):
        ours = rep.stat(a, "type", t, "fleiss_kappa")["value"]
        assert ours == pytest.approx(fleiss_kappa(aggregate_raters(group[cols].to_numpy())[0]),
                                     abs=1e-9)
    codes = a.ratings.codes
    alpha = rep.stat(a, "all", "all issues", "krippendorff_alpha")["value"]
    assert alpha == pytest.approx(krippendorff.alpha(
        reliability_data=codes.T.astype(float), level_of_measurement="nominal"), abs=1e-9)
    irr = CAC(pd.DataFrame(codes.astype(float)), categories=list(map(float, range(
        a.ratings.n_categories))), digits=15)
    ac1 = rep.stat(a, "all", "all issues", "gwet_ac1")
    assert ac1["value"] == pytest.approx(irr.gwet()["est"]["coefficient_value"], abs=1e-9)
    fk = rep.stat(a, "all", "all issues", "fleiss_kappa")
    assert fk["se"] == pytest.approx(irr.fleiss()["est"]["se"], abs=1e-9)
    fast = ag.fleiss_by_group(codes, np.zeros(len(codes), dtype=int), 1, a.ratings.n_categories)
    assert fast["kappa"][0] == pytest.approx(fk["value"], abs=1e-12)


@pytest.mark.slow
def test_notebook_runs_on_a_synthetic_dump(tmp_path, taxonomy, projects_meta):
    from analysis.core.config import ROOT
    from analysis.tools.nbrun import run

    small_dump(tmp_path / "d")
    issues = clean_issues(tmp_path / "d", taxonomy, projects_meta)
    parquet = tmp_path / "issues.parquet"
    artifacts.write_parquet(parquet, issues)
    out = tmp_path / "out"
    params = {"issues_parquet": str(parquet), "bootstrap_resamples": 40, "seed": 3,
              "tables_dir": str(out / "tables"), "figures_dir": str(out / "figures"),
              "vars_json": str(out / "vars.json"), "reproduced_json": str(out / "repro.json"),
              "metrics_json": str(out / "metrics.json")}
    code = run(ROOT / "notebooks" / "04_agreement.py", out / "nb.ipynb", params)
    assert code == 0
    for name in ("headline", "statistics", "categories", "pairwise", "confusions",
                 "audit_dissent", "audit_spread"):
        assert (out / "tables" / f"agreement_{name}.csv").stat().st_size > 0
    for name in ("kappas", "pairwise", "categories", "groups", "audit_final",
                 "audit_dissent", "audit_targets"):
        for ext in ("svg", "png"):
            assert (out / "figures" / f"agreement_{name}.{ext}").is_file()
    repro = artifacts.read_json(out / "repro.json")
    assert set(repro) == {"agreement.kappa.bug", "agreement.kappa.requirement",
                          "agreement.kappa.question"}
    metrics = artifacts.read_json(out / "metrics.json")
    assert metrics["bootstrap_resamples"] == 40
    stats = pd.read_csv(out / "tables" / "agreement_statistics.csv")
    assert set(stats["grouping"]) == {"all", "type", "project", "year"}
